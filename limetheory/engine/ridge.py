r"""lime's surrogate: scikit-learn's weighted ridge regression, solved in the primal or the dual, whichever is smaller.

lime fits ``Ridge(alpha=1, fit_intercept=True)`` with sample weights.  scikit-learn centres the data with the
weighted means, rescales the rows by √weights (X and y below) and, with its default "cholesky" solver,
solves

* the primal :math:`(X^\top X + I)\, \mathrm{coef} = X^\top y`, a (d × d) system, when d <= n, and
* the dual :math:`(X X^\top + I)\, a = y`, :math:`\mathrm{coef} = X^\top a` (the Woodbury / kernel form), an
  (n × n) system, when d > n.

Both give the same coefficients (in exact arithmetic), so the cheaper one is always allowed: O(n d² + d³) or
O(n² d + n³).  The centred, rescaled matrix is never formed whole: it is built block by block from the 0/1
masks (blocks of rows for :math:`X^\top X`, of columns for :math:`X X^\top`), so the memory beyond the masks is
that of the min(n, d)-sized system plus one block.

Short documents: lime's n = 5000 masks of a document of d <= 6 words take at most 2ᵈ ≤ 64 distinct values.
Rows with the same mask are then merged first (their weights summed, their responses averaged with those
weights, both sums correctly rounded by ``math.fsum``): the weighted least-squares objective is the same
function of the coefficients, so the minimiser is the same, but the system is summed over at most 64 rows
instead of n.  At d = 2 this matters: lime's weights put almost all the mass on the two one-word masks, the
system's condition number is about 330, and the round-off of sums over 5000 rows (about 1e-12 in the
coefficients, for lime as for an unmerged solve) drops to a few 1e-15.
"""

from __future__ import annotations

import math

import numpy as np
import scipy.linalg
import scipy.linalg.blas
import scipy.linalg.lapack

__all__ = ["BLOCK_ENTRIES", "check_ridge_inputs", "index_blocks", "ridge_coefficients", "ridge_fit"]

#: float64 entries of one block of the centred design (4 Mi entries = 32 MiB)
BLOCK_ENTRIES = 1 << 22
#: designs of at most this many columns are merged into their distinct rows when that shortens them
#: (2**6 = 64 distinct 0/1 rows at most: a Python loop of at most 64 exact sums)
_MERGE_MAX_D = 6


def check_ridge_inputs(z, y, weights):
    """(z, y, weights) as arrays, checked as :func:`ridge_coefficients` documents (shapes, finiteness, weights)."""
    z = np.asarray(z)
    if z.ndim != 2 or z.shape[0] < 1 or z.shape[1] < 1:
        raise ValueError(f"z must be a non-empty 2-d array (n samples, d features), got shape {z.shape}")
    if not (np.issubdtype(z.dtype, np.number) or z.dtype == bool) or np.iscomplexobj(z):
        raise TypeError(f"z must hold real numbers (e.g. 0/1 masks), got dtype {z.dtype}")
    n = z.shape[0]
    y = np.asarray(y, dtype=float)
    weights = np.asarray(weights, dtype=float)
    if y.shape != (n,):
        raise ValueError(f"y must have shape ({n},) to match z, got {y.shape}")
    if weights.shape != (n,):
        raise ValueError(f"weights must have shape ({n},) to match z, got {weights.shape}")
    if not np.isfinite(y).all():
        raise ValueError("y must be finite (no NaN or inf)")
    if not (np.isfinite(weights).all() and (weights >= 0).all() and weights.sum() > 0):
        raise ValueError("weights must be finite, >= 0 and not all 0")
    if not np.isfinite(z).all():
        raise ValueError("z must be finite (no NaN or inf)")
    return z, y, weights


