"""One :class:`~limetheory.pipelines.results.result.Explanation` for each label of a call, linked to each other.

:func:`explanation_family` turns what the routes and the estimate found for each label into explanations that
share the document, lime's call and the model's outputs, and that know each other (``for_label``, ``to_lime``).
"""

from __future__ import annotations

from .result import Explanation


def explanation_family(document, call, exact, estimates, reasons):
    """{label: Explanation} for every label of ``document`` (exact results first, estimates for the rest).

    ``exact`` maps a label to a :class:`~limetheory.pipelines.routes.protocol.RouteResult`; ``estimates`` maps a
    label to (LimitEstimate, masks -> scores, a note on the rows); ``reasons`` maps each label to the notes of
    the routes that did not apply.
    """
    common = dict(
        words=document.words,
        kernel_width=call.kernel_width,
        output=document.reader.output,
        random_state=call.seed,
        lime_num_samples=call.lime_n,
        labels=document.labels,
        document_outputs=document.outputs,
        scores_fn=document.score_masks,
        _shared={},
        top_labels=document.top_labels,
        num_features=call.num_features,
        feature_selection=call.feature_selection,
        class_names=document.reader.class_names,
        text=document.text,
        mode=document.mode,
    )
    family = {}
    for label in document.labels:
        if label in exact:
            result = exact[label]
            family[label] = Explanation(
                beta=result.beta, exact=True, method=result.method, stderr=None, label=label, num_samples=None,
                sample=result.sample, notes=tuple(reasons[label]), mask_fn=result.model_of_masks, **common,
            )  # fmt: skip
        else:
            estimate, scores, rows = estimates[label]
            family[label] = Explanation(
                beta=estimate.beta, exact=False, method="monte_carlo", stderr=estimate.stderr, label=label,
                num_samples=estimate.calls, sample=estimate.sample, notes=(*reasons[label], rows, estimate.note),
                mask_fn=scores, **common,
            )  # fmt: skip
    for member in family.values():
        member._family.update(family)
    return family
