"""limetheory.book.texwidth and the line breaking of Equations: displays that fit a phone's column."""

from __future__ import annotations

import re

import numpy as np
import pytest
import sympy as sp

from limetheory.book import Equations, show_equations
from limetheory.book.display import PHONE_WIDTH_EM
from limetheory.book.texwidth import tex_terms, tex_width

THIN, MEDIUM, THICK = 3 / 18, 4 / 18, 5 / 18  # TeX's math spaces, in em
A, B, X, D = 0.529, 0.429, 0.572, 0.520  # cmmi10 widths of a, b, x, d
PLUS, EQUALS, DIGIT = 0.778, 0.778, 0.5


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("a + b", A + B + PLUS + 2 * MEDIUM),  # a binary sign between operands has a medium space each side
        ("x = 1", X + EQUALS + DIGIT + 2 * THICK),  # a relation a thick one
        ("-x", PLUS + X),  # a leading minus is unary: no space
        ("a, b", A + 0.278 + THIN + B),  # punctuation is followed by a thin space
        ("x^{2}", X + 0.7 * DIGIT + 0.05),  # a script at 70 %, then TeX's \scriptspace
        ("x^{a + b}", X + 0.7 * (A + PLUS + B) + 0.05),  # no space around a sign inside a script
        (r"\frac{d - 1}{2 d}", (D + PLUS + DIGIT + 2 * MEDIUM) + 0.24),  # the wider part, and 0.12 em each side
        (r"\left(a + b\right)", 2 * 0.389 + A + B + PLUS + 2 * MEDIUM),
        (r"\log x", 1.278 + THIN + X),  # an operator name, a thin space before its argument
        (r"\text{ab c}", 0.5 + 0.556 + 0.333 + 0.444),  # upright letters and a word space
        (r"a \quad b", A + 1 + B),
        (r"x \\ a + b", A + B + PLUS + 2 * MEDIUM),  # two lines: the wider
        (r"a &= b \\ a a a &= b", 3 * A + EQUALS + B + 2 * THICK),  # columns as wide as their widest cells
    ],
)
def test_tex_width_follows_tex_layout(source, expected):
    assert tex_width(source) == pytest.approx(expected, abs=1e-6)


# Widths measured in Chromium at 414 px (browser_tests/book_layout.py, before these displays were broken): the
# scroll width of each display, in px. MathJax set them at 18.2 to 19.6 px per em of the estimate
MEASURED_PX = {
    r"\det \Sigma &= \left(\alpha_{1} - \alpha_{2}\right)^{d - 1} \left(\alpha_{0} \alpha_{1} + \alpha_{0} "
    r"\alpha_{2} d - \alpha_{0} \alpha_{2} - \alpha_{1}^{2} d\right)": 413,
    r"f_{\text{tree}} = - 0.532 z_{\text{great}} z_{\text{love}} + 0.487 z_{\text{great}} + 0.532 "
    r"z_{\text{love}} + 0.42": 440,
    r"\binom{d-2}{s-1} \Big/ \binom{d-1}{s} &= \frac{s}{d - 1} \\ \binom{d-3}{s-1} \Big/ \binom{d-2}{s} &= "
    r"\frac{s}{d - 2} \\ \text{printed: } \binom{d-2}{s} \Big/ \binom{d-1}{s-1} &= \frac{\left(d - s\right) "
    r"\left(d - s - 1\right)}{s \left(d - 1\right)}": 397,
    r"-\log\psi(2\nu y) &= \frac{y^{2}}{2} + \frac{\nu y^{3}}{2} + \frac{5 \nu^{2} y^{4}}{8} + O(\nu^3 y^5) \\ "
    r"\sqrt{1 - 2\nu y} &= 1 - \nu y - \frac{\nu^{2} y^{2}}{2} + O(\nu^3 y^3) \\ \int_0^\infty y^2 "
    r"e^{-y^2/2}dy \Big/ \int_0^\infty y e^{-y^2/2}dy &= \frac{\sqrt{2} \sqrt{\pi}}{2}": 514,
    r"\operatorname{Var}(H_S \mid j \notin S) &= \frac{\left(d + 1\right) \left(A^{2} \left(d - 5\right) + Q "
    r"\left(3 d - 3\right)\right)}{18 \left(d - 1\right)^{2}} \\ \text{limits as } d \to \infty,\ Q \to 0 &= "
    r"\tfrac{1}{18}, \quad \tfrac{3}{80}": 495,
}


@pytest.mark.parametrize("source", MEASURED_PX)
def test_estimate_against_chromium(source):
    """The estimate is proportional to the width MathJax renders, within the band PHONE_WIDTH_EM allows for."""
    px_per_em = MEASURED_PX[source] / tex_width(rf"\begin{{aligned}}{source}\end{{aligned}}")
    assert 18.0 <= px_per_em <= 19.8
    # the phone's column is 395 px wide: a line of PHONE_WIDTH_EM fits at the largest ratio of the band
    assert PHONE_WIDTH_EM * 19.8 < 395


def _signed(term) -> str:
    return f"- {sp.latex(-term)}" if term.could_extract_minus_sign() else f"+ {sp.latex(term)}"


