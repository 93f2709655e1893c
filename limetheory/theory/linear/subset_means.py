"""Means over the sets of each size of products of per-word factors: the recursions of the exact linear route.

For a node u of the quadrature over u (:mod:`limetheory.theory.linear.linear_quadrature`), word j's factor is x_j =
exp(-u omega_j); the mean over the a-subsets A of prod_A x (and of W(A) prod_A x) is a normalised elementary symmetric
polynomial. This module holds the forward recursion over the words (:func:`full_means`), the products with the columns
that several words share (:func:`times_column`, with the hypergeometric weights), the two-sided leave-one-out recursion
of the words alone in their column (:func:`leave_one_out_sums`) and the sums for the words of a shared column
(:func:`shared_column_sums`): step 3 of :mod:`limetheory.theory.linear.linear_exact`'s docstring, where the stability of
each recursion is argued.

The recursions are numba-compiled loops over nodes, words and sizes (``_..._kernel``; the public functions check their
arguments' layout and call them), compiled on first call (:mod:`limetheory._compiled`) and cached beside the module
(the first call in a fresh clone about 8 CPU-s: ``benchmarks/linear_compile_cost.py``; later processes load them in
about 0.5 s). :func:`node_sums_at_once` chains them in one compiled call (``linear_moments.node_sums`` untruncated).
"""

from __future__ import annotations

import functools
import math

import numpy as np

from ..._compiled import compiled
from .kernel_arrays import doubles as _doubles
from .kernel_arrays import reading as _reading

#: largest table of hypergeometric weights kept in the cache (at most 32 KiB)
_CACHED_WEIGHT_ENTRIES = 4096
#: tables kept (32 MiB at most; the 1000 Yelp reviews need about 3 MiB: their 243 lengths missed 256 tables)
_CACHED_WEIGHT_TABLES = 1024
#: the upward leave-one-out step is used while the sets containing the word carry at most this share of the mean
_UPWARD_SHARE = 0.5
#: a mean below this (means are at most 1) adds nothing to the quadrature sums: the rule's weights are below about
#: 1e102 d (u <= 45 / r_min, r_min >= 1e-200 / d), so every neglected term is below 1e-140 |lam| for d <= 1e4, far below
#: linear_exact.BETA_ACCURACY; under it the means lose digits (subnormal at 1e-308): the recursions must not divide
_NEGLIGIBLE_MEAN = 1e-250
NEGLIGIBLE_LIMIT = float(-np.log(_NEGLIGIBLE_MEAN))  #: sizes with u R_min(a) above it are negligible (negligible_sizes)


def full_means(x, w, top=None, tops=None):
    """Means over the a-subsets A of the n words of ``x`` of prod_A x and of W(A) prod_A x, for a = 0..n.

    ``x`` has shape (B, n) (one row per quadrature node), ``w`` shape (n,); W(A) = sum_{i in A} w_i. Returns P and Pw of
    shape (B, n + 1), column a. Adding a word updates every mean by a convex combination (hypergeometric weights): P
    keeps its relative accuracy, and Pw its accuracy relative to the same mean with |w| in place of w. Sizes above
    ``top`` are left at 0 (the caller knows them negligible at these nodes); a size never feeds a smaller one, so the
    others are unchanged.  ``tops`` (shape (B,), nonincreasing: ``negligible_sizes`` along increasing nodes) does the
    same node by node: node b's sizes from ``tops[b]`` on are left at 0, its other means the same to the bit.
    """
    n_words = x.shape[1]
    top = n_words if top is None else min(int(top), n_words)
    limits = np.full(x.shape[0], top + 1) if tops is None else np.minimum(np.asarray(tops, dtype=np.int64), top + 1)
    # size a is updated at the nodes whose limits exceed it, the first ones (limits do not increase)
    nodes = np.searchsorted(-limits, -np.arange(n_words + 1), side="left").astype(np.int64)
    return _full_means_kernel(_doubles(x), _doubles(w), top, nodes)


@compiled(cache=True, error_model="numpy")
def _full_means_kernel(x, w, top, nodes):
    """:func:`full_means`, compiled: word j updates sizes m..1 (downwards, so that size a - 1 is still the old one).

    The means are kept by size (one row per size a, one column per node), so that the innermost loop runs over
    the nodes, independent of each other and contiguous in memory: size a at the first ``nodes[a]`` nodes.
    """
    B, n_words = x.shape
    by_size = np.zeros((n_words + 1, B))
    by_size_w = np.zeros((n_words + 1, B))
    by_size[0] = 1.0
    x_by_word = np.ascontiguousarray(x.T)
    for j in range(n_words):
        n = j + 1  # words seen once word j is added
        m = min(n, top)  # sizes 1..m are updated
        wj, xj = w[j], x_by_word[j]
        for a in range(m, 0, -1):
            c0 = (n - a) / n  # share of the a-subsets (a >= 1) that avoid word j
            c1 = a / n  # share of those that contain it
            below, below_w, mean, mean_w = by_size[a - 1], by_size_w[a - 1], by_size[a], by_size_w[a]
            for b in range(nodes[a]):
                xp = xj[b] * below[b]
                carried = (xj[b] * below_w[b] + wj * xp) * c1
                mean_w[b] = mean_w[b] * c0 + carried
                mean[b] = mean[b] * c0 + xp * c1
    return np.ascontiguousarray(by_size.T), np.ascontiguousarray(by_size_w.T)


