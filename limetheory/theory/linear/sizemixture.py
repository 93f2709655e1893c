r"""Weights over the sizes of a random subset, written as a mixture of independent keeps.

A function of the kept set K of d words, averaged over the sets of each size m with weights
:math:`\alpha_m`, is :math:`\sum_m \alpha_m \mathbb{E}[h \mid \lvert K\rvert = m]`.  Keeping every word
independently with probability p gives
:math:`\mathbb{E}_p[h] = \sum_m b(m; d, p)\, \mathbb{E}[h \mid \lvert K\rvert = m]` (b the binomial
probability), and for a product :math:`h = \prod_{j \in K} x_j` this costs d operations instead of the d² of the
sizes one by one.  So if the weights are a mixture of binomials,

.. math:: \alpha_m = (Ag)_m = \int_0^1 b(m; d, p)\, g(p)\, dp \quad (m = 0..d),

the weighted sum is :math:`\int_0^1 g(p)\, \mathbb{E}_p[h]\, dp`, one integral over p.

The map A is diagonal in two classical bases: the shifted Legendre polynomial :math:`\tilde P_k(p) = P_k(2p - 1)`
goes to a multiple of the Hahn polynomial :math:`Q_k(m) = {}_3F_2(-k, k + 1, -m; 1, -d; 1)` (the discrete
Chebyshev polynomial on 0..d, :math:`Q_k(0) = 1`):

.. math:: A \tilde P_k = c_k Q_k, \qquad c_k = \frac{(-1)^k}{d + 1} \prod_{i=0}^{k-1} \frac{d - i}{d + 2 + i},

(proved in chapter 20 from :math:`\int_0^1 b(m; d, p) p^j dp = (m + 1)_j / ((d + 1)(d + 2)_j)` and the
self-adjointness of the Bernstein-Durrmeyer operator, Derriennic 1981; checked for a symbolic d by the tests).  A
weight sequence that is a polynomial of degree r in m is therefore exactly :math:`A g` with g a polynomial of degree
r.  The amplification :math:`\mathcal{A}_r = 1 / ((d + 1) \lvert c_r\rvert) \le e^{r(r + 1)/(d - r + 1)}` bounds
the mixture's effect on rounding: the computed integral's error is at most :math:`\sqrt{\mathcal{A}_r}` times that
of the direct sum over the sizes (chapter 20, with a rule in p exact for :math:`g^2`).

LIME's weights are :math:`\psi(s/d)` with s = d - m removed words, a smooth function of :math:`\sqrt{m/d}`: analytic
on (0, 1] but not at m = 0.  :func:`fit_size_weights` fits them by a polynomial in m on the sizes m >= ``start``
and reports the remainder on the small sizes, which the caller adds exactly; the fit is accepted only if its largest
residual on every fitted size is below ``tol`` times the largest weight.  The branch point at 0 sets the degree
(Bernstein's theorem: :math:`O(\sqrt{d / \mathrm{start}} \log(1/\mathrm{tol}))`; measured 128 at d = 9938, ν = 0.25,
start = 64), so that :math:`r^2 / d`, hence the amplification, stays bounded as d grows.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

__all__ = ["SizeMixture", "fit_size_weights", "gauss_legendre_unit", "hahn_values"]

#: degrees tried in turn by :func:`fit_size_weights`: the first whose residual passes is kept (constant weights,
#: LIME's at ν = ∞, take degree 0)
DEGREES = (0, 1, 2, 4, 8, 16, 32, 48, 64, 96, 128, 160, 192, 256, 320)
#: largest accepted amplification max_k 1/((d + 1) |c_k|) <= exp(r(r + 1)/(d - r + 1)); rounding errors of the
#: mixture grow by at most its square root (chapter 20)
MAX_AMPLIFICATION = 1e3


def hahn_values(m, d, degree):
    r"""The Hahn polynomials :math:`Q_k(m)` on 0..d (discrete Chebyshev, :math:`Q_k(0) = 1`) for k = 0..degree.

    They are computed by their three-term recurrence in k,
    :math:`-m Q_k = A_k Q_{k+1} - (A_k + C_k) Q_k + C_k Q_{k-1}` with :math:`A_k = (k + 1)(d - k) / (2(2k + 1))` and
    :math:`C_k = k (k + d + 1) / (2 (2k + 1))`, which is stable on 0 <= m <= d (the polynomials are bounded by 1
    there).

    Parameters
    ----------
    m : array_like of float
        Points in [0, d] (subset sizes).
    d : int
        Number of words (the polynomials are orthogonal on 0..d).
    degree : int
        Highest k, at most d.

    Returns
    -------
    ndarray, shape (degree + 1, len(m))
        Row k holds :math:`Q_k(m)`.

    Examples
    --------
    >>> (hahn_values([0, 1, 2], 2, 2).round(12) + 0.0).tolist()
    [[1.0, 1.0, 1.0], [1.0, 0.0, -1.0], [1.0, -2.0, 1.0]]
    """
    m = np.atleast_1d(np.asarray(m, dtype=float))
    values = np.empty((degree + 1, m.size))
    values[0] = 1.0
    if degree >= 1:
        values[1] = 1.0 - 2.0 * m / d
    for k in range(1, degree):
        a = (k + 1) * (d - k) / (2.0 * (2 * k + 1))
        c = k * (k + d + 1) / (2.0 * (2 * k + 1))
        values[k + 1] = ((a + c - m) * values[k] - c * values[k - 1]) / a
    return values


def _legendre_and_derivative(n, t):
    """P_n(t) and P_n'(t) by the three-term recurrence, in the precision of t."""
    previous, value = np.ones_like(t), t.copy()
    for k in range(2, n + 1):
        previous, value = value, ((2 * k - 1) * t * value - (k - 1) * previous) / k
    return value, n * (t * value - previous) / ((t - 1) * (t + 1))


