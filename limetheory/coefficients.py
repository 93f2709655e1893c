"""The alpha coefficients, the normalisation constant c_d, the sigma coefficients and Sigma.

alpha_p = E[pi z_1 ... z_p] depends only on (p, d, nu) (Proposition 1 of the paper):
alpha_p = (1/d) sum_{s=1}^d P(p given words kept | s) psi(s/d).
Sigma = E[(1, z)(1, z)^T weighted by pi] has alpha_0 in the corner, alpha_1 on the first
row, first column and diagonal, alpha_2 elsewhere; its inverse is patterned the same way.
"""

from __future__ import annotations

import numpy as np

from ._validation import check_int, check_nu
from .sampling import kernel_weights


def _kept_fractions(p, d):
    """P(p given words kept | s) for s = 1..d, as an array (zero once s > d - p)."""
    s = np.arange(1, d + 1, dtype=float)
    out = np.ones(d)
    for k in range(p):
        out *= np.clip(d - s - k, 0, None) / (d - k)
    return out


def _representable(value, what, d, nu):
    """Refuse a quantity that underflowed to 0 (positive in exact arithmetic) instead of dividing by it."""
    if not value > 0:
        raise ValueError(
            f"{what} underflows in double precision for d = {d}, nu = {nu}: the weights psi(s/d) are below "
            "the smallest float; use a larger nu"
        )
    return value


def alpha(p, d, nu):
    """alpha_p = E[pi z_1 ... z_p] for a document with ``d`` distinct words (Proposition 1).

    ``p`` in {0, ..., d}; ``nu`` > 0 or ``np.inf`` (then alpha_p = (d - p) / ((p + 1) d)).
    """
    d = check_int(d, "d", minimum=1)
    p = check_int(p, "p", minimum=0, maximum=d)
    weights = kernel_weights(d, nu)
    return float(np.dot(_kept_fractions(p, d), weights) / d)


def alphas(d, nu, p_max=2):
    """The array (alpha_0, ..., alpha_{p_max})."""
    d = check_int(d, "d", minimum=1)
    p_max = check_int(p_max, "p_max", minimum=0, maximum=d)
    weights = kernel_weights(d, nu)
    return np.array([np.dot(_kept_fractions(p, d), weights) / d for p in range(p_max + 1)])


def normalization_constant(d, nu):
    """c_d = (d - 1) alpha_0 alpha_2 - d alpha_1^2 + alpha_0 alpha_1 (the determinant factor of Sigma).

    Computed in the equivalent cancellation-free form
    c_d = d * alpha_0 * sum_s w_s (a_s - a_bar)^2, with w_s = psi(s/d)/d, a_s = 1 - s/d and
    a_bar = alpha_1/alpha_0: a weighted variance of the fraction of kept words.
    Requires d >= 2 (for d = 1, Sigma is singular and c_1 = 0).
    """
    d = check_int(d, "d", minimum=2)
    nu = check_nu(nu)
    w = kernel_weights(d, nu) / d
    a = 1.0 - np.arange(1, d + 1) / d
    a0 = w.sum()
    a_bar = np.dot(w, a) / a0
    if not a0 > 0:
        _representable(a0, "alpha_0", d, nu)
    return float(d * a0 * np.dot(w, (a - a_bar) ** 2))


def _sigma_scalars(d, nu):
    """alpha_0, alpha_1, alpha_2, alpha_0 - alpha_1, alpha_1 - alpha_2 and c_d, each from a sum of
    non-negative terms (no subtraction of nearly equal numbers)."""
    d = check_int(d, "d", minimum=2)
    nu = check_nu(nu)
    w = kernel_weights(d, nu) / d
    s = np.arange(1, d + 1)
    a0, a1, a2 = (float(np.dot(_kept_fractions(p, d), w)) for p in range(3))
    drop = float(np.dot(w, s) / d)  # alpha_0 - alpha_1 = sum_s w_s s / d
    gap = float(np.dot(w, s * (d - s)) / (d * (d - 1)))  # alpha_1 - alpha_2
    c_d = _representable(normalization_constant(d, nu), "c_d", d, nu)
    _representable(gap, "alpha_1 - alpha_2", d, nu)
    return a0, a1, a2, drop, gap, c_d


