r"""The exact explanation of a linear model of the normalised TF-IDF, at any bandwidth.

The model is :math:`f(\phi(x)) = \sum_j \lambda_j \phi(x)_j`.  For a mask z (kept set K), the normalised
TF-IDF of word j is :math:`\phi_j = z_j t_j / \sqrt{R_K}` with :math:`t_j = m_j v_j` and
:math:`R_K = \sum_{k \in K} t_k^2` (φ = 0 when no visible word is kept).  The paper calls
:math:`\mathbb{E}[\pi z_k \phi_j]` intractable and approximates it (Jensen's inequality, then ν = d = ∞).
It is tractable:

1. given the number s of removed words, the kept set K is uniform among the sets of size m = d - s,
   so the conditional moments :math:`F_s = \mathbb{E}[f \mid s]` and :math:`\mathbb{E}[z_k f \mid s]` do not
   involve the kernel at all;
2. :math:`r^{-1/2} = \frac{1}{\sqrt{\pi}} \int_0^\infty u^{-1/2} e^{-u r}\, du` turns :math:`1/\sqrt{R_K}`
   into an integral of :math:`\prod_{k \in K} x_k` with :math:`x_k = e^{-u \omega_k}`,
   :math:`\omega = t^2 / \sum t^2`; means over the sets of a given size of such products (and of
   :math:`W(K) \prod_K x`, :math:`W(K) = \sum_{k \in K} \lambda_k \phi(\xi)_k`) are normalised
   elementary symmetric polynomials (ESPs) of the x_k;
3. one forward recursion over the words gives these means for every size (hence every F_s), and the
   leave-one-out means (sets avoiding word k), which give every E[z_k f | s], follow for all k at once by
   running the identity
   :math:`\mathrm{mean}_a(\mathrm{all}) = (1 - a/d)\, \mathrm{mean}_a(\text{without } k)
   + (a/d)\, x_k\, \mathrm{mean}_{a-1}(\text{without } k)` upwards in a while the sets containing k
   carry at most half of :math:`\mathrm{mean}_a(\mathrm{all})`, and downwards from a = d - 1
   (where the mean is one product) above that point.  The share of the sets containing k increases with a
   (Newton's inequalities), so each step subtracts at most half of the value it starts from and divides
   the error it inherits by a factor >= 1: errors grow at most linearly in d.

This costs O(d²) per quadrature node, O(d² Q) in all.  The u-integral is a trapezoidal rule after the
substitution u = exp(v - exp(-v)), with relative error below about 1e-13 uniformly in r in [r_min, 1] (see
:func:`inverse_sqrt_quadrature`).  The kernel enters only afterwards: :func:`beta_linear_exact` hands the
conditional moments to :func:`limetheory.explanation.beta_from_conditional_moments`, which weights them with
the tilted law of s without forming Σ or Γ, so β stays exact where Σ is numerically singular
(small ν, small d); :func:`gamma_linear_exact` forms Γᶠ from the same moments.
"""

from __future__ import annotations

import numbers
import warnings

import numpy as np

from ._validation import check_linear_model, check_memory, check_nu, check_work
from .explanation import beta_from_conditional_moments
from .law import times_exp, weighted_law
from .units import bandwidth_keyword

__all__ = [
    "beta_linear_exact",
    "conditional_moments_linear_exact",
    "gamma_linear_exact",
    "inverse_sqrt_quadrature",
]

#: step of the trapezoidal rule in the variable v (u = exp(v - exp(-v)))
QUADRATURE_STEP = 0.3
#: left end of the rule in v: the neglected part of the integral is below exp(-45)
QUADRATURE_LEFT = -4.5
#: the rule extends to u = QUADRATURE_RIGHT / r_min, where exp(-u r) <= exp(-45) for every r >= r_min
QUADRATURE_RIGHT = 45.0
#: smallest allowed ratio between the smallest positive and the largest TF-IDF weight
MIN_WEIGHT_RATIO = 1e-100
#: memory budget (in float64 entries) of one (nodes x words) work array; nodes are processed in blocks
_BLOCK_ENTRIES = 1 << 20
#: the upward leave-one-out step is used while the sets containing the word carry at most this share of the mean
_UPWARD_SHARE = 0.5
#: operations per quadrature node and per pair of words of the two recursions (about 24 measured at d = 1000)
_FLOPS_PER_NODE_PAIR = 32


