"""limetheory.book.models: the TF-IDF vectorizer, the random forest and word indicators on tiny corpora."""

from __future__ import annotations

import math
import re
from collections import Counter

import numpy as np
import pytest
from sklearn.feature_extraction.text import TfidfVectorizer

import limetheory as lt
import limetheory.book as book
from limetheory.book.models import (
    EXAMPLE_REVIEW_INDEX,
    fit_yelp_vectorizer,
    train_random_forest,
    word_indicator,
    word_indicator_rows,
)

CORPUS = [
    "The food was good and the service was good",
    "Bad food, bad service.",
    "I love this place: FOOD food Food!",
    "Service was slow",
    "a b c",  # one-character tokens are ignored by the vectorizer
]

TRAIN_TEXTS = [
    "great food and friendly staff",
    "the food was great",
    "friendly service and great prices",
    "love the food",
    "terrible service and bad food",
    "bad experience, rude staff",
    "the worst food ever, bad",
    "slow and rude service",
]
TRAIN_LABELS = [1, 1, 1, 1, 0, 0, 0, 0]


def tokens(text):
    """scikit-learn's default analyzer, rewritten: lower-case, words of two or more word characters."""
    return re.findall(r"\b\w\w+\b", text.lower())


# ----------------------------------------------------------------------------- fit_yelp_vectorizer


def test_vectorizer_idf_matches_the_smooth_idf_formula():
    vectorizer = fit_yelp_vectorizer(CORPUS)
    n = len(CORPUS)
    document_frequency = Counter(word for text in CORPUS for word in set(tokens(text)))
    assert set(vectorizer.vocabulary_) == set(document_frequency)
    for word, df in document_frequency.items():
        expected = math.log((n + 1) / (df + 1)) + 1
        assert vectorizer.idf_[vectorizer.vocabulary_[word]] == pytest.approx(expected, rel=1e-14)


def test_vectorizer_transform_is_the_normalised_tfidf_of_definition_1():
    vectorizer = fit_yelp_vectorizer(CORPUS)
    n = len(CORPUS)
    document_frequency = Counter(word for text in CORPUS for word in set(tokens(text)))
    document = "Good food, good FOOD, slow service and unknownword"
    counts = Counter(w for w in tokens(document) if w in document_frequency)
    raw = {w: m * (math.log((n + 1) / (document_frequency[w] + 1)) + 1) for w, m in counts.items()}
    norm = math.sqrt(sum(v * v for v in raw.values()))
    row = vectorizer.transform([document]).toarray()[0]
    expected = np.zeros_like(row)
    for w, v in raw.items():
        expected[vectorizer.vocabulary_[w]] = v / norm
    # atol=0: the columns of words absent from the document are exactly 0.0 on both sides
    np.testing.assert_allclose(row, expected, rtol=1e-13, atol=0)
    assert np.linalg.norm(row) == pytest.approx(1.0)


def test_vectorizer_accepts_a_single_string_and_tuples():
    assert set(fit_yelp_vectorizer("food is good").vocabulary_) == {"food", "is", "good"}
    assert isinstance(fit_yelp_vectorizer(tuple(CORPUS)), TfidfVectorizer)


@pytest.mark.parametrize("texts", [[], ()])
def test_vectorizer_rejects_empty_corpora(texts):
    with pytest.raises(ValueError, match="^texts must be a non-empty sequence of str"):
        fit_yelp_vectorizer(texts)


@pytest.mark.parametrize("texts", [["ok", 3], [None], [b"bytes"], b"bytes", 3, None])
def test_vectorizer_rejects_non_str(texts):
    with pytest.raises(TypeError, match="^texts must "):
        fit_yelp_vectorizer(texts)


@pytest.mark.parametrize("texts", [["!!!"], ["a", "i"], [" ", "?"]])
def test_vectorizer_rejects_texts_without_indexable_words(texts):
    with pytest.raises(ValueError, match="^texts contain no word the vectorizer can index"):
        fit_yelp_vectorizer(texts)


# ----------------------------------------------------------------------------- word_indicator


@pytest.fixture(scope="module")
def vectorizer():
    return fit_yelp_vectorizer(CORPUS)


def test_word_indicator_rows_reads_the_rows_as_word_indicator_reads_the_strings(vectorizer):
    documents = ["food", "Food!", "the FOOD was fine", "no such thing", "foodie heaven", "", "seafood", "food-truck"]
    on_rows = word_indicator_rows(vectorizer, "food")(vectorizer.transform(documents))
    np.testing.assert_array_equal(on_rows[:, 1], [1, 1, 1, 0, 0, 0, 0, 1])  # the tokenisation, as above
    np.testing.assert_array_equal(on_rows, word_indicator(vectorizer, "food")(documents))
    with pytest.raises(ValueError, match="^word must be in"):
        word_indicator_rows(vectorizer, "pizza")
    with pytest.raises(TypeError, match="^word must be a str"):
        word_indicator_rows(vectorizer, 3)


def test_word_indicator_on_documents_with_and_without_the_word(vectorizer):
    fn = word_indicator(vectorizer, "food")
    documents = ["food", "Food!", "the FOOD was fine", "no such thing", "foodie heaven", "", "seafood", "food-truck"]
    expected = np.array([1, 1, 1, 0, 0, 0, 0, 1], dtype=float)
    out = fn(documents)
    assert out.shape == (len(documents), 2)
    np.testing.assert_array_equal(out[:, 1], expected)
    np.testing.assert_array_equal(out[:, 0], 1 - expected)


