"""Shared fixtures: brute-force references that never call the package's closed forms.

Everything in ``brute`` is written from the paper's definitions directly: LIME draws
s uniformly in {1, ..., d}, removes a uniform subset S of s distinct words, and weighs the
sample by psi(s/d) = exp(-(1 - sqrt(1 - s/d))^2 / (2 nu^2)).  Expectations are sums over
every subset S (itertools), in plain Python floats or in exact fractions.
"""

from __future__ import annotations

import itertools
import math
import os
import types
from fractions import Fraction

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")

# numpy is already loaded here, so this only reaches subprocesses (e.g. notebook kernels); export the
# variables before running pytest, as the Makefile does, to make lime's ridge single-threaded in-process.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")


def psi_direct(t, nu):
    """The paper's psi, in plain math (no numpy, no package code)."""
    if math.isinf(nu):
        return 1.0
    return math.exp(-((1.0 - math.sqrt(1.0 - t)) ** 2) / (2.0 * nu * nu))


def lime_law(d):
    """Every (mask, s, probability) LIME can draw for d distinct words; mask[j] = 1 when word j is kept."""
    for s in range(1, d + 1):
        prob = Fraction(1, d) / math.comb(d, s)
        for removed in itertools.combinations(range(d), s):
            mask = tuple(0 if j in removed else 1 for j in range(d))
            yield mask, s, prob


def sigma_gamma(f, d, nu):
    """(Sigma, Gamma) = (E[pi (1,z)(1,z)^T], E[pi (1,z) f(z)]) summed over every mask; f maps a tuple to a float."""
    sigma = np.zeros((d + 1, d + 1))
    gamma = np.zeros(d + 1)
    for mask, s, prob in lime_law(d):
        weight = float(prob) * psi_direct(s / d, nu)
        x = np.array((1.0, *mask))
        sigma += weight * np.outer(x, x)
        gamma += weight * f(mask) * x
    return sigma, gamma


def alpha_brute(p, d, nu):
    """E[pi z_1 ... z_p] by enumeration of every mask."""
    return sum(float(prob) * psi_direct(s / d, nu) for mask, s, prob in lime_law(d) if all(mask[:p]))


def kept_probability_exact(p, d, s=None):
    """P(words 0..p-1 all kept) (given |S| = s if set) as an exact Fraction, by counting subsets."""
    total = Fraction(0)
    conditional = Fraction(0)
    for mask, size, prob in lime_law(d):
        if all(mask[:p]):
            total += prob
            if size == s:
                conditional += prob * d  # P(mask | s) = 1 / binom(d, s) = prob * d
    return total if s is None else conditional


@pytest.fixture(scope="session")
def brute():
    """Namespace of the brute-force references above (session-scoped, so hypothesis can use it)."""
    return types.SimpleNamespace(
        psi=psi_direct,
        lime_law=lime_law,
        sigma_gamma=sigma_gamma,
        alpha=alpha_brute,
        kept_probability=kept_probability_exact,
    )


@pytest.fixture(scope="session")
def data_dir():
    """The folder named by LIMETHEORY_DATA_DIR; tests needing the real Yelp file are skipped without it."""
    folder = os.environ.get("LIMETHEORY_DATA_DIR")
    if not folder:
        pytest.skip("LIMETHEORY_DATA_DIR is not set (CI sets it to the folder holding the Yelp csv)")
    return folder


@pytest.fixture(scope="module")
def yelp(data_dir):
    """The paper's Yelp reviews as (texts, stars): a list of str and an array of labels (skipped without the data)."""
    import limetheory as lt  # only here: the brute-force references above use no package code

    reviews = lt.load_yelp_reviews()
    return list(reviews.text), reviews.stars.to_numpy()


@pytest.fixture(scope="session")
def yelp_logistic(data_dir):
    """TF-IDF + logistic regression (max_iter=1000) fitted once per worker on the Yelp reviews; read-only for tests."""
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline

    import limetheory as lt

    reviews = lt.load_yelp_reviews()
    return make_pipeline(TfidfVectorizer(), LogisticRegression(max_iter=1000)).fit(list(reviews.text), reviews.stars)


# every collected test with its markers, before `-m` deselects any (tests/test_slow_marker.py reads it): tryfirst, so
# that this runs before pytest's own deselection by marker
COLLECTED = pytest.StashKey[list]()


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    config.stash[COLLECTED] = [
        (item.nodeid, getattr(item, "originalname", item.name), any(m.name == "slow" for m in item.iter_markers()))
        for item in items
    ]
