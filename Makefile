# BYO Render. `make install` once, then `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
WHEELS ?= $(HOME)/.cache/byo-wheels
BPY_WHEEL := bpy==5.0.1
STAMP := $(VENV)/.installed
# setuptools prints a banner for every editable install whose package folders are mapped (byo.catalog
# is questions/, byo.packs is assets/): "Editable installation ... be careful with folders in your
# working directory". It is information, not a fault; only that message is filtered.
EDITABLE := PYTHONWARNINGS="ignore:Editable installation"
# Python caches compiled modules (and pytest its rewritten test modules) in __pycache__ even where
# the environment says not to (PYTHONDONTWRITEBYTECODE, set in many containers): without the caches
# every test worker and every `byo` the tests start compiles the sources again.
unexport PYTHONDONTWRITEBYTECODE

.PHONY: install harness demo test test-fast bench bench-quick lint docs screenshot clean

# A Debian package: $(1) the package, $(2) a shell test that passes when it is there, $(3) what
# it is for, $(4) what happens without it. Installed with apt when apt is usable, else skipped
# with a message.
define debian_package
	@if $(2); then \
		echo "$(1): installed"; \
	elif command -v apt-get >/dev/null 2>&1 && [ "$$(id -u)" = 0 ]; then \
		echo "installing Debian's $(1) ($(3))"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $(1) >/dev/null; \
	else \
		echo "skipping Debian's $(1): apt-get is not usable here ($(4))"; \
	fi
endef
# A Debian tool the tests use when present: $(1) the command (and package), $(2) what it is
# for, $(3) what happens without it.
debian_tool = $(call debian_package,$(1),command -v $(1) >/dev/null 2>&1,$(2),$(3))
CARD_FONT := /usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf

install: $(STAMP)
	$(call debian_tool,blender,for the 'blender -b -P render.py' path,the bpy wheel still renders)
	$(call debian_tool,chromium,the report test opens the HTML report headless,the report test will be skipped)
	$(call debian_package,fonts-dejavu-core,[ -f $(CARD_FONT) ],the playing-card faces are drawn with DejaVu,poker scenes cannot draw their cards)
	$(call debian_package,xvfb,command -v Xvfb >/dev/null 2>&1,a virtual display for make screenshot,make screenshot will not run)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	@# The bpy wheel is 374 MB: keep a copy so that new virtualenvs install it offline.
	@mkdir -p $(WHEELS)
	@ls $(WHEELS)/bpy-5.0.1-*.whl >/dev/null 2>&1 || $(BIN)/pip download -q --no-deps -d $(WHEELS) $(BPY_WHEEL)
	$(EDITABLE) $(BIN)/pip install -q --find-links $(WHEELS) -e '.[blender,dev]'
	@touch $(STAMP)

# Harness virtualenvs for the round-trip tests of `byo export` (tests/export/test_harnesses.py):
# lmms-eval and Inspect want numpy 2, which bpy 5.0.1 does not allow, so each gets its own,
# with byo installed from this checkout (no bpy). pip caches the wheels in ~/.cache/pip.
HARNESS := .venv-harness
# lmms-eval's full dependency list (CUDA torch, video and audio decoders, API clients, wandb...)
# is not what its task loader and CLI need: lmms-eval goes in with --no-deps, then these.
# torch==2.13.0 takes a local CPU wheel when pip's find-links has one (this machine: /opt/wheels).
# filelock<4.3: lmms-eval 0.7.3 imports filelock._api, which 4.3 removed (it then logs the error,
# evaluates nothing and still exits 0).
LMMS_DEPS := torch==2.13.0 accelerate datasets evaluate loguru tenacity sacrebleu pytz transformers \
	jsonlines pytablewriter 'filelock<4.3'

harness: $(HARNESS)/inspect/.installed $(HARNESS)/lmms/.installed

$(HARNESS)/inspect/.installed: pyproject.toml
	rm -rf $(HARNESS)/inspect && $(PYTHON) -m venv $(HARNESS)/inspect
	$(EDITABLE) $(HARNESS)/inspect/bin/pip install -q -e '.[inspect]'
	@touch $@

$(HARNESS)/lmms/.installed: pyproject.toml Makefile
	rm -rf $(HARNESS)/lmms && $(PYTHON) -m venv $(HARNESS)/lmms
	$(HARNESS)/lmms/bin/pip install -q --no-deps 'lmms-eval>=0.7,<0.8'
	$(HARNESS)/lmms/bin/pip install -q --no-warn-conflicts $(LMMS_DEPS)
	$(EDITABLE) $(HARNESS)/lmms/bin/pip install -q --no-warn-conflicts -e .
	@touch $@