@pytest.mark.parametrize("seed", range(5))
def test_tex_terms_are_the_terms_of_a_sum(seed):
    """Cut sympy's LaTeX of a sum: the pieces are sympy's terms, each printed alone with its sign."""
    rng = np.random.default_rng(seed)
    d, k, z = sp.symbols("d k z_j")
    expr = sum(
        int(rng.integers(-9, 10)) * d ** int(rng.integers(0, 3)) * k ** int(rng.integers(0, 2)) / (d + int(c))
        for c in rng.integers(1, 5, size=4)
    ) + z * sp.sqrt(d + 1)
    terms = expr.as_ordered_terms()
    expected = [_signed(term) for term in terms]
    expected[0] = expected[0].removeprefix("+ ")
    assert tex_terms(sp.latex(expr)) == expected


def test_tex_terms_keep_groups_and_leading_signs_whole():
    assert tex_terms(r"- \left(a + b\right)^{2} \Bigl(1 - x\Bigr) + \frac{a - b}{2}") == [
        r"- \left(a + b\right)^{2} \Bigl(1 - x\Bigr)",
        r"+ \frac{a - b}{2}",
    ]
    assert tex_terms(r"x = -1 \approx \text{a - b}") == ["x", "= -1", r"\approx \text{a - b}"]
    assert tex_terms(r"\begin{aligned}a &= b + c\end{aligned}") == [r"\begin{aligned}a &= b + c\end{aligned}"]


def _words(latex: str) -> str:
    """A display's content without its layout: no alignment, breaks, indents, delimiter sizes or spaces."""
    latex = re.sub(r"\\(begin|end)\{aligned\}|\$\$|&|\\\\|\\q?quad|\{\}|\\(left|right|[bB]ig[lr]?)", "", latex)
    return re.sub(r"\s+", "", latex)


def test_a_long_sum_is_broken_into_lines_that_fit_and_keep_every_term():
    z = sp.symbols("z_1:13")
    expr = sum((j + 1) * z[j] * z[(j + 1) % 12] for j in range(12))
    eq = show_equations(("f", expr))
    lines = eq.lines()
    assert len(lines) >= 3
    assert lines[0].startswith("f &= ") and all(line.startswith(r"&\quad {} + ") for line in lines[1:])
    assert max(tex_width(line) for line in lines) <= PHONE_WIDTH_EM
    assert _words(eq._repr_latex_()) == _words(f"f = {sp.latex(expr)}")


def test_a_product_is_broken_inside_its_widest_sum():
    a0, a1, a2, d = sp.symbols("alpha_0 alpha_1 alpha_2 d")
    inner = a0 * a1 + a0 * a2 * d - a0 * a2 - a1**2 * d + a2**2 * d**2 - a0 * a1 * a2
    eq = show_equations((r"\det \Sigma", (a1 - a2) ** (d - 1) * inner))
    lines = eq.lines()
    assert len(lines) >= 2 and r"\bigl(" in lines[0] and lines[-1].endswith(r"\bigr)")
    assert tex_width(r"\begin{aligned}" + r" \\ ".join(lines) + r"\end{aligned}") <= PHONE_WIDTH_EM
    for term in inner.as_ordered_terms():  # every term of the sum is on some line, as sympy prints it
        assert sp.latex(term if not term.could_extract_minus_sign() else -term) in eq._repr_latex_()


def test_a_long_left_hand_side_gets_a_line_of_its_own():
    d = sp.Symbol("d", positive=True)
    long_name = r"\text{approximation for an unused word } (p = 2)"
    value = -(d + 1) / (d * (d - 1))
    lines = Equations([(r"\beta_0", 1 / d), (long_name, value)]).lines()
    assert lines == [r"&{\beta_0} = \frac{1}{d}", rf"&{{{long_name}}}", rf"&\quad {{}}= {sp.latex(value)}"]
    # a row that fits is left as the aligned row it always was
    assert Equations([(r"\beta_0", 1 / d)]).lines() == [r"\beta_0 &= \frac{1}{d}"]


def test_width_sets_where_lines_break():
    x = sp.symbols("x_1:9")
    wide, narrow = Equations([("s", sum(x))], width=40), Equations([("s", sum(x))], width=6)
    assert len(wide.lines()) == 1 and len(narrow.lines()) == 4  # two terms a line: 5.9 em with the indent
    assert tex_width(r"\begin{aligned}" + r" \\ ".join(narrow.lines()) + r"\end{aligned}") <= 6


@pytest.mark.parametrize(
    ("call", "error", "pattern"),
    [
        (lambda: tex_width(3), TypeError, "^source must be a str of TeX math"),
        (lambda: tex_width(b"x"), TypeError, "^source must be a str of TeX math"),
        (lambda: tex_width("x", style="inline"), ValueError, "^style must be 'display' or 'text'"),
        (lambda: tex_terms(None), TypeError, "^source must be a str of TeX math"),
        (lambda: Equations([("x", 1)], width=True), TypeError, "^width must be a real number of em"),
        (lambda: Equations([("x", 1)], width="20"), TypeError, "^width must be a real number of em"),
        (lambda: Equations([("x", 1)], width=2), ValueError, "^width must be at least 4 em"),
        (lambda: Equations([("x", 1)], width=float("inf")), ValueError, "^width must be at least 4 em"),
        (lambda: Equations([("x", 1)], width=float("nan")), ValueError, "^width must be at least 4 em"),
        (lambda: show_equations(("x", 1), width=-1.0), ValueError, "^width must be at least 4 em"),
    ],
)
def test_bad_input(call, error, pattern):
    with pytest.raises(error, match=pattern):
        call()