def inverse_sqrt_quadrature(r_min):
    r"""Nodes and weights with :math:`\sum_q w_q e^{-u_q r} = r^{-1/2}` for every r in [r_min, 1], to ~1e-13
    relative.

    The integral :math:`r^{-1/2} = \frac{1}{\sqrt{\pi}} \int_0^\infty u^{-1/2} e^{-u r}\, du` is discretised
    by the trapezoidal rule with step ``QUADRATURE_STEP`` in v, where :math:`u = e^{v - e^{-v}}`; the substitution
    makes the integrand decay double-exponentially as v → -∞ (where u → 0) and as v → +∞ (where u r → ∞).
    Every weight is positive, so the same rule integrates any positive mixture of :math:`e^{-u R}` with
    R in [r_min, 1] to the same relative accuracy.

    Parameters
    ----------
    r_min : float
        Smallest value of r the rule must serve, in (0, 1].

    Returns
    -------
    nodes, weights : ndarray, ndarray
        Both of shape (Q,), Q about (ln(45 / r_min) + 4.5) / 0.3.
    """
    if isinstance(r_min, (bool, np.bool_)) or not isinstance(r_min, numbers.Real):
        raise TypeError(f"r_min must be a real number in (0, 1], got {r_min!r}")
    r_min = float(r_min)
    if not (0 < r_min <= 1):
        raise ValueError(f"r_min must lie in (0, 1], got {r_min}")
    if r_min < MIN_WEIGHT_RATIO**2:
        raise ValueError(f"r_min must be >= {MIN_WEIGHT_RATIO**2:g}, got {r_min}")
    h = QUADRATURE_STEP
    v = np.arange(np.ceil(QUADRATURE_LEFT / h), np.ceil(np.log(QUADRATURE_RIGHT / r_min) / h) + 1) * h
    g = v - np.exp(-v)
    nodes = np.exp(g)
    weights = h * np.exp(g / 2) * (1 + np.exp(-v)) / np.sqrt(np.pi)
    return nodes, weights


def _check_linear_model(lam, tfidf):
    lam, scaled = check_linear_model(lam, tfidf)
    positive = scaled[scaled > 0]
    if positive.min() < MIN_WEIGHT_RATIO:
        raise ValueError(
            f"the positive tfidf weights must span at most a factor 1/{MIN_WEIGHT_RATIO:g}, "
            f"got a smallest/largest ratio of {positive.min():.3g}"
        )
    return lam, scaled


def _full_means(x, w):
    """Means over the a-subsets A of all d words of prod_A x and of W(A) prod_A x, for a = 0..d-1.

    ``x`` has shape (B, d) (one row per quadrature node), ``w`` shape (d,); W(A) = sum_{i in A} w_i.  Returns
    P and Pw of shape (B, d), column a.  Adding a word updates every mean by a convex combination
    (hypergeometric weights): P keeps its relative accuracy, and Pw its accuracy relative to the same mean
    with |w| in place of w.
    """
    B, d = x.shape
    a = np.arange(d + 1, dtype=float)
    P = np.zeros((B, d + 1))
    Pw = np.zeros((B, d + 1))
    P[:, 0] = 1.0
    for j in range(d):
        n = j + 1  # words seen once word j is added
        c0 = (n - a[: n + 1]) / n  # share of the a-subsets that avoid word j
        c1 = a[1 : n + 1] / n  # share of those that contain it
        xj = x[:, j : j + 1]
        xp = xj * P[:, :n]
        new_pw = c0 * Pw[:, : n + 1]
        new_pw[:, 1:] += c1 * (xj * Pw[:, :n] + w[j] * xp)
        new_p = c0 * P[:, : n + 1]
        new_p[:, 1:] += c1 * xp
        P[:, : n + 1] = new_p
        Pw[:, : n + 1] = new_pw
    return P[:, :d], Pw[:, :d]


