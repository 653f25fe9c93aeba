"""The separation rule on renders (byo/scene/counterfactual.py `merge_ratio`, applied to counts by
byo/families/base.py `ask` and by `byo audit`): a red queen and a blue rook on a 4x4 board of
stylised pieces. In opposite corners, sharp, they are two blobs and "how many pieces?" is asked
(2); on neighbouring squares, one behind the other under a strong blur (f/1), their removals'
differences make one hump and the count is not asked, though each piece's presence shows; `byo
audit` calls such a count ill-posed, from the measurements the render recorded and from the
alternatives it renders itself for a dataset without them."""

from __future__ import annotations

import json

import pytest
from conftest import write_config

from byo.audit.run import audit_dataset, unmeasured
from byo.cli import main
from byo.core.dataset import Layout
from byo.families import get_family
from byo.families.base import Answer, Unreadable, ask, seen_as_rendered
from byo.questions.generate import generate
from byo.scene import counterfactual as cf

pytestmark = pytest.mark.render

COLORS = ["white", {"name": "red", "rgb": [0.75, 0.12, 0.1]}, {"name": "blue", "rgb": [0.12, 0.25, 0.75]}]
SCENES = {"apart": ("none", [[3, 0], [0, 3]]), "merged": ("high", [[2, 1], [1, 1]])}


def _config(name: str) -> dict:
    blur, cells = SCENES[name]
    return {"dataset": {"name": name, "family": "chess", "seed": 3, "n_images": 1},
            "scene": {"resolution": [96, 72], "render": {"samples": 4, "denoise": "off", "min_visible_pixels": 10,
                                                         "on_hidden": "flag"},
                      "blur": {"fstop": blur},
                      "content": {"style": "stylised", "colors": COLORS, "max_rotation": 0,
                                  "board": {"rows": 4, "columns": 4},
                                  "pieces": [{"type": "queen", "color": "red", "cell": cells[0]},
                                             {"type": "rook", "color": "blue", "cell": cells[1]}]}},
            "questions": {"keys": ["count_pieces", "count_identification_white_pieces"]}}


@pytest.fixture(scope="module")
def scenes(tmp_path_factory) -> dict[str, Layout]:
    out = {}
    for name in SCENES:
        tmp = tmp_path_factory.mktemp(name)
        root = tmp / "ds"
        assert main(["render", str(write_config(tmp, _config(name))), "-o", str(root), "--in-process"]) == 0
        out[name] = Layout(root)
    return out


def _legend(layout: Layout) -> dict:
    return next(iter(layout.legends()))


def _asked(root) -> dict[str, object]:
    return {q["key"]: q["answer"] for q in map(json.loads, (root / "questions.jsonl").read_text().splitlines())}


def test_pieces_apart_are_counted(scenes, tmp_path):
    legend = _legend(scenes["apart"])
    found = [cf.measured(o) for o in legend["objects"]]
    assert all(m is not None and cf.visible(m.presence) for m in found)
    assert cf.merged_pair({o["id"]: m for o, m in zip(legend["objects"], found, strict=True)}) is None
    generate(scenes["apart"].root, out=tmp_path / "questions.jsonl")
    assert _asked(tmp_path)["count_pieces"] == 2


def test_pieces_that_blur_into_one_blob_are_present_but_not_counted(scenes, tmp_path):
    legend = _legend(scenes["merged"])
    found = {o["id"]: cf.measured(o) for o in legend["objects"]}
    assert all(cf.visible(m.presence) for m in found.values()), found  # each removal shows...
    pair = cf.merged_pair(found)
    assert pair is not None and pair[:2] == (1, 2) and pair[2] >= cf.MAX_MERGE  # ...as one hump
    family = get_family("chess")
    result = ask(family.answers["count_pieces"], seen_as_rendered(legend), "count_pieces")
    assert isinstance(result, Unreadable) and result.rule == "separation" and result.objects == (1, 2)
    assert result.answer.value == 2
    # a count that rests on neither piece (no white piece: 0 either way) is not the rule's business
    white = ask(family.answers["count_identification_white_pieces"], seen_as_rendered(legend),
                "count_identification_white_pieces")
    assert isinstance(white, Answer) and white.value == 0
    generate(scenes["merged"].root, out=tmp_path / "questions.jsonl")
    assert _asked(tmp_path) == {"count_identification_white_pieces": 0}


def test_byo_audit_calls_a_count_of_merged_pieces_ill_posed_from_the_legend_and_from_its_own_renders(scenes):
    root = scenes["merged"].root
    generate(root, unreadable="ask", force=True)  # asked anyway: the audit must catch it
    assert "count_pieces" in _asked(root)
    report = audit_dataset(root, show_progress=False)
    ill = {f["key"]: f["reason"] for f in report.to_json()["findings"] if f["status"] == "ill_posed"}
    assert set(ill) == {"count_pieces"} and "unreadable (separation)" in ill["count_pieces"], ill
    # the same dataset without the render's measurements: the audit renders the alternatives itself
    legend_path = scenes["merged"].legend(_legend(scenes["merged"])["name"])
    legend = json.loads(legend_path.read_text())
    for o in legend["objects"]:
        o.pop(cf.LEGEND_FIELD, None)
    legend["setup"]["render"].pop("counterfactual", None)
    legend_path.write_text(json.dumps(legend, indent=1) + "\n")
    assert unmeasured(root) == [legend["name"]]
    assert main(["audit", str(root)]) == 1
    findings = json.loads((root / "audit.json").read_text())["findings"]
    assert [(f["key"], f["status"]) for f in findings if f["status"] != "ok"] == [("count_pieces", "ill_posed")]
    assert all("separation" in f["reason"] for f in findings if f["status"] == "ill_posed")
