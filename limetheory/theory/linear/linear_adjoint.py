r"""β's sums for the words of shared columns as one gradient: the columns' recursion in reverse mode.

β needs, besides E[f | s] for every s, only one weighted sum over s of the moments E[z_k f | s] for each word k
(:func:`limetheory.theory.linear.linear_moments.beta_from_weighted_moments`).  Mark each word with a variable
:math:`y_k` that multiplies its factor in every kept set (:math:`y \equiv 1`); then
:math:`\mathbb{E}[z_k f \mid s] = \partial \mathbb{E}[f \mid s] / \partial y_k`, since the mean over the kept sets
of size m = d - s of :math:`f(K) \prod_K y` has, as its derivative in :math:`y_k`, the same mean restricted to the
sets that contain k.  So the weighted sum is the gradient of one number,

.. math::

   \sum_s m_s\, \mathbb{E}[z_k f \mid s] = \frac{\partial \Psi}{\partial y_k}, \qquad
   \Psi = \sum_s m_s\, \mathbb{E}[f \mid s].

The forward recursion (:mod:`limetheory.theory.linear.subset_means`, step 3 of
:mod:`limetheory.theory.linear.linear_exact`'s docstring) takes the words alone in their column first and the shared
columns last, one step each.  For a member of a shared column the derivative needs only the state before its
column's step and the adjoint of the state after it (the derivative of Ψ in that state's entries), which reverse-mode
differentiation carries back over the columns' steps alone: about S e d operations per node for S columns of e words,
where the leave-one-out route's prefix x suffix products cost d per word of the later columns for each column (the
quadratic term in S that made a document of 24 shared columns cost three times its other recursions).  The words
alone in their column keep the forward and two-sided leave-one-out recursions (``subset_means.full_means`` and
``leave_one_out_sums``); the steps around them (the distinct weights, the factors, the sums over the nodes and the
sizes) are two compiled loops, where a review's few dozen small numpy calls cost as much as its recursions.

Accuracy.  Every step of the columns' recursion is a combination with nonnegative coefficients (the hypergeometric
weights and the column's subset means), and so is its transpose: the adjoint of the means of :math:`e^{-uR}` sums
nonnegative terms, and every term of the others is a product of such terms and one weight :math:`w_j`.  Nothing is
divided or subtracted, so each member's sum is accurate to a few roundings per step relative to the same sum with
:math:`\lvert w \rvert` in place of w: the recursions' accuracy, in the unit of ``linear_exact.BETA_ACCURACY`` (its
module docstring, "Accuracy").  Tests compare it with the leave-one-out route and with enumeration.

The columns' states cost 16 bytes per node, column and size: :func:`adjoint_beta` returns None beyond
``ADJOINT_MAX_ENTRIES`` of them, and beyond one block of nodes (``linear_moments.quadrature_moments``' memory
budget), where the leave-one-out route answers as before.
"""

from __future__ import annotations

import functools

import numpy as np

from ..._compiled import compiled
from ..._validation import check_work, current_work_limit
from .linear_moments import FLOPS_FORWARD, FLOPS_LEAVE_ONE_OUT, beta_from_weighted_moments
from .linear_quadrature import quadrature_rule, rule_last
from .subset_means import NEGLIGIBLE_LIMIT, full_means, hypergeometric_weights, leave_one_out_sums

__all__ = ["adjoint_beta"]

#: most entries (nodes x columns x sizes) of the kept states of the columns' recursion, two float64 arrays of this
#: many (32 MB each); beyond, the leave-one-out route answers
ADJOINT_MAX_ENTRIES = 1 << 22
#: cost, in the unit of the package's work limit, per node, size and word of a shared column (plus one per column),
#: of the columns' forward and adjoint passes: their loops do about 16 operations per entry (a bound, not measured:
#: the passes cost a few percent of the words' recursions on the Yelp reviews)
FLOPS_COLUMNS = 16.0
#: the largest share of :math:`\lvert f(K) \rvert` that a set K's dropped terms may reach (``truncation_limit``)
TRUNCATION_SHARE = 1e-17

