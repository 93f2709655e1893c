"""What :func:`limetheory.explain` is given, read as lime reads it: a function from strings to scores.

lime's ``explain_instance(text, classifier_fn)`` calls ``classifier_fn`` on a list of perturbed strings and reads
an (n, k) array, one column per label.  ``explain`` takes the same function, or a fitted scikit-learn
``Pipeline`` with the name of its output.  This module turns either into one :class:`ModelReader`:

* a bound method of a fitted ``Pipeline`` (``pipe.predict_proba``, ``pipe.decision_function``, ``pipe.predict``)
  is recognised through ``__self__`` and ``__name__`` and read as that pipeline and output, so that the exact
  routes that read the pipeline apply;
* a ``Pipeline`` of any shape is called on lists of strings (a ``ColumnTransformer`` first step reading one column
  is given that column), its binary ``decision_function`` as two columns (-score, score);
* any other callable is lime's ``classifier_fn``: its output must be an (n, k) array of finite numbers, or (n,)
  for one score (read as one column).

:func:`mask_scores` then gives the model's k outputs on lime's perturbed strings for any masks, in batches.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
from sklearn.base import is_classifier
from sklearn.exceptions import NotFittedError
from sklearn.pipeline import Pipeline
from sklearn.utils.validation import check_is_fitted

from ...engine.tokens import perturbed_documents
from .text_features import is_column_transformer

#: the outputs of a Pipeline that explain reads
OUTPUTS = ("predict_proba", "decision_function", "predict")
#: the name recorded for a function's output
CLASSIFIER_FN = "classifier_fn"
#: documents per call of the model
BATCH = 4096


@dataclass(frozen=True)
class ModelReader:
    """The model as lime calls it.

    Attributes
    ----------
    pipeline : sklearn.pipeline.Pipeline or None
        The fitted pipeline when one was given (directly or through a bound method), else None.
    output : str
        ``"predict_proba"``, ``"decision_function"``, ``"predict"`` or ``"classifier_fn"``.
    scores : callable
        A list of n str -> an (n, k) float array of finite numbers (checked on every call).
    class_names : tuple of str or None
        The classifier's ``classes_`` as strings, when the model has them.
    """

    pipeline: object
    output: str
    scores: object
    class_names: tuple | None


def read_model(model, output=None):
    """The :class:`ModelReader` of ``model`` (a Pipeline, a bound method of one, or a classifier_fn).

    Examples
    --------
    >>> from sklearn.feature_extraction.text import CountVectorizer
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.pipeline import make_pipeline
    >>> model = make_pipeline(CountVectorizer(), LogisticRegression()).fit(["good", "bad"], [1, 0])
    >>> reader = read_model(model.decision_function)
    >>> reader.pipeline is model, reader.output, reader.scores(["good", "bad"]).shape
    (True, 'decision_function', (2, 2))
    >>> read_model(lambda docs: [len(doc) for doc in docs]).scores(["a b", "abc d"]).tolist()
    [[3.0], [5.0]]
    """
    owner, name = getattr(model, "__self__", None), getattr(model, "__name__", None)
    if isinstance(owner, Pipeline) and name in OUTPUTS:
        if output is not None and output != name:
            raise ValueError(f"output={output!r} contradicts the method passed as model, {name!r}")
        model, output = owner, name
    if isinstance(model, Pipeline):
        if output is None and not hasattr(model, "predict_proba"):
            available = [name for name in OUTPUTS if hasattr(model, name)]
            advice = f": pass output={available[0]!r} (or model.{available[0]})" if available else ""
            raise ValueError(
                "model is a Pipeline without predict_proba, the output explained when output is None (what lime's "
                f"classifier_fn usually is); its outputs are {available}{advice}"
            )
        return _pipeline_reader(model, "predict_proba" if output is None else output)
    if callable(model) and not hasattr(model, "fit"):
        if output is not None:
            raise TypeError(
                f"output={output!r} names a Pipeline's method; a classifier_fn is its own output (pass "
                "output=None, or the Pipeline itself)"
            )
        return ModelReader(None, CLASSIFIER_FN, _function_scores(model), None)
    raise TypeError(
        "model must be a fitted scikit-learn Pipeline or lime's classifier_fn (a function from a list of str to an "
        f"(n, k) array, e.g. pipeline.predict_proba), got {type(model).__name__}"
    )


def _pipeline_reader(model, output):
    if not isinstance(output, str) or output not in OUTPUTS:
        raise ValueError(f"output must be one of {OUTPUTS}, got {output!r:.80}")
    try:
        check_fitted(model)
    except NotFittedError:
        raise ValueError("model must be a fitted Pipeline (call model.fit first)") from None
    method, shape_input = output_method(model, output), _input_of(model)

    def scores(documents):
        return output_columns(
            _checked(method(shape_input(documents)), len(documents), f"the pipeline's {output}"), output
        )

    classes = getattr(model.steps[-1][1], "classes_", None)
    names = tuple(str(c) for c in classes) if classes is not None and np.ndim(classes) == 1 else None
    return ModelReader(model, output, scores, names)


def check_fitted(pipeline):
    """``check_is_fitted(pipeline)``'s decision, without reading every step's tags when the pipeline is fitted.

    ``check_is_fitted`` accepts a fitted pipeline whatever its tags say (``requires_fit`` False returns early, True
    asks ``__sklearn_is_fitted__``), so a pipeline whose ``__sklearn_is_fitted__()`` is True is accepted here
    without ``get_tags(pipeline)``, which reads every step's tags (on a fitted TF-IDF + LogisticRegression
    pipeline, sklearn 1.9: 0.009 CPU-ms against check_is_fitted's 0.040, min of 5 x 2000 calls, load 1.3; the
    0.35 ms seen under a profiler is mostly its overhead); any other answer, or an error, is left to
    ``check_is_fitted``: its ``requires_fit`` check first, then the same question again (an unfitted pipeline
    whose tags say it needs no fit is accepted, as there).

    Examples
    --------
    >>> from sklearn.feature_extraction.text import CountVectorizer
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.pipeline import make_pipeline
    >>> model = make_pipeline(CountVectorizer(), LogisticRegression())
    >>> try:
    ...     check_fitted(model)
    ... except NotFittedError:
    ...     print("not fitted")
    not fitted
    >>> check_fitted(model.fit(["good", "bad"], [1, 0]))  # accepted: returns None
    """
    if not isinstance(pipeline, Pipeline):
        raise TypeError(f"pipeline must be a scikit-learn Pipeline, got {type(pipeline).__name__}")
    try:
        if pipeline.__sklearn_is_fitted__() is True:
            return
    except Exception:  # noqa: BLE001 -- whatever it raises, check_is_fitted raises (or accepts) as it always did
        pass
    check_is_fitted(pipeline)


def output_columns(values, output):
    """A pipeline's (n, k) outputs as the reader gives them: a binary ``decision_function`` as two columns."""
    if values.shape[1] == 1 and output == "decision_function":
        # a binary decision_function is the score of classes_[1]: column 1 is it, column 0 its opposite
        values = np.column_stack([-values[:, 0], values[:, 0]])
    return values


