"""limetheory.book.display: symbolic results as rendered math, rounded summaries; and the constant classifier."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

import limetheory as lt
from limetheory.book import Equations, constant_classifier, show_equations, significant

d = sp.Symbol("d", positive=True)


def test_equations_render_as_one_aligned_block_and_print_as_text():
    eq = show_equations((r"\alpha_1", (d - 1) / (2 * d)), ("x", r"\le", 3))
    latex = eq._repr_latex_()
    assert latex == r"$$\begin{aligned}\alpha_1 &= \frac{d - 1}{2 d} \\ x &\le 3\end{aligned}$$"
    assert repr(eq) == "\\alpha_1 = (d - 1)/(2*d)\nx \\le 3"


def test_equations_latex_is_sympy_latex_of_each_side():
    expr = sp.sqrt(d) / (d**2 + 1)
    assert sp.latex(expr) in Equations([("y", expr)])._repr_latex_()


@pytest.mark.parametrize(
    ("rows", "error", "pattern"),
    [
        ("x = 1", TypeError, "^rows must be a sequence"),
        (5, TypeError, "^rows must be a sequence"),
        ([], ValueError, "^rows must hold at least one"),
        ([("x",)], ValueError, "^each row must be a tuple"),
        ([["x", 1]], ValueError, "^each row must be a tuple"),
        ([("x", 1, 2)], TypeError, "^the relation op must be a str"),
        ([("x", object())], TypeError, "^an equation side must be"),
    ],
)
def test_equations_refuse_bad_rows(rows, error, pattern):
    with pytest.raises(error, match=pattern):
        Equations(rows)._repr_latex_()


def test_significant_rounds_to_plain_float():
    assert significant(np.float64(2) / 3) == 0.666667
    assert type(significant(np.float32(1.5))) is float
    assert significant(sp.Rational(1, 3), 3) == 0.333
    assert significant(-123456789, 2) == -1.2e8


@pytest.mark.parametrize(
    ("value", "digits", "error", "pattern"),
    [
        (1.0, 0, ValueError, "^digits must be an integer from 1 to 17"),
        (1.0, 18, ValueError, "^digits must be an integer from 1 to 17"),
        (1.0, 2.0, TypeError, "^digits must be an integer"),
        (1.0, True, TypeError, "^digits must be an integer"),
        ("1", 3, TypeError, "^value must be a real number"),
        (True, 3, TypeError, "^value must be a real number"),
        (None, 3, TypeError, "^value must be a real number"),
    ],
)
def test_significant_refuses_bad_input(value, digits, error, pattern):
    with pytest.raises(error, match=pattern):
        significant(value, digits)


def test_constant_classifier_rows_and_lime_explanation():
    classifier_fn = constant_classifier(0.7)
    out = classifier_fn(["a b", "c", ""])
    assert out.shape == (3, 2)
    assert np.all(out[:, 1] == 0.7) and np.all(out[:, 0] == 1.0 - 0.7)
    # lime explains a constant model by its value: intercept = 0.7, every word coefficient 0 (up to the
    # round-off of a ridge solve on a constant response, far below 1e-12)
    runs = lt.lime_explanations("good food bad service", classifier_fn, n_exp=1, num_samples=200)
    assert runs[0, 0] == pytest.approx(0.7, rel=1e-12)
    assert np.max(np.abs(runs[0, 1:])) < 1e-12


@pytest.mark.parametrize(
    ("probability", "error"), [(-0.1, ValueError), (1.5, ValueError), (float("nan"), ValueError), ("0.5", TypeError)]
)
def test_constant_classifier_refuses_bad_probability(probability, error):
    with pytest.raises(error, match="^probability must be a real number in"):
        constant_classifier(probability)
