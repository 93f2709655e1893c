r"""Exact conditional moments of the powers of a linear model of the normalised TF-IDF: E[g^p | s], E[z_k g^p | s].

The model is :math:`g = b + F`, :math:`F = W(K) / R_K^{\rho}` with :math:`W(K) = \sum_{j \in K} \lambda_j t_j` and
:math:`R_K = \sum_c (\sum_{j \in c \cap K} t_j)^2` (L2 norm, ρ = 1/2), :math:`R_K = \sum_{j \in K} t_j` (L1, ρ = 1)
or no norm (ρ = 0): a logistic regression's decision function on the words' columns
(:mod:`limetheory.theory.linear.linear_exact` sets the notation).  Its powers are the exact control variates of
the estimate of a logistic regression's probabilities (:mod:`limetheory.pipelines.estimate.controls`), and chapter
25's proposition (*Exact moments of the powers of a linear score*) proves what this module computes:

1. :math:`g^p = \sum_{q \le p} \binom{p}{q} b^{p-q} F^q` and, for q >= 1,
   :math:`F^q = W^q R^{-q\rho} = \frac{W^q}{\Gamma(q\rho)} \int_0^\infty u^{q\rho - 1} e^{-u R}\, du` (a set
   with R = 0 has W = 0, and contributes 0 for q >= 1);
2. :math:`W^q = q!\, [\tau^q]\, e^{\tau W}`, and :math:`e^{\tau W - u R} = \prod_c A_c` factorises over the
   columns: a column of one word contributes :math:`1 - z_j + z_j x_j e^{\tau \lambda_j t_j}`,
   :math:`x_j = e^{-u \omega_j}` (ω = t² for L2, t for L1, 0 without a norm), a column of several words one term
   per subset of its words;
3. the sum over the a-sets K of :math:`\prod_{c} A_c(K)` is the coefficient of :math:`y^a` in the product of the
   columns' polynomials :math:`\sum_{S \subseteq c} y^{|S|} e^{\tau \lambda_c T_S - u\, \omega(T_S)}`, each
   coefficient a power series in τ truncated after :math:`\tau^{p}` (``series_product``); the sets that contain
   word k are those of :math:`y\, x_k e^{\tau w_k}` times the product of the other columns, obtained from the
   full product by dividing out word k's factor (two-sided, as ``linear_exact``'s leave-one-out recursion: upwards
   while the sets that contain k carry at most half of the sum, downwards from a = d above, so that no step
   loses more than a factor 2 to cancellation) or, for a word of a shared column, by multiplying the other
   columns again.

The rule over u is :func:`limetheory.theory.linear.linear_quadrature.trapezoidal_power_quadrature`'s for 1/r
(step 0.25 in v, without the Gauss rule that ``linear_exact`` puts below u = 12), whose nodes serve every power
:math:`r^{-q\rho}` with the weights multiplied by :math:`u^{q\rho - 1} / \Gamma(q\rho)`: relative error below
3e-15 on [r_min, 1] for qρ = 1/2, 1, 3/2 (measured on 200 points of r for r_min = 1e-2 to 1e-8) and the integrand's
tail beyond :math:`u = 45 / r_{min}` below :math:`45^{q\rho} e^{-45}`.  The cost is O(Q d² p²) for Q nodes (about 55
for a 30-word review), plus a product of the other columns per shared column.
"""

from __future__ import annotations

import math

import numpy as np

from ..._compiled import compiled
from ..._validation import check_int, check_linear_arrays
from .linear_quadrature import MIN_WEIGHT_RATIO, trapezoidal_power_quadrature
from .tfidf_model import check_groups, check_norm

__all__ = ["power_moments"]