def hypergeometric_weights(n, e, width=None):
    """:func:`_exact_hypergeometric_weights`, cached when small (documents share them; read-only arrays).

    With ``width``, only the sizes below it are needed (k, b < width): :func:`_truncated_hypergeometric_weights`.
    """
    if width is not None:
        return _truncated_hypergeometric_weights(n, e, width)
    if (n + 1) * (e + 1) <= _CACHED_WEIGHT_ENTRIES:
        return _cached_hypergeometric_weights(n, e)
    weights = _exact_hypergeometric_weights(n, e)
    weights.flags.writeable = False  # read-only as the cached ones: the kernels see one type
    return weights


@functools.lru_cache(maxsize=_CACHED_WEIGHT_TABLES)
def _cached_hypergeometric_weights(n, e):
    weights = _exact_hypergeometric_weights(n, e)
    weights.flags.writeable = False
    return weights


def _exact_hypergeometric_weights(n, e):
    """H[k, b] = C(e, k) C(n, b) / C(n + e, b + k) for k = 0..e, b = 0..n.

    The share, among the (b + k)-subsets of n + e words, of those that take k of the last e words, divided by the number
    of ways C(n, b) C(e, k) / C(n + e, b + k)... i.e. the weight of the product of two means: the mean over the (b +
    k)-subsets of n + e words of a product that factorises over the two parts is sum_k H[k, b] mean_b(first n)
    mean_k(last e). Computed as C(e, k) times exp of two sums of logarithms (no large factorials): sum_{i<=k} log((b +
    i)/(n + i)), of numbers <= 1, which grows with k by one term, and sum_{i<=e-k} log((n - b + i)/(n + k + i)) =
    sum_{k<i<=e} log((n - b + e + 1 - i)/(n + i)), which loses one term as k grows: two logarithms per entry, each term
    within a factor n + e of 1, so that the sums' rounding (relative to their e terms) is at most about 2 e log(n + e)
    eps, and H's relative error as much.
    """
    return _exact_weights_kernel(int(n), int(e), np.array([float(math.comb(e, k)) for k in range(e + 1)]))


@compiled(cache=True, error_model="numpy")
def _exact_weights_kernel(n, e, choose):
    """:func:`_exact_hypergeometric_weights`, compiled; ``choose[k]`` = C(e, k) as a float."""
    out = np.empty((e + 1, n + 1))
    high = np.empty(e + 1)
    for b in range(n + 1):
        high[e] = 0.0
        for k in range(e - 1, -1, -1):  # the sum for k has the terms i = k + 1..e
            high[k] = high[k + 1] + np.log((n - b + e - k) / (n + k + 1))
        low = 0.0
        for k in range(e + 1):
            if k:
                low += np.log((b + k) / (n + k))
            out[k, b] = choose[k] * np.exp(low + high[k])
    return out


@functools.lru_cache(maxsize=4096)
def _truncated_hypergeometric_weights(n, e, width):
    """H[k, b] of :func:`_exact_hypergeometric_weights` for k <= min(e, width - 1), b <= min(n, width - 1).

    By exact ratios: H[k + 1, 0] / H[k, 0] = (e - k) / (n + e - k) and H[k, b + 1] / H[k, b] = (n - b)(b + k + 1) /
    ((b + 1)(n + e - b - k)), multiplied up (relative error at most 2 width roundings; every H is <= 1, so the products
    cannot overflow). It costs width² operations whatever n and e, where the exact table costs e² n.
    """
    k = np.arange(min(e, width - 1) + 1, dtype=float)[:, None]
    b = np.arange(min(n, width - 1), dtype=float)[None, :]
    total = n + e
    first = np.cumprod(np.concatenate([[1.0], (e - k[:-1, 0]) / (total - k[:-1, 0])]))
    steps = ((n - b) * (b + k + 1)) / ((b + 1) * (total - b - k))
    weights = first[:, None] * np.concatenate([np.ones((k.size, 1)), np.cumprod(steps, axis=1)], axis=1)
    weights.flags.writeable = False  # cached: documents and blocks share them
    return weights