def _leave_one_out_sums(x, u, omega, w, P, Pw, weights):
    """H[a, k] = sum_q weights_q x_k (w_k L_a^{-k} + Lw_a^{-k}) at the nodes of the block, for a = 0..d-2.

    L_a^{-k} (Lw_a^{-k}) is the mean over the a-subsets A of the words other than k of prod_A x (of
    W(A) prod_A x), so that x_k (w_k L + Lw) is the mean over the (a+1)-sets K containing k of W(K) prod_K x.
    With mean_a the mean over all words (``P``, ``Pw``), the identity

        d mean_a = (d - a) L_a^{-k} + a x_k L_{a-1}^{-k}      (and the same for Pw with Lw + w_k L)

    is solved upwards for L_a^{-k} while the share pi_a = a x_k L_{a-1}^{-k} / (d mean_a) of the sets containing
    k stays <= 1/2, and downwards (for L_{a-1}^{-k}, from L_{d-1}^{-k} = prod_{i != k} x_i) above the first level
    where it exceeds 1/2.  pi_a increases with a (Newton's inequalities for the ESPs without k), so every step
    loses at most one bit and multiplies the inherited relative error by pi/(1 - pi) <= 1 (upwards) or
    (1 - pi)/pi <= 1 (downwards).
    """
    B, d = x.shape
    out = np.zeros((d - 1, d))
    # upwards from L_0 = 1, Lw_0 = 0; first_down[q, k] is the first index a that needs the downward pass
    first_down = np.full((B, d), d - 1)
    up = np.ones((B, d), dtype=bool)
    L = np.ones((B, d))
    Lw = np.zeros((B, d))
    out[0] = weights @ (x * w)
    with np.errstate(divide="ignore", invalid="ignore"):
        for a in range(1, d - 1):
            pa, pwa = P[:, a : a + 1], Pw[:, a : a + 1]
            carried = (a / d) * x * L  # (a/d) x_k L_{a-1}: the part of mean_a from the sets containing k
            share = np.where(pa > 0, carried / pa, 0.0)  # an underflowed mean_a: both parts are 0 too
            leaving = up & (share > _UPWARD_SHARE)
            first_down[leaving] = a
            up &= ~leaving
            scale = d / (d - a)
            L_next = np.maximum(pa - carried, 0.0) * scale
            Lw_next = (pwa - (a / d) * x * (Lw + w * L)) * scale
            L = np.where(up, L_next, 0.0)
            Lw = np.where(up, Lw_next, 0.0)
            out[a] = weights @ (x * (w * L + Lw))
    if up.all():
        return out
    # downwards from L_{d-1}^{-k} = exp(-u sum_{i != k} omega_i), kept only where index >= first_down
    prefix = np.concatenate([[0.0], np.cumsum(omega[:-1])])
    suffix = np.concatenate([np.cumsum(omega[::-1][:-1])[::-1], [0.0]])
    L = np.exp(-np.outer(u, prefix + suffix))
    w_prefix = np.concatenate([[0.0], np.cumsum(w[:-1])])
    w_suffix = np.concatenate([np.cumsum(w[::-1][:-1])[::-1], [0.0]])
    Lw = (w_prefix + w_suffix) * L
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for a in range(d - 1, 0, -1):
            needed = first_down <= a - 1
            if not needed.any():
                break
            pa, pwa = P[:, a : a + 1], Pw[:, a : a + 1]
            stay = (d - a) / d
            h = (pwa - stay * Lw) * (d / a)  # = x_k (Lw_{a-1} + w_k L_{a-1})
            L_prev = (pa - stay * L) * (d / a) / x
            Lw_prev = h / x - w * L_prev
            h = np.where(needed, h, 0.0)
            L = np.where(needed, L_prev, 0.0)
            Lw = np.where(needed, Lw_prev, 0.0)
            out[a - 1] += weights @ h
    return out


