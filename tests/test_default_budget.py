"""The estimate's default budget is one lime run, and its notes state one true sentence of the precision reached."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

import limetheory as lt

TEXT = (
    "the soup was good and the bread was fresh but the service was slow and the room was loud "
    "although the staff tried hard to keep every table happy tonight"
)
NOTE = re.compile(
    r"estimate from (\d+) model calls(?: \(max_calls = (\d+), spent before tol was met\))?: the largest standard "
    r"error is ([0-9.e+-]+) x lime's standard deviation at n = (\d+)(?:, within the target tol = ([0-9.e+-]+)| \(tol = "
    r"([0-9.e+-]+)\))"
)


def score(docs):
    """A rule-based score that no exact route reads (a classifier_fn of one column)."""
    return np.array([[np.tanh(doc.count("good") - doc.count("slow") + 0.05 * len(doc.split()))] for doc in docs])


def _precision(explanation):
    notes = [note for note in explanation.notes if note.startswith("estimate from ")]
    assert len(notes) == 1, explanation.notes  # one sentence of the precision, not two that disagree
    found = NOTE.match(notes[0])
    assert found, notes[0]
    calls, budget, ratio, n, met, unmet = found.groups()
    return int(calls), budget, float(ratio), int(n), met is not None, float(met or unmet)


@pytest.mark.parametrize("num_samples", [300, 1000, 5000])
def test_the_default_call_costs_at_most_one_lime_run(num_samples):
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)  # no warning: lime's cost is the default, not a failure
        warnings.filterwarnings("ignore", message="lime at num_samples")
        e = lt.explain(score, TEXT, num_samples=num_samples)
    assert e.method == "monte_carlo" and len(e.words) > 14
    calls, _, ratio, n, met, tol = _precision(e)
    least = 8 * len(e.words)  # a pilot and two batches with two masks in every stratum
    assert calls == e.num_samples <= max(num_samples, least)
    assert n == num_samples and tol == 0.1
    assert met == (ratio <= tol)  # never "within the target" beside a larger ratio


def test_asking_for_precision_warns_when_the_budget_runs_out():
    with pytest.warns(UserWarning, match="spent before tol was met"):
        e = lt.explain(score, TEXT, tol=1e-4, max_calls=600, num_samples=5000)
    calls, budget, ratio, _, met, tol = _precision(e)
    assert not met and int(budget) == 600 and ratio > tol == 1e-4 and calls <= 600


def test_the_stated_ratio_follows_the_standard_errors():
    """More calls, smaller standard errors: the note's ratio moves with stderr, as a ratio to a fixed sd must."""
    with pytest.warns(UserWarning, match="spent before tol"):
        small = lt.explain(score, TEXT, max_calls=600, tol=1e-6, progress=False)
    with pytest.warns(UserWarning, match="spent before tol"):
        large = lt.explain(score, TEXT, max_calls=6000, tol=1e-6, progress=False)
    ratio_small, ratio_large = _precision(small)[2], _precision(large)[2]
    assert ratio_large < ratio_small
    # lime's standard deviation is the same for both: the ratios scale as the largest standard errors do, to
    # within the note's two significant digits and the estimate's own spread of its standard errors
    scale = small.stderr.max() / large.stderr.max()
    assert ratio_small / ratio_large == pytest.approx(scale, rel=0.35)  # tol: two digits and the errors' own noise
