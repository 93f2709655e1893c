"""Word n-gram rows from the kept token sequence (pipelines.reading.ngram_rows) against the vectorizer itself.

The independent computation is scikit-learn's own ``vectorizer.transform`` of lime's perturbed strings: every test
compares the mirrored rows with it bit for bit (same indices, same floats), on random masks of lime's law.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from sklearn.feature_extraction.text import CountVectorizer, HashingVectorizer, TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline

from limetheory import perturbed_documents
from limetheory.pipelines.reading.count_rows import count_score_masks, document_rows, rows_match
from limetheory.pipelines.reading.ngram_rows import CharChunks, NgramCounts, char_refusal, ngram_refusal

CORPUS = [
    "the food was good and the service was good",
    "a bad meal, bad service and a long wait",
    "I liked the wine; I did not like the food",
    "good wine good food good times",
    "the wait was long but the food was worth it",
]
#: repeated words, one-character words ("I", "a", "x"), stop words, punctuation that separates n-grams for lime
#: but not for the vectorizer
SMALL_DOCUMENTS = [
    "good food, good wine, good times: I a x good food",
    "the the the food was was good and a a bad wait",
    "I did not like the food; I liked the wine and the long wait was worth it",
]


def lime_masks(d, m, rng):
    """m masks of lime's law (s ~ U{1..d} words removed) and the whole document first."""
    removed = rng.integers(1, d + 1, size=m)
    masks = rng.random((m, d)).argsort(axis=1) >= removed[:, None]
    masks[0] = True
    return masks


def long_document(texts):
    """benchmarks/default_call.py's long document: the first reviews joined until they hold 1000 of lime's tokens."""
    parts, tokens = [], 0
    for text in texts:
        parts.append(text)
        tokens += len([t for t in re.split(r"\W+", text) if t])
        if tokens >= 1000:
            return " ".join(parts)
    raise ValueError("the texts hold fewer than 1000 tokens")


def assert_same_rows(ours, truth):
    ours, truth = ours.tocsr(), truth.tocsr()
    assert type(ours) is type(truth) and ours.shape == truth.shape and ours.dtype == truth.dtype
    assert np.array_equal(ours.indptr, truth.indptr)
    assert np.array_equal(ours.indices, truth.indices)
    assert np.array_equal(ours.data, truth.data)  # bit for bit: the same floating-point steps in the same order


SETTINGS = [
    (TfidfVectorizer, {"ngram_range": (1, 2)}),
    (TfidfVectorizer, {"ngram_range": (2, 2)}),
    (TfidfVectorizer, {"ngram_range": (1, 3)}),
    (TfidfVectorizer, {"ngram_range": (2, 3), "norm": "l1"}),
    (TfidfVectorizer, {"ngram_range": (1, 2), "binary": True, "norm": None}),
    (TfidfVectorizer, {"ngram_range": (1, 2), "sublinear_tf": True}),
    (TfidfVectorizer, {"ngram_range": (1, 2), "use_idf": False, "norm": "l1"}),
    (TfidfVectorizer, {"ngram_range": (1, 3), "stop_words": "english"}),
    (TfidfVectorizer, {"ngram_range": (1, 2), "lowercase": False, "token_pattern": r"(?u)\b\w+\b"}),
    (CountVectorizer, {"ngram_range": (1, 2)}),
    (CountVectorizer, {"ngram_range": (1, 4), "binary": True}),
]


@pytest.mark.parametrize(("kind", "settings"), SETTINGS)
def test_rows_equal_the_vectorizer_on_small_documents(kind, settings):
    vectorizer = kind(**settings).fit(CORPUS + SMALL_DOCUMENTS[:1])
    rng = np.random.default_rng(0)
    for text in SMALL_DOCUMENTS:
        rows = NgramCounts(text, vectorizer)
        masks = lime_masks(rows.d, 300, rng)
        assert_same_rows(rows.transform(masks), vectorizer.transform(perturbed_documents(text, masks)))


@pytest.mark.parametrize("settings", [s for k, s in SETTINGS if k is TfidfVectorizer][:5])
def test_rows_equal_the_vectorizer_on_yelp(yelp, settings):
    """A review and the long document of benchmarks/default_call.py (1043 tokens, d = 488), fitted on Yelp."""
    texts, _ = yelp
    vectorizer = TfidfVectorizer(**settings).fit(texts)
    rng = np.random.default_rng(1)
    for text in (texts[10], long_document(texts)):
        rows = NgramCounts(text, vectorizer)
        for m in (1, 400):  # the second call meets n-grams the first did not ask the vocabulary about
            masks = lime_masks(rows.d, m, rng)
            assert_same_rows(rows.transform(masks), vectorizer.transform(rows.documents(masks)))