#: largest d: the sums over the a-sets are kept unnormalised (at most C(d, a) <= 2^d times a factor <= e^{p |W|})
MAX_POWER_WORDS = 400
#: largest power: the series in τ are truncated after τ^MAX_POWER
MAX_POWER = 4
#: a word whose factor x_k = exp(-u ω_k) is below this contributes nothing at that node: every set that contains it
#: has exp(-u R) <= x_k, and the rule's weights are below 1e20 (u <= 45 / r_min, r_min >= 1e-200)
_NEGLIGIBLE_FACTOR = 1e-280


def power_moments(lam, tfidf, *, intercept=0.0, groups=None, norm="l2", max_power=3):
    r""":math:`\mathbb{E}[g^p \mid s]` and :math:`\mathbb{E}[z_k g^p \mid s]` for a linear model of the TF-IDF, exactly.

    g = intercept + :math:`\sum_c \lambda_c \phi_c` over the vectorizer's columns, φ the (normalised) TF-IDF of the
    kept words (``linear_exact.beta_linear_exact``'s model plus a constant); s = 1..d removed words (the kept set
    uniform among the (d - s)-sets).  The module docstring gives the method.

    Parameters
    ----------
    lam : array_like, shape (d,)
        The coefficient of each word's column (0 for a word the model cannot see).
    tfidf : array_like, shape (d,)
        The word's unnormalised TF-IDF weight m_j v_j (>= 0; 0 for a word the model cannot see).
    intercept : float
        The constant b of g.
    groups : array_like of int, shape (d,), or None
        Column labels, as ``beta_linear_exact``'s: words with one label share a column (equal ``lam``).
    norm : {"l2", "l1", None}
        The vectorizer's row norm.
    max_power : int
        Largest p (1 to ``MAX_POWER``).

    Returns
    -------
    mean : ndarray, shape (d, max_power)
        ``mean[s - 1, p - 1]`` = E[g^p | s].
    per_word : ndarray, shape (d, max_power, d)
        ``per_word[s - 1, p - 1, k]`` = E[z_k g^p | s].

    Raises
    ------
    ValueError
        d > ``MAX_POWER_WORDS``, a power out of range, arguments that ``beta_linear_exact`` refuses.

    Examples
    --------
    >>> import itertools
    >>> import numpy as np
    >>> lam, tfidf = np.array([1.0, -2.0, 0.5]), np.array([1.0, 2.0, 1.0])
    >>> mean, per_word = power_moments(lam, tfidf, intercept=0.3)
    >>> def g(z):  # the model on one mask, L2-normalised
    ...     kept = tfidf * z
    ...     return 0.3 + (lam @ kept / np.linalg.norm(kept) if kept.any() else 0.0)
    >>> masks = [np.array(z) for z in itertools.product([0, 1], repeat=3) if sum(z) == 2]  # s = 1
    >>> bool(np.isclose(mean[0, 1], np.mean([g(z) ** 2 for z in masks]), rtol=1e-13))
    True
    >>> bool(np.isclose(per_word[0, 2, 1], np.mean([z[1] * g(z) ** 3 for z in masks]), rtol=1e-13))
    True
    """
    norm = check_norm(norm)
    lam, t = check_linear_arrays(lam, tfidf)
    d = t.size
    if d > MAX_POWER_WORDS:
        raise ValueError(f"power_moments handles at most {MAX_POWER_WORDS} words, got d = {d}")
    max_power = check_int(max_power, "max_power", minimum=1)
    if max_power > MAX_POWER:
        raise ValueError(f"max_power must be at most {MAX_POWER}, got {max_power}")
    if isinstance(intercept, (bool, np.bool_)) or not np.isfinite(np.asarray(intercept, dtype=float)).all():
        raise ValueError(f"intercept must be a finite number, got {intercept!r}")
    b = float(intercept)
    shared = check_groups(groups, lam, t) if norm == "l2" else ()
    if groups is not None and norm != "l2":
        check_groups(groups, lam, t)
    moments_f = _f_moments(lam, t, shared, norm, max_power)  # (d + 1, P + 1) and (d + 1, d, P + 1), by kept size a
    kept = d - np.arange(1, d + 1)  # a = d - s
    mean = np.zeros((d, max_power))
    per_word = np.zeros((d, max_power, d))
    for p in range(1, max_power + 1):
        for q in range(p + 1):
            factor = math.comb(p, q) * b ** (p - q)
            mean[:, p - 1] += factor * moments_f[0][kept, q]
            per_word[:, p - 1] += factor * moments_f[1][kept, :, q]
    return mean, per_word


