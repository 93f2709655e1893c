"""limetheory.book.mpreference: the high-precision references against sympy's exact rational evaluation and each other.

sympy evaluates the printed definitions exactly (ψ as a symbolic exponential, the probabilities as rationals) and
rounds only at the end (``sympy.N`` to more digits than the reference); at ν = ∞ everything is rational. The
references must agree to within a few units of their last digit (tolerances below in powers of ten of ``dps``).
"""

from __future__ import annotations

import ast
import math
import re
from fractions import Fraction
from pathlib import Path

import mpmath as mp
import numpy as np
import pytest
import sympy as sp

from limetheory.book import mpreference
from limetheory.theory import printed
from limetheory.theory import symbolic as sym

ROOT = Path(__file__).resolve().parents[1]
DPS = 50
# a sum of d terms and a few operations at DPS digits: relative error below d * 10^(5 - DPS)


def close(value, exact, d=1, dps=DPS, scale=None):
    """|value − exact| ≤ d · 10^(5 − dps) · scale (default |exact|, at least 10^-dps), in sympy at dps + 20 digits."""
    value = sp.Float(mp.nstr(value, dps + 5), dps + 20)
    exact = sp.N(exact, dps + 20)
    scale = max(abs(exact), sp.Float(10) ** -dps) if scale is None else sp.N(scale, dps + 20)
    return abs(value - exact) <= d * sp.Float(10) ** (5 - dps) * scale


def sympy_alpha(p, d, nu):
    """Proposition 1 in exact sympy arithmetic (ψ symbolic for finite ν, 1 at ν = ∞)."""
    if math.isinf(nu):
        return printed.alpha(p, d, lambda _t: sp.Integer(1), number=sp.Integer)
    return printed.alpha(p, d, lambda t: sym.psi_expr(t, sp.Rational(nu)), number=sp.Integer)


# ----------------------------------------------------------------------------- independence


