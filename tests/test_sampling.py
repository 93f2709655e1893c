"""limetheory.theory.sampling: psi, kernel_weights, prob_kept and sample_masks against independent references."""

from __future__ import annotations

import itertools
import math

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import limetheory as lt
from limetheory.book import mpreference
from limetheory.theory.sampling import kernel_weights, prob_kept, psi, sample_masks

EPS = np.finfo(float).eps
NUS = [0.05, 0.1, 0.25, 1.0, 3.7]
TS = [0.0, 1e-15, 1e-12, 1e-8, 1e-4, 0.1, 0.25, 0.5, 0.75, 0.9, 0.999999, 1.0]


def rtol_for(value):
    """Relative tolerance for exp(x) in double precision: a few ulps of x, amplified by |x|.

    x = log(value) carries ~3 roundings (relative error ~2 eps), which exp turns into a relative error |x| * 2 eps;
    exp itself (numpy's vector paths: within ~3 ulp) adds a few eps.  4 eps * (1 + |x|) bounds both.
    """
    return 4 * EPS * (1 + abs(math.log(value)))


# ----------------------------------------------------------------------------- psi


@pytest.mark.parametrize("nu", NUS)
@pytest.mark.parametrize("t", TS)
def test_psi_matches_mpmath(t, nu):
    expected = mpreference.psi(t, nu=nu)
    got = psi(t, nu=nu)
    assert isinstance(got, float)
    assert got == pytest.approx(float(expected), rel=rtol_for(float(expected)), abs=1e-300)


def test_psi_keeps_accuracy_for_tiny_t():
    # with nu of the order of t, the exponent is O(1) and the naive 1 - sqrt(1 - t) would lose digits
    for t, nu in ((1e-10, 1e-11), (1e-7, 3e-8), (1e-13, 1e-13)):
        assert psi(t, nu=nu) == pytest.approx(float(mpreference.psi(t, nu=nu)), rel=1e-13)


def test_psi_array_shape_and_values():
    t = np.array([[0.0, 0.5], [0.25, 1.0]])
    out = psi(t, nu=0.25)
    assert isinstance(out, np.ndarray)
    assert out.shape == (2, 2)
    expected = [[float(mpreference.psi(x, nu=0.25)) for x in row] for row in t]
    np.testing.assert_allclose(out, expected, rtol=1e-14)
    assert psi([], nu=0.3).shape == (0,)


def test_psi_accepts_lists_and_integer_nu():
    # exp(-0.0) is exactly 1; the same argument -0.5 through numpy's and libm's exp: a few ulps at most
    np.testing.assert_array_max_ulp(psi([0.0, 1.0], nu=1), [1.0, math.exp(-0.5)], maxulp=4)


@pytest.mark.parametrize("t", [0.0, 0.3, 1.0, [0.1, 0.9]])
def test_psi_infinite_bandwidth_is_one(t):
    np.testing.assert_array_equal(psi(t, nu=np.inf), np.ones_like(np.asarray(t, dtype=float)))


def test_psi_at_one_is_the_minimum_weight():
    for nu in NUS:
        assert psi(1.0, nu=nu) == pytest.approx(math.exp(-1 / (2 * nu**2)), rel=1e-14, abs=1e-300)


@settings(max_examples=30, deadline=None)
@given(
    t1=st.floats(0, 1),
    t2=st.floats(0, 1),
    nu=st.floats(0.05, 100),
)
def test_psi_is_decreasing_and_within_the_paper_bounds(t1, t2, nu):
    lo, hi = sorted((t1, t2))
    assert psi(lo, nu=nu) >= psi(hi, nu=nu)
    # Eq. (psi-precise-bound) of the supplementary material: exp(-t^2/(2nu^2)) <= psi(t) <= exp(-t^2/(8nu^2))
    value = psi(hi, nu=nu)
    assert math.exp(-(hi**2) / (2 * nu**2)) * (1 - 1e-12) <= value <= math.exp(-(hi**2) / (8 * nu**2)) * (1 + 1e-12)