def _f_moments(lam, t, shared, norm, max_power):
    """E[F^q | a kept] (shape (d + 1, P + 1)) and E[z_k F^q | a kept] (shape (d + 1, d, P + 1)), q = 0..P."""
    d = t.size
    order = max_power + 1
    sizes = np.arange(d + 1)
    mean = np.zeros((d + 1, order))
    per_word = np.zeros((d + 1, d, order))
    mean[:, 0] = 1.0
    per_word[:, :, 0] = (sizes / d)[:, None]  # P(k kept | a kept)
    if not (t > 0).any():  # no word the model sees: F = 0
        return mean, per_word
    if (t[t > 0] / t.max()).min() < MIN_WEIGHT_RATIO:
        raise ValueError(f"the positive tfidf weights must span at most a factor 1/{MIN_WEIGHT_RATIO:g}")
    in_shared = np.zeros(d, dtype=bool)
    for members in shared:
        in_shared[members] = True
    singles = np.flatnonzero(~in_shared)
    # powers up to 2 (three terms) read the first three of the kernels written out for four (each coefficient q sums
    # terms r <= q only: the same numbers), at 0.6 of the general loops' cost; with shared columns, the general ones
    wide = 4 if order == 3 and not shared else order
    if norm is None:
        nodes, weights = np.zeros(1), np.ones((1, wide))
        omega, scaled = np.zeros(d), t
    else:
        if norm == "l2":
            scale = float((t[singles] ** 2).sum() + sum(t[members].sum() ** 2 for members in shared))
            scaled = t / np.sqrt(scale)
            omega, rho = scaled**2, 0.5
        else:
            scaled = t / t.sum()
            omega, rho = scaled, 1.0
        # R_K >= the smallest positive ω over the sets with a visible word (a shared column's sum is >= its words)
        nodes, base = trapezoidal_power_quadrature(float(omega[omega > 0].min()), 1.0)
        weights = np.zeros((nodes.size, wide))
        for q in range(1, wide):
            weights[:, q] = base * nodes ** (q * rho - 1.0) / math.gamma(q * rho)
    w = lam * scaled
    x = np.exp(-np.outer(nodes, omega[singles]))
    polys, members_polys, lengths = _shared_polynomials(nodes, scaled, w, shared, norm, order)
    xs, ws = np.ascontiguousarray(x), np.ascontiguousarray(w[singles])
    _load_shared_kernels()
    # the single words' product once; the shared columns multiply it for the total and for each column's others
    base = _product_kernel(xs, ws, wide)
    total = _times_columns(base, polys, lengths, -1) if shared else base
    # the sums over the nodes on the first ``order`` terms (the same array as before when wide == order)
    narrow_weights, narrow_total = np.ascontiguousarray(weights[:, :order]), np.ascontiguousarray(total[:, :, :order])
    binomials = np.array([float(math.comb(d, a)) for a in range(d + 1)])
    factorials = np.array([float(math.factorial(q)) for q in range(order)])
    sums = np.einsum("bq,baq->aq", narrow_weights, narrow_total)
    mean[:, 1:] = (sums * factorials / binomials[:, None])[:, 1:]
    deflate = _deflate_kernel4 if wide == 4 else _deflate_kernel
    words = deflate(total, xs, ws, weights, _NEGLIGIBLE_FACTOR)[:, :, :order]
    per_word[:, singles, 1:] = (words * factorials / binomials[:, None, None])[:, :, 1:]
    for c, members in enumerate(shared):
        others = _times_columns(base, polys, lengths, c)
        for i, k in enumerate(members):
            contribution = _weighted_convolution(members_polys[c][i], others, weights, d + 1)
            per_word[:, k, 1:] = (contribution * factorials / binomials[:, None])[:, 1:]
    return mean, per_word


