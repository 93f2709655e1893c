"""limetheory.theory.characters: the tokens, fates and presence formulas of char_level=True, against the real
vectorizer.

Every reference here is scikit-learn's own ``TfidfVectorizer`` applied to lime's own perturbed strings
(``IndexedCharacters.inverse_removing``), over all 2^d masks where the formula is concerned.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import sympy as sp
from lime.lime_text import IndexedCharacters
from sklearn.feature_extraction.text import TfidfVectorizer

import limetheory as lt
from limetheory.theory import characters

CORPUS = [
    "the food was good, not bad.",
    "go od food is good",
    "Good food; good mood!",
    "ab a ba",
    "goodfood and ood and goo",
]
# a double-precision beta from two exact routes (monomial sums vs 2^d weighted least squares with d <= 12):
# both are sums of O(2^d) terms of order one, so 1e-10 leaves a factor of 100 over 2^12 * eps.
BETA_TOL = 1e-10


@pytest.fixture(scope="module")
def vectorizer():
    return TfidfVectorizer().fit(CORPUS)


def _all_masks(d):
    return np.array(list(itertools.product((0, 1), repeat=d)), dtype=np.int8)


def _lime_strings(text, masks, bow):
    indexed = IndexedCharacters(text, bow=bow)
    return indexed, [indexed.inverse_removing(np.flatnonzero(mask == 0)) for mask in masks]


def _kept_positions(indexed, mask, text, bow):
    if not bow:
        return mask.astype(bool)
    index = {str(c): j for j, c in enumerate(indexed.inverse_vocab)}
    return np.array([mask[index[c]] for c in text], dtype=bool)


def _present(vectorizer, strings, word):
    return vectorizer.transform(strings)[:, vectorizer.vocabulary_[word]].toarray().ravel() > 0


@pytest.mark.parametrize("bow", [True, False])
@pytest.mark.parametrize("text", ["the food was good, not bad.", "Good food; good mood!", "go od fo"])
def test_tokens_are_the_vectorizers_on_lime_strings(vectorizer, text, bow):
    indexed = IndexedCharacters(text, bow=bow)
    rng = np.random.default_rng(3)
    masks = rng.integers(0, 2, size=(300, indexed.num_words()), dtype=np.int8)
    _, strings = _lime_strings(text, masks, bow)
    analyze = vectorizer.build_analyzer()
    for mask, string in zip(masks, strings, strict=True):
        kept = _kept_positions(indexed, mask, text, bow)
        assert [token for token, _ in characters.perturbed_tokens(text, kept, masked=not bow)] == analyze(string)


@pytest.mark.parametrize(
    ("text", "word"),
    [
        ("go od food is good", "good"),
        ("go od food is good", "od"),
        ("Good food; good mood!", "good"),
        ("Good food; good mood!", "food"),
        ("ab a ba", "ab"),
        ("goodfood and ood", "ood"),
    ],
)
def test_formula_is_the_vectorizer_on_every_mask_and_beta_matches_enumeration(vectorizer, text, word):
    """bow=True: the formula's truth table over all 2^d character masks is the real vectorizer's presence test."""
    indexed = IndexedCharacters(text)
    chars = [str(c) for c in indexed.inverse_vocab]
    d = len(chars)
    masks = _all_masks(d)
    _, strings = _lime_strings(text, masks, True)
    truth = _present(vectorizer, strings, word)
    formula = characters.character_presence_formula(text, word)
    assert formula != sp.false
    mine = np.asarray(lt.mask_function(formula, chars)(masks)).ravel()
    np.testing.assert_array_equal(mine, truth.astype(float))
    for nu in (0.25, 1.0):
        enumerated = lt.beta_enumerate(
            lambda m: _present(vectorizer, _lime_strings(text, m, True)[1], word).astype(float), d, nu=nu
        )
        np.testing.assert_allclose(lt.beta_boolean(formula, chars, nu=nu), enumerated, rtol=0, atol=BETA_TOL)


@pytest.mark.parametrize(("text", "word"), [("go od good", "good"), ("ab, aba", "ab"), ("Good. ood", "ood")])
def test_masked_formula_is_the_vectorizer_on_every_mask(vectorizer, text, word):
    """bow=False: positions are features and a removed character becomes chr(0), a separator."""
    d = len(text)
    masks = _all_masks(d)
    _, strings = _lime_strings(text, masks, False)
    truth = _present(vectorizer, strings, word)
    formula = characters.character_presence_formula(text, word, bow=False)
    names = [f"c{p}" for p in range(d)]
    np.testing.assert_array_equal(np.asarray(lt.mask_function(formula, names)(masks)).ravel(), truth.astype(float))


def test_a_word_no_perturbation_produces_is_false():
    assert characters.character_presence_formula("ab a", "ba") == sp.false
    assert characters.character_presence_formula("ba", "ab", bow=False) == sp.false


def test_fates_on_hand_cases():
    vocabulary = {"good", "food", "od", "goodfood"}
    text = "good food"
    keep_all = np.ones(len(text), dtype=bool)
    assert [fate for _, fate, _ in characters.word_fates(text, keep_all, vocabulary)] == ["survived"] * 2
    no_space = keep_all.copy()
    no_space[4] = False  # deleting the space merges the two words
    assert characters.word_fates(text, no_space, vocabulary) == [
        ("good", "changed, in vocabulary", "goodfood"),
        ("food", "changed, in vocabulary", "goodfood"),
    ]
    no_o = np.array([c != "o" for c in text])  # "gd fd": two one-letter... two-letter tokens out of vocabulary
    assert [fate for _, fate, _ in characters.word_fates(text, no_o, vocabulary)] == ["changed, out of vocabulary"] * 2
    only_g = np.array([c in "g " for c in text])  # "g " : a single letter is no token
    assert [fate for _, fate, _ in characters.word_fates(text, only_g, vocabulary)] == ["vanished"] * 2
    masked = np.array([True, False, True, True, True, True, True, True, True])  # "g\0od food"
    assert characters.word_fates(text, masked, vocabulary, masked=True)[0] == ("good", "changed, in vocabulary", "od")


def test_fates_count_what_the_vectorizer_counts(vectorizer):
    """Survived occurrences of a word never outnumber the vectorizer's count of it in the perturbed string."""
    text = "Good food; good mood! the food was good"
    indexed = IndexedCharacters(text)
    rng = np.random.default_rng(5)
    analyze = vectorizer.build_analyzer()
    for mask in rng.integers(0, 2, size=(200, indexed.num_words()), dtype=np.int8):
        kept = _kept_positions(indexed, mask, text, True)
        tokens = analyze(indexed.inverse_removing(np.flatnonzero(mask == 0)))
        fates = characters.word_fates(text, kept, vectorizer.vocabulary_)
        for word, fate, token in fates:
            if fate == "vanished":
                assert token is None
            else:
                assert token in tokens and (fate == "survived") == (token == word)


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda: characters.perturbed_tokens(3, [1]), TypeError, "text must be"),
        (lambda: characters.perturbed_tokens("ab", [1]), ValueError, "one entry per character"),
        (lambda: characters.perturbed_tokens("ab", [1, 2]), ValueError, "only 0/1"),
        (lambda: characters.perturbed_tokens("ab", [1, 1], masked="no"), TypeError, "masked must be"),
        (lambda: characters.perturbed_tokens("İb", [1, 1]), ValueError, "lower case"),
        (lambda: characters.word_fates("ab", [1, 1], "ab"), TypeError, "vocabulary must be"),
        (lambda: characters.character_presence_formula("ab", 5), TypeError, "word must be a str"),
        (lambda: characters.character_presence_formula("ab", "a"), ValueError, "two or more"),
        (lambda: characters.character_presence_formula("ab", "Ab"), ValueError, "lower-case"),
        (lambda: characters.character_presence_formula("a" * 401, "aa"), ValueError, "at most 400"),
        (lambda: characters.character_presence_formula("ab", "ab", bow=1.0), TypeError, "bow must be"),
    ],
)
def test_bad_input_is_refused_with_a_message(call, error, match):
    with pytest.raises(error, match=match):
        call()
