"""The exact linear route for many documents: one model call for every self-check, the words' columns in one pass.

:func:`explain_linear_many` gives, for each document, the :class:`~limetheory.pipelines.results.result.Explanation`
that :func:`limetheory.explain` returns when its first route, the linear one, applies (the same β by the same
code), or None; :mod:`limetheory.pipelines.corpora.corpus` explains a chunk with it.

Where explain reads one document at a time, a chunk is read at once:

* the self-check masks of every document (explain's own, from the seed) go to the model in one call of their strings;
* for a Count or Tfidf vectorizer (and a ``TfidfTransformer`` after it) each distinct word of the chunk is analysed
  once, the vectorizer's counts of every document come from one ``transform`` of the chunk (the check that lime's
  words are its tokens), and the words' weights, coefficients and column labels are elementwise operations on the
  chunk's concatenated words: the operations of ``limetheory.pipelines.reading.text_features`` and
  ``pipeline_reading``, in the same order, so the arrays are those explain reads, bit for bit;
* the reconstructions of the self-check are one sparse product for the chunk (``vectorizer_chunk.batch_outputs``);
* β is ``LinearReading.beta`` (explain's code) on each document's arrays.

Other first steps (a HashingVectorizer, a FeatureUnion, a ColumnTransformer of one text column) are read document by
document by explain's ``LinearReading``, with the chunk's one model call for their self-checks.

With lime's ``bow=False`` each occurrence is a feature, counted once, and a removed one becomes the mask string: the
same batched reading takes the documents whose vectorizer tokens are lime's occurrences by construction and whose
mask string the vocabulary does not hold (``limetheory.pipelines.corpora.occurrences``); explain decides the others.
"""

from __future__ import annotations

import functools
import warnings

import numpy as np
from sklearn.base import is_classifier
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.pipeline import Pipeline

from ..._validation import check_int, check_positive_finite
from ...engine.lime_tokens import lime_words, mask_strings
from ...theory.linear.linear_chunk import beta_linear_exact_chunk
from ..reading.blackbox import BATCH as _BATCH
from ..reading.blackbox import mask_scores, read_model, unique_masks
from ..reading.lime_call import LIME_NUM_SAMPLES
from ..reading.modes import check_mode, mode_documents
from ..reading.pipeline_reading import (
    LinearReading,
    RouteUnavailable,
    check_pipeline,
    self_check_masks,
)
from ..reading.text_features import reads_words
from ..results.agreement import agreeing_documents, agreement_notes, lime_disagreement
from ..results.result import Explanation
from ..routing import explain  # noqa: F401  (the docstring's example compares with it)
from .occurrences import mask_string_refusal, occurrence_strings, occurrences
from .vectorizer_chunk import EstimatorReading, WordReading, vectorizer_readings


def explain_linear_many(
    model,
    texts,
    *,
    kernel_width=25,
    label=None,
    output="predict_proba",
    random_state=0,
    num_features=10,
    feature_selection="auto",
    bow=True,
    mask_string=None,
):
    """:func:`explain`'s linear route for many documents: one model call for all the self-checks, a batched reading.

    For each text, the :class:`Explanation` that ``explain(model, text, kernel_width=kernel_width, label=label,
    output=output, random_state=random_state)`` returns when its first route, the linear one, applies (the same
    β, computed by the same code, so equal bit for bit), or None where explain would not take it or would raise
    (fewer than 2 words, a model that is not linear in the columns, a self-check that fails, a non-finite value):
    call :func:`explain` on those to learn why.  Per document, explain calls the pipeline once for its
    self-check; here one call serves every document, and a Count or Tfidf vectorizer's columns are read for the
    chunk at once (module docstring; ``limetheory.pipelines.corpora.corpus`` explains a chunk with it).
    As explain's, each explanation's ``notes`` say where lime at its n will not agree with the limit, and one
    ``UserWarning`` for the call counts the documents where it will not.

    Parameters
    ----------
    model : sklearn.pipeline.Pipeline
        As for :func:`explain` (a pipeline whose first step is a Count, Tfidf or Hashing vectorizer, a FeatureUnion
        of them, or a ColumnTransformer of them on one text column).
    texts : sequence of str
        The documents.
    kernel_width, label, output, random_state, num_features, feature_selection
        As for :func:`explain` (the self-check's masks come from ``random_state``, as there).
    bow, mask_string
        lime's text mode, as for :func:`explain`: with ``bow=False`` each occurrence is a feature (the documents of
        ``limetheory.pipelines.corpora.occurrences``' docstring are read, None for the others).

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
    >>> occurrences = explain_linear_many(model, ["good food, good service"], output="decision_function", bow=False)
    >>> one = explain(model, "good food, good service", output="decision_function", bow=False)
    >>> occurrences[0].words, bool((occurrences[0].beta == one.beta).all())
    (['good', 'food', 'good', 'service'], True)
    """
    rows = _rows(
        model, texts, kernel_width, label, output, random_state, num_features, feature_selection, bow, mask_string
    )
    return [row.explanation() if isinstance(row, LinearRow) else row for row in rows]