#: whether this process has loaded the kernels of shared columns (numba's cache, or compiled them)
_shared_kernels_loaded = False


def _load_shared_kernels():
    """Load the kernels only a document with shared columns calls, at the process's first power_moments.

    Loading them from numba's cache takes about 30 ms: paid by the first call, with the other kernels, rather than
    by whichever later document first has two words in one column (lower and upper case).
    """
    global _shared_kernels_loaded
    if not _shared_kernels_loaded:
        base = np.zeros((1, 2, 4))
        _times_columns(base, np.zeros((1, 1, 2, 4)), np.ones(1, dtype=np.int64), -1)
        _convolution_kernel(np.zeros((1, 2, 4)), base, 3)
        _shared_kernels_loaded = True


def _shared_polynomials(nodes, t, w, shared, norm, order):
    """Each shared column's polynomial in y (one term per subset of its words) and, per member, the subsets with it.

    Returns a (C, Q, L + 1, order) array padded with zeros (L the largest column), the members' (Q, e + 1, order)
    arrays per column, and the columns' numbers of words.
    """
    longest = max((members.size for members in shared), default=0)
    polys = np.zeros((len(shared), nodes.size, longest + 1, order))
    members_polys, lengths = [], np.array([members.size for members in shared], dtype=np.int64)
    for c, members in enumerate(shared):
        e = members.size
        per_member = np.zeros((e, nodes.size, e + 1, order))
        subsets = np.array(
            [[(index >> bit) & 1 for bit in range(e)] for index in range(1 << e)], dtype=float
        )  # (2^e, e)
        total_t = subsets @ t[members]
        total_w = subsets @ w[members]
        omega = total_t**2 if norm == "l2" else total_t
        factor = np.exp(-np.outer(nodes, omega))  # (Q, 2^e)
        powers = np.stack([total_w**q / math.factorial(q) for q in range(order)], axis=1)  # (2^e, order)
        size = subsets.sum(axis=1).astype(np.int64)
        for index in range(1 << e):
            term = factor[:, index, None] * powers[index]  # (Q, order)
            polys[c, :, size[index]] += term
            for i in np.flatnonzero(subsets[index]):
                per_member[i, :, size[index]] += term
        members_polys.append(per_member)
    return polys, members_polys, lengths


def series_product(a, b):
    """The product of two power series in τ truncated to their common length: c_q = Σ_{r <= q} a_r b_{q - r}.

    Examples
    --------
    >>> series_product(np.array([1.0, 2.0, 0.0]), np.array([1.0, 1.0, 1.0])).tolist()  # (1 + 2τ)(1 + τ + τ²)
    [1.0, 3.0, 3.0]
    """
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return np.array([sum(a[r] * b[q - r] for r in range(q + 1)) for q in range(len(a))])


