"""Exact numerics at every bandwidth: the package against limetheory.book.mpreference on a (d, nu) grid.

The printed closed forms cancel catastrophically at small nu (the weights psi(s/d) span up to 10^8000 at
d = 2, nu = 0.005); the references therefore run at a precision that grows with that spread
(``mpreference.digits_for``), and the package must match them to a relative 1e-10 everywhere:

* c_d, the eigenvalues of Sigma, ||Sigma^{-1}|| and alpha_p through their exact logarithms (``log=True``), and
  as values wherever they are normal doubles;
* sigma_0..sigma_3 and the entries of Sigma^{-1} relative to the largest one (sigma_3 changes sign);
* beta of the constant model, of one word's indicator and of a product of two indicators, relative to
  max |beta|, with beta(constant) = e_0 exactly and beta(z_j) = e_{1+j} to rounding.
"""

from __future__ import annotations

import math
import warnings

import mpmath as mp
import numpy as np
import pytest

import limetheory as lt
from limetheory.book.mpreference import alphas as mp_alphas
from limetheory.book.mpreference import beta_dense, beta_indicator, closed_forms, log_of
from limetheory.book.mpreference import relative_error as rel_err

TOL = 1e-10
NU_GRID = [0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 1.0, 10.0, math.inf]
D_GRID = [2, 3, 5, 10, 29, 100, 1000, 10_000]
# the mpmath reference at d = 10^4 costs ~2 s per finite bandwidth, so that row keeps three bandwidths
GRID = [(d, nu) for d in D_GRID for nu in NU_GRID if d < 10_000 or nu in (0.005, 0.25, math.inf)]
NORMAL = 1e-300  # above this a double has its full relative precision


def ids(value):
    return str(value)


@pytest.fixture(autouse=True)
def _quiet_range_warnings():
    # values beyond the double range warn by design; these tests look at the numbers
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        yield


# ----------------------------------------------------------------------------- scalars


@pytest.mark.parametrize(("d", "nu"), GRID, ids=ids)
def test_c_d_eigenvalues_and_norm(d, nu):
    ref = closed_forms(d, nu=nu)
    assert ref["c"] > 0
    assert abs(lt.normalization_constant(d, nu=nu, log=True) - log_of(ref["c"])) < TOL
    for got, exact in zip(lt.sigma_eigenvalues(d, nu=nu, log=True), ref["eig"], strict=True):
        assert abs(got - log_of(exact)) < TOL
    assert abs(lt.sigma_inverse_opnorm(d, nu=nu, log=True) - log_of(ref["opnorm"])) < TOL
    c_d = lt.normalization_constant(d, nu=nu)
    if ref["c"] > NORMAL:
        assert rel_err(c_d, ref["c"]) < TOL
    elif ref["c"] < mp.mpf("1e-330"):
        assert c_d == 0.0
    norm = lt.sigma_inverse_opnorm(d, nu=nu)
    if ref["opnorm"] < 1e300:
        assert rel_err(norm, ref["opnorm"]) < TOL
    else:
        assert norm == np.inf


@pytest.mark.parametrize(("d", "nu"), GRID, ids=ids)
def test_alphas(d, nu):
    dps = closed_forms(d, nu=nu)["dps"]
    p_max = min(3, d)
    reference = mp_alphas(d, nu=nu, p_max=p_max, dps=dps)
    logs = lt.alphas(d, nu=nu, p_max=p_max, log=True)
    values = lt.alphas(d, nu=nu, p_max=p_max)
    for p in range(p_max + 1):
        if reference[p] == 0:
            assert logs[p] == -np.inf and values[p] == 0.0
            continue
        assert abs(logs[p] - log_of(reference[p])) < TOL
        assert abs(lt.alpha(p, d, nu=nu, log=True) - logs[p]) < 1e-12 * max(1.0, abs(logs[p]))
        if reference[p] > NORMAL:
            assert rel_err(values[p], reference[p]) < TOL


@pytest.mark.parametrize(("d", "nu"), GRID, ids=ids)
def test_sigma_coefficients(d, nu):
    ref = closed_forms(d, nu=nu)
    got = lt.sigma_coefficients(d, nu=nu)
    scale = max(abs(x) for x in ref["sigma"])
    if scale > NORMAL:
        assert max(rel_err(g, e, scale) for g, e in zip(got, ref["sigma"], strict=True)) < TOL
        assert got[0] > 0 > got[1] and got[2] > 0
    else:  # sigma_i are of the order of alpha_0, below the double range here
        assert scale < mp.mpf("1e-300") and all(abs(g) < 1e-290 for g in got)