def times_column(P, Pw, G, Gw, weights, width=None):
    """Means over n + e words from the means over n words (P, Pw) and over a column of e words (G, Gw).

    ``weights`` is :func:`hypergeometric_weights` (n, e).  W adds up over the two parts:
    mean(W prod) = sum_k H (Pw G + P Gw).  All terms of P's mean are >= 0: no cancellation.  With ``width``,
    the sizes from ``width`` on are dropped (they never feed a smaller size).
    """
    n1, e = P.shape[1], G.shape[1] - 1
    total = n1 + e if width is None else min(n1 + e, width)
    return _times_column_kernel(_doubles(P), _doubles(Pw), _doubles(G), _doubles(Gw), _reading(weights), total)


@compiled(cache=True, error_model="numpy")
def _times_column_kernel(P, Pw, G, Gw, weights, total):
    """:func:`times_column`, compiled: the sizes below ``total``."""
    B, n1 = P.shape
    K = min(G.shape[1], total)
    out = np.zeros((B, total))
    out_w = np.zeros((B, total))
    for b in range(B):
        for k in range(K):
            span = min(n1, total - k)
            g, gw = G[b, k], Gw[b, k]
            for i in range(span):
                h = weights[k, i]
                out[b, k + i] += h * (g * P[b, i])
                out_w[b, k + i] += h * (g * Pw[b, i] + gw * P[b, i])
    return out, out_w


def subset_masks(e):
    """Every subset of range(e) as a 0/1 matrix (2^e, e), and its size (read-only arrays, shared by the callers)."""
    return _subset_masks(int(e))


@functools.lru_cache(maxsize=16)
def _subset_masks(e):
    masks = (np.arange(2**e)[:, None] >> np.arange(e)) & 1
    masks, sizes = masks.astype(float), masks.sum(axis=1)
    masks.flags.writeable = False
    sizes.flags.writeable = False
    return masks, sizes


def column_means(u, t_members, w_members):
    """Means over the k-subsets A of a column's words of exp(-u R_A) and of W(A) exp(-u R_A), k = 0..e.

    R_A = (sum_A t)^2; returns G, Gw of shape (B, e + 1), and the per-subset factors for the members' moments.
    """
    e = t_members.size
    masks, sizes = subset_masks(e)
    subset_t = masks @ t_members
    subset_w = masks @ w_members
    counts = np.array([math.comb(e, k) for k in range(e + 1)], dtype=float)
    G, Gw, factor = _column_means_kernel(_reading(u), subset_t, subset_w, _reading(sizes, np.int64), counts)
    return G, Gw, factor, masks, sizes, subset_w


@compiled(cache=True, error_model="numpy")
def _column_means_kernel(u, subset_t, subset_w, sizes, counts):
    """:func:`column_means`' sums over the subsets of each size, compiled (the subsets in their binary order)."""
    B, n_subsets, e = u.size, subset_t.size, counts.size - 1
    factor = np.empty((B, n_subsets))
    G = np.zeros((B, e + 1))
    Gw = np.zeros((B, e + 1))
    for b in range(B):
        for i in range(n_subsets):
            factor[b, i] = np.exp(-(u[b] * subset_t[i] ** 2))
            G[b, sizes[i]] += factor[b, i]
            Gw[b, sizes[i]] += factor[b, i] * subset_w[i]
        for k in range(e + 1):
            G[b, k] /= counts[k]
            Gw[b, k] /= counts[k]
    return G, Gw, factor


def leave_one_out_sums(x, u, rest, w_total, d, P, Pw, weights, tops, truncated=False):
    """For words alone in their column, one per distinct weight: the sums over q of weights_q x_k (w_k L + Lw).

    They are returned as ``(value at w_k = 0, slope in w_k)``, each of shape (rows, C), for a = 0..rows-1 with
    rows = min(tops[0], d - 1) (the sums vanish above).  With ``truncated``, the sizes from ``tops`` on are not
    negligible but merely not needed (the size mixture sums them): only the upward pass can serve, so the result
    is None when some word's share would need the downward pass below ``tops`` (the caller then falls back to
    the recursions for every size).

    L_a (Lw_a) is the mean over the a-subsets A of the words other than k of prod_A x (of W(A) prod_A x), so
    that x_k (w_k L + Lw) is the mean over the (a+1)-sets K containing k of W(K) prod_K x.  With mean_a the
    mean over all words (``P``, ``Pw``), the identity

        d mean_a = (d - a) L_a + a x_k L_{a-1}      (and the same for Pw with Lw + w_k L)

    is solved upwards for L_a while the share pi_a = a x_k L_{a-1} / (d mean_a) of the sets containing k
    stays <= 1/2, and downwards (for L_{a-1}, from L_{d-1} = prod over the other columns) above the first
    level where it exceeds 1/2.  pi_a increases with a (Newton's inequalities for the ESPs without k), so
    every step loses at most one bit and multiplies the inherited relative error by pi/(1 - pi) <= 1
    (upwards) or (1 - pi)/pi <= 1 (downwards).  Lw is affine in w_k: Lw = Lw0 + w_k D, both carried along.
    ``x`` (B, C) and ``rest`` (C,) describe one representative word per distinct weight.  Sizes >= ``tops[q]``
    are negligible at node q (means below ``_NEGLIGIBLE_MEAN``; :func:`negligible_sizes`): the nodes are in
    increasing u, so ``tops`` does not increase, and node q runs both passes over the sizes below ``tops[q]``
    only (a node whose sizes are negligible from a on contributes nothing above a).
    """
    top, tops = min(int(tops[0]), d - 1), np.ascontiguousarray(tops, dtype=np.int64)
    out0, slope, lowest = _leave_one_out_kernel(
        _doubles(x), _reading(u), _doubles(rest), float(w_total), int(d), _doubles(P), _doubles(Pw),
        _reading(weights), tops, top, bool(truncated),
    )  # fmt: skip
    if truncated and lowest < top:
        return None
    return out0, slope