def linear_many_rows(
    model,
    texts,
    *,
    kernel_width=25,
    label=None,
    output="predict_proba",
    random_state=0,
    num_features=10,
    feature_selection="auto",
    bow=True,
    mask_string=None,
):
    """:func:`explain_linear_many` with the explanations lime agrees with left unbuilt: what a corpus's frame reads.

    The same documents, β, words, labels and agreement as :func:`explain_linear_many` (the same code), and the same
    warning; an entry is None, an :class:`Explanation` (where lime's agreement needed its full check), or a
    :class:`LinearRow`: the frame's fields of an explanation without notes, whose ``explanation()`` builds
    :func:`explain_linear_many`'s.  ``limetheory.pipelines.corpora.corpus`` builds its frame from them.

    Parameters
    ----------
    model, texts, kernel_width, label, output, random_state, num_features, feature_selection, bow, mask_string
        As for :func:`explain_linear_many`.

    Returns
    -------
    list of LinearRow, Explanation or None
        One entry per text.

    Examples
    --------
    >>> from sklearn.feature_extraction.text import TfidfVectorizer
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.pipeline import make_pipeline
    >>> docs = ["good food", "bad food", "good service", "slow service"]
    >>> model = make_pipeline(TfidfVectorizer(), LogisticRegression()).fit(docs, [1, 0, 1, 0])
    >>> row = linear_many_rows(model, ["good food, bad service and more food"], output="decision_function")[0]
    >>> one = explain(model, "good food, bad service and more food", output="decision_function")
    >>> type(row).__name__, bool((row.beta == one.beta).all()), row.words == one.words, row.lime_agrees
    ('LinearRow', True, True, True)
    """
    return _rows(
        model, texts, kernel_width, label, output, random_state, num_features, feature_selection, bow, mask_string
    )


