"""Errors in the caller's words: below byo/cli/ no text a caller can be shown names a command-line
flag (`--max-cost`); it names the API's field in backquotes ("`max_cost`"), which the command line
prints as its flag (byo.cli.fields). The scan reads every string constant and f-string part of
byo/ outside byo/cli/, docstrings apart (they document the command a module serves); the few
flags that are really flags are allowed below, each with its reason."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from conftest import ROOT

FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]+")

SHEET_OPTIONS = "the argparse declaration of a family sheet's own option (byo sheet KIND)"
TABLE_TEXT = ("a table's definition or note, quoted in scores files and the report: it says which command made "
              "the numbers, not what a caller got wrong")
OTHER_TOOL = "a command line of another tool, written into an exported dataset's README"

# path -> (the flags allowed there, why)
ALLOWED: dict[str, tuple[frozenset[str], str]] = {
    "byo/render/executors/ray_cluster.py": (frozenset({
        "--node-manager-port", "--object-manager-port", "--dashboard-agent-listen-port",
        "--dashboard-agent-grpc-port", "--runtime-env-agent-port", "--metrics-export-port", "--block", "--num-gpus",
        "--disable-usage-stats", "--min-worker-port", "--max-worker-port", "--num-cpus", "--object-store-memory",
        "--temp-dir", "--head", "--include-dashboard", "--port", "--node-ip-address", "--address"}),
        "the arguments of the `ray start` subprocess"),
    "byo/families/clevr/sheet.py": (frozenset({"--width", "--concepts"}), SHEET_OPTIONS),
    "byo/families/crest/sheet.py": (frozenset({"--columns", "--size"}), SHEET_OPTIONS),
    "byo/families/poker/sheet.py": (frozenset({"--card-pixels"}), SHEET_OPTIONS),
    "byo/export/card.py": (frozenset({"--format", "--dataset"}),
                           "the dataset card's example command (byo import-predictions), for its reader"),
    "byo/export/coco.py": (frozenset({"--format"}), "the exported README names the command that wrote it"),
    "byo/export/webdataset.py": (frozenset({"--format"}), "the exported README names the command that wrote it"),
    "byo/export/vlmevalkit.py": (frozenset({"--data", "--model", "--mode", "--format", "--dataset"}), OTHER_TOOL
                                 + " (VLMEvalKit's run.py) and the byo import-predictions that reads its answers"),
    "byo/families/clevr/metrics.py": (frozenset({"--options"}), TABLE_TEXT),
    "byo/score/builtin.py": (frozenset({"--bins", "--repeats"}), TABLE_TEXT),
    "byo/score/parse/decide.py": (frozenset({"--judge"}), TABLE_TEXT + " (the parse table's rule)"),
}


def docstrings(tree: ast.Module) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) \
                    and isinstance(first.value.value, str):
                found.add(id(first.value))
    return found


def flags_in_strings(root: Path) -> list[tuple[str, int, str, str]]:
    """(path, line, flag, text) of every flag in a string constant or f-string part of byo/ outside
    byo/cli/, docstrings apart."""
    hits = []
    for path in sorted((root / "byo").rglob("*.py")):
        relative = path.relative_to(root).as_posix()
        if relative.startswith("byo/cli/"):
            continue
        tree = ast.parse(path.read_text())
        skip = docstrings(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
                hits += [(relative, node.lineno, m.group(), node.value) for m in FLAG.finditer(node.value)]
    return hits


def test_no_text_below_the_command_line_names_a_flag():
    hits = flags_in_strings(ROOT)
    wrong = [f"{path}:{line}: {flag} in {text[:90]!r}" for path, line, flag, text in hits
             if flag not in ALLOWED.get(path, (frozenset(), ""))[0]]
    assert not wrong, "name the API field in backquotes (byo.cli.fields maps it):\n" + "\n".join(wrong)


def test_the_allow_list_holds_only_flags_still_there():
    """An allowed flag that is gone from its file is dropped from the list, so that it cannot hide a
    new one."""
    found = {(path, flag) for path, _, flag, _ in flags_in_strings(ROOT)}
    stale = [(path, flag) for path, (flags, _) in ALLOWED.items() for flag in flags if (path, flag) not in found]
    assert not stale


def test_the_scan_sees_a_flag_in_an_f_string_and_not_in_a_docstring(tmp_path):
    module = tmp_path / "byo" / "eval" / "x.py"
    module.parent.mkdir(parents=True)
    module.write_text('"""`byo eval --max-cost`: documented."""\n\n\ndef f(cap):\n'
                      '    """--retries here is documentation."""\n'
                      '    return f"over --max-cost ${cap}; see `max_cost`"\n')
    (tmp_path / "byo" / "cli").mkdir()
    (tmp_path / "byo" / "cli" / "y.py").write_text('FLAG = "--max-cost"\n')
    assert [(p, line, flag) for p, line, flag, _ in flags_in_strings(tmp_path)] == [("byo/eval/x.py", 6, "--max-cost")]
