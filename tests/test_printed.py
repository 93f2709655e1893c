"""limetheory.theory.printed: each transcription against an exact computation where the paper is right, and its
citation.

The references are exact: LIME's law enumerated mask by mask (``brute.lime_law``) with rational weights, Σ and
Γᶠ summed as fractions and solved by sympy. The printed c_d, σ's and β's use only the pattern of Σ, so they hold
for any positive weights; rational weights make every comparison an exact equality.
"""

from __future__ import annotations

import ast
import inspect
import math
import re
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
import sympy as sp
import yaml

import limetheory as lt
from limetheory.theory import printed
from limetheory.theory import symbolic as sym

ROOT = Path(__file__).resolve().parents[1]
EPS = np.finfo(float).eps


def rational_weights(d, seed):
    """Arbitrary positive rational weights w(s), s = 1..d (the printed identities hold for any weights)."""
    rng = np.random.default_rng(seed)
    return [Fraction(int(k), 97) for k in rng.integers(1, 97, size=d)]


def enumerated(d, weights, f=None):
    """(Σ, Γᶠ) as exact sympy matrices, summed over every mask of LIME's law with weight w(s)."""
    from conftest import lime_law

    sigma = sp.zeros(d + 1, d + 1)
    gamma = sp.zeros(d + 1, 1)
    for mask, s, prob in lime_law(d):
        w = sp.Rational(prob * weights[s - 1])
        x = sp.Matrix([1, *mask])
        sigma += w * x * x.T
        if f is not None:
            gamma += w * sp.Rational(f(mask)) * x
    return sigma, gamma


def alphas_of(sigma):
    """α₀, α₁, α₂ read off Σ's pattern (corner, diagonal, off-diagonal)."""
    return sigma[0, 0], sigma[1, 1], sigma[1, 2]


# ----------------------------------------------------------------------------- citations


def test_every_function_has_a_location_and_every_location_is_in_the_paper():
    numbers = yaml.safe_load((ROOT / "book" / "paper_numbers.yml").read_text(encoding="utf-8"))
    known = {(entry["printed"], entry["section"]) for entry in numbers.values()}
    functions = {
        name
        for name, value in vars(printed).items()
        if inspect.isfunction(value) and value.__module__ == printed.__name__ and not name.startswith("_")
    }
    assert functions == set(printed.LOCATIONS)
    for name, places in printed.LOCATIONS.items():
        doc = inspect.getdoc(getattr(printed, name))
        for number, section in places:
            assert (number, section) in known, (name, number, section)
            assert number in doc, f"{name}'s docstring does not cite {number}"


# the printed c_d, (d - 1) α₀α₂ − dα₁² + ..., and σ₃, (α₁² − α₀α₂)/(α₁ − α₂), in any variable names
TYPED_AGAIN = (
    re.compile(r"\(\s*(\w+)\s*-\s*1\s*\)\s*\*\s*\w+\s*\*\s*\w+\s*-\s*\1\s*\*\s*\w+\s*\*\*\s*2\s*\+"),
    re.compile(r"\(\s*(\w+)\s*\*\*\s*2\s*-\s*\w+\s*\*\s*\w+\s*\)\s*/\s*\(\s*\1\s*-\s*\w+\s*\)"),
)


def test_the_printed_formulas_are_typed_once():
    """The printed c_d and σ₃ are spelled out only in limetheory/theory/printed.py: the package, the tests, the
    benchmarks and the chapters import them."""
    paths = [
        *sorted((ROOT / "limetheory").rglob("*.py")),
        *sorted((ROOT / "tests").glob("*.py")),
        *sorted((ROOT / "benchmarks").glob("*.py")),
        *sorted((ROOT / "notebooks").glob("*.md")),
    ]
    assert len(paths) > 60
    typed = {
        str(path.relative_to(ROOT))
        for path in paths
        # this file holds samples of the patterns (below)
        if path.name not in ("printed.py", "test_printed.py")
        and any(rx.search(path.read_text(encoding="utf-8")) for rx in TYPED_AGAIN)
    }
    assert typed == set(), typed


def test_the_scan_finds_a_copy_under_other_names():
    assert TYPED_AGAIN[0].search("c = (n - 1) * x0 * x2 - n * x1**2 + x0 * x1")
    assert TYPED_AGAIN[1].search("s3 = (b1**2 - b0 * b2) / (b1 - b2)")
    assert not any(rx.search("c = lt.normalization_constant(d, nu=0.25)") for rx in TYPED_AGAIN)


