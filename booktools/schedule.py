"""The order in which ``make pytest`` hands the chapters to its workers: the costliest first.

pytest-xdist's ``--dist loadfile`` gives each worker a whole file at a time, in the order of the command line.
With the chapters last in alphabetical order, the costliest (chapter 26, about two minutes) could start when the
other worker had little left, which then idled until it ended.  Handing out the longest jobs first (the
longest-processing-time rule) leaves the package's many short test files to fill the end.  The costs are those
the book's table records (``book/chapter_costs.json``: each chapter's CPU seconds at its last execution); a chapter
without a recorded cost goes first, as if it were the costliest.

The order holds only if pytest-xdist keeps it: ``make pytest`` passes ``--no-loadscope-reorder`` (by default
pytest-xdist 3 sorts the files by their number of tests).

The package's tests (one more argument, ``tests``) go in before the cheapest chapters (``with_tests``): their
files are handed out alphabetically, so the last test file on one worker (``test_wheel.py``, about 20 CPU-s) would
otherwise end the run with the other worker idle; the few short chapters after them fill that gap.

Command line: ``python booktools/schedule.py [--tests PATH] notebooks/*.md`` prints the chapters' .ipynb paths in
that order, with PATH among them.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

COSTS = Path(__file__).resolve().parents[1] / "book" / "chapter_costs.json"


def by_cost(chapters, costs_file=COSTS):
    """The chapters' .ipynb paths, costliest first (unrecorded ones first of all, then by name).

    Examples
    --------
    >>> import json, tempfile, pathlib
    >>> costs = pathlib.Path(tempfile.mkdtemp()) / "costs.json"
    >>> _ = costs.write_text(json.dumps({"chapters": {"01-a": {"cpu_seconds": 3.0}, "02-b": {"cpu_seconds": 9.0}}}))
    >>> by_cost(["notebooks/01-a.md", "notebooks/02-b.md", "notebooks/03-c.md"], costs)
    ['notebooks/03-c.ipynb', 'notebooks/02-b.ipynb', 'notebooks/01-a.ipynb']
    """
    try:
        recorded = json.loads(Path(costs_file).read_text())["chapters"]
    except (OSError, ValueError, KeyError):
        recorded = {}

    def cost(chapter):
        entry = recorded.get(Path(chapter).stem)
        seconds = entry.get("cpu_seconds") if isinstance(entry, dict) else None
        return float("inf") if seconds is None else float(seconds)

    ordered = sorted(chapters, key=lambda chapter: (-cost(chapter), chapter))
    return [str(Path(chapter).with_suffix(".ipynb")) for chapter in ordered]


#: CPU seconds of short chapters that follow the package's tests: about the costliest test file's
TAIL_SECONDS = 30.0


def with_tests(chapters, tests, costs_file=COSTS, tail_seconds=TAIL_SECONDS):
    """``by_cost(chapters)`` with ``tests`` placed before the cheapest chapters that together cost at most
    ``tail_seconds`` (recorded CPU seconds; none if the cheapest alone costs more).

    Examples
    --------
    >>> import json, tempfile, pathlib
    >>> costs = pathlib.Path(tempfile.mkdtemp()) / "costs.json"
    >>> recorded = {"01-a": {"cpu_seconds": 9.0}, "02-b": {"cpu_seconds": 60.0}, "03-c": {"cpu_seconds": 12.0}}
    >>> _ = costs.write_text(json.dumps({"chapters": recorded}))
    >>> with_tests(["notebooks/01-a.md", "notebooks/02-b.md", "notebooks/03-c.md"], "tests", costs, 25.0)
    ['notebooks/02-b.ipynb', 'tests', 'notebooks/03-c.ipynb', 'notebooks/01-a.ipynb']
    """
    if not isinstance(tests, str) or not tests:
        raise ValueError(f"tests must be a non-empty path, got {tests!r}")
    if not tail_seconds >= 0:
        raise ValueError(f"tail_seconds must be >= 0, got {tail_seconds!r}")
    try:
        recorded = json.loads(Path(costs_file).read_text())["chapters"]
    except (OSError, ValueError, KeyError):
        recorded = {}
    ordered = by_cost(chapters, costs_file)
    tail, total = 0, 0.0
    for chapter in reversed(ordered):
        entry = recorded.get(Path(chapter).stem)
        seconds = entry.get("cpu_seconds") if isinstance(entry, dict) else None
        if seconds is None or total + float(seconds) > tail_seconds:
            break
        total += float(seconds)
        tail += 1
    split = len(ordered) - tail
    return [*ordered[:split], tests, *ordered[split:]]


if __name__ == "__main__":
    arguments = sys.argv[1:]
    if arguments[:1] == ["--tests"]:
        print(" ".join(with_tests(arguments[2:], arguments[1])))
    else:
        print(" ".join(by_cost(arguments)))
