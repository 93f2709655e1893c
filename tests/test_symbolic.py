"""limetheory.theory.symbolic: sympy counterparts checked symbolically and against the numerical package."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
import sympy as sp

import limetheory as lt
from limetheory.book import mpreference
from limetheory.theory import symbolic as sy

P_VALUES = [0, 1, 2, 3]


def test_symbols_are_positive():
    for symbol in (sy.d, sy.s, sy.t, sy.nu):
        assert symbol.is_positive


# ----------------------------------------------------------------------------- psi_expr


@pytest.mark.parametrize("t", [0, sp.Rational(1, 7), sp.Rational(1, 2), 1])
@pytest.mark.parametrize("nu", [sp.Rational(1, 4), 1, 3])
def test_psi_expr_matches_mpmath_and_the_numerical_psi(t, nu):
    value = sy.psi_expr(t, nu)
    expected = mpreference.psi(t, nu=nu, dps=40)
    with mpmath.workdps(40):
        assert abs(sp.N(value, 40) - sp.Float(str(expected), 40)) < sp.Float("1e-35")
    assert lt.psi(float(t), nu=float(nu)) == pytest.approx(float(expected), rel=1e-14)


def test_psi_expr_default_symbols_and_limits():
    expr = sy.psi_expr()
    assert expr.free_symbols == {sy.t, sy.nu}
    assert sp.simplify(expr.subs(sy.t, 0)) == 1
    assert sp.limit(expr, sy.nu, sp.oo) == 1
    assert sp.simplify(expr.subs(sy.t, 1) - sp.exp(-1 / (2 * sy.nu**2))) == 0


# ----------------------------------------------------------------------------- P(kept | s)


@pytest.mark.parametrize("p", P_VALUES)
def test_prob_kept_given_s_equals_binomial_ratio_symbolically(p):
    product = sy.prob_kept_given_s(p)
    ratio = sy.prob_kept_given_s_binomial(p)
    assert sp.simplify(sp.combsimp(ratio - product)) == 0
    for s_value in (1, 2, 3, 5):
        assert sp.simplify(sp.expand_func(ratio.subs(sy.s, s_value)) - product.subs(sy.s, s_value)) == 0


@pytest.mark.parametrize("p", P_VALUES)
def test_prob_kept_given_s_numerically(p):
    for d_value in range(1, 9):
        for s_value in range(1, d_value + 1):
            if p > d_value:
                continue
            product = sy.prob_kept_given_s(p, sp.Integer(d_value), sp.Integer(s_value))
            ratio = sy.prob_kept_given_s_binomial(p, sp.Integer(d_value), sp.Integer(s_value))
            counted = sp.Rational(math.comb(d_value - p, s_value), math.comb(d_value, s_value))
            assert product == counted
            assert ratio == counted
            # abs=0: the probability vanishes only through an exactly zero factor, 0.0 on both sides
            assert float(counted) == pytest.approx(lt.prob_kept(p, d_value, s_value), rel=1e-14, abs=0)


def test_prob_kept_given_s_of_zero_words_is_one():
    assert sy.prob_kept_given_s(0) == 1
    assert sp.simplify(sy.prob_kept_given_s_binomial(0)) == 1


# ----------------------------------------------------------------------------- P(kept), large-bandwidth alpha


@pytest.mark.parametrize("p", P_VALUES)
def test_prob_kept_symbolic_closed_form(p):
    assert sp.simplify(sy.prob_kept(p) - (sy.d - p) / ((p + 1) * sy.d)) == 0


@pytest.mark.parametrize("p", P_VALUES)
def test_alpha_large_bandwidth_closed_form(p):
    expr = sy.alpha_large_bandwidth(p)
    assert sp.simplify(expr - (sy.d - p) / ((p + 1) * sy.d)) == 0
    for d_value in (max(p, 1), 4, 9):
        # abs=0: alpha_d = 0 exactly on both sides, the other values are compared relatively
        assert float(expr.subs(sy.d, d_value)) == pytest.approx(lt.alpha(p, d_value, nu=np.inf), rel=1e-14, abs=0)


@pytest.mark.parametrize("p", [0, 1, 2])
def test_prob_kept_for_a_numeric_d(p, brute):
    for d_value in (3, 5):
        counted = brute.kept_probability(p, d_value)
        assert sy.prob_kept(p, sp.Integer(d_value)) == sp.Rational(counted.numerator, counted.denominator)


# ----------------------------------------------------------------------------- alpha_sum


@pytest.mark.parametrize("d_value", [1, 2, 5, 12])
@pytest.mark.parametrize("nu_value", [sp.Rational(1, 10), sp.Rational(1, 4), 2])
def test_alpha_sum_with_numeric_psi_equals_alpha(d_value, nu_value):
    for p in range(min(3, d_value) + 1):
        expr = sy.alpha_sum(p, sp.Integer(d_value), weight=lambda t, nu_value=nu_value: sy.psi_expr(t, nu_value))
        value = float(sp.N(expr.doit(), 30))
        assert value == pytest.approx(lt.alpha(p, d_value, nu=float(nu_value)), rel=1e-13, abs=1e-300)


def test_alpha_sum_default_keeps_psi_undefined_and_can_be_substituted():
    expr = sy.alpha_sum(2)
    assert expr.has(sp.Sum)
    assert expr.has(sy.psi_function)
    nu_value = sp.Rational(1, 3)
    concrete = expr.subs(sy.d, 6).replace(sy.psi_function, sp.Lambda(sy.t, sy.psi_expr(sy.t, nu_value)))
    assert float(sp.N(concrete.doit(), 30)) == pytest.approx(lt.alpha(2, 6, nu=1 / 3), rel=1e-13)


@pytest.mark.parametrize(
    "function",
    [sy.prob_kept_given_s, sy.prob_kept_given_s_binomial, sy.prob_kept, sy.alpha_sum, sy.alpha_large_bandwidth],
)
def test_p_is_validated(function):
    with pytest.raises(ValueError, match="^p must be >= 0"):
        function(-1)
    with pytest.raises(TypeError, match="^p must be an integer"):
        function(1.0)
    with pytest.raises(TypeError, match="^p must be an integer"):
        function(sy.d)
