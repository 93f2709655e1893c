"""The chapter loop: every .md has an up-to-date .ipynb, and regeneration is deterministic."""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

from booktools import chapters

ROOT = Path(__file__).resolve().parents[1]
SOURCES = sorted((ROOT / "notebooks").glob("*.md"))

TINY_CHAPTER = (
    chapters.FRONT_MATTER
    + """
# Tiny

```{code-cell} ipython3
x = sum(range(10))
print(x)
```

Some prose.

```{code-cell} ipython3
:tags: [remove-input]
x * 2
```

```{code-cell} ipython3
class Thing:
    pass
Thing()
```
"""
)


@pytest.fixture(scope="module")
def tiny_executed(tmp_path_factory) -> bytes:
    """The tiny chapter's notebook as ``regenerate`` writes it, executed once for the tests that only need an executed
    notebook to start from (each execution starts a kernel: about a CPU-second)."""
    source = tmp_path_factory.mktemp("tiny") / "01-tiny.md"
    source.write_text(TINY_CHAPTER)
    return chapters.regenerate(source).read_bytes()


def _executed_tiny_chapter(folder: Path, executed: bytes) -> tuple[Path, Path]:
    """(source, target): the tiny chapter's source and its executed notebook, as ``regenerate`` left them."""
    source = folder / "01-tiny.md"
    source.write_text(TINY_CHAPTER)
    target = source.with_suffix(".ipynb")
    target.write_bytes(executed)
    return source, target


def test_there_are_chapters():
    assert SOURCES, "no notebooks/*.md found"


@pytest.mark.parametrize("source", SOURCES, ids=lambda path: path.name)
def test_ipynb_inputs_match_markdown(source):
    assert chapters.input_drift(source) == []


@pytest.mark.parametrize("source", SOURCES, ids=lambda path: path.name)
def test_ipynb_is_fully_executed_and_normalised(source):
    notebook = nbformat.read(source.with_suffix(".ipynb"), as_version=4)
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert [cell.execution_count for cell in code] == list(range(1, len(code) + 1))
    assert [cell.id for cell in notebook.cells] == [f"cell-{i:03d}" for i in range(len(notebook.cells))]
    assert all("execution" not in cell.metadata for cell in notebook.cells)
    assert not any(output.output_type == "error" for cell in code for output in cell.outputs)


def test_every_ipynb_has_a_markdown_source():
    executed = {path.stem for path in (ROOT / "notebooks").glob("*.ipynb")}
    assert executed == {path.stem for path in SOURCES}


def test_chapter_numbering_is_unique_and_listed_in_toc():
    numbers = [path.name.split("-", 1)[0] for path in SOURCES]
    assert len(numbers) == len(set(numbers))
    toc = (ROOT / "_toc.yml").read_text()
    for path in SOURCES:
        assert f"notebooks/{path.stem}" in toc, f"{path.name} is not in _toc.yml"


def test_drift_is_detected(tmp_path):
    source = tmp_path / "01-tiny.md"
    source.write_text(TINY_CHAPTER)
    notebook = chapters.read_source(source)
    nbformat.write(chapters.normalise(notebook), source.with_suffix(".ipynb"))
    assert chapters.input_drift(source) == []
    source.write_text(TINY_CHAPTER.replace("range(10)", "range(11)"))
    problems = chapters.input_drift(source)
    assert len(problems) == 1 and "cell 1 differs" in problems[0]
    source.with_suffix(".ipynb").unlink()
    assert "missing" in chapters.input_drift(source)[0]


def test_regenerate_is_deterministic_and_replaces_stale_outputs(tmp_path):
    source = tmp_path / "01-tiny.md"
    source.write_text(TINY_CHAPTER)
    target = source.with_suffix(".ipynb")
    stale = chapters.read_source(source)
    stale.cells[1].outputs = [nbformat.v4.new_output("stream", text="stale\n")]
    nbformat.write(stale, target)

    first = chapters.regenerate(source).read_bytes()
    second = chapters.regenerate(source).read_bytes()
    assert first == second
    notebook = nbformat.read(target, as_version=4)
    printed = "".join(output.get("text", "") for output in notebook.cells[1].outputs)
    assert printed == "45\n"
    assert notebook.cells[3].outputs[0]["data"]["text/plain"] == "90"
    assert notebook.cells[3].metadata["tags"] == ["remove-input"]
    assert notebook.metadata["language_info"] == {"name": "python"}
    assert notebook.cells[4].outputs[0]["data"]["text/plain"] == "<__main__.Thing>"


@pytest.mark.parametrize("bad", ["chapter.ipynb", "missing.md"])
def test_regenerate_refuses_bad_paths(tmp_path, bad):
    path = tmp_path / bad
    if bad.endswith(".ipynb"):
        path.write_text("{}")
    with pytest.raises(ValueError, match="chapter source"):
        chapters.regenerate(path)


def test_command_line_check(tmp_path, capsys):
    source = tmp_path / "01-tiny.md"
    source.write_text(TINY_CHAPTER)
    assert chapters.main(["--check", str(source)]) == 1
    assert "missing" in capsys.readouterr().out
    assert chapters.main([]) == 2


