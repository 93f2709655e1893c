"""Means over the sets of each size of products of per-word factors: the recursions of the exact linear route.

For a node u of the quadrature over u (:mod:`limetheory.theory.linear_quadrature`), word j's factor is
x_j = exp(-u omega_j); the mean over the a-subsets A of prod_A x (and of W(A) prod_A x) is a normalised elementary
symmetric polynomial.  This module holds the forward recursion over the words (:func:`full_means`), the products
with the columns that several words share (:func:`times_column`, with the hypergeometric weights), the
two-sided leave-one-out recursion of the words alone in their column (:func:`leave_one_out_sums`) and the sums for
the words of a shared column (:func:`shared_column_sums`): step 3 of :mod:`limetheory.theory.linear_exact`'s
docstring, where the stability of each recursion is argued.
"""

from __future__ import annotations

import functools
import math

import numpy as np

#: largest table of hypergeometric weights kept in the cache (256 tables of at most 32 KiB)
_CACHED_WEIGHT_ENTRIES = 4096
#: the upward leave-one-out step is used while the sets containing the word carry at most this share of the mean
_UPWARD_SHARE = 0.5
#: a mean below this (means are at most 1) contributes nothing to the quadrature sums: the rule's weights are
#: below about 1e102 d (u <= 45 / r_min, r_min >= 1e-200 / d), so every neglected term is below 1e-140 |lam|
#: for d <= 1e4, far below the 1e-13 |lam| of the quadrature; and under it the means have lost digits (they
#: are subnormal at 1e-308), so the recursions must not divide by them
_NEGLIGIBLE_MEAN = 1e-250


def full_means(x, w, top=None):
    """Means over the a-subsets A of the n words of ``x`` of prod_A x and of W(A) prod_A x, for a = 0..n.

    ``x`` has shape (B, n) (one row per quadrature node), ``w`` shape (n,); W(A) = sum_{i in A} w_i.  Returns
    P and Pw of shape (B, n + 1), column a.  Adding a word updates every mean by a convex combination
    (hypergeometric weights): P keeps its relative accuracy, and Pw its accuracy relative to the same mean
    with |w| in place of w.  Sizes above ``top`` are left at 0 (the caller knows them negligible at these
    nodes); a size never feeds a smaller one, so the others are unchanged.
    """
    B, n_words = x.shape
    a = np.arange(n_words + 1, dtype=float)
    P = np.zeros((B, n_words + 1))
    Pw = np.zeros((B, n_words + 1))
    P[:, 0] = 1.0
    top = n_words if top is None else min(top, n_words)
    for j in range(n_words):
        n = j + 1  # words seen once word j is added
        m = min(n, top)  # sizes 1..m are updated
        c0 = (n - a[1 : m + 1]) / n  # share of the a-subsets (a >= 1) that avoid word j
        c1 = a[1 : m + 1] / n  # share of those that contain it
        xj = x[:, j : j + 1]
        xp = xj * P[:, :m]
        carried = xj * Pw[:, :m]
        carried += w[j] * xp
        carried *= c1
        Pw[:, 1 : m + 1] *= c0
        Pw[:, 1 : m + 1] += carried
        xp *= c1
        P[:, 1 : m + 1] *= c0
        P[:, 1 : m + 1] += xp
    return P, Pw


def hypergeometric_weights(n, e, width=None):
    """:func:`_exact_hypergeometric_weights`, cached when small (documents share them; read-only arrays).

    With ``width``, only the sizes below it are needed (k, b < width): :func:`_truncated_hypergeometric_weights`.
    """
    if width is not None:
        return _truncated_hypergeometric_weights(n, e, width)
    if (n + 1) * (e + 1) <= _CACHED_WEIGHT_ENTRIES:
        return _cached_hypergeometric_weights(n, e)
    return _exact_hypergeometric_weights(n, e)


