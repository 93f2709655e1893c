r"""The explanation :math:`\beta^f = \Sigma^{-1} \Gamma^f` that LIME's coefficients converge to.

:math:`\Gamma^f = (\mathbb{E}[\pi f], \mathbb{E}[\pi z_1 f], \ldots, \mathbb{E}[\pi z_d f])`.
``beta_from_gamma`` applies the paper's closed form of Σ⁻¹ in O(d); ``beta_enumerate`` is an independent
reference that sums over all 2ᵈ masks; ``beta_indicator_product`` is the exact β of a product of word
indicators.

Stable formulation (every bandwidth)
------------------------------------
β is the weighted least-squares fit of f on (1, z) under the law of the masks tilted by π.
Conditionally on the number s of removed words, the fraction a_s = 1 - s/d of kept words is fixed,
so the fit splits into a part *within* each s and a part *between* the values of s:

* within: :math:`W_{s,j} = \operatorname{Cov}(z_j, f \mid s)` (it sums to zero over j), averaged with the
  tilted law m_s of s;
* between: the weighted regression slope b of :math:`F_s = \mathbb{E}[f \mid s]` on a_s, i.e.
  :math:`\operatorname{Cov}_m(a, F) / \operatorname{Var}_m(a)`;

and then, with :math:`Q = \mathbb{E}_m[a (1 - a)]` and :math:`A = \mathbb{E}_m[a]`,

.. math::

   \beta_j &= \frac{d - 1}{d Q} \sum_s m_s W_{s,j} + \frac{b}{d},

   \beta_0 &= \mathbb{E}_m[F] - A b.

Only differences F_s - F_1 enter b and E_m[F] (relative to the dominant s = 1), and Var_m(a) is kept
relative to the second largest weight (see :func:`limetheory.theory.law.weighted_law`), so nothing cancels
when the weights span thousands of orders of magnitude: β of a constant is exactly (c, 0, ..., 0), and
β of the indicator of word j is :math:`e_{1+j}` up to rounding, at every ν > 0.  A floating-point Γ, on the
contrary, has already rounded away the information when Σ is ill-conditioned (small ν, small d), so
``beta_from_gamma`` is only as accurate as cond(Σ) allows; prefer ``beta_from_conditional_moments``,
``beta_indicator_product`` or ``beta_enumerate`` there.
"""

from __future__ import annotations

import warnings
from math import comb

import numpy as np

from .._validation import as_float_array, check_d_invertible, check_int, check_nu
from ..units import bandwidth_keyword
from .law import SAFE_LOG, WeightedLaw, eigen_logs, kept_given_s, weighted_law

MAX_ENUMERATION_D = 22
# beta_from_gamma warns when cond(Sigma) * 1e-16 exceeds 1e-4: a rounded Gamma no longer determines beta well
_LOG_CONDITION_WARN = float(np.log(1e12))


def _beta_from_parts(law, first, gaps, within):
    """beta from F_1 = E[f | s = 1], the gaps F_s - F_1 (s = 2..d) and sum_s m_s Cov(z_j, f | s) (length d)."""
    d = law.d
    with np.errstate(over="ignore", invalid="ignore"):  # model values near the double range: checked below
        centred = law.u - law.tau * float(np.dot(law.w_hat, law.u))
        slope = float(np.dot(law.w_hat * centred, gaps)) / law.var_over_tau
        mean_f = first + law.tau * float(np.dot(law.w_hat, gaps))
        beta = np.empty(d + 1)
        beta[1:] = np.asarray(within, dtype=float) / law.bulk_ratio + slope / d
        beta[0] = mean_f - law.a_mean * slope
    if not np.isfinite(beta).all():
        raise ValueError("beta overflows double precision: the model's values are too large (rescale the model)")
    return beta


