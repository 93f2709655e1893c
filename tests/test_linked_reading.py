"""A logistic regression's probabilities as the link of its linear reading (pipelines.reading.linked_reading)."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.feature_extraction.text import CountVectorizer, TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import MaxAbsScaler
from toy_reviews import DOCS, LABELS, TEXTS

import limetheory as lt
from limetheory.pipelines.reading.linked_reading import linked_score_masks
from limetheory.pipelines.reading.pipeline_reading import self_check_masks


def _check(model, text, seed=0):
    d = len(lt.local_dictionary(text))
    masks = self_check_masks(d, np.random.default_rng(seed))
    return masks, model.predict_proba(lt.perturbed_documents(text, masks))


@pytest.mark.parametrize("text", TEXTS)
@pytest.mark.parametrize(
    "steps",
    [
        (TfidfVectorizer(),),
        (TfidfVectorizer(lowercase=False, norm="l1"),),
        (CountVectorizer(), MaxAbsScaler()),
    ],
    ids=["tfidf", "tfidf-l1", "counts-maxabs"],
)
def test_the_link_reproduces_predict_proba_on_lime_strings(steps, text):
    """On masks it never saw in its check, the link equals the pipeline's own predict_proba to rounding."""
    model = make_pipeline(*steps, LogisticRegression()).fit(DOCS, LABELS)
    score, why = linked_score_masks(model, text, "predict_proba", *_check(model, text))
    assert why is None
    masks, truth = _check(model, text, seed=1)
    # σ is 1/4-Lipschitz: the features' rounding (a few hundred ulps of the decision function at most) bounds it
    np.testing.assert_allclose(score(masks), truth, rtol=0, atol=1e3 * np.finfo(float).eps)


def test_multiclass_is_the_softmax_of_every_class():
    labels = [0, 1, 2, 0, 1, 2, 0, 1]
    model = make_pipeline(TfidfVectorizer(), LogisticRegression()).fit(DOCS, labels)
    text = TEXTS[1]
    score, why = linked_score_masks(model, text, "predict_proba", *_check(model, text))
    assert why is None
    masks, truth = _check(model, text, seed=2)
    assert score(masks).shape == truth.shape == (len(masks), 3)
    np.testing.assert_allclose(score(masks), truth, rtol=0, atol=1e3 * np.finfo(float).eps)


@pytest.mark.parametrize("classes", [2, 3])
@pytest.mark.parametrize("vectorizer", [CountVectorizer, TfidfVectorizer])
def test_multinomial_naive_bayes_is_the_link_of_its_log_likelihoods(vectorizer, classes):
    """MultinomialNB's probabilities, the softmax of its joint log-likelihoods (linear in the row), read through the
    link on masks it never saw in its check: equal to the pipeline's own predict_proba to rounding (a log-likelihood
    sums a few words' log θ of magnitude ~10: a few thousand ulps of the probability at most); a subclass that
    changes predict_proba is not read."""
    from sklearn.naive_bayes import MultinomialNB

    labels = [[0, 1, 0, 1, 0, 1, 0, 1], [0, 1, 2, 0, 1, 2, 0, 1]][classes - 2]
    model = make_pipeline(vectorizer(), MultinomialNB()).fit(DOCS, labels)
    for text in TEXTS:
        score, why = linked_score_masks(model, text, "predict_proba", *_check(model, text))
        assert why is None, why
        masks, truth = _check(model, text, seed=3)
        assert score(masks).shape == truth.shape == (len(masks), classes)
        np.testing.assert_allclose(score(masks), truth, rtol=0, atol=1e4 * np.finfo(float).eps)

    class Tempered(MultinomialNB):
        def predict_proba(self, X):
            p = super().predict_proba(X) ** 2
            return p / p.sum(axis=1, keepdims=True)

    tempered = make_pipeline(vectorizer(), Tempered()).fit(DOCS, labels)
    assert linked_score_masks(tempered, TEXTS[0], "predict_proba", *_check(tempered, TEXTS[0]))[0] is None


