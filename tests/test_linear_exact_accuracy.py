"""The exact linear route's stated accuracy (issue 35, D2) holds, in the unit |f|(ξ) = Σ_j |λ_j| φ(ξ)_j.

The reference is exact: with equal TF-IDF weights f(K) = W(K)/√|K|, so the moments and β are one-dimensional sums
(:func:`limetheory.book.mpreference_linear.beta_linear_equal_weights`), themselves checked here against enumeration of
every mask.  This is the small representative case; ``benchmarks/linear_exact_accuracy.py`` runs the sweep
(d up to 10⁴, ν from 0.05 to ∞) from which ``BETA_ACCURACY`` and ``MOMENTS_ACCURACY`` were set.
"""

from __future__ import annotations

import itertools
import math

import mpmath as mp
import numpy as np
import pytest

import limetheory as lt
from limetheory.book import mpreference, mpreference_linear
from limetheory.theory.law import weighted_law
from limetheory.theory.linear import linear_adjoint, linear_exact, linear_mixture, tfidf_model
from limetheory.theory.linear.linear_moments import beta_from_weighted_moments, quadrature_moments


def coefficients(kind, d):
    """λ ≡ 1 (f(ξ) = √d, the largest error scale) or random signs times magnitudes in [0.1, 1] (seeded)."""
    if kind == "ones":
        return np.ones(d)
    rng = np.random.default_rng(d)
    return rng.choice([-1.0, 1.0], d) * rng.uniform(0.1, 1.0, d)


def size_at_xi(lam):
    """|f|(ξ) = Σ_j |λ_j| φ(ξ)_j with equal weights, φ(ξ)_j = 1/√d."""
    return float(np.abs(lam).sum()) / math.sqrt(lam.size)


def largest_error(got, exact, dps):
    with mp.workdps(dps):
        return max(mpreference.relative_error(g, e, 1) for g, e in zip(got, exact, strict=True))


# ----------------------------------------------------------------------------- the reference, against enumeration


def test_equal_weights_moments_against_enumeration():
    """Every set of every size of d = 7 words, f(K) = Σ_K λ / √|K| in mpmath."""
    lam = [0.5, -1.25, 2.0, 0.75, -0.5, 1.0, -2.0]
    d = len(lam)
    f_given_s, own, others = mpreference_linear.linear_equal_weights_moments(lam, dps=40)
    with mp.workdps(40):
        total = mp.fsum(lam)
        for s in range(1, d):
            kept_sets = list(itertools.combinations(range(d), d - s))
            values = [mp.fsum(lam[i] for i in kept) / mp.sqrt(len(kept)) for kept in kept_sets]
            assert abs(mp.fsum(values) / len(kept_sets) - f_given_s[s - 1]) < mp.mpf(10) ** -35  # tol: 40 digits
            for k in range(d):
                zf = mp.fsum(v for v, kept in zip(values, kept_sets, strict=True) if k in kept) / len(kept_sets)
                expected = own[s - 1] * lam[k] + others[s - 1] * (total - lam[k])
                assert abs(zf - expected) < mp.mpf(10) ** -35  # tol: sums of 35 terms at 40 digits
        assert f_given_s[d - 1] == own[d - 1] == others[d - 1] == 0


@pytest.mark.parametrize("nu", [0.25, math.inf])
def test_equal_weights_beta_against_dense_enumeration(nu):
    """β by the one-dimensional sums = β = Σ⁻¹Γ with Σ and Γ enumerated over the 2⁶ masks (mpreference.beta_dense)."""
    lam = [1.0, -0.5, 0.25, 2.0, -1.5, 0.75]
    d = len(lam)

    def f(mask):
        kept = [j for j in range(d) if mask[j]]
        return mp.fsum(lam[j] for j in kept) / mp.sqrt(len(kept)) if kept else mp.mpf(0)

    dps = mpreference.digits_for(d, nu=nu)
    dense = mpreference.beta_dense(f, d, nu=nu, dps=dps)
    sums = mpreference_linear.beta_linear_equal_weights(lam, nu=nu, dps=dps)
    with mp.workdps(dps):
        assert max(abs(a - b) for a, b in zip(dense, sums, strict=True)) < mp.mpf(10) ** (20 - dps)  # tol: dps - 20


