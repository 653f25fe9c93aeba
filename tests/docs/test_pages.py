"""The documentation: README.md and the pages of docs/. The site builds in MkDocs' strict mode
(a broken link or anchor fails), the README stays a short front door whose links resolve, and
every command shown in a shell block runs: the byo commands of each page in order, in a
sandbox holding small versions of the shipped configs (64x48 pixels, 4 samples, at most 2
images a render). Commands that would need an API key run against a fake server on loopback;
those that need a cluster, another harness or would change this installation are skipped, each
with the test that covers it."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml
from conftest import ROOT
from fake_vlm import FakeVLM
from golden_data import tiny_config

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
README_MAX_LINES = 250
FENCE = re.compile(r"^```(\S*)\s*$")
SHELL = ("sh", "bash")

# Commands shown but not run here, each with what runs it instead.
SKIPPED = {
    r"^make (install|harness)\b": "installs this machine's environment (CI runs it first)",
    r"^make demo\b": "tests/cli/test_demo.py runs the demo",
    r"^make test\b": "is this test suite",
    r"^make lint\b": "CI runs it; tests/lint/test_family_contract.py tests the family contract",
    r"^make docs\b": "test_the_site_builds_in_strict_mode below builds the site",
    r"^make screenshot\b": "needs Xvfb and Debian's Blender; tests/addon/test_blender_addon.py tests the add-on",
    r"^make bench\b": "takes an hour; tests/bench/test_report.py runs make bench-quick's benchmarks",
    r"^make bench-quick\b": "tests/bench/test_report.py runs it",
    r"^blender -b -P render\.py": "tests/render/test_blender_binary.py runs render.py in Debian's Blender",
    r"^ray start": "starts a Ray cluster; tests/render/executors/test_executors.py starts one on loopback",
    r"--executor ray --address HEAD": "needs a Ray cluster; tests/render/executors/test_executors.py renders on a two-node one",
    r"^sbatch|SLURM_ARRAY_TASK_ID|shard-\*": "needs Slurm; the two shards by hand on the same page are run",
    r"--executor slurm(?!.*--slurm-local)": "needs Slurm; tests/render/executors/test_slurm.py runs the job array here "
                                           "(--slurm-local)",
    r"--provider hf --model": "downloads the model's weights; tests/providers/test_hf_local.py runs the provider "
                              "with a tiny random model",
    r"^lmms-eval ": "lmms-eval runs in its own virtualenv in tests/export/test_harnesses.py",
    r"inspect eval task\.py|^cd output/demo-inspect$": "Inspect runs in its own virtualenv in tests/export/test_harnesses.py",
    r"python run\.py --data|^cp output/demo-vlmevalkit/": "VLMEvalKit is not installed here; tests/export/test_export.py checks "
                                                       "the TSV layout",
    r"^byo run experiment\.yaml": "the page's experiment file is an example (a hosted model, a server on port 8000, "
                                  "../clevr/); tests/cli/test_experiment.py runs and refuses experiment files",
    r"^pip install": "would install into this environment; tests/families/test_entry_points.py installs the copy",
    r"--provider (clip|hf-clip) |runs/(clip|hf-clip)-": "loads a real image-text model's weights; "
                                                       "tests/providers/test_image_text.py runs tiny ones end to end",
    r"--text-only|runs/\S*-text-only": "the sandbox's fake server wants an image; tests/eval/test_text_only.py runs "
                                      "the text-only baseline against one that takes text alone",
}
RUN_IN_SHELL = (r"^python -c ", r"^cp -r examples/toy_family ", r"^mv my_family/", r"^sed -i ")


@dataclass(frozen=True)
class Command:
    page: Path
    line: str

    @property
    def skip_reason(self) -> str | None:
        return next((why for pattern, why in SKIPPED.items() if re.search(pattern, self.line)), None)

    @property
    def runs_in_shell(self) -> bool:
        return any(re.search(p, self.line) for p in RUN_IN_SHELL)


def shell_lines(page: Path) -> list[str]:
    """The commands of a page's shell blocks: continuation lines joined, comments dropped."""
    lines, language = [], None
    for line in page.read_text().splitlines():
        fence = FENCE.match(line)
        if fence and language is None:
            language = fence.group(1)
        elif line.startswith("```") and language is not None:
            language = None
        elif language in SHELL:
            lines.append(line)
    joined, current = [], ""
    for line in lines:
        current += line[:-1].rstrip() + " " if line.endswith("\\") else line
        if not line.endswith("\\"):
            joined.append(current)
            current = ""
    commands = [re.split(r"\s{2,}#", c)[0].strip() for c in joined]
    return [c for c in commands if c and not c.startswith("#")]


