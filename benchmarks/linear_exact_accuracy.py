"""The accuracy of the exact linear route, measured against an exact one-dimensional sum (issue 35, D2).

With equal TF-IDF weights, f(K) = W(K) / sqrt(|K|), so E[f | s], E[z_k f | s] and β are one-dimensional sums over
s (:func:`limetheory.book.mpreference_linear.beta_linear_equal_weights`, at the digits the printed formulas need).  The
package does not know the weights are equal: it runs its quadrature over u and its recursions (or its size mixture)
as on any document.  For λ ≡ 1 (every word pushes the same way: f(ξ) = √d, the largest a model with |λ| <= 1 can
reach) and for random ±λ (signs and magnitudes in [0.1, 1], seeded), d from 100 to 10⁴ and ν from 0.05 to ∞, both
routes:

* "recursions": the quadrature over u of the forward and leave-one-out recursions (``beta_linear_exact`` below 1000
  words, and wherever the size mixture does not apply);
* "mixture": the size mixture over p (``beta_linear_exact`` from 1000 words on, where it applies);
* "moments": ``conditional_moments_linear_exact`` (the recursions; up to d = 3000, its d x d result).

Each error is printed in three units: max |λ| (the unit the docstrings used to promise), |f|(ξ) = Σ_j |λ_j| φ(ξ)_j
(the model with |λ| at ξ: the unit the error follows, since the recursions' rounding is relative to the means with
|w| in place of w and the quadrature's to |f| on each kept set), and max_j |β_j|.  The largest error in the unit
|f|(ξ) is what ``limetheory.theory.linear.linear_exact.BETA_ACCURACY`` and ``MOMENTS_ACCURACY`` promise.  ``--small``
stops at d = 1000.  Takes about five minutes of CPU (the recursions at d = 10⁴ cost 12 s a bandwidth).
"""

from __future__ import annotations

import argparse
import math
import time

import mpmath as mp
import numpy as np

import limetheory as lt
from limetheory.book import mpreference, mpreference_linear
from limetheory.theory.law import weighted_law
from limetheory.theory.linear.linear_exact import BETA_ACCURACY, MOMENTS_ACCURACY
from limetheory.theory.linear.linear_mixture import mixture_beta
from limetheory.theory.linear.linear_moments import beta_from_weighted_moments, quadrature_moments
from limetheory.theory.linear.tfidf_model import scale_free_model

SIZES = (100, 1000, 3001, 10000)
BANDWIDTHS = (0.05, 0.1, 0.25, 1.0, math.inf)
MOMENTS_MAX_D = 3001  # conditional_moments_linear_exact returns d x d values


def coefficients(kind, d):
    """λ ≡ 1, or random signs times magnitudes in [0.1, 1] (seeded by d)."""
    if kind == "ones":
        return np.ones(d)
    rng = np.random.default_rng(d)
    return rng.choice([-1.0, 1.0], d) * rng.uniform(0.1, 1.0, d)


def units(lam, beta_exact):
    """The three units of an error: max |λ|, |f|(ξ) = Σ |λ_j| / √d (equal weights), max |β|."""
    d = lam.size
    return {
        "max|lam|": float(np.abs(lam).max()),
        "|f|(xi)": float(np.abs(lam).sum() / math.sqrt(d)),
        "max|beta|": float(max(abs(b) for b in beta_exact)),
    }


def beta_errors(lam, nu):
    """{route: largest |β - exact|}, for the routes that apply at this (d, ν)."""
    d = lam.size
    t = np.ones(d)
    exact = mpreference_linear.beta_linear_equal_weights(lam.tolist(), nu=nu)
    model = scale_free_model(lam, t, None, "l2")
    law = weighted_law(d, nu)
    routes = {}
    mixed = mixture_beta(model, law)
    if mixed is not None:
        routes["mixture"] = mixed
    moments = quadrature_moments(model)
    routes["recursions"] = beta_from_weighted_moments(law, moments.f_given_s, moments.weighted(law.m))
    assert np.array_equal(lt.beta_linear_exact(lam, t, nu=nu), mixed if mixed is not None else routes["recursions"])
    with mp.workdps(mpreference.digits_for(d, nu=nu)):
        errors = {
            route: max(mpreference.relative_error(b, e, 1) for b, e in zip(beta, exact, strict=True))
            for route, beta in routes.items()
        }
    return errors, units(lam, exact)


def moments_error(lam):
    """Largest |E[f | s] - exact| and |E[z_k f | s] - exact| over s and k (one number)."""
    d = lam.size
    f_given_s, zf_given_s = lt.conditional_moments_linear_exact(lam, np.ones(d))
    f_exact, own, others = mpreference_linear.linear_equal_weights_moments(lam.tolist(), dps=30)
    total = float(lam.sum())
    f_ref = np.array([float(x) for x in f_exact])
    # the reference rounded to doubles: its own error (1e-16 relative) is far below the one measured
    zf_ref = np.outer([float(x) for x in own], lam) + np.outer([float(x) for x in others], total - lam)
    return max(float(np.abs(f_given_s - f_ref).max()), float(np.abs(zf_given_s - zf_ref).max()))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", action="store_true", help="stop at d = 1000")
    sizes = [d for d in SIZES if d <= 1000] if parser.parse_args().small else SIZES
    worst = {}
    print(f"{'lam':>6} {'d':>6} {'nu':>5} {'route':>10} {'/max|lam|':>10} {'/|f|(xi)':>10} {'/max|beta|':>10}")
    start = time.process_time()
    for kind in ("ones", "random"):
        for d in sizes:
            lam = coefficients(kind, d)
            for nu in BANDWIDTHS:
                errors, scale = beta_errors(lam, nu)
                for route, error in errors.items():
                    row = {unit: error / value for unit, value in scale.items()}
                    for unit, value in row.items():
                        worst[route, unit] = max(worst.get((route, unit), 0.0), value)
                    print(
                        f"{kind:>6} {d:>6} {nu:>5} {route:>10} " + " ".join(f"{value:>10.2e}" for value in row.values())
                    )
            if d <= MOMENTS_MAX_D:
                error = moments_error(lam)
                scale = units(lam, [1.0])
                row = {unit: error / scale[unit] for unit in ("max|lam|", "|f|(xi)")}
                for unit, value in row.items():
                    worst["moments", unit] = max(worst.get(("moments", unit), 0.0), value)
                print(f"{kind:>6} {d:>6} {'-':>5} {'moments':>10} " + " ".join(f"{v:>10.2e}" for v in row.values()))
    print(f"\nworst case over the sweep ({time.process_time() - start:.0f} s CPU):")
    for (route, unit), value in sorted(worst.items()):
        print(f"  {route:>10} {unit:>10}: {value:.2e}")
    print(f"promised: beta within {BETA_ACCURACY:g} |f|(xi), moments within {MOMENTS_ACCURACY:g} |f|(xi)")
    for route in ("mixture", "recursions"):
        assert worst.get((route, "|f|(xi)"), 0.0) <= BETA_ACCURACY, route
    assert worst["moments", "|f|(xi)"] <= MOMENTS_ACCURACY


if __name__ == "__main__":
    main()