def _rows(model, texts, kernel_width, label, output, random_state, num_features, feature_selection, bow, mask_string):
    """linear_many_rows' entries (its docstring); the warning is raised at the public function's caller."""
    # explain's defaults: output None is a Pipeline's predict_proba, label None lime's label 1 (0 for one output)
    output = "predict_proba" if output is None else output
    first = model.steps[0][1] if isinstance(model, Pipeline) and model.steps else None
    # hashed or joined features (no vocabulary to check): the reading of each document says whether it applies
    if not (reads_words(first) and not isinstance(first, CountVectorizer)):
        check_pipeline(model)
    kernel_width = check_positive_finite(kernel_width, "kernel_width")
    random_state = check_int(random_state, "random_state", minimum=0, maximum=2**63 - 1)
    label = None if label is None else check_int(label, "label", minimum=0)
    mode = check_mode(bow=bow, mask_string=mask_string)
    mode = None if mode.is_default else mode  # bow=True never uses the mask string: lime's default mode
    try:
        reader = read_model(model, output)  # the model as explain calls it (a ColumnTransformer's frame included)
    except TypeError:  # a ColumnTransformer of several input columns: explain says why
        return [None] * len(texts)
    results = [None] * len(texts)
    if not _linear_output(model, output):
        return results
    if mode is not None and mask_string_refusal(model, mask_string) is not None:
        return results  # explain reads each document itself (occurrences' module docstring)
    pending, strings = _documents(texts, random_state, mode)
    if not pending:
        return results
    values = _scores(reader, strings)
    if values is not None and label is None:
        label = 0 if values.shape[1] == 1 else 1  # lime's default labels, as explain resolves them
    if values is None or label >= values.shape[1]:
        return results  # explain raises (a label out of range, a model whose outputs change shape)
    estimator_reading = EstimatorReading(model, label)
    readings = _readings(model, pending, output, label, estimator_reading, mode)
    nu = kernel_width / 100.0
    call = dict(
        kernel_width=kernel_width, output=output, random_state=random_state, num_features=num_features,
        feature_selection=feature_selection, reader=reader, columns=values.shape[1], label=label, mode=mode,
    )  # fmt: skip
    accepted = []  # (document, beta, mask_fn, truth) of the documents the route explains
    checked = _batch_checked(pending, readings, values, label)
    parts = _part_betas(pending, readings, checked, nu)
    for document, reading, passed in zip(pending, readings, checked.tolist(), strict=True):
        if reading is None:
            continue
        truth = values[document.rows]
        try:
            if isinstance(reading, LinearReading):
                if not np.isfinite(truth).all():
                    continue
                reading.check(document.masks, truth[:, label])
                beta = reading.beta(nu)
                mask_fn = reading
            else:
                if not passed:
                    continue  # explain decides (vectorizer_chunk.BATCH_CHECK_SHARE)
                beta = _reading_beta(reading, parts.get(document.position), nu)
                mask_fn = _LazyReading(model, document.text, output, label, mode)
        except (RouteUnavailable, ValueError):  # a reading that does not reproduce the model, a β refused
            continue
        if not np.isfinite(beta).all():
            continue
        accepted.append((document, beta, mask_fn, truth))
    if not accepted:
        return results
    # the agreement check's shortcut for the chunk at once: where it holds, agreement_notes adds no note and warns
    # nothing, and the explanation is built only when asked for (LinearRow)
    starts = np.cumsum([0] + [beta.size for _, beta, _, _ in accepted])
    agree = agreeing_documents(
        np.concatenate([beta for _, beta, _, _ in accepted]), starts, nu,
        np.array([truth[0, label] for *_, truth in accepted]), LIME_NUM_SAMPLES,
    )  # fmt: skip
    disagreements = []  # (position, message) where lime at n will not agree with the limit
    for (document, beta, mask_fn, truth), certain in zip(accepted, agree.tolist(), strict=True):
        if certain:
            results[document.position] = LinearRow(document, beta, mask_fn, truth, call)
            continue
        explanation = _explanation(document, label, beta, mask_fn, truth, call)
        flagged, spread = lime_disagreement(explanation)
        if spread is None and not flagged.any():  # agreement_notes would add no note and warn nothing
            results[document.position] = explanation
            continue
        with warnings.catch_warnings(record=True) as caught:  # one warning for the call, below
            warnings.simplefilter("always")
            results[document.position] = agreement_notes(explanation)
        disagreements += [(document.position, str(w.message)) for w in caught if issubclass(w.category, UserWarning)]
    if disagreements:
        position, message = disagreements[0]
        warnings.warn(
            f"{len(disagreements)} of the {len(texts)} documents {'has' if len(disagreements) == 1 else 'have'} word "
            f"coefficients that lime at its n will not agree with (each explanation's notes say which); e.g. "
            f"document {position}: {message}",
            UserWarning,
            stacklevel=3,
        )
    return results


def _batch_checked(pending, readings, values, label):
    """Per document, whether it has a word reading that the model's outputs confirm, the chunk at once.

    Its outputs on the self-check masks are finite (every column, as explain requires) and within the share of
    explain's tolerance of the reading's (``WordReading.check_values``).
    """
    checked = np.zeros(len(pending), dtype=bool)
    chosen = [i for i, reading in enumerate(readings) if isinstance(reading, WordReading)]
    if not chosen:
        return checked
    rows = np.concatenate([pending[i].rows for i in chosen])
    truth = values[rows]
    ours = np.concatenate([readings[i].check_values[0] for i in chosen])
    shares = np.concatenate([readings[i].check_values[1] for i in chosen])
    confirmed = np.isfinite(truth).all(axis=1) & (np.abs(ours - truth[:, label]) <= shares)
    starts = np.cumsum([0] + [pending[i].rows.size for i in chosen[:-1]])
    checked[chosen] = np.logical_and.reduceat(confirmed, starts)
    return checked


