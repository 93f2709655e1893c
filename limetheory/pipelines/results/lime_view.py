"""An :class:`~limetheory.pipelines.results.result.Explanation` as lime's own ``lime.explanation.Explanation``.

lime's ``LimeTextExplainer.explain_instance`` fills ``local_exp[label]`` (feature id, weight) by decreasing absolute
weight, ``intercept[label]``, ``predict_proba`` (the model's outputs on the document), ``top_labels`` when asked,
``score`` and ``local_pred``, with a ``TextDomainMapper`` over the document's ``IndexedString``.  The same fields
filled with the limit of lime's answer (its selected words, its refit, ``score`` and ``local_pred``:
:mod:`limetheory.pipelines.results.lime_answer`) make ``as_list``, ``as_map``, ``as_html``, ``show_in_notebook`` and
``as_pyplot_figure`` work unchanged (``show_in_notebook`` with its import of IPython's ``display`` mended).
"""

from __future__ import annotations

import numpy as np
from lime.explanation import Explanation as LimeExplanation

from ..reading.modes import TextMode


def lime_explanation(explanation, class_names=None):
    """lime's ``Explanation`` of every label of ``explanation`` (see ``Explanation.to_lime``)."""
    from lime.lime_text import TextDomainMapper  # imports scikit-learn's linear models: loaded on first use

    if explanation.text is None:
        raise ValueError("to_lime needs the document: this Explanation was not made by lt.explain")
    mode = explanation.mode if explanation.mode is not None else TextMode()
    labels = explanation.labels or (explanation.label,)
    outputs = explanation.outputs() if explanation.scores_fn is not None else explanation.document_outputs
    columns = len(outputs) if outputs is not None else max(labels) + 1
    if class_names is None:
        class_names = explanation.class_names or tuple(str(c) for c in range(columns))
    else:
        if isinstance(class_names, str) or not hasattr(class_names, "__len__"):
            raise TypeError(f"class_names must be a sequence of str, got {type(class_names).__name__}")
        if len(class_names) != columns:
            raise ValueError(f"class_names must name the output's {columns} columns, got {len(class_names)} names")
    result = LimeExplanation(
        TextDomainMapper(mode.indexed(explanation.text)),
        class_names=[str(name) for name in class_names],
        random_state=np.random.RandomState(explanation.random_state % 2**32),
    )
    result.predict_proba = np.asarray(outputs if outputs is not None else np.zeros(columns), dtype=float)
    if explanation.top_labels is not None:
        result.top_labels = list(explanation.top_labels)
    for label in labels:
        answer = _answer(explanation.for_label(label))
        result.intercept[label] = answer.selection.intercept
        result.local_exp[label] = answer.selection.as_list()
        # lime overwrites score and local_pred label after label: the last label's stay (with top_labels, the
        # K-th largest output's; with one label, that label's)
        result.score = answer.score
        result.local_pred = np.array([answer.selection.local_pred])
    return mend_show_in_notebook(result)


def mend_show_in_notebook(explanation):
    """Give ``explanation`` (lime's Explanation) a ``show_in_notebook`` that imports ``display`` from IPython.display.

    lime 0.2.0.1 imports ``display`` and ``HTML`` from ``IPython.core.display``, which IPython 9 no longer exports
    (an ImportError on every explanation lime makes); ``IPython.display`` has both.  Same arguments, same HTML.
    Shared by :meth:`Explanation.to_lime <limetheory.pipelines.results.result.Explanation.to_lime>` and the drop-in
    ``LimeTextExplainer``.

    Parameters
    ----------
    explanation : lime.explanation.Explanation
        lime's explanation object (its ``show_in_notebook`` attribute is replaced on this object only).

    Returns
    -------
    lime.explanation.Explanation
        ``explanation`` itself.

    Examples
    --------
    >>> from lime.lime_text import IndexedString, TextDomainMapper
    >>> e = mend_show_in_notebook(LimeExplanation(TextDomainMapper(IndexedString("good food")), class_names=["0"]))
    >>> e.show_in_notebook.__doc__ == LimeExplanation.show_in_notebook.__doc__
    True
    """
    if not isinstance(explanation, LimeExplanation):
        raise TypeError(f"explanation must be a lime.explanation.Explanation, got {type(explanation).__name__}")

    def show_in_notebook(labels=None, predict_proba=True, show_predicted_value=True, **kwargs):
        from IPython.display import HTML, display

        html = explanation.as_html(
            labels=labels, predict_proba=predict_proba, show_predicted_value=show_predicted_value, **kwargs
        )
        display(HTML(html))

    show_in_notebook.__doc__ = LimeExplanation.show_in_notebook.__doc__
    explanation.show_in_notebook = show_in_notebook
    return explanation


def _answer(member):
    """The limit of lime's answer for one label: selection and refit (every word when ``num_features`` is None)."""
    if member.num_features is None:
        return member.lime_answer(num_features=len(member.words), feature_selection="none")
    return member.lime_answer()
