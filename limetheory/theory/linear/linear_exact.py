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
   ``linear_mixture.MIXTURE_MIN_WORDS`` words on it skips the means of each size: keeping every word independently with
   probability p makes the mean of :math:`\prod_K x` over the kept sets the product
   :math:`\prod_j (1 - p + p x_j)` (d operations, or one per distinct weight), and LIME's size weights, a smooth
   function of :math:`\sqrt{m/d}`, are a mixture of such binomial laws, :math:`\int_0^1 b(m; d, p) g(p)\, dp`, on
   the sizes m >= 64 (:mod:`limetheory.theory.linear.sizemixture`: a polynomial g of degree about 128 at d = 10⁴, its
   residual checked on every size).  The sizes below 64 get the remainder exactly (the recursions of step 3, truncated),
   the quadrature nodes whose means over the kept sets of every size from 256 on are negligible (below 1e-250) keep
   the recursions (truncated there, they cost 256 d), and the sizes that a weighted sum leaves out but the fit
   continues to are subtracted in closed form: m = d (lime draws s >= 1, so every word kept never occurs) and, for
   the two sums of F_s, m = d - 1 (β takes F_1 in closed form).  The rule over p is checked at run time against a
   finer one (``linear_mixture.MIXTURE_RULE_TOL``).  A shared column is one factor of the product,
   a sum over the subsets of its words.  Where the mixture does not apply (very small bandwidths, where LIME's
   weights sit on a few sizes) β comes from the recursions.

Accuracy.  The errors follow the size of f on the kept sets, not the coefficients: the rule over u is accurate to
a relative 1e-13 on each :math:`R_K^{-p}`, hence on each :math:`\lvert f(K) \rvert` (the sizes that the recursions
of ``linear_adjoint`` drop at each node add at most 1e-17 of it: ``linear_adjoint.truncation_limit``), and the
recursions keep the means of :math:`W(K) e^{-u R_K}` to rounding relative to the same means with the absolute weights
in place of w.  Both are
bounded by :math:`\lvert f \rvert(\xi) = \sum_j \lvert \lambda_j \rvert \phi(\xi)_j` up to a factor of order one (|f(K)|
<= √|K| max |λ|, and
:math:`\lvert f \rvert(\xi)` reaches √d max |λ| when the λ share a sign), so the accuracy is stated in that unit:
``BETA_ACCURACY`` for β and ``MOMENTS_ACCURACY`` for the moments, the worst cases that
``benchmarks/linear_exact_accuracy.py`` measures against an exact one-dimensional sum (equal weights, where
f(K) = W(K)/√|K|).  Relative to max |λ| the same errors are up to √d times larger: the unit the docstrings
used before issue 35, which did not hold (1.8e-11 max |λ| at d = 10⁴, ν = 0.05, λ ≡ 1).  Σ's conditioning
amplifies the errors of the moments in β as ν falls: about sixteen-fold from ν = 0.25 to ν = 0.05.

The forward recursion costs O(d²) per quadrature node; the leave-one-out recursion O(d K) with K distinct
weights; the mixture O(d) per node for the truncated recursions plus O(K √d) for the integral over p.
The u-integral is a trapezoidal rule after the substitution u = exp(v - exp(-v)), its nodes below u = 12 replaced by
the 10-node Gauss rule of their weights, with relative error below about 1e-13 uniformly in r in [r_min, 1] (see
:func:`limetheory.theory.linear.linear_quadrature.inverse_sqrt_quadrature`). The kernel enters only afterwards, through
the tilted law of s, without forming Σ or Γ (:func:`limetheory.theory.explanation.beta_from_conditional_moments` does
the same from the moments for every s), so β stays exact where Σ is numerically singular (small ν, small d);
:func:`gamma_linear_exact` forms Γᶠ from the same moments. Without a norm (``norm=None``) f is linear in the mask and β
is its coefficients.

