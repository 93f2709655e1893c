"""High-precision references (mpmath) for ψ, the α coefficients, c_d, the σ's, Σ and β, from the paper's definitions.

A reference module, not part of the public API (``limetheory.__all__``): the one place where the chapters and the
tests get the arbitrary-precision values they check the package's double-precision numerics against, so a
reviewer checks it once. It is independent of those numerics on purpose: it never imports
``limetheory.theory.coefficients``, ``limetheory.theory.sampling`` or ``limetheory.theory.explanation``
(``tests/test_mpreference.py`` checks this), only the transcriptions of the printed formulas
(:mod:`limetheory.theory.printed`).

* α_p is the sum of Proposition 1 with the kept-probability as an exact integer ratio and ψ(s/d) at ``dps`` digits;
* c_d, σ₀, ..., σ₃ and β of an indicator product are the printed formulas evaluated at ``dps`` digits. They cancel
  catastrophically at small ν, so the working precision :func:`digits_for` grows with the spread of the weights;
* Σ and Γᶠ can also be enumerated over every mask and solved densely (:func:`beta_dense`), with no closed form.

The bandwidth ``nu`` (ν = kernel_width / 100) is keyword-only; ``nu=math.inf`` is the large-bandwidth limit (ψ = 1).
Results are mpmath numbers at ``dps`` digits; do arithmetic on them inside ``mpmath.workdps(dps)``.
"""

from __future__ import annotations

import functools
import itertools
import math
import numbers

import mpmath as mp
from mpmath import libmp

from ..theory import printed

#: digits kept beyond those that the two cancellations of the printed route consume (see :func:`digits_for`)
GUARD_DIGITS = 60


def _check_d(d, minimum=1):
    if isinstance(d, bool) or not isinstance(d, numbers.Integral):
        raise TypeError(f"d must be an integer, got {d!r}")
    if d < minimum:
        raise ValueError(f"d must be >= {minimum}, got {d}")
    return int(d)


def _check_nu(nu):
    if type(nu) is float and nu > 0:  # the common case, without the abstract-class checks below
        return nu
    if isinstance(nu, bool) or not isinstance(nu, numbers.Real):
        raise TypeError(f"nu must be a real number > 0 (math.inf for the large-bandwidth limit), got {nu!r}")
    if not nu > 0:  # also refuses nan
        raise ValueError(f"nu must be > 0 (math.inf for the large-bandwidth limit), got {nu!r}")
    return float(nu)


def _check_dps(dps):
    if type(dps) is int and dps >= 15:  # the common case, as in _check_nu
        return dps
    if isinstance(dps, bool) or not isinstance(dps, numbers.Integral):
        raise TypeError(f"dps must be an integer number of digits, got {dps!r}")
    if dps < 15:
        raise ValueError(f"dps must be >= 15 digits (a reference finer than a double), got {dps}")
    return int(dps)


