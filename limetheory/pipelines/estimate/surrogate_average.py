r"""The cheap average of one nonlinear surrogate's Γ, and the per-word surrogates refitted between batches.

A surrogate g used as a control in some batches, with a coefficient :math:`c_i` fitted on earlier masks for each
mask i, leaves :math:`\sum_b W_b \bar c_b\, \mathbb{E}_{q_b}[x g]` to add back (:math:`\bar c_b` the mean of
:math:`c_i` over the model's masks of stratum b), and that expectation is averaged over masks the model never sees
(with a polynomial fit of g as their control, fitted on the first cheap batch and then held).  A
:class:`SurrogateAverage` holds one surrogate's sums; a column whose surrogate is replaced between batches holds one
per surrogate, each with its own cheap masks (their averages are independent, so their variances add).

On a long document scored on strings (explain's default call: strata binned, words budgeted) the surrogate is
refitted before every batch after the first on all the masks scored so far (:func:`refit_word_surrogates`): a
per-word :class:`limetheory.pipelines.estimate.word_surrogate.WordSurrogate` needs about a thousand masks to beat
the polynomial controls by much, more than the pilot's few hundred, and each batch's terms still use a surrogate
fitted on other masks only. The first surrogate that pays on held-out masks is adopted, and later refits fit its
link on all the masks (no held-out comparison: one fit instead of three with two links). At lime's cost the ledger
of :mod:`limetheory.pipelines.estimate.own_work` charges every fit and cheap mask, and stops the refits and cheap
masks at its allowance. Measured before the ledger (VADER on the 1043-token document, d = 488; the largest standard
error over lime's first-order sd, the note's; 2026-11-30): at random_state 0-5 1.10, 0.94, 0.70, 0.68, 0.71, 0.78
against 1.10, 0.99, 0.99, 1.00, 0.97, 1.00 without them; on average 0.903 against 1.153 at 6-11 and 0.870 against
1.002 at 12-17 (-18% over the 18), at about the same CPU (fewer words scored pay for the fits and about 150000 cheap
masks).
"""

from __future__ import annotations

import numpy as np

from .batch_sums import accumulate, unique_sizes
from .controls import NormalEquations, control_values
from .link_surrogate import choose_link
from .word_surrogate import fit_word_surrogate

#: a refitted per-word surrogate replaces the current one when it divides the held-out residual variance of the
#: polynomial design by at least this (its half of the masks fits it worse than all of them will)
WORD_SURROGATE_GAIN = 1.05
#: the ridge of the per-word fit (``word_surrogate.fit_word_surrogate``): the algebraic link on 1000 and 2000 masks
#: of VADER's long document left 0.53 and 0.32 of the cubic's within-stratum variance at 0.1, 0.39 and 0.42 at 0.03,
#: 0.68 and 0.45 at 0.3; on the estimate's own masks 0.3 did as well as 0.1 (0.61-0.86)
WORD_RIDGE = 0.1


class SurrogateAverage:
    """One surrogate's cheap average: per-stratum sums of its terms, and the coefficients it was used with.

    Parameters
    ----------
    surrogate : object
        With ``values(z, sizes)`` and ``design`` (the :class:`limetheory.pipelines.estimate.controls.Design` of the
        polynomial control of its cheap average).
    strata : int
        The number of strata.
    d : int
        The number of words.
    """

    def __init__(self, surrogate, strata, d):
        self.surrogate = surrogate
        self.coefficient_sum = np.zeros(strata)  # Σ over the model's masks of stratum b of the coefficient used
        self.terms = np.zeros((strata, d + 1))
        self.mapped = np.zeros((strata, d + 1))
        self.squares = np.zeros((strata, d + 1))
        self.counts = np.zeros(strata)
        self.fit = None  # the polynomial fit of g: its cheap average's control

    def add(self, z, sizes, bins, weights, pattern):
        """Cheap masks: the first batch fits the control (and is not averaged: False), later ones add to the sums."""
        design = self.surrogate.design
        g = self.surrogate.values(z, sizes)
        if self.fit is None:
            fit = NormalEquations(design.size)
            fit.add(design.features(z, sizes), g, weights)
            self.fit = fit.solve()[:, 0]
            return False
        unique, where = unique_sizes(sizes)
        accumulate(z, g - design.values(z, sizes, self.fit), bins, pattern, self.mapped, self.squares,
                   table=design.moments(self.fit, unique), where=where, sum_terms=self.terms)  # fmt: skip
        self.counts += np.bincount(bins, minlength=len(self.counts))
        return True

    def mean(self):
        """The estimate of E_qb[x g] per stratum (0 before any mask)."""
        return self.terms / np.maximum(self.counts, 1)[:, None]

    def bin_variance(self):
        """The variance of one cheap term per stratum (after the control's map), shape (strata, d + 1)."""
        m = np.maximum(self.counts, 1)
        var = (self.squares - self.mapped**2 / m[:, None]) / np.maximum(m - 1, 1)[:, None]
        return np.clip(var, 0.0, None)

    def part(self, weight, n):
        """(Γ's part, its variance): Σ_b W_b c̄_b mean_b and Σ_b (W_b c̄_b)² var_b / m_b, n the model's masks."""
        if not self.counts.sum() > 0:
            return np.zeros(self.terms.shape[1]), np.zeros(self.terms.shape[1])
        factor = weight * (self.coefficient_sum / n)
        variance = (factor[:, None] ** 2 * self.bin_variance() / np.maximum(self.counts, 1)[:, None]).sum(axis=0)
        return factor @ self.mean(), variance


