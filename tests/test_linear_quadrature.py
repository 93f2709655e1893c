"""The rule over u below u = 1: the Gauss rule of the trapezoidal rule's weights there (``linear_quadrature``)."""

from __future__ import annotations

import mpmath
import numpy as np
import pytest

from limetheory.theory.linear import linear_quadrature


@pytest.mark.parametrize("power", [0.5, 1.0])
def test_gauss_rule_reproduces_the_trapezoidal_nodes_it_replaces(power):
    """On R in [0, 1] (every R_K), the 7 Gauss nodes give the 17 (or 21) trapezoidal nodes' sum of w e^{-uR} to
    2e-15 of it (the bound's 1e-18 plus the Lanczos process's rounding, measured 1e-16 and 2.3e-16), in mpmath."""
    nodes, weights = linear_quadrature.trapezoidal_power_quadrature(1e-3, power)
    left = nodes <= linear_quadrature.GAUSS_LEFT_END
    gauss_nodes, gauss_weights = linear_quadrature.inverse_power_quadrature(1e-3, power)
    gauss = slice(0, linear_quadrature.GAUSS_LEFT_NODES)
    assert (gauss_weights > 0).all() and gauss_nodes[gauss].max() <= linear_quadrature.GAUSS_LEFT_END
    np.testing.assert_array_equal(gauss_nodes[linear_quadrature.GAUSS_LEFT_NODES :], nodes[~left])

    def mixture(us, ws, r):
        terms = zip(us, ws, strict=True)
        return mpmath.fsum(mpmath.mpf(float(w)) * mpmath.exp(-mpmath.mpf(float(u)) * r) for u, w in terms)

    with mpmath.workdps(30):
        for r in np.linspace(0.0, 1.0, 21):
            r = mpmath.mpf(float(r))
            exact = mixture(nodes[left], weights[left], r)
            # tol: relative, not absolute: the Gauss rule's proven error is below 1e-18 of the sum and its nodes'
            # and weights' rounding (Lanczos in float64, reorthogonalised) about 2e-16 of it; 2e-15 is ten times that
            assert abs(mixture(gauss_nodes[gauss], gauss_weights[gauss], r) - exact) <= 2e-15 * exact
