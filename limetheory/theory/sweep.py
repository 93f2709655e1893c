r"""Every bandwidth from one sample: lime's weighted least-squares fit, reweighted at each ν.

LIME's sampling law of the masks does not involve the bandwidth; only the weights ψ(s/d; ν) do, and they
depend on a sample only through its number s of removed words.  Group the rows (x_i = (1, z_i), y_i) by s once:

.. math::

   XX_s = \sum_{i:\, s_i = s} x_i x_i^\top, \qquad XY_s = \sum_{i:\, s_i = s} x_i y_i;

then for any ν the weighted least-squares fit is

.. math::

   \beta(\nu) = \Bigl(\sum_s \psi_s XX_s\Bigr)^{-1} \sum_s \psi_s XY_s,

one small solve, whatever the number of rows.  (Numerically the sums are kept as triangular factors
:math:`XX_s = R_s^\top R_s`, :math:`XY_s = R_s^\top q_s` from a QR factorisation of each group, and each ν is a
least-squares problem with at most (d + 1)² rows solved by QR: at small ν the weights span many orders of
magnitude and the normal equations would square the condition number.)  This is the reweighting principle of
the book's chapter "The bandwidth sweep"; the standard errors are the plug-in sandwich of weighted least
squares, and the standard error of a zero of a coefficient curve is the delta method (optionally also a block
jackknife).

Rows may have any s in 0..d (s = 0 is the unperturbed document, with weight ψ(0) = 1), so the masks that lime
itself generated (:func:`~limetheory.engine.empirical.capture_lime_samples`) can be used as they are.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np
from scipy.linalg import solve_triangular
from scipy.optimize import brentq

from .._validation import as_float_array, check_bool, check_int, check_memory, check_real, check_work
from ..units import bandwidth_keyword
from .sampling import psi

# nu^3 is a normal double for nu >= _NU_CUBE_MIN; below, the derivative is formed as ((gap / nu)^2) / nu
_NU_CUBE_MIN = float(np.finfo(float).tiny ** (1.0 / 3.0))
# brentq's default iteration cap, plus the two ends of the bracket and the final solve
_ROOT_SOLVES = 103
# Python overhead of one small solve, in floating-point operations of the cost model (about 50 microseconds)
_SOLVE_OVERHEAD = 1e5


@dataclass(frozen=True)
class CoefficientZero:
    """The zero of one coefficient curve ν ↦ β₁₊ⱼ(ν), as returned by :func:`coefficient_zero`.

    Attributes
    ----------
    nu : float
        The zero in the bracket.
    se : float
        Delta-method standard error: the sandwich standard error of the coefficient at ``nu`` over the absolute
        slope.
    se_jackknife : float
        Block-jackknife standard error (the zero recomputed with each block of rows left out); NaN when
        ``n_blocks == 1``.
    slope : float
        Derivative of the coefficient with respect to ν at the zero (exact, not a finite difference).

    Examples
    --------
    >>> zero = CoefficientZero(nu=0.5, se=0.03, se_jackknife=float("nan"), slope=0.66)
    >>> zero.nu, zero.slope
    (0.5, 0.66)
    """

    nu: float
    se: float
    se_jackknife: float
    slope: float


def _check_data(z, y):
    z = as_float_array(z, "z")
    if z.ndim != 2 or z.shape[0] < 1 or z.shape[1] < 1:
        raise ValueError(f"z must be an (n, d) array with n >= 1 and d >= 1, got shape {z.shape}")
    if not np.isin(z, (0.0, 1.0)).all():
        raise ValueError("z must contain only 0 (word removed) and 1 (word kept)")
    y = as_float_array(y, "y")
    if y.shape != (z.shape[0],):
        raise ValueError(f"y must have shape ({z.shape[0]},) to match z, got {y.shape}")
    return z, y


def _check_nus(nus):
    if isinstance(nus, numbers.Number) or (isinstance(nus, np.ndarray) and nus.ndim == 0):
        raise ValueError(f"nus must be a 1-D sequence of bandwidths (wrap a single one in a list), got {nus!r}")
    nus = as_float_array(nus, "nus", allow_nonfinite=True)
    if nus.ndim != 1 or nus.size == 0:
        raise ValueError(f"nus must be a non-empty 1-D sequence of bandwidths, got shape {nus.shape}")
    if np.isnan(nus).any() or (nus <= 0).any():
        raise ValueError("nus must contain only bandwidths > 0 (np.inf for the large-bandwidth limit)")
    return nus


def _check_n_blocks(n_blocks, n):
    n_blocks = check_int(n_blocks, "n_blocks", minimum=1)
    if n_blocks > n:
        raise ValueError(f"n_blocks must be <= the number of rows of z ({n}), got {n_blocks}")
    return n_blocks


def _weights(d, nus):
    """psi(s/d; nu) for s = 0..d, one row per nu: shape (len(nus), d + 1)."""
    t = np.arange(d + 1) / d
    return np.array([psi(t, nu=float(nu)) for nu in nus])


def _weight_derivatives(d, nus):
    """d psi(s/d; nu) / d nu = psi * g^2 / nu^3 with g = 1 - sqrt(1 - t) (0 at nu = inf).

    Continuous up to nu = inf: nu^3 overflows to inf for nu > 5.6e102, where the derivative is below 1e-308
    and becomes 0.0; for tiny nu, where nu^3 would underflow, it is formed as ((g / nu)^2) / nu, and the
    weights that are 0.0 give 0.0 (not 0 * inf).
    """
    t = np.arange(d + 1) / d
    gap = t / (1.0 + np.sqrt(1.0 - t))
    out = []
    for nu in nus:
        nu = float(nu)
        if np.isinf(nu):
            out.append(np.zeros(d + 1))
            continue
        weights = psi(t, nu=nu)
        with np.errstate(over="ignore", under="ignore", invalid="ignore"):
            if nu >= _NU_CUBE_MIN:
                value = weights * gap**2 / np.power(np.float64(nu), 3)  # the C pow of nu**3, inf above 5.6e102
            else:
                value = weights * ((gap / nu) ** 2 / nu)
        out.append(np.where(weights > 0, value, 0.0))
    return np.array(out)


def _check_cost(n, d, solves, n_systems, sandwiches, what):
    """Refuse, before any work, a sweep whose memory or operation count is beyond the limits.

    The grouped system has at most R = min(n, (d + 1)^2) rows of length p = d + 1 (one triangular factor per s);
    each of the ``n_systems`` systems (the full one and one per jackknife block) is solved ``solves`` times (QR,
    2 R p^2 operations each, plus the Python overhead of a call), grouping the rows costs 2 n p^2 and the
    jackknife systems 2 n_systems^2 p^4, and each of the ``sandwiches`` standard-error passes 2 n p^2.
    """
    p = d + 1
    rows = min(n, p * p)
    check_memory(8.0 * p * (2 * n + (n_systems + 3) * rows), what, "use fewer words, rows or jackknife blocks")
    solving = n_systems * solves * (2.0 * rows * p * p + _SOLVE_OVERHEAD)
    setup = 2.0 * n * p * p + 2.0 * n_systems**2 * p**4
    check_work(setup + solving + sandwiches * 2.0 * n * p * p, what, "use fewer bandwidths, words, rows or blocks")


def _triangular(x, y, p):
    """(R, Q^T y) of the reduced QR factorisation x = Q R: sum ||x b - y||^2 = ||R b - Q^T y||^2 + constant."""
    if len(x) == 0:
        return np.zeros((0, p)), np.zeros(0)
    q, r = np.linalg.qr(x)
    return r, q.T @ y


def _combine(parts, p):
    """One triangular factor for the union of the rows behind several factors."""
    if len(parts) == 1:
        return parts[0]
    return _triangular(np.vstack([r for r, _ in parts]), np.concatenate([q for _, q in parts]), p)


class _System:
    """The weighted least-squares problem of a set of rows, reduced to one triangular factor per s = 0..d.

    sum_i psi(s_i) (y_i - x_i . b)^2 = sum_s psi(s) ||R_s b - q_s||^2 + constant, so every bandwidth is a least-squares
    problem with at most (d + 1)^2 rows, solved by QR (backward stable, unlike the normal equations, whose condition
    number is squared: at small nu the weights span many orders of magnitude).
    """

    def __init__(self, factors, p):
        self.p = p
        self.r = np.vstack([r for r, _ in factors])
        self.q = np.concatenate([q for _, q in factors])
        self.row_s = np.concatenate([np.full(len(q), s, dtype=np.int64) for s, (_, q) in enumerate(factors)])

    def solve(self, weights):
        """(beta, triangular factor T with T^T T = sum_i psi_i x_i x_i^T) for each row of ``weights``."""
        betas, factors = [], []
        for w in weights:
            root = np.sqrt(w)[self.row_s]
            q, r = np.linalg.qr(root[:, None] * self.r)
            diagonal = np.abs(np.diag(r)) if r.shape[0] == self.p else np.zeros(1)
            if diagonal.max() == 0 or diagonal.min() <= diagonal.max() * self.p * np.finfo(float).eps:
                raise ValueError(
                    "the weighted normal equations are singular at some bandwidth: the rows of [1, z] with positive "
                    "weight must span d + 1 dimensions (every word must be both kept and removed, with enough "
                    "distinct masks)"
                )
            betas.append(solve_triangular(r, q.T @ (root * self.q)))
            factors.append(r)
        return np.array(betas), np.array(factors)

    def derivative(self, weight_derivatives, beta, factor):
        """d beta / d nu = A^{-1} sum_s psi'_s R_s^T (q_s - R_s beta), with A = factor^T factor."""
        gradient = self.r.T @ (weight_derivatives[self.row_s] * (self.q - self.r @ beta))
        return solve_triangular(factor, solve_triangular(factor, gradient, trans="T"))


