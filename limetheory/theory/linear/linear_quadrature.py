r"""The rule over u that turns the norm of a kept set into exponentials: :math:`r^{-p}` as a sum of :math:`e^{-u r}`.

:func:`limetheory.theory.linear.linear_exact.beta_linear_exact` writes :math:`f = W(K) / R_K^p` (p = 1/2 for the L2
norm, p = 1 for the L1 norm) and :math:`R_K^{-p} = \frac{1}{\Gamma(p)} \int_0^\infty u^{p-1} e^{-u R_K}\, du` (step 2 of
:mod:`limetheory.theory.linear.linear_exact`'s docstring); this module holds the trapezoidal rule for that integral
after the substitution u = exp(v - exp(-v)), with relative error below about 1e-13 uniformly in r in [r_min, 1], its
nodes below u = ``GAUSS_LEFT_END`` replaced by the ``GAUSS_LEFT_NODES``-node Gauss rule of their own weights.

That replacement: the rule's nodes :math:`u_q \le u^*` carry the discrete measure
:math:`\mu = \sum_q w_q \delta_{u_q}`, and only :math:`\sum_q w_q e^{-u_q r}` with :math:`r \in [0, 1]` is ever
asked of them (every :math:`R_K \le R(\text{all words}) = 1`).  The n-node Gauss rule of :math:`\mu` (positive
weights, nodes in :math:`[0, u^*]`) integrates every polynomial of degree below 2n exactly, so its error on
:math:`e^{-u r}` is at most :math:`\max_u \lvert \partial_u^{2n} e^{-u r} \rvert / (2n)!` times the integral
over :math:`\mu` of the squared monic orthogonal polynomial, which is at most that of the monic Chebyshev polynomial
of :math:`[0, u^*]`, :math:`4 (u^*/4)^{2n} \mu([0, u^*])`: with :math:`u^* = 1` and n = 7, below
:math:`4 \cdot 2 \cdot 4^{-14} / 14! = 3 \cdot 10^{-19}`, against values :math:`\ge 1` (the whole rule's
:math:`r^{-p}`).  Its nodes and weights come from the Lanczos process on :math:`\mu` (float64, fully
reorthogonalised): their rounding leaves about 2e-16 relative (tests/test_linear_exact.py checks the whole rule
against mpmath).  It removes 10 of the rule's 17 nodes below u = 1 (14 of 21 for 1/r), each a node at which every
size of the kept sets counts: a fifth of the exact route's work on a review.
"""

from __future__ import annotations

import functools
import math
import numbers

import numpy as np

__all__ = ["inverse_sqrt_quadrature", "trapezoidal_power_quadrature"]

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
#: the trapezoidal rule's nodes u <= GAUSS_LEFT_END are replaced by the Gauss rule of their weights (module docstring)
GAUSS_LEFT_END = 1.0
#: ... of this many nodes
GAUSS_LEFT_NODES = 7


def inverse_power_quadrature(r_min, power):
    r"""Nodes and positive weights with :math:`\sum_q w_q e^{-u_q r} = r^{-p}` on [r_min, 1], p = ``power``."""
    h = QUADRATURE_STEP if power == 0.5 else L1_QUADRATURE_STEP
    return _quadrature_rule(power, int(np.ceil(np.log(QUADRATURE_RIGHT / r_min) / h)))


@functools.lru_cache(maxsize=256)
def _quadrature_rule(power, last):
    """The quadrature rule on the grid v = k h, k = ceil(QUADRATURE_LEFT / h)..last.

    r_min enters only through ``last``, so documents share rules (cached: the exponentials cost as much as the
    rest of a call at small d).  The arrays are read-only, since every caller gets the same ones.
    """
    nodes, weights = _trapezoidal_rule(power, last)
    left = nodes <= GAUSS_LEFT_END  # the same nodes for every last (r_min <= 1 puts last beyond them)
    gauss_nodes, gauss_weights = _left_gauss_rule(power)
    nodes = np.concatenate([gauss_nodes, nodes[~left]])
    weights = np.concatenate([gauss_weights, weights[~left]])
    nodes.flags.writeable = False
    weights.flags.writeable = False
    return nodes, weights


def trapezoidal_power_quadrature(r_min, power):
    r"""The trapezoidal rule for :math:`r^{-p}` on [r_min, 1] alone, without the Gauss rule below u = 1 (read-only).

    For callers that reweight the nodes for other powers (``linear_powers``: weights times
    :math:`u^{q - 1}`, which the trapezoidal rule in v allows and a Gauss rule of the 1/r weights does not).

    Parameters
    ----------
    r_min : float
        Smallest value of r the rule must serve, in (0, 1] (checked as by :func:`inverse_sqrt_quadrature`).
    power : {0.5, 1.0}
        p: the L2 norm's 1/2 (step 0.3 in v) or the L1 norm's 1 (step 0.25).

    Returns
    -------
    nodes, weights : ndarray, ndarray
        Read-only, shape (Q,), the nodes increasing; relative error below about 1e-13 on [r_min, 1].

    Examples
    --------
    >>> nodes, weights = trapezoidal_power_quadrature(1e-3, 1.0)
    >>> bool(abs((weights * np.exp(-nodes * 0.5)).sum() * 0.5 - 1) < 1e-13)
    True
    """
    h = QUADRATURE_STEP if power == 0.5 else L1_QUADRATURE_STEP
    return _trapezoidal_cached(power, int(np.ceil(np.log(QUADRATURE_RIGHT / _check_r_min(r_min)) / h)))


