r"""The estimate's per-stratum sums of a batch in one pass over its masks (a compiled loop).

Each mask i of a batch contributes a term :math:`t_i = x_i r_i + M_{s_i}` (x = (1, z), r the residual of the model
after its controls, M the controls' exact conditional moments at the mask's s), its image :math:`u_i = P t_i`
under a matrix P of the pattern of Σ⁻¹ (a corner, an edge, a diagonal and an off-diagonal entry:
:func:`limetheory.pipelines.reading.mask_samples.apply_sigma_inverse`), and the square of that image, to the sums of its
stratum.  Written with numpy these are a dozen passes over (m, d + 1) arrays, each allocated and read again, and
with cheap model calls they were most of the estimate's time; here each mask is read once and nothing of size m d
is allocated.  The sums are the same as numpy's up to the order of the additions.
"""

from __future__ import annotations

import numpy as np

from ..._compiled import compiled


@compiled(cache=True, nogil=True)
def _accumulate(z, residual, bins, table, where, extra, extra_coef, pattern, square_weight, sum_terms, sum_mapped,
                sum_squares):  # fmt: skip
    corner, edge, diagonal, off = pattern[0], pattern[1], pattern[2], pattern[3]
    m, d = z.shape
    t = np.empty(d + 1)
    for i in range(m):
        b, w, r = bins[i], where[i], residual[i]
        t[0] = r + table[w, 0]
        for j in range(d):
            t[j + 1] = (r if z[i, j] else 0.0) + table[w, j + 1]
        if sum_terms.shape[0] > 0:  # the terms themselves, before the extra part
            for j in range(d + 1):
                sum_terms[b, j] += t[j]
        total = 0.0
        for j in range(d + 1):
            t[j] += extra_coef * extra[b, j]
            if j > 0:
                total += t[j]
        head = corner * t[0] + edge * total
        sum_mapped[b, 0] += head
        sum_squares[b, 0] += square_weight[i] * head * head
        gap = diagonal - off
        for j in range(1, d + 1):
            u = edge * t[0] + gap * t[j] + off * total
            sum_mapped[b, j] += u
            sum_squares[b, j] += square_weight[i] * u * u