@bandwidth_keyword
def beta_from_conditional_moments(f_given_s, zf_given_s, *, nu):
    r"""Exact β from the conditional moments of f given the number s of removed words, at every bandwidth.

    Parameters
    ----------
    f_given_s : array_like, shape (d,)
        ``f_given_s[s - 1]`` = E[f | s words removed] for s = 1..d (the average of f over the binom(d, s) masks).
    zf_given_s : array_like, shape (d, d)
        ``zf_given_s[s - 1, j]`` = E[z_j f | s words removed].
    nu : float
        Bandwidth > 0 or ``np.inf``.

    Returns
    -------
    ndarray, shape (d + 1,)
        :math:`\beta = \Sigma^{-1} \Gamma^f` (index 0 the intercept), computed in the within/between form of
        the module docstring, accurate at every bandwidth (no Σ, no Γ is formed).  d >= 2.

    Examples
    --------
    >>> # f = indicator of word 0 with d = 2: E[f | s] = (1/2, 0), E[z_j f | s] = ((1/2, 0), (0, 0))
    >>> (beta_from_conditional_moments([0.5, 0.0], [[0.5, 0.0], [0.0, 0.0]], nu=0.25).round(12) + 0.0).tolist()
    [0.0, 1.0, 0.0]
    """
    f_given_s = as_float_array(f_given_s, "f_given_s", ndim=1)
    d = check_d_invertible(len(f_given_s), "len(f_given_s)")
    zf_given_s = as_float_array(zf_given_s, "zf_given_s", ndim=2)
    if zf_given_s.shape != (d, d):
        raise ValueError(f"zf_given_s must have shape ({d}, {d}) to match f_given_s, got {zf_given_s.shape}")
    law = weighted_law(d, nu)
    kept = (d - np.arange(1, d + 1)) / d
    with np.errstate(over="ignore", invalid="ignore"):  # moments near the double range: _beta_from_parts checks
        within_s = zf_given_s - kept[:, None] * f_given_s[:, None]
        within_s -= within_s.mean(axis=1, keepdims=True)  # Cov(sum_j z_j, f | s) = 0: remove rounding
        return _beta_from_parts(law, f_given_s[0], f_given_s[1:] - f_given_s[0], law.m @ within_s)


def beta_from_weighted_moments(f_given_s, weighted_zf, law):
    r"""Exact β from E[f | s] for every s and the words' moments already summed over s with LIME's law.

    What :func:`beta_from_conditional_moments` computes, for routes that never form the d x d moments:
    ``weighted_zf[j]`` is :math:`\sum_s m_s\, \mathbb{E}[z_j f \mid s]` with :math:`m` = ``law.m``, the tilted law
    of the number of removed words.  Its mean over the words is removed here (the covariances of
    :math:`\sum_j z_j`, fixed given s, with f vanish), so only the differences between words matter.

    Parameters
    ----------
    f_given_s : ndarray, shape (d,)
        ``f_given_s[s - 1]`` = E[f | s words removed], s = 1..d.
    weighted_zf : ndarray, shape (d,)
        ``law.m @ zf_given_s``.
    law : limetheory.theory.law.WeightedLaw
        ``weighted_law(d, nu)``, the law that weighted ``weighted_zf``.

    Returns
    -------
    ndarray, shape (d + 1,)
        :math:`\beta = \Sigma^{-1} \Gamma^f` of the moments given: the intercept first, then one coefficient
        per word, as :func:`beta_from_conditional_moments` returns it.

    Examples
    --------
    >>> law = weighted_law(2, 0.25)
    >>> zf_given_s = np.array([[0.5, 0.0], [0.0, 0.0]])  # f = indicator of word 0
    >>> (beta_from_weighted_moments(np.array([0.5, 0.0]), law.m @ zf_given_s, law).round(12) + 0.0).tolist()
    [0.0, 1.0, 0.0]
    """
    if not isinstance(law, WeightedLaw):
        raise TypeError(
            f"law must be a limetheory.theory.law.WeightedLaw (weighted_law(d, nu)), got {type(law).__name__}"
        )
    f_given_s = as_float_array(f_given_s, "f_given_s", ndim=1)
    weighted_zf = as_float_array(weighted_zf, "weighted_zf", ndim=1)
    if f_given_s.shape != (law.d,) or weighted_zf.shape != (law.d,):
        raise ValueError(
            f"f_given_s and weighted_zf must both have shape ({law.d},) (the law's d), got {f_given_s.shape} "
            f"and {weighted_zf.shape}"
        )
    with np.errstate(over="ignore", invalid="ignore"):  # moments near the double range: _beta_from_parts checks
        return _beta_from_parts(law, f_given_s[0], f_given_s[1:] - f_given_s[0], weighted_zf - weighted_zf.mean())


