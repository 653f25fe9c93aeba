"""Start-up and report cost of the byo command, as CPU time (user + system of the child process,
from getrusage(RUSAGE_CHILDREN) before and after), each as a ratio to `python -c pass` measured in
the same run. CPU time, not wall time: the machine is shared, and a busy neighbour stretches wall
time but not the CPU a command itself spends.

Measured: `python -c pass`, `byo --help`, `byo plan dataset_configs/demo.yaml --no-sample`, `byo
doctor` with its Blender probes kept from an earlier call (the usual case) and once with --refresh
(probing Blender again), and `byo report` over the demo's runs: both demo datasets (CLEVR-style and
poker) with the blind baseline and the oracle, in the demo's prompt variants (neutral and debiased
preprompts), rendered tiny (64x48 px, 4 samples) by `byo run` once in this benchmark, or reused from
--work. Each command runs --repeats times; the median counts. With --before DIR (a source tree
of an earlier commit: `git archive COMMIT | tar -x -C DIR`) each command also runs on that code,
in the same run (PYTHONPATH names the tree, `python -m byo` for both), and the ratio after/before
is reported. The issue's targets: `byo --help` under 1 s, `byo doctor` under 3 s, the report
under 5 s and under 1 MB. The report draws its sections in forked worker processes (one per CPU,
up to 4): their CPU counts in the report's (getrusage counts children that were waited for), and
its wall time, what a person waits, is a figure too. Run with `make bench`.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml
from figures import QUICK, ROOT, Section

sys.path.insert(0, str(ROOT / "tests" / "support"))  # the tiny render settings live with the tests
from golden_data import tiny_config  # noqa: E402

BIN = Path(sys.executable).parent
DEMO = {"demo": ROOT / "dataset_configs" / "demo.yaml", "demo_poker": ROOT / "dataset_configs" / "demo_poker.yaml"}
MODELS = ("blind", "oracle")
PREPROMPTS = ("neutral", "debiased")  # as `make demo` asks (byo/cli/demo.py)
MB = 1_000_000


def cpu_seconds(argv: list[str], env: dict, cwd: Path) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one run of `argv`, which must succeed."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} exited {done.returncode}: {done.stderr[-2000:]}")
    return after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime, wall


def measure(argv: list[str], env: dict, cwd: Path, repeats: int, before=None) -> dict:
    """The median CPU and wall seconds over `repeats` runs; `before()` runs (unmeasured) ahead of each."""
    cpu, wall = [], []
    for _ in range(repeats):
        if before:
            before()
        c, w = cpu_seconds(argv, env, cwd)
        cpu.append(c)
        wall.append(w)
    return {"cpu": round(statistics.median(cpu), 3), "wall": round(statistics.median(wall), 3),
            "cpu_min": round(min(cpu), 3), "cpu_max": round(max(cpu), 3)}


def demo_runs(work: Path, env: dict) -> list[Path]:
    """The demo's runs in `work`, made by `byo run` on tiny renders unless they are there already
    (byo run redoes nothing that is up to date)."""
    work.mkdir(parents=True, exist_ok=True)
    for name, config in DEMO.items():
        (work / f"{name}.yaml").write_text(yaml.safe_dump(tiny_config(config), sort_keys=False))
    experiment = {"experiment": {"name": "demo", "configs": [f"{n}.yaml" for n in DEMO], "models": list(MODELS),
                                 "questions": {"preprompts": list(PREPROMPTS), "instructions": ["direct"]}}}
    (work / "experiment.yaml").write_text(yaml.safe_dump(experiment, sort_keys=False))
    done = subprocess.run([str(BIN / "byo"), "run", "experiment.yaml", "--workers", "1", "-q"], cwd=work, env=env,
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"byo run of the demo in {work} exited {done.returncode}: {done.stderr[-2000:]}")
    return [work / "output" / name / "runs" / model for name in DEMO for model in MODELS]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=1 if QUICK else 3, help="runs of each command (the median "
                        "counts)")
    parser.add_argument("--work", type=Path, help="where the demo's runs are made, or already are (default: a "
                        "temporary folder)")
    parser.add_argument("--json", type=Path, help="write the section here (bench/results/startup.json)")
    parser.add_argument("--before", type=Path, help="a source tree of an earlier commit, measured in the same run")
    args = parser.parse_args(argv)

    section = Section("startup", "byo start-up and report: CPU time against `python -c pass`",
                      "CPU seconds (user + system) of each command as a child process, the median of "
                      f"{args.repeats} runs, and its ratio to `python -c pass` in the same run. The report is "
                      "`byo report` over the demo's four runs (demo and demo_poker, blind and oracle, neutral and "
                      "debiased preprompts) rendered at 64x48 px; its size is report.html's (the sample viewer is a "
                      "page of its own).")
    with tempfile.TemporaryDirectory(prefix="byo-startup-") as tmp:
        tmp = Path(tmp)
        # a cache of byo doctor's Blender probes of its own: the user's is neither read nor replaced
        env = {**os.environ, "XDG_CACHE_HOME": str(tmp / "cache"), "COLUMNS": "100"}
        runs = demo_runs(args.work or tmp / "demo", env)
        report = tmp / "report.html"
        trees = {"after": ROOT, **({"before": args.before.resolve()} if args.before else {})}

        def clear_report():
            for path in (report, report.with_name("report_samples.html")):
                path.unlink(missing_ok=True)
            shutil.rmtree(report.with_name("report_samples_files"), ignore_errors=True)

        byo = [sys.executable, "-P", "-m", "byo"]  # the tree's code: PYTHONPATH names it (-P: not the cwd)
        commands = {
            "python": ("python -c pass", [sys.executable, "-c", "pass"], None, None),
            "help": ("byo --help", [*byo, "--help"], 1.0, None),
            "plan": ("byo plan dataset_configs/demo.yaml --no-sample",
                     [*byo, "plan", str(DEMO["demo"]), "--no-sample"], None, None),
            "doctor_refresh": ("byo doctor --refresh (probes Blender again)", [*byo, "doctor", "--refresh"], None, None),
            "doctor": ("byo doctor (Blender's probes kept from the call before)", [*byo, "doctor"], 3.0, None),
            "report": ("byo report of the demo's 4 runs", [*byo, "report", *map(str, runs), "-o", str(report)], 5.0,
                       clear_report),
        }
        measured, sizes = {}, {}
        for tree, source in trees.items():
            tree_env = {**env, "PYTHONPATH": str(source)}
            for key, (label, command, _, before) in commands.items():
                if key == "doctor_refresh" and tree == "before":
                    continue  # the code before may keep no probes: `doctor` is then the same work
                found = measure(command, tree_env, ROOT, args.repeats, before)
                measured[tree, key] = found
                print(f"{tree}: {label}: {found['cpu']} s CPU, {found['wall']} s wall", flush=True)
            sizes[tree] = (report.stat().st_size, report.with_name("report_samples.html").stat().st_size)
        report_bytes, viewer_bytes = sizes["after"]

    for key, (label, _, at_most, _) in commands.items():
        section.figure(f"{key}_cpu", measured["after", key]["cpu"], "s", f"{label}: CPU", at_most=at_most)
        if ("before", key) in measured and key != "python":
            section.figure(f"{key}_cpu_before", measured["before", key]["cpu"], "s", f"{label}: CPU, before")
    section.figure("report_wall", measured["after", "report"]["wall"], "s", "byo report of the demo's 4 runs: wall "
                   "(what a person waits: its sections are drawn side by side, one process per CPU)", at_most=5.0)
    if ("before", "report") in measured:
        section.figure("report_wall_before", measured["before", "report"]["wall"], "s",
                       "byo report of the demo's 4 runs: wall, before")
    section.figure("report_size", round(report_bytes / MB, 3), "MB", "the demo's report.html", at_most=1.0)
    if "before" in sizes:
        section.figure("report_size_before", round(sizes["before"][0] / MB, 3), "MB", "the demo's report.html, before")
    for key, (label, _, _, _) in commands.items():
        if key != "python":
            section.ratio(f"{key}_ratio", f"{key}_cpu", "python_cpu", f"{label} / python -c pass (CPU)")
            if f"{key}_cpu_before" in section.figures:
                section.ratio(f"{key}_speedup", f"{key}_cpu_before", f"{key}_cpu", f"{label}: before / after (CPU)")
    if "before" in sizes:
        section.ratio("report_size_ratio", "report_size_before", "report_size", "report.html: before / after (size)")
    section.table("CPU and wall seconds per command", [("code", ""), ("command", ""), ("CPU median", "s"),
                                                       ("CPU min", "s"), ("CPU max", "s"), ("wall median", "s"),
                                                       ("runs", "")],
                  [[tree, commands[k][0], m["cpu"], m["cpu_min"], m["cpu_max"], m["wall"], args.repeats]
                   for (tree, k), m in measured.items()])
    section.table("the report's files", [("code", ""), ("file", ""), ("size", "MB")],
                  [row for tree, (page, viewer) in sizes.items()
                   for row in ([tree, "report.html", round(page / MB, 3)], [tree, "report_samples.html",
                                                                             round(viewer / MB, 3)])])
    section.write(args.json)


if __name__ == "__main__":
    main()