class _Moments:
    """Rows x = (1, z), y and s, and the triangular factors per block and s (row i in block i % n_blocks)."""

    def __init__(self, z, y, n_blocks=1):
        n, d = z.shape
        p = d + 1
        self.n, self.d = n, d
        self.x = np.column_stack([np.ones(n), z])
        self.y = y
        self.s = (d - z.sum(axis=1)).astype(np.int64)
        keys = (np.arange(n) % n_blocks) * p + self.s
        order = np.argsort(keys, kind="stable")
        bounds = np.searchsorted(keys[order], np.arange(n_blocks * p + 1))
        blocks = []
        for b in range(n_blocks):
            factors = []
            for s in range(p):
                rows = order[bounds[b * p + s] : bounds[b * p + s + 1]]
                factors.append(_triangular(self.x[rows], y[rows], p))
            blocks.append(factors)
        self.full = _System([_combine([blocks[b][s] for b in range(n_blocks)], p) for s in range(p)], p)
        self.left_out = (
            [
                _System([_combine([blocks[c][s] for c in range(n_blocks) if c != b], p) for s in range(p)], p)
                for b in range(n_blocks)
            ]
            if n_blocks > 1
            else []
        )


def _sandwich(moments, weights, beta, factors, columns=None):
    """Plug-in sandwich standard errors: sd over the rows of psi_i (y_i - x_i.beta) (A^{-1} x_i)_k, over sqrt(n).

    With A = sum_i psi_i x_i x_i^T / n = T^T T / n, the influence values have the sample covariance
    A^{-1} (M - g g^T / n) A^{-1} / (n - 1), where M = sum_i (psi_i r_i)^2 x_i x_i^T and g = sum_i psi_i r_i x_i
    (zero at the least-squares solution, up to round-off); one pass over the rows per bandwidth.
    """
    n = moments.n
    x = moments.x
    columns = slice(None) if columns is None else columns
    identity = np.eye(x.shape[1])
    out = []
    for w, b, factor in zip(weights, beta, factors, strict=True):
        scaled_residual = w[moments.s] * (moments.y - x @ b)
        meat = (x * (scaled_residual**2)[:, None]).T @ x
        gradient = x.T @ scaled_residual
        meat -= np.outer(gradient, gradient) / n
        inverse_factor = solve_triangular(factor, identity)
        inverse = n * (inverse_factor @ inverse_factor.T)  # A^{-1}
        variance = np.einsum("ka,ab,bk->k", inverse, meat, inverse) / (n - 1)
        out.append(np.sqrt(np.maximum(variance, 0.0) / n)[columns])
    return np.array(out)


