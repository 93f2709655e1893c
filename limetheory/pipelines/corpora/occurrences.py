"""lime's ``bow=False`` for the batched linear route: each occurrence a feature, a removed one the mask string.

With ``bow=False`` explain reads a document through ``reading.modes.linear_features`` (the fast engine's
``LimeTextCounts``: lime's occurrences, each feeding its word's column once, and the mask string's columns), whose
checks refuse a document where the vectorizer's tokens are not lime's words or where the mask string is a token of
the vocabulary.  The batch takes only the documents where those checks pass by construction, and leaves every
other to explain, which decides it itself:

* the first step is a Count or Tfidf vectorizer with scikit-learn's analysis of words (``tokens_are_words``) and no
  ``TfidfTransformer`` follows it (explain's other modes read the vectorizer alone), and the text is ASCII.  Then
  lime's pieces are maximal runs of word characters and of separators, a separator stays one after lower-casing,
  and the tokens of any perturbed string are those of its kept occurrences and its mask strings analysed one by
  one (a token never straddles a separator): the full document's columns are the sums of its occurrences', as
  ``LimeTextCounts.self_check`` requires, and an occurrence feeds at most one column;
* the mask string is ASCII and none of its tokens is in the vocabulary (:func:`mask_string_refusal`): a removed
  occurrence then adds nothing, as in ``LimeTextCounts`` (``mask_counts`` all 0), and the model is the sum over
  kept occurrences that ``vectorizer_chunk.vectorizer_readings`` reads with every occurrence counted once.

The strings of the self-check masks are lime's ``IndexedString(text, bow=False).inverse_removing``'s, built from
the tokens of ``engine.lime_tokens.lime_words`` (:func:`occurrence_strings`; tests/test_linear_many_bow.py compares
them with ``engine.lime_documents.indexed_documents``).
"""

from __future__ import annotations

import numpy as np
from sklearn.feature_extraction.text import TfidfTransformer

from ...engine.lime_tokens import written_strings
from .vectorizer_chunk import tokens_are_words

__all__ = ["LIME_MASK_STRING", "mask_string_refusal", "occurrences", "occurrence_strings"]

#: lime's mask string when ``mask_string`` is None (``IndexedString``)
LIME_MASK_STRING = "UNKWORDZ"


def mask_string_refusal(model, mask_string):
    """Why the batch leaves every document of ``model`` under ``bow=False`` to explain (None: it reads them).

    Parameters
    ----------
    model : sklearn.pipeline.Pipeline
        The pipeline (its first step and the step after it are read).
    mask_string : str or None
        lime's mask string (None: ``"UNKWORDZ"``).

    Returns
    -------
    str or None

    Examples
    --------
    >>> from sklearn.feature_extraction.text import CountVectorizer, TfidfVectorizer
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.pipeline import make_pipeline
    >>> model = make_pipeline(TfidfVectorizer(), LogisticRegression()).fit(["good food", "bad mask"], [1, 0])
    >>> mask_string_refusal(model, None) is None, mask_string_refusal(model, "MASK")
    (True, 'the mask string is a token of the vocabulary')
    >>> mask_string_refusal(make_pipeline(CountVectorizer(ngram_range=(1, 2)), LogisticRegression()), None)
    "the first step's tokens are not lime's words one by one"
    """
    first = model.steps[0][1]
    if not tokens_are_words(first):
        return "the first step's tokens are not lime's words one by one"
    if len(model.steps) > 2 and isinstance(model.steps[1][1], TfidfTransformer):
        return "a TfidfTransformer follows the vectorizer (explain reads other modes through the vectorizer alone)"
    mask = LIME_MASK_STRING if mask_string is None else mask_string
    if not mask.isascii():
        return "the mask string is not ASCII"
    vocabulary = getattr(first, "vocabulary_", None)
    if vocabulary is None:
        return "the vectorizer is not fitted"
    if any(token in vocabulary for token in first.build_analyzer()(mask)):
        return "the mask string is a token of the vocabulary"
    return None


def occurrences(words):
    """lime's features of a text with ``bow=False``: its word tokens in order (``IndexedString.inverse_vocab``).

    Parameters
    ----------
    words : limetheory.engine.lime_tokens.LimeWords
        The text's tokens (``lime_words``).

    Returns
    -------
    list of str

    Examples
    --------
    >>> from limetheory.engine.lime_tokens import lime_words
    >>> occurrences(lime_words("the food, the wine!"))
    ['the', 'food', 'the', 'wine']
    """
    return words.tokens[words.first :: 2]


def occurrence_strings(words, kept, mask_string=None):
    """lime's strings for masks over the occurrences: a removed occurrence replaced by the mask string.

    ``IndexedString(text, bow=False, mask_string=mask_string).inverse_removing`` of each row's removed occurrences,
    str for str: the separators stay, and one join makes each string.

    Parameters
    ----------
    words : limetheory.engine.lime_tokens.LimeWords
        The text's tokens (``lime_words``).
    kept : ndarray of int or bool, shape (n, d)
        0/1 masks over the d occurrences (the caller checks them).
    mask_string : str or None
        lime's mask string (None: ``"UNKWORDZ"``).

    Returns
    -------
    list of str
        ``n`` documents.

    Examples
    --------
    >>> from limetheory.engine.lime_tokens import lime_words
    >>> occurrence_strings(lime_words("the food, the wine!"), np.array([[1, 0, 1, 1], [0, 1, 0, 0]]))
    ['the UNKWORDZ, the wine!', 'UNKWORDZ food, UNKWORDZ UNKWORDZ!']
    """
    mask = LIME_MASK_STRING if mask_string is None else mask_string
    rows = np.where(np.asarray(kept) == 1, np.array(occurrences(words), dtype=object), mask)
    return written_strings(words, rows.tolist())
