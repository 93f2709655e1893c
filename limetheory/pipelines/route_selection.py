"""The routes of :func:`limetheory.explain` for one label: the closed ones (linear, trees) and the estimate.

``limetheory.pipelines.routing`` tries them in order; this module holds what each route needs from the model: the
vectorizer the closed routes read, the linear reading checked against the pipeline, the tree route, the note that
replaces a refusal for work, the control variates of the estimate and the estimate itself.
"""

from __future__ import annotations

import re

import numpy as np
from sklearn.base import is_classifier
from sklearn.feature_extraction.text import CountVectorizer, TfidfVectorizer
from sklearn.utils.validation import check_is_fitted

from .._validation import seconds_text
from .estimate import DEFAULT_CALLS_PER_LIME_RUN, estimate_limit
from .estimate_route import estimate_explanation
from .linked_reading import link_possible, linked_score_masks
from .modes import mode_document_columns
from .pipeline_reading import LinearReading, RouteUnavailable, self_check_masks
from .text_features import reads_words


def _closed_vectorizer(reader):
    """The pipeline's Count/TfidfVectorizer, the first step the tree route reads (RouteUnavailable otherwise)."""
    if reader.pipeline is None:
        raise RouteUnavailable("a classifier_fn is read through its outputs only")
    vectorizer = reader.pipeline.steps[0][1]
    if not isinstance(vectorizer, CountVectorizer):
        raise RouteUnavailable(
            f"the first step is a {type(vectorizer).__name__}: the tree route reads a CountVectorizer or "
            "TfidfVectorizer"
        )
    try:
        check_is_fitted(vectorizer, "vocabulary_")
        if isinstance(vectorizer, TfidfVectorizer) and vectorizer.use_idf:
            check_is_fitted(vectorizer, "idf_")
    except Exception:
        raise RouteUnavailable("the vectorizer is not fitted") from None
    return vectorizer


def _tree_beta(model, vectorizer, text, output, label, nu, mode=None):
    try:
        from .leaves import beta_trees
    except ImportError:
        raise RouteUnavailable("the exact tree route is not available") from None
    if len(model.steps) != 2:
        raise RouteUnavailable("the pipeline has steps between the vectorizer and the model")
    estimator = model.steps[1][1]
    sign = 1.0
    if output == "decision_function" and len(getattr(estimator, "classes_", ())) == 2:
        # the binary score is the column of classes_[1]; explain's label 0 is its opposite
        label, sign = 1, (1.0 if label == 1 else -1.0)
    try:
        columns = None  # lime's default words; another text mode's features and groups otherwise
        if mode is not None:
            columns = mode_document_columns(
                text, vectorizer, mode, n_features=getattr(estimator, "n_features_in_", None)
            )
        beta = beta_trees(estimator, vectorizer, text, nu=nu, output=output, label=label, columns=columns)
    except (ValueError, TypeError) as error:
        raise RouteUnavailable(str(error)) from None
    return sign * beta


def linear_possible(reader):
    """Whether the linear route may apply (then its check masks are sent through the model before the routes)."""
    if reader.pipeline is None or not reads_words(reader.pipeline.steps[0][1]):
        return False
    estimator = reader.pipeline.steps[-1][1]
    wanted = "predict" if not is_classifier(estimator) else "decision_function"
    return reader.output == wanted and hasattr(estimator, "coef_")


def declared_columns(reader):
    """The number of the pipeline's output columns when its classifier declares its classes (None: ask the model)."""
    if reader.pipeline is None or reader.output not in ("predict_proba", "decision_function"):
        return None
    classes = getattr(reader.pipeline.steps[-1][1], "classes_", None)
    # a binary decision_function is given two columns, (-score, score)
    return len(classes) if classes is not None and np.ndim(classes) == 1 and len(classes) >= 2 else None


