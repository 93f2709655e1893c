"""limetheory.theory.coefficients against enumeration of LIME's law and the paper's printed formulas in mpmath
(limetheory.book.mpreference)."""

from __future__ import annotations

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import limetheory as lt
from limetheory.book import mpreference
from limetheory.theory.coefficients import (
    alpha,
    alphas,
    normalization_constant,
    sigma_coefficients,
    sigma_inverse,
    sigma_matrix,
)

EPS = np.finfo(float).eps
GRID_D = [2, 3, 10, 50]
GRID_NU = [0.1, 0.25, 1.0, np.inf]
small_d = st.integers(min_value=2, max_value=7)
moderate_nu = st.one_of(st.floats(min_value=0.3, max_value=20.0), st.just(np.inf))


# ----------------------------------------------------------------------------- alpha, alphas


@pytest.mark.parametrize("d", range(1, 8))
@pytest.mark.parametrize("nu", [0.2, 0.25, 1.0, np.inf])
def test_alpha_matches_enumeration(d, nu, brute):
    for p in range(d + 1):
        got = alpha(p, d, nu=nu)
        assert isinstance(got, float)
        assert got == pytest.approx(brute.alpha(p, d, nu), rel=1e-13, abs=1e-300)


@pytest.mark.parametrize("d", GRID_D)
@pytest.mark.parametrize("nu", GRID_NU)
def test_alpha_and_alphas_match_mpmath(d, nu):
    p_max = min(3, d)
    expected = [float(a) for a in mpreference.alphas(d, nu=nu, p_max=p_max, dps=50)]
    for p in range(p_max + 1):
        assert alpha(p, d, nu=nu) == pytest.approx(expected[p], rel=1e-13, abs=1e-300)
    out = alphas(d, nu=nu, p_max=p_max)
    assert out.shape == (p_max + 1,)
    np.testing.assert_allclose(out, expected[: p_max + 1], rtol=1e-13)
    np.testing.assert_allclose(alphas(d, nu=nu), expected[:3], rtol=1e-13)  # default p_max = 2


@pytest.mark.parametrize("d", [1, 2, 7, 40])
def test_alpha_large_bandwidth_limit(d):
    # Corollary: lim_{nu -> inf} alpha_p = (d - p) / ((p + 1) d)
    # abs=0: the only vanishing value, alpha_d (no mask keeps all d words), is exactly 0.0 on both sides
    for p in range(d + 1):
        assert alpha(p, d, nu=np.inf) == pytest.approx((d - p) / ((p + 1) * d), rel=1e-14, abs=0)
        assert alpha(p, d, nu=1e8) == pytest.approx((d - p) / ((p + 1) * d), rel=1e-12, abs=0)


@settings(max_examples=30, deadline=None)
@given(d=st.integers(1, 7), nu=st.one_of(st.floats(0.05, 50.0), st.just(np.inf)), data=st.data())
def test_alpha_property_enumeration_and_bounds(d, nu, data, brute):
    p = data.draw(st.integers(0, d))
    got = alpha(p, d, nu=nu)
    assert got == pytest.approx(brute.alpha(p, d, nu), rel=1e-12, abs=1e-300)
    # Corollary (alphas bounds): exp(-1/(2nu^2)) (d-p)/((p+1)d) <= alpha_p <= (d-p)/((p+1)d)
    limit = (d - p) / ((p + 1) * d)
    floor = 1.0 if np.isinf(nu) else np.exp(-1 / (2 * nu**2))
    assert floor * limit * (1 - 1e-12) <= got <= limit * (1 + 1e-12)


def test_alpha_is_decreasing_in_p():
    for nu in GRID_NU:
        values = alphas(12, nu=nu, p_max=12)
        assert np.all(np.diff(values) < 0)
        assert values[-1] == 0.0  # alpha_d: every word kept never happens


