r"""What a word model sees when lime removes characters (``LimeTextExplainer(char_level=True)``).

With ``char_level=True`` lime's features are characters (lime's ``IndexedCharacters``): with ``bow=True`` each
distinct character, and removing one deletes all its occurrences, so the neighbours of a deleted character
become adjacent; with ``bow=False`` each position, replaced by ``mask_string`` (chr(0) by default, a non-word
character).  A word vectorizer then reads new tokens: scikit-learn's default ``token_pattern``
``(?u)\b\w\w+\b`` takes every maximal run of two or more word characters (``\w``) of the lower-cased string.

This module reads those tokens directly in terms of the original positions (:func:`perturbed_tokens`), says what
became of each word of the document (:func:`word_fates`: survived, vanished, or turned into another word), and
writes "the word w is present" as a boolean formula in lime's character indicators
(:func:`character_presence_formula`), which :func:`limetheory.beta_boolean` turns into the exact explanation.
Everything here mirrors the *default* token pattern and lower-casing only; the chapter checks it against the real
vectorizer on lime's own perturbed strings.
"""

from __future__ import annotations

import re
from itertools import compress

import numpy as np
import sympy as sp

from .._validation import check_bool, check_text

#: one character the default token pattern counts as part of a word
WORD_CHARACTER = re.compile(r"\w")
#: a maximal run of two or more word characters (the token pattern's \b\w\w+\b, scanning left to right)
_TOKEN_RUN = re.compile(r"\w\w+")

#: the fates of a word occurrence, in the order :func:`word_fates` reports them
FATES = ("survived", "vanished", "changed, in vocabulary", "changed, out of vocabulary")

#: longest text :func:`character_presence_formula` accepts (its candidate spans grow with the square of the length)
MAX_FORMULA_TEXT = 400


def _check_lowercase_safe(text):
    """The module reads tokens character by character: lower-casing must keep one character per character."""
    if len(text.lower()) != len(text) or "\u03a3" in text:
        raise ValueError(
            "text contains a character whose lower case is not one character or depends on its context "
            "(e.g. 'İ' or the capital sigma 'Σ'); the character-level token reading does not apply"
        )


def _check_kept(text, kept):
    kept = np.asarray(kept)
    if kept.shape != (len(text),):
        raise ValueError(f"kept must have one entry per character of text ({len(text)}), got shape {kept.shape}")
    if kept.dtype != bool and not np.isin(kept, (0, 1)).all():
        raise ValueError("kept must hold only 0/1 (or booleans): 1 = the character at this position is kept")
    return kept.astype(bool)


def perturbed_tokens(text, kept, *, masked=False):
    r"""The tokens the default word vectorizer reads in a text whose characters were removed, with their positions.

    Parameters
    ----------
    text : str
        The original document.
    kept : array_like of bool or 0/1, shape (len(text),)
        Which positions lime kept (with ``bow=True`` all positions of a removed character are False).
    masked : bool
        False: removed characters are deleted (lime's ``bow=True``), so their neighbours become adjacent.
        True: each removed character is replaced by a non-word ``mask_string`` (lime's ``bow=False`` with its
        default chr(0)), which separates tokens.

    Returns
    -------
    list of (str, tuple of int)
        Each token the pattern ``(?u)\b\w\w+\b`` finds in the lower-cased perturbed string, in order, with the
        original positions of its characters.

    Raises
    ------
    TypeError
        ``text`` not a str, ``masked`` not a bool.
    ValueError
        ``kept`` of the wrong shape or not 0/1; a character whose lower case is not one character.

    Examples
    --------
    >>> perturbed_tokens("go od", [1, 1, 0, 1, 1])
    [('good', (0, 1, 3, 4))]
    >>> perturbed_tokens("good", [1, 0, 1, 1], masked=True)
    [('od', (2, 3))]
    """
    text = check_text(text)
    masked = check_bool(masked, "masked")
    _check_lowercase_safe(text)
    kept = _check_kept(text, kept)
    if masked:  # a mask is a non-word character: it ends a run, and every position stays where it was
        positions = np.arange(len(text))
        perturbed = "".join(c if k else "\0" for c, k in zip(text, kept.tolist(), strict=True))
    else:  # a deleted character: its neighbours become adjacent, a run goes on across it
        positions = np.flatnonzero(kept)
        perturbed = "".join(compress(text, kept.tolist()))
    # the maximal runs of two or more word characters, which the token pattern takes (found by re, in C)
    return [
        (match.group().lower(), tuple(positions[match.start() : match.end()].tolist()))
        for match in _TOKEN_RUN.finditer(perturbed)
    ]


