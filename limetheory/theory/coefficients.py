r"""The α coefficients, the normalisation constant c_d, the σ coefficients and Σ.

:math:`\alpha_p = \mathbb{E}[\pi z_1 \cdots z_p]` depends only on (p, d, ν) (Proposition 1 of the paper):

.. math::

   \alpha_p = \frac{1}{d} \sum_{s=1}^d \mathbb{P}(p \text{ given words kept} \mid s)\, \psi(s/d).

:math:`\Sigma = \mathbb{E}[\pi\, (1, z)(1, z)^\top]` has α₀ in the corner, α₁ on the first
row, first column and diagonal, α₂ elsewhere; its inverse is patterned the same way.

Numerics (exact at every bandwidth)
-----------------------------------
At small ν the weights ψ(s/d) span hundreds or thousands of orders of magnitude, and the
printed closed forms (:math:`c_d = (d-1) \alpha_0 \alpha_2 - d \alpha_1^2 + \alpha_0 \alpha_1`, σ₂, σ₃)
subtract numbers that agree to all their digits.  Everything here is therefore computed from a
scale-free description of the weighted law of s (see :func:`~limetheory.theory.law.weighted_law`):

* the weights relative to the largest one, ψ(s/d) / ψ(1/d), obtained as the exponential of a
  difference of exponents written without cancellation, with log ψ(1/d) kept apart;
* the tilted law :math:`m_s = \psi(s/d) / \sum_t \psi(t/d)` of the number s of removed words, and under it the
  mean A = E[a] and the variance V = Var(a) of the fraction a = 1 - s/d of kept words, and
  Q = E[a (1 - a)].  V is computed in a centred form relative to the second largest weight: with
  :math:`\tau = m_2 = \psi(2/d) / \sum_t \psi(t/d)`, the ratio V / τ is a sum of non-negative terms of order
  one and log τ is kept apart, so V keeps its relative accuracy even when it is :math:`10^{-8000}`.

Then (with :math:`\alpha_0 = \psi(1/d) \sum_s w_s / d`):

.. math::

   c_d &= d \alpha_0^2 V, \qquad \alpha_1 - \alpha_2 = \alpha_0 Q \frac{d}{d-1},

   \sigma_0 &= d \alpha_0 \mathbb{E}[a^2], \qquad \sigma_1 = -\alpha_0 A,

   \sigma_2 &= \frac{\alpha_0}{d}\left(1 + (d-1)^2 \frac{V}{Q}\right),

   \sigma_3 &= \frac{\alpha_0}{d}\left(1 - (d-1) \frac{V}{Q}\right),

every one a product of sums of non-negative terms, except σ₃, which changes sign.
Quantities proportional to :math:`\psi(1/d)^k` are assembled from their logarithms: a value outside the range of
double precision is returned as 0.0 or +-inf (with a RuntimeWarning), and every scalar function takes
``log=True`` to return the exact logarithm instead.

Every exponent :math:`(g_s^2 - g_\mathrm{first}^2) / (2 \nu^2)` is formed so that it is continuous in ν up to
``np.inf``: for ν > 1e154 it is below the double range and becomes 0.0 (the large-bandwidth limit, to round-off),
and for ν < 1e-154, where ν² would underflow, it is formed as a product of two ratios to ν.

Limits.  Everything here is O(d) in time and memory except the dense matrices and ``alphas`` with many p: the O(d)
functions accept d <= 2**24 (about 128 bytes per word; about 1 s at d = 10**7), ``alphas`` costs
O(d (p_max + 1)) and ``sigma_matrix`` / ``sigma_inverse`` hold 8 (d + 1)² bytes (d <= 16383 within 2 GiB).
Beyond a limit, a ValueError states the estimated cost before any work starts (``limetheory._validation``).
"""

from __future__ import annotations

import numpy as np

from .._validation import check_bool, check_int, check_linear_d, check_memory, check_nu, check_work
from ..units import bandwidth_keyword
from .law import (
    eigen_logs,
    exp_minus,
    gap_sq,
    kept_given_s,
    log_psi_first,
    relative_weights,
    times_exp,
    weighted_law,
)