@functools.lru_cache(maxsize=64)
def gauss_legendre_unit(n):
    """The n-point Gauss-Legendre rule on [0, 1]: nodes p, 1 - p (computed without cancellation) and weights.

    Parameters
    ----------
    n : int
        Number of nodes (>= 1).

    Returns
    -------
    p, one_minus_p, weights : ndarray, ndarray, ndarray
        Each of shape (n,), read-only (the rules are cached).  The rule integrates polynomials of degree
        2n - 1 exactly.

    Examples
    --------
    >>> p, q, v = gauss_legendre_unit(3)
    >>> round(float(v @ p**5), 15)
    0.166666666666667
    """
    # numpy's nodes are refined by Newton's method in extended precision, where 1 + t and 1 - t keep the
    # relative accuracy of the nodes near the ends (in double, p = (1 + t) / 2 near 0 would carry an absolute
    # error of 1e-16: a relative 1e-11 at the first node of 500, where integrands like e^{-10⁴ p} live)
    t = np.polynomial.legendre.leggauss(n)[0].astype(np.longdouble)
    for _ in range(3):
        value, derivative = _legendre_and_derivative(n, t)
        t = t - value / derivative
    _, derivative = _legendre_and_derivative(n, t)
    weights = 1.0 / ((1.0 - t) * (1.0 + t) * derivative**2)  # 2 / ((1 - t²) P_n'(t)²), halved for [0, 1]
    rule = tuple(np.asarray(a, dtype=float) for a in ((1.0 + t) / 2.0, (1.0 - t) / 2.0, weights))
    for array in rule:
        array.flags.writeable = False
    return rule


