"""limetheory.theory.linear.linear_exact: the exact explanation of a linear TF-IDF model, against enumeration and
mpmath.

Shared columns and the three norms are checked against the real pipeline: a default ``TfidfVectorizer``
(lower-casing, so lime's "The" and "the" fall in one column) and a ``LogisticRegression`` whose
``decision_function`` is evaluated on the documents lime would build for every one of the 2^d masks.

References used here never call the module under test: ``beta_enumerate`` sums over all 2^d masks with
f computed from the masks directly; the per-s moments are averaged over the masks with s removed words; the
mpmath reference enumerates the masks, forms Sigma and Gamma and solves at a precision that grows with the
spread of the kernel weights (40 digits at moderate bandwidth, thousands at nu = 0.005); the large-d
references use the exact law of the number of kept words of each weight class (multivariate hypergeometric).
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from formula_checks import log_choose
from lime.lime_text import IndexedString
from scipy.special import gammaln
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression

import limetheory as lt
from limetheory.book import mpreference
from limetheory.theory.linear import linear_exact, linear_mixture, linear_moments, subset_means, tfidf_model
from limetheory.theory.linear.linear_exact import (
    beta_linear_exact,
    conditional_moments_linear_exact,
    gamma_linear_exact,
)
from limetheory.theory.linear.linear_quadrature import (
    MIN_WEIGHT_RATIO,
    inverse_power_quadrature,
    inverse_sqrt_quadrature,
)
from limetheory.theory.linear.tfidf_model import MAX_SHARED_WORDS

NUS = [0.05, 0.25, 1.0, np.inf]
SMALL_NUS = [0.005, 0.01, 0.03, 0.05]


def linear_model_on_masks(lam, tfidf):
    """f(z) = sum_j lam_j phi_j with phi_j = z_j t_j / sqrt(sum_k z_k t_k^2), and 0/0 := 0."""
    lam, tfidf = np.asarray(lam, float), np.asarray(tfidf, float)

    def f(z):
        z = np.asarray(z, float)
        numerator = z @ (lam * tfidf)
        norm = np.sqrt(z @ tfidf**2)
        return np.divide(numerator, norm, out=np.zeros_like(numerator), where=norm > 0)

    return f


def document(d, seed):
    """Random TF-IDF weights with an invisible word, a repeated weight and random coefficients."""
    rng = np.random.default_rng(seed)
    tfidf = rng.integers(1, 4, d) * rng.uniform(1.0, 6.0, d)  # m_j v_j
    tfidf[0] = 0.0  # a word the model cannot see
    if d >= 4:
        tfidf[2] = tfidf[3]  # two words with the same weight
    if d >= 8:
        tfidf[5] = 0.0
    lam = rng.normal(size=d)
    return lam, tfidf


# ----------------------------------------------------------------------------- against enumeration


# at nu = 0.05 and d < 6, Sigma is too ill-conditioned (cond > 1e7) for the float64 enumeration to be a reference
CASES = [(d, nu) for nu in NUS for d in (2, 3, 4, 6, 9, 12, 14) if nu > 0.05 or d >= 6]


@pytest.mark.parametrize(("d", "nu"), CASES)
def test_beta_matches_enumeration(d, nu):
    lam, tfidf = document(d, seed=d)
    expected = lt.beta_enumerate(linear_model_on_masks(lam, tfidf), d, nu=nu)
    got = beta_linear_exact(lam, tfidf, nu=nu)
    assert got.shape == (d + 1,)
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-9 * max(1.0, np.abs(expected).max()))


@pytest.mark.parametrize("nu", [0.03, 0.05, 0.25, np.inf])
def test_gamma_matches_enumeration(nu):
    d = 10
    lam, tfidf = document(d, seed=7)
    z, s, prob = lt.theory.explanation.all_masks(d)
    weight = prob * lt.kernel_weights(d, nu=nu)[s - 1]
    y = linear_model_on_masks(lam, tfidf)(z)
    expected = np.concatenate([[weight @ y], (weight * y) @ z])
    # entries of gamma are sums of weight * response that may cancel: compare those at the scale of their terms
    scale = weight.sum() * np.abs(y).max()
    np.testing.assert_allclose(gamma_linear_exact(lam, tfidf, nu=nu), expected, rtol=1e-12, atol=1e-12 * scale)


def test_gamma_below_the_double_range_warns():
    """At d = 2, nu = 0.005, alpha_0 = E[pi] is about exp(-1716): Gamma is 0.0 in float64, with a warning."""
    with pytest.warns(RuntimeWarning, match="Gamma"):
        gamma = gamma_linear_exact([1.0, -2.0], [1.0, 3.0], nu=0.005)
    assert np.array_equal(gamma, np.zeros(3))
    assert np.isfinite(beta_linear_exact([1.0, -2.0], [1.0, 3.0], nu=0.005)).all()


# ----------------------------------------------------------------------------- conditional moments


def enumerated_moments(lam, tfidf):
    """E[f | s] and E[z_k f | s], s = 1..d, as averages over the binom(d, s) masks with s removed words."""
    d = len(tfidf)
    z, s, _ = lt.theory.explanation.all_masks(d)
    y = linear_model_on_masks(lam, tfidf)(z)
    counts = np.array([math.comb(d, k) for k in range(1, d + 1)], float)
    f_given_s = np.bincount(s, weights=y, minlength=d + 1)[1:] / counts
    f_given_s[d - 1] = 0.0  # s = d: nothing kept (all_masks leaves it out)
    zf_given_s = np.zeros((d, d))
    for k in range(d):
        zf_given_s[:, k] = np.bincount(s, weights=y * z[:, k], minlength=d + 1)[1:] / counts
    zf_given_s[d - 1] = 0.0
    return f_given_s, zf_given_s


@pytest.mark.parametrize(
    ("lam", "tfidf"),
    [
        document(2, 2),
        document(3, 3),
        document(5, 5),
        document(9, 9),
        document(12, 12),
        ([0.5, -1.0, 2.0, 1.0], [1e-90, 1.0, 1.0, 3.0]),  # a word 90 orders of magnitude lighter
        ([1.0, 2.0, -3.0, 0.5, 4.0], [1e40, 1.0, 0.0, 1e-20, 1e40]),  # 60 orders of magnitude, an invisible word
        (np.linspace(-1.0, 1.0, 10), np.ones(10)),  # equal weights
    ],
)
def test_conditional_moments_match_enumeration(lam, tfidf):
    f_given_s, zf_given_s = conditional_moments_linear_exact(lam, tfidf)
    expected_f, expected_zf = enumerated_moments(lam, tfidf)
    scale = np.abs(lam).max()
    np.testing.assert_allclose(f_given_s, expected_f, rtol=0, atol=1e-12 * scale)
    np.testing.assert_allclose(zf_given_s, expected_zf, rtol=0, atol=1e-12 * scale)


def test_conditional_moments_are_consistent():
    """sum_k z_k f = |K| f: the rows of E[z_k f | s] add up to (d - s) E[f | s]."""
    d = 40
    rng = np.random.default_rng(4)
    lam, tfidf = rng.normal(size=d), np.exp(rng.uniform(0.0, 30.0, d))
    f_given_s, zf_given_s = conditional_moments_linear_exact(lam, tfidf)
    assert f_given_s.shape == (d,) and zf_given_s.shape == (d, d)
    np.testing.assert_allclose(zf_given_s.sum(axis=1), (d - np.arange(1, d + 1)) * f_given_s, rtol=0, atol=1e-12)
    assert f_given_s[-1] == 0.0 and not zf_given_s[-1].any()  # s = d: nothing is kept


@pytest.mark.parametrize("nu", [0.25, np.inf])
def test_single_coordinate_models_add_up(nu):
    """beta is linear in lam: the sum of the explanations of the models phi_j weighted by lam_j."""
    d = 8
    lam, tfidf = document(d, seed=3)
    total = beta_linear_exact(lam, tfidf, nu=nu)
    parts = sum(lam[j] * beta_linear_exact(np.eye(d)[j], tfidf, nu=nu) for j in range(d))
    np.testing.assert_allclose(total, parts, rtol=0, atol=1e-12)


@pytest.mark.parametrize(
    "tfidf",
    [
        [0.0, 0.0, 2.0],  # one visible word: phi is 0 or e_2
        [0.0, 3.0, 0.0, 0.0, 3.0],  # two visible words, the rest invisible
        [1e-40, 1.0, 1.0, 1.0],  # a tiny weight: phi_0 = 1 when word 0 is the only one kept
        [1.0, 1e3, 1e-3, 5.0, 5.0, 5.0],  # six orders of magnitude
    ],
)
@pytest.mark.parametrize("nu", [0.25, np.inf])
def test_extreme_and_invisible_weights(tfidf, nu):
    d = len(tfidf)
    lam = np.linspace(-1.0, 2.0, d)
    expected = lt.beta_enumerate(linear_model_on_masks(lam, tfidf), d, nu=nu)
    got = beta_linear_exact(lam, tfidf, nu=nu)
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-9 * max(1.0, np.abs(expected).max()))


def _mp_beta(lam, tfidf, nu, dps=40):
    """beta by enumeration of every mask, with phi and f evaluated per mask and the solve in mpmath at ``dps`` digits
    (``limetheory.book.mpreference.beta_dense``: Sigma and Gamma summed per number s of removed words)."""
    lam = [mpmath.mpf(x) for x in lam]  # floats convert exactly, at any precision
    tfidf = [mpmath.mpf(x) for x in tfidf]

    def f(mask):  # called inside beta_dense's working precision
        kept = [j for j, bit in enumerate(mask) if bit]
        norm = mpmath.sqrt(mpmath.fsum(tfidf[j] ** 2 for j in kept))
        return mpmath.fsum(lam[j] * tfidf[j] for j in kept) / norm if norm > 0 else mpmath.mpf(0)

    return [float(v) for v in mpreference.beta_dense(f, len(tfidf), nu=nu, dps=dps)]


def _reference_digits(d, nu):
    """Digits for _mp_beta (``mpreference.digits_for``): twice the orders of magnitude between psi(1/d) and
    psi(2/d), plus guards.

    cond(Sigma) is of the order of psi(1/d)/psi(2/d), and the printed route loses it twice (c_d, then Sigma^{-1}
    Gamma); the weights of s >= 3 change beta only by their ratio to psi(2/d), below 10^(-digits) once dropped.
    ``test_mpmath_reference_has_enough_digits`` checks this against the full spread exp(-1/(2 nu^2)).
    """
    return mpreference.digits_for(d, nu=nu)


def _full_spread_digits(nu):
    """Digits that resolve every weight relative to the largest one: psi(1) >= exp(-1/(2 nu^2))."""
    return int(60 + 2 / (2 * nu * nu * math.log(10)))


@pytest.mark.parametrize("nu", [0.25, np.inf])
def test_beta_matches_mpmath_brute_force(nu):
    lam = [0.7, -1.3, 2.1, 0.4, -0.2]
    tfidf = [2.5, 0.0, 1.75, 1.75, 4.0]  # an invisible word and a repeated weight
    expected = np.array(_mp_beta(lam, tfidf, nu))
    got = beta_linear_exact(lam, tfidf, nu=nu)
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12 * np.abs(expected).max())


@pytest.mark.parametrize("d", range(2, 9))
@pytest.mark.parametrize("nu", SMALL_NUS)
def test_beta_matches_mpmath_at_small_bandwidth(d, nu):
    """Where Sigma is numerically singular (cond up to 10^8000 at d = 2, nu = 0.005) beta is still exact."""
    lam, tfidf = document(d, seed=d)
    expected = np.array(_mp_beta(lam, tfidf, nu, dps=_reference_digits(d, nu)))
    got = beta_linear_exact(lam, tfidf, nu=nu)
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-9 * np.abs(expected).max())


@pytest.mark.parametrize(("d", "nu"), [(2, 0.005), (3, 0.01), (8, 0.03), (6, 0.05)])
def test_mpmath_reference_has_enough_digits(d, nu):
    """The reference at _reference_digits agrees with one that resolves the whole spread of the weights."""
    lam, tfidf = document(d, seed=d)
    low = np.array(_mp_beta(lam, tfidf, nu, dps=_reference_digits(d, nu)))
    high = np.array(_mp_beta(lam, tfidf, nu, dps=max(_full_spread_digits(nu), _reference_digits(d, nu) + 60)))
    # both are many-digit values rounded once to double: equal, or 1 ulp apart across a rounding boundary
    np.testing.assert_array_max_ulp(low, high, maxulp=1)


@pytest.mark.parametrize("d", [2, 3, 10, 50])
@pytest.mark.parametrize("nu", [0.005, 0.01, 0.03, 0.25])
def test_one_visible_word_gives_its_indicator(d, nu):
    """With one visible word j, phi_j = z_j: f = lam_j z_j, whose explanation is lam_j e_{1+j} at every bandwidth."""
    tfidf = np.zeros(d)
    tfidf[d // 2] = 3.0
    lam = np.linspace(1.0, 2.0, d)
    expected = np.zeros(d + 1)
    expected[1 + d // 2] = lam[d // 2]
    np.testing.assert_allclose(beta_linear_exact(lam, tfidf, nu=nu), expected, rtol=0, atol=1e-12)


# ----------------------------------------------------------------------------- large d, exact references


def _class_moments(counts, weights, lam):
    """E[f | s] and E[z_i f | s] for words in classes of equal TF-IDF weight, from the law of the kept counts.

    ``counts[c]`` words of weight ``weights[c]`` (weight 0 allowed: invisible); the words are listed class by
    class.  Given m kept words, the kept counts (k_c) are multivariate hypergeometric, R = sum_c k_c w_c^2, and
    P(j kept | k) = k_c / n_c, P(j, i kept | k) = k_c (k_c - 1) / (n_c (n_c - 1)) (same class) or
    k_c k_e / (n_c n_e).  Returns (f_given_s, zf_given_s, tfidf).
    """
    counts = list(counts)
    d = sum(counts)
    nclass = len(counts)
    cls = np.repeat(np.arange(nclass), counts)
    tw = np.asarray(weights, float)
    lam = np.asarray(lam, float)
    grids = np.meshgrid(*[np.arange(n + 1) for n in counts], indexing="ij")
    k = np.stack([g.ravel() for g in grids], axis=1).astype(float)  # every vector of kept counts
    n = np.array(counts, float)
    log_ways = (gammaln(n + 1) - gammaln(k + 1) - gammaln(n - k + 1)).sum(axis=1)
    m = k.sum(axis=1)
    R = k @ tw**2
    f_given_s = np.zeros(d)
    zf_given_s = np.zeros((d, d))
    for mm in range(1, d):  # s = d - mm removed words
        rows = (m == mm) & (R > 0)
        pmf = np.exp(log_ways[rows] - (gammaln(d + 1) - gammaln(mm + 1) - gammaln(d - mm + 1)))
        scale = pmf / np.sqrt(R[rows])
        kc = k[rows]
        # A[c] = E[1{j kept} t_c / sqrt(R) | s], B[c, e] = E[1{j, i kept} t_c / sqrt(R) | s] (j in c, i in e, i != j)
        A = np.zeros(nclass)
        B = np.zeros((nclass, nclass))
        for c in range(nclass):
            if tw[c] == 0:
                continue
            A[c] = tw[c] * np.sum(scale * kc[:, c] / n[c])
            for e in range(nclass):
                if e == c:
                    both = kc[:, c] * (kc[:, c] - 1) / (n[c] * (n[c] - 1)) if n[c] > 1 else 0 * kc[:, c]
                else:
                    both = kc[:, c] * kc[:, e] / (n[c] * n[e])
                B[c, e] = tw[c] * np.sum(scale * both)
        s = d - mm
        f_given_s[s - 1] = np.sum(lam * A[cls])
        for i in range(d):
            others = np.sum(lam * B[cls, cls[i]]) - lam[i] * B[cls[i], cls[i]]
            zf_given_s[s - 1, i] = lam[i] * A[cls[i]] + others
    return f_given_s, zf_given_s, np.repeat(tw, counts)


def _class_reference(counts, weights, lam, nu):
    """Gamma = sum_s (psi(s/d) / d) (E[f | s], E[z_1 f | s], ...) from :func:`_class_moments`."""
    f_given_s, zf_given_s, tfidf = _class_moments(counts, weights, lam)
    d = len(tfidf)
    weight = lt.kernel_weights(d, nu=nu) / d
    return np.concatenate([[weight @ f_given_s], weight @ zf_given_s]), tfidf


@pytest.mark.parametrize("nu", [0.25, np.inf])
def test_uniform_weights_at_large_d(nu):
    """All weights equal: phi_j = 1 / sqrt(#kept) for a kept word (one class; exercises several node blocks)."""
    d = 300
    lam = np.random.default_rng(0).normal(size=d)
    expected, tfidf = _class_reference([d], [2.0], lam, nu)
    np.testing.assert_allclose(gamma_linear_exact(lam, tfidf, nu=nu), expected, rtol=1e-11, atol=1e-14)


@pytest.mark.parametrize("nu", [0.25, np.inf])
def test_three_weight_classes_at_large_d(nu):
    """Invisible, light and heavy words (weights 0, 1, 7): an exact non-uniform reference at d = 100."""
    counts, weights = [6, 64, 30], [0.0, 1.0, 7.0]
    lam = np.random.default_rng(1).normal(size=sum(counts))
    expected, tfidf = _class_reference(counts, weights, lam, nu)
    got = gamma_linear_exact(lam, tfidf, nu=nu)
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-11 * np.abs(expected).max())
    # where Sigma is well conditioned, the closed-form Sigma^{-1} applied to Gamma gives the same beta
    np.testing.assert_allclose(
        beta_linear_exact(lam, tfidf, nu=nu), lt.beta_from_gamma(expected, len(tfidf), nu=nu), rtol=0, atol=1e-9
    )


