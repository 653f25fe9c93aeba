"""Errors in the caller's words: below byo/cli/ a problem names the API's field (`shots`,
`structured`), and the command line prints the same problem with its flags (byo.cli.fields)."""

from __future__ import annotations

import pytest
from eval_data import make_dataset

from byo.cli import COMMANDS, build_parser, main
from byo.cli.fields import FLAGS, flags_in, in_flags
from byo.cli.outcome import invoke
from byo.core.errors import ARGUMENTS, ConfigError, RenderError
from byo.core.stops import Stopped
from byo.eval.run import EvalSettings, evaluate
from byo.export import export


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


def test_an_advice_inside_another_files_problem_names_the_field_and_prints_the_flag(tmp_path, capsys):
    """A dataset with no complete image: the API is told to `resume`, the command line --resume."""
    (tmp_path / "ds" / "legends").mkdir(parents=True)
    with pytest.raises(ConfigError) as api:
        export(tmp_path / "ds", "coco", tmp_path / "out")
    assert str(api.value).endswith("no complete image: render the dataset first (or `resume` an interrupted render)")
    assert main(["export", str(tmp_path / "ds"), "--format", "coco", "-o", str(tmp_path / "out")]) == 2
    printed = " ".join(capsys.readouterr().err.split())
    assert printed.endswith("(or --resume an interrupted render)") and "`" not in printed


@pytest.mark.parametrize("raised, code", [
    (RenderError("the render estimate: none of the 3 calibration images could be rendered; `resume` it"), 1),
    (ConfigError("runs/r/batches.json", [("settings.base_url", "evaluate again with `batch`")]), 2),
])
def test_every_error_the_command_line_catches_is_printed_with_its_flags(raised, code, capsys):
    def command(args):
        raise raised

    assert invoke(command, None) == code
    printed = " ".join(capsys.readouterr().err.split())
    assert "`" not in printed and ("--resume it" in printed or "again with --batch" in printed)


def test_a_stop_is_printed_with_its_flags(capsys):
    stop = Stopped(2)
    stop.detail = "3 of 8 images rendered; continue with `resume` (config c.yaml, into out, the same `limit` 8)"

    def command(args):
        raise stop

    assert invoke(command, None) == 130
    assert " ".join(capsys.readouterr().err.split()) == (
        "stopped by SIGINT: 3 of 8 images rendered; continue with --resume (config c.yaml, into out, the same "
        "--limit 8)")


def test_only_the_fields_of_the_table_become_flags():
    assert flags_in("over `max_cost` $1.5; `resume`, `cost`, `perplexity_model` NAME, `answer_tokens`; "
                    "`not_a_field`, max_cost") == ("over --max-cost $1.5; --resume, --max-cost, --perplexity-model "
                                                   "NAME, --answer-tokens; `not_a_field`, max_cost")