@compiled(cache=True, error_model="numpy")
def _leave_one_out_kernel(x, u, rest, w_total, d, P, Pw, weights, tops, top, truncated):
    """:func:`leave_one_out_sums`, compiled; also returns the first size that needed the downward pass.

    The state of word c's recursions at node b is (L, Lw0, E = D + L), where E is what the slope needs; the
    words of one node run side by side (the innermost loop), each its own recursion.  The innermost loops are
    written for LLVM's vectoriser (four words per instruction): over slices that start at 0 (a loop from
    ``first`` is not vectorised: its indices could be negative) and with selects where a branch would store
    conditionally.  Each word's operations, and the order of each sum over the nodes, are those of the loop
    with branches: the result is the same to the bit (tests/test_linear_exact.py).
    """
    B, C = x.shape
    rows = max(top, 1)
    out0 = np.zeros((rows, C))
    slope = np.zeros((rows, C))
    # first_down[b, c] is the first size a that needs the downward pass (d - 1: none)
    first_down = np.full((B, C), d - 1, dtype=np.int64)
    L = np.empty(C)
    Lw0 = np.empty(C)
    E = np.empty(C)
    # node b's first_down of each word as a float (a select of the vectorised loop); d - 1 while it goes upwards
    down = np.empty(C)
    upward = float(d - 1)
    for b in range(B):
        q = weights[b]
        xb = x[b]
        for c in range(C):
            slope[0, c] += q * xb[c]
            L[c], Lw0[c], E[c], down[c] = 1.0, 0.0, 1.0, upward  # L_0 = 1, Lw_0 = 0, E_0 = 1
        first = 0  # the words before it have left the upward pass (its state stays 0 for them: skipped)
        for a in range(1, min(top, tops[b])):
            while first < C and down[first] != upward:
                first += 1
            if first == C:  # every word has left: the upward pass adds nothing more at this node
                break
            # the sets containing k carry more than half of mean_a when the part below exceeds mean_a / 2; an
            # underflowed mean_a has negligible parts, and the word stays (threshold inf)
            mean, mean_w = P[b, a], Pw[b, a]
            threshold = _UPWARD_SHARE * mean if mean >= _NEGLIGIBLE_MEAN else np.inf
            share, grow, size = a / d, d / (d - a), float(a)
            xs, Ls, Ws, Es, downs = xb[first:], L[first:], Lw0[first:], E[first:], down[first:]
            outs, slopes = out0[a, first:], slope[a, first:]
            for c in range(C - first):
                xc, was_down = xs[c], downs[c]
                part = share * xc
                T0 = part * Ls[c]  # (a/d) x_k L_{a-1}: the part of mean_a from the sets containing k
                was_up = was_down == upward
                leaves = was_up & (T0 > threshold)
                downs[c] = size if leaves else was_down
                # L_a, Lw0_a, and D_a = -(a/d) x_k E_{a-1} d/(d-a)
                T0 = (mean - T0) * grow
                T1 = (mean_w - part * Ws[c]) * grow
                T2 = (0.0 - part * Es[c]) * grow
                level = max(T0, 0.0) if (was_up & (~leaves)) else 0.0
                T2 += level
                # where the means underflow (L = 0) the sums are negligible too; the homogeneous part of the
                # recursions for Lw0 and D (growth a x / (d - a) per step) must not act on their leftovers
                lw = T1 if level > 0 else 0.0
                e = T2 if level > 0 else 0.0
                Ls[c], Ws[c], Es[c] = level, lw, e
                outs[c] += q * (xc * lw)
                slopes[c] += q * (xc * e)
        for c in range(C):
            first_down[b, c] = int(down[c])
    lowest = d - 1
    for b in range(B):
        for c in range(C):
            lowest = min(lowest, first_down[b, c])
    if truncated or lowest >= d - 1:  # truncated: only the upward pass serves; or every word stayed in it
        return out0, slope, lowest
    # downwards from L_{d-1} = exp(-u R(all words but k)), kept only where a > first_down; the state is now
    # S = (L, Lw0, D).  A node whose size top is negligible starts from 0 there; below _NEGLIGIBLE_MEAN the means
    # have lost their digits (at large u they underflow at large a): there the sums are negligible, and the
    # recursion restarts from 0 below that level
    # Words of small weight (large x) leave first, so the words that need size a - 1 downwards are about the first
    # few: the loop over the words stops after the last one that does (ends[a]); the others are needed neither at
    # this size nor below it, so their state is never read again
    ends = np.empty(d, dtype=np.int64)
    inverse = np.empty(C)
    for b in range(B):
        ends[:] = 0
        for c in range(C):
            if first_down[b, c] < d - 1:
                ends[first_down[b, c] + 1] = c + 1
        low = d - 1
        for a in range(1, d):  # ends[a]: 1 + the last word with first_down <= a - 1
            ends[a] = max(ends[a], ends[a - 1])
            if ends[a] and low == d - 1:
                low = a - 1
        if low >= d - 1:
            continue
        q, start = weights[b], top  # from 0, levels of negligible mean leave the state at 0 and add +0.0: skipped
        while not (top == d - 1 and tops[b] > top) and start > low and P[b, start] < _NEGLIGIBLE_MEAN:
            start -= 1
        for c in range(C):
            if top == d - 1 and tops[b] > top:
                L[c] = np.exp(-u[b] * rest[c])
                Lw0[c], E[c] = w_total * L[c], -L[c]  # W(all but k) = w_total - w_k
            else:
                L[c], Lw0[c], E[c] = 0.0, 0.0, 0.0
            down[c] = first_down[b, c]
        # one division per word and node: T / x_k as T times 1/x_k costs a rounding more per step (2^-53
        # relative), well within the bit a downward step may lose, where three divisions were a third of the time
        for c in range(C):
            inverse[c] = 1.0 / x[b, c]
        for a in range(start, low, -1):
            mean, mean_w = P[b, a], Pw[b, a]
            significant = mean >= _NEGLIGIBLE_MEAN
            keep, grow, below = (d - a) / d, d / a, a - 1.0
            n = ends[a]
            Ls, Ws, Es, downs, inverses = L[:n], Lw0[:n], E[:n], down[:n], inverse[:n]
            outs, slopes = out0[a - 1, :n], slope[a - 1, :n]
            for c in range(n):
                active = significant & (downs[c] <= below)
                # T = (x_k L_{a-1}, x_k Lw0_{a-1}, x_k (D_{a-1} + L_{a-1}))
                T0 = (mean - keep * Ls[c]) * grow
                T1 = (mean_w - keep * Ws[c]) * grow
                T2 = (0.0 - keep * Es[c]) * grow
                level = T0 * inverses[c]
                lw = T1 * inverses[c]
                e = T2 * inverses[c] - level
                Ls[c] = level if active else 0.0
                Ws[c] = lw if active else 0.0
                Es[c] = e if active else 0.0
                # a sum that starts at +0.0 is never -0.0 (x + y = 0 rounds to +0.0), so adding +0.0 where the
                # word is inactive leaves it unchanged to the bit
                outs[c] += q * T1 if active else 0.0
                slopes[c] += q * T2 if active else 0.0
    return out0, slope, lowest