# Up to this p, P(kept | s) is formed as a product of p ratios (p ulps at most, one multiply per s and p);
# beyond it, from the cumulative sum of logarithms (law.kept_given_s), whose error does not grow with p.
_DIRECT_PRODUCT_MAX_P = 64
# s is swept in blocks of this many values: a few small arrays stay in cache, instead of a dozen arrays of d
# doubles (at d = 2**24, 1.7 GB of fresh pages and 4.5 s of CPU for p_max = 3; about 0.4 s in blocks).
_BLOCK = 1 << 16


def _alpha_mantissas(d, nu, p_max):
    """alpha_p / psi(1/d) = sum_s w_s P(p given words kept | s) / d for p = 0..p_max (sums of non-negative terms).

    w_s = ψ(s/d)/ψ(1/d).  For p <= 64, P(kept | s) is the product of (d - s - j)/(d - j) over j < p, updated in
    place from p to p + 1: every factor is in [0, 1], so nothing overflows, and an entry that underflows is below
    1e-308 while the s = 1 entry is (d - p)/d and w is non-increasing, so the sum loses nothing.
    """
    direct = min(p_max, _DIRECT_PRODUCT_MAX_P)
    sums = np.zeros(direct + 1)
    with np.errstate(under="ignore"):
        for start in range(1, d + 1, _BLOCK):
            stop = min(start + _BLOCK - 1, d)
            w = exp_minus(gap_sq(d, 1, nu, start=start, stop=stop))
            sums[0] += w.sum()
            remaining = d - np.arange(start, stop + 1, dtype=float)  # d - s
            kept = np.ones_like(w)
            weighted = np.empty_like(w)
            for j in range(direct):
                np.maximum(remaining, 0.0, out=remaining)
                kept *= remaining
                kept /= d - j
                remaining -= 1.0
                # multiply-and-sum rather than np.dot: a threaded BLAS doubled the CPU time of short dots
                sums[j + 1] += float(np.multiply(w, kept, out=weighted).sum())
    if p_max == direct:
        return sums / d
    w = relative_weights(d, nu)
    rest = [_alpha_over_psi1_by_logs(p, d, w) for p in range(direct + 1, p_max + 1)]
    return np.concatenate([sums / d, rest])


def _alpha_over_psi1_by_logs(p, d, w):
    """alpha_p / psi(1/d) with P(kept | s) from the logarithms of law.kept_given_s (any p)."""
    first, logs = kept_given_s(p, d)
    with np.errstate(under="ignore"):
        return first * float(np.dot(w, np.exp(logs))) / d


@bandwidth_keyword
def alpha(p, d, *, nu, log=False):
    r"""The coefficient :math:`\alpha_p = \mathbb{E}[\pi z_1 \cdots z_p]` of Proposition 1.

    For a document with ``d`` distinct words, the weighted probability that ``p`` given words are all kept.

    Parameters
    ----------
    p : int
        Number of words required to be kept, 0 <= p <= d.
    d : int
        Number of distinct words, 1 <= d <= 2**24 (O(d) time and memory, about 0.3 s at d = 10**7; beyond,
        a ValueError states the memory it would need).
    nu : float
        Bandwidth > 0, or ``np.inf`` (then :math:`\alpha_p = (d - p) / ((p + 1) d)`); continuous in ν up to
        ``np.inf``.
    log : bool
        Return log α_p instead (finite for p < d at every ν > 1e-150, below which the logarithm itself
        leaves the double range; -inf for p = d, where α_d = 0).

    Returns
    -------
    float
        α_p, accurate to a few units in the last place wherever it is a normal double; below
        ~1e-308 (ν below ~0.03 for small d) it is the nearest subnormal or 0.0, and ``log=True`` stays exact.

    Examples
    --------
    >>> alpha(1, 4, nu=np.inf)
    0.375
    >>> round(alpha(0, 29, nu=0.25), 6)
    0.484412
    """
    d = check_linear_d(check_int(d, "d", minimum=1), what="alpha")
    p = check_int(p, "p", minimum=0, maximum=d)
    nu = check_nu(nu)
    log = check_bool(log, "log")
    if p <= _DIRECT_PRODUCT_MAX_P:
        mantissa = float(_alpha_mantissas(d, nu, p)[p])
    else:
        mantissa = _alpha_over_psi1_by_logs(p, d, relative_weights(d, nu))
    if log:
        with np.errstate(divide="ignore"):
            return float(np.log(mantissa)) + log_psi_first(d, nu)
    return float(times_exp(mantissa, log_psi_first(d, nu), f"alpha_{p}", d, nu))


