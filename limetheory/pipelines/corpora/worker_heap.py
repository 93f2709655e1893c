"""glibc's heap kept for the duration of a chunk, in a worker that asked glibc to return freed memory at once.

dask's worker processes start with ``MALLOC_TRIM_THRESHOLD_=65536`` (distributed's ``pre-spawn-environ``), so that
freed memory goes back to the operating system.  Setting it also fixes glibc's mmap threshold at its 128 KiB
default, which otherwise grows with the program's allocations: every temporary array above 128 KiB (the estimate
route makes many, a batch of masks at a time) is then mapped, zero-filled by page faults and unmapped again.  On
the Yelp reviews the estimate spent 2.35 s in the kernel instead of 0.29 s for 60 reviews, and a two-worker
cluster was no faster than one process (``book/costs.md``).  :func:`reused_heap` raises both thresholds while a
chunk runs and puts back the worker's settings after it, trimming the heap then: the memory is returned to the
operating system once per chunk instead of once per array.  Nothing changes where the variable is not set or
where the C library is not glibc.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import os
import sys

#: glibc's mallopt parameters (malloc.h)
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3
#: glibc's mmap threshold when it is not dynamic (malloc.h's DEFAULT_MMAP_THRESHOLD_MIN)
_GLIBC_MMAP_THRESHOLD = 128 * 1024
#: while a chunk runs: arrays below this come from the heap, and the heap is trimmed only above this
_CHUNK_THRESHOLD = 256 * 1024 * 1024


def _glibc():
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        return libc if hasattr(libc, "mallopt") and hasattr(libc, "malloc_trim") else None
    except OSError:
        return None


@contextlib.contextmanager
def reused_heap():
    """Keep freed memory in glibc's heap while the block runs, where ``MALLOC_TRIM_THRESHOLD_`` asked otherwise.

    Examples
    --------
    >>> import numpy as np
    >>> with reused_heap():
    ...     total = sum(float(np.ones(100_000).sum()) for _ in range(3))
    >>> total
    300000.0
    """
    trim = os.environ.get("MALLOC_TRIM_THRESHOLD_")
    libc = _glibc() if trim is not None else None
    if libc is None or not trim.strip().isdigit():
        yield
        return
    libc.mallopt(_M_MMAP_THRESHOLD, _CHUNK_THRESHOLD)
    libc.mallopt(_M_TRIM_THRESHOLD, _CHUNK_THRESHOLD)
    try:
        yield
    finally:
        libc.mallopt(_M_TRIM_THRESHOLD, int(trim))
        libc.mallopt(_M_MMAP_THRESHOLD, _GLIBC_MMAP_THRESHOLD)
        libc.malloc_trim(0)