@functools.lru_cache(maxsize=256)
def _cached_hypergeometric_weights(n, e):
    weights = _exact_hypergeometric_weights(n, e)
    weights.flags.writeable = False
    return weights


def _exact_hypergeometric_weights(n, e):
    """H[k, b] = C(e, k) C(n, b) / C(n + e, b + k) for k = 0..e, b = 0..n.

    The share, among the (b + k)-subsets of n + e words, of those that take k of the last e words, divided by
    the number of ways C(n, b) C(e, k) / C(n + e, b + k)... i.e. the weight of the product of two means: the mean
    over the (b + k)-subsets of n + e words of a product that factorises over the two parts is
    sum_k H[k, b] mean_b(first n) mean_k(last e).  Computed as C(e, k) times e ratios of the form
    (b + i)/(n + i) and (n - b + i)/(n + k + i), summed as logarithms of numbers <= 1 (no large factorials).
    """
    b = np.arange(n + 1, dtype=float)
    out = np.empty((e + 1, n + 1))
    for k in range(e + 1):
        i_low = np.arange(1, k + 1, dtype=float)[:, None]
        i_high = np.arange(1, e - k + 1, dtype=float)[:, None]
        log_ratio = np.log((b + i_low) / (n + i_low)).sum(axis=0) if k else 0.0
        log_ratio = log_ratio + (np.log((n - b + i_high) / (n + k + i_high)).sum(axis=0) if e - k else 0.0)
        out[k] = math.comb(e, k) * np.exp(log_ratio)
    return out