def negligible_sizes(model, nodes):
    """For each node, the smallest size a whose means are all below ``_NEGLIGIBLE_MEAN`` (d + 1 if none).

    Every a-set has R >= the sum of the a smallest omega (a shared column only adds cross terms), so its exp(-u R) is
    below exp(-u R_min(a)); sizes with u R_min(a) > -log(_NEGLIGIBLE_MEAN) are negligible.
    """
    lightest = np.concatenate([[0.0], np.cumsum(np.sort(model.omega))])  # R_min(a), a = 0..d
    return np.searchsorted(lightest, NEGLIGIBLE_LIMIT / nodes, side="right").clip(max=model.d + 1)


def shared_column_sums(u, q, d, shared, columns, prefixes, suffix_weights, combine_weights, member_weights,
                        width=None):  # fmt: skip
    """sum_q q_q (mean over the (a+1)-sets K containing k of W(K) exp(-u R_K)) for the words of shared columns.

    Given that K contains k, K meets k's column c in a subset A containing k, with probability
    C(d - e, a + 1 - |A|) / C(d - 1, a), and the rest of K is a uniform subset of the d - e other words, whose
    means M, Mw come from the product of all the other columns (prefix x suffix, no division).  With ``width``,
    only the sets of fewer than ``width`` words are summed, and the result has rows a = 0..width-2 only.
    """
    B = u.size
    # truncated, the other columns' means come by division where that is stable; every size, or a column that
    # carries most of the small sets, from prefix x suffix products
    others = [None] * len(shared) if width is None else _without_each_column(d, columns, prefixes[-1], width)
    if any(pair is None for pair in others):
        ones, zeros = np.ones((B, 1)), np.zeros((B, 1))
        suffix = [(ones, zeros)] * len(shared)
        for i in range(len(shared) - 2, -1, -1):
            G, Gw = columns[i + 1][0], columns[i + 1][1]
            suffix[i] = times_column(suffix[i + 1][0], suffix[i + 1][1], G, Gw, suffix_weights[i], width)
        for i, pair in enumerate(others):
            if pair is None:
                P, Pw = prefixes[i]
                others[i] = times_column(P, Pw, suffix[i][0], suffix[i][1], combine_weights[i], width)
    rows = d - 1 if width is None else min(d - 1, width - 1)
    out = np.zeros((rows, sum(members.size for members in shared)))
    first = 0  # the column of out of the column's first member
    for i, members in enumerate(shared):
        e = members.size
        M, Mw = others[i]
        _, _, factor, masks, sizes, subset_w = columns[i]
        h = member_weights[i]  # h[m - 1, b] / C(e - 1, m - 1): P(K meets the column in A | k in K, |K| = b + m)
        choose = np.array([float(math.comb(e - 1, m - 1)) for m in range(1, e + 1)])
        _member_sums_kernel(
            _reading(q), factor, _reading(masks), _reading(sizes, np.int64), subset_w, _doubles(M), _doubles(Mw),
            _reading(h), choose, out, first,
        )  # fmt: skip
        first += e
    return out


