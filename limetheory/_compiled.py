"""numba kernels compiled on their first call, cached where a cache can be written.

Importing numba costs about half a second, more than everything else ``import limetheory`` adds to scikit-learn
and lime; a loop decorated with :func:`compiled` imports numba and compiles it (or loads it from numba's cache)
the first time it is called, so that importing the package stays cheap (tests/test_import_cost.py).

``cache=True`` keeps the machine code beside the module (its ``__pycache__``) or, where that folder cannot be
written, in numba's user-wide cache (``NUMBA_CACHE_DIR``, else the user's cache folder, ``~/.cache/numba``).
Where neither can be written (a read-only install run by a user without a writable home), numba refuses to build
a cached function at all ("cannot cache function ...: no locator available"); the kernel is then compiled without
a cache, once per process, and a warning says how to keep the machine code (tests/test_read_only_install.py).

Processes that call a cached kernel for the first time at the same moment (the workers of ``explain_many``, a test
suite's) would each compile it, seconds of CPU apiece, before any of them has written the cache: before its first
call in a process, the kernel is compiled for the call's argument types under an exclusive lock on a file beside the
module's ``__pycache__`` (POSIX ``flock``; where there is none, or the folder cannot be written, no lock), so that one
process compiles and writes the cache and the others load it; the call itself runs outside the lock.
"""

from __future__ import annotations

import contextlib
import functools
import threading
import warnings
from pathlib import Path

#: the numba.njit options the package's kernels may use (checked at decoration, where numba is not yet imported)
_NJIT_OPTIONS = frozenset({"cache", "error_model", "nogil", "fastmath", "boundscheck", "parallel", "inline"})
#: the warning of a process whose kernels cannot be cached (once per process, at the first kernel that falls back)
NO_CACHE_WARNING = (
    "numba can write its cache neither beside limetheory nor in its user cache folder: limetheory's compiled loops "
    "are compiled again in every process (a few seconds on first use); set NUMBA_CACHE_DIR to a writable folder "
    "to keep them"
)

# two threads calling a kernel for the first time build one dispatcher
_BUILD_LOCK = threading.Lock()
# whether this process has warned that its kernels cannot be cached (under _BUILD_LOCK)
_warned = False


class CompiledKernel:
    """A Python function that numba compiles the first time it is called (``numba.njit(**options)``).

    ``py_func`` is the plain Python function (numba's attribute of the same name); calls go to numba's dispatcher.
    """

    def __init__(self, py_func, options):
        functools.update_wrapper(self, py_func)
        self.py_func = py_func
        self._options = dict(options)
        self._dispatcher = None

    def __call__(self, *args):
        dispatcher = self._dispatcher
        if dispatcher is None:
            dispatcher = self.dispatcher()
            if self._options.get("cache"):  # the first call compiles or loads: one process at a time
                with _first_call_lock(self.py_func):
                    _compile_for(dispatcher, args)
        return dispatcher(*args)

    def dispatcher(self):
        """numba's dispatcher of the function, built (numba imported) on the first call."""
        with _BUILD_LOCK:
            if self._dispatcher is None:
                self._dispatcher = _build(self.py_func, self._options)
        return self._dispatcher

    def __repr__(self):
        state = "not compiled yet" if self._dispatcher is None else "compiled"
        return f"<compiled kernel {self.__qualname__} ({state})>"


@contextlib.contextmanager
def _first_call_lock(py_func):
    """An exclusive lock, across processes, on ``py_func``'s first call (a no-op where no lock file can be made)."""
    try:
        import fcntl

        folder = Path(py_func.__code__.co_filename).parent / "__pycache__"
        folder.mkdir(exist_ok=True)
        handle = open(folder / f"{py_func.__module__}.{py_func.__qualname__}.lock", "a")  # noqa: SIM115
    except (ImportError, OSError):
        yield
        return
    with handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX)
        except OSError:  # a file system without locks: compile as before
            pass
        yield  # closing the file releases the lock, also when the call raises


def _compile_for(dispatcher, args):
    """Compile (or load from the cache) the dispatcher's specialisation for ``args``, without running it.

    The argument types are those the call would infer, so the lock covers the compilation only, not a long first
    computation. Whatever fails here is left to the call itself, which compiles the same way and raises numba's error.
    """
    try:
        dispatcher.compile(tuple(dispatcher.typeof_pyval(arg) for arg in args))
    except Exception:  # noqa: BLE001
        pass


def _build(py_func, options):
    """numba.njit(**options)(py_func), without the cache where numba finds no folder to write it (under the lock)."""
    global _warned
    import numba

    try:
        return numba.njit(**options)(py_func)
    except RuntimeError as error:
        # numba raises this when cache=True finds no folder it can write (its cache locators); nothing else in
        # building a dispatcher raises RuntimeError before the first compilation
        if not options.get("cache") or "cannot cache" not in str(error):
            raise
    if not _warned:
        _warned = True
        warnings.warn(NO_CACHE_WARNING, RuntimeWarning, stacklevel=4)
    return numba.njit(**{**options, "cache": False})(py_func)


def compiled(**options):
    """Decorator: the function compiled by ``numba.njit(**options)`` on its first call (:class:`CompiledKernel`).

    Parameters
    ----------
    **options
        numba.njit's options (``cache``, ``error_model``, ``nogil``, ...).  With ``cache=True`` and no folder numba
        can write its cache to, the kernel is compiled without a cache, with a :data:`NO_CACHE_WARNING`.

    Returns
    -------
    callable
        A decorator that turns a function into a :class:`CompiledKernel`.

    Examples
    --------
    >>> @compiled(cache=False)
    ... def total(values):
    ...     out = 0.0
    ...     for value in values:
    ...         out += value
    ...     return out
    >>> import numpy as np
    >>> total(np.array([1.0, 2.0, 3.5]))
    6.5
    """
    unknown = set(options) - _NJIT_OPTIONS
    if unknown:
        raise TypeError(f"options must be numba.njit's options {sorted(_NJIT_OPTIONS)}, got {sorted(unknown)}")

    def decorate(py_func):
        return CompiledKernel(py_func, options)

    return decorate
