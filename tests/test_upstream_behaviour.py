"""The upstream behaviours the book relies on, one test per behaviour, each named after it.

Every test here checks lime or scikit-learn against an independent computation written from the paper's
definitions (never against limetheory's closed forms), so that when an upstream release changes a behaviour the
failing test's name says which one (``make mutants`` checks that it does).  Tolerances are derived in each test;
where both sides run the same upstream code the comparison is exact.
"""

from __future__ import annotations

import math
import re
from collections import Counter

import numpy as np
import pytest
from lime.lime_text import IndexedString, LimeTextExplainer
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import Ridge

EPS = np.finfo(float).eps
TEXT = "alpha beta gamma delta epsilon zeta"
WORDS = TEXT.split()


def presence_model(documents):
    """A deterministic 'probability' from word presence (smooth in every word, so every coefficient matters)."""
    p = np.array([0.1 + 0.6 * sum((k + 1) * (w in doc.split()) for k, w in enumerate(WORDS)) / 21 for doc in documents])
    return np.column_stack([1.0 - p, p])


class RecordingClassifier:
    """A classifier_fn that keeps the documents lime asked about."""

    def __init__(self, model=presence_model):
        self.model = model
        self.documents = []

    def __call__(self, documents):
        self.documents.extend(str(doc) for doc in documents)
        return self.model(documents)


class RecordingRidge(Ridge):
    """lime's default surrogate, Ridge(alpha=1) with intercept, that keeps the data and weights lime fitted."""

    def fit(self, X, y, sample_weight=None):
        self.recorded = (np.array(X, dtype=float), np.array(y, dtype=float), np.array(sample_weight, dtype=float))
        return super().fit(X, y, sample_weight=sample_weight)


def masks_of(documents, words):
    """z[i, j] = 1 when word j still appears in document i (lime removes every occurrence of a removed word)."""
    return np.array([[w in set(re.findall(r"\w+", doc)) for w in words] for doc in documents], dtype=float)


def psi_paper(removed_fraction, nu):
    """The paper's weight of a sample with a fraction t of its distinct words removed.

    psi(t, nu) = exp(-(1 - sqrt(1 - t))^2 / (2 nu^2)), written here without limetheory.
    """
    t = np.asarray(removed_fraction, dtype=float)
    return np.exp(-((1.0 - np.sqrt(1.0 - t)) ** 2) / (2.0 * nu**2))


def kernel_tolerance(kernel_width):
    """Relative error of lime's weights: its cosine distance D (scaled by 100) carries an absolute error of a few
    eps; through exp(-D^2 / (2 w^2)) that is a relative error of at most D/w^2 * (abs error of D) <= 2 (100/w)^2
    eps-sized terms, plus the few ulps of the exponential itself."""
    return (8 * (100 / kernel_width) ** 2 + 8) * EPS


def run_lime(explainer, text=TEXT, num_samples=2000, regressor=None, classifier=None, **kwargs):
    classifier = classifier or RecordingClassifier()
    d = len(set(re.findall(r"\w+", text)))
    explanation = explainer.explain_instance(
        text, classifier, num_features=d, num_samples=num_samples, model_regressor=regressor, **kwargs
    )
    return explanation, classifier


# ----------------------------------------------------------------------------- lime: the sampling law


def test_lime_sampling_removes_a_uniform_number_of_distinct_words_from_1_to_d():
    """s = number of removed words is uniform on {1, ..., d}: each frequency within 5 standard errors of 1/d.

    With n - 1 samples, a frequency of p = 1/d has standard error sqrt(p (1 - p) / (n - 1)); 5 standard errors
    make a false alarm (normal approximation) below 6e-7 per value of s.  The seed is fixed, so the test is
    deterministic; the bound says it is not tuned to this seed.
    """
    d, n = len(WORDS), 6001
    _, classifier = run_lime(LimeTextExplainer(random_state=0, feature_selection="none"), num_samples=n)
    z = masks_of(classifier.documents[1:], WORDS)
    removed = d - z.sum(axis=1).astype(int)
    assert removed.min() >= 1  # a perturbed document always loses at least one word
    p = 1 / d
    standard_error = math.sqrt(p * (1 - p) / (n - 1))
    for s in range(1, d + 1):
        assert abs((removed == s).mean() - p) <= 5 * standard_error, s


