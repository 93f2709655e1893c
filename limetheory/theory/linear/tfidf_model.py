"""A linear model of the normalised TF-IDF of one document, in the scale-free form the exact recursions use.

The arguments of :func:`limetheory.theory.linear.linear_exact.beta_linear_exact` (the coefficients ``lam``, the weights
``tfidf``, the columns ``groups`` and the ``norm``) are checked here and rewritten as a :class:`ScaleFreeModel`:
f(K) = W(K) / R(K)^power with R(all words) = 1, the words alone in their column apart from the columns that several
words share, and R of all words but each one, without cancellation.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from ..._compiled import compiled
from ..._validation import check_linear_model
from .linear_quadrature import MIN_WEIGHT_RATIO

#: the row norms of a TfidfVectorizer that the exact route handles (its ``norm`` parameter)
NORMS = ("l2", "l1", None)
#: most visible words that may share one column: the column's factor sums over all subsets of its words (2ᵉ)
MAX_SHARED_WORDS = 12


@dataclass(frozen=True)
class ScaleFreeModel:
    """A linear model of a normalised TF-IDF, in the scale-free form the recursions use.

    f(K) = W(K) / R(K)^power with W(K) = sum_{j in K} w_j and R(all words) = 1.  ``singles`` are the words
    alone in their column (including the invisible ones, omega = 0), ``shared`` the index arrays of the
    columns with at least two visible words, ``t`` the weights scaled so that R(K) = sum over columns of
    (sum of t over the column's kept words)^2 (L2) or sum of t (L1); ``rest[j]`` is R of all words but j
    (the other columns, plus for a member of a shared column its column without j), without cancellation.
    """

    d: int
    power: float
    t: np.ndarray
    omega: np.ndarray
    w: np.ndarray
    singles: np.ndarray
    shared: tuple
    rest: np.ndarray
    r_min: float

    @functools.cached_property
    def classes(self):
        """(distinct omega of the singles, sorted; each one's first single; each single's index in them).

        ``np.unique(omega[singles], return_index=True, return_inverse=True)``, once per model: the recursions' sums
        and their leave-one-out pass both read it.
        """
        distinct, first, class_of = np.unique(self.omega[self.singles], return_index=True, return_inverse=True)
        return distinct, first, class_of.ravel()


def check_norm(norm):
    """``norm`` after the checks: one of :data:`NORMS` (a TfidfVectorizer's row norm)."""
    if norm is not None and not isinstance(norm, str):
        raise TypeError(f"norm must be 'l2', 'l1' or None (a TfidfVectorizer's norm), got {norm!r}")
    if norm not in NORMS:
        raise ValueError(f"norm must be 'l2', 'l1' or None (a TfidfVectorizer's norm), got {norm!r}")
    return norm


def check_groups(groups, lam, tfidf):
    """The columns with >= 2 visible words, as index arrays (sorted by their first word), after the checks."""
    d = tfidf.size
    if groups is None:
        return ()
    if isinstance(groups, (str, bytes)):
        raise TypeError(f"groups must be an array of integer column labels (one per word), got {type(groups).__name__}")
    labels = np.asarray(groups)
    if labels.dtype == np.bool_ or not np.issubdtype(labels.dtype, np.integer):
        raise TypeError(f"groups must be an array of integer column labels (one per word), got dtype {labels.dtype}")
    if labels.shape != (d,):
        raise ValueError(f"groups must have shape ({d},), one column label per word, got shape {labels.shape}")
    visible = tfidf > 0
    orphans = np.flatnonzero(visible & (labels < 0))
    if orphans.size:
        raise ValueError(
            f"groups: a negative label means that the word has no column, so its tfidf must be 0; word "
            f"{orphans[0]} has label {labels[orphans[0]]} and tfidf {tfidf[orphans[0]]:g}"
        )
    seen = np.flatnonzero(visible)
    order = np.argsort(labels[seen], kind="stable")
    sorted_labels = labels[seen][order]
    starts = np.flatnonzero(np.concatenate([[True], sorted_labels[1:] != sorted_labels[:-1]]))
    ends = np.append(starts[1:], sorted_labels.size)
    several = ends - starts >= 2  # a column of one word is not shared (most columns: only these are visited)
    if not several.any():
        return ()
    # the stable sort keeps each column's words in increasing order; the checks run on every column at once
    words = seen[order]
    first_of = np.repeat(starts, ends - starts)
    unequal = np.flatnonzero(lam[words] != lam[words[first_of]])
    if unequal.size:
        start = first_of[unequal[0]]
        members = words[start : ends[np.searchsorted(starts, start)]]
        raise ValueError(
            f"lam must be equal within a column (it is the coefficient of the column): words "
            f"{members.tolist()} share column {sorted_labels[start]} but have lam {lam[members].tolist()}"
        )
    large = np.flatnonzero(several & (ends - starts > MAX_SHARED_WORDS))
    if large.size:
        start = starts[large[0]]
        raise ValueError(
            f"groups: at most {MAX_SHARED_WORDS} visible words may share a column (the exact route sums over "
            f"the subsets of each column's words), got {ends[large[0]] - start} in column {sorted_labels[start]}"
        )
    columns = [words[start:end] for start, end in zip(starts[several].tolist(), ends[several].tolist(), strict=True)]
    columns.sort(key=lambda members: members[0])
    return tuple(columns)


def scale_free_model(lam, tfidf, groups, norm):
    """Check the arguments of a normalised route and return its :class:`ScaleFreeModel`."""
    lam, t = check_linear_model(lam, tfidf)  # t = tfidf / max(tfidf): f does not depend on the scale
    positive = t[t > 0]
    if positive.min() < MIN_WEIGHT_RATIO:
        raise ValueError(
            f"the positive tfidf weights must span at most a factor 1/{MIN_WEIGHT_RATIO:g}, "
            f"got a smallest/largest ratio of {positive.min():.3g}"
        )
    shared = check_groups(groups, lam, t) if norm == "l2" else ()
    if norm == "l1":  # R(K) = sum of t over K: linear, so shared columns change nothing
        check_groups(groups, lam, t)
    d = t.size
    in_shared = np.zeros(d, dtype=bool)
    members = np.concatenate(shared) if shared else np.zeros(0, dtype=np.int64)
    in_shared[members] = True
    singles = np.flatnonzero(~in_shared)
    sizes = np.array([column.size for column in shared], dtype=np.int64)
    # the scaled weights and R of all words but each one, in one compiled pass: about 20 small numpy calls otherwise
    omega, w, scaled_t, rest, r_min = _scale_free_kernel(t, lam, singles, members, sizes, norm == "l2")
    return ScaleFreeModel(d, 0.5 if norm == "l2" else 1.0, scaled_t, omega, w, singles, shared, rest, r_min)


def scale_free_arrays(t, lam, singles, members, sizes, l2):
    """(omega, w, the scaled t, R of all words but each one, the smallest positive omega): scale_free_model's pass.

    ``t`` (the weights over their largest) and ``lam`` as float64 arrays, ``singles`` the words alone in their column,
    ``members`` the shared columns' words (concatenated, int64) and ``sizes`` their sizes, ``l2`` the norm (else L1);
    checked by the caller (``scale_free_model``, ``linear_chunk.beta_linear_exact_chunk``).

    Examples
    --------
    >>> omega, w, t, rest, r_min = scale_free_arrays(np.array([1.0, 0.5]), np.array([2.0, -1.0]), np.array([0, 1]),
    ...                                              np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), True)
    >>> omega.tolist(), rest.tolist(), r_min
    ([0.8, 0.2], [0.2, 0.8], 0.2)
    """
    return _scale_free_kernel(t, lam, singles, members, sizes, l2)


@compiled(cache=True, error_model="numpy")
def _scale_free_kernel(t, lam, singles, members, sizes, l2):
    """omega, w, the scaled t, R of all words but each one (no cancellation) and the smallest positive omega.

    The columns' totals are the singles' t^2 and each shared column's (sum of t)^2 (L2), or every t (L1); R(all) is
    their sum, ``scale``; R without a single is the sum of the other columns' totals, prefix plus suffix, and without a
    member of a shared column the other columns plus its column without it.
    """
    d, n, S = t.size, singles.size, sizes.size
    totals = np.empty(n + S)
    for i in range(n):
        totals[i] = t[singles[i]] ** 2 if l2 else t[singles[i]]
    first = 0
    for c in range(S):
        column = 0.0
        for k in range(sizes[c]):
            column += t[members[first + k]]
        totals[n + c] = column**2
        first += sizes[c]
    scale = 0.0
    for i in range(n + S):
        scale += totals[i]
    root = np.sqrt(scale)
    omega, w, scaled_t = np.empty(d), np.empty(d), np.empty(d)
    r_min = np.inf
    for j in range(d):
        omega[j] = t[j] ** 2 / scale if l2 else t[j] / scale
        w[j] = lam[j] * t[j] / root if l2 else lam[j] * t[j] / scale
        scaled_t[j] = t[j] / root if l2 else t[j] / scale
        if omega[j] > 0:
            r_min = min(r_min, omega[j])
    prefix = np.zeros(n + S)
    suffix = np.zeros(n + S)
    for i in range(1, n + S):
        prefix[i] = prefix[i - 1] + totals[i - 1] / scale
    for i in range(n + S - 2, -1, -1):
        suffix[i] = suffix[i + 1] + totals[i + 1] / scale
    rest = np.zeros(d)
    for i in range(n):
        rest[singles[i]] = prefix[i] + suffix[i]
    first = 0
    for c in range(S):
        column = 0.0
        for k in range(sizes[c]):
            column += scaled_t[members[first + k]]
        for k in range(sizes[c]):
            j = members[first + k]
            rest[j] = prefix[n + c] + suffix[n + c] + (column - scaled_t[j]) ** 2
        first += sizes[c]
    return omega, w, scaled_t, rest, r_min