def test_the_module_imports_nothing_from_the_package():
    tree = ast.parse(Path(printed.__file__).read_text(encoding="utf-8"))
    relative = [node for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.level > 0]
    absolute = [
        alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
        if alias.name.startswith("limetheory")
    ]
    assert relative == [] and absolute == []


# ----------------------------------------------------------------------------- psi, Proposition 1


@pytest.mark.parametrize("t", [0.0, 0.1, 0.5, 0.9, 1.0])
@pytest.mark.parametrize("nu", [0.1, 0.25, 3.0])
def test_psi_matches_the_package_and_sympy(t, nu):
    # the package's psi uses t / (1 + sqrt(1 - t)) instead of 1 - sqrt(1 - t): a few ulps of the exponent x,
    # amplified by |x| (the reason of tests/test_sampling.py's tolerance)
    value = printed.psi(t, nu=nu)
    exponent = abs(math.log(value)) if value > 0 else 0.0
    assert value == pytest.approx(lt.psi(t, nu=nu), rel=8 * EPS * (1 + exponent), abs=1e-300)
    exact = sym.psi_expr(sp.Rational(t), sp.Rational(nu))
    assert printed.psi(sp.Rational(t), nu=sp.Rational(nu), lib=sp) == exact


def test_psi_at_infinite_bandwidth_is_one():
    assert printed.psi(0.7, nu=math.inf) == 1.0
    assert printed.psi(sp.Rational(7, 10), nu=sp.oo, lib=sp) == 1


@pytest.mark.parametrize("d", range(1, 7))
def test_kept_probability_and_alpha_match_enumeration(d, brute):
    weights = rational_weights(d, seed=d)
    for p in range(d + 1):
        for s in range(1, d + 1):
            assert printed.kept_probability(p, d, s) == brute.kept_probability(p, d, s)
        expected = sum(
            prob * weights[s - 1] for mask, s, prob in brute.lime_law(d) if all(mask[:p])
        )  # E[w z_1 ... z_p]
        assert printed.alpha(p, d, lambda t, w=weights, n=d: w[int(t * n) - 1]) == expected


def test_alpha_at_infinite_bandwidth_in_sympy():
    # Proposition 1 with psi = 1, summed term by term in sympy, is the large-bandwidth corollary (d - p)/((p + 1) d)
    for d in (3, 8):
        for p in range(d + 1):
            value = printed.alpha(p, d, lambda _t: 1, number=sp.Integer)
            assert value == sp.Rational(d - p, (p + 1) * d)


# ----------------------------------------------------------------------------- c_d, sigmas, Sigma^{-1}


@pytest.mark.parametrize("d", [2, 3, 4, 6])
@pytest.mark.parametrize("seed", [0, 1])
def test_sigma_inverse_is_the_exact_inverse(d, seed):
    sigma, _ = enumerated(d, rational_weights(d, seed))
    a0, a1, a2 = alphas_of(sigma)
    c_d = printed.normalization_constant(a0, a1, a2, d)
    s0, s1, s2, s3 = printed.sigma_coefficients(a0, a1, a2, d)
    inverse = sigma.inv()
    pattern = sp.Matrix(
        d + 1, d + 1, lambda i, k: s0 if i == k == 0 else s1 if i == 0 or k == 0 else s2 if i == k else s3
    )
    assert inverse == pattern / c_d
    # c_d is the determinant of the 2 x 2 block, and det(Sigma) = (alpha_1 - alpha_2)^(d-1) c_d
    assert sigma.det() == (a1 - a2) ** (d - 1) * c_d


def test_c_d_and_sigmas_for_symbolic_d_are_the_patterned_inverse():
    a0, a1, a2, d = sym.alpha0, sym.alpha1, sym.alpha2, sym.d
    inverse = sym.PatternedMatrix.symmetric(*printed.sigma_coefficients(a0, a1, a2, d)).scale(
        1 / printed.normalization_constant(a0, a1, a2, d)
    )
    assert (sym.sigma_patterned() @ inverse).equals(sym.PatternedMatrix.identity())


def test_c_d_at_infinite_bandwidth():
    for d in (2, 5, 29):
        a = [Fraction(d - p, (p + 1) * d) for p in range(3)]
        assert printed.normalization_constant(*a, d) == Fraction(d * d - 1, 12 * d)


# ----------------------------------------------------------------------------- beta


