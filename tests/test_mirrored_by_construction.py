"""``modes.mirrored_by_construction``: where it holds, the mirror's self-check passes, so the tree route skips it.

Its claim (the tokens of lime's ``bow=False`` strings are those of the kept occurrences and the mask strings, one by
one) against the vectorizer's own transform, on every Yelp review where it holds and on random masks; and the tree
route's answers with the check skipped against those with it forced, bit for bit.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.ensemble import RandomForestClassifier
from sklearn.feature_extraction.text import CountVectorizer, TfidfVectorizer
from sklearn.pipeline import make_pipeline

import limetheory as lt
from limetheory.engine.lime_documents import LimeTextCounts
from limetheory.pipelines.reading import modes


@pytest.mark.parametrize(
    "vectorizer, mask_string",
    [
        (CountVectorizer(binary=True, stop_words="english"), None),
        (TfidfVectorizer(norm=None, lowercase=False), "[gone]"),  # a mask token the vocabulary holds
        (CountVectorizer(), ""),
    ],
    ids=["binary-stop", "tfidf-cased-mask-token", "counts-empty-mask"],
)
def test_the_mirror_is_the_transform_wherever_it_holds(yelp, vectorizer, mask_string):
    texts, _ = yelp
    vectorizer.fit(texts)
    mode = modes.check_mode(bow=False, mask_string=mask_string)
    rng = np.random.default_rng(0)
    held = 0
    for text in texts[::10]:
        if not modes.mirrored_by_construction(text, vectorizer, mode):
            assert not text.isascii()
            continue
        held += 1
        document = LimeTextCounts(text, vectorizer, bow=False, mask_string=mask_string)
        masks = rng.integers(0, 2, size=(12, document.d), dtype=np.int8)
        masks[0], masks[1] = 1, 0
        document.self_check(masks)  # raises on any difference
    assert held >= 95


def test_another_mode_or_analysis_is_not_mirrored_by_construction():
    text, vectorizer = "good food, good wine", CountVectorizer()
    assert modes.mirrored_by_construction(text, vectorizer, modes.check_mode(bow=False))
    assert not modes.mirrored_by_construction(text, vectorizer, modes.check_mode(bow=True, split_expression=r"\s+"))
    assert not modes.mirrored_by_construction(text, vectorizer, modes.check_mode(bow=False, split_expression=r"\s+"))
    assert not modes.mirrored_by_construction(text, vectorizer, modes.check_mode(bow=False, mask_string="é"))
    assert not modes.mirrored_by_construction(text, CountVectorizer(ngram_range=(1, 2)), modes.check_mode(bow=False))
    assert not modes.mirrored_by_construction(text, vectorizer, modes.check_mode(bow=False, char_level=True))


def test_the_tree_route_is_the_same_with_the_check_skipped(yelp, monkeypatch):
    texts, stars = yelp
    model = make_pipeline(
        CountVectorizer(binary=True, stop_words="english"), RandomForestClassifier(n_estimators=10, random_state=0)
    ).fit(texts, stars)
    chosen = texts[:12]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        skipped = [lt.explain(model, text, bow=False) for text in chosen]
        monkeypatch.setattr(modes, "mirrored_by_construction", lambda *arguments: False)
        checked = [lt.explain(model, text, bow=False) for text in chosen]
    for one, other in zip(skipped, checked, strict=True):
        assert one.method == other.method == "trees"
        np.testing.assert_array_equal(one.beta, other.beta)
        assert one.notes == other.notes
