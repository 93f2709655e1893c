"""The size mixture (limetheory.theory.sizemixture): weights over subset sizes as mixtures of independent keeps.

References are independent of the module: sympy's exact integrals and hypergeometric sums for the identity
A P_k = c_k Q_k it rests on, and scipy's binomial probabilities with a Gauss rule exact for the polynomials
involved for the fitted sequences.
"""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp
from formula_checks import log_choose

from limetheory.theory.law import gap_sq, kept_size_weights, weighted_law
from limetheory.theory.sizemixture import fit_size_weights, gauss_legendre_unit, hahn_values


def _hahn_exact(k, m, d):
    """Q_k(m; 0, 0, d) = 3F2(-k, k + 1, -m; 1, -d; 1), a terminating sum, in exact rationals."""
    return sum(
        sp.rf(-k, j) * sp.rf(k + 1, j) * sp.rf(-m, j) / (sp.rf(1, j) * sp.rf(-d, j) * sp.factorial(j))
        for j in range(k + 1)
    )


def test_hahn_values_match_the_hypergeometric_sum():
    d, degree = 12, 7
    got = hahn_values(np.arange(d + 1), d, degree)
    expected = np.array([[float(_hahn_exact(k, m, d)) for m in range(d + 1)] for k in range(degree + 1)])
    # the recurrence adds a few roundings per degree to values bounded by 1
    np.testing.assert_allclose(got, expected, rtol=0, atol=50 * np.finfo(float).eps)


@pytest.mark.parametrize("k", range(5))
def test_binomial_mixture_of_a_legendre_polynomial_is_a_hahn_polynomial(k):
    """The identity the module rests on, in exact arithmetic: int b(m; d, p) P_k(2p - 1) dp = c_k Q_k(m)."""
    p = sp.symbols("p")
    d = 9
    c_k = sp.Integer(-1) ** k / (d + 1) * sp.prod([sp.Rational(d - i, d + 2 + i) for i in range(k)])
    legendre = sp.legendre(k, 2 * p - 1)
    for m in range(d + 1):
        integral = sp.integrate(sp.binomial(d, m) * p**m * (1 - p) ** (d - m) * legendre, (p, 0, 1))
        assert integral == c_k * _hahn_exact(k, m, d)


def _binomial_probabilities(d, p):
    """b(m; d, p) for m = 0..d (rows) and the points p (columns), from logarithms summed in extended precision.

    scipy's binomial pmf loses up to 1e-10 of its relative accuracy at m = 0 and m = d for p near 0 and 1.
    """
    m = np.arange(d + 1, dtype=np.longdouble)
    p = np.asarray(p, dtype=np.longdouble)
    logs = log_choose(d)[:, None] + m[:, None] * np.log(p)[None, :] + (d - m)[:, None] * np.log1p(-p)[None, :]
    return np.exp(logs).astype(float)


def _mixture_of_binomials(mixture, d):
    """(A g)_m = int_0^1 b(m; d, p) g(p) dp with a Gauss rule exact for its polynomial integrand."""
    p, _, v = gauss_legendre_unit((d + mixture.degree) // 2 + 1)
    return _binomial_probabilities(d, p) @ (v * mixture.density(p))


def test_a_polynomial_weight_is_fitted_exactly():
    d = 200
    m = np.arange(d + 1)
    weights = 1.0 + 0.5 * (m / d) - 2.0 * (m / d) ** 3
    mixture = fit_size_weights(weights, start=0)
    assert mixture.degree == 8 and mixture.residual < 1e-14
    # the density reproduces the weights through the binomial probabilities (an independent computation)
    np.testing.assert_allclose(_mixture_of_binomials(mixture, d), weights, rtol=0, atol=1e-13)


@pytest.mark.parametrize("nu", [0.25, 1.0, np.inf])
def test_lime_weights_are_a_mixture_above_the_small_sizes(nu):
    """LIME's weights over kept sizes: fitted within 3e-14 from size 64 on, the remainder left below."""
    d = 2000
    law = weighted_law(d, nu)
    weights = kept_size_weights(d, 1, nu) / law.total
    mixture = fit_size_weights(weights, start=64)
    assert mixture is not None and mixture.amplification < 1e3
    reproduced = _mixture_of_binomials(mixture, d)
    scale = np.abs(weights).max()
    np.testing.assert_allclose(reproduced[64:], weights[64:], rtol=0, atol=1e-12 * scale)
    np.testing.assert_allclose(reproduced, mixture.fitted, rtol=0, atol=1e-12 * scale)


def test_weights_on_a_few_sizes_are_refused():
    """A spike (a tiny bandwidth puts all the weight on a few sizes) is no low-degree mixture: None, not a guess."""
    weights = np.zeros(3001)
    weights[-3:] = 1.0
    assert fit_size_weights(weights, start=64) is None
    assert fit_size_weights(np.full(101, np.inf), start=0) is None


def test_gap_sq_extends_below_its_first_size():
    """gap_sq(d, first, nu, start=0) is the same formula continued to s < first, checked against mpmath."""
    import mpmath

    d, first, nu = 50, 2, 0.3
    extended = gap_sq(d, first, nu, start=0)
    np.testing.assert_array_equal(extended[first:], gap_sq(d, first, nu))
    with mpmath.workdps(40):
        g = [1 - mpmath.sqrt(1 - mpmath.mpf(s) / d) for s in range(d + 1)]
        expected = [float((g[s] ** 2 - g[first] ** 2) / (2 * mpmath.mpf(nu) ** 2)) for s in range(d + 1)]
    np.testing.assert_allclose(extended, expected, rtol=4 * np.finfo(float).eps, atol=1e-300)


def test_gauss_rule_is_exact_for_its_degree_and_read_only():
    p, one_minus_p, v = gauss_legendre_unit(20)
    eps = np.finfo(float).eps
    assert abs(v @ p**39 * 40 - 1) < 40 * eps  # a sum of 20 terms, p**39 adding 39 roundings to each
    # each rounded once from the same extended-precision node: their sum is 1 within one ulp of 1 (1 - p in
    # double would lose the relative accuracy of the nodes near p = 1, which is why the rule carries both)
    assert np.abs(p + one_minus_p - 1).max() <= eps
    with pytest.raises(ValueError):
        p[0] = 0.0