class _NoLink:
    """A classifier with probabilities and no logistic link (nearest centroid by counts, softened)."""

    def fit(self, X, y):
        self.classes_ = np.unique(y)
        self.centres_ = np.array([np.asarray(X[np.asarray(y) == c].mean(axis=0)).ravel() for c in self.classes_])
        return self

    def predict_proba(self, X):
        X = X.toarray() if hasattr(X, "toarray") else np.asarray(X)
        closeness = -((X[:, None, :] - self.centres_[None]) ** 2).sum(axis=2)
        return np.exp(closeness) / np.exp(closeness).sum(axis=1, keepdims=True)


class _Tempered(LogisticRegression):
    """A logistic regression whose predict_proba is not σ of its decision function (a temperature of 2)."""

    def predict_proba(self, X):
        p = 1 / (1 + np.exp(-self.decision_function(X) / 2))
        return np.column_stack([1 - p, p])


def test_a_model_the_link_does_not_reproduce_is_refused_and_scored_from_counts():
    model = make_pipeline(TfidfVectorizer(), _Tempered()).fit(DOCS, LABELS)
    text = TEXTS[0]
    score, why = linked_score_masks(model, text, "predict_proba", *_check(model, text))
    assert score is None and "does not reproduce the pipeline's predict_proba" in why
    e = lt.explain(model, text, method="monte_carlo", max_calls=4000, progress=False)
    assert any("counts" in note for note in e.notes) and not any("link" in note for note in e.notes)


def test_what_has_no_link_is_refused_with_the_reason():
    model = make_pipeline(TfidfVectorizer(), LogisticRegression()).fit(DOCS, LABELS)
    masks, truth = _check(model, TEXTS[0])
    assert linked_score_masks(model, TEXTS[0], "decision_function", masks, truth)[1].startswith("output=")
    assert "not one column per class" in linked_score_masks(model, TEXTS[0], "predict_proba", masks, truth[:, :1])[1]
    assert "not a Pipeline" in linked_score_masks(model.steps[-1][1], TEXTS[0], "predict_proba", masks, truth)[1]
    counts = make_pipeline(CountVectorizer(), MaxAbsScaler(), _NoLink()).fit(DOCS, LABELS)
    assert (
        "is neither a LogisticRegression nor a MultinomialNB"
        in linked_score_masks(counts, TEXTS[0], "predict_proba", masks, truth)[1]
    )


def test_the_linked_estimate_covers_the_exact_limit():
    """Over seeds, the estimate from the link lies within its standard errors of enumeration (z-scores ~ N(0, 1))."""
    model = make_pipeline(TfidfVectorizer(), LogisticRegression(C=10.0)).fit(DOCS, LABELS)
    text = "The food was good but the staff rude and the place cold"
    d = len(lt.local_dictionary(text))
    assert d <= 12
    exact = lt.explain(model, text, method="enumeration")
    z = []
    for seed in range(12):
        e = lt.explain(model, text, method="monte_carlo", random_state=seed, max_calls=6000, progress=False)
        assert any("link of its linear reading" in note for note in e.notes)
        z.append((e.beta - exact.beta) / e.stderr)
    z = np.concatenate(z)
    # 12 (d + 1) z-scores: their mean square is 1 within about 5 of its standard errors (sqrt(2 / n) each)
    assert abs(np.mean(z**2) - 1.0) <= 5 * np.sqrt(2.0 / z.size)


def test_two_classes_are_one_minus_sigma_and_sigma_of_the_reading_bit_for_bit():
    """The binary link fills (1 - σ(g), σ(g)) in place: the stacked columns it was, to the bit."""
    from scipy.special import expit

    model = make_pipeline(TfidfVectorizer(), LogisticRegression()).fit(DOCS, LABELS)
    text = TEXTS[0]
    score, why = linked_score_masks(model, text, "predict_proba", *_check(model, text))
    assert why is None
    masks = self_check_masks(len(lt.local_dictionary(text)), np.random.default_rng(3))
    p = expit(score.readings[1](masks))
    assert np.array_equal(score(masks), np.column_stack([1.0 - p, p]))
