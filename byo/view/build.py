"""`byo view RUN [RUN...] -o FILE`: a static page listing every answered question of one or more runs.

Each question shows its image beside an overlay of the objects it is about, the prompt as sent, the
truth, and per run the raw answer, the parsed value with the rule (or judge) that decided it, the
parse status and the verdict; runs over the
same questions stand side by side. Filters: key, level, model, verdict and parse status. The page
needs no server: FILE loads its data from FILE_files/data.js (a script, since browsers refuse to
read a JSON file from a file:// page) and shows one page of rows at a time, its images loaded
lazily, so a run of 100,000 questions stays usable.

The objects a question is about are read off its legend: the visible objects, narrowed to those
whose attributes match the question's parameters (`row` 3, `piece_type` pawn, `mat_color` red...)
and the attribute values named in its key (`count_identification_white_pieces`: white). A key that
names none (count_pieces) is about every visible object. The overlay tints their pixels on the
instance mask and draws their boxes from the legend.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import io
import json
import math
from collections.abc import Sequence
from pathlib import Path

import jinja2
import numpy as np
from PIL import Image, ImageDraw

from byo import __version__
from byo.core.dataset import LEGENDS, Layout, atomic_write_bytes, atomic_write_text
from byo.core.outputs import check_file_output, check_folder_output, writing_outputs
from byo.core.paths import relative_url
from byo.core.progress import Bar
from byo.diagnose.twins import load_twins
from byo.score.run import Scores

TEMPLATE = Path(__file__).with_name("templates") / "view.html.j2"
OVERLAY_WIDTH = 320  # overlays of smaller images are scaled up to about this width
TINT = np.array([255, 64, 160], float)
BOX = (255, 220, 0)


def files_dir(page: Path) -> Path:
    return page.with_name(page.stem + "_files")


# --- which objects a question is about ----------------------------------------------------------
def _matches(attributes: dict, name: str, value) -> bool | None:
    """Whether an object's attribute named like the parameter has its value; None when it has none."""
    for attr, have in attributes.items():
        if name == attr or name.endswith("_" + attr):
            return str(have).lower() == str(value).lower()
    return None


def attribute_values(legend: dict) -> set[str]:
    return {str(v).lower() for o in legend.get("objects", []) for v in o.get("attributes", {}).values()
            if isinstance(v, str)}


def subjects(legend: dict, key: str, params: dict, vocabulary: set[str] | None = None) -> list[dict]:
    """The visible objects the question is about. `vocabulary`: the attribute values of the dataset's
    objects, so that a key naming a value no object of this image has (white pieces on a board of
    black ones) is about no object."""
    objects = [o for o in legend.get("objects", []) if o.get("visible", True)]
    for name, value in params.items():
        if isinstance(value, dict | list):
            continue
        checks = [_matches({**o.get("attributes", {}), "kind": o.get("kind")}, name, value) for o in objects]
        if any(c is not None for c in checks):
            objects = [o for o, c in zip(objects, checks, strict=True) if c]
    named = set(key.lower().split("_")) & (vocabulary if vocabulary is not None else attribute_values(legend))
    for value in named:
        objects = [o for o in objects if value in {str(v).lower() for v in o.get("attributes", {}).values()}]
    return objects