demo: $(STAMP)
	$(BIN)/python -m byo.cli.demo   # ends with byo score and byo report; prints the report path

# One pytest worker per CPU (pytest-xdist), each test file on one worker (its module fixtures
# made once): about 1.5x faster on 2 cores than one worker.
PYTEST := $(BIN)/pytest -q --dist loadfile
# Without renders, most of the tests' time is spent waiting (on servers on loopback, on the
# processes they start, on timeouts): one worker more than the cores fills those waits.
FAST_WORKERS := $(shell echo $$(( $$(nproc 2>/dev/null || echo 1) + 1 )))
# The workers fill the cores: numpy's BLAS threads in each of them would only spin for a share
# (a report's figures take a quarter more CPU with them).
ONE_BLAS_THREAD := OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1

test: $(STAMP) harness
	$(PYTEST) -n auto

test-fast: $(STAMP)
	$(ONE_BLAS_THREAD) $(PYTEST) -n $(FAST_WORKERS) -m "not render and not blender and not browser and not harness and not slow"

# Each benchmark writes its section to $(BENCH_RESULTS)/NAME.json; bench/report.py merges them
# into bench/results.json and bench/results.md (its docstring gives the section format).
BENCH_RESULTS := bench/results
bench: $(STAMP)
	$(BIN)/python bench/render_bench.py --json $(BENCH_RESULTS)/render.json
	$(BIN)/python bench/frontier.py --json $(BENCH_RESULTS)/frontier.json   # the ceiling on the busiest scenes
	$(BIN)/python bench/farm_bench.py --json $(BENCH_RESULTS)/farm.json
	$(BIN)/python bench/passes_bench.py --json $(BENCH_RESULTS)/passes.json
	$(BIN)/python bench/eval_bench.py --json $(BENCH_RESULTS)/eval.json
	$(BIN)/python bench/score_bench.py --json $(BENCH_RESULTS)/score.json
	$(BIN)/python bench/startup_bench.py --json $(BENCH_RESULTS)/startup.json   # --before DIR: an earlier commit too
	$(BIN)/python bench/adaptive_bench.py --json $(BENCH_RESULTS)/adaptive.json   # byo adapt against a simulated observer
	$(BIN)/python bench/family_presets.py --confirm --json $(BENCH_RESULTS)/family_presets.json   # each family's standard against BYO-Eval's at 640x360 and 1920x1080
	$(BIN)/python bench/plan_bench.py --json $(BENCH_RESULTS)/plan.json   # byo plan --estimate against the real run
	$(BIN)/python bench/counterfactual_cost.py --json $(BENCH_RESULTS)/counterfactual_cost.json   # the readability check's share of the demos' render
	$(BIN)/python bench/throughput.py --json $(BENCH_RESULTS)/throughput.json   # images per CPU-hour, paper configs' full size
	$(BIN)/python bench/received_size.py --json $(BENCH_RESULTS)/received_size.json   # 1920x1080 against what GPT-4.1 and Claude receive
	$(BIN)/python bench/real_answers.py --json $(BENCH_RESULTS)/real_answers.json   # skipped without ../shared/real-answers
	$(BIN)/python bench/report.py $(BENCH_RESULTS) --json bench/results.json --md bench/results.md

# The benchmarks that need no renderer, at small sizes (BENCH_QUICK=1), merged the same way into
# $(QUICK_OUT): that the pipeline works, not figures. tests/bench/test_report.py runs it.
QUICK_OUT ?= output/bench-quick
bench-quick: $(STAMP)
	BENCH_QUICK=1 $(BIN)/python bench/eval_bench.py --json $(QUICK_OUT)/results/eval.json
	BENCH_QUICK=1 $(BIN)/python bench/score_bench.py --json $(QUICK_OUT)/results/score.json
	$(BIN)/python bench/report.py $(QUICK_OUT)/results --json $(QUICK_OUT)/results.json --md $(QUICK_OUT)/results.md

lint: $(STAMP)
	$(BIN)/ruff check byo tests bench lint examples render.py blender_addon assets docs
	$(BIN)/lint-imports

# The documentation site (mkdocs.yml): docs/ into site/, strict, so a broken link or anchor fails.
docs: $(STAMP)
	$(BIN)/mkdocs build --strict --site-dir site

screenshot: $(STAMP)   # the add-on's panel in Debian's Blender under Xvfb: docs/addon_panel.png
	$(BIN)/python docs/addon_screenshot.py docs/addon_panel.png

clean:
	rm -rf output site .pytest_cache
