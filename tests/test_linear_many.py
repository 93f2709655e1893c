"""The batched linear route (``explain_linear_many``) against ``explain``, document by document and bit for bit.

Over real Yelp reviews and the pipelines the linear route reads: a Tfidf or Count vectorizer (binary, sublinear,
l1, a TfidfTransformer after it, a scaler between it and the model), a regressor's ``predict``, a multi-class
model, hashed features, a FeatureUnion and a ColumnTransformer of one text column.  A document is either explained
as explain explains it (the same β, words, label, notes and agreement, compared with ``==``: both sides make the same
operations) or left to explain (None) exactly where explain's own first route is not the linear one.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd
import pytest
from explanation_fields import assert_same
from sklearn.compose import ColumnTransformer
from sklearn.feature_extraction.text import CountVectorizer, HashingVectorizer, TfidfTransformer, TfidfVectorizer
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.pipeline import FeatureUnion, make_pipeline
from sklearn.preprocessing import MaxAbsScaler

import limetheory as lt
from limetheory.pipelines.corpora.linear_many import explain_linear_many

#: reviews for the default pipeline (the benchmark's), and for each of the others (kept short for the suite's time)
MANY, FEW = 120, 30


@pytest.fixture(scope="module")
def reviews(yelp):
    return yelp


@pytest.fixture(scope="module")
def pipelines(reviews, yelp_logistic):
    return _pipelines(*reviews, yelp_logistic)


def _pipelines(texts, stars, tfidf_logistic):
    """(name, fitted pipeline, output, the texts it reads as input) for every kind of first step the route reads."""
    three = np.digitize([len(text) for text in texts], np.quantile([len(text) for text in texts], [1 / 3, 2 / 3]))
    frame = pd.DataFrame({"review": texts})
    column = ColumnTransformer([("words", TfidfVectorizer(), "review"), ("counts", CountVectorizer(), "review")])
    return [
        ("tfidf", tfidf_logistic, None),  # conftest's TfidfVectorizer() + LogisticRegression(max_iter=1000)
        ("binary-l1", make_pipeline(TfidfVectorizer(binary=True, norm="l1"), Ridge()).fit(texts, stars), "predict"),
        ("sublinear", make_pipeline(TfidfVectorizer(sublinear_tf=True), LogisticRegression()).fit(texts, stars), None),
        (
            "counts-transformer-scaler",
            make_pipeline(CountVectorizer(), TfidfTransformer(), MaxAbsScaler(), LogisticRegression()).fit(
                texts, stars
            ),
            None,
        ),
        ("three-classes", make_pipeline(CountVectorizer(), LogisticRegression(max_iter=1000)).fit(texts, three), None),
        ("hashing", make_pipeline(HashingVectorizer(n_features=2**18), LogisticRegression()).fit(texts, stars), None),
        (
            "union",
            make_pipeline(
                FeatureUnion([("tfidf", TfidfVectorizer()), ("counts", CountVectorizer(binary=True))]),
                LogisticRegression(max_iter=1000),
            ).fit(texts, stars),
            None,
        ),
        ("column", make_pipeline(column, LogisticRegression(max_iter=1000)).fit(frame, stars), None),
    ]


def _same_as_explain(model, texts, output, **options):
    """Check every document of explain_linear_many against explain; return how many took the linear route."""
    output = "decision_function" if output is None else output
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # lime's agreement, compared through the notes below
        many = explain_linear_many(model, texts, output=output, **options)
    linear = 0
    for text, batch in zip(texts, many, strict=True):
        # method="linear" is explain's first route of "auto" alone: the same answer, or the refusal without the
        # estimate that "auto" would go on to (tests/test_routes checks the order)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            try:
                one = lt.explain(model, text, output=output, method="linear", **options)
            except ValueError:
                assert batch is None, text
                continue
        assert batch is not None, text  # explain's linear route: the batch takes it too
        linear += 1
        np.testing.assert_array_equal(batch.beta, one.beta)
        assert batch.words == one.words and batch.label == one.label and batch.labels == one.labels
        assert batch.notes == one.notes and batch.lime_agrees == one.lime_agrees
        assert batch.kernel_width == one.kernel_width and batch.random_state == one.random_state
        np.testing.assert_array_equal(batch.document_outputs, one.document_outputs)
        assert batch.as_list() == one.as_list()  # lime's selection and refit on num_features words
        ones = np.ones((1, len(one.words)), dtype=np.int8)
        np.testing.assert_array_equal(batch.mask_fn(ones), one.mask_fn(ones))  # the lazy reading is explain's
    return linear


def test_default_pipeline_on_many_reviews_is_explain_bit_for_bit(reviews, pipelines):
    texts, _ = reviews
    model = pipelines[0][1]
    chosen = texts[:MANY]
    assert _same_as_explain(model, chosen, None) == len(chosen)  # every review takes the linear route
    # a bound method, as explain_many passes it (the pipeline and its output), and another bandwidth and label
    assert _same_as_explain(model, chosen[:FEW], None, kernel_width=2, label=0) == FEW


@pytest.mark.parametrize("index", range(1, 8), ids=lambda i: str(i))
def test_every_pipeline_the_route_reads_is_explain_bit_for_bit(reviews, pipelines, index):
    texts, _ = reviews
    name, model, output = pipelines[index]
    # the longest and the shortest reviews too (the most words in one column, two-word reviews)
    by_length = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    chosen = [texts[i] for i in (*range(FEW - 4), *by_length[:2], *by_length[-2:])]
    linear = _same_as_explain(model, chosen, output)
    # binary or sublinear counts of words that share a column ("The" and "the") are refused by explain's reading
    refused_by_design = {"binary-l1", "sublinear", "union"}
    assert linear >= (FEW // 4 if name in refused_by_design else FEW - 2), (name, linear)


def test_explain_many_uses_the_batch_for_a_column_transformer_and_a_bound_method(reviews, pipelines):
    texts, _ = reviews
    _, model, _ = pipelines[7]
    chosen = texts[:12]
    frame = lt.explain_many(model.decision_function, chosen, progress=False)
    for position, text in enumerate(chosen):
        one = lt.explain(model, text, output="decision_function")
        rows = frame[frame.document == position]
        np.testing.assert_array_equal(rows.coefficient.to_numpy(), one.beta)
        assert set(rows.method) == {"linear"}


#: documents at the edges of the route: one and two words, repeated words, words that share a column ("The", "the"),
#: words the model never saw, nothing left after tokenisation, and no text at all
EDGE_DOCUMENTS = [
    "Great",
    "great food",
    "food food",
    "good good good bad",
    "The the THE food was good, the service THE worst",
    "zzzqqq xxyy",
    "zzzqqq food",
    "!!! ...",
    "",
    "a b",
    "Not bad. Not bad at all, not at all bad!",
]


def test_every_field_of_explain_on_short_repeated_and_empty_documents(reviews, pipelines):
    """Every field equal on the documents at the edges, a refusal (None) exactly where explain refuses the route."""
    texts, _ = reviews
    model = pipelines[0][1]
    documents = EDGE_DOCUMENTS + texts[:6]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        many = explain_linear_many(model, documents, output="decision_function")
    explained = 0
    for text, batch in zip(documents, many, strict=True):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            try:
                one = lt.explain(model, text, output="decision_function")
            except ValueError:  # fewer than 2 distinct words, or none: explain refuses the text, the batch too
                assert batch is None, text
                continue
        assert one.method == "linear" and batch is not None, text
        explained += 1
        assert_same(batch, one, text)
    assert explained == len(documents) - 4  # "Great", "food food", "!!! ..." and "" are refused


@pytest.mark.parametrize("index", [0, 5, 6, 7], ids=["tfidf-bound-method", "hashing", "union", "column"])
def test_explain_many_explains_every_document_but_a_chunks_first_in_the_batch(reviews, pipelines, index, monkeypatch):
    """explain_many calls explain on a chunk's first document only when every other takes the batched route.

    At num_samples = 1000, an option only the estimate reads: the batch still serves the linear documents, and the
    documents it leaves (the union's) are estimated at a fifth of the default budget, on both sides alike."""
    from limetheory.pipelines.corpora import corpus

    texts, _ = reviews
    _, model, _ = pipelines[index]
    chosen = texts[:10]
    called, explain_one = [], corpus._explain_one

    def counted(model, position, text, options):
        called.append(text)
        return explain_one(model, position, text, options)

    monkeypatch.setattr(corpus, "_explain_one", counted)
    function = model.decision_function  # a bound method: explain_many reads the pipeline and its output
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # lime at n = 1000 disagrees with some limits: not the subject
        frame = lt.explain_many(function, chosen, n_jobs=1, chunk_size=len(chosen), num_samples=1000, progress=False)
        ones = [
            lt.explain(model, text, output="decision_function", num_samples=1000, progress=False) for text in chosen
        ]
    # the chunk's first document (explain checks the options on it), and those explain does not take linearly (the
    # union's binary counts of words that share a column: tests/test_linear_many's refused_by_design)
    expected = chosen[:1] + [text for text, one in zip(chosen[1:], ones[1:], strict=True) if one.method != "linear"]
    assert called == expected and len(called) <= len(chosen) - 3, [one.method for one in ones]  # 3+ batched
    for position, one in enumerate(ones):
        np.testing.assert_array_equal(frame[frame.document == position].coefficient.to_numpy(), one.beta)


def test_the_words_memo_follows_a_refit_and_new_parameters(reviews):
    """A vectorizer's words are analysed once per process; a refit (new vocabulary) or set_params starts afresh."""
    texts, stars = reviews
    first, second = np.random.default_rng(0).permutation(len(texts))[:400].reshape(2, 200)
    fit = lambda rows: ([texts[i] for i in rows], np.asarray(stars)[rows])  # noqa: E731
    model = make_pipeline(TfidfVectorizer(), LogisticRegression(max_iter=1000)).fit(*fit(first))
    chosen = texts[-6:]
    assert _same_as_explain(model, chosen, None) == len(chosen)
    model.fit(*fit(second))  # another vocabulary: words seen before may have no column now
    assert _same_as_explain(model, chosen, None) == len(chosen)
    model.set_params(tfidfvectorizer__lowercase=False).fit(*fit(second))
    assert _same_as_explain(model, chosen, None) == len(chosen)
    model.steps[0][1].set_params(token_pattern=r"(?u)\b\w+\b")  # without a refit: one-letter words have no column
    model.steps[0][1].vocabulary_ = dict(model.steps[0][1].vocabulary_)  # (a copy, as a refit would give)
    assert _same_as_explain(model, chosen, None) >= 0  # whatever explain decides, the batch decides the same


#: texts for the batch's own tokenisation: separators at both ends, repeated and cased words, digits and underscores
#: (word characters), non-ASCII words, a NUL separator (lime's numpy array drops trailing NULs of separators)
TOKENISED = [
    "  Good food, good FOOD... and the good   service!  ",
    "über café, Über CAFÉ; naïve_words 42 42",
    "a\x00b\x00 c a",
    "one_two three-four one_two",
]


def test_the_chunks_strings_are_perturbed_documents_of_explains_masks(reviews):
    """_documents' words, occurrences and strings are local_dictionary's, word_occurrences' and perturbed_documents'."""
    from limetheory.engine.tokens import local_dictionary, perturbed_documents, word_occurrences
    from limetheory.pipelines.corpora.linear_many import _documents
    from limetheory.pipelines.reading.pipeline_reading import self_check_masks

    texts, _ = reviews
    documents = TOKENISED + texts[:40] + ["", "  ", "single"]
    pending, strings = _documents(documents, 3)
    assert [document.position for document in pending] == list(range(len(documents) - 3))  # the last 3 refused
    for document in pending:
        text = documents[document.position]
        masks = self_check_masks(len(local_dictionary(text)), np.random.default_rng(3))
        assert document.words == local_dictionary(text)
        assert document.counts == word_occurrences(text).tolist()
        np.testing.assert_array_equal(document.masks, masks)
        assert [strings[row] for row in document.rows] == perturbed_documents(text, masks)


def test_the_agreement_notes_and_warning_are_explains_where_lime_agrees_and_where_not(reviews, pipelines):
    """Documents lime agrees with skip agreement_notes (no note); the others get its notes and one warning."""
    texts, _ = reviews
    model = pipelines[0][1]
    by_length = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    # two- and three-word reviews, where lime's first row pulls its coefficients at n = 5000, and longer ones
    chosen = [texts[i] for i in by_length[:6]] + ["great food", "bad food"] + texts[:6]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        many = explain_linear_many(model, chosen, output="decision_function", kernel_width=10)
    flagged = 0
    for text, batch in zip(chosen, many, strict=True):
        with warnings.catch_warnings(record=True) as own:
            warnings.simplefilter("always")
            one = lt.explain(model, text, output="decision_function", kernel_width=10)
        assert batch.notes == one.notes and batch.lime_agrees == one.lime_agrees, text
        flagged += not one.lime_agrees
        assert len([w for w in own if issubclass(w.category, UserWarning)]) == (not one.lime_agrees)
    assert 0 < flagged < len(chosen), flagged  # both kinds are checked
    messages = [str(w.message) for w in caught if issubclass(w.category, UserWarning)]
    assert len(messages) == 1 and messages[0].startswith(f"{flagged} of the {len(chosen)} documents"), messages


def test_mask_strings_are_kept_token_documents_of_the_chunk():
    """The chunk's self-check strings are engine.tokens.kept_token_documents' for the same masks (repeated words,
    separators at both ends, a word at the end)."""
    from limetheory.engine import lime_tokens
    from limetheory.engine.tokens import indexed_string, kept_token_documents
    from limetheory.pipelines.corpora import linear_many

    for text in ["The food, the wine! And the food.", "  a b a b c ", "one two", "x--y--x z"]:
        indexed = indexed_string(text)
        d = len(indexed.inverse_vocab)
        _, unique, _ = linear_many._self_check_masks(d, 3)
        expected = kept_token_documents(indexed.as_list, indexed.positions, unique == 1)
        assert lime_tokens.mask_strings(lime_tokens.lime_words(text), unique) == expected


def test_the_chunks_agreement_shortcut_is_lime_disagreements(reviews, pipelines):
    """agreeing_documents (the chunk at once) says True only where lime_disagreement takes its shortcut, and does so
    for all but the documents within its margin of the threshold (none here), at two kernel widths."""
    from limetheory.pipelines.results.agreement import agreeing_documents, lime_disagreement

    texts, _ = reviews
    model = pipelines[0][1]
    by_length = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    chosen = [texts[i] for i in by_length[:10]] + texts[:MANY]  # short reviews, where lime's first row matters
    kinds = set()
    for kernel_width in (25, 5):  # at 5, lime at n = 5000 is far from the limit on every review
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            explanations = [e for e in explain_linear_many(model, chosen, output="decision_function",
                                                           kernel_width=kernel_width) if e is not None]  # fmt: skip
        starts = np.cumsum([0] + [e.beta.size for e in explanations])
        y0 = np.array([e.y0 for e in explanations])
        fast = agreeing_documents(np.concatenate([e.beta for e in explanations]), starts, kernel_width / 100, y0, 5000)
        shortcut = []
        for e in explanations:
            flagged, spread = lime_disagreement(e)
            shortcut.append(spread is None and not flagged.any())
        np.testing.assert_array_equal(fast, shortcut)
        kinds |= set(shortcut)
    assert kinds == {True, False}


#: texts whose tokens, under some token patterns, span lime's separators or split lime's words
SPANNING = [
    "I don't like the food, but the staff's smile was good food",
    "good-food and good food here",
    "the food_court was good, and the food good",
    "Good food, GOOD food; great wine",
]


@pytest.mark.parametrize(
    ("vectorizer", "every"),
    [
        (CountVectorizer(token_pattern=r"[\w']+"), False),  # "don't": one token, two lime words
        (TfidfVectorizer(token_pattern=r"\S+"), False),  # "food," is a token
        (TfidfVectorizer(token_pattern=r"[a-z]+"), False),  # "food_court" split in two: word_columns' refusal
        (TfidfVectorizer(stop_words=["the", "and"], lowercase=False), True),  # dropped and case-kept words: read
    ],
    ids=["apostrophe", "non-space", "letters", "stop-words"],
)
def test_the_chunks_token_check_refuses_what_explains_refuses(reviews, vectorizer, every):
    """A vectorizer whose tokens of a text are not lime's words taken one by one: the chunk's check
    (vectorizer_chunk.token_mismatches) leaves to explain exactly the documents explain's linear route refuses."""
    texts, stars = reviews
    fitted = texts[:200] + SPANNING
    model = make_pipeline(vectorizer, LogisticRegression(max_iter=1000)).fit(fitted, list(stars[:200]) + [1, 0, 1, 0])
    chosen = SPANNING + texts[200:215]
    linear = _same_as_explain(model, chosen, "decision_function")  # None exactly where explain refuses
    assert (linear == len(chosen)) == every, linear


def test_the_token_check_alone_refuses_a_spanning_token_the_model_does_not_weigh(reviews):
    """Unnormalised counts and a zero coefficient on every token with an apostrophe: the pipeline's outputs on the
    self-check masks are the reading's (no weight on those tokens, nor on the words in them), and only the token
    check (explain's word_columns, the chunk's token_mismatches) sees that "don't" is not lime's words "don" and
    "t"; both leave those texts to other routes."""
    texts, stars = reviews
    model = make_pipeline(CountVectorizer(token_pattern=r"[\w']+"), LogisticRegression(max_iter=1000))
    model.fit(texts[:200] + SPANNING, list(stars[:200]) + [1, 0, 1, 0])
    vocabulary = model[0].vocabulary_
    spanning = [token for token in vocabulary if "'" in token]  # and the lime words in them ("don", "t"): unweighed
    pieces = {piece for token in spanning for piece in re.findall(r"\w+", token)}
    model[-1].coef_[:, [vocabulary[token] for token in spanning + sorted(pieces) if token in vocabulary]] = 0.0
    chosen = SPANNING[:2] + [text for text in texts[200:260] if "n't" in text][:4] + texts[300:304]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        many = explain_linear_many(model, chosen, output="decision_function")
    refused = ["'" in text for text in chosen]
    assert [batch is None for batch in many] == refused and 2 < sum(refused) < len(chosen), refused
    assert _same_as_explain(model, chosen, "decision_function") == len(chosen) - sum(refused)


def test_token_mismatches_are_the_texts_whose_counters_differ(reviews):
    """token_mismatches against engine.tokens.word_columns' own check (a Counter per text), on reviews whose word
    counts are perturbed at random: the texts it names are those whose two Counters differ."""
    from collections import Counter

    from limetheory.engine.lime_tokens import lime_words
    from limetheory.pipelines.corpora.vectorizer_chunk import token_mismatches

    texts, _ = reviews
    chosen = texts[:60] + SPANNING
    vectorizer = CountVectorizer(token_pattern=r"[\w']+").fit(texts[:300] + SPANNING)
    analyze, vocabulary, width = vectorizer.build_analyzer(), vectorizer.vocabulary_, len(vectorizer.vocabulary_)
    rng = np.random.default_rng(5)
    ours = []  # each text's Counter of columns from lime's words (some counts changed), as word_columns sums them
    for text in chosen:
        words = lime_words(text)
        counter = Counter()
        for word, count in zip(words.words, words.counts, strict=True):
            tokens = analyze(word)
            if len(tokens) == 1 and tokens[0] in vocabulary:
                counter[vocabulary[tokens[0]]] += count + (rng.random() < 0.03)  # one text in about 3 changed
        ours.append(counter)
    keys = np.array(sorted(i * width + c for i, counter in enumerate(ours) for c in counter), dtype=np.int64)
    counts = np.array([ours[k // width][k % width] for k in keys])
    named = set(token_mismatches(analyze, vocabulary, chosen, np.arange(len(chosen)), keys, counts).tolist())
    odd = np.arange(1, len(chosen), 2)  # half of them analysed: the others' keys are not read
    named_odd = token_mismatches(analyze, vocabulary, [chosen[i] for i in odd], odd, keys, counts).tolist()
    theirs = [Counter(vocabulary[token] for token in analyze(text) if token in vocabulary) for text in chosen]
    expected = {i for i in range(len(chosen)) if theirs[i] != ours[i]}
    assert named == expected and 0 < len(expected) < len(chosen), (named, expected)
    assert set(named_odd) == {i for i in expected if i % 2}


#: ASCII texts for scikit-learn's default analysis: one-letter words, digits and underscores, cases, apostrophes and
#: hyphens, separators at both ends, a NUL
ASCII_TEXTS = [
    "  I don't know: A1 b_c  x-y_z 42, The THE the... ",
    "a\x00b\x00 c a",
    "_under_score_ and 3.14 and e-mail e.g. U.S.A",
    "one",
]


@pytest.mark.parametrize(
    "vectorizer",
    [
        TfidfVectorizer(),
        CountVectorizer(lowercase=False),
        TfidfVectorizer(stop_words="english", binary=True),
        CountVectorizer(token_pattern=r"[\w']+"),  # not the default: analysed (and refused where it spans)
    ],
    ids=["default", "cased", "stop-words", "apostrophe"],
)
def test_the_default_analysis_of_an_ascii_text_is_its_words_one_by_one(reviews, vectorizer, monkeypatch):
    """tokens_are_words' claim, against the vectorizer's own analysis: on every ASCII review and crafted text, the
    default analysis finds no mismatch (token_mismatches, every text analysed), and the chunk's answers are the same
    with the shortcut and without it."""
    from limetheory.engine.lime_tokens import lime_words
    from limetheory.pipelines.corpora import vectorizer_chunk

    texts, stars = reviews
    vectorizer.fit(texts + ASCII_TEXTS)
    chosen = [text for text in texts + ASCII_TEXTS if text.isascii()]
    assert len(chosen) > 900
    analyze, vocabulary, width = vectorizer.build_analyzer(), vectorizer.vocabulary_, len(vectorizer.vocabulary_)
    sums = {}  # key -> the sum of its words' counts, for the words the analyzer reads as one token
    for i, text in enumerate(chosen):
        words = lime_words(text)
        for word, count in zip(words.words, words.counts, strict=True):
            tokens = analyze(word)
            assert len(tokens) <= 1
            if tokens and tokens[0] in vocabulary:
                key = i * width + vocabulary[tokens[0]]
                sums[key] = sums.get(key, 0) + count
    keys = np.array(sorted(sums), dtype=np.int64)
    counts = np.array([sums[key] for key in keys.tolist()])
    mismatches = vectorizer_chunk.token_mismatches(analyze, vocabulary, chosen, np.arange(len(chosen)), keys, counts)
    default = vectorizer_chunk.tokens_are_words(vectorizer)
    assert default == (vectorizer.token_pattern == r"(?u)\b\w\w+\b")
    assert (mismatches.size == 0) == default, mismatches[:5]
    model = make_pipeline(vectorizer, LogisticRegression(max_iter=1000)).fit(texts, stars)
    sample = chosen[:40] + ASCII_TEXTS
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        shortcut = explain_linear_many(model, sample, output="decision_function")
        monkeypatch.setattr(vectorizer_chunk, "tokens_are_words", lambda vectorizer: False)
        analysed = explain_linear_many(model, sample, output="decision_function")
    for ours, theirs in zip(shortcut, analysed, strict=True):
        assert (ours is None) == (theirs is None)
        if ours is not None:
            np.testing.assert_array_equal(ours.beta, theirs.beta)
    assert _same_as_explain(model, sample, "decision_function") == sum(e is not None for e in shortcut)