def test_lime_sampling_removes_a_uniform_subset_given_its_size():
    """Given s, every word is removed with probability s/d: pooled over s, word j is kept with probability
    (d - 1) / (2 d) (exact: E[(d - s)/d] with s uniform on 1..d); 5 standard errors as above."""
    d, n = len(WORDS), 6001
    _, classifier = run_lime(LimeTextExplainer(random_state=1, feature_selection="none"), num_samples=n)
    z = masks_of(classifier.documents[1:], WORDS)
    p = (d - 1) / (2 * d)
    standard_error = math.sqrt(p * (1 - p) / (n - 1))
    np.testing.assert_array_less(np.abs(z.mean(axis=0) - p), 5 * standard_error)


# ----------------------------------------------------------------------------- lime: distance and kernel


def test_lime_distance_is_the_cosine_distance_to_the_original_times_100():
    """With an identity kernel lime's weights are its distances: 100 (1 - sqrt(k / d)) for k kept words of d.

    sklearn's cosine similarity of 0/1 rows is a dot product of at most d unit-normalised terms, whose absolute
    rounding error is at most (d + 4) eps (the terms' absolute values sum to at most 1); times 100.
    """
    explainer = LimeTextExplainer(
        kernel=lambda distances, kernel_width: distances, feature_selection="none", random_state=2
    )
    regressor = RecordingRidge(alpha=1.0)
    _, classifier = run_lime(explainer, regressor=regressor)
    z, _, distances = recorded(regressor, classifier)
    d = len(WORDS)
    expected = 100 * (1 - np.sqrt(z.sum(axis=1) / d))
    np.testing.assert_allclose(distances, expected, rtol=0, atol=100 * (d + 4) * EPS)
    assert distances.max() == pytest.approx(100.0, abs=100 * (d + 4) * EPS)  # every word removed: orthogonal


def recorded(regressor, classifier):
    """(z, y, weights) that lime fitted its surrogate on; z checked against the documents lime asked about."""
    z, y, weights = regressor.recorded
    np.testing.assert_array_equal(z, masks_of(classifier.documents, WORDS))
    return z, y, weights


@pytest.mark.parametrize("kernel_width", [10, 25, 100])
def test_lime_kernel_weights_are_psi_of_the_removed_fraction(kernel_width):
    """lime's default kernel sqrt(exp(-D^2 / w^2)) on D = 100 x cosine distance is the paper's psi(s/d, nu = w/100)."""
    explainer = LimeTextExplainer(kernel_width=kernel_width, feature_selection="none", random_state=3)
    regressor = RecordingRidge(alpha=1.0)
    _, classifier = run_lime(explainer, regressor=regressor)
    z, _, weights = recorded(regressor, classifier)
    d = len(WORDS)
    expected = psi_paper((d - z.sum(axis=1)) / d, kernel_width / 100)
    np.testing.assert_allclose(weights, expected, rtol=kernel_tolerance(kernel_width), atol=0)


# ----------------------------------------------------------------------------- lime: the surrogate


