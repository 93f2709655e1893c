"""The counts of a document's vectorizer columns in many perturbed copies of it: the masks times its count matrix.

:class:`limetheory.engine.tokens.DocumentCounts` holds a sparse (d x q) integer matrix whose row j is lime word j's
number of occurrences in each of the document's q columns; a mask keeps some of the words, and the counts of the
perturbed document are ``mask @ counts``.  The fast engine asks for these rows by the tens of thousands.  When every
word has at most one column (the default vectorizers' case: lower-casing merges words into one column, it does not
split a word), column c's count is the sum of the counts of its kept words: a gather of the masks and one column
addition per word that shares its column, in integers, instead of a sparse product whose conversions (the masks to
CSR, the product's unsorted indices) cost several times as much.  The result is the same matrix, entry for entry:
the same integers, the column indices sorted within each row, no stored zero.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

#: rows x columns of the dense integer block of the fast path (32 MB of int64); beyond, the sparse product
MAX_DENSE_ENTRIES = 2**22


def kept_column_counts(masks, counts):
    """``masks @ counts`` for 0/1 masks: each perturbed document's counts in the document's columns.

    A word with a column contributes its count there when its mask entry is nonzero.  When every word has at most
    one column and the block has at most :data:`MAX_DENSE_ENTRIES` entries, the product is computed densely (one
    gather, then one column addition per word that shares its column); otherwise as a sparse product.  Both give
    the same integers: sums of non-negative integers are exact in any order.

    Parameters
    ----------
    masks : array_like of shape (m, d)
        lime's masks, one row per perturbed document: a nonzero entry keeps word j.
    counts : scipy.sparse matrix of shape (d, q)
        Non-negative integer counts: row j holds word j's occurrences in each of the q columns.

    Returns
    -------
    scipy.sparse.csr_matrix of shape (m, q)
        The int64 counts, column indices sorted within each row and no stored zero.

    Raises
    ------
    TypeError
        ``counts`` not a sparse matrix of integers.
    ValueError
        ``masks`` not two-dimensional, its width not ``counts``' number of rows, or a negative count.

    Examples
    --------
    >>> counts = sp.csr_matrix(np.array([[1, 0], [2, 0], [0, 1]]))  # words 0 and 1 share column 0
    >>> kept_column_counts(np.array([[1, 1, 1], [0, 1, 0], [1, 0, 0]]), counts).toarray()
    array([[3, 1],
           [2, 0],
           [1, 0]])
    """
    if not sp.issparse(counts) or counts.dtype.kind not in "iu":
        raise TypeError(f"counts must be a scipy sparse matrix of integers, got {type(counts).__name__}")
    masks = np.asarray(masks)
    if masks.ndim != 2 or masks.shape[1] != counts.shape[0]:
        raise ValueError(
            f"masks must have shape (m, {counts.shape[0]}) (one column per row of counts), got {masks.shape}"
        )
    counts = counts.tocsr(copy=True).astype(np.int64)
    counts.sum_duplicates()
    counts.eliminate_zeros()
    if counts.data.size and counts.data.min() < 0:
        raise ValueError("counts must be non-negative")
    m, q = masks.shape[0], counts.shape[1]
    per_word = np.diff(counts.indptr)
    if per_word.max(initial=0) > 1 or m * q > MAX_DENSE_ENTRIES:
        # a word of several columns, or a block too large to hold densely: sparse x sparse in integers
        product = sp.csr_matrix(sp.csr_matrix(masks.astype(bool, copy=False), dtype=np.int64) @ counts)
        product.eliminate_zeros()
        product.sort_indices()
        return product
    words = np.flatnonzero(per_word)
    columns, values = counts.indices[counts.indptr[words]], counts.data[counts.indptr[words]]
    order = np.argsort(columns, kind="stable")
    words, columns, values = words[order], columns[order], values[order]
    first = np.ones(len(columns), dtype=bool)
    first[1:] = columns[1:] != columns[:-1]  # the first word of each column; the others add to it one by one
    kept = masks.take(words[first], axis=1) != 0  # C order (masks[:, index] would be Fortran order here)
    if np.array_equal(columns[first], np.arange(q)):  # every column has a word: the gather is the whole block
        dense = kept * values[first]
    else:
        dense = np.zeros((m, q), dtype=np.int64)
        dense[:, columns[first]] = kept * values[first]
    for word, column, value in zip(words[~first], columns[~first], values[~first], strict=True):
        dense[:, column] += (masks[:, word] != 0) * value
    nonzero = dense != 0
    flat = np.flatnonzero(nonzero)
    indptr = np.zeros(m + 1, dtype=np.int64)
    np.cumsum(np.count_nonzero(nonzero, axis=1), out=indptr[1:])
    # the arrays as they are: a valid CSR by construction, so scipy's format checks (most of the time here) are skipped
    result = sp.csr_matrix((m, q), dtype=np.int64)
    result.data, result.indices, result.indptr = dense.ravel()[flat], flat % max(q, 1), indptr
    result.has_sorted_indices = True  # row-major positions: increasing columns within each row
    return result
