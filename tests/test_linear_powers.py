"""E[g^p | s] and E[z_k g^p | s] of a linear model of the TF-IDF (``theory.linear.linear_powers``) against enumeration.

The reference is independent of the module: every one of the 2^d masks (d <= 10) is scored by the model's formula
(columns summed, the row normalised, the coefficients applied) and the moments are plain averages over the masks
with d - s kept words.  Documents with repeated words (equal weights) and columns shared by several lime words (a
lower-casing vectorizer's "The" and "the"), for the L2 and L1 norms and none.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from limetheory.theory.linear import linear_powers
from limetheory.theory.linear.linear_powers import power_moments

#: the error allowed, relative to max |g|^p over the masks: the rule over u is accurate to about 3e-15 relative on
#: each R^{-qρ} (module docstring), the sums over the sets lose at most a factor 2 per deflation step to
#: cancellation and the powers mix signs (terms up to max |g|^p); the L1 norm's 1/R³ was measured at 6e-14 at worst
#: over 24 documents, so 1e-12 leaves a margin of 16 over the measured worst
TOLERANCE = 1e-12


def model_on_mask(z, lam, t, groups, norm, b):
    """g on one mask, from the columns: an implementation that shares nothing with the module."""
    kept = t * z
    labels = np.arange(len(t)) if groups is None else np.asarray(groups)
    columns = np.unique(labels)
    sums = np.array([kept[labels == c].sum() for c in columns])
    coefficients = np.array([lam[labels == c][0] for c in columns])
    size = {"l2": np.sqrt((sums**2).sum()), "l1": sums.sum(), None: 1.0}[norm]
    return b + (coefficients @ sums / size if size > 0 else 0.0)


def enumerated(lam, t, groups, norm, b, powers):
    d = len(t)
    masks = np.array(list(itertools.product([0, 1], repeat=d)))
    g = np.array([model_on_mask(z, lam, t, groups, norm, b) for z in masks])
    mean, per_word = np.zeros((d, powers)), np.zeros((d, powers, d))
    for s in range(1, d + 1):
        rows = masks.sum(axis=1) == d - s
        for p in range(1, powers + 1):
            mean[s - 1, p - 1] = np.mean(g[rows] ** p)
            per_word[s - 1, p - 1] = np.mean(masks[rows] * (g[rows] ** p)[:, None], axis=0)
    return mean, per_word, np.abs(g).max()


DOCUMENTS = [
    # (tfidf, lam, groups): repeated weights, invisible words (tfidf 0), shared columns
    ([1.0, 2.0, 1.0, 0.5], [1.0, -2.0, 0.5, 3.0], None),
    ([1.0, 1.0, 1.0, 1.0, 1.0, 2.0], [0.7, -0.7, 0.7, 1.5, -3.0, 0.2], None),
    ([0.0, 1.3, 2.6, 1.3, 0.0, 0.9, 0.9], [0.0, 2.0, -1.0, 0.4, 0.0, -2.5, 1.1], None),
    ([1.0, 1.0, 2.0, 0.7, 3.1, 0.7, 1.0, 2.2], [1.2, 1.2, -0.8, 2.0, 0.3, 2.0, -1.7, 0.9], [0, 0, 1, 2, 3, 2, 4, 5]),
    (
        [0.4, 1.1, 0.4, 0.0, 2.5, 1.1, 1.1, 0.9, 3.3, 0.4],
        [2.1, -1.3, 2.1, 0.0, 0.6, -1.3, -1.3, 1.9, -0.4, 2.1],
        [0, 1, 0, -1, 2, 1, 1, 3, 4, 0],
    ),  # fmt: skip
]


@pytest.mark.parametrize("norm", ["l2", "l1", None])
@pytest.mark.parametrize("document", range(len(DOCUMENTS)))
def test_moments_equal_enumeration(norm, document):
    t, lam, groups = (np.asarray(a, dtype=float) if a is not None else None for a in DOCUMENTS[document])
    if groups is not None:
        groups = groups.astype(int)
    b = -0.35 + 0.1 * document
    mean, per_word = power_moments(lam, t, intercept=b, groups=groups, norm=norm, max_power=3)
    _assert_equal_to_enumeration(mean, per_word, enumerated(lam, t, groups, norm, b, 3))


def _assert_equal_to_enumeration(mean, per_word, reference):
    """Each power p within TOLERANCE of max|g|^p (the enumeration's largest |g|, at least 1)."""
    ref_mean, ref_word, top = reference
    for p in range(1, mean.shape[1] + 1):
        scale = TOLERANCE * max(top, 1.0) ** p
        np.testing.assert_allclose(mean[:, p - 1], ref_mean[:, p - 1], rtol=0, atol=scale)
        np.testing.assert_allclose(per_word[:, p - 1], ref_word[:, p - 1], rtol=0, atol=scale)


def test_random_documents_equal_enumeration():
    rng = np.random.default_rng(7)
    for trial in range(12):
        d = int(rng.integers(2, 11))
        t = rng.choice([0.0, 0.5, 1.0, 1.0, 2.0, 3.7], size=d)
        lam = 3 * rng.normal(size=d)
        norm = ("l2", "l1", None)[trial % 3]
        b = float(rng.normal())
        mean, per_word = power_moments(lam, t, intercept=b, norm=norm, max_power=4)
        _assert_equal_to_enumeration(mean, per_word, enumerated(lam, t, None, norm, b, 4))


def test_deflation_equals_products_without_the_word():
    """At d = 60 (no enumeration), the two-sided division by a word's factor equals the product of the others.

    The reference multiplies the other words' factors afresh (positive terms in τ⁰: no cancellation); the
    deflation must agree to rounding at every size, where a one-sided (upward) division loses C(60, 30) eps.
    """
    rng = np.random.default_rng(3)
    d = 60
    t = rng.choice([1.0, 1.5, 2.0, 3.0, 6.0], size=d) * rng.uniform(0.8, 1.2, size=d)
    lam = 2 * rng.normal(size=d)
    _, per_word = power_moments(lam, t, intercept=0.0, max_power=3)
    for k in (0, 17, 59):
        others = np.arange(d) != k
        # E[z_k F^p | s] = P(k kept | s) E[F^p | s, k kept]: the groups trick makes word k a column of its own
        # whose presence is forced by conditioning on it: compute E[F^p | k kept, a - 1 others kept] directly
        reference = _with_word_kept(lam, t, k, others)
        kept = d - np.arange(1, d + 1)
        for p in range(1, 4):
            expected = kept / d * reference[kept - 1, p - 1]
            expected[kept == 0] = 0.0
            np.testing.assert_allclose(per_word[:, p - 1, k], expected, rtol=0, atol=1e-12 * np.abs(lam).sum() ** p)


def _with_word_kept(lam, t, k, others):
    """E[F^p | word k kept and a of the others kept], a = 0..d-1, from the module's product kernel of the others."""
    d = t.size
    scaled = t / np.sqrt((t**2).sum())
    omega, w = scaled**2, lam * scaled
    nodes, base = linear_powers.trapezoidal_power_quadrature(float(omega.min()), 1.0)
    order = 4
    weights = np.zeros((nodes.size, order))
    for q in range(1, order):
        weights[:, q] = base * nodes ** (q / 2 - 1) / math.gamma(q / 2)
    x = np.exp(-np.outer(nodes, omega))
    product = linear_powers._product_kernel(np.ascontiguousarray(x[:, others]), np.ascontiguousarray(w[others]), order)
    series = np.array([w[k] ** q / math.factorial(q) for q in range(order)])
    out = np.zeros((d, 3))
    for a in range(d):
        total = np.zeros(order)
        for q in range(1, order):
            terms = sum(series[r] * product[:, a, q - r] for r in range(q + 1))
            total[q] = math.factorial(q) * weights[:, q] @ (x[:, k] * terms) / math.comb(d - 1, a)
        out[a] = total[1:]
    return out


def test_no_visible_word_is_the_intercept():
    mean, per_word = power_moments([1.0, 2.0, 3.0], [0.0, 0.0, 0.0], intercept=0.5)
    np.testing.assert_array_equal(mean, np.broadcast_to([0.5, 0.25, 0.125], (3, 3)))
    kept = (3 - np.arange(1, 4)) / 3
    np.testing.assert_allclose(per_word[:, 1, 0], 0.25 * kept, rtol=1e-15)


@pytest.mark.parametrize(
    "kwargs, error",
    [
        (dict(max_power=0), ValueError),
        (dict(max_power=5), ValueError),
        (dict(max_power=1.5), TypeError),
        (dict(norm="l3"), ValueError),
        (dict(intercept=float("nan")), ValueError),
        (dict(intercept=True), ValueError),
        (dict(groups=[0, 0, 1]), ValueError),  # a shared column with two coefficients
    ],
)
def test_bad_arguments(kwargs, error):
    with pytest.raises(error):
        power_moments([1.0, 2.0, 3.0], [1.0, 1.0, 2.0], **kwargs)


def test_too_many_words():
    d = linear_powers.MAX_POWER_WORDS + 1
    with pytest.raises(ValueError, match="at most"):
        power_moments(np.ones(d), np.ones(d))
