r"""The exact explanation of a linear model of the (normalised) TF-IDF, at any bandwidth.

The model is :math:`f(\phi(x)) = \sum_c \lambda_c \phi(x)_c` over the vectorizer's columns c.  Word j of the
local dictionary (lime's distinct tokens) adds :math:`t_j = m_j v_j` to its column when it is kept (several
words may share a column: lime keeps "The" and "the" apart, a lower-casing vectorizer counts both in the
column "the"), so for a mask z (kept set K) the column holds :math:`\sum_{j \in c} z_j t_j`.  With the L2 norm,
:math:`f = W(K) / \sqrt{R_K}` where :math:`W(K) = \sum_{j \in K} \lambda_j t_j` (λ_j the coefficient of the
word's column) and :math:`R_K = \sum_c (\sum_{j \in c \cap K} t_j)^2` (f = 0 when no visible word is kept).
The paper calls :math:`\mathbb{E}[\pi z_k \phi_j]` intractable and approximates it (Jensen's inequality,
then ν = d = ∞).  It is tractable:

1. given the number s of removed words, the kept set K is uniform among the sets of size m = d - s,
   so the conditional moments :math:`F_s = \mathbb{E}[f \mid s]` and :math:`\mathbb{E}[z_k f \mid s]` do not
   involve the kernel at all;
2. :math:`r^{-p} = \frac{1}{\Gamma(p)} \int_0^\infty u^{p-1} e^{-u r}\, du` (p = 1/2 for the L2 norm, p = 1
   for the L1 norm, whose :math:`R_K = \sum_{j \in K} t_j` is linear) turns :math:`R_K^{-p}` into an integral
   of :math:`e^{-u R_K} = \prod_c e^{-u (\sum_{j \in c \cap K} t_j)^2}`, a product over the columns: a
   column of one word contributes :math:`x_j = e^{-u \omega_j}`, :math:`\omega = t^2 / R_{\mathrm{all}}`, and a
   column of several words a polynomial of degree (its size) in the generating variable, with one term per
   subset of its words; means over the sets of a given size of such products (and of :math:`W(K)` times them)
   are normalised elementary symmetric polynomials (ESPs);
3. one forward recursion over the words (the shared columns multiplied in last, as polynomials) gives these
   means for every size (hence every F_s); the leave-one-out means (sets avoiding word k), which give every
   E[z_k f | s], follow for the words alone in their column by running the identity
   :math:`\mathrm{mean}_a(\mathrm{all}) = (1 - a/d)\, \mathrm{mean}_a(\text{without } k)
   + (a/d)\, x_k\, \mathrm{mean}_{a-1}(\text{without } k)` upwards in a while the sets containing k
   carry at most half of :math:`\mathrm{mean}_a(\mathrm{all})`, and downwards from a = d - 1
   (where the mean is one product) above that point.  The share of the sets containing k increases with a
   (Newton's inequalities), so each step subtracts at most half of the value it starts from and divides
   the error it inherits by a factor >= 1: errors grow at most linearly in d.  This recursion depends on the
   word only through :math:`x_k` and is affine in its :math:`w_k`, so it runs once per distinct weight
   (documents of real text have few: 672 among 9938 words of the joined Yelp reviews), with two outputs (the
   value at :math:`w_k = 0` and the slope in :math:`w_k`).  A shared column's words use the means over the
   sets that avoid the whole column, products of all the other columns (prefix and suffix products).

4. β needs only three weighted sums over the sizes (of F_s twice, of E[z_k f | s] once), so from
   ``MIXTURE_MIN_WORDS`` words on it skips the means of each size: keeping every word independently with
   probability p makes the mean of :math:`\prod_K x` over the kept sets the product
   :math:`\prod_j (1 - p + p x_j)` (d operations, or one per distinct weight), and LIME's size weights, a smooth
   function of :math:`\sqrt{m/d}`, are a mixture of such binomial laws, :math:`\int_0^1 b(m; d, p) g(p)\, dp`, on
   the sizes m >= 64 (:mod:`limetheory.theory.sizemixture`: a polynomial g of degree about 128 at d = 10⁴, its residual
   checked on every size).  The sizes below 64 get the remainder exactly (the recursions of step 3, truncated),
   the quadrature nodes whose means over the kept sets of every size from 256 on are negligible (below 1e-250) keep
   the recursions (truncated there, they cost 256 d), and the sizes that a weighted sum leaves out but the fit
   continues to are subtracted in closed form: m = d (lime draws s >= 1, so every word kept never occurs) and, for
   the two sums of F_s, m = d - 1 (β takes F_1 in closed form).  The rule over p is checked at run time against a
   finer one (``MIXTURE_RULE_TOL``).  A shared column is one factor of the product,
   a sum over the subsets of its words.  Where the mixture does not apply (very small bandwidths, where LIME's
   weights sit on a few sizes) β comes from the recursions.

The forward recursion costs O(d²) per quadrature node; the leave-one-out recursion O(d K) with K distinct
weights; the mixture O(d) per node for the truncated recursions plus O(K √d) for the integral over p.
The u-integral is a trapezoidal rule after the substitution u = exp(v - exp(-v)), with relative error below
about 1e-13 uniformly in r in [r_min, 1] (see :func:`inverse_sqrt_quadrature`).  The kernel enters only
afterwards, through the tilted law of s, without forming Σ or Γ
(:func:`limetheory.theory.explanation.beta_from_conditional_moments` does the same from the moments for every s), so β
stays exact where Σ is numerically singular (small ν, small d); :func:`gamma_linear_exact` forms Γᶠ from the same
moments. Without a norm (``norm=None``) f is linear in the mask and β is its coefficients.
"""

