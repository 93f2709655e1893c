r"""The batches of a long document scored on strings: which bins of s get the masks (explain's default call).

On a document beyond ``strata.MAX_STRATA`` words whose strings' words are budgeted (``estimate_limit(max_words=)``,
lime's cost), a model that flips on rare masks (VADER on 1043 tokens, d = 488: about 1% of the masks keeping 8% to
38% of the words carry most of the variance) gives each bin's spread from a few masks that mostly did or did not
see a flip.  Three changes to Neyman's rule of the other documents, each measured on that document at
``random_state`` 0 to 5 (the largest standard error over lime's first-order sd, intercept included: 1.125 on
average before, 1.006 with the three; at random_state 0 to 17, 1.181 and 1.055), are here:

* **minimax weights** (:func:`minimax_spread`): Neyman's rule on the spreads averaged over the coefficients
  minimises their mean variance; the target is the largest ratio of a standard error to lime's sd, so the spreads
  are weighted over the coefficients by multiplicative weights towards the largest ratios (each bin's variance per
  coefficient from the batches' sums, pooled with its neighbours, over lime's variance);
* **filling** (:func:`filling`): each batch after the first brings the bins towards Neyman's allocation of all the
  masks so far, from the latest spreads, instead of allocating itself alone (the final allocation then follows the
  latest spreads, not an average of the noisier earlier ones);
* batches that at most double the masks (``limit_estimate.WORDS_BATCH_GROWTH``), so that more of them are
  allocated from spreads read on more masks.
"""

from __future__ import annotations

import numpy as np

from .strata import allocate

#: multiplicative-weights steps of :func:`minimax_spread`, and the power of the ratios in each step's update
MINIMAX_STEPS = 30
MINIMAX_POWER = 2.0


def pooled_columns(values, window):
    """Each row of ``values`` (bins x columns) averaged with its ``window`` neighbours on either side.

    Examples
    --------
    >>> pooled_columns(np.array([[0.0], [0.0], [3.0], [0.0]]), 1).round(3).ravel().tolist()
    [0.0, 1.0, 1.0, 1.5]
    """
    ones = np.ones(2 * window + 1)
    norm = np.convolve(np.ones(len(values)), ones, "same")
    out = np.empty_like(values, dtype=float)
    for j in range(values.shape[1]):
        out[:, j] = np.convolve(values[:, j], ones, "same") / norm
    return out


def minimax_weights(variance, weight, cost, steps=MINIMAX_STEPS, power=MINIMAX_POWER):
    r"""Weights λ over the columns: Neyman's rule on their weighted spreads lowers the largest column's variance.

    The spreads are :math:`\sqrt{\sum_k \lambda_k v_{bk}}`, a column's variance :math:`\sum_b W_b^2 v_{bk} / n_b`.
    ``variance`` (bins x columns): :math:`v_{bk}`, each already over its target's square; ``weight``: :math:`W_b`;
    ``cost``: a mask's cost in each bin.  Multiplicative weights: from equal λ, allocate by Neyman's rule with cost
    (:math:`n_b \propto W_b s_b / \sqrt{c_b}`), compute each column's variance there, and multiply λ_k by (its
    variance over the largest) to the ``power``.

    Examples
    --------
    >>> v = np.array([[1.0, 0.0], [0.0, 4.0]])  # column 1 is 4 times column 0's, in the other bin
    >>> lam = minimax_weights(v, np.ones(2), np.ones(2))
    >>> bool(lam[1] > lam[0])
    True
    """
    lam = np.full(variance.shape[1], 1.0 / variance.shape[1])
    for _ in range(steps):
        target = weight * np.sqrt(variance @ lam) / np.sqrt(cost)
        n = np.maximum(target / max(float(target @ cost), 1e-300), 1e-12)
        var = (weight[:, None] ** 2 * variance / n[:, None]).sum(axis=0)
        if not var.max() > 0:
            break
        lam = lam * (var / var.max()) ** power
        lam /= lam.sum()
    return lam


def minimax_spread(estimator, states, window):
    """Each bin's spread for Neyman's rule against the largest standard error over lime's sd.

    ``states``: the estimator's ``state()``; each bin's variances are pooled with the ``window`` bins on either side,
    and the spreads averaged over the output columns.
    """
    n = np.maximum(estimator.counts, 1)[:, None]
    cost = 1.0 / estimator.budget + estimator.bin_words() / estimator.max_words
    spreads = []
    for column, (_, _, _, lime_std, *_) in zip(estimator.columns, states, strict=True):
        var_bin = np.clip((column.sum_squares - column.sum_mapped**2 / n) / np.maximum(n - 1, 1), 0.0, None)
        ratio = pooled_columns(var_bin, window) / np.maximum(lime_std, 1e-300) ** 2
        spreads.append(np.sqrt(ratio @ minimax_weights(ratio, estimator.strata.weight, cost)))
    return np.mean(spreads, axis=0)


def filling(estimator, size, neyman):
    """A batch of ``size`` masks that fills each bin up to Neyman's allocation of all the masks, earlier and these.

    Neyman's allocation from ``neyman`` (the latest spreads, over the root of each bin's cost) of the masks scored
    so far plus this batch is the target; each live bin gets two masks and the rest go to the bins in proportion
    to their shortfall below it.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> from limetheory.pipelines.estimate.strata import make_strata
    >>> strata = make_strata(4, 0.25)
    >>> estimator = SimpleNamespace(sampled=strata, counts=np.array([2.0, 2.0, 10.0, 2.0]))
    >>> filling(estimator, 16, np.ones(4) / strata.weight).tolist()  # two each, 8 by the shortfalls (6, 6, 0, 6)
    [4, 4, 2, 4]
    """
    sampled = estimator.sampled
    total = allocate(sampled, int(estimator.counts.sum()) + size, neyman, minimum=0)
    gap = np.where(sampled.live, np.maximum(total - estimator.counts, 0.0), 0.0)
    if not gap.sum() > 0:
        return allocate(sampled, size, neyman)
    share = np.floor(max(size - 2 * int(sampled.live.sum()), 0) * gap / gap.sum()).astype(np.int64)
    return np.where(sampled.live, 2 + share, 0)
