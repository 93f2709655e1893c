"""The exact linear route for many documents: the pipeline read once, one model call for every self-check.

:func:`explain_linear_many` gives, for each document, the :class:`~limetheory.pipelines.results.result.Explanation`
that :func:`limetheory.explain` returns when its first route, the linear one, applies (the same β by the same
code), or None; :mod:`limetheory.pipelines.corpora.corpus` explains a chunk with it.
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.compose import ColumnTransformer
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.pipeline import Pipeline

from ..._validation import check_int, check_positive_finite
from ...engine.tokens import perturbed_documents
from ..reading.blackbox import BATCH as _BATCH
from ..reading.lime_arguments import check_words
from ..reading.pipeline_reading import (
    RouteUnavailable,
    check_label,
    check_pipeline,
    output_function,
    reproduces,
    self_check_masks,
    two_step_reading,
)
from ..reading.text_features import reads_words
from ..results.agreement import agreement_notes
from ..results.result import Explanation
from ..routing import explain  # noqa: F401  (the docstring's example compares with it)


def explain_linear_many(
    model,
    texts,
    *,
    kernel_width=25,
    label=1,
    output="predict_proba",
    random_state=0,
    num_features=10,
    feature_selection="auto",
):
    """:func:`explain`'s linear route for many documents: the pipeline read once, one call for all the self-checks.

    For each text, the :class:`Explanation` that ``explain(model, text, kernel_width=kernel_width, label=label,
    output=output, random_state=random_state)`` returns when its first route, the linear one, applies (the same
    β, computed by the same code, so equal bit for bit), or None where explain would not take it or would raise
    (fewer than 2 words, a model that is not linear in the columns, a self-check that fails, a non-finite value):
    call :func:`explain` on those to learn why.  Per document, explain calls the pipeline once for its
    self-check; here one call serves every document (``limetheory.pipelines.corpora.corpus`` explains a chunk with it).
    As explain's, each explanation's ``notes`` say where lime at its n will not agree with the limit, and one
    ``UserWarning`` for the call counts the documents where it will not.

    Parameters
    ----------
    model : sklearn.pipeline.Pipeline
        As for :func:`explain`.
    texts : sequence of str
        The documents.
    kernel_width, label, output, random_state, num_features, feature_selection
        As for :func:`explain` (the self-check's masks come from ``random_state``, as there).

    Returns
    -------
    list of Explanation or None
        One entry per text.

    Examples
    --------
    >>> from sklearn.feature_extraction.text import TfidfVectorizer
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.pipeline import make_pipeline
    >>> docs = ["good food", "bad food", "good service", "slow service"]
    >>> model = make_pipeline(TfidfVectorizer(), LogisticRegression()).fit(docs, [1, 0, 1, 0])
    >>> many = explain_linear_many(model, ["good food, bad service", "good"], output="decision_function")
    >>> one = explain(model, "good food, bad service", output="decision_function")
    >>> bool((many[0].beta == one.beta).all()), many[1]
    (True, None)
    """
    # explain's defaults: output None is a Pipeline's predict_proba, label None lime's label 1
    output = "predict_proba" if output is None else output
    label = 1 if label is None else label
    first = model.steps[0][1] if isinstance(model, Pipeline) and model.steps else None
    # hashed or joined features (no vocabulary to check): the reading of each document says whether it applies
    vectorizer = first if reads_words(first) and not isinstance(first, CountVectorizer) else check_pipeline(model)
    kernel_width = check_positive_finite(kernel_width, "kernel_width")
    random_state = check_int(random_state, "random_state", minimum=0, maximum=2**63 - 1)
    if isinstance(first, ColumnTransformer):  # it reads a frame, which explain builds for each document
        return [None] * len(texts)
    columns = output_function(model, output)
    nu = kernel_width / 100.0
    pending = []  # (position, words, label, linear model, masks, their number of unique rows, inverse)
    documents = []  # the perturbed strings of every pending text's unique masks, in order
    analysed = {}  # each distinct word's vectorizer column, analysed once for the call
    for position, text in enumerate(texts):
        try:
            text, words = check_words(text)
            text_label = check_label(model, output, columns, text, label)
            linear = two_step_reading(model, vectorizer, text, output, text_label, memo=analysed)
        except (RouteUnavailable, ValueError, TypeError):
            continue
        z = self_check_masks(len(words), np.random.default_rng(random_state))
        unique, inverse = _unique_rows(z.astype(np.int8))
        # the strings now, while lime's tokenisation of the text is still cached (engine.tokens keeps a few)
        documents += perturbed_documents(text, unique)
        pending.append((position, words, text_label, linear, z, len(unique), inverse))
    results = [None] * len(texts)
    if not pending:
        return results
    values = np.concatenate([columns(documents[start : start + _BATCH]) for start in range(0, len(documents), _BATCH)])
    start = 0
    disagreements = []  # (position, message) where lime at n will not agree with the limit
    for position, words, text_label, linear, z, n_unique, inverse in pending:
        truth = values[start : start + n_unique, text_label][inverse]
        start += n_unique
        if not np.isfinite(truth).all() or not reproduces(linear(z), truth):
            continue
        try:
            beta = linear.beta(nu)
        except ValueError:  # beta_linear_exact refuses the document (e.g. too many words in one column)
            continue
        if not np.isfinite(beta).all():
            continue
        explanation = Explanation(
            words=words,
            beta=beta,
            exact=True,
            method="linear",
            stderr=None,
            kernel_width=kernel_width,
            output=output,
            label=text_label,
            num_samples=None,
            notes=(),
            mask_fn=linear,
            random_state=random_state,
            num_features=num_features,
            feature_selection=feature_selection,
        )
        with warnings.catch_warnings(record=True) as caught:  # one warning for the call, below
            warnings.simplefilter("always")
            results[position] = agreement_notes(explanation)
        disagreements += [(position, str(w.message)) for w in caught if issubclass(w.category, UserWarning)]
    if disagreements:
        position, first = disagreements[0]
        warnings.warn(
            f"{len(disagreements)} of the {len(texts)} documents {'has' if len(disagreements) == 1 else 'have'} word "
            f"coefficients that lime at its n will not agree with (each explanation's notes say which); e.g. "
            f"document {position}: {first}",
            UserWarning,
            stacklevel=2,
        )
    return results


def _unique_rows(z):
    """``np.unique(z, axis=0, return_inverse=True)`` for a few 0/1 masks (int8), without numpy's structured sort.

    The rows' bytes sort as the rows do (0 before 1, position by position), so the unique rows come in the same
    order; a tenth of the time for the self-check's 8 masks.
    """
    keys = [row.tobytes() for row in z]
    distinct = sorted(set(keys))
    first = {key: i for i, key in reversed(list(enumerate(keys)))}
    position = {key: i for i, key in enumerate(distinct)}
    return z[[first[key] for key in distinct]], np.array([position[key] for key in keys], dtype=np.int64)
