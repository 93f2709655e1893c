"""chunk_tokens (explain_many's tokenisation of a chunk) against lime's IndexedString and engine.tokens."""

from __future__ import annotations

import numpy as np
import pytest
from lime.lime_text import IndexedString
from test_tokens import CRAFTED

from limetheory.engine import tokens
from limetheory.pipelines.corpora.chunk_tokens import lime_words, mask_strings
from limetheory.pipelines.reading.pipeline_reading import self_check_masks


@pytest.fixture(scope="module")
def texts(yelp):
    return yelp[0] + CRAFTED


def test_lime_words_are_lime_s_tokens_words_and_positions(texts):
    """The tokens, words, positions and counts of IndexedString (and of engine.tokens, which reads it)."""
    for text in texts:
        ours, lime_s, engine = lime_words(text), IndexedString(text), tokens._indexed(text)
        assert ours.tokens == [str(token) for token in lime_s.as_list] == engine.as_list, repr(text)
        assert ours.words == [str(word) for word in lime_s.inverse_vocab] == engine.inverse_vocab, repr(text)
        assert ours.positions == lime_s.positions, repr(text)
        assert ours.counts == [len(where) for where in lime_s.positions], repr(text)


def test_mask_strings_are_kept_token_documents(texts):
    """The self-check strings are engine.tokens.kept_token_documents' (perturbed_documents') for the same masks."""
    rng = np.random.default_rng(0)
    for text in texts:
        words = lime_words(text)
        d = len(words.words)
        if d < 2:
            continue
        masks = np.concatenate([self_check_masks(d, rng), rng.integers(0, 2, size=(4, d))]).astype(np.int8)
        expected = tokens.kept_token_documents(words.tokens, words.positions, masks == 1)
        assert mask_strings(words, masks) == expected, repr(text)
        assert mask_strings(words, masks[:1] * 0 + 1) == [text]  # every word kept: the text itself