@pytest.mark.parametrize(("d", "nu"), [(d, nu) for d, nu in GRID if d <= 1000], ids=ids)
def test_sigma_inverse_entries(d, nu):
    ref = closed_forms(d, nu=nu)
    inverse = lt.sigma_inverse(d, nu=nu)
    entries = (inverse[0, 0], inverse[0, 1], inverse[1, 1], inverse[1, 2])
    scale = max(abs(x) for x in ref["inverse"])
    if scale < 1e300:
        assert max(rel_err(g, e, scale) for g, e in zip(entries, ref["inverse"], strict=True)) < TOL
        np.testing.assert_array_equal(inverse, inverse.T)
    else:  # entries of order 1/(alpha_0 V), beyond the double range: +-inf with the right signs
        assert np.isinf(inverse[0, 0]) and inverse[0, 0] > 0 and inverse[0, 1] < 0 and inverse[1, 1] > 0


# ----------------------------------------------------------------------------- beta


def _beta_reference(p, d, nu):
    beta0, inside, outside = beta_indicator(p, d, nu=nu)
    return [beta0] + [inside] * p + ([outside] * (d - p) if p < d else [])


@pytest.mark.parametrize(("d", "nu"), GRID, ids=ids)
def test_beta_of_the_constant_model_is_exactly_e0(d, nu):
    beta = lt.beta_indicator_product((), d, nu=nu)
    expected = np.zeros(d + 1)
    expected[0] = 1.0
    np.testing.assert_array_equal(beta, expected)
    beta0, inside, outside = beta_indicator(0, d, nu=nu)
    assert rel_err(beta[0], beta0) < TOL and abs(outside) < mp.mpf(10) ** (-40)


