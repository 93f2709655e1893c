r"""The rows of a word n-gram vectorizer on lime's perturbed documents, from the document's tokens: no string is built.

lime (its default word mode, ``bow=True``) removes every occurrence of the words a mask drops and keeps the
separators, so the vectorizer's tokens of a perturbed document are the document's tokens whose words are kept, in
order (a removed word's neighbours are separators, which stay non-word characters: checked), and its n-grams are
the n-grams of that kept sequence: new ones form across removed words (and, as in scikit-learn, across stop words,
which are dropped before the n-grams).  :class:`NgramCounts` builds each mask's row in compiled code: the kept token
sequence, each n-gram's vocabulary column (unigrams from an array over the document's distinct tokens, longer
n-grams from an open-addressing table of their integer codes, filled as they first form: the vocabulary is asked
once per n-gram, and one absent from it is dropped, as the vectorizer drops it), the columns sorted and counted; then
the vectorizer's own binary, sublinear tf, idf and norm steps (:func:`limetheory.engine.tokens.vectorizer_steps`).
The rows equal ``vectorizer.transform`` of lime's strings bit for bit (tests/test_ngram_rows.py), and
:func:`limetheory.pipelines.reading.count_rows.count_score_masks` compares a few with the real transform before any
is used.

Mirrored: ``analyzer="word"``, any ``ngram_range`` up to 6, the default token patterns (maximal runs of word
characters: ``WORD_TOKEN_PATTERNS``), lower-casing or not, stop words; refused with a reason (the caller falls back
to lime's strings): a custom tokenizer, preprocessor or analyzer, accent stripping, another token pattern, a word
the vectorizer splits in two, a separator that preprocessing turns into a word character.
"""

from __future__ import annotations

import re
from collections import Counter

import numpy as np
from sklearn.feature_extraction.text import CountVectorizer, TfidfVectorizer

from ..._compiled import compiled
from ..._validation import analyzer_problems
from ...engine.lime_tokens import lime_words, mask_strings
from ...engine.tokens import normalize_rows, vectorizer_steps

#: the longest n-gram mirrored (the codes of n-grams over V distinct tokens are below (V + 1) ** n)
MAX_N = 6
#: the most distinct words of one whitespace chunk whose 2^k strings a ``char_wb`` reading tabulates
MAX_CHUNK_WORDS = 10
_SPACES = re.compile(r"(\s+)")
_WORD_CHARACTER = re.compile(r"\w")
#: the empty slot of the n-gram table (codes are positive)
_EMPTY = -1
#: the value of a slot whose n-gram the vocabulary has not been asked about yet
_UNKNOWN = -2
#: no table being doubled (:func:`_scan`)
_NONE = np.empty(0, dtype=np.int64)
#: the lowest set bit's index from the de Bruijn sequence 0x03F79D71B4CB0A89 times the bit, shifted right by 58
_DE_BRUIJN = np.zeros(64, dtype=np.int64)
for _bit in range(64):
    _DE_BRUIJN[((1 << _bit) * 0x03F79D71B4CB0A89 % 2**64) >> 58] = _bit


def ngram_refusal(vectorizer):
    """Why :class:`NgramCounts` cannot mirror this vectorizer's rows (None when it can).

    Parameters
    ----------
    vectorizer : object
        The pipeline's first step.

    Returns
    -------
    str or None

    Examples
    --------
    >>> from sklearn.feature_extraction.text import TfidfVectorizer
    >>> ngram_refusal(TfidfVectorizer(ngram_range=(1, 2)).fit(["good food"])) is None
    True
    >>> ngram_refusal(TfidfVectorizer(analyzer="char").fit(["good food"]))
    "analyzer='char' (only 'word')"
    """
    if not isinstance(vectorizer, CountVectorizer):
        return f"{type(vectorizer).__name__} is not a Count or Tfidf vectorizer"
    if getattr(vectorizer, "vocabulary_", None) is None:
        return "the vectorizer is not fitted"
    problems = analyzer_problems(vectorizer)
    low, high = vectorizer.ngram_range
    if not 1 <= low <= high <= MAX_N:
        problems.append(f"ngram_range={tuple(vectorizer.ngram_range)} (1 <= min_n <= max_n <= {MAX_N})")
    return "; ".join(problems) or None


