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
    coefficients = rng.normal(size=design.size)
    masks, s = _all_masks(d)
    moments = design.moments(coefficients, np.arange(1, d + 1))
    # tol: 1e3 eps on means of order 1 to 4. Both sides add at most size + 4 d terms bounded by the features of every
    # word kept times |coefficients|, a bound of 940 to 98000 eps for these designs (the index's cube dominates);
    # measured: 1.5 to 68 eps for the moments, 2 to 32 for the values, so 1e3 eps sits between them, 15x above
    for size in range(1, d + 1):
        z = masks[s == size]
        values = design.features(z, np.full(len(z), size)) @ coefficients
        x = np.column_stack([np.ones(len(z)), z])
        expected = (x * values[:, None]).mean(axis=0)
        np.testing.assert_allclose(moments[size - 1], expected, rtol=0, atol=1e3 * np.finfo(float).eps)
        # the fitted control without the features: the same sums in another order
        np.testing.assert_allclose(
            design.values(z.astype(bool), np.full(len(z), size), coefficients),
            values,
            rtol=0,
            atol=1e3 * np.finfo(float).eps,
        )
