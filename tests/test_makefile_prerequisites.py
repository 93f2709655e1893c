"""Every system program a target runs is installed before that target runs it, on a machine that has none of them.

A bare machine (no Graphviz, no Node.js, no Chromium) must pass `make test`, and `make pytest` or `make browser`
alone.  The Makefile names each program by a variable (``DOT``, ``NODE``, ``NPM``, ``CHROMEDRIVER``,
``CHROME_BINARY``) whose file is also a target that installs it.  Pointing the variables at files that do not exist
and asking make for its plan (``make -n``) shows, without running anything, whether the install comes before the
first command that needs the program: the plan must hold the install, and hold it first.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MISSING = "/nonexistent/limetheory-bare-machine"
# the programs, by Makefile variable, and the line of the plan that installs each
PROGRAMS = {
    "DOT": ("dot", "apt-get install -y graphviz"),
    "NODE": ("node", "apt-get install -y nodejs npm"),
    "NPM": ("npm", "apt-get install -y nodejs npm"),
    "CHROMEDRIVER": ("chromedriver", "apt-get install -y chromium chromium-driver"),
    "CHROME_BINARY": ("chromium", "apt-get install -y chromium chromium-driver"),
}
# what each target's own commands (and the tests they run) need, and the command line that first needs it:
# pytest builds a miniature book with Graphviz graphs (tests/test_bookext_minibook.py) and typesets a page with
# Node.js's MathJax (tests/test_prerender_math.py), the book draws the blueprint's graphs and typesets its formulas
# with Node.js, the browser tests drive chromium through chromium-driver
NEEDS = {
    "pytest": ({"DOT", "NODE", "NPM"}, "--nbval-lax"),  # its pytest line (the chapters first: booktools.schedule)
    "book": ({"DOT", "NODE", "NPM"}, "jupyter-book build"),
    "browser": ({"CHROMEDRIVER", "CHROME_BINARY"}, "-m pytest browser_tests"),
}

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")


def plan(target: str) -> list[str]:
    """The commands ``make -n target`` would run with every system program missing."""
    missing = [f"{variable}={MISSING}/{program}" for variable, (program, _) in PROGRAMS.items()]
    missing.append(f"MATHJAX_NODE={MISSING}/node_modules/.package-lock.json")  # as in a fresh clone
    result = subprocess.run(
        ["make", "-n", "--no-print-directory", "-C", str(ROOT), target, *missing],
        capture_output=True,
        text=True,
        check=True,
    )
    return result.stdout.splitlines()


def first(lines: list[str], fragment: str) -> int | None:
    return next((i for i, line in enumerate(lines) if fragment in line), None)


@pytest.mark.parametrize("target", sorted(NEEDS))
def test_a_target_installs_what_it_runs_before_running_it(target):
    variables, command = NEEDS[target]
    lines = plan(target)
    runs = first(lines, command)
    assert runs is not None, f"make -n {target} does not run {command!r}: {lines}"
    for variable in sorted(variables):
        install = first(lines, PROGRAMS[variable][1])
        assert install is not None and install < runs, (
            f"make {target} runs {command!r} without first installing {PROGRAMS[variable][0]} ({variable} missing)"
        )


def test_mathjax_is_installed_from_npm_before_the_book_and_the_tests_use_it():
    """MathJax's Node.js package comes from ``npm ci`` (its lock file), after npm itself and before the book's build
    and pytest."""
    for target, (_, command) in NEEDS.items():
        if "NPM" not in NEEDS[target][0]:
            continue
        lines = plan(target)
        npm_ci, runs = first(lines, "npm ci"), first(lines, command)
        assert npm_ci is not None and runs is not None and npm_ci < runs, (target, lines)
        assert first(lines, PROGRAMS["NPM"][1]) < npm_ci, (target, lines)


def test_the_installs_never_run_apt_get_twice_at_once():
    """Graphviz's and Node.js's installs are ordered (make -j2 would otherwise start both apt-gets together)."""
    lines = plan("test")
    graphviz, node = first(lines, PROGRAMS["DOT"][1]), first(lines, PROGRAMS["NODE"][1])
    assert graphviz is not None and node is not None and graphviz < node, lines
    text = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert "$(NODE) $(NPM) &: | $(DOT)" in text, "Node.js's install is no longer ordered after Graphviz's"
    # each pair of programs from one package install is one recipe (a grouped target), not one apt-get per program
    browser = plan("browser")
    assert sum(PROGRAMS["CHROME_BINARY"][1] in line for line in browser) == 1, browser
    book = plan("book")
    assert sum(PROGRAMS["NODE"][1] in line for line in book) == 1, book


def test_the_whole_suite_installs_each_program_before_its_first_use():
    """`make test` (lint, pytest, book, browser, in that order) installs dot and Node.js before pytest and chromium
    before the browser tests."""
    lines = plan("test")
    for target, (variables, command) in NEEDS.items():
        runs = first(lines, command)
        assert runs is not None, (target, command)
        for variable in variables:
            install = first(lines, PROGRAMS[variable][1])
            assert install is not None and install < runs, (target, variable)


def test_the_check_fails_on_a_makefile_that_forgets_a_prerequisite(tmp_path):
    """The same plan, for a copy of the Makefile whose pytest target lost $(DOT), no longer installs dot first."""
    text = (ROOT / "Makefile").read_text(encoding="utf-8")
    # (Node.js's install, ordered after Graphviz's, would install dot too: that order goes as well)
    broken = text.replace("pytest: venv $(DOT)", "pytest: venv")
    broken = broken.replace("$(NODE) $(NPM) &: | $(DOT)", "$(NODE) $(NPM) &:")
    assert broken.count("$(DOT)") == text.count("$(DOT)") - 2, "the Makefile's pytest or Node.js rule has changed"
    (tmp_path / "Makefile").write_text(broken, encoding="utf-8")
    names = ("requirements.txt", "requirements-exclude.txt", "pyproject.toml", "requirements.lock")
    (tmp_path / "booktools" / "mathjax").mkdir(parents=True)
    for name in (*names, "booktools/mathjax/package.json", "booktools/mathjax/package-lock.json"):
        (tmp_path / name).write_text((ROOT / name).read_text(encoding="utf-8"), encoding="utf-8")
    result = subprocess.run(
        ["make", "-n", "--no-print-directory", "-C", str(tmp_path), "pytest", f"DOT={MISSING}/dot"],
        capture_output=True,
        text=True,
        check=True,
    )
    lines = result.stdout.splitlines()
    assert first(lines, "apt-get install -y graphviz") is None
    assert first(lines, "--nbval-lax") is not None
