"""Code a reader sees open fits the book's column at a desktop's width, without a scroll bar.

At 1400 px the article's code box holds 746 px of 14 px monospace (8.43 px a character): 88 columns. A definition
list (the API page's examples) indents by about 3 columns and an admonition (the introduction's "Start here" box)
by about 5, so their code gets 85 and 83. The browser test (``browser_tests``, "desktop overflow") measures the
built pages; this test reads the sources, so that a long line fails in seconds, with its file and line number.

Folded cells (``hide-input``, ``hide-cell``) and removed ones are exempt: ``bookext.css`` wraps a folded cell's
lines when a reader unfolds it.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = sorted((ROOT / "notebooks").glob("[0-9][0-9]-*.md"))
PAGES = sorted((ROOT / "book").glob("*.md"))
COLUMNS = 88
COLUMNS_IN_LIST = 85
COLUMNS_IN_ADMONITION = 83
EXEMPT = re.compile(r"\b(remove-input|remove-cell|hide-input|hide-cell)\b")


def open_code_cells(lines: list[str]) -> list[tuple[int, list[str]]]:
    """The code cells of a MyST chapter that a reader sees open: (line number of the first code line, lines)."""
    cells, i = [], 0
    while i < len(lines):
        if not lines[i].startswith("```{code-cell}"):
            i += 1
            continue
        j, options = i + 1, ""
        if j < len(lines) and lines[j] == "---":  # options as YAML between two --- lines
            j += 1
            while lines[j] != "---":
                options += lines[j] + "\n"
                j += 1
            j += 1
        while j < len(lines) and lines[j].startswith(":"):  # options as :key: value lines
            options += lines[j] + "\n"
            j += 1
        end = j
        while not lines[end].startswith("```"):
            end += 1
        if not EXEMPT.search(options):
            cells.append((j + 1, lines[j:end]))
        i = end + 1
    return cells


def page_code_blocks(lines: list[str]) -> list[tuple[int, int, list[str]]]:
    """The fenced code blocks of a book page: (first code line's number, columns allowed, lines).

    A block indented under a definition (``: ...``) gets ``COLUMNS_IN_LIST``; one inside a colon fence (``:::`` or
    ``::::``, an admonition) gets ``COLUMNS_IN_ADMONITION``. Directives written as backtick fences (``{eval-rst}``,
    ``{book-summary}``) hold no code a reader sees and are skipped.
    """
    blocks, depth, i = [], 0, 0
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        if re.fullmatch(r":{3,}\{[^}]+\}.*", stripped):
            depth += 1
        elif re.fullmatch(r":{3,}", stripped) and depth:
            depth -= 1
        elif stripped.startswith("```") and not stripped.startswith("```{"):
            indent = len(line) - len(line.lstrip())
            end = i + 1
            while not lines[end].strip().startswith("```"):
                end += 1
            allowed = COLUMNS_IN_ADMONITION if depth else (COLUMNS_IN_LIST if indent else COLUMNS)
            blocks.append((i + 2, allowed, [code[indent:] for code in lines[i + 1 : end]]))
            i = end
        elif stripped.startswith("```{"):  # a directive in backticks: skip to its closing fence
            end = i + 1
            while lines[end].strip() != "```":
                end += 1
            i = end
        i += 1
    return blocks


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda p: p.stem)
def test_open_code_cells_fit_the_column(chapter):
    lines = chapter.read_text(encoding="utf-8").splitlines()
    long = [
        f"{chapter.name}:{first + k}: {len(code)} columns: {code[:60]}"
        for first, cell in open_code_cells(lines)
        for k, code in enumerate(cell)
        if len(code) > COLUMNS
    ]
    assert not long, "\n".join(long)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.stem)
def test_page_code_blocks_fit_the_column(page):
    lines = page.read_text(encoding="utf-8").splitlines()
    long = [
        f"{page.name}:{first + k}: {len(code)} columns (at most {allowed}): {code[:60]}"
        for first, allowed, block in page_code_blocks(lines)
        for k, code in enumerate(block)
        if len(code) > allowed
    ]
    assert not long, "\n".join(long)


def test_the_readers_of_cells_and_blocks_find_long_lines():
    chapter = [
        "```{code-cell} ipython3",
        "x = 1" + " " * 90 + "# long",
        "```",
        "```{code-cell} ipython3",
        ":tags: [hide-input]",
        "y" * 120,
        "```",
        "```{code-cell} ipython3",
        "---",
        "tags: [remove-cell]",
        "---",
        "z" * 120,
        "```",
    ]
    assert [(first, [len(c) for c in cell]) for first, cell in open_code_cells(chapter)] == [(2, [101])]
    page = [
        "::::{admonition} Start here",
        "```bash",
        "m" * 84,
        "```",
        "::::",
        "`lt.f()`",
        ": what it does",
        "",
        "  ```python",
        "  " + "n" * 86,
        "  ```",
        "```{eval-rst}",
        ".. autofunction:: f",
        "```",
        "```python",
        "p" * 88,
        "```",
    ]
    blocks = page_code_blocks(page)
    assert [(first, allowed, [len(c) for c in block]) for first, allowed, block in blocks] == [
        (3, COLUMNS_IN_ADMONITION, [84]),
        (10, COLUMNS_IN_LIST, [86]),
        (16, COLUMNS, [88]),
    ]