from __future__ import annotations

import functools
import math
import numbers
import warnings
from dataclasses import dataclass

import numpy as np

from .._validation import check_linear_arrays, check_linear_model, check_memory, check_nu, check_work
from ..units import bandwidth_keyword
from .law import kept_size_weights, times_exp, weighted_law
from .sizemixture import fit_size_weights, gauss_legendre_unit

__all__ = [
    "beta_linear_exact",
    "conditional_moments_linear_exact",
    "gamma_linear_exact",
    "inverse_sqrt_quadrature",
]

#: step of the trapezoidal rule in the variable v (u = exp(v - exp(-v)))
QUADRATURE_STEP = 0.3
#: the step for 1/r (the L1 norm), whose integrand is less smooth in v: 0.3 leaves 3e-13, 0.25 below 1e-15
L1_QUADRATURE_STEP = 0.25
#: left end of the rule in v: the neglected part of the integral is below exp(-45)
QUADRATURE_LEFT = -4.5
#: the rule extends to u = QUADRATURE_RIGHT / r_min, where exp(-u r) <= exp(-45) for every r >= r_min
QUADRATURE_RIGHT = 45.0
#: smallest allowed ratio between the smallest positive and the largest TF-IDF weight
MIN_WEIGHT_RATIO = 1e-100
#: the row norms of a TfidfVectorizer that the exact route handles (its ``norm`` parameter)
NORMS = ("l2", "l1", None)
#: most visible words that may share one column: the column's factor sums over all subsets of its words (2ᵉ)
MAX_SHARED_WORDS = 12
#: memory budget (in float64 entries) of one (nodes x words) work array; nodes are processed in blocks
_BLOCK_ENTRIES = 1 << 20
#: largest table of hypergeometric weights kept in the cache (256 tables of at most 32 KiB)
_CACHED_WEIGHT_ENTRIES = 4096
#: the upward leave-one-out step is used while the sets containing the word carry at most this share of the mean
_UPWARD_SHARE = 0.5
#: a mean below this (means are at most 1) contributes nothing to the quadrature sums: the rule's weights are
#: below about 1e102 d (u <= 45 / r_min, r_min >= 1e-200 / d), so every neglected term is below 1e-140 |lam|
#: for d <= 1e4, far below the 1e-13 |lam| of the quadrature; and under it the means have lost digits (they
#: are subnormal at 1e-308), so the recursions must not divide by them
_NEGLIGIBLE_MEAN = 1e-250
#: cost units of the package's work limit (2e10 for about ten seconds) per quadrature node and per pair of
#: words of the forward recursion: 7.5 s for 80 nodes at d = 9938 on one core of the 2-core machine is 1.9
_FLOPS_FORWARD = 3
#: the same per node, per size and per distinct weight of the leave-one-out recursion (5 s, 672 weights: 19)
_FLOPS_LEAVE_ONE_OUT = 24
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
#: the size mixture is accepted when β from the two rules in p agrees to this, relative to max |w_j| (the
#: accuracy the route promises); measured: rounding only, 2e-15 at d = 1600 with random weights and 2e-16 of
#: max |lam| on the joined reviews up to d = 9938.  Otherwise the recursions answer.
MIXTURE_RULE_TOL = 1e-12
#: tests set this to a rule size too small for the integrand, to see the check refuse it
_FORCED_RULE = None


def _inverse_power_quadrature(r_min, power):
    """Nodes and positive weights with sum_q w_q exp(-u_q r) = r^(-power) on [r_min, 1] (power 1/2 or 1)."""
    h = QUADRATURE_STEP if power == 0.5 else L1_QUADRATURE_STEP
    return _quadrature_rule(power, int(np.ceil(np.log(QUADRATURE_RIGHT / r_min) / h)))


@functools.lru_cache(maxsize=256)
def _quadrature_rule(power, last):
    """The quadrature rule on the grid v = k h, k = ceil(QUADRATURE_LEFT / h)..last.

    r_min enters only through ``last``, so documents share rules (cached: the exponentials cost as much as the
    rest of a call at small d).  The arrays are read-only, since every caller gets the same ones.
    """
    h = QUADRATURE_STEP if power == 0.5 else L1_QUADRATURE_STEP
    v = np.arange(np.ceil(QUADRATURE_LEFT / h), last + 1) * h
    g = v - np.exp(-v)
    nodes = np.exp(g)
    gamma_of_power = np.sqrt(np.pi) if power == 0.5 else math.gamma(power)
    weights = h * np.exp(power * g) * (1 + np.exp(-v)) / gamma_of_power
    nodes.flags.writeable = False
    weights.flags.writeable = False
    return nodes, weights


