r"""The weighted law of the number of removed words: the scale-free core of every closed form.

LIME weights a sample with s removed words by ψ(s/d).  Everything the package derives from Σ (α_p, c_d, the σ's,
Σ⁻¹, its eigenvalues, β) is computed from one description of the law of s tilted by these weights,
:class:`WeightedLaw`, in which no quantity is of order ψ(1/d)ᵏ: the weights are relative to the largest one, and
the factors ψ(1/d)ᵏ are kept as logarithms and applied last by :func:`times_exp`.  The derivation and the formulas
built on it are in :mod:`limetheory.theory.coefficients`; this module is what ``coefficients``, ``explanation`` and
``linear_exact`` share.
"""

from __future__ import annotations

import functools
import warnings
from dataclasses import dataclass

import numpy as np

from .._validation import check_d_invertible, check_nu
from .sampling import NU_SQUARE_MIN

#: beyond exp(±708) a double is subnormal or infinite: such values are assembled from logarithms
SAFE_LOG = 700.0
#: laws of at most this many words are cached (512 of them: at most 33 MB)
_CACHED_LAW_WORDS = 2048


def gap_sq(d, first, nu, start=None, stop=None):
    """(gₛ² - g_first²) / (2ν²) for s = start..stop (first..d by default), with gₜ = 1 - √(1 - t/d).

    gₛ - g_first = √(1 - first/d) - √(1 - s/d) = ((s - first)/d) / (r_first + rₛ), with rₜ = √(1 - t/d), without
    cancellation; a ``start`` below ``first`` extends the formula to s < first (negative values), which the size
    mixture of :mod:`limetheory.theory.linear.linear_exact` fits.
    """
    return _gap_sq_of(_gap_terms(d, first if start is None else start, d if stop is None else stop), d, first, nu)


def _gap_terms(d, start, stop):
    """(s, rₛ, gₛ) for s = start..stop: what :func:`gap_sq` needs whatever its ``first`` (one pass for several)."""
    s = np.arange(start, stop + 1, dtype=float)
    r = np.sqrt((d - s) / d)
    return s, r, (s / d) / (1.0 + r)


def _gap_sq_of(terms, d, first, nu):
    """:func:`gap_sq` from :func:`_gap_terms` (slices of one call's arrays give the same doubles)."""
    s, r, g = terms
    r_first = np.sqrt((d - first) / d)
    g_first = (first / d) / (1.0 + r_first)
    denominator = r_first + r  # zero only for s = first = d, where the difference itself is 0
    diff = np.divide((s - first) / d, denominator, out=np.zeros_like(s), where=denominator > 0)
    if np.isinf(nu):
        return np.zeros_like(s)
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):  # 0 * inf where diff = 0: replaced below
        if nu >= NU_SQUARE_MIN:
            return diff * (g + g_first) / (2.0 * nu * nu)  # 2 nu nu = inf for nu > 1e154: exactly 0.0, the limit
        # nu^2 would underflow: two ratios to nu instead (+-inf where diff != 0, 0 where diff = 0)
        scaled = (diff / nu) * ((g + g_first) / nu) / 2.0
        return np.where(diff != 0, scaled, 0.0)


def kept_size_weights(d, first, nu):
    """ψ(s/d) / ψ(first/d) for s = d - m removed words, indexed by the kept size m = 0..d.

    The weights of the sizes of the kept set, continued below s = ``first`` by the same formula (the size mixture
    of :mod:`limetheory.theory.linear.sizemixture` fits them there too); entries beyond the double range are inf or 0.

    Examples
    --------
    >>> kept_size_weights(4, 1, np.inf).tolist()
    [1.0, 1.0, 1.0, 1.0, 1.0]
    """
    with np.errstate(over="ignore"):
        return exp_minus(gap_sq(d, first, nu, start=0))[::-1]


def log_psi_first(d, nu):
    """log ψ(1/d) = -(1 - √(1 - 1/d))² / (2ν²)."""
    with np.errstate(over="ignore", under="ignore"):
        return _log_psi_first(d, nu)


