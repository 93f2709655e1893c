"""booktools.schedule: the chapters handed to pytest's workers costliest first, every chapter once."""

from __future__ import annotations

import doctest
import json
import subprocess
import sys
from pathlib import Path

import pytest

import booktools.schedule as schedule

ROOT = Path(__file__).resolve().parents[1]


def test_every_chapter_once_costliest_first():
    chapters = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "notebooks").glob("*.md"))
    ordered = schedule.by_cost(chapters)
    assert sorted(ordered) == sorted(c[: -len(".md")] + ".ipynb" for c in chapters)
    recorded = json.loads(schedule.COSTS.read_text())["chapters"]
    costs = [recorded.get(Path(c).stem, {}).get("cpu_seconds", float("inf")) for c in ordered]
    assert costs == sorted(costs, reverse=True)


def test_unrecorded_chapters_and_a_missing_file_come_first(tmp_path):
    costs = tmp_path / "costs.json"
    costs.write_text(json.dumps({"chapters": {"01-a": {"cpu_seconds": 5.0}, "02-b": {"cpu_seconds": 1.0}}}))
    assert schedule.by_cost(["n/02-b.md", "n/01-a.md", "n/09-new.md"], costs) == [
        "n/09-new.ipynb",
        "n/01-a.ipynb",
        "n/02-b.ipynb",
    ]
    assert schedule.by_cost(["n/02-b.md", "n/01-a.md"], tmp_path / "missing.json") == ["n/01-a.ipynb", "n/02-b.ipynb"]
    assert doctest.testmod(schedule).failed == 0


def test_the_tests_go_before_the_cheapest_chapters_within_the_tail(tmp_path):
    costs = tmp_path / "costs.json"
    recorded = {"01-a": {"cpu_seconds": 9.0}, "02-b": {"cpu_seconds": 60.0}, "03-c": {"cpu_seconds": 12.0}}
    costs.write_text(json.dumps({"chapters": recorded}))
    chapters = ["n/01-a.md", "n/02-b.md", "n/03-c.md", "n/04-new.md"]
    # the tail takes the cheapest while their sum stays within tail_seconds: 9 (9 <= 10), then 9 + 12 > 10 stops
    assert schedule.with_tests(chapters, "tests", costs, 10.0) == [
        "n/04-new.ipynb",
        "n/02-b.ipynb",
        "n/03-c.ipynb",
        "tests",
        "n/01-a.ipynb",
    ]
    assert schedule.with_tests(chapters, "tests", costs, 5.0)[-1] == "tests"  # the cheapest alone is over
    assert schedule.with_tests(chapters, "tests", costs, 100.0)[:2] == ["n/04-new.ipynb", "tests"]  # unrecorded stop
    for tests, tail, match in (("", 10.0, "tests must be"), ("tests", -1.0, "tail_seconds must be")):
        with pytest.raises(ValueError, match=match):
            schedule.with_tests(chapters, tests, costs, tail)


def test_the_makefile_runs_it_without_the_venv():
    """make runs it with the bootstrap python (standard library only): as a script, from the repository root."""
    out = subprocess.run([sys.executable, "booktools/schedule.py", "notebooks/01-tfidf.md"], cwd=ROOT,
                         capture_output=True, text=True, check=True)  # fmt: skip
    assert out.stdout.split() == ["notebooks/01-tfidf.ipynb"]
    both = subprocess.run([sys.executable, "booktools/schedule.py", "--tests", "tests", "notebooks/01-tfidf.md"],
                          cwd=ROOT, capture_output=True, text=True, check=True)  # fmt: skip
    assert both.stdout.split() == ["tests", "notebooks/01-tfidf.ipynb"]  # 01 costs under TAIL_SECONDS
