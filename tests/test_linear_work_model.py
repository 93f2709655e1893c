"""The default budget's work model for linear classifiers and n-gram rows (estimate.work_model, estimate_route)."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression, RidgeClassifier, SGDClassifier
from sklearn.naive_bayes import MultinomialNB
from sklearn.pipeline import make_pipeline
from sklearn.svm import LinearSVC

from limetheory.pipelines.estimate import estimate_route as route
from limetheory.pipelines.estimate import work_model
from limetheory.pipelines.reading.count_rows import document_rows

CORPUS = ["good food and good wine", "bad food, slow service", "good service", "bad wine and bad food"]
LABELS = [1, 0, 1, 0]
TEXT = "good food and good wine but the slow service was bad, bad, bad " * 6


@pytest.mark.parametrize("kind", [LogisticRegression, SGDClassifier, LinearSVC, RidgeClassifier])
def test_linear_classifiers_are_known_per_output(kind):
    two = kind().fit(np.eye(4), LABELS)
    three = kind().fit(np.eye(4), [0, 1, 2, 0])
    assert work_model.linear_outputs(two) == 1 and work_model.linear_outputs(three) == 3
    row, column, call = work_model.classifier_costs(three)
    assert (row, column, call) == (3 * work_model.LINEAR_US_PER_ROW, 3 * work_model.LINEAR_US_PER_COLUMN,
                                   work_model.LINEAR_US_PER_CALL)  # fmt: skip


def test_other_classifiers_and_unfitted_ones_are_unknown():
    assert work_model.linear_outputs(MultinomialNB().fit(np.eye(4), LABELS)) is None
    assert work_model.linear_outputs(LogisticRegression()) is None  # not fitted: no coef_
    assert work_model.classifier_costs(MultinomialNB().fit(np.eye(4), LABELS)) is None

    class Mine(LogisticRegression):  # a subclass may predict otherwise
        pass

    assert work_model.linear_outputs(Mine().fit(np.eye(4), LABELS)) is None


def test_row_costs_follow_the_reading():
    unigram, _ = document_rows(TEXT, TfidfVectorizer().fit(CORPUS))
    bigram, _ = document_rows(TEXT, TfidfVectorizer(ngram_range=(1, 3)).fit(CORPUS))
    chars, _ = document_rows(TEXT, TfidfVectorizer(analyzer="char_wb", ngram_range=(2, 4)).fit(CORPUS))
    assert work_model.row_costs(unigram) == 0.0 and work_model.lime_row_costs(unigram, 1e6) == 0.0
    tokens = len(bigram.sequence_tokens)
    assert work_model.row_costs(bigram) == pytest.approx(work_model.NGRAM_US_PER_TOKEN * tokens * 3, rel=1e-15)
    assert work_model.row_costs(chars) == pytest.approx(work_model.CHAR_US_PER_GRAM * chars.grams, rel=1e-15)
    per_word = chars.grams / len(chars.reading.word_of_token)
    assert work_model.lime_row_costs(chars, 1e6) == pytest.approx(work_model.LIME_US_PER_CHAR_GRAM * 1e6 * per_word)


def test_the_rows_budget_of_a_linear_pipeline():
    """More masks than lime's calls on a long document, fewer as the row costs more, lime's calls for unknown models."""
    d, words = 7, route.lime_words(TEXT, 5000)[1]
    pipe = make_pipeline(TfidfVectorizer(ngram_range=(1, 2)), LogisticRegression()).fit(CORPUS, LABELS)
    plain = route.rows_budget(pipe, 5000, d, words, 20)
    assert plain > 5000
    assert route.rows_budget(pipe, 5000, d, words, 20, row_us=50.0) < plain
    assert route.rows_budget(pipe, 5000, d, words, 20, lime_row_us=1e6) > plain
    naive = make_pipeline(TfidfVectorizer(ngram_range=(1, 2)), MultinomialNB()).fit(CORPUS, LABELS)
    assert route.rows_budget(naive, 5000, d, words, 20) == 5000