def word_fates(text, kept, vocabulary, *, masked=False):
    """What became of each word occurrence of ``text`` (as the default vectorizer reads it) after a perturbation.

    An occurrence is a maximal run of two or more word characters of the original text.  Its kept characters lie
    in at most one token of the perturbed text (no separator lies inside the run; with ``masked=True`` a mask
    splits it, and the longest piece is taken).  The occurrence *survived* if that token is the word itself,
    *vanished* if no token holds its kept characters, and otherwise *changed* into another word, which is or is
    not in ``vocabulary``.

    Parameters
    ----------
    text : str
        The original document.
    kept : array_like of bool or 0/1, shape (len(text),)
        Which positions were kept.
    vocabulary : collection of str
        The vectorizer's vocabulary (e.g. ``vectorizer.vocabulary_``), for the two kinds of change.
    masked : bool
        As in :func:`perturbed_tokens`.

    Returns
    -------
    list of (str, str, str or None)
        For each occurrence in text order: the word, its fate (one of :data:`FATES`) and the token it became
        (None when it vanished).

    Raises
    ------
    TypeError
        ``text`` not a str, ``vocabulary`` not a collection of str, ``masked`` not a bool.
    ValueError
        As :func:`perturbed_tokens`.

    Examples
    --------
    >>> word_fates("good food", [1, 1, 1, 1, 0, 1, 1, 1, 1], {"good", "food", "goodfood"})
    [('good', 'changed, in vocabulary', 'goodfood'), ('food', 'changed, in vocabulary', 'goodfood')]
    >>> word_fates("good food", [0, 1, 1, 1, 1, 0, 1, 1, 1], {"good", "food"})
    [('good', 'changed, out of vocabulary', 'ood'), ('food', 'changed, out of vocabulary', 'ood')]
    """
    if isinstance(vocabulary, (str, bytes)) or not hasattr(vocabulary, "__contains__"):
        raise TypeError(f"vocabulary must be a collection of str (e.g. vectorizer.vocabulary_), got {vocabulary!r}")
    perturbed = perturbed_tokens(text, kept, masked=masked)
    token_of = {p: token for token, positions in perturbed for p in positions}
    fates = []
    for word, positions in perturbed_tokens(text, np.ones(len(text), dtype=bool)):
        candidates = [token_of[p] for p in positions if p in token_of]
        if not candidates:
            fates.append((word, FATES[1], None))
            continue
        token = max(candidates, key=len)  # one token, unless masks split the run
        if token == word:
            fates.append((word, FATES[0], token))
        else:
            fates.append((word, FATES[2] if token in vocabulary else FATES[3], token))
    return fates


def _cubes_for_span(text, word, left, right, variable):
    """The conjunctions (kept set, removed set) under which the text between ``left`` and ``right`` spells ``word``.

    The kept word characters strictly between ``left`` and ``right`` spell ``word``, with both ends kept
    separators and every separator inside removed (deletion).
    """
    kept, removed = set(), set()
    for end in (left, right):
        if 0 <= end < len(text):
            kept.add(variable[end])
    inside = range(left + 1, right)
    removed |= {variable[p] for p in inside if not WORD_CHARACTER.match(text[p])}
    if kept & removed:
        return []
    letters = [p for p in inside if WORD_CHARACTER.match(text[p])]
    cubes = []

    def extend(i, k, kept, removed):
        # letters[:i] are decided and spell word[:k]
        if kept & removed:
            return
        if i == len(letters):
            if k == len(word):
                cubes.append((frozenset(kept), frozenset(removed)))
            return
        p = letters[i]
        if k < len(word) and text[p].lower() == word[k]:
            extend(i + 1, k + 1, kept | {variable[p]}, removed)
        extend(i + 1, k, kept, removed | {variable[p]})

    extend(0, 0, kept, removed)
    return cubes


