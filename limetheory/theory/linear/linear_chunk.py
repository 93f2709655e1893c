r""":func:`~limetheory.theory.linear.linear_exact.beta_linear_exact` for the documents of a chunk: fewer Python steps.

A corpus's documents each take a few hundred microseconds of Python around the compiled recursions of
:func:`beta_linear_exact`: the checks of the arrays, the search for the columns several words share
(``tfidf_model.check_groups``, an argsort per document), the model's scale-free form.  Here the checks and the
shared columns are computed once for the concatenated documents (elementwise operations and one sort, so each
document's arrays are those :func:`beta_linear_exact` forms, bit for bit); then each document's scale-free arrays
come from the same compiled pass (``tfidf_model.scale_free_arrays``) and its β from the same route as
``linear_adjoint.adjoint_beta``'s (``flat_adjoint_moments``, the recursions, on those arrays and the shared columns
concatenated, without a :class:`~limetheory.theory.linear.tfidf_model.ScaleFreeModel` or a split per column; then
``linear_moments.beta_from_weighted_moments``, with the document's law looked up once per length), so that each β
equals :func:`beta_linear_exact`'s to the bit (tests/test_linear_chunk.py).
The documents that route does not serve (no norm, the size mixture's lengths, the arguments it refuses, more
than its memory) are left to :func:`beta_linear_exact` (None).
"""

from __future__ import annotations

import numpy as np

from ..._validation import check_nu
from ...units import bandwidth_keyword
from ..law import weighted_law
from .linear_adjoint import flat_adjoint_moments
from .linear_mixture import MIXTURE_MIN_WORDS
from .linear_moments import beta_from_weighted_moments
from .linear_quadrature import MIN_WEIGHT_RATIO
from .tfidf_model import MAX_SHARED_WORDS, check_norm, scale_free_arrays

__all__ = ["beta_linear_exact_chunk"]

_NO_WORDS = np.zeros(0, dtype=np.int64)


@bandwidth_keyword
def beta_linear_exact_chunk(lam, tfidf, groups, starts, *, nu, norm="l2"):
    """β of :func:`~limetheory.theory.linear.linear_exact.beta_linear_exact` for many documents, the same to the bit.

    Document i is ``lam[starts[i]:starts[i + 1]]``, with its ``tfidf`` and ``groups`` alike.  Its entry is
    ``beta_linear_exact(lam_i, tfidf_i, nu=nu, groups=groups_i, norm=norm)`` (module docstring), or None where
    this path leaves it to that function: ``norm=None`` (β is then a product), documents of
    ``linear_mixture.MIXTURE_MIN_WORDS`` words or more (the size mixture), fewer than 2 words, arguments that it
    refuses (non-finite, negative or all-zero weights, unequal coefficients within a column, a visible word with a
    negative label, more than 12 visible words in a column), or a β that adjoint_beta leaves to the
    leave-one-out route.  Call :func:`beta_linear_exact` on those: it answers or says why not.

    Parameters
    ----------
    lam, tfidf : array_like of float, shape (total,)
        The documents' coefficients and weights, concatenated.
    groups : array_like of int, shape (total,)
        The documents' column labels, concatenated (each document's labels are its own).
    starts : array_like of int, shape (documents + 1,)
        Where each document starts, and the total: nondecreasing, from 0.
    nu : float
        The bandwidth (> 0 or ``np.inf``).
    norm : {"l2", "l1", None}
        The vectorizer's row norm.

    Returns
    -------
    list of ndarray or None
        One per document.

    Raises
    ------
    TypeError, ValueError
        ``nu`` or ``norm`` not valid; arrays of other shapes or ``starts`` that do not cut them.

    Examples
    --------
    >>> from limetheory.theory.linear.linear_exact import beta_linear_exact
    >>> lam, tfidf, groups = [1.0, 1.0, -2.0, 0.5, 3.0], [1.0, 2.0, 1.5, 1.0, 0.0], [0, 0, 1, 4, -2]
    >>> first, second = beta_linear_exact_chunk(lam, tfidf, groups, [0, 3, 5], nu=0.25)
    >>> bool((first == beta_linear_exact(lam[:3], tfidf[:3], nu=0.25, groups=groups[:3])).all())
    True
    >>> bool((second == beta_linear_exact(lam[3:], tfidf[3:], nu=0.25, groups=groups[3:])).all())
    True
    """
    nu, norm = check_nu(nu), check_norm(norm)
    lam, tfidf, groups, starts = _chunk_arrays(lam, tfidf, groups, starts)
    documents = starts.size - 1
    results = [None] * documents
    if norm is None or documents == 0:
        return results
    sizes = np.diff(starts)
    usable = (sizes >= 2) & (sizes < MIXTURE_MIN_WORDS)
    owner = np.repeat(np.arange(documents), sizes)
    # check_linear_model: finite arrays, tfidf >= 0 with a positive entry; t = tfidf / its document's largest
    bad = ~(np.isfinite(lam) & np.isfinite(tfidf)) | (tfidf < 0)
    usable &= np.bincount(owner[bad], minlength=documents) == 0
    top = np.zeros(documents)
    nonempty = sizes > 0
    top[nonempty] = np.maximum.reduceat(np.where(bad, 0.0, tfidf), starts[:-1][nonempty])
    usable &= top > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        t = tfidf / np.where(top > 0, top, 1.0)[owner]
    # scale_free_model's smallest ratio, check_groups' refusals
    visible = t > 0
    smallest = np.ones(documents)
    smallest[nonempty] = np.minimum.reduceat(np.where(visible, t, np.inf), starts[:-1][nonempty])
    usable &= smallest >= MIN_WEIGHT_RATIO
    usable &= np.bincount(owner[visible & (groups < 0)], minlength=documents) == 0
    members, column_sizes, refused = _shared_columns(lam, groups, owner, visible, documents)
    usable &= ~refused
    l2 = norm == "l2"
    power = 0.5 if l2 else 1.0
    # the words of shared columns (L2 only: L1's R(K) is linear, shared columns change nothing, scale_free_model
    # keeps none); a document's singles are its other words
    in_shared = np.zeros(t.size, dtype=bool)
    if l2 and usable.any():
        in_shared[np.concatenate([members[i] for i in np.flatnonzero(usable).tolist()])] = True
    laws = {}  # weighted_law by number of words (many documents share one)
    for i in np.flatnonzero(usable).tolist():
        a, b = int(starts[i]), int(starts[i + 1])
        local, sizes_i = (members[i] - a, column_sizes[i]) if l2 and members[i].size else (_NO_WORDS, _NO_WORDS)
        singles = np.flatnonzero(~in_shared[a:b])
        omega, w, scaled_t, rest, r_min = scale_free_arrays(t[a:b], lam[a:b], singles, local, sizes_i, l2)
        law = laws.get(b - a)
        if law is None:
            law = laws[b - a] = weighted_law(b - a, nu)
        try:  # adjoint_beta's steps on the model's arrays (no ScaleFreeModel, no split of the shared columns)
            moments = flat_adjoint_moments(b - a, power, (scaled_t, omega, w, singles, rest), r_min, local, sizes_i,
                                           law.m)  # fmt: skip
            results[i] = None if moments is None else beta_from_weighted_moments(law, *moments)
        except ValueError:  # beyond the work limit (or β overflows): beta_linear_exact says so
            results[i] = None
    return results