@compiled(cache=True, error_model="numpy")
def _product_kernel(x, w, order):
    """The product over the single words of their polynomials in y, per node: shape (Q, n + 1, order).

    The single words' factors are 1 + y x_j e^{τ w_j} (n words); :func:`_times_columns` multiplies in the shared
    columns' polynomials.
    """
    nodes, singles = x.shape
    out = np.zeros((nodes, singles + 1, order))
    series = np.zeros(order)
    for b in range(nodes):
        out[b, 0, 0] = 1.0
    top = 0
    for j in range(singles):
        series[0] = 1.0
        for q in range(1, order):
            series[q] = series[q - 1] * w[j] / q
        top += 1
        if order == 4:  # the estimate's powers up to 3: the loops over q and r written out, the same sums in order
            s0, s1, s2, s3 = series[0], series[1], series[2], series[3]
            for b in range(nodes):
                xb = x[b, j]
                for a in range(top, 0, -1):
                    p0, p1, p2, p3 = out[b, a - 1, 0], out[b, a - 1, 1], out[b, a - 1, 2], out[b, a - 1, 3]
                    out[b, a, 3] += xb * (0.0 + s0 * p3 + s1 * p2 + s2 * p1 + s3 * p0)
                    out[b, a, 2] += xb * (0.0 + s0 * p2 + s1 * p1 + s2 * p0)
                    out[b, a, 1] += xb * (0.0 + s0 * p1 + s1 * p0)
                    out[b, a, 0] += xb * (0.0 + s0 * p0)
            continue
        for b in range(nodes):
            xb = x[b, j]
            for a in range(top, 0, -1):
                for q in range(order - 1, -1, -1):
                    acc = 0.0
                    for r in range(q + 1):
                        acc += series[r] * out[b, a - 1, q - r]
                    out[b, a, q] += xb * acc
    return out


@compiled(cache=True, error_model="numpy")
def _times_columns(base, polys, lengths, skip):
    """``base`` (the single words' product, (Q, singles + 1, order)) times the shared columns' polynomials.

    ``polys[c]`` is column c's polynomial in y (column ``skip`` left out, -1 for none); the single words' product
    (:func:`_product_kernel`) is formed once for the full product and for each shared column's product of the others.
    """
    nodes, top_plus, order = base.shape
    top = top_plus - 1
    degree = top
    for c in range(lengths.size):
        if c != skip:
            degree += lengths[c]
    # element loops rather than slice assignments and .copy() of 3-D arrays: the same values, and numba compiles
    # them several times faster (about 5 CPU-s to under 1 on a fresh clone)
    out = np.zeros((nodes, degree + 1, order))
    previous = np.empty((nodes, degree + 1, order))
    for b in range(nodes):
        for a in range(top + 1):
            for q in range(order):
                out[b, a, q] = base[b, a, q]
    for c in range(lengths.size):
        if c == skip:
            continue
        e = lengths[c]
        for b in range(nodes):  # previous = out[:, : top + 1]; out[:, : top + 1] = 0
            for a in range(top + 1):
                for q in range(order):
                    previous[b, a, q] = out[b, a, q]
                    out[b, a, q] = 0.0
        if order == 4:  # the estimate's powers up to 3: the loops over q and r written out, the same sums in order
            for b in range(nodes):
                for a in range(top + 1):
                    p0, p1, p2, p3 = previous[b, a, 0], previous[b, a, 1], previous[b, a, 2], previous[b, a, 3]
                    for i in range(e + 1):
                        c0, c1, c2, c3 = polys[c, b, i, 0], polys[c, b, i, 1], polys[c, b, i, 2], polys[c, b, i, 3]
                        out[b, a + i, 0] += 0.0 + c0 * p0
                        out[b, a + i, 1] += 0.0 + c0 * p1 + c1 * p0
                        out[b, a + i, 2] += 0.0 + c0 * p2 + c1 * p1 + c2 * p0
                        out[b, a + i, 3] += 0.0 + c0 * p3 + c1 * p2 + c2 * p1 + c3 * p0
            top += e
            continue
        for b in range(nodes):
            for a in range(top + 1):
                for i in range(e + 1):
                    for q in range(order):
                        acc = 0.0
                        for r in range(q + 1):
                            acc += polys[c, b, i, r] * previous[b, a, q - r]
                        out[b, a + i, q] += acc
        top += e
    return out


