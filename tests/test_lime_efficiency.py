"""Explanation.lime_efficiency: lime's variance over the estimate's at equal model calls (issue 27, chapter 24).

Checked against an independent measurement: the variance of real lime's coefficients over runs at n samples and the
variance of the estimate over seeds at a fixed number of calls, both taken from repeated runs, not from the
formulas behind ``lime_spread`` and ``stderr``.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline

import limetheory as lt

DOCS = ["good food", "bad food", "good staff", "bad staff", "slow food", "kind staff"]
TEXT = "good food but slow and bad staff"


@pytest.fixture(scope="module")
def estimate():
    model = make_pipeline(CountVectorizer(), LogisticRegression()).fit(DOCS, [1, 0, 1, 0, 0, 1])
    return lt.explain(model, TEXT, method="estimate", max_calls=4000)


@pytest.mark.parametrize("runs", [20, pytest.param(60, marks=pytest.mark.slow)])
def test_efficiency_is_the_ratio_of_measured_variances(yelp, yelp_logistic, runs):
    """A 15-word Yelp review (index 184), TF-IDF + logistic regression through a function of strings.

    lime: R real runs at n = 1000; the estimate: S = R seeds at 2000 calls.  The measured ratio
    var_lime (n - 1) / (var_estimate c) of each word and the method's value (its mean over the seeds) agree in median
    over the words within a factor exp(3 sqrt(4 / (R - 1))): sqrt(2/(R-1) + 2/(R-1)) is the standard deviation of the
    log of a ratio of two sample variances from R draws each (0.26 at R = 60, the slow case; 0.46 at R = 20, the
    case `make test` runs: the same 3 standard deviations, a wider factor), and the median over 15 correlated words
    is no noisier.
    """
    texts, _ = yelp
    model = yelp_logistic
    text, seeds, n, calls = texts[184], runs, 1000, 2000

    def black_box(documents):
        return model.predict_proba(documents)

    lime = lt.lime_explanations(text, black_box, n_exp=runs, num_samples=n, random_state=3)
    estimates = [
        lt.explain(black_box, text, random_state=seed, max_calls=calls, num_samples=n, progress=False)
        for seed in range(seeds)
    ]
    measured = lime.var(axis=0, ddof=1) * (n - 1) / (np.var([e.beta for e in estimates], axis=0, ddof=1) * calls)
    stated = np.mean([e.lime_efficiency() for e in estimates], axis=0)
    assert all(e.method == "monte_carlo" and abs(e.num_samples - calls) <= 20 for e in estimates)
    gap = abs(np.log(np.median(measured[1:]) / np.median(stated[1:])))
    assert gap <= 3 * np.sqrt(4 / (runs - 1)), (np.median(measured[1:]), np.median(stated[1:]))


def test_exact_explanations_are_refused():
    model = make_pipeline(CountVectorizer(), LogisticRegression()).fit(DOCS, [1, 0, 1, 0, 0, 1])
    with pytest.raises(ValueError, match="^lime_efficiency needs an estimate with standard errors"):
        lt.explain(model, TEXT).lime_efficiency()


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        (dict(num_samples=1), ValueError, "^num_samples must be >= 2"),
        (dict(num_samples=2.5), TypeError, "^num_samples must be an integer"),
        (dict(omega_samples=1), ValueError, "^omega_samples must be >= 2"),
    ],
)
def test_bad_arguments_are_named(estimate, kwargs, error, message):
    with pytest.raises(error, match=message):
        estimate.lime_efficiency(**kwargs)