@pytest.mark.parametrize("t", [-0.1, -1e-12, 1.0000001, 2.0, np.nan, [0.5, np.nan], [0.2, 1.5], [-np.inf]])
def test_psi_rejects_t_outside_unit_interval(t):
    with pytest.raises(ValueError, match=r"^t must lie in \[0, 1\]"):
        psi(t, nu=0.25)


@pytest.mark.parametrize("nu", [0, 0.0, -0.25, -np.inf, np.nan])
def test_psi_rejects_bad_nu_values(nu):
    with pytest.raises(ValueError, match="^nu must be > 0"):
        psi(0.5, nu=nu)


@pytest.mark.parametrize("nu", ["0.25", None, True, [0.25]])
def test_psi_rejects_bad_nu_types(nu):
    with pytest.raises(TypeError, match="^nu must be"):
        psi(0.5, nu=nu)


# ----------------------------------------------------------------------------- kernel_weights


@pytest.mark.parametrize("d", [1, 2, 5, 29])
@pytest.mark.parametrize("nu", [0.1, 0.25, 2.0, np.inf])
def test_kernel_weights_are_psi_of_s_over_d(d, nu):
    out = kernel_weights(d, nu=nu)
    assert out.shape == (d,)
    expected = [1.0 if np.isinf(nu) else float(mpreference.psi(mpmath.mpf(s) / d, nu=nu)) for s in range(1, d + 1)]
    for got, value in zip(out, expected, strict=True):
        assert got == pytest.approx(value, rel=rtol_for(value), abs=1e-300)


def test_kernel_weights_are_psis_doubles_bit_for_bit():
    """kernel_weights skips psi's checks of t (s/d is in [0, 1]): the same doubles as psi itself on s/d."""
    for d in (1, 2, 3, 29, 300, 5000):
        for nu in (1e-300, 1e-160, 0.01, 0.25, 1.0, 1e155, np.inf):
            assert kernel_weights(d, nu=nu).tobytes() == psi(np.arange(1, d + 1) / d, nu=nu).tobytes(), (d, nu)


def test_kernel_weights_errors():
    with pytest.raises(ValueError, match="^d must be >= 1"):
        kernel_weights(0, nu=0.25)
    with pytest.raises(TypeError, match="^d must be an integer"):
        kernel_weights(3.0, nu=0.25)
    with pytest.raises(ValueError, match="^nu must be > 0"):
        kernel_weights(3, nu=-1)
    with pytest.raises(ValueError, match="^nu must be > 0"):
        kernel_weights(3, nu=np.nan)


# ----------------------------------------------------------------------------- prob_kept


@pytest.mark.parametrize("d", range(1, 8))
def test_prob_kept_matches_subset_enumeration(d, brute):
    for p in range(d + 1):
        # abs=0: a probability vanishes only when a factor d - p or d - s - k is 0, and then it is exactly 0.0
        assert prob_kept(p, d) == pytest.approx(float(brute.kept_probability(p, d)), rel=1e-14, abs=0)
        for s in range(1, d + 1):
            got = prob_kept(p, d, s)
            assert isinstance(got, float)
            assert got == pytest.approx(float(brute.kept_probability(p, d, s)), rel=1e-14, abs=0)


def test_prob_kept_given_s_counts_subsets_avoiding_the_words():
    # P(p words kept | s removed) = #{s-subsets of the other d - p words} / #{s-subsets of d words}
    for d, p, s in itertools.product(range(1, 9), range(0, 9), range(1, 9)):
        if p <= d and s <= d:
            expected = math.comb(d - p, s) / math.comb(d, s)
            assert prob_kept(p, d, s) == pytest.approx(expected, rel=1e-14, abs=0)  # exact zeros, as above


def test_prob_kept_is_exactly_zero_when_too_many_words_are_removed():
    assert prob_kept(3, 5, 3) == 0.0
    assert prob_kept(1, 4, 4) == 0.0
    assert prob_kept(0, 4, 4) == 1.0


