"""How `make demo` picks the VLM to evaluate."""

from __future__ import annotations

import json
import re
import threading
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import numpy as np
import pytest
from conftest import ROOT
from planted import write_dataset, write_run

from byo.cli import main
from byo.cli.demo import pick_provider
from byo.providers.base import GenerationParams
from byo.providers.reference import Blind
from byo.questions.load import Question
from byo.score import psychometric as psy


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


# --- the demo's report: no false interval, the blind baseline's curves are its prior's -----------
INTERVAL = re.compile(r"(-?\d+(?:\.\d+)?)(%?) \[(-?\d+(?:\.\d+)?)%?[–-](-?\d+(?:\.\d+)?)%?\]")
BETWEEN = re.compile(r"between levels (\S+) and (\S+) \(95% interval (-?[\d.]+)–(-?[\d.]+)\)")


def demo_shaped_dataset(root, name: str, images: list[dict], keys: dict, rng) -> list[Question]:
    """Questions shaped like the demo's: every key asked of every image in two prompt variants
    (neutral and debiased, direct), a true answer per image drawn by `keys[key](levels, rng)`."""
    questions = []
    for i, levels in enumerate(images):
        image = f"images/{name}_{i:04d}.png"
        for key, truth in keys.items():
            answer = truth(levels, rng)
            for pre in ("neutral", "debiased"):
                questions.append(Question(id=f"{name}_{i:04d}/{key}/{pre}/direct", image=image, family=name,
                                          task="counting", key=key, levels=levels, preprompt=pre,
                                          instruction="direct", prompt=f"How many? ({key})", answer=answer,
                                          answer_type="integer"))
    return write_dataset(root / name, questions) and questions


def blind_run(root, questions: list[Question]) -> str:
    """The blind baseline's run as `byo eval --provider blind` writes it: each key answered with its
    most frequent true answer (ties: first in file order)."""
    prior = Blind("blind", GenerationParams(), questions=questions).prior
    rows = [{"id": q.id, "provider": "blind", "model": "blind", "reference": True, "response": str(prior[q.key]),
             "status": "ok"} for q in questions]
    return str(write_run(root, "blind-blind", rows))


@pytest.mark.slow
def test_the_demo_report_shows_no_false_interval_and_labels_the_blind_curves_as_its_prior(tmp_path):
    """Two datasets shaped like the demo's (CLEVR-style: 2 counts x 2 azimuths x 2 images; poker: 2
    card totals x 2 images), the blind baseline on each, scored and reported as `make demo` does.
    Every "estimate [lo–hi]" of the report contains its estimate and has width; the blind
    baseline's curves say they are its answer prior's; no breaking point is a bare number."""
    rng = np.random.default_rng(2026)
    clevr = demo_shaped_dataset(tmp_path, "demo", [{"content.count": c, "camera.azimuth": a}
                                                   for c in (3, 6) for a in (20, 200) for _ in range(2)],
                                {"count_objects": lambda lv, r: lv["content.count"],
                                 "count_red": lambda lv, r: int(r.integers(0, 4)),
                                 "count_cubes": lambda lv, r: int(r.integers(0, lv["content.count"] + 1))}, rng)
    poker = demo_shaped_dataset(tmp_path, "demo_poker", [{"content.total_cards": t} for t in (4, 9) for _ in range(2)],
                                {"count_cards": lambda lv, r: lv["content.total_cards"],
                                 "count_river": lambda lv, r: [1, 2, 7, 8][int(r.integers(0, 4))],
                                 "count_players": lambda lv, r: int(r.integers(2, 5))}, rng)
    runs = [blind_run(tmp_path / "demo", clevr), blind_run(tmp_path / "demo_poker", poker)]
    for run in runs:
        assert main(["score", run, "--bootstrap", "50"]) == 0
    report = tmp_path / "report.html"
    assert main(["report", *runs, "-o", str(report), "--bootstrap", "50", "--no-viewer"]) == 0
    html = report.read_text()

    def text_of(part: str) -> str:
        return " ".join(re.sub(r"<[^>]+>", " ", part.replace("&amp;", "&").replace("&#39;", "'")).split())

    text = text_of(html)
    checked = 0
    for value, percent, lo, hi in INTERVAL.findall(text):
        value, lo, hi = float(value), float(lo), float(hi)
        assert lo < hi and lo <= value <= hi, f"{value}{percent} [{lo}–{hi}]"
        checked += 1
    for a, b, lo, hi in BETWEEN.findall(text):
        assert float(lo) <= float(a) < float(b) <= float(hi)
    start = html.index('<section id="breaking">')
    breaking = text_of(html[start:html.index("</section>", start)])
    rows = re.findall(r"blind \((demo(?:_poker)?)\)[: ]", breaking)
    assert rows, "the blind baseline's breaking points are in the report"
    prior = "the answer prior's curve (the blind baseline: its answers do not depend on the image)"
    assert breaking.count(prior) == len(rows)
    fits = [f for run in runs for f in json.loads((Path(run) / "scores.json").read_text())["tables"]["breaking_points"]]
    assert fits and all(f["answer_prior"] for f in fits)
    assert all((f["threshold"] is None) == (f["verdict"] != psy.VERDICT_BREAKS) for f in fits)
    print(f"{checked} intervals checked; {len(rows)} blind breaking-point rows, each labelled as the answer prior; "
          f"verdicts {Counter(f['verdict'] for f in fits if f['link'] == 'logistic')}")
