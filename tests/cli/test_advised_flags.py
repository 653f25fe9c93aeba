"""Every flag a message advises exists on the command that shows it: the string constants of each
byo/cli module are scanned for `--flag` tokens and checked against the parsers of the commands the
module defines (a flag written after `byo OTHER ...` is checked against OTHER's); and byo run, which
has no --wait, is not told to pass it when its dataset is busy."""

from __future__ import annotations

import argparse
import ast
import re
from pathlib import Path

import yaml
from conftest import ROOT
from golden_data import tiny_config

from byo.cli import COMMANDS, build_parser, main
from byo.core.locks import writer_lock

FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")
# `byo CMD` followed by arguments only (placeholders, paths, flags and their values) up to the flag
COMMAND_LINE = re.compile(r"byo ([a-z-]+)((?: (?:[A-Z0-9_:./{}\[\]|=-]+|--?[a-z0-9-]+|[\w./-]*[/.][\w./-]*))*) $")


def options(parser: argparse.ArgumentParser) -> set[str]:
    """A parser's option strings, its subcommands' included (byo sheet KIND)."""
    found = set()
    for action in parser._actions:
        found.update(action.option_strings)
        if isinstance(action, argparse._SubParsersAction):
            for child in action.choices.values():
                found |= options(child)
    return found


def command_options(name: str) -> set[str]:
    sub = next(a for a in build_parser(name)._actions if isinstance(a, argparse._SubParsersAction))
    return options(sub.choices[name])


def defined_commands(tree: ast.Module) -> list[str]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "PARSERS" for t in node.targets):
            return [k.value for k in node.value.keys]
    return []


def test_every_flag_a_cli_message_advises_exists_on_its_command():
    known = {name: command_options(name) for name in COMMANDS}
    wrong = []
    for module in sorted((ROOT / "byo" / "cli").glob("*.py")):
        tree = ast.parse(module.read_text())
        commands = defined_commands(tree)
        if not commands:
            continue
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
                continue
            for match in FLAG.finditer(node.value):
                other = COMMAND_LINE.search(node.value[:match.start()])
                targets = [other.group(1)] if other and other.group(1) in known else commands
                if match.group() != "--version" and not any(match.group() in known[c] for c in targets):
                    wrong.append(f"{module.relative_to(ROOT)}:{node.lineno}: {match.group()} is no option of "
                                 f"byo {' or '.join(targets)}: {node.value[:80]!r}")
    assert not wrong, "\n".join(wrong)
    assert {"--max-cost", "--providers"} <= known["adapt"] and "--wait" not in known["run"]  # the scan sees them


def test_byo_run_on_a_busy_dataset_advises_no_flag_it_lacks(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    config = tmp_path / "demo.yaml"
    config.write_text(yaml.safe_dump(tiny_config(ROOT / "dataset_configs" / "demo.yaml"), sort_keys=False))
    out = Path("output") / "demo"
    with writer_lock(out, what="dataset"):
        assert main(["run", str(config), "--model", "blind"]) == 2
    err = capsys.readouterr().err
    assert "is being written by" in err
    advised = set(FLAG.findall(err))
    assert advised <= command_options("run"), advised
