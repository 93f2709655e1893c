"""The order in which ``make pytest`` hands the chapters to its workers: the costliest first.

pytest-xdist's ``--dist loadfile`` gives each worker a whole file at a time, in the order of the command line.
With the chapters last in alphabetical order, the costliest (chapter 26, about two minutes) could start when the
other worker had little left, which then idled until it ended.  Handing out the longest jobs first (the
longest-processing-time rule) leaves the package's many short test files to fill the end.  The costs are those
the book's table records (``book/chapter_costs.json``: each chapter's CPU seconds at its last execution); a chapter
without a recorded cost goes first, as if it were the costliest.

Command line: ``python -m booktools.schedule notebooks/*.md`` prints the chapters' .ipynb paths in that order.
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


if __name__ == "__main__":
    print(" ".join(by_cost(sys.argv[1:])))
