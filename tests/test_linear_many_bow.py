"""The batched linear route with lime's ``bow=False`` against ``explain(..., bow=False)``, bit for bit.

Each occurrence is a feature and a removed one becomes the mask string.  On Yelp reviews (many with a repeated word)
and crafted texts, for Count and Tfidf vectorizers (l1, l2, no norm, binary, stop words): a document is explained
as explain explains it (every field, compared with ``==``: both sides make the same operations) or left to explain
(None) where explain's own first route is not the linear one or where the batch does not read it (a non-ASCII text,
a mask string the vocabulary holds, a TfidfTransformer after the vectorizer); ``explain_many`` then returns explain's
own answer for it.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from explanation_fields import assert_same
from sklearn.feature_extraction.text import CountVectorizer, TfidfTransformer, TfidfVectorizer
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.pipeline import make_pipeline

import limetheory as lt
from limetheory.engine.lime_documents import indexed_documents, lime_indexed_string
from limetheory.engine.lime_tokens import lime_words
from limetheory.pipelines.corpora.linear_many import explain_linear_many
from limetheory.pipelines.corpora.occurrences import mask_string_refusal, occurrence_strings, occurrences

#: reviews per pipeline (kept short for the suite's time; most of them repeat a word), and every how many reviews
#: one is fitted on (the reviews are sorted by label: every third one holds both)
FEW, FIT_STEP = 16, 3

#: texts at the edges: two occurrences of one word (d = 2 with bow=False, refused with bow=True), a word that repeats
#: in several cases (one column), words the model never saw, nothing to remove, a non-ASCII text, and lime's
#: tokenisation's own edges
EDGE_DOCUMENTS = [
    "food food",
    "Great",
    "The the THE food was good, the service THE worst",
    "zzzqqq zzzqqq food",
    "!!! ...",
    "",
    "Not bad. Not bad at all, not at all bad!",
    "café food, good café",
    "UNKWORDZ food, unkwordz UNKWORDZ",  # lime's mask string as a word of the text
    "  a\x00b\x00 c a  ",  # NUL separators, words the vectorizer drops, separators at both ends
    "one_two 42 one_two 42!",  # underscores and digits are word characters
]


@pytest.fixture(scope="module")
def reviews(yelp):
    texts, stars = yelp
    return texts, stars


@pytest.fixture(scope="module")
def chosen(reviews):
    """Short reviews, most with a repeated word, and the longest (the most occurrences in one column)."""
    texts, _ = reviews
    by_length = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    return [texts[i] for i in (*range(FEW - 4), *by_length[:2], *by_length[-2:])]


def _fit(vectorizer, reviews, estimator=None):
    texts, stars = reviews
    model = make_pipeline(vectorizer, estimator or LogisticRegression(max_iter=1000))
    return model.fit(texts[::FIT_STEP], np.asarray(stars)[::FIT_STEP])


def _same_as_explain(model, texts, output="decision_function", every_field=False, read=True, **options):
    """Check every document of explain_linear_many(bow=False) against explain; return how many the batch took.

    The documents explain's linear route takes and the batch leaves (None) are counted apart: (batched, left), and
    each of them must be non-ASCII (the batch reads ASCII texts only: occurrences' module docstring) unless ``read``
    is False (a model or mask string the batch leaves to explain altogether).
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # lime's agreement, compared through the notes below
        many = explain_linear_many(model, texts, output=output, bow=False, **options)
    batched = left = 0
    for text, batch in zip(texts, many, strict=True):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            try:
                one = lt.explain(model, text, output=output, method="linear", bow=False, **options)
            except ValueError:  # not explain's linear route (or not a document): never the batch's
                assert batch is None, text
                continue
        if batch is None:
            assert not (read and text.isascii()), text
            left += 1
            continue
        batched += 1
        np.testing.assert_array_equal(batch.beta, one.beta)
        assert batch.words == one.words and batch.label == one.label and batch.notes == one.notes, text
        assert batch.lime_agrees == one.lime_agrees and batch.mode == one.mode, text
        np.testing.assert_array_equal(batch.document_outputs, one.document_outputs)
        assert batch.as_list() == one.as_list()
        if every_field:
            assert_same(batch, one, text)
    return batched, left


def test_occurrence_strings_are_limes_on_reviews_and_crafted_texts(reviews):
    """The strings of masks over occurrences are lime's IndexedString(bow=False) ones, for several mask strings."""
    texts, _ = reviews
    crafted = ["  Good food, good FOOD... and the good   service!  ", "a\x00b\x00 c a", "one_two three-four one_two"]
    rng = np.random.default_rng(0)
    for text in crafted + texts[:40]:
        words = lime_words(text)
        for mask_string in (None, "", "MASK", " [x] "):
            indexed = lime_indexed_string(text, False, r"\W+", mask_string)
            assert occurrences(words) == [str(w) for w in indexed.inverse_vocab]
            masks = rng.integers(0, 2, size=(6, indexed.num_words()), dtype=np.int8)
            masks[0] = 1
            assert occurrence_strings(words, masks, mask_string) == indexed_documents(indexed, masks), text


@pytest.mark.parametrize(
    "vectorizer",
    [
        TfidfVectorizer(stop_words="english"),
        TfidfVectorizer(norm="l1"),
        TfidfVectorizer(norm=None, sublinear_tf=True),
        CountVectorizer(),
        CountVectorizer(binary=True, stop_words="english"),
    ],
    ids=["tfidf-stop-l2", "tfidf-l1", "tfidf-none-sublinear", "counts", "binary-stop"],
)
def test_the_batch_is_explain_bit_for_bit_on_reviews_with_repeated_words(reviews, chosen, vectorizer):
    model = _fit(vectorizer, reviews)
    repeated = sum(len(set(occurrences(lime_words(text)))) < len(occurrences(lime_words(text))) for text in chosen)
    assert repeated >= FEW // 2  # the subject: occurrences of one word that share a column
    batched, left = _same_as_explain(model, chosen)
    assert left <= 1  # every ASCII review explain takes linearly, the batch takes (one long review is not ASCII)
    # binary or sublinear counts of a word that repeats are not sums: explain's reading refuses them, the batch too
    # (and explain's exact route refuses a column fed by many occurrences under a norm: its work limit)
    assert batched >= (2 if vectorizer.binary or getattr(vectorizer, "sublinear_tf", False) else FEW // 2), batched


def test_every_field_on_edge_documents_another_bandwidth_label_and_mask_string(reviews, chosen):
    model = _fit(TfidfVectorizer(), reviews)
    documents = EDGE_DOCUMENTS + chosen[:4]
    batched, left = _same_as_explain(model, documents, every_field=True)
    assert (batched, left) == (len(documents) - 4, 1)  # "Great", "!!! ...", "" refused; the café text left
    regressor = _fit(TfidfVectorizer(norm="l1"), reviews, Ridge())
    assert _same_as_explain(regressor, chosen[:6], "predict", kernel_width=2, mask_string="") == (6, 0)
    texts, stars = reviews
    classes = np.asarray(stars) + np.array([len(text) > 300 for text in texts])  # three classes: 0, 1, 2
    three = _fit(CountVectorizer(stop_words="english"), (texts, classes))
    assert _same_as_explain(three, chosen[:6], label=2, random_state=7, mask_string="[xqzv]") == (6, 0)


def test_a_mask_string_the_vocabulary_holds_is_left_to_explain(reviews, chosen):
    """The mask token in the vocabulary: explain takes plain counts exactly and refuses a norm; the batch neither."""
    counts, tfidf = _fit(CountVectorizer(), reviews), _fit(TfidfVectorizer(), reviews)
    assert "food" in counts[0].vocabulary_  # a mask string the model reads
    assert mask_string_refusal(counts, "FOOD") == "the mask string is a token of the vocabulary"
    assert mask_string_refusal(counts, None) is None
    texts = chosen[:3] + ["food food"]
    for model, route in ((counts, "linear"), (tfidf, "enumeration")):
        batch = explain_linear_many(model, texts, output="decision_function", bow=False, mask_string="FOOD")
        assert batch == [None] * len(texts)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            frame = lt.explain_many(
                model, texts, output="decision_function", bow=False, mask_string="FOOD", progress=False, num_samples=500
            )
            ones = [
                lt.explain(model, text, output="decision_function", bow=False, mask_string="FOOD", num_samples=500)
                for text in texts
            ]
        assert ones[-1].method == route
        for position, one in enumerate(ones):
            rows = frame[frame.document == position]
            np.testing.assert_array_equal(rows.coefficient.to_numpy(), one.beta)
            assert rows.word.tolist()[1:] == one.words and set(rows.method) == {one.method}


def test_what_the_batch_does_not_read_is_left_to_explain(reviews, chosen):
    """A TfidfTransformer after the vectorizer, another analysis, a non-ASCII mask string: every document to explain."""
    transformer = make_pipeline(CountVectorizer(), TfidfTransformer(), LogisticRegression(max_iter=1000))
    transformer.fit(reviews[0][::FIT_STEP], np.asarray(reviews[1])[::FIT_STEP])
    bigrams = _fit(TfidfVectorizer(ngram_range=(1, 2), min_df=3), reviews)
    plain = _fit(TfidfVectorizer(), reviews)
    for model, mask_string in ((transformer, None), (bigrams, None), (plain, "masqué")):
        assert mask_string_refusal(model, mask_string) is not None
        assert _same_as_explain(model, chosen[:3], read=False, mask_string=mask_string)[0] == 0


def test_explain_many_batches_every_bow_false_document_but_a_chunks_first(reviews, chosen, monkeypatch):
    from limetheory.pipelines.corpora import corpus

    model = _fit(TfidfVectorizer(stop_words="english"), reviews)
    texts = chosen[:10] + ["café food, good café"]
    called, explain_one = [], corpus._explain_one

    def counted(model, position, text, options):
        called.append(text)
        return explain_one(model, position, text, options)

    monkeypatch.setattr(corpus, "_explain_one", counted)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        frame = lt.explain_many(model.decision_function, texts, chunk_size=len(texts), bow=False, progress=False)
        ones = [lt.explain(model, text, output="decision_function", bow=False) for text in texts]
    assert called == [texts[0], texts[-1]]  # the chunk's first (explain checks the options) and the non-ASCII one
    for position, one in enumerate(ones):
        rows = frame[frame.document == position]
        np.testing.assert_array_equal(rows.coefficient.to_numpy(), one.beta)
        assert rows.word.tolist()[1:] == one.words and set(rows.method) == {"linear"}


def test_the_mode_arguments_are_checked_as_explain_checks_them(reviews):
    model = _fit(CountVectorizer(), reviews)
    with pytest.raises(TypeError, match="bow"):
        explain_linear_many(model, ["good food"], output="decision_function", bow="no")
    with pytest.raises(TypeError, match="mask_string"):
        explain_linear_many(model, ["good food"], output="decision_function", bow=False, mask_string=3)
