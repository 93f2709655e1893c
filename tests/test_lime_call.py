"""One call for explain, explain_many and shapley: lime's arguments validated once, the same models accepted."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.pipeline import make_pipeline

import limetheory as lt
from limetheory.pipelines.corpora.store import model_fingerprint
from limetheory.pipelines.reading.lime_call import LimeCall

DOCS = ["good food", "bad food", "good service", "slow service", "good staff", "bad staff", "great food", "rude staff"]
LABELS = [1, 0, 1, 0, 1, 0, 1, 0]
TEXTS = ["good food but slow service", "bad staff, great food", "rude and slow service but good food"]


@pytest.fixture(scope="module")
def logistic():
    return make_pipeline(TfidfVectorizer(), LogisticRegression()).fit(DOCS, LABELS)


def test_lime_call_checks_every_argument_once():
    call = LimeCall.from_arguments(kernel_width=40, num_features=3, feature_selection="lasso_path", random_state=7)
    assert (call.nu, call.num_features, call.feature_selection, call.seed) == (0.4, 3, "lasso_path", 7)
    with pytest.raises(ValueError, match="feature_selection must be one of"):
        LimeCall.from_arguments(feature_selection="best")
    with pytest.raises(TypeError, match="num_features"):
        LimeCall.from_arguments(num_features=2.5)
    with pytest.raises(ValueError, match="kernel_width"):
        LimeCall.from_arguments(kernel_width=-1)
    with pytest.warns(UserWarning, match="lime's unit"):
        LimeCall.from_arguments(kernel_width=0.25)
    seeded = LimeCall.from_arguments(random_state=np.random.default_rng(3))
    assert seeded.seed == LimeCall.from_arguments(random_state=np.random.default_rng(3)).seed


def test_explain_many_takes_a_bound_method_as_explain_does(logistic):
    frame = lt.explain_many(logistic.decision_function, TEXTS, progress=False, num_features=None)
    for position, text in enumerate(TEXTS):
        one = lt.explain(logistic.decision_function, text, num_features=None)
        assert one.method == "linear"
        rows = frame[frame.document == position]
        assert (rows.coefficient.to_numpy() == one.beta).all()  # bit for bit: the same route and code
        assert (rows.method == "linear").all()


def test_explain_many_takes_a_classifier_fn_and_a_lambda_with_a_path(logistic, tmp_path):
    def score(docs):  # a rule-based classifier_fn, as VADER's polarity: one score per document
        return np.array([doc.count("good") - doc.count("bad") + 0.5 * doc.count("great") for doc in docs], float)

    frame = lt.explain_many(score, TEXTS, progress=False)
    assert set(frame.method) == {"enumeration"}
    lam = lambda docs: logistic.predict_proba(docs)  # noqa: E731 (what users write)
    stored = lt.explain_many(lam, TEXTS, progress=False, path=tmp_path / "run")
    again = lt.explain_many(lam, TEXTS, progress=False, path=tmp_path / "run")  # resumed: nothing to explain
    assert stored.equals(again)
    other = lambda docs: 1.0 - logistic.predict_proba(docs)  # noqa: E731
    with pytest.raises(ValueError, match="model"):
        lt.explain_many(other, TEXTS, progress=False, path=tmp_path / "run")


def test_explain_many_checks_the_model_before_hashing_it(tmp_path):
    with pytest.raises(TypeError, match="model"):
        lt.explain_many(42, TEXTS, progress=False, path=tmp_path / "run")
    with pytest.raises(TypeError, match="fingerprint"):
        lt.explain_many(lambda docs: np.ones(len(docs)), TEXTS, path=tmp_path / "run", fingerprint=3)


def test_the_model_fingerprint_follows_what_a_closure_refers_to(logistic):
    other = make_pipeline(TfidfVectorizer(), LogisticRegression(C=0.1)).fit(DOCS, LABELS)

    def closure(model):
        return lambda docs: model.predict_proba(docs)

    first = model_fingerprint(closure(logistic))
    assert first.startswith("cloudpickle-")  # joblib cannot pickle a lambda
    assert first == model_fingerprint(closure(logistic))
    assert first != model_fingerprint(closure(other))


def test_shapley_defaults_to_label_0_for_one_output():
    ridge = make_pipeline(TfidfVectorizer(), Ridge()).fit(DOCS, np.linspace(-1, 1, len(DOCS)))
    values = lt.shapley(ridge.predict, "good food but slow service")
    assert values.label == 0
    exact = lt.shapley(ridge.predict, "good food but slow service", method="enumeration")
    assert np.abs(values.values - exact.values).max() < 1e-12  # tol: 16 masks summed, a few ulps of |f| <= 2


def test_a_random_model_is_not_reported_exact():
    rng = np.random.default_rng(0)

    def noisy(docs):  # the same string gets another score on each call
        return np.array([[len(doc) / 40 + rng.normal(0, 0.1)] for doc in docs])

    e = lt.explain(noisy, "good food but slow service", max_calls=2000, tol=1.0)
    assert e.method == "monte_carlo" and not e.exact
    assert any("differ between two calls" in note for note in e.notes)


def test_class_ids_from_a_classifier_fn_are_flagged(logistic):
    with pytest.warns(UserWarning, match="class ids"):
        e = lt.explain(lambda docs: logistic.predict(docs), "good food but slow service")
    assert e.exact  # explained as asked, with the warning


def test_to_lime_keeps_the_last_labels_prediction_as_lime_does(logistic):
    from lime.lime_text import LimeTextExplainer

    text = "good food but slow service and rude staff"
    theirs = LimeTextExplainer(random_state=0).explain_instance(text, logistic.predict_proba, top_labels=2)
    ours = lt.explain(logistic.predict_proba, text, top_labels=2).to_lime()
    assert ours.top_labels == theirs.top_labels
    last = theirs.top_labels[-1]  # lime overwrites local_pred label after label
    assert ours.local_pred[0] == pytest.approx(ours.intercept[last] + sum(w for _, w in ours.local_exp[last]))
    assert abs(ours.local_pred[0] - theirs.local_pred[0]) < 0.05  # tol: lime's one run at n = 5000 against the limit