This module holds the public entry points; the steps live in their own modules: the checked model in its scale-free
form (``tfidf_model``), the rule over u (``linear_quadrature``, step 2), the means over the sets of each size
(``subset_means``, step 3), their sums over the nodes for every s and β from them (``linear_moments``), and the
size mixture (``linear_mixture``, step 4), all in ``limetheory.theory``.
"""

from __future__ import annotations

import warnings

import numpy as np

from ..._validation import check_linear_arrays, check_memory, check_nu
from ...units import bandwidth_keyword
from ..law import times_exp, weighted_law
from .linear_adjoint import adjoint_beta
from .linear_mixture import mixture_beta
from .linear_moments import beta_from_weighted_moments, quadrature_moments, unnormalised_moments
from .tfidf_model import check_groups, check_norm, scale_free_model

#: the accuracy of :func:`beta_linear_exact` for ν >= 0.05, as an absolute error in the unit
#: |f|(ξ) = Σ_j |λ_j| φ(ξ)_j (the model with |λ| at ξ: |f(ξ)| when the λ share a sign, at most √d max |λ|).
#: ``benchmarks/linear_exact_accuracy.py`` measured 2.5e-13 at worst (λ ≡ 1 and random ±λ on d = 100 to 10⁴
#: equal weights, ν = 0.05 to ∞, both routes, against an exact one-dimensional sum in mpmath; the worst at
#: λ ≡ 1, d = 100, ν = 0.05); the margin of 2 covers other documents
BETA_ACCURACY = 5e-13
#: the same for :func:`conditional_moments_linear_exact` (every E[f | s] and E[z_k f | s]): 5.6e-14 measured at
#: worst (λ ≡ 1, d = 1000; d = 100 to 3001, where the d x d result is 72 MB)
MOMENTS_ACCURACY = 2e-13

__all__ = [
    "beta_linear_exact",
    "conditional_moments_linear_exact",
    "gamma_linear_exact",
]


def _conditional(lam, tfidf, groups, norm):
    """The checked arguments' moments: a :class:`LeaveOneOutMoments` for any norm."""
    norm = check_norm(norm)
    if norm is None:
        lam, t = check_linear_arrays(lam, tfidf)
        check_groups(groups, lam, t)
        return unnormalised_moments(lam, t)
    return quadrature_moments(scale_free_model(lam, tfidf, groups, norm))


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
        ``zf_given_s[s - 1, k]`` = E[z_k f | s].  Both are within ``MOMENTS_ACCURACY`` (2e-13) times
        |f|(ξ) = Σ_j |λ_j| φ(ξ)_j, the model with |λ| at ξ (at most √d max |λ|): the quadrature's relative 1e-13
        on |f| of each kept set plus rounding (module docstring, "Accuracy"); measured at worst 5.6e-14 |f|(ξ),
        that is 1.8e-12 max |λ|, at d = 1000 with λ ≡ 1 (``benchmarks/linear_exact_accuracy.py``).

    Raises
    ------
    TypeError
        ``lam``, ``tfidf`` or ``groups`` not arrays of real numbers (integers for ``groups``), ``norm`` not a
        string or None.
    ValueError
        As :func:`beta_linear_exact`; or a cost beyond the limits (``limetheory._validation``): about 1.3 Q d²
        units for the forward recursion (Q ~ 50 to 70 quadrature nodes) plus 2.9 Q d K for K distinct weights
        (``linear_moments.FLOPS_FORWARD`` and ``FLOPS_LEAVE_ONE_OUT``), within 2e10 (about ten seconds; 5 s at
        d = 9938 here), and 24 d² bytes for the d x d result.

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
        Index 0 is :math:`\mathbb{E}[\pi f]`, index 1 + k is :math:`\mathbb{E}[\pi z_k f]`: α₀ times weighted
        means of the moments, so within about α₀ ``MOMENTS_ACCURACY`` |f|(ξ) (as
        :func:`conditional_moments_linear_exact`).  Entries below the double range (α₀ < 1e-308, tiny ν) are
        returned as 0.0 with a RuntimeWarning; a float64 Γ is then useless, and so it is at small ν for
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


@bandwidth_keyword
def beta_linear_exact(lam, tfidf, *, nu, groups=None, norm="l2"):
    r"""Exact :math:`\beta^f = \Sigma^{-1} \Gamma^f` for :math:`f = \sum_c \lambda_c \phi(x)_c` over TF-IDF columns.

    With the L2 norm and one column per word, :math:`\phi(x)_j = z_j t_j / \sqrt{\sum_k z_k t_k^2}` (and 0
    when no word with :math:`t_j > 0` is kept).  Words that share a column (``groups``) add their
    :math:`z_j t_j` in it before the norm; ``norm="l1"`` divides by :math:`\sum_k z_k t_k` instead, and
    ``norm=None`` does not normalise (then f is linear in the mask and β is its coefficients
    :math:`(0, \lambda_j t_j)`).  Unlike the paper's approximation :math:`\beta_j \approx 1.36\, \lambda_j
    \phi(\xi)_j` (ν = ∞, large d, Jensen's inequality), this holds for every d and every bandwidth, exact up to
    the quadrature over u (relative error below 1e-13 on f of each kept set) and, from 1000 words on, a rule over p
    checked at run time, including small ν where Σ is numerically singular: no Σ and no Γ is formed.  A fitted
    model's intercept adds to β₀ (β is linear in f).

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
        Index 0 is the intercept, index 1 + j the coefficient of word j.  For ν >= 0.05 the absolute error is
        below ``BETA_ACCURACY`` (5e-13) times |f|(ξ) = Σ_j |λ_j| φ(ξ)_j, the model with |λ| at ξ (|f(ξ)| when
        the λ share a sign, at most √d max |λ|), on both routes: measured at worst 2.5e-13 |f|(ξ), and 5e-13
        of max_j |β_j| (``benchmarks/linear_exact_accuracy.py``; module docstring, "Accuracy").  Relative to
        max |lam| it is up to √d times larger (1.8e-11 at d = 10⁴, ν = 0.05, λ ≡ 1), and it grows as ν falls
        below 0.05 (Σ's conditioning).  Cost O(d² Q) for the forward recursion plus O(d K Q) for K distinct
        weights (Q ~ 50 to 70 quadrature nodes) below 1000 words: 0.28 s at d = 900; from 1000 words on, the
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
    if check_norm(norm) is None:
        lam, t = check_linear_arrays(lam, tfidf)
        check_groups(groups, lam, t)
        return np.concatenate([[0.0], lam * t])
    model = scale_free_model(lam, tfidf, groups, norm)
    law = weighted_law(model.d, nu)
    beta = mixture_beta(model, law)
    if beta is None:  # the recursions, the shared columns' members by the gradient (linear_adjoint)
        beta = adjoint_beta(model, law)
    if beta is not None:
        return beta
    moments = quadrature_moments(model)
    return beta_from_weighted_moments(law, moments.f_given_s, moments.weighted(law.m))
