r"""The model's outputs on lime's perturbed documents, from the document's word counts: no string is built.

For a pipeline whose first step is a ``CountVectorizer``, ``TfidfVectorizer`` or ``HashingVectorizer``, removing
words from a document removes their counts from its row: the counts of a perturbed document are
``mask @ counts`` with ``counts`` the small (d x q) matrix of each lime word's columns, and the vectorizer's row
follows by the vectorizer's own steps (idf, sublinear tf, binary, norm) in the same floating-point order.  The
rows are those of ``vectorizer.transform`` on lime's strings bit for bit (tests compare them), and a run-time
self-check compares a few of them with the real transform before any is used.

Count and TF-IDF vectorizers are mirrored by :class:`limetheory.engine.tokens.DocumentCounts` (the fast engine's),
their word n-grams by :class:`limetheory.pipelines.reading.ngram_rows.NgramCounts` (the kept token sequence's);
:class:`HashedCounts` is its counterpart for the ``HashingVectorizer``, whose column of a token is its signed hash.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from sklearn.feature_extraction import FeatureHasher
from sklearn.feature_extraction.text import CountVectorizer, HashingVectorizer
from sklearn.pipeline import Pipeline

from ..._validation import check_text, check_vectorizer
from ...engine.tokens import DocumentCounts, normalize_rows
from .ngram_rows import CharChunks, NgramCounts

#: lime's default split: the rows are mirrored for lime's default word mode only
_TOKEN_PATTERNS = (r"(?u)\b\w\w+\b", r"(?u)\b\w+\b")
#: masks per call of the rest of the pipeline
_ROWS_PER_CALL = 8192
#: perturbed documents compared with the vectorizer's own transform before the rows are used
_SELF_CHECK_MASKS = 6


def _hashing_refusal(vectorizer):
    """Why the rows of this HashingVectorizer cannot be mirrored word by word (None when they can)."""
    problems = []
    if vectorizer.input != "content":
        problems.append(f"input={vectorizer.input!r}")
    if vectorizer.analyzer != "word" or tuple(vectorizer.ngram_range) != (1, 1):
        problems.append("not word unigrams")
    if vectorizer.tokenizer is not None or vectorizer.preprocessor is not None:
        problems.append("a custom tokenizer or preprocessor")
    if vectorizer.strip_accents is not None:
        problems.append(f"strip_accents={vectorizer.strip_accents!r}")
    if vectorizer.token_pattern not in _TOKEN_PATTERNS:
        problems.append(f"token_pattern={vectorizer.token_pattern!r}")
    return "; ".join(problems) or None


class HashedCounts:
    """A document as lime sees it (its distinct words) and as a ``HashingVectorizer`` sees it (signed counts).

    Row j of ``counts`` holds lime word j's signed hashed counts (its occurrences times ±1 with
    ``alternate_sign``) in the document's columns ``columns``; integer sums stay exact, so the rows of
    :meth:`transform` equal the vectorizer's.
    """

    def __init__(self, text, vectorizer):
        self.text = text
        self.vectorizer = vectorizer
        # lime.lime_text imports scikit-learn's linear models: loaded on first use, not by import limetheory
        from lime.lime_text import IndexedString

        self.indexed = IndexedString(text)
        self.words = [str(w) for w in self.indexed.inverse_vocab]
        self.d = len(self.words)
        if vectorizer.lowercase and "\u03a3" in text:
            raise ValueError("text contains the capital sigma 'Σ', whose lower-case form depends on its context")
        hasher = FeatureHasher(n_features=vectorizer.n_features, input_type="string", dtype=np.float64,
                               alternate_sign=vectorizer.alternate_sign)  # fmt: skip
        analyze = vectorizer.build_analyzer()
        rows = hasher.transform(analyze(word) for word in self.words).tocsr()
        occurrences = np.array([len(p) for p in self.indexed.positions], dtype=np.int64)
        rows = sp.diags(occurrences.astype(float)) @ rows
        rows.sum_duplicates()
        self.columns = np.unique(rows.indices).astype(np.int64)
        local = np.searchsorted(self.columns, rows.indices)
        self.counts = sp.csr_matrix(
            (np.rint(rows.data).astype(np.int64), local, rows.indptr), shape=(self.d, len(self.columns))
        )

    def documents(self, masks):
        """The strings lime builds for these masks (1 = word kept)."""
        return [self.indexed.inverse_removing(np.flatnonzero(np.asarray(mask) == 0)) for mask in masks]

    def transform(self, masks):
        """``vectorizer.transform(self.documents(masks))``, computed from the counts."""
        masks = np.asarray(masks)
        vectorizer = self.vectorizer
        # binary: a column is 1 when a kept token hashes to it, even when the signs cancel (sklearn keeps the zero)
        counts = abs(self.counts) if vectorizer.binary else self.counts
        counts = sp.csr_matrix(sp.csr_matrix(masks.astype(bool, copy=False), dtype=np.int64) @ counts)
        counts.sort_indices()
        matrix = sp.csr_matrix(
            (counts.data.astype(vectorizer.dtype), self.columns[counts.indices], counts.indptr.astype(np.int64)),
            shape=(len(masks), vectorizer.n_features),
        )
        if vectorizer.binary:
            matrix.data.fill(1)
        if vectorizer.norm is not None:
            matrix = normalize_rows(matrix, vectorizer.norm)
        return matrix


def document_rows(text, vectorizer):
    """(mirror, None) or (None, reason): ``vectorizer`` on ``text`` from counts, or why it cannot be.

    The mirror is a :class:`limetheory.engine.tokens.DocumentCounts` (Count, Tfidf), a
    :class:`limetheory.pipelines.reading.ngram_rows.NgramCounts` (Count, Tfidf of word n-grams) or a
    :class:`HashedCounts`.
    """
    text = check_text(text)
    try:
        if isinstance(vectorizer, HashingVectorizer):
            refusal = _hashing_refusal(vectorizer)
            if refusal is not None:
                return None, f"the HashingVectorizer's tokenisation is not mirrored: {refusal}"
            return HashedCounts(text, vectorizer), None
        if isinstance(vectorizer, CountVectorizer) and vectorizer.analyzer == "char_wb":
            return CharChunks(text, vectorizer), None  # character n-grams tabulated per whitespace chunk, or a reason
        if isinstance(vectorizer, CountVectorizer) and tuple(vectorizer.ngram_range) != (1, 1):
            return NgramCounts(text, vectorizer), None  # word n-grams from the token sequence, or a reason
        if isinstance(vectorizer, CountVectorizer):
            check_vectorizer(vectorizer, mirrored_by="the count rows")
            return DocumentCounts(text, vectorizer), None
    except ValueError as error:
        return None, str(error)
    return None, f"{type(vectorizer).__name__} is not a Count, Tfidf or Hashing vectorizer"


def rows_match(document, masks):
    """Whether the mirrored rows of ``masks`` equal ``vectorizer.transform`` of lime's strings, bit for bit."""
    ours = sp.csr_matrix(document.transform(masks)).toarray()
    truth = sp.csr_matrix(document.vectorizer.transform(document.documents(masks))).toarray()
    return ours.dtype == truth.dtype and np.array_equal(ours, truth)


