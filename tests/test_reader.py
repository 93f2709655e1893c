"""limetheory.book.reader: a chapter's closing summary as a labelled table, every value in a reader's notation."""

from __future__ import annotations

import re

import numpy as np
import pytest
import sympy as sp
from markdown_it import MarkdownIt

from limetheory.book import Summary, reader_label, reader_text, summary

d = sp.Symbol("d", positive=True)
# what sympy's Python text looks like: powers, products without spaces, square roots
PYTHON_MATH = re.compile(r"\*\*|[\w)]\*[\w(]|sqrt\(")


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (True, "yes"),
        (np.bool_(False), "no"),
        (19, "19"),
        (99980, "99\N{NARROW NO-BREAK SPACE}980"),
        (-3, "\N{MINUS SIGN}3"),
        (np.int64(37), "37"),
        (0.0, "0"),
        (0.0369458, "0.0369458"),
        (772.0, "772"),
        (-0.0321939, "\N{MINUS SIGN}0.0321939"),
        (5.05324e-05, "5.05324×10⁻⁵"),
        (4.996004e-15, "4.996×10⁻¹⁵"),
        (8.53691e14, "8.53691×10¹⁴"),
        (1e5, "1×10⁵"),
        (99999.99, "1×10⁵"),
        (np.float64(0.5), "0.5"),
        (np.array([[1.5, 2]]), "1.5, 2"),
        (float("inf"), "∞"),
        (-np.inf, "\N{MINUS SIGN}∞"),
        (float("nan"), "–"),
        ((True, 19), "yes, 19"),
        ([0.83, 0.95], "0.83, 0.95"),
        ({"pair": 2.75, "tree": 2.48}, "pair: 2.75; tree: 2.48"),
        ("monte_carlo", "monte_carlo"),
        (sp.Rational(-2, 3), "\N{MINUS SIGN}2/3"),
        (sp.Integer(8), "8"),
    ],
)
def test_reader_text(value, text):
    assert reader_text(value) == text


def test_real_numbers_keep_their_significant_digits():
    rng = np.random.default_rng(0)
    for value in rng.lognormal(0, 12, 500) * rng.choice([-1, 1], 500):
        text = reader_text(value, 4).replace("\N{MINUS SIGN}", "-").replace("\N{NARROW NO-BREAK SPACE}", "")
        mantissa, _, exponent = text.partition("×10")
        exponent = exponent.translate(str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789"))
        number = float(mantissa) * 10.0 ** int(exponent or 0)
        # the value, rounded to 4 significant digits, and written without any digit more
        assert number == pytest.approx(float(f"{value:.3e}"), rel=1e-12), (value, text)


@pytest.mark.parametrize(
    "expr",
    [
        6 * (d**2 - 2 * d + 3) / ((d - 1) * (d + 1)),
        (-8 * sp.sqrt(3) + 9 * sp.sqrt(6)) / 6,
        d ** sp.Rational(3, 2) * sp.exp(-1 / (2 * d**2)),
        sp.Matrix([[d**2, 1], [0, d]]),
    ],
)
def test_sympy_values_are_mathematics_not_python(expr):
    assert not PYTHON_MATH.search(reader_text(expr))
    markdown = summary(("value", expr))._repr_markdown_()
    assert f"${sp.latex(expr)}$" in markdown and not PYTHON_MATH.search(markdown)


def test_the_markdown_form_is_a_table_of_the_rows():
    table = summary(("norm ‖Σ⁻¹‖", 28.7919), ("a | b", (1, 2)), ("limit", (d - 1) / (12 * d)))
    html = MarkdownIt("commonmark").enable("table").render(table._repr_markdown_())
    cells = re.findall(r"<td[^>]*>(.*?)</td>", html)
    assert cells == ["norm ‖Σ⁻¹‖", "28.7919", "a | b", "1, 2", "limit", r"$\frac{d - 1}{12 d}$"]
    assert repr(table).splitlines() == ["norm ‖Σ⁻¹‖: 28.7919", "a | b: 1, 2", "limit: (d − 1)/(12·d)"]


def test_digits():
    assert repr(summary(("x", 2 / 3), digits=3)) == "x: 0.667"
    assert repr(Summary([("x", 2 / 3)])) == "x: 0.666667"


@pytest.mark.parametrize(
    ("call", "error", "pattern"),
    [
        (lambda: summary(), ValueError, "^rows must hold at least one"),
        (lambda: Summary("x"), TypeError, "^rows must be a sequence"),
        (lambda: summary(("x",)), ValueError, "^each row must be a tuple"),
        (lambda: summary(["x", 1]), ValueError, "^each row must be a tuple"),
        (lambda: summary(("", 1)), TypeError, "^a row's label must be a non-empty str"),
        (lambda: summary((3, 1)), TypeError, "^a row's label must be a non-empty str"),
        (lambda: summary(("x", object())), TypeError, "^value must be a bool, a real number"),
        (lambda: summary(("x", 1j)), TypeError, "^value must be a bool, a real number"),
        (lambda: summary(("x", 1), digits=0), ValueError, "^digits must be an integer from 1 to 17"),
        (lambda: summary(("x", 1), digits=2.0), TypeError, "^digits must be an integer from 1 to 17"),
        (lambda: reader_text(None), TypeError, "^value must be a bool"),
        (lambda: reader_text(1.0, digits=True), TypeError, "^digits must be an integer"),
        (lambda: reader_text(list(range(1001))), ValueError, "^value holds more than 1000 items"),
        (lambda: reader_text(np.zeros((40, 40))), ValueError, "^value holds more than 1000 items"),
    ],
)
def test_bad_input(call, error, pattern):
    with pytest.raises(error, match=pattern):
        call()


@pytest.mark.parametrize(
    ("label", "shown"),
    [
        ("||Sigma^-1||_op <= ||Sigma^-1||_F", "‖Σ⁻¹‖ₒₚ ≤ ‖Σ⁻¹‖_F"),
        ("paper 70 d^1.5 e^(5/2nu^2)", "paper 70 d^1.5 e^(5/2ν²)"),
        ("sqrt(n) * max dev", "√(n) · max dev"),
        ("max |Sigma_hat - Sigma|", "max |Σ̂ − Σ|"),
        ("alpha_0, kappa_1(nu), ell / nu^4", "α₀, κ₁(ν), ℓ / ν⁴"),
        ("chi2 p-value, nu = inf", "χ² p-value, ν = ∞"),
        ("E_j, E_jk, c_d, lambda_b", "Eⱼ, Eⱼₖ, c_d, λ_b"),
        # words that merely contain a Greek name stay as they are
        ("number of minutes, beta_boolean, alphabet", "number of minutes, β_boolean, alphabet"),
        ("kernel width", "kernel width"),
        ("M*(n), n * bias", "M⋆(n), n · bias"),
    ],
)
def test_reader_label(label, shown):
    assert reader_label(label) == shown


def test_reader_label_refuses_what_is_not_text():
    with pytest.raises(TypeError, match="^text must be a str"):
        reader_label(25)
