r"""lime's tokenisation of a chunk's documents and the strings of their self-check masks, with fewer Python steps.

``engine.tokens.indexed_string`` reads lime's ``IndexedString`` token by token: each token is matched against lime's
splitter to tell a word from a separator, and each word's positions are appended one at a time.  A corpus of short
reviews spends about a third of a millisecond a document there.  lime's tokens are the non-empty pieces of
``re.split(r"(\W+)|$", text)``: maximal runs of separators (non-word characters) and, between them, maximal runs of
word characters, so the tokens alternate between words and separators and the words are every other token, from the
first or the second.  :func:`lime_words` reads them that way (no per-token regex), and :func:`mask_strings` joins each
mask's kept tokens.  Tests compare both with ``engine.tokens`` on the Yelp reviews and on crafted texts (NUL
characters, which lime's numpy array of tokens strips from separators only, leading and trailing separators, Unicode).
"""

from __future__ import annotations

import re

import numpy as np

#: lime's splitter (``engine.tokens._LIME_SPLITTER``: ``IndexedString``'s ``re.compile(r'(%s)|$' % r'\W+')``)
_LIME_SPLIT = re.compile(r"(\W+)|$").split
#: a token that starts with a word character is a word (lime: a token its splitter does not match at its start)
_WORD_START = re.compile(r"\w").match

__all__ = ["LimeWords", "lime_words", "mask_strings"]


class LimeWords:
    """One text's lime tokens, its words (lime's local dictionary, in order) and where they are among the tokens.

    ``tokens``: lime's ``as_list``; ``words``: its ``inverse_vocab``; ``first``: the index of the first word token
    (0 or 1; the word tokens are ``tokens[first::2]``); ``word_of_token``: the word of each word token, in order;
    ``counts``: each word's number of tokens.
    """

    __slots__ = ("tokens", "words", "first", "word_of_token", "counts")

    def __init__(self, tokens, words, first, word_of_token, counts):
        self.tokens, self.words, self.first = tokens, words, first
        self.word_of_token, self.counts = word_of_token, counts

    @property
    def positions(self):
        """Each word's token indices (lime's ``positions``), built on demand."""
        positions = [[] for _ in self.words]
        for i, word in enumerate(self.word_of_token):
            positions[word].append(self.first + 2 * i)
        return positions


def lime_words(text):
    """lime's tokens and words of ``text`` (``engine.tokens.indexed_string``'s, read as :class:`LimeWords`).

    Parameters
    ----------
    text : str
        A non-blank document (the caller checks it).

    Returns
    -------
    LimeWords

    Examples
    --------
    >>> words = lime_words("the food, the wine!")
    >>> words.tokens, words.words, words.counts, words.positions
    (['the', ' ', 'food', ', ', 'the', ' ', 'wine', '!'], ['the', 'food', 'wine'], [2, 1, 1], [[0, 4], [2], [6]])
    """
    tokens = [piece for piece in _LIME_SPLIT(text) if piece]
    first = 0 if tokens and _WORD_START(tokens[0]) else 1
    occurrences = tokens[first::2]
    index = {word: j for j, word in enumerate(dict.fromkeys(occurrences))}
    word_of_token = list(map(index.__getitem__, occurrences))
    counts = np.bincount(np.array(word_of_token, dtype=np.int64), minlength=len(index)).tolist()
    return LimeWords(tokens, list(index), first, word_of_token, counts)


def mask_strings(words, unique):
    """The strings of the masks ``unique`` (rows of 0/1 over the words): each word's tokens kept where its entry is 1.

    ``engine.tokens.kept_token_documents(words.tokens, words.positions, unique == 1)``: the separators stay, every
    occurrence of a removed word goes.

    Parameters
    ----------
    words : LimeWords
        The text's tokens and words (:func:`lime_words`).
    unique : ndarray of int, shape (n, d)
        0/1 masks over the d words (the caller checks them).

    Returns
    -------
    list of str
        ``n`` documents.

    Examples
    --------
    >>> mask_strings(lime_words("the food, the wine!"), np.array([[1, 0, 1], [0, 1, 1]]))
    ['the , the wine!', ' food,  wine!']
    """
    tokens, first = words.tokens, words.first
    # each row's word tokens (the word's string, or "" where the mask removes it) written over a copy of the tokens:
    # the separators stay in place, and one join makes the string
    occurrences = np.array(tokens[first::2], dtype=object)
    rows = np.where(unique[:, words.word_of_token] == 1, occurrences, "")
    pieces, strings = list(tokens), []
    for row in rows.tolist():
        pieces[first::2] = row
        strings.append("".join(pieces))
    return strings
