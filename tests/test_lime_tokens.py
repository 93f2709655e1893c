"""engine.lime_tokens (the one reader of lime's tokens: engine.tokens, the fast engine, explain_many's chunks) against
lime's own IndexedString, on the Yelp reviews, the restaurant reviews and the crafted corner cases."""

from __future__ import annotations

import os

import numpy as np
import pandas as pd
import pytest
from lime.lime_text import IndexedString
from sklearn.feature_extraction.text import CountVectorizer
from test_tokens import CRAFTED

import limetheory as lt
from limetheory.engine import tokens
from limetheory.engine.lime_tokens import lime_words, mask_strings
from limetheory.pipelines.reading.pipeline_reading import self_check_masks


@pytest.fixture(scope="module")
def texts(yelp, data_dir):
    """The 1000 Yelp reviews, the 1000 restaurant reviews where the data folder holds them, and CRAFTED."""
    restaurants = os.path.join(data_dir, "restaurants.tsv")
    reviews = pd.read_csv(restaurants, sep="\t")["Review"].tolist() if os.path.exists(restaurants) else []
    return yelp[0] + reviews + CRAFTED + ["", "a", " "]


def test_lime_words_are_lime_s_tokens_words_positions_and_counts(texts):
    """bow=True: the tokens, words, positions and counts of IndexedString, and engine.tokens' view of them."""
    for text in texts:
        ours, lime_s = lime_words.__wrapped__(text), IndexedString(text)  # a fresh reading, not the cache's
        assert ours.tokens == [str(token) for token in lime_s.as_list], repr(text)
        assert ours.words == [str(word) for word in lime_s.inverse_vocab], repr(text)
        assert ours.positions == lime_s.positions, repr(text)
        assert ours.counts == [len(where) for where in lime_s.positions], repr(text)
        engine = tokens._indexed(text)
        assert (engine.as_list, engine.inverse_vocab, engine.positions) == (ours.tokens, ours.words, ours.positions)
        if ours.words:
            assert tokens.local_dictionary(text) == ours.words, repr(text)
            assert tokens.word_occurrences(text).tolist() == ours.counts, repr(text)


def test_the_word_tokens_are_every_other_token_as_lime_s_bow_false_reads_them(texts):
    """bow=False: lime's features are the word tokens in order, at the positions first, first + 2, ..."""
    for text in texts:
        ours, lime_s = lime_words(text), IndexedString(text, bow=False)
        assert [ours.words[j] for j in ours.word_of_token] == [str(word) for word in lime_s.inverse_vocab], repr(text)
        assert list(range(ours.first, len(ours.tokens), 2)) == lime_s.positions.tolist(), repr(text)


def test_mask_strings_are_lime_s_inverse_removing(texts):
    """The strings of random masks (and of explain's self-check masks) are lime's, from mask_strings, from
    perturbed_documents and from the fast engine's DocumentCounts.lime_strings (its words and positions lime's)."""
    rng = np.random.default_rng(0)
    vectorizer = CountVectorizer().fit(["food"])
    for text in texts:
        words = lime_words(text)
        d = len(words.words)
        if d < 2:
            continue
        masks = np.concatenate([self_check_masks(d, rng), rng.integers(0, 2, size=(6, d))]).astype(np.int8)
        lime_s = IndexedString(text)
        expected = [lime_s.inverse_removing(np.flatnonzero(mask == 0)) for mask in masks]
        assert mask_strings(words, masks) == expected, repr(text)
        assert tokens.kept_token_documents(words.tokens, words.positions, masks == 1) == expected, repr(text)
        assert lt.perturbed_documents(text, masks.astype(float)) == expected, repr(text)
        if "\u03a3" not in text:  # DocumentCounts refuses the capital sigma under lower-casing
            document = tokens.DocumentCounts(text, vectorizer)
            assert document.lime_strings(masks) == expected, repr(text)
            assert document.words == words.words and document.indexed.positions == lime_s.positions, repr(text)
        assert mask_strings(words, masks[:1] * 0 + 1) == [text]  # every word kept: the text itself
