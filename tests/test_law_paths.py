"""The weighted law's short paths give the doubles of its general ones, bit for bit.

``law._two_gaps`` forms the two gap arrays of a law (first = 1 and first = 2) without ``gap_sq``'s guards for the
bandwidths in [NU_SQUARE_MIN, inf), and ``law.exp_minus`` calls ``np.exp(-x)`` itself on short arrays instead of its
masked call: both must give exactly the arrays of the general code, on every d up to a few hundred (where the
short paths apply), at the edges (d = 2, the underflow of exp, nu at NU_SQUARE_MIN, huge and infinite nu) and on
long arrays (where the masked call applies).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from limetheory.theory import law
from limetheory.theory.sampling import NU_SQUARE_MIN

NUS = [1e-300, NU_SQUARE_MIN / 2, NU_SQUARE_MIN, 1e-3, 0.01, 0.05, 0.25, 1.0, 7.5, 100.0, 1e155, 1e300, np.inf]


@pytest.mark.parametrize("nu", NUS)
def test_two_gaps_are_gap_sq_for_first_one_and_two(nu):
    for d in [*range(2, 40), 100, 299, 513, 2048, 5000]:
        s, gaps, gaps_hat = law._two_gaps(d, nu)
        np.testing.assert_array_equal(s, np.arange(1, d + 1, dtype=float))
        assert gaps.tobytes() == law.gap_sq(d, 1, nu).tobytes(), d
        assert gaps_hat.tobytes() == law.gap_sq(d, 2, nu).tobytes(), d


def _masked_exp_minus(x):
    """exp(-x) by the masked call exp_minus makes on long arrays (its code before the short path)."""
    out = np.zeros_like(x)
    with np.errstate(under="ignore"):
        np.exp(-x, out=out, where=~(x > law._EXP_ZERO_BEYOND))
    return out


@pytest.mark.parametrize("nu", NUS)
def test_exp_minus_short_path_is_the_masked_call(nu):
    assert law._EXP_DIRECT_SIZE < 5000  # both paths are exercised
    for d in (2, 3, 10, 100, law._EXP_DIRECT_SIZE, law._EXP_DIRECT_SIZE + 1, 5000):
        x = law.gap_sq(d, 1, nu)
        assert law.exp_minus(x).tobytes() == _masked_exp_minus(x).tobytes(), d
    # around exp's underflow: subnormal results, the last non-zero one and zeros, and a NaN that propagates
    x = np.array([700.0, 708.5, 744.4, 745.1, 745.2, 745.3, 800.0, np.inf, np.nan, 0.0, -1.0])
    short, masked = law.exp_minus(x), _masked_exp_minus(x)
    assert short[:-3].tobytes() == masked[:-3].tobytes() and np.isnan(short[-3]) and np.isnan(masked[-3])
    assert short[-2:].tobytes() == masked[-2:].tobytes()
    assert short[2] > 0 and short[5] == 0.0  # the cases the edge exercises do occur


def _law_by_steps(d, nu):
    """The law's scalars and arrays from the general steps (gap_sq, exp_minus, log_psi_first), each in its own
    errstate: what ``law._weighted_law`` computed before it shared one errstate between them."""
    s = np.arange(1, d + 1, dtype=float)
    w, w_hat = law.exp_minus(law.gap_sq(d, 1, nu)), law.exp_minus(law.gap_sq(d, 2, nu))
    total = float(w.sum())
    log_tau = -float(law.gap_sq(d, 1, nu)[1]) - float(np.log(total))
    tau = float(np.exp(log_tau))
    u = -s[:-1] / d
    a_shift = float(np.dot(w_hat, u))
    centred = u - tau * a_shift
    var_over_tau = (tau / total) * a_shift**2 + float(np.dot(w_hat, centred * centred))
    q = float(np.dot(w / total, s * (d - s))) / (d * d)
    scalars = (law.log_psi_first(d, nu), total, log_tau, tau, (d - 1) / d + tau * a_shift, var_over_tau, q)
    return scalars, (w, w / total, w_hat, u)


@pytest.mark.parametrize("nu", NUS)
def test_weighted_law_with_one_errstate_is_its_steps(nu):
    for d in [*range(2, 40), 100, 299, law._EXP_DIRECT_SIZE + 1, 2048, 5000]:
        got = law._weighted_law(d, nu)
        scalars, arrays = _law_by_steps(d, nu)
        got_scalars = (got.log_psi1, got.total, got.log_tau, got.tau, got.a_mean, got.var_over_tau, got.q)
        assert np.array(got_scalars).tobytes() == np.array(scalars).tobytes(), d
        for mine, theirs in zip((got.w, got.m, got.w_hat, got.u), arrays, strict=True):
            assert mine.tobytes() == theirs.tobytes(), d


def test_times_exp_scalar_path_is_the_array_path():
    """times_exp(1.0, v) (the scalar path for |v| < SAFE_LOG) gives the double and the warnings of the array path."""
    logs = [*np.linspace(-699.9, 699.9, 4001), -0.0, 0.0, 5e-324, 699.99, -699.99, 700.0, -700.0, 710.0, -750.0]
    for log_scale in logs:
        results = []
        for mantissa in (1.0, np.array(1.0)):
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                value = law.times_exp(mantissa, float(log_scale), "x", 3, 1.0)
            results.append((np.float64(value).tobytes(), [str(w.message) for w in caught]))
        assert results[0] == results[1], log_scale
        assert bool(results[0][1]) == (abs(log_scale) > 709), log_scale
