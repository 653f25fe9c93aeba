"""Merge the benchmarks' sections into bench/results.json and a Markdown report, bench/results.md.

    python bench/report.py [bench/results] [--json bench/results.json] [--md bench/results.md]

Each benchmark writes one section, RESULTS/<name>.json (bench/figures.py's `Section` does it);
files whose name starts with a dot are skipped. A section:

    {"section": "eval",                        # the file name without .json
     "title": "byo eval: ...", "about": "what was measured, and how",
     "quick": false,                           # small sizes (BENCH_QUICK=1): requirements not checked
     "machine": {"cpus": 2, "cpus_usable": 2, "cpu_model": "...", "python": "3.11.7", "platform": "...",
                 "git_commit": "...", "git_dirty": false, "started": "...", "finished": "...",
                 "load_average_start": [1.9, 0.9, 1.0], "load_average_end": [2.3, 1.1, 1.0]},
     "figures": {"sequential_rate": {"value": 3.2, "unit": "req/s", "label": "requests per second, one at a time",
                                     "at_least": ..., "at_most": ...}},      # the last two: what the issue requires
     "ratios": {"speedup": {"value": 42.1, "of": "concurrent_rate", "to": "sequential_rate",
                            "label": "...", "at_least": 30}},               # figures[of] / figures[to]
     "tables": [{"name": "...", "columns": [{"name": "family", "unit": ""}, {"name": "render", "unit": "s"}],
                 "rows": [["chess", 1.2]]}]}

A render benchmark fills the same shape: a table per family of build / render / measure / write
seconds and overhead share, a table of presets (samples, PSNR dB, SSIM, images per minute), the
200-image trend as a table (image, seconds, RSS MB), and the headline figures with their ratios
(the standard preset against 128 samples, at_least 10). A file without "title", "figures" or
"tables" is read as a flat {name: value} mapping without units (what `figures.show` writes).

results.json is {"generated": ..., "sections": {name: section}, "requirements": [...]}, where
each requirement is a figure or ratio with at_least / at_most and whether it was met (None for
quick sections). results.md opens with the requirements, then one part per section.
"""

from __future__ import annotations

import argparse
import datetime
import json
from pathlib import Path

BENCH = Path(__file__).resolve().parent


def load_section(path: Path) -> dict:
    doc = json.loads(path.read_text())
    if not isinstance(doc, dict):
        raise ValueError(f"{path}: expected a JSON object")
    if not {"title", "figures", "tables"} & set(doc):  # a flat {name: value} mapping
        doc = {"title": path.stem, "figures": {k: {"value": v, "unit": "", "label": k} for k, v in doc.items()}}
    doc.setdefault("section", path.stem)
    for key, default in (("about", ""), ("quick", False), ("machine", {}), ("figures", {}), ("ratios", {}),
                         ("tables", [])):
        doc.setdefault(key, default)
    return doc


def load_sections(results: Path) -> dict[str, dict]:
    return {doc["section"]: doc for doc in map(load_section, sorted(results.glob("[!.]*.json")))}


def requirements(sections: dict[str, dict]) -> list[dict]:
    out = []
    for name, doc in sections.items():
        for kind in ("figures", "ratios"):
            for key, entry in doc[kind].items():
                for bound in ("at_least", "at_most"):
                    if bound not in entry:
                        continue
                    value, limit = entry.get("value"), entry[bound]
                    met = None
                    if not doc["quick"] and value is not None:
                        met = value >= limit if bound == "at_least" else value <= limit
                    out.append({"section": name, "name": key, "label": entry.get("label", key),
                                "value": value, "unit": "x" if kind == "ratios" else entry.get("unit", ""),
                                bound: limit, "met": met})
    return out


# --- Markdown --------------------------------------------------------------------------------------
def fmt(value) -> str:
    if value is None:
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        if abs(value) >= 1000:
            return f"{value:,.0f}"
        return f"{value:.1f}" if abs(value) >= 100 else f"{value:.3g}"
    if isinstance(value, list | tuple):
        return ", ".join(fmt(v) for v in value)
    if isinstance(value, dict):
        return json.dumps(value)
    return str(value)


def times(value) -> str:
    """A ratio to three figures (51.9x, 4.95x), so one just short of its bound does not print
    as the bound."""
    return f"{value:.3g}x" if isinstance(value, int | float) else fmt(value)