@bandwidth_keyword
def beta_from_gamma(gamma, d, *, nu):
    r""":math:`\beta = \Sigma^{-1} \Gamma` by the closed form of Proposition 2 (and its intercept), in O(d).

    Parameters
    ----------
    gamma : array_like, shape (d + 1,)
        :math:`(\mathbb{E}[\pi f], \mathbb{E}[\pi z_1 f], \ldots, \mathbb{E}[\pi z_d f])`.
    d : int
        Number of distinct words, >= 2.
    nu : float
        Bandwidth > 0 or ``np.inf``.

    Returns
    -------
    ndarray, shape (d + 1,)
        Index 0 is the intercept, index 1 + j the coefficient of word j.

    Notes
    -----
    Σ⁻¹ is applied in its weighted-law form (module docstring of :mod:`limetheory.theory.coefficients`):
    with :math:`\bar\Gamma` the mean of :math:`\Gamma_1, \ldots, \Gamma_d` and
    :math:`C = (\bar\Gamma - A \Gamma_0) / \alpha_0`,

    .. math::

       \beta_j &= (\Gamma_j - \bar\Gamma) \frac{d - 1}{d Q \alpha_0} + \frac{C}{d V},

       \beta_0 &= \frac{\Gamma_0}{\alpha_0} - \frac{A C}{V}.

    The map Γ ↦ β has condition number cond(Σ), which exceeds 1/ε for small ν and d
    (e.g. d = 2, ν <= 0.1): there a rounded Γ determines β only up to cond(Σ) · ε (a
    RuntimeWarning says so when cond(Σ) > 1e12), and the exact routes (``beta_from_conditional_moments``,
    ``beta_indicator_product``, ``beta_enumerate``) apply.  When α₀ itself is below the double range,
    Γ cannot be represented and a ValueError says so.

    Examples
    --------
    >>> from limetheory import sigma_matrix
    >>> gamma = sigma_matrix(3, nu=0.25) @ np.array([0.5, 1.0, 0.0, -1.0])  # the Gamma of an affine model
    >>> (beta_from_gamma(gamma, 3, nu=0.25).round(12) + 0.0).tolist()
    [0.5, 1.0, 0.0, -1.0]
    """
    d = check_d_invertible(d)
    nu = check_nu(nu)
    gamma = as_float_array(gamma, "gamma")
    if gamma.shape != (d + 1,):
        raise ValueError(f"gamma must have shape ({d + 1},) for d = {d}, got {gamma.shape}")
    law = weighted_law(d, nu)
    if law.log_alpha0 < -SAFE_LOG:
        raise ValueError(
            f"at d = {d}, nu = {nu} the entries of Gamma are of the order of alpha_0 = exp({law.log_alpha0:.6g}), "
            "below the double range, so a float64 gamma cannot determine beta; use beta_from_conditional_moments, "
            "beta_indicator_product or beta_enumerate"
        )
    factor = np.exp(-law.log_alpha0)  # Gamma / alpha_0 = factor * gamma
    with np.errstate(over="ignore", invalid="ignore"):  # a gamma near the double range: checked at the end
        mean_f = factor * gamma[0]
        means = factor * gamma[1:]
        mean_z_f = float(means.mean())
        covariance = mean_z_f - law.a_mean * mean_f  # Cov_m(a, f): the ill-conditioned step
    log_small, log_large, log_bulk = eigen_logs(law)
    log_condition = log_large - min(log_small, log_bulk)
    if log_condition > _LOG_CONDITION_WARN:
        warnings.warn(
            f"Sigma is ill-conditioned at d = {d}, nu = {nu} (cond = 10^{log_condition / np.log(10):.1f}): "
            "beta from a rounded gamma is accurate only to about cond * 1e-16; use beta_from_conditional_moments, "
            "beta_indicator_product or beta_enumerate for exact values",
            RuntimeWarning,
            stacklevel=2,
        )
    with np.errstate(over="ignore", invalid="ignore"):
        slope = covariance / law.var_over_tau * np.exp(-law.log_tau)
        beta = np.empty(d + 1)
        beta[1:] = (means - mean_z_f) / law.bulk_ratio + slope / d
        beta[0] = mean_f - law.a_mean * slope
    if not np.isfinite(beta).all():
        raise ValueError(
            f"gamma does not determine beta in double precision at d = {d}, nu = {nu} "
            f"(cond(Sigma) = 10^{log_condition / np.log(10):.1f}, or entries of gamma so large that beta overflows); "
            "use beta_from_conditional_moments"
        )
    return beta


