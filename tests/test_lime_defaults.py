"""lime called as its README calls it, against the book's expectations, so that a change of default shows.

lime's README builds ``LimeTextExplainer(class_names=class_names)`` and calls
``explainer.explain_instance(text, classifier_fn)``; every other argument keeps its default.  The book assumes
those defaults: kernel width 25 (the paper's nu = 0.25, weights psi(s/d, 0.25)), 10 features, feature selection
'auto' (forward selection up to 6 features, highest weights above), 5000 samples with the original document
first, and a seed that makes runs repeatable.  The only argument added here is ``random_state``, where a test
needs repeatable runs; the test of seeding checks that it is honoured.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from lime.lime_text import LimeTextExplainer

import limetheory as lt

EPS = np.finfo(float).eps
CLASS_NAMES = ["negative", "positive"]
TEXT = (
    "The soup was rich and the bread warm, but our waiter vanished for ages; "
    "dessert came late, cold coffee, friendly manager, fair prices, loud music."
)
WORDS = list(dict.fromkeys(re.findall(r"\w+", TEXT)))
# word weights of the toy model below: distinct, so that lime's ranking of words has no ties
WEIGHTS = {word: (-1) ** k * (k + 1) / len(WORDS) for k, word in enumerate(WORDS)}


def review_model(documents):
    """A smooth 'probability of positive' from the words a document contains (a logistic of a weighted sum)."""
    scores = np.array([sum(WEIGHTS[w] for w in set(re.findall(r"\w+", doc)) if w in WEIGHTS) for doc in documents])
    p = 1.0 / (1.0 + np.exp(-scores))
    return np.column_stack([1.0 - p, p])


class RecordingModel:
    def __init__(self):
        self.calls = []

    def __call__(self, documents):
        self.calls.append([str(doc) for doc in documents])
        return review_model(documents)


def readme_call(random_state=0):
    """explainer = LimeTextExplainer(class_names=...); explainer.explain_instance(text, classifier_fn)."""
    model = RecordingModel()
    explainer = LimeTextExplainer(class_names=CLASS_NAMES, random_state=random_state)
    return explainer.explain_instance(TEXT, model), model


def masks_of(documents):
    return np.array([[w in set(re.findall(r"\w+", doc)) for w in WORDS] for doc in documents], dtype=float)


def weighted_ridge(z, y, weights, penalty):
    """argmin sum_i w_i (y_i - b_0 - z_i b)^2 + penalty |b|^2 by the normal equations (intercept unpenalised)."""
    design = np.hstack([np.ones((len(z), 1)), z])
    gram = design.T @ (weights[:, None] * design) + penalty * np.diag([0.0] + [1.0] * z.shape[1])
    return np.linalg.solve(gram, design.T @ (weights * y)), np.linalg.cond(gram)


@pytest.fixture(scope="module")
def default_run():
    return readme_call()


def test_readme_call_draws_5000_samples_with_the_original_document_first(default_run):
    _, model = default_run
    assert len(model.calls) == 1  # one batch: lime draws every mask before it calls the classifier
    documents = model.calls[0]
    assert len(documents) == 5000
    assert documents[0] == TEXT
    assert all(document != TEXT for document in documents[1:])  # every other sample lost at least one word


def test_readme_call_explains_10_features(default_run):
    explanation, _ = default_run
    assert len(WORDS) > 10  # so that the default, not the document, is what limits the explanation
    features = explanation.as_list()
    assert len(features) == 10
    assert {word for word, _ in features} <= set(WORDS)
    assert explanation.class_names == CLASS_NAMES


def test_readme_call_uses_kernel_width_25_and_the_highest_weights_selection(default_run):
    """An independent replay of the README call: weights psi(s/d, 0.25) (via limetheory.psi); 'auto' with 10 features
    is 'highest_weights': a ridge with penalty 0.01 on every word ranks them by |coefficient| (the original
    document is all ones), and the final ridge with penalty 1 is fitted on the 10 best.

    Tolerance: both sides solve the same systems, whose entries are sums of n = 5000 terms (relative error at
    most n eps), with weights that differ by a few hundred eps at most; the solutions differ by at most the
    condition number times that.
    """
    explanation, model = default_run
    documents = model.calls[0]
    z = masks_of(documents)
    d = len(WORDS)
    y = review_model(documents)[:, 1]
    weights = lt.psi((d - z.sum(axis=1)) / d, nu=25 / 100)
    ranking, _ = weighted_ridge(z, y, weights, 0.01)
    chosen = np.argsort(-np.abs(ranking[1:]), kind="stable")[:10]
    expected, condition = weighted_ridge(z[:, chosen], y, weights, 1.0)
    lime_map = dict(explanation.as_map()[1])
    assert set(lime_map) == set(chosen.tolist())
    ours = np.array([explanation.intercept[1]] + [lime_map[j] for j in chosen])
    tolerance = condition * (len(documents) + 512) * EPS * np.abs(expected).max()
    np.testing.assert_allclose(ours, expected, rtol=0, atol=tolerance)
    # kernel width 30 instead of 25 would move the coefficients far more than the tolerance
    other, _ = weighted_ridge(z[:, chosen], y, lt.psi((d - z.sum(axis=1)) / d, nu=30 / 100), 1.0)
    assert np.abs(other - expected).max() > 1e3 * tolerance


def test_readme_call_feature_selection_auto_is_highest_weights_above_6_features(default_run):
    explanation, _ = default_run
    # both sides run lime's own code on the same seed, so they agree exactly
    explicit = LimeTextExplainer(class_names=CLASS_NAMES, random_state=0, feature_selection="highest_weights")
    reference = explicit.explain_instance(TEXT, review_model, num_features=10)
    assert explanation.as_list() == reference.as_list()
    assert explanation.intercept[1] == reference.intercept[1]


def test_feature_selection_auto_is_forward_selection_up_to_6_features():
    explainer = LimeTextExplainer(class_names=CLASS_NAMES, random_state=1)
    auto = explainer.explain_instance(TEXT, review_model, num_features=6, num_samples=800)
    forward = LimeTextExplainer(class_names=CLASS_NAMES, random_state=1, feature_selection="forward_selection")
    reference = forward.explain_instance(TEXT, review_model, num_features=6, num_samples=800)
    highest = LimeTextExplainer(class_names=CLASS_NAMES, random_state=1, feature_selection="highest_weights")
    other = highest.explain_instance(TEXT, review_model, num_features=6, num_samples=800)
    assert auto.as_list() == reference.as_list()
    assert {w for w, _ in other.as_list()} != {w for w, _ in auto.as_list()}  # the two selections differ here


def test_readme_call_random_state_seeds_the_samples():
    first, first_model = readme_call(random_state=11)
    again, again_model = readme_call(random_state=11)
    other, other_model = readme_call(random_state=12)
    assert first_model.calls == again_model.calls
    assert first.as_list() == again.as_list()
    assert first_model.calls != other_model.calls
