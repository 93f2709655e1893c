"""The Sphinx extension ``booktools.bookext``, end to end: a miniature book built by Jupyter Book in a temporary folder.

The miniature book has what the real one has, once: a ``_config.yml`` that loads the extension by its package name,
a ``_toc.yml``, one chapter (rendered from its ``.ipynb``, as the book renders every chapter) with a numbered
``{prf:proposition}``, a cell tagged ``check-<id>``, an erratum target and a named figure; one entry in each
registry; and the pages that the extension generates (blueprint graph and table, errata table, concordance,
figure index).  The build runs with ``-W -n`` like ``make book``; the test reads the generated HTML.  A second
build, with a registry that breaks its schema, must fail and say why.

Cost: two ``jupyter-book build`` runs of a four-page book, about 10 s each on the shared 2-core machine
(marker ``minibook``; deselect with ``-m "not minibook"``).
"""

from __future__ import annotations

import base64
import io
import re
import subprocess
import sys
from pathlib import Path

import jupytext
import nbformat
import pytest
import sympy as sp

from booktools import chapters
from limetheory.book import summary

pytestmark = pytest.mark.minibook
D = sp.Symbol("D", positive=True)

CONFIG = """\
title: Mini
author: The tests
only_build_toc_files: true
exclude_patterns: [_build, "notebooks/*.md"]
execute:
  execute_notebooks: "off"
parse:
  myst_enable_extensions: [dollarmath]
sphinx:
  extra_extensions:
    - sphinx_proof
    - sphinx.ext.graphviz
    - sphinx-mathjax-offline
    - booktools.bookext
    - booktools.prerender_math
  config:
    nitpick_ignore_regex: [["py:class", ".*"]]
    graphviz_output_format: svg
    numfig_format: {figure: "Book figure %s"}
    proof_title_format: " — %t"
    nb_render_markdown_format: myst
"""

TOC = """\
format: jb-book
root: book/intro
parts:
  - caption: "Part I: Mini"
    numbered: true
    chapters:
      - file: notebooks/01-mini
  - caption: Back matter
    chapters:
      - file: book/blueprint
      - file: book/errata
      - file: book/concordance
      - file: book/figures
"""

CHAPTER = (
    chapters.FRONT_MATTER
    + """
# A mini chapter

```{prf:proposition} Proposition 1 of the paper: the mini result
:label: mini-prop

One plus one is two.
```

```{code-cell} ipython3
:tags: [hide-input, check-mini-check]

assert 1 + 1 == 2
```

(erratum-mini-slip)=
The paper prints three.

```{code-cell} ipython3
---
mystnb:
  figure:
    name: fig-mini
    caption: A white square drawn by the test, $\\nu = 0$. It has no ink.
---
square
```
"""
)

PAGES = {
    "book/intro.md": (
        "# Mini book\n\nA book of one chapter.\n\n```{figure} square.png\n:name: fig-intro\n\nA grey square.\n```\n"
    ),
    "book/blueprint.md": "# Blueprint\n\n```{blueprint-graph}\n```\n\n```{blueprint-table}\n```\n",
    "book/errata.md": (
        "# Errata\n\n```{errata-table}\n```\n\n## Main text\n\n### One plus one\n\n"
        "- **Where:** main text, Proposition 1\n- **Printed:** three\n- **Correct:** two\n"
        "- **Severity:** typo\n- **Proof:** {ref}`the check <erratum-mini-slip>` in {doc}`../notebooks/01-mini`\n"
    ),
    "book/concordance.md": "# Concordance\n\n```{paper-concordance} main\n```\n",
    "book/figures.md": "# Figures\n\n```{figure-index}\n```\n",
    "book/blueprint.yml": (
        "- label: mini-prop\n  paper: Proposition 1\n  paper_refs: [prop:mini]\n"
        "  verified: [exact]\n  checks: [mini-check]\n"
    ),
    "book/figures.yml": "- {number: Figure 1, part: main text, subject: A white square, figure: fig-mini}\n",
    "book/paper_numbers.yml": (
        "prop:mini: {label: 'prop:mini', kind: proposition, number: '1', printed: Proposition 1, part: main,"
        " section: Section 1 (Mini), title: Mini}\n"
        "fig:mini: {label: 'fig:mini', kind: figure, number: '1', printed: Figure 1, part: main,"
        " section: Section 1 (Mini), title: A white square}\n"
    ),
}


def _png() -> str:
    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (40, 40), "white").save(buffer, format="PNG")
    return base64.b64encode(buffer.getvalue()).decode()


def _write_book(folder: Path, changes: dict[str, str] | None = None) -> Path:
    files = {**PAGES, "_config.yml": CONFIG, "_toc.yml": TOC, "notebooks/01-mini.md": CHAPTER, **(changes or {})}
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text, encoding="utf-8")
    # the chapter as the book renders it: its .ipynb, with the figure cell's output as if executed
    notebook = jupytext.reads(CHAPTER, fmt="md:myst")
    figure_cell = notebook.cells[-1]
    figure_cell.outputs = [nbformat.v4.new_output("display_data", data={"image/png": _png(), "text/plain": "square"})]
    figure_cell.execution_count = 2
    # the check cell shows a summary, as a chapter's last cell does: a markdown table with LaTeX
    check_cell = next(cell for cell in notebook.cells if "check-mini-check" in cell.metadata.get("tags", []))
    table = summary(("limit", (D - 1) / (12 * D)), ("within 1e-12", True))
    check_cell.outputs = [
        nbformat.v4.new_output(
            "execute_result",
            data={"text/markdown": table._repr_markdown_(), "text/plain": repr(table)},
            execution_count=1,
        )
    ]
    check_cell.execution_count = 1
    nbformat.write(notebook, folder / "notebooks" / "01-mini.ipynb")
    (folder / "book" / "square.png").write_bytes(base64.b64decode(_png()))
    return folder