@pytest.mark.parametrize(
    ("counts", "weights"),
    [([150], [1.0]), ([6, 64, 30], [0.0, 1.0, 7.0]), ([20, 20, 20], [1e-30, 1.0, 1e30]), ([150, 150], [1.0, 30.0])],
    ids=["uniform-150", "invisible-light-heavy-100", "spread-1e60-60", "underflow-300"],
)
def test_conditional_moments_at_large_d(counts, weights):
    """Every E[f | s] and E[z_i f | s] (both passes of the leave-one-out recursion) against the class law.

    At d = 300 with weights 1 and 30, the largest nodes (u ~ 1e7) drive the means of the large kept sets below the
    double range: those sizes are skipped, and the downward recursion restarts below them."""
    lam = np.random.default_rng(2).normal(size=sum(counts))
    expected_f, expected_zf, tfidf = _class_moments(counts, weights, lam)
    if len(tfidf) == 300:
        model = tfidf_model.scale_free_model(lam, tfidf, None, "l2")
        nodes, _ = inverse_power_quadrature(model.r_min, 0.5)
        assert subset_means.negligible_sizes(model, nodes).min() < 300  # the skipping is exercised
    f_given_s, zf_given_s = conditional_moments_linear_exact(lam, tfidf)
    np.testing.assert_allclose(f_given_s, expected_f, rtol=0, atol=1e-12 * np.abs(lam).max())
    np.testing.assert_allclose(zf_given_s, expected_zf, rtol=0, atol=1e-12 * np.abs(lam).max())


