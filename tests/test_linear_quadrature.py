"""The rule over u below u = 12: the Gauss rule of the trapezoidal rule's weights there (``linear_quadrature``)."""

from __future__ import annotations

import mpmath
import numpy as np
import pytest

from limetheory.theory.linear import linear_quadrature

#: the largest relative error of the rule before 00d5f3c (the 7-node Gauss rule below u = 1, float64 Lanczos) on
#: 20001 points of [r_min, 1], in float64, over r_min = 0.5 .. 1.7e-9: the new rule must not exceed it
PREVIOUS_RULE_ERROR = {0.5: 5.31e-14, 1.0: 8.9e-16}


def _mixture(us, ws, r):
    terms = zip(us, ws, strict=True)
    return mpmath.fsum(mpmath.mpf(float(w)) * mpmath.exp(-mpmath.mpf(float(u)) * r) for u, w in terms)


@pytest.mark.parametrize("power", [0.5, 1.0])
def test_gauss_rule_reproduces_the_trapezoidal_nodes_it_replaces(power):
    """On R in [0, 1] (every R_K), the Gauss nodes give the 24 (or 29) trapezoidal nodes' sum of w e^{-uR} to
    2e-16 of it (the bound's 7e-17 plus the table's rounding to float64), in mpmath."""
    nodes, weights = linear_quadrature.trapezoidal_power_quadrature(1e-3, power)
    left = nodes <= linear_quadrature.GAUSS_LEFT_END
    gauss_nodes, gauss_weights = linear_quadrature.inverse_power_quadrature(1e-3, power)
    count = linear_quadrature.GAUSS_LEFT_NODES[power]
    assert left.sum() == {0.5: 24, 1.0: 29}[power]
    assert (gauss_weights > 0).all() and gauss_nodes[:count].max() <= linear_quadrature.GAUSS_LEFT_END
    np.testing.assert_array_equal(gauss_nodes[count:], nodes[~left])
    with mpmath.workdps(30):
        for r in np.linspace(0.0, 1.0, 21):
            r = mpmath.mpf(float(r))
            exact = _mixture(nodes[left], weights[left], r)
            # tol: relative, not absolute: the Gauss rule's proven error is below 1e-16 of the sum, the table's
            # rounding to float64 about 1e-16 of it (measured: below 1.1e-16)
            assert abs(_mixture(gauss_nodes[:count], gauss_weights[:count], r) - exact) <= 2e-16 * exact


@pytest.mark.parametrize("power", [0.5, 1.0])
def test_gauss_table_is_the_mpmath_rule_rounded(power):
    """LEFT_GAUSS_TABLE is left_gauss_rule_mpmath at 40 digits rounded to float64 (within one ulp: a value within
    1e-35 of a rounding boundary could round either way), and its error bound is below 1e-16."""
    nodes, weights, bound = linear_quadrature.left_gauss_rule_mpmath(power)
    table_nodes, table_weights = (np.array(x) for x in linear_quadrature.LEFT_GAUSS_TABLE[power])
    for table, reference in ((table_nodes, nodes), (table_weights, weights)):
        reference = np.array([float(x) for x in reference])
        assert (np.abs(table - reference) <= np.spacing(reference)).all()
    assert (table_weights > 0).all() and (np.diff(table_nodes) > 0).all()
    assert float(bound) < 1e-16  # tol: the claim itself (GAUSS_LEFT_NODES is the fewest nodes that keep it)
    assert linear_quadrature.left_gauss_error_bound(power) == pytest.approx(float(bound), rel=1e-10)


@pytest.mark.parametrize("power", [0.5, 1.0])
@pytest.mark.parametrize("r_min", [0.5, 1e-3, 3.5e-5, 1e-8])
def test_rule_is_no_less_accurate_than_the_trapezoidal_rule_it_reduces(power, r_min):
    """The whole rule's relative error, in mpmath, exceeds the trapezoidal rule's (all its nodes, the rule it is
    built from) by at most the Gauss part's 2e-16, and stays within the previous rule's error (float64, dense)."""
    nodes, weights = linear_quadrature.inverse_power_quadrature(r_min, power)
    trapezoidal = linear_quadrature.trapezoidal_power_quadrature(r_min, power)
    # the largest errors sit near r = 1 for 1/sqrt(r): a dense stretch there, and a log grid over the rest
    grid = np.unique(np.concatenate([np.geomspace(r_min, 1.0, 25), np.linspace(0.9, 1.0, 11)[r_min < 0.9 :]]))
    with mpmath.workdps(30):
        for x in grid:
            r = mpmath.mpf(float(x))
            scale = r**power
            new = abs(_mixture(nodes, weights, r) * scale - 1)
            old = abs(_mixture(*trapezoidal, r) * scale - 1)
            assert new <= old + 2e-16  # tol: the Gauss part's bound, 7e-17, and its table's float64 rounding
    r = np.geomspace(r_min, 1.0, 20001)
    approx = (weights[None, :] * np.exp(-np.outer(r, nodes))).sum(axis=1)
    assert np.abs(approx * r**power - 1).max() <= PREVIOUS_RULE_ERROR[power]


def test_gauss_rule_refuses_other_powers_and_precisions():
    with pytest.raises(ValueError, match="power must be 0.5 or 1.0"):
        linear_quadrature.left_gauss_error_bound(2.0)
    with pytest.raises(ValueError, match="power must be 0.5 or 1.0"):
        linear_quadrature.left_gauss_rule_mpmath(True)
    with pytest.raises(ValueError, match="dps must be an integer >= 20"):
        linear_quadrature.left_gauss_rule_mpmath(0.5, dps=10)
