"""β of a linear TF-IDF model on a long document by the size mixture: step 4 of the exact linear route.

LIME's weights over the kept sizes, smooth functions of sqrt(m / d), are fitted as mixtures of binomial laws
(:func:`limetheory.theory.linear.sizemixture.fit_size_weights`), so that the means over the kept sets of every size
become one integral over the probability p of keeping each word independently: O(d) per quadrature node instead
of the d² recursions.  :func:`mixture_beta` combines the integral with the sizes it leaves to the recursions and
checks its rule in p against a finer one at run time (``MIXTURE_RULE_TOL``, relative to
|f|(ξ) = Σ_j |λ_j| φ(ξ)_j); it returns None where the mixture does not apply, and
:func:`limetheory.theory.linear.linear_exact.beta_linear_exact` then takes the recursions.  The method and its error
budget are in :mod:`limetheory.theory.linear.linear_exact`'s docstring, step 4.
"""

from __future__ import annotations

import numpy as np

from ..._validation import check_memory, check_work
from ..law import kept_size_weights
from .linear_moments import (
    FLOPS_FORWARD,
    FLOPS_LEAVE_ONE_OUT,
    beta_from_sums,
    centred_sizes,
    node_sums,
    quadrature_moments,
    shared_column_weights,
)
from .linear_quadrature import inverse_power_quadrature
from .sizemixture import fit_size_weights, gauss_legendre_unit
from .subset_means import negligible_sizes, subset_masks

#: from this many words on, beta_linear_exact tries the size mixture (below, the d² recursion is as fast)
MIXTURE_MIN_WORDS = 1000
#: the mixture route sums the sizes below this exactly (LIME's weights are not analytic at size 0)
MIXTURE_EXACT_SIZES = 64
#: nodes whose sizes are negligible from this size on are left to the d² recursion (it costs d x this there)
MIXTURE_EXACT_TOP = 256
#: the Gauss-Legendre rules in p come in these sizes (cached: each costs about n² operations to make accurate)
_RULE_SIZES = (32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024)
#: the rule in p is checked against one at least this many times larger (the next of _RULE_SIZES)
_FINER_RULE = 1.5
#: the size mixture is accepted when β from the two rules in p agrees to this, relative to
#: |f|(ξ) = Σ_j |w_j| = Σ_j |λ_j| φ(ξ)_j: the unit of the route's accuracy (``linear_exact.BETA_ACCURACY``), since
#: the errors follow the size of f on the kept sets, up to √d max |λ| when the λ share a sign, not max |w_j|
#: (issue 35).  Below BETA_ACCURACY, so that a rule the check accepts keeps the promise.  Otherwise the
#: recursions answer.
MIXTURE_RULE_TOL = 1e-13
#: tests set this to a rule size too small for the integrand, to see the check refuse it
_FORCED_RULE = None


def _size_weights(law):
    """The three weight sequences of β over the kept sizes m = 0..d: (true, extended) pairs.

    β needs sum_{s>=2} w_hat_s c_s F_s, sum_{s>=2} w_hat_s F_s (c the centred kept fraction) and
    sum_{s>=1} m_s E[z_k f | s]; with m = d - s each weight is a smooth function of sqrt(m / d), which the
    extended sequences continue to the sizes the sums leave out (m = d - 1 and d, or m = d), so that they can be
    fitted; the true sequences are 0 there.
    """
    d = law.d
    hat = kept_size_weights(d, 2, law.nu)  # index m: psi((d - m)/d) / psi(2/d)
    kept = kept_size_weights(d, 1, law.nu) / law.total  # law.m, extended to s = 0
    removed = d - np.arange(d + 1)
    centred = -(removed - 1) / d - law.tau * float(np.dot(law.w_hat, law.u))  # centred_sizes, extended to s = 0, 1
    extended = (hat * centred, hat, kept)
    true = [weights.copy() for weights in extended]
    true[0][d - 1 :] = 0.0
    true[1][d - 1 :] = 0.0
    true[2][d] = 0.0
    return true, extended