def inverse_sqrt_quadrature(r_min):
    r"""Nodes and weights with :math:`\sum_q w_q e^{-u_q r} = r^{-1/2}` on [r_min, 1], to ~1e-13 relative.

    The integral :math:`r^{-1/2} = \frac{1}{\sqrt{\pi}} \int_0^\infty u^{-1/2} e^{-u r}\, du` is discretised
    by the trapezoidal rule with step ``QUADRATURE_STEP`` in v, where :math:`u = e^{v - e^{-v}}`; the substitution
    makes the integrand decay double-exponentially as v → -∞ (where u → 0) and as v → +∞ (where u r → ∞).
    Every weight is positive, so the same rule integrates any positive mixture of :math:`e^{-u R}` with
    R in [r_min, 1] to the same relative accuracy.  (The L1 norm uses the same rule for
    :math:`r^{-1} = \int_0^\infty e^{-u r}\, du`, with weights :math:`h\, u (1 + e^{-v})`.)

    Parameters
    ----------
    r_min : float
        Smallest value of r the rule must serve, in (0, 1].

    Returns
    -------
    nodes, weights : ndarray, ndarray
        Both of shape (Q,), Q about (ln(45 / r_min) + 4.5) / 0.3.
    """
    return _inverse_power_quadrature(_check_r_min(r_min), 0.5)


def _check_r_min(r_min):
    if isinstance(r_min, (bool, np.bool_)) or not isinstance(r_min, numbers.Real):
        raise TypeError(f"r_min must be a real number in (0, 1], got {r_min!r}")
    r_min = float(r_min)
    if not (0 < r_min <= 1):
        raise ValueError(f"r_min must lie in (0, 1], got {r_min}")
    if r_min < MIN_WEIGHT_RATIO**2:
        raise ValueError(f"r_min must be >= {MIN_WEIGHT_RATIO**2:g}, got {r_min}")
    return r_min


# ----------------------------------------------------------------------------- the model and its columns


@dataclass(frozen=True)
class _Model:
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


def _check_norm(norm):
    if norm is not None and not isinstance(norm, str):
        raise TypeError(f"norm must be 'l2', 'l1' or None (a TfidfVectorizer's norm), got {norm!r}")
    if norm not in NORMS:
        raise ValueError(f"norm must be 'l2', 'l1' or None (a TfidfVectorizer's norm), got {norm!r}")
    return norm


def _check_groups(groups, lam, tfidf):
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
    starts = np.flatnonzero(np.r_[True, sorted_labels[1:] != sorted_labels[:-1]])
    ends = np.r_[starts[1:], sorted_labels.size]
    shared = []
    for start, end in zip(starts, ends, strict=True):
        if end - start < 2:
            continue
        members = np.sort(seen[order[start:end]])
        if not (lam[members] == lam[members[0]]).all():
            raise ValueError(
                f"lam must be equal within a column (it is the coefficient of the column): words "
                f"{members.tolist()} share column {sorted_labels[start]} but have lam {lam[members].tolist()}"
            )
        if members.size > MAX_SHARED_WORDS:
            raise ValueError(
                f"groups: at most {MAX_SHARED_WORDS} visible words may share a column (the exact route sums over "
                f"the subsets of each column's words), got {members.size} in column {sorted_labels[start]}"
            )
        shared.append(members)
    shared.sort(key=lambda members: members[0])
    return tuple(shared)


def _model(lam, tfidf, groups, norm):
    """Check the arguments of a normalised route and return its :class:`_Model`."""
    lam, t = check_linear_model(lam, tfidf)  # t = tfidf / max(tfidf): f does not depend on the scale
    positive = t[t > 0]
    if positive.min() < MIN_WEIGHT_RATIO:
        raise ValueError(
            f"the positive tfidf weights must span at most a factor 1/{MIN_WEIGHT_RATIO:g}, "
            f"got a smallest/largest ratio of {positive.min():.3g}"
        )
    shared = _check_groups(groups, lam, t) if norm == "l2" else ()
    if norm == "l1":  # R(K) = sum of t over K: linear, so shared columns change nothing
        _check_groups(groups, lam, t)
    d = t.size
    in_shared = np.zeros(d, dtype=bool)
    for members in shared:
        in_shared[members] = True
    singles = np.flatnonzero(~in_shared)
    if norm == "l2":
        column_totals = np.concatenate([t[singles] ** 2, [t[members].sum() ** 2 for members in shared]])
        scale = column_totals.sum()
        power, omega, w = 0.5, t**2 / scale, lam * t / np.sqrt(scale)
    else:
        column_totals = t.copy()
        scale = column_totals.sum()
        power, omega, w = 1.0, t / scale, lam * t / scale
    column_totals = column_totals / scale
    # R of all words but a single word j: the sum of the other columns' totals, from both sides
    prefix = np.concatenate([[0.0], np.cumsum(column_totals[:-1])])
    suffix = np.concatenate([np.cumsum(column_totals[::-1][:-1])[::-1], [0.0]])
    scaled_t = t / np.sqrt(scale) if norm == "l2" else t / scale
    rest = np.zeros(d)
    rest[singles] = (prefix + suffix)[: singles.size]
    for members, others in zip(shared, (prefix + suffix)[singles.size :], strict=True):  # the column without j
        rest[members] = others + (scaled_t[members].sum() - scaled_t[members]) ** 2
    return _Model(d, power, scaled_t, omega, w, singles, shared, rest, float(omega[omega > 0].min()))


# ----------------------------------------------------------------------------- means over the sets of each size


def _full_means(x, w, top=None):
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


def _hypergeometric_weights(n, e, width=None):
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


