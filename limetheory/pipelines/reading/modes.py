r"""lime's other text modes for :func:`limetheory.explain`: ``bow``, ``split_expression``, ``mask_string``, characters.

``LimeTextExplainer(bow=..., split_expression=..., mask_string=..., char_level=...)`` changes what a feature is,
not how lime samples: with d features (distinct words with ``bow=True``; occurrences with ``bow=False``;
characters with ``char_level=True``) the masks, the weights ψ and Σ are those of the paper with this d.  What
changes is the model as a function of the mask:

* ``bow=False``: a removed occurrence is replaced by ``mask_string`` ('UNKWORDZ' when None).  A vectorizer
  column then counts the *kept occurrences* of its word(s), plus, when the vocabulary holds the mask token, the
  *removed* ones (the mask token is a word like any other unless the vectorizer drops it);
* a custom ``split_expression`` changes lime's words, which must still be whole tokens of the vectorizer
  (checked by :class:`limetheory.engine.lime_documents.LimeTextCounts`);
* ``char_level=True``: removing characters changes the words themselves, so no route reads the model through
  word counts; the model is evaluated on lime's own strings (enumeration for d <= 14, Monte Carlo otherwise),
  built str for str as lime's ``IndexedCharacters.inverse_removing`` builds them.

This module says, for one document under one mode, what each route needs: lime's features and perturbed strings
(the same ``IndexedString`` / ``IndexedCharacters`` lime builds), each feature's vectorizer column for the
linear route (:func:`linear_features`), and the presence structure of the columns for the tree route
(:func:`mode_document_columns`: groups of features sharing a column, the columns' values on each kept subset).
The word-count mirror of the vectorizer is the fast engine's
:class:`limetheory.engine.lime_documents.LimeTextCounts`, not a copy.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components
from sklearn.feature_extraction.text import CountVectorizer, TfidfVectorizer

from ..._validation import check_bool, check_text
from ...engine.lime_documents import (
    LimeTextCounts,
    character_documents,
    indexed_documents,
    lime_indexed_string,
)
from ...engine.presence import EXPLAIN_ADVICE, MAX_GROUP_WORDS, DocumentColumns, presence_refusal
from .lime_arguments import check_words

#: lime's default split expression (``LimeTextExplainer`` and ``IndexedString``)
LIME_SPLIT = r"\W+"
#: scikit-learn's default token pattern (``CountVectorizer().token_pattern``), whose tokens of an ASCII text are
#: lime's words (:func:`tokens_are_words`)
DEFAULT_TOKEN_PATTERN = r"(?u)\b\w\w+\b"


@dataclass(frozen=True)
class TextMode:
    """lime's text settings for one explanation (lime's names and defaults)."""

    bow: bool = True
    split_expression: object = LIME_SPLIT
    mask_string: str | None = None
    char_level: bool = False

    @property
    def is_default(self):
        r"""True for lime's default word mode (bag of words split on ``\W+``), where ``mask_string`` is never used."""
        return self.bow and not self.char_level and self.split_expression == LIME_SPLIT

    @property
    def unit(self):
        """What one feature is, in words, for messages."""
        if self.char_level:
            return "distinct characters" if self.bow else "characters"
        return "distinct words" if self.bow else "word occurrences (bow=False)"

    def indexed(self, text):
        """lime's own ``IndexedString`` (or ``IndexedCharacters``) of ``text`` under this mode."""
        if self.char_level:
            # lime.lime_text imports scikit-learn's linear models: loaded on first use, not by import limetheory
            from lime.lime_text import IndexedCharacters

            return IndexedCharacters(text, bow=self.bow, mask_string=self.mask_string)
        # shared with the word-count mirror (LimeTextCounts): one tokenisation per document and mode
        return lime_indexed_string(text, self.bow, self.split_expression, self.mask_string)


def check_mode(bow=True, split_expression=LIME_SPLIT, mask_string=None, char_level=False):
    """The :class:`TextMode` of lime's settings, each checked (TypeError naming the argument and what is allowed)."""
    bow = check_bool(bow, "bow")
    char_level = check_bool(char_level, "char_level")
    if not (callable(split_expression) or isinstance(split_expression, str)):
        raise TypeError(
            f"split_expression must be a regular expression (str) or a callable, got {type(split_expression).__name__}"
        )
    if mask_string is not None and not isinstance(mask_string, str):
        raise TypeError(f"mask_string must be None or a str, got {type(mask_string).__name__}")
    return TextMode(bow=bow, split_expression=split_expression, mask_string=mask_string, char_level=char_level)


