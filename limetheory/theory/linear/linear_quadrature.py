r"""The rule over u that turns the norm of a kept set into exponentials: :math:`r^{-p}` as a sum of :math:`e^{-u r}`.

:func:`limetheory.theory.linear.linear_exact.beta_linear_exact` writes :math:`f = W(K) / R_K^p` (p = 1/2 for the L2
norm, p = 1 for the L1 norm) and :math:`R_K^{-p} = \frac{1}{\Gamma(p)} \int_0^\infty u^{p-1} e^{-u R_K}\, du` (step 2 of
:mod:`limetheory.theory.linear.linear_exact`'s docstring); this module holds the trapezoidal rule for that integral
after the substitution u = exp(v - exp(-v)), with relative error below about 1e-13 uniformly in r in [r_min, 1]
(5.3e-14 measured for 1/√r, 1e-15 for 1/r), its nodes below u = ``GAUSS_LEFT_END`` replaced by the Gauss rule of
their own weights (``GAUSS_LEFT_NODES[p]`` nodes).

Why that replacement, and why there.  In the middle of the rule the trapezoidal rule in log u is close to the best
a sum of exponentials can do for a relative error uniform in r (its error, about exp(-π²/h), is the rate of the best
sums, Braess and Hackbusch); what it wastes is at its ends, where the substitution piles up nodes that only the
r near 0 or near infinity would need.  Only r in [r_min, 1] is ever asked for (every :math:`R_K \le R(\text{all
words}) = 1`), and below u = 12 that is a job for a Gauss rule: those nodes carry the discrete measure
:math:`\mu = \sum_q w_q \delta_{u_q}`, and the n-node Gauss rule of :math:`\mu` (positive weights, nodes in
:math:`[0, 12]`) integrates every polynomial of degree below 2n exactly, so its error on :math:`e^{-u r}` is
:math:`\partial_u^{2n} e^{-u r}(\xi) / (2n)!` times :math:`\int \pi_n^2\, d\mu` for some ξ in [0, 12], with
:math:`\pi_n` the monic orthogonal polynomial of μ.  The derivative is :math:`r^{2n} e^{-\xi r} \le 1` for r in
[0, 1], and :math:`\int \pi_n^2\, d\mu = \mu_0 \beta_1^2 \cdots \beta_n^2` (μ_0 the mass, β_k the off-diagonal
of μ's Jacobi matrix, which the Lanczos process computes): :func:`left_gauss_error_bound` evaluates it, 7e-17 for
1/√r (24 trapezoidal nodes, 10 Gauss nodes) and 6e-17 for 1/r (29 nodes, 11), against values :math:`r^{-p} \ge 1`.
A wider window gains nothing: past u = 12 the trapezoidal nodes are a log step apart, as sparse as a Gauss rule
of the same accuracy (one node more per window costs as many nodes as it replaces).  The Gauss nodes and weights
come from the Lanczos process on μ in mpmath (:func:`left_gauss_rule_mpmath`), stored rounded to float64
(``LEFT_GAUSS_TABLE``: the same process in float64 errs by 2e-14 in the nodes, which shows in the whole rule's error);
tests/test_linear_quadrature.py checks the table against it and the Gauss rule against the nodes it replaces, and
tests/test_linear_exact.py the whole rule against mpmath: 5.26e-14 for 1/√r (5.31e-14 before), 7.8e-16 for 1/r
(8.9e-16 before), on 20001 points of [r_min, 1] in float64.  The replacement removes 14 of the rule's 24 nodes
below u = 12 (18 of 29 for 1/r), each a node at which every size of the kept sets counts: 38 nodes instead of 52 for
r_min = 1e-3 (42 with the 7-node rule below u = 1 that it replaced, 00d5f3c); on the 1000 Yelp reviews 38.2
nodes a review instead of 42.2, and the leave-one-out recursion's work (nodes times sizes) 12% less.

Every weight is positive (the trapezoidal weights, and a Gauss rule's), which the accuracy argument of
:mod:`limetheory.theory.linear.linear_exact` needs: a positive mixture of :math:`e^{-u R_K}` with every
:math:`R_K \in [r_{\min}, 1]` is then integrated to the rule's relative accuracy on each.
"""

from __future__ import annotations

import functools
import math
import numbers

import numpy as np