_INT_EMPTY = np.zeros(0, dtype=np.int64)
#: _column_arrays without shared columns (the kernel only reads them; writable, as the others: one signature)
_NO_COLUMNS = (_INT_EMPTY, np.zeros(0), np.zeros(0), _INT_EMPTY, np.zeros(0), np.zeros(0), np.zeros(1, dtype=np.int64),
               _INT_EMPTY)  # fmt: skip


def adjoint_beta(model, law):
    r"""β of a :class:`~limetheory.theory.linear.tfidf_model.ScaleFreeModel` at the law ``law``, or None.

    E[f | s] and the words' leave-one-out sums as in ``linear_moments.quadrature_moments`` (the same recursions, one
    block of nodes), the shared columns' members by the gradient of :math:`\Psi = \sum_s m_s E[f | s]` (module
    docstring), assembled by :func:`~limetheory.theory.linear.linear_moments.beta_from_weighted_moments`.

    Parameters
    ----------
    model : ScaleFreeModel
        The checked model (``tfidf_model.scale_free_model``).
    law : WeightedLaw
        LIME's tilted law of the number of removed words (``limetheory.theory.law.weighted_law(model.d, nu)``).

    Returns
    -------
    ndarray of shape (d + 1,) or None
        β (intercept first), within ``linear_exact.BETA_ACCURACY`` |f|(ξ) as
        :func:`~limetheory.theory.linear.linear_exact.beta_linear_exact` (which returns it); None when the columns'
        kept states would exceed ``ADJOINT_MAX_ENTRIES``.

    Raises
    ------
    ValueError
        A cost beyond the package's work limit (``limetheory._validation.check_work``).

    Examples
    --------
    Two words that share a column (lower-cased "The" and "the") and one of their own:

    >>> from limetheory.theory.law import weighted_law
    >>> from limetheory.theory.linear.tfidf_model import scale_free_model
    >>> model = scale_free_model(np.array([1.0, 1.0, -2.0]), np.array([1.0, 2.0, 1.5]), np.array([0, 0, 1]), "l2")
    >>> beta = adjoint_beta(model, weighted_law(3, 0.25))
    >>> beta.shape, bool(beta[1] > 0 > beta[3])
    ((4,), True)
    """
    moments = adjoint_moments(model, law.m)
    if moments is None:
        return None
    return beta_from_weighted_moments(law, *moments)


def adjoint_moments(model, weights_over_s):
    """(E[f | s] for s = 1..d, sum_s weights[s - 1] E[z_k f | s] for every word k), or None when too large.

    :func:`flat_adjoint_moments` on the model's arrays, its shared columns concatenated.
    """
    shared = model.shared
    members = np.concatenate(shared) if shared else np.zeros(0, dtype=np.int64)
    sizes = np.array([column.size for column in shared], dtype=np.int64)
    arrays = (model.t, model.omega, model.w, model.singles, model.rest)
    return flat_adjoint_moments(model.d, model.power, arrays, model.r_min, members, sizes, weights_over_s)


def flat_adjoint_moments(d, power, arrays, r_min, members, sizes, weights_over_s):
    """:func:`adjoint_moments` from the model's fields, its shared columns flat: their words concatenated, and sizes.

    ``arrays`` are the :class:`~limetheory.theory.linear.tfidf_model.ScaleFreeModel`'s (t, omega, w, singles, rest)
    (``linear_chunk`` passes them without building one).  The steps around the recursions (the distinct weights,
    the factors, Ψ's weights; E[f | s] and the words' weighted sums) are two compiled calls: a review's few dozen
    small numpy operations cost as much as its recursions.
    """
    t, omega, w, singles, rest = arrays
    nodes, weights, limit = quadrature_and_limit(r_min, power)
    if nodes.size * (sizes.size + 1) * (d + 1) > ADJOINT_MAX_ENTRIES:
        return None
    weights_over_s = np.ascontiguousarray(weights_over_s, dtype=float)
    factors, x, rest_first, class_of, functional, tops = _prepare_kernel(
        omega, rest, singles, nodes, weights_over_s, limit
    )
    top = min(int(tops[0]), d)
    columns = sum((e + 1) * d + (e << e) for e in sizes.tolist())
    work = nodes.size * (FLOPS_FORWARD * d * top + FLOPS_LEAVE_ONE_OUT * d * x.shape[1] + FLOPS_COLUMNS * columns)
    if work > current_work_limit():  # the messages formatted only for a refusal (a few microseconds a document)
        check_work(
            work,
            f"the exact moments of a linear model at d = {d} ({nodes.size} quadrature nodes)",
            f"the cost grows as d^2 ({sizes.size} shared columns, {x.shape[1]} distinct weights)",
        )
    w_singles = w[singles]
    # each node's negligible sizes left at 0 (the forward recursion's work: nodes x sizes, not nodes x the first top)
    P, Pw = full_means(factors, w_singles, min(top, singles.size), tops)
    columns = _column_arrays(t, w, singles.size, members, sizes)
    P, Pw, member_sums = _columns_kernel(nodes, weights, P, Pw, functional, *columns)
    out0 = slope = np.zeros((0, 0))
    if x.shape[1]:  # linear_moments.LeaveOneOutMoments.weighted, for the words alone in their column
        out0, slope = leave_one_out_sums(x, nodes, rest_first, float(w.sum()), d, P, Pw, weights, tops)
    f_given_s, mean_zf = _finish_kernel(weights, Pw, out0, slope, weights_over_s, class_of, w_singles, singles, d)
    if sizes.size:
        mean_zf[members] = member_sums
    return f_given_s, mean_zf