def _times_column(P, Pw, G, Gw, weights, width=None):
    """Means over n + e words from the means over n words (P, Pw) and over a column of e words (G, Gw).

    ``weights`` is :func:`_hypergeometric_weights` (n, e).  W adds up over the two parts:
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


def _subsets(e):
    """Every subset of range(e) as a 0/1 matrix (2^e, e), and its size."""
    masks = (np.arange(2**e)[:, None] >> np.arange(e)) & 1
    return masks.astype(float), masks.sum(axis=1)


def _column_means(u, t_members, w_members):
    """Means over the k-subsets A of a column's words of exp(-u R_A) and of W(A) exp(-u R_A), k = 0..e.

    R_A = (sum_A t)^2; returns G, Gw of shape (B, e + 1), and the per-subset factors for the members' moments.
    """
    e = t_members.size
    masks, sizes = _subsets(e)
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


def _leave_one_out_sums(x, u, rest, w_total, d, P, Pw, weights, tops, truncated=False):
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
    are negligible at node q (means below ``_NEGLIGIBLE_MEAN``; :func:`_negligible_sizes`): the nodes are in
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


# ----------------------------------------------------------------------------- the moments, for every s


@dataclass(frozen=True)
class _Moments:
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
        """E[z_k f | s] as the (d, d) array of :func:`conditional_moments_linear_exact`."""
        d = self.w.size
        loo = np.zeros((d - 1, d))
        loo[:, self.singles] = self.out0[:, self.class_of] + self.slope[:, self.class_of] * self.w[self.singles]
        loo[:, self.member_words] = self.member_loo
        removed = np.arange(1, d)
        zf_given_s = np.zeros((d, d))
        zf_given_s[: d - 1] = ((d - removed) / d)[:, None] * loo[::-1]
        return zf_given_s


def _linear_moments(lam, t):
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
    return _Moments(f_given_s, np.arange(d), np.zeros(d, dtype=np.int64), out0, slope, zero, np.zeros((d - 1, 0)), v)


def _moments(model, select=None, truncate=False):
    """The quadrature over u of the means of every size (module docstring), in blocks of nodes.

    ``select`` (a boolean mask over the quadrature nodes) restricts the sums to some nodes: the size mixture
    computes the others its own way.  ``truncate`` drops the sizes above the selected nodes' largest top (all
    negligible there) from the shared columns' products too, which then cost that top instead of d.
    """
    d, singles, shared = model.d, model.singles, model.shared
    sizes = [members.size for members in shared]
    distinct, class_of = np.unique(model.omega[singles], return_inverse=True)
    nodes, weights = _inverse_power_quadrature(model.r_min, model.power)
    tops = _negligible_sizes(model, nodes)
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
        _FLOPS_FORWARD * d * top
        + _FLOPS_LEAVE_ONE_OUT * span * distinct.size
        + 6 * span * products
        + 4 * span * sum(e * e for e in sizes)
    )
    what = f"the exact moments of a linear model at d = {d} ({nodes.size} quadrature nodes)"
    # truncated, a node's arrays are short and its cost is Python steps per column: larger blocks (64 MB)
    budget = _BLOCK_ENTRIES if width is None else 8 * _BLOCK_ENTRIES
    block = max(1, min(budget // (span * (2 + 2 * len(shared))), nodes.size))
    blocks = _node_blocks(nodes.size, block)
    check_memory(8.0 * (d * (2 * distinct.size + 3) + 6 * block * (2 * d + span * len(shared))), what, "too many words")
    check_work(flops, what, f"the cost grows as d^2 ({len(shared)} shared columns, {distinct.size} distinct weights)")
    column_weights = _column_weights(model, width)
    member_words = np.concatenate(shared) if shared else np.zeros(0, dtype=np.int64)
    f_by_size = np.zeros(d)  # index a: E[f | a words kept], a = 0..d-1
    out0 = np.zeros((d - 1, distinct.size))
    slope = np.zeros((d - 1, distinct.size))
    member_loo = np.zeros((d - 1, member_words.size))
    for start, stop in blocks:
        block_width = None if width is None else min(width, int(tops[start]) + 1)  # tops fall along the nodes
        sums = _node_sums(model, nodes[start:stop], weights[start:stop], tops[start:stop], column_weights, block_width)
        f_by_size[: min(d, sums[0].size)] += sums[0][:d]
        out0[: sums[1].shape[0]] += sums[1]
        slope[: sums[2].shape[0]] += sums[2]
        member_loo[: sums[3].shape[0]] += sums[3]
    removed = np.arange(1, d + 1)
    f_given_s = np.zeros(d)
    f_given_s[: d - 1] = f_by_size[d - removed[: d - 1]]
    return _Moments(f_given_s, singles, class_of, out0, slope, member_words, member_loo, model.w)


def _column_weights(model, width=None):
    """The hypergeometric weights of every product of means that the shared columns need (all nodes share them).

    forward[i] merges column i into the words before it, suffix[i] column i + 1 into the columns after it,
    combine[i] the words before column i with the columns after it, member[i] the rest of a set containing a
    member of column i with the part of the set inside it.  ``width``: only the sizes below it.
    """
    singles, sizes = model.singles.size, [members.size for members in model.shared]
    forward, n = [], singles
    for e in sizes:
        forward.append(_hypergeometric_weights(n, e, width))
        n += e
    after = [sum(sizes[i + 1 :]) for i in range(len(sizes))]
    suffix = [_hypergeometric_weights(after[i + 1], sizes[i + 1], width) for i in range(len(sizes) - 1)]
    before = [singles + sum(sizes[:i]) for i in range(len(sizes))]
    combine = [_hypergeometric_weights(before[i], after[i], width) for i in range(len(sizes))]
    member = [_hypergeometric_weights(model.d - e, e - 1, width) for e in sizes]
    return forward, suffix, combine, member


def _node_sums(model, u, q, tops, column_weights, width=None, truncated=False):
    """The sums over the nodes u (weights q) of the means of every size, for the words and the shared columns.

    Returns (f_by_size, out0, slope, member_loo): the sum of q W exp(-u R) over the a-sets for each a, the
    leave-one-out sums of the words alone in their column (per distinct weight, :func:`_leave_one_out_sums`)
    and those of the shared columns' words (:func:`_shared_column_sums`).  With ``width``, only the sets of fewer
    than ``width`` words are summed: either because the larger ones are negligible at these nodes (``width`` >
    ``tops``), or, with ``truncated`` (the size mixture's small sizes), because they are summed elsewhere: the
    words' sums are then None if some word needs the downward pass below ``width``.
    """
    d, singles, shared = model.d, model.singles, model.shared
    distinct, first = np.unique(model.omega[singles], return_index=True)
    forward, suffix, combine, member = column_weights
    top = width if truncated else int(tops[0])
    with np.errstate(under="ignore"):
        P, Pw = _full_means(np.exp(-np.outer(u, model.omega[singles])), model.w[singles], top)
        if width is not None:
            P, Pw = P[:, :width], Pw[:, :width]
        prefixes, columns = [(P, Pw)], []
        for members, h in zip(shared, forward, strict=True):
            columns.append(_column_means(u, model.t[members], model.w[members]))
            P, Pw = _times_column(P, Pw, columns[-1][0], columns[-1][1], h, width)
            prefixes.append((P, Pw))
        f_by_size = q @ Pw
        out0 = slope = np.zeros((0, distinct.size))
        if distinct.size:
            x = np.exp(-np.outer(u, distinct))
            rest, w_total = model.rest[singles[first]], float(model.w.sum())
            if not truncated:
                out0, slope = _leave_one_out_sums(x, u, rest, w_total, d, P, Pw, q, tops)
            else:
                sums = _leave_one_out_sums(x, u, rest, w_total, d, P, Pw, q, np.full(u.size, width - 1), True)
                out0, slope = (None, None) if sums is None else sums
        member_loo = np.zeros((d - 1, 0))
        if shared:
            member_loo = _shared_column_sums(u, q, d, shared, columns, prefixes, suffix, combine, member, width)
    return f_by_size, out0, slope, member_loo


def _negligible_sizes(model, nodes):
    """For each node, the smallest size a whose means are all below ``_NEGLIGIBLE_MEAN`` (d + 1 if none).

    Every a-set has R >= the sum of the a smallest omega (a shared column only adds cross terms), so its
    exp(-u R) is below exp(-u R_min(a)); sizes with u R_min(a) > -log(_NEGLIGIBLE_MEAN) are negligible.
    """
    lightest = np.concatenate([[0.0], np.cumsum(np.sort(model.omega))])  # R_min(a), a = 0..d
    return np.searchsorted(lightest, -np.log(_NEGLIGIBLE_MEAN) / nodes, side="right").clip(max=model.d + 1)


def _node_blocks(n_nodes, block):
    """Consecutive nodes in blocks of at most ``block`` (the memory budget): one block whenever the nodes fit.

    Each block costs one Python loop over the words and one over the sizes, whatever its number of nodes; the
    negligible sizes of its later nodes (``tops``) are skipped inside the loops (the leave-one-out passes work on
    the nodes that need a size, the forward recursion stops at the block's first node's), so cutting a block
    where ``tops`` falls saves little arithmetic and costs a loop: 2.5 times slower at d = 29, 1.6 at d = 537.
    """
    return [(start, min(start + block, n_nodes)) for start in range(0, n_nodes, block)]


def _shared_column_sums(u, q, d, shared, columns, prefixes, suffix_weights, combine_weights, member_weights,
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
            suffix[i] = _times_column(suffix[i + 1][0], suffix[i + 1][1], G, Gw, suffix_weights[i], width)
        for i, pair in enumerate(others):
            if pair is None:
                P, Pw = prefixes[i]
                others[i] = _times_column(P, Pw, suffix[i][0], suffix[i][1], combine_weights[i], width)
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

    The means over all words are those over the others times the column's (:func:`_times_column`):
    full_m = sum_k H[k, m - k] G_k M_{m-k}, with G_0 = 1 (the empty part of the column), so M is solved upwards,
    M_m = (full_m - sum_{k>=1} ...) / H[0, m], for every column of e words at once (width steps, where the
    prefix x suffix products cost width² per column).  All subtracted terms are >= 0 and, as in the words'
    upward pass (:func:`_leave_one_out_sums`), while they stay at most half of full_m each step adds a rounding
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
            H = _hypergeometric_weights(d - e, e, width)
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


# ----------------------------------------------------------------------------- the size mixture (large d)


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
    centred = -(removed - 1) / d - law.tau * float(np.dot(law.w_hat, law.u))  # _centred, extended to s = 0, 1
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
    """The integrals over p of g(p) E_p[...] at the nodes u (module docstring, step 4).

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
        masks, sizes = _subsets(e)
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


def _mixture_beta(model, law):
    """β by the size mixture (module docstring, step 4), or None where it does not apply.

    It applies to documents of at least ``MIXTURE_MIN_WORDS`` words and to bandwidths whose weights
    :func:`limetheory.theory.sizemixture.fit_size_weights` can fit (not the smallest ones).  The sums over sizes split
    into: the nodes left to the d² recursion (truncated where negligible); at the other nodes, the mixture over p
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
    nodes, weights = _inverse_power_quadrature(model.r_min, model.power)
    tops = _negligible_sizes(model, nodes)
    every, every_count = np.unique(model.omega, return_counts=True)
    mixed = _mixture_nodes(nodes, tops, every, every_count.astype(float))
    u, q = nodes[mixed], weights[mixed]
    degree = max(mixture.degree for mixture in mixtures)
    subsets = sum(2**members.size * members.size for members in shared)
    points = max(degree + 1, degree / 2 + 3.5 * np.sqrt(d) + 16)
    flops = u.size * (_FLOPS_FORWARD * d * start + _FLOPS_LEAVE_ONE_OUT * start * distinct.size)
    # the rule in p and the finer one that checks it: about 1 + 2 _FINER_RULE times the points of the first
    flops += u.size * points * (1 + 2 * _FINER_RULE) * (40 * distinct.size + 4 * subsets)
    flops += u.size * 6 * start * start * len(shared)
    what = f"the exact moments of a linear model at d = {d} by the size mixture ({u.size} of {nodes.size} nodes)"
    check_memory(8.0 * (6 * u.size * d + 8 * 3 * points * (distinct.size + subsets)), what, "too many words")
    check_work(flops, what, f"the cost grows as d ({distinct.size} distinct weights, {len(shared)} shared columns)")
    # the nodes left to the d² recursion (tops-truncated): every size, true weights
    full = _moments(model, select=~mixed, truncate=True)
    f_centred = float(np.dot(true[0][d - 2 :: -1], full.f_given_s[1:]))  # s = 2..d is m = d - 2..0
    f_hat = float(np.dot(true[1][d - 2 :: -1], full.f_given_s[1:]))
    mean_zf = full.weighted(law.m)
    if u.size:
        small_f, small0, small_slope, small_members = _node_sums(
            model, u, q, tops[mixed], _column_weights(model, start), width=start, truncated=True
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
        for finer in (False, True):  # the rule in p and a finer one: the gap checks the first (module docstring)
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
        if np.abs(betas[1] - betas[0]).max() > MIXTURE_RULE_TOL * np.abs(w).max():
            return None  # the rule in p is not accurate enough here: the recursions answer
        return betas[1]
    return _mixture_assembly(model, law, f_centred, f_hat, mean_zf)


def _mixture_assembly(model, law, f_centred, f_hat, mean_zf):
    """β from the mixture route's sums over s >= 2 (of w_hat c_s F_s and w_hat F_s) and sum_s m_s E[z_k f | s]."""
    rest, w, d = model.rest, model.w, model.d
    # F_1 = E[f | one word removed], in closed form
    with np.errstate(divide="ignore", invalid="ignore"):
        f_first = float(np.where(rest > 0, (float(w.sum()) - w) / rest**model.power, 0.0).sum()) / d
    dot_centred = f_centred - f_first * float(np.dot(law.w_hat, _centred(law)))
    dot_hat = f_hat - f_first * float(law.w_hat.sum())
    return _beta_from_sums(law, f_first, dot_centred, dot_hat, mean_zf)


def _conditional(lam, tfidf, groups, norm):
    """The checked arguments' moments: a :class:`_Moments` for any norm."""
    norm = _check_norm(norm)
    if norm is None:
        lam, t = check_linear_arrays(lam, tfidf)
        _check_groups(groups, lam, t)
        return _linear_moments(lam, t)
    return _moments(_model(lam, tfidf, groups, norm))


def conditional_moments_linear_exact(lam, tfidf, *, groups=None, norm="l2"):
    r"""E[f | s] and E[z_k f | s] for a linear model of the TF-IDF, exactly, for s = 1..d removed words.

    The model is :math:`f = \sum_c \lambda_c \phi(x)_c` over the vectorizer's columns, where column c holds
    :math:`\sum_{j \in c} z_j t_j` (the words of the local dictionary that share it) and φ is the row
    normalised by ``norm``.  The moments do not depend on the bandwidth: given s, LIME's kept set is uniform
    among the sets of d - s words.  :func:`limetheory.theory.explanation.beta_from_conditional_moments` turns them into
    β at any bandwidth.

    Parameters
    ----------
    lam : array_like, shape (d,)
        ``lam[j]``: the model's coefficient of word j's column (equal for words that share a column; any value
        for a word the model cannot see).
    tfidf : array_like, shape (d,)
        ``tfidf[j] = m_j v_j`` >= 0, what word j adds to its column (its count times its column's idf); 0 for
        a word the model cannot see (it still counts among the d words LIME removes).  With a norm, at least
        one entry must be positive, the positive ones may span at most a factor 1e100, and only ratios matter.
    groups : array_like of int, shape (d,), optional
        Column labels: words with the same label share one column (e.g. the column indices from a
        lower-casing vectorizer, where "The" and "the" fall in the column "the").  A negative label means no
        column (the word's tfidf must be 0).  None: every word has a column of its own.  At most 12 visible
        words per column.
    norm : {"l2", "l1", None}
        The vectorizer's row norm (``TfidfVectorizer(norm=...)``).  With "l1" the norm is the sum of the
        kept weights (shared columns change nothing); with None f is linear in the mask.

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
        ``lam``, ``tfidf`` or ``groups`` not arrays of real numbers (integers for ``groups``), ``norm`` not a
        string or None.
    ValueError
        As :func:`beta_linear_exact`; or a cost beyond the limits (``limetheory._validation``): about 3 Q d²
        units for the forward recursion (Q ~ 60 to 80 quadrature nodes) plus 24 Q d K for K distinct weights,
        within 2e10 (about ten seconds: d up to about 7000 for real text), and 24 d² bytes for the d x d result.

    Examples
    --------
    >>> f_given_s, zf_given_s = conditional_moments_linear_exact([1.0, 1.0], [1.0, 1.0])
    >>> (f_given_s.round(12) + 0.0).tolist(), (zf_given_s.round(12) + 0.0).tolist()
    ([1.0, 0.0], [[0.5, 0.5], [0.0, 0.0]])

    Two words in one column: kept alone, either gives the column its full norm (φ = 1); kept together
    they add up in one column (φ = 1 again), so f = 2 whenever a word is kept:

    >>> f_given_s, _ = conditional_moments_linear_exact([2.0, 2.0], [1.0, 3.0], groups=[0, 0])
    >>> (f_given_s.round(12) + 0.0).tolist()
    [2.0, 0.0]

    Notes
    -----
    With :math:`x_k(u) = e^{-u \omega_k}` and :math:`W(K) = \sum_{i \in K} \lambda_i t_i / \sqrt{R_{\mathrm{all}}}`,

    .. math::

       \mathbb{E}[z_k f \mid s] &= \frac{1}{\sqrt{\pi}} \int u^{-1/2}

       &\quad \times \mathbb{E}\Bigl[z_k W(K) e^{-u R_K / R_{\mathrm{all}}} \Bigm\vert s\Bigr]\, du.

    The inner means are normalised ESPs (module docstring): one forward recursion over the words, a
    two-sided leave-one-out recursion per distinct weight, and products of the other columns for the words of
    a shared column.
    """
    moments = _conditional(lam, tfidf, groups, norm)
    d = moments.w.size
    check_memory(8.0 * 3 * d * d, f"the d x d conditional moments at d = {d}", "beta_linear_exact does not form them")
    return moments.f_given_s, moments.full()


@bandwidth_keyword
def gamma_linear_exact(lam, tfidf, *, nu, groups=None, norm="l2"):
    r""":math:`\Gamma^f = (\mathbb{E}[\pi f], \mathbb{E}[\pi z_1 f], \ldots)` for a linear model of the TF-IDF, exactly.

    Parameters
    ----------
    lam : array_like, shape (d,)
        The model's coefficient of each word's column, as in :func:`conditional_moments_linear_exact`.
    tfidf : array_like, shape (d,)
        ``tfidf[j] = m_j v_j`` >= 0, what word j adds to its column; 0 for a word the model cannot see.
    nu : float
        Bandwidth > 0 or ``np.inf``.
    groups : array_like of int, shape (d,), optional
        Column labels (words with one label share a column); None: one column per word.
    norm : {"l2", "l1", None}
        The vectorizer's row norm.

    Returns
    -------
    ndarray, shape (d + 1,)
        Index 0 is :math:`\mathbb{E}[\pi f]`, index 1 + k is :math:`\mathbb{E}[\pi z_k f]`.  Relative accuracy
        about 1e-12.  Entries below the double range (α₀ < 1e-308, tiny ν) are returned as 0.0 with a
        RuntimeWarning; a float64 Γ is then useless, and so it is at small ν for
        :func:`limetheory.theory.explanation.beta_from_gamma` (ill-conditioned Σ): use :func:`beta_linear_exact` for β.

    Raises
    ------
    TypeError, ValueError
        As :func:`conditional_moments_linear_exact`; ``nu`` not a bandwidth.

    Notes
    -----
    :math:`\Gamma^f = \alpha_0 (\mathbb{E}_m[F_s], \mathbb{E}_m[\mathbb{E}[z_k f \mid s]])`, where
    :math:`\mathbb{E}_m` averages over the law m_s of the number s of removed words tilted by the kernel
    (:func:`limetheory.theory.law.weighted_law`; :math:`\alpha_0 = \mathbb{E}[\pi]`) and the
    conditional moments come from :func:`conditional_moments_linear_exact` (never as a d x d array).

    Examples
    --------
    >>> (gamma_linear_exact([1.0, 0.0], [1.0, 1.0], nu=np.inf).round(12) + 0.0).tolist()
    [0.25, 0.25, 0.0]
    """
    nu = check_nu(nu)
    moments = _conditional(lam, tfidf, groups, norm)
    d = moments.w.size
    law = weighted_law(d, nu)
    mantissa = np.concatenate([[float(law.m @ moments.f_given_s)], moments.weighted(law.m)])
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


def _beta_from_weighted_moments(law, f_given_s, mean_zf):
    """β from E[f | s] (every s) and sum_s m_s E[z_k f | s], in the within/between form.

    The same assembly as :func:`limetheory.theory.explanation.beta_from_conditional_moments` (its module docstring),
    which takes the d x d moments; here their weighted sum over s comes in directly (tests check that both agree).
    Within: sum_s m_s Cov(z_k, f | s) = mean_zf_k - sum_s m_s a_s F_s, centred over k (it sums to 0), so the
    second term cancels; between: the regression of F_s on a_s under m, from the gaps F_s - F_1.
    """
    gaps = f_given_s[1:] - f_given_s[0]
    with np.errstate(over="ignore", invalid="ignore"):
        dot_centred = float(np.dot(law.w_hat * _centred(law), gaps))
        dot_hat = float(np.dot(law.w_hat, gaps))
    return _beta_from_sums(law, f_given_s[0], dot_centred, dot_hat, mean_zf)


def _centred(law):
    """a_s - E[a] over the tilted law, divided by nothing: u_s - tau sum w_hat u, for s = 2..d (extended by u)."""
    return law.u - law.tau * float(np.dot(law.w_hat, law.u))


def _beta_from_sums(law, f_first, dot_centred, dot_hat, mean_zf):
    """β from F_1, the two sums over s >= 2 of w_hat (F_s - F_1) (times the centred a_s, and alone), and mean_zf."""
    d = law.d
    within = mean_zf - mean_zf.mean()
    with np.errstate(over="ignore", invalid="ignore"):
        slope = dot_centred / law.var_over_tau
        beta = np.empty(d + 1)
        beta[1:] = within / law.bulk_ratio + slope / d
        beta[0] = f_first + law.tau * dot_hat - law.a_mean * slope
    if not np.isfinite(beta).all():
        raise ValueError("beta overflows double precision: the model's values are too large (rescale the model)")
    return beta


@bandwidth_keyword
def beta_linear_exact(lam, tfidf, *, nu, groups=None, norm="l2"):
    r"""Exact :math:`\beta^f = \Sigma^{-1} \Gamma^f` for :math:`f = \sum_c \lambda_c \phi(x)_c` over TF-IDF columns.

    With the L2 norm and one column per word, :math:`\phi(x)_j = z_j t_j / \sqrt{\sum_k z_k t_k^2}` (and 0
    when no word with :math:`t_j > 0` is kept).  Words that share a column (``groups``) add their
    :math:`z_j t_j` in it before the norm; ``norm="l1"`` divides by :math:`\sum_k z_k t_k` instead, and
    ``norm=None`` does not normalise (then f is linear in the mask and β is its coefficients
    :math:`(0, \lambda_j t_j)`).  Unlike the paper's approximation :math:`\beta_j \approx 1.36\, \lambda_j
    \phi(\xi)_j` (ν = ∞, large d, Jensen's inequality), this holds for every d and every bandwidth, exact up to
    the quadrature over u (relative error below 1e-13) and, from 1000 words on, a rule over p checked at run time,
    including small ν where Σ is numerically singular: no Σ and no Γ is formed.  A fitted model's intercept
    adds to β₀ (β is linear in f).

    Parameters
    ----------
    lam : array_like, shape (d,)
        The model's coefficient of each word's column, one per word of the local dictionary (equal for words
        that share a column).
    tfidf : array_like, shape (d,)
        ``tfidf[j] = m_j v_j`` >= 0, what word j adds to its column (0 for a word the model cannot see); with
        a norm, not all 0, and positive entries may span at most a factor 1e100.
    nu : float
        Bandwidth > 0 or ``np.inf`` (ν = kernel_width / 100).
    groups : array_like of int, shape (d,), optional
        Column labels: words with the same label share one column (a negative label: no column, tfidf 0);
        at most 12 visible words per column.  None: one column per word.
    norm : {"l2", "l1", None}
        The vectorizer's row norm (``TfidfVectorizer(norm=...)``, default "l2").

    Returns
    -------
    ndarray, shape (d + 1,)
        Index 0 is the intercept, index 1 + j the coefficient of word j; accurate to about 1e-12 relative to
        max |lam| at every bandwidth.  Cost O(d² Q) for the forward recursion plus O(d K Q) for K distinct
        weights (Q ~ 60 to 80 quadrature nodes) below 1000 words: 0.28 s at d = 900; from 1000 words on, the
        size mixture (module docstring, step 4) costs O(d Q) instead: 0.7 s at d = 9938, where the recursions
        take 12 s (CPU time on one core).

    Raises
    ------
    TypeError, ValueError
        As :func:`conditional_moments_linear_exact`; ``nu`` not a bandwidth.

    Examples
    --------
    >>> (beta_linear_exact([1.0, 0.0], [1.0, 1.0], nu=np.inf).round(6) + 0.0).tolist()
    [0.0, 1.0, 0.0]
    >>> (beta_linear_exact([1.0, -2.0], [1.0, 3.0], nu=0.25, norm=None) + 0.0).tolist()
    [0.0, 1.0, -6.0]

    Notes
    -----
    The conditional moments E[f | s] and E[z_k f | s] (:func:`conditional_moments_linear_exact`, no kernel)
    are combined with the tilted law of s in the within/between form of
    :func:`limetheory.theory.explanation.beta_from_conditional_moments`, from their weighted sums over s (no d x d
    array).

    See Also
    --------
    gamma_linear_exact : the vector Γᶠ (for other uses; β does not go through it).
    """
    nu = check_nu(nu)
    if _check_norm(norm) is None:
        lam, t = check_linear_arrays(lam, tfidf)
        _check_groups(groups, lam, t)
        return np.concatenate([[0.0], lam * t])
    model = _model(lam, tfidf, groups, norm)
    law = weighted_law(model.d, nu)
    beta = _mixture_beta(model, law)
    if beta is not None:
        return beta
    moments = _moments(model)
    return _beta_from_weighted_moments(law, moments.f_given_s, moments.weighted(law.m))
