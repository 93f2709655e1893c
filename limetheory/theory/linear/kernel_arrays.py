"""The array layouts the linear route's numba kernels are compiled for: one signature per kernel.

numba compiles a kernel once per tuple of argument types, and an array's type includes its layout, dtype and whether
it is read-only.  The Python functions of :mod:`limetheory.theory.linear.subset_means` and the compiled chain that
calls the same kernels (``_node_sums_kernel``) pass every array in one layout: C-contiguous float64 (or int64), and
read-only for the inputs a kernel only reads, so that a fresh clone compiles each kernel once (a second signature
costs its whole compilation again, 0.3-2.5 CPU-s per kernel).
"""

from __future__ import annotations

import numpy as np


def doubles(array):
    """A C-contiguous float64 array (a copy only where ``array`` is not one already).

    Examples
    --------
    >>> doubles([1, 2]).dtype, doubles([1, 2]).flags.c_contiguous
    (dtype('float64'), True)
    """
    return np.ascontiguousarray(array, dtype=np.float64)


def reading(array, dtype=np.float64):
    """A C-contiguous read-only view of ``array`` (converted to ``dtype`` first where it is not of that type).

    The caller's array keeps its own flag: only the view is read-only.

    Examples
    --------
    >>> a = np.zeros(3)
    >>> reading(a).flags.writeable, a.flags.writeable, reading([1, 2], np.int64).dtype
    (False, True, dtype('int64'))
    """
    dtype = np.dtype(dtype)
    if dtype not in (np.dtype(np.float64), np.dtype(np.int64)):
        raise ValueError(f"dtype must be float64 or int64 (the kernels' types), got {dtype}")
    if isinstance(array, np.ndarray) and array.dtype == dtype and array.flags.c_contiguous:
        if not array.flags.writeable:
            return array  # already such a view (a cached quadrature rule): nobody can write through it
    view = np.ascontiguousarray(array, dtype=dtype).view()
    view.flags.writeable = False
    return view
