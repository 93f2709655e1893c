"""Raw TeX in the book's prose: the pattern the checks share, and the prose of a MyST page read from its source.

A formula typed outside math (``e^-42``, ``\\frac``, a stray ``$``) reaches the reader as characters. The browser
suite finds it on the built pages (``browser_tests/test_book_in_browser.py``), minutes into ``make test``;
``tests/test_docstring_math.py`` finds it in the API's docstrings and ``tests/test_markdown_prose_tex.py`` in the
Markdown sources (``book/*.md`` and the chapters' ``notebooks/*.md``), in a second, with the file and line. All three
use :data:`RAW_TEX`.
"""

from __future__ import annotations

import re

#: what raw TeX looks like in a page's text: ``\\(``, ``\\)``, ``\\[``, ``\\]``, a dollar, a caret or a TeX command
RAW_TEX = re.compile(
    r"\\[()\[\]]|\$|\^|\\(?:frac|sum|mathbb|mathcal|alpha|beta|Sigma|Gamma|left|right|sqrt|binom|begin|end|hat)\b"
)

# an opening or closing fence: its backticks or tildes, then an optional {directive} and the rest of the line
_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})[ \t]*(?:\{([^}]*)\})?(.*)$")
# directives whose body (and title) the reader sees as prose; every other fenced block is code, math or options
_PROSE_DIRECTIVE = re.compile(
    r"^(?:prf:\w+|figure|note|warning|admonition|tip|important|dropdown|margin|epigraph|seealso|caution)$"
)
_OPTION = re.compile(r"^[ \t]*:[\w-]+:")


def _blank(match):
    """The match with every character but the newlines replaced by spaces (line numbers are kept)."""
    return re.sub(r"[^\n]", " ", match.group(0))


def _closes(fence, opened):
    """Whether a bare fence line closes the block opened with ``opened`` (CommonMark: same character, no shorter)."""
    return fence[0] == opened[0] and len(fence) >= len(opened)


def markdown_prose(text):
    """The prose of a MyST Markdown page, line for line, with everything else blanked.

    Blanked: the front matter, HTML comments, code and math blocks (fenced blocks but those of prose directives:
    ``prf:*``, ``figure``, admonitions, whose titles and bodies stay), directive options, ``$$`` math, ``$`` math
    (across lines too), roles such as ``{math}`` and inline code.

    Parameters
    ----------
    text : str
        The page's source.

    Returns
    -------
    str
        As many lines as ``text``; line n holds what the reader sees as prose of line n.

    Examples
    --------
    >>> markdown_prose("A $x^2$ and `y^2` but e^-42.\\n```python\\nz ^ 1\\n```").splitlines()[0].split()
    ['A', 'and', 'but', 'e^-42.']
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    text = re.sub(r"<!--.*?-->", _blank, text, flags=re.DOTALL)
    if text.startswith("---\n") and "\n---" in text[3:]:
        end = text.index("\n---", 3) + 4
        text = re.sub(r"[^\n]", " ", text[:end]) + text[end:]
    kept, open_blocks = [], []  # open_blocks: (fence, is_code) of every fenced block around the line
    for line in text.split("\n"):
        match = _FENCE.match(line)
        bare = match is not None and match.group(2) is None and not match.group(3).strip()
        if open_blocks and open_blocks[-1][1]:  # inside code or math: only its own closing fence ends it
            if bare and _closes(match.group(1), open_blocks[-1][0]):
                open_blocks.pop()
            kept.append("")
        elif match and bare and open_blocks and _closes(match.group(1), open_blocks[-1][0]):
            open_blocks.pop()
            kept.append("")
        elif match:
            prose = match.group(2) is not None and bool(_PROSE_DIRECTIVE.match(match.group(2).strip()))
            open_blocks.append((match.group(1), not prose))
            kept.append(match.group(3) if prose else "")  # a statement's title is prose
        elif open_blocks and _OPTION.match(line):
            kept.append("")
        else:
            kept.append(line)
    text = "\n".join(kept)
    text = re.sub(r"\$\$.*?\$\$", _blank, text, flags=re.DOTALL)
    text = re.sub(r"\{[\w:-]+\}`[^`]*`", _blank, text)
    text = re.sub(r"(`+)(?!`).*?(?<!`)\1(?!`)", _blank, text, flags=re.DOTALL)
    return re.sub(r"(?<![\\$])\$(?!\$)[^$]+?(?<!\\)\$", _blank, text, flags=re.DOTALL)
