"""The tolerance rule: no bare absolute tolerance below 1e-14 in tests/*.py or in the chapters' code cells.

An absolute 1e-15 or 1e-16 on values of order one is a few units in the last place, and the last bits depend on the
CPU's vector paths, libm and BLAS: such a check fails on another machine without anything having changed.  A
tolerance must follow from the computation (ulps with ``np.testing.assert_array_max_ulp``, ``k * eps`` with the
reason for k, a bound from a condition number) or be exact where both sides make the same operations.  This test
reads the code with Python's tokenizer (so strings and comments never count) and flags a float literal below 1e-14
used as an absolute tolerance:

- the value of ``atol=``, ``abs=``, ``abs_tol=`` or ``epsabs=``, or of an assignment to a name containing ``tol``;
- the right-hand side of ``<``, ``<=``, ``>``, ``>=``, or a literal added to or subtracted from a value (``x - 1e-15``).

A statement is exempt when it carries a trailing ``# tol:`` comment with the reason, or a comment line starting with
``# tol:`` comes just before it (a statement a formatter splits over several lines stays explained).  Literals
below 1e-250 are thresholds at the bottom of the double range (``abs=1e-300`` only switches off pytest.approx's
default absolute tolerance; ``abs(g) < 1e-290`` checks an underflow), not tolerances on the size of any value.
"""

from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
THRESHOLD = 1e-14
UNDERFLOW_RANGE = 1e-250
TOLERANCE_KEYWORDS = {"atol", "abs", "abs_tol", "epsabs"}
COMPARISONS_AND_OFFSETS = {"<", "<=", ">", ">=", "+", "-"}
EXEMPTION = re.compile(r"#\s*tol:")
CODE_CELL = re.compile(r"^```\{code-cell\}[^\n]*\n(.*?)^```", re.MULTILINE | re.DOTALL)


def _absolute_tolerance_name(name: str) -> bool:
    lower = name.lower()
    return "tol" in lower and "rtol" not in lower and "rel" not in lower


def bare_tolerances(code: str) -> list[tuple[int, str]]:
    """(line number, literal) of every bare absolute tolerance below 1e-14 in ``code`` (Python source).

    Raises ``tokenize.TokenError`` / ``SyntaxError`` on code the tokenizer cannot read, so that nothing is
    skipped silently.
    """
    exempt = set()  # statements (counted by their NEWLINE tokens) that a '# tol:' comment explains
    code_tokens = []  # (statement, token) of the tokens that are code
    statement = 0
    for token in tokenize.generate_tokens(io.StringIO(code).readline):
        if token.type == tokenize.COMMENT:
            # a trailing comment explains its own statement; a comment line, the statement that follows it
            if EXEMPTION.match(token.string):
                exempt.add(statement)
        elif token.type == tokenize.NEWLINE:
            statement += 1
        elif token.type not in (tokenize.NL, tokenize.INDENT, tokenize.DEDENT):
            code_tokens.append((statement, token))
    found = []
    for k, (statement, token) in enumerate(code_tokens):
        if token.type != tokenize.NUMBER or not re.fullmatch(r"[\d.]+[eE]-\d+", token.string):
            continue
        value = float(token.string)
        if not UNDERFLOW_RANGE <= value < THRESHOLD or statement in exempt:
            continue
        before = code_tokens[k - 1][1] if k >= 1 else None
        name = code_tokens[k - 2][1] if k >= 2 else None
        keyword = (
            before is not None
            and before.string == "="
            and name is not None
            and name.type == tokenize.NAME
            and (name.string in TOLERANCE_KEYWORDS or _absolute_tolerance_name(name.string))
        )
        if keyword or (before is not None and before.string in COMPARISONS_AND_OFFSETS):
            found.append((token.start[0], token.string))
    return found


def code_cells(markdown: str) -> list[tuple[int, str]]:
    """(line number of the cell's first code line, code) of every ``{code-cell}`` of a MyST chapter.

    The cell's options (a leading ``---`` YAML block or ``:key: value`` lines), IPython magics and shell escapes
    (lines starting with % or !) are blanked, as they are not Python; line numbers are kept.
    """
    cells = []
    for match in CODE_CELL.finditer(markdown):
        first_line = markdown.count("\n", 0, match.start(1)) + 1
        lines = match.group(1).splitlines(keepends=True)
        options = 0
        if lines and lines[0].strip() == "---":
            options = next((k + 1 for k in range(1, len(lines)) if lines[k].strip() == "---"), 0)
        while options < len(lines) and re.match(r":\w[\w-]*:", lines[options]):
            options += 1
        code = "".join(
            "\n" if k < options or line.lstrip().startswith(("%", "!")) else line for k, line in enumerate(lines)
        )
        cells.append((first_line, code))
    return cells


#: the float literals :func:`bare_tolerances` reads (NUMBER tokens of this form), as they stand in a file's text
LITERAL = re.compile(r"[\d.]+[eE]-\d+")


def may_hold_a_finding(text: str) -> bool:
    """Whether ``text`` holds, anywhere (code, strings, comments, prose), a literal in the flagged range.

    Every literal :func:`bare_tolerances` flags stands in the text in this form, so a file without one has no
    finding and need not be tokenized (most files: tokenizing is most of the scan's CPU time).
    """
    for match in LITERAL.finditer(text):
        try:
            value = float(match.group())
        except ValueError:  # dots the tokenizer would read otherwise: tokenize to be sure
            return True
        if UNDERFLOW_RANGE <= value < THRESHOLD:
            return True
    return False