def mode_features(text, mode):
    """lime's features of ``text`` under ``mode`` (``inverse_vocab``, in lime's order), refusing fewer than 2."""
    text = check_text(text)
    features = [str(feature) for feature in mode.indexed(text).inverse_vocab]
    if len(features) < 2:
        raise ValueError(
            f"text must contain at least 2 {mode.unit} (lime removes features; with d = {len(features)} the "
            f"explanation is undefined), got {text!r:.80}"
        )
    return features


def lime_features(text, bow=True, split_expression=LIME_SPLIT, mask_string=None, char_level=False):
    """(text, features, mode) under lime's text settings: mode None for lime's defaults (its distinct words).

    The checks every entry point makes on a document: the settings (:func:`check_mode`), then lime's local
    dictionary (``check_words``) or the features of another mode (:func:`mode_features`), at least 2 of them.
    """
    mode = check_mode(bow, split_expression, mask_string, char_level)
    if mode.is_default:
        text, words = check_words(text)
        return text, words, None
    return text, mode_features(text, mode), mode


def mode_documents(text, mode):
    """Masks (m, d) -> the strings lime builds for them under ``mode`` (its ``inverse_removing``, str for str)."""
    indexed = mode.indexed(check_text(text))
    if mode.char_level:
        return lambda z: character_documents(indexed, z)  # lime's strings, decoded from the kept code points
    return lambda z: indexed_documents(indexed, z)  # lime's strings, each built by one join


@dataclass(frozen=True)
class LinearFeatures:
    """Each feature's vectorizer column and count, and the mask token's columns, for the linear route.

    ``columns[j]`` is the column feature j feeds (-1: none), ``counts[j]`` how many times it feeds it (its
    occurrences with ``bow=True``, 1 with ``bow=False``); a removed feature adds ``mask_counts`` to the columns
    ``mask_columns`` (empty unless ``bow=False`` and the vocabulary holds the mask token).
    """

    columns: np.ndarray
    counts: np.ndarray
    mask_columns: np.ndarray
    mask_counts: np.ndarray


def linear_features(text, vectorizer, mode):
    """The :class:`LinearFeatures` of ``text`` under ``mode`` (ValueError when a feature feeds several columns).

    Built from the fast engine's word-count mirror of the vectorizer
    (:class:`limetheory.engine.lime_documents.LimeTextCounts`), which refuses a split that cuts the vectorizer's
    tokens apart and is checked here against the vectorizer's own transform of the document and of the document
    with every feature removed.
    """
    if mode.char_level:
        raise ValueError("with char_level=True removing characters changes the words: columns are not word counts")
    document = LimeTextCounts(
        text, vectorizer, bow=mode.bow, split_expression=mode.split_expression, mask_string=mode.mask_string
    )
    document.self_check(np.array([np.ones(document.d), np.zeros(document.d)], dtype=np.int8))
    columns, values, _ = one_column_each(document, "the vectorizer", "feature", fill=1)
    fed = document.mask_counts > 0
    return LinearFeatures(columns, values, document.columns[fed], document.mask_counts[fed])


def one_column_each(document, reader, noun, fill):
    """(columns, values, rows) of lime's features from a document's counts, one vectorizer column per feature.

    ``document`` has ``counts`` (one row per feature), ``columns`` (the vectorizer's column of each count column),
    ``words`` and ``d``.  A feature the vectorizer does not see gets column -1 and value ``fill``; ``rows`` are the
    features it sees.  A feature read as several tokens is refused: a ValueError naming it (``reader`` reads the
    ``noun`` ... as several tokens).
    """
    counts = sp.csr_matrix(document.counts)
    counts.eliminate_zeros()
    per_feature = np.diff(counts.indptr)
    if (per_feature > 1).any():
        j = int(np.flatnonzero(per_feature > 1)[0])
        raise ValueError(f"{reader} reads the {noun} {document.words[j]!r} as several tokens")
    columns = np.full(document.d, -1, dtype=np.int64)
    values = np.full(document.d, fill, dtype=np.int64)
    rows = np.flatnonzero(per_feature == 1)
    columns[rows] = document.columns[counts.indices[counts.indptr[rows]]]
    values[rows] = counts.data[counts.indptr[rows]]
    return columns, values, rows