@compiled(cache=True, error_model="numpy")
def _deflate_kernel(total, x, w, weights, negligible):
    """Σ over the nodes of weights x the sums over the a-sets containing word j (a single word): (n + 1, words, order).

    Word j's factor is divided out of the product ``total`` two-sided: O_a = E_a - x_j e^{τ w_j} O_{a-1} upwards
    while the sets containing j (x_j O_{a-1}) carry at most half of E_a (in the τ⁰ coefficient, positive), then
    O_{a-1} = (E_a - O_a) e^{-τ w_j} / x_j downwards from O_{n-1} = E_n e^{-τ w_j} / x_j.
    """
    nodes, top_plus, order = total.shape
    n = top_plus - 1
    singles = x.shape[1]
    out = np.zeros((n + 1, singles, order))
    grow = np.zeros(order)
    shrink = np.zeros(order)
    rest = np.zeros((n, order))  # O_0..O_{n-1}
    term = np.zeros(order)
    for j in range(singles):
        grow[0] = 1.0
        shrink[0] = 1.0
        for q in range(1, order):
            grow[q] = grow[q - 1] * w[j] / q
            shrink[q] = -shrink[q - 1] * w[j] / q
        for b in range(nodes):
            xb = x[b, j]
            if xb < negligible:
                continue
            # upwards: O_0 = E_0, then O_a while the sets with j carry at most half of E_a
            for q in range(order):
                rest[0, q] = total[b, 0, q]
            switch = n  # the first a whose O_{a-1} comes from the downward pass
            for a in range(1, n):
                head = total[b, a, 0]
                if not (xb * rest[a - 1, 0] <= 0.5 * head):
                    switch = a
                    break
                for q in range(order):
                    acc = 0.0
                    for r in range(q + 1):
                        acc += grow[r] * rest[a - 1, q - r]
                    rest[a, q] = total[b, a, q] - xb * acc
            # downwards from O_{n-1} = E_n / (x_j e^{τ w_j}) to O_{switch - 1}
            if switch < n:
                for q in range(order):
                    acc = 0.0
                    for r in range(q + 1):
                        acc += shrink[r] * total[b, n, q - r]
                    rest[n - 1, q] = acc / xb
                for a in range(n - 1, switch - 1, -1):
                    for q in range(order):
                        term[q] = total[b, a, q] - rest[a, q]
                    for q in range(order):
                        acc = 0.0
                        for r in range(q + 1):
                            acc += shrink[r] * term[q - r]
                        rest[a - 1, q] = acc / xb
            # the sets of size a containing j: x_j e^{τ w_j} O_{a-1}
            for a in range(1, n + 1):
                for q in range(order):
                    acc = 0.0
                    for r in range(q + 1):
                        acc += grow[r] * rest[a - 1, q - r]
                    out[a, j, q] += weights[b, q] * xb * acc
    return out


