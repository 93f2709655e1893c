"""booktools.schedule: the chapters handed to pytest's workers costliest first, every chapter once."""

from __future__ import annotations

import doctest
import json
import subprocess
import sys
from pathlib import Path

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


def test_the_makefile_runs_it_without_the_venv():
    """make runs it with the bootstrap python (standard library only): as a script, from the repository root."""
    out = subprocess.run([sys.executable, "booktools/schedule.py", "notebooks/01-tfidf.md"], cwd=ROOT,
                         capture_output=True, text=True, check=True)  # fmt: skip
    assert out.stdout.split() == ["notebooks/01-tfidf.ipynb"]
