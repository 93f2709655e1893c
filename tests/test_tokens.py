"""limetheory.engine.tokens: lime's words and a vectorizer's columns, checked against lime and the vectorizer
themselves."""

from __future__ import annotations

import re

import numpy as np
import pytest
import scipy.sparse as sp
from lime.lime_text import IndexedString
from sklearn.feature_extraction.text import CountVectorizer, TfidfVectorizer

import limetheory as lt
from limetheory.book import fit_yelp_vectorizer
from limetheory.engine import kept_counts, tokens
from limetheory.engine.tokens import DocumentCounts, word_tokens

CORPUS = ["The food was good", "the FOOD was bad", "I ate a pizza", "service: slow, food: cold"]


#: texts where lime's tokenisation has corner cases (tests/test_lime_tokens.py reads them too)
CRAFTED = [
    "a\x00b c\x00\x00 d\x00",  # NUL characters, which lime's numpy array of tokens strips from separators
    "\x00 x \x00\x00",
    "The the THE, the. The!",
    "über_größe 12 3_4 ... x",
    "émigré—naïve café's déjà-vu",
    "tab\tnew\nline\r\nend",
    "abc\n",  # "$" also matches before a final newline
    "  spaced   out  ",
    "日本語のテキスト と 単語",
    "a_b-c_d __ _",
    "\u00a0nbsp\u00a0words\u2003em",
    "x",
    "...",
    "a\x00",
]


def _counts_from_words(text, vectorizer):
    """The vectorizer's count row of ``text`` rebuilt from word_columns: column c gets the counts of its words."""
    columns, counts = lt.word_columns(text, vectorizer)
    row = np.zeros(len(vectorizer.vocabulary_), dtype=np.int64)
    visible = columns >= 0
    np.add.at(row, columns[visible], counts[visible])
    return row


@pytest.mark.parametrize(
    "vectorizer",
    [
        CountVectorizer(),
        CountVectorizer(lowercase=False),
        CountVectorizer(stop_words=["the", "was"]),
        CountVectorizer(token_pattern=r"(?u)\b\w+\b"),
        TfidfVectorizer(),
    ],
    ids=["default", "cased", "stop-words", "one-character", "tfidf"],
)
@pytest.mark.parametrize(
    "text",
    ["The food was good, the food!", "I ate the FOOD and the pizza; the food ate me", "a b c", "Food food FOOD fOOd"],
)
def test_word_columns_add_up_to_the_vectorizer_counts(vectorizer, text):
    vectorizer = vectorizer.fit(CORPUS)
    counter = CountVectorizer(
        **{k: v for k, v in vectorizer.get_params().items() if k in CountVectorizer().get_params()}
    )
    truth = counter.fit(CORPUS).transform([text]).toarray()[0]
    np.testing.assert_array_equal(_counts_from_words(text, vectorizer), truth)
    columns, counts = lt.word_columns(text, vectorizer)
    # the occurrences are lime's: the number of positions of each distinct token of IndexedString
    indexed = IndexedString(text)
    assert counts.tolist() == [len(positions) for positions in indexed.positions]
    assert len(columns) == len(lt.local_dictionary(text))


def test_word_columns_allow_shared_columns_that_tfidf_columns_refuse():
    vectorizer = TfidfVectorizer().fit(CORPUS)
    text = "The food and the FOOD"
    columns, counts = lt.word_columns(text, vectorizer)
    the, food = vectorizer.vocabulary_["the"], vectorizer.vocabulary_["food"]
    assert lt.local_dictionary(text) == ["The", "food", "and", "the", "FOOD"]
    assert columns.tolist() == [the, food, -1, the, food]
    assert counts.tolist() == [1, 1, 1, 1, 1]
    with pytest.raises(ValueError, match="share the vectorizer column 'the'"):
        lt.tfidf_columns(text, vectorizer)


