"""The allocation of a long document's batches (``limetheory.pipelines.estimate.allocation``, issue 37).

The minimax weights against a search over all allocations, the filling against its definition, the pooled
variances against the pooled spreads of ``limit_estimate``, and the default call on a long document scored on
strings against its two budgets (calls and words).
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from limetheory.pipelines.estimate import allocation
from limetheory.pipelines.estimate.limit_estimate import _pooled, estimate_limit
from limetheory.pipelines.estimate.strata import MAX_STRATA, allocate, make_strata


def _largest(variance, weight, n):
    return float(((weight[:, None] ** 2 * variance) / n[:, None]).sum(axis=0).max())


@pytest.mark.parametrize("seed", range(6))
def test_minimax_weights_reach_the_best_largest_variance(seed):
    """Three bins, four columns: Neyman's rule on the minimax weights against a grid over all allocations of the same
    cost (steps of 1/400: the grid's best is within about 1% of the optimum, a smooth minimum of a convex function)."""
    rng = np.random.default_rng(seed)
    variance = rng.random((3, 4)) ** 3
    weight, cost = rng.random(3) + 0.1, rng.random(3) + 0.5
    lam = allocation.minimax_weights(variance, weight, cost, steps=200)
    target = weight * np.sqrt(variance @ lam) / np.sqrt(cost)
    ours = _largest(variance, weight, target / (target @ cost))
    # every allocation of the grid at once (a Python loop over its 79401 points took 1 s a seed)
    i, j = np.meshgrid(np.arange(1, 400), np.arange(1, 400), indexing="ij")
    grid = i + j < 400
    spend = np.stack([i[grid], j[grid], 400 - i[grid] - j[grid]]) / 400.0  # the cost spent in each bin, per allocation
    n = spend / cost[:, None]
    best = float(((weight[:, None, None] ** 2 * variance[:, :, None]) / n[:, None, :]).sum(axis=0).max(axis=0).min())
    mean_rule = weight * np.sqrt(variance.mean(axis=1)) / np.sqrt(cost)
    assert ours <= best * 1.02, (ours, best)
    assert ours <= _largest(variance, weight, mean_rule / (mean_rule @ cost)) * (1 + 1e-12)


def test_pooled_columns_are_the_pooled_spreads_squared():
    rng = np.random.default_rng(0)
    spread = rng.random(40)
    for window in (0, 1, 3, 10):
        pooled = allocation.pooled_columns(spread[:, None] ** 2, window)[:, 0]
        np.testing.assert_allclose(pooled, _pooled(spread, window) ** 2, rtol=1e-13)  # tol: the same sums


@pytest.mark.parametrize("seed", range(5))
def test_filling_brings_the_bins_to_neymans_allocation(seed):
    rng = np.random.default_rng(seed)
    strata = make_strata(300, 0.25)
    counts = np.where(strata.live, rng.integers(2, 40, strata.count), 0).astype(float)
    neyman = rng.random(strata.count) + 0.01
    size = int(rng.integers(2 * strata.live.sum(), 3000))
    batch = allocation.filling(SimpleNamespace(sampled=strata, counts=counts), size, neyman)
    live = strata.live
    assert batch.sum() <= size and np.all(batch[live] >= 2) and np.all(batch[~live] == 0)
    total = allocate(strata, int(counts.sum()) + size, neyman, minimum=0)
    gap = np.where(live, np.maximum(total - counts, 0), 0)
    extra = batch - 2 * live
    assert np.all(extra[gap == 0] == 0)  # a bin at or above its share gets its two masks only
    expected = (size - 2 * live.sum()) * gap / gap.sum()
    assert np.all(np.abs(extra - expected) < 1)  # the shortfalls' shares, rounded down


def test_the_default_budget_on_a_long_document_spends_its_calls_within_its_words():
    """A saturating function of 300 words (strata binned) at lime's cost on strings: the calls end within a batch's
    least of the budget (the last batch takes what is left) and the words within their budget."""
    d = 300
    rng = np.random.default_rng(1)
    weights = rng.normal(size=d)
    tokens = rng.integers(1, 4, d).astype(float)
    max_words = 0.5 * 2000 * tokens.sum()

    def score(z):
        return np.tanh(0.2 * (z @ weights))

    e = estimate_limit(score, d, nu=0.25, num_samples=2000, max_calls=2000, random_state=0, progress=False,
                       raise_budget=True, word_tokens=tokens, max_words=max_words)  # fmt: skip
    live = int(make_strata(d, 0.25).live.sum())
    assert d > MAX_STRATA and e.techniques["words"] <= max_words
    assert 2000 - 2 * live < e.calls <= 2000 or "which bound the calls first" in e.note
    assert np.all(np.isfinite(e.stderr)) and np.all(e.stderr > 0)