@functools.lru_cache(maxsize=4096)
def _truncated_hypergeometric_weights(n, e, width):
    """H[k, b] of :func:`_exact_hypergeometric_weights` for k <= min(e, width - 1), b <= min(n, width - 1).

    By exact ratios: H[k + 1, 0] / H[k, 0] = (e - k) / (n + e - k) and
    H[k, b + 1] / H[k, b] = (n - b)(b + k + 1) / ((b + 1)(n + e - b - k)), multiplied up (relative error at most
    2 width roundings; every H is <= 1, so the products cannot overflow).  It costs width² operations whatever n
    and e, where the exact table costs e² n.
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
    B, n1 = P.shape
    e = G.shape[1] - 1
    total = n1 + e if width is None else min(n1 + e, width)
    K = min(e + 1, total)
    out = np.zeros((B, total))
    out_w = np.zeros((B, total))
    for k in range(K):
        span = min(n1, total - k)
        h = weights[k][:span]
        out[:, k : k + span] += h * (G[:, k : k + 1] * P[:, :span])
        out_w[:, k : k + span] += h * (G[:, k : k + 1] * Pw[:, :span] + Gw[:, k : k + 1] * P[:, :span])
    return out, out_w


def subset_masks(e):
    """Every subset of range(e) as a 0/1 matrix (2^e, e), and its size."""
    masks = (np.arange(2**e)[:, None] >> np.arange(e)) & 1
    return masks.astype(float), masks.sum(axis=1)


def column_means(u, t_members, w_members):
    """Means over the k-subsets A of a column's words of exp(-u R_A) and of W(A) exp(-u R_A), k = 0..e.

    R_A = (sum_A t)^2; returns G, Gw of shape (B, e + 1), and the per-subset factors for the members' moments.
    """
    e = t_members.size
    masks, sizes = subset_masks(e)
    factor = np.exp(-np.outer(u, (masks @ t_members) ** 2))  # (B, 2^e)
    subset_w = masks @ w_members
    counts = np.array([math.comb(e, k) for k in range(e + 1)], dtype=float)
    G = np.zeros((u.size, e + 1))
    Gw = np.zeros((u.size, e + 1))
    for k in range(e + 1):
        of_size = sizes == k
        G[:, k] = factor[:, of_size].sum(axis=1) / counts[k]
        Gw[:, k] = (factor[:, of_size] * subset_w[of_size]).sum(axis=1) / counts[k]
    return G, Gw, factor, masks, sizes, subset_w


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
    increasing u, so ``tops`` does not increase and the nodes that need size a are the first ``active[a]``;
    both passes work on those rows only (a slice, so that one block of nodes costs one Python loop).
    """
    B, C = x.shape
    top = min(int(tops[0]), d - 1)
    active = np.searchsorted(-np.asarray(tops), -np.arange(top + 1), side="left")  # nodes with tops > a
    out0 = np.zeros((max(top, 1), C))
    slope = np.zeros((max(top, 1), C))
    # the three recursions share their operations: the state S = (L, Lw0, E = D + L) is one (3, rows, C) array
    # (E is what the slope needs) and the right-hand sides (mean_a, mean_w_a, 0) one (3, B, d + 1) array
    means = np.stack([P, Pw, np.zeros_like(P)])
    # upwards from L_0 = 1, Lw_0 = 0, E_0 = 1; first_down[q, c] is the first index a that needs the downward
    # pass.  The arrays shrink to the active rows: a node whose sizes are negligible from a on contributes
    # nothing above a (and never leaves the upward pass, as the full recursion would see a share of 0 there)
    first_down = np.full((B, C), d - 1)
    up = np.ones((B, C), dtype=bool)
    S = np.stack([np.ones((B, C)), np.zeros((B, C)), np.ones((B, C))])
    slope[0] = weights @ x
    # the sets containing k carry more than half of mean_a when carried > mean_a / 2; an underflowed mean_a has
    # negligible parts, and the word stays (threshold inf); in one operation for every size
    thresholds = np.where(P >= _NEGLIGIBLE_MEAN, _UPWARD_SHARE * P, np.inf)
    with np.errstate(divide="ignore", invalid="ignore"):
        for a in range(1, top):
            n = int(active[a])
            if n == 0:
                break
            if n < S.shape[1]:
                up, S = up[:n], S[:, :n]
            xa = x[:n]
            part = (a / d) * xa
            T = part * S  # T[0] = (a/d) x_k L_{a-1}: the part of mean_a from the sets containing k
            leaving = up & (T[0] > thresholds[:n, a : a + 1])
            np.copyto(first_down[:n], a, where=leaving)
            up = up ^ leaving
            T = (means[:, :n, a : a + 1] - T) * (d / (d - a))  # L_a, Lw0_a, and D_a = -(a/d) x_k E_{a-1} d/(d-a)
            L = np.where(up, np.maximum(T[0], 0.0), 0.0)
            # where the means underflow (L = 0) the sums are negligible too; the homogeneous part of the
            # recursions for Lw0 and D (growth a x / (d - a) per step) must not act on their leftovers
            T[2] += L
            S = np.concatenate([L[None], np.where(L > 0, T[1:], 0.0)])
            out0[a], slope[a] = weights[:n] @ (xa * S[1:])
    lowest = int(first_down.min())
    if truncated:
        return (out0, slope) if lowest >= top else None
    if lowest >= d - 1:  # every word stayed in the upward pass at every node
        return out0, slope
    # downwards from L_{d-1} = exp(-u R(all words but k)), kept only where index >= first_down; the state, now
    # S = (L, Lw0, D), has the active rows only (a node becomes active as a decreases, with the state 0 of a
    # negligible level)
    if top == d - 1:
        L = np.exp(-np.outer(u[: int(active[top])], rest))
        S = np.stack([L, w_total * L, -L])  # W(all but k) = w_total - w_k
    else:  # the means at size top are negligible: the recursion starts there from 0
        S = np.zeros((3, 0, C))
    significant = P >= _NEGLIGIBLE_MEAN
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for a in range(top, lowest, -1):
            if active[a] > S.shape[1]:  # new rows, state 0; grown for the next top / 8 levels at once
                n = int(active[max(a - top // 8, lowest + 1)])
                S = np.concatenate([S, np.zeros((3, n - S.shape[1], C))], axis=1)
            n = S.shape[1]  # rows beyond active[a] are negligible at this level: not needed, their state stays 0
            if n == 0:
                continue
            # below _NEGLIGIBLE_MEAN the means have lost their digits (at large u they underflow at large a):
            # there the sums are negligible, and the recursion restarts from 0 below that level
            needed = (first_down[:n] <= a - 1) & significant[:n, a : a + 1]
            # T = (x_k L_{a-1}, x_k Lw0_{a-1}, x_k (D_{a-1} + L_{a-1}))
            T = np.where(needed, (means[:, :n, a : a + 1] - ((d - a) / d) * S) * (d / a), 0.0)
            S = np.where(needed, T / x[:n], 0.0)
            S[2] -= S[0]
            out0[a - 1], slope[a - 1] = (out0[a - 1], slope[a - 1]) + weights[:n] @ T[1:]
    return out0, slope


def negligible_sizes(model, nodes):
    """For each node, the smallest size a whose means are all below ``_NEGLIGIBLE_MEAN`` (d + 1 if none).

    Every a-set has R >= the sum of the a smallest omega (a shared column only adds cross terms), so its
    exp(-u R) is below exp(-u R_min(a)); sizes with u R_min(a) > -log(_NEGLIGIBLE_MEAN) are negligible.
    """
    lightest = np.concatenate([[0.0], np.cumsum(np.sort(model.omega))])  # R_min(a), a = 0..d
    return np.searchsorted(lightest, -np.log(_NEGLIGIBLE_MEAN) / nodes, side="right").clip(max=model.d + 1)


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
    out = []
    for i, members in enumerate(shared):
        e = members.size
        M, Mw = others[i]
        _, _, factor, masks, sizes, subset_w = columns[i]
        h = member_weights[i]  # h[m - 1, b] / C(e - 1, m - 1): P(K meets the column in A | k in K, |K| = b + m)
        # chosen[A, p e + m - 1] = 1 when subset A of the column contains member p and has m words; F and FW sum
        # factor over those subsets (times W(A) for FW) for every (p, m) in one product, and the sum over the
        # nodes is taken before the shift by m - 1, which does not involve the nodes
        chosen = (masks[:, :, None] * (sizes[:, None, None] == np.arange(1, e + 1))).reshape(masks.shape[0], e * e)
        F, FW = factor @ chosen, (factor * subset_w) @ chosen  # (B, e e)
        combined = (q[:, None] * FW).T @ M + (q[:, None] * F).T @ Mw  # (e e, d - e + 1), or fewer sizes
        span = M.shape[1]
        rows = d - 1 if width is None else min(d - 1, width - 1)
        for p in range(e):
            value = np.zeros(d + e)
            for m in range(1, min(e, h.shape[0]) + 1):
                value[m - 1 : m - 1 + span] += (h[m - 1][:span] / math.comb(e - 1, m - 1)) * combined[p * e + m - 1]
            out.append(value[:rows])
    return np.column_stack(out)


def _without_each_column(d, columns, full, width):
    """For each shared column, the means over the sets of the other d - e words, sizes below ``width``.

    The means over all words are those over the others times the column's (:func:`times_column`):
    full_m = sum_k H[k, m - k] G_k M_{m-k}, with G_0 = 1 (the empty part of the column), so M is solved upwards,
    M_m = (full_m - sum_{k>=1} ...) / H[0, m], for every column of e words at once (width steps, where the
    prefix x suffix products cost width² per column).  All subtracted terms are >= 0 and, as in the words'
    upward pass (:func:`leave_one_out_sums`), while they stay at most half of full_m each step adds a rounding
    and passes on the inherited relative error without enlarging it.  Where they exceed half (a column whose
    words carry most of the small sets), its entry is None and the caller takes the products.  Returns a list of
    (M, Mw), each of shape (B, width), in the columns' order.
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