def test_word_columns_on_every_yelp_review(data_dir):
    """All 1000 reviews: the vectorizer's own counts equal the sums of word_columns' counts, document by document."""
    texts = lt.load_yelp_reviews()["text"].tolist()
    vectorizer = fit_yelp_vectorizer(texts)
    counter = CountVectorizer().fit(texts)  # same analyzer and vocabulary as the TfidfVectorizer
    assert counter.vocabulary_ == vectorizer.vocabulary_
    truth = counter.transform(texts)
    shared = 0
    memo = {}  # kept across the reviews, as explain_linear_many keeps it: the same answers
    for i, text in enumerate(texts):
        columns, counts = lt.word_columns(text, vectorizer)
        remembered = lt.word_columns(text, vectorizer, memo=memo)
        assert np.array_equal(remembered[0], columns) and np.array_equal(remembered[1], counts), i
        row = sp.csr_matrix(
            (counts[columns >= 0], (np.zeros((columns >= 0).sum(), dtype=int), columns[columns >= 0])),
            shape=(1, len(vectorizer.vocabulary_)),
        )  # duplicates (words sharing a column) are summed
        assert (row != truth[i]).nnz == 0, i
        visible = columns[columns >= 0]
        shared += len(np.unique(visible)) < len(visible)
    assert shared > 0  # tfidf_columns refuses these; word_columns is the route for them
    assert len(memo) == len({word for text in texts for word in lt.local_dictionary(text)})


def test_word_columns_refuse_vectorizers_whose_tokens_are_not_lime_words():
    with pytest.raises(ValueError, match="spans lime's separators"):
        lt.word_columns("good food, bad service", CountVectorizer(token_pattern=r"\S+").fit(["good food,"]))
    with pytest.raises(ValueError, match="several tokens"):
        lt.word_columns("good_food here", CountVectorizer(token_pattern=r"[a-z]+").fit(["good food here"]))
    with pytest.raises(ValueError, match="ngram_range"):
        lt.word_columns("good food", CountVectorizer(ngram_range=(1, 2)).fit(CORPUS))
    with pytest.raises(ValueError, match="fitted"):
        lt.word_columns("good food", CountVectorizer())
    with pytest.raises(TypeError, match="^vectorizer must be a fitted scikit-learn CountVectorizer"):
        lt.word_columns("good food", object())
    with pytest.raises(TypeError, match="^text must be a str"):
        lt.word_columns(None, CountVectorizer().fit(CORPUS))
    with pytest.raises(ValueError, match="^text must contain at least one word"):
        lt.word_columns("!!", CountVectorizer().fit(CORPUS))


def test_word_tokens_default_is_tfidf_vectorizer_analysis_of_one_word():
    analyze = TfidfVectorizer().build_analyzer()
    for word in ["Food", "a", "I", "ÉCOLE", "x1", "déjà"]:
        assert word_tokens(word) == analyze(word)
    cased = CountVectorizer(lowercase=False).build_analyzer()
    assert word_tokens("Food", cased) == ["Food"]


def test_document_counts_rows_are_the_vectorizer_counts_of_the_perturbed_strings():
    """The fast engine's count matrix: mask @ counts is CountVectorizer.transform of lime's perturbed document."""
    text = "The food, the FOOD and a pizza; the end"
    vectorizer = CountVectorizer().fit(CORPUS + ["the end and"])
    document = DocumentCounts(text, vectorizer)
    d = document.d
    masks = lt.sample_masks(d, 40, np.random.default_rng(3))
    truth = vectorizer.transform(lt.perturbed_documents(text, masks)).toarray()
    np.testing.assert_array_equal(document.transform(masks).toarray(), truth)
    # and the column map is word_columns': one column per word here
    columns, counts = lt.word_columns(text, vectorizer)
    dense = document.counts.toarray()
    for j in range(d):
        if columns[j] >= 0:
            assert dense[j, np.searchsorted(document.columns, columns[j])] == counts[j]
        else:
            assert not dense[j].any()


def test_document_counts_keep_a_word_that_lower_casing_splits():
    """'İ' lower-cases to 'i' and a combining dot (not a word character): one lime word, two vectorizer tokens."""
    text = "aİb food, food"
    vectorizer = CountVectorizer(token_pattern=r"(?u)\b\w+\b").fit(["ai b food"])
    assert re.findall(r"\w+", "aİb".lower()) == ["ai", "b"]
    document = DocumentCounts(text, vectorizer)
    masks = np.array([[1, 1], [0, 1], [1, 0]])
    truth = vectorizer.transform(lt.perturbed_documents(text, masks)).toarray()
    np.testing.assert_array_equal(document.transform(masks).toarray(), truth)
    with pytest.raises(ValueError, match="several tokens"):
        lt.word_columns(text, vectorizer)