@functools.lru_cache(maxsize=256)
def _rule_and_limit(power, last):
    """``linear_quadrature``'s rule (power, last) and its :func:`truncation_limit` (documents share them)."""
    nodes, weights = quadrature_rule(power, last)
    return nodes, weights, truncation_limit(weights)


def quadrature_and_limit(r_min, power):
    """(nodes, weights) of ``inverse_power_quadrature(r_min, power)`` and their :func:`truncation_limit`, cached.

    Examples
    --------
    >>> from limetheory.theory.linear.linear_quadrature import inverse_power_quadrature
    >>> nodes, weights, limit = quadrature_and_limit(1e-3, 0.5)
    >>> expected = inverse_power_quadrature(1e-3, 0.5)
    >>> bool((nodes == expected[0]).all() and (weights == expected[1]).all()), limit == truncation_limit(weights)
    (True, True)
    """
    return _rule_and_limit(power, rule_last(r_min, power))


def truncation_limit(weights):
    r"""The bound on :math:`u R_{\min}(a)` beyond which a node's sizes are dropped: ln(sum of the weights / share).

    At node u, every kept set K of a size a with :math:`u R_{\min}(a)` above it (:math:`R_{\min}(a)` the sum of
    the a smallest ω, below every :math:`R_K`) has :math:`e^{-u R_K} < e^{-\text{limit}}`, so the terms dropped
    from its :math:`f(K) = W(K) \sum_q w_q e^{-u_q R_K}` are below :math:`\lvert W(K) \rvert e^{-\text{limit}}
    \sum_q w_q`, which is ``TRUNCATION_SHARE`` of :math:`\lvert f(K) \rvert \ge \lvert W(K) \rvert`
    (:math:`R_K \le 1`): 1e-17, against the rule's 5.3e-14.  The recursions' means there are then above
    1e-17 / sum w (about 1e-20 on a review), far from the subnormal ones ``subset_means.NEGLIGIBLE_LIMIT`` keeps them
    from, and a leave-one-out pass started from 0 at such a size inherits an error that its downward steps do not
    grow (``linear_exact``'s step 3).  About 42 on a review (sum w about 300) where ``NEGLIGIBLE_LIMIT`` is 576: the
    nodes of large u keep 13 times fewer sizes, a quarter of the work of the forward and leave-one-out recursions.

    Examples
    --------
    >>> from limetheory.theory.linear.linear_quadrature import inverse_power_quadrature
    >>> nodes, weights = inverse_power_quadrature(1e-3, 0.5)
    >>> limit = truncation_limit(weights)
    >>> bool(np.exp(-limit) * weights.sum() <= 1.0000001e-17), bool(limit < NEGLIGIBLE_LIMIT)
    (True, True)
    """
    return min(NEGLIGIBLE_LIMIT, float(np.log(weights.sum())) - float(np.log(TRUNCATION_SHARE)))