def _jackknife(values):
    """Block-jackknife standard error from the leave-one-block-out estimates (axis 0)."""
    n_blocks = len(values)
    return np.sqrt((n_blocks - 1) / n_blocks * ((values - values.mean(axis=0)) ** 2).sum(axis=0))


@bandwidth_keyword
def beta_bandwidth_sweep(z, y, *, nus, standard_errors=False, n_blocks=1):
    r"""Weighted least-squares explanations at many bandwidths from one sample (each ν is a reweighting).

    For each bandwidth, the fit of y on x = (1, z) with weights ψ(s_i/d; ν), s_i = d - sum(z_i) the number of
    removed words of row i: lime's fit without its ridge penalty.  If the rows are i.i.d. from LIME's sampling law
    and :math:`y_i = f(z_i)`, it converges to :math:`\beta^f(\nu) = \Sigma(\nu)^{-1} \Gamma^f(\nu)`, uniformly
    in ν on [ν₀, ∞].  The rows are grouped by s once; then every ν costs one small least-squares solve
    ((d + 1)² × (d + 1), by QR).

    Parameters
    ----------
    z : array_like, shape (n, d)
        0/1 masks (1 = word kept), e.g. from :func:`~limetheory.theory.sampling.sample_masks`; rows with no removed word
        are allowed (weight 1).
    y : array_like, shape (n,)
        The model's output on each mask (finite).
    nus : array_like, shape (m,)
        Bandwidths > 0; ``np.inf`` gives weight 1 to every row.
    standard_errors : bool
        Also return plug-in sandwich standard errors: the sample standard deviation (ddof 1) over the rows of the
        influence values :math:`\psi_i (y_i - x_i \cdot \beta) (A^{-1} x_i)_k`, divided by :math:`\sqrt{n}`,
        where :math:`A = \sum_i \psi_i x_i x_i^\top / n`.  They estimate the standard deviation of the estimate
        for i.i.d. rows (the delta method of weighted least squares).  Costs O(n d²) per bandwidth; needs n >= 2.
    n_blocks : int
        With ``n_blocks`` >= 2 (and ``standard_errors=True``) also return block-jackknife standard errors:
        row i goes to block i % n_blocks and the fit is recomputed with each block left out.

    Returns
    -------
    ndarray, shape (m, d + 1)
        One explanation per bandwidth (column 0 the intercept, column 1 + j word j), when
        ``standard_errors`` is False.
    (beta, se) or (beta, se, se_jackknife)
        With ``standard_errors=True``: the same array and the standard errors of the same shape; the jackknife
        ones are added when ``n_blocks`` >= 2.

    Raises
    ------
    TypeError
        Non-numeric ``z``, ``y`` or ``nus``; ``standard_errors`` not a bool; ``n_blocks`` not an integer.
    ValueError
        ``z`` not a 2-D 0/1 array, ``y`` of the wrong shape, a non-finite value, a bandwidth <= 0 or NaN,
        ``n_blocks`` < 1 or larger than n, ``n_blocks`` >= 2 without standard errors, n < 2 with standard
        errors, or singular weighted normal equations; a call beyond the limits below.

    Notes
    -----
    Limits: the grouped system has R = min(n, (d + 1)²) rows of length d + 1, so each bandwidth costs about
    2 R (d + 1)² operations per system (one, plus one per jackknife block), plus 2 n (d + 1)² for its standard
    errors, and the memory is about 8 (d + 1) (2 n + (n_blocks + 4) R) bytes.  A call above 2 GiB or 2e10
    operations (``limetheory._validation``) is refused before any work with the estimate: e.g. at d = 29 and
    n = 60 000 rows, about 10 000 bandwidths, or 180 with standard errors.

    Examples
    --------
    >>> import numpy as np, limetheory as lt
    >>> z = lt.sample_masks(5, 2000, np.random.default_rng(0))
    >>> beta = beta_bandwidth_sweep(z, 2.0 + z[:, 0] - 0.5 * z[:, 3], nus=[0.1, 0.25, np.inf])
    >>> beta.shape, bool(np.allclose(beta, [2.0, 1.0, 0.0, 0.0, -0.5, 0.0]))  # y is affine in z: exact at every nu
    ((3, 6), True)
    """
    z, y = _check_data(z, y)
    nus = _check_nus(nus)
    standard_errors = check_bool(standard_errors, "standard_errors")
    n_blocks = _check_n_blocks(n_blocks, z.shape[0])
    if n_blocks > 1 and not standard_errors:
        raise ValueError("n_blocks >= 2 asks for jackknife standard errors: set standard_errors=True")
    if standard_errors and z.shape[0] < 2:
        raise ValueError(f"standard errors need at least 2 rows in z, got {z.shape[0]}")
    n_systems = 1 + (n_blocks if n_blocks > 1 else 0)
    sandwiches = len(nus) if standard_errors else 0
    _check_cost(z.shape[0], z.shape[1], len(nus), n_systems, sandwiches, f"a sweep of {len(nus)} bandwidths")
    moments = _Moments(z, y, n_blocks)
    weights = _weights(moments.d, nus)
    beta, factors = moments.full.solve(weights)
    if not standard_errors:
        return beta
    se = _sandwich(moments, weights, beta, factors)
    if n_blocks == 1:
        return beta, se
    left_out = np.array([system.solve(weights)[0] for system in moments.left_out])
    return beta, se, _jackknife(left_out)


