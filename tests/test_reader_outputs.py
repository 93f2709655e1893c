"""What a reader of the book sees in the chapters' stored outputs: mathematics, not Python text.

The book renders each chapter's ``.ipynb``; for each output it shows the first of the formats MyST-NB prefers (HTML,
images, markdown, LaTeX, then plain text), and streams as printed. This test reads those, as the book shows them:

- no sympy object printed as Python text (``d**2``, ``2*d``, ``sqrt(3)``): symbolic results go through LaTeX
  (``show_equations``, or a :func:`limetheory.summary.summary` row);
- the summary cell that nbval compares (tagged ``nbval-check-output``) shows one :func:`~limetheory.summary.summary`
  table, with no bare tuple, list, dict or e-notation float in it.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest

from booktools.markers import SUMMARY_TAG

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
# MyST-NB's render priority for HTML (myst_nb's default nb_mime_priority_overrides for html builders)
PRIORITY = (
    "application/vnd.jupyter.widget-view+json",
    "application/javascript",
    "text/html",
    "image/svg+xml",
    "image/png",
    "image/jpeg",
    "text/markdown",
    "text/latex",
    "text/plain",
)
HIDDEN = {"remove-output", "remove-cell"}
# sympy's str(): powers and products written without spaces, square roots by name
SYMPY_TEXT = re.compile(r"[\w)]\*\*?[\w(]|\bsqrt\(")
# Python's look in a summary: tuples, lists, dicts, quoted strings, e-notation, True/False
PYTHON_LOOK = re.compile(r"^\(.*\)$|[\[{]'|'[\]}]|\d[eE][+-]?\d|\bTrue\b|\bFalse\b|\bNone\b")


def _shown(output: dict) -> tuple[str, str] | None:
    """(format, text) of what the book shows for one output; None for glue outputs and images."""
    if output["output_type"] == "stream":
        return "stream", "".join(output["text"])
    if output["output_type"] not in ("execute_result", "display_data"):
        return None
    if "scrapbook" in output.get("metadata", {}):  # glue: shown in the prose, where it is pasted
        return None
    data = output.get("data", {})
    kind = next((kind for kind in PRIORITY if kind in data), None)
    if kind in (None, "image/png", "image/jpeg", "image/svg+xml"):
        return None
    text = "".join(data[kind])
    if kind == "text/html":
        text = html.unescape(re.sub(r"<style.*?</style>|<[^>]+>", " ", text, flags=re.S))
    return kind, text


def _cells(path: Path):
    notebook = json.loads(path.read_text(encoding="utf-8"))
    for index, cell in enumerate(notebook["cells"]):
        tags = set(cell.get("metadata", {}).get("tags", ()))
        if cell["cell_type"] == "code" and not tags & HIDDEN:
            yield index, tags, cell


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda path: path.stem)
def test_no_output_prints_sympy_as_python_text(path):
    found = []
    for index, _, cell in _cells(path):
        for output in cell.get("outputs", []):
            shown = _shown(output)
            if not shown or shown[0] == "text/latex":
                continue
            lines = [line.strip() for line in shown[1].splitlines() if SYMPY_TEXT.search(line)]
            found += [f"cell {index} ({shown[0]}): {line[:120]}" for line in lines]
    assert not found, "sympy printed as Python text (show it with show_equations or summary):\n" + "\n".join(found)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda path: path.stem)
def test_the_summary_is_a_table_of_labelled_values(path):
    cells = [(index, cell) for index, tags, cell in _cells(path) if SUMMARY_TAG in tags]
    assert len(cells) == 1, f"{len(cells)} cells tagged {SUMMARY_TAG}"
    index, cell = cells[0]
    shown = [_shown(output) for output in cell["outputs"]]
    assert [kind for kind, _ in filter(None, shown)] == ["text/markdown"], (
        f"cell {index}: the summary shows {shown}; end the cell with limetheory.summary.summary(...)"
    )
    table = shown[0][1].splitlines()
    assert table[:2] == ["| Quantity | Value |", "|:--|:--|"]
    for row in table[2:]:
        label, value = (part.strip() for part in re.split(r"(?<!\\)\|", row)[1:3])
        # a value is written for a reader: a symbolic one as $LaTeX$, a number without Python's look
        if not (value.startswith("$") and value.endswith("$")):
            assert not PYTHON_LOOK.search(value), f"cell {index}: {label}: {value}"
        assert label and not PYTHON_LOOK.search(label), f"cell {index}: {label}"
