"""booktools.bytecode: the modules make test's processes import first get their bytecode written once, even where
PYTHONDONTWRITEBYTECODE is set (the Makefile's venv step runs it right after the install)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from booktools import bytecode
from booktools.forked_kernel import PRELOAD

ROOT = Path(__file__).resolve().parents[1]


def _run(code: str, folder: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "PYTHONPATH": os.pathsep.join([str(folder), str(ROOT)])}
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)


def test_warm_writes_bytecode_under_pythondontwritebytecode_and_skips_what_does_not_import(tmp_path):
    (tmp_path / "warmed_here.py").write_text("VALUE = 1\n")
    (tmp_path / "not_warmed.py").write_text("VALUE = 2\n")
    out = _run(
        "import sys\n"
        "from booktools.bytecode import warm\n"
        "print(warm(['warmed_here', 'no_such_module_anywhere']), sys.dont_write_bytecode)\n"
        "import not_warmed\n",
        tmp_path,
    )
    # the flag is restored after warm: a later import writes nothing, as the environment asks
    assert out.stdout.split() == ["['warmed_here']", "True"]
    written = sorted(path.name.split(".")[0] for path in (tmp_path / "__pycache__").glob("*.pyc"))
    assert written == ["warmed_here"]


def test_main_warms_the_kernels_preload_and_the_workers_first_imports_in_two_processes(monkeypatch):
    asked, started = [], []

    class Child:
        def __init__(self, argv):
            started.append(argv)

        def wait(self):
            started.append("waited")

    monkeypatch.setattr(bytecode, "warm", asked.append)
    monkeypatch.setattr(bytecode.subprocess, "Popen", Child)
    monkeypatch.delenv("MPLBACKEND", raising=False)
    bytecode.main([])
    assert started == [[sys.executable, "-m", "booktools.bytecode", "--second-half"], "waited"]
    bytecode.main(["--second-half"])
    assert asked == [bytecode.HALVES[0], bytecode.HALVES[1]]
    # every module once, between the two halves
    assert [*asked[0], *asked[1]] == [*PRELOAD, *bytecode.ALSO]
    assert {"pytest", "xdist", "nbval.plugin"} <= set(bytecode.ALSO)
    assert not set(PRELOAD) & set(bytecode.ALSO)
    # matplotlib reads its backend when imported: the one a kernel's zygote sets
    assert os.environ["MPLBACKEND"] == "module://matplotlib_inline.backend_inline"
    with pytest.raises(SystemExit, match="usage"):
        bytecode.main(["--third-half"])