@pytest.mark.parametrize("source", SOURCES, ids=lambda path: path.name)
def test_prf_statements_are_numbered_and_references_show_a_number_or_a_name(source):
    # every statement carries a book number (the paper's number stays in its title), so a bare
    # {prf:ref}`label` renders as "Lemma 10.1"; link text that is only a kind word ("the lemma")
    # would hide that number and tell the reader nothing
    text = source.read_text()
    assert ":nonumber:" not in text, f"{source.name}: statements must be numbered (remove :nonumber:)"
    kind = r"(?:definition|lemma|proposition|corollary|theorem|remark|proof)"
    bare_kind = re.compile(rf"(?:the |this |that )?{kind}(?: above| below)?", re.IGNORECASE)
    texts = re.findall(r"\{prf:ref\}`([^`<]+?)\s*<[^`>]+>`", text)
    kind_only = [label_text for label_text in texts if bare_kind.fullmatch(label_text.strip())]
    assert kind_only == [], f"{source.name}: use {{prf:ref}}`label` (shows the number) instead of: {kind_only}"


# a visible code cell longer than this is folded (hide-input): the reader sees its output and a "Show code"
# toggle, and the page keeps to prose, short cells of one idea and results
VISIBLE_CELL_LINES = 25
FOLDING_TAGS = {"hide-input", "remove-input", "remove-cell", "hide-cell"}


def long_visible_cells(notebook, limit=VISIBLE_CELL_LINES):
    """(index, lines) of the code cells that the book shows in full and that are longer than ``limit`` lines."""
    return [
        (index, len(cell.source.splitlines()))
        for index, cell in enumerate(notebook.cells)
        if cell.cell_type == "code"
        and not FOLDING_TAGS & set(cell.metadata.get("tags", ()))
        and len(cell.source.splitlines()) > limit
    ]


@pytest.mark.parametrize("source", SOURCES, ids=lambda path: path.name)
def test_visible_code_cells_are_short(source):
    long_cells = long_visible_cells(chapters.read_source(source))
    assert long_cells == [], f"{source.name}: fold (hide-input) or split these (cell, lines): {long_cells}"


def test_long_visible_cells_are_found_and_folding_hides_them():
    notebook = nbformat.v4.new_notebook()
    long_source = "\n".join(f"x{i} = {i}" for i in range(VISIBLE_CELL_LINES + 1))
    notebook.cells = [nbformat.v4.new_code_cell(long_source), nbformat.v4.new_code_cell("y = 1")]
    assert long_visible_cells(notebook) == [(0, VISIBLE_CELL_LINES + 1)]
    notebook.cells[0].metadata["tags"] = ["hide-input"]
    assert long_visible_cells(notebook) == []


def test_drift_covers_tags(tmp_path):
    source = tmp_path / "01-tiny.md"
    source.write_text(TINY_CHAPTER)
    notebook = chapters.read_source(source)
    notebook.cells[1].metadata["tags"] = ["hide-input"]
    nbformat.write(chapters.normalise(notebook), source.with_suffix(".ipynb"))
    problems = chapters.input_drift(source)
    assert len(problems) == 1 and "cell 1 differs" in problems[0]


def test_sync_prose_copies_prose_and_tags_and_keeps_the_outputs(tmp_path, tiny_executed):
    source, target = _executed_tiny_chapter(tmp_path, tiny_executed)
    source.write_text(
        TINY_CHAPTER.replace("Some prose.", "Other prose.").replace(
            "```{code-cell} ipython3\nx = sum", "```{code-cell} ipython3\n:tags: [hide-input]\nx = sum"
        )
    )
    assert len(chapters.input_drift(source)) == 2
    assert chapters.main(["--prose", str(source)]) == 0
    assert chapters.input_drift(source) == []
    notebook = nbformat.read(target, as_version=4)
    assert notebook.cells[2].source == "Other prose."
    assert notebook.cells[1].metadata["tags"] == ["hide-input"]
    # the outputs are those of the execution, untouched, and the file is what regenerating would write
    assert "".join(output.get("text", "") for output in notebook.cells[1].outputs) == "45\n"
    assert target.read_bytes() == chapters.regenerate(source).read_bytes()


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [("range(10)", "range(11)", "the code of cell 1 changed"), ("Some prose.", "Some.\n\n+++\n\nMore.", "cells")],
)
def test_sync_prose_refuses_when_the_code_or_the_cells_changed(tmp_path, capsys, old, new, message, tiny_executed):
    source, target = _executed_tiny_chapter(tmp_path, tiny_executed)
    written = target.read_bytes()
    source.write_text(TINY_CHAPTER.replace(old, new))
    with pytest.raises(ValueError, match=message):
        chapters.sync_prose(source)
    assert chapters.main(["--prose", str(source)]) == 1
    assert message in capsys.readouterr().err
    assert target.read_bytes() == written
    target.unlink()
    with pytest.raises(ValueError, match="missing"):
        chapters.sync_prose(source)
    assert chapters.main(["--prose", "--check", str(source)]) == 2