def all_masks(d):
    """All 2ᵈ masks of {0, 1}ᵈ with at least one removed word, with their LIME probabilities.

    Parameters
    ----------
    d : int
        Number of distinct words, 1 <= d <= 22 (2²² masks take about 190 MB with their s and probabilities).

    Returns
    -------
    (z, s, prob)
        z is (2ᵈ - 1, d) int8 (row i is the binary expansion of i, word j its bit j), s the number of removed
        words per row and prob = (1/d) / binom(d, s), the probability LIME draws that exact mask.

    Examples
    --------
    >>> z, s, prob = all_masks(2)
    >>> z.tolist(), s.tolist(), prob.tolist()
    ([[0, 0], [1, 0], [0, 1]], [2, 1, 1], [0.5, 0.25, 0.25])
    """
    d = check_int(d, "d", minimum=1, maximum=MAX_ENUMERATION_D)
    codes = np.arange(2**d - 1, dtype=np.int64)  # the all-ones mask (code 2^d - 1) has s = 0
    z = np.empty((len(codes), d), dtype=np.int8)
    for j in range(d):  # column by column: no (2^d, d) int64 temporary (1.5 GB at d = 22)
        z[:, j] = (codes >> j) & 1
    s = d - z.sum(axis=1)
    binom = np.array([float(comb(d, k)) for k in range(d + 1)])
    return z, s, (1.0 / d) / binom[s]


@bandwidth_keyword
def beta_enumerate(f, d, *, nu):
    r"""Exact β by enumerating every mask LIME can draw (a reference independent of the closed forms).

    Parameters
    ----------
    f : callable
        Maps an (m, d) 0/1 integer array of masks to m real outputs.
    d : int
        Number of distinct words, 2 <= d <= 22.
    nu : float
        Bandwidth > 0 or ``np.inf``.

    Returns
    -------
    ndarray, shape (d + 1,)
        :math:`\Sigma^{-1} \Gamma^f` for the law of the 2ᵈ - 1 masks.  The per-s averages of f and of z_j f are summed
        mask by mask (f centred at its value on the first mask, so a constant f gives exactly (c, 0, ..., 0)),
        then combined by the within/between form of the module docstring, which stays exact at small ν where
        Σ is numerically singular.

    Examples
    --------
    >>> (np.round(beta_enumerate(lambda z: 2.0 + z[:, 1], 3, nu=0.25), 12) + 0.0).tolist()
    [2.0, 0.0, 1.0, 0.0]
    """
    if not callable(f):
        raise TypeError("f must be a callable mapping an (m, d) 0/1 array to m outputs")
    d = check_int(d, "d")  # the type first, then the cheapest limit: 2^d masks
    if d > MAX_ENUMERATION_D:
        raise ValueError(f"d must be <= {MAX_ENUMERATION_D} for enumeration (2^d masks), got {d}")
    d = check_d_invertible(d)
    nu = check_nu(nu)
    z, s, _ = all_masks(d)
    y = np.empty(len(z))
    chunk = 1 << 16
    for start in range(0, len(z), chunk):
        zc = z[start : start + chunk]
        out = f(zc)
        try:
            raw = np.asarray(out)
            if np.iscomplexobj(raw):  # a cast to float would drop the imaginary part silently
                raise TypeError
            yc = raw.astype(float).reshape(-1)
        except (TypeError, ValueError):
            raise ValueError(f"f must return one real output per mask ({len(zc)}), got {out!r:.80}") from None
        if yc.shape != (len(zc),):
            raise ValueError(f"f must return one output per mask ({len(zc)}), got shape {yc.shape}")
        if not np.isfinite(yc).all():
            raise ValueError("f returned a non-finite value")
        y[start : start + chunk] = yc
    reference = y[0]
    law = weighted_law(d, nu)
    with np.errstate(over="ignore", invalid="ignore"):  # outputs near the double range: checked at the end
        r = y - reference  # exactly 0 for a constant f
        counts = np.array([float(comb(d, k)) for k in range(d + 1)])
        f_given_s = np.bincount(s, weights=r, minlength=d + 1)[1:] / counts[1:]
        r -= f_given_s[s - 1]  # centred within each s
        kept = (d - np.arange(1, d + 1)) / d
        residual_mean = np.bincount(s, weights=r, minlength=d + 1)[1:] / counts[1:]
        within_s = np.empty((d, d))
        for j in range(d):
            sums = np.bincount(s, weights=r * z[:, j], minlength=d + 1)[1:] / counts[1:]
            within_s[:, j] = sums - kept * residual_mean
        beta = _beta_from_parts(law, f_given_s[0], f_given_s[1:] - f_given_s[0], law.m @ within_s)
        beta[0] += reference
    if not np.isfinite(beta).all():
        raise ValueError("beta overflows double precision: the values of f are too large (rescale f)")
    return beta