@compiled(cache=True, error_model="numpy")
def _prepare_kernel(omega, rest, singles, u, weights_over_s, limit):
    """The singles' factors and distinct weights, Ψ's weight of each number of kept words, each node's negligible size.

    Returns exp(-u omega) at every node for every single, one column of it per distinct omega (its first single's),
    that single's R without it, each single's distinct weight, Ψ's weight of the means over m = d - s kept words, and
    ``subset_means.negligible_sizes(model, u)`` (``limit`` = -log of its ``_NEGLIGIBLE_MEAN``).
    """
    d, n, B = omega.size, singles.size, u.size
    # np.argsort(omega, kind="mergesort") written out as a bottom-up merge sort (numba's costs about 1.6 CPU-s of
    # compilation on a fresh clone): stable, and the permutation of finite values is unique, so it is numpy's.  The
    # singles in its order are their own stable sort (singles is increasing): each distinct weight's first single
    # comes first, as np.unique's return_index has it
    order = np.arange(d)
    merged = np.empty(d, dtype=np.int64)
    width = 1
    while width < d:
        for lo in range(0, d, 2 * width):
            mid, hi = min(lo + width, d), min(lo + 2 * width, d)
            i, j = lo, mid
            for k in range(lo, hi):
                if i < mid and (j >= hi or omega[order[i]] <= omega[order[j]]):
                    merged[k] = order[i]
                    i += 1
                else:
                    merged[k] = order[j]
                    j += 1
        order, merged = merged, order
        width *= 2
    # negligible_sizes: R_min(a), the sum of the a smallest omega (np.cumsum's order), searched for each node's bound
    lightest = np.empty(d + 1)
    lightest[0] = 0.0
    total = 0.0
    for a in range(d):
        total += omega[order[a]]
        lightest[a + 1] = total
    tops = np.empty(B, dtype=np.int64)
    for b in range(B):
        bound = limit / u[b]
        low, high = 0, d + 1  # np.searchsorted(side="right"): the first a with lightest[a] > bound
        while low < high:
            middle = (low + high) // 2
            if lightest[middle] <= bound:
                low = middle + 1
            else:
                high = middle
        tops[b] = low
    position = np.full(d, -1, dtype=np.int64)
    for j in range(n):
        position[singles[j]] = j
    values = np.empty(n)
    for j in range(n):
        values[j] = omega[singles[j]]
    at = 0
    for i in range(d):
        if position[order[i]] >= 0:
            merged[at] = position[order[i]]
            at += 1
    order = merged[:n]
    class_of = np.empty(n, dtype=np.int64)
    first = np.empty(n, dtype=np.int64)
    C = 0
    for i in range(n):
        j = order[i]
        if i == 0 or values[j] != values[order[i - 1]]:
            first[C] = j
            C += 1
        class_of[j] = C - 1
    factors = np.empty((B, n))
    x = np.empty((B, C))
    for b in range(B):
        for j in range(n):
            factors[b, j] = np.exp(-(u[b] * values[j]))
        for c in range(C):
            x[b, c] = factors[b, first[c]]
    rest_first = np.empty(C)
    for c in range(C):
        rest_first[c] = rest[singles[first[c]]]
    functional = np.zeros(d + 1)
    for m in range(1, d):
        functional[m] = weights_over_s[d - m - 1]
    return factors, x, rest_first, class_of, functional, tops


@compiled(cache=True, error_model="numpy")
def _finish_kernel(q, Pw, out0, slope, weights_over_s, class_of, w_singles, singles, d):
    """E[f | s] and the singles' sum_s m_s E[z_k f | s] (the members' are set after).

    E[f | s] is sum_q q Pw at the m = d - s kept words; a single's sum comes from its class's two sums over the sizes
    (``LeaveOneOutMoments.weighted``: E[z_k f | s] = ((d - s) / d) loo[d - s - 1, k]).
    """
    B = q.size
    f_given_s = np.zeros(d)
    for s in range(1, d):
        total = 0.0
        for b in range(B):
            total += q[b] * Pw[b, d - s]
        f_given_s[s - 1] = total
    rows, C = out0.shape
    value = np.zeros(C)
    gradient = np.zeros(C)
    for a in range(rows):
        s = d - 1 - a
        v = weights_over_s[s - 1] * (d - s) / d
        for c in range(C):
            value[c] += v * out0[a, c]
            gradient[c] += v * slope[a, c]
    mean_zf = np.zeros(d)
    for j in range(singles.size):
        c = class_of[j]
        mean_zf[singles[j]] = value[c] + gradient[c] * w_singles[j]
    return f_given_s, mean_zf