@compiled(cache=True, error_model="numpy")
def _member_sums_kernel(q, factor, masks, sizes, subset_w, M, Mw, h, choose, out, first):
    """:func:`shared_column_sums` for the e members of one column, added to ``out[:, first:first + e]``, compiled.

    F[p, m - 1, b] sums q_b times the factor of node b over the subsets A of the column that contain member p and
    have m words (FW: times W(A) too); the sum over the nodes is taken before the shift by m - 1, which does not
    involve the nodes: out[m - 1 + j, p] += h[m - 1, j] / C(e - 1, m - 1) sum_b (FW M + F Mw)[b, j].
    """
    B, n_subsets = factor.shape
    e, span, rows = masks.shape[1], M.shape[1], out.shape[0]
    F = np.zeros((e, e, B))
    FW = np.zeros((e, e, B))
    for b in range(B):
        for A in range(1, n_subsets):  # subset 0 is empty: it contains no member
            f = factor[b, A]
            fw = f * subset_w[A]
            m = sizes[A]
            for p in range(e):
                if masks[A, p] == 1.0:
                    F[p, m - 1, b] += f
                    FW[p, m - 1, b] += fw
    combined = np.empty(span)
    for p in range(e):
        for m in range(1, min(e, h.shape[0]) + 1):
            combined[:] = 0.0
            for b in range(B):
                weight_w, weight = q[b] * FW[p, m - 1, b], q[b] * F[p, m - 1, b]
                for j in range(span):
                    combined[j] += weight_w * M[b, j] + weight * Mw[b, j]
            for j in range(min(span, h.shape[1], rows - m + 1)):
                out[m - 1 + j, first + p] += (h[m - 1, j] / choose[m - 1]) * combined[j]


def _without_each_column(d, columns, full, width):
    """For each shared column, the means over the sets of the other d - e words, sizes below ``width``.

    The means over all words are those over the others times the column's (:func:`times_column`):
    full_m = sum_k H[k, m - k] G_k M_{m-k}, with G_0 = 1 (the empty part of the column), so M is solved upwards,
    M_m = (full_m - sum_{k>=1} ...) / H[0, m], for every column of e words at once (width steps, where the prefix x
    suffix products cost width² per column). All subtracted terms are >= 0 and, as in the words' upward pass
    (:func:`leave_one_out_sums`), while they stay at most half of full_m each step adds a rounding and passes on the
    inherited relative error without enlarging it. Where they exceed half (a column whose words carry most of the small
    sets), its entry is None and the caller takes the products. Returns a list of (M, Mw), each of shape (B, width), in
    the columns' order.
    """
    P, Pw = full
    B, W = P.shape[0], min(width, P.shape[1])
    by_size = {}
    for index, column in enumerate(columns):
        by_size.setdefault(column[0].shape[1] - 1, []).append(index)
    out = [None] * len(columns)
    significant = P[:, :W] >= _NEGLIGIBLE_MEAN
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for e, indices in by_size.items():
            H = hypergeometric_weights(d - e, e, width)
            G = np.stack([columns[i][0] for i in indices], axis=1)  # (B, n, e + 1)
            Gw = np.stack([columns[i][1] for i in indices], axis=1)
            M = np.zeros((B, len(indices), W))
            Mw = np.zeros((B, len(indices), W))
            unstable = np.zeros(len(indices), dtype=bool)
            for m in range(W):
                k = np.arange(1, min(e, m) + 1)
                h = H[k, m - k]
                part = np.einsum("k,bnk,bnk->bn", h, G[:, :, k], M[:, :, m - k])
                part_w = np.einsum("k,bnk,bnk->bn", h, G[:, :, k], Mw[:, :, m - k])
                part_w += np.einsum("k,bnk,bnk->bn", h, Gw[:, :, k], M[:, :, m - k])
                unstable |= (significant[:, m : m + 1] & (part > _UPWARD_SHARE * P[:, m : m + 1])).any(axis=0)
                keep = significant[:, m : m + 1]
                M[:, :, m] = np.where(keep, (P[:, m : m + 1] - part) / H[0, m], 0.0)
                Mw[:, :, m] = np.where(keep, (Pw[:, m : m + 1] - part_w) / H[0, m], 0.0)
            for row, index in enumerate(indices):
                out[index] = None if unstable[row] else (M[:, row], Mw[:, row])
    return out


