r"""lime's tokenisation of a document, and how a scikit-learn vectorizer sees the same words.

lime (``IndexedString`` with its defaults) splits a document on ``\W+`` and indexes each distinct token once:
the *local dictionary*, whose order is the column order of lime's masks and of every β in this package.  A
perturbed document removes every occurrence of some of these words and keeps the separators.  A vectorizer
analyses the same text its own way (by default lower-cased, one-character tokens dropped), so several lime words
can share one of its columns ("The" and "the") and some have none.  Everything that maps one view to the other
lives here: the local dictionary, the perturbed strings, each word's column and number of occurrences, the TF-IDF
weights of the paper's linear models, the words behind a column, and the sparse word-by-column count matrix from
which the fast engine computes the vectorizer's rows of perturbed documents without building them.
"""

from __future__ import annotations

import re
from collections import Counter
from itertools import compress
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.preprocessing import normalize
from sklearn.utils.sparsefuncs_fast import inplace_csr_row_normalize_l1, inplace_csr_row_normalize_l2

from .._validation import as_float_array, check_memory, check_text, check_vectorizer
from .kept_counts import kept_column_counts
from .lime_tokens import lime_words, mask_strings

# TfidfVectorizer's default analysis of one word: lower-case, tokens of two word characters or more
DEFAULT_TOKEN = re.compile(r"(?u)\b\w\w+\b")
_WORD_CHARACTER = re.compile(r"\w")


class _Indexed(NamedTuple):
    """What this module reads of lime's ``IndexedString(text)``: its tokens, words and each word's positions."""

    as_list: list
    inverse_vocab: list
    positions: list


def _indexed(text):
    """lime's ``IndexedString(text)`` with its defaults (its ``as_list``, ``inverse_vocab`` and ``positions``).

    Read by ``engine.lime_tokens.lime_words`` (every other token is a word: no regular expression per
    token), which keeps the last few texts' for the next calls on the same text: one explanation reads its words,
    columns and perturbed documents.  Nothing here modifies them.
    """
    words = lime_words(text)
    return _Indexed(words.tokens, words.words, words.positions)


def indexed_string(text):
    r"""lime's ``IndexedString(text)`` at its defaults: its tokens, its words and each word's token positions.

    The tokens are lime's ``re.split`` of the text on ``\W+`` (separators kept), the words its distinct word tokens
    in order of first appearance (:func:`local_dictionary`), and ``positions[j]`` the indices in the tokens of word
    j's occurrences (:func:`word_occurrences` counts them).  The last few texts' are kept: one explanation, or a chunk
    of ``explain_many``, reads its words, their occurrences and its perturbed documents from one tokenisation.

    Parameters
    ----------
    text : str
        The document.

    Returns
    -------
    NamedTuple
        ``as_list`` (list of str, the tokens), ``inverse_vocab`` (list of str, the words) and ``positions`` (list
        of lists of int), lime's attribute names; read-only by convention (shared with the cache).

    Raises
    ------
    TypeError
        If ``text`` is not a str.
    ValueError
        If ``text`` is empty or blank.

    Examples
    --------
    >>> indexed = indexed_string("the food, the wine!")
    >>> indexed.as_list, indexed.inverse_vocab, indexed.positions
    (['the', ' ', 'food', ', ', 'the', ' ', 'wine', '!'], ['the', 'food', 'wine'], [[0, 4], [2], [6]])
    """
    return _indexed(check_text(text))


def _words(text):
    """lime's words of a checked ``text`` (a new list: the reading is the cache's), refusing a text without."""
    words = list(lime_words(text).words)
    if not words:
        raise ValueError(f"text must contain at least one word, got {text!r}")
    return words


def local_dictionary(text):
    r"""lime's local dictionary of ``text``: its distinct tokens, case-sensitive, in lime's order.

    lime splits on the regular expression ``\W+`` and indexes each distinct token once (``bow=True``); the
    order is that of first appearance, which is the column order of lime's masks and of every β in this
    package (``beta[1 + j]`` is word j).

    Parameters
    ----------
    text : str
        The document.

    Returns
    -------
    list of str
        The d distinct words, in lime's order.

    Raises
    ------
    TypeError
        If ``text`` is not a str.
    ValueError
        If ``text`` is empty or has no word character.

    Examples
    --------
    >>> local_dictionary("The food, the wine and the food!")
    ['The', 'food', 'the', 'wine', 'and']
    """
    return _words(check_text(text))


