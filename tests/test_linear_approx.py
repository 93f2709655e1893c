"""limetheory.theory.linear.linear_approx: the paper's large-bandwidth approximation for linear models, against sympy
and mpmath."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
import sympy as sp
from sklearn.feature_extraction.text import TfidfVectorizer

from limetheory.book import mpreference
from limetheory.engine.tokens import tfidf_columns, tfidf_weights
from limetheory.theory import printed
from limetheory.theory.linear.linear_approx import (
    LINEAR_COEFFICIENT,
    LINEAR_INTERCEPT_COEFFICIENT,
    beta_linear_approx,
    large_d_limits,
)

mpmath.mp.dps = 40


def _paper_constants():
    """The coefficients derived with sympy from the supplement's ingredients, for symbolic d, then d -> oo.

    Sigma^{-1} at nu = oo has the entries 2(2d-1)/(d+1), -6/(d+1), 6(d^2-2d+3)/(d^2-1), -6(d-3)/(d^2-1)
    (corner, border, diagonal, off-diagonal).  For f = phi_j, Gamma_oo = phi_j * ((d-1)/(2d) E_j at
    0 and j; (d-2)/(3d) E_{j,k} elsewhere), with the paper's values E_j = (1 - 1/3)^(-1/2) and
    E_{j,k} = (1 - 1/4)^(-1/2).
    """
    d = sp.Symbol("d", positive=True)
    corner, border = 2 * (2 * d - 1) / (d + 1), -6 / (d + 1)
    diagonal, off = 6 * (d**2 - 2 * d + 3) / (d**2 - 1), -6 * (d - 3) / (d**2 - 1)
    e_j, e_jk = 1 / sp.sqrt(1 - sp.Rational(1, 3)), 1 / sp.sqrt(1 - sp.Rational(1, 4))
    g_j = (d - 1) / (2 * d) * e_j  # Gamma_0 = Gamma_j
    g_k = (d - 2) / (3 * d) * e_jk  # Gamma_k, k != j (d - 1 of them)
    intercept = corner * g_j + border * (g_j + (d - 1) * g_k)
    own = border * g_j + diagonal * g_j + off * (d - 1) * g_k
    other = border * g_j + diagonal * g_k + off * (g_j + (d - 2) * g_k)
    return tuple(sp.limit(expr, d, sp.oo) for expr in (intercept, own, other))


def test_constants_are_the_limits_of_the_paper_ingredients():
    intercept, own, other = _paper_constants()
    assert sp.simplify(own - (9 * sp.sqrt(6) - 8 * sp.sqrt(3)) / 6) == 0
    assert sp.simplify(intercept - (3 * sp.sqrt(6) - 4 * sp.sqrt(3)) / 3) == 0
    assert other == 0  # the other words get nothing at leading order
    assert float(own) == pytest.approx(1.36, abs=0.01)  # the printed "1.36"
    # each constant is (a sqrt(6) - b sqrt(3)) / c in doubles: each term carries a relative error <= eps (a correctly
    # rounded sqrt, one product), the difference amplifies it by (a sqrt 6 + b sqrt 3) / (a sqrt 6 - b sqrt 3), then
    # the subtraction, the division and the rounding of the 30-digit reference add 1.5 eps
    eps = np.finfo(float).eps
    cases = [(LINEAR_COEFFICIENT, own, (9, 8)), (LINEAR_INTERCEPT_COEFFICIENT, intercept, (3, 4))]
    for constant, exact, (a, b) in cases:
        amplification = (a * math.sqrt(6) + b * math.sqrt(3)) / (a * math.sqrt(6) - b * math.sqrt(3))
        assert constant == pytest.approx(float(exact.evalf(30)), rel=(amplification + 1.5) * eps)


def test_printed_intercept_is_not_the_limit():
    # the supplement prints (5 E_j - (2/d) sum_k E_{j,k}) phi_j for the intercept (limetheory.theory.printed)
    intercept, _, _ = _paper_constants()
    d = sp.Symbol("d", positive=True)
    e_j, e_jk = printed.expected_tfidf_approximations(lib=sp, number=sp.Integer)
    bracket = printed.linear_large_bandwidth(d, e_j, e_jk, (d - 1) * e_jk, (d - 2) * e_jk)[0]
    assert abs(float(sp.limit(bracket, d, sp.oo) - intercept)) > 3


def _mp_reference(lam, tfidf):
    norm = mpmath.sqrt(mpmath.fsum(mpmath.mpf(w) ** 2 for w in tfidf))
    phi = [mpmath.mpf(w) / norm for w in tfidf]
    own = (9 * mpmath.sqrt(6) - 8 * mpmath.sqrt(3)) / 6
    inter = (3 * mpmath.sqrt(6) - 4 * mpmath.sqrt(3)) / 3
    f_xi = mpmath.fsum(mpmath.mpf(a) * p for a, p in zip(lam, phi, strict=True))
    return [inter * f_xi] + [own * mpmath.mpf(a) * p for a, p in zip(lam, phi, strict=True)]


@pytest.mark.parametrize("seed", range(5))
def test_matches_mpmath(seed):
    rng = np.random.default_rng(seed)
    d = int(rng.integers(2, 60))
    lam = rng.standard_normal(d)
    tfidf = rng.uniform(0, 6, size=d) * rng.integers(0, 4, size=d)  # some words invisible
    tfidf[0] = 2.5  # at least one visible word
    got = beta_linear_approx(lam, tfidf)
    expected = np.array([float(x) for x in _mp_reference(lam.tolist(), tfidf.tolist())])
    assert got.shape == (d + 1,)
    # atol=0: a coefficient vanishes only for an invisible word (phi_j = 0), exactly 0.0 on both sides
    np.testing.assert_allclose(got, expected, rtol=1e-13, atol=0)


def test_linear_in_lam_and_scale_free_in_tfidf():
    rng = np.random.default_rng(7)
    lam1, lam2 = rng.standard_normal(12), rng.standard_normal(12)
    tfidf = rng.uniform(1, 5, size=12)
    combined = beta_linear_approx(2 * lam1 - 3 * lam2, tfidf)
    np.testing.assert_allclose(
        combined, 2 * beta_linear_approx(lam1, tfidf) - 3 * beta_linear_approx(lam2, tfidf), atol=1e-14
    )
    # only the normalised TF-IDF matters, even for extreme scales
    for scale in (1e-200, 1e-3, 1e150):
        np.testing.assert_allclose(beta_linear_approx(lam1, scale * tfidf), beta_linear_approx(lam1, tfidf), rtol=1e-13)


def test_single_word_model_and_invisible_words():
    tfidf = np.array([3.0, 0.0, 4.0])  # phi(xi) = (0.6, 0, 0.8)
    beta = beta_linear_approx([1.0, 0.0, 0.0], tfidf)
    np.testing.assert_allclose(beta, [LINEAR_INTERCEPT_COEFFICIENT * 0.6, LINEAR_COEFFICIENT * 0.6, 0.0, 0.0])
    # a word the model cannot see (tfidf 0) gets 0, whatever its lam
    assert beta_linear_approx([1.0, 5.0, -2.0], tfidf)[2] == 0.0
    # integer input is accepted
    np.testing.assert_allclose(beta_linear_approx([1, 0, 0], [3, 0, 4]), beta)


@pytest.mark.parametrize(
    ("lam", "tfidf", "error", "match"),
    [
        ([1.0, 2.0], [1.0, 2.0, 3.0], ValueError, "same length"),
        ([1.0], [1.0], ValueError, "d >= 2"),
        ([], [], ValueError, "d >= 2"),
        ([1.0, 2.0], [1.0, -0.5], ValueError, ">= 0"),
        ([1.0, np.nan], [1.0, 2.0], ValueError, "finite"),
        ([1.0, 2.0], [np.inf, 2.0], ValueError, "finite"),
        ([1.0, 2.0], [0.0, 0.0], ValueError, "positive entry"),
        ([[1.0, 2.0]], [[1.0, 2.0]], ValueError, "1-D array"),
        (["a", "b"], [1.0, 2.0], TypeError, "real numbers"),
        ([1.0, 2.0], "12", TypeError, "real numbers"),
        ([1 + 1j, 2.0], [1.0, 2.0], TypeError, "real"),
    ],
)
def test_validation(lam, tfidf, error, match):
    with pytest.raises(error, match=match):
        beta_linear_approx(lam, tfidf)


# ----------------------------------------------------------------------------- tfidf_columns, tfidf_weights

CORPUS = [
    "great food and friendly service",
    "the food was cold and the service slow",
    "great place, great beer",
    "I liked the beer and the music",
]


def _fitted(**kwargs):
    from sklearn.feature_extraction.text import TfidfVectorizer

    return TfidfVectorizer(**kwargs).fit(CORPUS)


def test_tfidf_weights_reproduce_the_vectorizer():
    vectorizer = _fitted()
    text = "Great food... and food service; I liked zebras!"
    # lime's words: Great food and service I liked zebras ("I": one character; "zebras": not in the corpus)
    columns = tfidf_columns(text, vectorizer)
    weights = tfidf_weights(text, vectorizer)
    vocabulary, idf = vectorizer.vocabulary_, vectorizer.idf_
    expected_columns = [vocabulary["great"], vocabulary["food"], vocabulary["and"], vocabulary["service"], -1]
    expected_columns += [vocabulary["liked"], -1]
    np.testing.assert_array_equal(columns, expected_columns)
    counts = np.array([1, 2, 1, 1, 1, 1, 1])
    visible = columns >= 0
    # both sides make the same single product count * idf, correctly rounded: equal bit for bit
    np.testing.assert_array_equal(weights[visible], counts[visible] * idf[columns[visible]])
    assert (weights[~visible] == 0).all()
    row = vectorizer.transform([text]).toarray()[0]
    np.testing.assert_allclose(row[columns[visible]], weights[visible] / np.linalg.norm(weights), rtol=1e-13)
    assert np.count_nonzero(row) == visible.sum()
    # stop words are invisible too
    assert tfidf_columns(text, _fitted(stop_words=["and"]))[2] == -1


def test_tfidf_weights_refuse_shared_columns_and_bad_vectorizers():
    with pytest.raises(ValueError, match="share the vectorizer column"):
        tfidf_weights("The food and the beer", _fitted())
    # without lower-casing, "The" and "the" are different columns (here "The" is unknown: invisible)
    assert tfidf_columns("The food and the beer", _fitted(lowercase=False))[0] == -1
    with pytest.raises(ValueError, match="no word"):
        tfidf_weights("I a zebra", _fitted())
    with pytest.raises(TypeError, match="fitted scikit-learn TfidfVectorizer"):
        tfidf_weights("great food", object())
    with pytest.raises(ValueError, match="fitted"):
        tfidf_weights("great food", TfidfVectorizer())
    with pytest.raises(ValueError, match="norm='l2'"):
        tfidf_weights("great food", _fitted(norm="l1"))
    with pytest.raises(ValueError, match="norm='l2'"):
        tfidf_weights("great food", _fitted(sublinear_tf=True))
    with pytest.raises(TypeError, match="str"):
        tfidf_columns(3, _fitted())


# ----------------------------------------------------------------------------- the large-d limits (chapter 19)


def test_large_d_limits_at_infinite_bandwidth_are_the_rationals_of_chapter_19():
    u = sp.Symbol("u", positive=True)
    a = {p: sp.integrate((1 - u) ** p, (u, 0, 1)) for p in (0, 1, 2, sp.Rational(1, 2), sp.Rational(3, 2))}
    half, three_halves = sp.Rational(1, 2), sp.Rational(3, 2)
    det = a[0] * a[2] - a[1] ** 2
    kappa = (a[half] - a[three_halves]) / (a[1] - a[2])
    expected = (
        kappa,
        (a[2] * a[half] - a[1] * a[three_halves]) / det,
        (a[0] * a[three_halves] - a[1] * a[half]) / det - kappa,
    )
    assert expected == (sp.Rational(8, 5), sp.Rational(4, 15), sp.Rational(-4, 5))
    # exact rationals, rounded once to doubles
    assert large_d_limits(nu=np.inf) == tuple(float(x) for x in expected)


@pytest.mark.parametrize("nu", [0.05, 0.25, 0.35, 2.0])
def test_large_d_limits_against_mpmath_quadrature_of_the_definition(nu):
    """a_p = ∫₀¹ ψ(u)(1 - u)^p du integrated in u (not in the package's variable v) at 40 digits."""
    with mpmath.workdps(40):

        def psi(u):
            return mpreference.psi(u, nu=nu, dps=40)

        # the Gaussian in v = 1 - sqrt(1 - u) sits on u < 2 nu: split there so that tanh-sinh sees it
        split = [0, min(mpmath.mpf(2 * nu), mpmath.mpf(1) / 2), 1]
        a = {p: mpmath.quad(lambda u, p=p: psi(u) * (1 - u) ** p, split) for p in (0, 1, 2, 0.5, 1.5)}
        det = a[0] * a[2] - a[1] ** 2
        kappa = (a[0.5] - a[1.5]) / (a[1] - a[2])
        exact = (kappa, (a[2] * a[0.5] - a[1] * a[1.5]) / det, (a[0] * a[1.5] - a[1] * a[0.5]) / det - kappa)
    # the package's quadrature targets 1e-13 relative per a_p; the three ratios cancel at most a factor
    # a_1 / (a_1 - a_2) <= 1 / (1 - max u) ~ 10 at nu = 0.05: 1e-11 leaves a margin
    np.testing.assert_allclose(large_d_limits(nu=nu), [float(x) for x in exact], rtol=1e-11)


def test_large_d_limits_are_the_limits_of_the_exact_beta():
    """β₁ / φ(ξ)₁ of f = φ₁ with d equal weights (mpmath, a one-dimensional sum) approaches κ(ν) as d grows."""
    from limetheory.book.mpreference_linear import beta_linear_equal_weights

    betas = {}
    for nu in (math.inf, 0.25):
        kappa = large_d_limits(nu=nu)[0]
        gaps = []
        for d in (250, 1000, 4000):
            beta = betas[d, nu] = beta_linear_equal_weights([1.0] + [0.0] * (d - 1), nu=nu)
            gaps.append(abs(float(beta[1]) * math.sqrt(d) - kappa))  # φ(ξ)₁ = 1/√d
        # the gap falls like 1/d (a quarter each time d is multiplied by 4, up to the next order)
        assert gaps[1] < gaps[0] / 3 and gaps[2] < gaps[1] / 3 and gaps[2] < 1e-3, (nu, gaps)
    # the audit's number (issue 35): 1.5998 at d = 4000, nu = inf (the β of the loop above)
    assert round(float(betas[4000, math.inf][1]) * math.sqrt(4000), 4) == 1.5998
    # and the paper's constant is not the limit
    assert abs(LINEAR_COEFFICIENT - large_d_limits(nu=math.inf)[0]) > 0.2


def test_large_d_limits_refuse_a_bad_bandwidth():
    with pytest.raises(ValueError, match="nu must be > 0"):
        large_d_limits(nu=0.0)
    with pytest.raises(TypeError, match="nu"):
        large_d_limits(nu="wide")
    with pytest.raises(TypeError, match="keyword"):
        large_d_limits(0.25)
