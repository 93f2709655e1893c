"""The `slow` group: registered, left out by `make pytest`, run by `make test-all`, and never a sweep's only case.

A test marked ``slow`` is a statistical sweep over many seeds or a large grid. ``make test`` leaves the group out to
stay quick, so each sweep must keep a representative case there: only parametrized cases are marked, and every
test function with a marked case has at least one unmarked case (conftest.py records the collected tests with their
markers before ``-m`` deselects any).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections import defaultdict
from pathlib import Path

import pytest
from conftest import COLLECTED

ROOT = Path(__file__).resolve().parents[1]


def unrepresented(collected):
    """The test functions whose every collected case is marked slow, from (nodeid, function name, slow) triples."""
    cases = defaultdict(list)
    for nodeid, name, slow in collected:
        path = nodeid.split("::")[:-1]  # the module and class
        cases[(*path, name)].append(slow)
    return sorted("::".join(key) for key, slows in cases.items() if all(slows))


def test_the_rule_flags_a_sweep_without_an_unmarked_case():
    collected = [
        ("tests/t.py::test_a[0]", "test_a", False),
        ("tests/t.py::test_a[1]", "test_a", True),
        ("tests/t.py::test_b[0]", "test_b", True),
        ("tests/t.py::test_b[1]", "test_b", True),
        ("tests/t.py::C::test_c", "test_c", True),
        ("tests/t.py::test_d", "test_d", False),
    ]
    assert unrepresented(collected) == ["tests/t.py::C::test_c", "tests/t.py::test_b"]


def test_every_slow_sweep_keeps_an_unmarked_case(request):
    collected = request.config.stash[COLLECTED]
    assert collected, "conftest.py recorded no collected test"
    assert unrepresented(collected) == []


def test_the_marker_is_registered_with_its_meaning(pytestconfig):
    lines = [line for line in pytestconfig.getini("markers") if line.startswith("slow:")]
    assert len(lines) == 1 and "make test-all" in lines[0]


def plan(*args: str) -> list[str]:
    """The pytest command line of ``make -n`` (every program present: DOT points at an existing file)."""
    result = subprocess.run(
        ["make", "-n", "--no-print-directory", "-C", str(ROOT), *args, f"DOT={shutil.which('true') or '/bin/true'}"],
        capture_output=True,
        text=True,
        check=True,
    )
    text = result.stdout.replace("\\\n", " ")
    return [line for line in text.splitlines() if "--nbval-lax" in line]


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_pytest_leaves_the_slow_group_out_and_test_all_runs_it():
    (quick,) = plan("pytest")
    assert re.search(r'-m "not slow"\s*$', quick), quick
    runs = plan("test-all")
    assert len(runs) == 1 and " -m " not in runs[0].split("-m pytest", 1)[1], runs