def _build(folder: Path) -> subprocess.CompletedProcess:
    jupyter_book = Path(sys.executable).parent / "jupyter-book"
    command = [str(jupyter_book), "build", str(folder), "--builder", "html", "-W", "-n", "--keep-going"]
    return subprocess.run(command, capture_output=True, text=True, timeout=300)


def _text(folder: Path, page: str) -> str:
    html = (folder / "_build" / "html" / page).read_text(encoding="utf-8")
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def test_the_extension_renders_the_generated_pages_of_a_miniature_book(tmp_path):
    book = _write_book(tmp_path)
    built = _build(book)
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    html = book / "_build" / "html"
    # the blueprint: the graph (Graphviz SVG, its box a link to the statement) and the table with the check link
    blueprint = (html / "book" / "blueprint.html").read_text(encoding="utf-8")
    assert "Dependency graph of Part I: Mini" in blueprint
    assert re.search(r'href="[^"]*notebooks/01-mini\.html#mini-prop"', blueprint)
    assert re.search(r'href="[^"]*notebooks/01-mini\.html#check-mini-check"', blueprint)
    table = _text(book, "book/blueprint.html")
    assert "Proposition 1.1" in table and "exact" in table
    # the check cell carries the anchor the table links to
    chapter = (html / "notebooks" / "01-mini.html").read_text(encoding="utf-8")
    assert 'id="check-mini-check"' in chapter
    # the statement's title after a dash, without parentheses around it
    assert "Proposition 1.1 — Proposition 1 of the paper: the mini result" in _text(book, "notebooks/01-mini.html")
    # the summary renders as a table, its symbolic value as mathematics, typeset at the build
    # (booktools.prerender_math: the formula's markup, its source in data-latex, no MathJax script left)
    assert re.search(
        r'<table.*?Quantity.*?limit.*?<mjx-container[^>]*data-latex="\\frac\{D - 1\}\{12 D\}".*?yes.*?</table>',
        chapter,
        re.S,
    )
    assert "tex-chtml.js" not in chapter and 'id="MJX-CHTML-styles"' in chapter
    # the marker is a tag, not text of the cell: readers do not see it
    assert "check-mini-check" not in _text(book, "notebooks/01-mini.html")
    # the errata: the entry numbered E1 in the table and on the page, its proof linked to the chapter
    errata = _text(book, "book/errata.html")
    assert "E1" in errata and "One plus one" in errata and "typo (1)" in errata and "E1. One plus one" in errata
    assert re.search(r'href="[^"]*notebooks/01-mini\.html#erratum-mini-slip"', (html / "book/errata.html").read_text())
    # the concordance: the paper's Proposition 1 treated by the book's statement, with the erratum
    concordance = _text(book, "book/concordance.html")
    assert "Proposition 1 Mini" in concordance and "Proposition 1.1" in concordance and "exact" in concordance
    assert "Figure 1" in concordance and "reproduced" in concordance and "E1" in concordance
    # the figure index: the paper's Figure 1, its thumbnail and the book figure that reproduces it
    figures = (html / "book" / "figures.html").read_text(encoding="utf-8")
    assert 'class="fig-thumb"' in figures and "Book figure 1.1" in _text(book, "book/figures.html")
    # its thumbnail is an image file of the site, not inline base64
    thumbnails = re.findall(r'<img src="([^"]+)"[^>]*class="fig-thumb"', figures)
    assert thumbnails and "data:" not in figures, thumbnails
    assert all((html / "book" / src).resolve().is_file() for src in thumbnails), thumbnails
    # a figure outside the chapters has no book number ("Book figure 1" would read as chapter 1's)
    intro = _text(book, "book/intro.html")
    assert "A grey square" in intro and "Book figure" not in intro
    # the root page redirects to the landing page under the book's title
    assert "<title>Mini</title>" in (html / "index.html").read_text(encoding="utf-8")
    assert re.search(r'href="[^"]*notebooks/01-mini\.html#fig-mini"', figures)
    # the extension's stylesheet reaches the built book
    assert (html / "_static" / "bookext.css").is_file()
    # a figure's alt text is its caption's first sentence, the formula read as characters (not the image's path)
    assert re.search(r'<img alt="A white square drawn by the test, ν = 0\." src="[^"]+\.png"', chapter), chapter
    assert re.search(r'<img alt="A grey square\." src=', (html / "book" / "intro.html").read_text(encoding="utf-8"))
    # the back matter's tables stack as cards on a phone (bookext.css), the chapters' do not
    assert re.search(r'<table class="[^"]*\bbk-cards\b', (html / "book" / "errata.html").read_text(encoding="utf-8"))
    assert "bk-cards" not in chapter


def test_a_registry_that_breaks_its_schema_fails_the_build_and_says_where(tmp_path):
    registry = PAGES["book/blueprint.yml"].replace("checks: [mini-check]", "checks: mini-check")
    book = _write_book(tmp_path, {"book/blueprint.yml": registry})
    built = _build(book)
    assert built.returncode != 0
    assert "book/blueprint.yml: entry 0 (mini-prop), field checks: 'mini-check' is not of type 'array'" in (
        built.stdout + built.stderr
    )