@dataclass(frozen=True)
class SizeMixture:
    r"""Weights over sizes 0..d written as :math:`A g` on the fitted sizes, plus an exact remainder below them.

    Attributes
    ----------
    d : int
        Number of words.
    start : int
        Smallest fitted size: for m < start, ``weights[m] - fitted[m]`` is added exactly by the caller.
    legendre : ndarray, shape (degree + 1,)
        The coefficients of g in the shifted Legendre polynomials :math:`P_k(2p - 1)`.
    fitted : ndarray, shape (d + 1,)
        :math:`(A g)_m` for m = 0..d (equal to the weights on start..d within the residual).
    residual : float
        Largest :math:`\lvert (A g)_m - \alpha_m\rvert` over m >= start, relative to the largest weight.
    amplification : float
        max_k 1 / ((d + 1) |c_k|) over the degrees used; the mixture's rounding errors are at most its square root
        times those of the direct sum over the sizes (chapter 20).
    """

    d: int
    start: int
    legendre: np.ndarray
    fitted: np.ndarray
    residual: float
    amplification: float

    @property
    def degree(self) -> int:
        """The degree of g."""
        return self.legendre.size - 1

    def density(self, p):
        """g at the points p of [0, 1].

        Parameters
        ----------
        p : array_like
            Points of [0, 1].

        Returns
        -------
        ndarray
            g(p), by Clenshaw's recurrence for the Legendre series.
        """
        return np.polynomial.legendre.legval(2.0 * np.asarray(p, dtype=float) - 1.0, self.legendre)


def fit_size_weights(weights, *, start, tol=3e-14):
    """Write size weights as a binomial mixture on the sizes >= ``start`` (see the module docstring).

    The polynomial in m is fitted by least squares in the Hahn basis at about 2r + 2 Chebyshev-spaced sizes of
    [start, d], for the degrees r of ``DEGREES`` in turn, and accepted when its largest residual over *every*
    size start..d is at most ``tol`` times the largest weight (the residual is checked, not assumed).

    Parameters
    ----------
    weights : array_like, shape (d + 1,)
        Finite weights for the sizes m = 0..d (entries below ``start`` are not fitted).
    start : int
        Smallest fitted size, 0 <= start <= d.
    tol : float
        Accepted residual, relative to max |weights|.

    Returns
    -------
    SizeMixture or None
        None when no degree of ``DEGREES`` with an amplification below ``MAX_AMPLIFICATION`` fits (for instance
        weights concentrated on a few sizes, as with a very small bandwidth): the caller must then use another
        method.

    Examples
    --------
    >>> mixture = fit_size_weights(np.linspace(1.0, 2.0, 101), start=0)
    >>> mixture.degree, bool(mixture.residual < 1e-14)
    (1, True)
    """
    weights = np.asarray(weights, dtype=float)
    d = weights.size - 1
    if not np.isfinite(weights).all() or d < 1:
        return None
    scale = float(np.abs(weights).max())
    if scale == 0.0:
        return SizeMixture(d, start, np.zeros(1), np.zeros(d + 1), 0.0, 1.0)
    sizes = np.arange(d + 1)
    for degree in DEGREES:
        degree = min(degree, d - start)
        k = np.arange(degree)
        log_ratio = np.concatenate([[0.0], np.cumsum(np.log((d - k) / (d + 2.0 + k)))])  # log |(d + 1) c_k|
        amplification = float(np.exp(-log_ratio[-1]))
        if amplification > MAX_AMPLIFICATION:
            return None
        n_points = min(d - start + 1, 2 * degree + 2)
        chebyshev = (np.cos(np.pi * (np.arange(n_points) + 0.5) / n_points) + 1.0) / 2.0
        points = np.unique(np.rint(start + chebyshev * (d - start)).astype(int))
        hahn_coefficients, *_ = np.linalg.lstsq(hahn_values(points, d, degree).T, weights[points], rcond=None)
        fitted = hahn_coefficients @ hahn_values(sizes, d, degree)
        residual = float(np.abs(fitted[start:] - weights[start:]).max()) / scale
        if residual <= tol:
            signs = np.where(np.arange(degree + 1) % 2 == 0, 1.0, -1.0)
            legendre = hahn_coefficients * signs * (d + 1) * np.exp(-log_ratio)  # a_k = b_k / c_k
            return SizeMixture(d, start, legendre, fitted, residual, amplification)
        if degree == d - start:
            break
    return None