def coefficient_zero(z, y, j, bracket, *, n_blocks=1, xtol=1e-12):
    r"""Where the coefficient of word ``j`` changes sign as a function of the bandwidth, with standard errors.

    The coefficient curve ν ↦ β₁₊ⱼ(ν) is the reweighted fit of :func:`beta_bandwidth_sweep`; its zero in
    ``bracket`` is found by Brent's method.  Its standard error is the delta method: the sandwich standard error
    of the coefficient at the zero over the absolute derivative of the curve there (derivative computed exactly,
    :math:`d\beta/d\nu = A^{-1} (c' - A' \beta)` with A' and c' the sums weighted by dψ/dν).  With ``n_blocks`` >= 2
    the zero is also recomputed with each block of rows (i % n_blocks) left out, for a jackknife standard error.

    Parameters
    ----------
    z, y
        As in :func:`beta_bandwidth_sweep`.
    j : int
        Word index, 0 <= j < d (the coefficient is column 1 + j).
    bracket : tuple of two floats
        Finite bandwidths 0 < lo < hi between which the curve (and every leave-one-block-out curve) changes sign.
    n_blocks : int
        Number of blocks for the jackknife (1: no jackknife).
    xtol : float
        Absolute tolerance of the root finder (> 0).

    Returns
    -------
    CoefficientZero
        With attributes ``nu``, ``se``, ``se_jackknife`` (NaN when ``n_blocks == 1``) and ``slope``.

    Raises
    ------
    TypeError, ValueError
        As in :func:`beta_bandwidth_sweep`; ``j`` outside 0..d-1; a bracket that is not two finite bandwidths
        lo < hi; a curve without a change of sign on the bracket; n < 2; a root finder that does not converge.

    Notes
    -----
    Limits: as :func:`beta_bandwidth_sweep` with about 103 bandwidths (Brent's method takes at most 100
    iterations) per system, the full one and one per jackknife block.

    Examples
    --------
    The coefficient of a word in an exclusive or of two words is negative at small bandwidths and positive at
    large ones; from 4000 masks its zero is found within two standard errors of the exact one (0.5055, by
    enumeration of the 16 masks):

    >>> import numpy as np, limetheory as lt
    >>> z = lt.sample_masks(4, 4000, np.random.default_rng(0))
    >>> zero = coefficient_zero(z, (z[:, 0] + z[:, 1]) % 2, 0, (0.2, 2.0))
    >>> round(zero.nu, 2), bool(abs(zero.nu - 0.5055) < 2 * zero.se), bool(zero.slope > 0)
    (0.5, True, True)
    """
    z, y = _check_data(z, y)
    d = z.shape[1]
    j = check_int(j, "j", minimum=0, maximum=d - 1)
    if isinstance(bracket, (str, bytes)) or not hasattr(bracket, "__len__") or len(bracket) != 2:
        raise ValueError(f"bracket must be a pair (lo, hi) of bandwidths, got {bracket!r}")
    lo, hi = (check_real(value, "bracket") for value in bracket)
    if not 0 < lo < hi:
        raise ValueError(f"bracket must satisfy 0 < lo < hi, got ({lo}, {hi})")
    xtol = check_real(xtol, "xtol")
    if xtol <= 0:
        raise ValueError(f"xtol must be > 0, got {xtol}")
    n_blocks = _check_n_blocks(n_blocks, z.shape[0])
    if z.shape[0] < 2:
        raise ValueError(f"standard errors need at least 2 rows in z, got {z.shape[0]}")
    n_systems = 1 + (n_blocks if n_blocks > 1 else 0)
    _check_cost(z.shape[0], d, _ROOT_SOLVES, n_systems, 1, "the zero of a coefficient curve")
    moments = _Moments(z, y, n_blocks)
    column = 1 + j

    def zero_of(system, what):
        def curve(nu):
            return system.solve(_weights(d, [nu]))[0][0, column]

        at_lo, at_hi = curve(lo), curve(hi)
        if at_lo * at_hi > 0:
            raise ValueError(
                f"the coefficient of word {j} does not change sign on bracket ({lo}, {hi}){what}: "
                f"{at_lo:.6g} at {lo} and {at_hi:.6g} at {hi}"
            )
        try:
            return brentq(curve, lo, hi, xtol=xtol)
        except RuntimeError as error:  # brentq's "failed to converge" after its 100 iterations
            raise ValueError(
                f"the zero of the coefficient of word {j} on bracket ({lo}, {hi}){what}: {error}"
            ) from None

    root = zero_of(moments.full, "")
    weights = _weights(d, [root])
    beta, factors = moments.full.solve(weights)
    slope = float(moments.full.derivative(_weight_derivatives(d, [root])[0], beta[0], factors[0])[column])
    se_at_root = float(_sandwich(moments, weights, beta, factors, columns=[column])[0, 0])
    se_delta = se_at_root / abs(slope) if slope != 0 else float("inf")
    se_jackknife = float("nan")
    if n_blocks > 1:
        left_out = np.array(
            [
                zero_of(system, f" with block {b} of {n_blocks} left out (widen the bracket or use fewer blocks)")
                for b, system in enumerate(moments.left_out)
            ]
        )
        se_jackknife = float(_jackknife(left_out))
    return CoefficientZero(nu=float(root), se=float(se_delta), se_jackknife=se_jackknife, slope=slope)
