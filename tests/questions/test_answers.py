"""Questions from rendered legends: answers recomputed independently, counts, prompt variants."""

from __future__ import annotations

import json
import re
from collections import Counter

import numpy as np
import pytest
from conftest import clevr_config, write_config

from byo.cli import main
from byo.core.dataset import RESOLVED_CONFIG, Layout
from byo.core.errors import ConfigError, InputError
from byo.families import get_family
from byo.families.base import Retrieval, Skip, Unreadable, option_index, retrieval_choice
from byo.questions.generate import INSTRUCTIONS, PREPROMPTS, default_keys, expand_keys, generate
from byo.questions.load import load_questions
from byo.render.runner import render_dataset
from byo.scene.measure import read_mask

pytestmark = pytest.mark.render
FAST = {"samples": 1, "denoise": "off", "adaptive_threshold": None}
# The chess visibility threshold shrunk with these small images (23 px at 640x360 is 1 px at
# 96x54), so that the same pieces count as at full size.


def chess_cfg(name, content, variables=None, n_images=1, **scene):
    return {"dataset": {"name": name, "family": "chess", "seed": 12, "n_images": n_images},
            "scene": {"resolution": [96, 54], "render": {**FAST, "on_hidden": "flag", "min_visible_pixels": 1}, **scene,
                      "content": content},
            "variables": variables or {}}