@pytest.mark.parametrize("d", [2, 3, 5])
def test_gamma_indicator_product_matches_enumeration(d, brute):
    weights = rational_weights(d, seed=30 + d)

    def alpha(q):  # E[w z_1 ... z_q], q <= d
        return sum(prob * weights[s - 1] for mask, s, prob in brute.lime_law(d) if all(mask[:q]))

    for p in range(d + 1):
        _, gamma = enumerated(d, weights, lambda mask, p=p: int(all(mask[:p])))
        gamma0, inside, outside, total = printed.gamma_indicator_product(p, d, alpha(p), alpha(p + 1) if p < d else 0)
        assert gamma[0] == gamma0 and total == sum(gamma[1:])
        assert all(gamma[1 + j] == inside for j in range(p)) and all(gamma[1 + j] == outside for j in range(p, d))


@pytest.mark.parametrize("d", [2, 3, 5])
def test_beta_general_is_sigma_inverse_gamma(d):
    weights = rational_weights(d, seed=10 + d)
    values = {}
    rng = np.random.default_rng(d)

    def f(mask):
        return values.setdefault(mask, Fraction(int(rng.integers(-50, 50)), 7))

    sigma, gamma = enumerated(d, weights, f)
    beta = sigma.LUsolve(gamma)
    a0, a1, a2 = alphas_of(sigma)
    c_d = printed.normalization_constant(a0, a1, a2, d)
    sigmas = printed.sigma_coefficients(a0, a1, a2, d)
    total = sum(gamma[1:])
    for j in range(1, d + 1):
        beta0, beta_j = printed.beta_general(c_d, sigmas, gamma[0], gamma[j], total)
        assert beta0 == beta[0] and beta_j == beta[j]


@pytest.mark.parametrize("d", [2, 3, 5])
def test_beta_indicator_product_is_sigma_inverse_gamma(d):
    weights = rational_weights(d, seed=20 + d)
    sigma, _ = enumerated(d, weights)
    a0, a1, a2 = alphas_of(sigma)
    c_d = printed.normalization_constant(a0, a1, a2, d)
    sigmas = printed.sigma_coefficients(a0, a1, a2, d)
    for p in range(d + 1):
        _, gamma = enumerated(d, weights, lambda mask, p=p: int(all(mask[:p])))
        beta = sigma.LUsolve(gamma)
        a_p, a_p1 = gamma[0], (gamma[d] if p < d else 0)  # Gamma_0 = alpha_p; Gamma_j = alpha_{p+1} for j > p
        beta0, inside, outside = printed.beta_indicator_product(c_d, sigmas, p, d, a_p, a_p1)
        assert beta0 == beta[0]
        assert all(beta[1 + j] == inside for j in range(p))
        assert all(beta[1 + j] == outside for j in range(p, d))


def test_the_printed_gap_has_the_wrong_sign_of_sigma_3():
    """The display after Proposition 3 (errata: the sign of σ₃): off by 2 c_d⁻¹ σ₃ (α_p − α_{p+1})."""
    d, p = 5, 2
    weights = rational_weights(d, seed=3)
    sigma, _ = enumerated(d, weights)
    _, gamma = enumerated(d, weights, lambda mask: int(all(mask[:p])))
    beta = sigma.LUsolve(gamma)
    a0, a1, a2 = alphas_of(sigma)
    c_d = printed.normalization_constant(a0, a1, a2, d)
    sigmas = printed.sigma_coefficients(a0, a1, a2, d)
    a_p, a_p1 = gamma[0], gamma[d]
    true_gap = beta[1] - beta[d]
    assert true_gap == (a_p - a_p1) / (a1 - a2)
    assert printed.indicator_gap(c_d, sigmas, a_p, a_p1) - true_gap == 2 * sigmas[3] * (a_p - a_p1) / c_d != 0


# ----------------------------------------------------------------------------- linear models at large bandwidth


def test_expected_tfidf_approximations():
    e_j, e_jk = printed.expected_tfidf_approximations(lib=sp, number=sp.Integer)
    assert (e_j, e_jk) == (sp.sqrt(6) / 2, 2 * sp.sqrt(3) / 3)
    # the main text quotes them as 1.22 and 1.15; math and numpy give the same doubles (correctly rounded sqrt)
    floats = printed.expected_tfidf_approximations()
    assert [round(x, 2) for x in floats] == [1.22, 1.15]
    assert floats == tuple(float(x) for x in printed.expected_tfidf_approximations(lib=np, number=float))
    for value, exact in zip(floats, (e_j, e_jk), strict=True):
        assert value == pytest.approx(float(exact.evalf(30)), rel=EPS)  # two roundings of a quotient, one sqrt