def word_occurrences(text):
    r"""How many of lime's tokens each word of ``local_dictionary(text)`` is: a perturbed string's words.

    lime (``bow=True``) deletes every occurrence of a removed word, so the string of a mask z holds
    ``z @ word_occurrences(text)`` words; the estimate route bounds the total of its strings by lime's with it.

    Parameters
    ----------
    text : str
        The document (at least one word).

    Returns
    -------
    ndarray of int64, shape (d,)
        Occurrences of each distinct word, in lime's order.

    Examples
    --------
    >>> word_occurrences("The food, the wine and the food!").tolist()
    [1, 2, 2, 1, 1]
    """
    _words(check_text(text))
    return np.array(lime_words(text).counts, dtype=np.int64)


def perturbed_documents(text, z):
    r"""The strings lime builds from ``text`` for the masks ``z`` (1 = word kept), one per row.

    Row i gives ``IndexedString(text).inverse_removing(ids of the words j with z[i, j] == 0)``, lime's
    perturbed document (lime's defaults: tokens split on ``\W+``, bag of words, so every occurrence of a
    removed word disappears and the separators around it stay).  The tokenisation is done once and the
    masks are expanded to the tokens with one indexing operation; only the final joins are per row.

    Parameters
    ----------
    text : str
        The document (at least one word).
    z : array_like, shape (n, d)
        0/1 masks over the local dictionary ``local_dictionary(text)`` (d distinct words, in lime's order);
        booleans, integers or floats equal to 0 or 1.  ``n`` may be 0.

    Returns
    -------
    list of str
        ``n`` documents.  The all-ones mask gives ``text`` itself (lime's first sample); the all-zeros mask
        gives the separators of ``text`` only.

    Raises
    ------
    TypeError
        ``text`` not a str, ``z`` not numeric.
    ValueError
        ``text`` empty or without words; ``z`` not 2-D, with a number of columns other than d, or with an
        entry other than 0 and 1; a call beyond the memory limit.

    Notes
    -----
    Limits: about n (9 T + len(text) + 64) bytes for n masks of a text of T tokens (the masks expanded to the word
    tokens, about half of them, as objects and as lists, the strings); above 2 GiB the call is refused with the
    estimate before any string is built.

    Examples
    --------
    >>> perturbed_documents("the food, the wine!", [[1, 0, 1], [0, 1, 1], [0, 0, 0]])
    ['the , the wine!', ' food,  wine!', ' ,  !']
    """
    text = check_text(text)
    words = lime_words(text)
    d = len(_words(text))
    masks = as_float_array(z, "z")
    if masks.ndim != 2 or masks.shape[1] != d:
        raise ValueError(
            f"z must be an (n, d) array with d = {d}, the number of distinct words of text, got shape {masks.shape}"
        )
    if not np.isin(masks, (0.0, 1.0)).all():
        raise ValueError("z must contain only 0 (word removed) and 1 (word kept)")
    check_memory(
        masks.shape[0] * (9.0 * len(words.tokens) + len(text) + 64),
        f"{masks.shape[0]} perturbed documents of {len(words.tokens)} tokens",
        "build them in batches",
    )
    return mask_strings(words, masks == 1.0)


def kept_token_documents(tokens, positions, kept):
    """The strings of ``tokens`` with every token of each word that a mask removes deleted: one join per mask.

    The expansion behind :func:`perturbed_documents` and lime's other word modes
    (``limetheory.engine.lime_documents.indexed_documents``, ``bow=True``), for callers that checked their masks:
    word j's tokens are ``positions[j]``, and ``kept[i, j]`` says whether mask i keeps it; the other tokens (the
    separators) stay.

    Parameters
    ----------
    tokens : sequence of str
        The document's tokens, separators included (lime's ``IndexedString.as_list``).
    positions : sequence of sequences of int
        Each word's token indices (lime's ``IndexedString.positions`` with ``bow=True``).
    kept : ndarray of bool, shape (n, d)
        Which words each mask keeps (d = ``len(positions)``).

    Returns
    -------
    list of str
        ``n`` documents.

    Examples
    --------
    >>> kept_token_documents(["the", " ", "food", ", ", "the"], [[0, 4], [2]], np.array([[False, True]]))
    [' food, ']
    """
    tokens = [str(token) for token in tokens]
    word_of_token = np.full(len(tokens), -1, dtype=np.int64)
    for j, where in enumerate(positions):
        word_of_token[where] = j
    is_word = word_of_token >= 0
    keep = np.ones((kept.shape[0], len(tokens)), dtype=bool)
    keep[:, is_word] = kept[:, word_of_token[is_word]]
    return ["".join(compress(tokens, row)) for row in keep.tolist()]


