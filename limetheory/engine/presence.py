"""A vectorizer's columns as functions of which lime words are kept, when they are such functions.

lime perturbs a document by removing every occurrence of some of its distinct words (its local dictionary) and
keeping the separators.  A model reads the document through a scikit-learn vectorizer, so a split of a tree on
column c is a function of lime's mask z only when the *value* of column c is.  It is when the column counts tokens
and the value depends on the column's own count alone:

* ``CountVectorizer``: counts, or 0/1 with ``binary=True``;
* ``TfidfVectorizer(norm=None)``: tf · idf with tf the count, 0/1 (``binary``) or 1 + log(count)
  (``sublinear_tf``), with or without idf.

The count of column c is the sum of the counts of the lime words the vectorizer maps to c; under lower-casing
several words feed one column ("The" and "the"), so the value of c is a function of which words of that *group*
are kept.  Words linked through shared columns form one group; a word the vectorizer cannot see belongs to none.
A normalised TF-IDF (``norm='l2'`` or ``'l1'``, the default of ``TfidfVectorizer``) divides by the norm of the
whole row, which depends on every kept word: its columns are not functions of one group, and they are refused.

This is decided from the vectorizer's settings and the document, never from data; the *values* of the columns on
each kept subset of each group are then taken from the vectorizer itself, applied to a document holding the kept
words of the group as often as the text does (checked against its row of the text), so that a tree's threshold is
compared with exactly the number the tree sees (a float32, as scikit-learn's trees read their input).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np

from .._validation import check_text, check_vectorizer
from .tokens import indexed_string, local_dictionary

#: largest group of lime words linked through shared columns (its 2ᵏ kept subsets are pushed through the
#: vectorizer); lower-casing links a handful of words ("The", "the", "THE"), never this many
MAX_GROUP_WORDS = 12

#: where a column that is not a presence function sends the user
EXPLAIN_ADVICE = (
    "lt.explain gives an honest Monte Carlo estimate (with standard errors) for such a model, and exact "
    "enumeration over the 2^d masks for d <= 14"
)


def presence_refusal(vectorizer):
    """Why the vectorizer's column values are not functions of the kept words (None when they are)."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    if isinstance(vectorizer, TfidfVectorizer) and vectorizer.norm is not None:
        return (
            f"the vectorizer is a TfidfVectorizer with norm={vectorizer.norm!r}: each column is divided by the norm "
            "of the whole row, which depends on every kept word, so a split on a column is not a function of "
            "which lime words are present"
        )
    return None


@dataclass(frozen=True)
class DocumentColumns:
    """The columns a document's lime words feed, and their values on every kept subset of each group.

    Attributes
    ----------
    words : list of str
        lime's local dictionary of the document.
    groups : tuple of tuple of int
        Word indices linked through shared columns; each word the vectorizer sees is in exactly one group.
    group_of_column : dict of int to int
        Column -> its group, for every column that some word of the document feeds.
    values : dict of int to ndarray
        Column -> float32 array over the 2ᵏ kept subsets of its group (k words; subset code t keeps
        ``groups[g][i]`` when bit i of t is set): the value the vectorizer gives the column, rounded to float32
        as a scikit-learn tree reads it.  A column no word feeds is 0 in every perturbed document.
    """

    words: list
    groups: tuple
    group_of_column: dict
    values: dict

    def left_subsets(self, column, threshold):
        """Bit set over the kept subsets of the column's group whose value satisfies ``value <= threshold``.

        Bit t of the returned int is set when subset code t goes left at the split; for a column that no word
        feeds, the result is 1 (go left) or 0 (go right) according to the value 0.
        """
        if column not in self.values:
            return int(0.0 <= threshold)
        goes_left = self.values[column].astype(np.float64) <= threshold
        return sum(1 << t for t in np.flatnonzero(goes_left).tolist())


def _groups(columns_of_word, d):
    """Connected components of the words under 'shares a column' (union-find), in word order."""
    parent = list(range(d))

    def root(j):
        while parent[j] != j:
            parent[j] = parent[parent[j]]
            j = parent[j]
        return j

    first_word = {}
    for j, columns in enumerate(columns_of_word):
        for column in columns:
            if column in first_word:
                parent[root(j)] = root(first_word[column])
            else:
                first_word[column] = j
    members = {}
    for j, columns in enumerate(columns_of_word):
        if columns:
            members.setdefault(root(j), []).append(j)
    return tuple(tuple(m) for m in sorted(members.values()))


