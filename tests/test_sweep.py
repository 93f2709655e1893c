"""beta_bandwidth_sweep and coefficient_zero against independent computations: lt.weighted_ridge (lam = 0) at each
bandwidth on the same rows, exact enumeration (lt.beta_enumerate) through a data set that holds every mask with its
LIME probability as a multiplicity, the sandwich written as a matrix product, explicit leave-one-block-out refits,
and Monte Carlo replicates for the calibration of the standard errors."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.optimize import brentq

import limetheory as lt
from limetheory.theory.sweep import CoefficientZero, beta_bandwidth_sweep, coefficient_zero

NUS = (0.05, 0.1, 0.25, 1.0, 5.0, np.inf)


def table_model(d, seed):
    """f(z) = an independent uniform value on each of the 2^d masks."""
    table = np.random.default_rng(seed).random(2**d)
    powers = 1 << np.arange(d)
    return lambda z: table[np.asarray(z).astype(np.int64) @ powers]


def population_rows(d):
    """Every mask LIME can draw, repeated in proportion to its probability (1/d)/binom(d, s): an exact data set."""
    common = math.lcm(*(math.comb(d, s) for s in range(1, d + 1)))
    rows = []
    for code in range(2**d - 1):
        mask = [(code >> j) & 1 for j in range(d)]
        s = d - sum(mask)
        rows.extend([mask] * (common // math.comb(d, s)))
    return np.array(rows, dtype=np.int8)


def removed_weights(z, nu):
    d = z.shape[1]
    return lt.psi((d - z.sum(axis=1)) / d, nu=nu)


def mc_data(d=8, n=3000, seed=7):
    rng = np.random.default_rng(seed)
    z = lt.sample_masks(d, n, rng)
    y = np.tanh(z @ rng.normal(size=d)) + 0.1 * z[:, 0] * z[:, 1] + 0.05 * rng.normal(size=n)
    return z, y


# ----------------------------------------------------------------------------- the sweep


def test_each_bandwidth_is_the_weighted_least_squares_fit():
    z, y = mc_data()
    beta = beta_bandwidth_sweep(z, y, nus=NUS)
    assert beta.shape == (len(NUS), z.shape[1] + 1)
    for row, nu in zip(beta, NUS, strict=True):
        direct = lt.weighted_ridge(z, y, removed_weights(z, nu), lam=0.0)
        np.testing.assert_allclose(row, direct, rtol=0, atol=1e-9 if nu < 0.1 else 1e-11)


def test_lime_rows_with_nothing_removed_are_allowed():
    """lime's captured rows (first row: nothing removed, weight 1) give lime's own fit without its penalty."""
    text = "good food bad service great place awful wait"

    def classifier(documents):
        p = np.array([0.2 + 0.5 * ("good" in doc) + 0.2 * ("wait" in doc) * ("place" in doc) for doc in documents])
        return np.column_stack([1 - p, p])

    run = lt.capture_lime_samples(text, classifier, num_samples=400, kernel_width=40, random_state=5)
    assert run.z[0].all()
    (beta,) = beta_bandwidth_sweep(run.z, run.y, nus=[0.4])
    np.testing.assert_allclose(beta, lt.weighted_ridge(run.z, run.y, run.weights, lam=0.0), atol=1e-10)


@pytest.mark.parametrize("d", [3, 5, 6])
def test_population_rows_give_the_exact_explanation(d):
    f = table_model(d, seed=d)
    z = population_rows(d)
    beta = beta_bandwidth_sweep(z, f(z), nus=NUS)
    for row, nu in zip(beta, NUS, strict=True):
        np.testing.assert_allclose(row, lt.beta_enumerate(f, d, nu=nu), rtol=0, atol=1e-8 if nu < 0.1 else 1e-10)


def test_order_of_bandwidths_is_kept_and_an_affine_model_is_exact():
    z = lt.sample_masks(6, 500, np.random.default_rng(0))
    coef = np.array([0.5, 1.0, -2.0, 0.0, 0.25, 3.0, -1.0])
    y = coef[0] + z @ coef[1:]
    nus = [np.inf, 0.3, 0.07, 2.0]
    beta = beta_bandwidth_sweep(z, y, nus=nus)
    np.testing.assert_allclose(beta, np.tile(coef, (4, 1)), atol=1e-9)
    np.testing.assert_allclose(beta_bandwidth_sweep(z, y, nus=nus[::-1]), beta[::-1], atol=1e-12)


def test_sandwich_standard_errors_are_the_matrix_formula():
    """se^2 = n/(n-1) [(X'WX)^{-1} X'W diag(r^2) W X (X'WX)^{-1}]_kk (HC0 with the ddof-1 factor)."""
    z, y = mc_data(n=1500)
    n = len(y)
    x = np.column_stack([np.ones(n), z])
    beta, se = beta_bandwidth_sweep(z, y, nus=NUS, standard_errors=True)
    assert se.shape == beta.shape
    for row, row_se, nu in zip(beta, se, NUS, strict=True):
        w = removed_weights(z, nu)
        bread = np.linalg.inv(x.T @ (w[:, None] * x))
        residual = y - x @ row
        meat = (x * ((w * residual) ** 2)[:, None]).T @ x
        covariance = n / (n - 1) * bread @ meat @ bread
        np.testing.assert_allclose(row_se, np.sqrt(np.diag(covariance)), rtol=1e-7)


def test_jackknife_is_the_leave_one_block_out_refit():
    z, y = mc_data(n=900)
    n_blocks = 6
    nus = (0.1, 0.5, np.inf)
    beta, se, se_jackknife = beta_bandwidth_sweep(z, y, nus=nus, standard_errors=True, n_blocks=n_blocks)
    np.testing.assert_allclose(se, beta_bandwidth_sweep(z, y, nus=nus, standard_errors=True)[1], rtol=1e-12)
    blocks = np.arange(len(y)) % n_blocks
    for k, nu in enumerate(nus):
        refits = np.array(
            [
                lt.weighted_ridge(z[blocks != b], y[blocks != b], removed_weights(z[blocks != b], nu), lam=0.0)
                for b in range(n_blocks)
            ]
        )
        expected = np.sqrt((n_blocks - 1) / n_blocks * ((refits - refits.mean(axis=0)) ** 2).sum(axis=0))
        np.testing.assert_allclose(se_jackknife[k], expected, rtol=1e-7)


def test_standard_errors_are_calibrated_over_replicates():
    """R = 200 independent samples: spread of the estimates / mean se within 1 +- 5 sqrt(1/(2R)) = 1 +- 0.25."""
    d, n, replicates = 5, 2000, 200
    f = table_model(d, seed=2)
    nus = (0.1, 0.25, np.inf)
    rng = np.random.default_rng(99)
    estimates, ses = [], []
    for _ in range(replicates):
        z = lt.sample_masks(d, n, rng)
        beta, se = beta_bandwidth_sweep(z, f(z), nus=nus, standard_errors=True)
        estimates.append(beta)
        ses.append(se)
    estimates, ses = np.array(estimates), np.array(ses)
    ratio = estimates.std(axis=0, ddof=1) / ses.mean(axis=0)
    assert np.abs(ratio - 1).max() <= 5 * math.sqrt(1 / (2 * replicates))
    truth = np.array([lt.beta_enumerate(f, d, nu=nu) for nu in nus])
    centre = (estimates.mean(axis=0) - truth) / (estimates.std(axis=0, ddof=1) / math.sqrt(replicates))
    assert np.abs(centre).max() <= 5


# ----------------------------------------------------------------------------- zeros of a coefficient curve

D_ZERO, SEED_ZERO, WORD_ZERO, BRACKET = 5, 2, 4, (0.08, 0.4)


def exact_zero():
    f = table_model(D_ZERO, SEED_ZERO)
    return brentq(lambda nu: lt.beta_enumerate(f, D_ZERO, nu=nu)[1 + WORD_ZERO], *BRACKET, xtol=1e-13)


def test_zero_on_population_rows_is_the_exact_zero():
    f = table_model(D_ZERO, SEED_ZERO)
    z = population_rows(D_ZERO)
    result = coefficient_zero(z, f(z), WORD_ZERO, BRACKET)
    assert isinstance(result, CoefficientZero) and math.isnan(result.se_jackknife)
    assert result.nu == pytest.approx(exact_zero(), abs=1e-9)
    step = 1e-5
    finite_difference = (
        lt.beta_enumerate(f, D_ZERO, nu=result.nu + step)[1 + WORD_ZERO]
        - lt.beta_enumerate(f, D_ZERO, nu=result.nu - step)[1 + WORD_ZERO]
    ) / (2 * step)
    assert result.slope == pytest.approx(finite_difference, rel=1e-6)


def test_zero_delta_method_and_jackknife_by_hand():
    f = table_model(D_ZERO, SEED_ZERO)
    z = lt.sample_masks(D_ZERO, 4000, np.random.default_rng(5))
    y = f(z)
    n_blocks = 8
    result = coefficient_zero(z, y, WORD_ZERO, BRACKET, n_blocks=n_blocks)
    column = 1 + WORD_ZERO

    def curve(nu, rows=slice(None)):
        return lt.weighted_ridge(z[rows], y[rows], removed_weights(z[rows], nu), lam=0.0)[column]

    root = brentq(curve, *BRACKET, xtol=1e-13)
    assert result.nu == pytest.approx(root, abs=1e-10)
    step = 1e-5
    slope = (curve(root + step) - curve(root - step)) / (2 * step)
    assert result.slope == pytest.approx(slope, rel=1e-6)
    (se_at_root,) = beta_bandwidth_sweep(z, y, nus=[result.nu], standard_errors=True)[1][:, column]
    assert result.se == pytest.approx(se_at_root / abs(slope), rel=1e-6)
    blocks = np.arange(len(y)) % n_blocks
    roots = np.array([brentq(curve, *BRACKET, args=(blocks != b,), xtol=1e-13) for b in range(n_blocks)])
    expected = math.sqrt((n_blocks - 1) / n_blocks * ((roots - roots.mean()) ** 2).sum())
    assert result.se_jackknife == pytest.approx(expected, rel=1e-6)


@pytest.mark.parametrize("replicates", [50, pytest.param(200, marks=pytest.mark.slow)])
def test_zero_standard_error_is_calibrated_over_replicates(replicates):
    """R samples of n = 3000: sd of the zeros / mean delta-method se within 1 +- 5 sqrt(1/(2R)) (five standard errors
    of the ratio: 0.25 at R = 200, the slow case; 0.5 at the R = 50 of `make test`), and the zeros centred on the exact
    zero within five standard errors."""
    f = table_model(D_ZERO, SEED_ZERO)
    rng = np.random.default_rng(2024)
    results = []
    for _ in range(replicates):
        z = lt.sample_masks(D_ZERO, 3000, rng)
        results.append(coefficient_zero(z, f(z), WORD_ZERO, BRACKET))
    roots = np.array([r.nu for r in results])
    ses = np.array([r.se for r in results])
    assert abs(roots.std(ddof=1) / ses.mean() - 1) <= 5 * math.sqrt(1 / (2 * replicates))
    assert abs(roots.mean() - exact_zero()) <= 5 * roots.std(ddof=1) / math.sqrt(replicates)


def test_no_change_of_sign_is_refused():
    f = table_model(D_ZERO, SEED_ZERO)
    z = population_rows(D_ZERO)
    with pytest.raises(ValueError, match="does not change sign on bracket"):
        coefficient_zero(z, f(z), WORD_ZERO, (0.5, 2.0))


def test_a_block_without_a_change_of_sign_is_refused():
    """A bracket of width 2e-6 around the zero of all rows: leaving a block out moves the zero out of it."""
    f = table_model(D_ZERO, SEED_ZERO)
    z = lt.sample_masks(D_ZERO, 2000, np.random.default_rng(0))
    root = coefficient_zero(z, f(z), WORD_ZERO, BRACKET).nu
    with pytest.raises(ValueError, match="left out"):
        coefficient_zero(z, f(z), WORD_ZERO, (root - 1e-6, root + 1e-6), n_blocks=4)


# ----------------------------------------------------------------------------- bad input

Z_OK = np.array([[1, 0], [0, 1], [0, 0], [1, 0], [0, 1], [0, 0]])
Y_OK = np.array([1.0, 0.0, 0.5, 0.9, 0.1, 0.4])


@pytest.mark.parametrize(
    ("kwargs", "error", "pattern"),
    [
        ({"z": np.ones(4)}, ValueError, r"^z must be an \(n, d\) array"),
        ({"z": np.ones((0, 2)), "y": np.ones(0)}, ValueError, r"^z must be an \(n, d\) array"),
        ({"z": Z_OK * 2}, ValueError, "^z must contain only 0"),
        ({"z": Z_OK * np.nan}, ValueError, "^z must be finite"),
        ({"z": "mask"}, TypeError, "^z must be an array of real numbers"),
        ({"y": np.ones(5)}, ValueError, r"^y must have shape \(6,\)"),
        ({"y": np.full(6, np.inf)}, ValueError, "^y must be finite"),
        ({"nus": 0.25}, ValueError, "^nus must be a 1-D sequence"),
        ({"nus": []}, ValueError, "^nus must be a non-empty 1-D sequence"),
        ({"nus": [[0.25]]}, ValueError, "^nus must be a non-empty 1-D sequence"),
        ({"nus": [0.25, 0.0]}, ValueError, "^nus must contain only bandwidths > 0"),
        ({"nus": [-np.inf]}, ValueError, "^nus must contain only bandwidths > 0"),
        ({"nus": [np.nan]}, ValueError, "^nus must contain only bandwidths > 0"),
        ({"nus": ["0.25"]}, TypeError, "^nus must be an array of real numbers"),
        ({"standard_errors": 1}, TypeError, "^standard_errors must be True or False"),
        ({"n_blocks": 0, "standard_errors": True}, ValueError, "^n_blocks must be >= 1"),
        ({"n_blocks": 2.0, "standard_errors": True}, TypeError, "^n_blocks must be an integer"),
        ({"n_blocks": 7, "standard_errors": True}, ValueError, r"^n_blocks must be <= the number of rows"),
        ({"n_blocks": 2}, ValueError, "^n_blocks >= 2 asks for jackknife"),
        ({"z": Z_OK[:1], "y": Y_OK[:1], "standard_errors": True}, ValueError, "^standard errors need at least 2"),
        ({"z": np.ones((6, 2))}, ValueError, "^the weighted normal equations are singular"),
    ],
)
def test_sweep_bad_input(kwargs, error, pattern):
    arguments = {"z": Z_OK, "y": Y_OK, "nus": [0.25, np.inf]} | kwargs
    with pytest.raises(error, match=pattern):
        beta_bandwidth_sweep(**arguments)


@pytest.mark.parametrize(
    ("kwargs", "error", "pattern"),
    [
        ({"j": 2}, ValueError, "^j must be <= 1"),
        ({"j": -1}, ValueError, "^j must be >= 0"),
        ({"j": 0.0}, TypeError, "^j must be an integer"),
        ({"bracket": 0.2}, ValueError, r"^bracket must be a pair \(lo, hi\)"),
        ({"bracket": (0.1, 0.2, 0.3)}, ValueError, r"^bracket must be a pair \(lo, hi\)"),
        ({"bracket": "ab"}, ValueError, r"^bracket must be a pair \(lo, hi\)"),
        ({"bracket": (0.3, 0.2)}, ValueError, "^bracket must satisfy 0 < lo < hi"),
        ({"bracket": (0.0, 0.2)}, ValueError, "^bracket must satisfy 0 < lo < hi"),
        ({"bracket": (0.1, np.inf)}, ValueError, "^bracket must be a finite real number"),
        ({"bracket": (0.1, "1")}, TypeError, "^bracket must be a real number"),
        ({"xtol": 0.0}, ValueError, "^xtol must be > 0"),
        ({"n_blocks": 0}, ValueError, "^n_blocks must be >= 1"),
        ({"z": Z_OK[:1], "y": Y_OK[:1]}, ValueError, "^standard errors need at least 2"),
        ({"z": Z_OK * 3}, ValueError, "^z must contain only 0"),
    ],
)
def test_zero_bad_input(kwargs, error, pattern):
    arguments = {"z": Z_OK, "y": Y_OK, "j": 0, "bracket": (0.1, 1.0)} | kwargs
    with pytest.raises(error, match=pattern):
        coefficient_zero(**arguments)


def test_public_names_are_reexported():
    for name in ("beta_bandwidth_sweep", "coefficient_zero", "CoefficientZero"):
        assert getattr(lt, name) is globals()[name]
        assert name in lt.__all__