def sigma_coefficients(d, nu):
    """(sigma_0, sigma_1, sigma_2, sigma_3) exactly as the paper defines them.

    sigma_0 = (d-1) alpha_2 + alpha_1, sigma_1 = -alpha_1,
    sigma_2 = ((d-2) alpha_0 alpha_2 - (d-1) alpha_1^2 + alpha_0 alpha_1) / (alpha_1 - alpha_2),
    sigma_3 = (alpha_1^2 - alpha_0 alpha_2) / (alpha_1 - alpha_2);
    Sigma^{-1} = (1/c_d) * [[sigma_0, sigma_1 ...], [sigma_1, sigma_2 on the diagonal, sigma_3 off it]].
    Evaluated through the equivalent forms
    sigma_2 = ((d-2) c_d + alpha_1 (alpha_0 - alpha_1)) / ((d-1)(alpha_1 - alpha_2)) (all terms >= 0) and
    sigma_3 = (alpha_1 (alpha_0 - alpha_1) - c_d) / ((d-1)(alpha_1 - alpha_2)).  Requires d >= 2.
    """
    a0, a1, a2, drop, gap, c_d = _sigma_scalars(d, nu)
    sigma2 = ((d - 2) * c_d + a1 * drop) / ((d - 1) * gap)
    sigma3 = (a1 * drop - c_d) / ((d - 1) * gap)
    return (float((d - 1) * a2 + a1), float(-a1), float(sigma2), float(sigma3))


def sigma_eigenvalues(d, nu):
    """The eigenvalues of Sigma: (smallest of the pair, largest of the pair, the bulk value).

    Sigma maps span{e_0, (0, 1, ..., 1)} to itself through the 2 x 2 matrix
    [[alpha_0, sqrt(d) alpha_1], [sqrt(d) alpha_1, alpha_1 + (d-1) alpha_2]], whose determinant is
    c_d; its two eigenvalues form the pair.  Every vector (0, v) with v orthogonal to (1, ..., 1)
    is an eigenvector for the bulk value alpha_1 - alpha_2 (multiplicity d - 1).  Requires d >= 2.
    """
    a0, a1, a2, _, bulk, determinant = _sigma_scalars(d, nu)
    trace = a0 + a1 + (d - 1) * a2
    root = np.sqrt(max(trace**2 - 4 * determinant, 0.0))
    # the small root as determinant / large root, which does not cancel
    large = (trace + root) / 2
    return (float(determinant / large), float(large), bulk)


def sigma_inverse_opnorm(d, nu):
    """The exact operator norm of Sigma^{-1}: one over Sigma's smallest eigenvalue."""
    small, _, bulk = sigma_eigenvalues(d, nu)
    return 1.0 / min(small, bulk)


def _patterned(d, corner, edge, diagonal, off_diagonal):
    m = np.full((d + 1, d + 1), float(off_diagonal))
    np.fill_diagonal(m, diagonal)
    m[0, :] = edge
    m[:, 0] = edge
    m[0, 0] = corner
    return m


def sigma_matrix(d, nu):
    """Sigma = E[pi (1, z)(1, z)^T], the dense (d+1) x (d+1) population covariance."""
    d = check_int(d, "d", minimum=1)
    a0, a1, a2 = alphas(d, nu, p_max=min(2, d)).tolist() + [0.0] * (2 - min(2, d))
    return _patterned(d, a0, a1, a1, a2)


def sigma_inverse(d, nu):
    """Sigma^{-1} from the closed form (1/c_d) * patterned(sigma_0, sigma_1, sigma_2, sigma_3).

    Requires d >= 2: for d = 1 the only word is always removed, so alpha_1 = 0, the second row
    and column of Sigma vanish and Sigma is singular.
    """
    d = check_int(d, "d", minimum=2)
    s0, s1, s2, s3 = sigma_coefficients(d, nu)
    return _patterned(d, s0, s1, s2, s3) / normalization_constant(d, nu)
