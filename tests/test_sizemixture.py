"""The size mixture (limetheory.theory.linear.sizemixture): weights over subset sizes as mixtures of independent keeps.

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
from limetheory.theory.linear.sizemixture import fit_size_weights, gauss_legendre_unit, hahn_values


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


def _integral_over_unit(polynomial, p):
    """int_0^1 polynomial dp in exact rationals: sympy's antiderivative of the polynomial's coefficients, taken at 1
    and 0 (the integrals sympy.integrate finds, measured equal at every k and m below, in a tenth of its time)."""
    antiderivative = sp.Poly(polynomial, p).integrate()
    return antiderivative.eval(1) - antiderivative.eval(0)


@pytest.mark.parametrize("k", range(5))
def test_binomial_mixture_of_a_legendre_polynomial_is_a_hahn_polynomial(k):
    """The identity the module rests on, in exact arithmetic: int b(m; d, p) P_k(2p - 1) dp = c_k Q_k(m)."""
    p = sp.symbols("p")
    d = 9
    c_k = sp.Integer(-1) ** k / (d + 1) * sp.prod([sp.Rational(d - i, d + 2 + i) for i in range(k)])
    legendre = sp.legendre(k, 2 * p - 1)
    for m in range(d + 1):
        integral = _integral_over_unit(sp.binomial(d, m) * p**m * (1 - p) ** (d - m) * legendre, p)
        assert integral == c_k * _hahn_exact(k, m, d)


def test_binomial_moment_of_a_power():
    """int b(m; d, p) p^j dp = (m + 1)_j / ((d + 1)(d + 2)_j): sympy's integrals at small d; symbolically from Euler's
    beta integral."""
    p = sp.symbols("p")
    for d in range(4):
        for m in range(d + 1):
            for j in range(3):
                integral = _integral_over_unit(sp.binomial(d, m) * p ** (m + j) * (1 - p) ** (d - m), p)
                assert integral == sp.rf(m + 1, j) / ((d + 1) * sp.rf(d + 2, j))
    m, j, d = sp.symbols("m j d", nonnegative=True, integer=True)
    euler = sp.binomial(d, m) * sp.gamma(m + j + 1) * sp.gamma(d - m + 1) / sp.gamma(d + j + 2)
    claim = sp.rf(m + 1, j) / ((d + 1) * sp.rf(d + 2, j))
    assert sp.gammasimp((euler / claim).rewrite(sp.gamma)) == 1


def test_eigenvalue_for_symbolic_k_and_d():
    """c_k = (A P_k)_0 = (-1)^k 2F1(-k, k + 1; d + 2; 1) / (d + 1), Gauss's sum, for symbolic k <= d."""
    k, e = sp.symbols("k e", nonnegative=True, integer=True)
    d = k + e  # k <= d
    claim = (-1) ** k / (d + 1) * sp.rf(d + 1 - k, k) / sp.rf(d + 2, k)
    gauss = (-1) ** k / (d + 1) * sp.hyperexpand(sp.hyper([-k, k + 1], [d + 2], 1))
    assert sp.simplify(sp.gammasimp((gauss / claim).rewrite(sp.gamma))) == 1


def _image(k, m, d):
    """(A P_k)_m from the binomial moments of the powers of P_k(2p - 1)."""
    p = sp.symbols("p")
    legendre = sp.Poly(sp.legendre(k, 2 * p - 1), p)
    return sum(c * sp.rf(m + 1, j) / ((d + 1) * sp.rf(d + 2, j)) for (j,), c in legendre.terms())


def _c(k, d):
    return sp.Integer(-1) ** k / (d + 1) * sp.prod([(d - i) / (d + 2 + i) for i in range(k)])


@pytest.mark.parametrize("k", range(6))
def test_hahn_identity_for_symbolic_d(k):
    """A P_k = c_k Q_k as rational functions of a symbolic size m and a symbolic d."""
    m, d = sp.symbols("m d", positive=True, integer=True)
    assert sp.cancel(sp.together(_image(k, m, d) - _c(k, d) * _hahn_exact(k, m, d))) == 0


def test_images_of_legendre_polynomials_are_orthogonal_with_norms_c_k():
    """sum_m (A P_k)_m (A P_l)_m = [k = l] |c_k| / (2k + 1), for a symbolic d (Faulhaber's sums)."""
    m, d = sp.symbols("m d", positive=True, integer=True)
    top = 3
    images = [sp.Poly(sp.expand_func(_image(k, m, d)), m) for k in range(top + 1)]
    power_sums = [sp.summation(m**i, (m, 0, d)) for i in range(2 * top + 1)]
    for k in range(top + 1):
        for other in range(k + 1):
            gram = sum(c * power_sums[i] for (i,), c in (images[k] * images[other]).terms())
            claim = (-1) ** k * _c(k, d) / (2 * k + 1) if k == other else 0
            assert sp.cancel(sp.together(gram - claim)) == 0, (k, other)


@pytest.mark.parametrize("d", [1000, 3000])
def test_amplification_is_below_its_bound_and_bounds_the_density(d):
    """1/((d + 1)|c_r|) <= exp(r(r + 1)/(d - r + 1)), and ||g||_2 <= sqrt((d + 1) amplification) ||A g||_2."""
    weights = kept_size_weights(d, 1, 1.0) / weighted_law(d, 1.0).total
    mixture = fit_size_weights(weights, start=64)
    r = mixture.degree
    assert r > 0 and mixture.amplification <= np.exp(r * (r + 1) / (d - r + 1))
    g_norm = np.sqrt(np.sum(mixture.legendre**2 / (2 * np.arange(r + 1) + 1)))
    assert g_norm <= np.sqrt((d + 1) * mixture.amplification) * np.linalg.norm(mixture.fitted) * (1 + 1e-12)


def test_constant_weights_take_degree_zero():
    """LIME's weights at nu = inf are constant over the sizes: degree 0, no coefficient left at rounding level."""
    d = 2000
    weights = kept_size_weights(d, 1, np.inf) / weighted_law(d, np.inf).total
    mixture = fit_size_weights(weights, start=64)
    assert mixture.degree == 0 and mixture.amplification == 1.0
    assert mixture.legendre[0] == pytest.approx((d + 1) * weights[0], rel=1e-14)


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
    assert mixture.degree == 4 and mixture.residual < 1e-14  # the first degree of DEGREES >= 3
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