def conditional_moments_linear_exact(lam, tfidf):
    r"""E[f | s] and E[z_k f | s] for :math:`f(\phi(x)) = \sum_j \lambda_j \phi(x)_j`, exactly, for s = 1..d
    removed words.

    They do not depend on the bandwidth: given s, LIME's kept set is uniform among the sets of d - s words.
    :func:`limetheory.explanation.beta_from_conditional_moments` turns them into β at any bandwidth.

    Parameters
    ----------
    lam : array_like, shape (d,)
        The coefficients of the linear model on the TF-IDF coordinates of the local words.
    tfidf : array_like, shape (d,)
        ``tfidf[j] = m_j v_j`` >= 0, the unnormalised TF-IDF weight of word j in the document; 0 for a word
        the model cannot see (its phi is always 0; it still counts among the d words LIME removes).  At least
        one entry must be positive, and the positive ones may span at most a factor 1e100; only ratios matter
        (phi is scale-invariant).

    Returns
    -------
    f_given_s : ndarray, shape (d,)
        ``f_given_s[s - 1]`` = E[f | s] (0 for s = d, where no word is kept).
    zf_given_s : ndarray, shape (d, d)
        ``zf_given_s[s - 1, k]`` = E[z_k f | s].  Both are accurate to about 1e-13 times max |lam| (the
        quadrature's relative 1e-13 plus rounding that grows at most linearly in d).

    Raises
    ------
    TypeError
        ``lam`` or ``tfidf`` not arrays of real numbers.
    ValueError
        As :func:`beta_linear_exact`; or a cost beyond the limits: about 32 Q d² operations (Q ~ 60
        quadrature nodes) and 48 d² bytes, so d <= about 3400 within 2e10 operations (``limetheory._validation``).

    Examples
    --------
    >>> f_given_s, zf_given_s = conditional_moments_linear_exact([1.0, 1.0], [1.0, 1.0])
    >>> (f_given_s.round(12) + 0.0).tolist(), (zf_given_s.round(12) + 0.0).tolist()
    ([1.0, 0.0], [[0.5, 0.5], [0.0, 0.0]])

    Notes
    -----
    With :math:`\omega = t^2 / \sum t^2` (t = ``tfidf``), :math:`x_k(u) = e^{-u \omega_k}` and
    :math:`w = \lambda \phi(\xi)`,

    .. math::

       \mathbb{E}[z_k f \mid s] = \frac{1}{\sqrt{\pi}} \int u^{-1/2}\,
       \mathbb{E}\Bigl[z_k W(K) \prod_K x(u) \Bigm\vert s\Bigr]\, du, \qquad W(K) = \sum_{i \in K} w_i.

    The
    inner means are normalised ESPs: one forward recursion over the words for the means over all sets of each
    size, and a two-sided leave-one-out recursion for the sets containing k (module docstring); O(d²) per
    node, O(d² Q) in all with Q ~ 60 nodes of :func:`inverse_sqrt_quadrature`.
    """
    lam, tfidf = _check_linear_model(lam, tfidf)
    d = tfidf.size
    sq = tfidf**2
    total = sq.sum()
    omega = sq / total
    w = lam * tfidf / np.sqrt(total)  # lam_j phi(xi)_j
    nodes, weights = inverse_sqrt_quadrature(float(omega[omega > 0].min()))
    what = f"the exact moments of a linear model at d = {d} ({nodes.size} quadrature nodes)"
    check_memory(8.0 * (6 * d * d + 8 * _BLOCK_ENTRIES), what, "the cost grows as d^2")
    check_work(_FLOPS_PER_NODE_PAIR * nodes.size * d * d, what, "the cost grows as d^2 (about 0.65 s at d = 1000)")
    f_by_size = np.zeros(d)  # index a: E[f | a words kept], a = 0..d-1
    loo = np.zeros((d - 1, d))  # index a: E[z_k W(K) r_K^{-1/2} | K contains k] over the (a+1)-sets K
    block = max(1, _BLOCK_ENTRIES // d)
    for start in range(0, nodes.size, block):
        u, q = nodes[start : start + block], weights[start : start + block]
        with np.errstate(under="ignore"):
            x = np.exp(-np.outer(u, omega))  # (B, d), in [0, 1]
            P, Pw = _full_means(x, w)
            f_by_size += q @ Pw
            loo += _leave_one_out_sums(x, u, omega, w, P, Pw, q)
    removed = np.arange(1, d + 1)
    f_given_s = np.zeros(d)
    f_given_s[: d - 1] = f_by_size[d - removed[: d - 1]]
    zf_given_s = np.zeros((d, d))
    # P(k kept | s) = (d - s)/d times the mean over the kept sets that contain k, which have a = d - s - 1 others
    zf_given_s[: d - 1] = ((d - removed[: d - 1]) / d)[:, None] * loo[::-1]
    return f_given_s, zf_given_s


@bandwidth_keyword
def gamma_linear_exact(lam, tfidf, *, nu):
    r""":math:`\Gamma^f = (\mathbb{E}[\pi f], \mathbb{E}[\pi z_1 f], \ldots, \mathbb{E}[\pi z_d f])` for
    :math:`f(\phi(x)) = \sum_j \lambda_j \phi(x)_j`, exactly.

    Parameters
    ----------
    lam : array_like, shape (d,)
        The coefficients of the linear model on the TF-IDF coordinates of the local words.
    tfidf : array_like, shape (d,)
        ``tfidf[j] = m_j v_j`` >= 0, the unnormalised TF-IDF weight of word j in the document; 0 for a word
        the model cannot see (its phi is always 0; it still counts among the d words LIME removes).  At least
        one entry must be positive; only ratios matter (phi is scale-invariant).
    nu : float
        Bandwidth > 0 or ``np.inf``.

    Returns
    -------
    ndarray, shape (d + 1,)
        Index 0 is :math:`\mathbb{E}[\pi f]`, index 1 + k is :math:`\mathbb{E}[\pi z_k f]`.  Relative accuracy
        about 1e-12.  Entries below the double range (α₀ < 1e-308, tiny ν) are returned as 0.0 with a
        RuntimeWarning; a float64 Γ is then useless, and so it is at small ν for
        :func:`limetheory.explanation.beta_from_gamma` (ill-conditioned Σ): use :func:`beta_linear_exact` for β.

    Notes
    -----
    :math:`\Gamma^f = \alpha_0 (\mathbb{E}_m[F_s], \mathbb{E}_m[\mathbb{E}[z_k f \mid s]])`, where
    :math:`\mathbb{E}_m` averages over the law m_s of the number s of removed words tilted by the kernel
    (:func:`limetheory.law.weighted_law`; :math:`\alpha_0 = \mathbb{E}[\pi]`) and the
    conditional moments come from :func:`conditional_moments_linear_exact`.  Cost O(d² Q).

    Examples
    --------
    >>> (gamma_linear_exact([1.0, 0.0], [1.0, 1.0], nu=np.inf).round(12) + 0.0).tolist()
    [0.25, 0.25, 0.0]
    """
    nu = check_nu(nu)
    f_given_s, zf_given_s = conditional_moments_linear_exact(lam, tfidf)
    d = f_given_s.size
    law = weighted_law(d, nu)
    mantissa = np.concatenate([[float(law.m @ f_given_s)], law.m @ zf_given_s])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # replaced by the message below
        gamma = times_exp(mantissa, law.log_alpha0, "Gamma^f", d, nu)
    if ((mantissa != 0) & (np.abs(gamma) < np.finfo(float).tiny)).any():
        warnings.warn(
            f"Gamma^f is of the order of alpha_0 = exp({law.log_alpha0:.6g}), below the double range at d = {d}, "
            f"nu = {nu}: its entries are returned as 0.0 or subnormal; beta_linear_exact does not need Gamma",
            RuntimeWarning,
            stacklevel=2,
        )
    return gamma


@bandwidth_keyword
def beta_linear_exact(lam, tfidf, *, nu):
    r"""Exact :math:`\beta^f = \Sigma^{-1} \Gamma^f` for the linear model
    :math:`f(\phi(x)) = \sum_j \lambda_j \phi(x)_j`.

    φ(x) is the L2-normalised TF-IDF of the perturbed document: for a mask z and t = ``tfidf``,
    :math:`\phi(x)_j = z_j t_j / \sqrt{\sum_k z_k t_k^2}` (and 0 when no word with :math:`t_j > 0` is kept).
    Unlike the paper's approximation :math:`\beta_j \approx 1.36\, \lambda_j \phi(\xi)_j` (ν = ∞, large d,
    Jensen's inequality), this is exact for every d and every bandwidth, including small ν where Σ is
    numerically singular: no Σ and no Γ is formed.

    Parameters
    ----------
    lam : array_like, shape (d,)
        Coefficients of the linear model, one per word of the local dictionary.
    tfidf : array_like, shape (d,)
        Unnormalised TF-IDF weights m_j v_j >= 0 of the words in the document (0 for a word the model
        cannot see), not all 0; positive entries may span at most a factor 1e100.
    nu : float
        Bandwidth > 0 or ``np.inf``.

    Returns
    -------
    ndarray, shape (d + 1,)
        Index 0 is the intercept, index 1 + j the coefficient of word j; accurate to about 1e-12 relative to
        max |lam| at every bandwidth.  Limits (O(d²) per quadrature node): d <= about 3400, as
        :func:`conditional_moments_linear_exact`.

    Examples
    --------
    >>> (beta_linear_exact([1.0, 0.0], [1.0, 1.0], nu=np.inf).round(6) + 0.0).tolist()
    [0.0, 1.0, 0.0]

    Notes
    -----
    The conditional moments E[f | s] and E[z_k f | s] (:func:`conditional_moments_linear_exact`, O(d² Q), no
    kernel) are combined by :func:`limetheory.explanation.beta_from_conditional_moments`, which applies the kernel
    through the tilted law of s in its within/between form.

    See Also
    --------
    gamma_linear_exact : the vector Γᶠ (for other uses; β does not go through it).
    """
    nu = check_nu(nu)
    f_given_s, zf_given_s = conditional_moments_linear_exact(lam, tfidf)
    return beta_from_conditional_moments(f_given_s, zf_given_s, nu=nu)