def commands(page: Path) -> list[Command]:
    return [Command(page, part.strip()) for line in shell_lines(page) for part in line.split("&&")]


def page_id(page: Path) -> str:
    return page.relative_to(ROOT).as_posix()


# --- the site and the README ------------------------------------------------------------------
def test_the_site_builds_in_strict_mode(tmp_path):
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
                          cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    assert (tmp_path / "site" / "write_a_family" / "index.html").is_file()


def test_a_broken_link_fails_the_build(tmp_path):
    docs = tmp_path / "docs"
    shutil.copytree(ROOT / "docs", docs)
    (docs / "glossary.md").write_text((docs / "glossary.md").read_text() + "\nSee [nowhere](nowhere.md).\n")
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text())
    config["docs_dir"] = str(docs)
    (tmp_path / "mkdocs.yml").write_text(yaml.safe_dump(config))
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
                          cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode != 0 and "nowhere.md" in done.stderr


def test_the_readme_is_a_short_front_door():
    text = (ROOT / "README.md").read_text()
    assert len(text.splitlines()) <= README_MAX_LINES
    links = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", text)
    assert links and all((ROOT / link).exists() for link in links if "://" not in link), links
    # The worked example shows the shipped config as it is.
    assert (ROOT / "dataset_configs" / "chess" / "count_blur.yaml").read_text().strip() in text


def test_every_shell_command_is_run_or_skipped_with_a_reason():
    unknown = [f"{page_id(c.page)}: {c.line}" for page in PAGES for c in commands(page)
               if not (c.line.startswith("byo ") or c.skip_reason or c.runs_in_shell)]
    assert not unknown, "commands neither run nor skipped:\n" + "\n".join(unknown)


# --- running them -----------------------------------------------------------------------------
def sandbox(tmp_path: Path) -> Path:
    """A folder with small versions of the shipped configs and of the example family's."""
    root = tmp_path / "work"
    for config in sorted((ROOT / "dataset_configs").rglob("*.yaml")):
        target = root / config.relative_to(ROOT)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(yaml.safe_dump(tiny_config(config), sort_keys=False))
    shutil.copytree(ROOT / "examples", root / "examples", ignore=shutil.ignore_patterns("__pycache__"))
    example = root / "examples" / "toy_family" / "toy" / "example.yaml"
    example.write_text(yaml.safe_dump(tiny_config(example), sort_keys=False))
    return root


def install_example(tmp_path: Path) -> Path:
    site = tmp_path / "site-packages"
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
                    "--no-index", "--target", str(site), str(ROOT / "examples" / "toy_family")], check=True)
    return site


def prepare(line: str, root: Path, fake: FakeVLM) -> str:
    """What a command needs that the page only describes: a few images, the answers file."""
    if line.startswith("byo render") and "--limit" not in line and "--sample" not in line:
        line += " --limit 2"
    if " counting.yaml" in line and not (root / "counting.yaml").exists():  # getting_started.md's own config
        block = re.search(r"```yaml\n(# counting\.yaml.*?)```", (ROOT / "docs" / "getting_started.md").read_text(), re.S)
        (root / "counting.yaml").write_text(block.group(1))
        (root / "counting.yaml").write_text(yaml.safe_dump(tiny_config(root / "counting.yaml"), sort_keys=False))
    if line.startswith("byo render dataset_configs/compass/"):  # COMPASS names shapes: 8 px across at least
        config = root / line.split()[2]
        data = yaml.safe_load(config.read_text())
        data["scene"]["resolution"] = [160, 120]
        config.write_text(yaml.safe_dump(data, sort_keys=False))
    if line.startswith("byo import-predictions answers.jsonl"):
        questions = (root / "output" / "demo" / "questions.jsonl").read_text().splitlines()
        (root / "answers.jsonl").write_text("".join(
            json.dumps({"id": json.loads(q)["id"], "response": "3"}) + "\n" for q in questions))
    line = line.replace("http://localhost:8000/v1", f"{fake.url}/v1")  # a page's vLLM server: the fake
    if "--providers providers.yaml" in line:  # the page's providers file, its vLLM server the fake
        page = (ROOT / "docs" / "evaluation.md").read_text()
        block = re.search(r"```yaml\n(providers:.*?)```", page, re.S).group(1)
        (root / "providers.yaml").write_text(block.replace("http://localhost:8000/v1", f"{fake.url}/v1"))
    return line


