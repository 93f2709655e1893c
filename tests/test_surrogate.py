"""weighted_ridge and normal_equations against sklearn's Ridge, real lime, and a closed form."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.linear_model import Ridge

import limetheory as lt


def _samples(seed=0, n=400, d=6):
    rng = np.random.default_rng(seed)
    z = lt.sample_masks(d, n, rng).astype(float)
    weights = lt.kernel_weights(d, nu=0.25)[d - z.sum(axis=1).astype(int) - 1]
    y = z @ rng.normal(size=d) + 0.3 + 0.1 * rng.normal(size=n)
    return z, y, weights


@pytest.mark.parametrize("lam", [0.0, 0.5, 1.0, 10.0])
def test_matches_sklearn_ridge(lam):
    z, y, weights = _samples()
    model = Ridge(alpha=lam, fit_intercept=True, solver="cholesky").fit(z, y, sample_weight=weights)
    beta = lt.weighted_ridge(z, y, weights, lam=lam)
    assert beta[0] == pytest.approx(model.intercept_, abs=1e-10)
    np.testing.assert_allclose(beta[1:], model.coef_, atol=1e-10)


def test_matches_real_lime():
    text = "good food bad service great place awful wait"

    def classifier(documents):
        p = np.array([0.2 + 0.5 * ("good" in doc) + 0.2 * ("wait" in doc) for doc in documents])
        return np.column_stack([1 - p, p])

    run = lt.capture_lime_samples(text, classifier, num_samples=300, random_state=3)
    np.testing.assert_allclose(lt.weighted_ridge(run.z, run.y, run.weights), run.beta, atol=1e-10)


def test_penalised_intercept_is_plain_ridge_on_the_augmented_design():
    z, y, weights = _samples(seed=1)
    x = np.column_stack([np.ones(len(y)), z])
    sqrt_w = np.sqrt(weights)
    # closed form of ridge on (sqrt(W) X, sqrt(W) y) with the identity penalty, via the augmented lstsq
    augmented_x = np.vstack([sqrt_w[:, None] * x, np.sqrt(2.0) * np.eye(x.shape[1])])
    augmented_y = np.concatenate([sqrt_w * y, np.zeros(x.shape[1])])
    expected = np.linalg.lstsq(augmented_x, augmented_y, rcond=None)[0]
    np.testing.assert_allclose(lt.weighted_ridge(z, y, weights, lam=2.0, penalise_intercept=True), expected)


def test_normal_equations_by_summation():
    z, y, weights = _samples(seed=2, n=50, d=3)
    a, c = lt.normal_equations(z, y, weights)
    rows = [np.concatenate([[1.0], row]) for row in z]
    np.testing.assert_allclose(a, sum(w * np.outer(r, r) for w, r in zip(weights, rows, strict=True)))
    np.testing.assert_allclose(c, sum(w * t * r for w, t, r in zip(weights, y, rows, strict=True)))


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"z": np.ones(5)}, "z must be an"),
        ({"z": np.ones((0, 2)), "y": np.ones(0), "weights": np.ones(0)}, "z must be an"),
        ({"z": np.ones((5, 0))}, "z must be an"),
        ({"z": np.full((5, 2), np.inf)}, "^z must be finite"),
        ({"weights": np.array([1, 1, np.nan, 1, 1])}, "^weights must be finite"),
        ({"y": np.ones(4)}, "y and weights must have shape"),
        ({"weights": -np.ones(5)}, "non-negative"),
        ({"weights": np.zeros(5)}, "not all zero"),
        ({"y": np.array([1, 2, np.nan, 4, 5])}, "finite"),
        ({"lam": -1.0}, "lam must be"),
        ({"lam": np.inf}, "lam must be"),
        ({"lam": np.nan}, "lam must be"),
        ({"lam": 0.0, "z": np.zeros((5, 2))}, "normal equations are singular"),
    ],
)
def test_bad_input(kwargs, match):
    arguments = {"z": np.eye(5, 2), "y": np.arange(5.0), "weights": np.ones(5), "lam": 1.0} | kwargs
    with pytest.raises(ValueError, match=match):
        lt.weighted_ridge(**arguments)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"lam": True}, "^lam must be a real number"),
        ({"lam": "1"}, "^lam must be a real number"),
        ({"penalise_intercept": 1}, "^penalise_intercept must be True or False"),
        ({"z": [["a", "b"]] * 5}, "^z must be an array of real numbers"),
        ({"y": np.arange(5) * 1j}, "^y must be real"),
    ],
)
def test_bad_types(kwargs, match):
    arguments = {"z": np.eye(5, 2), "y": np.arange(5.0), "weights": np.ones(5), "lam": 1.0} | kwargs
    with pytest.raises(TypeError, match=match):
        lt.weighted_ridge(**arguments)
