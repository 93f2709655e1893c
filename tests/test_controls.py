"""The control variates' exact conditional moments (limetheory.pipelines.estimate.controls), against enumeration."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from limetheory.pipelines.estimate.controls import Design, index_power_moments, top_pairs
from limetheory.pipelines.estimate.strata import kept_probabilities


def _all_masks(d):
    masks = np.array(list(itertools.product([0.0, 1.0], repeat=d)))
    return masks, d - masks.sum(axis=1).astype(int)


def test_kept_probabilities_are_the_share_of_kept_sets():
    d = 7
    masks, s = _all_masks(d)
    for count in (3, 4):
        probabilities = kept_probabilities(d, count)
        for r in range(count):
            for size in range(1, d + 1):
                kept = masks[s == size][:, : r + 1].all(axis=1).mean()
                assert probabilities[r][size - 1] == pytest.approx(kept, abs=4 * np.finfo(float).eps)


@pytest.mark.parametrize("offset", [0.0, -0.7, 2.5])
def test_index_powers_have_their_exact_conditional_means(offset):
    d = 7
    a = np.random.default_rng(1).normal(size=d)
    masks, s = _all_masks(d)
    mean, per_word = index_power_moments(a, offset, np.arange(1, d + 1), d)
    index = offset + masks @ a
    scale = (abs(offset) + np.abs(a).sum()) ** 3  # the largest |index|³: the sums' rounding is relative to it
    for size in range(1, d + 1):
        z, values = masks[s == size], index[s == size]
        for n, p in enumerate((2, 3)):
            assert abs(mean[size - 1, n] - (values**p).mean()) <= 64 * np.finfo(float).eps * scale
            np.testing.assert_allclose(
                per_word[size - 1, n],
                (z * (values**p)[:, None]).mean(axis=0),
                rtol=0,
                atol=64 * np.finfo(float).eps * scale,
            )


@pytest.mark.parametrize("kind", ["words", "directions", "pairs", "index", "all"])
def test_design_moments_are_the_means_of_x_times_the_features(kind):
    d = 7
    rng = np.random.default_rng(2)
    weights = rng.normal(size=d)
    options = dict(
        directions=rng.normal(size=(d, 2)) if kind in ("directions",) else None,
        pairs=top_pairs(weights, 4) if kind in ("pairs", "all") else None,
        index=weights if kind in ("index", "all") else None,
        index_offset=0.3,
    )
    design = Design(d, 3, options["directions"], options["pairs"], 2, options["index"], options["index_offset"], 3)
    # tol: 1e3 eps on means of order 1 to 4. Both sides add at most size + 4 d terms bounded by the features of every
    # word kept times |coefficients|, a bound of 940 to 98000 eps for these designs (the index's cube dominates);
    # measured: 1.5 to 68 eps for the moments, 2 to 32 for the values, so 1e3 eps sits between them, 15x above
    _check_against_every_mask(design, d, rng, moments_atol=1e3 * np.finfo(float).eps,
                              values_atol=1e3 * np.finfo(float).eps)  # fmt: skip


def _check_against_every_mask(design, d, rng, moments_atol, values_atol):
    """For random coefficients: the design's moments are the means over every mask of x times its features, and its
    values (the fitted control without the features: the same sums in another order) equal features @ coefficients."""
    coefficients = rng.normal(size=design.size)
    masks, s = _all_masks(d)
    moments = design.moments(coefficients, np.arange(1, d + 1))
    for size in range(1, d + 1):
        z = masks[s == size]
        values = design.features(z, np.full(len(z), size)) @ coefficients
        x = np.column_stack([np.ones(len(z)), z])
        expected = (x * values[:, None]).mean(axis=0)
        np.testing.assert_allclose(moments[size - 1], expected, rtol=0, atol=moments_atol)
        np.testing.assert_allclose(
            design.values(z.astype(bool), np.full(len(z), size), coefficients), values, rtol=0, atol=values_atol
        )


@pytest.mark.parametrize("norm", ["l2", None])
def test_design_with_exact_powers_has_the_means_of_x_times_its_features(norm):
    """A decision function's powers g, g², g³ times polynomials in t (``controls.ExactPowers``): the design's moments
    are the means over every mask of x times its features, with the index, pairs and words beside them."""
    from limetheory.pipelines.estimate.controls import ExactPowers
    from limetheory.theory.linear.linear_powers import power_moments

    d = 7
    rng = np.random.default_rng(4)
    lam, tfidf = rng.normal(size=d), np.array([1.0, 2.0, 1.0, 0.0, 3.0, 1.0, 0.5])

    def g(z):
        kept = np.asarray(z, dtype=float) * tfidf
        size = np.sqrt((kept**2).sum(axis=1)) if norm == "l2" else np.ones(len(kept))
        return 0.4 + np.divide(kept @ lam, size, out=np.zeros(len(kept)), where=size > 0)

    powers = ExactPowers(g, *power_moments(lam, tfidf, intercept=0.4, norm=norm))
    design = Design(d, 3, None, top_pairs(lam, 3), 2, lam, 0.1, 3, powers, 3)
    assert design.n_exact == 9 and design.size == 3 * (d + 1) + 2 * 3 + 6 + 9
    # tolerance: the moments of g³ are accurate to 1e-12 max|g|³ (tests/test_linear_powers.py), here max|g| <= 3.5
    # and the coefficients are of order one, so 1e-12 x 43 x 9 features; the sums of the enumeration add rounding
    # at 1e3 eps as in the test above
    _check_against_every_mask(design, d, rng, moments_atol=5e-10, values_atol=1e-12)


def test_exact_powers_enter_explains_controls_from_15_words(yelp_logistic):
    """explain's control for a logistic regression's probabilities carries the exact powers of its decision function
    from 15 words on (below, explain enumerates), equal to the means over masks of the real pipeline's values."""
    import limetheory as lt
    from limetheory.pipelines.estimate.controls import ExactPowers
    from limetheory.pipelines.estimate.labels import explain_controls

    model = yelp_logistic  # TF-IDF + logistic regression fitted on every review (conftest, once per worker)
    text = "The food was good, the service was not. Good prices though; the place was loud and our waiter rude, sadly."
    d = len(lt.local_dictionary(text))
    assert d >= 15
    ((g, beta),) = explain_controls(model, text, "predict_proba", 1, 0.25)
    assert isinstance(g, ExactPowers) and g.count == 3
    rng = np.random.default_rng(0)
    for s in (1, 7, d - 1):
        z = np.ones((4000, d), dtype=bool)
        for row in z:
            row[rng.choice(d, s, replace=False)] = False
        truth = model.decision_function(lt.perturbed_documents(text, z.astype(np.int8)))
        np.testing.assert_allclose(g(z), truth, rtol=0, atol=1e-12)  # the control is the pipeline's own score
        # E[g² | s] within 5 standard errors of the sample mean (an independent, statistical check at d = 15;
        # the exact check is enumeration in tests/test_linear_powers.py)
        squares = truth**2
        assert abs(g.mean[s - 1, 1] - squares.mean()) <= 5 * squares.std() / np.sqrt(len(z)) + 1e-12
    small = "good food, bad service"
    ((g_small, _),) = explain_controls(model, small, "predict_proba", 1, 0.25)
    assert not isinstance(g_small, ExactPowers)