def test_equal_weights_reference_refuses_bad_input():
    with pytest.raises(ValueError, match="at least two"):
        mpreference_linear.beta_linear_equal_weights([1.0], nu=0.25)
    with pytest.raises(TypeError, match="real numbers"):
        mpreference_linear.linear_equal_weights_moments(["a", "b"])
    with pytest.raises(ValueError, match="finite"):
        mpreference_linear.linear_equal_weights_moments([1.0, math.nan])
    with pytest.raises(ValueError, match="nu"):
        mpreference_linear.beta_linear_equal_weights([1.0, 2.0], nu=0.0)


# ----------------------------------------------------------------------------- the package's accuracy


@pytest.mark.parametrize("kind", ["ones", "random"])
@pytest.mark.parametrize(("d", "nu"), [(100, 0.05), (100, math.inf), (1000, 0.05), (1000, 0.25)])
def test_beta_within_its_stated_accuracy_on_both_routes(kind, d, nu):
    """Both routes (the recursions, assembled as quadrature_moments and as linear_adjoint does for beta_linear_exact,
    and the size mixture where it applies) within BETA_ACCURACY |f|(ξ)."""
    lam = coefficients(kind, d)
    t = np.ones(d)
    exact = mpreference_linear.beta_linear_equal_weights(lam.tolist(), nu=nu)
    model = tfidf_model.scale_free_model(lam, t, None, "l2")
    law = weighted_law(d, nu)
    moments = quadrature_moments(model)
    routes = {
        "recursions": beta_from_weighted_moments(law, moments.f_given_s, moments.weighted(law.m)),
        "recursions, beta_linear_exact's assembly": linear_adjoint.adjoint_beta(model, law),
    }
    mixed = linear_mixture.mixture_beta(model, law)
    if mixed is not None:
        routes["mixture"] = mixed
    if (kind, d, nu) == ("ones", 1000, 0.25):
        assert "mixture" in routes  # the case exercises the mixture
    dps = mpreference.digits_for(d, nu=nu)
    for route, beta in routes.items():
        error = largest_error(beta, exact, dps)
        assert error <= linear_exact.BETA_ACCURACY * size_at_xi(lam), (route, error / size_at_xi(lam))
    np.testing.assert_array_equal(
        lt.beta_linear_exact(lam, t, nu=nu),
        mixed if mixed is not None else routes["recursions, beta_linear_exact's assembly"],
    )


@pytest.mark.parametrize("kind", ["ones", "random"])
def test_moments_within_their_stated_accuracy(kind):
    """E[f | s] = √(d - s) Λ/d and E[z_k f | s] exactly, d = 600: within MOMENTS_ACCURACY |f|(ξ)."""
    d = 600
    lam = coefficients(kind, d)
    f_given_s, zf_given_s = lt.conditional_moments_linear_exact(lam, np.ones(d))
    f_exact, own, others = mpreference_linear.linear_equal_weights_moments(lam.tolist(), dps=30)
    total = float(lam.sum())
    # the reference rounded to doubles (relative 1e-16, and 1e-16 |f|(ξ) after the products): far below the claim
    zf_exact = np.outer([float(x) for x in own], lam) + np.outer([float(x) for x in others], total - lam)
    error = max(
        float(np.abs(f_given_s - np.array([float(x) for x in f_exact])).max()),
        float(np.abs(zf_given_s - zf_exact).max()),
    )
    assert error <= linear_exact.MOMENTS_ACCURACY * size_at_xi(lam)


def test_the_old_unit_did_not_hold():
    """λ ≡ 1, d = 1000, ν = 0.05: the error exceeds the 1e-12 max |λ| the docstring used to promise, and stays
    within the new promise (a factor √d = 32 between the two units)."""
    d, nu = 1000, 0.05
    lam = np.ones(d)
    exact = mpreference_linear.beta_linear_equal_weights(lam.tolist(), nu=nu)
    error = largest_error(lt.beta_linear_exact(lam, np.ones(d), nu=nu), exact, mpreference.digits_for(d, nu=nu))
    assert 1e-12 < error <= linear_exact.BETA_ACCURACY * size_at_xi(lam)  # tol: the two promises compared
