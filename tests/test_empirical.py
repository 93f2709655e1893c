"""limetheory.engine.empirical: what real lime generates, checked against lime itself and independent computations."""

from __future__ import annotations

import re

import numpy as np
import pytest
from lime.lime_text import IndexedString, LimeTextExplainer

import limetheory as lt
from limetheory.engine.empirical import LimeSamples, capture_lime_samples, lime_explanations, local_dictionary

TEXT = "The food was good but the service was slow, and the food was cold!"
WORDS = ["The", "food", "was", "good", "but", "the", "service", "slow", "and", "cold"]
N = 300


def presence(word, document):
    return re.search(rf"\b{word}\b", document) is not None


def classifier_fn(documents):
    """A deterministic 'probability of positive' built from word presence: 0.2 + 0.5 [food] + 0.3 [good][cold]."""
    p = np.array(
        [
            0.2 + 0.5 * presence("food", doc) + 0.3 * (presence("good", doc) and presence("cold", doc))
            for doc in documents
        ]
    )
    return np.column_stack([1.0 - p, p])


def regex_dictionary(text):
    """Distinct maximal runs of word characters, in order of first appearance (lime splits on \\W+)."""
    return list(dict.fromkeys(re.findall(r"\w+", text)))


def weighted_ridge(z, y, w, lam=1.0):
    """argmin sum_i w_i (y_i - b_0 - z_i b)^2 + lam |b|^2 (intercept not penalised), by the normal equations."""
    design = np.hstack([np.ones((len(z), 1)), z.astype(float)])
    penalty = lam * np.eye(design.shape[1])
    penalty[0, 0] = 0.0
    return np.linalg.solve(design.T @ (w[:, None] * design) + penalty, design.T @ (w * y))


@pytest.fixture(scope="module")
def samples():
    return capture_lime_samples(TEXT, classifier_fn, num_samples=N, kernel_width=25, label=1, random_state=3)


# ----------------------------------------------------------------------------- local_dictionary


@pytest.mark.parametrize(
    "text",
    [
        TEXT,
        "Food is great. food is GREAT; FOOD!",
        "  leading and trailing spaces   ",
        "It isn't snake_case: 42 apples, 4.2 pears",
        "Café crème, naïve façade; café",
        "one",
        "a\nb\tc  a",
    ],
)
def test_local_dictionary_matches_lime_and_a_regex_split(text):
    words = local_dictionary(text)
    assert words == [str(w) for w in IndexedString(text).inverse_vocab]
    assert words == regex_dictionary(text)
    assert all(type(w) is str for w in words)  # not numpy.str_


def test_local_dictionary_is_case_sensitive_and_ordered():
    assert local_dictionary(TEXT) == WORDS
    assert local_dictionary("Food food FOOD food") == ["Food", "food", "FOOD"]


@pytest.mark.parametrize("text", ["!!!", "  ?! ... --  ", "\u00a0,;"])
def test_local_dictionary_rejects_documents_without_words(text):
    with pytest.raises(ValueError, match="^text must contain at least one word"):
        local_dictionary(text)


@pytest.mark.parametrize("text", ["", "   ", "\n\t "])
def test_local_dictionary_rejects_empty_documents(text):
    with pytest.raises(ValueError, match="^text must be a non-empty document"):
        local_dictionary(text)


@pytest.mark.parametrize("text", [None, 3, b"food", ["food"]])
def test_local_dictionary_rejects_non_strings(text):
    with pytest.raises(TypeError, match="^text must be a str"):
        local_dictionary(text)


# ----------------------------------------------------------------------------- capture_lime_samples


def test_capture_shapes_and_first_row(samples):
    d = len(WORDS)
    assert isinstance(samples, LimeSamples)
    assert samples.words == WORDS
    assert samples.z.shape == (N, d)
    assert samples.y.shape == (N,) and samples.weights.shape == (N,)
    assert samples.coef.shape == (d,)
    assert isinstance(samples.intercept, float)
    np.testing.assert_array_equal(samples.z[0], np.ones(d))
    assert set(np.unique(samples.z)) <= {0, 1}
    assert (samples.z[1:].sum(axis=1) < d).all()  # every perturbed sample removes at least one word
    assert len(samples.documents) == N
    assert samples.documents[0] == TEXT
    np.testing.assert_allclose(samples.beta, np.concatenate([[samples.intercept], samples.coef]), rtol=0)


def test_capture_masks_agree_with_the_perturbed_documents(samples):
    # word j is kept in sample i exactly when it still appears in lime's i-th document (case-sensitive)
    for row, document in zip(samples.z, samples.documents, strict=True):
        kept = {w for w, bit in zip(WORDS, row, strict=True) if bit}
        assert set(re.findall(r"\w+", document)) == kept