def _part_betas(pending, readings, checked, nu):
    """beta_linear_exact of the checked word readings' parts, for the chunk at once (linear_chunk), by position.

    None where that leaves the document to beta_linear_exact (:func:`_reading_beta`).
    """
    chosen = [
        (document.position, reading)
        for document, reading, passed in zip(pending, readings, checked.tolist(), strict=True)
        if passed and (reading.values > 0).any()
    ]
    if not chosen:
        return {}
    norms = {reading.norm for _, reading in chosen}
    if len(norms) != 1:
        return {}
    starts = np.cumsum([0] + [reading.values.size for _, reading in chosen])
    betas = beta_linear_exact_chunk(
        np.concatenate([reading.lam for _, reading in chosen]),
        np.concatenate([reading.values for _, reading in chosen]),
        np.concatenate([reading.groups for _, reading in chosen]),
        starts, nu=nu, norm=norms.pop(),
    )  # fmt: skip
    return {position: beta for (position, _), beta in zip(chosen, betas, strict=True)}


def _reading_beta(reading, part_beta, nu):
    """``LinearReading.beta(reading, nu)`` of a word reading (one part), its operations on the part's β if given."""
    if part_beta is None:
        return LinearReading.beta(reading, nu)  # explain's code on the document's arrays
    d = len(reading.values)
    beta = np.zeros(d + 1) + part_beta
    beta[0] += reading.sign * reading.intercept + reading.mask_weight * d
    beta[1:] -= reading.mask_weight
    return beta


def _linear_output(model, output):
    """Whether ``output`` is the estimator's linear output (as LinearReading requires) and it has coef_."""
    estimator = model.steps[-1][1]
    wanted = "predict" if not is_classifier(estimator) else "decision_function"
    return output == wanted and hasattr(estimator, "coef_") and hasattr(estimator, "intercept_")


class _Document:
    """One text of the chunk: its words, explain's self-check masks and their rows in the chunk's model outputs."""

    __slots__ = ("position", "text", "words", "counts", "masks", "rows")

    def __init__(self, position, text, words, counts, masks):
        self.position, self.text, self.words, self.counts, self.masks = position, text, words, counts, masks
        self.rows = None


def _documents(texts, random_state, mode=None):
    """The documents with at least 2 words, their self-check masks (explain's, from the seed) and their strings.

    Each text is tokenised once, by lime's tokenisation (``engine.lime_tokens.lime_words``, the reading behind
    ``engine.tokens``, which explain reads): its words, their occurrences (word_columns' counts: each
    word's number of tokens) and the strings of its distinct masks, in order (``perturbed_documents``' expansion of
    the masks to the tokens, without its argument checks: the masks are 0/1 and the text is checked here); each
    document's ``rows`` index its masks in the strings.  With ``bow=False`` (``mode``) a feature is an occurrence,
    counted once, its strings lime's with the mask string (``occurrences.occurrence_strings``), and only ASCII texts
    are read (the occurrences module's docstring: explain decides the others).
    """
    pending, strings = [], []
    for position, text in enumerate(texts):
        if not isinstance(text, str) or not text.strip():
            continue  # check_text's refusals (explain raises)
        if mode is not None and not text.isascii():
            continue
        words = lime_words(text)
        features, counts = (words.words, words.counts) if mode is None else (occurrences(words), None)
        d = len(features)
        if d < 2:
            continue  # check_words' (mode_features') refusal
        masks, unique, inverse = _self_check_masks(d, random_state)
        document = _Document(position, text, features, [1] * d if counts is None else counts, masks)
        document.rows = len(strings) + inverse
        full, removing = _removing_masks(d, random_state)
        made = mask_strings(words, removing) if mode is None else occurrence_strings(words, removing, mode.mask_string)
        if full >= 0:
            made.insert(full, text)  # the mask that keeps every word: the text itself
        strings += made
        pending.append(document)
    return pending, strings


@functools.lru_cache(maxsize=1024)
def _removing_masks(d, random_state):
    """Where the distinct self-check mask that keeps every word is among them (-1: none), and the others (read-only).

    Its string is the text (``mask_strings`` would join every token again); the others are joined.
    """
    _, unique, _ = _self_check_masks(d, random_state)
    full = unique.all(axis=1)
    removing = unique[~full]
    removing.flags.writeable = False
    return (int(np.flatnonzero(full)[0]) if full.any() else -1), removing