@pytest.mark.parametrize(
    ("call", "error", "pattern"),
    [
        (lambda: alpha(3, 2, nu=0.25), ValueError, "^p must be <= 2"),
        (lambda: alpha(-1, 2, nu=0.25), ValueError, "^p must be >= 0"),
        (lambda: alpha(0, 0, nu=0.25), ValueError, "^d must be >= 1"),
        (lambda: alpha(1.0, 2, nu=0.25), TypeError, "^p must be an integer"),
        (lambda: alpha(1, 2.0, nu=0.25), TypeError, "^d must be an integer"),
        (lambda: alpha(1, 2, nu=0), ValueError, "^nu must be > 0"),
        (lambda: alpha(1, 2, nu=-0.5), ValueError, "^nu must be > 0"),
        (lambda: alpha(1, 2, nu=np.nan), ValueError, "^nu must be > 0"),
        (lambda: alpha(1, 2, nu="wide"), TypeError, "^nu must be"),
        (lambda: alphas(2, nu=0.25, p_max=3), ValueError, "^p_max must be <= 2"),
        (lambda: alphas(2, nu=0.25, p_max=-1), ValueError, "^p_max must be >= 0"),
        (lambda: alphas(0, nu=0.25), ValueError, "^d must be >= 1"),
        (lambda: alphas(3, nu=0.25, p_max=1.5), TypeError, "^p_max must be an integer"),
        (lambda: alphas(3, nu=np.nan), ValueError, "^nu must be > 0"),
        (lambda: alphas(3, nu=0), ValueError, "^nu must be > 0"),
    ],
)
def test_alpha_errors(call, error, pattern):
    with pytest.raises(error, match=pattern):
        call()


# ----------------------------------------------------------------------------- c_d and the sigmas


@pytest.mark.parametrize("d", GRID_D)
@pytest.mark.parametrize("nu", GRID_NU)
def test_normalization_constant_matches_printed_formula(d, nu):
    expected = mpreference.closed_forms(d, nu=nu)["c"]
    got = normalization_constant(d, nu=nu)
    assert isinstance(got, float)
    assert expected > 0
    assert got == pytest.approx(float(expected), rel=1e-10)


@pytest.mark.parametrize("d", [2, 3, 10, 50, 500])
def test_normalization_constant_large_bandwidth(d):
    # at psi = 1: c_d = alpha_0 alpha_2 (d - 1) - d alpha_1^2 + alpha_0 alpha_1 = (d^2 - 1) / (12 d)
    assert normalization_constant(d, nu=np.inf) == pytest.approx((d * d - 1) / (12 * d), rel=1e-13)


@pytest.mark.parametrize("d", GRID_D)
@pytest.mark.parametrize("nu", GRID_NU)
def test_sigma_coefficients_match_printed_definitions(d, nu):
    expected = mpreference.closed_forms(d, nu=nu)["sigma"]
    got = sigma_coefficients(d, nu=nu)
    assert isinstance(got, tuple) and len(got) == 4
    assert all(isinstance(value, float) for value in got)
    for value, reference in zip(got, expected, strict=True):
        assert value == pytest.approx(float(reference), rel=1e-9)


@pytest.mark.parametrize("d", [2, 5, 30])
def test_sigma_over_c_large_bandwidth_limits(d):
    # supplementary material, large-bandwidth Sigma^{-1}: the four ratios sigma_i / c_d
    s0, s1, s2, s3 = sigma_coefficients(d, nu=np.inf)
    c_d = normalization_constant(d, nu=np.inf)
    assert s0 / c_d == pytest.approx(2 * (2 * d - 1) / (d + 1), rel=1e-12)
    assert s1 / c_d == pytest.approx(-6 / (d + 1), rel=1e-12)
    assert s2 / c_d == pytest.approx(6 * (d * d - 2 * d + 3) / ((d + 1) * (d - 1)), rel=1e-12)
    assert s3 / c_d == pytest.approx(-6 * (d - 3) / ((d + 1) * (d - 1)), rel=1e-12, abs=1e-14)


@pytest.mark.parametrize("function", [normalization_constant, sigma_coefficients, sigma_inverse])
def test_d_equal_one_is_singular_and_refused(function):
    with pytest.raises(ValueError, match="^d must be >= 2"):
        function(1, nu=0.25)
    with pytest.raises(ValueError, match="^d must be >= 2"):
        function(0, nu=0.25)
    with pytest.raises(TypeError, match="^d must be an integer"):
        function(2.0, nu=0.25)


@pytest.mark.parametrize("function", [normalization_constant, sigma_coefficients, sigma_matrix, sigma_inverse])
@pytest.mark.parametrize("nu", [0, -1.0, np.nan, -np.inf])
def test_nu_errors(function, nu):
    with pytest.raises(ValueError, match="^nu must be > 0"):
        function(3, nu=nu)