def test_capture_responses_are_the_classifier_outputs(samples, brute):
    z = samples.z.astype(float)
    food, good, cold = (WORDS.index(w) for w in ("food", "good", "cold"))
    # two additions of terms below 1, each rounded to half an ulp of a result below 1 (eps / 2): at most eps apart
    expected = 0.2 + 0.5 * z[:, food] + 0.3 * z[:, good] * z[:, cold]
    np.testing.assert_allclose(samples.y, expected, rtol=0, atol=2 * np.finfo(float).eps)
    # the same classifier on the same documents: equal bit for bit
    np.testing.assert_allclose(samples.y, classifier_fn(samples.documents)[:, 1], rtol=0, atol=0)


def test_capture_weights_are_psi_of_the_removed_fraction(samples, brute):
    d = len(WORDS)
    s = d - samples.z.sum(axis=1)
    np.testing.assert_allclose(samples.weights, lt.psi(s / d, nu=25 / 100), rtol=0, atol=1e-12)
    np.testing.assert_allclose(samples.weights, [brute.psi(v / d, 0.25) for v in s], rtol=0, atol=1e-12)


def test_capture_coefficients_are_a_weighted_ridge_on_the_captured_samples(samples):
    expected = weighted_ridge(samples.z, samples.y, samples.weights)
    np.testing.assert_allclose(samples.beta, expected, rtol=0, atol=1e-8)


@pytest.mark.parametrize("kernel_width", [5, 100.0])
def test_capture_other_kernel_widths(kernel_width):
    run = capture_lime_samples(TEXT, classifier_fn, num_samples=120, kernel_width=kernel_width, random_state=0)
    d = len(WORDS)
    s = d - run.z.sum(axis=1)
    np.testing.assert_allclose(run.weights, lt.psi(s / d, nu=kernel_width / 100), rtol=0, atol=1e-12)
    np.testing.assert_allclose(run.beta, weighted_ridge(run.z, run.y, run.weights), rtol=0, atol=1e-8)


def test_capture_is_deterministic_given_the_seed(samples):
    again = capture_lime_samples(TEXT, classifier_fn, num_samples=N, kernel_width=25, label=1, random_state=3)
    other = capture_lime_samples(TEXT, classifier_fn, num_samples=N, kernel_width=25, label=1, random_state=4)
    np.testing.assert_array_equal(again.z, samples.z)
    np.testing.assert_array_equal(again.beta, samples.beta)
    assert not np.array_equal(other.z, samples.z)


def test_capture_label_zero_mirrors_label_one(samples):
    # the label-0 output is 1 - (label-1 output) on the same samples, and ridge is linear in y
    mirror = capture_lime_samples(TEXT, classifier_fn, num_samples=N, kernel_width=25, label=0, random_state=3)
    np.testing.assert_array_equal(mirror.z, samples.z)
    np.testing.assert_allclose(mirror.coef, -samples.coef, atol=1e-10)
    assert mirror.intercept == pytest.approx(1.0 - samples.intercept, abs=1e-10)


@pytest.mark.parametrize("text", ["food", "food food", "Food!", "  food, food. "])
def test_single_word_documents_are_refused(text):
    # d = 1: lime would remove the only word in every perturbation; Sigma is singular
    with pytest.raises(ValueError, match="^text must contain at least 2 distinct words"):
        capture_lime_samples(text, classifier_fn, num_samples=20, random_state=0)
    with pytest.raises(ValueError, match="^text must contain at least 2 distinct words"):
        lime_explanations(text, classifier_fn, num_samples=20, n_exp=1)


def test_capture_accepts_random_state_none():
    run = capture_lime_samples(TEXT, classifier_fn, num_samples=10, random_state=None)
    assert run.z.shape == (10, len(WORDS))