def word_tokens(word, analyzer=None):
    """The vectorizer's tokens of one lime word: ``analyzer(word)``, or TfidfVectorizer's defaults without one.

    Examples
    --------
    >>> word_tokens("Food"), word_tokens("a")
    (['food'], [])
    """
    if analyzer is None:
        return DEFAULT_TOKEN.findall(word.lower())
    return list(analyzer(word))


def _columns_of_words(words, vectorizer, memo=None):
    """Each lime word's vectorizer column (-1 if it has none), refusing a word the analyzer splits in two.

    ``memo`` (a dict) keeps the words' columns for the next calls with the same fitted vectorizer.
    """
    memo = {} if memo is None else memo
    analyze = None
    vocabulary = vectorizer.vocabulary_
    columns = np.full(len(words), -1, dtype=np.int64)
    for j, word in enumerate(words):
        column = memo.get(word)
        if column is None:
            analyze = vectorizer.build_analyzer() if analyze is None else analyze
            tokens = analyze(word)
            if len(tokens) > 1:
                raise ValueError(f"the vectorizer splits the lime word {word!r} into several tokens {tokens}")
            column = memo[word] = vocabulary.get(tokens[0], -1) if tokens else -1
        columns[j] = column
    return columns


def word_columns(text, vectorizer, *, memo=None):
    """The vectorizer column and the number of occurrences of each word of lime's local dictionary of ``text``.

    Word j of ``local_dictionary(text)`` is analysed on its own by the vectorizer; ``columns[j]`` is the
    column of its token, or -1 when the vectorizer cannot see it (its analyzer drops it: one character, a stop
    word; or its token is not in the fitted vocabulary).  ``counts[j]`` is the number of times lime's word j
    occurs in ``text`` (lime removes all of them at once).  Several words may share a column: under the
    default lower-casing "The" and "the" both go to the column "the".  The vectorizer's count of column c
    in ``text`` is then the sum of ``counts[j]`` over the words j with ``columns[j] == c``; this is checked
    on ``text`` before returning.

    Parameters
    ----------
    text : str
        The document (at least one word).
    vectorizer : CountVectorizer or TfidfVectorizer
        Fitted, ``analyzer='word'``, ``ngram_range=(1, 1)``, with a token pattern whose tokens do not span
        lime's separators (true of scikit-learn's default).
    memo : dict or None
        Keeps each word's column for the next calls with the same fitted vectorizer, unchanged in between (a
        corpus analyses each distinct word once: ``limetheory.pipelines.corpora.linear_many.explain_linear_many`` passes
        a new dict per call).  None: nothing kept.

    Returns
    -------
    columns : numpy.ndarray of int, shape (d,)
        The column of each word, -1 for an invisible word.
    counts : numpy.ndarray of int, shape (d,)
        The number of occurrences of each word in ``text`` (>= 1).

    Raises
    ------
    TypeError
        If ``text`` is not a str, ``vectorizer`` is not a CountVectorizer / TfidfVectorizer, or ``memo`` is
        neither a dict nor None.
    ValueError
        If ``text`` has no word; if ``vectorizer`` is unfitted or not a word-unigram vectorizer; if its analyzer
        splits one lime word into several tokens, or its tokens of ``text`` are not those of lime's words taken
        one by one (a token pattern that spans separators).

    Examples
    --------
    >>> from sklearn.feature_extraction.text import CountVectorizer
    >>> vectorizer = CountVectorizer().fit(["the food", "bad service"])
    >>> sorted(vectorizer.vocabulary_.items())
    [('bad', 0), ('food', 1), ('service', 2), ('the', 3)]
    >>> columns, counts = word_columns("The food, the food, a bad idea", vectorizer)
    >>> local_dictionary("The food, the food, a bad idea")
    ['The', 'food', 'the', 'a', 'bad', 'idea']
    >>> columns.tolist(), counts.tolist()
    ([3, 1, 3, -1, 0, -1], [1, 2, 1, 1, 1, 1])
    """
    text = check_text(text)
    check_vectorizer(vectorizer, unigrams=True)
    if memo is not None and not isinstance(memo, dict):
        raise TypeError(f"memo must be a dict or None, got {type(memo).__name__}")
    _, columns, counts = _word_columns(text, vectorizer, memo)
    return columns, counts