def test_reading_powers_refuses_what_it_cannot_compute():
    """None (the decision function then stays a held control) for several blocks, a mask token, too few or too many
    words, and weights beyond the rule over u; the moments otherwise."""
    from types import SimpleNamespace

    from limetheory.pipelines.reading.linked_reading import MAX_POWER_WORDS, reading_powers

    def reading(values, parts=1, mask_weight=0.0):
        values = np.asarray(values, dtype=float)
        part = SimpleNamespace(lam=np.linspace(-1, 1, len(values)), values=values, groups=np.arange(len(values)),
                               norm="l2")  # fmt: skip
        return SimpleNamespace(parts=(part,) * parts, mask_weight=mask_weight, sign=1.0, intercept=0.2)

    words = np.ones(16)
    assert reading_powers(reading(words)) is not None
    assert reading_powers(reading(words, parts=2)) is None
    assert reading_powers(reading(words, mask_weight=0.5)) is None
    assert reading_powers(reading(np.ones(14))) is None
    assert reading_powers(reading(np.ones(14)), min_words=2) is not None
    assert reading_powers(reading(np.ones(MAX_POWER_WORDS + 1))) is None
    tiny = words.copy()
    tiny[0] = 1e-120  # below the rule's smallest ratio of weights (1e-100)
    assert reading_powers(reading(tiny)) is None