@bandwidth_keyword
def alphas(d, *, nu, p_max=2, log=False):
    r"""The array :math:`(\alpha_0, \ldots, \alpha_{p_\mathrm{max}})` (``log=True``: their logarithms).

    Each entry is :func:`alpha` of its index, computed from one set of weights.

    Parameters
    ----------
    d : int
        Number of distinct words, 1 <= d <= 2**24.
    nu : float
        Bandwidth > 0 or ``np.inf``.
    p_max : int
        Largest p, 0 <= p_max <= d.  Each p is one O(d) pass: the cost, about 40 d (p_max + 1) operations, must
        stay below 2e10 (e.g. p_max <= 49 at d = 10**7); beyond, a ValueError states the estimate.
    log : bool
        Return the logarithms.

    Returns
    -------
    ndarray, shape (p_max + 1,)
        α_0, ..., α_{p_max} (their logarithms with ``log=True``).

    Examples
    --------
    >>> alphas(4, nu=np.inf, p_max=2).tolist()
    [1.0, 0.375, 0.16666666666666666]
    """
    d = check_linear_d(check_int(d, "d", minimum=1), what="alphas")
    nu = check_nu(nu)
    p_max = check_int(p_max, "p_max", minimum=0, maximum=d)
    log = check_bool(log, "log")
    check_work(40.0 * d * (p_max + 1), f"alphas at d = {d} with p_max = {p_max}", "ask for fewer alpha_p")
    log_psi1 = log_psi_first(d, nu)
    mantissas = _alpha_mantissas(d, nu, p_max)
    if log:
        with np.errstate(divide="ignore"):
            return np.log(mantissas) + log_psi1
    return times_exp(mantissas, log_psi1, "alpha_p", d, nu)


@bandwidth_keyword
def normalization_constant(d, *, nu, log=False):
    r"""The determinant factor of Σ, :math:`c_d = (d - 1) \alpha_0 \alpha_2 - d \alpha_1^2 + \alpha_0 \alpha_1`.

    Computed as :math:`c_d = d \alpha_0^2 V`, V the variance of the fraction of kept words under the weighted law
    (cancellation-free; see the module docstring), so it is exact at every bandwidth.

    Parameters
    ----------
    d : int
        Number of distinct words, >= 2 (for d = 1, Σ is singular and c_1 = 0).
    nu : float
        Bandwidth > 0 or ``np.inf``.
    log : bool
        Return log c_d (finite for ν > 1e-150, e.g. about -3 · 10⁴ at d = 2, ν = 0.005; -inf below).

    Returns
    -------
    float
        c_d; 0.0 (with a RuntimeWarning) when it is below the double range.

    Examples
    --------
    >>> normalization_constant(4, nu=np.inf)
    0.3125
    """
    law = weighted_law(d, nu)
    log = check_bool(log, "log")
    log_c = float(np.log(law.d)) + 2.0 * law.log_alpha0 + law.log_var
    if log:
        return log_c
    return float(times_exp(1.0, log_c, "c_d", law.d, law.nu))


def _sigma_mantissas(law):
    """(sigma_0, ..., sigma_3) / alpha_0 from the law (no cancellation except in sigma_3, which changes sign)."""
    d = law.d
    ratio = law.var / law.q
    return np.array(
        [
            d * law.second_moment,
            -law.a_mean,
            (1.0 + (d - 1) ** 2 * ratio) / d,
            (1.0 - (d - 1) * ratio) / d,
        ]
    )


