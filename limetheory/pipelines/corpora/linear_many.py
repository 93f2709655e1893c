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
* the reconstructions of the self-check are one sparse product for the chunk (:func:`_batch_outputs`);
* β is ``LinearReading.beta`` (explain's code) on each document's arrays.

Other first steps (a HashingVectorizer, a FeatureUnion, a ColumnTransformer of one text column) are read document by
document by explain's ``LinearReading``, with the chunk's one model call for their self-checks.
"""

from __future__ import annotations

import functools
import warnings
import weakref

import numpy as np
import scipy.sparse as sp
from sklearn.base import is_classifier
from sklearn.feature_extraction.text import CountVectorizer, TfidfTransformer, TfidfVectorizer
from sklearn.pipeline import Pipeline

from ..._validation import check_int, check_positive_finite, check_vectorizer
from ...engine.lime_tokens import lime_words, mask_strings
from ...theory.linear.linear_chunk import beta_linear_exact_chunk
from ..reading.blackbox import BATCH as _BATCH
from ..reading.blackbox import mask_scores, read_model, unique_masks
from ..reading.lime_call import LIME_NUM_SAMPLES
from ..reading.pipeline_reading import (
    LinearReading,
    RouteUnavailable,
    affine_steps,
    check_pipeline,
    self_check_masks,
    self_check_tolerance,
)
from ..reading.text_features import feature_epsilon, reads_words
from ..results.agreement import agreeing_documents, agreement_notes, lime_disagreement
from ..results.result import Explanation
from ..routing import explain  # noqa: F401  (the docstring's example compares with it)

#: the batched self-check accepts a document when every reconstruction is within this share of explain's tolerance:
#: the chunk's sums run in another order than explain's (a few ulps of the magnitude, against a tolerance of
#: 4 (2 visible + 4) ulps), so a document it accepts is one explain's check accepts; a document between the two is
#: left to explain, which decides it itself
_BATCH_CHECK_SHARE = 0.5
#: a word that the vectorizer's analyzer splits into several tokens (word_columns refuses its document)
_SPLIT = -2
#: each vectorizer's memo of its words' columns (``_word_columns_memo``), for as long as the vectorizer lives
_WORD_COLUMNS = weakref.WeakKeyDictionary()


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
    rows = _rows(model, texts, kernel_width, label, output, random_state, num_features, feature_selection)
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
):
    """:func:`explain_linear_many` with the explanations lime agrees with left unbuilt: what a corpus's frame reads.

    The same documents, β, words, labels and agreement as :func:`explain_linear_many` (the same code), and the same
    warning; an entry is None, an :class:`Explanation` (where lime's agreement needed its full check), or a
    :class:`LinearRow`: the frame's fields of an explanation without notes, whose ``explanation()`` builds
    :func:`explain_linear_many`'s.  ``limetheory.pipelines.corpora.corpus`` builds its frame from them.

    Parameters
    ----------
    model, texts, kernel_width, label, output, random_state, num_features, feature_selection
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
    return _rows(model, texts, kernel_width, label, output, random_state, num_features, feature_selection)


def _rows(model, texts, kernel_width, label, output, random_state, num_features, feature_selection):
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
    try:
        reader = read_model(model, output)  # the model as explain calls it (a ColumnTransformer's frame included)
    except TypeError:  # a ColumnTransformer of several input columns: explain says why
        return [None] * len(texts)
    results = [None] * len(texts)
    if not _linear_output(model, output):
        return results
    pending, strings = _documents(texts, random_state)
    if not pending:
        return results
    values = _scores(reader, strings)
    if values is not None and label is None:
        label = 0 if values.shape[1] == 1 else 1  # lime's default labels, as explain resolves them
    if values is None or label >= values.shape[1]:
        return results  # explain raises (a label out of range, a model whose outputs change shape)
    estimator_reading = _EstimatorReading(model, label)
    readings = _readings(model, pending, output, label, estimator_reading)
    nu = kernel_width / 100.0
    call = dict(
        kernel_width=kernel_width, output=output, random_state=random_state, num_features=num_features,
        feature_selection=feature_selection, reader=reader, columns=values.shape[1], label=label,
    )  # fmt: skip
    accepted = []  # (document, beta, mask_fn, truth) of the documents the route explains
    parts = _part_betas(pending, readings, values, label, nu)
    for document, reading in zip(pending, readings, strict=True):
        if reading is None:
            continue
        truth = values[document.rows]
        if not np.isfinite(truth).all():
            continue
        try:
            if isinstance(reading, LinearReading):
                reading.check(document.masks, truth[:, label])
                beta = reading.beta(nu)
                mask_fn = reading
            else:
                ours, tolerance = reading.check_values
                if not (np.abs(ours - truth[:, label]) <= tolerance).all():
                    continue  # explain decides (module docstring: _BATCH_CHECK_SHARE)
                beta = _reading_beta(reading, parts.get(document.position), nu)
                mask_fn = _LazyReading(model, document.text, output, label)
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


def _part_betas(pending, readings, values, label, nu):
    """beta_linear_exact of the checked word readings' parts, for the chunk at once (linear_chunk), by position.

    None where that leaves the document to beta_linear_exact (:func:`_reading_beta`).
    """
    chosen = []
    for document, reading in zip(pending, readings, strict=True):
        if not isinstance(reading, _WordReading) or not (reading.values > 0).any():
            continue
        truth = values[document.rows, label]
        ours, tolerance = reading.check_values
        if np.isfinite(truth).all() and (np.abs(ours - truth) <= tolerance).all():
            chosen.append((document.position, reading))
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


def _documents(texts, random_state):
    """The documents with at least 2 words, their self-check masks (explain's, from the seed) and their strings.

    Each text is tokenised once, by lime's tokenisation (``engine.lime_tokens.lime_words``, the reading behind
    ``engine.tokens``, which explain reads): its words, their occurrences (word_columns' counts: each
    word's number of tokens) and the strings of its distinct masks, in order (``perturbed_documents``' expansion of
    the masks to the tokens, without its argument checks: the masks are 0/1 and the text is checked here); each
    document's ``rows`` index its masks in the strings.
    """
    pending, strings = [], []
    for position, text in enumerate(texts):
        if not isinstance(text, str) or not text.strip():
            continue  # check_text's refusals (explain raises)
        words = lime_words(text)
        if len(words.words) < 2:
            continue  # check_words' refusal
        masks, unique, inverse = _self_check_masks(len(words.words), random_state)
        document = _Document(position, text, words.words, words.counts, masks)
        document.rows = len(strings) + inverse
        strings += mask_strings(words, unique)
        pending.append(document)
    return pending, strings


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


class _EstimatorReading:
    """What LinearReading reads of the estimator and the steps between the features and it, once for the chunk."""

    def __init__(self, model, label):
        estimator = model.steps[-1][1]
        coef = estimator.coef_
        coef = np.atleast_2d(coef.toarray() if hasattr(coef, "toarray") else np.asarray(coef, dtype=float))
        intercept = np.atleast_1d(np.asarray(estimator.intercept_, dtype=float))
        self.sign = 1.0
        row = label
        if is_classifier(estimator) and coef.shape[0] == 1:  # binary: columns (-score, score)
            row, self.sign = 0, (1.0 if label == 1 else -1.0)
        self.width = coef.shape[1]
        self.usable = row < coef.shape[0]
        if not self.usable:
            return
        self.raw = coef[row]
        self.intercept0 = float(intercept[row] if intercept.size > 1 else intercept[0])

    def fold(self, middle):
        """(coef, intercept, intercept magnitude) with the affine ``middle`` steps folded in, as LinearReading."""
        coef, intercept, magnitude = self.raw, self.intercept0, abs(self.intercept0)
        if any(step is not None and not (isinstance(step, str) and step == "passthrough") for _, step in middle):
            scale, shift = affine_steps(middle, self.width)
            coef = self.raw * scale
            intercept += float(self.raw @ shift)
            magnitude += float(np.abs(self.raw) @ np.abs(shift))
        return coef, intercept, magnitude


def _readings(model, pending, output, label, estimator_reading):
    """One reading per document: a :class:`_WordReading` (batched), a LinearReading (per document), or None."""
    first = model.steps[0][1]
    if estimator_reading.usable and isinstance(first, CountVectorizer):
        try:
            return _vectorizer_readings(model, first, pending, estimator_reading)
        except (RouteUnavailable, ValueError, TypeError):
            return [None] * len(pending)
    readings = []
    for document in pending:
        try:
            readings.append(LinearReading(model, first, document.text, output, label))
        except (RouteUnavailable, ValueError, TypeError):
            readings.append(None)
    return readings


class _WordReading:
    """One document's single part (a Count or Tfidf vectorizer's words), with what ``LinearReading.beta`` reads."""

    __slots__ = ("parts", "sign", "intercept", "mask_weight", "lam", "values", "groups", "norm", "check_values")

    def __init__(self, lam, values, groups, norm, sign, intercept):
        self.lam, self.values, self.groups, self.norm = lam, values, groups, norm
        self.parts = (self,)
        self.sign, self.intercept, self.mask_weight = sign, intercept, 0.0
        self.check_values = None  # (the reconstruction on the self-check masks, the share of explain's tolerance)


def _vectorizer_readings(model, vectorizer, pending, estimator_reading):
    """The readings of a chunk whose first step is a Count or Tfidf vectorizer, the words of every document at once.

    The operations of ``text_features._Chain`` and ``pipeline_reading._ReadPart`` on the chunk's concatenated words
    (elementwise, so each document's arrays are those explain reads); the checks that refuse a document there
    (a word the analyzer splits, tokens of the text that are not lime's words, binary or sublinear counts of words
    that share a column, a non-finite idf) refuse it here.  Then the chunk's self-check (:func:`_batch_outputs`).
    """
    check_vectorizer(vectorizer, unigrams=True)
    width = len(vectorizer.vocabulary_)
    following = model.steps[1:-1]
    tfidf_steps = [vectorizer] if isinstance(vectorizer, TfidfVectorizer) else []
    if following and isinstance(following[0][1], TfidfTransformer):
        tfidf_steps.append(following[0][1])
        following = following[1:]
    if width != estimator_reading.width:
        raise RouteUnavailable("the estimator does not read the vectorizer's columns")
    coef, intercept, intercept_magnitude = estimator_reading.fold(following)
    sign = estimator_reading.sign
    # each distinct word analysed once (word_columns' memo, kept for the vectorizer's next chunks in this process),
    # the chunk's words concatenated
    columns_of = _word_columns_memo(vectorizer)
    analyze = vectorizer.build_analyzer()
    vocabulary = vectorizer.vocabulary_
    sizes = np.array([len(document.words) for document in pending], dtype=np.int64)
    starts = np.concatenate([[0], np.cumsum(sizes)])
    words = [word for document in pending for word in document.words]
    for word in set(words).difference(columns_of):
        tokens = analyze(word)
        columns_of[word] = _SPLIT if len(tokens) > 1 else (vocabulary.get(tokens[0], -1) if tokens else -1)
    columns = np.array([columns_of[word] for word in words], dtype=np.int64)
    counts = np.array([count for document in pending for count in document.counts], dtype=np.int64)
    owner = np.repeat(np.arange(len(pending)), sizes)
    refused = np.zeros(len(pending), dtype=bool)
    refused[owner[columns == _SPLIT]] = True
    columns[columns == _SPLIT] = -1
    visible = columns >= 0
    # the vectorizer's own counts of each text (one pass over the chunk) against the sums of its words' counts
    seen = _vectorizer_counts(vectorizer, [document.text for document in pending], width)
    ours = sp.csr_matrix((counts[visible], (owner[visible], columns[visible])), shape=(len(pending), width))
    difference = (seen - ours).tocsr()
    difference.eliminate_zeros()
    refused |= np.diff(difference.indptr) > 0
    # words whose column holds another word of the same document (text_features._Chain.shared)
    keys = owner[visible] * width + columns[visible]
    unique_keys, inverse, key_counts = np.unique(keys, return_inverse=True, return_counts=True)
    shared = np.zeros(len(words), dtype=bool)
    shared[visible] = key_counts[inverse.ravel()] > 1
    # text_features._Chain, elementwise on the chunk
    values = np.where(visible, counts, 0).astype(float)
    signs = np.where(visible, np.ones(len(words)), 0).astype(float)
    post = np.ones(len(words))
    norm, raw = None, True
    if vectorizer.binary:
        refused[owner[shared]] = True
        values = np.where(visible, 1.0, 0.0)
        signs = np.where(visible, 1.0, 0.0)
    for step in tfidf_steps:
        if step.sublinear_tf:
            refused[owner[shared]] = True
            if not raw:
                raise RouteUnavailable("a sublinear tf of scaled or normalised counts is not a count's")
            values = np.where(visible, 1.0 + np.log(np.maximum(values, 1.0)), 0.0)
        if step.use_idf:
            idf = getattr(step, "idf_", None)
            if idf is None or np.shape(idf) != (width,):
                raise RouteUnavailable("the tf-idf step is not fitted on the vectorizer's columns")
            gathered = np.where(visible, np.asarray(idf, dtype=float)[np.maximum(columns, 0)], 0.0)
            refused[owner[~np.isfinite(gathered)]] = True
            signs = np.where(gathered < 0, -signs, signs)
            if norm is None:
                values = values * np.abs(gathered)
            else:
                post = post * np.abs(gathered)
            raw = False
        if step.norm is not None:
            if step.norm not in ("l1", "l2"):
                raise RouteUnavailable(f"the row norm {step.norm!r} is not 'l1', 'l2' or None")
            values = values * post
            post = np.ones(len(words))
            norm, raw = step.norm, False
    factors = signs * post
    # pipeline_reading._ReadPart: the coefficients carried to the words, and a label per column (one of its own
    # for each invisible word)
    lam = sign * np.where(visible, factors * coef[np.maximum(columns, 0)], 0.0)
    local = np.arange(len(words)) - starts[owner]
    groups = np.where(visible, columns, -1 - local)
    readings = [
        None
        if refused[i]
        else _WordReading(lam[start:stop], values[start:stop], groups[start:stop], norm, sign, intercept)
        for i, (start, stop) in enumerate(zip(starts[:-1], starts[1:], strict=True))
    ]
    visible_columns = np.bincount(unique_keys // width, minlength=len(pending)) if width else np.zeros(len(pending))
    group_index = np.empty(len(words), dtype=np.int64)  # a column per (document, vectorizer column), and per
    group_index[visible] = inverse.ravel()  # invisible word, over the chunk
    group_index[~visible] = unique_keys.size + np.arange(int((~visible).sum()))
    outputs = _batch_outputs(pending, starts, lam, values, norm, group_index)
    epsilon = feature_epsilon(vectorizer)
    for i, reading in enumerate(readings):
        if reading is not None:
            ours, magnitude = outputs[i]
            tolerance = self_check_tolerance(epsilon, int(visible_columns[i]), magnitude + intercept_magnitude)
            reading.check_values = (ours + sign * intercept, _BATCH_CHECK_SHARE * tolerance)
    return readings


def _word_columns_memo(vectorizer):
    """The vectorizer's column of each word analysed so far in this process (``_SPLIT``: several tokens; -1: none).

    A worker of explain_many explains its chunks with one model: each chunk's new words only are analysed.  The memo
    lives as long as the vectorizer (weakly keyed) and is emptied when what the analysis reads changes: the fitted
    vocabulary (a refit makes a new one) or a parameter (``set_params``).
    """
    state = (vectorizer.vocabulary_, repr(sorted(vectorizer.get_params(deep=False).items())))
    kept = _WORD_COLUMNS.get(vectorizer)
    if kept is None or kept[0] is not state[0] or kept[1] != state[1]:
        kept = (*state, {})
        _WORD_COLUMNS[vectorizer] = kept
    return kept[2]


def _vectorizer_counts(vectorizer, texts, width):
    """The vectorizer's token counts of each text (before binary, tf-idf and norm): its analyzer, one pass."""
    if not vectorizer.binary:
        return sp.csr_matrix(CountVectorizer.transform(vectorizer, texts), dtype=np.int64)
    analyze, vocabulary = vectorizer.build_analyzer(), vectorizer.vocabulary_
    rows, cols = [], []
    for i, text in enumerate(texts):
        found = [vocabulary[token] for token in analyze(text) if token in vocabulary]
        rows += [i] * len(found)
        cols += found
    data = np.ones(len(rows), dtype=np.int64)
    return sp.csr_matrix((data, (rows, cols)), shape=(len(texts), width))


def _batch_outputs(pending, starts, lam, values, norm, group_index):
    r"""Each document's linear part on its self-check masks and its magnitude (``LinearReading.__call__``), at once.

    The documents' masks are stacked into one block-diagonal sparse (masks x words) matrix; the column sums of every
    mask (the shared columns summed, as ``_ReadPart.output`` does) come from one product with the words' weights,
    and the part and its magnitude (:math:`\sum_c \lvert w_c \phi_c \rvert`) from two more.  Returns a list of
    (part, magnitude) per document, without the intercept.
    """
    rows, columns, offset = [], [], 0
    for document, start in zip(pending, starts[:-1], strict=False):
        kept_row, kept_word = np.nonzero(document.masks)
        rows.append(kept_row + offset)
        columns.append(kept_word + start)
        offset += document.masks.shape[0]
    rows, columns = np.concatenate(rows), np.concatenate(columns)
    stacked = sp.csr_matrix((np.ones(rows.size), (rows, columns)), shape=(offset, starts[-1]))
    n_groups = int(group_index.max()) + 1
    membership = sp.csr_matrix((values, (np.arange(values.size), group_index)), shape=(values.size, n_groups))
    lam_of_group = np.zeros(n_groups)
    lam_of_group[group_index] = lam
    per_group = (stacked @ membership).tocsr()
    part = per_group @ lam_of_group
    magnitude = per_group @ np.abs(lam_of_group)  # the values are >= 0: the column sums are their own magnitude
    if norm is not None:
        norms = np.asarray((per_group.multiply(per_group) if norm == "l2" else per_group).sum(axis=1)).ravel()
        norms = np.sqrt(norms) if norm == "l2" else norms
        part = np.divide(part, norms, out=np.zeros_like(part), where=norms > 0)
        magnitude = np.divide(magnitude, norms, out=np.zeros_like(magnitude), where=norms > 0)
    bounds = np.cumsum([0] + [document.masks.shape[0] for document in pending])
    return [(part[a:b], magnitude[a:b]) for a, b in zip(bounds[:-1], bounds[1:], strict=True)]


class _LazyReading:
    """explain's LinearReading of one document, built on its first call (an explanation's ``mask_fn``)."""

    def __init__(self, model, text, output, label):
        self.arguments, self.reading = (model, model.steps[0][1], text, output, label), None

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
    reader = call["reader"]
    explanation = Explanation(
        words=document.words, beta=beta, exact=True, method="linear", stderr=None, kernel_width=call["kernel_width"],
        output=reader.output, label=label, num_samples=None, sample=None, notes=(), mask_fn=mask_fn,
        random_state=call["random_state"], lime_num_samples=LIME_NUM_SAMPLES, labels=(label,),
        document_outputs=truth[0], scores_fn=mask_scores(document.text, reader, None, call["columns"]), _shared={},
        top_labels=None, num_features=call["num_features"], feature_selection=call["feature_selection"],
        class_names=reader.class_names, text=document.text, mode=None,
    )  # fmt: skip
    explanation._family[label] = explanation
    return explanation