@pytest.mark.parametrize(("d", "nu"), GRID, ids=ids)
def test_beta_of_one_indicator_is_e_j(d, nu):
    for j in sorted({0, d // 2, d - 1}):
        beta = lt.beta_indicator_product((j,), d, nu=nu)
        assert np.isfinite(beta).all()
        expected = np.zeros(d + 1)
        expected[1 + j] = 1.0
        np.testing.assert_allclose(beta, expected, rtol=0, atol=1e-13)
    reference = _beta_reference(1, d, nu)
    assert abs(reference[1] - 1) < mp.mpf(10) ** (-40) and abs(reference[0]) < mp.mpf(10) ** (-40)


@pytest.mark.parametrize(("d", "nu"), GRID, ids=ids)
def test_beta_of_a_product_of_two_indicators(d, nu):
    p = min(2, d)
    beta = lt.beta_indicator_product(tuple(range(p)), d, nu=nu)
    reference = _beta_reference(p, d, nu)
    scale = max(abs(x) for x in reference)
    assert max(rel_err(g, e, scale) for g, e in zip(beta, reference, strict=True)) < TOL
    if d > p:  # the paper's Proposition 3 is what the reference evaluates, so the two agree entry by entry too
        assert rel_err(beta[1], reference[1]) < TOL


@pytest.mark.parametrize("d", [2, 3, 5])
@pytest.mark.parametrize("nu", NU_GRID, ids=ids)
def test_beta_enumerate_of_an_arbitrary_model(d, nu):
    values = np.random.default_rng(100 + d).normal(size=2**d)

    def f(z):
        return values[np.asarray(z) @ (1 << np.arange(z.shape[1]))]

    def f_tuple(mask):
        return values[sum(bit << j for j, bit in enumerate(mask))]

    reference = beta_dense(f_tuple, d, nu=nu)
    beta = lt.beta_enumerate(f, d, nu=nu)
    scale = max(abs(x) for x in reference)
    assert max(rel_err(g, e, scale) for g, e in zip(beta, reference, strict=True)) < TOL


@pytest.mark.parametrize("d", [2, 3, 7])
@pytest.mark.parametrize("nu", NU_GRID, ids=ids)
def test_beta_enumerate_structural_cases(d, nu):
    np.testing.assert_array_equal(lt.beta_enumerate(lambda z: np.full(len(z), -2.5), d, nu=nu), -2.5 * np.eye(d + 1)[0])
    for j in range(d):
        np.testing.assert_allclose(
            lt.beta_enumerate(lambda z, j=j: z[:, j], d, nu=nu), np.eye(d + 1)[1 + j], atol=1e-13
        )


def _conditional_moments_of_a_product(p, d):
    """E[f | s] and E[z_j f | s] for f = z_1 ... z_p, by exact counting (independent of the package)."""
    f_given_s = np.array([math.comb(d - s, p) / math.comb(d, p) for s in range(1, d + 1)])
    zf = np.empty((d, d))
    for s in range(1, d + 1):
        inside = math.comb(d - s, p) / math.comb(d, p)
        outside = math.comb(d - s, p + 1) / math.comb(d, p + 1) if p + 1 <= d else 0.0
        zf[s - 1, :p] = inside
        zf[s - 1, p:] = outside
    return f_given_s, zf


@pytest.mark.parametrize(("d", "nu"), [(d, nu) for d, nu in GRID if d <= 1000], ids=ids)
def test_beta_from_conditional_moments(d, nu):
    for p in sorted({0, 1, min(2, d)}):
        f_given_s, zf = _conditional_moments_of_a_product(p, d)
        beta = lt.beta_from_conditional_moments(f_given_s, zf, nu=nu)
        reference = _beta_reference(p, d, nu)
        scale = max(abs(x) for x in reference)
        assert max(rel_err(g, e, scale) for g, e in zip(beta, reference, strict=True)) < TOL


@pytest.mark.parametrize(("d", "nu"), GRID, ids=ids)
def test_beta_from_gamma_where_gamma_determines_beta(d, nu):
    # Gamma of f = z_1 z_2 from the high-precision alphas, rounded to doubles: beta is then determined to
    # about cond(Sigma) * 1e-16; where that is below 1e-10 the closed form must reach it
    p = min(2, d)
    ref = closed_forms(d, nu=nu)
    small, large, bulk = ref["eig"]
    condition = float(large / min(small, bulk))
    a = mp_alphas(d, nu=nu, p_max=min(p + 1, d), dps=ref["dps"])
    gamma_mp = [a[p]] + [a[p]] * p + [a[p + 1] if p < d else 0] * (d - p)
    if a[0] < mp.mpf("1e-300"):
        with pytest.raises(ValueError, match="below the double range"):
            lt.beta_from_gamma(np.zeros(d + 1), d, nu=nu)
        return
    gamma = np.array([float(x) for x in gamma_mp])
    if condition * 1e-16 > 1e-4:
        with pytest.warns(RuntimeWarning, match="ill-conditioned"):
            try:
                lt.beta_from_gamma(gamma, d, nu=nu)
            except ValueError as error:  # the rounded gamma may not even give a finite beta
                assert "does not determine beta" in str(error)
        return
    beta = lt.beta_from_gamma(gamma, d, nu=nu)
    reference = _beta_reference(p, d, nu)
    scale = max(abs(x) for x in reference)
    assert max(rel_err(g, e, scale) for g, e in zip(beta, reference, strict=True)) < max(TOL, 100 * condition * 1e-16)


def test_reference_precision_is_enough():
    # the references do not move when computed with 40 more digits (two of the hardest grid points)
    for d, nu in [(2, 0.005), (3, 0.01), (29, 0.02)]:
        low = closed_forms(d, nu=nu)
        high = closed_forms(d, nu=nu, dps=low["dps"] + 40)
        with mp.workdps(low["dps"]):
            assert abs(low["c"] / high["c"] - 1) < mp.mpf(10) ** (-40)
            assert abs(low["inverse"][3] - high["inverse"][3]) < mp.mpf(10) ** (-40) * abs(high["inverse"][0])
        b_low = beta_indicator(2, d, nu=nu, dps=low["dps"])
        b_high = beta_indicator(2, d, nu=nu, dps=low["dps"] + 40)
        assert abs(b_low[0] - b_high[0]) < mp.mpf(10) ** (-40)


@pytest.mark.parametrize(
    "function",
    [lt.normalization_constant, lt.sigma_coefficients, lt.sigma_inverse, lt.sigma_eigenvalues, lt.sigma_inverse_opnorm],
)
def test_d_equal_one_is_refused_because_sigma_is_singular(function):
    with pytest.raises(ValueError, match=r"^d must be >= 2, got 1: .*Sigma is singular"):
        function(1, nu=0.25)


def test_beta_functions_refuse_d_equal_one():
    with pytest.raises(ValueError, match=r"^d must be >= 2, got 1: .*singular"):
        lt.beta_indicator_product((), 1, nu=0.25)
    with pytest.raises(ValueError, match=r"^d must be >= 2, got 1: .*singular"):
        lt.beta_from_gamma(np.zeros(2), 1, nu=0.25)
    with pytest.raises(ValueError, match=r"^d must be >= 2, got 1: .*singular"):
        lt.beta_enumerate(lambda z: z[:, 0], 1, nu=0.25)
    with pytest.raises(ValueError, match=r"^len\(f_given_s\) must be >= 2, got 1"):
        lt.beta_from_conditional_moments([1.0], [[0.0]], nu=0.25)


@pytest.mark.parametrize(("d", "nu"), [(3, 0.01), (5, 0.02), (2, 0.05)])
def test_beta_linear_exact_at_small_bandwidth(d, nu):
    """The linear model f = sum_j lam_j phi_j, phi the normalised TF-IDF of the kept words, against enumeration."""
    rng = np.random.default_rng(d)
    lam, tfidf = rng.normal(size=d), rng.uniform(0.5, 2.0, size=d)

    def f(z):
        weighted = z * tfidf
        norms = np.sqrt((weighted**2).sum(axis=1))
        return np.where(norms > 0, weighted @ lam / np.where(norms > 0, norms, 1.0), 0.0)

    expected = lt.beta_enumerate(f, d, nu=nu)
    np.testing.assert_allclose(
        lt.beta_linear_exact(lam, tfidf, nu=nu), expected, rtol=0, atol=1e-10 * np.abs(expected).max()
    )