#: the compiled recursions that :func:`_node_sums_kernel` calls (their numba dispatchers, set on its first call)
_FULL_MEANS = _COLUMN_MEANS = _TIMES_COLUMN = _LEAVE_ONE_OUT = _MEMBER_SUMS = None


def node_sums_at_once(u, q, factors, w_singles, top, x, rest, w_total, d, tops, shared, t, w, column_weights):
    """``linear_moments.node_sums`` without truncation, in one compiled call: the same recursions in the same order.

    The forward recursion over the words alone in their column (:func:`full_means`), each shared column's means
    (:func:`column_means`) multiplied in (:func:`times_column`), the leave-one-out sums (:func:`leave_one_out_sums`)
    and the shared columns' members (:func:`shared_column_sums`, every size): each is the kernel it names, called by
    :func:`_node_sums_kernel` on the arrays the Python functions pass it (so the results are theirs to the bit), where
    the per-step calls cost a few microseconds each and a document of a few shared columns makes twenty of them.
    ``factors`` (B, n) are the single words' exp(-u omega), ``x`` (B, C) one column of them per distinct weight (C may
    be 0), ``shared`` the shared columns' index arrays into ``t`` and ``w``, ``column_weights`` the four lists of
    ``linear_moments.shared_column_weights`` (every size).  Returns (P, Pw, out0, slope, member_loo): the means over
    all the words of every size (for ``q @ Pw``), the leave-one-out sums (None when C = 0) and the members' sums.
    """
    global _FULL_MEANS, _COLUMN_MEANS, _TIMES_COLUMN, _LEAVE_ONE_OUT, _MEMBER_SUMS
    if _MEMBER_SUMS is None:  # the kernels it calls, compiled (or loaded) before it is
        _FULL_MEANS, _COLUMN_MEANS = _full_means_kernel.dispatcher(), _column_means_kernel.dispatcher()
        _TIMES_COLUMN, _LEAVE_ONE_OUT = _times_column_kernel.dispatcher(), _leave_one_out_kernel.dispatcher()
        _MEMBER_SUMS = _member_sums_kernel.dispatcher()
    forward, suffix, combine, member = column_weights
    sizes = [members.size for members in shared]
    subset_t, subset_w, subset_sizes, masks, counts, choose = [], [], [], [], [], []
    for members, e in zip(shared, sizes, strict=True):  # column_means' and shared_column_sums' arrays
        column_masks, column_sizes = subset_masks(e)
        subset_t.append(column_masks @ t[members])
        subset_w.append(column_masks @ w[members])
        subset_sizes.append(column_sizes)
        masks.append(column_masks.ravel())
        counts.append(_choose_row(e))
        choose.append(_choose_row(e - 1))  # C(e - 1, m - 1) for m = 1..e
    # every table, flat, with its start and shape: forward[i], combine[i], member[i], then suffix[i] (i < S - 1)
    tables = [*forward, *combine, *member, *suffix]
    shapes = np.array([table.shape for table in tables], dtype=np.int64).reshape(len(tables), 2)
    starts = np.concatenate([[0], np.cumsum(shapes[:, 0] * shapes[:, 1])]).astype(np.int64)
    flat = np.concatenate([table.ravel() for table in tables]) if tables else np.zeros(0)
    empty = np.zeros(0)
    P, Pw, out0, slope, member_loo = _node_sums_kernel(
        _reading(u), _reading(q), _doubles(factors), _doubles(w_singles), int(top), _doubles(x), _doubles(rest),
        float(w_total), int(d), np.ascontiguousarray(tops, dtype=np.int64), np.array(sizes, dtype=np.int64),
        np.concatenate(subset_t) if shared else empty, np.concatenate(subset_w) if shared else empty,
        _reading(np.concatenate(subset_sizes) if shared else np.zeros(0), np.int64),
        _reading(np.concatenate(masks) if shared else empty), np.concatenate(counts) if shared else empty,
        np.concatenate(choose) if shared else empty, _reading(flat), starts, shapes, False,
    )  # fmt: skip
    return P, Pw, (out0 if x.shape[1] else None), (slope if x.shape[1] else None), member_loo