def _merge_equal_rows(z, y, weights):
    """Distinct rows of z, with the summed weights and the weighted mean response of each (or None).

    Returns None unless z has at most ``_MERGE_MAX_D`` columns and fewer distinct rows than half its rows.
    Rows with zero total weight are dropped (they do not enter the objective).  Each sum is correctly rounded
    (``math.fsum``), so a merged row carries one rounding where an unmerged sum carries up to n.
    """
    n, d = z.shape
    if d > _MERGE_MAX_D or n < 2 ** (d + 1):
        return None
    if (z.dtype == bool or np.issubdtype(z.dtype, np.integer)) and ((z == 0) | (z == 1)).all():
        # 0/1 rows read as binary numbers, column 0 the most significant bit: the same distinct rows in the same
        # (lexicographic) order as np.unique(z, axis=0), which sorts rows as byte strings and costs 10x more
        keys = (z.astype(np.int64) << np.arange(d - 1, -1, -1, dtype=np.int64)).sum(axis=1)
        _, first, group = np.unique(keys, return_index=True, return_inverse=True)
        distinct = z[first]
    else:
        distinct, group = np.unique(z, axis=0, return_inverse=True)
    if len(distinct) > n // 2:
        return None
    group = group.ravel()
    order = np.argsort(group, kind="stable")
    bounds = np.searchsorted(group[order], np.arange(len(distinct) + 1))
    weighted = weights * y  # one rounding per product; the sums below add none
    total = np.empty(len(distinct))
    mean = np.empty(len(distinct))
    for g in range(len(distinct)):
        members = order[bounds[g] : bounds[g + 1]]
        total[g] = math.fsum(weights[members])
        mean[g] = math.fsum(weighted[members]) / total[g] if total[g] > 0 else 0.0
    keep = total > 0
    return distinct[keep], mean[keep], total[keep]


def index_blocks(total, size):
    """Consecutive slices of at most ``size`` indices covering range(total): the blocks of rows or columns."""
    return [slice(start, min(start + size, total)) for start in range(0, total, size)]


def _solve_positive_definite(matrix, rhs):
    """Solve matrix x = rhs for a symmetric positive definite matrix (overwritten) by Cholesky, as sklearn does.

    LAPACK's dposv directly: scipy.linalg.solve(assume_a="pos") ends in the same factorisation, but its checks
    cost as much as the whole solve for the small systems of short documents.
    """
    # the matrix is in Fortran order with its upper triangle filled (see _add_gram): LAPACK factors it in place
    _, solution, info = scipy.linalg.lapack.dposv(matrix, rhs, lower=0, overwrite_a=1, overwrite_b=0)
    if info != 0:  # cannot happen for X^T X + I or X X^T + I unless the input overflowed
        raise np.linalg.LinAlgError(f"the ridge system is not positive definite (LAPACK dposv info = {info})")
    return solution


def _add_gram(target, block_transposed, trans):
    """Add B B^T (trans=0) or B^T B (trans=1) to the upper triangle of ``target``, in place, by BLAS syrk.

    ``target`` and B (``block_transposed``, the transpose of a C-ordered block) are in Fortran order, so nothing
    is copied; ``target += block.T @ block`` would allocate a full (size x size) temporary for every block, which
    at the largest sizes doubles the memory of the ridge system.
    """
    return scipy.linalg.blas.dsyrk(1.0, block_transposed, beta=1.0, c=target, trans=trans, lower=0, overwrite_c=1)


