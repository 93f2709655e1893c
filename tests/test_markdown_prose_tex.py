"""No raw TeX in the prose of the book's Markdown sources, found in a second with the file and line.

The browser suite finds a formula typed outside math on the built pages, about seven minutes into ``make test``
(it cost a clean-clone rehearsal once: ``e^-42`` in book/costs.md); this reads ``book/*.md`` and the chapters'
``notebooks/*.md`` with :func:`booktools.rawtex.markdown_prose` and applies the browser's pattern.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from booktools.rawtex import RAW_TEX, markdown_prose

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted([*ROOT.glob("book/*.md"), *ROOT.glob("notebooks/*.md")])


def raw_tex_lines(text):
    """The 1-based numbers of the lines whose prose holds raw TeX."""
    return [n for n, line in enumerate(markdown_prose(text).split("\n"), start=1) if RAW_TEX.search(line)]


def test_the_pages_are_found():
    assert len(PAGES) >= 30, PAGES


@pytest.mark.parametrize("page", PAGES, ids=lambda path: path.name)
def test_no_raw_tex_in_the_prose(page):
    text = page.read_text(encoding="utf-8")
    found = [f"{page.name}:{n}: {text.split(chr(10))[n - 1].strip()}" for n in raw_tex_lines(text)]
    assert found == []


SAMPLE = """\
---
title: front matter^2
---
<!-- a comment with e^x -->
Prose with $x^2$ and {math}`m^n` and `code^x` is clean.
Prose with e^-42 is not.

```{prf:theorem} A title with $a^b$ is clean
:label: thm-a^b

A body with $$y^2$$ is clean.
A body with \\frac{1}{2} is not.
```

```{code-cell} ipython3
x = 2**3 ^ 1
```

````{prf:proof}
```{math}
z^2
```
After the math, p^q is not.
````
Inline math over two lines, $a +
b^2$, is clean; a lone dollar $ is not.
```{prf:remark} A title with c^d is not
```
"""


def test_the_check_finds_raw_tex_in_prose_titles_and_bodies_and_nothing_in_math_or_code():
    lines = SAMPLE.split("\n")
    flagged = [lines[n - 1] for n in raw_tex_lines(SAMPLE)]
    assert flagged == [
        "Prose with e^-42 is not.",
        "A body with \\frac{1}{2} is not.",
        "After the math, p^q is not.",
        "b^2$, is clean; a lone dollar $ is not.",
        "```{prf:remark} A title with c^d is not",
    ]


def test_the_prose_keeps_every_line():
    assert markdown_prose(SAMPLE).count("\n") == SAMPLE.count("\n")


def test_a_non_string_is_refused():
    with pytest.raises(TypeError, match="text must be a str"):
        markdown_prose(b"bytes")
