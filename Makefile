# make book | make test | make outputs | make bench   (each creates or updates .venv first)
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

.PHONY: venv book test lint pytest outputs bench clean

$(STAMP): requirements.txt pyproject.toml
	test -x $(PYTHON) || $(BOOTSTRAP_PYTHON) -m venv $(VENV)
	$(PYTHON) -m pip install --upgrade pip
	$(PYTHON) -m pip install -r requirements.txt
	touch $(STAMP)

venv: $(STAMP)

book: venv
	$(VENV)/bin/jupyter-book build . --builder html -W -n --keep-going

lint: venv
	$(VENV)/bin/ruff check limetheory tests benchmarks
	$(VENV)/bin/ruff format --check limetheory tests benchmarks

pytest: venv
	$(PYTHON) -m pytest tests $(CHAPTERS:.md=.ipynb) --nbval-lax --nbval-current-env --nbval-cell-timeout=1800

# the whole suite: lint, package tests, the .md <-> .ipynb drift check, nbval over every chapter,
# and the book itself built with warnings as errors
test: lint pytest book

outputs: venv
	$(PYTHON) -m limetheory.chapters $(if $(CHAPTER),$(CHAPTER),$(CHAPTERS))

bench: venv
	@set -e; for script in benchmarks/*.py; do if [ -f "$$script" ]; then $(PYTHON) "$$script"; fi; done

clean:
	rm -rf _build