def _word_columns(text, vectorizer, memo=None):
    """lime's words of a checked ``text``, their columns and counts, for a checked word-unigram ``vectorizer``."""
    words = _words(text)
    columns = _columns_of_words(words, vectorizer, memo)
    counts = np.array(lime_words(text).counts, dtype=np.int64)
    vocabulary = vectorizer.vocabulary_
    seen = Counter(vocabulary[token] for token in vectorizer.build_analyzer()(text) if token in vocabulary)
    ours = Counter()
    for column, count in zip(columns.tolist(), counts.tolist(), strict=True):
        if column >= 0:
            ours[column] += count
    if seen != ours:
        raise ValueError(
            "the vectorizer's tokens of text are not the tokens of lime's words taken one by one: its token "
            "pattern spans lime's separators, so a column's count is not a function of the kept words"
        )
    return words, columns, counts


def tfidf_columns(text, vectorizer):
    """The vectorizer column of each word of lime's local dictionary of ``text`` (-1 if the model cannot see it).

    A lime word is invisible when the vectorizer's analyzer drops it (one character, stop word) or when its
    token is not in the fitted vocabulary.  Unlike :func:`word_columns`, no two words may share a column, so
    that each visible word has a TF-IDF weight of its own.

    Parameters
    ----------
    text : str
        The document.
    vectorizer : TfidfVectorizer
        Fitted, with the paper's normalised TF-IDF (``norm='l2'``, ``use_idf=True``, no sublinear tf, not
        binary).

    Returns
    -------
    numpy.ndarray of int, shape (d,)
        The column of each word of ``local_dictionary(text)``, -1 for an invisible word.

    Raises
    ------
    TypeError
        If ``text`` is not a str or ``vectorizer`` not a TfidfVectorizer.
    ValueError
        If two lime words fall into the same column (e.g. "The" and "the" under lower-casing): then the
        TF-IDF coordinate is not a function of one lime word and per-word TF-IDF weights are ill-defined;
        as :func:`word_columns` otherwise.

    Examples
    --------
    >>> from limetheory.book import fit_yelp_vectorizer
    >>> vectorizer = fit_yelp_vectorizer(["good food", "bad service"])
    >>> tfidf_columns("Good food, bad", vectorizer).tolist()
    [2, 1, 0]
    """
    return _tfidf_columns(text, vectorizer)[0]


def _tfidf_columns(text, vectorizer):
    """:func:`tfidf_columns` and the words' counts, from one tokenisation."""
    text = check_text(text)
    check_vectorizer(vectorizer, tfidf=True, unigrams=True)
    words, columns, counts = _word_columns(text, vectorizer)
    owner = {}
    for word, column in zip(words, columns.tolist(), strict=True):
        if column >= 0:
            if column in owner:
                raise ValueError(
                    f"the lime words {owner[column]!r} and {word!r} share the vectorizer column "
                    f"{_column_name(vectorizer, column)!r}; per-word TF-IDF weights are ill-defined (use "
                    "lt.word_columns, a vectorizer with lowercase=False, or another text)"
                )
            owner[column] = word
    return columns.astype(int), counts


def _column_name(vectorizer, column):
    """The vocabulary term of a column (for messages)."""
    return next(term for term, index in vectorizer.vocabulary_.items() if index == column)


def tfidf_weights(text, vectorizer):
    """The unnormalised TF-IDF weights m_j * v_j of the words of lime's local dictionary of ``text``.

    m_j is the number of occurrences of lime word j in ``text`` (lime removes all of them at once) and v_j
    the vectorizer's inverse document frequency of its column; the weight is 0 for a word the model cannot
    see.  The normalised TF-IDF of the document is ``w / ||w||`` on the columns :func:`tfidf_columns`.
    This is the ``tfidf`` argument of :func:`~limetheory.beta_linear_approx`.

    Parameters
    ----------
    text : str
        The document.
    vectorizer : TfidfVectorizer
        As in :func:`tfidf_columns`.

    Returns
    -------
    numpy.ndarray of float, shape (d,)
        The weight of each word of ``local_dictionary(text)``, 0 for an invisible word.

    Raises
    ------
    TypeError
        As :func:`tfidf_columns`.
    ValueError
        As :func:`tfidf_columns` (two lime words in one column), or if no word of ``text`` is visible.

    Examples
    --------
    >>> from limetheory.book import fit_yelp_vectorizer
    >>> tfidf_weights("Good food, bad", fit_yelp_vectorizer(["good food", "bad service"])).round(6).tolist()
    [1.405465, 1.405465, 1.405465]
    """
    columns, counts = _tfidf_columns(text, vectorizer)
    idf = np.asarray(vectorizer.idf_, dtype=float)
    counts = counts.astype(float)
    weights = np.where(columns >= 0, counts * idf[np.maximum(columns, 0)], 0.0)
    if not weights.max() > 0:
        raise ValueError("text has no word that the vectorizer can see")
    return weights