def run(command: Command, root: Path, env: dict, fake: FakeVLM) -> subprocess.CompletedProcess:
    line = prepare(command.line, root, fake)
    if command.runs_in_shell:
        line = line.replace("python -c", f"{shlex.quote(sys.executable)} -c", 1)
        return subprocess.run(line, shell=True, cwd=root, env=env, capture_output=True, text=True)
    return subprocess.run([sys.executable, "-m", "byo.cli", *shlex.split(line)[1:]], cwd=root, env=env,
                          capture_output=True, text=True)


def python_blocks(page: Path) -> list[str]:
    """The page's ```python blocks, in order."""
    return re.findall(r"^```python\n(.*?)^```", page.read_text(), re.S | re.M)


@pytest.mark.render
def test_the_python_api_page_runs_as_a_notebook_would(tmp_path):
    """docs/api.md's example, as one script in the sandbox: it renders, asks, audits, evaluates
    (the oracle and the blind baseline), scores, compares and reports through `import byo` alone."""
    root = sandbox(tmp_path)
    script = "\n".join(python_blocks(ROOT / "docs" / "api.md"))
    assert "import byo" in script and "from byo." not in script
    done = subprocess.run([sys.executable, "-c", script], cwd=root, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "{'oracle': 1.0, 'blind':" in done.stdout
    assert (root / "output" / "demo" / "report.html").is_file()
    assert (root / "output" / "demo" / "report_samples.html").is_file()


RUNNABLE = [page for page in PAGES if any(not c.skip_reason for c in commands(page))]


@pytest.mark.render
@pytest.mark.parametrize("page", RUNNABLE, ids=page_id)
def test_the_commands_of_a_page_run(page, tmp_path):
    root = sandbox(tmp_path)
    env = {**os.environ, "OPENAI_API_KEY": "sk-docs-test", "GROQ_API_KEY": "gsk-docs-test",
           "VLLM_API_KEY": "docs-test"}
    if page.name == "write_a_family.md":
        env["PYTHONPATH"] = str(install_example(tmp_path))
    with FakeVLM() as fake:
        env.update(OPENAI_BASE_URL=f"{fake.url}/v1", GROQ_BASE_URL=fake.url, OLLAMA_HOST=fake.url)
        for command in commands(page):
            if command.skip_reason:
                continue
            done = run(command, root, env, fake)
            assert done.returncode == 0, f"{command.line}\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}"
            if command.line.startswith("byo plan dataset_configs/chess/count_blur.yaml"):
                assert "20 combinations x 10 images = 200 images" in done.stdout


def test_papers_are_named_by_their_names_never_by_a_seed_number():
    """A reader takes "seed 002" for a random seed: docs, help texts, config comments, code and
    tests name BYO-Eval, Auto-Comp, COMPASS, KamonBench, the compositional-generalisation study."""
    numbered = re.compile(r"\bseed[ _-]00\d\b", re.IGNORECASE)
    places = [ROOT / "README.md", *(ROOT / d for d in ("docs", "byo", "dataset_configs", "questions", "tests", "bench"))]
    found = []
    for place in places:
        for path in [place] if place.is_file() else sorted(place.rglob("*")):
            if path.is_file() and path.suffix in (".md", ".py", ".yaml", ".yml", ".j2", ".txt"):
                found += [f"{path.relative_to(ROOT)}:{i}" for i, line in enumerate(path.read_text().splitlines(), 1)
                          if numbered.search(line) and path != Path(__file__)]
    assert not found, found
