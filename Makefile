# make book | make test | make outputs | make bench   (each creates or updates .venv first)
# make test-all: make test with the tests marked `slow` as well (CI's weekly job; `make test` leaves them out)
# make browser: opens the built book in headless Chromium (installs Debian's chromium and chromium-driver if missing)
# make lab: JupyterLab in notebooks/, where a chapter's .md opens as a notebook on this venv's kernel
VENV    := .venv
PYTHON  := $(VENV)/bin/python
# requirements.lock pins every package (`make lock` writes it); `make test LOCK=` installs instead the latest versions
# that requirements.txt allows (CI's scheduled job), under a stamp of its own so that switching reinstalls
LOCK_FILE := requirements.lock
LOCK    := $(LOCK_FILE)
STAMP   := $(VENV)/.installed$(if $(LOCK),,-latest)
BOOTSTRAP_PYTHON ?= python3
# uv installs the venv's packages: the same versions as pip (the lock's constraints; `LOCK=`: the latest, as pip's
# --upgrade-strategy eager), in about a sixth of pip's CPU time (15 against 100 CPU-s here: a minute of every fresh
# make test). pip installs uv itself, at this version, into the venv; pip stays in the venv, upgraded, for the tests.
# No --compile-bytecode: compiling all 13400 modules took 29 s of both cores on every fresh clone, and make test
# imports about a quarter of them. A module's bytecode is written when a process first imports it (see
# PYTHONDONTWRITEBYTECODE below), and right after the install `python -m booktools.bytecode` imports what every
# kernel and pytest worker imports as it starts, so that four processes do not compile them at the same moment.
# requirements-exclude.txt says what the venv leaves out, and why
UV_VERSION := 0.13.9
UV      := $(VENV)/bin/uv

# the venv's tools first, so that notebook kernels run inside it
export PATH := $(abspath $(VENV))/bin:$(PATH)
# lime's many small ridge fits are slower with two BLAS threads; single threads also make runs repeatable
export OPENBLAS_NUM_THREADS ?= 1
export OMP_NUM_THREADS ?= 1
export MKL_NUM_THREADS ?= 1
# numpy asks for transparent huge pages (madvise) on every array of 4 MB or more; where the kernel's THP defrag is
# "madvise" (this machine's), each fresh large array then waits while the kernel compacts memory: a new 128 MB array
# took 1.0 s to allocate instead of 0.1 s, and the fuzz of sigma_coefficients, alphas and kernel_weights (their
# d = 2**24 boundary) 16.9 CPU-s instead of 11.6, the package's tests 405 instead of 393 (2026-11-30)
export NUMPY_MADVISE_HUGEPAGE ?= 0
# glibc hands arrays from 128 kB up to a size it adjusts (at most 32 MB) to mmap, and unmaps them when freed: the
# next array of that size pays its page faults again, which cost a lot on this machine (4 kB pages, without the huge
# pages above). With mmap off for allocations (M_MMAP_MAX = 0) every array comes from glibc's heap, and freed heap
# memory is kept for the next (a process's resident memory stays near its peak; a thread's arena still maps what
# its heap cannot hold). Measured 2026-12-01, quiet, CPU-s: six test files 141.1 -> 96.9; chapter 25 115 -> 40
# (lime's SubmodularPick takes abs() of its 1000 x 1010 matrix, 8 MB, for each candidate: each a freshly mapped
# array, faulted in anew), chapter 23 50 -> 42, chapter 24 25 -> 22. The previous setting, a 4 MB mmap threshold,
# kept arrays below 4 MB in the heap but mapped every larger one afresh (chapter 25's 115); glibc's defaults:
# chapter 25 36.5, the tests as at 4 MB
export MALLOC_MMAP_MAX_ ?= 0
export MALLOC_TRIM_THRESHOLD_ ?= 2147483648
export PYDEVD_DISABLE_FILE_VALIDATION := 1
# the first process to import a module writes its bytecode for the others (this machine sets the variable, under
# which every kernel, worker and subprocess would compile its imports again: about 10 CPU-s per chapter)
unexport PYTHONDONTWRITEBYTECODE

