r"""Strata of LIME's law for the estimate route: bins of the number s of removed words, and masks drawn in them.

LIME draws s uniformly on 1..d, then removes a uniform s-subset of the words, and weighs the sample by
π = ψ(s/d).  With P(s) = 1/d,

.. math::

   \Gamma = \mathbb{E}[\pi x f] = \sum_s P(s) \psi_s \mathbb{E}[x f \mid s]
          = \sum_b W_b \, \mathbb{E}_{q_b}[x f], \qquad W_b = \sum_{s \in b} P(s) \psi_s,

where the bins b are runs of consecutive s and, inside a bin, s is drawn from :math:`q_b(s) \propto \psi_s`:
importance sampling of s towards lime's weights, which leaves no weight inside the average.  For d up to
:data:`MAX_STRATA` every s is a bin of its own (plain stratification on s); beyond, the bins keep the number of
strata, and with it the smallest useful batch, bounded however long the document is.

An expectation under LIME's own (untilted) law is :math:`\mathbb{E}[h] = \sum_b W_b \mathbb{E}_{q_b}[h / \psi_s]`.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from ..._compiled import compiled
from ...theory.sampling import kernel_weights

#: largest number of strata: one per s up to this d, bins of consecutive s beyond
MAX_STRATA = 160


@dataclass(frozen=True, eq=False)
class Strata:
    """Bins of s = 1..d with their weights W_b and the law q_b of s inside each bin.

    Attributes
    ----------
    d : int
    psi : ndarray, shape (d,)
        ψ(s/d) for s = 1..d.
    bin_of_s : ndarray of int, shape (d,)
        The bin of each s (s - 1 indexes it).
    weight : ndarray, shape (B,)
        W_b = Σ_{s in b} ψ_s / d (0 for a bin whose weights all underflow).
    within : ndarray, shape (d,)
        q_b(s) for each s: ψ_s / Σ_{s' in b} ψ_s' (0 in a dead bin).
    """

    d: int
    psi: np.ndarray
    bin_of_s: np.ndarray
    weight: np.ndarray
    within: np.ndarray

    @property
    def count(self):
        """The number of bins."""
        return len(self.weight)

    @property
    def live(self):
        """Which bins carry weight (the others are never sampled)."""
        return self.weight > 0


def make_strata(d, nu, max_strata=MAX_STRATA):
    """:class:`Strata` of s = 1..d at bandwidth ``nu``: one bin per s up to ``max_strata``, runs of s beyond."""
    psi = kernel_weights(d, nu=nu)
    bins = min(d, max_strata)
    bin_of_s = (np.arange(d) * bins) // d
    totals = np.bincount(bin_of_s, weights=psi, minlength=bins)
    with np.errstate(invalid="ignore", divide="ignore"):
        within = np.where(totals[bin_of_s] > 0, psi / totals[bin_of_s], 0.0)
    return Strata(d=d, psi=psi, bin_of_s=bin_of_s, weight=totals / d, within=within)


def allocate(strata, total, spread=None, minimum=2):
    """Masks per bin: ``minimum`` in each live bin, the rest in proportion to W_b · ``spread`` (Neyman's rule)."""
    live = strata.live
    target = strata.weight * (1.0 if spread is None else np.where(live, spread, 0.0))
    if not target.sum() > 0:
        target = strata.weight
    base = minimum * int(live.sum())
    share = np.floor(max(total - base, 0) * target / target.sum()).astype(np.int64)
    return np.where(live, minimum + share, 0)


def draw_sizes(strata, counts, rng):
    """The number s of removed words of each mask: ``counts[b]`` draws of s from q_b, bin after bin."""
    bins = np.repeat(np.arange(strata.count), counts)
    if strata.count == strata.d and np.array_equal(strata.bin_of_s, np.arange(strata.d)):  # a bin per s
        return bins, bins + 1
    sizes = np.empty(len(bins), dtype=np.int64)
    # bin b's masks are one slice of ``bins`` (np.repeat of 0, 1, ...), and its values of s one slice of a stable
    # sort of bin_of_s (in increasing s, as np.flatnonzero(bin_of_s == b) gives them): the same draws as scanning
    # every mask and every s for each bin, which cost O(bins x masks) (0.3 s of a default call at d = 488)
    order = np.argsort(strata.bin_of_s, kind="stable")
    bounds = np.searchsorted(strata.bin_of_s[order], np.arange(strata.count + 1))
    ends = np.cumsum(counts)
    for b in np.flatnonzero(counts).tolist():
        members = order[bounds[b] : bounds[b + 1]]
        where = slice(int(ends[b] - counts[b]), int(ends[b]))
        if len(members) == 1:
            sizes[where] = members[0] + 1
        else:
            sizes[where] = rng.choice(members, size=int(counts[b]), p=strata.within[members]) + 1
    return bins, sizes


def masks_removing(sizes, d, rng):
    """(m, d) bool masks, row i removing a uniform random set of ``sizes[i]`` words (1 = kept).

    Selection sampling (Knuth's algorithm S), one word at a time for all rows: word j is removed with probability
    (number still to remove) / (d - j); O(m d) work and the masks are the only m x d array held.
    """
    sizes = np.asarray(sizes, dtype=np.int64)
    m = len(sizes)
    kept = np.empty((m, d), dtype=bool)
    to_remove = sizes.astype(float)
    # the uniforms of word j are the generator's next m (as d calls of rng.random(m) draw them), words in blocks of
    # at most _SELECTION_DRAWS uniforms; the selection itself is a compiled loop (the same comparisons)
    block = max(1, _SELECTION_DRAWS // max(m, 1))
    for start in range(0, d, block):
        uniforms = rng.random((min(block, d - start), m))
        _select_words(uniforms, to_remove, kept, start, d)
    return kept


#: uniforms drawn at a time by :func:`masks_removing` (8 MiB)
_SELECTION_DRAWS = 2**20


@compiled(cache=True)
def _select_words(uniforms, to_remove, kept, start, d):
    """Words start, start + 1, ... of every mask: removed when its uniform is below (left to remove) / (words left)."""
    rows, m = uniforms.shape
    for r in range(rows):
        j = start + r
        left = float(d - j)
        for i in range(m):
            removed = uniforms[r, i] < to_remove[i] / left  # exactly 1 when every remaining word must go
            kept[i, j] = not removed
            # 1.0 or 0.0 subtracted without a branch (a count left is never negative: x - 0.0 is x): on random
            # masks the branch was mispredicted about once in two words, four times slower than this
            to_remove[i] -= np.float64(removed)


@functools.lru_cache(maxsize=64)
def kept_probabilities(d, count=3):
    """P(p given words all kept | s) for p = 1..``count`` (default 3) and s = 1..d: ``count`` arrays of length d.

    Cached per (d, count), read-only: the controls' moments ask for them at every batch.
    """
    s = np.arange(1, d + 1, dtype=float)
    out, p = [], np.ones(d)
    for r in range(count):  # C(d - r - 1, s) / C(d - r, s) = (d - r - s) / (d - r): one more given word kept
        p = p * np.maximum(d - s - r, 0) / max(d - r, 1)
        out.append(p)
    for p in out:
        p.flags.writeable = False
    return tuple(out)