@functools.lru_cache(maxsize=64)
def _choose_row(e):
    """C(e, k) for k = 0..e, as floats (read-only: shared by the callers)."""
    row = np.array([float(math.comb(e, k)) for k in range(e + 1)])
    row.flags.writeable = False
    return row


@compiled(cache=True, error_model="numpy")
def _node_sums_kernel(u, q, factors, w_singles, top, x, rest, w_total, d, tops, sizes, subset_t, subset_w,
                      subset_sizes, masks, counts, choose, tables, starts, shapes, truncated):  # fmt: skip
    """:func:`node_sums_at_once`, compiled: linear_moments.node_sums' calls of the kernels, in its order.

    ``truncated`` is False, passed as a bool (not numba's literal False) to reuse leave_one_out_sums' compilation.
    """
    B, n_singles = factors.shape
    S = sizes.size
    P, Pw = _FULL_MEANS(factors, w_singles, min(top, n_singles), np.full(n_singles + 1, u.size, dtype=np.int64))
    prefixes, prefixes_w = [P], [Pw]
    columns, columns_w, column_factors = [], [], []
    subset_start, count_start = 0, 0
    for i in range(S):  # node_sums: each shared column's means, multiplied in
        e = sizes[i]
        n_subsets = 1 << e
        G, Gw, factor = _COLUMN_MEANS(
            u, subset_t[subset_start : subset_start + n_subsets], subset_w[subset_start : subset_start + n_subsets],
            subset_sizes[subset_start : subset_start + n_subsets], counts[count_start : count_start + e + 1],
        )  # fmt: skip
        columns.append(G)
        columns_w.append(Gw)
        column_factors.append(factor)
        h = tables[starts[i] : starts[i + 1]].reshape((shapes[i, 0], shapes[i, 1]))
        P, Pw = _TIMES_COLUMN(P, Pw, G, Gw, h, P.shape[1] + e)
        prefixes.append(P)
        prefixes_w.append(Pw)
        subset_start += n_subsets
        count_start += e + 1
    C = x.shape[1]
    out0 = np.zeros((0, C))
    slope = np.zeros((0, C))
    if C:
        out0, slope, _ = _LEAVE_ONE_OUT(x, u, rest, w_total, d, P, Pw, q, tops, min(tops[0], d - 1), truncated)
    member_loo = np.zeros((d - 1, sizes.sum()))
    if S == 0:
        return P, Pw, out0, slope, member_loo
    # shared_column_sums (every size): the other columns' means from prefix x suffix products, then the members
    suffix = [np.ones((B, 1)) for _ in range(S)]
    suffix_w = [np.zeros((B, 1)) for _ in range(S)]
    for i in range(S - 2, -1, -1):
        k = 3 * S + i  # suffix[i]'s table
        h = tables[starts[k] : starts[k + 1]].reshape((shapes[k, 0], shapes[k, 1]))
        G, Gw = columns[i + 1], columns_w[i + 1]
        total = suffix[i + 1].shape[1] + G.shape[1] - 1
        suffix[i], suffix_w[i] = _TIMES_COLUMN(suffix[i + 1], suffix_w[i + 1], G, Gw, h, total)
    first, subset_start, choose_start, mask_start = 0, 0, 0, 0
    for i in range(S):
        k = S + i  # combine[i]'s table
        h = tables[starts[k] : starts[k + 1]].reshape((shapes[k, 0], shapes[k, 1]))
        M, Mw = _TIMES_COLUMN(
            prefixes[i], prefixes_w[i], suffix[i], suffix_w[i], h, prefixes[i].shape[1] + suffix[i].shape[1] - 1
        )
        e = sizes[i]
        n_subsets = 1 << e
        k = 2 * S + i  # member[i]'s table
        h = tables[starts[k] : starts[k + 1]].reshape((shapes[k, 0], shapes[k, 1]))
        column_masks = masks[mask_start : mask_start + n_subsets * e].reshape((n_subsets, e))
        _MEMBER_SUMS(
            q, column_factors[i], column_masks, subset_sizes[subset_start : subset_start + n_subsets],
            subset_w[subset_start : subset_start + n_subsets], M, Mw, h, choose[choose_start : choose_start + e],
            member_loo, first,
        )  # fmt: skip
        first += e
        subset_start += n_subsets
        choose_start += e
        mask_start += n_subsets * e
    return P, Pw, out0, slope, member_loo
