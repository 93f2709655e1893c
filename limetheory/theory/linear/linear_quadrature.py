r"""The rule over u that turns the norm of a kept set into exponentials: :math:`r^{-p}` as a sum of :math:`e^{-u r}`.

:func:`limetheory.theory.linear.linear_exact.beta_linear_exact` writes :math:`f = W(K) / R_K^p` (p = 1/2 for the L2
norm, p = 1 for the L1 norm) and :math:`R_K^{-p} = \frac{1}{\Gamma(p)} \int_0^\infty u^{p-1} e^{-u R_K}\, du` (step 2 of
:mod:`limetheory.theory.linear.linear_exact`'s docstring); this module holds the trapezoidal rule for that integral
after the substitution u = exp(v - exp(-v)), with relative error below about 1e-13 uniformly in r in [r_min, 1].
"""

from __future__ import annotations

import functools
import math
import numbers

import numpy as np

__all__ = ["inverse_sqrt_quadrature"]

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
