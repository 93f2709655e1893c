"""perturbed_documents against the strings real lime built (captured through its public API) and against
IndexedString.inverse_removing called mask by mask."""

from __future__ import annotations

import itertools
import re

import numpy as np
import pytest
from lime.lime_text import IndexedString

import limetheory as lt

TEXTS = {
    "plain": "The food was good but the service was slow, and the food was cold!",
    "punctuation": "Wow!!! ...great -- really?! (yes): 10/10, would eat again;  twice.",
    "repeated": "the cat and the hat, the end. The cat? the CAT!",
    "edges": "  ,leading separators and trailing ones ... ",
    "unicode": "Caf\u00e9 cr\u00e8me br\u00fbl\u00e9e \u2014 tr\u00e8s bon, na\u00efve_snake_case 42x!",
    "one word twice": "food, food. bad!",
}


def constant_classifier(documents):
    return np.tile([0.3, 0.7], (len(documents), 1))


def by_lime(text, z):
    """lime's own string for each mask, one call to inverse_removing per row."""
    indexed = IndexedString(text)
    return [indexed.inverse_removing(np.flatnonzero(np.asarray(row) == 0)) for row in z]


@pytest.mark.parametrize("name", list(TEXTS))
def test_equals_the_documents_lime_generated(name):
    text = TEXTS[name]
    run = lt.capture_lime_samples(text, constant_classifier, num_samples=300, random_state=11)
    documents = lt.perturbed_documents(text, run.z)
    assert documents == run.documents
    assert documents[0] == text  # lime's first sample is the document itself (all words kept)


@pytest.mark.parametrize("name", list(TEXTS))
def test_every_mask_equals_inverse_removing(name):
    text = TEXTS[name]
    d = len(lt.local_dictionary(text))
    z = np.array(list(itertools.product((0, 1), repeat=d)), dtype=np.int8)  # includes all kept and none kept
    documents = lt.perturbed_documents(text, z)
    assert documents == by_lime(text, z)
    assert all(type(doc) is str for doc in documents)


@pytest.mark.parametrize("name", list(TEXTS))
def test_all_kept_is_the_text_and_none_kept_leaves_the_separators(name):
    text = TEXTS[name]
    d = len(lt.local_dictionary(text))
    all_kept, none_kept = lt.perturbed_documents(text, np.array([np.ones(d), np.zeros(d)]))
    assert all_kept == text
    assert none_kept == re.sub(r"\w+", "", text)  # lime's words are the maximal runs of word characters


def test_a_removed_word_disappears_everywhere_and_case_matters():
    text = TEXTS["repeated"]
    words = lt.local_dictionary(text)
    assert words[:4] == ["the", "cat", "and", "hat"] and "The" in words and "CAT" in words
    mask = np.ones((1, len(words)))
    mask[0, words.index("the")] = 0
    (document,) = lt.perturbed_documents(text, mask)
    assert document == " cat and  hat,  end. The cat?  CAT!"
    assert re.findall(r"\w+", document).count("the") == 0 and "The" in document


def test_rows_keep_their_order_and_dtypes_agree():
    text = TEXTS["plain"]
    d = len(lt.local_dictionary(text))
    z = lt.sample_masks(d, 200, np.random.default_rng(3))
    expected = by_lime(text, z)
    assert lt.perturbed_documents(text, z) == expected
    assert lt.perturbed_documents(text, z.astype(bool)) == expected
    assert lt.perturbed_documents(text, z.astype(float)) == expected
    assert lt.perturbed_documents(text, z.tolist()) == expected
    assert lt.perturbed_documents(text, z[::-1]) == expected[::-1]


def test_no_masks_give_no_documents():
    assert lt.perturbed_documents("good food", np.zeros((0, 2))) == []


def test_the_running_review_matches_lime():
    text = (
        "I love this place! Everything about it! The food is great, the service is fast, the staff are friendly, "
        "and the prices are fair. I will be back again and again."
    )
    d = len(lt.local_dictionary(text))
    z = lt.sample_masks(d, 500, np.random.default_rng(0))
    assert lt.perturbed_documents(text, z) == by_lime(text, z)


@pytest.mark.parametrize(
    ("text", "z", "error", "pattern"),
    [
        (None, np.ones((1, 1)), TypeError, "^text must be a str"),
        (b"good food", np.ones((1, 2)), TypeError, "^text must be a str"),
        ("", np.ones((1, 1)), ValueError, "^text must be a non-empty document"),
        ("  !?! ...", np.ones((1, 1)), ValueError, "^text must contain at least one word"),
        ("good food", np.ones(2), ValueError, r"^z must be an \(n, d\) array with d = 2"),
        ("good food", np.ones((3, 3)), ValueError, r"^z must be an \(n, d\) array with d = 2"),
        ("good food", np.ones((1, 2, 1)), ValueError, r"^z must be an \(n, d\) array"),
        ("good food", np.array([[1, 2]]), ValueError, "^z must contain only 0"),
        ("good food", np.array([[1, 0.5]]), ValueError, "^z must contain only 0"),
        ("good food", np.array([[1, -1]]), ValueError, "^z must contain only 0"),
        ("good food", np.array([[1, np.nan]]), ValueError, "^z must be finite"),
        ("good food", [["1", "0"]], TypeError, "^z must be an array of real numbers"),
        ("good food", "11", TypeError, "^z must be an array of real numbers"),
        ("good food", np.array([[1 + 0j, 0]]), TypeError, "^z must be real"),
    ],
)
def test_bad_input(text, z, error, pattern):
    with pytest.raises(error, match=pattern):
        lt.perturbed_documents(text, z)


def test_public_name_is_reexported():
    from limetheory.engine.tokens import perturbed_documents

    assert lt.perturbed_documents is perturbed_documents
    assert "perturbed_documents" in lt.__all__