def test_the_reference_does_not_import_the_package_numerics():
    tree = ast.parse(Path(mpreference.__file__).read_text(encoding="utf-8"))
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level > 0:
            imported |= {f"{node.module}.{alias.name}" if node.module else alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("limetheory"):
            imported.add(node.module)
        elif isinstance(node, ast.Import):
            imported |= {alias.name for alias in node.names if alias.name.startswith("limetheory")}
    assert imported == {"theory.printed"}


# psi typed in mpmath, exp(-((1 - sqrt(1 - t))^2) / (2 nu^2)), under any names
PSI_TYPED_AGAIN = re.compile(r"(mp|mpmath)\.(exp\(|e \*\*)\s*\(?-\(\(\s*1 - (mp|mpmath)\.sqrt")


def test_psi_in_mpmath_is_typed_once():
    paths = [
        *sorted((ROOT / "limetheory").rglob("*.py")),
        *sorted((ROOT / "tests").glob("*.py")),
        *sorted((ROOT / "benchmarks").glob("*.py")),
        *sorted((ROOT / "notebooks").glob("*.md")),
    ]
    typed = {
        str(path.relative_to(ROOT))
        for path in paths
        # this file holds a sample of the pattern (below)
        if path.name not in ("mpreference.py", "test_mpreference.py")
        and PSI_TYPED_AGAIN.search(path.read_text(encoding="utf-8"))
    }
    assert typed == set(), typed
    assert PSI_TYPED_AGAIN.search("w = mpmath.exp(-((1 - mpmath.sqrt(1 - x)) ** 2) / (2 * v**2))")


# ----------------------------------------------------------------------------- psi, alpha


@pytest.mark.parametrize("t", [sp.Integer(0), sp.Rational(1, 7), sp.Rational(1, 2), sp.Integer(1)])
@pytest.mark.parametrize("nu", [sp.Rational(1, 16), sp.Rational(1, 4), sp.Integer(3)])  # exact as doubles
def test_psi_matches_sympy(t, nu):
    exact = sym.psi_expr(t, nu)
    with mp.workdps(DPS):
        t_mp = mp.mpf(t.p) / t.q
    assert close(mpreference.psi(t_mp, nu=float(nu), dps=DPS), exact)


def test_psi_at_infinite_bandwidth_and_bad_t():
    assert mpreference.psi(0.3, nu=math.inf) == 1
    with pytest.raises(ValueError, match=r"^t must be in \[0, 1\]"):
        mpreference.psi(1.5, nu=1.0)


def test_psi_is_the_same_number_at_any_ambient_precision():
    """psi skips workdps when the working precision is already ``dps`` digits: the same mpf, bit for bit, as when
    it must switch (from fewer digits, more, or a precision set in bits), and the ambient precision is left as it was.
    The reference is the printed formula evaluated inside workdps(dps), with nu as an mpf."""
    for dps in (15, 50, 120):
        with mp.workdps(dps + 9):
            ts = [mp.mpf(s) / 29 for s in range(30)]
        for nu in (0.01, 0.25, np.float64(1.5), 3):
            with mp.workdps(dps):
                expected = [printed.psi(mp.mpf(t), nu=mp.mpf(float(nu)), lib=mp)._mpf_ for t in ts]
            for ambient in (dps, dps - 5, dps + 40):
                with mp.workdps(ambient):
                    got = [mpreference.psi(t, nu=nu, dps=dps)._mpf_ for t in ts]
                    assert mp.mp.dps == ambient
                assert got == expected, (dps, nu, ambient)
            with mp.workprec(mp.libmp.dps_to_prec(dps) + 1):  # dps digits by name, one bit more
                assert [mpreference.psi(t, nu=nu, dps=dps)._mpf_ for t in ts] == expected


@pytest.mark.parametrize(
    ("dps", "ds"),
    [
        (15, (2, 3, 29, 1000)),
        (50, (2, 3, 29, 1000)),
        (120, (2, 3, 29, 1000)),
        (500, (2, 3, 29)),
        # every s/d of d = 1000 at 500 digits: two thirds of the test's CPU (4.5 s), in the slow group
        pytest.param(500, (1000,), marks=pytest.mark.slow),
    ],
    ids=lambda value: "-".join(map(str, value)) if isinstance(value, tuple) else str(value),
)
def test_psi_is_the_printed_formula_bit_for_bit(dps, ds):
    """psi and weights evaluate printed.psi's steps at the libmp level: the same mpf as printed.psi with lib=mp,
    on every s/d of several d, the ends t = 0 and 1, binary fractions, at 15 to 500 digits and bandwidths from
    0.005 (exp's argument near -10^4) to 10^4."""
    rng = np.random.default_rng(37)
    ts = sorted({0.0, 1.0, 0.5, *rng.random(40).tolist()})
    for nu in (0.005, 0.05, 0.25, 1.0, 7.5, 1e4):
        with mp.workdps(dps):
            for d in ds:
                expected = [printed.psi(mp.mpf(s) / d, nu=mp.mpf(nu), lib=mp)._mpf_ for s in range(1, d + 1)]
                got = [mpreference.psi(mp.mpf(s) / d, nu=nu, dps=dps)._mpf_ for s in range(1, d + 1)]
                assert got == expected, (dps, nu, d)
                kept = [w._mpf_ for w in mpreference.weights(d, nu=nu, dps=dps) if w != 0]  # before the tail cut
                assert kept and kept == expected[: len(kept)], (dps, nu, d)
            expected = [printed.psi(mp.mpf(t), nu=mp.mpf(nu), lib=mp)._mpf_ for t in ts]
            assert [mpreference.psi(t, nu=nu, dps=dps)._mpf_ for t in ts] == expected


@pytest.mark.parametrize("d", [1, 2, 5, 9])
@pytest.mark.parametrize("nu", [0.25, 1.0, math.inf])
def test_alpha_matches_sympy_rational_evaluation(d, nu):
    for p in range(d + 1):
        assert close(mpreference.alpha(p, d, nu=nu, dps=DPS), sympy_alpha(p, d, nu), d=d)
    assert mpreference.alphas(d, nu=nu, p_max=d, dps=DPS) == tuple(
        mpreference.alpha(p, d, nu=nu, dps=DPS) for p in range(d + 1)
    )


def test_alpha_at_infinite_bandwidth_is_the_rational_limit():
    for d in (2, 7, 40):
        for p in range(min(4, d + 1)):
            assert close(mpreference.alpha(p, d, nu=math.inf), sp.Rational(d - p, (p + 1) * d), d=d)


def test_dropped_weights_change_no_sum_beyond_the_precision():
    """The weights below 10^-(dps + 10) / d of the first one are set to 0: together they are below 10^-dps of it."""
    d, nu, dps = 200, 0.02, 30
    weights = mpreference.weights(d, nu=nu, dps=dps)
    dropped = [s for s in range(1, d + 1) if weights[s - 1] == 0]
    assert dropped and dropped[-1] == d and weights[0] > 0  # the cutoff is in use at this bandwidth
    with mp.workdps(dps + 40):
        full = [mpreference.psi(mp.mpf(s) / d, nu=nu, dps=dps + 40) for s in range(1, d + 1)]
        assert all(full[s - 1] > 0 for s in dropped)  # really dropped, not underflowed
        assert mp.fsum(full[s - 1] for s in dropped) < mp.mpf(10) ** (-dps) * full[0]


# ----------------------------------------------------------------------------- closed forms, beta


@pytest.mark.parametrize("d", [2, 3, 6])
@pytest.mark.parametrize("nu", [0.25, math.inf])
def test_closed_forms_match_sympy(d, nu):
    ref = mpreference.closed_forms(d, nu=nu, dps=DPS)
    a = [sympy_alpha(p, d, nu) for p in range(3)]
    c_exact = printed.normalization_constant(*a, d)
    # c_d cancels: its relative accuracy is that of the alphas times alpha_0 alpha_1 / c_d (at most 1e3 here)
    assert close(ref["c"], c_exact, d=1000 * d)
    sigmas = printed.sigma_coefficients(*a, d)
    largest = max(abs(sp.N(x, 30)) for x in sigmas)  # relative to the largest: sigma_3 can be 0 (d = 3, nu = inf)
    for got, exact in zip(ref["sigma"], sigmas, strict=True):
        assert close(got, exact, d=1000 * d, scale=largest)
    small, large, bulk = ref["eig"]
    with mp.workdps(DPS):
        eigenvalues = sorted(mp.eigsy(mpreference.sigma_matrix(d, nu=nu, dps=DPS))[0])
        # each of lambda_-, lambda_+, alpha_1 - alpha_2 is an eigenvalue (the last one d - 1 times), and no other
        for value in (small, large, bulk):
            assert min(abs(value - e) for e in eigenvalues) < mp.mpf(10) ** (10 - DPS)
        assert sum(abs(bulk - e) < mp.mpf(10) ** (10 - DPS) for e in eigenvalues) >= d - 1
        assert abs(ref["opnorm"] * eigenvalues[0] - 1) < mp.mpf(10) ** (10 - DPS)


@pytest.mark.parametrize(("d", "nu"), [(2, 0.05), (3, 0.02), (5, 0.25), (4, math.inf)])
def test_beta_indicator_agrees_with_the_dense_enumeration(d, nu):
    """Two independent routes: the printed Proposition 2 on the alphas, and Σ, Γ enumerated mask by mask."""
    dps = mpreference.digits_for(d, nu=nu)
    for p in range(d + 1):
        beta0, inside, outside = mpreference.beta_indicator(p, d, nu=nu)
        dense = mpreference.beta_dense(lambda mask, p=p: int(all(mask[:p])), d, nu=nu)
        with mp.workdps(dps):
            expected = [beta0] + [inside] * p + [outside] * (d - p)
            scale = max(abs(x) for x in expected)
            assert max(abs(x - y) for x, y in zip(dense, expected, strict=True)) <= mp.mpf(10) ** -40 * scale


def test_beta_dense_is_the_exact_solution_at_infinite_bandwidth(brute):
    d = 4
    values = {mask: Fraction(int(k), 13) for (mask, _, _), k in zip(brute.lime_law(d), range(-7, 100), strict=False)}
    sigma = sp.zeros(d + 1, d + 1)
    gamma = sp.zeros(d + 1, 1)
    for mask, _, prob in brute.lime_law(d):
        x = sp.Matrix([1, *mask])
        sigma += sp.Rational(prob) * x * x.T
        gamma += sp.Rational(prob * values[mask]) * x
    exact = sigma.LUsolve(gamma)
    got = mpreference.beta_dense(lambda mask: mp.mpf(values[mask].numerator) / values[mask].denominator, d, nu=math.inf)
    for value, reference in zip(got, exact, strict=True):
        assert close(value, reference, d=100, dps=mpreference.digits_for(d, nu=math.inf))


def test_digits_grow_with_the_spread_of_the_weights():
    assert mpreference.digits_for(29, nu=math.inf) == 60 + int(4 * math.log10(29))
    assert mpreference.digits_for(2, nu=0.005) > mpreference.digits_for(2, nu=0.05) > mpreference.digits_for(2, nu=1)
    # the two cancellations each consume log10(psi(1/d) / psi(2/d)) digits
    d, nu = 3, 0.05
    spread = math.log10(float(mpreference.psi(1 / d, nu=nu) / mpreference.psi(2 / d, nu=nu)))
    assert abs(mpreference.digits_for(d, nu=nu) - (60 + 2 * spread + 4 * math.log10(d))) <= 1


def test_relative_error_and_log():
    with mp.workdps(40):
        third = mp.mpf(1) / 3
        assert mpreference.relative_error(1 / 3, third) == pytest.approx(float(abs(mp.mpf(1 / 3) - third) / third))
        assert mpreference.relative_error(np.inf, third) == math.inf
        assert mpreference.relative_error(0.5, 0) == 0.5  # scale 0: the absolute error
        assert mpreference.relative_error(1.0, third, scale=2) == pytest.approx(1 / 3)
    assert mpreference.log_of(mp.mpf("1e-5000")) == pytest.approx(-5000 * math.log(10), rel=1e-15)


@pytest.mark.parametrize(
    ("call", "error", "pattern"),
    [
        (lambda: mpreference.digits_for(2.0, nu=1), TypeError, "^d must be an integer"),
        (lambda: mpreference.digits_for(0, nu=1), ValueError, "^d must be >= 1"),
        (lambda: mpreference.digits_for(3, nu=0), ValueError, "^nu must be > 0"),
        (lambda: mpreference.digits_for(3, nu=float("nan")), ValueError, "^nu must be > 0"),
        (lambda: mpreference.digits_for(3, nu="1"), TypeError, "^nu must be a real number"),
        (lambda: mpreference.psi(0.5, nu=1, dps=10), ValueError, "^dps must be >= 15"),
        (lambda: mpreference.psi(0.5, nu=1, dps=30.0), TypeError, "^dps must be an integer"),
        (lambda: mpreference.alpha(4, 3, nu=1), ValueError, r"^p must be in \[0, d\]"),
        (lambda: mpreference.alpha(1.0, 3, nu=1), TypeError, "^p must be an integer"),
        (lambda: mpreference.alphas(3, nu=1, p_max=4), ValueError, r"^p_max must be in \[0, d\]"),
        (lambda: mpreference.closed_forms(1, nu=1), ValueError, "^d must be >= 2"),
        (lambda: mpreference.beta_indicator(-1, 3, nu=1), ValueError, r"^p must be in \[0, d\]"),
        (lambda: mpreference.sigma_gamma(None, 3, nu=1), TypeError, "^f must be a callable"),
        (lambda: mpreference.beta_dense(lambda m: 0, 17, nu=1), ValueError, "^d must be <= 16"),
        (lambda: mpreference.relative_error("1", 1), TypeError, "^got must be a real number"),
        (lambda: mpreference.log_of(0), ValueError, "^x must be > 0"),
    ],
)
def test_bad_input(call, error, pattern):
    with pytest.raises(error, match=pattern):
        call()


def test_positional_bandwidth_is_refused():
    with pytest.raises(TypeError):
        mpreference.alpha(1, 3, 0.25)  # nu is keyword-only, as in the package