def accumulate(z, residual, bins, pattern, sum_mapped, sum_squares, *, table=None, where=None, extra=None,
               extra_coef=0.0, square_weight=None, sum_terms=None):  # fmt: skip
    """Add a batch's terms, their images under ``pattern`` and the images' squares to per-stratum sums, in place.

    Parameters
    ----------
    z : ndarray of bool, shape (m, d)
        The masks.
    residual : ndarray, shape (m,)
        r_i, the factor of x_i = (1, z_i) in each term.
    bins : ndarray of int, shape (m,)
        Each mask's stratum.
    pattern : sequence of 4 floats
        (corner, edge, diagonal, off-diagonal) of the matrix applied to each term.
    sum_mapped, sum_squares : ndarray, shape (strata, d + 1)
        Sums of the images and of their squares (times ``square_weight``), updated in place.
    table, where : ndarray (U, d + 1) and ndarray of int (m,), optional
        Rows added to the terms: mask i gets ``table[where[i]]`` (the controls' exact moments at its s).
    extra, extra_coef : ndarray (strata, d + 1) and float, optional
        ``extra_coef * extra[bins[i]]`` is added to term i after ``sum_terms`` took it, before its image.
    square_weight : ndarray (m,), optional
        Weights of the squares (1 by default).
    sum_terms : ndarray (strata, d + 1), optional
        Sums of the terms themselves, updated in place.

    Examples
    --------
    >>> import numpy as np
    >>> z = np.array([[True, False], [True, True]])
    >>> mapped, squares = np.zeros((1, 3)), np.zeros((1, 3))
    >>> accumulate(z, np.array([1.0, 2.0]), np.array([0, 0]), (1.0, 0.0, 1.0, 0.0), mapped, squares)
    >>> mapped.tolist(), squares.tolist()  # the identity pattern: the terms x_i r_i themselves
    ([[3.0, 3.0, 2.0]], [[5.0, 5.0, 4.0]])
    """
    m, d = z.shape
    strata = sum_mapped.shape[0]
    for name, array in (("sum_mapped", sum_mapped), ("sum_squares", sum_squares), ("sum_terms", sum_terms)):
        # updated in place by the compiled loop, which checks no bounds: the shapes are checked here
        if array is not None and not (
            array.dtype == np.float64 and array.flags.c_contiguous and array.shape == (strata, d + 1)
        ):
            raise ValueError(f"{name} must be a C-contiguous float64 array of shape ({strata}, {d + 1})")
    if len(residual) != m or len(bins) != m or (m and not 0 <= int(np.min(bins)) <= int(np.max(bins)) < strata):
        raise ValueError(f"residual and bins must have one entry per mask, bins in 0..{strata - 1}")
    if table is None:
        table, where = np.zeros((1, d + 1)), np.zeros(m, dtype=np.int64)
    elif len(where) != m or (m and not 0 <= int(np.min(where)) <= int(np.max(where)) < len(table)):
        raise ValueError(f"where must have one entry per mask, in 0..{len(table) - 1}")
    if extra is None:
        extra, extra_coef = np.zeros((strata, d + 1)), 0.0
    elif np.shape(extra) != (strata, d + 1):
        raise ValueError(f"extra must have shape ({strata}, {d + 1})")
    _accumulate(
        np.ascontiguousarray(z, dtype=np.bool_),
        np.ascontiguousarray(residual, dtype=np.float64),
        np.ascontiguousarray(bins, dtype=np.int64),
        np.ascontiguousarray(table, dtype=np.float64),
        np.ascontiguousarray(where, dtype=np.int64),
        np.ascontiguousarray(extra, dtype=np.float64),
        float(extra_coef),
        np.asarray(pattern, dtype=np.float64),
        np.ones(m) if square_weight is None else np.ascontiguousarray(square_weight, dtype=np.float64),
        np.zeros((0, d + 1)) if sum_terms is None else sum_terms,
        sum_mapped,
        sum_squares,
    )


def bin_sums(bins, values, count):
    """Per-bin sums of the rows of ``values`` (``count`` bins); ``bins`` is sorted (masks are drawn bin after bin).

    Examples
    --------
    >>> bin_sums(np.array([0, 0, 2]), np.array([[1.0], [2.0], [5.0]]), 3).tolist()
    [[3.0], [0.0], [5.0]]
    """
    out = np.zeros((count, *values.shape[1:]))
    if len(bins):
        starts = np.flatnonzero(np.r_[True, bins[1:] != bins[:-1]])
        out[bins[starts]] = np.add.reduceat(values, starts, axis=0)
    return out


def unique_sizes(sizes):
    """``np.unique(sizes, return_inverse=True)`` (the inverse flat), without a sort when the sizes are sorted.

    The ``where`` of :func:`accumulate`. A batch draws its masks bin after bin, so with a stratum per s its sizes
    come sorted: the distinct values are where they change, and each mask's index among them is the count of
    changes before it.

    Examples
    --------
    >>> [a.tolist() for a in unique_sizes(np.array([2, 2, 3, 7, 7, 7]))]
    [[2, 3, 7], [0, 0, 1, 2, 2, 2]]
    >>> [a.tolist() for a in unique_sizes(np.array([3, 1, 3]))]  # not sorted: np.unique's sort
    [[1, 3], [1, 0, 1]]
    """
    sizes = np.asarray(sizes)
    if sizes.ndim != 1 or len(sizes) == 0 or (sizes[1:] < sizes[:-1]).any():
        unique, inverse = np.unique(sizes, return_inverse=True)
        return unique, inverse.ravel()
    change = sizes[1:] != sizes[:-1]
    inverse = np.zeros(len(sizes), dtype=np.intp)
    np.cumsum(change, out=inverse[1:])
    return sizes[np.r_[True, change]], inverse