def work_note(error, name):
    """A refusal for work, with the estimate and the ``max_work`` that runs the route anyway."""
    message = str(error)
    found = re.search(r"costs about ([0-9.]+e[+-]?[0-9]+|[0-9.]+) floating-point", message)
    if found is None:
        return message
    flops = float(found.group(1))
    return (
        f"{message}; explain(..., method={name!r}, max_work={flops:.2g}) computes it exactly "
        f"(about {seconds_text(flops)})"
    )


def exact_beta(name, reader, text, label, nu, rng, score_masks, d, mode, truth):
    """(β, the model as a function of the masks) of a closed route, or RouteUnavailable with the reason."""
    if name == "linear":
        if reader.pipeline is None:
            raise RouteUnavailable("a classifier_fn is read through its outputs only")
        reading = LinearReading(reader.pipeline, reader.pipeline.steps[0][1], text, reader.output, label, mode)
        reading.check(truth[0], truth[1][:, label])
        return reading.beta(nu), reading
    vectorizer = _closed_vectorizer(reader)
    beta = _tree_beta(reader.pipeline, vectorizer, text, reader.output, label, nu, mode)
    return beta, label_column(score_masks, label)


def linked_check_masks(d, seed):
    """The linked reading's check masks: the self-check masks from the seed (the document first)."""
    return self_check_masks(d, np.random.default_rng(seed))


def label_column(score_masks, label):
    """Masks -> the model's output ``label``, from the function of masks to every output column."""
    return lambda z: score_masks(z)[:, label]


def explain_controls(model, text, output, label, nu, mode=None):
    """Control variates with an exact β for the estimate: ((g, β_g),) or ().

    For ``predict_proba`` of a pipeline whose decision function is linear in the columns (e.g. a logistic
    regression), g is that decision function, computed from the words' columns (no string is built) and β_g its
    exact linear β: the probability is a smooth function of it, so it carries most of the variance.  Other models get
    none (the affine control of ``limetheory.pipelines.montecarlo.estimate_beta`` remains).
    """
    if output != "predict_proba" or model is None:
        return ()
    try:
        n_classes = len(getattr(model.steps[-1][1], "classes_", ()))
        vectorizer = model.steps[0][1]
        linear = LinearReading(model, vectorizer, text, "decision_function", label if n_classes > 2 else 1, mode)
        return ((linear, linear.beta(nu)),)
    except (RouteUnavailable, ValueError, TypeError, IndexError, AttributeError):
        return ()


def estimate_labels(
    reader, text, score_masks, d, nu, labels, *, mode, lime_n, tol, max_calls, seed, progress, controls_of, check=None
):
    """The estimate route for each label: {label: (LimitEstimate, masks -> scores, a note on the rows)}.

    A pipeline goes to ``estimate_route.estimate_explanation`` (rows from counts where it can); a classifier_fn is
    scored on lime's strings by ``estimate.estimate_limit``, ten lime runs' worth of calls by default.
    """
    results = {}
    linked = None
    if link_possible(reader.pipeline, reader.output, mode):
        # one check of the reading for every label (``check``: its masks and the model's outputs on them, when the
        # caller scored them already), on masks of their own: the estimate's seed is untouched
        if check is None:
            masks = linked_check_masks(d, seed)
            check = (masks, score_masks(masks))
        linked, _ = linked_score_masks(reader.pipeline, text, reader.output, *check, mode)
    for label in labels:
        column = label_column(score_masks, label)
        rng = np.random.default_rng(seed)
        if reader.pipeline is None:
            budget = DEFAULT_CALLS_PER_LIME_RUN * lime_n if max_calls is None else max_calls
            estimate = estimate_limit(column, d, nu=nu, num_samples=lime_n, tol=tol, max_calls=budget,
                                      random_state=rng, progress=progress, controls=())  # fmt: skip
            results[label] = (estimate, column, "estimate: the model scored on lime's perturbed strings")
        else:
            results[label] = estimate_explanation(
                reader.pipeline, text, reader.output, label, nu, column, d, mode=mode, num_samples=lime_n, tol=tol,
                max_calls=max_calls, random_state=rng, progress=progress, controls=controls_of(label), linked=linked,
            )  # fmt: skip
    return results