CHAPTERS := $(sort $(wildcard notebooks/*.md))
LINTED   := limetheory booktools tests benchmarks browser_tests
SUDO     := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
# Debian's chromium and chromium-driver unless set (CI sets them to the runner's Chrome); the browser tests read both
CHROMEDRIVER  ?= /usr/bin/chromedriver
CHROME_BINARY ?= /usr/bin/chromium
export CHROMEDRIVER CHROME_BINARY

.PHONY: venv bytecode book book-then-browser test test-all lint pytest browser outputs costs lab bench mutants clean

# a VENV borrowed from another checkout would have its editable limetheory re-pointed here: refuse that
$(STAMP): requirements.txt requirements-exclude.txt pyproject.toml $(LOCK)
	@owner=$$(cd / && $(abspath $(PYTHON)) -c "import limetheory, pathlib; \
		print(pathlib.Path(limetheory.__file__).resolve().parents[1])" 2>/dev/null) || true; \
	if [ -n "$$owner" ] && [ "$$owner" != "$(CURDIR)" ]; then \
		echo "$(VENV) runs limetheory from $$owner, not from $(CURDIR): use a venv of this checkout"; exit 1; fi
	test -x $(PYTHON) || $(BOOTSTRAP_PYTHON) -m venv $(VENV)
	$(PYTHON) -m pip install --quiet --disable-pip-version-check uv==$(UV_VERSION)
	$(UV) pip install --python $(PYTHON) --upgrade pip
	$(UV) pip install --python $(PYTHON) $(if $(LOCK),--constraint $(LOCK),--upgrade) \
		--excludes requirements-exclude.txt -r requirements.txt
	$(UV) pip uninstall --python $(PYTHON) $$(grep -v '^#' requirements-exclude.txt)
	$(PYTHON) -m booktools.bytecode
	rm -f $(VENV)/.installed $(VENV)/.installed-latest
	touch $(STAMP)

venv: $(STAMP)

# System programs, each a prerequisite of every target whose commands or tests run it (a bare machine has none;
# tests/test_makefile_prerequisites.py checks the plan of each target with them missing):
# Graphviz's dot draws the blueprint's dependency graphs (sphinx.ext.graphviz): `book`, and `pytest`, whose
# tests/test_bookext_minibook.py builds a miniature book with graphs. Debian's graphviz if missing.
DOT ?= /usr/bin/dot
$(DOT):
	$(SUDO) apt-get update
	DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y graphviz

# Node.js typesets the book's formulas once, at the build (booktools/prerender_math.py), with MathJax from npm
# (mathjax-full, pinned by booktools/mathjax/package-lock.json): `book`, and `pytest`, whose
# tests/test_prerender_math.py typesets a page with it. Debian's nodejs and npm if missing, installed after Graphviz
# (order-only): two apt-get processes at once, as make -j2 would start them, fail on dpkg's lock. `&:`: one
# install for both
NODE ?= /usr/bin/node
NPM  ?= /usr/bin/npm
$(NODE) $(NPM) &: | $(DOT)
	$(SUDO) apt-get update
	DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y nodejs npm
MATHJAX_NODE := booktools/mathjax/node_modules/.package-lock.json
$(MATHJAX_NODE): booktools/mathjax/package.json booktools/mathjax/package-lock.json | $(NODE) $(NPM)
	cd booktools/mathjax && PATH="$(dir $(NODE)):$$PATH" $(NPM) ci --no-audit --no-fund --loglevel=error
	touch $@

book: venv $(DOT) $(MATHJAX_NODE)
	$(VENV)/bin/jupyter-book build . --builder html -W -n --keep-going

lint: venv
	$(VENV)/bin/ruff check $(LINTED)
	$(VENV)/bin/ruff format --check $(LINTED)

# two workers (this machine has two cores); --dist loadfile keeps each notebook's cells in one kernel, in order, and
# hands out whole files, with --no-loadscope-reorder in the command line's order (pytest-xdist 3 otherwise sorts the
# files by their number of tests): the chapters first, costliest first (booktools/schedule.py),
# so that the package's short test files fill the end instead of one worker idling through a long chapter; the
# cheapest chapters come after the tests, to fill the gap the last test file would leave.
# The chapters' kernels are forked from a process per worker that has imported the chapters' libraries once
# (booktools/forked_kernel.py, the kernelspec booktools/kernels/limetheory-forked): about 3 CPU-s fewer per chapter.
# PYTEST_MARKERS selects by marker: by default the tests marked `slow` are left out (statistical sweeps over many
# seeds and large grids, each with a representative case left unmarked: pyproject.toml's markers); empty runs all
PYTEST_MARKERS ?= not slow
# BOOK_BESIDE (set by make test, which builds the book with -W -n beside pytest): tests/test_api_references.py is
# left out, since that build fails on every warning it looks for (it builds the API page alone, 16 s of a worker,
# for a pytest run without the book)
BOOK_BESIDE ?=
SCHEDULED = $(shell $(BOOTSTRAP_PYTHON) booktools/schedule.py --tests tests $(CHAPTERS))
pytest: venv $(DOT) $(MATHJAX_NODE) bytecode
	JUPYTER_PATH=$(CURDIR)/booktools $(PYTHON) -m pytest $(SCHEDULED) --nbval-lax \
		--nbval-kernel-name limetheory-forked --nbval-cell-timeout=1800 \
		-n 2 --dist loadfile --no-loadscope-reorder $(if $(BOOK_BESIDE),--deselect tests/test_api_references.py) \
		$(if $(PYTEST_MARKERS),-m "$(PYTEST_MARKERS)")

# the editable package's own modules compiled once (compileall skips what is up to date), before make test's
# processes start: otherwise each of them would compile them at the same moment
bytecode: venv
	$(PYTHON) -m compileall -q limetheory booktools

# `browser` runs Debian's chromium through chromium-driver: both come from one install if either is missing (`&:`:
# one recipe for the two, not one apt-get each)
$(CHROMEDRIVER) $(CHROME_BINARY) &:
	$(SUDO) apt-get update
	DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y chromium chromium-driver

# JupyterLab's default viewer for Markdown becomes jupytext's notebook, so that notebooks/*.md open as notebooks
LAB_SETTINGS := $(VENV)/share/jupyter/lab/settings/overrides.d/limetheory.json
$(LAB_SETTINGS): booktools/lab_settings.json $(STAMP)
	mkdir -p $(dir $@)
	cp booktools/lab_settings.json $@

# the kernel is this venv's python (the Jupyter server runs from it); JupyterLab prints its address with a token
lab: venv $(LAB_SETTINGS)
	@echo "Starting JupyterLab in notebooks/: open the http://127.0.0.1:... address it prints below (Ctrl-C stops it)"
	cd notebooks && ../$(VENV)/bin/jupyter lab --ServerApp.ip=127.0.0.1 $(if $(SUDO),,--allow-root)

# needs the built book (make book); browser_tests/test_lab.py also runs one chapter in JupyterLab, as `make lab` serves it.
# Two workers, one a file (--dist loadfile): the JupyterLab test, which mostly waits for its server and kernel, runs
# beside the book's pages (which test_book_in_browser.py opens in two browsers of its own)
browser: venv $(CHROMEDRIVER) $(CHROME_BINARY) $(LAB_SETTINGS)
	$(PYTHON) -m pytest browser_tests -p no:cacheprovider -n 2 --dist loadfile

# the whole suite: lint, package tests, the .md <-> .ipynb drift check, nbval over every chapter,
# the book built with warnings as errors from the checked notebooks, and every page opened in a browser.
# The book and then the browser run beside pytest (the book reads the checked .ipynb files, which nbval does not
# write; no pytest test reads _build; the JupyterLab test runs its chapter from a copy): the machine's cores stay
# busy to the end instead of pytest's last files leaving one idle and the browser's waits leaving both half idle.
# Each output is printed whole when its target ends. Before them, the venv's packages install beside Graphviz and
# then Node.js's MathJax (uv's unpacking beside apt's and npm's downloads), then lint fails fast on a style error.
test:
	$(MAKE) --no-print-directory -j2 --output-sync=target venv $(DOT) $(MATHJAX_NODE)
	$(MAKE) --no-print-directory lint
	$(MAKE) --no-print-directory -j2 --output-sync=target pytest book-then-browser BOOK_BESIDE=1

# the browser tests once the book is built (make test's second job)
book-then-browser: book
	$(MAKE) --no-print-directory browser

# the whole suite with the `slow` group too (CI's weekly job): make test, its pytest run selecting every test
test-all:
	$(MAKE) --no-print-directory test PYTEST_MARKERS=

# every execution also records its time and the kernel's peak memory in book/chapter_costs.json (the book's table)
outputs: venv bytecode
	$(PYTHON) -m booktools.chapters --costs book/chapter_costs.json $(if $(CHAPTER),$(CHAPTER),$(CHAPTERS))

# the same measurement without rewriting any .ipynb
costs: venv bytecode
	$(PYTHON) -m booktools.chapters --measure-only --costs book/chapter_costs.json $(if $(CHAPTER),$(CHAPTER),$(CHAPTERS))

bench: venv
	@set -e; for script in benchmarks/*.py; do if [ -f "$$script" ]; then $(PYTHON) "$$script"; fi; done

# the suite as an upstream-change detector (not part of make test; a scheduled CI job runs it): each change of
# booktools/mutants_catalogue.py applied to a copy of lime or scikit-learn, the guarding tests and chapters run
# against it; the report feeds the page "What the suite guards"
mutants: venv
	$(PYTHON) -m booktools.mutants --report book/_data/mutants.json

# a fresh resolve of requirements.txt in a throw-away venv, installed as make installs (uv, the same exclusions),
# frozen to exact versions (setuptools and wheel too, pip and uv not: the venv gets them first); run it after changing
# requirements.txt (tests/test_lock.py checks)
lock:
	@set -e; tmp="$$(mktemp -d)"; trap 'rm -rf "$$tmp"' EXIT; \
	$(BOOTSTRAP_PYTHON) -m venv "$$tmp/venv"; \
	"$$tmp/venv/bin/python" -m pip install --quiet uv==$(UV_VERSION); \
	"$$tmp/venv/bin/uv" pip install --quiet --python "$$tmp/venv/bin/python" --upgrade pip; \
	"$$tmp/venv/bin/uv" pip install --quiet --python "$$tmp/venv/bin/python" --excludes requirements-exclude.txt \
		-r requirements.txt; \
	where="$$("$$tmp/venv/bin/python" -c 'import platform as p; print(p.python_version(), "on", p.system(), p.machine())')"; \
	{ echo "# Exact versions of everything requirements.txt installs, from a fresh resolve (make lock), used by make"; \
	  echo "# and CI as pip constraints. Resolved with Python $$where; make test LOCK= ignores it."; \
	  "$$tmp/venv/bin/python" -m pip freeze --all --exclude-editable | grep -v -e '^pip==' -e '^uv=='; } > "$$tmp/lock"; \
	mv "$$tmp/lock" $(LOCK_FILE); echo "wrote $(LOCK_FILE): $$(grep -c '==' $(LOCK_FILE)) packages, Python $$where"

# the pytest + nbval suite again under other numeric conditions (two full runs: about twice `make pytest`, whose
# selection they share: `make portability PYTEST_MARKERS=` adds the slow group):
# 1. two BLAS / OpenMP threads;  2. numpy's SIMD dispatch cut down to its baseline (NPY_DISABLE_CPU_FEATURES = every
# dispatch target numpy would use on this CPU, checked to be off) and OpenBLAS's kernels for an older x86-64 core
NUMPY_DISPATCH_ON := import numpy._core._multiarray_umath as m; print(" ".join(k for k in m.__cpu_dispatch__ if m.__cpu_features__.get(k)))
BLAS_CORES := import numpy, scipy.linalg, threadpoolctl; print(sorted({(i["prefix"], i.get("architecture")) for i in threadpoolctl.threadpool_info()}))
OLD_BLAS_CORE := Nehalem
portability: venv
	@status=0; \
	echo "== portability 1/2: OPENBLAS_NUM_THREADS=2 OMP_NUM_THREADS=2"; \
	OPENBLAS_NUM_THREADS=2 OMP_NUM_THREADS=2 MKL_NUM_THREADS=2 PYTEST_ADDOPTS="--junitxml=_build/portability-threads.xml" \
	  $(MAKE) --no-print-directory pytest || status=1; \
	off="$$($(PYTHON) -c '$(NUMPY_DISPATCH_ON)')"; \
	echo "== portability 2/2: NPY_DISABLE_CPU_FEATURES='$$off' OPENBLAS_CORETYPE=$(OLD_BLAS_CORE)"; \
	if [ -z "$$off" ]; then echo "numpy dispatches nothing above its baseline on this CPU: run 2 only changes BLAS"; fi; \
	export NPY_DISABLE_CPU_FEATURES="$$off" OPENBLAS_CORETYPE=$(OLD_BLAS_CORE); \
	still="$$($(PYTHON) -c '$(NUMPY_DISPATCH_ON)')"; \
	if [ -n "$$still" ]; then echo "numpy ignored NPY_DISABLE_CPU_FEATURES: still on: $$still"; exit 1; fi; \
	echo "BLAS libraries and their kernels: $$($(PYTHON) -c '$(BLAS_CORES)')"; \
	PYTEST_ADDOPTS="--junitxml=_build/portability-simd.xml" $(MAKE) --no-print-directory pytest || status=1; \
	echo "results (kept even if pytest-xdist loses its summary): _build/portability-threads.xml, _build/portability-simd.xml"; \
	exit $$status

.PHONY: lock portability

clean:
	rm -rf _build
