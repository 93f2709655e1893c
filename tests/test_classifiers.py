"""Linear TF-IDF models: coefficients mapped from lime words to columns, and lime's two calling forms."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest
import scipy.sparse
from sklearn.feature_extraction.text import TfidfVectorizer

import limetheory as lt
from limetheory.book import linear_tfidf_classifier, linear_tfidf_model, vocabulary_coefficients

CORPUS = ["the food was good", "bad service and bad food", "good service", "I liked the place", "food food good"]
EPS = np.finfo(float).eps


@pytest.fixture(scope="module")
def vectorizer():
    return TfidfVectorizer().fit(CORPUS)


def tfidf_by_hand(document, vectorizer):
    """Normalised TF-IDF of document from raw counts and the fitted idf (no call to transform)."""
    counts = Counter(token for token in document.lower().split() if len(token) >= 2)
    raw = {w: c * vectorizer.idf_[vectorizer.vocabulary_[w]] for w, c in counts.items() if w in vectorizer.vocabulary_}
    norm = math.sqrt(sum(v * v for v in raw.values()))
    return {w: v / norm for w, v in raw.items()} if norm else {}


def test_vocabulary_coefficients_place_each_word_in_its_column(vectorizer):
    text = "I liked the food, food was good"
    words = lt.local_dictionary(text)
    lam = np.arange(1.0, len(words) + 1)
    coef = vocabulary_coefficients(text, vectorizer, lam)
    expected = np.zeros(len(vectorizer.vocabulary_))
    for word, value in zip(words, lam, strict=True):
        if word.lower() in vectorizer.vocabulary_ and len(word) >= 2:
            expected[vectorizer.vocabulary_[word.lower()]] = value
    assert np.array_equal(coef, expected)
    assert coef[vectorizer.vocabulary_["food"]] == lam[words.index("food")]


def test_classifier_is_the_linear_function_of_the_tfidf(vectorizer):
    rng = np.random.default_rng(0)
    coef = rng.standard_normal(len(vectorizer.vocabulary_))
    documents = ["good food and good service", "bad place", "I am here", "the food food"]
    out = linear_tfidf_classifier(vectorizer, coef)(documents)
    by_hand = [
        sum(coef[vectorizer.vocabulary_[w]] * v for w, v in tfidf_by_hand(doc, vectorizer).items()) for doc in documents
    ]
    # a sum of at most 4 products of numbers of order one: a few ulps of the largest term
    assert np.allclose(out[:, 1], by_hand, rtol=0, atol=16 * EPS * np.abs(coef).max())
    assert np.array_equal(out[:, 0], -out[:, 1])
    assert out[2, 1] == 0.0  # no word of "I am here" is in the vocabulary: phi = 0
    assert out.shape == (4, 2)


def test_model_fn_takes_sparse_and_dense_rows_alike(vectorizer):
    coef = np.linspace(-1, 1, len(vectorizer.vocabulary_))
    X = vectorizer.transform(["good food", "bad service"])
    model_fn = linear_tfidf_model(coef)
    assert scipy.sparse.issparse(X)
    assert np.array_equal(model_fn(X), model_fn(X.toarray()))


def test_lime_explains_the_linear_model_as_its_exact_beta(vectorizer):
    # the classifier is the model the exact theory explains: lime's mean over runs sits at beta^f up to
    # lime's O(1/n) ridge and first-row shift (expected_lime_fit), within 6 standard errors of the mean
    text = "good food and bad service, the food was good"
    lam = np.linspace(-1.0, 1.0, len(lt.local_dictionary(text)))
    classifier_fn = linear_tfidf_classifier(vectorizer, vocabulary_coefficients(text, vectorizer, lam))
    tfidf = lt.tfidf_weights(text, vectorizer)
    lam_visible = np.where(lt.tfidf_columns(text, vectorizer) >= 0, lam, 0.0)
    n, nu = 2000, 0.25
    runs = lt.lime_explanations(text, classifier_fn, n_exp=8, num_samples=n, random_state=0)
    y0 = float(classifier_fn([text])[0, 1])
    gamma = lt.gamma_linear_exact(lam_visible, tfidf, nu=nu)
    centre = lt.expected_lime_fit(lt.sigma_matrix(len(lam), nu=nu), gamma, y0, n)
    se = runs.std(axis=0, ddof=1) / np.sqrt(len(runs))
    assert (np.abs(runs.mean(axis=0) - centre) <= 6 * se).all()
    assert np.allclose(centre, lt.beta_linear_exact(lam_visible, tfidf, nu=nu), rtol=0, atol=10 / n)


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda v: vocabulary_coefficients("good food", v, [1.0]), ValueError, "one entry per lime word"),
        (lambda v: vocabulary_coefficients("good food", v, [1.0, np.nan]), ValueError, "lam must be finite"),
        (lambda v: vocabulary_coefficients("good food", object(), [1.0, 2.0]), TypeError, "vectorizer"),
        (lambda v: linear_tfidf_classifier(v, [1.0, 2.0]), ValueError, "one entry per vectorizer column"),
        (lambda v: linear_tfidf_classifier(None, [1.0]), TypeError, "vectorizer must be a fitted"),
        (lambda v: linear_tfidf_model([]), ValueError, "coef must have at least one entry"),
        (lambda v: linear_tfidf_model("abc"), TypeError, "coef must be an array"),
        (lambda v: linear_tfidf_model([1.0, 2.0])(np.ones((3, 4))), ValueError, "2 columns"),
        (lambda v: linear_tfidf_classifier(v, np.ones(len(v.vocabulary_)))("good"), TypeError, "list of str"),
    ],
)
def test_invalid_arguments_are_refused(vectorizer, call, error, match):
    with pytest.raises(error, match=match):
        call(vectorizer)
