"""booktools.markers: the chapters' check and summary markers are cell tags, and old chapters convert to them."""

from __future__ import annotations

import json
from pathlib import Path

import jupytext
import nbformat
import pytest

from booktools import markers

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = sorted((ROOT / "notebooks").glob("*.md"))

OLD = """\
# Title

```{code-cell} ipython3
# check: plain
x = 1
```

```{code-cell} ipython3
:tags: [hide-input]

# check: folded


def f():
    return x
```

```{code-cell} ipython3
---
tags: [hide-input]
mystnb:
  figure:
    name: fig-a
---
# check: figure
f()
```

```{code-cell} ipython3
---
mystnb:
  figure:
    name: fig-b
---
# check: figure-untagged
f()
```

````{code-cell} ipython3
:tags: [hide-input]

# NBVAL_CHECK_OUTPUT
# check: summary
print("```", x)
````

Text with `# check: prose` inline.
"""


def test_conversion_moves_every_marker_to_the_tags_and_keeps_the_code():
    new = markers.convert_markdown(OLD)
    assert markers.OLD_MARKER_ANYWHERE.findall(new) == []
    cells = markers.markdown_cells(new)
    assert [tags for tags, _ in cells] == [
        ["check-plain"],
        ["hide-input", "check-folded"],
        ["hide-input", "check-figure"],
        ["check-figure-untagged"],
        ["hide-input", "nbval-check-output", "check-summary"],
    ]
    # the code is the old code without its marker lines (and the blank lines after them)
    assert [code for _, code in cells] == ["x = 1", "def f():\n    return x", "f()", "f()", 'print("```", x)']
    assert "Text with `# check: prose` inline." in new


def test_conversion_is_idempotent_and_leaves_converted_chapters_alone():
    once = markers.convert_markdown(OLD)
    assert markers.convert_markdown(once) == once
    assert markers.convert_markdown("# no cells\n") == "# no cells\n"


def test_jupytext_reads_the_converted_tags():
    notebook = jupytext.reads(markers.convert_markdown(OLD), fmt="md:myst")
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert code[2].metadata["tags"] == ["hide-input", "check-figure"]
    assert code[2].metadata["mystnb"]["figure"]["name"] == "fig-a"
    assert code[4].metadata["tags"] == ["hide-input", "nbval-check-output", "check-summary"]
    assert code[4].source == 'print("```", x)'


def test_a_chapter_and_its_notebook_convert_in_step(tmp_path):
    md = tmp_path / "01-x.md"
    md.write_text(OLD, encoding="utf-8")
    notebook = jupytext.reads(OLD, fmt="md:myst")
    nbformat.write(notebook, tmp_path / "01-x.ipynb")
    assert markers.main([str(md)]) == 0
    converted = nbformat.read(tmp_path / "01-x.ipynb", as_version=4)
    expected = jupytext.reads(md.read_text(encoding="utf-8"), fmt="md:myst")
    assert [(c.source, c.metadata.get("tags")) for c in converted.cells] == [
        (c.source, c.metadata.get("tags")) for c in expected.cells
    ]
    assert markers.convert_chapter(md) == []  # nothing left to convert


def test_nbval_reads_the_summary_tag_as_its_own_marker():
    from nbval.plugin import find_metadata_tags

    assert dict(find_metadata_tags({"tags": ["hide-input", markers.SUMMARY_TAG]})) == {"check": True}


def test_bad_input():
    with pytest.raises(TypeError, match="text must be a str"):
        markers.convert_markdown(b"bytes")
    with pytest.raises(ValueError, match="never closed"):
        markers.convert_markdown("```{code-cell} ipython3\n# check: x\n")
    with pytest.raises(TypeError, match="notebook must be"):
        markers.convert_notebook([])
    with pytest.raises(ValueError, match="md_path must be"):
        markers.convert_chapter(ROOT / "README")
    assert markers.main([]) == 2


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda path: path.stem)
def test_each_chapter_marks_its_cells_with_tags_only(path):
    """No marker comment is left for readers to see; one summary cell, tagged for nbval, in both files."""
    text = path.read_text(encoding="utf-8")
    assert markers.OLD_MARKER_ANYWHERE.findall(text) == [], "run: python -m booktools.markers " + path.name
    summary = [code for tags, code in markers.markdown_cells(text) if markers.SUMMARY_TAG in tags]
    assert len(summary) == 1, f"{path.name}: {len(summary)} cells tagged {markers.SUMMARY_TAG}, expected one"
    notebook = json.loads(path.with_suffix(".ipynb").read_text(encoding="utf-8"))
    tagged = [c for c in notebook["cells"] if markers.SUMMARY_TAG in c.get("metadata", {}).get("tags", ())]
    assert len(tagged) == 1 and tagged[0]["outputs"], f"{path.name}: the .ipynb's summary cell has no output"
