"""Every system program a target runs is installed before that target runs it, on a machine that has none of them.

A bare machine (no Graphviz, no Chromium) must pass `make test`, and `make pytest` or `make browser` alone.  The
Makefile names each program by a variable (``DOT``, ``CHROMEDRIVER``, ``CHROME_BINARY``) whose file is also a
target that installs it.  Pointing the variables at files that do not exist and asking make for its plan
(``make -n``) shows, without running anything, whether the install comes before the first command that needs the
program: the plan must hold the install, and hold it first.
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
    "CHROMEDRIVER": ("chromedriver", "apt-get install -y chromium chromium-driver"),
    "CHROME_BINARY": ("chromium", "apt-get install -y chromium chromium-driver"),
}
# what each target's own commands (and the tests they run) need, and the command line that first needs it:
# pytest builds a miniature book with Graphviz graphs (tests/test_bookext_minibook.py), the book draws the
# blueprint's graphs, the browser tests drive chromium through chromium-driver
NEEDS = {
    "pytest": ({"DOT"}, "--nbval-lax"),  # its pytest line (the chapters come first, ordered by booktools.schedule)
    "book": ({"DOT"}, "jupyter-book build"),
    "browser": ({"CHROMEDRIVER", "CHROME_BINARY"}, "-m pytest browser_tests"),
}

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")


def plan(target: str) -> list[str]:
    """The commands ``make -n target`` would run with every system program missing."""
    missing = [f"{variable}={MISSING}/{program}" for variable, (program, _) in PROGRAMS.items()]
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


def test_the_whole_suite_installs_each_program_before_its_first_use():
    """`make test` (lint, pytest, book, browser, in that order) installs dot before pytest and chromium before the
    browser tests."""
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
    broken = text.replace("pytest: venv $(DOT)", "pytest: venv")
    assert broken != text, "the Makefile's pytest target no longer reads 'pytest: venv $(DOT)'"
    (tmp_path / "Makefile").write_text(broken, encoding="utf-8")
    for name in ("requirements.txt", "requirements-exclude.txt", "pyproject.toml", "requirements.lock"):
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