BAD_ARGUMENTS = [
    ({"text": ""}, ValueError, "^text must be a non-empty document"),
    ({"text": "   "}, ValueError, "^text must be a non-empty document"),
    ({"text": "!!!"}, ValueError, "^text must contain at least one word"),
    ({"text": 42}, TypeError, "^text must be a str"),
    ({"classifier_fn": "predict"}, TypeError, "^classifier_fn must be callable"),
    ({"num_samples": 1}, ValueError, "^num_samples must be >= 2"),
    ({"num_samples": 0}, ValueError, "^num_samples must be >= 2"),
    ({"num_samples": 300.0}, TypeError, "^num_samples must be an integer"),
    ({"kernel_width": 0}, ValueError, "^kernel_width must be a finite number > 0"),
    ({"kernel_width": -25}, ValueError, "^kernel_width must be a finite number > 0"),
    ({"kernel_width": np.inf}, ValueError, "^kernel_width must be a finite number > 0"),
    ({"kernel_width": np.nan}, ValueError, "^kernel_width must be a finite number > 0"),
    ({"kernel_width": "25"}, TypeError, "^kernel_width must be a positive real number"),
    ({"label": -1}, ValueError, "^label must be >= 0"),
    ({"label": 1.0}, TypeError, "^label must be an integer"),
    ({"label": 2}, ValueError, r"^label must be < n_labels = 2 \(the columns of classifier_fn\), got 2"),
    ({"random_state": -1}, ValueError, "^random_state must be >= 0"),
    ({"random_state": 0.5}, TypeError, "^random_state must be an integer"),
    ({"classifier_fn": lambda docs: np.zeros(len(docs))}, ValueError, r"^classifier_fn must return an array of shape"),
    ({"classifier_fn": lambda docs: np.zeros((len(docs) + 1, 2))}, ValueError, r"^classifier_fn must return"),
    ({"classifier_fn": lambda docs: np.zeros((len(docs), 2, 1))}, ValueError, r"^classifier_fn must return"),
]


@pytest.mark.parametrize(("kwargs", "error", "pattern"), BAD_ARGUMENTS)
def test_capture_errors(kwargs, error, pattern):
    arguments = {"text": TEXT, "classifier_fn": classifier_fn, "num_samples": 10, **kwargs}
    text, fn = arguments.pop("text"), arguments.pop("classifier_fn")
    with pytest.raises(error, match=pattern):
        capture_lime_samples(text, fn, **arguments)


# ----------------------------------------------------------------------------- lime_explanations


@pytest.fixture(scope="module")
def explanations():
    return lime_explanations(TEXT, classifier_fn, n_exp=3, num_samples=N, kernel_width=25, label=1, random_state=3)


def test_lime_explanations_shape_and_first_run(explanations, samples):
    assert explanations.shape == (3, len(WORDS) + 1)
    np.testing.assert_allclose(explanations[0], samples.beta, rtol=0, atol=1e-12)


def test_lime_explanations_stream_continues(explanations):
    assert not np.allclose(explanations[0], explanations[1])
    assert not np.allclose(explanations[1], explanations[2])


def test_lime_explanations_match_a_direct_lime_loop(explanations):
    # one explainer, explain_instance three times in a row, every word kept, lime's default ridge
    explainer = LimeTextExplainer(kernel_width=25, random_state=3, feature_selection="none")
    d = len(WORDS)
    for row in explanations:
        exp = explainer.explain_instance(TEXT, classifier_fn, labels=(1,), num_features=d, num_samples=N)
        coef = dict(exp.as_map()[1])
        expected = [exp.intercept[1]] + [coef[j] for j in range(d)]
        np.testing.assert_allclose(row, expected, rtol=0, atol=1e-12)


def test_lime_explanations_single_run_and_determinism(explanations):
    one = lime_explanations(TEXT, classifier_fn, n_exp=1, num_samples=N, kernel_width=25, label=1, random_state=3)
    assert one.shape == (1, len(WORDS) + 1)
    np.testing.assert_array_equal(one[0], explanations[0])


@pytest.mark.parametrize(
    ("kwargs", "error", "pattern"),
    [
        *BAD_ARGUMENTS,
        ({"n_exp": 0}, ValueError, "^n_exp must be >= 1"),
        ({"n_exp": 2.0}, TypeError, "^n_exp must be an integer"),
    ],
)
def test_lime_explanations_errors(kwargs, error, pattern):
    arguments = {"text": TEXT, "classifier_fn": classifier_fn, "num_samples": 10, "n_exp": 2, **kwargs}
    text, fn = arguments.pop("text"), arguments.pop("classifier_fn")
    with pytest.raises(error, match=pattern):
        lime_explanations(text, fn, **arguments)


def test_public_names_are_reexported():
    assert lt.local_dictionary is local_dictionary
    assert lt.capture_lime_samples is capture_lime_samples
    assert lt.lime_explanations is lime_explanations
    assert lt.LimeSamples is LimeSamples


def test_non_finite_classifier_output_is_refused():
    def broken(documents):
        return np.full((len(documents), 2), np.nan)

    with pytest.raises(ValueError, match="non-finite"):
        lt.capture_lime_samples("good food here", broken, num_samples=20)
    with pytest.raises(ValueError, match="non-finite"):
        lt.lime_explanations("good food here", broken, n_exp=1, num_samples=20)
