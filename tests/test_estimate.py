"""The estimate route (limetheory.pipelines.estimate): honest standard errors, count rows bit for bit, VADER, bounds."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.feature_extraction.text import CountVectorizer, HashingVectorizer, TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline

import limetheory as lt
from limetheory.pipelines.controls import FIT_RIDGE
from limetheory.pipelines.count_rows import count_score_masks, document_rows, rows_match
from limetheory.pipelines.estimate import estimate_limit
from limetheory.pipelines.estimate_batches import RETAINED_MASKS

DOCS = ["good food", "bad food", "good service", "slow service", "great staff", "rude staff", "tasty meal", "cold meal"]
LABELS = [1, 0, 1, 0, 1, 0, 1, 0]
#: 16 distinct words: beyond enumeration, within the per-word controls
TEXT = "The food was good and tasty but the service slow, the staff rude and the meal cold, sadly"


def _linear():
    return make_pipeline(TfidfVectorizer(), LogisticRegression()).fit(DOCS, LABELS)


def test_z_scores_of_a_black_box_wrapping_a_linear_pipeline_are_standard():
    """A classifier_fn on strings that secretly wraps a linear decision function has an exact β (linear route).

    30 seeds x 17 coefficients: the mean square of the z-scores is 1 in expectation; with 17 correlated values per
    seed its standard deviation is at most sqrt(2 * 17 / 510) = 0.26, so [0.5, 1.6] is about 2 of those on either
    side; 95% of |z| below 1.96, with the binomial spread widened by the correlation: [0.88, 0.995].
    """
    model = _linear()
    exact = lt.explain(model, TEXT, output="decision_function")
    assert exact.method == "linear"
    d = len(exact.words)

    def black_box(z):
        return model.decision_function(lt.perturbed_documents(TEXT, z.astype(np.int8)))

    z = []
    for seed in range(30):
        estimate = estimate_limit(black_box, d, nu=0.25, max_calls=2000, tol=1e-9, random_state=seed, progress=False)
        assert not estimate.reached and estimate.calls <= 2000
        z.append((estimate.beta - exact.beta) / estimate.stderr)
    z = np.concatenate(z)
    assert 0.5 <= np.mean(z**2) <= 1.6, np.mean(z**2)
    assert 0.88 <= np.mean(np.abs(z) < 1.96) <= 0.995


@pytest.mark.parametrize(
    "vectorizer",
    [
        CountVectorizer(),
        TfidfVectorizer(),
        TfidfVectorizer(sublinear_tf=True, norm="l1"),
        CountVectorizer(binary=True),
        HashingVectorizer(n_features=2**8),
        HashingVectorizer(n_features=2**4, binary=True),
        HashingVectorizer(n_features=2**10, alternate_sign=False, norm=None),
    ],
)
def test_count_rows_equal_the_rows_of_the_strings_bit_for_bit(vectorizer, yelp):
    texts = yelp[0]
    vectorizer.fit(texts)
    rng = np.random.default_rng(0)
    for text in texts[:25]:
        document, why = document_rows(text, vectorizer)
        assert document is not None, why
        masks = rng.integers(0, 2, size=(40, document.d)).astype(bool)
        masks[0] = True
        assert rows_match(document, masks)


def test_count_scores_are_the_pipelines_outputs_on_the_strings():
    model = make_pipeline(HashingVectorizer(n_features=64), LogisticRegression()).fit(DOCS, LABELS)
    score, why = count_score_masks(model, TEXT, "predict_proba")
    assert why is None
    masks = np.random.default_rng(1).integers(0, 2, size=(30, len(lt.local_dictionary(TEXT)))).astype(bool)
    np.testing.assert_array_equal(score(masks), model.predict_proba(lt.perturbed_documents(TEXT, masks)))


def test_vader_compound_score_against_enumeration():
    """VADER (a rule-based scorer, not scikit-learn): the estimate agrees with the exact β of enumeration."""
    from vaderSentiment.vaderSentiment import SentimentIntensityAnalyzer

    analyzer = SentimentIntensityAnalyzer()
    text = "The food was great but the service was not good at all"
    d = len(lt.local_dictionary(text))
    assert d <= 14

    def compound(z):
        documents = lt.perturbed_documents(text, np.asarray(z, dtype=np.int8))
        return np.array([analyzer.polarity_scores(doc)["compound"] for doc in documents])

    exact = lt.beta_enumerate(compound, d, nu=0.25)
    estimate = estimate_limit(compound, d, nu=0.25, max_calls=6000, random_state=0, progress=False)
    # one estimate, 13 coefficients: all within 4 standard errors (each |z| > 4 has probability 6e-5)
    assert (np.abs(estimate.beta - exact) <= 4 * estimate.stderr).all()
    assert estimate.stderr.max() < 0.5 * estimate.lime_std.max()


def test_reaching_the_target_and_saying_what_was_reached():
    weights = np.linspace(-1, 1, 9)

    def score(z):
        return 1 / (1 + np.exp(-(z @ weights)))

    reached = estimate_limit(score, 9, nu=0.25, random_state=0, progress=False)
    assert reached.reached and (reached.stderr <= reached.tol * reached.lime_std).all()
    assert "at most 0.1 x lime's standard deviation" in reached.note
    short = estimate_limit(score, 9, nu=0.25, tol=1e-6, max_calls=500, random_state=0, progress=False)
    assert not short.reached and "max_calls = 500 spent" in short.note and short.calls <= 500


def test_memory_is_bounded_by_the_batch():
    """The retained sample stays at RETAINED_MASKS however many calls are made."""
    weights = np.arange(20) % 3 - 1.0

    def score(z):
        return np.sin(z @ weights)

    estimate = estimate_limit(score, 20, nu=0.25, tol=1e-6, max_calls=25_000, random_state=0, progress=False)
    assert estimate.calls > RETAINED_MASKS and len(estimate.sample.f) <= RETAINED_MASKS


def test_progress_false_is_silent(capsys):
    estimate_limit(lambda z: z.sum(axis=1) * 1.0, 6, nu=0.25, random_state=0, progress=False)
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == ""


def test_two_output_columns_share_the_masks():
    weights = np.linspace(-1, 1, 7)

    def score(z):
        p = 1 / (1 + np.exp(-(z @ weights)))
        return np.column_stack([1 - p, p])

    estimate = estimate_limit(score, 7, nu=0.25, random_state=0, progress=False)
    exact = lt.beta_enumerate(lambda z: score(z)[:, 1], 7, nu=0.25)
    assert estimate.beta.shape == (2, 8)
    assert (np.abs(estimate.beta[1] - exact) <= 4 * estimate.stderr[1]).all()
    # the two columns' control fits solve the same normal equations for responses adding up to 1; their relative
    # ridge FIT_RIDGE bounds the condition number by 1 / FIT_RIDGE, so the coefficients, and the estimates through
    # them (times a Monte Carlo difference below 1), add up to eps / FIT_RIDGE
    np.testing.assert_allclose(
        estimate.beta[0] + estimate.beta[1], np.r_[1.0, np.zeros(7)], atol=np.finfo(float).eps / FIT_RIDGE
    )


def test_bad_arguments_are_refused():
    def score(z):
        return z.sum(axis=1) * 1.0

    with pytest.raises(TypeError, match="score_masks must be callable"):
        estimate_limit(None, 5, nu=0.25)
    with pytest.raises(ValueError, match="tol must be a positive number"):
        estimate_limit(score, 5, nu=0.25, tol=0)
    with pytest.raises(ValueError, match="max_calls must be >= "):
        estimate_limit(score, 5, nu=0.25, max_calls=10)
    with pytest.raises(ValueError, match="surrogate must be"):
        estimate_limit(score, 5, nu=0.25, surrogate="yes")
    with pytest.raises(ValueError, match="condition number"):
        estimate_limit(score, 5, nu=0.01)
    with pytest.raises(ValueError, match="score_masks must return an array of shape"):
        estimate_limit(lambda z: np.zeros(3), 5, nu=0.25, progress=False)
    with pytest.raises(ValueError, match="non-finite"):
        estimate_limit(lambda z: np.full(len(z), np.nan), 5, nu=0.25, progress=False)