def _check_p(p, d, name="p"):
    """An integer in [0, d]."""
    if isinstance(p, bool) or not isinstance(p, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {p!r}")
    if not 0 <= p <= d:
        raise ValueError(f"{name} must be in [0, d] = [0, {d}], got {p}")
    return int(p)


def _digits(d, nu, dps):
    """``dps`` checked, or :func:`digits_for` when it is None."""
    return digits_for(d, nu=nu) if dps is None else _check_dps(dps)


def _gap_digits(d, nu):
    """Digits lost by the printed formulas: log10(ψ(1/d) / ψ(2/d))."""
    if math.isinf(nu) or d < 2:
        return 0.0
    g1 = 1 - math.sqrt(1 - 1 / d)
    g2 = 1 - math.sqrt(1 - 2 / d)
    return (g2 * g2 - g1 * g1) / (2 * nu * nu) / math.log(10)


def digits_for(d, *, nu):
    """Working precision of the printed route: 60 guard digits + 2 log₁₀(ψ(1/d)/ψ(2/d)) + 4 log₁₀ d.

    The printed c_d cancels the spread ψ(1/d)/ψ(2/d) of the weights once, and Σ⁻¹Γ cancels it again; 4 log₁₀ d
    covers the growth of the sums with d.

    Parameters
    ----------
    d : int
        Number of distinct words, d ≥ 1.
    nu : float
        Bandwidth ν > 0, or ``math.inf``.

    Returns
    -------
    int

    Raises
    ------
    TypeError
        If ``d`` is not an integer or ``nu`` not a real number.
    ValueError
        If ``d`` < 1 or ``nu`` ≤ 0 (or nan).

    Examples
    --------
    >>> digits_for(29, nu=0.25), digits_for(2, nu=0.005)
    (65, 15942)
    """
    d, nu = _check_d(d), _check_nu(nu)
    return int(GUARD_DIGITS + 2 * _gap_digits(d, nu) + 4 * math.log10(d))


def psi(t, *, nu, dps=50):
    """ψ(t) = exp(−(1 − √(1 − t))² / (2ν²)) at ``dps`` digits (the printed Eq. (15)).

    The printed formula is :func:`limetheory.theory.printed.psi`.

    Parameters
    ----------
    t : real number or mpmath number
        In [0, 1]; a float is taken exactly as the binary number it is.
    nu : real number
        Bandwidth ν > 0, or ``math.inf`` (ψ = 1).
    dps : int, default 50
        Decimal digits.

    Returns
    -------
    mpmath.mpf

    Raises
    ------
    TypeError
        If ``nu`` is not a real number or ``dps`` not an integer.
    ValueError
        If ``t`` is outside [0, 1], ``nu`` ≤ 0 or ``dps`` < 15.

    Examples
    --------
    >>> print(mp.nstr(psi(0.5, nu=0.25, dps=30), 30))
    0.503439616755549399201606200128
    """
    nu, dps = _check_nu(nu), _check_dps(dps)
    if mp.mp.prec == mp.libmp.dps_to_prec(dps):  # already at dps digits (a chapter's loop): workdps changes nothing
        return _psi_here(t, nu)
    with mp.workdps(dps):
        return _psi_here(t, nu)


def _psi_here(t, nu):
    """:func:`psi` at the working precision (``nu`` checked)."""
    t = mp.mpf(t)
    if not 0 <= t <= 1:
        raise ValueError(f"t must be in [0, 1], got {t}")
    if math.isinf(nu):
        return mp.mpf(1)
    return _printed_psi(t, _mpf_of(nu))


_ONE = libmp.from_int(1)


def _printed_psi(t, nu):
    """printed.psi(t, nu=nu, lib=mp) for mpf t and nu, by the same roundings at the working precision.

    Each step is the libmp function that mpmath's operator or function calls (1 - x: mpf_sub; sqrt: mpf_sqrt;
    x ** 2: mpf_pow_int; -x: mpf_neg; 2 * x: mpf_mul_int; x / y: mpf_div; exp: mpf_exp), in the printed formula's
    order, so the result is the same mpf (``tests/test_mpreference.py`` compares them); without the operators'
    dispatch and the intermediate mpf objects it takes 60% of the time (chapter 09's reference makes 48 000 calls).
    """
    prec, rounding = mp.mp._prec_rounding
    x = libmp.mpf_sqrt(libmp.mpf_sub(_ONE, t._mpf_, prec, rounding), prec, rounding)
    x = libmp.mpf_neg(libmp.mpf_pow_int(libmp.mpf_sub(_ONE, x, prec, rounding), 2, prec, rounding), prec, rounding)
    two_nu_sq = libmp.mpf_mul_int(libmp.mpf_pow_int(nu._mpf_, 2, prec, rounding), 2, prec, rounding)
    return mp.make_mpf(libmp.mpf_exp(libmp.mpf_div(x, two_nu_sq, prec, rounding), prec, rounding))


@functools.lru_cache(maxsize=256)
def _mpf_of(nu):
    """mp.mpf(nu) for a float: exact at every precision of at least 53 bits (dps >= 15), so it can be kept."""
    return mp.mpf(nu)


@functools.cache
def _weights(d, nu, dps):
    """ψ(s/d), s = 1..d, at ``dps`` digits; weights below ψ(1/d) / d by more than dps + 10 decades are set to 0.

    The weights decrease in s, so the dropped tail changes every sum by less than 10⁻ᵈᵖˢ relative to its
    largest term (far below the precision the printed formulas need); skipping them keeps d = 10⁴ cheap.
    """
    if math.isinf(nu):
        return tuple(psi(mp.mpf(s) / d, nu=nu, dps=dps) for s in range(1, d + 1))
    out = []
    cutoff = (dps + 10) * math.log(10) + math.log(d)
    first = None
    with mp.workdps(dps):
        nu_mp = mp.mpf(nu)  # psi's own steps, with nu and dps checked once for the d weights
        for s in range(1, d + 1):
            exponent = (1 - math.sqrt(1 - s / d)) ** 2 / (2 * nu * nu)
            first = exponent if first is None else first
            if exponent - first > cutoff:
                out.extend([mp.mpf(0)] * (d - s + 1))
                break
            out.append(_printed_psi(mp.mpf(s) / d, nu_mp))
        return tuple(out)


def weights(d, *, nu, dps=50):
    """(ψ(1/d), ..., ψ(d/d)) at ``dps`` digits (negligible tail set to 0, see the module's notes).

    Parameters
    ----------
    d : int
        Number of distinct words, d ≥ 1.
    nu : real number
        Bandwidth ν > 0, or ``math.inf``.
    dps : int, default 50
        Decimal digits.

    Returns
    -------
    tuple of mpmath.mpf

    Raises
    ------
    TypeError, ValueError
        On a bad ``d``, ``nu`` or ``dps`` (as :func:`digits_for` and :func:`psi`).

    Examples
    --------
    >>> [round(float(w), 6) for w in weights(2, nu=0.25)]
    [0.50344, 0.000335]
    """
    return _weights(_check_d(d), _check_nu(nu), _check_dps(dps))


@functools.cache
def _alpha(p, d, nu, dps):
    values = _weights(d, nu, dps)
    denominator = d * math.perm(d, p)  # d · d(d − 1)···(d − p + 1)
    with mp.workdps(dps):
        # Proposition 1: ∏_{k<p} (d − s − k)/(d − k) = perm(d − s, p) / perm(d, p), an exact integer ratio
        total = mp.fsum(math.perm(d - s, p) * values[s - 1] for s in range(1, d + 1) if d - s >= p)
        return total / denominator


def alpha(p, d, *, nu, dps=50):
    """α_p at ``dps`` digits: the sum of Proposition 1, term by term.

    Parameters
    ----------
    p : int
        0 ≤ p ≤ d.
    d : int
        Number of distinct words, d ≥ 1.
    nu : real number
        Bandwidth ν > 0, or ``math.inf``.
    dps : int, default 50
        Decimal digits.

    Returns
    -------
    mpmath.mpf

    Raises
    ------
    TypeError
        If ``p`` or ``d`` is not an integer (or ``nu``, ``dps`` as in :func:`psi`).
    ValueError
        If ``p`` is not in [0, d] (or ``d``, ``nu``, ``dps`` out of range).

    Examples
    --------
    >>> print(mp.nstr(alpha(1, 3, nu=math.inf), 40))  # (d − 1)/(2d)
    0.3333333333333333333333333333333333333333
    """
    d = _check_d(d)
    p = _check_p(p, d)
    return _alpha(int(p), d, _check_nu(nu), _check_dps(dps))


def alphas(d, *, nu, p_max=2, dps=50):
    """(α₀, ..., α_{p_max}) at ``dps`` digits (:func:`alpha`).

    Parameters
    ----------
    d : int
        Number of distinct words, d ≥ 1.
    nu : real number
        Bandwidth ν > 0, or ``math.inf``.
    p_max : int, default 2
        0 ≤ p_max ≤ d.
    dps : int, default 50
        Decimal digits.

    Returns
    -------
    tuple of mpmath.mpf

    Raises
    ------
    TypeError, ValueError
        As :func:`alpha`, for ``p_max`` in the place of ``p``.

    Examples
    --------
    >>> [float(a) for a in alphas(3, nu=math.inf)]
    [1.0, 0.3333333333333333, 0.1111111111111111]
    """
    d = _check_d(d)
    p_max = _check_p(p_max, d, "p_max")
    return tuple(alpha(p, d, nu=nu, dps=dps) for p in range(p_max + 1))


@functools.cache
def _closed_forms(d, nu, dps):
    a0, a1, a2 = alphas(d, nu=nu, p_max=2, dps=dps)
    with mp.workdps(dps):
        c = printed.normalization_constant(a0, a1, a2, d)
        sigma = printed.sigma_coefficients(a0, a1, a2, d)
        # eigenvalues of Σ: λ± of the 2 × 2 block (product c_d, sum the trace τ), α₁ − α₂ of multiplicity d − 1;
        # λ₋ = c_d / λ₊ does not cancel
        trace = a0 + a1 + (d - 1) * a2
        large = (trace + mp.sqrt(trace**2 - 4 * c)) / 2
        small = c / large
        bulk = a1 - a2
        return {
            "alphas": (a0, a1, a2),
            "c": c,
            "sigma": sigma,
            "eig": (small, large, bulk),
            "opnorm": 1 / min(small, bulk),
            "inverse": tuple(x / c for x in sigma),
            "dps": dps,
        }


def closed_forms(d, *, nu, dps=None):
    """c_d, the σ's, Σ⁻¹'s entries, Σ's eigenvalues and ‖Σ⁻¹‖ by the printed formulas, at ``dps`` digits.

    Parameters
    ----------
    d : int
        Number of distinct words, d ≥ 2 (α₁ ≠ α₂ needs two words).
    nu : real number
        Bandwidth ν > 0, or ``math.inf``.
    dps : int, optional
        Decimal digits; by default :func:`digits_for`, enough for the cancellations at this (d, ν).

    Returns
    -------
    dict
        ``"alphas"`` (α₀, α₁, α₂), ``"c"`` c_d, ``"sigma"`` (σ₀, ..., σ₃), ``"inverse"`` (σᵢ / c_d), ``"eig"``
        (λ₋, λ₊, α₁ − α₂), ``"opnorm"`` ‖Σ⁻¹‖ = 1 / min(λ₋, α₁ − α₂), and ``"dps"``.

    Raises
    ------
    TypeError, ValueError
        On a bad ``d`` (< 2), ``nu`` or ``dps``.

    Examples
    --------
    >>> ref = closed_forms(3, nu=math.inf)
    >>> [round(float(x), 12) for x in (ref["c"], *ref["sigma"])]  # c_d = (d² − 1)/(12d)
    [0.222222222222, 0.555555555556, -0.333333333333, 1.0, 0.0]
    """
    d, nu = _check_d(d, minimum=2), _check_nu(nu)
    return _closed_forms(d, nu, _digits(d, nu, dps))


def beta_indicator(p, d, *, nu, dps=None):
    """β of f = z₁···z_p (the product of p word indicators) by the printed Proposition 2 at ``dps`` digits.

    Γᶠ by the printed Proposition 10 (Γ₀ = α_p, Γⱼ = α_p for the p words of the product and α_{p+1} for the
    others, α_{d+1} = 0: :func:`limetheory.theory.printed.gamma_indicator_product`), put into
    :func:`limetheory.theory.printed.beta_general` with the printed c_d and σ's.

    Parameters
    ----------
    p : int
        Number of words in the product, 0 ≤ p ≤ d (p = 0: f = 1).
    d : int
        Number of distinct words, d ≥ 2.
    nu : real number
        Bandwidth ν > 0, or ``math.inf``.
    dps : int, optional
        Decimal digits; by default :func:`digits_for`.

    Returns
    -------
    tuple
        (β₀, β of a word in the product, β of a word outside it); the last is None when p = d.

    Raises
    ------
    TypeError, ValueError
        On a bad ``p``, ``d``, ``nu`` or ``dps``.

    Examples
    --------
    >>> [round(float(b), 12) + 0.0 for b in beta_indicator(1, 4, nu=0.25)]  # f = z₁: β = e₁
    [0.0, 1.0, 0.0]
    """
    d, nu = _check_d(d, minimum=2), _check_nu(nu)
    dps = _digits(d, nu, dps)
    p = _check_p(p, d)
    ref = _closed_forms(d, nu, dps)
    alist = alphas(d, nu=nu, p_max=min(p + 1, d), dps=dps)
    with mp.workdps(dps):
        gamma0, gamma_in, gamma_out, total = printed.gamma_indicator_product(
            p, d, alist[p], alist[p + 1] if p < d else mp.mpf(0)
        )
        beta0, inside = printed.beta_general(ref["c"], ref["sigma"], gamma0, gamma_in, total)
        outside = printed.beta_general(ref["c"], ref["sigma"], gamma0, gamma_out, total)[1] if p < d else None
        return beta0, inside, outside


def sigma_matrix(d, *, nu, dps=50):
    """Σ as a dense (d + 1) × (d + 1) mpmath matrix: α₀ in the corner, α₁ on the border and diagonal, α₂ elsewhere.

    Parameters
    ----------
    d : int
        Number of distinct words, d ≥ 2.
    nu : real number
        Bandwidth ν > 0, or ``math.inf``.
    dps : int, default 50
        Decimal digits.

    Returns
    -------
    mpmath.matrix

    Raises
    ------
    TypeError, ValueError
        On a bad ``d``, ``nu`` or ``dps``.

    Examples
    --------
    >>> print(sigma_matrix(2, nu=math.inf, dps=15))
    [ 1.0  0.25  0.25]
    [0.25  0.25   0.0]
    [0.25   0.0  0.25]
    """
    d = _check_d(d, minimum=2)
    a0, a1, a2 = alphas(d, nu=nu, p_max=2, dps=dps)
    with mp.workdps(dps):
        return mp.matrix(
            [
                [a0 if i == k == 0 else a1 if i == 0 or k == 0 or i == k else a2 for k in range(d + 1)]
                for i in range(d + 1)
            ]
        )


def sigma_gamma(f, d, *, nu, dps=None):
    """Σ and Γᶠ enumerated over every mask LIME can draw, at ``dps`` digits (no closed form involved).

    A mask with s removed words has probability 1/(d·C(d, s)) and weight ψ(s/d). ``f`` is called once per mask;
    within each s the masks' contributions are summed first (Σ with integer counts), then weighted.

    Parameters
    ----------
    f : callable
        Maps a mask, a tuple of d zeros and ones (1 = word kept), to a number: an mpmath number is used as it
        is, anything else through ``mpmath.mpf(float(value))`` (exact for floats and small integers).
    d : int
        Number of distinct words, 1 ≤ d ≤ 16 (2ᵈ masks).
    nu : real number
        Bandwidth ν > 0, or ``math.inf``.
    dps : int, optional
        Decimal digits; by default :func:`digits_for`.

    Returns
    -------
    tuple of mpmath.matrix
        (Σ of shape (d + 1, d + 1), Γᶠ of shape (d + 1, 1)).

    Raises
    ------
    TypeError
        If ``f`` is not callable (or on a bad ``d``, ``nu``, ``dps``).
    ValueError
        If ``d`` is not in [1, 16] (or ``nu``, ``dps`` out of range).

    Examples
    --------
    >>> sigma, gamma = sigma_gamma(lambda mask: mask[0], 2, nu=math.inf, dps=20)
    >>> print(gamma)  # Γ₀ = Γ₁ = α₁, Γ₂ = α₂ = 0
    [0.25]
    [0.25]
    [ 0.0]
    """
    if not callable(f):
        raise TypeError(f"f must be a callable mask -> number, got {f!r}")
    d, nu = _check_d(d), _check_nu(nu)
    if d > 16:
        raise ValueError(f"d must be <= 16 (the enumeration visits 2**d masks), got {d}")
    dps = _digits(d, nu, dps)
    with mp.workdps(dps):
        sigma = mp.zeros(d + 1, d + 1)
        gamma = mp.zeros(d + 1, 1)
        for s in range(1, d + 1):
            weight = psi(mp.mpf(s) / d, nu=nu, dps=dps) / (d * math.comb(d, s))
            counts = [[0] * (d + 1) for _ in range(d + 1)]
            sums = [mp.mpf(0)] * (d + 1)
            for removed in itertools.combinations(range(d), s):
                mask = tuple(0 if j in removed else 1 for j in range(d))
                value = f(mask)
                y = value if isinstance(value, mp.mpf) else mp.mpf(float(value))
                present = [0] + [1 + j for j in range(d) if mask[j]]
                for i in present:
                    sums[i] += y
                    for k in present:
                        counts[i][k] += 1
            for i in range(d + 1):
                gamma[i] += weight * sums[i]
                for k in range(d + 1):
                    sigma[i, k] += weight * counts[i][k]
        return sigma, gamma


def beta_dense(f, d, *, nu, dps=None):
    """β = Σ⁻¹Γᶠ with Σ and Γᶠ enumerated (:func:`sigma_gamma`) and solved densely at ``dps`` digits.

    Parameters
    ----------
    f : callable
        Maps a 0/1 tuple of length d (1 = word kept) to a number (see :func:`sigma_gamma`).
    d : int
        Number of distinct words, 1 ≤ d ≤ 16.
    nu : real number
        Bandwidth ν > 0, or ``math.inf``.
    dps : int, optional
        Decimal digits; by default :func:`digits_for`.

    Returns
    -------
    mpmath.matrix
        β, shape (d + 1, 1): the intercept, then one coefficient per word.

    Raises
    ------
    TypeError, ValueError
        As :func:`sigma_gamma`.

    Examples
    --------
    >>> [round(float(b), 12) + 0.0 for b in beta_dense(lambda mask: mask[1], 3, nu=0.25)]  # f = z₂: β = e₂
    [0.0, 0.0, 1.0, 0.0]
    """
    dps = _digits(d, nu, dps)
    sigma, gamma = sigma_gamma(f, d, nu=nu, dps=dps)
    with mp.workdps(dps):
        return mp.lu_solve(sigma, gamma)


def relative_error(got, exact, scale=None):
    """|got − exact| / scale as a float (scale: |exact| by default), computed in mpmath; inf if ``got`` is not finite.

    ``got`` is taken exactly as the double it is (``mpmath.mpf(float(got))``). When the scale is 0 the absolute
    error is returned. Call it inside ``mpmath.workdps`` of the reference's precision.

    Parameters
    ----------
    got : real number
        The double-precision value checked.
    exact : real number or mpmath number
        The reference.
    scale : real number or mpmath number, optional
        What the error is relative to.

    Returns
    -------
    float

    Raises
    ------
    TypeError
        If ``got`` is not a real number.

    Examples
    --------
    >>> relative_error(0.1, mp.mpf(1) / 10) < 1e-16
    True
    >>> relative_error(float("nan"), 1)
    inf
    """
    if isinstance(got, (bool, str, bytes)):
        raise TypeError(f"got must be a real number, got {got!r}")
    got = float(got)
    if not math.isfinite(got):
        return math.inf
    exact = mp.mpf(exact)
    scale = abs(exact) if scale is None else mp.mpf(scale)
    if scale == 0:
        return float(abs(mp.mpf(got) - exact))
    return float(abs(mp.mpf(got) - exact) / scale)


def log_of(x):
    """Natural logarithm of a positive mpmath number, as a float (finite even where ``float(x)`` underflows).

    Parameters
    ----------
    x : mpmath number or real number
        Positive.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If ``x`` ≤ 0.

    Examples
    --------
    >>> round(log_of(mp.mpf("1e-400")), 3)
    -921.034
    """
    x = mp.mpf(x)
    if not x > 0:
        raise ValueError(f"x must be > 0, got {x}")
    return float(mp.log(x))