def column_entries(vectorizer, words, occurrences):
    """Word j's vectorizer columns, each counted ``occurrences[j]`` times: {(j, column): count}.

    A column comes from the vectorizer's analyzer on the word alone; a word may have several columns or none.
    Each distinct word is analysed once (with ``bow=False`` a word repeats, one feature per occurrence).
    """
    analyze = vectorizer.build_analyzer()
    vocabulary = vectorizer.vocabulary_
    features = {}
    entries = {}
    for j, word in enumerate(words):
        if word not in features:
            features[word] = analyze(word)
        for feature in features[word]:
            column = vocabulary.get(feature)
            if column is not None:
                entries[j, column] = entries.get((j, column), 0) + occurrences[j]
    return entries


def count_matrix(entries, d, columns):
    """The sparse (d x q) integer matrix of ``entries`` {(j, column): count}, with q = len(columns).

    Column k of the matrix is the vocabulary column ``columns[k]``.
    """
    where = {column: k for k, column in enumerate(columns)}
    # sparse: a word has at most a few columns, so a dense matrix would waste O(d^2) memory at large d;
    # integer entries keep every sum of counts exact
    keys = list(entries)
    return sp.csr_matrix(
        (
            np.array([entries[key] for key in keys], dtype=np.int64),
            (np.array([j for j, _ in keys], dtype=np.int64), np.array([where[c] for _, c in keys], dtype=np.int64)),
        ),
        shape=(d, len(columns)),
    )


def normalize_rows(matrix, norm):
    """``sklearn.preprocessing.normalize(matrix, norm=norm, copy=False)``, without its input validation.

    For a CSR matrix of floats, normalize only validates and then calls these in-place kernels; calling them
    directly gives the same numbers and saves a fixed cost that dominates small runs.
    """
    if matrix.format == "csr" and matrix.dtype in (np.float32, np.float64):
        (inplace_csr_row_normalize_l1 if norm == "l1" else inplace_csr_row_normalize_l2)(matrix)
        return matrix
    return normalize(matrix, norm=norm, copy=False)


def vectorizer_steps(matrix, vectorizer):
    """A Count or Tfidf vectorizer's steps after counting (binary, sublinear tf, idf, norm), in place, in its order.

    ``matrix``: the counts of the vectorizer's columns as its ``dtype``, canonical CSR (sorted indices, as
    ``CountVectorizer`` leaves them); the result equals ``vectorizer.transform``'s bit for bit.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> from sklearn.feature_extraction.text import TfidfVectorizer
    >>> vectorizer = TfidfVectorizer(norm="l1").fit(["good food", "bad food"])
    >>> counts = sp.csr_matrix(np.array([[0.0, 2.0, 1.0]]))  # bad, food, good
    >>> bool(np.array_equal(vectorizer_steps(counts, vectorizer).toarray(),
    ...                     vectorizer.transform(["food good food"]).toarray()))
    True
    """
    if vectorizer.binary:
        matrix.data.fill(1)
    if isinstance(vectorizer, TfidfVectorizer):  # TfidfTransformer.transform, step by step
        if vectorizer.sublinear_tf:
            np.log(matrix.data, matrix.data)
            matrix.data += 1.0
        if vectorizer.use_idf:
            matrix.data *= vectorizer.idf_[matrix.indices]
        if vectorizer.norm is not None:
            matrix = normalize_rows(matrix, vectorizer.norm)
    return matrix