def test_lime_surrogate_is_a_weighted_ridge_with_penalty_1_and_an_unpenalised_intercept():
    """lime's coefficients solve (X^T W X + diag(0, 1, ..., 1)) beta = X^T W y, X = [1, z], W = psi weights.

    Both sides solve the same system after forming sums of n terms, each with relative error at most n eps
    (naive summation), and lime's weights differ from the paper's psi by kernel_tolerance(25); the solutions
    then differ by at most cond(A) times those perturbations.
    """
    n = 2000
    explanation, classifier = run_lime(LimeTextExplainer(feature_selection="none", random_state=4), num_samples=n)
    d = len(WORDS)
    z = masks_of(classifier.documents, WORDS)
    y = presence_model(classifier.documents)[:, 1]
    weights = psi_paper((d - z.sum(axis=1)) / d, 0.25)
    design = np.hstack([np.ones((n, 1)), z])
    gram = design.T @ (weights[:, None] * design) + np.diag([0.0] + [1.0] * d)
    expected = np.linalg.solve(gram, design.T @ (weights * y))
    coef = dict(explanation.as_map()[1])
    ours = np.array([explanation.intercept[1]] + [coef[j] for j in range(d)])
    tolerance = np.linalg.cond(gram) * (n + kernel_tolerance(25) / EPS) * EPS * np.abs(expected).max()
    np.testing.assert_allclose(ours, expected, rtol=0, atol=tolerance)
    assert tolerance < 1e-6 * np.abs(expected[1:]).min()  # far below what a change of penalty would move


# ----------------------------------------------------------------------------- lime: the first row


def test_lime_first_row_is_the_original_document_all_ones_with_weight_one():
    explainer = LimeTextExplainer(feature_selection="none", random_state=5)
    regressor = RecordingRidge(alpha=1.0)
    explanation, classifier = run_lime(explainer, num_samples=300, regressor=regressor)
    z, y, weights = recorded(regressor, classifier)
    assert classifier.documents[0] == TEXT
    np.testing.assert_array_equal(z[0], np.ones(len(WORDS)))
    assert (z[1:].sum(axis=1) < len(WORDS)).all()  # only the first row is the original
    # distance 0 up to the cosine's rounding (d + 4) eps, times 100, so the weight is 1 within that, squared
    assert weights[0] == pytest.approx(1.0, abs=EPS)
    np.testing.assert_array_equal(explanation.predict_proba, presence_model([TEXT])[0])
    assert y[0] == presence_model([TEXT])[0, 1]


# ----------------------------------------------------------------------------- lime: tokenisation


def test_lime_tokenises_on_runs_of_non_word_characters_by_default():
    """Default split_expression r'\\W+': the local dictionary is the distinct maximal runs of \\w, case-sensitive."""
    text = "I'd say: Good food, good FOOD -- and a 10/10 café_crème!"
    expected = list(dict.fromkeys(re.findall(r"\w+", text)))
    assert [str(w) for w in IndexedString(text).inverse_vocab] == expected
    explanation, _ = run_lime(LimeTextExplainer(feature_selection="none", random_state=6), text=text, num_samples=50)
    assert [str(w) for w in explanation.domain_mapper.indexed_string.inverse_vocab] == expected


def test_lime_is_a_bag_of_words_by_default_removing_every_occurrence():
    """Default bow=True: a word is one feature however often it occurs, and removing it removes every occurrence."""
    text = "good food, good service, bad food"
    explanation, classifier = run_lime(
        LimeTextExplainer(random_state=7, feature_selection="none"), text=text, num_samples=300
    )
    assert explanation.domain_mapper.indexed_string.num_words() == 4
    for document in classifier.documents:
        tokens = Counter(re.findall(r"\w+", document))
        assert tokens["good"] in (0, 2) and tokens["food"] in (0, 2), document
        assert "UNKWORDZ" not in document


# ----------------------------------------------------------------------------- scikit-learn: TfidfVectorizer defaults

CORPUS = [
    "Good food, GOOD prices: I'd go back.",
    "The food was cold and the service slow; a shame.",
    "food food food and more food",
    "x y z: one-letter words are not words to sklearn",
    "Service with a smile, good coffee, good cake",
]


def tokens(document):
    """sklearn's documented default analyzer: lower-case, then runs of two or more word characters."""
    return re.findall(r"\b\w\w+\b", document.lower())


