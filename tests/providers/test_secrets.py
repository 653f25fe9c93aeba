"""No file under a dataset or its runs holds an API key, however it was given: in the environment
(sent as a header: a bearer token, or Azure's api-key; each hosted provider's own variable), in a key file, in the base URL's user information or in a query parameter,
and however it comes back: a server echoing the header or the URL in an error, a model repeating
it in an answer, a lock file left by a killed run (its command line names the URL). Every file
written is searched, byte by byte, for every spelling of every key."""

from __future__ import annotations

import base64
import os
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from urllib.parse import quote

import pytest
from conftest import ROOT
from eval_data import make_dataset, truth_by_image
from fake_vlm import FakeVLM

from byo.cli import main
from byo.core.urls import redact_url, redact_urls, url_secrets

KEYS = {
    "env": "sk-ENVKEY-0a1b2c3d4e5f-never-write",
    "file": "sk-FILEKEY-9z8y7x6w5v-never-write",
    "user": "URLUSER-3k4j5h6g",
    "password": "URLPASS-p4ss/w0rd+x",
    "query": "QUERYKEY-q1w2e3r4t5y6",
    "ollama": "OLLAMAKEY-m9n8b7v6c5",
    "azure": "AZUREKEY-a7z6u5r4e3-never-write",
    "anthropic": "sk-ant-ANTHROPICKEY-h2g3f4-never-write",
    "gemini": "GEMINIKEY-AIza9x8c7v6b-never-write",
}
PATIENCE = 120


def spellings(secret: str) -> set[bytes]:
    forms = {secret, secret.lower(), secret.upper(), quote(secret, safe=""), quote(secret)}
    return {f.encode() for f in forms}


def every_spelling() -> dict[bytes, str]:
    out = {form: name for name, key in KEYS.items() for form in spellings(key)}
    basic = base64.b64encode(f"{KEYS['user']}:{KEYS['password']}".encode())
    out[basic] = "basic auth of the URL's user and password"
    return out


def leaks(root: Path) -> list[str]:
    found = []
    forms = every_spelling()
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        data = path.read_bytes()
        found += [f"{path.relative_to(root)}: {name} ({form.decode()})" for form, name in forms.items() if form in data]
    return found


def byo(capsys, monkeypatch, *args: str, env: dict | None = None) -> tuple[int, str]:
    """A byo command in this process (the command line's own code, without a second of start-up
    per command) with `env` set for it alone: its exit status and everything it printed."""
    with monkeypatch.context() as scoped:
        for name, value in (env or {}).items():
            scoped.setenv(name, value)
        status = main(list(args))
    printed = capsys.readouterr()
    return status, printed.out + printed.err