@bandwidth_keyword
def sigma_coefficients(d, *, nu):
    r"""(σ₀, σ₁, σ₂, σ₃) exactly as the paper defines them.

    .. math::

       \sigma_0 &= (d-1) \alpha_2 + \alpha_1,

       \sigma_1 &= -\alpha_1,

       (\alpha_1 - \alpha_2)\, \sigma_2 &= (d-2) \alpha_0 \alpha_2

       &\quad - (d-1) \alpha_1^2 + \alpha_0 \alpha_1,

       \sigma_3 &= \frac{\alpha_1^2 - \alpha_0 \alpha_2}{\alpha_1 - \alpha_2};

    :math:`\Sigma^{-1}` is :math:`1/c_d` times the matrix with σ₀ in the corner, σ₁ on the rest of the first row
    and column, σ₂ on the rest of the diagonal and σ₃ elsewhere.

    Evaluated through the equivalent weighted-law forms :math:`\sigma_0 = d \alpha_0 \mathbb{E}[a^2]`,
    :math:`\sigma_1 = -\alpha_0 A`, :math:`\sigma_2 = (\alpha_0/d)(1 + (d-1)^2 V/Q)`,
    :math:`\sigma_3 = (\alpha_0/d)(1 - (d-1) V/Q)` (module docstring), so they
    are accurate at every bandwidth; like α₀ they fall below the double range for very small ν
    (then 0.0, with a RuntimeWarning).

    Parameters
    ----------
    d : int
        Number of distinct words, 2 <= d <= 2**24 (Σ is singular for d = 1).
    nu : float
        Bandwidth > 0 or ``np.inf``.

    Returns
    -------
    tuple of 4 floats
        (σ₀, σ₁, σ₂, σ₃).

    Examples
    --------
    >>> [round(value, 6) for value in sigma_coefficients(4, nu=np.inf)]
    [0.875, -0.375, 1.375, -0.125]
    """
    law = weighted_law(d, nu)
    values = times_exp(_sigma_mantissas(law), law.log_alpha0, "sigma coefficients", law.d, law.nu)
    return tuple(float(v) for v in values)


@bandwidth_keyword
def sigma_eigenvalues(d, *, nu, log=False):
    r"""The eigenvalues of Σ: (smallest of the pair, largest of the pair, the bulk value).

    Σ maps span{e₀, (0, 1, ..., 1)} to itself through the 2 × 2 matrix
    :math:`\begin{pmatrix} \alpha_0 & \sqrt{d} \alpha_1 \\ \sqrt{d} \alpha_1 & \alpha_1 + (d-1) \alpha_2 \end{pmatrix}`,
    whose determinant is c_d; its two eigenvalues form the pair.  Every vector (0, v) with v orthogonal to
    (1, ..., 1) is an eigenvector for the bulk value α₁ - α₂ (multiplicity d - 1).

    Parameters
    ----------
    d : int
        Number of distinct words, 2 <= d <= 2**24.
    nu : float
        Bandwidth > 0 or ``np.inf``.
    log : bool
        Return the three logarithms (finite for ν > 1e-150).

    Returns
    -------
    tuple of 3 floats
        (smallest of the pair, largest of the pair, bulk value α₁ - α₂); values below the double range are
        0.0 (with a RuntimeWarning).

    Examples
    --------
    >>> [round(value, 6) for value in sigma_eigenvalues(4, nu=np.inf)]
    [0.1849, 1.6901, 0.208333]
    """
    law = weighted_law(d, nu)
    log = check_bool(log, "log")
    logs = eigen_logs(law)
    if log:
        return tuple(float(v) for v in logs)
    return tuple(float(times_exp(1.0, v, "an eigenvalue of Sigma", law.d, law.nu)) for v in logs)


@bandwidth_keyword
def sigma_inverse_opnorm(d, *, nu, log=False):
    """The exact operator norm of Σ⁻¹: one over Σ's smallest eigenvalue.

    Parameters
    ----------
    d : int
        Number of distinct words, 2 <= d <= 2**24.
    nu : float
        Bandwidth > 0 or ``np.inf``.
    log : bool
        Return log ‖Σ⁻¹‖ instead (finite for ν > 1e-150).

    Returns
    -------
    float
        ‖Σ⁻¹‖; a norm beyond the double range is inf (with a RuntimeWarning).

    Examples
    --------
    >>> round(sigma_inverse_opnorm(4, nu=np.inf), 6)
    5.408319
    """
    law = weighted_law(d, nu)
    log = check_bool(log, "log")
    log_small, _, log_bulk = eigen_logs(law)
    value = -min(log_small, log_bulk)
    if log:
        return value
    return float(times_exp(1.0, value, "||Sigma^{-1}||", law.d, law.nu))