def character_presence_formula(text, word, *, bow=True):
    """Whether the default word vectorizer sees ``word``, as a boolean formula in lime's character indicators.

    With ``bow=True`` (deletion), the word is present exactly when there are two kept separators (non-word
    characters, or the ends of the text) such that every separator between them is removed and the kept word
    characters between them spell the word (lower-cased): an Or, over the pairs of ends and the ways of spelling
    the word, of conjunctions of indicators.  With ``bow=False`` (each removed character replaced by a non-word
    mask), the word is present exactly when some run of positions spelling it is kept and each of its two
    neighbours is a non-word character, removed, or beyond the text.

    Parameters
    ----------
    text : str
        The document, at most :data:`MAX_FORMULA_TEXT` characters.
    word : str
        A word the default token pattern can produce: two or more word characters, lower case.
    bow : bool
        lime's ``bow`` with ``char_level=True``.

    Returns
    -------
    sympy.Basic
        With ``bow=True``, a formula in symbols named after lime's distinct characters (pass lime's
        ``IndexedCharacters(text).inverse_vocab`` as the ``words`` of :func:`limetheory.beta_boolean`); with
        ``bow=False``, in symbols ``"c0"``, ``"c1"``, ... for the positions.  ``sympy.false`` when no
        perturbation produces the word.

    Raises
    ------
    TypeError
        ``text`` or ``word`` not a str, ``bow`` not a bool.
    ValueError
        ``word`` not two or more lower-case word characters; ``text`` longer than :data:`MAX_FORMULA_TEXT`;
        a character whose lower case is not one character.

    Examples
    --------
    >>> g, o, d, space = (sp.Symbol(c) for c in "god ")
    >>> character_presence_formula("go od", "good") == sp.And(g, o, d, sp.Not(space))
    True
    >>> character_presence_formula("ab", "ab", bow=False)
    c0 & c1
    """
    text = check_text(text)
    bow = check_bool(bow, "bow")
    if not isinstance(word, str):
        raise TypeError(f"word must be a str, got {type(word).__name__}")
    if len(word) < 2 or word.lower() != word or not all(WORD_CHARACTER.match(c) for c in word):
        raise ValueError(f"word must be two or more lower-case word characters (a token of the default vectorizer), "
                         f"got {word!r}")  # fmt: skip
    if len(text) > MAX_FORMULA_TEXT:
        raise ValueError(
            f"text must have at most {MAX_FORMULA_TEXT} characters for the formula (its candidate spans grow with "
            f"the square of the length), got {len(text)}"
        )
    _check_lowercase_safe(text)
    if not bow:
        return _masked_presence_formula(text, word)
    symbol = {c: sp.Symbol(c) for c in text}
    variable = [symbol[c] for c in text]
    ends = [-1] + [p for p, c in enumerate(text) if not WORD_CHARACTER.match(c)] + [len(text)]
    cubes = set()
    for i, left in enumerate(ends):
        for right in ends[i + 1 :]:
            cubes.update(_cubes_for_span(text, word, left, right, variable))
    # a cube implied by another (a superset of its literals) adds nothing to the Or
    cubes = [c for c in cubes if not any(o != c and o[0] <= c[0] and o[1] <= c[1] for o in cubes)]
    terms = [sp.And(*kept, *[sp.Not(v) for v in removed]) for kept, removed in cubes]
    return sp.Or(*terms) if terms else sp.false


def _masked_presence_formula(text, word):
    position = [sp.Symbol(f"c{p}") for p in range(len(text))]
    lowered = text.lower()
    terms = []
    for start in range(len(text) - len(word) + 1):
        end = start + len(word)
        if lowered[start:end] != word:
            continue
        literals = position[start:end]
        for neighbour in (start - 1, end):
            if 0 <= neighbour < len(text) and WORD_CHARACTER.match(text[neighbour]):
                literals = [*literals, sp.Not(position[neighbour])]  # a word character next to it must be masked
        terms.append(sp.And(*literals))
    return sp.Or(*terms) if terms else sp.false
