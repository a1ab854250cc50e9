# minigrad: `make tui` opens the TUI on the built-in demo, `make test` runs the whole suite.
# Each target does all set-up on a fresh Debian machine with Python 3.11.

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: tui test setup graphviz chromium bench docs clean

setup: $(STAMP) graphviz chromium

$(PY):
	$(PYTHON) -m venv $(VENV)

# Re-install when the project's metadata changes.
$(STAMP): pyproject.toml setup.py | $(PY)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e ".[dev]"
	@# PyTorch is an optional test oracle; only this exact spelling takes the CPU build on disk.
	@# expecttest: torch.testing's OpInfo database (tests/test_conformance.py) imports it.
	-$(PY) -m pip install -q torch==2.13.0 expecttest || echo "note: PyTorch not installed; oracle tests will be skipped"
	touch $(STAMP)

graphviz:
	@if command -v dot >/dev/null 2>&1; then :; \
	elif command -v apt-get >/dev/null 2>&1 && [ "$$(id -u)" = 0 ]; then \
		echo "Installing system Graphviz (dot) with apt-get..."; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq graphviz >/dev/null; \
	elif command -v apt-get >/dev/null 2>&1 && command -v sudo >/dev/null 2>&1; then \
		sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq graphviz >/dev/null; \
	else \
		echo "Graphviz's 'dot' program is missing. Install it with your package manager:"; \
		echo "  Debian/Ubuntu: sudo apt-get install graphviz   macOS: brew install graphviz"; \
		echo "minigrad still works; the renderer will write DOT source instead of SVG."; \
	fi

# The browser tests (tests/browser) drive Debian's Chromium with playwright (no browser download);
# without it they skip and say so.
chromium:
	@if command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1; then :; \
	elif command -v apt-get >/dev/null 2>&1 && [ "$$(id -u)" = 0 ]; then \
		echo "Installing Chromium with apt-get (for the browser tests)..."; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null \
			|| echo "note: Chromium could not be installed; the browser tests will be skipped"; \
	elif command -v apt-get >/dev/null 2>&1 && command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then \
		sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null \
			|| echo "note: Chromium could not be installed; the browser tests will be skipped"; \
	else \
		echo "note: Chromium is missing (Debian/Ubuntu: sudo apt-get install chromium); the browser tests will be skipped."; \
	fi

tui: $(STAMP) graphviz
	$(VENV)/bin/minigrad-tui

# The suite includes tests/test_wheel.py: it builds the wheel, installs it into a throw-away
# environment and runs minigrad, minigrad-tui and `minigrad lessons` from a folder outside the
# checkout (offline). `--dist loadgroup` keeps that module's tests on one worker, sharing one build.
test: setup
	$(PY) -m pytest -q -n 2 --dist loadgroup -p no:cacheprovider

docs: setup
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict

# The benchmark scripts install nothing themselves: this target installs the references.
bench: setup
	-$(PY) -m pip install -q torch==2.13.0 micrograd || echo "note: a reference could not be installed; its comparisons are reported as missing"
	$(PY) bench/run_all.py

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis build dist *.egg-info
