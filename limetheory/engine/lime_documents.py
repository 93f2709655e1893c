"""A document as lime cuts it with its other text settings, and as a vectorizer sees each perturbation of it.

lime's settings here are ``bow``, ``split_expression``, ``mask_string`` and ``char_level``.

The case of lime's defaults is :class:`limetheory.engine.tokens.DocumentCounts`; the fast engine
(:mod:`limetheory.engine.fast`) and lime's other text modes of :func:`limetheory.explain`
(``limetheory.pipelines.reading.modes``) read the others through :class:`LimeTextCounts` and :class:`LimeCharacters`.
"""

from __future__ import annotations

import functools
import re

import numpy as np
import scipy.sparse as sp

from .tokens import DocumentCounts, column_entries, count_matrix, kept_token_documents

#: LimeTextExplainer's default split_expression (the engine's fastest path)
LIME_SPLIT = r"\W+"
#: (mask, token) entries turned into strings per block: bounds the block's index array and token references
_STRING_BLOCK_ENTRIES = 2**22
#: a document as an array of code points (one 4-byte unit per character of a Python str, in the machine's order)
_CODE_POINTS = "utf-32-le" if np.little_endian else "utf-32-be"
#: a word character, as the vectorizers' default token pattern and lime's default split see it
WORD_CHARACTER = re.compile(r"\w")


@functools.lru_cache(maxsize=8)
def lime_indexed_string(text, bow=True, split_expression=LIME_SPLIT, mask_string=None):
    """lime's ``IndexedString(text, bow=..., split_expression=..., mask_string=...)``, shared by the callers.

    One explanation in another word mode reads the document's features, its strings and its counts, each of which
    needs lime's tokenisation (about 2 ms for a 100-word review): the last few are kept, keyed by the text and the
    settings (a callable ``split_expression`` by identity).  The object is shared, so it is never modified here:
    nothing in the package writes to an ``IndexedString``.

    Examples
    --------
    >>> indexed = lime_indexed_string("good food, good wine", bow=False)
    >>> [str(w) for w in indexed.inverse_vocab], indexed is lime_indexed_string("good food, good wine", bow=False)
    (['good', 'food', 'good', 'wine'], True)
    """
    # lime.lime_text imports scikit-learn's linear models: loaded on first use, not by import limetheory
    from lime.lime_text import IndexedString

    return IndexedString(text, bow=bow, split_expression=split_expression, mask_string=mask_string)