@compiled(cache=True, error_model="numpy")
def _deflate_kernel4(total, x, w, weights, negligible):
    """:func:`_deflate_kernel` for series of four terms (powers up to 3): two nodes at once, in registers.

    Its loops over q and r written out: the same operations in the same order (each sum from 0.0, r = 0 first),
    bit for bit.  The divisions run as two recurrences over a, each step waiting for the last: two nodes (a and b
    below, the word's next two nodes whose factor is not negligible) run side by side so that one's step fills the
    other's wait (0.62 -> 0.43 CPU-ms at d = 30, 57 nodes); each entry of ``out`` still adds the nodes in order.
    """
    nodes, top_plus, _ = total.shape
    n = top_plus - 1
    singles = x.shape[1]
    out = np.zeros((n + 1, singles, 4))
    rest_a = np.zeros((n, 4))  # O_0..O_{n-1} of the pair's first node, rest_b of its second
    rest_b = np.zeros((n, 4))
    active = np.empty(nodes, dtype=np.int64)
    for j in range(singles):
        wj = w[j]
        g0 = 1.0
        g1 = g0 * wj / 1
        g2 = g1 * wj / 2
        g3 = g2 * wj / 3
        h0 = 1.0
        h1 = -h0 * wj / 1
        h2 = -h1 * wj / 2
        h3 = -h2 * wj / 3
        count = 0
        for b in range(nodes):
            if not (x[b, j] < negligible):
                active[count] = b
                count += 1
        for i in range(0, count, 2):
            two = i + 1 < count
            ba = active[i]
            bb = active[i + 1] if two else ba
            xa, xb = x[ba, j], x[bb, j]
            for q in range(4):
                rest_a[0, q] = total[ba, 0, q]
                rest_b[0, q] = total[bb, 0, q]
            switch_a, switch_b = n, n
            up_a, up_b = True, two
            for a in range(1, n):  # upwards, each node while the sets with j carry at most half of E_a
                if up_a:
                    if not (xa * rest_a[a - 1, 0] <= 0.5 * total[ba, a, 0]):
                        switch_a = a
                        up_a = False
                    else:
                        p0, p1, p2, p3 = rest_a[a - 1, 0], rest_a[a - 1, 1], rest_a[a - 1, 2], rest_a[a - 1, 3]
                        rest_a[a, 0] = total[ba, a, 0] - xa * (0.0 + g0 * p0)
                        rest_a[a, 1] = total[ba, a, 1] - xa * (0.0 + g0 * p1 + g1 * p0)
                        rest_a[a, 2] = total[ba, a, 2] - xa * (0.0 + g0 * p2 + g1 * p1 + g2 * p0)
                        rest_a[a, 3] = total[ba, a, 3] - xa * (0.0 + g0 * p3 + g1 * p2 + g2 * p1 + g3 * p0)
                if up_b:
                    if not (xb * rest_b[a - 1, 0] <= 0.5 * total[bb, a, 0]):
                        switch_b = a
                        up_b = False
                    else:
                        p0, p1, p2, p3 = rest_b[a - 1, 0], rest_b[a - 1, 1], rest_b[a - 1, 2], rest_b[a - 1, 3]
                        rest_b[a, 0] = total[bb, a, 0] - xb * (0.0 + g0 * p0)
                        rest_b[a, 1] = total[bb, a, 1] - xb * (0.0 + g0 * p1 + g1 * p0)
                        rest_b[a, 2] = total[bb, a, 2] - xb * (0.0 + g0 * p2 + g1 * p1 + g2 * p0)
                        rest_b[a, 3] = total[bb, a, 3] - xb * (0.0 + g0 * p3 + g1 * p2 + g2 * p1 + g3 * p0)
                if not (up_a or up_b):
                    break
            if not two:
                switch_b = n
            # downwards from O_{n-1} = E_n / (x_j e^{τ w_j}), each node to its own switch
            if switch_a < n:
                e0, e1, e2, e3 = total[ba, n, 0], total[ba, n, 1], total[ba, n, 2], total[ba, n, 3]
                rest_a[n - 1, 0] = (0.0 + h0 * e0) / xa
                rest_a[n - 1, 1] = (0.0 + h0 * e1 + h1 * e0) / xa
                rest_a[n - 1, 2] = (0.0 + h0 * e2 + h1 * e1 + h2 * e0) / xa
                rest_a[n - 1, 3] = (0.0 + h0 * e3 + h1 * e2 + h2 * e1 + h3 * e0) / xa
            if switch_b < n:
                e0, e1, e2, e3 = total[bb, n, 0], total[bb, n, 1], total[bb, n, 2], total[bb, n, 3]
                rest_b[n - 1, 0] = (0.0 + h0 * e0) / xb
                rest_b[n - 1, 1] = (0.0 + h0 * e1 + h1 * e0) / xb
                rest_b[n - 1, 2] = (0.0 + h0 * e2 + h1 * e1 + h2 * e0) / xb
                rest_b[n - 1, 3] = (0.0 + h0 * e3 + h1 * e2 + h2 * e1 + h3 * e0) / xb
            for a in range(n - 1, min(switch_a, switch_b) - 1, -1):
                if a >= switch_a:
                    t0 = total[ba, a, 0] - rest_a[a, 0]
                    t1 = total[ba, a, 1] - rest_a[a, 1]
                    t2 = total[ba, a, 2] - rest_a[a, 2]
                    t3 = total[ba, a, 3] - rest_a[a, 3]
                    rest_a[a - 1, 0] = (0.0 + h0 * t0) / xa
                    rest_a[a - 1, 1] = (0.0 + h0 * t1 + h1 * t0) / xa
                    rest_a[a - 1, 2] = (0.0 + h0 * t2 + h1 * t1 + h2 * t0) / xa
                    rest_a[a - 1, 3] = (0.0 + h0 * t3 + h1 * t2 + h2 * t1 + h3 * t0) / xa
                if a >= switch_b:
                    t0 = total[bb, a, 0] - rest_b[a, 0]
                    t1 = total[bb, a, 1] - rest_b[a, 1]
                    t2 = total[bb, a, 2] - rest_b[a, 2]
                    t3 = total[bb, a, 3] - rest_b[a, 3]
                    rest_b[a - 1, 0] = (0.0 + h0 * t0) / xb
                    rest_b[a - 1, 1] = (0.0 + h0 * t1 + h1 * t0) / xb
                    rest_b[a - 1, 2] = (0.0 + h0 * t2 + h1 * t1 + h2 * t0) / xb
                    rest_b[a - 1, 3] = (0.0 + h0 * t3 + h1 * t2 + h2 * t1 + h3 * t0) / xb
            ua0, ua1, ua2, ua3 = weights[ba, 0] * xa, weights[ba, 1] * xa, weights[ba, 2] * xa, weights[ba, 3] * xa
            ub0, ub1, ub2, ub3 = weights[bb, 0] * xb, weights[bb, 1] * xb, weights[bb, 2] * xb, weights[bb, 3] * xb
            for a in range(1, n + 1):
                p0, p1, p2, p3 = rest_a[a - 1, 0], rest_a[a - 1, 1], rest_a[a - 1, 2], rest_a[a - 1, 3]
                out[a, j, 0] += ua0 * (0.0 + g0 * p0)
                out[a, j, 1] += ua1 * (0.0 + g0 * p1 + g1 * p0)
                out[a, j, 2] += ua2 * (0.0 + g0 * p2 + g1 * p1 + g2 * p0)
                out[a, j, 3] += ua3 * (0.0 + g0 * p3 + g1 * p2 + g2 * p1 + g3 * p0)
                if two:
                    p0, p1, p2, p3 = rest_b[a - 1, 0], rest_b[a - 1, 1], rest_b[a - 1, 2], rest_b[a - 1, 3]
                    out[a, j, 0] += ub0 * (0.0 + g0 * p0)
                    out[a, j, 1] += ub1 * (0.0 + g0 * p1 + g1 * p0)
                    out[a, j, 2] += ub2 * (0.0 + g0 * p2 + g1 * p1 + g2 * p0)
                    out[a, j, 3] += ub3 * (0.0 + g0 * p3 + g1 * p2 + g2 * p1 + g3 * p0)
    return out


def _weighted_convolution(member, others, weights, length):
    """Σ over the nodes of weights x (a member's subsets times the other columns' product), by size: (length, order)."""
    # the weights depend on the total τ power q: applied after the product
    product = _convolution_kernel(np.ascontiguousarray(member), np.ascontiguousarray(others), length)
    return np.einsum("bq,baq->aq", weights, product)


@compiled(cache=True, error_model="numpy")
def _convolution_kernel(member, others, length):
    """A member's subsets times the other columns' product, per node: (Q, length, order).

    Each entry adds its terms in the order of a loop over the member's sizes i, then r (the same sums as the array
    form ``product[:, i : i + n, q] += member[:, i, r, None] * others[:, :, q - r]``, bit for bit).
    """
    nodes, top, order = others.shape
    product = np.zeros((nodes, length, order))
    for i in range(member.shape[1]):
        for q in range(order):
            for r in range(q + 1):
                for b in range(nodes):
                    factor = member[b, i, r]
                    for a in range(top):
                        product[b, i + a, q] += factor * others[b, a, q - r]
    return product