def findings_in(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    if not may_hold_a_finding(text):
        return []
    pieces = code_cells(text) if path.suffix == ".md" else [(1, text)]
    out = []
    for first_line, code in pieces:
        for line, literal in bare_tolerances(code):
            out.append(f"{path.relative_to(ROOT)}:{first_line + line - 1}: {literal}")
    return out


# ----------------------------------------------------------------------------- the rule on small samples


@pytest.mark.parametrize(
    "code",
    [
        "np.testing.assert_allclose(a, b, atol=1e-15)",
        "np.testing.assert_allclose(a, b,\n                           rtol=0, atol=5e-16)",
        "assert x == pytest.approx(y, rel=1e-14, abs=1e-16)",
        "assert abs(a - b) < 1e-15",
        "assert 0 < ratio <= 2.2e-16",
        "GRID_TOL = 1e-15",
        "tolerance = 3e-16",
        "assert lower <= value + 1e-15",
        "assert weights.min() >= floor - 1E-15",
        "ok = quad(f, 0, 1, epsabs=1e-20)[0]",
        "# tol: this comment explains the next statement only\nx = 1\nassert abs(a - b) < 1e-15",
    ],
)
def test_flags_a_bare_absolute_tolerance(code):
    assert len(bare_tolerances(code)) == 1, code
    assert may_hold_a_finding(code), code  # the text's pre-check lets it through to the tokenizer


def test_the_pre_check_skips_text_without_a_literal_in_range():
    """Literals at or above the threshold, in the underflow range or without a negative exponent let a text be
    skipped; one in range anywhere, even in a comment or a string, sends it to the tokenizer."""
    assert not may_hold_a_finding("x = 1e-14\ny = 1e-300\nz = 2.5e-3, 1e5, 0.0000001  # atol=1e-13")
    assert may_hold_a_finding("message = 'atol=1e-15'") and may_hold_a_finding("x = 1  # 3E-16")


@pytest.mark.parametrize(
    "code",
    [
        "np.testing.assert_allclose(a, b, atol=1e-14)",  # at the threshold
        "np.testing.assert_allclose(a, b, rtol=1e-15)",  # relative, not absolute
        "np.testing.assert_allclose(a, b, atol=4 * EPS)",  # no literal: k eps, explained where EPS is used
        "assert abs(a - b) < 1e-15  # tol: both are 30-digit values",
        "# tol: 30-digit values, 1e-25 leaves 4 digits of margin\nassert abs(a - b) < 1e-25",
        "# tol: a statement split over lines\nassert (\n    abs(a - b)\n    < 1e-25\n)",
        "assert got == pytest.approx(want, rel=1e-13, abs=1e-300)",  # the underflow range
        "assert abs(g) < 1e-290",
        "message = 'atol=1e-15'",  # a string
        "x = 1.0  # atol=1e-15 in a comment",
        "TS = [0.0, 1e-15, 1e-12]",  # data, not a tolerance
        "y = f(1e-20) * 3",
        "np.maximum(errors, 1e-17)",
        "TOL_FACTOR = 10",
    ],
)
def test_accepts_what_is_not_a_bare_absolute_tolerance(code):
    assert bare_tolerances(code) == [], code


def test_reports_the_line_of_a_chapter_code_cell():
    chapter = (
        "# Title\n\nText with atol=1e-15 in prose.\n\n```{code-cell} ipython3\n%matplotlib inline\n"
        "x = 1.0\nassert abs(x - 1) < 1e-16\n```\n\n```python\nassert abs(x) < 1e-16\n```\n\n"
        "```{code-cell} ipython3\n---\ntags: [hide-input]\nmystnb:\n  figure:\n    caption: |\n      atol=1e-15\n---\n"
        "ax.set_ylim(1e-17, 1)\nGRID_TOL = 1e-15\n```\n\n"
        "```{code-cell} ipython3\n:tags: [remove-input]\ny = x + 1e-16\n```\n"
    )
    cells = code_cells(chapter)
    assert [first for first, _ in cells] == [6, 16, 28]
    found = [(first + line - 1, literal) for first, code in cells for line, literal in bare_tolerances(code)]
    assert found == [(8, "1e-16"), (24, "1e-15"), (29, "1e-16")]


# ----------------------------------------------------------------------------- the rule on the repository


def test_no_bare_absolute_tolerance_in_tests_or_chapters():
    paths = sorted((ROOT / "tests").glob("*.py")) + sorted((ROOT / "notebooks").glob("*.md"))
    assert len(paths) > 20  # the scan reads the repository, not an empty folder
    findings = [finding for path in paths for finding in findings_in(path)]
    assert not findings, (
        "absolute tolerances below 1e-14 (a few ulps of values of order one: they fail on another CPU); use "
        "np.testing.assert_array_max_ulp, rtol = k * eps with the reason for k, a condition-number bound, or "
        "exact equality where both sides make the same operations, or add '# tol: <why>':\n" + "\n".join(findings)
    )