def indexed_documents(indexed, masks):
    """The strings lime's ``indexed.inverse_removing`` builds for the masks (1 = feature kept), one per row.

    Row i gives ``indexed.inverse_removing(np.flatnonzero(masks[i] == 0))``, str for str, for a lime
    ``IndexedString`` of any ``bow``, ``split_expression`` and ``mask_string``: with ``bow=True`` every token of a
    removed feature is deleted, with ``bow=False`` the removed occurrence's token becomes ``mask_string``, and the
    separators stay.  lime builds each string with a Python loop over every token and a NumPy scalar look-up per
    token; here the masks are expanded to the tokens with one indexing operation per block of rows and each string
    is one join.

    Parameters
    ----------
    indexed : lime.lime_text.IndexedString
        lime's document (its ``as_list``, ``positions``, ``bow`` and ``mask_string`` are read).
    masks : array_like, shape (n, d)
        0/1 masks over its d features (``indexed.num_words()``).

    Returns
    -------
    list of str
        ``n`` documents.

    Raises
    ------
    ValueError
        ``masks`` not of shape (n, d).

    Examples
    --------
    >>> from lime.lime_text import IndexedString
    >>> indexed = IndexedString("the food, the wine!", bow=False)
    >>> indexed_documents(indexed, [[1, 0, 1, 1], [0, 1, 0, 0]])
    ['the UNKWORDZ, the wine!', 'UNKWORDZ food, UNKWORDZ UNKWORDZ!']
    >>> indexed.inverse_removing([1])
    'the UNKWORDZ, the wine!'
    """
    kept = _kept_features(indexed, masks)
    tokens = [str(token) for token in indexed.as_list]
    n_tokens = len(tokens)
    block = max(1, _STRING_BLOCK_ENTRIES // max(1, n_tokens))
    documents = []
    if indexed.bow:
        for start in range(0, len(kept), block):
            documents.extend(kept_token_documents(tokens, indexed.positions, kept[start : start + block]))
        return documents
    # bow=False: feature j is the token at positions[j]; a removed one reads as the mask string (the last choice)
    choices = np.array([*tokens, indexed.mask_string], dtype=object)
    positions = np.asarray(indexed.positions, dtype=np.int64)
    for start in range(0, len(kept), block):
        rows = kept[start : start + block]
        index = np.broadcast_to(np.arange(n_tokens), (len(rows), n_tokens)).copy()
        index[:, positions] = np.where(rows, positions, n_tokens)
        documents.extend("".join(row) for row in choices[index].tolist())
    return documents


def _kept_features(indexed, masks):
    """``masks != 0`` as a boolean (n, d) array (lime removes the features equal to 0), checked against d."""
    masks = np.asarray(masks)
    d = indexed.num_words()
    if masks.ndim != 2 or masks.shape[1] != d:
        raise ValueError(f"masks must be an (n, d) array with d = {d}, the document's features, got {masks.shape}")
    return masks != 0


def character_documents(indexed, masks):
    """The strings lime's ``IndexedCharacters.inverse_removing`` builds for the masks (1 = feature kept), one per row.

    Row i gives ``indexed.inverse_removing(np.flatnonzero(masks[i] == 0))``, str for str: with ``bow=True`` every
    occurrence of a removed character is deleted, with ``bow=False`` a removed position becomes ``mask_string``.
    lime joins a Python list of the kept characters, one NumPy scalar look-up each; here the document is an array
    of code points, a block of masks is expanded to the positions with one indexing operation, and each string is
    decoded from its kept code points.  A ``mask_string`` of other than one character (``bow=False``) goes through
    :func:`indexed_documents`, which builds the same strings token by token.

    Parameters
    ----------
    indexed : lime.lime_text.IndexedCharacters
        lime's characters of the document (``raw``, ``positions``, ``bow``, ``mask_string``).
    masks : array_like of shape (n, d)
        Which of the d character features (``indexed.num_words()``) each row keeps: non-zero kept, 0 removed.

    Returns
    -------
    list of str
        One perturbed document per row of ``masks``.

    Raises
    ------
    ValueError
        When ``masks`` is not an (n, d) array.

    Examples
    --------
    >>> from lime.lime_text import IndexedCharacters
    >>> indexed = IndexedCharacters("good food")
    >>> [str(c) for c in indexed.inverse_vocab]
    ['g', 'o', 'd', ' ', 'f']
    >>> character_documents(indexed, [[1, 0, 1, 1, 1], [1, 1, 1, 0, 0]])
    ['gd fd', 'goodood']
    >>> indexed.inverse_removing([1])
    'gd fd'
    """
    kept = _kept_features(indexed, masks)
    if not indexed.bow and len(indexed.mask_string) != 1:
        return indexed_documents(indexed, kept)
    # "surrogatepass": a lone surrogate is a character of a Python str like any other, and comes back as itself
    codes = np.frombuffer(indexed.raw.encode(_CODE_POINTS, "surrogatepass"), dtype=np.uint32)
    block = max(1, _STRING_BLOCK_ENTRIES // max(1, len(codes)))
    documents = []
    if indexed.bow:
        feature_of = np.empty(len(codes), dtype=np.int64)  # every character is a feature: each position's
        for j, where in enumerate(indexed.positions):
            feature_of[where] = j
        for start in range(0, len(kept), block):
            keep = kept[start : start + block][:, feature_of]
            documents.extend(codes[row].tobytes().decode(_CODE_POINTS, "surrogatepass") for row in keep)
        return documents
    mask_code = np.frombuffer(indexed.mask_string.encode(_CODE_POINTS, "surrogatepass"), dtype=np.uint32)[0]
    positions = np.asarray(indexed.positions, dtype=np.int64)  # feature j is the character at positions[j]
    for start in range(0, len(kept), block):
        rows = np.broadcast_to(codes, (len(kept[start : start + block]), len(codes))).copy()
        rows[:, positions] = np.where(kept[start : start + block], codes[positions], mask_code)
        documents.extend(row.tobytes().decode(_CODE_POINTS, "surrogatepass") for row in rows)
    return documents


class LimeTextCounts(DocumentCounts):
    """A document as lime sees it with any supported ``bow``, ``split_expression`` and ``mask_string``.

    And as the vectorizer sees it (:class:`limetheory.engine.tokens.DocumentCounts` is the case of lime's defaults).

    lime's ``IndexedString(text, bow=bow, split_expression=split_expression, mask_string=mask_string)`` cuts the
    text into words and separators.  With ``bow=True`` a feature is a distinct word and removing it deletes all its
    occurrences; with ``bow=False`` a feature is one occurrence, in text order, and a removed occurrence is
    replaced by ``mask_string`` ('UNKWORDZ' when None).  Row j of ``counts`` holds feature j's vectorizer columns
    (times its number of occurrences) and ``mask_counts`` those of the mask string, so a perturbed document's
    counts are ``mask @ counts + (number removed) * mask_counts`` (the mask string counts whenever the
    vectorizer's vocabulary has it, lower-cased 'unkwordz' by default; with ``bow=True`` it never appears).

    This holds when the vectorizer's tokens (maximal runs of word characters) never straddle two of lime's pieces:
    every separator must hold no word character after preprocessing, and no two words may touch with word
    characters on both sides (a zero-width split inside a run); both are refused here, and ``self_check``
    compares rows with the vectorizer's real ``transform``.
    """

    def __init__(self, text, vectorizer, *, bow=True, split_expression=r"\W+", mask_string=None):
        self.text = text
        self.vectorizer = vectorizer
        self.indexed = lime_indexed_string(text, bow, split_expression, mask_string)
        self.words = [str(w) for w in self.indexed.inverse_vocab]
        self.d = len(self.words)
        if vectorizer.lowercase and ("\u03a3" in text or "\u03a3" in self.indexed.mask_string):
            # Python lower-cases the capital sigma according to its neighbours (final sigma)
            raise ValueError("text or mask_string contains the capital sigma 'Σ', whose lower case depends on context")
        preprocess = vectorizer.build_preprocessor()
        pieces = [str(piece) for piece in self.indexed.as_list]
        is_word = np.zeros(len(pieces), dtype=bool)
        if self.d:
            is_word[np.concatenate([np.ravel(p) for p in self.indexed.positions]).astype(np.int64)] = True
        for piece in {pieces[i] for i in np.flatnonzero(~is_word)}:
            if WORD_CHARACTER.search(preprocess(piece)):
                raise ValueError(
                    f"a separator of text, {piece!r}, holds a word character after preprocessing: the vectorizer "
                    "would read it as (part of) a token"
                )
        for i in np.flatnonzero(is_word[:-1] & is_word[1:]):
            left, right = pieces[i], pieces[i + 1]
            if WORD_CHARACTER.match(left[-1]) and WORD_CHARACTER.match(right[0]):
                raise ValueError(
                    f"split_expression={split_expression!r} cuts a run of word characters ({left!r} + {right!r}), "
                    "which the vectorizer reads as one token: the engine cannot mirror it"
                )
        # after the checks above: a split that cuts words apart is reported as such, not as a short dictionary
        unit = "distinct words" if bow else "words with bow=False (each occurrence is a feature)"
        if self.d == 0:
            raise ValueError(f"text has no word lime can remove (with split_expression={split_expression!r})")
        if self.d < 2:
            raise ValueError(
                f"text must contain at least 2 {unit}, got {self.words}: with one feature every perturbation "
                "removes it, so the explanation is undefined (Sigma is singular)"
            )
        occurrences = [len(positions) for positions in self.indexed.positions] if bow else [1] * self.d
        entries = column_entries(vectorizer, self.words, occurrences)
        masked = {}
        if not bow:  # lime deletes a removed word when bow=True: the mask string never appears
            # the mask string's columns, counted as those of a word that occurs once
            masked = {c: n for (_, c), n in column_entries(vectorizer, [self.indexed.mask_string], [1]).items()}
        self.columns = np.array(sorted({column for _, column in entries} | set(masked)), dtype=np.int64)
        self.counts = count_matrix(entries, self.d, self.columns)
        self.mask_counts = np.zeros(len(self.columns), dtype=np.int64)
        for column, count in masked.items():
            self.mask_counts[np.searchsorted(self.columns, column)] = count
        self.n_features = len(vectorizer.vocabulary_)
        self._matrix_type = None

    def documents(self, masks):
        """The strings lime builds for these masks (1 = feature kept; 0 = deleted, or masked with bow=False)."""
        return indexed_documents(self.indexed, masks)

    #: the self-check's strings: lime's ``inverse_removing`` under these settings, str for str
    lime_strings = documents

    def kept_counts(self, masks):
        """The counts of :meth:`~limetheory.engine.tokens.DocumentCounts.kept_counts`, plus those of ``mask_string``."""
        masks = np.asarray(masks)
        counts = super().kept_counts(masks)  # kept_column_counts: the sparse product's integers, without its cost
        if self.mask_counts.any():
            removed = self.d - np.count_nonzero(masks, axis=1)
            counts = counts + sp.csr_matrix(np.outer(removed, self.mask_counts))
        return counts


class LimeCharacters:
    """A document as lime sees it with ``char_level=True``: every character a feature.

    ``bow=True``: each distinct character, all its occurrences removed together; ``bow=False``: each position,
    replaced by ``mask_string`` (chr(0) when None).

    Removing characters changes the words themselves (a word vanishes, shrinks or merges with its neighbour), so
    the vectorizer's rows are not a function of word counts: here the perturbed strings are lime's own
    (``IndexedCharacters.inverse_removing``'s, str for str, built by :func:`character_documents`) and pass through
    the vectorizer's ``transform``, as in lime (once per distinct mask).  The engine's gain is then its ridge,
    its feature selection and the strings' construction.
    """

    def __init__(self, text, vectorizer, *, bow=True, mask_string=None):
        self.text = text
        self.vectorizer = vectorizer
        # lime.lime_text imports scikit-learn's linear models: loaded on first use, not by import limetheory
        from lime.lime_text import IndexedCharacters

        self.indexed = IndexedCharacters(text, bow=bow, mask_string=mask_string)
        self.words = [str(c) for c in self.indexed.inverse_vocab]
        self.d = len(self.words)
        if self.d < 2:
            unit = "distinct characters" if bow else "characters"
            raise ValueError(
                f"text must contain at least 2 {unit} with char_level=True, got {self.words}: with one feature every "
                "perturbation removes it, so the explanation is undefined (Sigma is singular)"
            )

    def documents(self, masks):
        """The strings lime builds for these masks (1 = character kept)."""
        return character_documents(self.indexed, masks)

    def transform(self, masks):
        """``vectorizer.transform(self.documents(masks))``: the vectorizer's own call on lime's strings."""
        return self.vectorizer.transform(self.documents(masks))

    def self_check(self, masks):
        """Nothing to check: :meth:`transform` is the vectorizer's own call on lime's own strings."""