def test_word_indicator_accepts_any_iterable(vectorizer):
    fn = word_indicator(vectorizer, "service")
    np.testing.assert_array_equal(fn(iter(["Service", "food"])), [[0.0, 1.0], [1.0, 0.0]])
    np.testing.assert_array_equal(fn(("slow",)), [[1.0, 0.0]])


def test_word_indicator_sees_case_variants_as_one_word(vectorizer):
    # lime's dictionary is case-sensitive ("Food" and "food" are two words), the vectorizer is not
    text = "Food was great, food!"
    run = lt.capture_lime_samples(text, word_indicator(vectorizer, "food"), num_samples=60, random_state=1)
    assert run.words == ["Food", "was", "great", "food"]
    np.testing.assert_array_equal(run.y, np.maximum(run.z[:, 0], run.z[:, 3]))


def test_word_indicator_unfitted_vectorizer():
    with pytest.raises(ValueError, match=r"^vectorizer must be fitted \(call .fit first\)"):
        word_indicator(TfidfVectorizer(), "food")
    with pytest.raises(TypeError, match="^vectorizer must be a fitted scikit-learn CountVectorizer or TfidfVectorizer"):
        word_indicator(object(), "food")


@pytest.mark.parametrize("word", ["pizza", "Food", "a", ""])
def test_word_indicator_unknown_word(vectorizer, word):
    with pytest.raises(ValueError, match="^word must be in the vectorizer's vocabulary"):
        word_indicator(vectorizer, word)


def test_word_indicator_suggests_the_lower_case_word(vectorizer):
    with pytest.raises(ValueError, match="try 'food'"):
        word_indicator(vectorizer, "Food")


@pytest.mark.parametrize("word", [3, None, b"food"])
def test_word_indicator_word_type(vectorizer, word):
    with pytest.raises(TypeError, match="^word must be a str"):
        word_indicator(vectorizer, word)


# ----------------------------------------------------------------------------- train_random_forest


@pytest.fixture(scope="module")
def forest():
    return train_random_forest(TRAIN_TEXTS, TRAIN_LABELS, n_estimators=15, random_state=0)


def test_random_forest_probabilities(forest):
    documents = ["great food", "rude service", "nothing known here", "food food food"]
    proba = forest.predict_proba(documents)
    assert proba.shape == (len(documents), 2)
    assert ((proba >= 0) & (proba <= 1)).all()
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    np.testing.assert_array_equal(forest.classes_, [0, 1])
    np.testing.assert_array_equal(forest.predict(TRAIN_TEXTS), TRAIN_LABELS)  # a forest fits its training set


def test_random_forest_is_deterministic(forest):
    again = train_random_forest(TRAIN_TEXTS, TRAIN_LABELS, n_estimators=15, random_state=0)
    documents = TRAIN_TEXTS + ["great staff but slow", "bad prices"]
    np.testing.assert_array_equal(again.predict_proba(documents), forest.predict_proba(documents))
    assert forest.steps[-1][1].n_jobs == 1
    assert len(forest.steps[-1][1].estimators_) == 15


def test_random_forest_is_a_lime_classifier(forest):
    run = lt.capture_lime_samples("great food, rude staff", forest.predict_proba, num_samples=30, random_state=0)
    assert run.y.shape == (30,)


@pytest.mark.parametrize(
    ("texts", "labels", "kwargs", "error", "pattern"),
    [
        (TRAIN_TEXTS, TRAIN_LABELS[:-1], {}, ValueError, r"^labels must have one entry per text \(8\)"),
        (TRAIN_TEXTS, [TRAIN_LABELS], {}, ValueError, "^labels must have one entry per text"),
        ([], [], {}, ValueError, "^texts must be a non-empty sequence of str"),
        ([1, 2], [0, 1], {}, TypeError, "^texts must contain only str"),
        (TRAIN_TEXTS, [1] * 8, {}, ValueError, "^labels must contain at least two classes"),
        (TRAIN_TEXTS, [0.0] * 7 + [np.nan], {}, ValueError, "^labels must be class labels without missing"),
        (TRAIN_TEXTS, [0] * 7 + [None], {}, ValueError, "^labels must be class labels without missing"),
        (TRAIN_TEXTS, TRAIN_LABELS, {"random_state": 2**32}, ValueError, "^random_state must be <="),
        (TRAIN_TEXTS, TRAIN_LABELS, {"n_estimators": 0}, ValueError, "^n_estimators must be >= 1"),
        (TRAIN_TEXTS, TRAIN_LABELS, {"n_estimators": 2.5}, TypeError, "^n_estimators must be an integer"),
        (TRAIN_TEXTS, TRAIN_LABELS, {"random_state": -1}, ValueError, "^random_state must be >= 0"),
        (TRAIN_TEXTS, TRAIN_LABELS, {"random_state": None}, TypeError, "^random_state must be an integer"),
    ],
)
def test_random_forest_errors(texts, labels, kwargs, error, pattern):
    with pytest.raises(error, match=pattern):
        train_random_forest(texts, labels, **kwargs)


def test_book_names_are_reexported_by_the_book_not_the_package():
    assert book.fit_yelp_vectorizer is fit_yelp_vectorizer
    assert book.train_random_forest is train_random_forest
    assert book.word_indicator is word_indicator
    assert book.EXAMPLE_REVIEW_INDEX == EXAMPLE_REVIEW_INDEX == 134
    assert not {"fit_yelp_vectorizer", "train_random_forest", "word_indicator"} & set(lt.__all__)
