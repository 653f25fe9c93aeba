"""A sheet of the family's own, `byo sheet toy DATASET` (named after the package, as the family
is): each image with its cube count."""

from pathlib import Path

from byo.families.api import Layout, Sheet, SheetOption, SheetRequest, grid, thumbnail


def draw(request: SheetRequest) -> Path:
    layout = Layout(request.target)
    legends = layout.legends()
    if not legends:
        raise FileNotFoundError(f"{request.target}: no complete images to put on a sheet")
    aspect = legends[0]["height"] / legends[0]["width"]
    tiles = [(thumbnail(layout.root / lg["image"], 160, aspect),
              [f"#{lg['index']}: {sum(o['visible'] for o in lg['objects'])} cubes"]) for lg in legends]
    return grid(tiles, request.output or layout.root / "toy_sheet.png", request.options["columns"] or 4, "toy cubes")


SHEETS = (Sheet(__package__, "each image of a toy dataset with its cube count", draw,
                options=(SheetOption("--columns", "images per row (without it: 4)"),),
                output_help="default: DATASET/toy_sheet.png"),)
