"""The explanation beta^f = Sigma^{-1} Gamma^f that LIME's coefficients converge to.

Gamma^f = (E[pi f], E[pi z_1 f], ..., E[pi z_d f]).  ``beta_from_gamma`` applies the paper's
closed form of Sigma^{-1} in O(d); ``beta_enumerate`` is an independent reference that builds
Sigma and Gamma by summing over all 2^d masks.
"""

from __future__ import annotations

from math import comb

import numpy as np

from ._validation import check_int, check_nu
from .coefficients import alphas, normalization_constant, sigma_coefficients
from .sampling import kernel_weights

MAX_ENUMERATION_D = 22


def beta_from_gamma(gamma, d, nu):
    """beta = Sigma^{-1} gamma by the closed form of Proposition 2 (and its intercept), in O(d).

    Parameters
    ----------
    gamma : array_like, shape (d + 1,)
        (E[pi f], E[pi z_1 f], ..., E[pi z_d f]).
    d : int
        Number of distinct words, >= 2.
    nu : float
        Bandwidth > 0 or ``np.inf``.

    Returns
    -------
    ndarray, shape (d + 1,)
        Index 0 is the intercept, index 1 + j the coefficient of word j.
    """
    d = check_int(d, "d", minimum=2)
    nu = check_nu(nu)
    gamma = np.asarray(gamma, dtype=float)
    if gamma.shape != (d + 1,):
        raise ValueError(f"gamma must have shape ({d + 1},) for d = {d}, got {gamma.shape}")
    if not np.isfinite(gamma).all():
        raise ValueError("gamma must be finite (no NaN or inf)")
    s0, s1, s2, s3 = sigma_coefficients(d, nu)
    c_d = normalization_constant(d, nu)
    total = gamma[1:].sum()
    beta = np.empty(d + 1)
    beta[0] = s0 * gamma[0] + s1 * total
    beta[1:] = s1 * gamma[0] + (s2 - s3) * gamma[1:] + s3 * total
    return beta / c_d


def all_masks(d):
    """All 2^d masks of {0,1}^d with at least one removed word, with their LIME probabilities.

    Returns (z, s, prob): z is (2^d - 1, d) int8, s the number of removed words per row and
    prob = (1/d) / binom(d, s), the probability LIME draws that exact mask.
    """
    d = check_int(d, "d", minimum=1, maximum=MAX_ENUMERATION_D)
    codes = np.arange(2**d - 1, dtype=np.int64)  # the all-ones mask (code 2^d - 1) has s = 0
    z = ((codes[:, None] >> np.arange(d)) & 1).astype(np.int8)
    s = d - z.sum(axis=1)
    binom = np.array([float(comb(d, k)) for k in range(d + 1)])
    return z, s, (1.0 / d) / binom[s]


def beta_enumerate(f, d, nu):
    """Exact beta by enumerating every mask LIME can draw (a reference independent of the closed forms).

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
        Sigma^{-1} Gamma^f with Sigma and Gamma summed over all 2^d - 1 masks.
    """
    if not callable(f):
        raise TypeError("f must be a callable mapping an (m, d) 0/1 array to m outputs")
    d = check_int(d, "d", minimum=2)
    if d > MAX_ENUMERATION_D:
        raise ValueError(f"d must be <= {MAX_ENUMERATION_D} for enumeration (2^d masks), got {d}")
    nu = check_nu(nu)
    z, s, prob = all_masks(d)
    weight = prob * kernel_weights(d, nu)[s - 1]
    sigma = np.zeros((d + 1, d + 1))
    gamma = np.zeros(d + 1)
    chunk = 1 << 16
    for start in range(0, len(z), chunk):
        zc, wc = z[start : start + chunk], weight[start : start + chunk]
        y = np.asarray(f(zc), dtype=float).reshape(-1)
        if y.shape != (len(zc),):
            raise ValueError(f"f must return one output per mask ({len(zc)}), got shape {y.shape}")
        if not np.isfinite(y).all():
            raise ValueError("f returned a non-finite value")
        design = np.hstack([np.ones((len(zc), 1)), zc])
        sigma += design.T @ (design * wc[:, None])
        gamma += design.T @ (wc * y)
    return np.linalg.solve(sigma, gamma)


def beta_indicator_product(J, d, nu):
    """Exact beta for f(x) = prod_{j in J} 1[word j is in x] (Proposition 3; J empty gives the constant 1).

    Gamma^f only needs alpha_p and alpha_{p+1} with p = len(J): E[pi f] = E[pi z_k f] = alpha_p for k in J,
    and alpha_{p+1} for k not in J.

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
    """
    d = check_int(d, "d", minimum=2)
    nu = check_nu(nu)
    if isinstance(J, (str, bytes)) or not np.iterable(J):
        raise ValueError(f"J must be an iterable of word indices, got {J!r}")
    indices = [check_int(j, "J element", minimum=0, maximum=d - 1) for j in J]
    if len(set(indices)) != len(indices):
        raise ValueError(f"J must not repeat an index, got {sorted(indices)}")
    p = len(indices)
    a = alphas(d, nu, min(p + 1, d))
    gamma = np.full(d + 1, a[p + 1] if p < d else a[p])
    gamma[0] = a[p]
    gamma[1 + np.array(indices, dtype=int)] = a[p]
    return beta_from_gamma(gamma, d, nu)