def mask_token_refusal(vectorizer, features):
    """Why the mask token's columns stop the linear route (None when absent or when the model stays affine).

    A removed occurrence adds the mask token: its count is the number of removed features, d - Σz.  On plain
    counts without a norm the model stays affine in z (handled exactly); a norm, binary or sublinear counts make
    it a function of that count that the grouped route does not take.
    """
    if not len(features.mask_columns):
        return None
    plain = not vectorizer.binary and not getattr(vectorizer, "sublinear_tf", False)
    if plain and getattr(vectorizer, "norm", None) is None:
        return None
    return (
        "the vocabulary holds the mask token, whose count is the number of removed occurrences; with "
        f"{'a norm' if plain else 'binary or sublinear counts'} the model is not a sum over kept occurrences"
    )


def mask_token_weight(vectorizer, features, coef):
    """What one removed feature adds to the linear score through the mask token's columns (0 without them)."""
    if not len(features.mask_columns):
        return 0.0
    with_idf = isinstance(vectorizer, TfidfVectorizer) and vectorizer.use_idf
    idf = vectorizer.idf_[features.mask_columns] if with_idf else 1.0
    return float(np.sum(coef[features.mask_columns] * features.mask_counts * idf))


def tokens_are_words(vectorizer):
    r"""Whether the vectorizer's tokens of any ASCII text are, by construction, those of lime's words one by one.

    True for a ``CountVectorizer`` or ``TfidfVectorizer`` itself (not a subclass) with scikit-learn's analysis of
    words: ``analyzer="word"``, ``input="content"``, no preprocessor, tokenizer or accent stripping, the default
    token pattern ``(?u)\b\w\w+\b`` and unigrams (any ``lowercase``, any stop words).  Its analysis of a text is
    ``[token for token in pattern.findall(text.lower()) if token not in stop_words]`` (``lower()`` if lowercase).  On
    an ASCII text, ``lower()`` keeps each character's class (word character or not) and the length, and the
    pattern's matches are the maximal runs of word characters of two or more (a match starts only where a run starts,
    at a ``\b``; ``\w+`` runs to the run's end, the only ``\b`` after it).  lime's words are those runs, in order:
    the tokens of the text are those of its word tokens analysed one by one, so its column counts are the sums of its
    words' counts and ``corpora.vectorizer_chunk.token_mismatches`` would find nothing (tests/test_linear_many.py
    compares the two on the Yelp reviews and crafted texts).  A text with any other character is analysed.

    Examples
    --------
    >>> from sklearn.feature_extraction.text import CountVectorizer, TfidfVectorizer
    >>> tokens_are_words(TfidfVectorizer(stop_words="english")), tokens_are_words(CountVectorizer(lowercase=False))
    (True, True)
    >>> spanning, stripped = CountVectorizer(token_pattern=r"\S+"), CountVectorizer(strip_accents="ascii")
    >>> tokens_are_words(spanning), tokens_are_words(stripped)
    (False, False)
    """
    return (
        type(vectorizer) in (CountVectorizer, TfidfVectorizer)
        and isinstance(vectorizer.analyzer, str)
        and vectorizer.analyzer == "word"
        and vectorizer.input == "content"
        and vectorizer.preprocessor is None
        and vectorizer.tokenizer is None
        and not vectorizer.strip_accents
        and vectorizer.token_pattern == DEFAULT_TOKEN_PATTERN
        and tuple(vectorizer.ngram_range) == (1, 1)
    )


def mirrored_by_construction(text, vectorizer, mode):
    """Whether the word-count mirror of ``text`` under ``mode`` is the vectorizer's transform by construction.

    With ``bow=False`` and lime's split, under scikit-learn's analysis of words (:func:`tokens_are_words`) and with
    the text and the mask string ASCII: lime's pieces are maximal runs of word characters and of separators, a
    separator stays one after lower-casing, and no token straddles a separator, so the tokens of any perturbed
    string are those of its kept occurrences and its mask strings analysed one by one, the rows
    ``LimeTextCounts.transform`` builds from them (the same counts through ``vectorizer_steps``, which equals
    ``transform`` bit for bit).  Its ``self_check`` then passes without a call: :func:`mode_document_columns` skips it
    (tests/test_linear_many_bow.py runs it on the Yelp reviews where this holds).

    Examples
    --------
    >>> from sklearn.feature_extraction.text import CountVectorizer
    >>> mode, vectorizer = check_mode(bow=False), CountVectorizer()
    >>> mirrored_by_construction("good food", vectorizer, mode), mirrored_by_construction("café food", vectorizer, mode)
    (True, False)
    """
    return (
        not mode.bow
        and not mode.char_level
        and isinstance(mode.split_expression, str)
        and mode.split_expression == LIME_SPLIT
        and text.isascii()
        and (mode.mask_string is None or mode.mask_string.isascii())
        and tokens_are_words(vectorizer)
    )


