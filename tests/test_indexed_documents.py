"""indexed_documents: lime's IndexedString.inverse_removing for many masks, str for str, in every word mode."""

import numpy as np
import pytest
from lime.lime_text import IndexedString

import limetheory as lt
from limetheory.engine.lime_documents import indexed_documents
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


@pytest.mark.parametrize("mode", MODES)
def test_equal_to_lime_str_for_str(mode):
    rng = np.random.default_rng(0)
    reviews = lt.load_yelp_reviews()["text"].tolist()[:40]
    for text in TEXTS + reviews:
        indexed = IndexedString(text, **mode)
        d = indexed.num_words()
        masks = (rng.random((30, d)) < rng.random((30, 1))).astype(np.int8)
        masks[0], masks[1] = 1, 0  # the document itself and every feature removed
        ours = indexed_documents(indexed, masks)
        assert ours == lime_strings(indexed, masks)
        assert all(type(document) is str for document in ours)


def test_blocks_and_mask_values(monkeypatch):
    import limetheory.engine.lime_documents as lime_documents

    text = TEXTS[1]
    for bow in (True, False):
        indexed = IndexedString(text, bow=bow)
        masks = np.random.default_rng(1).integers(0, 2, size=(25, indexed.num_words()))
        expected = lime_strings(indexed, masks)
        monkeypatch.setattr(lime_documents, "_STRING_BLOCK_ENTRIES", 7)  # several blocks of rows
        assert indexed_documents(indexed, masks) == expected
        assert indexed_documents(indexed, masks.astype(bool)) == expected
        assert indexed_documents(indexed, masks * 2.0) == lime_strings(indexed, masks * 2.0)  # non-zero is kept
        assert indexed_documents(indexed, np.empty((0, indexed.num_words()))) == []


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