def _log_psi_first(d, nu):
    """:func:`log_psi_first` inside the caller's ``np.errstate`` (over and under ignored)."""
    if np.isinf(nu):
        return 0.0
    g1 = (1.0 / d) / (1.0 + np.sqrt((d - 1.0) / d))
    if nu >= NU_SQUARE_MIN:
        return -(g1 * g1) / (2.0 * nu * nu)
    return -((g1 / nu) ** 2) / 2.0  # -inf when the true value is below -1.8e308


@dataclass(frozen=True)
class WeightedLaw:
    """Scale-free description of LIME's law of s tilted by the weights (see the module docstring).

    Attributes
    ----------
    d : int
        Number of distinct words.
    nu : float
        Bandwidth (``np.inf`` allowed).
    log_psi1 : float
        log ψ(1/d), the logarithm of the largest weight.
    w : ndarray, shape (d,)
        ψ(s/d) / ψ(1/d) for s = 1..d (w[0] = 1; tiny entries may underflow to 0, harmlessly).
    total : float
        sum of w (between 1 and d).
    m : ndarray, shape (d,)
        w / total: the probability of s under the tilted law.
    log_tau : float
        log(w_2 / total) (finite even when it is below the double range).
    tau : float
        exp(log_tau) (possibly 0.0).
    w_hat : ndarray, shape (d - 1,)
        ψ(s/d) / ψ(2/d) for s = 2..d.
    u : ndarray, shape (d - 1,)
        a_s - a_1 = -(s - 1)/d for s = 2..d, where a_s = 1 - s/d is the fraction of kept words.
    a_mean : float
        A = E[a] under the tilted law.
    var_over_tau : float
        V / tau, where V = Var(a) under the tilted law (a sum of non-negative terms).
    q : float
        Q = E[a (1 - a)] under the tilted law.
    """

    d: int
    nu: float
    log_psi1: float
    w: np.ndarray
    total: float
    m: np.ndarray
    log_tau: float
    tau: float
    w_hat: np.ndarray
    u: np.ndarray
    a_mean: float
    var_over_tau: float
    q: float

    @property
    def log_var(self) -> float:
        """log V."""
        return self.log_tau + float(np.log(self.var_over_tau))

    @property
    def var(self) -> float:
        """V = Var(a) (may underflow to 0.0; use ``log_var`` for its exact logarithm)."""
        return self.tau * self.var_over_tau

    @property
    def second_moment(self) -> float:
        """E[a²] = A² + V."""
        return self.a_mean**2 + self.var

    @property
    def log_alpha0(self) -> float:
        """log α₀ = log ψ(1/d) + log(Σₛ wₛ) - log d."""
        return self.log_psi1 + float(np.log(self.total / self.d))

    @property
    def bulk_ratio(self) -> float:
        """(α₁ - α₂) / α₀ = Q d / (d - 1)."""
        return self.q * self.d / (self.d - 1)


def weighted_law(d, nu):
    """The scale-free description (:class:`WeightedLaw`) of the tilted law of s, for d >= 2.

    Everything derived from Σ (c_d, the σ's, Σ⁻¹, its eigenvalues, β) is computed from it.  Up to
    ``_CACHED_LAW_WORDS`` words it is kept for the next calls with the same (d, ν) (a corpus explains many documents
    of one length, and each explanation asks for it twice: β and lime's centre); its arrays are read-only.
    """
    d, nu = check_d_invertible(d), check_nu(nu)
    return _cached_weighted_law(d, nu) if d <= _CACHED_LAW_WORDS else _weighted_law(d, nu)


@functools.lru_cache(maxsize=512)
def _cached_weighted_law(d, nu):
    return _weighted_law(d, nu)


