"""limetheory.theory.explanation: beta_from_gamma, beta_enumerate and all_masks against brute force."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import limetheory as lt
from limetheory.book import mpreference
from limetheory.theory import printed
from limetheory.theory.explanation import (
    MAX_ENUMERATION_D,
    all_masks,
    beta_enumerate,
    beta_from_conditional_moments,
    beta_from_gamma,
    beta_indicator_product,
)

EPS = np.finfo(float).eps
small_d = st.integers(min_value=2, max_value=6)
moderate_nu = st.one_of(st.floats(min_value=0.3, max_value=20.0), st.just(np.inf))
coefficient = st.floats(min_value=-10, max_value=10, allow_nan=False)


def table_model(values):
    """f(z) = values[code(z)], code(z) = sum_j z_j 2^j: an arbitrary function of the mask."""
    values = np.asarray(values, dtype=float)

    def f(z):
        z = np.asarray(z)
        return values[z @ (1 << np.arange(z.shape[1]))]

    def f_tuple(mask):
        return float(values[sum(bit << j for j, bit in enumerate(mask))])

    return f, f_tuple


def brute_beta(f_tuple, d, nu, brute):
    sigma, gamma = brute.sigma_gamma(f_tuple, d, nu)
    return np.linalg.solve(sigma, gamma), sigma, gamma


def unit(k, d):
    e = np.zeros(d + 1)
    e[k] = 1.0
    return e


# ----------------------------------------------------------------------------- all_masks


@pytest.mark.parametrize("d", [1, 2, 3, 6, 10])
def test_all_masks_is_lime_law(d, brute):
    z, s, prob = all_masks(d)
    assert z.shape == (2**d - 1, d) and z.dtype == np.int8
    assert prob.sum() == pytest.approx(1.0, rel=1e-13)
    np.testing.assert_array_equal(s, d - z.sum(axis=1))
    rows = {tuple(row) for row in z.tolist()}
    assert len(rows) == 2**d - 1  # every mask once
    assert (1,) * d not in rows  # nothing is drawn without a removal
    expected = {mask: float(p) for mask, _, p in brute.lime_law(d)}
    assert rows == set(expected)
    for row, p in zip(z.tolist(), prob, strict=True):
        assert p == pytest.approx(expected[tuple(row)], rel=1e-14)


def test_all_masks_probabilities_sum_to_one_per_s():
    d = 8
    _, s, prob = all_masks(d)
    for value in range(1, d + 1):
        assert prob[s == value].sum() == pytest.approx(1 / d, rel=1e-13)


@pytest.mark.parametrize(
    ("d", "error", "pattern"),
    [
        (0, ValueError, "^d must be >= 1"),
        (MAX_ENUMERATION_D + 1, ValueError, "^d must be <= 22"),
        (3.0, TypeError, "^d"),
    ],
)
def test_all_masks_errors(d, error, pattern):
    with pytest.raises(error, match=pattern):
        all_masks(d)


# ----------------------------------------------------------------------------- beta_enumerate


@pytest.mark.parametrize("d", [2, 3, 5])
@pytest.mark.parametrize("nu", [0.25, 1.0, np.inf])
def test_beta_enumerate_matches_brute_force_solve(d, nu, brute):
    values = np.random.default_rng(d).normal(size=2**d)
    f, f_tuple = table_model(values)
    expected, sigma, _ = brute_beta(f_tuple, d, nu, brute)
    got = beta_enumerate(f, d, nu=nu)
    assert got.shape == (d + 1,)
    np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-12 * np.linalg.cond(sigma))


@settings(max_examples=30, deadline=None)
@given(d=small_d, nu=moderate_nu, c=coefficient)
def test_beta_of_a_constant_model_is_e0(d, nu, c):
    got = beta_enumerate(lambda z: np.full(len(z), c), d, nu=nu)
    np.testing.assert_allclose(got, c * unit(0, d), atol=1e-9 * max(1.0, abs(c)))


@settings(max_examples=30, deadline=None)
@given(d=small_d, nu=moderate_nu, data=st.data())
def test_beta_of_a_word_indicator_is_e_1_plus_j(d, nu, data):
    j = data.draw(st.integers(0, d - 1))
    got = beta_enumerate(lambda z: z[:, j], d, nu=nu)
    np.testing.assert_allclose(got, unit(1 + j, d), atol=1e-9)


@settings(max_examples=30, deadline=None)
@given(d=small_d, nu=moderate_nu, a=coefficient, b=coefficient, seed=st.integers(0, 2**32 - 1))
def test_beta_is_linear_in_f(d, nu, a, b, seed):
    rng = np.random.default_rng(seed)
    f, _ = table_model(rng.normal(size=2**d))
    g, _ = table_model(rng.normal(size=2**d))
    combined = beta_enumerate(lambda z: a * f(z) + b * g(z), d, nu=nu)
    separate = a * beta_enumerate(f, d, nu=nu) + b * beta_enumerate(g, d, nu=nu)
    scale = 1 + abs(a) + abs(b)
    np.testing.assert_allclose(combined, separate, atol=1e-8 * scale * np.abs(separate).max(initial=1.0))


@settings(max_examples=30, deadline=None)
@given(d=small_d, nu=moderate_nu, seed=st.integers(0, 2**32 - 1))
def test_beta_from_gamma_equals_beta_enumerate(d, nu, seed, brute):
    f, f_tuple = table_model(np.random.default_rng(seed).normal(size=2**d))
    sigma, gamma = brute.sigma_gamma(f_tuple, d, nu)  # Gamma by brute force over all subsets
    closed = beta_from_gamma(gamma, d, nu=nu)
    enumerated = beta_enumerate(f, d, nu=nu)
    scale = np.abs(enumerated).max(initial=1.0)
    np.testing.assert_allclose(closed, enumerated, atol=1e-12 * np.linalg.cond(sigma) * scale)


@pytest.mark.parametrize("d", [2, 3, 6])
@pytest.mark.parametrize("nu", [0.25, 2.0, np.inf])
def test_beta_of_an_indicator_product_matches_the_papers_formula(d, nu):
    """Proposition 3 (product of the indicators of the words in J = {0..p-1}) as printed, evaluated in mpmath."""
    a = mpreference.alphas(d, nu=nu, p_max=d, dps=40)
    with mpmath.workdps(40):
        c = printed.normalization_constant(*a[:3], d)
        sigmas = printed.sigma_coefficients(*a[:3], d)
        for p in range(1, d):
            _, inside, outside = printed.beta_indicator_product(c, sigmas, p, d, a[p], a[p + 1])
            got = beta_enumerate(lambda z, p=p: z[:, :p].prod(axis=1), d, nu=nu)
            np.testing.assert_allclose(got[1 : p + 1], float(inside), rtol=1e-8)
            np.testing.assert_allclose(got[p + 1 :], float(outside), rtol=1e-8, atol=1e-10)


def test_beta_enumerate_accepts_column_outputs_and_lists():
    d = 3
    flat = beta_enumerate(lambda z: z[:, 0] * z[:, 1], d, nu=0.5)
    column = beta_enumerate(lambda z: (z[:, 0] * z[:, 1])[:, None], d, nu=0.5)
    as_list = beta_enumerate(lambda z: [float(a * b) for a, b, _ in z], d, nu=0.5)
    np.testing.assert_allclose(column, flat, rtol=1e-14)
    np.testing.assert_allclose(as_list, flat, rtol=1e-14)


def test_beta_enumerate_calls_f_on_0_1_integer_masks():
    seen = []

    def f(z):
        seen.append(np.array(z))
        return np.zeros(len(z))

    beta_enumerate(f, 4, nu=0.25)
    z = np.vstack(seen)
    assert np.issubdtype(z.dtype, np.integer)
    assert z.shape == (2**4 - 1, 4)
    assert set(np.unique(z)) == {0, 1}


@pytest.mark.parametrize(
    ("kwargs", "error", "pattern"),
    [
        ({"f": "not callable"}, TypeError, "^f must be a callable"),
        ({"d": 1}, ValueError, "^d must be >= 2"),
        ({"d": 0}, ValueError, "^d must be >= 2"),
        ({"d": MAX_ENUMERATION_D + 1}, ValueError, r"^d must be <= 22 for enumeration"),
        ({"d": 40}, ValueError, r"^d must be <= 22 for enumeration"),
        ({"d": 3.0}, TypeError, "^d must be an integer"),
        ({"nu": 0}, ValueError, "^nu must be > 0"),
        ({"nu": -2.0}, ValueError, "^nu must be > 0"),
        ({"nu": np.nan}, ValueError, "^nu must be > 0"),
        ({"nu": "0.25"}, TypeError, "^nu must be"),
        ({"f": lambda z: np.zeros((len(z), 2))}, ValueError, r"^f must return one output per mask \(7\)"),
        ({"f": lambda z: np.zeros(len(z) - 1)}, ValueError, "^f must return one output per mask"),
        ({"f": lambda z: 1.0}, ValueError, "^f must return one output per mask"),
        ({"f": lambda z: np.full(len(z), np.nan)}, ValueError, "^f returned a non-finite value"),
        ({"f": lambda z: np.where(z[:, 0] == 1, np.inf, 0.0)}, ValueError, "^f returned a non-finite value"),
    ],
)
def test_beta_enumerate_errors(kwargs, error, pattern):
    arguments = {"f": lambda z: z[:, 0], "d": 3, "nu": 0.25, **kwargs}
    with pytest.raises(error, match=pattern):
        beta_enumerate(**arguments)


def test_beta_enumerate_refuses_large_d_without_calling_f():
    calls = []
    with pytest.raises(ValueError, match="d must be <= 22"):
        beta_enumerate(lambda z: calls.append(z) or np.zeros(len(z)), 23, nu=0.25)
    assert not calls


# ----------------------------------------------------------------------------- beta_from_gamma


@pytest.mark.parametrize("d", [2, 3, 7, 30])
@pytest.mark.parametrize("nu", [0.2, 0.25, 1.0, np.inf])
def test_beta_from_gamma_solves_sigma_beta_equals_gamma(d, nu):
    gamma = np.random.default_rng(d).normal(size=d + 1)
    sigma = lt.sigma_matrix(d, nu=nu)
    expected = np.linalg.solve(sigma, gamma)
    got = beta_from_gamma(gamma, d, nu=nu)
    assert got.shape == (d + 1,)
    np.testing.assert_allclose(got, expected, atol=1e-14 * np.linalg.cond(sigma) * np.abs(expected).max())


@pytest.mark.parametrize("d", [2, 4])
@pytest.mark.parametrize("nu", [0.25, np.inf])
def test_beta_from_gamma_of_sigma_columns_are_unit_vectors(d, nu, brute):
    # Gamma of f = 1 is the first column of Sigma; Gamma of f = z_j is column 1 + j
    sigma, _ = brute.sigma_gamma(lambda mask: 0.0, d, nu)
    for k in range(d + 1):
        np.testing.assert_allclose(beta_from_gamma(sigma[:, k], d, nu=nu), unit(k, d), atol=1e-10)


@pytest.mark.parametrize("d", [2, 5])
def test_beta_from_gamma_follows_the_printed_proposition_2(d):
    # beta_j = c^{-1} (sigma_1 G_0 + sigma_2 G_j + sigma_3 sum_{k != j} G_k), written as an explicit loop
    nu = 0.4
    gamma = np.arange(1.0, d + 2) ** 1.5
    s0, s1, s2, s3 = lt.sigma_coefficients(d, nu=nu)
    c = lt.normalization_constant(d, nu=nu)
    expected = [(s0 * gamma[0] + s1 * sum(gamma[1:])) / c]
    for j in range(1, d + 1):
        expected.append((s1 * gamma[0] + s2 * gamma[j] + s3 * sum(gamma[k] for k in range(1, d + 1) if k != j)) / c)
    np.testing.assert_allclose(beta_from_gamma(gamma, d, nu=nu), expected, rtol=1e-12)


def test_beta_from_gamma_accepts_lists_and_integers():
    np.testing.assert_allclose(beta_from_gamma([1, 0, 0], 2, nu=1), beta_from_gamma(np.array([1.0, 0, 0]), 2, nu=1.0))


@pytest.mark.parametrize(
    ("gamma", "d", "nu", "error", "pattern"),
    [
        (np.zeros(3), 3, 0.25, ValueError, r"^gamma must have shape \(4,\) for d = 3"),
        (np.zeros(5), 3, 0.25, ValueError, r"^gamma must have shape \(4,\)"),
        (np.zeros((4, 1)), 3, 0.25, ValueError, r"^gamma must have shape \(4,\)"),
        (np.zeros((2, 2)), 3, 0.25, ValueError, r"^gamma must have shape \(4,\)"),
        (0.0, 3, 0.25, ValueError, r"^gamma must have shape \(4,\)"),
        ([0.0, np.nan, 0.0, 0.0], 3, 0.25, ValueError, "^gamma must be finite"),
        ([0.0, 0.0, np.inf, 0.0], 3, 0.25, ValueError, "^gamma must be finite"),
        ([-np.inf, 0.0, 0.0, 0.0], 3, 0.25, ValueError, "^gamma must be finite"),
        (np.zeros(2), 1, 0.25, ValueError, "^d must be >= 2"),
        (np.zeros(4), 3.0, 0.25, TypeError, "^d must be an integer"),
        (np.zeros(4), 3, 0, ValueError, "^nu must be > 0"),
        (np.zeros(4), 3, np.nan, ValueError, "^nu must be > 0"),
        (np.zeros(4), 3, None, TypeError, "^nu must be"),
    ],
)
def test_beta_from_gamma_errors(gamma, d, nu, error, pattern):
    with pytest.raises(error, match=pattern):
        beta_from_gamma(gamma, d, nu=nu)


def test_beta_from_gamma_rejects_non_numeric_gamma():
    with pytest.raises((TypeError, ValueError)):
        beta_from_gamma(["a", "b", "c"], 2, nu=0.25)


def test_brute_force_reference_is_itself_consistent(brute):
    # guard on the reference: the enumerated law has total mass 1 and the right number of masks
    for d in range(1, 6):
        masks = list(brute.lime_law(d))
        assert len(masks) == 2**d - 1
        assert math.isclose(sum(float(p) for _, _, p in masks), 1.0)
        assert len({m for m, _, _ in masks}) == len(masks)


def test_public_names_are_reexported():
    assert lt.beta_enumerate is beta_enumerate and lt.beta_from_gamma is beta_from_gamma


@pytest.mark.parametrize("nu", [0.1, 0.25, 1.0, np.inf])
@pytest.mark.parametrize("J", [(), (0,), (2, 4), (0, 1, 3, 5), (0, 1, 2, 3, 4, 5, 6)])
def test_beta_indicator_product_matches_enumeration(J, nu):
    d = 7
    expected = beta_enumerate(lambda z: np.prod(z[:, list(J)], axis=1) if J else np.ones(len(z)), d, nu=nu)
    np.testing.assert_allclose(beta_indicator_product(J, d, nu=nu), expected, rtol=1e-10, atol=1e-10)


def test_beta_indicator_product_special_cases():
    np.testing.assert_allclose(beta_indicator_product([], 9, nu=0.3), np.eye(10)[0], atol=1e-12)
    np.testing.assert_allclose(beta_indicator_product([4], 9, nu=0.3), np.eye(10)[5], atol=1e-12)


@pytest.mark.parametrize("J", [[9], [-1], [1, 1], "ab", 3, [0.5]])
def test_beta_indicator_product_rejects_bad_J(J):
    with pytest.raises((ValueError, TypeError), match="J"):
        beta_indicator_product(J, 9, nu=0.3)


# ----------------------------------------------------------------------------- small bandwidths (see also
# tests/test_small_bandwidth.py for the mpmath grid)


def test_beta_from_gamma_warns_where_a_rounded_gamma_cannot_determine_beta():
    sigma = lt.sigma_matrix(3, nu=0.02)
    with pytest.warns(RuntimeWarning, match=r"Sigma is ill-conditioned at d = 3, nu = 0.02 \(cond = 10\^"):
        try:
            beta_from_gamma(sigma[:, 1], 3, nu=0.02)
        except ValueError as error:
            assert "does not determine beta" in str(error)


def test_beta_from_gamma_is_silent_where_sigma_is_well_conditioned():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_allclose(
            beta_from_gamma(lt.sigma_matrix(29, nu=0.25)[:, 3], 29, nu=0.25), unit(3, 29), atol=1e-12
        )


def test_beta_from_gamma_refuses_when_alpha0_is_below_the_double_range():
    with pytest.raises(ValueError, match=r"alpha_0 = exp\(-1\d{3}\.\d+\), below the double range"):
        beta_from_gamma(np.zeros(3), 2, nu=0.005)


@pytest.mark.parametrize("nu", [0.005, 0.02, 0.25, np.inf])
def test_indicator_products_stay_exact_where_sigma_is_numerically_singular(nu):
    # d = 2: three distinct masks, so beta interpolates f: beta_0 = f(0,0), beta_j = f(e_j) - f(0,0)
    np.testing.assert_array_equal(beta_indicator_product((), 2, nu=nu), [1.0, 0.0, 0.0])
    # beta combines a few order-one terms (masses of the law times E[f | s]), each rounded once: a few eps
    np.testing.assert_allclose(beta_indicator_product((1,), 2, nu=nu), [0.0, 0.0, 1.0], atol=8 * EPS)
    np.testing.assert_allclose(beta_indicator_product((0, 1), 2, nu=nu), [0.0, 0.0, 0.0], atol=8 * EPS)
    values = np.array([0.3, -1.2, 2.5])  # f on the masks (0,0), (1,0), (0,1)
    beta = beta_enumerate(lambda z: values[z[:, 0] + 2 * z[:, 1]], 2, nu=nu)
    np.testing.assert_allclose(beta, [0.3, -1.5, 2.2], atol=1e-14)


def test_beta_from_conditional_moments_is_reexported_and_matches_enumeration():
    assert lt.beta_from_conditional_moments is beta_from_conditional_moments
    d, nu = 4, 0.3
    values = np.random.default_rng(7).normal(size=2**d)
    z, s, _ = all_masks(d)
    y = values[z @ (1 << np.arange(d))]
    f_given_s = np.array([y[s == k].mean() for k in range(1, d + 1)])
    zf_given_s = np.array([(z[s == k] * y[s == k, None]).mean(axis=0) for k in range(1, d + 1)])
    expected = beta_enumerate(lambda masks: values[masks @ (1 << np.arange(d))], d, nu=nu)
    np.testing.assert_allclose(beta_from_conditional_moments(f_given_s, zf_given_s, nu=nu), expected, atol=1e-12)