def test_the_table_grows_and_keeps_every_column():
    """Many distinct trigrams: the table doubles several times, the rows stay equal to the vectorizer's."""
    words = [f"w{i}" for i in range(60)]
    rng = np.random.default_rng(2)
    corpus = [" ".join(rng.choice(words, 40)) for _ in range(200)]
    vectorizer = CountVectorizer(ngram_range=(2, 3)).fit(corpus)
    text = " ".join(rng.choice(words, 80))
    rows = NgramCounts(text, vectorizer)
    slots = len(rows._keys)
    masks = lime_masks(rows.d, 2000, rng)
    assert_same_rows(rows.transform(masks), vectorizer.transform(perturbed_documents(text, masks)))
    assert len(rows._keys) > slots


def test_count_score_masks_uses_the_ngram_rows():
    model = make_pipeline(TfidfVectorizer(ngram_range=(1, 2)), LogisticRegression()).fit(CORPUS, [1, 0, 0, 1, 1])
    text = SMALL_DOCUMENTS[2]
    score, reason = count_score_masks(model, text, "predict_proba")
    assert reason is None
    document, _ = document_rows(text, model.steps[0][1])
    assert isinstance(document, NgramCounts)
    masks = lime_masks(document.d, 200, np.random.default_rng(3))
    assert rows_match(document, masks)  # the self-check's own comparison
    assert np.array_equal(score(masks), model.predict_proba(perturbed_documents(text, masks)))
    assert score.columns == len(document.columns) == model[0].transform([text]).nnz


@pytest.mark.parametrize(
    ("vectorizer", "reason"),
    [
        (TfidfVectorizer(ngram_range=(1, 2), tokenizer=str.split, token_pattern=None), "a custom tokenizer"),
        (TfidfVectorizer(ngram_range=(1, 2), preprocessor=str.lower), "a custom preprocessor"),
        (TfidfVectorizer(ngram_range=(1, 2), analyzer=str.split), "analyzer="),
        (TfidfVectorizer(ngram_range=(1, 2), strip_accents="unicode"), "strip_accents"),
        (TfidfVectorizer(ngram_range=(1, 2), token_pattern=r"\S+"), "token_pattern"),
        (TfidfVectorizer(ngram_range=(1, 7)), "ngram_range"),
        (TfidfVectorizer(analyzer="char", ngram_range=(1, 2)), "analyzer='char'"),
    ],
)
@pytest.mark.filterwarnings("ignore:The parameter 'ngram_range' will not be used")
def test_refusals_fall_back_with_a_reason(vectorizer, reason):
    vectorizer.fit(CORPUS)
    assert reason in ngram_refusal(vectorizer)
    model = make_pipeline(vectorizer, LogisticRegression()).fit(CORPUS, [1, 0, 0, 1, 1])
    score, why = count_score_masks(model, SMALL_DOCUMENTS[0], "predict_proba")
    assert score is None and why  # never silently wrong: lime's strings, with the reason


def test_refusals_of_the_document_and_the_arguments():
    vectorizer = TfidfVectorizer(ngram_range=(1, 2)).fit(CORPUS)
    with pytest.raises(ValueError, match="at least 2 distinct words"):
        NgramCounts("good good", vectorizer)
    with pytest.raises(ValueError, match="capital sigma"):
        NgramCounts("good ΣOME food", vectorizer)
    with pytest.raises(ValueError, match="not mirror"):
        NgramCounts("good food", HashingVectorizer(ngram_range=(1, 2)))
    with pytest.raises(ValueError, match="not fitted|not mirror"):
        NgramCounts("good food", TfidfVectorizer(ngram_range=(1, 2)))
    rows = NgramCounts("good food and wine", vectorizer)
    with pytest.raises(ValueError, match="masks must be an"):
        rows.transform(np.ones((2, 3), dtype=bool))
    # "İ" lower-cases to two characters ("i" and a combining dot, a word character): the rows stay the vectorizer's
    text = "good İstanbul food, İx a wine"
    fitted = TfidfVectorizer(ngram_range=(1, 2)).fit(CORPUS + ["i̇stanbul food"])
    rows = NgramCounts(text, fitted)
    masks = lime_masks(rows.d, 50, np.random.default_rng(4))
    assert_same_rows(rows.transform(masks), fitted.transform(perturbed_documents(text, masks)))


CHAR_DOCUMENTS = [
    "didn't like it,good food!  the   wine\twas\nfine -- I'd go again...",
    "  a b-c good,good food;food (great) ÉTÉ été x  ",
    "the food was good and the service was good, good, good",
]
CHAR_SETTINGS = [
    (TfidfVectorizer, {"analyzer": "char_wb", "ngram_range": (2, 4)}),
    (TfidfVectorizer, {"analyzer": "char_wb", "ngram_range": (1, 3), "binary": True, "norm": "l1"}),
    (TfidfVectorizer, {"analyzer": "char_wb", "ngram_range": (2, 5), "sublinear_tf": True, "lowercase": False}),
    (TfidfVectorizer, {"analyzer": "char_wb", "ngram_range": (3, 3), "use_idf": False, "norm": None}),
    (CountVectorizer, {"analyzer": "char_wb", "ngram_range": (1, 2)}),
]


