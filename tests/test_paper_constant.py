"""No chapter uses the paper's 1.36 = (9√6 − 8√3)/6 as lime's large-d limit (issue 35).

Chapter 19 proves that it is not one: for one TF-IDF coordinate on d equal weights, lime's ratio β_j/φ(ξ)_j tends to
κ(ν), 8/5 at ν = ∞ and about 1.31 at lime's default bandwidth
(``limetheory.theory.linear.linear_approx.large_d_limits``). The chapters may still quote the constant as the paper's
(the errata do), or deny that it is a limit.  The check
reads every chapter source (notebooks/*.md):

- prose (and figure captions): a sentence that names the constant and speaks of a limit ("tends to", "→", "limit",
  "large d", "for lime", "lime's ratio" ...) must attribute it to the paper ("paper", "printed", "supplement",
  "Proposition 4") or deny it ("is not", "not the");
- code: a number literal 1.36... (or 9·sqrt(6) − 8·sqrt(3) written out, outside a sympy identity that derives it)
  must carry a comment saying it is the paper's (printed) constant; chapters compute lime's ratio with
  ``large_d_limits`` instead.
"""

from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = sorted((ROOT / "notebooks").glob("[0-9][0-9]-*.md"))
CODE_CELL = re.compile(r"^```\{code-cell\}[^\n]*\n(.*?)^```", re.MULTILINE | re.DOTALL)
#: a cell's metadata block (tags, figure captions) is prose for this check
CELL_METADATA = re.compile(r"\A---\n(.*?)^---\n", re.MULTILINE | re.DOTALL)
CONSTANT = re.compile(
    r"1\.36|9\s*\\sqrt\s*\{?6\}?\s*-\s*8\s*\\sqrt\s*\{?3\}?|9√6\s*[−-]\s*8√3",
)
LIMIT = re.compile(
    r"tends? to|\\to\b|→|\blimit|converg|approach|large[- ]\$?d\$?|\bfor lime\b|lime's (ratio|constant|limit)",
    re.IGNORECASE,
)
ATTRIBUTION = re.compile(r"paper|printed|supplement|Proposition 4|Eq\. \(12\)", re.IGNORECASE)
NEGATION = re.compile(r"\b(is|are) not\b|\bnot (the|a|its)\b|, not \$?1\.36")
SYMPY_IDENTITY = re.compile(r"sp\.simplify\(.*\)\s*==\s*0")
CODE_CONSTANT = re.compile(r"9\s*\*\s*[\w.]*sqrt\(6(\.0)?\)\s*-\s*8\s*\*\s*[\w.]*sqrt\(3(\.0)?\)")


def split_source(text):
    """(prose, [code of each cell]) of a chapter source; cell metadata (captions) counts as prose."""
    codes, prose = [], CODE_CELL.sub("\n\n", text)
    for match in CODE_CELL.finditer(text):
        body = match.group(1)
        metadata = CELL_METADATA.match(body)
        if metadata:
            prose += "\n\n" + metadata.group(1)
            body = body[metadata.end() :]
        codes.append(body)
    return prose, codes


def sentences(prose):
    """The prose's sentences: paragraphs split after '.', ';' or '?' followed by a space (display math stays in)."""
    for paragraph in re.split(r"\n\s*\n(?!\$\$)", prose):
        yield from re.split(r"(?<=[.;?])\s+(?=[A-Z({$])", " ".join(paragraph.split()))


def prose_uses(prose):
    """The sentences that use the constant as lime's limit."""
    return [
        sentence
        for sentence in sentences(prose)
        if CONSTANT.search(sentence)
        and LIMIT.search(sentence)
        and not ATTRIBUTION.search(sentence)
        and not NEGATION.search(sentence)
    ]


def code_uses(code):
    """The code lines where the constant appears as a number (or written out) without a comment naming the paper."""
    found = []
    lines = code.splitlines()
    comments = {}
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(code).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):  # IPython magics: read line by line below
        tokens = []
    for token in tokens:
        if token.type == tokenize.COMMENT:
            comments[token.start[0]] = token.string
    for token in tokens:
        if token.type == tokenize.NUMBER and token.string.startswith("1.36"):
            found.append(token.start[0])
    for number, line in enumerate(lines, start=1):
        # written out inside a sympy identity (sp.simplify(x - closed form) == 0) it is derived, not used
        if CODE_CONSTANT.search(line.split("#")[0]) and not SYMPY_IDENTITY.search(line):
            found.append(number)
    return [
        lines[number - 1].strip()
        for number in sorted(set(found))
        if not ATTRIBUTION.search(comments.get(number, "") + comments.get(number - 1, ""))
    ]


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda path: path.stem)
def test_no_chapter_uses_the_paper_constant_as_limes_limit(path):
    prose, codes = split_source(path.read_text(encoding="utf-8"))
    assert prose_uses(prose) == []
    assert [line for code in codes for line in code_uses(code)] == []


# ----------------------------------------------------------------------------- the checker finds what it must


OLD_CHAPTER_28 = r"""
so that $\phi_j / (\lambda_j \varphi_j) \to 2$ where lime's ratio tends to $(9\sqrt{6} - 8\sqrt{3})/6 \approx 1.36$;
the second term, of lower order, makes the approximations sum to $f(\xi)$ exactly.

This is what the two large-$d$ laws predict: both are close to a constant times $\lambda_j \varphi_j$, 1.36 for
lime and 2 for Shapley, and a constant does not change an order.

```{code-cell} ipython3
---
tags: [hide-input]
mystnb:
  figure:
    caption: |
      Left: the logistic regression's decision
      function (dashed: slope 2/1.36, the ratio of the two large-$d$ constants). Right: the forest.
    name: fig-shap-vs-lime
---
ax.plot(grid, grid * 2 / 1.36, "--", color="grey")
ratio = 9 * np.sqrt(6) - 8 * np.sqrt(3)
```
"""


def test_the_checker_flags_the_old_chapter_28():
    """The three places where chapter 28 used 1.36 as lime's limit before issue 35, and its figure's code."""
    prose, codes = split_source(OLD_CHAPTER_28)
    assert len(prose_uses(prose)) == 3
    assert code_uses(codes[0]) == [
        'ax.plot(grid, grid * 2 / 1.36, "--", color="grey")',
        "ratio = 9 * np.sqrt(6) - 8 * np.sqrt(3)",
    ]


def test_the_checker_lets_the_paper_be_quoted():
    allowed = (
        "The paper's Proposition 4 says that lime's coefficients are close to $1.36\\, \\lambda_j$ when d is large. "
        "Chapter 19 shows that 1.36 is not the limit: lime's ratio tends to $\\kappa(\\nu)$.\n\n"
        "### Erratum: 1.36 is not the large-bandwidth constant\n"
    )
    assert prose_uses(allowed) == []
    allowed_code = (
        'assert round(float(C), 2) == 1.36  # the printed "1.36"\nx = 2 / KAPPA\n'
        "assert sp.simplify(C - (9 * sp.sqrt(6) - 8 * sp.sqrt(3)) / 6) == 0\n"
    )
    assert code_uses(allowed_code) == []