def with_unit(value, unit: str) -> str:
    return times(value) if unit == "x" else f"{fmt(value)} {unit}".strip()


def cell(value) -> str:
    return fmt(value).replace("|", "\\|").replace("\n", " ")


def md_table(header: list[str], rows: list[list]) -> list[str]:
    lines = ["| " + " | ".join(cell(h) for h in header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
    return lines + [""]


def bound_text(entry: dict) -> str:
    if "at_least" in entry:
        return f">= {fmt(entry['at_least'])}"
    if "at_most" in entry:
        return f"<= {fmt(entry['at_most'])}"
    return ""


def verdict(met: bool | None) -> str:
    return {True: "met", False: "NOT met", None: "not checked (quick sizes)"}[met]


def machine_line(m: dict) -> str:
    if not m:
        return "Machine: not recorded."
    load = (f"load average {fmt(m.get('load_average_start', [None])[0])} at the start, "
            f"{fmt(m.get('load_average_end', [None])[0])} at the end (1 minute)")
    commit = (m.get("git_commit") or "?")[:10] + (" with uncommitted changes" if m.get("git_dirty") else "")
    return (f"Machine: {m.get('cpus')} CPUs ({m.get('cpu_model') or 'model unknown'}), Python {m.get('python')}, "
            f"{load}; {m.get('started', '?')} to {m.get('finished', '?')}; commit {commit}.")


def section_markdown(doc: dict) -> list[str]:
    lines = [f"## {doc['title']}", ""]
    if doc["about"]:
        lines += [doc["about"], ""]
    if doc["quick"]:
        lines += ["Quick sizes (BENCH_QUICK=1): a check that the benchmark runs, not its figures.", ""]
    lines += [machine_line(doc["machine"]), ""]
    if doc["figures"]:
        lines += md_table(["figure", "value", "unit", "required"],
                          [[e.get("label", k), e.get("value"), e.get("unit", ""), bound_text(e)]
                           for k, e in doc["figures"].items()])
    if doc["ratios"]:
        labels = {k: e.get("label", k) for k, e in doc["figures"].items()}
        lines += md_table(["ratio", "of", "to", "value", "required"],
                          [[e.get("label", k), labels.get(e.get("of"), e.get("of")), labels.get(e.get("to"), e.get("to")),
                            times(e.get("value")), bound_text(e)] for k, e in doc["ratios"].items()])
    for table in doc["tables"]:
        header = [c["name"] + (f" ({c['unit']})" if c.get("unit") else "") for c in table["columns"]]
        lines += [f"### {table['name']}", ""] + md_table(header, table["rows"])
    return lines


def markdown(sections: dict[str, dict], reqs: list[dict], generated: str, results: str) -> str:
    lines = ["# Benchmarks", "", f"Merged by bench/report.py on {generated} from {results}/*.json "
             "(`make bench`); each section says on what machine and when it was measured.", ""]
    if reqs:
        lines += ["## Requirements (issue 18)", ""]
        lines += md_table(["section", "figure", "value", "required", ""],
                          [[r["section"], r["label"], with_unit(r["value"], r["unit"]), bound_text(r),
                            verdict(r["met"])] for r in reqs])
    for doc in sections.values():
        lines += section_markdown(doc)
    return "\n".join(lines).rstrip() + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("results", type=Path, nargs="?", default=BENCH / "results", help="the section files")
    parser.add_argument("--json", type=Path, default=BENCH / "results.json")
    parser.add_argument("--md", type=Path, default=BENCH / "results.md")
    args = parser.parse_args(argv)
    sections = load_sections(args.results)
    reqs = requirements(sections)
    generated = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps({"generated": generated, "sections": sections, "requirements": reqs},
                                    indent=1, ensure_ascii=False) + "\n")
    args.md.parent.mkdir(parents=True, exist_ok=True)
    results = args.results.resolve()
    shown = results.relative_to(BENCH.parent) if results.is_relative_to(BENCH.parent) else results
    args.md.write_text(markdown(sections, reqs, generated, str(shown)))
    print(f"{len(sections)} sections ({', '.join(sections) or 'none'}) -> {args.json}, {args.md}")
    for r in reqs:
        print(f"  {r['section']}: {r['label']} = {with_unit(r['value'], r['unit'])} ({bound_text(r)}): "
              f"{verdict(r['met'])}")


if __name__ == "__main__":
    main()