@pytest.mark.parametrize(("kind", "settings"), CHAR_SETTINGS)
def test_char_rows_equal_the_vectorizer(kind, settings):
    """Chunks with several words and separators, runs of spaces, tabs, newlines, one-character and accented words."""
    vectorizer = kind(**settings).fit(CORPUS + CHAR_DOCUMENTS[:1])
    rng = np.random.default_rng(5)
    for text in CHAR_DOCUMENTS:
        rows = CharChunks(text, vectorizer)
        masks = lime_masks(rows.d, 300, rng)
        assert_same_rows(rows.transform(masks), vectorizer.transform(perturbed_documents(text, masks)))


def test_char_rows_equal_the_vectorizer_on_yelp(yelp):
    texts, _ = yelp
    vectorizer = TfidfVectorizer(analyzer="char_wb", ngram_range=(2, 4)).fit(texts)
    rng = np.random.default_rng(6)
    for text in (texts[10], long_document(texts)):
        rows = CharChunks(text, vectorizer)
        masks = lime_masks(rows.d, 200, rng)
        assert_same_rows(rows.transform(masks), vectorizer.transform(rows.documents(masks)))
        assert rows.grams == len(vectorizer.build_analyzer()(text))


def test_count_score_masks_uses_the_char_rows():
    model = make_pipeline(TfidfVectorizer(analyzer="char_wb", ngram_range=(2, 4)), LogisticRegression())
    model.fit(CORPUS, [1, 0, 0, 1, 1])
    text = CHAR_DOCUMENTS[0]
    score, reason = count_score_masks(model, text, "predict_proba")
    assert reason is None and isinstance(score.document, CharChunks)
    masks = lime_masks(score.document.d, 200, np.random.default_rng(7))
    assert np.array_equal(score(masks), model.predict_proba(perturbed_documents(text, masks)))


def test_char_refusals_fall_back_with_a_reason():
    vectorizer = TfidfVectorizer(analyzer="char_wb", ngram_range=(2, 4)).fit(CORPUS)
    crowded = "good food " + "-".join("abcdefghijkl")  # one chunk of 12 distinct words: 4096 strings
    with pytest.raises(ValueError, match="12 distinct words"):
        CharChunks(crowded, vectorizer)
    model = make_pipeline(vectorizer, LogisticRegression()).fit(CORPUS, [1, 0, 0, 1, 1])
    score, why = count_score_masks(model, crowded, "predict_proba")
    assert score is None and "12 distinct words" in why
    for settings, reason in [
        ({"analyzer": "char", "ngram_range": (2, 4)}, "analyzer='char'"),
        ({"analyzer": "char_wb", "preprocessor": str.lower}, "a custom preprocessor"),
        ({"analyzer": "char_wb", "strip_accents": "ascii"}, "strip_accents"),
    ]:
        fitted = TfidfVectorizer(**settings).fit(CORPUS)
        assert reason in (char_refusal(fitted) or "")
        score, why = count_score_masks(make_pipeline(fitted, LogisticRegression()).fit(CORPUS, [1, 0, 0, 1, 1]),
                                       CHAR_DOCUMENTS[0], "predict_proba")  # fmt: skip
        assert score is None and why
    with pytest.raises(ValueError, match="masks must be an"):
        CharChunks(CHAR_DOCUMENTS[2], vectorizer).transform(np.ones((1, 2), dtype=bool))


@pytest.mark.parametrize(
    ("reader", "kind", "settings"),
    [
        (NgramCounts, TfidfVectorizer, {"ngram_range": (1, 2), "dtype": np.float32}),
        (CharChunks, TfidfVectorizer, {"analyzer": "char_wb", "dtype": np.float32, "sublinear_tf": True}),
        (NgramCounts, CountVectorizer, {"ngram_range": (1, 3), "dtype": np.int32}),
    ],
)
def test_rows_keep_the_vectorizers_dtype(reader, kind, settings):
    """float32 idf times a count: the float64 product is exact, rounded once as the vectorizer's float32 product."""
    vectorizer = kind(**settings).fit(CORPUS)
    text = SMALL_DOCUMENTS[0]
    rows = reader(text, vectorizer)
    masks = lime_masks(rows.d, 300, np.random.default_rng(8))
    assert_same_rows(rows.transform(masks), vectorizer.transform(perturbed_documents(text, masks)))
