r"""How many samples lime needs before its top words are the limit's: the n of a stable top-k.

lime's coefficients at n samples are, to first order, normal around the centre c_n of its normal equations with
the covariance :math:`m \bar A^{-1} \Omega_c \bar A^{-1}` (:mod:`limetheory.pipelines.results.spread`, m = n - 1).  The
probability that lime's k largest absolute word coefficients are the limit's k (as a set) is that of a normal
vector: it is computed by drawing from it, restricted to the words that can cross the k-th largest (the limit's top
k, and every other word within a few standard deviations of the weakest of them).  The search doubles n until the
probability is reached, then bisects to one per cent.  The same standard normal draws serve every n (common random
numbers), so the probability is a smooth function of n in the search, not a noisy one.  The first-order law
needs enough rows: the answer is never below ``ROWS_PER_COEFFICIENT`` (d + 1) samples.
"""

from __future__ import annotations

import numpy as np

from .spread import lime_covariance

#: a word can enter lime's top k when it lies within this many of lime's standard deviations of the weakest top word
CROSSING_SDS = 5.0
#: words whose joint law is drawn at most (the limit's top k and the likeliest challengers)
MAX_CANDIDATES = 400
#: the answer is never below this many samples per coefficient: with fewer rows lime's ridge is far from normal
#: (measured: at n = 18 for 8 coefficients the first-order law said 0.95 where 0.77 of lime's runs agreed), and
#: a larger n is only more stable, so the floor errs on the safe side
ROWS_PER_COEFFICIENT = 10


def top_set_probability(sample, beta, nu, y0, num_samples, top, draws):
    """P(lime's ``top`` largest absolute word coefficients at ``num_samples`` are the limit's), to first order.

    ``draws`` is a (D, MAX_CANDIDATES) array of standard normals (the same for every n); the probability is the
    share of the D draws whose top set is the limit's.
    """
    target = np.argsort(-np.abs(beta[1:]), kind="stable")[:top]
    centre, std, _ = lime_covariance(sample, beta, nu, y0, num_samples, [])
    size, spread = np.abs(centre[1:]), std[1:]
    weakest = float(np.min(size[target] - CROSSING_SDS * spread[target]))
    reach = size + CROSSING_SDS * spread
    challengers = np.setdiff1d(np.flatnonzero(reach >= weakest), target)
    challengers = challengers[np.argsort(-reach[challengers], kind="stable")][: MAX_CANDIDATES - top]
    candidates = np.concatenate([target, challengers])
    if len(candidates) == top:  # no other word can reach the weakest of the top set
        return 1.0
    _, _, covariance = lime_covariance(sample, beta, nu, y0, num_samples, 1 + candidates)
    eigenvalues, vectors = np.linalg.eigh(covariance)
    root = vectors * np.sqrt(np.clip(eigenvalues, 0.0, None))  # covariance = root @ root.T (PSD part)
    values = np.abs(centre[1 + candidates] + draws[:, : len(candidates)] @ root.T)
    # the draw keeps the limit's set when its weakest member beats the strongest challenger
    kept = values[:, :top].min(axis=1) > values[:, top:].max(axis=1)
    return float(kept.mean())


#: two exact coefficients closer than this, relative to the largest, tie (the exact routes hold to about 1e-13)
TIE_TOLERANCE = 1e-12


def limit_top_is_clear(beta, top, stderr=None):
    """Whether the limit's ``top`` largest absolute word coefficients stand apart from the next one.

    Not when the ``top``-th and the next tie to rounding (symmetric words, e.g. two unseen words of equal weight)
    or, for an estimate, lie within two standard errors of their difference.
    """
    order = np.argsort(-np.abs(beta[1:]), kind="stable")
    inside, outside = order[top - 1], order[top]
    gap = abs(beta[1 + inside]) - abs(beta[1 + outside])
    if stderr is not None:
        return gap > 2.0 * float(np.hypot(stderr[1 + inside], stderr[1 + outside]))
    return gap > TIE_TOLERANCE * float(np.abs(beta[1:]).max())


def stable_num_samples(sample, beta, nu, y0, top, probability, max_num_samples, draws, stderr=None):
    """The smallest lime n at which the top set is the limit's with ``probability``, or None.

    To one per cent, and never below ROWS_PER_COEFFICIENT (d + 1): where the first-order law does not hold yet,
    the floor is returned (safe: a larger n is only more stable).

    None when no n up to ``max_num_samples`` reaches it (lime's centre c_n keeps another word in the top set),
    or when the limit's top set is not clear (:func:`limit_top_is_clear`).
    """
    if not limit_top_is_clear(beta, top, stderr):
        return None

    def reached(n):
        return top_set_probability(sample, beta, nu, y0, n, top, draws) >= probability

    floor = ROWS_PER_COEFFICIENT * len(beta)
    if floor > max_num_samples:  # below the floor the first-order law cannot vouch for any n
        return None
    low, high = floor - 1, floor
    while not reached(high):
        if high >= max_num_samples:
            return None
        low, high = high, min(2 * high, max_num_samples)
    while high - low > max(1, high // 100):
        middle = (low + high) // 2
        low, high = (low, middle) if reached(middle) else (middle, high)
    return int(high)
