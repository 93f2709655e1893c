"""expected_lime_fit: lime's ridge fit with the random rows replaced by their expectations.

Checked against (1) real lime: with the empirical moments of lime's own random rows it reproduces lime's
coefficients; (2) a brute-force population data set (every mask with weight m * P(mask) * psi, plus the document
with weight 1), fitted by lt.weighted_ridge; (3) its limit beta^f = Sigma^{-1} Gamma^f for many samples.
"""

from __future__ import annotations

import numpy as np
import pytest

import limetheory as lt
from limetheory.engine.surrogate import expected_lime_fit


def table_model(d, seed):
    table = np.random.default_rng(seed).random(2**d)
    powers = 1 << np.arange(d)
    return lambda z: table[np.asarray(z).astype(np.int64) @ powers]


@pytest.mark.parametrize(("kernel_width", "num_samples"), [(25, 300), (100, 60), (10, 500)])
def test_reproduces_lime_from_its_own_rows(kernel_width, num_samples):
    text = "good food bad service great place awful wait"

    def classifier(documents):
        p = np.array([0.2 + 0.5 * ("good" in doc) + 0.2 * ("wait" in doc) * ("place" in doc) for doc in documents])
        return np.column_stack([1 - p, p])

    run = lt.capture_lime_samples(text, classifier, num_samples=num_samples, kernel_width=kernel_width, random_state=4)
    assert run.z[0].all() and run.weights[0] == 1.0  # lime's first row: the document, weight psi(0) = 1
    x = np.column_stack([np.ones(num_samples - 1), run.z[1:]])
    w, y = run.weights[1:], run.y[1:]
    sigma = x.T @ (w[:, None] * x) / (num_samples - 1)
    gamma = x.T @ (w * y) / (num_samples - 1)
    fit = expected_lime_fit(sigma, gamma, run.y[0], num_samples)
    np.testing.assert_allclose(fit, run.beta, atol=1e-9)


@pytest.mark.parametrize("lam", [0.0, 1.0, 3.5])
@pytest.mark.parametrize(("d", "nu", "num_samples"), [(4, 0.25, 50), (6, 0.5, 1000), (5, np.inf, 7)])
def test_equals_a_brute_force_population_fit(brute, d, nu, num_samples, lam):
    f = table_model(d, seed=d)
    y0 = 0.8
    masks, weights, responses = [np.ones(d)], [1.0], [y0]  # lime's first row
    m = num_samples - 1
    for mask, s, prob in brute.lime_law(d):
        masks.append(np.array(mask, dtype=float))
        weights.append(m * float(prob) * brute.psi(s / d, nu))
        responses.append(float(f(np.array([mask]))[0]))
    expected = lt.weighted_ridge(np.array(masks), np.array(responses), np.array(weights), lam=lam)
    sigma, gamma = brute.sigma_gamma(lambda mask: float(f(np.array([mask]))[0]), d, nu)
    np.testing.assert_allclose(expected_lime_fit(sigma, gamma, y0, num_samples, lam=lam), expected, atol=1e-10)
    # the same with the package's closed-form Sigma and Gamma = Sigma beta^f
    sigma_closed = lt.sigma_matrix(d, nu=nu)
    gamma_closed = sigma_closed @ lt.beta_enumerate(f, d, nu=nu)
    np.testing.assert_allclose(expected_lime_fit(sigma_closed, gamma_closed, y0, num_samples, lam), expected, atol=1e-9)


def test_tends_to_beta_with_many_samples():
    d, nu = 6, 0.25
    f = table_model(d, seed=1)
    beta = lt.beta_enumerate(f, d, nu=nu)
    sigma = lt.sigma_matrix(d, nu=nu)
    gaps = [np.abs(expected_lime_fit(sigma, sigma @ beta, 5.0, n) - beta).max() for n in (10**3, 10**4, 10**5, 10**6)]
    assert gaps[-1] < 1e-4
    assert all(later < earlier / 5 for earlier, later in zip(gaps, gaps[1:], strict=False))  # O(1/n)


def test_affine_model_without_penalty_is_exact():
    """f = a + b.z is fitted exactly by any weighted least squares, so with lam = 0 the target is (a, b)."""
    d, nu = 5, 0.3
    coef = np.array([0.4, 1.0, -0.5, 0.0, 2.0, 0.25])
    sigma = lt.sigma_matrix(d, nu=nu)
    fit = expected_lime_fit(sigma, sigma @ coef, coef.sum(), 100, lam=0.0)
    np.testing.assert_allclose(fit, coef, atol=1e-12)


SIGMA_OK = lt.sigma_matrix(3, nu=0.25)
GAMMA_OK = SIGMA_OK @ np.array([0.5, 0.1, -0.2, 0.3])


@pytest.mark.parametrize(
    ("kwargs", "error", "pattern"),
    [
        ({"sigma": np.ones(4)}, ValueError, r"^sigma must be a \(d \+ 1, d \+ 1\) matrix"),
        ({"sigma": np.ones((4, 3))}, ValueError, r"^sigma must be a \(d \+ 1, d \+ 1\) matrix"),
        ({"sigma": np.ones((1, 1)), "gamma": np.ones(1)}, ValueError, r"^sigma must be a \(d \+ 1, d \+ 1\) matrix"),
        ({"sigma": np.full((4, 4), np.nan)}, ValueError, "^sigma must be finite"),
        ({"sigma": "sigma"}, TypeError, "^sigma must be an array of real numbers"),
        ({"gamma": np.ones(3)}, ValueError, r"^gamma must have shape \(4,\)"),
        ({"gamma": np.full(4, np.inf)}, ValueError, "^gamma must be finite"),
        ({"y0": np.nan}, ValueError, "^y0 must be a finite real number"),
        ({"y0": "1"}, TypeError, "^y0 must be a real number"),
        ({"num_samples": 0}, ValueError, "^num_samples must be >= 1"),
        ({"num_samples": 10.0}, TypeError, "^num_samples must be an integer"),
        ({"lam": -1.0}, ValueError, "^lam must be a finite number >= 0"),
        ({"lam": np.inf}, ValueError, "^lam must be a finite real number"),
        ({"num_samples": 1, "lam": 0.0}, ValueError, "^the expected normal equations"),
    ],
)
def test_bad_input(kwargs, error, pattern):
    arguments = {"sigma": SIGMA_OK, "gamma": GAMMA_OK, "y0": 1.0, "num_samples": 100, "lam": 1.0} | kwargs
    with pytest.raises(error, match=pattern):
        expected_lime_fit(**arguments)


def test_public_name_is_reexported():
    assert lt.expected_lime_fit is expected_lime_fit
    assert "expected_lime_fit" in lt.__all__