@pytest.mark.parametrize("function", [normalization_constant, sigma_coefficients, sigma_matrix, sigma_inverse])
def test_nu_type_errors(function):
    with pytest.raises(TypeError, match="^nu must be"):
        function(3, nu=None)
    with pytest.raises(TypeError, match="^nu must be"):
        function(3, nu=True)


# ----------------------------------------------------------------------------- Sigma and its inverse


@pytest.mark.parametrize("d", range(1, 8))
@pytest.mark.parametrize("nu", [0.25, 1.0, np.inf])
def test_sigma_matrix_matches_enumeration(d, nu, brute):
    expected, _ = brute.sigma_gamma(lambda mask: 0.0, d, nu)
    got = sigma_matrix(d, nu=nu)
    assert got.shape == (d + 1, d + 1)
    # atol=0: an entry vanishes only when no mask keeps its words (alpha_p, p = d), exactly 0.0 on both sides
    np.testing.assert_allclose(got, expected, rtol=1e-13, atol=0)


def test_sigma_matrix_d_equal_one_is_singular():
    sigma = sigma_matrix(1, nu=0.25)
    assert sigma.shape == (2, 2)
    np.testing.assert_allclose(sigma, [[np.exp(-1 / (2 * 0.25**2)), 0.0], [0.0, 0.0]], rtol=1e-14)
    assert np.linalg.det(sigma) == 0.0


def test_sigma_matrix_errors():
    with pytest.raises(ValueError, match="^d must be >= 1"):
        sigma_matrix(0, nu=0.25)
    with pytest.raises(TypeError, match="^d must be an integer"):
        sigma_matrix("3", nu=0.25)


@pytest.mark.parametrize("d", [2, 3, 10])
@pytest.mark.parametrize("nu", GRID_NU)
def test_sigma_inverse_matches_a_high_precision_inverse(d, nu):
    # invert the printed Sigma (alpha_0 corner, alpha_1 edge and diagonal, alpha_2 elsewhere) at 50 digits;
    # this covers the ill-conditioned d = 2, nu = 0.1 (cond ~ 1e16) where numpy's inverse is meaningless
    sigma = mpreference.sigma_matrix(d, nu=nu, dps=50)
    with mpmath.workdps(50):
        inverse = sigma**-1
        expected = np.array([[float(inverse[i, j]) for j in range(d + 1)] for i in range(d + 1)])
    got = sigma_inverse(d, nu=nu)
    assert got.shape == (d + 1, d + 1)
    np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-9 * np.abs(expected).max())


@pytest.mark.parametrize(("d", "nu"), [(d, nu) for d in GRID_D for nu in GRID_NU if (d, nu) != (2, 0.1)])
def test_sigma_inverse_matches_numpy_inv(d, nu):
    sigma = sigma_matrix(d, nu=nu)
    expected = np.linalg.inv(sigma)
    # numpy's LU inverse is backward stable: its error is a small multiple of cond(Sigma) * eps
    tolerance = 8 * EPS * np.linalg.cond(sigma)
    np.testing.assert_allclose(sigma_inverse(d, nu=nu), expected, rtol=0, atol=tolerance * np.abs(expected).max())


@settings(max_examples=30, deadline=None)
@given(d=st.integers(2, 40), nu=moderate_nu)
def test_sigma_times_inverse_is_identity(d, nu):
    sigma, inverse = sigma_matrix(d, nu=nu), sigma_inverse(d, nu=nu)
    tolerance = 1e-13 * np.linalg.cond(sigma)
    np.testing.assert_allclose(sigma @ inverse, np.eye(d + 1), atol=tolerance)
    np.testing.assert_allclose(inverse @ sigma, np.eye(d + 1), atol=tolerance)
    np.testing.assert_allclose(inverse, inverse.T, rtol=0, atol=0)


@settings(max_examples=30, deadline=None)
@given(d=small_d, nu=moderate_nu)
def test_sigma_inverse_inverts_the_enumerated_sigma(d, nu, brute):
    sigma, _ = brute.sigma_gamma(lambda mask: 0.0, d, nu)
    np.testing.assert_allclose(sigma_inverse(d, nu=nu) @ sigma, np.eye(d + 1), atol=1e-12 * np.linalg.cond(sigma))