def test_lime_tokenisation_is_lime_s_own_on_the_reviews_and_crafted_texts(data_dir):
    """engine.tokens reads lime's IndexedString without building it: the same tokens, words and positions."""
    for text in lt.load_yelp_reviews()["text"].tolist() + CRAFTED:
        ours, lime_s = tokens._indexed(text), IndexedString(text)
        assert ours.as_list == [str(token) for token in lime_s.as_list], text
        assert ours.inverse_vocab == [str(word) for word in lime_s.inverse_vocab], text
        assert ours.positions == lime_s.positions, text


def _sparse_product(masks, counts):
    """The reference: scipy's sparse product of the 0/1 masks with the counts, zeros dropped, indices sorted."""
    product = sp.csr_matrix(sp.csr_matrix((np.asarray(masks) != 0).astype(np.int64)) @ sp.csr_matrix(counts))
    product.eliminate_zeros()
    product.sort_indices()
    return product


@pytest.mark.parametrize(
    "dense_counts",
    [
        [[1, 0, 0], [2, 0, 0], [0, 3, 0], [0, 0, 1], [0, 0, 0]],  # a shared column, an invisible word
        [[1, 0], [0, 1]],  # one word per column
        [[0, 1, 0], [1, 0, 0], [0, 1, 0], [0, 2, 0], [0, 0, 0]],  # three words in one column, a column with none
        [[1, 1], [0, 2], [3, 0]],  # a word of two columns: the sparse product
        [[0], [0]],  # no visible word
    ],
    ids=["shared", "one-each", "three-in-one", "two-columns", "invisible"],
)
def test_kept_column_counts_is_the_sparse_product(dense_counts, monkeypatch):
    """Entry for entry (integers, sorted indices, no stored zero) the sparse product, on the dense path and off it."""
    counts = sp.csr_matrix(np.array(dense_counts, dtype=np.int64))
    rng = np.random.default_rng(4)
    masks = (rng.random((300, counts.shape[0])) < rng.random((300, 1))).astype(np.int8)
    masks[0], masks[1] = 1, 0
    for limit in (kept_counts.MAX_DENSE_ENTRIES, 10):  # 10 entries: the sparse product's branch
        monkeypatch.setattr(kept_counts, "MAX_DENSE_ENTRIES", limit)
        ours = kept_counts.kept_column_counts(masks * 3, counts)  # any nonzero entry keeps its word
        truth = _sparse_product(masks, counts)
        assert ours.shape == truth.shape and ours.dtype == np.int64 and ours.has_sorted_indices
        assert np.array_equal(ours.indptr, truth.indptr) and np.array_equal(ours.indices, truth.indices)
        assert np.array_equal(ours.data, truth.data) and np.all(ours.data != 0)
        np.testing.assert_array_equal(ours.toarray(), masks @ np.array(dense_counts))
    assert kept_counts.kept_column_counts(masks[:0], counts).shape == (0, counts.shape[1])


def test_kept_column_counts_refuses_what_it_cannot_count():
    counts = sp.csr_matrix(np.array([[1, 0], [0, 1]]))
    with pytest.raises(TypeError, match="counts must be a scipy sparse matrix of integers"):
        kept_counts.kept_column_counts(np.ones((2, 2)), np.eye(2, dtype=int))
    with pytest.raises(TypeError, match="integers"):
        kept_counts.kept_column_counts(np.ones((2, 2)), sp.csr_matrix(np.eye(2)))
    with pytest.raises(ValueError, match=r"shape \(m, 2\)"):
        kept_counts.kept_column_counts(np.ones((2, 3)), counts)
    with pytest.raises(ValueError, match=r"shape \(m, 2\)"):
        kept_counts.kept_column_counts(np.ones(2), counts)
    with pytest.raises(ValueError, match="non-negative"):
        kept_counts.kept_column_counts(np.ones((2, 2)), -counts)