def document_columns(vectorizer, text, *, n_features=None):
    """The presence structure of ``text`` under ``vectorizer`` (see :class:`DocumentColumns`).

    Raises ValueError when the vectorizer's columns are not functions of which lime words are kept (a
    normalised TF-IDF), when its tokens of ``text`` are not the tokens of lime's words taken one by one (a token
    pattern that spans lime's separators), when a group of linked words exceeds ``MAX_GROUP_WORDS``, or when
    ``n_features`` (the model's input width) is not the vocabulary size.
    """
    analyzer = check_vectorizer(vectorizer, unigrams=True).build_analyzer()
    text = check_text(text)
    vocabulary = vectorizer.vocabulary_
    if n_features is not None and n_features != len(vocabulary):
        raise ValueError(
            f"the model must read the vectorizer's {len(vocabulary)} columns, got n_features_in_ = {n_features}"
        )
    refusal = presence_refusal(vectorizer)
    if refusal is not None:
        raise ValueError(f"{refusal}; {EXPLAIN_ADVICE}")
    words = local_dictionary(text)
    occurrences = [len(p) for p in indexed_string(text).positions]  # lime's IndexedString(text), its words' tokens
    token_counts = [Counter(t for t in analyzer(w) if t in vocabulary) for w in words]
    expected = Counter()
    for m, counts in zip(occurrences, token_counts, strict=True):
        for token, k in counts.items():
            expected[token] += m * k
    seen = Counter(t for t in analyzer(text) if t in vocabulary)
    if seen != expected:
        raise ValueError(
            "the vectorizer's tokens of text are not the tokens of lime's words taken one by one: its token "
            "pattern spans lime's separators, so a column is not a function of the kept words"
        )
    columns_of_word = [sorted(vocabulary[t] for t in counts) for counts in token_counts]
    groups = _groups(columns_of_word, len(words))
    largest = max((len(g) for g in groups), default=0)
    if largest > MAX_GROUP_WORDS:
        raise ValueError(
            f"text has {largest} lime words linked through shared vectorizer columns, above the limit of "
            f"{MAX_GROUP_WORDS} (their 2^k kept subsets are enumerated); {EXPLAIN_ADVICE}"
        )
    # the value of a column of a group depends only on which of the group's words are kept (the settings and the
    # tokens, checked above): one short document per kept subset, holding each kept word of the group as many
    # times as the text does, is enough; its values are checked against the vectorizer's row of the text itself
    documents, rows = [text], {}
    for g, group in enumerate(groups):
        for t in range(2 ** len(group)):
            rows[g, t] = len(documents)
            documents.append(" ".join(" ".join([words[j]] * occurrences[j]) for i, j in enumerate(group) if t >> i & 1))
    # one transform of each distinct document (the empty document of every group's first subset, above all): the
    # vectorizer's row of a document does not depend on the other documents of the call
    distinct = list(dict.fromkeys(documents))
    if len(distinct) < len(documents):
        where = {document: i for i, document in enumerate(distinct)}
        matrix = vectorizer.transform(distinct).tocsr()[[where[document] for document in documents]]
    else:
        matrix = vectorizer.transform(documents).tocsr()
    matrix.sum_duplicates()  # canonical (a no-op on the vectorizers' own output): row 0 read from its entries
    text_columns, text_values = (part[matrix.indptr[0] : matrix.indptr[1]] for part in (matrix.indices, matrix.data))
    fed = sorted({c for columns in columns_of_word for c in columns})
    # (documents, fed columns) has about 2d x d entries, mostly zeros: read each column's nonzeros (a dense copy
    # would take 1.6 GB at d = 10⁴); a group's documents are consecutive rows.  The fed columns are picked from the
    # CSC copy (a slice per column) rather than from the CSR rows (scipy's column indexing costs more than the
    # conversion): the same columns, each with its rows in increasing order
    by_column = matrix.tocsc()[:, fed]
    # each fed column's group and the first of its group's rows, then its nonzeros in those rows, all at once
    group_of_column = {
        c: g for g, group in enumerate(groups) for c in sorted({c for j in group for c in columns_of_word[j]})
    }
    column_group = np.array([group_of_column[c] for c in fed], dtype=np.int64)
    first = np.array([rows[g, 0] for g in range(len(groups))], dtype=np.int64)[column_group]
    size = np.array([2 ** len(group) for group in groups], dtype=np.int64)[column_group]
    offset = np.concatenate([[0], np.cumsum(size)])
    entry_column = np.repeat(np.arange(len(fed)), np.diff(by_column.indptr))
    row = by_column.indices - first[entry_column]
    inside = (row >= 0) & (row < size[entry_column])
    flat = np.zeros(int(offset[-1]), dtype=np.float32)
    flat[offset[entry_column[inside]] + row[inside]] = by_column.data[inside]
    first_row = np.zeros(len(fed), dtype=matrix.dtype)  # the text's values in the fed columns (0 where absent)
    in_fed = np.searchsorted(fed, text_columns)
    found = in_fed < len(fed)
    found[found] = np.asarray(fed, dtype=np.int64)[in_fed[found]] == text_columns[found]
    first_row[in_fed[found]] = text_values[found]
    if np.any(flat[offset[1:] - 1] != first_row.astype(np.float32)):
        raise ValueError(
            "the vectorizer's value of a column of text is not that of lime's words taken one by one: its "
            "analysis depends on the words' context"
        )
    position = {column: i for i, column in enumerate(fed)}
    values = {c: flat[offset[position[c]] : offset[position[c] + 1]].copy() for c in group_of_column}
    if any(c not in group_of_column for c in text_columns[text_values != 0].tolist()):
        raise ValueError(
            "the vectorizer gives text columns that none of lime's words feeds: its tokens span lime's separators"
        )
    return DocumentColumns(words=words, groups=groups, group_of_column=group_of_column, values=values)
