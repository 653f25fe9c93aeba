"""Errors in the caller's words: below byo/cli/ a problem names the API's field (`shots`,
`structured`), and the command line prints the same problem with its flags (byo.cli.fields)."""

from __future__ import annotations

import pytest
from eval_data import make_dataset

from byo.cli import COMMANDS, build_parser, main
from byo.cli.fields import FLAGS, in_flags
from byo.core.errors import ARGUMENTS, ConfigError
from byo.eval.run import EvalSettings, evaluate


def test_the_api_names_the_field_and_the_command_line_its_flag(tmp_path, monkeypatch, capsys):
    ds = make_dataset(tmp_path / "ds", 3)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with pytest.raises(ConfigError) as api:
        evaluate(EvalSettings(dataset=ds, provider="openai", model="m", shots=1, structured=True), show_progress=False)
    assert str(api.value) == "<arguments>: shots: examples answer in free form; leave out `structured`"
    assert main(["eval", str(ds), "--provider", "openai", "--model", "m", "--shots", "1", "--structured"]) == 2
    printed = " ".join(capsys.readouterr().err.split())
    assert printed == "error: <command line>: --shots: examples answer in free form; leave out --structured"


def test_numbers_are_named_by_field_and_printed_by_flag(tmp_path):
    ds = make_dataset(tmp_path / "ds", 2)
    with pytest.raises(ConfigError) as api:
        evaluate(EvalSettings(dataset=ds, provider="blind", concurrency=0, max_side=0), show_progress=False)
    assert api.value.file == ARGUMENTS
    assert api.value.problems == [("concurrency", "expected at least 1"), ("max_side", "expected at least 1 pixel")]
    assert str(in_flags(api.value)) == ("<command line>: --concurrency: expected at least 1\n"
                                        "  <command line>: --max-side: expected at least 1 pixel")


def test_only_the_arguments_and_quoted_fields_become_flags():
    """A file's own keys stay as they are, even when one is spelt like a field."""
    err = ConfigError("exp.yaml", [("model", "no `model` given"), ("`baseline`", "none of the runs"),
                                   ("`unknown_field`", "kept")])
    assert in_flags(err).problems == [("model", "no --model given"), ("--baseline", "none of the runs"),
                                      ("`unknown_field`", "kept")]


def test_every_flag_of_the_table_is_a_flag_of_a_command():
    flags = set()
    for command in COMMANDS:
        parser = build_parser(command)
        sub = next(a for a in parser._actions if a.dest == "command").choices[command]
        flags |= {option for action in sub._actions for option in action.option_strings}
    assert not set(FLAGS.values()) - flags