@pytest.mark.parametrize(
    ("args", "error", "pattern"),
    [
        ((4, 3), ValueError, "^p must be <= 3"),
        ((-1, 3), ValueError, "^p must be >= 0"),
        ((0, 0), ValueError, "^d must be >= 1"),
        ((1, -2), ValueError, "^d must be >= 1"),
        ((1, 3, 0), ValueError, "^s must be >= 1"),
        ((1, 3, 4), ValueError, "^s must be <= 3"),
        ((1.0, 3), TypeError, "^p must be an integer"),
        ((1, "3"), TypeError, "^d must be an integer"),
        ((1, 3, 2.0), TypeError, "^s must be an integer"),
        ((True, 3), TypeError, "^p must be an integer"),
    ],
)
def test_prob_kept_errors(args, error, pattern):
    with pytest.raises(error, match=pattern):
        prob_kept(*args)


# ----------------------------------------------------------------------------- sample_masks


def test_sample_masks_shape_dtype_and_support():
    z = sample_masks(7, 500, np.random.default_rng(0))
    assert z.shape == (500, 7)
    assert z.dtype == np.int8
    assert set(np.unique(z)) <= {0, 1}
    assert (z.sum(axis=1) <= 6).all()  # at least one word is always removed


def test_sample_masks_single_word_removes_it():
    z = sample_masks(1, 10, np.random.default_rng(1))
    np.testing.assert_array_equal(z, np.zeros((10, 1), dtype=np.int8))


def test_sample_masks_is_deterministic_given_the_seed():
    a = sample_masks(5, 100, np.random.default_rng(42))
    b = sample_masks(5, 100, np.random.default_rng(42))
    c = sample_masks(5, 100, np.random.default_rng(43))
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)


def _within(freq, prob, n, k=5.0):
    se = math.sqrt(prob * (1 - prob) / n)
    return abs(freq - prob) <= k * se


def test_sample_masks_follow_lime_law():
    d, n = 5, 60_000
    z = sample_masks(d, n, np.random.default_rng(20210413))
    s = d - z.sum(axis=1)
    # s is uniform on {1, ..., d}
    for value in range(1, d + 1):
        assert _within(np.mean(s == value), 1 / d, n), value
    # each word survives with probability (d - 1) / (2d); each pair with (d - 2) / (3d); computed by counting
    for p in (1, 2, 3):
        expected = sum(math.comb(d - p, k) / math.comb(d, k) for k in range(1, d + 1)) / d
        for words in itertools.combinations(range(d), p):
            freq = np.mean(z[:, list(words)].all(axis=1))
            assert _within(freq, expected, n), (words, freq, expected)
    # given s, the removed set is uniform among the binom(d, s) subsets
    for value in (2, 3):
        rows = z[s == value]
        codes = rows @ (1 << np.arange(d))
        m = math.comb(d, value)
        counts = np.bincount(codes, minlength=2**d)
        support = [
            sum(1 << j for j in range(d) if j not in removed) for removed in itertools.combinations(range(d), value)
        ]
        assert set(np.flatnonzero(counts)) == set(support)
        for code in support:
            assert _within(counts[code] / len(rows), 1 / m, len(rows)), (value, code)


@pytest.mark.parametrize("rng", [0, None, np.random.RandomState(0), np.random.default_rng(0).bit_generator])
def test_sample_masks_rejects_non_generators(rng):
    with pytest.raises(TypeError, match="^rng must be a numpy.random.Generator"):
        sample_masks(3, 4, rng)


@pytest.mark.parametrize(
    ("d", "n", "error", "pattern"),
    [
        (0, 5, ValueError, "^d must be >= 1"),
        (3, 0, ValueError, "^n must be >= 1"),
        (3.0, 5, TypeError, "^d must be an integer"),
        (3, 5.0, TypeError, "^n must be an integer"),
    ],
)
def test_sample_masks_argument_errors(d, n, error, pattern):
    with pytest.raises(error, match=pattern):
        sample_masks(d, n, np.random.default_rng(0))


def test_public_names_are_reexported():
    assert lt.psi is psi and lt.kernel_weights is kernel_weights
    assert lt.prob_kept is prob_kept and lt.sample_masks is sample_masks