class DocumentCounts:
    """A document as lime sees it (its distinct tokens) and as the vectorizer sees it (a count matrix).

    ``counts`` is the sparse (d x q) integer matrix whose row j holds lime word j's number of occurrences in
    its vectorizer columns (q = the document's distinct visible columns, listed in ``columns``); the counts of a
    perturbed document are then ``mask @ counts``.  The vectorizer must be one whose tokenisation this mirrors
    exactly (``check_vectorizer(..., mirrored_by=...)``); the caller checks that, and :meth:`self_check`
    compares rows with the vectorizer's own transform of the real strings.
    """

    def __init__(self, text, vectorizer):
        self.text = text
        self.vectorizer = vectorizer
        self.reading = lime_words(text)  # lime's IndexedString(text) at its defaults: split on \W+, bag of words
        self.indexed = _indexed(text)  # its as_list, inverse_vocab and positions (a subclass sets its own)
        self.words = list(self.reading.words)
        self.d = len(self.words)
        if self.d < 2:  # as lt.lime_explanations
            raise ValueError(
                f"text must contain at least 2 distinct words, got {self.words}: with d = 1 every perturbation "
                "removes the only word, so the explanation is undefined (Sigma is singular)"
            )
        if vectorizer.lowercase and "\u03a3" in text:
            # Python lower-cases the capital sigma according to its neighbours (final sigma), so a word's
            # lower-case form could depend on which other words were removed
            raise ValueError("text contains the capital sigma 'Σ', whose lower-case form depends on its context")
        preprocess = vectorizer.build_preprocessor()
        words = set(self.words)  # a set: membership in lime's list would cost O(d) per piece, O(d^2) in all
        for piece in set(self.reading.tokens) - words:
            if _WORD_CHARACTER.search(preprocess(piece)):
                raise ValueError(f"a separator of text, {piece!r}, becomes a word character after preprocessing")
        # a word may have several columns here (lower-casing can turn a word character into a separator: "İ"
        # becomes "i" and a combining dot), unlike in word_columns, which refuses such a word
        entries = column_entries(vectorizer, self.words, self.reading.counts)
        self.columns = np.array(sorted({column for _, column in entries}), dtype=np.int64)
        self.counts = count_matrix(entries, self.d, self.columns)
        self.n_features = len(vectorizer.vocabulary_)
        self._matrix_type = None  # the vectorizer's sparse matrix class, learnt from its first real transform

    @property
    def matrix_type(self):
        """The sparse matrix class the vectorizer's ``transform`` returns (learnt from one real call)."""
        if self._matrix_type is None:
            self._matrix_type = type(self.vectorizer.transform([self.text]))
        return self._matrix_type

    def documents(self, masks):
        """The strings lime would build for these masks (1 = word kept)."""
        return perturbed_documents(self.text, masks)

    def kept_counts(self, masks):
        """The (m x q) integer counts of the document's columns in the perturbed documents of ``masks`` (CSR)."""
        return kept_column_counts(masks, self.counts)  # exact integers, memory bounded (never a large m x q block)

    def transform(self, masks):
        """``vectorizer.transform(self.documents(masks))``, computed from the counts of :meth:`kept_counts`."""
        masks = np.asarray(masks)
        counts = sp.csr_matrix(self.kept_counts(masks))
        counts.eliminate_zeros()
        counts.sort_indices()  # positions are sorted, and self.columns is increasing: sorted column indices
        vectorizer = self.vectorizer
        matrix = self.matrix_type(
            (counts.data.astype(vectorizer.dtype), self.columns[counts.indices], counts.indptr.astype(np.int64)),
            shape=(len(masks), self.n_features),
        )
        return vectorizer_steps(matrix, vectorizer)

    def lime_strings(self, masks):
        """lime's ``inverse_removing`` strings for these masks (1 = kept), str for str, from its ``IndexedString``.

        Built from the lime tokenisation already at hand (a second one of a long document would cost as much as the
        rest of a small run), one join per mask (``engine.lime_tokens.mask_strings``;
        tests/test_lime_tokens.py and tests/test_tokens.py compare such strings with lime's).
        """
        return mask_strings(self.reading, np.asarray(masks) != 0)

    def self_check(self, masks):
        """Compare a few rows with ``vectorizer.transform`` of the real strings; raise ValueError on a mismatch."""
        strings = self.lime_strings(masks)
        truth = self.vectorizer.transform(strings)
        if self._matrix_type is None:  # one transform call fewer per run: a fixed cost that matters when d is small
            self._matrix_type = type(truth)
        ours = sp.csr_matrix(self.transform(masks))
        truth = sp.csr_matrix(truth)
        ours.sort_indices()
        truth.sort_indices()
        same = (
            ours.shape == truth.shape
            and np.array_equal(ours.indptr, truth.indptr)
            and np.array_equal(ours.indices, truth.indices)
            and np.allclose(ours.data, truth.data, rtol=1e-12, atol=0.0)
        )
        if not same:
            raise ValueError(
                "the vectorizer's TF-IDF of perturbed documents could not be reproduced from word counts "
                "(self-check against vectorizer.transform failed); use lt.lime_explanations instead"
            )
