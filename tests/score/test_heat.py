"""Heat tables (byo/score/heat.py): the report's heatmaps and confusion matrices as coloured
HTML tables; each colour checked against matplotlib's colormap at the share the value stands for."""

from __future__ import annotations

import math

from matplotlib import colormaps
from matplotlib.colors import to_hex

from byo.score.heat import DARK_TEXT, EMPTY, LIGHT_TEXT, NO_DATA, confusion_table, heat_table


def cell(table: dict, row: int, column: int) -> dict:
    return table["rows"][row]["cells"][column]


def test_a_value_is_coloured_at_its_share_of_the_scale_and_text_contrasts():
    table = heat_table([[0.0, 0.25, 1.0], [1.5, -0.2, 0.5]], ["a", "b", "c"], ["m1", "m2"], kind="model x prompt",
                       title="Accuracy", row_label="model", column_label="prompt", caption="", vmin=0, vmax=1)
    viridis = colormaps["viridis"]
    assert cell(table, 0, 0)["background"] == to_hex(viridis(0.0))  # dark purple
    assert cell(table, 0, 1)["background"] == to_hex(viridis(0.25))
    assert cell(table, 0, 2)["background"] == to_hex(viridis(1.0))  # yellow
    assert cell(table, 1, 0)["background"] == to_hex(viridis(1.0))  # above the scale: its end
    assert cell(table, 1, 1)["background"] == to_hex(viridis(0.0))
    assert cell(table, 0, 0)["color"] == LIGHT_TEXT and cell(table, 0, 2)["color"] == DARK_TEXT
    assert [c["text"] for c in table["rows"][0]["cells"]] == ["0.00", "0.25", "1.00"]
    assert [r["label"] for r in table["rows"]] == ["m1", "m2"] and table["columns"] == ["a", "b", "c"]


def test_a_cell_without_a_value_is_grey_with_its_note():
    table = heat_table([[math.nan, None, 0.5]], [1, 2, 3], ["x"], kind="two variables", title="t", row_label="r",
                       column_label="c", caption="", notes=[["n=3", "", "n=12 p=100%"]])
    assert cell(table, 0, 0) == {"text": "–", "note": "n=3", "background": NO_DATA, "color": "#6b7280"}
    assert cell(table, 0, 1)["background"] == NO_DATA and cell(table, 0, 1)["note"] == ""
    assert cell(table, 0, 2)["note"] == "n=12 p=100%" and table["columns"] == ["1", "2", "3"]


def test_a_reversed_scale_colours_low_errors_yellow():
    table = heat_table([[0.0, 2.0]], ["a", "b"], ["m"], kind="two variables", title="MAE", row_label="r",
                       column_label="c", caption="", cmap="viridis_r", vmax=2.0)
    assert cell(table, 0, 0)["background"] == to_hex(colormaps["viridis_r"](0.0)) == to_hex(colormaps["viridis"](1.0))
    assert cell(table, 0, 1)["background"] == to_hex(colormaps["viridis"](0.0))


def test_a_confusion_cell_is_its_count_shaded_by_its_share_of_the_row():
    counts = {(3, 3): 6, (3, 4): 2, (4, 4): 5, (5, "<refusal>"): 1}
    table = confusion_table(counts, [3, 4, 5], [3, 4, 5, "<refusal>"], title="blind")
    blues = colormaps["Blues"]
    assert [c["text"] for c in table["rows"][0]["cells"]] == ["6", "2", "", ""]
    assert cell(table, 0, 0)["background"] == to_hex(blues(6 / 8)) and cell(table, 0, 1)["background"] == to_hex(
        blues(2 / 8))
    assert cell(table, 1, 1)["background"] == to_hex(blues(1.0))  # the whole row
    assert cell(table, 0, 2)["background"] == EMPTY  # no answer fell there
    assert cell(table, 2, 3)["text"] == "1" and table["columns"][-1] == "<refusal>"
    assert table["row_label"] == "truth" and table["column_label"] == "predicted"