def _two_gaps(d, nu):
    """(s, gaps, gaps_hat): s = 1..d and :func:`gap_sq` for first = 1 (s = 1..d) and first = 2 (s = 2..d).

    For NU_SQUARE_MIN <= ν < inf (every bandwidth a chapter or an explanation asks for) the two are formed here
    with the expressions of :func:`_gap_sq_of` and without its per-call guards (about half of a small law's cost
    at d = 100): r₁ > 0 for d >= 2, so the first difference's denominator never vanishes, and the second's
    vanishes only at s = d = 2, where its numerator is 0 (the guard's 0.0, kept).  Other ν go through
    :func:`_gap_sq_of` itself.
    """
    s, r, g = _gap_terms(d, 1, d)  # s = 1..d, shared by the two gaps (w and w_hat)
    if not NU_SQUARE_MIN <= nu < np.inf:
        return s, _gap_sq_of((s, r, g), d, 1, nu), _gap_sq_of((s[1:], r[1:], g[1:]), d, 2, nu)
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        return _two_gaps_here(d, nu, s, r, g)


def _two_gaps_here(d, nu, s, r, g):
    """The two gaps of :func:`_two_gaps` for NU_SQUARE_MIN <= ν < inf, inside the caller's ``np.errstate``."""
    r1, r2 = np.sqrt((d - 1) / d), np.sqrt((d - 2) / d)
    two_nu_sq = 2.0 * nu * nu
    first = ((s - 1) / d) / (r1 + r) * (g + (1 / d) / (1.0 + r1)) / two_nu_sq
    if d == 2:  # s = 2 = d: the difference is 0 (0/0 without the guard)
        return s, first, np.zeros(1)
    second = ((s[1:] - 2) / d) / (r2 + r[1:]) * (g[1:] + (2 / d) / (1.0 + r2)) / two_nu_sq
    return s, first, second


def _weighted_law(d, nu):
    # One np.errstate for the gaps, the weights and log ψ(1/d), instead of one in each of the five steps (entering
    # one costs about 2 us, a sixth of a small law's cost in chapter 09's 25 000 laws).  The steps compute the same
    # doubles: exp_minus's own path is kept for long arrays, np.exp(-x) (what it calls) for short ones.
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        if NU_SQUARE_MIN <= nu < np.inf:
            s, gaps, gaps_hat = _two_gaps_here(d, nu, *_gap_terms(d, 1, d))
        else:
            s, gaps, gaps_hat = _two_gaps(d, nu)
        w = np.exp(-gaps) if gaps.size <= _EXP_DIRECT_SIZE else exp_minus(gaps)
        total = float(w.sum())
        m = w / total
        log_w2 = -float(gaps[1])
        log_tau = log_w2 - float(np.log(total))
        tau = float(np.exp(log_tau))
        w_hat = np.exp(-gaps_hat) if gaps_hat.size <= _EXP_DIRECT_SIZE else exp_minus(gaps_hat)
        log_psi1 = _log_psi_first(d, nu)
    u = -s[:-1] / d
    a1 = (d - 1) / d
    a_shift = float(np.dot(w_hat, u))  # sum_{s>=2} w_hat_s u_s: E[a] - a_1 = tau * a_shift
    centred = u - tau * a_shift
    var_over_tau = (tau / total) * a_shift**2 + float(np.dot(w_hat, centred * centred))
    q = float(np.dot(m, s * (d - s))) / (d * d)
    for shared in (w, m, w_hat, u):
        shared.flags.writeable = False
    return WeightedLaw(
        d=d,
        nu=nu,
        log_psi1=log_psi1,
        w=w,
        total=total,
        m=m,
        log_tau=log_tau,
        tau=tau,
        w_hat=w_hat,
        u=u,
        a_mean=a1 + tau * a_shift,
        var_over_tau=var_over_tau,
        q=q,
    )


def _out_of_range_warning(what, d, nu, log_value):
    warnings.warn(
        f"{what} = exp({log_value:.6g}) is outside the double-precision range at d = {d}, nu = {nu}; "
        "it is returned as 0.0 or inf (pass log=True for its logarithm)",
        RuntimeWarning,
        stacklevel=3,
    )