def test_linear_large_bandwidth_limits_and_the_two_slips():
    """With the printed E's and d → ∞: the word's bracket is the 1.36 of Eq. (12), which the package uses
    (``limetheory.theory.linear.linear_approx``); the other words get 0; the printed intercept has 5E_j where 2E_j
    holds."""
    d = sp.Symbol("d", positive=True)
    e_j, e_jk = printed.expected_tfidf_approximations(lib=sp, number=sp.Integer)
    brackets = printed.linear_large_bandwidth(d, e_j, e_jk, (d - 1) * e_jk, (d - 2) * e_jk)
    intercept, other, own = (sp.limit(b, d, sp.oo) for b in brackets)
    assert sp.simplify(own - (9 * sp.sqrt(6) - 8 * sp.sqrt(3)) / 6) == 0 and other == 0
    assert round(float(own), 2) == 1.36
    # (9 sqrt 6 - 8 sqrt 3) / 6 in doubles: each term within eps, amplified 4.4 times by the cancellation, plus
    # two roundings: under 8 eps, relative
    from limetheory.theory.linear.linear_approx import LINEAR_COEFFICIENT, LINEAR_INTERCEPT_COEFFICIENT

    assert LINEAR_COEFFICIENT == pytest.approx(float(own.evalf(30)), rel=8 * EPS)
    assert sp.simplify(intercept - (15 * sp.sqrt(6) - 8 * sp.sqrt(3)) / 6) == 0
    corrected = sp.limit(intercept - 3 * e_j, d, sp.oo)  # 2E_j - 2E_{j,k}: the package's intercept constant
    # (3 sqrt 6 - 4 sqrt 3) / 3: the same count with the cancellation's amplification (3 sqrt 6 + 4 sqrt 3) / (3 sqrt 6
    # - 4 sqrt 3), about 34
    amplification = (3 * math.sqrt(6) + 4 * math.sqrt(3)) / (3 * math.sqrt(6) - 4 * math.sqrt(3))
    assert LINEAR_INTERCEPT_COEFFICIENT == pytest.approx(float(corrected.evalf(30)), rel=(amplification + 2) * EPS)


# ----------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("call", "error", "pattern"),
    [
        (lambda: printed.psi(0.5, nu=1, lib=object()), TypeError, "^lib must provide exp and sqrt"),
        (lambda: printed.kept_probability(1.0, 3, 1), TypeError, "^p must be an integer"),
        (lambda: printed.kept_probability(-1, 3, 1), ValueError, "^p must be >= 0"),
        (lambda: printed.alpha(1, 0, lambda t: 1), ValueError, "^d must be >= 1"),
        (lambda: printed.alpha(4, 3, lambda t: 1), ValueError, r"^p must be in \[0, d\]"),
        (lambda: printed.alpha(1, 3, 1.0), TypeError, "^weight must be a callable"),
        (lambda: printed.alpha(1, 3.0, lambda t: 1), TypeError, "^d must be an integer"),
        (lambda: printed.normalization_constant(1, 0.5, 0.25, 0), ValueError, "^d must be >= 1"),
        (lambda: printed.normalization_constant(1, 0.5, 0.25, 2.0), TypeError, "^d must be an integer"),
        (lambda: printed.sigma_coefficients(1, 0.5, 0.25, True), TypeError, "^d must be an integer"),
        (lambda: printed.beta_general(1, (1, 2, 3), 1, 1, 1), ValueError, "^sigmas must be"),
        (lambda: printed.beta_indicator_product(1, (1, 2, 3, 4), 4, 3, 1, 0), ValueError, "^p must be <= d"),
        (lambda: printed.indicator_gap(1, (1, 2), 1, 0), ValueError, "^sigmas must be"),
        (lambda: printed.gamma_indicator_product(3, 2, 1, 0), ValueError, "^p must be <= d"),
        (lambda: printed.gamma_indicator_product(1, 0.5, 1, 0), TypeError, "^d must be an integer"),
        (lambda: printed.expected_tfidf_approximations(lib=object()), TypeError, "^lib must provide sqrt"),
        (lambda: printed.linear_large_bandwidth(0, 1, 1, 1, 1), ValueError, "^d must be >= 1"),
    ],
)
def test_bad_input(call, error, pattern):
    with pytest.raises(error, match=pattern):
        call()