def tfidf_definition_1(corpus):
    """The paper's Definition 1 as scikit-learn's defaults compute it: raw counts times the smoothed idf
    log((1 + N) / (1 + df)) + 1, each row scaled to unit Euclidean norm; columns in sorted-vocabulary order."""
    counts = [Counter(tokens(doc)) for doc in corpus]
    vocabulary = sorted(set().union(*counts))
    n = len(corpus)
    df = {w: sum(w in c for c in counts) for w in vocabulary}
    idf = {w: math.log((1 + n) / (1 + df[w])) + 1 for w in vocabulary}
    rows = []
    for c in counts:
        row = [c[w] * idf[w] for w in vocabulary]
        norm = math.sqrt(sum(v * v for v in row))
        rows.append([v / norm for v in row])
    return vocabulary, np.array([idf[w] for w in vocabulary]), np.array(rows)


def idf_tolerance(n):
    """Absolute error of log(.) + 1 at a value <= log(1 + n) + 1: a few ulps of that value."""
    return 4 * EPS * (math.log(1 + n) + 1)


def test_sklearn_tfidf_default_smooths_the_idf():
    vectorizer = TfidfVectorizer().fit(CORPUS)
    vocabulary, idf, _ = tfidf_definition_1(CORPUS)
    assert sorted(vectorizer.vocabulary_) == vocabulary
    np.testing.assert_allclose(vectorizer.idf_, idf, rtol=0, atol=idf_tolerance(len(CORPUS)))
    unsmoothed = np.array([math.log(len(CORPUS) / sum(w in tokens(d) for d in CORPUS)) + 1 for w in vocabulary])
    assert np.abs(vectorizer.idf_ - unsmoothed).max() > 0.1  # the check can tell the two apart


def test_sklearn_tfidf_default_normalises_each_row_to_unit_euclidean_norm():
    matrix = TfidfVectorizer().fit_transform(CORPUS).toarray()
    # a sum of at most k squares of entries <= 1 and a square root: within (k + 2) eps of 1
    k = matrix.shape[1]
    np.testing.assert_allclose(np.sqrt((matrix**2).sum(axis=1)), 1.0, rtol=0, atol=(k + 2) * EPS)
    assert not np.allclose(matrix.sum(axis=1), 1.0)  # not the l1 norm


def test_sklearn_tfidf_default_token_pattern_drops_one_letter_words():
    vocabulary = TfidfVectorizer().fit(CORPUS).vocabulary_
    assert set(vocabulary) == set().union(*(tokens(d) for d in CORPUS))
    assert not {"a", "i", "x", "y", "z", "d"} & set(vocabulary)
    assert "go" in vocabulary  # two letters are a word


def test_sklearn_tfidf_default_lowercases_before_tokenising():
    vectorizer = TfidfVectorizer().fit(CORPUS)
    assert all(word == word.lower() for word in vectorizer.vocabulary_)
    np.testing.assert_array_equal(
        vectorizer.transform(["GOOD Food"]).toarray(), vectorizer.transform(["good food"]).toarray()
    )


def test_sklearn_tfidf_default_term_frequency_is_the_raw_count():
    """In 'food food food and more food' food's entry over 'more''s is 4 idf(food) / idf(more), not sublinear."""
    vectorizer = TfidfVectorizer().fit(CORPUS)
    row = vectorizer.transform([CORPUS[2]]).toarray()[0]
    food, more = vectorizer.vocabulary_["food"], vectorizer.vocabulary_["more"]
    expected = 4 * vectorizer.idf_[food] / vectorizer.idf_[more]
    assert row[food] / row[more] == pytest.approx(expected, rel=8 * EPS)  # a few roundings of a ratio


def test_sklearn_tfidf_defaults_are_the_papers_definition_1():
    """The whole matrix, within a relative k eps of Definition 1 (sums of at most k squares in the norm)."""
    matrix = TfidfVectorizer().fit_transform(CORPUS).toarray()
    vocabulary, _, expected = tfidf_definition_1(CORPUS)
    k = len(vocabulary)
    np.testing.assert_allclose(matrix, expected, rtol=0, atol=(k + 8) * EPS)
