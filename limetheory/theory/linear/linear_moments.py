"""E[f | s] and the leave-one-out sums for every number s of removed words, and β from their weighted sums.

The quadrature over u (:mod:`limetheory.theory.linear.linear_quadrature`) of the means of every size
(:mod:`limetheory.theory.linear.subset_means`), in blocks of nodes within the package's memory and work limits, gives a
:class:`LeaveOneOutMoments`; without a norm the moments are closed forms (:func:`unnormalised_moments`).
:func:`beta_from_weighted_moments` assembles β from them in the within/between form of
:func:`limetheory.theory.explanation.beta_from_conditional_moments`, without forming the d x d moments.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..._compiled import CompiledKernel
from ..._validation import check_memory, check_work
from . import subset_means
from .linear_quadrature import inverse_power_quadrature
from .subset_means import (
    column_means,
    full_means,
    hypergeometric_weights,
    leave_one_out_sums,
    negligible_sizes,
    node_sums_at_once,
    shared_column_sums,
    times_column,
)

#: memory budget (in float64 entries) of one (nodes x words) work array; nodes are processed in blocks
_BLOCK_ENTRIES = 1 << 20
#: cost, in the unit of the package's work limit (operations at FLOPS_PER_SECOND = 2e9 a second), per quadrature
#: node, word and size of the forward recursion (d x the first node's top per node): measured by
#: benchmarks/work_constants.py on 2026-11-29 (2-core AMD EPYC, 512 KB cache, shared, load 11-15; CPU time), the
#: geometric mean over d = 1000..9938 of 1.0-1.8 (1.26 at d = 9938, 81 nodes, 5.0 s); it was 3 before the
#: recursions were compiled.  With it the refusal's time is within 0.86-0.98x of the measured 0.44, 2.9 and 7.3 s
#: at d = 2000, 5000 and 9938 (2.2-2.7x over with 3 and 24)
FLOPS_FORWARD = 1.3
#: the same per node, size and distinct weight of the leave-one-out recursion (d x distinct weights per node):
#: 2.3-3.3 over the same documents (3.3 at d = 9938, 672 weights, 0.90 s), measured on 2026-11-29 at load 7 once its
#: loops were vectorised (four words per instruction); it was 7.6 before (2.2 s at d = 9938), 24 before compilation.
#: With it the refusal's time is within 0.74-1.01x of the measured 0.24, 1.9 and 5.0 s at d = 2000, 5000 and 9938
FLOPS_LEAVE_ONE_OUT = 2.9


@dataclass(frozen=True)
class LeaveOneOutMoments:
    """E[f | s] for every s, and the leave-one-out sums from which every E[z_k f | s] follows.

    ``loo[a, k]`` (a = 0..d-2) is the mean, over the (a+1)-sets K that contain word k, of f(K); for a word
    alone in its column it is ``out0[a, c] + w_k slope[a, c]`` with c its distinct weight, for a word of a
    shared column ``member_loo[a, i]`` with ``member_words[i] = k``.
    """

    f_given_s: np.ndarray
    singles: np.ndarray
    class_of: np.ndarray
    out0: np.ndarray
    slope: np.ndarray
    member_words: np.ndarray
    member_loo: np.ndarray
    w: np.ndarray

    def weighted(self, weights_over_s):
        """sum_s weights[s - 1] E[z_k f | s] for every k: shape (d,), without forming the d x d moments."""
        d = self.w.size
        s = np.arange(1, d)
        # E[z_k f | s] = P(k kept | s) loo[d - s - 1, k] = ((d - s)/d) loo[d - s - 1, k]; s = d gives 0
        v = (np.asarray(weights_over_s, float)[: d - 1] * (d - s) / d)[::-1]
        out = np.zeros(d)
        out[self.singles] = (v @ self.out0)[self.class_of] + (v @ self.slope)[self.class_of] * self.w[self.singles]
        out[self.member_words] = v @ self.member_loo
        return out

    def full(self):
        """E[z_k f | s] as the (d, d) array that ``linear_exact.conditional_moments_linear_exact`` returns."""
        d = self.w.size
        loo = np.zeros((d - 1, d))
        loo[:, self.singles] = self.out0[:, self.class_of] + self.slope[:, self.class_of] * self.w[self.singles]
        loo[:, self.member_words] = self.member_loo
        removed = np.arange(1, d)
        zf_given_s = np.zeros((d, d))
        zf_given_s[: d - 1] = ((d - removed) / d)[:, None] * loo[::-1]
        return zf_given_s


def unnormalised_moments(lam, t):
    """norm=None: f = sum_j v_j z_j with v = lam t, so E[f | s] and E[z_k f | s] are closed forms."""
    d = t.size
    v = lam * t
    total = float(v.sum())
    kept = (d - np.arange(1, d + 1)) / d  # P(j kept | s)
    f_given_s = kept * total
    zero = np.zeros(0, dtype=np.int64)
    # loo[a, k] = v_k + (total - v_k) a/(d - 1): the mean of f over the (a+1)-sets containing k
    a = np.arange(d - 1, dtype=float)[:, None]
    out0 = total * a / (d - 1)
    slope = 1.0 - a / (d - 1)
    return LeaveOneOutMoments(
        f_given_s, np.arange(d), np.zeros(d, dtype=np.int64), out0, slope, zero, np.zeros((d - 1, 0)), v
    )


def quadrature_moments(model, select=None, truncate=False):
    """The quadrature over u of the means of every size (``linear_exact``'s docstring, steps 2-3), in blocks of nodes.

    ``select`` (a boolean mask over the quadrature nodes) restricts the sums to some nodes: the size mixture
    computes the others its own way.  ``truncate`` drops the sizes above the selected nodes' largest top (all
    negligible there) from the shared columns' products too, which then cost that top instead of d.
    """
    d, singles, shared = model.d, model.singles, model.shared
    sizes = [members.size for members in shared]
    distinct, _, class_of = model.classes
    nodes, weights = inverse_power_quadrature(model.r_min, model.power)
    tops = negligible_sizes(model, nodes)
    if select is not None:
        nodes, weights, tops = nodes[select], weights[select], tops[select]
    top = min(int(tops[0]) if nodes.size else 0, d)
    width = top + 1 if truncate else None
    # cost: the forward recursion (d^2 per node, d x the first node's top in general), one leave-one-out
    # recursion per distinct weight, and for the shared columns the prefix x suffix products (over the sizes below
    # the width when truncated) and the subsets of each column
    span = d if width is None else width
    products = len(shared) * (sum(sizes) + 1) if width is None else len(shared) * width
    flops = nodes.size * (
        FLOPS_FORWARD * d * top
        + FLOPS_LEAVE_ONE_OUT * span * distinct.size
        + 6 * span * products
        + 4 * span * sum(e * e for e in sizes)
    )
    what = f"the exact moments of a linear model at d = {d} ({nodes.size} quadrature nodes)"
    # truncated, a node's arrays are short and its cost is steps per column: larger blocks (64 MB)
    budget = _BLOCK_ENTRIES if width is None else 8 * _BLOCK_ENTRIES
    block = max(1, min(budget // (span * (2 + 2 * len(shared))), nodes.size))
    blocks = _node_blocks(nodes.size, block)
    check_memory(8.0 * (d * (2 * distinct.size + 3) + 6 * block * (2 * d + span * len(shared))), what, "too many words")
    check_work(flops, what, f"the cost grows as d^2 ({len(shared)} shared columns, {distinct.size} distinct weights)")
    column_weights = shared_column_weights(model, width)
    member_words = np.concatenate(shared) if shared else np.zeros(0, dtype=np.int64)
    f_by_size = np.zeros(d)  # index a: E[f | a words kept], a = 0..d-1
    out0 = np.zeros((d - 1, distinct.size))
    slope = np.zeros((d - 1, distinct.size))
    member_loo = np.zeros((d - 1, member_words.size))
    for start, stop in blocks:
        block_width = None if width is None else min(width, int(tops[start]) + 1)  # tops fall along the nodes
        sums = node_sums(model, nodes[start:stop], weights[start:stop], tops[start:stop], column_weights, block_width)
        f_by_size[: min(d, sums[0].size)] += sums[0][:d]
        out0[: sums[1].shape[0]] += sums[1]
        slope[: sums[2].shape[0]] += sums[2]
        member_loo[: sums[3].shape[0]] += sums[3]
    removed = np.arange(1, d + 1)
    f_given_s = np.zeros(d)
    f_given_s[: d - 1] = f_by_size[d - removed[: d - 1]]
    return LeaveOneOutMoments(f_given_s, singles, class_of, out0, slope, member_words, member_loo, model.w)


def shared_column_weights(model, width=None):
    """The hypergeometric weights of every product of means that the shared columns need (all nodes share them).

    forward[i] merges column i into the words before it, suffix[i] column i + 1 into the columns after it,
    combine[i] the words before column i with the columns after it, member[i] the rest of a set containing a
    member of column i with the part of the set inside it.  ``width``: only the sizes below it.
    """
    singles, sizes = model.singles.size, [members.size for members in model.shared]
    forward, n = [], singles
    for e in sizes:
        forward.append(hypergeometric_weights(n, e, width))
        n += e
    after = [sum(sizes[i + 1 :]) for i in range(len(sizes))]
    suffix = [hypergeometric_weights(after[i + 1], sizes[i + 1], width) for i in range(len(sizes) - 1)]
    before = [singles + sum(sizes[:i]) for i in range(len(sizes))]
    combine = [hypergeometric_weights(before[i], after[i], width) for i in range(len(sizes))]
    member = [hypergeometric_weights(model.d - e, e - 1, width) for e in sizes]
    return forward, suffix, combine, member


def node_sums(model, u, q, tops, column_weights, width=None, truncated=False):
    """The sums over the nodes u (weights q) of the means of every size, for the words and the shared columns.

    Returns (f_by_size, out0, slope, member_loo): the sum of q W exp(-u R) over the a-sets for each a, the
    leave-one-out sums of the words alone in their column (per distinct weight, :func:`leave_one_out_sums`)
    and those of the shared columns' words (:func:`shared_column_sums`).  With ``width``, only the sets of fewer
    than ``width`` words are summed: either because the larger ones are negligible at these nodes (``width`` >
    ``tops``), or, with ``truncated`` (the size mixture's small sizes), because they are summed elsewhere: the
    words' sums are then None if some word needs the downward pass below ``width``.
    """
    d, singles, shared = model.d, model.singles, model.shared
    distinct, first, _ = model.classes
    forward, suffix, combine, member = column_weights
    top = width if truncated else int(tops[0])
    with np.errstate(under="ignore"):
        factors = np.exp(-np.outer(u, model.omega[singles]))
        if width is None and _compiled_recursions():  # every size: the same kernels in one compiled call
            x = factors[:, first]
            P, Pw, out0, slope, member_loo = node_sums_at_once(
                u, q, factors, model.w[singles], top, x, model.rest[singles[first]], float(model.w.sum()), d, tops,
                shared, model.t, model.w, column_weights,
            )  # fmt: skip
            empty = np.zeros((0, distinct.size))
            return q @ Pw, (empty if out0 is None else out0), (empty if slope is None else slope), member_loo
        P, Pw = full_means(factors, model.w[singles], top)
        if width is not None:
            P, Pw = P[:, :width], Pw[:, :width]
        prefixes, columns = [(P, Pw)], []
        for members, h in zip(shared, forward, strict=True):
            columns.append(column_means(u, model.t[members], model.w[members]))
            P, Pw = times_column(P, Pw, columns[-1][0], columns[-1][1], h, width)
            prefixes.append((P, Pw))
        f_by_size = q @ Pw
        out0 = slope = np.zeros((0, distinct.size))
        if distinct.size:
            x = factors[:, first]  # exp(-u omega) of one single per distinct omega: the same numbers
            rest, w_total = model.rest[singles[first]], float(model.w.sum())
            if not truncated:
                out0, slope = leave_one_out_sums(x, u, rest, w_total, d, P, Pw, q, tops)
            else:
                sums = leave_one_out_sums(x, u, rest, w_total, d, P, Pw, q, np.full(u.size, width - 1), True)
                out0, slope = (None, None) if sums is None else sums
        member_loo = np.zeros((d - 1, 0))
        if shared:
            member_loo = shared_column_sums(u, q, d, shared, columns, prefixes, suffix, combine, member, width)
    return f_by_size, out0, slope, member_loo


def _compiled_recursions():
    """Whether the recursions are the compiled kernels (tests run them as Python to count their steps)."""
    return all(
        isinstance(getattr(subset_means, name), CompiledKernel)
        for name in ("_full_means_kernel", "_column_means_kernel", "_times_column_kernel", "_leave_one_out_kernel",
                     "_member_sums_kernel")
    )  # fmt: skip


def _node_blocks(n_nodes, block):
    """Consecutive nodes in blocks of at most ``block`` (the memory budget): one block whenever the nodes fit.

    The negligible sizes of a block's later nodes (``tops``) are skipped inside the compiled recursions (the
    leave-one-out passes stop at each node's, the forward recursion at the block's first node's), so cutting a
    block where ``tops`` falls would save little arithmetic and cost a call of each recursion per block.
    """
    return [(start, min(start + block, n_nodes)) for start in range(0, n_nodes, block)]


def beta_from_weighted_moments(law, f_given_s, mean_zf):
    """β from E[f | s] (every s) and sum_s m_s E[z_k f | s], in the within/between form.

    The same assembly as :func:`limetheory.theory.explanation.beta_from_conditional_moments` (its module docstring),
    which takes the d x d moments; here their weighted sum over s comes in directly (tests check that both agree).
    Within: sum_s m_s Cov(z_k, f | s) = mean_zf_k - sum_s m_s a_s F_s, centred over k (it sums to 0), so the
    second term cancels; between: the regression of F_s on a_s under m, from the gaps F_s - F_1.
    """
    gaps = f_given_s[1:] - f_given_s[0]
    with np.errstate(over="ignore", invalid="ignore"):  # one state for the sums and beta_from_sums' steps
        dot_centred = float(np.dot(_weighted_centred_sizes(law), gaps))
        dot_hat = float(np.dot(law.w_hat, gaps))
        return _beta_from_sums(law, f_given_s[0], dot_centred, dot_hat, mean_zf)


def centred_sizes(law):
    """a_s - E[a] over the tilted law, divided by nothing: u_s - tau sum w_hat u, for s = 2..d (extended by u)."""
    return law.u - law.tau * float(np.dot(law.w_hat, law.u))


#: w_hat times centred_sizes of the laws seen last, by id (the law kept beside, so that its id stays its own)
_WEIGHTED_CENTRED = {}
_WEIGHTED_CENTRED_KEPT = 512


def _weighted_centred_sizes(law):
    """``law.w_hat * centred_sizes(law)``, the same doubles, computed once per law (a corpus's documents share laws)."""
    kept = _WEIGHTED_CENTRED.get(id(law))
    if kept is not None and kept[0] is law:
        return kept[1]
    if len(_WEIGHTED_CENTRED) >= _WEIGHTED_CENTRED_KEPT:
        _WEIGHTED_CENTRED.clear()
    product = law.w_hat * centred_sizes(law)
    product.flags.writeable = False
    _WEIGHTED_CENTRED[id(law)] = (law, product)
    return product


def beta_from_sums(law, f_first, dot_centred, dot_hat, mean_zf):
    """β from F_1, the two sums over s >= 2 of w_hat (F_s - F_1) (times the centred a_s, and alone), and mean_zf."""
    with np.errstate(over="ignore", invalid="ignore"):
        return _beta_from_sums(law, f_first, dot_centred, dot_hat, mean_zf)


def _beta_from_sums(law, f_first, dot_centred, dot_hat, mean_zf):
    """:func:`beta_from_sums` inside the caller's ``np.errstate`` (overflow and invalid ignored, then checked)."""
    d = law.d
    # mean_zf.mean() without its Python layer: the same pairwise sum, divided by the count (the same doubles)
    within = mean_zf - np.add.reduce(mean_zf) / mean_zf.size
    slope = dot_centred / law.var_over_tau
    beta = np.empty(d + 1)
    beta[1:] = within / law.bulk_ratio + slope / d
    beta[0] = f_first + law.tau * dot_hat - law.a_mean * slope
    if not np.isfinite(beta).all():
        raise ValueError("beta overflows double precision: the model's values are too large (rescale the model)")
    return beta
