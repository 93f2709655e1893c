"""The perturbed documents that lime builds from its masks.

For a mask z over the local dictionary (1 = word kept), lime passes the classifier
``IndexedString(text).inverse_removing(removed)``, where ``removed`` lists the ids of the words with
z_j = 0: every occurrence of a removed word is deleted and everything else (the other words, the
punctuation and the white space between tokens) is kept as it was.  :func:`perturbed_documents`
returns exactly these strings for many masks at once, using lime's own tokenisation.
"""

from __future__ import annotations

from itertools import compress

import numpy as np
from lime.lime_text import IndexedString

from ._validation import as_float_array, check_memory, check_text


def perturbed_documents(text, z):
    """The strings lime builds from ``text`` for the masks ``z`` (1 = word kept), one per row.

    Row i gives ``IndexedString(text).inverse_removing(ids of the words j with z[i, j] == 0)``, lime's
    perturbed document (lime's defaults: tokens split on ``\\W+``, bag of words, so every occurrence of a
    removed word disappears and the separators around it stay).  The tokenisation is done once and the
    masks are expanded to the tokens with one indexing operation; only the final joins are per row.

    Parameters
    ----------
    text : str
        The document (at least one word).
    z : array_like, shape (n, d)
        0/1 masks over the local dictionary ``local_dictionary(text)`` (d distinct words, in lime's order);
        booleans, integers or floats equal to 0 or 1.  ``n`` may be 0.

    Returns
    -------
    list of str
        ``n`` documents.  The all-ones mask gives ``text`` itself (lime's first sample); the all-zeros mask
        gives the separators of ``text`` only.

    Raises
    ------
    TypeError
        ``text`` not a str, ``z`` not numeric.
    ValueError
        ``text`` empty or without words; ``z`` not 2-D, with a number of columns other than d, or with an
        entry other than 0 and 1; a call beyond the memory limit.

    Notes
    -----
    Limits: about n (9 T + len(text) + 64) bytes for n masks of a text of T tokens (the keep matrix, its rows
    as lists, the strings); above 2 GiB the call is refused with the estimate before any string is built.

    Examples
    --------
    >>> perturbed_documents("the food, the wine!", [[1, 0, 1], [0, 1, 1], [0, 0, 0]])
    ['the , the wine!', ' food,  wine!', ' ,  !']
    """
    text = check_text(text)
    indexed = IndexedString(text)
    d = len(indexed.inverse_vocab)
    if d == 0:
        raise ValueError(f"text must contain at least one word, got {text!r}")
    masks = as_float_array(z, "z")
    if masks.ndim != 2 or masks.shape[1] != d:
        raise ValueError(
            f"z must be an (n, d) array with d = {d}, the number of distinct words of text, got shape {masks.shape}"
        )
    if not np.isin(masks, (0.0, 1.0)).all():
        raise ValueError("z must contain only 0 (word removed) and 1 (word kept)")
    tokens = [str(token) for token in indexed.as_list]
    check_memory(
        masks.shape[0] * (9.0 * len(tokens) + len(text) + 64),
        f"{masks.shape[0]} perturbed documents of {len(tokens)} tokens",
        "build them in batches",
    )
    word_of_token = np.full(len(tokens), -1, dtype=np.int64)
    for j, positions in enumerate(indexed.positions):
        word_of_token[positions] = j
    is_word = word_of_token >= 0
    keep = np.ones((masks.shape[0], len(tokens)), dtype=bool)
    keep[:, is_word] = masks[:, word_of_token[is_word]] == 1.0
    return ["".join(compress(tokens, row)) for row in keep.tolist()]
