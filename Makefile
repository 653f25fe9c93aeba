# BYO Render. `make install` once, then `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
WHEELS ?= $(HOME)/.cache/byo-wheels
BPY_WHEEL := bpy==5.0.1
STAMP := $(VENV)/.installed

.PHONY: install demo test test-fast bench lint screenshot clean

# A Debian tool the tests use when present: $(1) the package, $(2) what it is for, $(3) what
# happens without it, $(4) its command when not named like the package. Installed with apt when
# apt is usable, else skipped with a message.
define debian_tool
	@if command -v $(or $(4),$(1)) >/dev/null 2>&1; then \
		echo "$(1): $$($(or $(4),$(1)) --version 2>/dev/null | head -n1 | grep . || command -v $(or $(4),$(1)))"; \
	elif command -v apt-get >/dev/null 2>&1 && [ "$$(id -u)" = 0 ]; then \
		echo "installing Debian's $(1) ($(2))"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $(1) >/dev/null; \
	else \
		echo "skipping Debian's $(1): apt-get is not usable here ($(3))"; \
	fi
endef

install: $(STAMP)
	$(call debian_tool,blender,for the 'blender -b -P render.py' path,the bpy wheel still renders)
	$(call debian_tool,chromium,the report test opens the HTML report headless,the report test will be skipped)
	$(call debian_tool,xvfb,a virtual display for make screenshot,make screenshot will not run,Xvfb)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	@# The bpy wheel is 374 MB: keep a copy so that new virtualenvs install it offline.
	@mkdir -p $(WHEELS)
	@ls $(WHEELS)/bpy-5.0.1-*.whl >/dev/null 2>&1 || $(BIN)/pip download -q --no-deps -d $(WHEELS) $(BPY_WHEEL)
	$(BIN)/pip install -q --find-links $(WHEELS) -e '.[blender,dev]'
	@touch $(STAMP)

demo: $(STAMP)
	$(BIN)/python -m byo.demo   # ends with byo score and byo report; prints the report path

test: $(STAMP)
	$(BIN)/pytest -q

test-fast: $(STAMP)
	$(BIN)/pytest -q -m "not render and not blender"

bench: $(STAMP)
	$(BIN)/python bench/render_bench.py
	$(BIN)/python bench/eval_bench.py

lint: $(STAMP)
	$(BIN)/ruff check byo tests bench render.py blender_addon assets docs
	$(BIN)/lint-imports

screenshot: $(STAMP)   # the add-on's panel in Debian's Blender under Xvfb: docs/addon_panel.png
	$(BIN)/python docs/addon_screenshot.py docs/addon_panel.png

clean:
	rm -rf output .pytest_cache