def count_score_masks(model, text, output, columns=None, method=None):
    """masks -> the pipeline's ``output`` on lime's perturbed documents, from counts; (None, reason) if unavailable.

    Parameters
    ----------
    model : sklearn.pipeline.Pipeline
        Fitted, its first step a Count, Tfidf or Hashing vectorizer and at least one step after it.
    text : str
        The document (lime's default word mode).
    output : str
        The method of the pipeline's rest to call ("predict_proba", "decision_function", "predict").
    columns : callable or None
        Maps the raw output array to the (m, k) columns the caller reads (e.g. a binary decision function as
        (-score, score)); None: the output as an (m, k) array.
    method : callable or None
        rows -> the rest's ``output`` on them, bit for bit, faster (a forest's walk:
        :func:`limetheory.pipelines.reading.forest_walk.pipeline_forest_walk`); None: the rest's own method.

    Returns
    -------
    (score_masks, None) or (None, reason)
        ``score_masks(masks)`` returns the (m, k) outputs, the model evaluated once per batch of rows.

    Examples
    --------
    >>> from sklearn.feature_extraction.text import HashingVectorizer
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.pipeline import make_pipeline
    >>> docs = ["good food", "bad food", "good service", "bad service"]
    >>> model = make_pipeline(HashingVectorizer(n_features=64), LogisticRegression()).fit(docs, [1, 0, 1, 0])
    >>> score, why = count_score_masks(model, "good food, bad service", "predict_proba")
    >>> masks = np.array([[1, 1, 1, 1], [1, 0, 0, 1]], dtype=bool)
    >>> from limetheory import perturbed_documents
    >>> strings = perturbed_documents("good food, bad service", masks)
    >>> bool(np.array_equal(score(masks), model.predict_proba(strings)))  # bit for bit
    True
    """
    if not isinstance(model, Pipeline) or len(model.steps) < 2:
        return None, "not a Pipeline with a step after its vectorizer"
    document, reason = document_rows(text, model.steps[0][1])
    if document is None:
        return None, reason
    rest = model[1:]
    if not hasattr(rest, output):
        return None, f"the pipeline's rest has no {output}"
    method = getattr(rest, output) if method is None else method
    shape = columns if columns is not None else (lambda v: v.reshape(len(v), -1))
    rng = np.random.default_rng(0)
    d = document.d
    check = np.ones((_SELF_CHECK_MASKS, d), dtype=bool)
    for row in check[1:]:
        row[rng.choice(d, size=int(rng.integers(1, d + 1)), replace=False)] = False
    if not rows_match(document, check):
        return None, "the vectorizer's rows could not be reproduced from word counts (self-check failed)"

    def score_masks(masks):
        masks = np.asarray(masks)
        out = []
        for start in range(0, len(masks), _ROWS_PER_CALL):
            block = masks[start : start + _ROWS_PER_CALL]
            out.append(shape(np.asarray(method(document.transform(block)), dtype=float)))
        return np.concatenate(out)

    score_masks.columns = len(document.columns)  # the document's columns: the default budget's work model reads them
    score_masks.document = document  # and the kind of rows (an n-gram row costs more)
    return score_masks, None
