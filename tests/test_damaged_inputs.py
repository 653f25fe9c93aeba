"""Every command against damaged inputs of each kind it reads, and against names and paths that
would lead outside: a table of (damage, command) cases. Each one must exit 1 or 2 with a message
whose first line names the file (or flag) and says what is wrong, print no traceback, and leave
nothing half-written: the directory is snapshot before and after (a refusal writes nothing; the
audit, which reports damage as findings, writes its complete audit.json and nothing else).

The world: a tiny rendered CLEVR dataset with its questions, an oracle run scored, and harness
logs to import, copied for every case."""

from __future__ import annotations

import hashlib
import io
import json
import shutil
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from conftest import clevr_config, write_config
from PIL import Image

from byo.cli import main
from byo.core.locks import writer_lock

pytestmark = pytest.mark.render
RUN = "runs/oracle"


def run_cli(argv: list[str]) -> int:
    try:
        return main(argv)
    except SystemExit as stop:  # argparse refuses a flag this way
        return stop.code


@pytest.fixture(scope="module")
def world(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("world")
    config = write_config(root, clevr_config("tiny", seed=5, n_images=2, resolution=[128, 96]), "tiny.yaml")
    assert run_cli(["render", str(config), "-o", str(root / "ds"), "--in-process"]) == 0
    assert run_cli(["questions", str(root / "ds")]) == 0
    assert run_cli(["eval", str(root / "ds"), "--provider", "oracle", "--run", "oracle"]) == 0
    assert run_cli(["score", str(root / "ds" / RUN), "--bootstrap", "0"]) == 0
    qid = json.loads((root / "ds" / "questions.jsonl").read_text().splitlines()[0])["id"]
    (root / "answers.jsonl").write_text(json.dumps({"id": qid, "response": "3"}) + "\n")
    return root


def snapshot(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "dir"
            for p in sorted(root.rglob("*"))}


def whole(path: Path) -> bool:
    """A file that reads as what its name says (JSON, JSON lines, PNG), i.e. not written in half."""
    if path.suffix == ".json":
        json.loads(path.read_bytes())
    elif path.suffix == ".jsonl":
        [json.loads(line) for line in path.read_bytes().splitlines() if line.strip()]
    elif path.suffix == ".png":
        with Image.open(path) as im:
            im.load()
    return True


# --- damage -------------------------------------------------------------------------------------
def first(root: Path, folder: str, suffix: str = "") -> Path:
    return sorted((root / "ds" / folder).glob(f"*{suffix}"))[0]


def cut(path_of: Callable[[Path], Path], keep: int | float = 0.5) -> Callable[[Path], None]:
    def damage(root: Path) -> None:
        path = path_of(root)
        data = path.read_bytes()
        path.write_bytes(data[: int(len(data) * keep)] if isinstance(keep, float) else data[:keep])
    return damage


def write(path_of: Callable[[Path], Path], content: str | bytes) -> Callable[[Path], None]:
    def damage(root: Path) -> None:
        path = path_of(root)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content if isinstance(content, bytes) else content.encode())
    return damage


def edit_json(path_of: Callable[[Path], Path], change: Callable[[dict], None]) -> Callable[[Path], None]:
    def damage(root: Path) -> None:
        path = path_of(root)
        data = json.loads(path.read_text())
        change(data)
        path.write_text(json.dumps(data))
    return damage


def edit_lines(path_of: Callable[[Path], Path], change: Callable[[list[dict]], None]) -> Callable[[Path], None]:
    def damage(root: Path) -> None:
        path = path_of(root)
        rows = [json.loads(line) for line in path.read_text().splitlines()]
        change(rows)
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return damage


def both(*damages: Callable[[Path], None]) -> Callable[[Path], None]:
    def damage(root: Path) -> None:
        for d in damages:
            d(root)
    return damage


def nothing(root: Path) -> None:
    pass


def symlink(path_of: Callable[[Path], Path], target: str) -> Callable[[Path], None]:
    def damage(root: Path) -> None:
        link = path_of(root)
        link.unlink()
        outside = root / target
        outside.write_bytes(b"secret outside the dataset")
        link.symlink_to(outside)
    return damage



