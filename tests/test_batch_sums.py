"""The estimate's compiled per-stratum sums (pipelines.estimate.batch_sums) against numpy, and their checks."""

from __future__ import annotations

import numpy as np
import pytest

from limetheory.pipelines.estimate.batch_sums import accumulate
from limetheory.pipelines.reading.mask_samples import apply_sigma_inverse


def _numpy_sums(z, r, bins, pattern, table, where, extra, coefficient, weight, strata):
    x = np.column_stack([np.ones(len(z)), z])
    terms = x * r[:, None] + table[where]
    shifted = terms + coefficient * extra[bins]
    images = apply_sigma_inverse(pattern, shifted)
    out = [np.zeros((strata, z.shape[1] + 1)) for _ in range(3)]
    np.add.at(out[0], bins, terms)
    np.add.at(out[1], bins, images)
    np.add.at(out[2], bins, weight[:, None] * images**2)
    return out


@pytest.mark.parametrize("seed", range(3))
def test_the_compiled_sums_are_numpy_s_up_to_the_order_of_additions(seed):
    rng = np.random.default_rng(seed)
    m, d, strata = 700, 9, 4
    z = rng.random((m, d)) < 0.5
    r, weight = rng.normal(size=m), rng.random(m)
    bins = np.sort(rng.integers(0, strata, m))
    table, where = rng.normal(size=(5, d + 1)), rng.integers(0, 5, m)
    extra, pattern = rng.normal(size=(strata, d + 1)), (1.3, -0.2, 2.1, 0.4)
    terms, images, squares = (np.zeros((strata, d + 1)) for _ in range(3))
    accumulate(z, r, bins, pattern, images, squares, table=table, where=where, extra=extra, extra_coef=0.7,
               square_weight=weight, sum_terms=terms)  # fmt: skip
    expected = _numpy_sums(z, r, bins, pattern, table, where, extra, 0.7, weight, strata)
    # each entry adds up to m contributions in another order than numpy's: m eps relative (and m eps absolute, for
    # entries that cancel towards 0) bounds the difference for sums without much cancellation, as these are
    # (measured: at most 4.2 eps times |sum| + 1 over the three seeds)
    for ours, theirs in zip((terms, images, squares), expected, strict=True):
        np.testing.assert_allclose(ours, theirs, rtol=m * np.finfo(float).eps, atol=m * np.finfo(float).eps)


def test_shapes_that_the_compiled_loop_would_overrun_are_refused():
    z = np.ones((3, 2), dtype=bool)
    good = np.zeros((2, 3))
    with pytest.raises(ValueError, match="sum_squares must be a C-contiguous float64 array of shape \\(2, 3\\)"):
        accumulate(z, np.ones(3), np.zeros(3, int), (1, 0, 1, 0), good, np.zeros((1, 3)))
    with pytest.raises(ValueError, match="bins in 0..1"):
        accumulate(z, np.ones(3), np.array([0, 1, 2]), (1, 0, 1, 0), good, np.zeros((2, 3)))
    with pytest.raises(ValueError, match="where must have one entry per mask, in 0..0"):
        accumulate(z, np.ones(3), np.zeros(3, int), (1, 0, 1, 0), good, np.zeros((2, 3)),
                   table=np.zeros((1, 3)), where=np.array([0, 0, 1]))  # fmt: skip
    with pytest.raises(ValueError, match="extra must have shape \\(2, 3\\)"):
        accumulate(z, np.ones(3), np.zeros(3, int), (1, 0, 1, 0), good, np.zeros((2, 3)), extra=np.zeros((1, 3)))
