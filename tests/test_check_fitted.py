"""blackbox.check_fitted: check_is_fitted's decision on Pipelines, fitted or not, whatever their tags say."""

import numpy as np
import pytest
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.exceptions import NotFittedError
from sklearn.feature_extraction.text import CountVectorizer, TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.utils.validation import check_is_fitted

from limetheory.pipelines.reading.blackbox import check_fitted, read_model

DOCS, LABELS = ["good food", "bad food", "good staff", "bad staff"], [1, 0, 1, 0]


class NoFitPipeline(Pipeline):
    """A pipeline whose tags say it needs no fit: check_is_fitted accepts it unfitted."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.requires_fit = False
        return tags


class Stateless(TransformerMixin, BaseEstimator):
    """A last step with no fitted attribute and no __sklearn_is_fitted__."""

    def fit(self, x, y=None):
        return self

    def transform(self, x):
        return np.ones((len(x), 1))


class Raising(Pipeline):
    """A pipeline whose __sklearn_is_fitted__ raises: check_fitted leaves the answer to check_is_fitted."""

    def __sklearn_is_fitted__(self):
        raise RuntimeError("broken")


def decision(check, model):
    try:
        check(model)
    except NotFittedError:
        return "not fitted"
    except Exception as error:  # noqa: BLE001 -- the same exception type is the same decision
        return type(error).__name__
    return "accepted"


def cases():
    yield make_pipeline(TfidfVectorizer(), LogisticRegression())
    yield make_pipeline(TfidfVectorizer(), LogisticRegression()).fit(DOCS, LABELS)
    yield make_pipeline(CountVectorizer(), "passthrough")
    yield Pipeline([("a", "passthrough")])
    yield NoFitPipeline([("v", CountVectorizer()), ("m", LogisticRegression())])
    yield NoFitPipeline([("v", CountVectorizer()), ("m", LogisticRegression())]).fit(DOCS, LABELS)
    yield make_pipeline(CountVectorizer(), Stateless())
    yield Raising([("v", CountVectorizer()), ("m", LogisticRegression())])
    yield Raising([("v", CountVectorizer()), ("m", LogisticRegression())]).fit(DOCS, LABELS)


@pytest.mark.parametrize("index", range(9))
def test_same_decision_as_check_is_fitted(index):
    model = list(cases())[index]
    assert decision(check_fitted, model) == decision(check_is_fitted, model)


def test_decisions_cover_both_answers():
    answers = {decision(check_is_fitted, model) for model in cases()}
    assert {"accepted", "not fitted", "RuntimeError"} <= answers


def test_unfitted_pipeline_refused_by_read_model():
    with pytest.raises(ValueError, match="fitted Pipeline"):
        read_model(make_pipeline(TfidfVectorizer(), LogisticRegression()))


def test_unfitted_pipeline_without_fit_need_accepted_by_read_model():
    model = NoFitPipeline([("v", CountVectorizer()), ("m", LogisticRegression())])
    assert read_model(model).output == "predict_proba"


def test_not_a_pipeline():
    with pytest.raises(TypeError, match="pipeline"):
        check_fitted(LogisticRegression())