@settings(max_examples=30, deadline=None)
@given(d=st.integers(2, 60), nu=st.one_of(st.floats(0.05, 100.0), st.just(np.inf)))
def test_c_d_is_the_determinant_factor(d, nu):
    # det Sigma = c_d (alpha_1 - alpha_2)^(d - 1): the supplementary material's determinant computation
    a0, a1, a2 = alphas(d, nu=nu)
    c_d = normalization_constant(d, nu=nu)
    assert c_d > 0
    sign, logdet = np.linalg.slogdet(sigma_matrix(d, nu=nu))
    gap = a1 - a2
    if gap > 1e-6 and c_d > 1e-12:
        assert sign == 1
        assert logdet == pytest.approx(np.log(c_d) + (d - 1) * np.log(gap), abs=1e-7 * max(1, abs(logdet)))


def test_public_names_are_reexported():
    assert lt.alpha is alpha and lt.alphas is alphas
    assert lt.normalization_constant is normalization_constant
    assert lt.sigma_coefficients is sigma_coefficients
    assert lt.sigma_matrix is sigma_matrix and lt.sigma_inverse is sigma_inverse


def test_values_beyond_the_double_range_are_zero_or_inf_with_a_warning():
    # d = 3, nu = 0.01: c_3 = exp(-1.1e3) is below the smallest double and ||Sigma^{-1}|| above the largest;
    # they come back as the nearest doubles (0.0, inf) with a RuntimeWarning, and exactly through log=True
    with pytest.warns(RuntimeWarning, match=r"c_d = exp\(-1\d{3}\.\d+\) is outside the double-precision range"):
        assert lt.normalization_constant(3, nu=0.01) == 0.0
    assert -1200 < lt.normalization_constant(3, nu=0.01, log=True) < -1000
    with pytest.warns(RuntimeWarning, match="outside the double-precision range"):
        assert lt.sigma_inverse_opnorm(3, nu=0.01) == np.inf
    with pytest.warns(RuntimeWarning, match="outside the double-precision range"):
        small, large, bulk = lt.sigma_eigenvalues(3, nu=0.01)
    assert small == 0.0 and 0 < bulk < large
    with pytest.warns(RuntimeWarning, match="Sigma\\^\\{-1\\} entries"):
        inverse = lt.sigma_inverse(3, nu=0.01)
    assert np.isinf(inverse).all()
    assert np.sign(inverse[0, 1]) == -1 and np.sign(inverse[0, 0]) == 1
    # sigma_i are of the order of alpha_0 = exp(-168): representable, and positive where they should be
    s0, s1, s2, s3 = lt.sigma_coefficients(3, nu=0.01)
    assert s0 > 0 > s1 and s2 > 0


@pytest.mark.parametrize("nu", [0.005, 0.006])
def test_alpha_underflows_to_zero_with_a_warning_and_log_is_exact(nu):
    d = 2
    # alpha_0 at d = 2 is (psi(1/2) + psi(1)) / 2; psi(1/2) = exp(-(1 - sqrt(1/2))^2 / (2 nu^2))
    exponent = -((1 - np.sqrt(0.5)) ** 2) / (2 * nu**2)
    with pytest.warns(RuntimeWarning, match="alpha_0"):
        assert alpha(0, d, nu=nu) == 0.0
    assert alpha(0, d, nu=nu, log=True) == pytest.approx(exponent + np.log(0.5), rel=1e-14)
    logs = alphas(d, nu=nu, p_max=2, log=True)
    assert logs[2] == -np.inf  # alpha_d = 0 exactly: no warning for an exact zero
    assert logs[1] == pytest.approx(exponent + np.log(0.25), rel=1e-14)


def test_exact_zero_alpha_d_gives_no_warning():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert alpha(4, 4, nu=0.25) == 0.0
        assert alphas(4, nu=0.25, p_max=4)[-1] == 0.0


@pytest.mark.parametrize("function", [alpha, alphas, normalization_constant])
def test_log_flag_must_be_boolean(function):
    args = (0, 3) if function is alpha else (3,)
    with pytest.raises(TypeError, match="^log must be True or False"):
        function(*args, nu=0.25, log="yes")