legend = lambda r: first(r, "legends", ".json")  # noqa: E731
mask = lambda r: first(r, "masks")  # noqa: E731
image = lambda r: first(r, "images")  # noqa: E731
questions = lambda r: r / "ds" / "questions.jsonl"  # noqa: E731
resolved = lambda r: r / "ds" / "config.resolved.json"  # noqa: E731
render_log = lambda r: r / "ds" / "render_log.jsonl"  # noqa: E731
run_file = lambda r: r / "ds" / RUN / "run.json"  # noqa: E731
predictions = lambda r: r / "ds" / RUN / "predictions.jsonl"  # noqa: E731
answers = lambda r: r / "answers.jsonl"  # noqa: E731
inspect_log = lambda r: r / "log.eval"  # noqa: E731
BINARY = b"\x89PNG\r\n\x1a\n\x00\xff\xfe" * 40


def zipped(members: dict[str, str]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, text in members.items():
            archive.writestr(name, text)
    return buffer.getvalue()


def rescore(root: Path) -> None:
    """The run's scores gone: byo report scores it again, and reads its predictions."""
    for name in ("scores.json", "parsed.jsonl"):
        (root / "ds" / RUN / name).unlink()


@dataclass
class Case:
    damage: Callable[[Path], None]
    argv: list[str]  # DS: the dataset, R: the run, W: the world (the parent of DS), OUT: a new directory
    code: int
    names: str  # in the first line of the message: the file (or flag) at fault
    says: str  # ... and what is wrong
    writes: set[str] = field(default_factory=set)  # files that may change (complete): the audit's report
    locked: str | None = None  # a directory this process holds while the command runs


QUESTIONS = ["questions", "DS"]
AUDIT = ["audit", "DS"]
SHEET = ["sheet", "contact", "DS"]
EVAL = ["eval", "DS", "--provider", "oracle", "--run", "oracle"]
SCORE = ["score", "R", "--bootstrap", "0"]
REPORT = ["report", "R", "-o", "OUT/report.html", "--bootstrap", "0"]
STATUS = ["status", "DS"]
RESUME = ["render", "W/tiny.yaml", "-o", "DS", "--resume", "--in-process"]
MERGE = ["merge", "DS", "DS", "-o", "OUT"]


def export(fmt: str) -> list[str]:
    return ["export", "DS", "--format", fmt, "-o", "OUT"]


def importing(fmt: str, file: str = "W/answers.jsonl") -> list[str]:
    return ["import-predictions", file, "--format", fmt, "--dataset", "DS", "--run", "imported"]


AUDIT_WRITES = {"ds/audit.json"}
CASES: dict[str, Case] = {
    # legends: damaged, of another shape, pointing outside
    "legend cut short x questions": Case(cut(legend), QUESTIONS, 2, ".json", "legend unreadable"),
    "legend cut short x contact-sheet": Case(cut(legend), SHEET, 2, ".json", "legend unreadable"),
    "legend cut short x audit": Case(cut(legend), AUDIT, 1, ".json", "legend unreadable", AUDIT_WRITES),
    "legend a number x questions": Case(write(legend, "5"), QUESTIONS, 2, ".json", "not a JSON object"),
    "legend binary x audit": Case(write(legend, BINARY), AUDIT, 1, ".json", "legend unreadable", AUDIT_WRITES),
    "legend without objects x questions": Case(edit_json(legend, lambda lg: lg.pop("objects")), QUESTIONS, 2,
                                               ".json", "objects: Field required"),
    "legend without objects x contact-sheet": Case(edit_json(legend, lambda lg: lg.pop("objects")), SHEET, 2,
                                                   ".json", "objects"),
    "legend object id a string x questions": Case(edit_json(legend, lambda lg: lg["objects"][0].update(id="1")),
                                                  QUESTIONS, 2, ".json", "objects[0].id"),
    "legend NaN coordinates x audit": Case(edit_json(legend, lambda lg: lg["objects"][0].update(
        pixel_coords=[float("nan"), 1, 1])), AUDIT, 1, ".json", "pixel_coords", AUDIT_WRITES),
    "legend image outside x questions": Case(edit_json(legend, lambda lg: lg.update(image="../../secret.png")),
                                             QUESTIONS, 2, ".json", "image: '../../secret.png'"),
    "legend image outside x contact-sheet": Case(edit_json(legend, lambda lg: lg.update(image="/etc/passwd")),
                                                 SHEET, 2, ".json", "image: '/etc/passwd'"),
    "legend mask outside x audit": Case(edit_json(legend, lambda lg: lg.update(mask="../x.png")), AUDIT, 1,
                                        ".json", "mask: '../x.png'", AUDIT_WRITES),
    "legend of an unknown family x questions": Case(
        both(edit_json(legend, lambda lg: lg.update(family="checkers")),
             edit_json(lambda r: sorted((r / "ds" / "legends").glob("*.json"))[1],
                       lambda lg: lg.update(family="checkers"))), QUESTIONS, 2, ".json", "unknown family"),
    "legend of an unknown family x contact-sheet": Case(
        both(edit_json(legend, lambda lg: lg.update(family="checkers")),
             edit_json(lambda r: sorted((r / "ds" / "legends").glob("*.json"))[1],
                       lambda lg: lg.update(family="checkers"))), SHEET, 2, ".json", "unknown family"),
    "legend object without its attributes x questions": Case(
        edit_json(legend, lambda lg: lg["objects"][0].update(attributes={})), QUESTIONS, 2, ".json",
        "not a legend this version can read"),
    "legend listing an object the mask lacks x audit": Case(
        edit_json(legend, lambda lg: lg["objects"].append({**lg["objects"][0], "id": 77})), AUDIT, 1, "",
        "legend fields disagreeing", AUDIT_WRITES),
    "legend listing an object the mask lacks x render --resume": Case(
        edit_json(legend, lambda lg: lg["objects"].append({**lg["objects"][0], "id": 77})), RESUME, 2, ".json",
        "not a clevr legend this version can read",
        {"ds/render_log.jsonl", "ds/metadata.jsonl", "ds/clevr_scenes.json", "ds/contact_sheet.png"}),
    "not a crest dataset x crest-sheet": Case(nothing, ["sheet", "crest", "DS"], 2, ".json", "expected a crest dataset"),
    # masks and images
    "mask cut short x audit": Case(cut(mask, 100), AUDIT, 1, ".png", "bytes, the legend records", AUDIT_WRITES),
    "mask cut short x questions": Case(cut(mask, 100), QUESTIONS, 2, ".png", "bytes, the legend records"),
    "mask garbage of its size x audit": Case(lambda r: mask(r).write_bytes(bytes(len(mask(r).read_bytes()))),
                                             AUDIT, 1, ".png", "content differs from the legend's hash",
                                             AUDIT_WRITES),
    "image of 0 bytes x export hf": Case(write(image, b""), export("hf"), 2, ".png", "empty file (0 bytes)"),
    "image of 0 bytes x export vlmevalkit": Case(write(image, b""), export("vlmevalkit"), 2, ".png", "empty file"),
    "image of 0 bytes x export inspect": Case(write(image, b""), export("inspect"), 2, ".png", "empty file"),
    "image of 0 bytes x export lmms-eval": Case(write(image, b""), export("lmms-eval"), 2, ".png", "empty file"),
    "image cut short x export hf": Case(cut(image), export("hf"), 2, ".png", "not a readable image"),
    "image cut short x contact-sheet": Case(cut(image), SHEET, 2, ".png", "bytes, the legend records"),
    # questions
    "questions binary x eval": Case(write(questions, BINARY), EVAL, 2, "questions.jsonl", "a binary file"),
    "questions binary x audit": Case(write(questions, BINARY), AUDIT, 2, "questions.jsonl", "a binary file"),
    "questions binary x export hf": Case(write(questions, BINARY), export("hf"), 2, "questions.jsonl", "binary"),
    "questions binary x score": Case(write(questions, BINARY), SCORE, 2, "questions.jsonl", "a binary file"),
    "questions not UTF-8 x import-predictions": Case(write(questions, b'{"id": "\xff\xfe"}\n'), importing("jsonl"), 2,
                                                     "questions.jsonl", "not UTF-8"),
    "question a number x eval": Case(write(questions, "5\n"), EVAL, 2, "questions.jsonl", "expected a JSON object"),
    "question nested 100000 deep x export vlmevalkit": Case(write(questions, "[" * 100_000 + "\n"),
                                                            export("vlmevalkit"), 2, "questions.jsonl",
                                                            "nested too deeply"),
    "question answer not of its type x score": Case(edit_lines(questions, lambda rows: rows[0].update(answer="")),
                                                    SCORE, 2, "questions.jsonl", "line 1: answer: expected"),
    "question image outside x eval": Case(edit_lines(questions, lambda rows: rows[0].update(image="../answers.jsonl")),
                                          EVAL, 2, "questions.jsonl", "'../answers.jsonl' is outside the dataset"),
    "question image a link out x export inspect": Case(symlink(image, "outside.png"), export("inspect"), 2,
                                                       "questions.jsonl", "leads outside the dataset"),
    "question image a link out x audit": Case(symlink(image, "outside.png"), AUDIT, 2, "questions.jsonl",
                                              "leads outside the dataset (a symbolic link)"),
    # the resolved config and the render log
    "resolved config broken x render --resume": Case(write(resolved, "{nope"), RESUME, 2, "config.resolved.json",
                                                     "not valid JSON"),
    "resolved config a list x export hf": Case(write(resolved, "[]"), export("hf"), 2, "config.resolved.json",
                                               "expected an object, got a list"),
    "resolved config of another shape x export inspect": Case(write(resolved, '{"dataset": 5}'), export("inspect"), 2,
                                                              "config.resolved.json", "not a resolved config"),
    "resolved config broken x merge": Case(write(resolved, "{nope"), MERGE, 2, "config.resolved.json",
                                           "not valid JSON"),
    "render log with a bad limit x status": Case(write(render_log, '{"event": "start", "limit": "x"}\n'), STATUS, 2,
                                                 "render_log.jsonl", "limit: expected a whole number"),
    "render log with a bad shard x merge": Case(write(render_log, '{"event": "start", "shard": 7}\n'), MERGE, 2,
                                                "render_log.jsonl", "shard: expected I/N"),
    # run.json
    "run.json broken x score": Case(write(run_file, '{"request": '), SCORE, 2, "run.json", "not valid JSON"),
    "run.json broken x eval": Case(write(run_file, '{"request": '), EVAL, 2, "run.json", "not valid JSON"),
    "run.json a number x score": Case(write(run_file, "5"), SCORE, 2, "run.json", "expected an object, got a number"),
    "run.json binary x eval": Case(write(run_file, BINARY), EVAL, 2, "run.json", "not UTF-8 text"),
    "run.json request a number x eval": Case(write(run_file, '{"request": 5}'), EVAL, 2, "run.json",
                                             "request: expected the run's request settings"),
    "run.json questions a number x report": Case(both(rescore, write(run_file, '{"questions": 5}')), REPORT, 2,
                                                 "run.json", "questions: expected the question file's path"),
    # predictions
    "predictions binary x score": Case(write(predictions, BINARY), SCORE, 2, "predictions.jsonl", "a binary file"),
    "predictions binary x eval": Case(write(predictions, BINARY), EVAL, 2, "predictions.jsonl", "a binary file"),
    "answer a JSON number x score": Case(edit_lines(predictions, lambda rows: rows[0].update(response=5)), SCORE, 2,
                                         "predictions.jsonl", "line 1: response: expected the answer as text"),
    "answer a JSON number x report": Case(both(rescore, edit_lines(predictions, lambda r: r[0].update(response=5))),
                                          REPORT, 2, "predictions.jsonl", "response: expected the answer as text"),
    "answer a JSON number x eval": Case(edit_lines(predictions, lambda rows: rows[0].update(response=5)), EVAL, 2,
                                        "predictions.jsonl", "response: expected the answer as text"),
    "id a number x score": Case(edit_lines(predictions, lambda rows: rows[0].update(id=5)), SCORE, 2,
                                "predictions.jsonl", "id: expected a question id"),
    "tokens as words x score": Case(edit_lines(predictions, lambda rows: rows[1].update(tokens={"input": "many"})),
                                    SCORE, 2, "predictions.jsonl", "line 2: tokens"),
    "a prediction a list x score": Case(write(predictions, "[1, 2]\n"), SCORE, 2, "predictions.jsonl",
                                        "expected a JSON object, got a list"),
    # imported logs
    "jsonl log binary x import": Case(write(answers, BINARY), importing("jsonl"), 2, "answers.jsonl", "a binary file"),
    "jsonl answer a number x import": Case(write(answers, '{"id": "x", "response": 5}\n'), importing("jsonl"), 2,
                                           "answers.jsonl", "response: expected text or null"),
    "lmms-eval log a number x import": Case(write(answers, "5\n"), importing("lmms-eval"), 2, "answers.jsonl",
                                            "expected a JSON object"),
    "lmms-eval results broken x import": Case(
        both(write(lambda r: r / "x_samples_t.jsonl", '{"doc_id": 0, "resps": [["3"]]}\n'),
             write(lambda r: r / "x_results.json", "{")), importing("lmms-eval", "W/x_samples_t.jsonl"), 2,
        "x_results.json", "not valid JSON"),
    "inspect log binary x import": Case(write(inspect_log, BINARY), importing("inspect", "W/log.eval"), 2, "log.eval",
                                        "not an Inspect log"),
    "inspect log header broken x import": Case(write(inspect_log, zipped({"header.json": "{"})), importing(
        "inspect", "W/log.eval"), 2, "log.eval", "not an Inspect log"),
    "inspect sample of another shape x import": Case(write(inspect_log, zipped({
        "header.json": '{"eval": {"model": "m"}}', "samples/a.json": '{"id": "a", "output": [1]}'})),
        importing("inspect", "W/log.eval"), 2, "log.eval", "not an Inspect log this version can read"),
    # the providers file and the key file of byo eval
    "providers file binary x eval": Case(write(lambda r: r / "providers.yaml", BINARY), [
        *EVAL, "--providers", "W/providers.yaml"], 2, "providers.yaml", "not UTF-8 text"),
    "key file binary x eval": Case(write(lambda r: r / "key.txt", BINARY), [
        "eval", "DS", "--provider", "openai-compatible", "--model", "m", "--base-url", "http://127.0.0.1:9/v1",
        "--key-file", "W/key.txt"], 2, "key.txt", "not UTF-8 text"),
    # names and paths that would lead outside
    "--run ../../x x eval": Case(nothing, ["eval", "DS", "--provider", "oracle", "--run", "../../x"], 2, "--run",
                                 "not a safe run name"),
    "--run a/b x eval": Case(nothing, ["eval", "DS", "--provider", "oracle", "--run", "a/b"], 2, "--run",
                             "not a safe run name"),
    "--run .. x import": Case(nothing, [*importing("jsonl")[:-1], ".."], 2, "--run", "not a safe run name"),
    "--task ../x x export vlmevalkit": Case(nothing, [*export("vlmevalkit"), "--task", "../x"], 2, "--task",
                                            "is not a task name"),
    "--task with code x export inspect": Case(nothing, [*export("inspect"), "--task", "x():\n import os\ndef y"],
                                              2, "--task", "is not a task name"),
    # one writer: the directory is held by another process
    "run locked x eval": Case(nothing, EVAL, 2, "ds/runs/oracle", "the run is being written by pid",
                              locked="ds/" + RUN),
    "run locked x import": Case(nothing, importing("jsonl"), 2, "ds/runs/imported", "the run is being written by pid",
                                locked="ds/runs/imported"),
    "dataset locked x render --resume": Case(nothing, RESUME, 2, "ds", "the dataset is being written by pid",
                                             locked="ds"),
    "dataset being rendered x questions": Case(nothing, QUESTIONS, 2, "ds", "the dataset is being written by pid",
                                               locked="ds"),
    "output locked x export hf": Case(nothing, export("hf"), 2, "out", "the export is being written by pid",
                                      locked="out"),
    "output locked x merge": Case(nothing, ["merge", "DS", "-o", "OUT"], 2, "out", "the dataset is being written by pid",
                                  locked="out"),
    # what a command writes, where it cannot
    "output under a file x card-sheet": Case(write(lambda r: r / "afile", "x"), ["sheet", "cards", "W/afile/cards.png",
                                                                                 "--preview"], 1, "afile",
                                             "File exists"),
}


@pytest.mark.parametrize("name", CASES)
def test_damaged_input(name, world, tmp_path, capsys):
    case = CASES[name]
    root = tmp_path / "w"
    shutil.copytree(world, root, symlinks=True)
    out = root / "out"
    case.damage(root)
    before = snapshot(root)
    argv = [a.replace("DS", str(root / "ds")).replace("W/", str(root) + "/").replace("OUT", str(out))
            .replace("R", str(root / "ds" / RUN)) if a in ("DS", "R", "OUT") or a.startswith(("W/", "OUT/")) else a
            for a in case.argv]
    capsys.readouterr()
    if case.locked:
        with writer_lock(root / case.locked):
            code = run_cli(argv)
    else:
        code = run_cli(argv)
    err = capsys.readouterr().err
    assert "Traceback" not in err, err[-3000:]
    assert code == case.code, err[-3000:]
    if code == 2:
        message = err.strip()
        assert message.startswith("error: ") and "\n" not in message, message  # one line
        assert len(message) < 600
    else:  # exit 1: the line that names the problem
        message = next((line for line in err.splitlines() if case.says in line), err)
    assert case.names in message and case.says in message, message
    after = snapshot(root)
    after.pop("out", None) if "out" not in before else None
    changed = {k for k in set(before) | set(after) if before.get(k) != after.get(k)}
    assert changed <= case.writes, sorted(changed - case.writes)  # a refusal writes nothing
    assert not [k for k in after if Path(k).name.startswith(".") and "byo.lock" not in k or ".byo-partial" in k]
    assert all(whole(root / k) for k in changed if k in after and (root / k).is_file())