def mode_document_columns(text, vectorizer, mode, *, n_features=None):
    """The presence structure of ``text`` under ``mode`` for the tree route (a ``presence.DocumentColumns``).

    Features that feed a common column form a group (with ``bow=False``, the occurrences of one word: the word is
    present when one of its kept occurrences is, an Or over positions); each column's value on each kept subset
    of its group is the vectorizer's, computed by the fast engine's mirror and checked against the vectorizer's
    own transform on lime's strings.  Refused (ValueError, with the reason): a normalised TF-IDF, a vocabulary
    that holds the mask token (its count is the number of removed features, a function of every feature),
    ``char_level=True``, a group of more than ``MAX_GROUP_WORDS`` features, a model of another width.
    """
    if mode.char_level:
        raise ValueError("with char_level=True removing characters changes the words: no split reads a word count")
    refusal = presence_refusal(vectorizer)
    if refusal is not None:
        raise ValueError(f"{refusal}; {EXPLAIN_ADVICE}")
    if n_features is not None and n_features != len(vectorizer.vocabulary_):
        raise ValueError(
            f"the model must read the vectorizer's {len(vectorizer.vocabulary_)} columns, got n_features_in_ = "
            f"{n_features}"
        )
    document = LimeTextCounts(
        text, vectorizer, bow=mode.bow, split_expression=mode.split_expression, mask_string=mode.mask_string
    )
    if document.mask_counts.any():
        raise ValueError(
            f"the vocabulary holds the mask token {document.indexed.mask_string!r}: its count is the number of "
            "removed occurrences, which no group of features decides; " + EXPLAIN_ADVICE
        )
    d, counts = document.d, sp.csr_matrix(document.counts)
    q = len(document.columns)
    # features (0..d-1) and columns (d..d+q-1), linked when fed; built from the counts' entries (scipy's bmat
    # costs more than the rest of the grouping); only which nodes share a component is read from the labels
    feature_of, column_of = np.repeat(np.arange(d), np.diff(counts.indptr)), d + counts.indices
    graph = sp.csr_matrix(
        (counts.data, (feature_of, column_of)), shape=(d + q, d + q)
    )  # fmt: skip
    _, label = connected_components(graph, directed=False)
    fed = np.diff(counts.indptr) > 0
    groups = {}
    for j in np.flatnonzero(fed).tolist():
        groups.setdefault(int(label[j]), []).append(j)
    groups = tuple(sorted(tuple(g) for g in groups.values()))
    largest = max((len(g) for g in groups), default=0)
    if largest > MAX_GROUP_WORDS:
        raise ValueError(
            f"text has {largest} {mode.unit} feeding linked vectorizer columns, above the limit of {MAX_GROUP_WORDS} "
            f"(their 2^k kept subsets are enumerated); {EXPLAIN_ADVICE}"
        )
    # row 0 keeps every feature; then, for each group, its 2^k kept subsets (bit i of t: member i kept), the other
    # features kept: a column's value depends on its group only
    starts = np.cumsum([1] + [2 ** len(group) for group in groups])
    masks = np.ones((int(starts[-1]), d), dtype=np.int8)
    for group, start in zip(groups, starts[:-1].tolist(), strict=True):
        subsets = np.arange(2 ** len(group))
        masks[start : start + len(subsets), list(group)] = (subsets[:, None] >> np.arange(len(group))) & 1
    # the mirror against the vectorizer's transform of lime's strings, on the first 64 masks, each distinct mask once
    # (every group's all-kept subset is row 0, the document itself); checked first, so that the mirror learns the
    # vectorizer's matrix class from this transform instead of one more call on the document
    # (skipped where it passes by construction: mirrored_by_construction)
    if not mirrored_by_construction(text, vectorizer, mode):
        checked = masks[: min(len(masks), 64)]
        first = {}
        for i, row in enumerate(checked):
            first.setdefault(row.tobytes(), i)
        document.self_check(checked[list(first.values())])
    matrix = sp.csr_matrix(document.transform(masks))
    dense = matrix[:, document.columns].toarray()
    component = label.tolist()
    members = {}  # each component's columns (positions in document.columns), in order
    for k in range(q):
        members.setdefault(component[d + k], []).append(k)
    group_of_column, values = {}, {}
    for g, (group, start) in enumerate(zip(groups, starts[:-1].tolist(), strict=True)):
        for k in members.get(component[group[0]], ()):
            column = int(document.columns[k])
            group_of_column[column] = g
            values[column] = dense[start : start + 2 ** len(group), k].astype(np.float32)
    return DocumentColumns(words=document.words, groups=groups, group_of_column=group_of_column, values=values)