@functools.lru_cache(maxsize=1024)
def _self_check_masks(d, random_state):
    """explain's self-check masks for d words and the seed, their distinct rows and each mask's row (read-only).

    They depend on d and the seed only: drawn once per d for every chunk of the process.
    """
    masks = self_check_masks(d, np.random.default_rng(random_state))
    unique, inverse = unique_masks(masks.astype(np.int8))
    for array in (masks, unique, inverse):
        array.flags.writeable = False
    return masks, unique, inverse


def _scores(reader, strings):
    """The model's outputs on the chunk's self-check strings, one call per batch (None if it fails on them).

    A non-finite value fails the chunk: explain then says which document.
    """
    try:
        parts = [reader.scores(strings[start : start + _BATCH]) for start in range(0, len(strings), _BATCH)]
    except ValueError:
        return None
    if len({part.shape[1] for part in parts}) != 1:
        return None
    return np.concatenate(parts)


def _readings(model, pending, output, label, estimator_reading, mode=None):
    """One reading per document: a ``vectorizer_chunk.WordReading`` (batched), a LinearReading, or None."""
    first = model.steps[0][1]
    if estimator_reading.usable and isinstance(first, CountVectorizer):
        try:
            return vectorizer_readings(model, first, pending, estimator_reading)
        except (RouteUnavailable, ValueError, TypeError):
            return [None] * len(pending)
    readings = []
    for document in pending:
        try:
            readings.append(LinearReading(model, first, document.text, output, label, mode))
        except (RouteUnavailable, ValueError, TypeError):
            readings.append(None)
    return readings


class _LazyReading:
    """explain's LinearReading of one document, built on its first call (an explanation's ``mask_fn``)."""

    def __init__(self, model, text, output, label, mode=None):
        self.arguments, self.reading = (model, model.steps[0][1], text, output, label, mode), None

    def __call__(self, z, **options):
        if self.reading is None:
            self.reading = LinearReading(*self.arguments)
        return self.reading(z, **options)


class LinearRow:
    """One document the linear route explains and lime agrees with, before its :class:`Explanation` is built.

    It holds what ``corpus.explanations_frame`` reads of an explanation (``words``, ``beta``, ``label``, ``exact``,
    ``method``, ``stderr``, ``kernel_width``, ``lime_agrees``; no notes: lime agrees) and builds the explanation
    :func:`explain_linear_many` returns on ``explanation()``.

    Examples
    --------
    >>> from sklearn.feature_extraction.text import CountVectorizer
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.pipeline import make_pipeline
    >>> model = make_pipeline(CountVectorizer(), LogisticRegression()).fit(["good food", "bad food"], [1, 0])
    >>> row = linear_many_rows(model, ["good food and bad food", "good"], output="decision_function")[0]
    >>> row.words, row.explanation().words, row.explanation().notes
    (['good', 'food', 'and', 'bad'], ['good', 'food', 'and', 'bad'], ())
    """

    __slots__ = ("words", "beta", "label", "_arguments")
    exact, method, stderr, lime_agrees = True, "linear", None, True

    def __init__(self, document, beta, mask_fn, truth, call):
        self.words, self.beta, self.label = document.words, beta, call["label"]
        self._arguments = (document, mask_fn, truth, call)

    @property
    def kernel_width(self):
        """lime's kernel width of the call."""
        return self._arguments[3]["kernel_width"]

    def explanation(self):
        """The :class:`Explanation` explain returns for the document (lime agrees: no notes)."""
        document, mask_fn, truth, call = self._arguments
        return _explanation(document, self.label, self.beta, mask_fn, truth, call)


def _explanation(document, label, beta, mask_fn, truth, call):
    """The Explanation explain's ``explanation_family`` builds for the linear route and one label."""
    reader, mode = call["reader"], call["mode"]
    documents_of = None if mode is None else mode_documents(document.text, mode)
    explanation = Explanation(
        words=document.words, beta=beta, exact=True, method="linear", stderr=None, kernel_width=call["kernel_width"],
        output=reader.output, label=label, num_samples=None, sample=None, notes=(), mask_fn=mask_fn,
        random_state=call["random_state"], lime_num_samples=LIME_NUM_SAMPLES, labels=(label,),
        document_outputs=truth[0], scores_fn=mask_scores(document.text, reader, documents_of, call["columns"]),
        _shared={},
        top_labels=None, num_features=call["num_features"], feature_selection=call["feature_selection"],
        class_names=reader.class_names, text=document.text, mode=mode,
    )  # fmt: skip
    explanation._family[label] = explanation
    return explanation