def _column_arrays(t, w, n, members, sizes):
    """The shared columns' arrays, flat: sizes, subsets (t, w, size), C(e, k) rows and forward tables (start, width)."""
    if not sizes.size:
        return _NO_COLUMNS
    subset_t, subset_w, subset_sizes, counts = _subsets_kernel(t[members], w[members], sizes)
    forward = []  # linear_moments.shared_column_weights' first list: column i into the rest
    starts, widths = [0], []
    for e in sizes.tolist():
        table = hypergeometric_weights(n, e)
        forward.append(table)
        starts.append(starts[-1] + table.size)
        widths.append(table.shape[1])
        n += e
    tables = np.concatenate(forward, axis=None)  # the tables flattened, one after the other
    starts, widths = np.array(starts, dtype=np.int64), np.array(widths, dtype=np.int64)
    return sizes, subset_t, subset_w, subset_sizes, counts, tables, starts, widths


@compiled(cache=True, error_model="numpy")
def _subsets_kernel(t, w, sizes):
    """Each column's subsets, the sums of t and of w over them and their sizes, and the column's C(e, k), k = 0..e.

    The subsets come in binary order (member p in subset A when bit p of A is set: ``subset_masks``' order); the
    binomial coefficients are floats, exact for e <= 12.
    """
    total, rows = 0, 0
    for e in sizes:
        total += 1 << e
        rows += e + 1
    subset_t = np.zeros(total)
    subset_w = np.zeros(total)
    subset_sizes = np.zeros(total, dtype=np.int64)
    counts = np.zeros(rows)
    first, at, row = 0, 0, 0
    for e in sizes:
        for index in range(1 << e):
            for p in range(e):
                if (index >> p) & 1:
                    subset_t[at] += t[first + p]
                    subset_w[at] += w[first + p]
                    subset_sizes[at] += 1
            at += 1
        choose = 1.0
        for k in range(e + 1):
            counts[row + k] = choose
            choose = choose * (e - k) / (k + 1)
        first += e
        row += e + 1
    return subset_t, subset_w, subset_sizes, counts


