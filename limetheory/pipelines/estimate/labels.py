"""The estimate for the labels no exact route answered: the model's controls and the budget for each.

A pipeline goes to :func:`~limetheory.pipelines.estimate.estimate_route.estimate_explanation` (rows from counts where
it can, the linked reading of a logistic regression's probabilities, its decision function as a control); a
classifier_fn is scored on lime's strings by :func:`~limetheory.pipelines.estimate.limit_estimate.estimate_limit`.
"""

from __future__ import annotations

import warnings

import numpy as np

from ...theory.explanation import beta_from_conditional_moments
from ..reading.document import label_column, linked_check_masks
from ..reading.linked_reading import link_possible, linked_score_masks, reading_powers
from ..reading.pipeline_reading import LinearReading, RouteUnavailable
from .controls import ExactPowers
from .estimate_route import estimate_explanation, lime_words
from .limit_estimate import DEFAULT_CALLS_PER_LIME_RUN, estimate_limit


def explain_controls(model, text, output, label, nu, mode=None, readings=None):
    """Control variates with an exact β for the estimate: ((g, β_g),) or ().

    For ``predict_proba`` of a pipeline whose decision function is linear in the columns (e.g. a logistic
    regression), g is that decision function, computed from the words' columns (no string is built) and β_g its
    exact linear β: the probability is a smooth function of it, so it carries most of the variance.  Where its powers
    have exact moments (:func:`~limetheory.pipelines.reading.linked_reading.reading_powers`) g comes as an
    :class:`~limetheory.pipelines.estimate.controls.ExactPowers`, whose g, g² and g³ (times polynomials in s) the
    estimate's design takes.  Other models get none (the affine control of
    ``limetheory.pipelines.estimate.montecarlo.estimate_beta`` remains).  ``readings`` (the linked reading's, by
    label: ``linked_score_masks(...)[0].readings``) gives g's reading when it has been built and checked already.
    """
    if output != "predict_proba" or model is None:
        return ()
    try:
        n_classes = len(getattr(model.steps[-1][1], "classes_", ()))
        vectorizer = model.steps[0][1]
        row = label if n_classes > 2 else 1
        linear = (readings or {}).get(row)
        if linear is None:
            linear = LinearReading(model, vectorizer, text, "decision_function", row, mode)
        powers = reading_powers(linear)
        if powers is None:
            return ((linear, linear.beta(nu)),)
        # g's β from its exact moments E[g | s], E[z_k g | s] (the powers' first; beta_linear_exact's to 3e-14 of
        # max |β| on 60 Yelp reviews, at a fifth of its cost); the design takes g itself, with no held coefficient
        beta = beta_from_conditional_moments(powers[0][:, 0], powers[1][:, 0, :], nu=nu)
        return ((ExactPowers(linear, *powers), beta),)
    except (RouteUnavailable, ValueError, TypeError, IndexError, AttributeError):
        return ()


def estimate_labels(document, labels, call):
    """The estimate route for each label: {label: (LimitEstimate, masks -> scores, a note on the rows)}.

    ``document`` is the :class:`~limetheory.pipelines.reading.document.DocumentReading` and ``call`` the
    :class:`~limetheory.pipelines.reading.lime_call.LimeCall`.  A pipeline goes to ``estimate_route``; a
    classifier_fn is scored on lime's strings, ten lime runs' worth of calls by default.
    """
    reader, text, d, nu, mode = document.reader, document.text, document.d, call.nu, document.mode
    score_masks, check = document.score_masks, document.linked_check
    results = {}
    linked = None
    if link_possible(reader.pipeline, reader.output, mode):
        # one check of the reading for every label (``check``: its masks and the model's outputs on them, when the
        # document's reading scored them already), on masks of their own: the estimate's seed is untouched
        if check is None:
            masks = linked_check_masks(d, call.seed)
            check = (masks, score_masks(masks))
        linked, _ = linked_score_masks(reader.pipeline, text, reader.output, *check, mode)
    for label in labels:
        column = label_column(score_masks, label)
        rng = np.random.default_rng(call.seed)
        if reader.pipeline is None:
            budget = call.max_calls
            if budget is None:  # lime's cost by default: its number of calls on strings
                budget = DEFAULT_CALLS_PER_LIME_RUN * call.lime_n if call.precision_asked else call.lime_n
            # and the words of its strings (lime's default word mode): a model's time grows with them
            occurrences, words = (
                lime_words(text, call.lime_n) if not call.precision_asked and mode is None else (None, None)
            )
            estimate = estimate_limit(column, d, nu=nu, num_samples=call.lime_n, tol=call.tol, max_calls=budget,
                                      random_state=rng, progress=call.progress, controls=(),
                                      raise_budget=not call.precision_asked, word_tokens=occurrences,
                                      max_words=words)  # fmt: skip
            results[label] = (estimate, column, "estimate: the model scored on lime's perturbed strings")
        else:
            controls = explain_controls(reader.pipeline, text, reader.output, label, nu, mode,
                                        getattr(linked, "readings", None))  # fmt: skip
            results[label] = estimate_explanation(
                reader.pipeline, text, reader.output, label, nu, column, d, mode=mode, num_samples=call.lime_n,
                tol=call.tol, max_calls=call.max_calls, random_state=rng, progress=call.progress, controls=controls,
                linked=linked, lime_cost=not call.precision_asked,
            )  # fmt: skip
        if call.precision_asked and not results[label][0].reached:
            warnings.warn(f"label {label}: {results[label][0].note}", UserWarning, stacklevel=3)
    return results
