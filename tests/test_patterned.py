"""Patterned-matrix algebra (symbolic d) and Sigma's eigen-structure, against dense computations."""

from __future__ import annotations

import mpmath as mp
import numpy as np
import pytest
import sympy as sp

import limetheory as lt
from limetheory.book import mpreference
from limetheory.theory import symbolic as sym

ENTRIES = [(1, 2, 3, 4, 5), (sp.Rational(1, 3), -2, 7, sp.Rational(5, 2), -1)]


@pytest.mark.parametrize("d_value", [1, 2, 3, 6])
@pytest.mark.parametrize("left", ENTRIES)
@pytest.mark.parametrize("right", ENTRIES)
def test_product_matches_dense_product(d_value, left, right):
    a = sym.PatternedMatrix(*left, d_value)
    b = sym.PatternedMatrix(*right, d_value)
    assert (a @ b).to_matrix() == a.to_matrix() * b.to_matrix()
    assert (a + b).to_matrix() == a.to_matrix() + b.to_matrix()
    assert a.scale(3).to_matrix() == 3 * a.to_matrix()


@pytest.mark.parametrize("d_value", [2, 3, 5])
def test_symbolic_product_specialises_to_dense_product(d_value):
    x = sp.symbols("x0:5")
    y = sp.symbols("y0:5")
    product = sym.PatternedMatrix(*x) @ sym.PatternedMatrix(*y)
    dense = sym.PatternedMatrix(*x, d_value).to_matrix() * sym.PatternedMatrix(*y, d_value).to_matrix()
    assert sp.simplify(product.to_matrix(d_value) - dense) == sp.zeros(d_value + 1, d_value + 1)


@pytest.mark.parametrize("d_value", [2, 3, 4])
def test_determinant_and_reduced_block(d_value):
    entries = (sp.Rational(7, 3), sp.Rational(1, 2), sp.Rational(1, 2), sp.Rational(4, 5), sp.Rational(1, 7))
    matrix = sym.PatternedMatrix(*entries, d_value)
    dense = matrix.to_matrix()
    assert matrix.determinant() == dense.det()
    block = matrix.reduced_block()
    expected = sorted([*block.eigenvals(multiple=True), *([entries[3] - entries[4]] * (d_value - 1))], key=float)
    assert [float(v) for v in expected] == pytest.approx(sorted(float(v) for v in dense.eigenvals(multiple=True)))


def test_sigma_inverse_closed_form_for_symbolic_d():
    assert (sym.sigma_patterned() @ sym.sigma_inverse_patterned()).equals(sym.PatternedMatrix.identity())
    assert (sym.sigma_inverse_patterned() @ sym.sigma_patterned()).equals(sym.PatternedMatrix.identity())


def test_sigma_determinant_is_c_d_times_bulk_power():
    c_d = (sym.d - 1) * sym.alpha0 * sym.alpha2 - sym.d * sym.alpha1**2 + sym.alpha0 * sym.alpha1
    expected = (sym.alpha1 - sym.alpha2) ** (sym.d - 1) * c_d
    assert sp.simplify(sym.sigma_patterned().determinant() - expected) == 0


def test_errors():
    with pytest.raises(ValueError, match="symbolic"):
        sym.sigma_patterned().to_matrix()
    with pytest.raises(ValueError, match="different sizes"):
        sym.PatternedMatrix(1, 0, 0, 1, 0, 2) @ sym.PatternedMatrix(1, 0, 0, 1, 0, 3)
    with pytest.raises(TypeError, match="PatternedMatrix"):
        sym.PatternedMatrix.identity() @ sp.eye(3)


@pytest.mark.parametrize("d_value", [2, 3, 8, 20])
@pytest.mark.parametrize("nu", [0.1, 0.25, 1.0, np.inf])
def test_sigma_eigenvalues_against_mpmath(d_value, nu):
    with mp.workdps(50):
        exact = sorted(mp.eigsy(mpreference.sigma_matrix(d_value, nu=nu, dps=50))[0])
    small, large, bulk = lt.sigma_eigenvalues(d_value, nu=nu)
    ours = sorted([small, large, *([bulk] * (d_value - 1))])
    for mine, reference in zip(ours, exact, strict=True):
        assert mine == pytest.approx(float(reference), rel=1e-10)
    assert lt.sigma_inverse_opnorm(d_value, nu=nu) == pytest.approx(float(1 / exact[0]), rel=1e-10)


def test_sigma_inverse_opnorm_matches_numpy_where_well_conditioned():
    for d_value in (5, 29, 100):
        expected = np.linalg.norm(lt.sigma_inverse(d_value, nu=0.5), 2)
        assert lt.sigma_inverse_opnorm(d_value, nu=0.5) == pytest.approx(expected, rel=1e-9)


@pytest.mark.parametrize("bad_d", [1, 0])
def test_eigenvalues_need_two_words(bad_d):
    with pytest.raises(ValueError, match="d must be >= 2"):
        lt.sigma_eigenvalues(bad_d, nu=0.25)
    with pytest.raises(ValueError, match="nu must be > 0"):
        lt.sigma_inverse_opnorm(5, nu=-1.0)