def _mixture_nodes(nodes, tops, distinct, counts):
    """Which quadrature nodes the mixture serves (the others are computed in full, truncated where negligible).

    A node is left to the d² recursion when its sizes are negligible from ``MIXTURE_EXACT_TOP`` on (cheap there,
    and the mixture would gain nothing), or when the lightest word would carry more than half of the sets of a
    size below 2 ``MIXTURE_EXACT_SIZES`` (estimated by the tilted size a* = sum_c n_c x_c / (x_c + x_max) at which
    it does): the small sizes' leave-one-out sums need the upward pass only there.
    """
    x = np.exp(-np.outer(nodes, distinct))
    a_star = (x / (x + x.max(axis=1, keepdims=True))) @ counts
    return (tops > MIXTURE_EXACT_TOP) & (a_star > 2 * MIXTURE_EXACT_SIZES)


def _mixture_sums(u, q, distinct, counts, class_weight, columns, mixtures, finer=False):
    """The integrals over p of g(p) E_p[...] at the nodes u (``linear_exact``'s module docstring, step 4).

    For each node, with every word kept independently with probability p: a word alone in its column (class c
    of equal weights) contributes D_c = 1 - p + p x_c to the product and r_c = p x_c / D_c to the weighted sum; a
    shared column, the sums over the subsets A of its words F = sum_A pi_A e^{-u R_A} and FW (times W(A)), with
    pi_A = p^|A| (1 - p)^(e - |A|).  Then E_p[W e^{-uR}] = prod (sum_c W_c r_c + sum FW / F); for a word k of
    class c, E_p[z_k W e^{-uR}] = r_c prod (S + w_k (1 - p) / D_c) (affine in w_k), and for a member k of a
    column, (prod / F) (FW_k + F_k (S - FW / F)) with F_k, FW_k the sums over the subsets that contain k.
    The Gauss-Legendre rule has max(r + 1, r/2 + 3.5 sqrt(S) + 16) nodes, S = sum_j (1 - x_j): the product is a
    polynomial of degree d whose Chebyshev coefficients fall like exp(-k²/S) (those of e^{-Sp}), g has degree r,
    and r + 1 nodes integrate g² exactly (chapter 20's bound on the mixture's rounding errors needs it).  The rule
    is not exact for the degree d + r of the integrand: with ``finer`` it takes the next size of ``_RULE_SIZES``
    at least ``_FINER_RULE`` times larger, and the caller compares the two.
    Returns the two F sums, the leave-one-out sums (value at w_k = 0, slope) per class, and those of the
    columns' members (in the order of the columns).
    """
    degree = max(mixture.degree for mixture in mixtures)
    f_sums = np.zeros(2)
    loo0 = np.zeros(distinct.size)
    loo_slope = np.zeros(distinct.size)
    # the columns of e words are handled together: their weights stacked (columns x e), one row per column
    by_size = {}
    for index, (t, _) in enumerate(columns):
        by_size.setdefault(t.size, []).append(index)
    groups = []
    for e, indices in sorted(by_size.items()):
        masks, sizes = subset_masks(e)
        t = np.array([columns[i][0] for i in indices])
        w = np.array([columns[i][1] for i in indices])
        groups.append((indices, masks, sizes, (t @ masks.T) ** 2, w @ masks.T, np.zeros((len(indices), e))))
    all_t = np.concatenate([t for t, _ in columns]) if columns else np.zeros(0)
    densities = {}
    for node, weight in zip(u, q, strict=True):
        x = np.exp(-node * distinct)
        y = -np.expm1(-node * distinct)  # 1 - x without cancellation
        spread = float(y @ counts) + float(-np.expm1(-node * all_t**2).sum())
        needed = max(degree + 1, degree / 2 + 3.5 * np.sqrt(spread) + 16)
        if finer:
            needed = _FINER_RULE * next((size for size in _RULE_SIZES if size >= needed), needed)
        n = next((size for size in _RULE_SIZES if size >= needed), int(np.ceil(needed)))
        if _FORCED_RULE is not None:  # tests only: a rule too small, to see the check refuse it
            n = _FORCED_RULE + (2 if finer else 0)
        p, one_minus_p, v = gauss_legendre_unit(n)
        if n not in densities:
            densities[n] = [v * mixture.density(p) for mixture in mixtures]
        g_centred, g_hat, g_kept = densities[n]
        with np.errstate(under="ignore"):
            py = np.multiply.outer(p, y)
            D = one_minus_p[:, None] + np.multiply.outer(p, x)  # both terms >= 0: relative accuracy
            # log D from 1 - p y where that is >= 1/2 (no cancellation), from D itself below
            log_product = np.where(py <= 0.5, np.log1p(-np.minimum(py, 0.5)), np.log(D)) @ counts
            r = np.multiply.outer(p, x) / D
            weighted = r @ class_weight
            parts = []
            for _, masks, sizes, squares, subset_w, _ in groups:
                e = masks.shape[1]
                factor = np.exp(-node * squares)  # e^{-u R_A}: (columns, subsets)
                share = p[:, None] ** sizes * one_minus_p[:, None] ** (e - sizes)  # pi_A, all terms >= 0
                F, FW = share @ factor.T, share @ (factor * subset_w).T  # (points, columns)
                # the sums over the subsets that contain member k: (points, columns, e), as one matrix product each
                n_columns = factor.shape[0]
                containing = (factor.T[:, :, None] * masks[:, None, :]).reshape(-1, n_columns * e)
                F_k = (share @ containing).reshape(-1, n_columns, e)
                containing = ((factor * subset_w).T[:, :, None] * masks[:, None, :]).reshape(-1, n_columns * e)
                FW_k = (share @ containing).reshape(-1, n_columns, e)
                log_product = log_product + np.log(F).sum(axis=1)
                weighted = weighted + (FW / F).sum(axis=1)
                parts.append((F, FW, F_k, FW_k))
            product = np.exp(log_product)
            total = product * weighted
        f_sums += weight * np.array([g_centred @ total, g_hat @ total])
        loo0 += weight * ((g_kept * total) @ r)
        loo_slope += weight * ((g_kept * product * one_minus_p) @ (r / D))
        for (F, FW, F_k, FW_k), group in zip(parts, groups, strict=True):
            others = np.exp(log_product[:, None] - np.log(F))  # the product over everything but each column
            inside = FW_k + F_k * (weighted[:, None] - FW / F)[:, :, None]
            group[5][...] += weight * ((g_kept[:, None] * others)[:, :, None] * inside).sum(axis=0)
    members = [None] * len(columns)
    for indices, *_, sums in groups:
        for row, index in enumerate(indices):
            members[index] = sums[row]
    return f_sums, loo0, loo_slope, members