def output_method(model, output):
    """The pipeline's bound method ``output``, refusing one it lacks or a classifier's ``predict`` (labels)."""
    if not isinstance(output, str) or output not in OUTPUTS:
        raise ValueError(f"output must be one of {OUTPUTS}, got {output!r:.80}")
    if not hasattr(model, output):
        available = [name for name in OUTPUTS if hasattr(model, name)]
        raise ValueError(f"output={output!r}: the model has no {output}; its outputs are {available}")
    if output == "predict" and is_classifier(model):
        raise ValueError(
            "output='predict' of a classifier returns class labels, not a score; use 'predict_proba' or "
            "'decision_function'"
        )
    return getattr(model, output)


def _input_of(model):
    """How a list of str is given to the pipeline: as is, or as the one column its ColumnTransformer reads."""
    first = model.steps[0][1]
    if not is_column_transformer(first):
        return list
    names = getattr(first, "feature_names_in_", None)
    width = getattr(first, "n_features_in_", None)
    if width != 1:
        raise TypeError(
            f"model's ColumnTransformer reads {width} input columns; lime removes words from one text: pass a "
            "classifier_fn that builds the other columns for each perturbed text"
        )
    if names is not None:
        import pandas as pd

        return lambda documents: pd.DataFrame({str(names[0]): list(documents)})
    return lambda documents: np.array(list(documents), dtype=object).reshape(-1, 1)


def _function_scores(function):
    warned = []

    def scores(documents):
        values = function(list(documents))
        if not warned and class_ids(values):
            warned.append(True)
            warnings.warn(
                "classifier_fn returned one integer per document, which reads as class ids (e.g. a classifier's "
                "predict): lime explains scores or probabilities, and a class id is explained as a number; pass "
                "predict_proba or decision_function",
                UserWarning,
                stacklevel=4,
            )
        return _checked(values, len(documents), "classifier_fn")

    return scores


