"""`byo eval --max-cost USD`: a cap reached mid-run stops the run before a request that would pass
it; the spend, as the server bills it, passes the cap by less than one request's estimate; a rerun
with a higher cap finishes without sending any answered request again; estimates follow the
module's rule, corrected by usage."""

from __future__ import annotations

import asyncio
import json
from collections import Counter

import pytest
import yaml
from eval_data import answerer, make_dataset
from fake_vlm import IMAGE_TOKENS, FakeVLM

from byo.cli import main
from byo.eval.budget import Budget, Estimate, image_tokens, input_tokens
from byo.providers.catalog import ModelEntry

IN_PER_MILLION, OUT_PER_MILLION = 1000.0, 4000.0  # USD; large, so that a request costs about $0.1


@pytest.fixture
def key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-budget")


def providers_file(tmp_path) -> str:
    path = tmp_path / "providers.yaml"
    path.write_text(yaml.safe_dump({"providers": {"openai": {"models": {"fake-vlm": {
        "input_per_million": IN_PER_MILLION, "output_per_million": OUT_PER_MILLION}}}}}))
    return str(path)


def billed_usd(seen: list) -> float:
    return sum(s.tokens["input"] * IN_PER_MILLION + s.tokens["output"] * OUT_PER_MILLION for s in seen) / 1e6


def test_a_cap_reached_mid_run_stops_it_and_a_higher_cap_finishes_it_without_resending(tmp_path, key, capsys):
    ds = make_dataset(tmp_path / "ds", 30)
    prices = providers_file(tmp_path)
    cap = 1.5
    flags = ["eval", str(ds), "--provider", "openai", "--model", "fake-vlm", "--providers", prices,
             "--concurrency", "4", "--timeout", "5", "--max-tokens", "64"]
    # Answers of one length: once the first answer corrects the estimate, no estimate is short of
    # what its request costs, so the bound below holds whatever order the answers come in.
    with FakeVLM(answerer(ds, "cot"), latency=0.02) as fake:
        url = ["--base-url", fake.url + "/v1"]
        assert main([*flags, *url, "--max-cost", str(cap)]) == 1
        printed = capsys.readouterr().err
        first = fake.answered()
        run = json.loads((ds / "runs" / "openai-fake-vlm" / "run.json").read_text())

        # Every question costs the same input (the same prompt and image size): no estimate can be
        # less than its input's price, so that is the bound on how far past the cap the spend goes.
        smallest_estimate = first[0].tokens["input"] * IN_PER_MILLION / 1e6
        assert 0 < len(first) < 30, "the cap should be reached mid-run"
        assert billed_usd(first) <= cap + smallest_estimate
        assert billed_usd(first) <= cap  # here even within the cap: no estimate was short
        assert len(fake.log) == len(first)  # nothing sent that was not answered
        assert run["spent_usd"] == pytest.approx(billed_usd(first)) and run["max_cost_usd"] == cap
        assert run["finished"] is False and run["answered"] == len(first)
        # the run's file names the field, as the API says it; the command line prints its flag
        assert run["stopped"].startswith("stopped: the next request (about $") and f"over `max_cost` ${cap:g}" in run["stopped"]
        assert f"over --max-cost ${cap:g}" in " ".join(printed.split()) and "`max_cost`" not in printed
        assert "rerun with a higher --max-cost to go on" in printed

        # The same cap again: what the estimates still allow is sent, and the spend stays as close.
        assert main([*flags, *url, "--max-cost", str(cap)]) == 1
        assert billed_usd(fake.log) <= cap + smallest_estimate
        again = len(fake.log)

        assert main([*flags, *url, "--max-cost", "100"]) == 0
    sent = Counter(s.item for s in fake.log)
    assert len(sent) == 30 and set(sent.values()) == {1}, "an answered request was sent again"
    run = json.loads((ds / "runs" / "openai-fake-vlm" / "run.json").read_text())
    assert run["finished"] is True and run["answered"] == 30 and run["cached"] == again
    assert run["spent_usd"] == pytest.approx(billed_usd(fake.log))  # over all three invocations
    assert run["spent_new_usd"] == pytest.approx(billed_usd(fake.log[again:]))
    assert run["cost_usd"] == pytest.approx(billed_usd(fake.log))


def test_max_cost_needs_a_price(tmp_path, key, capsys):
    ds = make_dataset(tmp_path / "ds", 2)
    assert main(["eval", str(ds), "--provider", "openai", "--model", "m", "--max-cost", "1"]) == 2
    assert "--max-cost: needs the price of m" in capsys.readouterr().err
    assert not (ds / "runs").exists()


def test_estimates_follow_the_rule_and_are_corrected_by_usage():
    # OpenAI's tile rule: low detail 85; a 1024 x 1024 image is scaled to 768 x 768, 4 tiles.
    assert image_tokens((1024, 1024), "low") == 85 and image_tokens((1024, 1024), None) == 85 + 4 * 170
    assert image_tokens((4096, 1024), "high") == 85 + 170 * 4  # into 2048 x 512 (never scaled up): 4 x 1 tiles
    assert image_tokens((2048, 4096), "high") == 85 + 170 * 6  # OpenAI's example: 1024 x 2048, then 768 x 1536
    assert image_tokens((32, 24), None) == 85 + 170  # small images are not scaled up
    raw = input_tokens(["x" * 400], 1, (32, 24), None)
    assert raw == 100 + 1 + 255

    async def scenario() -> tuple:
        budget = Budget(10.0, ModelEntry(input_per_million=1e3, output_per_million=4e3), spent=0.25, max_tokens=None)
        first = await budget.reserve(raw)
        second = asyncio.create_task(budget.reserve(raw))
        await asyncio.sleep(0)
        assert not second.done()  # the first request goes alone
        budget.settle(first, {"input": 178, "output": 10}, 0.218)
        corrected = await second  # estimated once the first one's usage is known
        assert budget.reserved == pytest.approx(corrected.usd)
        assert await budget.reserve(100_000) is None and budget.reached.startswith("stopped: the next request")
        return first, corrected, budget

    first, corrected, budget = asyncio.run(scenario())
    assert first == Estimate(raw, raw, 512, (raw * 1e3 + 512 * 4e3) / 1e6)
    assert corrected == Estimate(raw, 178, 10, (178 * 1e3 + 10 * 4e3) / 1e6)
    assert budget.spent == pytest.approx(0.468)
    assert IMAGE_TOKENS == 85  # the fake bills images as OpenAI's low detail


def test_a_cap_holds_for_all_the_repeats_together(tmp_path, key):
    """--repeats 3 with --max-cost: each repeat's ledger is capped at what the others left, so the
    three runs together spend no more than the cap (each alone could have spent all of it)."""
    ds = make_dataset(tmp_path / "ds", 6)
    prices = providers_file(tmp_path)
    cap = 2.0
    with FakeVLM(answerer(ds, "right")) as fake:
        assert main(["eval", str(ds), "--provider", "openai", "--model", "fake-vlm", "--providers", prices,
                     "--base-url", fake.url + "/v1", "--max-tokens", "64", "--repeats", "3",
                     "--max-cost", str(cap)]) == 1
        seen = fake.answered()
    assert 6 < len(seen) < 18 and billed_usd(seen) <= cap  # into the second repeat, and stopped there
    runs = ds / "runs"
    spent = [json.loads((runs / name / "run.json").read_text())["spent_usd"]
             for name in ("openai-fake-vlm", "openai-fake-vlm.repeat-2") if (runs / name / "run.json").is_file()]
    assert sum(spent) == pytest.approx(billed_usd(seen))
