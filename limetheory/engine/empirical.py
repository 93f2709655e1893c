"""Runs of the real ``lime`` package, and what it generated along the way.

Everything here goes through lime's public API: ``LimeTextExplainer.explain_instance``
with a recording ``classifier_fn`` (the perturbed documents and the responses) and a
recording ``model_regressor`` (the masks z, the responses y and the weights pi that lime's
own ridge regression receives).  Nothing of lime's sampling is re-implemented.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from .._validation import check_int, check_memory, check_positive_finite, check_text
from .selection import FEATURE_SELECTIONS
from .tokens import local_dictionary


@functools.cache
def _recording_ridge():
    """The class of lime's default surrogate (Ridge, alpha=1, with intercept) that keeps what it was fitted on.

    Built on first use: scikit-learn's linear models (and lime, which imports them) are not loaded by ``import
    limetheory``.
    """
    from sklearn.linear_model import Ridge

    class RecordingRidge(Ridge):
        def fit(self, X, y, sample_weight=None):
            self.recorded_ = (np.array(X, copy=True), np.array(y, copy=True), np.array(sample_weight, copy=True))
            return super().fit(X, y, sample_weight=sample_weight)

    return RecordingRidge


@dataclass(frozen=True)
class LimeSamples:
    """What one lime run generated and fitted.

    Attributes
    ----------
    words : list of str
        The local dictionary (column order of ``z``).
    documents : list of str
        The perturbed documents lime passed to the classifier (the first is the original).
    z : ndarray, shape (num_samples, d)
        Interpretable features (1 = word kept); row 0 is all ones.
    y : ndarray, shape (num_samples,)
        The classifier's output for ``label``.
    weights : ndarray, shape (num_samples,)
        lime's kernel weights pi.
    intercept : float
        lime's intercept for ``label``.
    coef : ndarray, shape (d,)
        lime's coefficients, in local-dictionary order.

    Examples
    --------
    >>> from limetheory import capture_lime_samples
    >>> from limetheory.book import constant_classifier
    >>> run = capture_lime_samples("good food, bad service", constant_classifier(0.7), num_samples=5)
    >>> type(run).__name__, run.documents[0], (run.beta.round(12) + 0.0).tolist()
    ('LimeSamples', 'good food, bad service', [0.7, 0.0, 0.0, 0.0, 0.0])
    """

    words: list
    documents: list
    z: np.ndarray
    y: np.ndarray
    weights: np.ndarray
    intercept: float
    coef: np.ndarray

    @property
    def beta(self):
        """(intercept, coef...) as one array of length d + 1."""
        return np.concatenate([[self.intercept], self.coef])


def _check_run_arguments(text, classifier_fn, num_samples, kernel_width, label, random_state):
    text = check_text(text)
    if not callable(classifier_fn):
        raise TypeError("classifier_fn must be callable: list of str -> (m, n_labels) array")
    words = local_dictionary(text)
    if len(words) < 2:
        raise ValueError(
            f"text must contain at least 2 distinct words, got {words}: with d = 1 every perturbation removes "
            "the only word, so the explanation is undefined (Sigma is singular)"
        )
    num_samples = check_int(num_samples, "num_samples", minimum=2)
    kernel_width = check_positive_finite(kernel_width, "kernel_width")
    label = check_int(label, "label", minimum=0)
    if random_state is not None:
        random_state = check_int(random_state, "random_state", minimum=0, maximum=2**32 - 1)
    check_memory(
        _run_memory(num_samples, len(words), len(text)),
        f"one lime run with num_samples = {num_samples} on a document of {len(words)} distinct words",
        "use fewer samples",
    )
    return text, len(words), num_samples, kernel_width, label, random_state


def _run_memory(num_samples, d, text_length):
    """Estimate the peak bytes of one lime run.

    Its (n, d) masks in dense and sparse form and our recorded copy (about 48 n d), and the n perturbed strings,
    held by lime and by the recorder (2 n (len(text) + 64)).
    """
    return 48.0 * num_samples * d + 2.0 * num_samples * (text_length + 64)


def _explainer(kernel_width, random_state):
    from lime.lime_text import LimeTextExplainer  # imports scikit-learn's linear models: loaded on first use

    # 'none' keeps every word: the paper studies lime without feature selection
    return LimeTextExplainer(kernel_width=kernel_width, random_state=random_state, feature_selection="none")


def _checked_classifier(classifier_fn, label, record=None):
    def wrapped(documents):
        raw = classifier_fn(documents)
        try:
            out = np.asarray(raw, dtype=float)
        except (TypeError, ValueError):
            raise TypeError(
                f"classifier_fn must return a numeric array of shape ({len(documents)}, n_labels), "
                f"got {type(raw).__name__}"
            ) from None
        if out.ndim != 2 or out.shape[0] != len(documents):
            raise ValueError(
                f"classifier_fn must return an array of shape ({len(documents)}, n_labels), got {out.shape}"
            )
        if label >= out.shape[1]:
            raise ValueError(f"label must be < n_labels = {out.shape[1]} (the columns of classifier_fn), got {label}")
        if not np.isfinite(out).all():
            raise ValueError("classifier_fn returned a non-finite value (NaN or inf)")
        if record is not None:
            record.extend(str(doc) for doc in documents)
        return out

    return wrapped


def _coefficients(explanation, label, d):
    coef = np.zeros(d)
    for index, value in explanation.local_exp[label]:
        coef[int(index)] = float(value)
    return float(explanation.intercept[label]), coef


def capture_lime_samples(text, classifier_fn, *, num_samples=5000, kernel_width=25, label=1, random_state=0):
    """Run lime once and return the masks, responses and weights it generated (a :class:`LimeSamples`).

    Parameters
    ----------
    text : str
        The document to explain.
    classifier_fn : callable
        list of str -> (m, n_labels) array, as lime expects (e.g. ``pipeline.predict_proba``).
    num_samples : int
        lime's n (>= 2), including the unperturbed first row.
    kernel_width : float
        lime's kernel width (> 0); the paper's ν is kernel_width / 100.
    label : int
        Column of the classifier's output that is explained.
    random_state : int or None
        Seed of lime's ``RandomState`` (0 <= random_state < 2**32).

    Returns
    -------
    LimeSamples

    Raises
    ------
    TypeError, ValueError
        A non-str or empty ``text``, one with fewer than 2 distinct words, a non-callable ``classifier_fn``,
        ``num_samples`` < 2, ``kernel_width`` <= 0 or not finite, a negative ``label`` or one beyond the
        classifier's columns, a classifier output of the wrong shape or with NaN/inf; a run beyond the memory limit.

    Notes
    -----
    Limits: one run holds about 48 n d + 2 n (len(text) + 64) bytes (n = ``num_samples``); above 2 GiB it is
    refused before lime starts, e.g. n <= 1.5 * 10**6 for a 29-word review.  The time is lime's (about 50 µs per
    sample for a 29-word review) and is not capped: the caller chooses n.

    Examples
    --------
    >>> from limetheory.book import constant_classifier
    >>> run = capture_lime_samples("good food, bad service", constant_classifier(0.7), num_samples=5)
    >>> run.words, run.z.shape, run.z[0].tolist()
    (['good', 'food', 'bad', 'service'], (5, 4), [1, 1, 1, 1])
    """
    text, d, num_samples, kernel_width, label, random_state = _check_run_arguments(
        text, classifier_fn, num_samples, kernel_width, label, random_state
    )
    documents = []
    regressor = _recording_ridge()(alpha=1.0, fit_intercept=True)
    explanation = _explainer(kernel_width, random_state).explain_instance(
        text,
        _checked_classifier(classifier_fn, label, documents),
        labels=(label,),
        num_features=d,
        num_samples=num_samples,
        model_regressor=regressor,
    )
    z, y, weights = regressor.recorded_
    intercept, coef = _coefficients(explanation, label, d)
    return LimeSamples(
        words=local_dictionary(text),
        documents=documents,
        z=z.astype(np.int8),
        y=y.astype(float),
        weights=weights.astype(float),
        intercept=intercept,
        coef=coef,
    )


def lime_explanations(
    text,
    classifier_fn,
    *,
    n_exp=100,
    num_samples=5000,
    kernel_width=25,
    label=1,
    random_state=0,
    num_features=10,
    feature_selection="none",
):
    """``n_exp`` explanations from real lime, as an (n_exp, d + 1) array (intercept first).

    One ``LimeTextExplainer`` is built with ``random_state`` and ``explain_instance`` is called
    ``n_exp`` times in a row, so the random stream continues from run to run (as in the paper's
    experiments).  By default every word is kept (``feature_selection="none"``: the paper's setting); the
    surrogate is lime's default ridge regression.

    Parameters
    ----------
    text, classifier_fn
        As in :func:`capture_lime_samples`.
    n_exp : int
        Number of explanations (>= 1).
    num_samples, kernel_width, label, random_state
        As in :func:`capture_lime_samples`.
    num_features : int
        Passed to lime's ``explain_instance(num_features=...)`` (>= 1); ignored with ``"none"``, as in lime.
    feature_selection : str
        Passed to ``LimeTextExplainer(feature_selection=...)``: one of
        ``limetheory.engine.selection.FEATURE_SELECTIONS``. lime's default call is ``feature_selection="auto",
        num_features=10``.

    Returns
    -------
    ndarray, shape (n_exp, d + 1)
        Row r is run r's (intercept, coefficients of the words in local-dictionary order); a word lime did not
        select has coefficient 0 (lime's explanation does not list it).

    Raises
    ------
    TypeError, ValueError
        As :func:`capture_lime_samples`; ``n_exp`` or ``num_features`` < 1; an unknown ``feature_selection``.

    Notes
    -----
    Limits: each run as :func:`capture_lime_samples`; the result takes 8 n_exp (d + 1) bytes (checked against
    2 GiB before the first run).  The time, about n_exp * num_samples * 50 µs for a 29-word review, is not capped.

    Examples
    --------
    >>> from limetheory.book import constant_classifier
    >>> runs = lime_explanations("good food, bad service", constant_classifier(0.7), n_exp=2, num_samples=10)
    >>> runs.shape, bool(np.allclose(runs[:, 0], 0.7))
    ((2, 5), True)
    """
    text, d, num_samples, kernel_width, label, random_state = _check_run_arguments(
        text, classifier_fn, num_samples, kernel_width, label, random_state
    )
    n_exp = check_int(n_exp, "n_exp", minimum=1)
    num_features = check_int(num_features, "num_features", minimum=1)
    if feature_selection not in FEATURE_SELECTIONS:
        raise ValueError(
            f"feature_selection must be one of {FEATURE_SELECTIONS} (lime's methods), got {feature_selection!r}"
        )
    check_memory(8.0 * n_exp * (d + 1), f"{n_exp} explanations of {d + 1} coefficients", "use fewer runs")
    explainer = _explainer(kernel_width, random_state)
    explainer.feature_selection = feature_selection  # as LimeTextExplainer(feature_selection=...) stores it
    classifier = _checked_classifier(classifier_fn, label)
    out = np.empty((n_exp, d + 1))
    for run in range(n_exp):
        explanation = explainer.explain_instance(
            text, classifier, labels=(label,), num_features=num_features, num_samples=num_samples
        )
        intercept, coef = _coefficients(explanation, label, d)
        out[run, 0], out[run, 1:] = intercept, coef
    return out