# --- overlays ----------------------------------------------------------------------------------
class Overlays:
    """One PNG per (image, objects) under FILE_files/overlays/, drawn once and kept across runs of byo
    view: the name is a hash of the image (path, size, modification time) and the object ids."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.folder.mkdir(parents=True, exist_ok=True)
        self.legends: dict[Path, dict | None] = {}
        self.wanted: dict[Path, tuple] = {}  # overlay path -> (dataset, image, legend, ids)
        self.vocabulary: dict[Path, set[str]] = {}  # per dataset: its objects' attribute values
        # (dataset, image, key, params) -> request's answer: a question's prompt variants and
        # repeats share their image, key and params, and so their overlay
        self.requested: dict[tuple, tuple[Path | None, int | None]] = {}

    def values_of(self, dataset: Path) -> set[str]:
        if dataset not in self.vocabulary:
            values: set[str] = set()
            for path in (dataset / LEGENDS).glob("[!.]*.json"):
                try:
                    values |= attribute_values(json.loads(path.read_text()))
                except (OSError, ValueError):
                    continue
            self.vocabulary[dataset] = values
        return self.vocabulary[dataset]

    def legend(self, dataset: Path, image: str) -> dict | None:
        path = Layout(dataset).legend(Path(image).stem)
        if path not in self.legends:
            try:
                self.legends[path] = json.loads(path.read_text())
            except (OSError, ValueError):
                self.legends[path] = None
        return self.legends[path]

    def request(self, dataset: Path, image: str, key: str, params: dict) -> tuple[Path | None, int | None]:
        """The overlay's path (drawn later by `draw`) and the number of objects, or (None, None)
        without a legend and a mask."""
        asked = (dataset, image, key, json.dumps(params, sort_keys=True, default=str))
        if asked not in self.requested:
            self.requested[asked] = self._request(dataset, image, key, params)
        return self.requested[asked]

    def _request(self, dataset: Path, image: str, key: str, params: dict) -> tuple[Path | None, int | None]:
        legend = self.legend(dataset, image)
        if legend is None or not (dataset / legend.get("mask", "")).is_file():
            return None, None
        ids = tuple(sorted(int(o["id"]) for o in subjects(legend, key, params, self.values_of(dataset))))
        stat = (dataset / image).stat() if (dataset / image).is_file() else None
        stamp = f"{stat.st_size}|{stat.st_mtime_ns}" if stat else "missing"
        digest = hashlib.sha256(f"{dataset.resolve()}|{image}|{stamp}|{ids}".encode()).hexdigest()[:20]
        path = self.folder / f"{digest}.png"
        self.wanted.setdefault(path, (dataset, image, legend, ids))
        return path, len(ids)

    def draw(self, show_progress: bool = True) -> int:
        todo = [(p, w) for p, w in self.wanted.items() if not p.is_file()]
        todo.sort(key=lambda item: (str(item[1][0]), item[1][1]))  # an image's overlays one after another
        with Bar("[bold]overlays[/bold]", len(todo), unit="img", enabled=show_progress and bool(todo)) as bar:
            last, pixels, mask = None, None, None
            for path, (dataset, image, legend, ids) in todo:
                if last != (dataset, image):
                    last = (dataset, image)
                    try:
                        with Image.open(dataset / image) as im:
                            pixels = np.asarray(im.convert("RGB"), float)
                        with Image.open(dataset / legend["mask"]) as m:
                            mask = np.asarray(m)
                    except OSError as err:  # the page shows the overlay as missing
                        bar.console.print(f"[yellow]no overlay for {dataset / image}: {err}[/yellow]")
                        pixels = mask = None
                if pixels is not None:
                    atomic_write_bytes(path, overlay_png(pixels, mask, legend, ids))
                bar.advance(failed=pixels is None)
        return len(todo)


def overlay_png(pixels: np.ndarray, mask: np.ndarray, legend: dict, ids: Sequence[int]) -> bytes:
    """The image dimmed, the objects' pixels tinted, and their boxes drawn."""
    if mask.ndim == 3:
        mask = mask[..., 0]
    # Parts with mask ids of their own (a card's corner indices) belong to their object.
    tinted = set(ids) | {int(p["id"]) for p in legend.get("parts", []) if int(p.get("object", -1)) in ids}
    chosen = np.isin(mask, sorted(tinted)) if tinted else np.zeros(mask.shape, bool)
    out = pixels * 0.55
    out[chosen] = pixels[chosen] * 0.45 + TINT * 0.55
    im = Image.fromarray(out.clip(0, 255).astype(np.uint8))
    scale = max(1, math.ceil(OVERLAY_WIDTH / im.width))
    if scale > 1:
        im = im.resize((im.width * scale, im.height * scale), Image.NEAREST)
    draw = ImageDraw.Draw(im)
    for o in legend.get("objects", []):
        if int(o["id"]) in ids and o.get("bbox"):
            x0, y0, x1, y1 = (v * scale for v in o["bbox"])
            draw.rectangle([x0, y0, x1 - 1, y1 - 1], outline=BOX, width=max(1, min(3, scale // 2)))
    buffer = io.BytesIO()
    im.save(buffer, format="PNG", optimize=False)
    return buffer.getvalue()


# --- the page's data -------------------------------------------------------------------------
class Strings:
    """Every distinct string once: the rows hold indices (prompts repeat over images, keys and
    statuses over every row)."""

    def __init__(self):
        self.index: dict[str, int] = {}
        self.values: list[str] = []

    def __call__(self, value) -> int:
        if value is None:
            return -1
        text = value if isinstance(value, str) else shown(value)
        i = self.index.get(text)
        if i is None:
            i = self.index[text] = len(self.values)
            self.values.append(text)
        return i


def shown(value) -> str:
    if isinstance(value, list | tuple):
        return ", ".join(shown(v) for v in value)
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, dict):
        return ", ".join(f"{k} {shown(v)}" for k, v in value.items())
    return str(value)


def decided_by(row: dict) -> str | None:
    """What decided a row's parse: the parser's rule ("rule: total"), or the judge that read it."""
    if row.get("path") == "judge":
        return f"judge: {row.get('judge')}"
    return f"rule: {row['method']}" if row.get("method") else None


def level_text(value) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def run_labels(runs: Sequence[Scores]) -> list[str]:
    labels = []
    for s in runs:
        label = s.facts.get("model") or s.facts["run"]
        labels.append(label if label not in labels else f"{label} ({s.facts['run']})")
    return labels


def page_data(runs: Sequence[Scores], page: Path, overlays: Overlays, title: str) -> dict:
    strings = Strings()
    order: dict[tuple, int] = {}  # (dataset, question id) -> question index
    q = {name: [] for name in ("id", "image", "overlay", "subjects", "key", "levels", "prompt", "truth", "type",
                               "variant")}
    keys: list[str] = []
    levelsets: dict[str, int] = {}
    variables: dict[str, list] = {}
    answers = []
    urls: dict[Path, str] = {}

    def url(target: Path) -> int:
        """The string index of `target`'s address from the page (each address worked out once)."""
        if target not in urls:
            urls[target] = relative_url(target, page.parent)
        return strings(urls[target])

    for s in runs:
        dataset = Path(s.facts.get("dataset") or ".")
        resolved = str(dataset.resolve())
        a = {"response": {}, "value": {}, "status": {}, "verdict": {}, "note": {}, "error": {}, "rule": {}, "twins": {}}
        twins = load_twins(s.facts["run_dir"]) if s.facts.get("run_dir") else {}  # byo explain's, beside each failure
        for r in s.rows:
            ident = (resolved, r["id"])
            i = order.get(ident)
            if i is None:
                i = order[ident] = len(q["id"])
                overlay, n_subjects = overlays.request(dataset, r["image"], r["key"], r.get("params") or {})
                if r["key"] not in keys:
                    keys.append(r["key"])
                levels = {k: level_text(v) for k, v in r["levels"].items()}
                for k, v in r["levels"].items():
                    values = variables.setdefault(k, [])
                    if v not in values:
                        values.append(v)
                text = json.dumps(levels, sort_keys=True)
                q["id"].append(r["id"])
                q["image"].append(url(dataset / r["image"]))
                q["overlay"].append(url(overlay) if overlay else -1)
                q["subjects"].append(-1 if n_subjects is None else n_subjects)
                q["key"].append(keys.index(r["key"]))
                q["levels"].append(levelsets.setdefault(text, len(levelsets)))
                q["prompt"].append(strings(r["prompt"]))
                q["truth"].append(strings(r["answer"]))
                q["type"].append(strings(r["answer_type"]))
                q["variant"].append(strings(r["variant"]))
            a["response"][i] = strings(r["response"])
            a["value"][i] = strings(r["value"]) if r["status"] == "ok" else -1
            a["status"][i] = r["status"]
            a["verdict"][i] = 1 if r["correct"] else 0
            a["note"][i] = strings(r.get("note"))
            a["rule"][i] = strings(decided_by(r))
            a["error"][i] = r["error"]
            if r["id"] in twins:
                a["twins"][i] = [[url(dataset / t["image"]) if t.get("image") else -1,
                                  strings(t["factor"]), strings(t["outcome"]), strings(t.get("response"))]
                                 for t in twins[r["id"]]]
        answers.append(a)
    n = len(q["id"])
    statuses = ["ok", "ambiguous", "refusal", "unparsed", "error"]
    columns = []
    for a in answers:
        columns.append({
            "response": [a["response"].get(i, -1) for i in range(n)],
            "value": [a["value"].get(i, -1) for i in range(n)],
            "status": [statuses.index(a["status"][i]) if i in a["status"] else -1 for i in range(n)],
            "verdict": [a["verdict"].get(i, -1) for i in range(n)],
            "note": [a["note"].get(i, -1) for i in range(n)],
            "rule": [a["rule"].get(i, -1) for i in range(n)],
            "error": [a["error"].get(i) for i in range(n)],
            "twins": {str(i): t for i, t in a["twins"].items()},
        })
    for k, values in variables.items():
        numeric = all(isinstance(v, int | float) and not isinstance(v, bool) for v in values)
        variables[k] = [level_text(v) for v in (sorted(values) if numeric else values)]
    labels = run_labels(runs)
    return {
        "title": title, "version": __version__, "generated": dt.datetime.now().strftime("%Y-%m-%d %H:%M"),
        "runs": [{"label": label, "run": s.facts["run"], "model": s.facts.get("model"), "dataset": s.facts.get("dataset"),
                  "answered": len(s.rows), "partial": bool(s.facts.get("partial"))} for label, s in zip(labels, runs, strict=True)],
        "statuses": statuses, "keys": keys, "variables": variables,
        "levelsets": [json.loads(t) for t in levelsets], "strings": strings.values, "q": q, "a": columns,
    }


def check_view_output(out: Path, *, force: bool = False, own_place: bool = False) -> None:
    """Refuse, before any work, a page or FILE_files/ in the way (byo.core.outputs): a directory,
    a link, or files byo did not write (unless `force`)."""
    check_file_output(out, force=force, own_place=own_place)
    check_folder_output(files_dir(out), force=force or own_place)


def write_view(runs: Sequence[Scores], out: Path, *, title: str | None = None, show_progress: bool = True,
               force: bool = False, own_place: bool = False) -> Path:
    """FILE and FILE_files/ (data.js, overlays/); overlays already drawn are kept. What is in the
    way is refused first (`check_view_output`); what was written is recorded as byo's."""
    out = Path(out)
    check_view_output(out, force=force, own_place=own_place)
    out.parent.mkdir(parents=True, exist_ok=True)
    with writing_outputs([out], "byo view", folders=[files_dir(out)]):
        folder = files_dir(out)
        overlays = Overlays(folder / "overlays")
        labels = run_labels(runs)
        title = title or "BYO Render samples: " + ", ".join(labels)
        data = page_data(runs, out, overlays, title)
        overlays.draw(show_progress)
        atomic_write_text(folder / "data.js", "window.BYO_VIEW = " + json.dumps(data, ensure_ascii=False,
                                                                                  separators=(",", ":")) + ";\n")
        env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATE.parent), autoescape=True,
                                 undefined=jinja2.StrictUndefined)
        html = env.get_template(TEMPLATE.name).render(title=title, data_src=relative_url(folder / "data.js", out.parent))
        atomic_write_text(out, html)
        return out

