r"""The limit of lime's two-stage answer: its feature selection, then its ridge refitted on the selected words.

lime 0.2.0.1 (``LimeBase.explain_instance_with_data``) selects k = ``num_features`` words with its
``feature_selection`` method, then fits ``Ridge(alpha=1)`` with the kernel weights on those columns only and reports
the intercept, the (word, coefficient) list sorted by decreasing \|coefficient\| (Python's stable sort: ties keep the
selection's order), ``score`` (the weighted R² of that fit on its sample) and ``local_pred`` (its prediction at the
document, every word present).  As n grows every sample average tends to its expectation under LIME's law, and all
of it is a function of β = Σ⁻¹Γ (the paper's surrogate with every word kept), except ``score``, which also needs
:math:`\mathbb{E}[\pi f^2]`.

The population objects (tilted law: expectations weighted by π / E[π]).  With V = Var(a), Q = E[a(1 - a)] for
a = 1 - s/d the kept fraction, the π-weighted covariance of the masks is patterned,

.. math::

   G = \operatorname{Cov}_\pi(z) = e I + c \mathbf 1 \mathbf 1^\top,

   e = \frac{d Q}{d - 1}, \qquad c = V - \frac{Q}{d - 1},

and the covariance of the masks with f is :math:`g = \operatorname{Cov}_\pi(z, f) = G \beta_{1:}`.  The least-squares
fit with intercept on a set S of k words (lime's refit without its vanishing ridge) is

.. math::

   b_S = \beta_S + \delta_S \mathbf 1, \qquad \delta_S = \frac{c\, T_{\bar S}}{e + k c},

   T_{\bar S} = \sum_{j \notin S} \beta_j,

its intercept :math:`\mathbb{E}_\pi f - A \sum_{j \in S} b_j` (A = E_π[z_j]) and the variance it explains
:math:`E_S = b_S^\top G_{SS} b_S`; the weighted R² is :math:`E_S / \operatorname{Var}_\pi(f)`.  Σ is never formed, so
the limit is as accurate as the law (:func:`limetheory.theory.law.weighted_law`) at every d.

``feature_selection`` resolves as lime's: ``'none'`` keeps every word; ``'highest_weights'`` keeps the k largest
\|β_j\| (lime's selection ridge, alpha = 0.01, tends to β; ties: the earlier word, lime's stable sort);
``'forward_selection'`` is greedy on E_S (the first of equal gains, lime's strict ``>``); ``'lasso_path'`` is the
LARS lasso path of (G, g) — lime's centred, √π-rescaled data have Gram matrix and correlations n E[π] (G, g), and the
path's active sets do not depend on that factor — and the last point of the path, from its end, with at most k
non-zero coefficients; ``'auto'`` is forward selection for k <= 6, highest weights beyond.

At an exact tie (equal \|β_j\| at the k-th place, equal gains at a greedy step, two LARS events at the same α) the
limit is not one set: at finite n lime's noise breaks the tie, each tied candidate winning with some probability,
and no n makes the choice stable.  The rule here (the earlier word) is lime's own tie rule on exactly equal numbers;
``margin`` reports how far the decisive numbers are from a tie.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np

from .._validation import as_float_array, check_int, check_positive_finite, check_real
from .law import weighted_law

__all__ = ["SelectionLimit", "SelectionProbability", "lime_selection_limit", "selection_probability"]

#: lime 0.2.0.1's feature-selection methods (``lime_base.LimeBase.feature_selection``)
FEATURE_SELECTIONS = ("none", "auto", "highest_weights", "forward_selection", "lasso_path")
#: ``'auto'`` is forward selection up to this many words (lime_base.py)
AUTO_FORWARD_MAX = 6
#: second_moment may fall short of the variance the full surrogate explains only by round-off: the enumerated sums
#: behind both carry a relative error of a few units of 1e-16 per term, 1e-9 leaves a margin of 10⁴ at d = 22
_SECOND_MOMENT_SLACK = 1e-9


@dataclass(frozen=True, eq=False)  # arrays inside: equality is identity
class SelectionLimit:
    r"""The limit of what lime reports after its feature selection and its refit.

    Attributes
    ----------
    method : str
        The method lime runs (``'auto'`` resolved).
    selected : ndarray of int64
        The selected words in the order of lime's ``as_list``: decreasing \|coefficient\|, ties in the selection's
        order.
    coefficients : ndarray
        The refitted coefficients, aligned with ``selected``.
    intercept : float
        The refit's intercept.
    local_pred : float
        The refitted surrogate at the document (every word present): intercept + sum of ``coefficients``.
    score : float or None
        The limit of lime's weighted R² of the refit; None when ``second_moment`` was not given.
    margin : float
        The smallest gap that decided the selection: between the k-th and (k+1)-th \|β_j\| (highest weights, in
        the coefficients' unit); between the best and second-best gain of explained π-weighted variance at each
        greedy step (forward selection, in f's unit squared); between consecutive knots α of the LARS path up to
        the point after the chosen one (lasso path, in Cov_π(z, f)'s unit).  0 at an exact tie, inf when nothing
        was chosen (``'none'``, or k at least d).

    Examples
    --------
    >>> limit = lime_selection_limit([0.2, 1.0, -0.5, 0.1], kernel_width=25, num_features=2)
    >>> limit.method, limit.selected.tolist(), round(limit.local_pred, 3)
    ('forward_selection', [0, 1], 0.709)
    """

    method: str
    selected: np.ndarray
    coefficients: np.ndarray
    intercept: float
    local_pred: float
    score: float | None
    margin: float

    def as_list(self):
        """lime's ``as_list`` of the limit, with word indices: [(word, coefficient), ...].

        Examples
        --------
        >>> limit = lime_selection_limit([0.1, 1.0, -2.0, 0.5], kernel_width=25, num_features=2)
        >>> [(j, round(c, 3)) for j, c in limit.as_list()]
        [(1, -2.299), (0, 0.701)]
        """
        return [(int(j), float(c)) for j, c in zip(self.selected, self.coefficients, strict=True)]


@dataclass(frozen=True)
class SelectionProbability:
    """The probability that lime at n selects the limit's set, and its Monte Carlo standard error.

    Attributes
    ----------
    probability : float
        The share of draws from lime's normal law whose selection is the limit's set (as a set).
    stderr : float
        Its binomial standard error, sqrt(p (1 - p) / draws).
    draws : int
        The number of draws.

    Examples
    --------
    >>> p = SelectionProbability(probability=0.9, stderr=float(np.sqrt(0.9 * 0.1 / 100)), draws=100)
    >>> round(p.stderr, 6)
    0.03
    """

    probability: float
    stderr: float
    draws: int


class _Population:
    """G = e I + c 11ᵀ, A = E_π[z_j] and α₀ = E[π] at (d, ν), from the tilted law of s."""

    def __init__(self, d, nu):
        law = weighted_law(d, nu)
        variance = law.var_over_tau * law.tau
        self.d = d
        self.e = d * law.q / (d - 1)
        self.c = variance - law.q / (d - 1)
        self.a = law.a_mean
        self.log_alpha0 = law.log_psi1 + np.log(law.total / d)  # E[π] = ψ(1/d) Σ_s w_s / d

    def gram(self):
        return self.e * np.eye(self.d) + self.c

    def refit(self, beta, chosen):
        """(intercept, slopes on ``chosen``, explained variance) of the least-squares fit on the words ``chosen``."""
        words = beta[1:]
        k = len(chosen)
        if k == self.d:  # every word: β itself (T = 0, while e + d c = d V may underflow at small widths)
            slopes = words[chosen].copy()
        else:
            outside = words.sum() - words[chosen].sum()
            slopes = words[chosen] + self.c * outside / (self.e + k * self.c)
        mean_f = beta[0] + self.a * words.sum()
        intercept = mean_f - self.a * slopes.sum()
        with np.errstate(over="ignore", invalid="ignore"):
            total = float(slopes.sum())
            explained = self.e * float(slopes @ slopes) + self.c * (total * total)  # b_Sᵀ G_SS b_S
        _check_finite(np.append(slopes, (intercept, explained)))
        return intercept, slopes, explained


#: beyond this, a square of double precision overflows
_SQRT_MAX = float(np.sqrt(np.finfo(float).max))


_TOO_LARGE = (
    "beta's coefficients are too large for lime's selection and refit in double precision (their squares and sums "
    "overflow): rescale beta"
)


def _check_finite(values):
    """Refuse a β whose refit or selection leaves double precision (an overflow would pick words silently)."""
    if not np.all(np.isfinite(values)):
        raise ValueError(_TOO_LARGE)


def _highest_weights(words, k):
    order = np.argsort(-np.abs(words), kind="stable")  # decreasing, ties in word order: Python's stable sorted
    if k >= len(words):
        return order, np.inf
    size = np.abs(words[order])
    return order[:k], float(size[k - 1] - size[k])


def _forward_selection(population, words, k):
    """Greedy on the explained variance E_S, in closed form: E depends on S through Σ_S β², Σ_S β and |S| only."""
    e, c = population.e, population.c
    total = words.sum()
    chosen, margin = [], np.inf
    squares, sums = 0.0, 0.0
    candidates = np.ones(len(words), dtype=bool)
    for step in range(min(k, len(words))):
        size = step + 1
        with np.errstate(over="ignore", invalid="ignore"):  # an overflow is refused just below
            q = squares + words**2
            t = sums + words
            shift = c * (total - t) / (e + size * c)
            # g_Sᵀ x_S with g_S = e β_S + c T 1 and x_S = β_S + shift 1 (the refit's slopes)
            gain = e * q + e * shift * t + c * total * t + c * total * size * shift
        _check_finite(gain[candidates])
        gain[~candidates] = -np.inf
        best = int(np.argmax(gain))  # the first of equal gains, as lime's strict '>' keeps the first
        if candidates.sum() > 1:
            margin = min(margin, float(gain[best] - np.max(np.delete(gain, best))))
        chosen.append(best)
        candidates[best] = False
        squares, sums = q[best], t[best]
    return np.array(chosen, dtype=np.int64), margin


def _lasso_path(population, words, k):
    """lime's loop over sklearn's LARS lasso path of the population (Gram G, correlations g = G β)."""
    from sklearn.linear_model import lars_path_gram

    d = len(words)
    gram = population.gram()
    alphas, _, coefs = lars_path_gram(Xy=gram @ words, Gram=gram, n_samples=1, method="lasso")
    chosen, point = np.arange(d), 0
    for point in range(coefs.shape[1] - 1, 0, -1):  # lime_base.py: from the path's end, the first with <= k words
        chosen = np.flatnonzero(coefs[:, point])
        if len(chosen) <= k:
            break
    knots = alphas[: min(point + 2, len(alphas))]
    # a knot that does not decrease is a tie (sklearn steps through equal correlations one variable at a time, and
    # round-off can then make α rise a little): margin 0
    margin = max(0.0, float(np.min(-np.diff(knots)))) if len(knots) > 1 else np.inf
    return np.asarray(chosen, dtype=np.int64), margin


def _resolve(method, k):
    if method not in FEATURE_SELECTIONS:
        raise ValueError(f"feature_selection must be one of {FEATURE_SELECTIONS} (lime's methods), got {method!r}")
    if method == "auto":
        return "forward_selection" if k <= AUTO_FORWARD_MAX else "highest_weights"
    return method


def _select(population, words, k, method):
    """(selected words in the selection's order, margin); every word selected decides nothing: margin inf."""
    if method == "none":
        return np.arange(len(words), dtype=np.int64), np.inf
    if method == "highest_weights":
        chosen, margin = _highest_weights(words, k)
    elif method == "forward_selection":
        chosen, margin = _forward_selection(population, words, k)
    else:
        chosen, margin = _lasso_path(population, words, k)
    return chosen, (np.inf if len(chosen) >= len(words) else margin)


def _check_common(beta, kernel_width, num_features, feature_selection):
    beta = as_float_array(beta, "beta", ndim=1)
    if beta.size < 3:
        raise ValueError(f"beta must have length d + 1 >= 3 (intercept first, d >= 2 words), got {beta.size}")
    # sums of d + 1 squares must stay finite: refused before sklearn's LARS meets them (the selection and the refit
    # check their own sums too, for what a small kernel width can still blow up)
    if np.abs(beta).max() * beta.size > _SQRT_MAX:
        raise ValueError(_TOO_LARGE)
    kernel_width = check_positive_finite(kernel_width, "kernel_width")
    num_features = check_int(num_features, "num_features", minimum=1)
    method = _resolve(feature_selection, num_features)
    return beta, kernel_width, num_features, method


def lime_selection_limit(beta, *, kernel_width, num_features=10, feature_selection="auto", second_moment=None):
    r"""The limit of lime's explanation with ``num_features`` and ``feature_selection``: selection, then the refit.

    Parameters
    ----------
    beta : array_like, shape (d + 1,)
        The paper's surrogate with every word kept (intercept first, d >= 2), e.g. ``lt.explain(...).beta``.
    kernel_width : float
        lime's kernel width (> 0); the paper's ν = kernel_width / 100.
    num_features : int
        lime's ``num_features`` (>= 1; lime's default 10); ignored by ``'none'``.
    feature_selection : {"auto", "none", "highest_weights", "forward_selection", "lasso_path"}
        lime's ``feature_selection`` (its default ``'auto'``).
    second_moment : float or None
        :math:`\mathbb{E}[\pi f^2]` under LIME's law of the masks, in the normalisation of Σ
        (:func:`limetheory.sigma_matrix`: Σ₀₀ = E[π]); only ``score`` needs it (None: ``score`` is None).

    Returns
    -------
    SelectionLimit
        ``selected`` (lime's ``as_list`` order), ``coefficients``, ``intercept``, ``local_pred``, ``score``,
        ``margin`` and ``method``.

    Raises
    ------
    ValueError
        For a ``beta`` shorter than 3 or not finite, a ``kernel_width`` not > 0, ``num_features`` < 1, an unknown
        ``feature_selection``, a ``second_moment`` below what the full surrogate explains (it cannot be
        E[π f²] of this β), or a ``beta`` so large that the selection's or the refit's sums of squares overflow
        double precision.
    TypeError
        If an argument is not a number (array) of the expected kind.

    Notes
    -----
    The selection converges to the set returned when ``margin`` > 0; at ``margin`` = 0 (an exact tie) lime's
    choice at finite n is random among the tied candidates and the limit is not one set; the set returned is
    the one lime's tie rule (the earlier word) gives on exactly equal numbers.  Cost O(d log d) for highest
    weights, O(k d) for forward selection, one LARS path on a d x d Gram matrix for the lasso.

    Examples
    --------
    >>> beta = [0.2, 1.0, -0.5, 0.1]
    >>> limit = lime_selection_limit(beta, kernel_width=25, num_features=1, feature_selection="highest_weights")
    >>> limit.selected.tolist(), limit.coefficients.round(3).tolist(), round(limit.intercept, 3)
    ([0], [1.15], -0.123)
    >>> lime_selection_limit(beta, kernel_width=25, feature_selection="none").coefficients.tolist()
    [1.0, -0.5, 0.1]
    """
    beta, kernel_width, num_features, method = _check_common(beta, kernel_width, num_features, feature_selection)
    if second_moment is not None:
        second_moment = check_real(second_moment, "second_moment")
    d = beta.size - 1
    population = _Population(d, kernel_width / 100.0)
    words = beta[1:]
    chosen, margin = _select(population, words, num_features, method)
    intercept, slopes, explained = population.refit(beta, chosen)
    order = np.argsort(-np.abs(slopes), kind="stable")  # lime: sorted(..., key=abs, reverse=True), stable
    score = None
    if second_moment is not None:
        mean_f = beta[0] + population.a * words.sum()
        variance = second_moment * np.exp(-population.log_alpha0) - mean_f**2  # Var_π(f), tilted law
        _, _, full = population.refit(beta, np.arange(d))
        if variance < full - _SECOND_MOMENT_SLACK * (abs(full) + mean_f**2):
            raise ValueError(
                f"second_moment = {second_moment!r} is below what the surrogate beta explains (Var_pi(f) = "
                f"{variance:.6g} < {full:.6g}): it is not E[pi f^2] of this beta in the normalisation of Sigma"
            )
        score = 1.0 if variance <= 0 else float(min(explained / variance, 1.0))  # a constant f: sklearn's 1.0
    return SelectionLimit(
        method=method,
        selected=chosen[order],
        coefficients=slopes[order],
        intercept=float(intercept),
        local_pred=float(intercept + slopes.sum()),
        score=score,
        margin=float(margin),
    )


def selection_probability(
    beta, centre, covariance, *, kernel_width, num_features=10, feature_selection="auto", draws=4000, seed=0
):
    r"""The probability that lime at n selects the limit's set, from lime's normal law of its coefficients at n.

    lime's full-surrogate coefficients at n are approximately normal, N(``centre``, ``covariance``)
    (``lt.explain(...).lime_spread(n)`` and :func:`limetheory.pipelines.results.spread.lime_covariance`).  Each draw is
    selected by the same rule as the limit, and the share of draws whose set (not its order) is the limit's is
    returned with its binomial standard error.  For ``'highest_weights'`` this is lime's selection to first order
    (it reads only the coefficients; the selection ridge's alpha = 0.01 against the spread's alpha = 1 moves the
    centre by O(1/n)).  For ``'forward_selection'`` and ``'lasso_path'`` the draws keep the population Gram matrix
    G fixed, while lime's sample Gram matrix fluctuates too: an approximation, which overstates lime's probability
    near a tie (the chapter on feature selection: forward selection of 5 of 128 words at n = 5000, 0.74 predicted
    against about 0.5 in lime's runs).

    Parameters
    ----------
    beta : array_like, shape (d + 1,)
        The limit (intercept first), whose selection is the target.
    centre : array_like, shape (d + 1,)
        The centre of lime's coefficients at n (``LimeSpread.centre``).
    covariance : array_like, shape (d + 1, d + 1)
        Their covariance at n (symmetric, positive semi-definite; the intercept's row and column are not used).
    kernel_width, num_features, feature_selection
        As in :func:`lime_selection_limit`.
    draws : int
        Number of normal draws (>= 1).
    seed : int
        Seed of ``numpy.random.default_rng``.

    Returns
    -------
    SelectionProbability

    Examples
    --------
    >>> beta = np.array([0.0, 1.0, 0.9, 0.1])
    >>> cov = np.diag([0.0, 0.05, 0.05, 0.05]) ** 2
    >>> p = selection_probability(beta, beta, cov, kernel_width=25, num_features=2, feature_selection="highest_weights")
    >>> p.probability > 0.99
    True
    """
    beta, kernel_width, num_features, method = _check_common(beta, kernel_width, num_features, feature_selection)
    d = beta.size - 1
    centre = as_float_array(centre, "centre", ndim=1)
    covariance = as_float_array(covariance, "covariance", ndim=2)
    if centre.shape != beta.shape or covariance.shape != (d + 1, d + 1):
        raise ValueError(
            f"centre must have shape {beta.shape} and covariance ({d + 1}, {d + 1}) to match beta, got "
            f"{centre.shape} and {covariance.shape}"
        )
    words_cov = covariance[1:, 1:]
    scale = float(np.abs(words_cov).max())
    # tol: a covariance formed in floating point is symmetric and PSD up to round-off of its entries' size
    if not np.allclose(words_cov, words_cov.T, rtol=0, atol=1e-12 * scale):
        raise ValueError("covariance must be symmetric")
    values, vectors = np.linalg.eigh(words_cov)
    # tol: eigenvalues of a PSD matrix computed in floating point may be negative by about d u ‖C‖
    if values.min() < -1e-10 * max(scale, np.finfo(float).tiny):
        raise ValueError(f"covariance must be positive semi-definite (smallest eigenvalue {values.min():.3g})")
    draws = check_int(draws, "draws", minimum=1)
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
        raise TypeError(f"seed must be an integer, got {type(seed).__name__}")
    population = _Population(d, kernel_width / 100.0)
    target, _ = _select(population, beta[1:], num_features, method)
    normal = np.random.default_rng(int(seed)).standard_normal((draws, d))
    sample = centre[1:] + (normal * np.sqrt(np.clip(values, 0.0, None))) @ vectors.T
    inside = np.zeros(d, dtype=bool)
    inside[target] = True
    if method == "none" or inside.all():
        hits = np.ones(draws, dtype=bool)
    elif method == "highest_weights":
        size = np.abs(sample)
        hits = size[:, inside].min(axis=1) > size[:, ~inside].max(axis=1)
    else:
        hits = np.array([set(_select(population, row, num_features, method)[0]) == set(target) for row in sample])
    p = float(hits.mean())
    return SelectionProbability(probability=p, stderr=float(np.sqrt(p * (1.0 - p) / draws)), draws=draws)