def _check_dense(d):
    """Refuse a dense (d + 1) x (d + 1) float matrix beyond the memory limit, before any work."""
    check_memory(
        8.0 * (d + 1) ** 2,
        f"a dense Sigma at d = {d}",
        "use sigma_coefficients or beta_from_gamma, which are O(d)",
    )


def _patterned(d, corner, edge, diagonal, off_diagonal):
    m = np.full((d + 1, d + 1), float(off_diagonal))
    np.fill_diagonal(m, diagonal)
    m[0, :] = edge
    m[:, 0] = edge
    m[0, 0] = corner
    return m


@bandwidth_keyword
def sigma_matrix(d, *, nu):
    r"""The dense (d + 1) × (d + 1) population covariance :math:`\Sigma = \mathbb{E}[\pi\, (1, z)(1, z)^\top]`.

    Entries are α₀, α₁, α₂ (see :func:`alpha` for their range).

    Parameters
    ----------
    d : int
        Number of distinct words, >= 1 (Σ is singular for d = 1).  The matrix takes 8 (d + 1)² bytes, so
        d <= 16383 (2 GiB); a larger d is refused before anything is computed, with the estimate (use
        :func:`sigma_coefficients` or :func:`~limetheory.theory.explanation.beta_from_gamma`, which are O(d)).
    nu : float
        Bandwidth > 0 or ``np.inf``.

    Returns
    -------
    ndarray, shape (d + 1, d + 1)
        α₀ in the corner, α₁ on the rest of the first row, first column and diagonal, α₂ elsewhere.

    Examples
    --------
    >>> sigma_matrix(2, nu=np.inf).tolist()
    [[1.0, 0.25, 0.25], [0.25, 0.25, 0.0], [0.25, 0.0, 0.25]]
    """
    d = check_int(d, "d", minimum=1)
    _check_dense(d)
    a0, a1, a2 = alphas(d, nu=nu, p_max=min(2, d)).tolist() + [0.0] * (2 - min(2, d))
    return _patterned(d, a0, a1, a1, a2)


@bandwidth_keyword
def sigma_inverse(d, *, nu):
    r"""Σ⁻¹ from the closed form: :math:`1/c_d` times the matrix patterned by (σ₀, σ₁, σ₂, σ₃).

    Entries are evaluated as :math:`\frac{1}{\alpha_0 V}` times :math:`\mathbb{E}[a^2]`, :math:`-A/d`,
    :math:`(1 + (d-1)^2 V/Q)/d^2` and :math:`(1 - (d-1) V/Q)/d^2`
    (corner, border, diagonal, off-diagonal; module docstring), accurate at every bandwidth.  When they
    exceed the double range (very small ν with small d) they are +-inf, with a RuntimeWarning.

    Parameters
    ----------
    d : int
        Number of distinct words, 2 <= d <= 16383: for d = 1 the only word is always removed, so α₁ = 0,
        the second row and column of Σ vanish and Σ is singular.  The matrix takes 8 (d + 1)² bytes, as in
        :func:`sigma_matrix` (refused with the estimate beyond; :func:`sigma_coefficients` is O(d)).
    nu : float
        Bandwidth > 0 or ``np.inf``.

    Returns
    -------
    ndarray, shape (d + 1, d + 1)
        Σ⁻¹.

    Examples
    --------
    >>> sigma_inverse(2, nu=np.inf).round(6).tolist()
    [[2.0, -2.0, -2.0], [-2.0, 6.0, 2.0], [-2.0, 2.0, 6.0]]
    """
    size = check_int(d, "d")
    if size >= 2:  # the memory of the matrix first: it is the tighter limit
        _check_dense(size)
    law = weighted_law(d, nu)
    d = law.d
    ratio = law.var / law.q
    mantissas = np.array(
        [
            law.second_moment,
            -law.a_mean / d,
            (1.0 + (d - 1) ** 2 * ratio) / d**2,
            (1.0 - (d - 1) * ratio) / d**2,
        ]
    )
    corner, edge, diagonal, off_diagonal = times_exp(
        mantissas, -(law.log_alpha0 + law.log_var), "Sigma^{-1} entries", d, law.nu
    )
    return _patterned(d, corner, edge, diagonal, off_diagonal)