def _chunk_arrays(lam, tfidf, groups, starts):
    """The concatenated arrays (float, float, int64, int64), their shapes and ``starts`` checked."""
    lam = np.ascontiguousarray(lam, dtype=float)
    tfidf = np.ascontiguousarray(tfidf, dtype=float)
    groups, starts = np.asarray(groups), np.asarray(starts)
    if not (np.issubdtype(groups.dtype, np.integer) and np.issubdtype(starts.dtype, np.integer)):
        raise TypeError(f"groups and starts must be integer arrays, got dtypes {groups.dtype} and {starts.dtype}")
    groups, starts = np.ascontiguousarray(groups, dtype=np.int64), np.ascontiguousarray(starts, dtype=np.int64)
    if lam.ndim != 1 or lam.shape != tfidf.shape or lam.shape != groups.shape:
        raise ValueError(f"lam, tfidf and groups must be 1-D of one length, got {lam.shape, tfidf.shape, groups.shape}")
    if starts.ndim != 1 or starts.size < 1 or starts[0] != 0 or starts[-1] != lam.size or (np.diff(starts) < 0).any():
        raise ValueError(f"starts must rise from 0 to the arrays' length {lam.size}, got {starts.tolist()[:8]}...")
    return lam, tfidf, groups, starts


def _shared_columns(lam, groups, owner, visible, documents):
    """Each document's shared columns (check_groups' order): members (global indices), sizes, refusals.

    A column is shared when at least two visible words of one document carry its label; check_groups returns the
    columns sorted by their first word, each with its words in increasing order.  A document is refused where a
    column's words have unequal coefficients or more than ``MAX_SHARED_WORDS`` words.
    """
    empty = np.zeros(0, dtype=np.int64)
    members, sizes = [empty] * documents, [empty] * documents
    refused = np.zeros(documents, dtype=bool)
    seen = np.flatnonzero(visible)
    if seen.size == 0:
        return members, sizes, refused
    width = int(groups[seen].max()) + 1
    keys = owner[seen] * width + groups[seen]
    order = np.argsort(keys, kind="stable")  # each column's words together, in increasing order
    words, sorted_keys = seen[order], keys[order]
    run_starts = np.flatnonzero(np.concatenate([[True], sorted_keys[1:] != sorted_keys[:-1]]))
    run_sizes = np.diff(np.append(run_starts, sorted_keys.size))
    several = run_sizes >= 2
    if not several.any():
        return members, sizes, refused
    run_of = np.repeat(np.arange(run_starts.size), run_sizes)
    first = words[run_starts]  # each column's first word (the words of a run rise)
    in_shared = several[run_of]
    unequal = in_shared & (lam[words] != lam[first[run_of]])
    refused[owner[words[unequal]]] = True
    refused[owner[first[several & (run_sizes > MAX_SHARED_WORDS)]]] = True
    # the shared words by (document, the column's first word, the word): check_groups' order
    chosen = words[in_shared]
    by = np.lexsort((chosen, first[run_of][in_shared], owner[chosen]))
    chosen = chosen[by]
    cut = np.flatnonzero(np.diff(owner[chosen])) + 1
    shared_runs = np.flatnonzero(several)
    run_order = np.lexsort((first[shared_runs], owner[first[shared_runs]]))
    shared_runs = shared_runs[run_order]
    run_cut = np.flatnonzero(np.diff(owner[first[shared_runs]])) + 1
    for part, runs in zip(np.split(chosen, cut), np.split(shared_runs, run_cut), strict=True):
        document = int(owner[part[0]])
        members[document], sizes[document] = part, run_sizes[runs]
    return members, sizes, refused
