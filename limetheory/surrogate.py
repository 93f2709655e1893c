"""The weighted linear surrogate that lime fits, solved with plain linear algebra.

lime fits sklearn's ``Ridge(alpha=lam, fit_intercept=True)`` on the masks z with sample weights pi:
it minimises sum_i pi_i (y_i - beta_0 - z_i . beta_{1:})^2 + lam ||beta_{1:}||^2, leaving the
intercept unpenalised.  With lam = 0 this is the weighted least squares that the paper analyses.
"""

from __future__ import annotations

import numbers

import numpy as np


def _check_samples(z, y, weights):
    z = np.asarray(z, dtype=float)
    y = np.asarray(y, dtype=float)
    weights = np.asarray(weights, dtype=float)
    if z.ndim != 2 or z.shape[1] < 1:
        raise ValueError(f"z must be an (n, d) array with d >= 1, got shape {z.shape}")
    if y.shape != (z.shape[0],) or weights.shape != (z.shape[0],):
        raise ValueError(f"y and weights must have shape ({z.shape[0]},) to match z, got {y.shape} and {weights.shape}")
    if not (np.isfinite(z).all() and np.isfinite(y).all() and np.isfinite(weights).all()):
        raise ValueError("z, y and weights must be finite")
    if (weights < 0).any() or not (weights > 0).any():
        raise ValueError("weights must be non-negative and not all zero")
    return z, y, weights


def normal_equations(z, y, weights):
    """A = X^T W X and c = X^T W y, where X = [1, z] has a leading column of ones.

    Parameters
    ----------
    z : array_like, shape (n, d)
    y, weights : array_like, shape (n,)
        Responses and non-negative sample weights.
    """
    z, y, weights = _check_samples(z, y, weights)
    design = np.column_stack([np.ones(len(y)), z])
    return design.T @ (weights[:, None] * design), design.T @ (weights * y)


def weighted_ridge(z, y, weights, *, lam=1.0, penalise_intercept=False):
    """The minimiser (A + lam P)^{-1} c of lime's weighted ridge objective, as an array of length d + 1.

    ``P`` is diag(0, 1, ..., 1) (lime's problem: sklearn does not penalise the intercept), or the
    identity with ``penalise_intercept=True`` (the paper's Eq. (5) as printed).  ``lam = 0`` gives
    weighted least squares.  Index 0 is the intercept.
    """
    if isinstance(lam, bool) or not isinstance(lam, numbers.Real) or not np.isfinite(lam) or lam < 0:
        raise ValueError(f"lam must be a finite number >= 0, got {lam!r}")
    design_matrix, vector = normal_equations(z, y, weights)
    penalty = np.eye(len(vector))
    if not penalise_intercept:
        penalty[0, 0] = 0.0
    return np.linalg.solve(design_matrix + float(lam) * penalty, vector)