def _primal(z, root, z_mean, y_centred, alpha):
    """(X^T X + alpha I)^{-1} X^T y, with X^T X summed over blocks of rows (syrk); also returns trace(X^T X)."""
    n, d = z.shape
    gram = np.zeros((d, d), order="F")
    rhs = np.zeros(d)
    for rows in index_blocks(n, max(1, BLOCK_ENTRIES // d)):
        block = (z[rows] - z_mean) * root[rows, None]  # float64: z is promoted; C order, so block.T is Fortran
        gram = _add_gram(gram, block.T, trans=0)  # block^T block
        rhs += block.T @ y_centred[rows]
    trace = float(np.trace(gram))
    gram[np.diag_indices(d)] += alpha
    return _solve_positive_definite(gram, rhs), trace


def _dual(z, root, z_mean, y_centred, alpha):
    """X^T (X X^T + alpha I)^{-1} y, with X X^T summed over blocks of columns; also returns trace(X X^T)."""
    n, d = z.shape
    columns = index_blocks(d, max(1, BLOCK_ENTRIES // n))

    def block(cols):
        return (z[:, cols] - z_mean[cols]) * root[:, None]

    kernel = np.zeros((n, n), order="F")
    for cols in columns:
        part = block(cols)
        kernel = _add_gram(kernel, part.T, trans=1)  # part part^T, with part.T the Fortran-ordered argument
    trace = float(np.trace(kernel))
    kernel[np.diag_indices(n)] += alpha
    dual = _solve_positive_definite(kernel, y_centred)
    coef = np.empty(d)
    for cols in columns:
        coef[cols] = block(cols).T @ dual
    return coef, trace


def ridge_coefficients(z, y, weights, *, alpha=1.0, form="auto"):
    """lime's surrogate fit: ``sklearn Ridge(alpha=alpha, fit_intercept=True).fit(z, y, sample_weight=weights)``.

    Solves the (d × d) primal system when d <= n and the (n × n) dual (kernel) system when d > n, so the cost
    is O(n d min(n, d) + min(n, d)³) and the extra memory O(min(n, d)²) plus one block of the design; the
    masks are read in blocks and never converted to float64 as a whole.  A design of at most 6 columns with
    fewer distinct rows than half its rows is first merged into its distinct rows (see the module's notes):
    the same minimiser, with less round-off than scikit-learn's own solve.

    Parameters
    ----------
    z : array_like, shape (n, d)
        The design, e.g. lime's 0/1 masks (any real dtype; int8 masks are read block by block).
    y : array_like, shape (n,)
        The responses (finite).
    weights : array_like, shape (n,)
        Sample weights, finite, >= 0 and not all 0.
    alpha : float
        The ridge penalty, > 0 and finite: 1 for lime's surrogate (the default), 0.01 for the fit with
        which lime's ``'highest_weights'`` feature selection ranks the words.
    form : {"auto", "primal", "dual"}
        Which system to solve; "auto" picks the smaller one (primal when d <= n), as scikit-learn's
        cholesky solver does.  Both give the same coefficients up to round-off.

    Returns
    -------
    ndarray, shape (d + 1,)
        Index 0 the intercept, index 1 + j the coefficient of column j.

    Raises
    ------
    ValueError
        If the shapes disagree, a value is not finite, the weights are negative or all 0, ``alpha`` is not
        positive and finite, or ``form`` is not one of the three.
    TypeError
        If ``z`` does not hold real numbers.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import Ridge
    >>> from limetheory.engine.ridge import ridge_coefficients
    >>> rng = np.random.default_rng(0)
    >>> z = (rng.random((50, 8)) < 0.5).astype(np.int8)
    >>> y, w = rng.random(50), rng.random(50)
    >>> beta = ridge_coefficients(z, y, w)
    >>> fit = Ridge(alpha=1.0).fit(z.astype(float), y, sample_weight=w)
    >>> bool(np.allclose(beta, np.r_[fit.intercept_, fit.coef_], rtol=1e-12, atol=1e-14))
    True
    >>> bool(np.allclose(ridge_coefficients(z, y, w, form="dual"), beta, rtol=1e-12, atol=1e-14))
    True
    >>> fit = Ridge(alpha=0.01).fit(z.astype(float), y, sample_weight=w)
    >>> bool(np.allclose(ridge_coefficients(z, y, w, alpha=0.01), np.r_[fit.intercept_, fit.coef_], rtol=1e-10))
    True
    """
    return ridge_fit(z, y, weights, alpha=alpha, form=form)[0]


def ridge_fit(z, y, weights, *, alpha=1.0, form="auto"):
    r""":func:`ridge_coefficients` and the trace of the centred, weighted Gram matrix of the system it solved.

    The trace bounds the largest eigenvalue of :math:`X^\top X` (or :math:`X X^\top`), so
    (trace + alpha) / alpha bounds the condition number of the solved system: the feature selection uses it to
    bound the round-off of the coefficients.  Same arguments and errors as :func:`ridge_coefficients`.

    Returns
    -------
    beta : ndarray, shape (d + 1,)
    trace : float
    """
    if form not in ("auto", "primal", "dual"):
        raise ValueError(f"form must be 'auto', 'primal' or 'dual', got {form!r}")
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float, np.integer, np.floating)):
        raise TypeError(f"alpha must be a real number, got {type(alpha).__name__}")
    if not (np.isfinite(alpha) and alpha > 0):
        raise ValueError(f"alpha must be > 0 and finite, got {alpha!r}")
    alpha = float(alpha)
    z, y, weights = check_ridge_inputs(z, y, weights)
    n, d = z.shape
    merged = _merge_equal_rows(z, y, weights)
    if merged is not None:
        z, y, weights = merged
        n = len(z)
    total = weights.sum()
    z_mean = np.zeros(d)
    for rows in index_blocks(n, max(1, BLOCK_ENTRIES // d)):
        z_mean += weights[rows] @ z[rows].astype(float)
    z_mean /= total
    y_mean = (weights @ y) / total
    root = np.sqrt(weights)
    y_centred = (y - y_mean) * root
    use_primal = d <= n if form == "auto" else form == "primal"
    coef, trace = (_primal if use_primal else _dual)(z, root, z_mean, y_centred, alpha)
    return np.concatenate([[y_mean - z_mean @ coef], coef]), trace