__all__ = [
    "inverse_sqrt_quadrature",
    "left_gauss_error_bound",
    "left_gauss_rule_mpmath",
    "trapezoidal_power_quadrature",
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
#: the trapezoidal rule's nodes u <= GAUSS_LEFT_END are replaced by the Gauss rule of their weights (module docstring);
#: it falls between two nodes of each rule (10.07 and 13.91 for 1/sqrt(r), 11.22 and 14.67 for 1/r)
GAUSS_LEFT_END = 12.0
#: ... of this many nodes for each power p: the fewest whose error bound (left_gauss_error_bound) is below 1e-16
GAUSS_LEFT_NODES = {0.5: 10, 1.0: 11}
#: the Gauss rule below u = GAUSS_LEFT_END for each power: (nodes, weights), left_gauss_rule_mpmath(power) rounded
#: to float64 (tests/test_linear_quadrature.py checks it)
# fmt: off
LEFT_GAUSS_TABLE = {
    0.5: (
        (
            0.023954979922643227, 0.21032093474362132, 0.5565997402419312, 1.0275486946526007, 1.63490424153986,
            2.456526879873312, 3.5853967211091877, 5.127925074490785, 7.224973540246597, 10.06719428453828,
        ),
        (
            0.3482091740902649, 0.33537600161113557, 0.3122982084707102, 0.29511675407751625, 0.3084200688108294,
            0.3453818656046709, 0.39200507333981144, 0.44663680725497984, 0.510662468622922, 0.5857509546870999,
        ),
    ),
    1.0: (
        (
            0.058065911969050414, 0.29922567077642237, 0.7060212009612922, 1.2369501426044311, 1.862845863909693,
            2.6190228574446106, 3.5853274557847263, 4.836666847819156, 6.453771674443798, 8.538631725234918,
            11.222436140814073,
        ),
        (
            0.14824791730105852, 0.3298786161187624, 0.4764142537864679, 0.5793090320376796, 0.6788558139832964,
            0.8479942172231444, 1.0966163477418849, 1.41929405526693, 1.8317987159132858, 2.3596492220781444,
            3.035907448997448,
        ),
    ),
}
# fmt: on


def inverse_power_quadrature(r_min, power):
    r"""Nodes and positive weights with :math:`\sum_q w_q e^{-u_q r} = r^{-p}` on [r_min, 1], p = ``power``."""
    return _quadrature_rule(power, rule_last(r_min, power))


def rule_last(r_min, power):
    """The last grid point of :func:`inverse_power_quadrature`'s rule: r_min enters the rule only through it.

    Examples
    --------
    >>> nodes, weights = quadrature_rule(0.5, rule_last(1e-3, 0.5))
    >>> bool((nodes == inverse_power_quadrature(1e-3, 0.5)[0]).all())
    True
    """
    h = QUADRATURE_STEP if power == 0.5 else L1_QUADRATURE_STEP
    return int(np.ceil(np.log(QUADRATURE_RIGHT / r_min) / h))


def quadrature_rule(power, last):
    """The (cached, read-only) rule of :func:`inverse_power_quadrature` for the power and the last grid point.

    For callers that key their own caches on the rule (``linear_adjoint``): see :func:`rule_last`.
    """
    return _quadrature_rule(power, last)


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
    r"""The trapezoidal rule for :math:`r^{-p}` on [r_min, 1] alone, without the Gauss rule below u = 12 (read-only).

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
    return _trapezoidal_cached(power, rule_last(_check_r_min(r_min), power))


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


def _left_gauss_rule(power):
    """The Gauss rule below u = GAUSS_LEFT_END: ``LEFT_GAUSS_TABLE``'s nodes and weights as arrays."""
    nodes, weights = LEFT_GAUSS_TABLE[power]
    return np.array(nodes), np.array(weights)


def left_gauss_rule_mpmath(power, dps=40):
    r"""The Gauss rule of the trapezoidal nodes below u = ``GAUSS_LEFT_END``, computed in mpmath, and its error bound.

    The reference of ``LEFT_GAUSS_TABLE`` (tests/test_linear_quadrature.py checks the table is this rule rounded to
    float64).  The trapezoidal nodes :math:`u_q \le` ``GAUSS_LEFT_END`` and weights are evaluated at ``dps`` digits;
    the Lanczos process on diag(u) from the vector :math:`\sqrt{w} / \lVert \sqrt{w} \rVert` (each new vector
    reorthogonalised twice against all before it) gives the Jacobi matrix of their measure, whose eigenvalues are the
    nodes and the squared first components of its eigenvectors times the measure's mass the weights (Golub and
    Welsch).  The bound is :math:`\mu_0 \beta_1^2 \cdots \beta_n^2 / (2n)!` (module docstring), with
    :math:`\beta_n` the norm of the last Lanczos vector before normalisation.  In float64 the same process leaves
    errors of 2e-14 in the nodes (the measure spans 40 orders of magnitude in u), enough to raise the whole rule's
    error by 1.5e-15: hence a table.  About 0.1 s a call.

    Parameters
    ----------
    power : {0.5, 1.0}
        p: the L2 norm's 1/2 (trapezoidal step 0.3) or the L1 norm's 1 (step 0.25).
    dps : int
        mpmath's working precision, >= 20.

    Returns
    -------
    nodes, weights : list of mpmath.mpf
        ``GAUSS_LEFT_NODES[power]`` of each, the nodes increasing, every weight positive.
    bound : mpmath.mpf
        The bound on the rule's error on :math:`e^{-u r}` for every r in [0, 1] (where :math:`r^{-p} \ge 1`).

    Examples
    --------
    >>> nodes, weights, bound = left_gauss_rule_mpmath(0.5)
    >>> len(nodes), bool(bound < 1e-16), bool(min(weights) > 0)
    (10, True, True)
    """
    if isinstance(power, (bool, np.bool_)) or power not in GAUSS_LEFT_NODES:
        raise ValueError(f"power must be 0.5 or 1.0, got {power!r}")
    if isinstance(dps, (bool, np.bool_)) or not isinstance(dps, numbers.Integral) or dps < 20:
        raise ValueError(f"dps must be an integer >= 20, got {dps!r}")
    import mpmath  # the rule's reference only: the package's calls read the table

    with mpmath.workdps(int(dps)):
        h = mpmath.mpf(3) / 10 if power == 0.5 else mpmath.mpf(1) / 4
        p = mpmath.mpf(1) / 2 if power == 0.5 else mpmath.mpf(1)
        u, w = [], []
        k = int(np.ceil(QUADRATURE_LEFT / float(h)))
        while True:
            v = k * h
            g = v - mpmath.exp(-v)
            if mpmath.exp(g) > GAUSS_LEFT_END:
                break
            u.append(mpmath.exp(g))
            w.append(h * mpmath.exp(p * g) * (1 + mpmath.exp(-v)) / mpmath.gamma(p))
            k += 1
        mass, n, size = mpmath.fsum(w), GAUSS_LEFT_NODES[power], len(u)
        basis = [[mpmath.sqrt(x / mass) for x in w]]
        diagonal, off = [], []
        for k in range(n):
            vector = [u[i] * basis[k][i] for i in range(size)]
            diagonal.append(mpmath.fsum(basis[k][i] * vector[i] for i in range(size)))
            for _ in range(2):
                for previous in basis:
                    c = mpmath.fsum(previous[i] * vector[i] for i in range(size))
                    vector = [vector[i] - c * previous[i] for i in range(size)]
            off.append(mpmath.sqrt(mpmath.fsum(x * x for x in vector)))
            basis.append([x / off[k] for x in vector])
        jacobi = mpmath.matrix(n, n)
        for i in range(n):
            jacobi[i, i] = diagonal[i]
            if i < n - 1:
                jacobi[i, i + 1] = jacobi[i + 1, i] = off[i]
        values, vectors = mpmath.eigsy(jacobi)
        order = sorted(range(n), key=lambda i: values[i])
        bound = mass * mpmath.fprod(x * x for x in off) / mpmath.factorial(2 * n)
        return [values[i] for i in order], [mass * vectors[0, i] ** 2 for i in order], bound


def left_gauss_error_bound(power):
    r"""The bound on the error of the rule's Gauss part, relative to :math:`r^{-p}`, for every r in [0, 1].

    The Gauss rule that replaces the trapezoidal nodes below u = ``GAUSS_LEFT_END`` errs on :math:`e^{-u r}` by at
    most :math:`\mu_0 \beta_1^2 \cdots \beta_n^2 / (2n)!` (module docstring; :func:`left_gauss_rule_mpmath`
    computes it), and :math:`r^{-p} \ge 1` there.

    Parameters
    ----------
    power : {0.5, 1.0}
        p: the L2 norm's 1/2 or the L1 norm's 1.

    Returns
    -------
    float
        The bound: 7.3e-17 for 1/2, 6.3e-17 for 1 (``GAUSS_LEFT_NODES`` is chosen to keep it below 1e-16).

    Examples
    --------
    >>> bool(left_gauss_error_bound(1.0) < 1e-16)
    True
    """
    return float(left_gauss_rule_mpmath(power, 30)[2])


def inverse_sqrt_quadrature(r_min):
    r"""Nodes and weights with :math:`\sum_q w_q e^{-u_q r} = r^{-1/2}` on [r_min, 1], to ~1e-13 relative.

    The integral :math:`r^{-1/2} = \frac{1}{\sqrt{\pi}} \int_0^\infty u^{-1/2} e^{-u r}\, du` is discretised
    by the trapezoidal rule with step ``QUADRATURE_STEP`` in v, where :math:`u = e^{v - e^{-v}}`; the substitution
    makes the integrand decay double-exponentially as v → -∞ (where u → 0) and as v → +∞ (where u r → ∞).
    Its nodes below u = 12 are replaced by the 10-node Gauss rule of their weights (module docstring: 7e-17 of error,
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
        Both of shape (Q,), Q about (ln(45 / r_min) + 4.5) / 0.3 - 14 (the nodes in increasing order).
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