def class_ids(values):
    """Whether a classifier_fn's output is one integer per document (a classifier's ``predict``: class ids).

    Examples
    --------
    >>> class_ids(np.array([0, 1, 1])), class_ids(np.array([[0.2, 0.8]])), class_ids([0.5, 1.0])
    (True, False, False)
    """
    array = np.asarray(values) if not hasattr(values, "toarray") else None
    return array is not None and array.ndim == 1 and (np.issubdtype(array.dtype, np.integer) or array.dtype == bool)


def _checked(values, n, what):
    """``values`` as an (n, k) float array of finite numbers, or a clear error naming ``what`` returned it."""
    try:
        values = np.asarray(values.toarray() if hasattr(values, "toarray") else values, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(f"{what} must return numbers (an (n, k) array), got {type(values).__name__}") from None
    if values.ndim == 1:
        values = values[:, None]
    if values.ndim != 2 or values.shape[0] != n or values.shape[1] == 0:
        raise ValueError(
            f"{what} must return an array of shape (n,) or (n, k) with k >= 1 for n = {n} documents, got shape "
            f"{values.shape}"
        )
    if not np.isfinite(values).all():
        raise ValueError(f"{what} returned a non-finite value (NaN or inf) on a perturbed document")
    return values


#: masks up to which :func:`unique_masks` sorts their bytes in Python (np.unique(axis=0) costs 0.3 ms on 8 masks)
_FEW_MASKS = 64


def unique_masks(z):
    """``np.unique(z, axis=0, return_inverse=True)`` for 0/1 int8 masks: the same rows in the same order.

    A few masks (the self-checks') are sorted as bytes in Python: for entries 0 and 1, the bytes' order is
    np.unique's lexicographic order of the rows, at a tenth of its time; more masks, or other entries, go to
    np.unique itself.

    Parameters
    ----------
    z : ndarray of int8, shape (m, d)
        The masks (1 = word kept).

    Returns
    -------
    unique : ndarray of int8, shape (u, d)
        The distinct rows, in np.unique's order.
    inverse : ndarray of int, shape (m,)
        Each mask's row in ``unique``.

    Examples
    --------
    >>> z = np.array([[1, 0, 1], [0, 1, 1], [1, 0, 1]], dtype=np.int8)
    >>> unique, inverse = unique_masks(z)
    >>> unique.tolist(), inverse.tolist()
    ([[0, 1, 1], [1, 0, 1]], [1, 0, 1])
    """
    if len(z) > _FEW_MASKS or z.ndim != 2 or z.size == 0 or z.min() < 0 or z.max() > 1:
        unique, inverse = np.unique(z, axis=0, return_inverse=True)
        return unique, inverse.ravel()
    rows = [row.tobytes() for row in z]
    order = sorted(set(rows))
    where = {row: i for i, row in enumerate(order)}
    unique = np.frombuffer(b"".join(order), dtype=np.int8).reshape(len(order), z.shape[1]).copy()
    return unique, np.array([where[row] for row in rows], dtype=np.intp)


def mask_scores(text, reader, documents_of=None, columns=None, scores_of=None):
    """Masks (m, d) -> the model's outputs (m, k) on lime's perturbed strings, each distinct mask once, in batches.

    ``documents_of`` builds lime's strings for another text mode
    (``limetheory.pipelines.reading.modes.mode_documents``);
    ``columns`` is the number of outputs the model gave on the document (a function that changes it is refused);
    ``scores_of`` (a batch of distinct masks -> outputs) replaces the strings and ``reader.scores`` altogether, for a
    route that reads the model on rows it built (``routes.tree_route.mirror_scores``).

    Examples
    --------
    >>> reader = read_model(lambda docs: [[len(doc), doc.count("good")] for doc in docs])
    >>> mask_scores("good food, good wine", reader)(np.array([[1, 1, 1], [1, 0, 0], [0, 1, 1]])).tolist()
    [[20.0, 2.0], [12.0, 2.0], [12.0, 0.0]]
    """

    def score_masks(z):
        z = np.asarray(z, dtype=np.int8)
        unique, inverse = unique_masks(z)
        values = None
        for start in range(0, len(unique), BATCH):
            batch = unique[start : start + BATCH]
            if scores_of is not None:
                out = scores_of(batch)
            else:
                documents = perturbed_documents(text, batch) if documents_of is None else documents_of(batch)
                out = reader.scores(documents)
            expected = columns if columns is not None else out.shape[1]
            if out.shape[1] != expected:
                raise ValueError(
                    f"the model returned {out.shape[1]} columns on perturbed documents and {expected} on the "
                    "document: its number of outputs must not depend on the text"
                )
            if values is None:
                values = np.empty((len(unique), out.shape[1]))
            values[start : start + BATCH] = out
        if values is None:
            return np.empty((0, columns or 1))
        return values[inverse.ravel()]

    return score_masks