def refit_word_surrogates(estimator):
    """Fit each column a per-word surrogate on the retained masks; the ones that pay replace the current surrogate.

    A column that adopted one before refits its link on all the masks and uses it. Otherwise half the masks fit a
    surrogate, the other half compare the held-out residual of the polynomial design with and without it (both
    fitted on the first half, the estimator's weights); when it divides that residual variance by
    ``WORD_SURROGATE_GAIN`` or more (or ``surrogate=True``), it is fitted again on all the masks, and the column's
    control fit is rebuilt on them with its values (weighted least squares; every batch from now on uses it, none
    that came before). The fits weigh each mask by W_b / N_b (lime's law) times ψ(s): the variance that matters sits
    where lime's weights are large. Returns the new :class:`SurrogateAverage` per column (None where the surrogate
    is kept), whose cheap controls are still to fit.
    """
    z, sizes, bins, f = estimator.retained[0] if len(estimator.retained) == 1 else (
        tuple(np.concatenate([part[i] for part in estimator.retained]) for i in range(4)))  # fmt: skip
    z = np.asarray(z, dtype=bool)
    counts = np.bincount(bins, minlength=estimator.strata.count)
    lime_weights = estimator.strata.weight[bins] / counts[bins] * len(bins)
    weights = lime_weights / lime_weights.mean()  # the surrogate's fit: lime's law over the strata
    e = control_values(estimator.controls, z)
    half = estimator.rng.random(len(z)) < 0.5
    estimator.own_work.refit(len(z), estimator.d)
    added = []
    for c, column in enumerate(estimator.columns):
        link = choose_link(f[:, c])
        if link is None:
            added.append(None)
            continue
        target = f[:, c] - e @ column.control_coefficients
        design = column.design
        phi = design.features(z, sizes)
        if c in estimator.word_links:  # a surrogate that paid on held-out masks before: refitted on all, its link
            surrogate = fit_word_surrogate(z, sizes, f[:, c], weights, estimator.word_links[c], WORD_RIDGE)
            estimator.own_work.fit(surrogate.grams, len(z), estimator.d)
            added.append(_adopt(estimator, c, column, surrogate, phi, target, lime_weights, z, sizes))
            continue
        # outputs within [-1, 1]: the link of the two that pays more on the held-out half
        links = ("atanh", "algebraic") if link == "atanh" else (link,)
        gains = []
        for candidate in links:
            g = fit_word_surrogate(z[half], sizes[half], f[half, c], weights[half], candidate, WORD_RIDGE)
            estimator.own_work.fit(g.grams, int(half.sum()), estimator.d)
            gains.append(_gain(phi, g.values(z, sizes), target, lime_weights, half))
        link = links[int(np.argmax(gains))]
        if estimator.use_surrogate != True and max(gains) < WORD_SURROGATE_GAIN:  # noqa: E712 (True, or "auto")
            added.append(None)
            continue
        surrogate = fit_word_surrogate(z, sizes, f[:, c], weights, link, WORD_RIDGE)
        estimator.own_work.fit(surrogate.grams, len(z), estimator.d)
        added.append(_adopt(estimator, c, column, surrogate, phi, target, lime_weights, z, sizes))
    return added


def _adopt(estimator, c, column, surrogate, phi, target, lime_weights, z, sizes):
    """Column ``c`` uses ``surrogate`` from the next batch on: its control fit rebuilt with the surrogate's values."""
    estimator.word_links[c] = surrogate.link
    fit = NormalEquations(column.design.size + 1)
    fit.add(np.column_stack([phi, surrogate.values(z, sizes)]), target, lime_weights)
    column.fit = fit
    column.use(SurrogateAverage(surrogate, estimator.strata.count, estimator.d))
    return column.averages[-1]


def _gain(phi, g, target, weights, train):
    """The held-out residual variance of the design alone over that of the design and g (both fitted on ``train``)."""
    test = ~train
    plain = NormalEquations(phi.shape[1])
    plain.add(phi[train], target[train], weights[train])
    both = np.column_stack([phi, g])
    with_g = NormalEquations(both.shape[1])
    with_g.add(both[train], target[train], weights[train])
    w = weights[test]
    plain_residual = target[test] - phi[test] @ plain.solve()[:, 0]
    g_residual = target[test] - both[test] @ with_g.solve()[:, 0]
    return float(w @ plain_residual**2) / max(float(w @ g_residual**2), 1e-300)
