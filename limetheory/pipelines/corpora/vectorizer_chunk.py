"""A chunk's documents read through a Count or Tfidf vectorizer at once: the words' columns, weights and coefficients.

:func:`vectorizer_readings` gives :mod:`limetheory.pipelines.corpora.linear_many` one :class:`WordReading` per
document (or None where explain's reading refuses it), with its reconstruction on explain's self-check masks, from
elementwise operations on the chunk's concatenated words: the operations of
``limetheory.pipelines.reading.text_features`` and ``pipeline_reading``, in the same order, so the arrays are those
explain reads, bit for bit.  Each distinct word is analysed once per vectorizer and process
(:func:`word_columns_memo`); each text at most once, for the check that the vectorizer's tokens of the text are
those of lime's words taken one by one (``engine.tokens.word_columns``' check, its counts compared for the chunk at
once: :func:`token_mismatches`; an ASCII text under scikit-learn's default analysis passes it by construction:
:func:`tokens_are_words`); and the reconstructions on the self-check masks are three sparse products for the chunk
(:func:`batch_outputs`).
"""

from __future__ import annotations

import itertools
import weakref

import numpy as np
import scipy.sparse as sp
from sklearn.feature_extraction.text import TfidfTransformer, TfidfVectorizer

from ..._validation import check_vectorizer
from ..reading.modes import DEFAULT_TOKEN_PATTERN, tokens_are_words
from ..reading.pipeline_reading import RouteUnavailable, estimator_row, fold_affine_steps, self_check_tolerance
from ..reading.text_features import feature_epsilon

__all__ = [
    "EstimatorReading",
    "WordReading",
    "vectorizer_readings",
    "word_columns_memo",
    "tokens_are_words",
    "DEFAULT_TOKEN_PATTERN",
    "token_mismatches",
]

#: the batched self-check accepts a document when every reconstruction is within this share of explain's tolerance:
#: the chunk's sums run in another order than explain's (a few ulps of the magnitude, against a tolerance of
#: 4 (2 visible + 4) ulps), so a document it accepts is one explain's check accepts; a document between the two is
#: left to explain, which decides it itself
BATCH_CHECK_SHARE = 0.5
#: a word that the vectorizer's analyzer splits into several tokens (word_columns refuses its document)
_SPLIT = -2
#: each vectorizer's memo of its words' columns (``word_columns_memo``), for as long as the vectorizer lives
_WORD_COLUMNS = weakref.WeakKeyDictionary()


class EstimatorReading:
    """What LinearReading reads of the estimator and the steps between the features and it, once for the chunk."""

    def __init__(self, model, label):
        coef, intercept, row, self.sign = estimator_row(model.steps[-1][1], label)
        self.width = coef.shape[1]
        self.usable = row < coef.shape[0]
        if not self.usable:
            return
        self.raw = coef[row]
        self.intercept0 = float(intercept[row] if intercept.size > 1 else intercept[0])

    def fold(self, middle):
        """(coef, intercept, intercept magnitude) with the affine ``middle`` steps folded in, as LinearReading."""
        return fold_affine_steps(self.raw, self.intercept0, middle, self.width)


class WordReading:
    """One document's single part (a Count or Tfidf vectorizer's words), with what ``LinearReading.beta`` reads."""

    __slots__ = ("parts", "sign", "intercept", "mask_weight", "lam", "values", "groups", "norm", "check_values")

    def __init__(self, lam, values, groups, norm, sign, intercept):
        self.lam, self.values, self.groups, self.norm = lam, values, groups, norm
        self.parts = (self,)
        self.sign, self.intercept, self.mask_weight = sign, intercept, 0.0
        self.check_values = None  # (the reconstruction on the self-check masks, the share of explain's tolerance)


