"""The estimate's lime standard deviation (issue 36): what its stopping rule and note read is ``lime_spread``'s.

Beyond ``MAX_WORD_FEATURES`` words the estimate once read lime's sd from residuals against the pilot's plain
stratified average, whose error inflated it: a 721-word document stated 0.018 x lime's sd, "within the target",
where ``lime_spread`` gave 7.  Now lime's sd is computed from the retained masks with residuals against the
estimate's own β (:func:`limetheory.pipelines.reading.lime_variance.lime_first_order_std`), on either side of
150 words; the note's ratio, ``reached`` and the estimate's ``lime_std`` say the same.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from limetheory.pipelines.estimate.estimate_batches import MAX_WORD_FEATURES
from limetheory.pipelines.estimate.limit_estimate import estimate_limit
from limetheory.pipelines.reading.lime_variance import lime_first_order_std

NU, N = 0.25, 5000
RATIO = re.compile(r"the largest standard error is ([0-9.e+-]+) x lime's standard deviation")


def saturating(d, seed):
    """A probability of a linear score of the kept words: lime's residuals are its curvature."""
    weights = np.random.default_rng(seed).normal(size=d) * 4.0 / np.sqrt(d)

    def score(z):
        return 1.0 / (1.0 + np.exp(-(z @ weights - 0.5 * weights.sum())))

    return score


@pytest.mark.parametrize("d", [40, MAX_WORD_FEATURES + 50])
def test_the_estimates_lime_sd_is_lime_spreads_from_its_masks_and_beta(d):
    estimate = estimate_limit(saturating(d, d), d, nu=NU, num_samples=N, max_calls=4000, random_state=0,
                              progress=False)  # fmt: skip
    _, std = lime_first_order_std(estimate.sample, estimate.beta, NU, float(estimate.beta.sum()), N)
    np.testing.assert_allclose(estimate.lime_std, std, rtol=1e-9)
    ratio = float(np.max(estimate.stderr / estimate.lime_std))
    stated = float(RATIO.search(estimate.note).group(1))
    assert stated == pytest.approx(ratio, rel=0.05)  # two significant digits
    assert estimate.reached == (ratio <= estimate.tol) == ("within the target" in estimate.note)
