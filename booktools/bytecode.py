"""The bytecode of the libraries that every process of ``make test`` imports, written once, before they start.

``make`` installs the venv without compiling its 13 400 modules (``uv pip install --compile-bytecode`` took 29 s of
both cores on every fresh clone, and ``make test`` imports about a quarter of them); Python writes a module's bytecode
when a process first imports it (the Makefile unexports ``PYTHONDONTWRITEBYTECODE``, which this machine sets). Right
after the install, ``python -m booktools.bytecode`` imports once what the chapters' kernels (``forked_kernel.PRELOAD``)
and the pytest workers import as they start: otherwise the two workers and their two kernel zygotes would all
compile numpy, scipy, scikit-learn, pandas, sympy and matplotlib at the same moment. It warms two halves
side by side, one in a child process, so that both cores work while apt installs Graphviz beside it. Bytecode is
written here even under ``PYTHONDONTWRITEBYTECODE``; a module that does not import is skipped (this only saves time).
"""

from __future__ import annotations

import importlib
import os
import subprocess
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


#: the two halves warmed side by side, one process each (two cores; they share numpy): the numerical stack and the
#: package, then pandas, sympy, matplotlib, the kernel's machinery and the workers' (33 and 38 MB of source)
HALVES = (PRELOAD[: PRELOAD.index("pandas")], (*PRELOAD[PRELOAD.index("pandas") :], *ALSO))


def main(argv: list[str] | None = None) -> None:
    """Warm both halves: the second in a child process (``--second-half``), the first here, then wait."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv not in ([], ["--second-half"]):
        raise SystemExit("usage: python -m booktools.bytecode [--second-half]")
    # as a kernel's zygote imports them (forked_kernel.serve): matplotlib reads its backend on import
    os.environ.setdefault("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    if argv:
        warm(HALVES[1])
        return
    second = subprocess.Popen([sys.executable, "-m", "booktools.bytecode", "--second-half"])
    try:
        warm(HALVES[0])
    finally:
        second.wait()


if __name__ == "__main__":
    main()