@pytest.fixture(scope="module")
def datasets(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("qa")
    configs = {
        "chess": chess_cfg("qchess", {"count": [1, 6]}, n_images=12, variables={
            "camera.azimuth": {"type": "varying_among_range", "min": 0.0, "max": 360.0}}),
        "clevr": clevr_config("qclevr", n_images=8, content={"mode": "random", "count": [2, 6]}),
        # Big enough to read shapes (objects at least 8 px across; see the CLEVR model).
        "binding": clevr_config("qbind", n_images=4, content={"mode": "color_binding", "count": 3, "extent": 2.0},
                                resolution=[128, 96]),
        "relational": clevr_config("qrel", n_images=4, content={"mode": "relational", "extent": 1.5},
                                   resolution=[128, 96]),
        "two": clevr_config("qtwo", n_images=4, content={"mode": "two_object", "extent": 1.5}, resolution=[128, 96]),
        "crest": {"dataset": {"name": "qcrest", "family": "crest", "seed": 5, "n_images": 8},
                  "scene": {"resolution": [64, 64], "content": {"mode": "composite"}}},
    }
    out = {}
    for name, cfg in configs.items():
        out[name] = tmp / name
        assert not render_dataset(str(write_config(tmp, cfg, f"{name}.yaml")), str(out[name]),
                                  show_progress=False).failed
    return out


def rows_of(dataset, **kw):
    path, summary = generate(dataset, **kw)
    return [json.loads(line) for line in path.read_text().splitlines()], summary


def legends_by_image(dataset):
    return {json.loads(p.read_text())["image"]: json.loads(p.read_text()) for p in (dataset / "legends").glob("*.json")}


def test_counts_equal_images_times_keys_times_variants_minus_skips(datasets):
    for dataset in datasets.values():
        rows, summary = rows_of(dataset, preprompts=PREPROMPTS, instructions=INSTRUCTIONS)
        keys = {r["key"] for r in rows} | set(summary.skipped)
        assert len(rows) == summary.images * len(keys) * 15 - sum(summary.skipped.values())
        assert len({r["id"] for r in rows}) == len(rows)
        for r in rows:
            assert "{{" not in r["prompt"] and "}}" not in r["prompt"] and "{%" not in r["prompt"]
        load_questions(dataset / "questions.jsonl", dataset)  # the file byo eval reads


def view_cell_from_pixels(legend: dict, o: dict) -> tuple[int, int]:
    """A piece's view row and column read off the image: how many cells of its board line lie
    above it (row) and to its left (column), using the projected board corners."""
    board = legend["extras"]["board"]
    cols = board["columns"] + 1
    corners = np.array([c[:2] for c in legend["landmarks"]["board_corners"]])

    def centre(a, b):
        return corners[[a * cols + b, a * cols + b + 1, (a + 1) * cols + b, (a + 1) * cols + b + 1]].mean(0)

    i, j = o["attributes"]["cell"]
    here = centre(i, j)
    cells = [(a, b) for a in range(board["rows"]) for b in range(board["columns"])]
    swapped = board["view_axes_swapped"]
    same_column = [centre(a, b) for a, b in cells if (a == i if swapped else b == j)]
    same_row = [centre(a, b) for a, b in cells if (b == j if swapped else a == i)]
    return sum(c[1] < here[1] for c in same_column), sum(c[0] < here[0] for c in same_row)


def test_chess_answers_match_an_independent_reading_of_the_legend(datasets):
    dataset = datasets["chess"]
    rows, summary = rows_of(dataset)
    legends = legends_by_image(dataset)
    assert summary.skipped["localize_row_one_piece"] > 0  # images with several pieces skip it
    for r in rows:
        legend = legends[r["image"]]
        mask = read_mask(dataset / legend["image"].replace("images/", "masks/"))
        threshold = legend["setup"]["min_visible_pixels"]
        shown = [o for o in legend["objects"] if (mask == o["id"]).sum() >= threshold]  # from the mask itself
        board = legend["extras"]["board"]

        def image_row_col(o, legend=legend):
            return view_cell_from_pixels(legend, o)

        key, answer, params = r["key"], r["answer"], r["params"]
        if key == "count_pieces":
            assert answer == len(shown)
        elif key == "count_squares":
            assert answer == board["rows"] * board["columns"]
        elif key == "count_identification_white_pieces":
            assert answer == sum(o["attributes"]["color"] == "white" for o in shown)
        elif key in ("count_identification_piece_type", "count_identification_any_piece_type"):
            assert answer == sum(o["attributes"]["type"] == params["piece_type"] for o in shown)
            if key == "count_identification_piece_type":  # X among the types on the board
                assert answer >= 1
        elif key in ("localize_row_one_piece", "localize_column_one_piece"):
            assert len(shown) == 1
            assert answer == image_row_col(shown[0])[0 if "row" in key else 1]
        elif key == "count_localization_pieces_on_row":
            assert answer == sum(image_row_col(o)[0] == params["row"] for o in shown)
        elif key == "identify_localization_piece_type":
            (o,) = [o for o in shown if image_row_col(o) == (params["row"], params["column"])]
            assert answer == o["attributes"]["type"]
        elif key == "localize_rows_between_two_pieces":
            a, b = shown
            assert answer == abs(image_row_col(a)[0] - image_row_col(b)[0])


def test_clevr_answers_match_an_independent_reading_of_the_legend(datasets):
    for name in ("clevr", "binding", "relational", "two"):
        dataset = datasets[name]
        rows, _ = rows_of(dataset, unreadable="ask")  # the answers themselves, readable or not
        legends = legends_by_image(dataset)
        for r in rows:
            legend = legends[r["image"]]
            objects = legend["objects"]
            key, answer, params = r["key"], r["answer"], r["params"]
            x = {f"{o['attributes']['color']} {o['kind']}": o["pixel_coords"][0] for o in objects}
            if key == "count_objects":
                assert answer == len(objects)
            elif key == "count_color":
                assert answer == sum(o["attributes"]["color"] == params["color"] for o in objects)
            elif key == "exist_color_shape":
                assert answer == ("yes" if f"{params['color']} {params['shape']}" in x else "no")
            elif key == "relate_left":
                assert answer == ("yes" if x[params["a"]] < x[params["b"]] else "no")
            elif key == "query_color_unique_shape":
                (o,) = [o for o in objects if o["kind"] == params["shape"]]
                assert answer == o["attributes"]["color"]
            elif r["answer_type"] == "multiple_choice":
                chosen = r["choices"][option_index(answer)]
                assert chosen in r["prompt"] and len(set(r["choices"])) == len(r["choices"])
                by_x = sorted(objects, key=lambda o: o["pixel_coords"][0])
                if key.startswith("binding"):
                    truth = [f"a {o['attributes']['color']} {o['kind']}" for o in by_x]
                    assert chosen == ", ".join(truth[:-1]) + " and " + truth[-1]
                    others = [c for c in r["choices"] if c != chosen]
                    assert others and all(c != chosen for c in others)
                elif key == "relation_choice":  # the study's prompts: "a photo of a cube to the left of a sphere"
                    left, right = by_x[0]["kind"], by_x[1]["kind"]
                    assert chosen in (f"a photo of a {left} to the left of a {right}",
                                      f"a photo of a {right} to the right of a {left}")
                    for other in r["choices"]:
                        if other != chosen:
                            a, rel, b = re.fullmatch(r"a photo of a (\w+) to the (left|right) of a (\w+)", other).groups()
                            assert not ((rel == "left" and (a, b) == (left, right))
                                        or (rel == "right" and (a, b) == (right, left)))
                elif key == "label_choice":  # "a photo of a red cube"
                    labels = [c.removeprefix("a photo of a ") for c in r["choices"]]
                    assert labels[r["choices"].index(chosen)] in x
                    assert sum(label in x for label in labels) == 1
        if name == "binding":
            assert Counter(r["key"] for r in rows)["binding_swap"] == 4
            swap = next(r for r in rows if r["key"] == "binding_swap")
            assert len(swap["choices"]) == 6  # 3! orderings of three colours
            confusion = next(r for r in rows if r["key"] == "binding_confusion")
            assert len(confusion["retrieval"]["captions"]) == 3**6  # N^(2N) captions read left to right
            # a chat model sees 50 (Auto-Comp's count for its blind LLM, Table 9)
            assert len(confusion["choices"]) == 50 and confusion["params"]["presented"] == "50 of 729 captions"


def test_answers_follow_the_camera(tmp_path):
    """The same piece seen from the four sides: the row answer follows the image."""
    content = {"board": {"rows": 4, "columns": 4}, "pieces": [{"type": "queen", "cell": [0, 1]}]}
    answers = {}
    for azimuth in (0, 90, 180, 270):
        cfg = chess_cfg(f"az{azimuth}", content, camera={"azimuth": azimuth, "distance": 1.0})
        out = tmp_path / f"az{azimuth}"
        render_dataset(str(write_config(tmp_path, cfg, f"az{azimuth}.yaml")), str(out), show_progress=False)
        rows, _ = rows_of(out, keys=["localize_row_one_piece", "localize_column_one_piece"])
        answers[azimuth] = tuple(r["answer"] for r in rows)
    # Physical cell (0, 1) is at +Y, just left of centre in x. From azimuth 0 (camera at -Y) it is
    # on the far row; from 180 on the near row, mirrored; from 90 (camera at +X, so +Y is on the
    # right) x becomes depth and it is on the right edge; from 270 on the left edge.
    assert answers == {0: (0, 1), 90: (1, 3), 180: (3, 2), 270: (2, 0)}


def test_unknown_keys_and_variants_fail_before_writing(datasets, capsys):
    dataset = datasets["clevr"]
    (dataset / "questions.jsonl").unlink(missing_ok=True)
    with pytest.raises(ConfigError, match="unknown question key 'count_pieces' for clevr"):
        generate(dataset, keys=["count_pieces"])
    assert main(["questions", str(dataset), "--preprompts", "polite"]) == 2
    assert "unknown preprompt 'polite'" in capsys.readouterr().err
    assert not (dataset / "questions.jsonl").exists()
    assert main(["questions", str(dataset), "--preprompts", "neutral,helpful", "--instructions", "declarative"]) == 0
    rows = [json.loads(line) for line in (dataset / "questions.jsonl").read_text().splitlines()]
    assert {(r["preprompt"], r["instruction"]) for r in rows} == {("neutral", "declarative"), ("helpful", "declarative")}
    assert all(r["prompt"].startswith("The image shows simple 3D objects") for r in rows if r["preprompt"] == "helpful")


def test_crest_answers_match_the_legend_factors(datasets):
    from byo.families.crest.motifs import labels, library

    dataset = datasets["crest"]
    rows, summary = rows_of(dataset)
    assert summary.images == 8
    legends = legends_by_image(dataset)
    for r in rows:
        factors = legends[r["image"]]["extras"]["crest"]
        truth = (tuple(factors["containers"]), factors["modifier"], factors["motif"])
        key, answer = r["key"], r["answer"]
        if key == "describe_program":
            assert answer == legends[r["image"]]["extras"]["program"]
            crest = labels.parse_program(answer)
        elif key == "describe_kdl":
            crest = labels.parse_kdl(answer)
        elif key == "describe_english":
            crest = labels.parse_english(answer)
        elif key == "identify_container":
            first = factors["containers"][:1]
            assert answer == (library.CONTAINERS_BY_ID[first[0]].en if first else "none")
            continue
        elif key == "identify_motif":
            assert r["choices"]["ABCDE".index(answer)] == library.MOTIFS_BY_ID[factors["motif"]].en
            continue
        elif key == "crest_choice":
            chosen = labels.parse_english(r["choices"]["ABCDE".index(answer)])
            assert (chosen.containers, chosen.modifier, chosen.motif) == truth
            for other in r["choices"]:
                parsed = labels.parse_english(other)
                assert other == r["choices"]["ABCDE".index(answer)] or (
                    parsed.containers, parsed.modifier, parsed.motif) != truth
            continue
        else:
            continue
        assert (crest.containers, crest.modifier, crest.motif) == truth


def test_a_candidate_set_is_recorded_once_with_the_chance_as_asked(datasets, monkeypatch):
    """An answer function may return a Retrieval: the question file holds every caption once (for
    image-text models to rank) and the lettered options a chat model is asked, with its chance."""
    family = get_family("clevr")
    original = family.answers["binding_confusion"]

    def confusion(legend, rng):
        answer = original(legend, rng)
        if isinstance(answer, Unreadable):  # the candidate set, readable in the image or not
            answer = answer.answer
        if isinstance(answer, Skip):
            return answer
        truth = answer.choices[option_index(answer.value)]
        captions = (f"not {truth} {k}" for k in range(40))
        return retrieval_choice(Retrieval((*captions, truth), 40, ("confusion",) * 40 + ("truth",)), rng)

    monkeypatch.setitem(family.answers, "binding_confusion", confusion)
    rows, _ = rows_of(datasets["binding"], keys=["binding_confusion"], preprompts=["neutral"], instructions=["direct"])
    assert rows
    for row in rows:
        candidates = row["retrieval"]
        assert len(candidates["captions"]) == 41 and candidates["tags"][candidates["truth"]] == "truth"
        assert len(row["choices"]) == 26 and row["chance"] == pytest.approx(1 / 26)
        assert row["choices"][option_index(row["answer"])] == candidates["captions"][candidates["truth"]]
        assert set(row["choices"]) <= set(candidates["captions"])
        assert row["params"]["presented"] == "26 of 41 captions"
    loaded = load_questions(datasets["binding"] / "questions.jsonl", datasets["binding"])
    # stored in the question's own seeded order, recorded with it: the truth no longer at 40 (as built)
    assert [q.retrieval.truth for q in loaded] == [r["retrieval"]["truth"] for r in rows]
    assert all(q.retrieval.order_seed is not None for q in loaded) and {q.retrieval.truth for q in loaded} != {40}
    again, _ = rows_of(datasets["binding"], keys=["binding_confusion"], preprompts=["neutral"], instructions=["direct"])
    assert again == rows  # the options a chat model sees are drawn from the question's own seed


def test_multiple_choice_and_yes_no_questions_record_their_chance(datasets):
    rows, _ = rows_of(datasets["relational"])
    for row in rows:
        if row["choices"]:
            assert row["chance"] == pytest.approx(1 / len(row["choices"]))
        elif row["answer_type"] == "yes_no":
            assert row["chance"] == 0.5
        else:
            assert "chance" not in row
    assert any(row["choices"] for row in rows)


def test_a_retrieval_set_is_checked():
    with pytest.raises(ValueError, match="truth among its captions"):
        Retrieval(("a", "b"), 2, ("truth", "x"))
    with pytest.raises(ValueError, match="differ"):
        Retrieval(("a", "a"), 0, ("truth", "x"))
    few = retrieval_choice(Retrieval(("a", "b", "c"), 1, ("x", "truth", "y")), np.random.default_rng(0))
    assert sorted(few.choices) == ["a", "b", "c"] and few.params["presented"] == "all 3 captions"
    assert few.choices[option_index(few.value)] == "b" and few.chance == pytest.approx(1 / 3)


def test_opt_in_keys_are_asked_only_when_named_by_the_command_or_the_config(tmp_path):
    """COMPASS's caption keys are CLEVR's opt-in set (every other CLEVR dataset would only skip
    them), with the compositional-generalisation study's relational ZSL as the paper samples it (relation_zsl_split). Without
    --keys, `byo questions` asks the config's questions.keys, else every key but the opt-in ones."""
    known = list(get_family("clevr").answers)
    opt_in = get_family("clevr").opt_in_keys
    default = expand_keys(None, known, opt_in)
    assert default and not any(k.startswith("compass_") for k in default)
    assert set(known) - set(default) == {k for k in known if k.startswith("compass_")} | {"relation_zsl_split"}
    named = expand_keys(["compass_oa_*"], known, opt_in)
    assert named and all(k.startswith("compass_oa_") for k in named)
    layout = Layout(tmp_path)
    (tmp_path / RESOLVED_CONFIG).write_text(json.dumps({"questions": {"keys": ["compass_*", "count_objects"]}}))
    assert default_keys(layout) == ["compass_*", "count_objects"]
    (tmp_path / RESOLVED_CONFIG).write_text(json.dumps({"questions": {"keys": "compass_*"}}))
    with pytest.raises(InputError, match="questions.keys"):
        default_keys(layout)