def mixture_beta(model, law):
    """β by the size mixture (``linear_exact``'s module docstring, step 4), or None where it does not apply.

    It applies to documents of at least ``MIXTURE_MIN_WORDS`` words and to bandwidths whose weights
    :func:`limetheory.theory.linear.sizemixture.fit_size_weights` can fit (not the smallest ones).  The sums over sizes
    split into: the nodes left to the d² recursion (truncated where negligible); at the other nodes, the mixture over p
    for every size, plus the exact remainder on the sizes below ``MIXTURE_EXACT_SIZES`` (the recursions
    truncated there), minus the mixture's share of the sizes d - 1 and d (closed forms), where the true weights
    are 0.
    """
    d, start = model.d, MIXTURE_EXACT_SIZES
    if d < MIXTURE_MIN_WORDS:
        return None
    true, extended = _size_weights(law)
    mixtures = [fit_size_weights(weights, start=start) for weights in extended]
    if any(mixture is None for mixture in mixtures):
        return None
    singles, shared, w = model.singles, model.shared, model.w
    distinct, first, class_of = np.unique(model.omega[singles], return_index=True, return_inverse=True)
    counts = np.bincount(class_of).astype(float)
    class_weight = np.bincount(class_of, weights=w[singles])
    rest = model.rest
    w_total = float(w.sum())
    nodes, weights = inverse_power_quadrature(model.r_min, model.power)
    tops = negligible_sizes(model, nodes)
    every, every_count = np.unique(model.omega, return_counts=True)
    mixed = _mixture_nodes(nodes, tops, every, every_count.astype(float))
    u, q = nodes[mixed], weights[mixed]
    degree = max(mixture.degree for mixture in mixtures)
    subsets = sum(2**members.size * members.size for members in shared)
    points = max(degree + 1, degree / 2 + 3.5 * np.sqrt(d) + 16)
    flops = u.size * (FLOPS_FORWARD * d * start + FLOPS_LEAVE_ONE_OUT * start * distinct.size)
    # the rule in p and the finer one that checks it: about 1 + 2 _FINER_RULE times the points of the first
    flops += u.size * points * (1 + 2 * _FINER_RULE) * (40 * distinct.size + 4 * subsets)
    flops += u.size * 6 * start * start * len(shared)
    what = f"the exact moments of a linear model at d = {d} by the size mixture ({u.size} of {nodes.size} nodes)"
    check_memory(8.0 * (6 * u.size * d + 8 * 3 * points * (distinct.size + subsets)), what, "too many words")
    check_work(flops, what, f"the cost grows as d ({distinct.size} distinct weights, {len(shared)} shared columns)")
    # the nodes left to the d² recursion (tops-truncated): every size, true weights
    full = quadrature_moments(model, select=~mixed, truncate=True)
    f_centred = float(np.dot(true[0][d - 2 :: -1], full.f_given_s[1:]))  # s = 2..d is m = d - 2..0
    f_hat = float(np.dot(true[1][d - 2 :: -1], full.f_given_s[1:]))
    mean_zf = full.weighted(law.m)
    if u.size:
        small_f, small0, small_slope, small_members = node_sums(
            model, u, q, tops[mixed], shared_column_weights(model, start), width=start, truncated=True
        )
        if small0 is None:  # some word carries most of the small sets: not for the mixture
            return None
        columns = [(model.t[members], w[members]) for members in shared]
        with np.errstate(under="ignore"):
            at_all = w_total * float(q @ np.exp(-u))  # the size d: every word kept, R = 1
            at_all_but_one = float(q @ (np.exp(-np.outer(u, rest)) @ (w_total - w))) / d  # the size d - 1
        # the words' sums: sizes m = 1..start-1 of the remainder (E[z_k f | m] = (m / d) loo[m - 1])
        remainder = (true[2][1:start] - mixtures[2].fitted[1:start]) * np.arange(1, start) / d
        betas = []
        for finer in (False, True):  # the rule in p and a finer one: the gap checks the first (linear_exact, step 4)
            f_sums, loo0, loo_slope, members = _mixture_sums(
                u, q, distinct, counts, class_weight, columns, mixtures, finer=finer
            )
            sums = [f_centred, f_hat]
            for i in range(2):
                sums[i] += f_sums[i] + (true[i][:start] - mixtures[i].fitted[:start]) @ small_f
                sums[i] -= mixtures[i].fitted[d - 1] * at_all_but_one + mixtures[i].fitted[d] * at_all
            loo0 = loo0 + remainder @ small0[: start - 1]
            loo_slope = loo_slope + remainder @ small_slope[: start - 1]
            mixed_zf = np.zeros(d)
            mixed_zf[singles] = loo0[class_of] + loo_slope[class_of] * w[singles]
            if shared:
                member_words = np.concatenate(shared)
                mixed_zf[member_words] = np.concatenate(members) + remainder @ small_members[: start - 1]
            betas.append(_mixture_assembly(model, law, *sums, mean_zf + mixed_zf - mixtures[2].fitted[d] * at_all))
        if np.abs(betas[1] - betas[0]).max() > MIXTURE_RULE_TOL * float(np.abs(w).sum()):
            return None  # the rule in p is not accurate enough here (unit |f|(ξ)): the recursions answer
        return betas[1]
    return _mixture_assembly(model, law, f_centred, f_hat, mean_zf)


def _mixture_assembly(model, law, f_centred, f_hat, mean_zf):
    """β from the mixture route's sums over s >= 2 (of w_hat c_s F_s and w_hat F_s) and sum_s m_s E[z_k f | s]."""
    rest, w, d = model.rest, model.w, model.d
    # F_1 = E[f | one word removed], in closed form
    with np.errstate(divide="ignore", invalid="ignore"):
        f_first = float(np.where(rest > 0, (float(w.sum()) - w) / rest**model.power, 0.0).sum()) / d
    dot_centred = f_centred - f_first * float(np.dot(law.w_hat, centred_sizes(law)))
    dot_hat = f_hat - f_first * float(law.w_hat.sum())
    return beta_from_sums(law, f_first, dot_centred, dot_hat, mean_zf)