@bandwidth_keyword
def beta_indicator_product(J, d, *, nu):
    r"""Exact β for :math:`f(x) = \prod_{j \in J} \mathbb{1}[\text{word } j \text{ is in } x]` (Proposition 3).

    J empty gives the constant 1.  With :math:`p = \lvert J \rvert`:
    :math:`\mathbb{E}[f \mid s] = \binom{d - s}{p} / \binom{d}{p}`, and given s
    the covariance of z_j with f is :math:`(s/d)\, \mathbb{E}[f \mid s]` for j in J and
    :math:`-(s/d)\, \mathbb{E}[f \mid s]\, p/(d - p)` for j not in J (they sum to zero).  Through the
    within/between form of the module docstring this gives β exactly at every ν > 0: (1, 0, ..., 0) for
    J = () and :math:`e_{1+j}` for J = (j,), up to rounding, even where Σ is numerically singular.

    Parameters
    ----------
    J : iterable of int
        Distinct 0-based word indices in [0, d).
    d : int
        Number of distinct words, >= 2.
    nu : float
        Bandwidth > 0 or ``np.inf``.

    Returns
    -------
    ndarray, shape (d + 1,)
        β, index 0 the intercept.

    Examples
    --------
    >>> (beta_indicator_product((0,), 3, nu=0.25).round(12) + 0.0).tolist()
    [0.0, 1.0, 0.0, 0.0]
    """
    d = check_d_invertible(d)
    nu = check_nu(nu)
    if isinstance(J, (str, bytes)) or not np.iterable(J):
        raise TypeError(f"J must be an iterable of word indices, got {J!r}")
    indices = [check_int(j, "J element", minimum=0, maximum=d - 1) for j in J]
    if len(set(indices)) != len(indices):
        raise ValueError(f"J must not repeat an index, got {sorted(indices)}")
    p = len(indices)
    law = weighted_law(d, nu)
    first, logs = kept_given_s(p, d)
    with np.errstate(under="ignore"):
        kept = first * np.exp(logs)  # E[f | s], s = 1..d
        gaps = first * np.expm1(logs[1:])  # E[f | s] - E[f | 1], without cancellation
    removed = np.arange(1, d + 1) / d
    inside = float(np.dot(law.m, removed * kept))
    within = np.full(d, -inside * p / (d - p) if p < d else 0.0)
    within[np.array(indices, dtype=int)] = inside
    return _beta_from_parts(law, first, gaps, within)
