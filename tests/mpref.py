"""Arbitrary-precision references (mpmath), written from the paper's printed definitions only.

Nothing here calls the package.  alpha_p is the sum of Proposition 1 with the kept-probability as a
product of exact rationals; c_d, sigma_0..sigma_3 are the printed formulas (they cancel catastrophically
at small nu, which is why the working precision grows with the spread of the weights); Sigma^{-1} is
(1/c_d) times the sigma pattern; beta = Sigma^{-1} Gamma by the printed Proposition 2, or (small d) by a
dense high-precision solve of the enumerated Sigma and Gamma.
"""

from __future__ import annotations

import functools
import itertools
import math

import mpmath as mp

GUARD_DIGITS = 60


def _gap_digits(d, nu):
    """Digits lost by the printed formulas: log10(psi(1/d) / psi(2/d)) plus a margin for d."""
    if math.isinf(nu):
        return 0
    g1 = 1 - math.sqrt(1 - 1 / d)
    g2 = 1 - math.sqrt(1 - 2 / d)
    return (g2 * g2 - g1 * g1) / (2 * nu * nu) / math.log(10)


def digits_for(d, nu):
    """Working precision: two cancellations of the weight spread (c_d, then Sigma^{-1} Gamma), plus guards."""
    return int(GUARD_DIGITS + 2 * _gap_digits(d, nu) + 4 * math.log10(d))


def _weight(s, d, nu):
    if math.isinf(nu):
        return mp.mpf(1)
    t = mp.mpf(s) / d
    return mp.exp(-((1 - mp.sqrt(1 - t)) ** 2) / (2 * mp.mpf(nu) ** 2))


@functools.cache
def _weights(d, nu, dps):
    """psi(s/d), s = 1..d, at ``dps`` digits; weights below 10^-(dps + 10) / d times psi(1/d) are set to 0.

    The weights decrease in s, so the dropped tail changes every sum by less than 10^-dps relative to its
    largest term (far below the precision the printed formulas need).
    """
    out = []
    cutoff = (dps + 10) * math.log(10) + math.log(d)
    first = None
    with mp.workdps(dps):
        for s in range(1, d + 1):
            exponent = 0.0 if math.isinf(nu) else (1 - math.sqrt(1 - s / d)) ** 2 / (2 * nu * nu)
            first = exponent if first is None else first
            if exponent - first > cutoff:
                out.extend([mp.mpf(0)] * (d - s + 1))
                break
            out.append(_weight(s, d, nu))
        return tuple(out)


@functools.cache
def alpha(p, d, nu, dps):
    """alpha_p at ``dps`` digits (Proposition 1, summed term by term; P(kept | s) as an exact integer ratio)."""
    weights = _weights(d, nu, dps)
    denominator = d * math.perm(d, p)  # d * d (d-1) ... (d-p+1)
    with mp.workdps(dps):
        total = mp.fsum(math.perm(d - s, p) * weights[s - 1] for s in range(1, d + 1) if d - s >= p)
        return total / denominator


def alphas(d, nu, p_max, dps):
    """(alpha_0, ..., alpha_{p_max}) at ``dps`` digits, as mpf."""
    return tuple(alpha(p, d, nu, dps) for p in range(p_max + 1))


@functools.cache
def printed(d, nu, dps=None):
    """dict of c_d, sigma (4-tuple), the eigenvalues and ||Sigma^{-1}||, all at ``dps`` digits (printed forms)."""
    dps = dps or digits_for(d, nu)
    a0, a1, a2 = alphas(d, nu, 2, dps)[:3]
    with mp.workdps(dps):
        c = (d - 1) * a0 * a2 - d * a1**2 + a0 * a1
        s0 = (d - 1) * a2 + a1
        s1 = -a1
        s2 = ((d - 2) * a0 * a2 - (d - 1) * a1**2 + a0 * a1) / (a1 - a2)
        s3 = (a1**2 - a0 * a2) / (a1 - a2)
        trace = a0 + a1 + (d - 1) * a2
        large = (trace + mp.sqrt(trace**2 - 4 * c)) / 2
        small = c / large
        bulk = a1 - a2
        return {
            "alphas": (a0, a1, a2),
            "c": c,
            "sigma": (s0, s1, s2, s3),
            "eig": (small, large, bulk),
            "opnorm": 1 / min(small, bulk),
            "inverse": tuple(x / c for x in (s0, s1, s2, s3)),
            "dps": dps,
        }


def beta_indicator(p, d, nu, dps=None):
    """beta of f = z_1 ... z_p (p words kept; p = 0 is the constant 1) by the printed Proposition 2.

    Gamma_0 = alpha_p, Gamma_j = alpha_p (j <= p), alpha_{p+1} (j > p).  Returns (beta_0, beta_in, beta_out)
    (beta_out is None when p = d).
    """
    dps = dps or digits_for(d, nu)
    ref = printed(d, nu, dps)
    alist = alphas(d, nu, min(p + 1, d), dps)
    with mp.workdps(dps):
        ap = alist[p]
        aq = alist[p + 1] if p < d else mp.mpf(0)
        s0, s1, s2, s3 = ref["sigma"]
        c = ref["c"]
        total = p * ap + (d - p) * aq
        beta0 = (s0 * ap + s1 * total) / c
        inside = (s1 * ap + s2 * ap + s3 * (total - ap)) / c
        outside = (s1 * ap + s2 * aq + s3 * (total - aq)) / c if p < d else None
        return beta0, inside, outside


def beta_dense(f, d, nu, dps=None):
    """beta = Sigma^{-1} Gamma with Sigma, Gamma enumerated over all masks and solved at ``dps`` digits.

    ``f`` maps a 0/1 tuple (1 = kept) to a number (converted exactly with mpf(float)).
    """
    dps = dps or digits_for(d, nu)
    with mp.workdps(dps):
        weights = [_weight(s, d, nu) for s in range(1, d + 1)]
        sigma = mp.zeros(d + 1, d + 1)
        gamma = mp.zeros(d + 1, 1)
        for s in range(1, d + 1):
            prob = mp.mpf(1) / (d * math.comb(d, s))
            for removed in itertools.combinations(range(d), s):
                mask = tuple(0 if j in removed else 1 for j in range(d))
                x = (1, *mask)
                w = prob * weights[s - 1]
                y = mp.mpf(float(f(mask)))
                for i in range(d + 1):
                    if x[i]:
                        gamma[i] += w * y
                        for k in range(d + 1):
                            if x[k]:
                                sigma[i, k] += w
        return mp.lu_solve(sigma, gamma)


def rel_err(got, exact, scale=None):
    """|got - exact| / scale (default |exact|), as a float, computed in mpmath."""
    exact = mp.mpf(exact)
    scale = abs(exact) if scale is None else mp.mpf(scale)
    if scale == 0:
        return float(abs(mp.mpf(float(got)) - exact))
    return float(abs(mp.mpf(float(got)) - exact) / scale)


def log_of(x):
    """Natural logarithm of a positive mpf, as a float."""
    return float(mp.log(x))
