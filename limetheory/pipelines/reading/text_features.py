r"""The columns that a pipeline's text features give each of lime's words, read for the linear route.

The linear route reads a pipeline as :math:`f = b + \sum_c w_c \phi(x)_c`
(``limetheory.pipelines.reading.pipeline_reading``).  This module reads φ word by word: for each word j of lime's local
dictionary, the column it feeds (-1: none), what it adds there before its row's norm (:math:`t_j \ge 0`: its count
times the scales applied before the norm, such as an idf) and the factor that carries its column's weight to it
(the sign of its hash times the scales applied after the norm).  φ is one or several :class:`WordPart`, each
normalised on its own:

* a ``CountVectorizer`` or ``TfidfVectorizer`` (columns from :func:`limetheory.engine.tokens.word_columns`, or
  ``limetheory.pipelines.reading.modes.linear_features`` for lime's other text modes);
* a ``HashingVectorizer`` (columns from :class:`limetheory.pipelines.reading.count_rows.HashedCounts`): a token's column
is
  its hash and, with ``alternate_sign=True``, each occurrence adds ±1 there.  Words that share a column with one
  sign add up in it, :math:`\pm \sum_j t_j`: the norm sees :math:`(\sum_j t_j)^2` and the coefficient carries the
  sign, a column of :func:`limetheory.theory.linear.linear_exact.beta_linear_exact`'s ``groups``.  Words of opposite
  signs in one column (the column holds :math:`t_1 - t_2`, which the exact route does not take) are refused;
* either followed by a ``TfidfTransformer`` (sublinear tf, idf, norm);
* a ``FeatureUnion`` of such parts (each a vectorizer, or a Pipeline of a vectorizer and a ``TfidfTransformer``),
  with its ``transformer_weights``: f is the sum of one linear model per part, so β is the sum of their β; or a
  ``ColumnTransformer`` of such parts, fitted on one input column (lime's text), read as the same union.

Scales and norms compose: a norm makes its row scale-free, so a later norm sees the scales applied before both and
only a part's last norm counts; the scales after it multiply the coefficients.  A negative scale (a transformer
weight) changes the word's sign, not its weight: both norms see absolute values.  Every reading is refused with its
reason (ValueError) where the route does not apply: a part of character n-grams or word bigrams, binary or sublinear
counts of words that share a column, a step that is not one of these.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

import numpy as np
from sklearn.feature_extraction.text import CountVectorizer, HashingVectorizer, TfidfTransformer, TfidfVectorizer
from sklearn.pipeline import FeatureUnion, Pipeline

from ...engine.tokens import word_columns
from .count_rows import document_rows
from .modes import linear_features, one_column_each


@dataclass(frozen=True)
class WordPart:
    r"""One normalised block of the features, word by word (module docstring).

    Attributes
    ----------
    columns : numpy.ndarray of int, shape (d,)
        The column of each word in the estimator's input, -1 for a word the part does not see.
    values : numpy.ndarray, shape (d,)
        :math:`t_j \ge 0`, what word j adds to its column before the part's norm (0 for an unseen word).
    factors : numpy.ndarray, shape (d,)
        What carries the coefficient of word j's column to it: the sign of its hash times the scales after the
        norm (0 for an unseen word).
    norm : {"l2", "l1", None}
        The part's last row norm.
    """

    columns: np.ndarray
    values: np.ndarray
    factors: np.ndarray
    norm: str | None


@dataclass(frozen=True)
class TextFeatures:
    """The text features of a pipeline, read word by word.

    Attributes
    ----------
    parts : tuple of WordPart
        One per normalised block (one for a vectorizer, one per transformer of a FeatureUnion).
    width : int
        The number of columns of the features (the input of the next step).
    steps : int
        How many of the steps after the first the features take (1 for a ``TfidfTransformer``, else 0).
    epsilon : float
        The machine epsilon of the coarsest dtype in which the pipeline computes the features.
    lime_features : object or None
        lime's features of another text mode (``limetheory.pipelines.reading.modes.LinearFeatures``), for the mask
        token.
    """

    parts: tuple
    width: int
    steps: int
    epsilon: float
    lime_features: object = None


def is_column_transformer(step):
    """Whether ``step`` is a scikit-learn ``ColumnTransformer``, without importing ``sklearn.compose``.

    ``sklearn.compose`` imports scikit-learn's linear models (a tenth of a second), which ``import limetheory`` does
    not pay: while no module has imported it, no step can be one of its classes.

    Examples
    --------
    >>> from sklearn.compose import ColumnTransformer
    >>> is_column_transformer(ColumnTransformer([])), is_column_transformer(object())
    (True, False)
    """
    compose = sys.modules.get("sklearn.compose")
    return compose is not None and isinstance(step, compose.ColumnTransformer)


def reads_words(step):
    """Whether ``step`` is a first step whose columns this module reads: a word vectorizer, or several joined.

    Examples
    --------
    >>> from sklearn.feature_extraction.text import HashingVectorizer
    >>> from sklearn.preprocessing import StandardScaler
    >>> reads_words(HashingVectorizer()), reads_words(StandardScaler())
    (True, False)
    """
    return isinstance(step, (CountVectorizer, HashingVectorizer, FeatureUnion)) or is_column_transformer(step)


def feature_epsilon(vectorizer):
    """The machine epsilon of the features the pipeline computes (the vectorizer's floating dtype, else float64).

    Examples
    --------
    >>> from sklearn.feature_extraction.text import CountVectorizer, TfidfVectorizer
    >>> feature_epsilon(TfidfVectorizer(dtype=np.float32)) == float(np.finfo(np.float32).eps)
    True
    >>> feature_epsilon(CountVectorizer()) == float(np.finfo(np.float64).eps)  # integer counts, then doubles
    True
    """
    dtype = np.dtype(getattr(vectorizer, "dtype", np.float64))
    return float(np.finfo(dtype).eps) if np.issubdtype(dtype, np.floating) else float(np.finfo(float).eps)


def text_features(first, following, text, mode=None, memo=None):
    """The :class:`TextFeatures` of a pipeline's first step ``first`` (and a TfidfTransformer after it) on ``text``.

    Parameters
    ----------
    first : object
        The pipeline's first step: a fitted Count, Tfidf or Hashing vectorizer, or a FeatureUnion of them (or a
        ColumnTransformer of them on one text column).
    following : list of (str, object)
        The pipeline's steps after ``first`` and before the estimator; a leading ``TfidfTransformer`` is read.
    text : str
        The document.
    mode : object or None
        lime's text mode (``limetheory.pipelines.reading.modes``) other than its default words: a Count or Tfidf
        vectorizer alone only.
    memo : dict or None
        The words' columns kept between calls with the same fitted ``first``, a Count or Tfidf vectorizer
        (:func:`limetheory.engine.tokens.word_columns`); unused for the other steps.

    Returns
    -------
    TextFeatures

    Raises
    ------
    ValueError
        When the features are not a sum over kept words that the exact route reads (the message says why).

    Examples
    --------
    >>> from sklearn.feature_extraction.text import HashingVectorizer
    >>> part = text_features(HashingVectorizer(n_features=5, norm=None), [], "good food, good wine").parts[0]
    >>> part.columns.tolist(), part.values.tolist(), part.factors.tolist()  # good and food share column 4
    ([4, 4, 0], [2.0, 1.0, 1.0], [1.0, 1.0, -1.0])
    >>> text_features(HashingVectorizer(n_features=4), [], "good food, good wine")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: the words 'good' and 'wine' share the hashed column 1 with opposite signs (alternate_sign=True): ...
    """
    if isinstance(first, FeatureUnion) or is_column_transformer(first):
        if mode is not None:
            raise ValueError("lime's other text modes are read for a Count or Tfidf vectorizer alone")
        return _joined(first, text)
    if mode is not None:
        if not isinstance(first, CountVectorizer):
            raise ValueError("lime's other text modes are read for a Count or Tfidf vectorizer alone")
        features = linear_features(text, first, mode)
        chain = _Chain(features.columns, features.counts, np.ones(len(features.columns)))
        _tfidf_chain(chain, first, len(first.vocabulary_))
        return TextFeatures((chain.part(0),), len(first.vocabulary_), 0, feature_epsilon(first), features)
    chain, width, epsilon = _vectorizer_chain(first, text, "the first step", memo)
    steps = _tfidf_steps(chain, following, width)
    return TextFeatures((chain.part(0),), width, steps, epsilon)


class _Chain:
    """What each word adds to its column as the steps transform the counts (module docstring: scales and norms)."""

    def __init__(self, columns, counts, signs):
        self.columns = np.asarray(columns, dtype=np.int64)
        self.visible = self.columns >= 0
        self.values = np.where(self.visible, counts, 0).astype(float)
        self.signs = np.where(self.visible, signs, 0).astype(float)
        self.post = np.ones(len(self.columns))
        self.norm = None
        self.raw = True  # the values are still the counts
        # words whose column holds another word of the document too (np.unique: a hash has 2^20 columns)
        _, inverse, sizes = np.unique(self.columns[self.visible], return_inverse=True, return_counts=True)
        self.shared = np.zeros(len(self.columns), dtype=bool)
        self.shared[self.visible] = sizes[inverse.ravel()] > 1

    def binary(self):
        """Counts replaced by presence (and the hash's sign dropped, as scikit-learn fills the column with 1)."""
        if self.shared.any():
            raise ValueError("binary or sublinear counts of words that share a column are not sums")
        self.values = np.where(self.visible, 1.0, 0.0)
        self.signs = np.where(self.visible, 1.0, 0.0)

    def sublinear(self):
        """1 + log(count), on counts of words alone in their column and not yet scaled."""
        if self.shared.any():
            raise ValueError("binary or sublinear counts of words that share a column are not sums")
        if not self.raw or (self.signs < 0).any():
            raise ValueError("a sublinear tf of scaled, normalised or negative (hashed) counts is not a count's")
        self.values = np.where(self.visible, 1.0 + np.log(np.maximum(self.values, 1.0)), 0.0)

    def scale(self, per_column):
        """Columns multiplied by ``per_column``: before a norm, into the values; after one, into the factors."""
        gathered = np.where(self.visible, np.asarray(per_column, dtype=float)[np.maximum(self.columns, 0)], 0.0)
        if not np.isfinite(gathered).all():
            raise ValueError("a scale of the document's columns is not finite (an idf of a column never seen?)")
        self.signs = np.where(gathered < 0, -self.signs, self.signs)
        if self.norm is None:
            self.values = self.values * np.abs(gathered)
        else:
            self.post = self.post * np.abs(gathered)
        self.raw = False

    def normalise(self, norm):
        """A row norm: scale-free, so the scales since the previous norm move back before it."""
        if norm is None:
            return
        if norm not in ("l1", "l2"):
            raise ValueError(f"the row norm {norm!r} is not 'l1', 'l2' or None")
        self.values = self.values * self.post
        self.post = np.ones(len(self.columns))
        self.norm = norm
        self.raw = False

    def part(self, offset):
        """The :class:`WordPart`, its columns shifted by ``offset`` (its place in a FeatureUnion)."""
        columns = np.where(self.visible, self.columns + offset, -1)
        return WordPart(columns, self.values, self.signs * self.post, self.norm)


def _joined(first, text):
    """The :class:`TextFeatures` of a FeatureUnion, or of a ColumnTransformer of the one text column: one part each."""
    kind = type(first).__name__
    if isinstance(first, FeatureUnion):
        entries, spans = first.transformer_list, None
    else:
        if getattr(first, "n_features_in_", None) != 1 or not hasattr(first, "output_indices_"):
            raise ValueError(f"the {kind} must be fitted on one input column, lime's text")
        entries, spans = [(name, transformer) for name, transformer, _ in first.transformers_], first.output_indices_
    parts, width, epsilons = [], 0, []
    weights = first.transformer_weights or {}
    for name, transformer in entries:
        span = None if spans is None else spans.get(name, slice(0, 0))
        if transformer is None or (isinstance(transformer, str) and transformer == "drop"):
            continue
        if span is not None and span.stop == span.start:  # a ColumnTransformer's part without output (a remainder)
            continue
        inner = transformer.steps if isinstance(transformer, Pipeline) else [(name, transformer)]
        try:
            chain, part_width, epsilon = _vectorizer_chain(inner[0][1], text, "it")
            if _tfidf_steps(chain, inner[1:], part_width) != len(inner) - 1:
                raise ValueError("it has a step that is not a TfidfTransformer")
            if span is not None and span.stop - span.start != part_width:
                raise ValueError(f"it gives {span.stop - span.start} columns, not {part_width}")
            if name in weights:
                chain.scale(np.full(part_width, float(weights[name])))
        except ValueError as error:
            raise ValueError(f"the {kind}'s part {name!r}: {error}") from None
        start = width if span is None else span.start
        parts.append(chain.part(start))
        width, epsilons = max(width, start + part_width), [*epsilons, epsilon]
    if not parts:
        raise ValueError(f"the {kind} has no transformer")
    return TextFeatures(tuple(parts), width, 0, max(epsilons))


def _vectorizer_chain(vectorizer, text, where, memo=None):
    """(_Chain, width, epsilon) of one fitted word vectorizer on ``text``, through its own tf-idf."""
    if isinstance(vectorizer, HashingVectorizer):
        columns, counts, signs = _hashed_columns(vectorizer, text)
        chain = _Chain(columns, counts, signs)
        if vectorizer.binary:
            chain.binary()
        chain.normalise(vectorizer.norm)
        return chain, int(vectorizer.n_features), feature_epsilon(vectorizer)
    if isinstance(vectorizer, CountVectorizer):
        columns, counts = word_columns(text, vectorizer, memo=memo)
        chain = _Chain(columns, counts, np.ones(len(columns)))
        width = len(vectorizer.vocabulary_)
        _tfidf_chain(chain, vectorizer, width)
        return chain, width, feature_epsilon(vectorizer)
    raise ValueError(f"{where} is a {type(vectorizer).__name__}, not a Count, Tfidf or Hashing vectorizer")


def _tfidf_chain(chain, vectorizer, width):
    """A Count or Tfidf vectorizer's own steps after the counts: binary, then sublinear tf, idf and norm."""
    if vectorizer.binary:
        chain.binary()
    if isinstance(vectorizer, TfidfVectorizer):
        _tfidf(chain, vectorizer, width)


def _tfidf(chain, transformer, width):
    """A TfidfTransformer's (or a TfidfVectorizer's) steps: sublinear tf, idf, norm."""
    if transformer.sublinear_tf:
        chain.sublinear()
    if transformer.use_idf:
        idf = getattr(transformer, "idf_", None)
        if idf is None:
            raise ValueError(f"the {type(transformer).__name__} is not fitted (no idf_)")
        if np.shape(idf) != (width,):
            raise ValueError(f"the {type(transformer).__name__} was fitted on {np.size(idf)} columns, not {width}")
        chain.scale(idf)
    chain.normalise(transformer.norm)


def _tfidf_steps(chain, following, width):
    """How many of ``following`` the chain reads: a leading TfidfTransformer (1), or none (0)."""
    if following and isinstance(following[0][1], TfidfTransformer):
        _tfidf(chain, following[0][1], width)
        return 1
    return 0


def _hashed_columns(vectorizer, text):
    """(columns, counts, signs) of lime's words under a HashingVectorizer; opposite signs in a column refused."""
    document, reason = document_rows(text, vectorizer)
    if document is None:
        raise ValueError(reason)
    columns, signed, rows = one_column_each(document, "the HashingVectorizer", "word", fill=0)
    signs = np.sign(signed)
    if rows.size:
        labels, inverse = np.unique(columns[rows], return_inverse=True)
        lowest, highest = np.ones(len(labels)), -np.ones(len(labels))
        np.minimum.at(lowest, inverse, signs[rows])
        np.maximum.at(highest, inverse, signs[rows])
        mixed = np.flatnonzero(lowest != highest)
        if mixed.size:
            members = rows[inverse == mixed[0]]
            plus = document.words[members[signs[members] > 0][0]]
            minus = document.words[members[signs[members] < 0][0]]
            raise ValueError(
                f"the words {plus!r} and {minus!r} share the hashed column {labels[mixed[0]]} with opposite signs "
                "(alternate_sign=True): the column holds the difference of their weights, which the exact route "
                "does not take"
            )
    return columns, np.abs(signed), signs
