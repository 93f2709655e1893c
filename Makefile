# make book | make test | make outputs | make bench   (each creates or updates .venv first)
# make browser: opens the built book in headless Chromium (installs Debian's chromium and chromium-driver if missing)
# make lab: JupyterLab in notebooks/, where a chapter's .md opens as a notebook on this venv's kernel
VENV    := .venv
PYTHON  := $(VENV)/bin/python
STAMP   := $(VENV)/.installed
BOOTSTRAP_PYTHON ?= python3

# the venv's tools first, so that notebook kernels run inside it
export PATH := $(abspath $(VENV))/bin:$(PATH)
# lime's many small ridge fits are slower with two BLAS threads; single threads also make runs repeatable
export OPENBLAS_NUM_THREADS ?= 1
export OMP_NUM_THREADS ?= 1
export MKL_NUM_THREADS ?= 1
export PYDEVD_DISABLE_FILE_VALIDATION := 1

CHAPTERS := $(sort $(wildcard notebooks/*.md))
LINTED   := limetheory tests benchmarks tools browser_tests
SUDO     := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
CHROMEDRIVER := /usr/bin/chromedriver

.PHONY: venv book test lint pytest browser outputs costs lab bench mutants clean

$(STAMP): requirements.txt pyproject.toml
	test -x $(PYTHON) || $(BOOTSTRAP_PYTHON) -m venv $(VENV)
	$(PYTHON) -m pip install --upgrade pip
	$(PYTHON) -m pip install -r requirements.txt
	touch $(STAMP)

venv: $(STAMP)

book: venv
	$(VENV)/bin/jupyter-book build . --builder html -W -n --keep-going

lint: venv
	$(VENV)/bin/ruff check $(LINTED)
	$(VENV)/bin/ruff format --check $(LINTED)

# two workers (this machine has two cores); --dist loadfile keeps each notebook's cells in one kernel, in order
pytest: venv
	$(PYTHON) -m pytest tests $(CHAPTERS:.md=.ipynb) --nbval-lax --nbval-current-env --nbval-cell-timeout=1800 \
		-n 2 --dist loadfile

$(CHROMEDRIVER):
	$(SUDO) apt-get update
	DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y chromium chromium-driver

# JupyterLab's default viewer for Markdown becomes jupytext's notebook, so that notebooks/*.md open as notebooks
LAB_SETTINGS := $(VENV)/share/jupyter/lab/settings/overrides.d/limetheory.json
$(LAB_SETTINGS): tools/lab_settings.json $(STAMP)
	mkdir -p $(dir $@)
	cp tools/lab_settings.json $@

# the kernel is this venv's python (the Jupyter server runs from it); JupyterLab prints its address with a token
lab: venv $(LAB_SETTINGS)
	@echo "Starting JupyterLab in notebooks/: open the http://127.0.0.1:... address it prints below (Ctrl-C stops it)"
	cd notebooks && ../$(VENV)/bin/jupyter lab --ServerApp.ip=127.0.0.1 $(if $(SUDO),,--allow-root)

# needs the built book (make book); browser_tests/test_lab.py also runs one chapter in JupyterLab, as `make lab` serves it
browser: venv $(CHROMEDRIVER) $(LAB_SETTINGS)
	$(PYTHON) -m pytest browser_tests -p no:cacheprovider

# the whole suite: lint, package tests, the .md <-> .ipynb drift check, nbval over every chapter,
# the book built with warnings as errors from the checked notebooks, and every page opened in a browser
test: lint pytest book browser

# every execution also records its time and the kernel's peak memory in book/chapter_costs.json (the book's table)
outputs: venv
	$(PYTHON) -m limetheory.chapters --costs book/chapter_costs.json $(if $(CHAPTER),$(CHAPTER),$(CHAPTERS))

# the same measurement without rewriting any .ipynb
costs: venv
	$(PYTHON) -m limetheory.chapters --measure-only --costs book/chapter_costs.json $(if $(CHAPTER),$(CHAPTER),$(CHAPTERS))

bench: venv
	@set -e; for script in benchmarks/*.py; do if [ -f "$$script" ]; then $(PYTHON) "$$script"; fi; done

# the suite as an upstream-change detector (not part of make test; a scheduled CI job runs it): each change of
# tools/mutants_catalogue.py applied to a copy of lime or scikit-learn, the guarding tests and chapters run
# against it; the report feeds the page "What the suite guards"
mutants: venv
	$(PYTHON) tools/mutants.py --report book/_data/mutants.json

clean:
	rm -rf _build