@pytest.mark.parametrize("nu", [0.01, 0.05])
def test_three_weight_classes_at_small_bandwidth(nu):
    """beta from the class law's moments (an independent reference) at a bandwidth where Sigma is ill-conditioned."""
    counts, weights = [6, 64, 30], [0.0, 1.0, 7.0]
    lam = np.random.default_rng(1).normal(size=sum(counts))
    expected_f, expected_zf, tfidf = _class_moments(counts, weights, lam)
    expected = lt.beta_from_conditional_moments(expected_f, expected_zf, nu=nu)
    np.testing.assert_allclose(beta_linear_exact(lam, tfidf, nu=nu), expected, rtol=0, atol=1e-10)


# ----------------------------------------------------------------------------- structure


def test_invariances():
    d = 9
    lam, tfidf = document(d, seed=11)
    base = beta_linear_exact(lam, tfidf, nu=0.25)
    # phi is invariant under scaling of the weights
    np.testing.assert_allclose(beta_linear_exact(lam, 1e-30 * tfidf, nu=0.25), base, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(beta_linear_exact(lam, 1e30 * tfidf, nu=0.25), base, rtol=1e-12, atol=1e-14)
    # relabelling the words permutes the coefficients
    perm = np.random.default_rng(0).permutation(d)
    permuted = beta_linear_exact(lam[perm], tfidf[perm], nu=0.25)
    np.testing.assert_allclose(permuted[1:], base[1:][perm], rtol=1e-11, atol=1e-14)
    np.testing.assert_allclose(permuted[0], base[0], rtol=1e-11)
    # the coefficient of an invisible word in the model plays no role
    changed = lam.copy()
    changed[tfidf == 0] = 123.0
    np.testing.assert_allclose(beta_linear_exact(changed, tfidf, nu=0.25), base, rtol=0, atol=1e-14)


def test_large_bandwidth_is_the_limit():
    lam, tfidf = document(7, seed=5)
    np.testing.assert_allclose(
        beta_linear_exact(lam, tfidf, nu=1e4), beta_linear_exact(lam, tfidf, nu=np.inf), rtol=0, atol=1e-7
    )


def test_accepts_lists_and_integers():
    got = beta_linear_exact([1, 0, -2], [1, 2, 3], nu=0.25)
    np.testing.assert_allclose(got, beta_linear_exact(np.array([1.0, 0, -2]), np.array([1.0, 2, 3]), nu=0.25))


# ----------------------------------------------------------------------------- quadrature


@pytest.mark.parametrize("r_min", [1.0, 1e-3, 1e-8, 1e-30, MIN_WEIGHT_RATIO**2])
def test_inverse_sqrt_quadrature_relative_error(r_min):
    nodes, weights = inverse_sqrt_quadrature(r_min)
    assert (weights > 0).all() and (nodes >= 0).all()
    r = np.geomspace(r_min, 1.0, 400)
    with mpmath.workdps(30):
        worst = max(
            abs(
                mpmath.fsum(w * mpmath.exp(-mpmath.mpf(u) * mpmath.mpf(x)) for u, w in zip(nodes, weights, strict=True))
                * mpmath.sqrt(mpmath.mpf(x))
                - 1
            )
            for x in r[::25]
        )
    assert float(worst) < 1e-13
    approx = (weights[None, :] * np.exp(-np.outer(r, nodes))).sum(axis=1)
    assert np.abs(approx * np.sqrt(r) - 1).max() < 2e-13


@pytest.mark.parametrize(
    ("r_min", "error", "pattern"),
    [
        (0.0, ValueError, "r_min must lie in"),
        (1.5, ValueError, "r_min must lie in"),
        ("1", TypeError, "r_min"),
        (1e-250, ValueError, "r_min must be >="),
    ],
)
def test_inverse_sqrt_quadrature_errors(r_min, error, pattern):
    with pytest.raises(error, match=pattern):
        inverse_sqrt_quadrature(r_min)


# ----------------------------------------------------------------------------- validation


@pytest.mark.parametrize(
    ("lam", "tfidf", "nu", "error", "pattern"),
    [
        ([1.0, 2.0], [1.0, 2.0, 3.0], 0.25, ValueError, "same length"),
        ([1.0], [1.0], 0.25, ValueError, "d >= 2"),
        ([], [], 0.25, ValueError, "d >= 2"),
        ([1.0, 2.0], [1.0, -2.0], 0.25, ValueError, "tfidf must be >= 0"),
        ([1.0, 2.0], [0.0, 0.0], 0.25, ValueError, "positive entry"),
        ([1.0, np.nan], [1.0, 2.0], 0.25, ValueError, "lam must be finite"),
        ([1.0, 2.0], [np.inf, 2.0], 0.25, ValueError, "tfidf must be finite"),
        ([1.0, 2.0], [1.0, np.nan], 0.25, ValueError, "tfidf must be finite"),
        ([[1.0, 2.0]], [[1.0, 2.0]], 0.25, ValueError, "must be a 1-D array"),
        ([1.0, 2.0], [1e-120, 1.0], 0.25, ValueError, "span at most"),
        (["a", "b"], [1.0, 2.0], 0.25, TypeError, "lam must be an array of real numbers"),
        ("ab", [1.0, 2.0], 0.25, TypeError, "lam must be"),
        ([1.0, 2.0], [1.0 + 1j, 2.0], 0.25, TypeError, "tfidf must be real"),
        ([1.0, 2.0], [1.0, 2.0], 0.0, ValueError, "nu must be > 0"),
        ([1.0, 2.0], [1.0, 2.0], -1.0, ValueError, "nu must be > 0"),
        ([1.0, 2.0], [1.0, 2.0], np.nan, ValueError, "nu must be > 0"),
        ([1.0, 2.0], [1.0, 2.0], "0.25", TypeError, "nu must be"),
    ],
)
def test_validation(lam, tfidf, nu, error, pattern):
    with pytest.raises(error, match=pattern):
        beta_linear_exact(lam, tfidf, nu=nu)
    with pytest.raises(error, match=pattern):
        gamma_linear_exact(lam, tfidf, nu=nu)
    if not pattern.startswith("nu"):
        with pytest.raises(error, match=pattern):
            conditional_moments_linear_exact(lam, tfidf)


def test_exported():
    assert lt.beta_linear_exact is beta_linear_exact
    assert lt.gamma_linear_exact is gamma_linear_exact
    assert lt.conditional_moments_linear_exact is conditional_moments_linear_exact


# ----------------------------------------------------------------------------- shared columns, the real pipeline


def _first_distinct_words(text, d):
    """The prefix of ``text`` that ends with its d-th distinct lime word (lime's tokens, case kept)."""
    seen = set()
    for match in __import__("re").finditer(r"\w+", text):
        seen.add(match.group())
        if len(seen) == d:
            return text[: match.end()]
    return None


@pytest.fixture(scope="module")
def shared_documents(data_dir):
    """Yelp review prefixes of 11 to 14 distinct lime words in which two words share a column (case variants)."""
    texts = list(lt.load_yelp_reviews().text)
    chosen = []
    for text in texts:
        d = 11 + len(chosen) % 4
        prefix = _first_distinct_words(text, d)
        if prefix is None:
            continue
        words = [w for w in lt.local_dictionary(prefix) if len(w) > 1]
        if len({w.lower() for w in words}) < len(words):
            chosen.append(prefix)
        if len(chosen) == 4:
            break
    return texts, chosen


def per_word_model(text, vectorizer, model):
    """lam, tfidf and column labels per lime word, from lime's counts and the vectorizer's idf (no package code)."""
    indexed = IndexedString(text, bow=True)
    analyzer = vectorizer.build_analyzer()
    columns = np.full(indexed.num_words(), -1)
    for i, word in enumerate(indexed.inverse_vocab):
        tokens = analyzer(word)
        if len(tokens) == 1 and tokens[0] in vectorizer.vocabulary_:
            columns[i] = vectorizer.vocabulary_[tokens[0]]
    counts = np.array([len(indexed.string_position(i)) for i in range(indexed.num_words())], float)
    idf = vectorizer.idf_ if vectorizer.use_idf else np.ones(len(vectorizer.vocabulary_))
    tfidf = np.where(columns >= 0, counts * idf[np.maximum(columns, 0)], 0.0)
    lam = np.where(columns >= 0, model.coef_[0][np.maximum(columns, 0)], 0.0)
    return lam, tfidf, columns, indexed


#: lime's document for each mask, by the text's IndexedString (bow=True, lime's default split: per_word_model's) and
#: the mask's bits: the same documents go through the pipelines of several norms (cleared after the module)
_LIME_DOCUMENTS: dict[str, dict[int, str]] = {}


@pytest.fixture(scope="module", autouse=True)
def _forget_lime_documents():
    yield
    _LIME_DOCUMENTS.clear()


def pipeline_on_masks(indexed, vectorizer, model):
    """f(z): the model's decision_function on the document lime builds for mask z (its removed words deleted).

    Each mask's document goes through the pipeline once (a reference enumerated at several bandwidths asks for the
    same 2^d masks each time): the values are remembered by the mask's bits. A sparse row's decision_function does
    not depend on the other rows of its batch, so a remembered value is the one a new call would give.  lime builds
    each document once per text (``_LIME_DOCUMENTS``), whatever the pipeline."""
    memo = {}
    documents_of = _LIME_DOCUMENTS.setdefault(indexed.raw_string(), {})

    def document(row, code):
        if code not in documents_of:
            documents_of[code] = indexed.inverse_removing(np.flatnonzero(row == 0))
        return documents_of[code]

    def f(z):
        z = np.asarray(z)
        codes = (z != 0).astype(np.int64) @ (np.int64(1) << np.arange(z.shape[1], dtype=np.int64))
        new = list(dict.fromkeys(int(code) for code in codes if int(code) not in memo))
        if new:
            rows = {int(code): row for code, row in zip(codes, z, strict=True)}
            documents = [document(rows[code], code) for code in new]
            memo.update(zip(new, model.decision_function(vectorizer.transform(documents)), strict=True))
        return np.array([memo[int(code)] for code in codes])

    return f


def enumeration_tolerance(d, nu, scale):
    """The quadrature's relative error on every moment (1e-13 claimed, 5e-14 measured: the margin covers the
    rounding of the 2^d-term sums of the reference) times cond(Sigma), which bounds how much the solve for beta
    can amplify an error in the moments, relative to the scale of the model's values."""
    return 1e-13 * np.linalg.cond(lt.sigma_matrix(d, nu=nu)) * scale


@pytest.mark.parametrize("norm", ["l2", "l1", None])
def test_shared_columns_match_enumeration_of_the_real_pipeline(shared_documents, norm):
    """Default TfidfVectorizer (lower-casing: "The" and "the" in one column), a LogisticRegression's
    decision_function, every mask of 11 to 14 words enumerated through the vectorizer itself."""
    texts, documents = shared_documents
    vectorizer = TfidfVectorizer(norm=norm).fit(texts)
    model = LogisticRegression(max_iter=1000).fit(vectorizer.transform(texts), lt.load_yelp_reviews().stars)
    assert len(documents) == 4
    for text in documents:
        lam, tfidf, columns, indexed = per_word_model(text, vectorizer, model)
        d = len(lam)
        visible = columns[columns >= 0]
        assert np.bincount(visible).max() >= 2  # the document does have words that share a column
        f = pipeline_on_masks(indexed, vectorizer, model)
        for nu in (0.25, np.inf):
            expected = lt.beta_enumerate(f, d, nu=nu)
            got = beta_linear_exact(lam, tfidf, nu=nu, groups=columns, norm=norm)
            got[0] += model.intercept_[0]  # beta is linear in f: the intercept adds to beta_0
            scale = max(1.0, float(np.abs(f(np.ones((1, d)))).max()), float(np.abs(expected).max()))
            tolerance = enumeration_tolerance(d, nu, scale)
            assert tolerance <= 1e-10 * scale  # the required accuracy, 1e-10, follows from the bound here
            np.testing.assert_allclose(got, expected, rtol=0, atol=tolerance)


def grouped_model_on_masks(lam, tfidf, groups, norm="l2"):
    """f(z) with the words of one label adding up in one column before the norm (0/0 := 0)."""
    lam, tfidf, groups = np.asarray(lam, float), np.asarray(tfidf, float), np.asarray(groups)
    labels = np.unique(groups)
    membership = (groups[:, None] == labels[None, :]).astype(float)  # (d, columns)
    coefficient = np.array([lam[groups == label][0] for label in labels])

    def f(z):
        columns = (np.asarray(z, float) * tfidf) @ membership
        value = columns @ coefficient
        norms = {"l2": np.sqrt((columns**2).sum(axis=1)), "l1": columns.sum(axis=1)}.get(norm)
        if norms is None:
            return value
        return np.divide(value, norms, out=np.zeros_like(value), where=norms > 0)

    return f


GROUPED = [
    ([0, 0, 1, 2, 3], "two words in one column"),
    ([0, 1, 0, 1, 2, 2, 3], "three columns of two"),
    ([5, 5, 5, 2, 9, 9, 1, 0], "a column of three"),
    ([0, 0, 0, 0, 0, 0, 0, 0, 0, 0], "every word in one column"),
    ([3, 1, 3, 2, 1, 3, 0, 4, 4, 2, 6, 7], "columns of one to three words"),
]


@pytest.mark.parametrize(("groups", "label"), GROUPED, ids=[label for _, label in GROUPED])
@pytest.mark.parametrize("nu", [0.1, 0.25, np.inf])
def test_grouped_moments_match_enumeration(groups, label, nu):
    """Every E[f | s] and E[z_k f | s] against averages over the masks, then beta (shared columns)."""
    d = len(groups)
    rng = np.random.default_rng(d)
    groups = np.asarray(groups)
    lam = rng.normal(size=groups.max() + 1)[groups]
    tfidf = rng.integers(1, 4, d) * rng.uniform(1.0, 5.0, d)
    tfidf[d - 1] = 0.0  # a word the model cannot see, in a column of its own or shared
    f = grouped_model_on_masks(lam, tfidf, groups)
    z, s, _ = lt.theory.explanation.all_masks(d)
    y = f(z)
    counts = np.array([math.comb(d, k) for k in range(1, d + 1)], float)
    expected_f = np.bincount(s, weights=y, minlength=d + 1)[1:] / counts
    expected_zf = np.stack([np.bincount(s, weights=y * z[:, k], minlength=d + 1)[1:] for k in range(d)], 1)
    expected_zf /= counts[:, None]
    f_given_s, zf_given_s = conditional_moments_linear_exact(lam, tfidf, groups=groups)
    scale = np.abs(lam).max()
    np.testing.assert_allclose(f_given_s[:-1], expected_f[:-1], rtol=0, atol=1e-12 * scale)
    np.testing.assert_allclose(zf_given_s[:-1], expected_zf[:-1], rtol=0, atol=1e-12 * scale)
    expected = lt.beta_enumerate(f, d, nu=nu)
    got = beta_linear_exact(lam, tfidf, nu=nu, groups=groups)
    np.testing.assert_allclose(got, expected, rtol=0, atol=enumeration_tolerance(d, nu, max(1.0, np.abs(y).max())))


@pytest.mark.parametrize("norm", ["l1", None])
@pytest.mark.parametrize("nu", [0.25, np.inf])
def test_other_norms_match_enumeration(norm, nu):
    d = 9
    rng = np.random.default_rng(5)
    groups = np.array([0, 0, 1, 2, 2, 2, 3, 4, 5])
    lam = rng.normal(size=6)[groups]
    tfidf = rng.uniform(0.5, 4.0, d)
    tfidf[4] = 0.0
    f = grouped_model_on_masks(lam, tfidf, groups, norm)
    expected = lt.beta_enumerate(f, d, nu=nu)
    got = beta_linear_exact(lam, tfidf, nu=nu, groups=groups, norm=norm)
    scale = max(1.0, np.abs(f(np.ones((1, d)))).max())
    np.testing.assert_allclose(got, expected, rtol=0, atol=enumeration_tolerance(d, nu, scale))
    f_given_s, zf_given_s = conditional_moments_linear_exact(lam, tfidf, groups=groups, norm=norm)
    assert f_given_s.shape == (d,) and zf_given_s.shape == (d, d)
    gamma = gamma_linear_exact(lam, tfidf, nu=nu, groups=groups, norm=norm)
    z, s, prob = lt.theory.explanation.all_masks(d)
    weight = prob * lt.kernel_weights(d, nu=nu)[s - 1]
    y = f(z)
    reference = np.concatenate([[weight @ y], (weight * y) @ z])
    np.testing.assert_allclose(gamma, reference, rtol=1e-12, atol=1e-12 * weight.sum() * np.abs(y).max())


def test_unnormalised_beta_is_the_coefficients():
    """norm=None: f = sum_j lam_j tfidf_j z_j is affine in the mask, so beta = (0, lam * tfidf) exactly."""
    lam, tfidf = [0.5, -1.0, 2.0, 0.0], [1.0, 2.0, 0.0, 3.0]
    got = beta_linear_exact(lam, tfidf, nu=0.25, norm=None)
    assert got.tolist() == [0.0, 0.5, -2.0, 0.0, 0.0]
    # a document the model cannot see at all is allowed without a norm: f = 0
    assert beta_linear_exact(lam, [0.0] * 4, nu=0.25, norm=None).tolist() == [0.0] * 5


def test_groups_of_one_change_nothing():
    """Distinct labels (or a shared label whose other words are invisible) give the one-word-per-column route."""
    lam, tfidf = document(9, seed=4)
    base = beta_linear_exact(lam, tfidf, nu=0.25)
    np.testing.assert_array_equal(beta_linear_exact(lam, tfidf, nu=0.25, groups=np.arange(9)[::-1]), base)
    groups = np.arange(9)
    groups[0] = groups[1]  # word 0 is invisible (tfidf 0): its column has one visible word
    np.testing.assert_array_equal(beta_linear_exact(lam, tfidf, nu=0.25, groups=groups), base)


def test_weighted_assembly_equals_beta_from_conditional_moments():
    """beta_linear_exact assembles beta from the weighted moments: the same numbers as the d x d route."""
    for seed, nu in [(1, 0.01), (2, 0.05), (3, 0.25), (4, np.inf)]:
        lam, tfidf = document(12, seed=seed)
        groups = np.array([0, 1, 2, 2, 3, 4, 4, 5, 6, 7, 8, 9])
        lam = lam[np.r_[0, 1, 2, 2, 4, 5, 5, 7:12]]
        moments = conditional_moments_linear_exact(lam, tfidf, groups=groups)
        reference = lt.beta_from_conditional_moments(*moments, nu=nu)
        got = beta_linear_exact(lam, tfidf, nu=nu, groups=groups)
        # both sum the same terms in another order: rounding of order d eps relative to the largest term
        np.testing.assert_allclose(got, reference, rtol=0, atol=64 * np.finfo(float).eps * np.abs(reference).max())


def test_grouped_moments_are_consistent_at_larger_d():
    """sum_k z_k f = |K| f with shared columns too, at d = 80 (both leave-one-out routes, several node blocks)."""
    d = 80
    rng = np.random.default_rng(8)
    groups = np.arange(d)
    groups[10:16] = 10  # a column of six words
    groups[[20, 40, 60]] = 20
    groups[[30, 31]] = 30
    lam = rng.normal(size=d)[groups]
    tfidf = np.round(rng.uniform(1.0, 4.0, d), 1)  # few distinct weights: shared leave-one-out recursions
    f_given_s, zf_given_s = conditional_moments_linear_exact(lam, tfidf, groups=groups)
    np.testing.assert_allclose(zf_given_s.sum(axis=1), (d - np.arange(1, d + 1)) * f_given_s, rtol=0, atol=1e-12)


@pytest.mark.parametrize("r_min", [1.0, 1e-3, 1e-8, 1e-30])
def test_inverse_first_power_quadrature(r_min):
    """The L1 norm's rule for 1/r: relative error below 1e-13 on [r_min, 1]."""
    nodes, weights = inverse_power_quadrature(r_min, 1.0)
    assert (weights > 0).all()
    with mpmath.workdps(30):
        worst = max(
            abs(mpmath.fsum(w * mpmath.exp(-mpmath.mpf(u) * mpmath.mpf(x)) for u, w in zip(nodes, weights, strict=True))
                * mpmath.mpf(x) - 1)
            for x in np.geomspace(r_min, 1.0, 17)
        )  # fmt: skip
    assert float(worst) < 1e-13


@pytest.mark.parametrize(
    ("keywords", "error", "pattern"),
    [
        ({"groups": [0, 0, 1.5]}, TypeError, "groups must be an array of integer"),
        ({"groups": "abc"}, TypeError, "groups must be an array of integer"),
        ({"groups": [True, False, True]}, TypeError, "groups must be an array of integer"),
        ({"groups": [0, 1]}, ValueError, r"groups must have shape \(3,\)"),
        ({"groups": [0, 0, -1]}, ValueError, "negative label"),
        ({"groups": [0, 0, 1], "lam": [1.0, 2.0, 3.0]}, ValueError, "lam must be equal within a column"),
        ({"norm": "l3"}, ValueError, "norm must be 'l2', 'l1' or None"),
        ({"norm": 2}, TypeError, "norm must be 'l2', 'l1' or None"),
        ({"norm": None, "tfidf": [1.0, -1.0, 2.0]}, ValueError, "tfidf must be >= 0"),
        ({"norm": None, "lam": [1.0, 2.0]}, ValueError, "same length"),
        ({"norm": None, "groups": [0, 0, 1], "lam": [1.0, 2.0, 3.0]}, ValueError, "lam must be equal"),
    ],
)
def test_groups_and_norm_validation(keywords, error, pattern):
    arguments = {"lam": [1.0, 1.0, 3.0], "tfidf": [1.0, 2.0, 3.0]} | keywords
    lam, tfidf = arguments.pop("lam"), arguments.pop("tfidf")
    with pytest.raises(error, match=pattern):
        beta_linear_exact(lam, tfidf, nu=0.25, **arguments)
    with pytest.raises(error, match=pattern):
        gamma_linear_exact(lam, tfidf, nu=0.25, **arguments)
    with pytest.raises(error, match=pattern):
        conditional_moments_linear_exact(lam, tfidf, **arguments)


def test_too_many_words_in_one_column():
    d = MAX_SHARED_WORDS + 1
    with pytest.raises(ValueError, match=f"at most {MAX_SHARED_WORDS} visible words may share a column"):
        beta_linear_exact(np.ones(d), np.ones(d), nu=0.25, groups=np.zeros(d, dtype=int))


def test_bandwidth_is_keyword_only():
    with pytest.raises(TypeError, match="nu="):
        beta_linear_exact([1.0, 2.0], [1.0, 2.0], 0.25)


# ----------------------------------------------------------------------------- whole reviews; the node blocks


@pytest.fixture(scope="module")
def review_pipeline(data_dir):
    """The default TfidfVectorizer and a LogisticRegression fitted on the 1000 Yelp reviews (as explain_speed)."""
    reviews = lt.load_yelp_reviews()
    texts = list(reviews.text)
    vectorizer = TfidfVectorizer().fit(texts)
    model = LogisticRegression(max_iter=1000).fit(vectorizer.transform(texts), reviews.stars)
    return texts, vectorizer, model


def test_whole_reviews_match_enumeration_of_the_real_pipeline(review_pipeline):
    """Whole Yelp reviews (not prefixes) of 10 to 13 distinct lime words, each of the three with a shared column
    and the first three others: beta against every mask sent through the vectorizer and the model."""
    texts, vectorizer, model = review_pipeline
    shared, others = [], []
    for text in texts:
        lam, tfidf, columns, indexed = per_word_model(text, vectorizer, model)
        if not 10 <= len(lam) <= 13:
            continue
        visible = columns[columns >= 0]
        (shared if np.bincount(visible).max() >= 2 else others).append((lam, tfidf, columns, indexed))
    assert len(shared) >= 2 and len(others) >= 3  # the data has such reviews; the test must not pass vacuously
    for lam, tfidf, columns, indexed in shared + others[:3]:
        d = len(lam)
        f = pipeline_on_masks(indexed, vectorizer, model)
        for nu in (0.1, 0.25, np.inf):
            expected = lt.beta_enumerate(f, d, nu=nu)
            got = beta_linear_exact(lam, tfidf, nu=nu, groups=columns)
            got[0] += model.intercept_[0]
            scale = max(1.0, float(np.abs(expected).max()))
            np.testing.assert_allclose(got, expected, rtol=0, atol=enumeration_tolerance(d, nu, scale))


def blocked_document(d=60, seed=11):
    """Weights over eight orders of magnitude (so that the largest nodes need only the smallest sizes and the
    leave-one-out passes drop and add nodes), two shared columns, repeated weights."""
    rng = np.random.default_rng(seed)
    tfidf = 10.0 ** rng.uniform(-4.0, 4.0, d)
    tfidf[[3, d // 4 + 1, d // 2 - 1]] = tfidf[2]  # repeated weights: one leave-one-out recursion for four words
    tfidf[7] = 0.0
    groups = np.arange(d)
    groups[[d // 3, d // 3 + 1, 2 * d // 3]] = d // 3
    groups[[d // 2, d // 2 + 1]] = d // 2
    lam = rng.normal(size=d)[groups]
    return lam, tfidf, groups


@pytest.mark.parametrize("block_entries", [1, 3000, 20000])
def test_node_blocks_change_nothing(monkeypatch, block_entries):
    """The nodes processed in blocks (the memory budget of large d: one node, a few, many) or all at once give
    the same beta: the blocks add the same per-node terms in another order, so the results differ by rounding
    of sums of positive weights times terms at most max |lam|: a few eps times max |lam| (64 eps allowed)."""
    lam, tfidf, groups = blocked_document()
    model = tfidf_model.scale_free_model(lam, tfidf, groups, "l2")
    nodes, _ = inverse_power_quadrature(model.r_min, 0.5)
    tops = subset_means.negligible_sizes(model, nodes)
    assert tops.min() < model.d / 4 and tops.max() > model.d  # the skipping of negligible sizes is exercised
    for nu in (0.05, 0.25, np.inf):
        whole = beta_linear_exact(lam, tfidf, nu=nu, groups=groups)
        with monkeypatch.context() as patched:
            patched.setattr(linear_moments, "_BLOCK_ENTRIES", block_entries)
            blocked = beta_linear_exact(lam, tfidf, nu=nu, groups=groups)
        np.testing.assert_allclose(blocked, whole, rtol=0, atol=64 * np.finfo(float).eps * np.abs(lam).max())


def test_skipped_sizes_match_enumeration():
    """A document whose largest quadrature nodes need only the smallest sizes (weights over eight orders of
    magnitude), d = 14, against the enumeration of every mask."""
    lam, tfidf, groups = blocked_document(d=14, seed=3)
    model = tfidf_model.scale_free_model(lam, tfidf, groups, "l2")
    nodes, _ = inverse_power_quadrature(model.r_min, 0.5)
    assert subset_means.negligible_sizes(model, nodes).min() < 14
    f = grouped_model_on_masks(lam, tfidf, groups)
    for nu in (0.25, np.inf):
        expected = lt.beta_enumerate(f, 14, nu=nu)
        got = beta_linear_exact(lam, tfidf, nu=nu, groups=groups)
        scale = max(1.0, float(np.abs(expected).max()))
        np.testing.assert_allclose(got, expected, rtol=0, atol=enumeration_tolerance(14, nu, scale))


def test_cached_quadrature_rule_is_shared_and_read_only():
    """Documents whose smallest weight gives the same last grid point share one rule (cached), which no caller
    can change; a smaller r_min extends the same grid."""
    first = inverse_sqrt_quadrature(0.01)
    again = inverse_sqrt_quadrature(0.0100001)
    assert first[0] is again[0] and first[1] is again[1]
    with pytest.raises(ValueError, match="read-only"):
        first[0][0] = 1.0
    longer = inverse_sqrt_quadrature(1e-6)
    assert longer[0].size > first[0].size
    np.testing.assert_array_equal(longer[0][: first[0].size], first[0])
    np.testing.assert_array_equal(longer[1][: first[1].size], first[1])


# ----------------------------------------------------------------------------- the size mixture (large d)


def long_document(d, seed, n_weights=60):
    """A long document's weights: few distinct TF-IDF values (as in real text), invisible words, a heavy word."""
    rng = np.random.default_rng(seed)
    values = rng.integers(1, 5, n_weights) * rng.uniform(1.0, 8.0, n_weights)
    tfidf = values[np.minimum(rng.geometric(0.08, d) - 1, n_weights - 1)]  # a few large classes, a long tail
    tfidf[rng.choice(d, 20, replace=False)] = 0.0  # words the model cannot see
    tfidf[0] = 40.0 * tfidf.max()  # one word with a large share of the norm
    return rng.normal(size=d), tfidf


def quadratic_route(monkeypatch, lam, tfidf, **keywords):
    """beta_linear_exact by the d² recursion alone (the size mixture switched off)."""
    with monkeypatch.context() as patch:
        patch.setattr(linear_mixture, "MIXTURE_MIN_WORDS", 10**9)
        return beta_linear_exact(lam, tfidf, **keywords)


@pytest.mark.parametrize(
    ("norm", "nu"),
    [
        ("l2", 0.25),
        pytest.param("l2", 0.05, marks=pytest.mark.slow),
        pytest.param("l2", np.inf, marks=pytest.mark.slow),
        ("l1", 1.0),
    ],
)
def test_size_mixture_matches_the_quadratic_route(monkeypatch, norm, nu):
    """At d = 1600 the mixture route is used, and it agrees with the d² recursion (lime's bandwidth and the l1 norm
    in `make test`; the narrow and the infinite bandwidth in the slow group, each a d² recursion at d = 1600).

    Both are accurate to about 1e-13 max|lam| (their u-quadratures share a 1e-13 relative error; the mixture adds
    its fit residual, 3e-14 of the largest weight, and roundings amplified at most 1e3 times): 1e-12 is that
    accuracy with a margin.
    """
    lam, tfidf = long_document(1600, seed=3)
    model = tfidf_model.scale_free_model(lam, tfidf, None, norm)
    law = lt.theory.law.weighted_law(1600, nu)
    assert linear_mixture.mixture_beta(model, law) is not None  # the route is taken
    got = beta_linear_exact(lam, tfidf, nu=nu, norm=norm)
    expected = quadratic_route(monkeypatch, lam, tfidf, nu=nu, norm=norm)
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12 * np.abs(lam).max())


def test_size_mixture_falls_back_when_its_two_rules_in_p_disagree(monkeypatch):
    """A rule in p of 4 and 6 points is far from exact for the degree-1600 integrand: the check refuses the mixture,
    and beta_linear_exact answers with the recursions (the same array as with the mixture switched off)."""
    lam, tfidf = long_document(1600, seed=3)
    model = tfidf_model.scale_free_model(lam, tfidf, None, "l2")
    law = lt.theory.law.weighted_law(1600, 0.25)
    assert linear_mixture.mixture_beta(model, law) is not None  # with its own rules the check passes
    monkeypatch.setattr(linear_mixture, "_FORCED_RULE", 4)
    assert linear_mixture.mixture_beta(model, law) is None
    got = beta_linear_exact(lam, tfidf, nu=0.25)
    np.testing.assert_array_equal(got, quadratic_route(monkeypatch, lam, tfidf, nu=0.25, norm="l2"))


def test_size_mixture_rules_in_p_agree_far_below_the_tolerance(monkeypatch):
    """The two rules' betas differ by rounding only, far below MIXTURE_RULE_TOL (relative to |f|(ξ) = Σ|w|)."""
    lam, tfidf = long_document(1600, seed=3)
    model = tfidf_model.scale_free_model(lam, tfidf, None, "l2")
    betas = []
    assembly = linear_mixture._mixture_assembly

    def record(*args):
        betas.append(assembly(*args))
        return betas[-1]

    monkeypatch.setattr(linear_mixture, "_mixture_assembly", record)
    linear_mixture.mixture_beta(model, lt.theory.law.weighted_law(1600, 0.25))
    assert len(betas) == 2
    gap = np.abs(betas[1] - betas[0]).max() / np.abs(model.w).sum()
    assert gap <= linear_mixture.MIXTURE_RULE_TOL / 100


def test_size_mixture_check_is_relative_to_the_model_size_at_xi(monkeypatch):
    """The check compares the two rules' gap with MIXTURE_RULE_TOL |f|(ξ), |f|(ξ) = Σ_j |w_j|, not max_j |w_j|.

    λ ≡ 1 on 3001 equal weights (issue 35's case): |f|(ξ) = √d and max |w| = 1/√d, a factor d apart.  With the
    tolerance set to the geometric mean of gap / |f|(ξ) and gap / max |w| (a factor √d ≈ 55 from each), the check
    accepts the mixture; the old unit, max |w|, refused it.  With a tolerance below gap / |f|(ξ) it refuses.
    """
    d = 3001
    model = tfidf_model.scale_free_model(np.ones(d), np.ones(d), None, "l2")
    law = lt.theory.law.weighted_law(d, 0.1)
    betas = []
    assembly = linear_mixture._mixture_assembly

    def record(*args):
        betas.append(assembly(*args))
        return betas[-1]

    monkeypatch.setattr(linear_mixture, "_mixture_assembly", record)
    assert linear_mixture.mixture_beta(model, law) is not None
    gap = float(np.abs(betas[1] - betas[0]).max())
    size, largest = float(np.abs(model.w).sum()), float(np.abs(model.w).max())
    assert gap > 0 and size / largest == pytest.approx(d, rel=1e-12)  # tol: d sums of 1/√d, rounding only
    monkeypatch.setattr(linear_mixture, "MIXTURE_RULE_TOL", gap / np.sqrt(size * largest))
    assert linear_mixture.mixture_beta(model, law) is not None
    monkeypatch.setattr(linear_mixture, "MIXTURE_RULE_TOL", gap / size / 2)
    assert linear_mixture.mixture_beta(model, law) is None


def test_size_mixture_check_is_no_looser_than_the_promise():
    """A rule the check accepts keeps beta_linear_exact's promise (both in the unit |f|(ξ))."""
    assert linear_mixture.MIXTURE_RULE_TOL <= linear_exact.BETA_ACCURACY


def test_size_mixture_with_shared_columns_matches_the_quadratic_route(monkeypatch):
    """Forty shared columns of 2 and 3 words and one of 5 at d = 1600: the mixture sums each column's subsets."""
    d = 1600
    lam, tfidf = long_document(d, seed=7)
    groups = np.arange(d)
    chosen = np.random.default_rng(1).choice(np.flatnonzero(tfidf > 0)[1:], 125, replace=False)
    for members in [chosen[3 * c : 3 * c + 2 + c % 2] for c in range(40)] + [chosen[120:]]:
        groups[members] = groups[members[0]]
        lam[members] = lam[members[0]]
    model = tfidf_model.scale_free_model(lam, tfidf, groups, "l2")
    assert len(model.shared) == 41
    for nu in (0.25, np.inf):
        assert linear_mixture.mixture_beta(model, lt.theory.law.weighted_law(d, nu)) is not None
        got = beta_linear_exact(lam, tfidf, nu=nu, groups=groups)
        expected = quadratic_route(monkeypatch, lam, tfidf, nu=nu, groups=groups)
        np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12 * np.abs(lam).max())  # as above


@pytest.mark.parametrize(("n", "e", "width"), [(40, 7, 12), (50, 30, 10), (5, 3, 64)])
def test_truncated_hypergeometric_weights_are_the_exact_ones_below_the_width(n, e, width):
    """The ratio recurrence of the mixture's small sizes against the logarithm sums of the full table."""
    full = subset_means._exact_hypergeometric_weights(n, e)
    truncated = subset_means._truncated_hypergeometric_weights(n, e, width)
    rows, columns = min(e, width - 1) + 1, min(n, width - 1) + 1
    assert truncated.shape == (rows, columns)
    # both are products of at most n + e exact ratios, each rounded once
    np.testing.assert_allclose(truncated, full[:rows, :columns], rtol=4 * (n + e) * np.finfo(float).eps, atol=0)


def _two_class_moments(counts, weights, lam):
    """E[f | s] and E[z_i f | s] for two classes of equal weight, from the law of the kept counts (k1, k2).

    The vectorised form of :func:`_class_moments` for thousands of words: given m kept words the counts are
    hypergeometric, with probabilities from :func:`_log_choose`.
    """
    n1, n2 = counts
    d = n1 + n2
    t = np.asarray(weights, float)
    k1, k2 = (a.ravel() for a in np.meshgrid(np.arange(n1 + 1), np.arange(n2 + 1), indexing="ij"))
    m = k1 + k2
    visible = (m > 0) & (m < d)
    k1, k2, m = k1[visible], k2[visible], m[visible]
    pmf = np.exp(log_choose(n1)[k1] + log_choose(n2)[k2] - log_choose(d)[m]).astype(float)
    scale = pmf / np.sqrt(k1 * t[0] ** 2 + k2 * t[1] ** 2)
    k = np.stack([k1, k2]).astype(float)
    n = np.array([n1, n2], float)

    def by_size(values):
        return np.bincount(m, weights=values, minlength=d + 1)

    A = np.stack([t[c] * by_size(scale * k[c] / n[c]) for c in range(2)])  # (2, d + 1), index m
    B = np.empty((2, 2, d + 1))
    for c in range(2):
        for e in range(2):
            both = k[c] * (k[c] - 1) / (n[c] * (n[c] - 1)) if c == e else k[c] * k[e] / (n[c] * n[e])
            B[c, e] = t[c] * by_size(scale * both)
    cls = np.repeat([0, 1], counts)
    class_lam = np.array([lam[cls == 0].sum(), lam[cls == 1].sum()])
    kept = np.arange(d - 1, 0, -1)  # s = 1..d-1
    f_given_s = np.zeros(d)
    f_given_s[: d - 1] = class_lam @ A[:, kept]
    zf_given_s = np.zeros((d, d))
    others = np.einsum("c,cem->em", class_lam, B[:, :, kept])  # sum_j lam_j B[c_j, e], the word itself included
    zf_given_s[: d - 1] = (lam[:, None] * (A[cls][:, kept] - B[cls, cls][:, kept]) + others[cls]).T
    return f_given_s, zf_given_s, np.repeat(t, counts)


@pytest.mark.parametrize("nu", [0.25, np.inf])
def test_size_mixture_matches_the_class_law(nu):
    """An independent reference at d = 1700: two classes of words, the law of the kept counts enumerated."""
    counts, weights = (1200, 500), (1.0, 7.0)
    lam = np.random.default_rng(4).normal(size=sum(counts))
    f_given_s, zf_given_s, tfidf = _two_class_moments(counts, weights, lam)
    expected = lt.beta_from_conditional_moments(f_given_s, zf_given_s, nu=nu)
    np.testing.assert_allclose(beta_linear_exact(lam, tfidf, nu=nu), expected, rtol=0, atol=1e-12 * np.abs(lam).max())


def test_size_mixture_leaves_what_it_cannot_fit_to_the_quadratic_route(monkeypatch):
    """A tiny bandwidth puts LIME's weight on a few sizes: no low-degree mixture, so the d² route answers."""
    lam, tfidf = long_document(1600, seed=5)
    model = tfidf_model.scale_free_model(lam, tfidf, None, "l2")
    assert linear_mixture.mixture_beta(model, lt.theory.law.weighted_law(1600, 0.005)) is None
    np.testing.assert_array_equal(
        beta_linear_exact(lam, tfidf, nu=0.005), quadratic_route(monkeypatch, lam, tfidf, nu=0.005)
    )
