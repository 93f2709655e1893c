"""indexed_documents and character_documents: lime's inverse_removing for many masks, str for str, in every mode."""

import numpy as np
import pytest
from lime.lime_text import IndexedCharacters, IndexedString

import limetheory as lt
from limetheory.engine.lime_documents import LimeCharacters, character_documents, indexed_documents
from limetheory.pipelines.reading.modes import check_mode, mode_documents

TEXTS = [
    "Staff was quick and efficient. Food was delicious.",
    "The food, the wine!  And THE food again... the end",
    "good",
    "  leading separators, trailing ones!!  ",
]
MODES = [
    {"bow": True},
    {"bow": False},
    {"bow": False, "mask_string": "MASK"},
    {"bow": False, "mask_string": ""},
    {"bow": True, "split_expression": r"\s+"},
    {"bow": False, "split_expression": r"[\s.,!?;:]+"},
    {"bow": False, "split_expression": lambda text: text.split()},
]


def lime_strings(indexed, masks):
    return [indexed.inverse_removing(np.flatnonzero(row == 0)) for row in masks]


def _check_equal_to_lime(indexed_class, build, mode, texts, seed):
    rng = np.random.default_rng(seed)
    for text in texts:
        indexed = indexed_class(text, **mode)
        d = indexed.num_words()
        masks = (rng.random((30, d)) < rng.random((30, 1))).astype(np.int8)
        masks[0], masks[1] = 1, 0  # the document itself and every feature removed
        ours = build(indexed, masks)
        assert ours == lime_strings(indexed, masks)
        assert all(type(document) is str for document in ours)


@pytest.mark.parametrize("mode", MODES)
def test_equal_to_lime_str_for_str(mode):
    reviews = lt.load_yelp_reviews()["text"].tolist()[:40]
    _check_equal_to_lime(IndexedString, indexed_documents, mode, TEXTS + reviews, seed=0)


def _check_blocks_and_mask_values(monkeypatch, indexed, build, seed):
    """``build`` on several blocks of rows, bool and non-0/1 masks and no mask at all; lime's strings returned."""
    import limetheory.engine.lime_documents as lime_documents

    masks = np.random.default_rng(seed).integers(0, 2, size=(25, indexed.num_words()))
    expected = lime_strings(indexed, masks)
    with monkeypatch.context() as patched:
        patched.setattr(lime_documents, "_STRING_BLOCK_ENTRIES", 7)  # several blocks of rows
        assert build(indexed, masks) == expected
        assert build(indexed, masks.astype(bool)) == expected
        assert build(indexed, masks * 2.0) == lime_strings(indexed, masks * 2.0)  # non-zero is kept
        assert build(indexed, np.empty((0, indexed.num_words()))) == []
    return masks, expected


def test_blocks_and_mask_values(monkeypatch):
    for bow in (True, False):
        _check_blocks_and_mask_values(monkeypatch, IndexedString(TEXTS[1], bow=bow), indexed_documents, seed=1)


def test_mode_documents_reads_lime_strings():
    text = TEXTS[0]
    mode = check_mode(bow=False, mask_string="MASK")
    masks = np.random.default_rng(2).integers(0, 2, size=(50, 8))
    assert mode_documents(text, mode)(masks) == lime_strings(IndexedString(text, bow=False, mask_string="MASK"), masks)


def test_refuses_masks_of_another_width():
    indexed = IndexedString(TEXTS[0], bow=False)
    with pytest.raises(ValueError, match="d = 8"):
        indexed_documents(indexed, np.ones((3, 7)))
    with pytest.raises(ValueError, match="d = 8"):
        indexed_documents(indexed, np.ones(8))


CHARACTER_TEXTS = TEXTS + [
    "Café déjà vu, naïve\u00a0façade — 5★ 🍕🍕!",  # beyond Latin-1 and the basic plane
    "a\ud800b",  # a lone surrogate is a character of a Python str too
    "\x00 NUL inside",  # the default mask string, chr(0), in the text itself
]
CHARACTER_MODES = [
    {"bow": True},
    {"bow": False},
    {"bow": False, "mask_string": "_"},
    {"bow": False, "mask_string": "MASK"},  # several characters: the token-by-token route
    {"bow": False, "mask_string": ""},
]


@pytest.mark.parametrize("mode", CHARACTER_MODES)
def test_characters_equal_to_lime_str_for_str(mode):
    reviews = lt.load_yelp_reviews()["text"].tolist()[:20]
    _check_equal_to_lime(IndexedCharacters, character_documents, mode, CHARACTER_TEXTS + reviews, seed=3)


def test_characters_blocks_mask_values_and_callers(monkeypatch):
    text = CHARACTER_TEXTS[4]
    for bow in (True, False):
        indexed = IndexedCharacters(text, bow=bow)
        masks, expected = _check_blocks_and_mask_values(monkeypatch, indexed, character_documents, seed=4)
        mode = check_mode(bow=bow, char_level=True)
        assert mode_documents(text, mode)(masks) == expected  # explain's model on masks
        assert LimeCharacters(text, None, bow=bow).documents(masks) == expected  # the fast engine's strings
    with pytest.raises(ValueError, match="d = 8"):
        character_documents(IndexedCharacters("abcdefgh"), np.ones((3, 7)))
    with pytest.raises(ValueError, match="d = 8"):
        character_documents(IndexedCharacters("abcdefgh"), np.ones(8))


def test_self_check_strings_are_lime_strings():
    """The word-count mirrors' self-checks compare the vectorizer on lime's own strings (not on a re-tokenisation)."""
    from sklearn.feature_extraction.text import CountVectorizer

    from limetheory.engine.lime_documents import LimeTextCounts
    from limetheory.engine.tokens import DocumentCounts

    vectorizer = CountVectorizer().fit(TEXTS)
    rng = np.random.default_rng(5)
    for text in TEXTS[:2] + lt.load_yelp_reviews()["text"].tolist()[:10]:
        for mirror, indexed in (
            (DocumentCounts(text, vectorizer), IndexedString(text)),
            (LimeTextCounts(text, vectorizer, bow=False), IndexedString(text, bow=False)),
        ):
            masks = (rng.random((20, mirror.d)) < 0.6).astype(np.int8)
            assert mirror.lime_strings(masks) == lime_strings(indexed, masks)
            mirror.self_check(masks)  # the mirror's rows equal the vectorizer's on them
