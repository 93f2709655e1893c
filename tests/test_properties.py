"""Property-based tests (hypothesis) over random numbers of words d, bandwidths nu and models.

Bandwidths are drawn down to 0.005 (where the weights span thousands of orders of magnitude) and include
np.inf.  Example counts are kept small so that the file runs in a few seconds.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import limetheory as lt

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
any_nu = st.one_of(st.floats(min_value=0.005, max_value=1e3), st.just(math.inf))
small_d = st.integers(min_value=2, max_value=7)
# coefficients of a linear combination: 0, or at least 1e-100 in size, because a product a * beta with |a| near the
# double range's bottom (hypothesis found 2.2e-313) is subnormal and carries fewer than 53 bits (about 33 at 1e-313):
# linearity then holds to those bits only, not to the 1e-10 relative tolerance
coefficient = st.floats(min_value=-10, max_value=10, allow_nan=False, allow_subnormal=False).filter(
    lambda value: value == 0 or abs(value) >= 1e-100  # tol: not a tolerance, the smallest coefficient drawn
)


@pytest.fixture(autouse=True)
def _quiet_range_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        yield


def table_model(values):
    values = np.asarray(values, dtype=float)
    return lambda z: values[np.asarray(z) @ (1 << np.arange(z.shape[1]))]


def conditional_moments(f, d):
    """E[f | s] and E[z_j f | s] by enumerating every mask (plain numpy, no package code)."""
    codes = np.arange(2**d - 1)
    z = (codes[:, None] >> np.arange(d)) & 1
    s = d - z.sum(axis=1)
    y = f(z)
    f_given_s = np.array([y[s == k].mean() for k in range(1, d + 1)])
    zf = np.array([(z[s == k] * y[s == k, None]).mean(axis=0) for k in range(1, d + 1)])
    return f_given_s, zf


@SETTINGS
@given(d=st.integers(2, 40), nu=any_nu)
def test_sigma_times_its_inverse_is_the_identity(d, nu):
    # an entrywise error e in Sigma^{-1} leaves Sigma Sigma^{-1} - I of size ||Sigma|| e: the check is meaningful
    # where cond(Sigma) * 1e-16 is small, and Sigma^{-1} must then be exact to that level
    small, large, bulk = lt.sigma_eigenvalues(d, nu=nu, log=True)
    log_condition = large - min(small, bulk)
    assume(log_condition < math.log(1e10))
    sigma, inverse = lt.sigma_matrix(d, nu=nu), lt.sigma_inverse(d, nu=nu)
    tolerance = 1e-14 * math.exp(log_condition) * d
    np.testing.assert_allclose(sigma @ inverse, np.eye(d + 1), atol=tolerance)
    np.testing.assert_allclose(inverse @ sigma, np.eye(d + 1), atol=tolerance)
    np.testing.assert_array_equal(inverse, inverse.T)


@SETTINGS
@given(d=st.integers(2, 10_000), nu=any_nu, c=coefficient)
def test_beta_of_a_constant_is_exactly_c_e0(d, nu, c):
    expected = np.zeros(d + 1)
    expected[0] = 1.0
    np.testing.assert_array_equal(lt.beta_indicator_product((), d, nu=nu), expected)
    kept = (d - np.arange(1, d + 1)) / d
    if d <= 500:  # the conditional moments of f = c: E[f | s] = c, E[z_j f | s] = c (1 - s/d)
        beta = lt.beta_from_conditional_moments(np.full(d, c), np.outer(kept, np.full(d, c)), nu=nu)
        np.testing.assert_array_equal(beta, c * expected)
    if d <= 8:
        np.testing.assert_array_equal(lt.beta_enumerate(lambda z: np.full(len(z), c), d, nu=nu), c * expected)


@SETTINGS
@given(d=st.integers(2, 10_000), nu=any_nu, data=st.data())
def test_beta_of_one_word_indicator_is_e_j(d, nu, data):
    j = data.draw(st.integers(0, d - 1))
    expected = np.zeros(d + 1)
    expected[1 + j] = 1.0
    np.testing.assert_allclose(lt.beta_indicator_product((j,), d, nu=nu), expected, rtol=0, atol=1e-12)
    if d <= 8:
        np.testing.assert_allclose(lt.beta_enumerate(lambda z: z[:, j], d, nu=nu), expected, rtol=0, atol=1e-12)


@SETTINGS
@given(d=small_d, nu=any_nu, a=coefficient, b=coefficient, seed=st.integers(0, 2**32 - 1))
def test_beta_is_linear_in_f(d, nu, a, b, seed):
    rng = np.random.default_rng(seed)
    f, g = table_model(rng.normal(size=2**d)), table_model(rng.normal(size=2**d))
    combined = lt.beta_enumerate(lambda z: a * f(z) + b * g(z), d, nu=nu)
    beta_f, beta_g = lt.beta_enumerate(f, d, nu=nu), lt.beta_enumerate(g, d, nu=nu)
    scale = (abs(a) * np.abs(beta_f).max() + abs(b) * np.abs(beta_g).max()) or 1.0
    np.testing.assert_allclose(combined, a * beta_f + b * beta_g, rtol=0, atol=1e-10 * scale)


@SETTINGS
@given(d=small_d, nu=any_nu, seed=st.integers(0, 2**32 - 1))
def test_conditional_moments_route_equals_enumeration(d, nu, seed):
    f = table_model(np.random.default_rng(seed).normal(size=2**d))
    enumerated = lt.beta_enumerate(f, d, nu=nu)
    closed = lt.beta_from_conditional_moments(*conditional_moments(f, d), nu=nu)
    np.testing.assert_allclose(closed, enumerated, rtol=0, atol=1e-10 * max(1.0, np.abs(enumerated).max()))


@SETTINGS
@given(d=st.integers(2, 8), nu=any_nu, data=st.data())
def test_indicator_product_closed_form_equals_enumeration(d, nu, data):
    J = tuple(data.draw(st.sets(st.integers(0, d - 1), max_size=d)))
    closed = lt.beta_indicator_product(J, d, nu=nu)
    enumerated = lt.beta_enumerate(lambda z: np.prod(z[:, list(J)], axis=1) if J else np.ones(len(z)), d, nu=nu)
    np.testing.assert_allclose(closed, enumerated, rtol=0, atol=1e-10 * max(1.0, np.abs(enumerated).max()))


@SETTINGS
@given(d=small_d, nu=st.one_of(st.floats(0.2, 1e3), st.just(math.inf)), seed=st.integers(0, 2**32 - 1))
def test_gamma_route_equals_enumeration_where_sigma_is_well_conditioned(d, nu, seed):
    small, large, bulk = lt.sigma_eigenvalues(d, nu=nu, log=True)
    condition = math.exp(large - min(small, bulk))
    f = table_model(np.random.default_rng(seed).normal(size=2**d))
    codes = np.arange(2**d - 1)
    z = (codes[:, None] >> np.arange(d)) & 1
    s = d - z.sum(axis=1)
    weights = lt.kernel_weights(d, nu=nu)[s - 1] / (d * np.array([math.comb(d, k) for k in s]))
    design = np.column_stack([np.ones(len(z)), z])
    gamma = design.T @ (weights * f(z))
    enumerated = lt.beta_enumerate(f, d, nu=nu)
    closed = lt.beta_from_gamma(gamma, d, nu=nu)
    scale = max(1.0, np.abs(enumerated).max())
    np.testing.assert_allclose(closed, enumerated, rtol=0, atol=max(1e-10, 1e-14 * condition) * scale)


@SETTINGS
@given(d=st.integers(2, 3000), nu=any_nu)
def test_the_papers_identities_hold_in_the_stable_forms(d, nu):
    # c_d is the determinant factor: lambda_- lambda_+ = c_d; the bulk eigenvalue is alpha_1 - alpha_2;
    # ||Sigma^{-1}|| is one over the smallest eigenvalue; all in logarithms, so at every bandwidth
    log_c = lt.normalization_constant(d, nu=nu, log=True)
    small, large, bulk = lt.sigma_eigenvalues(d, nu=nu, log=True)
    assert small + large == pytest.approx(log_c, abs=1e-11 * max(1.0, abs(log_c)))
    assert lt.sigma_inverse_opnorm(d, nu=nu, log=True) == pytest.approx(-min(small, bulk), abs=1e-12)
    assert small <= large
    if d <= 200 and abs(log_c) < 600:
        a0, a1, a2 = lt.alphas(d, nu=nu)
        assert math.exp(bulk) == pytest.approx(a1 - a2, rel=1e-8)