# reassoc: the adjoint's sums over the sizes become vectorised reductions (0.36 -> 0.21 s for the Yelp reviews' 770
# documents with shared columns); any order of these sums keeps the module docstring's bound (terms of known sign)
@compiled(cache=True, error_model="numpy", fastmath={"reassoc"})
def _columns_kernel(u, q, P0, Pw0, functional, sizes, subset_t, subset_w, subset_sizes, counts, tables, starts,
                    table_columns):  # fmt: skip
    """The shared columns multiplied into the singles' means (P0, Pw0), then Ψ's gradient in their members' markers.

    The forward steps are ``subset_means``' (``column_means`` and ``times_column``: the same operations, node by
    node, each state kept); the adjoint ``lam``/``lam_w`` of
    the state after a column is the derivative of Ψ in its entries, carried back over the column (the transposed
    step), and a member's derivative is the adjoint after its column times the derivative of the column's step in the
    member's marker: the column's subsets that contain it.  Returns the final means (B, d + 1) and the members'
    q-weighted sums, in the columns' order.
    """
    B, width0 = P0.shape
    S = sizes.size
    d = width0 - 1
    for i in range(S):
        d += sizes[i]
    P = np.zeros((B, d + 1))
    Pw = np.zeros((B, d + 1))
    members = np.zeros(d - (width0 - 1))
    subset_starts = np.zeros(S + 1, dtype=np.int64)
    count_starts = np.zeros(S + 1, dtype=np.int64)
    member_starts = np.zeros(S + 1, dtype=np.int64)
    largest = 1
    for i in range(S):
        e = sizes[i]
        subset_starts[i + 1] = subset_starts[i] + (1 << e)
        count_starts[i + 1] = count_starts[i] + e + 1
        member_starts[i + 1] = member_starts[i] + e
        largest = max(largest, e)
    states = np.zeros((S + 1, d + 1))  # this node's means before each column (row i), and after the last
    states_w = np.zeros((S + 1, d + 1))
    G = np.zeros((max(S, 1), largest + 1))
    Gw = np.zeros((max(S, 1), largest + 1))
    F = np.zeros((largest, largest))  # F[p, k - 1]: the factors of the column's k-subsets that contain member p
    FW = np.zeros((largest, largest))
    A = np.zeros(largest + 1)
    Bw = np.zeros(largest + 1)
    lam = np.zeros(d + 1)
    lam_w = np.zeros(d + 1)
    before = np.zeros(d + 1)
    before_w = np.zeros(d + 1)
    for b in range(B):
        ub = u[b]
        n1 = width0 - 1
        for a in range(width0):
            states[0, a], states_w[0, a] = P0[b, a], Pw0[b, a]
        for i in range(S):  # column_means, then times_column (its loops, for this node)
            e = sizes[i]
            s0, c0 = subset_starts[i], count_starts[i]
            for k in range(e + 1):
                G[i, k], Gw[i, k] = 0.0, 0.0
            for index in range(1 << e):
                f = np.exp(-(ub * subset_t[s0 + index] ** 2))
                G[i, subset_sizes[s0 + index]] += f
                Gw[i, subset_sizes[s0 + index]] += f * subset_w[s0 + index]
            for k in range(e + 1):
                G[i, k] /= counts[c0 + k]
                Gw[i, k] /= counts[c0 + k]
            h = tables[starts[i] : starts[i + 1]].reshape((e + 1, table_columns[i]))
            total = n1 + 1 + e
            old, old_w, new, new_w = states[i], states_w[i], states[i + 1], states_w[i + 1]
            for a in range(total):
                new[a], new_w[a] = 0.0, 0.0
            for k in range(min(e + 1, total)):
                span = min(n1 + 1, total - k)
                g, gw = G[i, k], Gw[i, k]
                for a0 in range(span):
                    hk = h[k, a0]
                    new[k + a0] += hk * (g * old[a0])
                    new_w[k + a0] += hk * (g * old_w[a0] + gw * old[a0])
            n1 += e
        for a in range(d + 1):
            P[b, a], Pw[b, a] = states[S, a], states_w[S, a]
            lam[a], lam_w[a] = 0.0, functional[a]  # dΨ / d(the final means) at this node, before q
        qb = q[b]
        for i in range(S - 1, -1, -1):  # back over the columns, last first
            e = sizes[i]
            n1 -= e
            s0 = subset_starts[i]
            h = tables[starts[i] : starts[i + 1]].reshape((e + 1, table_columns[i]))
            old, old_w = states[i], states_w[i]
            for p in range(e):
                for k in range(e):
                    F[p, k], FW[p, k] = 0.0, 0.0
            for index in range(1, 1 << e):  # subset 0 is empty: it contains no member
                f = np.exp(-(ub * subset_t[s0 + index] ** 2))
                fw = f * subset_w[s0 + index]
                m = subset_sizes[s0 + index]
                for p in range(e):
                    if (index >> p) & 1:
                        F[p, m - 1] += f
                        FW[p, m - 1] += fw
            for a in range(n1 + 1):
                before[a], before_w[a] = 0.0, 0.0
            for k in range(e + 1):
                g, gw = G[i, k], Gw[i, k]
                total, total_w = 0.0, 0.0
                for a0 in range(n1 + 1):
                    hk = h[k, a0]
                    la, lw = lam[k + a0], lam_w[k + a0]
                    total += hk * (la * old[a0] + lw * old_w[a0])
                    total_w += hk * (lw * old[a0])
                    before[a0] += hk * (g * la + gw * lw)
                    before_w[a0] += hk * (g * lw)
                A[k], Bw[k] = total, total_w
            for p in range(e):
                g = 0.0
                for k in range(1, e + 1):
                    g += (F[p, k - 1] * A[k] + FW[p, k - 1] * Bw[k]) / counts[count_starts[i] + k]
                members[member_starts[i] + p] += qb * g
            for a in range(n1 + 1):
                lam[a], lam_w[a] = before[a], before_w[a]
    return P, Pw, members