def times_exp(mantissa, log_scale, what, d, nu):
    """mantissa * exp(log_scale), elementwise, with no spurious overflow or underflow in the factor itself.

    A non-zero value beyond the double range becomes 0.0 or +-inf, with one RuntimeWarning naming ``what``.
    """
    if type(mantissa) is float and mantissa == 1.0 and abs(log_scale) < SAFE_LOG:
        # exp(log_scale) alone (c_d, an eigenvalue, ||Sigma^-1||), a normal double for |log| < 700: the product the
        # general path forms, never lost; that path's errstate and masks cost 10 of ||Sigma^-1||'s 140 us at d = 100
        return mantissa * np.exp(log_scale)
    mantissa = np.asarray(mantissa, dtype=float)
    with np.errstate(over="ignore", under="ignore", divide="ignore"):
        log_abs = np.log(np.abs(mantissa)) + log_scale
        if abs(log_scale) < SAFE_LOG:
            out = mantissa * np.exp(log_scale)
        else:
            out = np.sign(mantissa) * np.exp(log_abs)
    lost = (mantissa != 0) & ((out == 0) | ~np.isfinite(out))
    if lost.any():
        _out_of_range_warning(what, d, nu, float(log_abs[lost][0]))
    return out


def kept_given_s(p, d):
    """(P₁, L): P₁ = P(p given words kept | s = 1) = (d - p)/d and L[s - 1] = log(P(kept | s) / P₁), s = 1..d.

    P(kept | s) = C(d - s, p) / C(d, p) = P₁ ∏ᵢ (d - i - p)/(d - i) over i = 1..s-1; L is the cumulative sum of
    log1p(-p/(d - i)) (-inf once s > d - p).  Requires 0 <= p <= d.
    """
    first = (d - p) / d
    if p == 0:
        return 1.0, np.zeros(d)
    if p == d:
        return 0.0, np.zeros(d)
    i = np.arange(1, d, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        steps = np.where(d - i - p > 0, np.log1p(-p / np.maximum(d - i, 1.0)), -np.inf)
    return first, np.concatenate([[0.0], np.cumsum(steps)])


# exp(-x) is 0.0 in double precision for every x above this (the smallest subnormal is exp(-744.44)).
_EXP_ZERO_BEYOND = 745.2
# Up to this many entries exp_minus calls np.exp(-x) itself: its slow path costs at most a few microseconds on so few
# underflowing entries, and the masked call's own steps cost more (about 15 of a small law's 140 us, twice)
_EXP_DIRECT_SIZE = 512


def exp_minus(x):
    """exp(-x), elementwise, with the entries that would underflow to 0.0 set without calling exp.

    The same doubles as ``np.exp(-x)`` (which it calls on short arrays); numpy's exp takes a slow path for every result
    that underflows, which made the weights of a small bandwidth at d = 2**24 cost 2.4 s instead of 0.5 s.
    """
    if x.size <= _EXP_DIRECT_SIZE:
        with np.errstate(under="ignore"):
            return np.exp(-x)
    out = np.zeros_like(x)
    inside = ~(x > _EXP_ZERO_BEYOND)  # keeps NaN, so exp can propagate it as np.exp(-x) would
    with np.errstate(under="ignore"):
        np.exp(-x, out=out, where=inside)
    return out


def relative_weights(d, nu):
    """ψ(s/d) / ψ(1/d) for s = 1..d (tiny entries underflow to 0.0, harmlessly)."""
    return exp_minus(gap_sq(d, 1, nu))


def eigen_logs(law):
    """The logarithms of Σ's eigenvalues: (small one of the pair, large one, bulk α₁ - α₂)."""
    d = law.d
    e2 = law.second_moment
    # Sigma / alpha_0 on span{e_0, 1/sqrt(d)}: [[1, sqrt(d) A], [sqrt(d) A, d E[a^2]]], determinant d V
    large = (1.0 + d * e2 + np.hypot(1.0 - d * e2, 2.0 * np.sqrt(d) * law.a_mean)) / 2.0
    log_small = law.log_alpha0 + float(np.log(d)) + law.log_var - float(np.log(large))
    return log_small, law.log_alpha0 + float(np.log(large)), law.log_alpha0 + float(np.log(law.bulk_ratio))
