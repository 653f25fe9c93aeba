"""Messages that do not mislead and inputs that end in one line, not a traceback (issue 50's
list): mixed answer types in one key, `--run cache.sqlite`, answers a new question file would
drop, a second writer told of a `--wait` it has, `byo status` while a render starts, `--resume`
after a config edit, a page whose file name holds '#', the address `byo human` prints for any
loopback host, and a client that disconnects mid-request."""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path
from urllib.parse import unquote

import httpx
import pytest
from eval_data import make_dataset
from human_server import Server, golden_dataset

from byo.cli import main
from byo.core.dataset import RESOLVED_CONFIG, SOURCE_CONFIG
from byo.core.errors import ConfigError
from byo.core.locks import writer_lock
from byo.render.runner import _output
from byo.render.status import dataset_status


def one_error(capsys) -> str:
    err = capsys.readouterr().err
    assert "Traceback" not in err
    lines = [line for line in err.splitlines() if line.strip()]
    return " ".join(" ".join(lines).split())


def oracle_run(tmp_path: Path, n: int = 6) -> Path:
    ds = make_dataset(tmp_path / "ds", n=n)
    assert main(["eval", str(ds), "--provider", "oracle", "--run", "o"]) == 0
    return ds


def rewrite_questions(ds: Path, change) -> None:
    rows = [json.loads(line) for line in (ds / "questions.jsonl").read_text().splitlines()]
    change(rows)
    (ds / "questions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))


@pytest.mark.parametrize("command", ["score", "report", "view"])
def test_mixed_answer_types_in_one_key_are_named(tmp_path, capsys, command):
    ds = oracle_run(tmp_path)

    def mix(rows):
        rows[1].update(answer_type="label_set", answer=["red", "blue"])
    rewrite_questions(ds, mix)
    extra = {"score": ["--bootstrap", "0"], "report": ["-o", str(tmp_path / "r.html"), "--bootstrap", "0"],
             "view": []}[command]
    capsys.readouterr()
    assert main([command, str(ds / "runs" / "o"), *extra]) == 2
    err = one_error(capsys)
    assert ("questions.jsonl: key count.total: answers of several types (label_set: demo_000001-count ...; "
            "integer: demo_000002-count ...)") in err, err


def test_a_run_named_like_the_cache_is_refused(tmp_path, capsys):
    ds = oracle_run(tmp_path)  # the oracle writes no cache; a provider that asks a model would
    (ds / "runs" / "cache.sqlite").write_bytes(b"SQLite format 3\x00")
    capsys.readouterr()
    assert main(["eval", str(ds), "--provider", "oracle", "--run", "cache.sqlite"]) == 2
    assert "runs/cache.sqlite: --run: is a file (the request cache?), not a run folder" in one_error(capsys)


def test_new_questions_never_drop_a_run_s_answers_silently(tmp_path, capsys):
    ds = oracle_run(tmp_path)
    predictions = ds / "runs" / "o" / "predictions.jsonl"
    before = predictions.read_bytes()

    def reword(rows):
        rows[0]["prompt"] += " Count carefully."
        del rows[-1]
    rewrite_questions(ds, reword)
    capsys.readouterr()
    assert main(["eval", str(ds), "--provider", "oracle", "--run", "o"]) == 2
    err = one_error(capsys)
    assert ("2 answers of this run would be lost: 1 to questions the question file no longer holds and 1 to "
            "questions it now words otherwise") in err, err
    assert predictions.read_bytes() == before
    assert main(["eval", str(ds), "--provider", "oracle", "--run", "o2", "--limit", "2"]) == 0
    assert main(["eval", str(ds), "--provider", "oracle", "--run", "o2"]) == 0
    assert main(["eval", str(ds), "--provider", "oracle", "--run", "o2", "--limit", "1"]) == 0  # nothing lost
    assert len((ds / "runs" / "o2" / "predictions.jsonl").read_text().splitlines()) == 5


def test_a_second_writer_is_told_of_wait_only_where_the_command_has_it(tmp_path, capsys):
    out = tmp_path / "merged"
    with writer_lock(out, what="dataset"):
        capsys.readouterr()
        assert main(["merge", str(tmp_path / "a"), "-o", str(out)]) == 2
    err = one_error(capsys)
    assert "--wait" not in err


def test_status_while_a_render_starts_says_so(tmp_path):
    out = tmp_path / "rendering"
    with writer_lock(out, what="dataset"), pytest.raises(ConfigError) as refused:
        dataset_status(out)
    assert "a render or merge is starting here (pid" in str(refused.value)
    with pytest.raises(ConfigError, match="not a rendered dataset"):
        dataset_status(out)


def test_status_in_a_writers_first_instant_says_to_ask_again(tmp_path):
    """The instant a writer has made its folder and lock file but not yet said who it is (the lock
    file still empty): byo status says nothing is written yet, to ask again, not that the folder is
    no dataset."""
    import fcntl
    import os

    from byo.core.locks import LOCK_FILE

    out = tmp_path / "starting"
    out.mkdir()
    fd = os.open(out / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        with pytest.raises(ConfigError, match="nothing is written here .* ask again in a moment"):
            dataset_status(out)
    finally:
        os.close(fd)


def test_resume_after_a_config_edit_names_the_key(tmp_path):
    (tmp_path / RESOLVED_CONFIG).write_text(json.dumps({"scene": {"render": {"samples": 4}}, "seed": 1}))
    (tmp_path / SOURCE_CONFIG).write_text("x: 1\n")
    with pytest.raises(ConfigError) as refused:
        _output(tmp_path, {"scene": {"render": {"samples": 8}}, "seed": 1}, True, "c.yaml")
    assert "scene.render.samples: 4 vs 8" in str(refused.value)
    with pytest.raises(ConfigError) as refused:
        _output(tmp_path, {}, False, "c.yaml")
    assert f"it holds {RESOLVED_CONFIG}, {SOURCE_CONFIG}" in str(refused.value)


def test_a_page_works_whatever_its_file_name(tmp_path):
    ds = oracle_run(tmp_path)
    page = tmp_path / "pages" / "v#1 ?%é.html"
    assert main(["view", str(ds / "runs" / "o"), "-o", str(page)]) == 0
    html = page.read_text()
    src = html.split('<script src="')[1].split('"')[0]
    assert "#" not in src and "?" not in src and (page.parent / unquote(src)).is_file()
    data = json.loads((page.parent / unquote(src)).read_text().split("=", 1)[1].rstrip().rstrip(";"))
    images = [s for s in data["strings"] if s.endswith(".png")]
    assert images and all((page.parent / unquote(s)).is_file() for s in images)


def loopback_127_0_0_2() -> bool:
    try:
        with socket.socket() as s:
            s.bind(("127.0.0.2", 0))
        return True
    except OSError:
        return False


@pytest.mark.skipif(not loopback_127_0_0_2(), reason="127.0.0.2 is not a loopback address here")
def test_the_address_human_prints_is_accepted_and_a_client_may_hang_up(tmp_path):
    dataset = golden_dataset(tmp_path)
    with Server(dataset, host="127.0.0.2") as server:
        printed = next(line for line in server.lines if line.startswith("open "))
        address = printed.split()[1]
        assert address.startswith("http://127.0.0.2:")
        assert httpx.get(address + "api/state", params={"annotator": "ann"}, timeout=30).status_code == 200
        with socket.create_connection(("127.0.0.2", server.port)) as hang_up:
            hang_up.sendall(b"POST /api/answer HTTP/1.1\r\nHost: 127.0.0.2\r\nContent-Type: application/json\r\n"
                            b"Content-Length: 1000\r\n\r\n{\"annot")
        assert httpx.get(address + "api/state", params={"annotator": "ann"}, timeout=30).status_code == 200
        time.sleep(0.5)  # the server's log of the hung-up request, if it wrote one
    assert "Traceback" not in server.output, server.output


def test_two_studies_that_spell_one_folder_never_share_it(tmp_path):
    """Study a-b's annotator c and study a's annotator b-c both spell runs/a-b-c: while the first
    serves, the folder's lock refuses the second; afterwards its run.json does, by name."""
    from byo.human.serve import HumanSettings, prepare

    dataset = golden_dataset(tmp_path)
    first, second = prepare(HumanSettings(dataset, run="a-b")), prepare(HumanSettings(dataset, run="a"))
    who = first.annotator("c")
    qid = who.current()
    assert first.record(who, qid, "", cannot_tell=True, seconds=1.0, nonce="n-0000001", kind="number")
    with pytest.raises(ConfigError, match="is being written by pid"):
        second.annotator("b-c")
    first.close()
    with pytest.raises(ConfigError) as refused:
        second.annotator("b-c")
    assert "holds the answers of study 'a-b', annotator 'c': study 'a' cannot share it" in str(refused.value)
    lines = (dataset / "runs" / "a-b-c" / "predictions.jsonl").read_text().splitlines()
    assert len(lines) == 1  # only the first study's answer
    second.close()


def test_a_run_file_linking_out_of_the_dataset_is_refused_for_that_annotator(tmp_path):
    from byo.human.serve import HumanSettings, prepare

    dataset = golden_dataset(tmp_path / "d")
    run = dataset / "runs" / "human-ann"
    run.mkdir(parents=True)
    target = tmp_path / "elsewhere" / "predictions.jsonl"
    (run / "predictions.jsonl").symlink_to(target)
    study = prepare(HumanSettings(dataset))
    with pytest.raises(ConfigError, match="leads outside the dataset through a symbolic link"):
        study.annotator("ann")
    assert not target.parent.exists()
    assert study.annotator("other").current() is not None  # the others are served
    study.close()
