"""No two folded code cells sit back to back in a chapter: a reader would see two bare "Show code" toggles with
nothing to say what either holds. A sentence between them (or one merged cell) says it."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = sorted((ROOT / "notebooks").glob("*.ipynb"))
SHOWN_OUTPUTS = ("stream", "display_data", "execute_result")


def adjacent_toggles(notebook) -> list[tuple[int, int]]:
    """Index pairs of folded code cells with nothing a reader sees between them (no text, no output)."""
    pairs, previous = [], None  # previous: (index, folded, shows output) of the last cell a reader sees
    for index, cell in enumerate(notebook.cells):
        tags = cell.metadata.get("tags", [])
        if cell.cell_type != "code":
            previous = None
            continue
        if "remove-cell" in tags:
            continue
        shows_output = "remove-output" not in tags and any(o.output_type in SHOWN_OUTPUTS for o in cell.outputs)
        if "remove-input" in tags:
            previous = None if shows_output else previous
            continue
        folded = "hide-input" in tags or "hide-cell" in tags
        if folded and previous is not None and previous[1] and not previous[2]:
            pairs.append((previous[0], index))
        previous = (index, folded, shows_output)
    return pairs


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda path: path.stem)
def test_no_two_folded_cells_sit_back_to_back(chapter):
    assert adjacent_toggles(nbformat.read(chapter, as_version=4)) == []


def test_back_to_back_toggles_are_found():
    folded = {"tags": ["hide-input"]}
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [
        nbformat.v4.new_code_cell("a = 1", metadata=folded),
        nbformat.v4.new_code_cell("b = 2", metadata=folded),  # right after a: a pair
        nbformat.v4.new_markdown_cell("Text."),
        nbformat.v4.new_code_cell("c = 3", metadata=folded),
        nbformat.v4.new_code_cell("x = 0", metadata={"tags": ["remove-cell"]}),  # invisible: still a pair
        nbformat.v4.new_code_cell("d = 4", metadata=folded),
    ]
    notebook.cells[3].outputs = [nbformat.v4.new_output("stream", text="shown\n")]  # an output separates them
    assert adjacent_toggles(notebook) == [(0, 1)]
    notebook.cells[3].outputs = []
    assert adjacent_toggles(notebook) == [(0, 1), (3, 5)]
