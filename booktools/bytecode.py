"""The bytecode of the libraries that every process of ``make test`` imports, written once, before they start.

``make`` installs the venv without compiling its 13 400 modules (``uv pip install --compile-bytecode`` took 29 s of
both cores on every fresh clone, and ``make test`` imports about a quarter of them); Python writes a module's bytecode
when a process first imports it (the Makefile unexports ``PYTHONDONTWRITEBYTECODE``, which this machine sets). Right
after the install, ``python -m booktools.bytecode`` imports once what the chapters' kernels (``forked_kernel.PRELOAD``)
and the pytest workers import as they start: otherwise the two workers, their two kernel zygotes and the book's build
would all compile numpy, scipy, scikit-learn, pandas, sympy and matplotlib at the same moment. Bytecode is written
here even under ``PYTHONDONTWRITEBYTECODE``; a module that does not import is skipped (this only saves time).
"""

from __future__ import annotations

import importlib
import os
import sys

from booktools.forked_kernel import PRELOAD

#: what both pytest workers import as they collect, besides ``PRELOAD``; the book's build (one process, beside pytest)
#: compiles its own imports, on a core that the setup's single warm-up would leave idle
ALSO = ("pytest", "xdist", "nbval.plugin", "hypothesis", "jupyter_client", "nbformat", "jupytext", "packaging", "yaml")


def warm(modules) -> list[str]:
    """Import each of ``modules`` with bytecode writing on; return those that imported (the others are skipped).

    Examples
    --------
    >>> warm(["json", "no_such_module_here"])
    ['json']
    """
    was = sys.dont_write_bytecode
    sys.dont_write_bytecode = False
    imported = []
    try:
        for name in modules:
            try:
                importlib.import_module(name)
            except Exception:  # noqa: BLE001 (a warm-up: whatever fails is reported by the process that needs it)
                continue
            imported.append(name)
    finally:
        sys.dont_write_bytecode = was
    return imported


def main() -> None:
    # as a kernel's zygote imports them (forked_kernel.serve): matplotlib reads its backend on import
    os.environ.setdefault("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    warm([*PRELOAD, *ALSO])


if __name__ == "__main__":
    main()