@functools.lru_cache(maxsize=256)
def _trapezoidal_cached(power, last):
    nodes, weights = _trapezoidal_rule(power, last)
    nodes.flags.writeable = False
    weights.flags.writeable = False
    return nodes, weights


def _trapezoidal_rule(power, last):
    """The trapezoidal rule in v (u = exp(v - exp(-v))) on the grid v = k h, k = ceil(QUADRATURE_LEFT / h)..last."""
    h = QUADRATURE_STEP if power == 0.5 else L1_QUADRATURE_STEP
    v = np.arange(np.ceil(QUADRATURE_LEFT / h), last + 1) * h
    g = v - np.exp(-v)
    gamma_of_power = np.sqrt(np.pi) if power == 0.5 else math.gamma(power)
    return np.exp(g), h * np.exp(power * g) * (1 + np.exp(-v)) / gamma_of_power


@functools.lru_cache(maxsize=2)
def _left_gauss_rule(power):
    """The GAUSS_LEFT_NODES-node Gauss rule of the trapezoidal rule's nodes u <= GAUSS_LEFT_END and their weights.

    The Lanczos process on diag(u) from the vector sqrt(w) / |sqrt(w)| (each new vector reorthogonalised twice
    against all before it) gives the Jacobi matrix of the discrete measure; its eigenvalues are the nodes, and the
    squared first components of its eigenvectors times the measure's mass the weights (Golub and Welsch).
    """
    u, w = _trapezoidal_rule(power, int(np.ceil(np.log(QUADRATURE_RIGHT) / QUADRATURE_STEP)))
    left = u <= GAUSS_LEFT_END
    u, w = u[left], w[left]
    n = GAUSS_LEFT_NODES
    basis = np.zeros((n + 1, u.size))
    diagonal, off = np.zeros(n), np.zeros(n)
    basis[0] = np.sqrt(w) / np.linalg.norm(np.sqrt(w))
    for k in range(n):
        vector = u * basis[k]
        diagonal[k] = basis[k] @ vector
        for _ in range(2):
            vector = vector - basis[: k + 1].T @ (basis[: k + 1] @ vector)
        off[k] = np.linalg.norm(vector)
        basis[k + 1] = vector / off[k]
    jacobi = np.diag(diagonal) + np.diag(off[: n - 1], 1) + np.diag(off[: n - 1], -1)
    nodes, vectors = np.linalg.eigh(jacobi)
    return nodes, w.sum() * vectors[0] ** 2


def inverse_sqrt_quadrature(r_min):
    r"""Nodes and weights with :math:`\sum_q w_q e^{-u_q r} = r^{-1/2}` on [r_min, 1], to ~1e-13 relative.

    The integral :math:`r^{-1/2} = \frac{1}{\sqrt{\pi}} \int_0^\infty u^{-1/2} e^{-u r}\, du` is discretised
    by the trapezoidal rule with step ``QUADRATURE_STEP`` in v, where :math:`u = e^{v - e^{-v}}`; the substitution
    makes the integrand decay double-exponentially as v → -∞ (where u → 0) and as v → +∞ (where u r → ∞).
    Its nodes below u = 1 are replaced by the 7-node Gauss rule of their weights (module docstring: 3e-19 of error
    and rounding).  Every weight is positive, so the same rule integrates any positive mixture of :math:`e^{-u R}`
    with R in [r_min, 1] to the same relative accuracy.  (The L1 norm uses the same rule for
    :math:`r^{-1} = \int_0^\infty e^{-u r}\, du`, with weights :math:`h\, u (1 + e^{-v})`.)

    Parameters
    ----------
    r_min : float
        Smallest value of r the rule must serve, in (0, 1].

    Returns
    -------
    nodes, weights : ndarray, ndarray
        Both of shape (Q,), Q about (ln(45 / r_min) + 4.5) / 0.3 - 10 (the nodes in increasing order).
    """
    return inverse_power_quadrature(_check_r_min(r_min), 0.5)


def _check_r_min(r_min):
    if isinstance(r_min, (bool, np.bool_)) or not isinstance(r_min, numbers.Real):
        raise TypeError(f"r_min must be a real number in (0, 1], got {r_min!r}")
    r_min = float(r_min)
    if not (0 < r_min <= 1):
        raise ValueError(f"r_min must lie in (0, 1], got {r_min}")
    if r_min < MIN_WEIGHT_RATIO**2:
        raise ValueError(f"r_min must be >= {MIN_WEIGHT_RATIO**2:g}, got {r_min}")
    return r_min