class NgramCounts:
    """A document as lime sees it (its distinct words) and as a word n-gram vectorizer sees it (its token sequence).

    ``sequence_words[p]`` and ``sequence_tokens[p]`` are the lime word and the document-local token id of the
    vectorizer's p-th token of the document (stop words left out); ``tokens`` names the ids.  :meth:`transform`
    gives ``vectorizer.transform(self.documents(masks))`` bit for bit.  Raises ValueError where the tokenisation is
    not mirrored (:func:`ngram_refusal`, and a document whose words or separators the vectorizer reads otherwise).

    Examples
    --------
    >>> from sklearn.feature_extraction.text import TfidfVectorizer
    >>> vectorizer = TfidfVectorizer(ngram_range=(1, 2)).fit(["good food", "bad food", "good wine"])
    >>> rows = NgramCounts("good food, bad wine", vectorizer)
    >>> masks = np.array([[1, 1, 1, 1], [1, 0, 1, 1], [1, 0, 0, 1]], dtype=bool)  # "good wine" forms in the last
    >>> bool(np.array_equal(rows.transform(masks).toarray(),
    ...                     vectorizer.transform(rows.documents(masks)).toarray()))
    True
    """

    def __init__(self, text, vectorizer):
        refusal = ngram_refusal(vectorizer)
        if refusal is not None:
            raise ValueError(f"the n-gram rows do not mirror this vectorizer: {refusal}")
        _read(self, text, vectorizer)
        preprocess, tokenize = vectorizer.build_preprocessor(), vectorizer.build_tokenizer()
        stop = vectorizer.get_stop_words()
        stop = frozenset() if stop is None else frozenset(stop)
        words = set(self.words)
        for piece in set(self.reading.tokens) - words:
            if _WORD_CHARACTER.search(preprocess(piece)):
                raise ValueError(f"a separator of text, {piece!r}, becomes a word character after preprocessing")
        ids, token_of_word = {}, np.full(self.d, -1, dtype=np.int64)
        for j, word in enumerate(self.words):
            found = [t for t in tokenize(preprocess(word)) if t not in stop]
            if len(found) > 1:
                raise ValueError(f"the vectorizer splits the lime word {word!r} into several tokens {found}")
            if found:
                token_of_word[j] = ids.setdefault(found[0], len(ids))
        self.tokens = list(ids)
        occurrence_words = np.asarray(self.reading.word_of_token, dtype=np.int64)
        seen = token_of_word[occurrence_words] >= 0
        self.sequence_words = occurrence_words[seen]
        self.sequence_tokens = token_of_word[self.sequence_words]
        # the whole document's tokens, read by the vectorizer itself, are the sequence (a last guard on the reading)
        whole = [t for t in tokenize(preprocess(text)) if t not in stop]
        if whole != [self.tokens[t] for t in self.sequence_tokens]:
            raise ValueError("the vectorizer's tokens of text are not its words' tokens in order")
        self.low, self.high = (int(n) for n in vectorizer.ngram_range)
        self.base = len(self.tokens) + 1  # an n-gram's code: its tokens' ids + 1 as digits in this base
        if self.base ** max(self.high, 2) >= 2**62:
            raise ValueError(f"{len(self.tokens)} distinct tokens: the {self.high}-grams' codes overflow 64 bits")
        vocabulary = vectorizer.vocabulary_
        self.unigram_columns = np.array([vocabulary.get(t, -1) for t in self.tokens], dtype=np.int64)
        self.word_tokens = np.bincount(self.sequence_words, minlength=self.d).astype(np.int64)
        self.n_features = len(vocabulary)
        slots = 1 << max(10, int(4 * len(self.sequence_tokens) * max(self.high - 1, 1)).bit_length())
        self._keys = np.full(slots, _EMPTY, dtype=np.int64)
        self._values = np.full(slots, _UNKNOWN, dtype=np.int64)
        self._used = 0
        # each mask's columns counted in a dense tally and marked in a two-level bitset (a word per 64 columns, a bit
        # per non-zero word): read back in increasing order without a sort, then cleared
        self._tally, self._marks, self._summary = _row_buffers(self.n_features)
        self._matrix_type = None
        whole_row = self.transform(np.ones((1, self.d), dtype=bool))
        self.columns = whole_row.indices.copy()  # the whole document's columns (the default budget's work model)

    def documents(self, masks):
        """The strings lime builds for these masks (1 = word kept)."""
        return mask_strings(self.reading, np.asarray(masks) != 0)

    def _grow(self):
        """Double the n-gram table, its filled slots moved to their places in the larger one."""
        keys, values = self._keys, self._values
        self._keys = np.full(2 * len(keys), _EMPTY, dtype=np.int64)
        self._values = np.full(2 * len(keys), _UNKNOWN, dtype=np.int64)
        _scan(np.zeros((0, self.d), dtype=bool), 0, self.sequence_words, self.sequence_tokens, 2, 1, self.base,
              self._keys, self._values, _shift(self._keys), 0, np.empty(0, dtype=np.int64), keys, values)  # fmt: skip

    def _resolve(self, slots):
        """Ask the vocabulary for the n-grams first met in these slots of the table (-1: absent, dropped)."""
        vocabulary, base, tokens = self.vectorizer.vocabulary_, self.base, self.tokens
        for slot in slots.tolist():
            code, names = int(self._keys[slot]), []
            while code:
                code, digit = divmod(code, base)
                names.append(tokens[digit - 1])
            self._values[slot] = vocabulary.get(" ".join(reversed(names)), -1)

    def _fill(self, masks):
        """Put every n-gram of two or more tokens that the masks form in the table, with its column."""
        if self.high < 2:
            return
        start = 0
        while start < len(masks):
            capacity = len(self._keys)
            found = np.empty(capacity, dtype=np.int64)
            start, new, self._used = _scan(masks, start, self.sequence_words, self.sequence_tokens,
                                           max(self.low, 2), self.high, self.base, self._keys, self._values,
                                           _shift(self._keys), self._used, found, _NONE, _NONE)  # fmt: skip
            self._resolve(found[:new])
            if 2 * self._used > capacity:  # more than half full: probes stay short in a table at most half full
                self._grow()

    def counts(self, masks, weights=None):
        """The (m x n_features) counts of the perturbed documents of ``masks`` as (data, indices, indptr).

        ``data`` holds the counts as float64 (exact integers; 1 for a binary vectorizer), times ``weights`` (a
        column's idf) when given; ``indices`` the sorted columns of each row.
        """
        masks = _checked_masks(masks, self.d)
        self._fill(masks)
        index = np.int32 if self.n_features < 2**31 else np.int64  # as scikit-learn's own rows
        # a first guess of the entries (the whole document's columns per mask, a row keeps about half): grown if short
        data = np.empty(max(16, len(masks) * len(self.columns) // 2 if hasattr(self, "columns") else 16))
        indices = np.empty(len(data), dtype=index)
        indptr = np.zeros(len(masks) + 1, dtype=np.int64)
        data, indices = _rows(masks, self.sequence_words, self.sequence_tokens, self.low, self.high, self.base,
                              self.unigram_columns, self._keys, self._values, _shift(self._keys), self._marks,
                              self._summary, self._tally, data, indices, indptr, _DE_BRUIJN,
                              bool(self.vectorizer.binary), weights is not None,
                              np.ones(0) if weights is None else np.asarray(weights, dtype=np.float64))  # fmt: skip
        return data, indices, indptr

    def transform(self, masks):
        """``vectorizer.transform(self.documents(masks))``, computed from the tokens (the same sparse class)."""
        vectorizer = self.vectorizer
        if self._matrix_type is None:
            self._matrix_type = type(vectorizer.transform([self.text]))
        tfidf = isinstance(vectorizer, TfidfVectorizer)
        # binary and idf in the compiled pass, the product the vectorizer computes (a float count times the idf);
        # a sublinear tf's logarithm is numpy's, between them: then every step after counting is the vectorizer's
        weighted = tfidf and vectorizer.use_idf and not vectorizer.sublinear_tf
        data, indices, indptr = self.counts(masks, vectorizer.idf_ if weighted else None)
        matrix = self._matrix_type((data.astype(vectorizer.dtype, copy=False), indices, indptr),
                                   shape=(len(indptr) - 1, self.n_features))  # fmt: skip
        if not weighted:
            return vectorizer_steps(matrix, vectorizer)
        return matrix if vectorizer.norm is None else normalize_rows(matrix, vectorizer.norm)


def char_refusal(vectorizer):
    """Why :class:`CharChunks` cannot mirror this vectorizer's rows (None when it can).

    Examples
    --------
    >>> from sklearn.feature_extraction.text import TfidfVectorizer
    >>> char_refusal(TfidfVectorizer(analyzer="char_wb", ngram_range=(2, 4)).fit(["good food"])) is None
    True
    >>> char_refusal(TfidfVectorizer(analyzer="char", ngram_range=(2, 4)).fit(["good food"]))
    "analyzer='char' (only 'char_wb')"
    """
    if not isinstance(vectorizer, CountVectorizer):
        return f"{type(vectorizer).__name__} is not a Count or Tfidf vectorizer"
    if getattr(vectorizer, "vocabulary_", None) is None:
        return "the vectorizer is not fitted"
    return "; ".join(analyzer_problems(vectorizer, "char_wb")) or None


class CharChunks:
    """A document as lime sees it (its distinct words) and as a ``char_wb`` vectorizer sees it (whitespace chunks).

    ``char_wb`` n-grams are computed per whitespace-separated chunk (padded with a space each side), and lime never
    removes whitespace, so a perturbed document's chunks are the document's, each with its removed words cut out (a
    chunk left empty vanishes): a chunk's n-grams depend only on which of its words are kept.  Each distinct chunk's
    n-grams are tabulated for every subset of its words, by the vectorizer's own analyzer on the chunk's string, and
    a mask's row adds its chunks' entries (compiled), then the vectorizer's binary, idf and norm steps.  Refused
    (ValueError) where a chunk holds more than ``MAX_CHUNK_WORDS`` distinct words (2^k strings to tabulate).

    Examples
    --------
    >>> from sklearn.feature_extraction.text import TfidfVectorizer
    >>> vectorizer = TfidfVectorizer(analyzer="char_wb", ngram_range=(2, 3)).fit(["good food", "bad wine"])
    >>> rows = CharChunks("good food, bad-wine", vectorizer)
    >>> masks = np.array([[1, 1, 1, 1], [1, 0, 1, 1], [1, 0, 0, 1]], dtype=bool)
    >>> bool(np.array_equal(rows.transform(masks).toarray(),
    ...                     vectorizer.transform(rows.documents(masks)).toarray()))
    True
    """

    def __init__(self, text, vectorizer):
        refusal = char_refusal(vectorizer)
        if refusal is not None:
            raise ValueError(f"the character rows do not mirror this vectorizer: {refusal}")
        _read(self, text, vectorizer)
        analyze, vocabulary = vectorizer.build_analyzer(), vectorizer.vocabulary_
        chunks = _chunks(self.reading)
        tables, table_of, offsets, words_of = {}, [], [0], []
        entries_columns, entries_counts, total = [], [], Counter()
        for parts in chunks:
            distinct = list(dict.fromkeys(j for j, _ in parts if j >= 0))
            if len(distinct) > MAX_CHUNK_WORDS:
                raise ValueError(f"a whitespace chunk of text holds {len(distinct)} distinct words (more than "
                                 f"{MAX_CHUNK_WORDS}): its {2 ** len(distinct)} strings are not tabulated")  # fmt: skip
            key = tuple(parts)
            if key not in tables:
                tables[key] = len(offsets) - 1
                bit = {j: b for b, j in enumerate(distinct)}
                for state in range(1 << len(distinct)):
                    string = "".join(piece for j, piece in parts if j < 0 or state >> bit[j] & 1)
                    grams = {}
                    for gram in analyze(string):
                        column = vocabulary.get(gram)
                        if column is not None:
                            grams[column] = grams.get(column, 0) + 1
                    entries_columns.extend(grams)
                    entries_counts.extend(grams.values())
                    offsets.append(len(entries_columns))
            table_of.append(tables[key])
            words_of.append(distinct)
            total.update(analyze("".join(piece for _, piece in parts)))
        # the whole document's n-grams, read by the vectorizer itself, are its chunks' (a last guard on the reading)
        if total != Counter(analyze(text)):
            raise ValueError("the vectorizer's character n-grams of text are not those of its whitespace chunks")
        self.chunk_table = np.array(table_of, dtype=np.int64)
        self.chunk_ptr = np.cumsum([0] + [len(w) for w in words_of], dtype=np.int64)
        self.chunk_words = np.array([j for w in words_of for j in w], dtype=np.int64)
        self.table_ptr = np.array(offsets, dtype=np.int64)
        self.table_columns = np.array(entries_columns, dtype=np.int64)
        self.table_counts = np.array(entries_counts, dtype=np.int64)
        self.n_features = len(vocabulary)
        self.grams = sum(total.values())  # the whole document's n-grams: the work model's size of a row
        self._tally, self._marks, self._summary = _row_buffers(self.n_features)
        self._matrix_type = None
        self.columns = np.array(sorted(vocabulary[g] for g in total if g in vocabulary), dtype=np.int64)

    documents = NgramCounts.documents

    def counts(self, masks, weights=None):
        """The (m x n_features) counts of the perturbed documents of ``masks``, as :meth:`NgramCounts.counts`."""
        masks = _checked_masks(masks, self.d)
        index = np.int32 if self.n_features < 2**31 else np.int64
        data = np.empty(max(16, len(masks) * len(self.columns) // 2))
        indices = np.empty(len(data), dtype=index)
        indptr = np.zeros(len(masks) + 1, dtype=np.int64)
        weighted = np.ones(0) if weights is None else np.asarray(weights, dtype=np.float64)
        data, indices = _chunk_rows(masks, self.chunk_ptr, self.chunk_words, self.chunk_table, self.table_ptr,
                                    self.table_columns, self.table_counts, self._marks, self._summary, self._tally,
                                    data, indices, indptr, _DE_BRUIJN, bool(self.vectorizer.binary),
                                    weights is not None, weighted)  # fmt: skip
        return data, indices, indptr

    transform = NgramCounts.transform


def _read(rows, text, vectorizer):
    """Set the reading both row readers start from: lime's words of ``text`` (at least two).

    Refused (ValueError) where lower-casing depends on context (a capital sigma).
    """
    rows.text, rows.vectorizer = text, vectorizer
    rows.reading = lime_words(text)
    rows.words = list(rows.reading.words)
    rows.d = len(rows.words)
    if rows.d < 2:
        raise ValueError(f"text must contain at least 2 distinct words, got {rows.words}")
    if vectorizer.lowercase and "\u03a3" in text:
        raise ValueError("text contains the capital sigma 'Σ', whose lower-case form depends on its context")


def _checked_masks(masks, d):
    """``masks`` as a C-ordered (m, d) bool array, or ValueError."""
    masks = np.ascontiguousarray(np.asarray(masks) != 0)
    if masks.ndim != 2 or masks.shape[1] != d:
        raise ValueError(f"masks must be an (m, {d}) array, got shape {masks.shape}")
    return masks


def _row_buffers(n_features):
    """(tally, marks, summary): a mask's counts per column and the two-level bitset of the columns it holds."""
    marks = np.zeros((n_features + 63) // 64, dtype=np.uint64)
    return np.zeros(n_features, dtype=np.int64), marks, np.zeros((len(marks) + 63) // 64, dtype=np.uint64)


def _chunks(reading):
    """The document's whitespace-separated chunks, each a list of (lime word or -1 for a separator, its string)."""
    chunks, parts = [], []
    words = iter(reading.word_of_token)
    for i, token in enumerate(reading.tokens):
        if (i - reading.first) % 2 == 0 and i >= reading.first:  # a word token
            parts.append((next(words), token))
            continue
        for piece in _SPACES.split(token):
            if not piece:
                continue
            if piece.isspace():
                if parts:
                    chunks.append(parts)
                parts = []
            else:
                parts.append((-1, piece))
    if parts:
        chunks.append(parts)
    return chunks


def _shift(keys):
    """The right shift of Fibonacci hashing into a table of ``len(keys)`` (a power of two) slots."""
    return 64 - (len(keys).bit_length() - 1)


@compiled(cache=True, nogil=True)
def _scan(masks, start, words, tokens, low, high, base, keys, values, shift, used, found, old_keys, old_values):
    """Put the n-grams (low..high tokens, low >= 2) of masks[start:] in the table until it is half full.

    First the filled slots of ``old_keys`` (a table being doubled; empty otherwise) are moved to their places: one
    kernel, compiled once, also grows the table.  Returns (the next mask to scan, the new slots written at the start
    of ``found``, the slots now used).
    """
    shift = np.uint64(shift)
    for i in range(len(old_keys)):
        if old_keys[i] != -1:
            slot = np.int64((np.uint64(old_keys[i]) * np.uint64(0x9E3779B97F4A7C15)) >> shift)  # Fibonacci hashing
            while keys[slot] != -1:
                slot = (slot + 1) & (len(keys) - 1)
            keys[slot] = old_keys[i]
            values[slot] = old_values[i]
    kept = np.empty(len(words), dtype=np.int64)
    new = 0
    for i in range(start, masks.shape[0]):
        k = 0
        for p in range(len(words)):
            if masks[i, words[p]]:
                kept[k] = tokens[p]
                k += 1
        for n in range(low, high + 1):
            for s in range(k - n + 1):
                code = 0
                for t in range(s, s + n):
                    code = code * base + kept[t] + 1
                slot = np.int64((np.uint64(code) * np.uint64(0x9E3779B97F4A7C15)) >> shift)
                while keys[slot] != code and keys[slot] != -1:  # linear probes
                    slot = (slot + 1) & (len(keys) - 1)
                if keys[slot] == -1:
                    keys[slot] = code
                    values[slot] = -2
                    found[new] = slot
                    new += 1
                    used += 1
        # a mask adds at most len(words) * (high - 1) codes: the table never fills while it is at most half full
        # before a mask (its size is at least four times that)
        if 2 * used > len(keys):
            return i + 1, new, used
    return masks.shape[0], new, used


@compiled(cache=True, nogil=True)
def _rows(masks, words, tokens, low, high, base, unigram_columns, keys, values, shift, marks, summary, tally, data,
          indices, indptr, de_bruijn, binary, weighted, weights):  # fmt: skip
    """Each mask's columns in increasing order and their counts, one mask after the other (``indptr``: CSR's).

    A value is the count as a float (1.0 when ``binary``), times ``weights[column]`` when ``weighted``.
    Returns (data, indices), grown (doubled) when the guess given was short, cut to the entries written.  A set
    bit's index: the lowest bit isolated, times the de Bruijn constant, its top six bits looked up in ``de_bruijn``.
    """
    shift = np.uint64(shift)
    one, multiplier, top = np.uint64(1), np.uint64(0x03F79D71B4CB0A89), np.uint64(58)
    kept = np.empty(len(words), dtype=np.int64)
    end = 0
    for i in range(masks.shape[0]):
        k = 0
        for p in range(len(words)):
            if masks[i, words[p]]:
                kept[k] = tokens[p]
                k += 1
        for n in range(low, high + 1):
            for s in range(k - n + 1):
                if n == 1:
                    column = unigram_columns[kept[s]]
                else:
                    code = 0
                    for t in range(s, s + n):
                        code = code * base + kept[t] + 1
                    slot = np.int64((np.uint64(code) * np.uint64(0x9E3779B97F4A7C15)) >> shift)
                    while keys[slot] != code:  # filled by _scan: every code is there
                        slot = (slot + 1) & (len(keys) - 1)
                    column = values[slot]
                if column >= 0:
                    if tally[column] == 0:
                        marks[column >> 6] |= one << np.uint64(column & 63)
                        summary[column >> 12] |= one << np.uint64((column >> 6) & 63)
                    tally[column] += 1
        for w in range(len(summary)):
            high_bits = summary[w]
            while high_bits:
                word = w * 64 + de_bruijn[np.int64(((high_bits & (~high_bits + one)) * multiplier) >> top)]
                high_bits &= high_bits - one
                low_bits = marks[word]
                while low_bits:
                    column = word * 64 + de_bruijn[np.int64(((low_bits & (~low_bits + one)) * multiplier) >> top)]
                    low_bits &= low_bits - one
                    if end == len(data):
                        data = np.concatenate((data, np.empty(len(data), dtype=data.dtype)))
                        indices = np.concatenate((indices, np.empty(len(indices), dtype=indices.dtype)))
                    value = 1.0 if binary else float(tally[column])
                    data[end] = value * weights[column] if weighted else value
                    indices[end] = column
                    tally[column] = 0
                    end += 1
                marks[word] = 0
            summary[w] = 0
        indptr[i + 1] = end
    return data[:end], indices[:end]


@compiled(cache=True, nogil=True)
def _chunk_rows(masks, chunk_ptr, chunk_words, chunk_table, table_ptr, table_columns, table_counts, marks, summary,
                tally, data, indices, indptr, de_bruijn, binary, weighted, weights):  # fmt: skip
    """Each mask's row: the tabulated entries of each chunk's state (its kept words as bits), as :func:`_rows`."""
    one, multiplier, top = np.uint64(1), np.uint64(0x03F79D71B4CB0A89), np.uint64(58)
    end = 0
    for i in range(masks.shape[0]):
        for c in range(len(chunk_table)):
            state = 0
            for b in range(chunk_ptr[c + 1] - chunk_ptr[c]):
                if masks[i, chunk_words[chunk_ptr[c] + b]]:
                    state |= 1 << b
            row = chunk_table[c] + state
            for e in range(table_ptr[row], table_ptr[row + 1]):
                column = table_columns[e]
                if tally[column] == 0:
                    marks[column >> 6] |= one << np.uint64(column & 63)
                    summary[column >> 12] |= one << np.uint64((column >> 6) & 63)
                tally[column] += table_counts[e]
        for w in range(len(summary)):
            high_bits = summary[w]
            while high_bits:
                word = w * 64 + de_bruijn[np.int64(((high_bits & (~high_bits + one)) * multiplier) >> top)]
                high_bits &= high_bits - one
                low_bits = marks[word]
                while low_bits:
                    column = word * 64 + de_bruijn[np.int64(((low_bits & (~low_bits + one)) * multiplier) >> top)]
                    low_bits &= low_bits - one
                    if end == len(data):
                        data = np.concatenate((data, np.empty(len(data), dtype=data.dtype)))
                        indices = np.concatenate((indices, np.empty(len(indices), dtype=indices.dtype)))
                    value = 1.0 if binary else float(tally[column])
                    data[end] = value * weights[column] if weighted else value
                    indices[end] = column
                    tally[column] = 0
                    end += 1
                marks[word] = 0
            summary[w] = 0
        indptr[i + 1] = end
    return data[:end], indices[:end]
