"""How `make demo` picks the VLM to evaluate."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from conftest import ROOT

from byo.cli.demo import pick_provider


@pytest.fixture
def clean_env(monkeypatch):
    for name in ("OPENAI_API_KEY", "GROQ_API_KEY", "BYO_DEMO_MODEL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("OLLAMA_HOST", "127.0.0.1:9")  # nothing listens on the discard port
    return monkeypatch


def test_keys_in_the_environment_win(clean_env):
    clean_env.setenv("GROQ_API_KEY", "x")
    assert pick_provider()[0]["provider"] == "groq"
    clean_env.setenv("OPENAI_API_KEY", "x")
    clean_env.setenv("BYO_DEMO_MODEL", "gpt-4.1")
    assert pick_provider()[0] == {"provider": "openai", "model": "gpt-4.1"}


def test_falls_back_to_blind_and_says_why(clean_env):
    chosen, why = pick_provider()
    assert chosen == {"provider": "blind"} and "no Ollama at http://127.0.0.1:9" in why


def test_local_ollama_with_a_vision_model(clean_env):
    class Tags(BaseHTTPRequestHandler):
        def do_GET(self):
            body = json.dumps({"models": [{"name": "llama3:8b"}, {"name": "gemma3:4b"}]}).encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Tags)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        clean_env.setenv("OLLAMA_HOST", f"127.0.0.1:{server.server_address[1]}")
        host = f"http://127.0.0.1:{server.server_address[1]}"
        assert pick_provider()[0] == {"provider": "ollama", "model": "gemma3:4b", "base_url": host}
    finally:
        server.shutdown()


def test_the_demo_calls_the_api_not_the_command_line():
    source = (ROOT / "byo/cli/demo.py").read_text()
    assert "byo.render_dataset(" in source and "byo.evaluate(" in source and "byo.write_report(" in source
    assert "main(" not in source and '"--' not in source  # no argv strings