@pytest.mark.slow
def test_no_file_written_holds_a_key_given_in_any_form(tmp_path, capsys, monkeypatch):
    dataset = make_dataset(tmp_path / "ds", 6)
    key_file = tmp_path / "key.txt"  # the user's own file, outside the dataset
    key_file.write_text(KEYS["file"] + "\n")
    images = sorted(truth_by_image(dataset))
    release = threading.Event()
    held = {"on": False}

    def plan(seen, before):
        # By image: echo the header, echo the URL, or answer (with the header in the text), so that
        # no run fails often enough in a row to stop early.
        return ("echo_auth", None, "echo_url", None, "echo_auth_lower", None)[images.index(seen.image_sha256)]

    # The hosted providers, each with its key in its own variable.
    hosted = {"azure": ("AZURE_OPENAI_API_KEY", ["--provider", "azure", "--model", "m", "--api-version", "2024-10-21"], ""),
              "anthropic": ("ANTHROPIC_API_KEY", ["--provider", "anthropic", "--model", "m"], "/v1/"),
              "gemini": ("GEMINI_API_KEY", ["--provider", "gemini", "--model", "m"], "/v1beta/openai/")}

    def answer(seen):
        if held["on"]:
            release.wait(PATIENCE)
        return f"3. Your header was {seen.auth} and you asked {seen.prompt[:20]}"

    with FakeVLM(answer, plan=plan) as fake:
        host = fake.url.removeprefix("http://")
        user_info = f"{quote(KEYS['user'], safe='')}:{quote(KEYS['password'], safe='')}"
        runs = {
            "env": ["--provider", "openai", "--model", "m", "--base-url", f"http://{host}/v1"],
            "file": ["--provider", "openai-compatible", "--model", "m", "--key-file", str(key_file),
                     "--base-url", f"http://{host}/v1"],
            "userinfo": ["--provider", "openai", "--model", "m", "--base-url", f"http://{user_info}@{host}/v1"],
            "query": ["--provider", "openai-compatible", "--model", "m", "--key-file", str(key_file),
                      "--base-url", f"http://{host}/v1?api_key={KEYS['query']}&api-version=2024-01"],
            "ollama": ["--provider", "ollama", "--model", "m", "--base-url", f"http://{host}"],
        }
        env = {"OPENAI_API_KEY": KEYS["env"], "OLLAMA_API_KEY": KEYS["ollama"]}
        outputs = []
        for variable in ("OPENAI_API_KEY", "OLLAMA_API_KEY", *(variable for variable, _, _ in hosted.values())):
            monkeypatch.delenv(variable, raising=False)  # each run sees only the key given to it
        for name, flags in runs.items():
            status, printed = byo(capsys, monkeypatch, "eval", str(dataset), "--run", name, "--retries", "0", *flags,
                                  env=env)
            outputs.append(printed)
            assert status in (0, 1), printed[-2000:]
        for name, (variable, flags, suffix) in hosted.items():
            status, printed = byo(capsys, monkeypatch, "eval", str(dataset), "--run", name, "--retries", "0", *flags,
                                  "--base-url", fake.url + suffix, env={variable: KEYS[name]})
            outputs.append(printed)
            assert status in (0, 1), printed[-2000:]
            assert f'"key_source": "environment {variable}"' in (dataset / "runs" / name / "run.json").read_text()
        runs.update({name: None for name in hosted})
        # A run killed with kill -9 while it holds its lock: the lock file stays, naming its command.
        held["on"] = True
        killed = subprocess.Popen([sys.executable, "-m", "byo.cli", "eval", str(dataset), "--run", "killed",
                                   *runs["userinfo"]], cwd=ROOT, env={**os.environ, **env},
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        lock = dataset / "runs" / "killed" / ".byo.lock"
        deadline = time.monotonic() + PATIENCE
        while not (lock.is_file() and lock.read_text().strip()) and time.monotonic() < deadline:
            time.sleep(0.05)
        killed.send_signal(signal.SIGKILL)
        killed.wait(PATIENCE)
        release.set()
    assert "http://[redacted]@" in lock.read_text() and "/v1" in lock.read_text()
    # Every key went out (the URL's user and password as basic auth) and came back in some reply.
    sent = " ".join(s.auth or "" for s in fake.log)
    basic = base64.b64encode(f"{KEYS['user']}:{KEYS['password']}".encode()).decode()
    assert all(k in sent for k in (KEYS["env"], KEYS["file"], KEYS["ollama"], KEYS["azure"], KEYS["anthropic"],
                                   KEYS["gemini"], basic)), sent
    assert {s.headers.get("api-key") for s in fake.log} - {None} == {KEYS["azure"]}  # Azure's own header
    outcomes = Counter(s.outcome for s in fake.log)
    assert outcomes["ok"] and outcomes["echo_auth"] and outcomes["echo_url"] and outcomes["echo_auth_lower"]

    for name in runs:
        status, printed = byo(capsys, monkeypatch, "score", str(dataset / "runs" / name))
        outputs.append(printed)
        assert status == 0, printed[-2000:]
    report = dataset / "report.html"
    status, printed = byo(capsys, monkeypatch, "report", *(str(dataset / "runs" / name) for name in runs), "-o",
                          str(report))
    outputs.append(printed)
    assert status == 0, printed[-2000:]

    assert leaks(dataset) == []
    printed = "\n".join(outputs).encode()
    assert [name for form, name in every_spelling().items() if form in printed] == []
    run_file = (dataset / "runs" / "query" / "run.json").read_text()
    assert "api_key=[redacted]" in run_file and "api-version=2024-01" in run_file


def test_url_redaction():
    assert redact_url("https://user:pw@api.example.com:8443/v1?key=abc&api-version=2") == \
        "https://[redacted]@api.example.com:8443/v1?key=[redacted]&api-version=2"
    assert redact_url("http://127.0.0.1:9/v1") == "http://127.0.0.1:9/v1"
    assert redact_url("http://[::1]:80/v1#token") == "http://[::1]:80/v1#[redacted]"
    assert redact_url("http://x:99999999/") == "[redacted]"  # not a URL urllib can read: nothing kept
    assert redact_urls("byo eval ds --base-url 'https://u:p@h/v1?t=s' --run r") == \
        "byo eval ds --base-url 'https://[redacted]@h/v1?t=[redacted]' --run r"
    secrets = url_secrets("https://us%2Fer:p%40ss@h/v1?key=k%26ey&api-version=3")
    assert {"us%2Fer", "us/er", "p%40ss", "p@ss", "k&ey"} <= set(secrets) and "3" not in secrets
    assert base64.b64encode(b"us/er:p@ss").decode() in secrets