def vectorizer_readings(model, vectorizer, pending, estimator_reading):
    """The readings of a chunk whose first step is a Count or Tfidf vectorizer, the words of every document at once.

    The operations of ``text_features._Chain`` and ``pipeline_reading._ReadPart`` on the chunk's concatenated words
    (elementwise, so each document's arrays are those explain reads); the checks that refuse a document there
    (a word the analyzer splits, tokens of the text that are not lime's words, binary or sublinear counts of words
    that share a column, a non-finite idf) refuse it here.  Then the chunk's self-check (:func:`batch_outputs`).
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
    columns_of = word_columns_memo(vectorizer)
    analyze = vectorizer.build_analyzer()
    vocabulary = vectorizer.vocabulary_
    sizes = np.fromiter(map(len, (document.words for document in pending)), dtype=np.int64, count=len(pending))
    starts = np.concatenate([[0], np.cumsum(sizes)])
    words = list(itertools.chain.from_iterable(document.words for document in pending))
    for word in set(words).difference(columns_of):
        tokens = analyze(word)
        columns_of[word] = _SPLIT if len(tokens) > 1 else (vocabulary.get(tokens[0], -1) if tokens else -1)
    columns = np.fromiter(map(columns_of.__getitem__, words), dtype=np.int64, count=len(words))
    counts = np.fromiter(
        itertools.chain.from_iterable(document.counts for document in pending), dtype=np.int64, count=len(words)
    )
    owner = np.repeat(np.arange(len(pending)), sizes)
    refused = np.zeros(len(pending), dtype=bool)
    refused[owner[columns == _SPLIT]] = True
    columns[columns == _SPLIT] = -1
    visible = columns >= 0
    # one key per (document, vectorizer column) of the visible words, and its words' counts summed
    keys = owner[visible] * width + columns[visible]
    unique_keys, inverse, key_counts = np.unique(keys, return_inverse=True, return_counts=True)
    inverse = inverse.ravel()
    # the vectorizer's own tokens of each text (one analysis of each) against the sums of its words' counts
    column_counts = np.bincount(inverse, weights=counts[visible], minlength=unique_keys.size)
    # (an ASCII text under scikit-learn's default analysis passes it by construction: tokens_are_words)
    default = tokens_are_words(vectorizer)
    analysed = [i for i, document in enumerate(pending) if not (default and document.text.isascii())]
    if analysed:
        texts = [pending[i].text for i in analysed]
        refused[token_mismatches(analyze, vocabulary, texts, np.array(analysed), unique_keys, column_counts)] = True
    # words whose column holds another word of the same document (text_features._Chain.shared)
    shared = np.zeros(len(words), dtype=bool)
    shared[visible] = key_counts[inverse] > 1
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
        else WordReading(lam[start:stop], values[start:stop], groups[start:stop], norm, sign, intercept)
        for i, (start, stop) in enumerate(zip(starts[:-1], starts[1:], strict=True))
    ]
    visible_columns = np.bincount(unique_keys // width, minlength=len(pending)) if width else np.zeros(len(pending))
    group_index = np.empty(len(words), dtype=np.int64)  # a column per (document, vectorizer column), and per
    group_index[visible] = inverse  # invisible word, over the chunk
    group_index[~visible] = unique_keys.size + np.arange(int((~visible).sum()))
    part, magnitude, bounds = batch_outputs(pending, starts, lam, values, norm, group_index)
    # explain's tolerance of each mask (self_check_tolerance's operations, elementwise)
    of_mask = np.repeat(visible_columns, np.diff(bounds))
    shares = BATCH_CHECK_SHARE * self_check_tolerance(
        feature_epsilon(vectorizer), of_mask, magnitude + intercept_magnitude
    )
    outputs = part + sign * intercept
    for reading, a, b in zip(readings, bounds[:-1].tolist(), bounds[1:].tolist(), strict=True):
        if reading is not None:
            reading.check_values = (outputs[a:b], shares[a:b])
    return readings


def word_columns_memo(vectorizer):
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


def token_mismatches(analyze, vocabulary, texts, documents, keys, counts):
    """The documents whose vectorizer columns do not hold the counts of lime's words.

    ``engine.tokens.word_columns``' check for a chunk: the tokens of ``texts[i]`` (``analyze``, those in
    ``vocabulary``), the text of document ``documents[i]``, must fill each column c ``counts[k]`` times where
    ``keys[k] == documents[i] * width + c`` (its words' counts summed; ``width = len(vocabulary)``), and no other
    column.  Each text is analysed once, and its tokens' columns are counted for the chunk at once (one sort of their
    keys); the keys of other documents are not read.

    Parameters
    ----------
    analyze : callable
        The vectorizer's analyzer (``build_analyzer()``): str -> list of tokens.
    vocabulary : dict
        Its ``vocabulary_``.
    texts : list of str
        The texts analysed.
    documents : ndarray of int
        Each text's document, increasing.
    keys : ndarray of int
        Sorted, distinct: ``document * width + column`` for each column lime's words give a document.
    counts : ndarray
        Each key's count (the sum of its words' occurrences).

    Returns
    -------
    ndarray of int
        The documents where the two differ, possibly repeated (empty when none does).

    Examples
    --------
    >>> from sklearn.feature_extraction.text import CountVectorizer
    >>> vectorizer = CountVectorizer().fit(["good food", "bad food"])
    >>> analyze, vocabulary = vectorizer.build_analyzer(), vectorizer.vocabulary_  # bad 0, food 1, good 2: width 3
    >>> keys, counts = np.array([1, 2, 3 + 0, 6 + 0]), np.array([2, 1, 1, 1])  # 0: food twice, good; 1, 2: bad
    >>> token_mismatches(analyze, vocabulary, ["good food, food", "bad food"], np.array([0, 2]), keys, counts)
    array([2])
    """
    width = len(vocabulary)
    tokens = list(map(analyze, texts))
    sizes = np.fromiter(map(len, tokens), dtype=np.int64, count=len(tokens))
    columns = np.fromiter(
        map(vocabulary.get, itertools.chain.from_iterable(tokens), itertools.repeat(-1)),
        dtype=np.int64,
        count=int(sizes.sum()),
    )
    owner = np.repeat(np.asarray(documents, dtype=np.int64), sizes)
    known = columns >= 0
    seen, seen_counts = np.unique(owner[known] * width + columns[known], return_counts=True)
    read = np.isin(keys // max(width, 1), documents)  # the keys of the documents analysed
    keys, counts = keys[read], np.asarray(counts)[read]
    if seen.size == keys.size and (seen == keys).all() and (seen_counts == counts).all():
        return np.zeros(0, dtype=np.int64)
    # the keys where the two counts differ (a key missing from one side counts 0 there)
    union, inverse = np.unique(np.concatenate([seen, keys]), return_inverse=True)
    difference = np.bincount(inverse.ravel(), weights=np.concatenate([seen_counts, -counts]))
    return union[difference != 0] // width


def batch_outputs(pending, starts, lam, values, norm, group_index):
    r"""Each document's linear part on its self-check masks and its magnitude (``LinearReading.__call__``), at once.

    The documents' masks are stacked into one block-diagonal sparse (masks x words) matrix; the column sums of every
    mask (the shared columns summed, as ``_ReadPart.output`` does) come from one product with the words' weights,
    and the part and its magnitude (:math:`\sum_c \lvert w_c \phi_c \rvert`) from two more.  Returns the part and
    the magnitude on every mask, without the intercept, and where each document's masks start (and their total).
    """
    # the masks' kept words, every document's at once: row-major as np.nonzero gives each document's
    shapes = np.array([document.masks.shape for document in pending], dtype=np.int64).reshape(-1, 2)
    blocks = np.concatenate([[0], np.cumsum(shapes[:, 0] * shapes[:, 1])])
    offsets = np.concatenate([[0], np.cumsum(shapes[:, 0])])
    kept = np.flatnonzero(np.concatenate([document.masks.ravel() for document in pending]))
    owner = np.searchsorted(blocks, kept, side="right") - 1
    row, word = np.divmod(kept - blocks[owner], shapes[owner, 1])
    rows, columns, offset = offsets[owner] + row, starts[owner] + word, int(offsets[-1])
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
    return part, magnitude, offsets
