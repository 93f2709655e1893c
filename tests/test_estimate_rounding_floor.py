"""An estimate's standard errors never fall below its rounding error (issue 36, item 4).

At d <= 5 the estimate scores almost every stratum in full: its sampling error is then 0 (or 1e-17), while its
β differs from enumeration by about 1e-10 (the controls' values cancel against the model's output in each term).
The standard errors are floored at ``ROUNDING_UNITS`` x eps x ||β||₁ / λ_min(Σ) and the note says so.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from limetheory import beta_enumerate
from limetheory.pipelines.estimate.limit_estimate import ROUNDING_UNITS, estimate_limit
from limetheory.theory.coefficients import sigma_eigenvalues

# (d, nu, seed, max_calls): estimates whose sampling error was 0 to 1e-17 beside an error of 1e-10 to 4e-10
ALL_ENUMERATED = [(2, 1.0, 0, None), (2, 3.0, 2, None), (3, 0.25, 2, 50_000), (5, 0.25, 1, 2000)]


def _saturating(d, seed):
    weights = np.random.default_rng(seed).normal(size=d) * 3
    offset = np.random.default_rng(seed + 100).normal() * 10
    return lambda z: np.tanh(0.3 * (z @ weights)) * 5 + offset


@pytest.mark.parametrize("d, nu, seed, max_calls", ALL_ENUMERATED)
def test_the_standard_error_covers_the_error_against_enumeration(d, nu, seed, max_calls):
    score = _saturating(d, seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # a budget spent before tol is not what is tested here
        estimate = estimate_limit(score, d, nu=nu, random_state=seed, progress=False, max_calls=max_calls)
    exact = beta_enumerate(score, d, nu=nu)  # accurate to a few ulps of ||β|| (1e-15 against mpmath here)
    floor = ROUNDING_UNITS * np.finfo(float).eps * np.abs(estimate.beta).sum() / min(sigma_eigenvalues(d, nu=nu))
    assert (estimate.stderr >= floor).all()
    # the floor is a bound on the rounding, not a standard error: the error is within it, not within 2 of it
    assert (np.abs(estimate.beta - exact) <= estimate.stderr).all(), (estimate.beta - exact, estimate.stderr)


def test_the_note_says_the_standard_errors_are_floored():
    score = _saturating(2, 0)
    estimate = estimate_limit(score, 2, nu=1.0, random_state=0, progress=False)
    assert estimate.note.startswith("estimate from ")
    assert "floored at the estimate's rounding error" in estimate.note, estimate.note


def test_a_sampled_estimate_is_not_floored():
    """At d = 12 every stratum but the few enumerated is sampled: the sampling error is far above rounding."""
    weights = np.random.default_rng(0).normal(size=12)
    estimate = estimate_limit(lambda z: np.tanh(z @ weights), 12, nu=0.25, random_state=0, progress=False)
    assert "floored" not in estimate.note
    floor = ROUNDING_UNITS * np.finfo(float).eps * np.abs(estimate.beta).sum() / min(sigma_eigenvalues(12, nu=0.25))
    assert (estimate.stderr > 100 * floor).all()
