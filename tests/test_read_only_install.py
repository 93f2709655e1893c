"""A read-only install works: the compiled loops load or compile where numba can write no cache (issue 36, item 7).

numba's ``cache=True`` writes the machine code beside the module (``__pycache__``) or, where that folder cannot be
written, in its user-wide cache (``NUMBA_CACHE_DIR``, else ``~/.cache/numba``); where neither can be written, numba
refuses to build the cached function ("cannot cache function ...: no locator available") — at import time for a
function decorated with ``numba.njit`` at module level.  The package's kernels are built on their first call by
:mod:`limetheory._compiled`, which then compiles them without a cache and warns once.

The test copies the package to a folder the test process cannot write, with ``HOME`` an empty folder it cannot
write either and ``NUMBA_CACHE_DIR`` unset, and calls a kernel there.  Root ignores file modes, so under root the
interpreter runs as the unprivileged user ``nobody`` (``setpriv``); as an ordinary user the copy's modes suffice.
"""

from __future__ import annotations

import json
import os
import pwd
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest

from limetheory._compiled import NO_CACHE_WARNING

ROOT = Path(__file__).resolve().parents[1]

#: two kernels called in the read-only copy, each checked against its definition: the means over the a-subsets A of
#: the words of prod_A x and of W(A) prod_A x (enumerated), and the hypergeometric weights C(e, k) C(n, b) / C(n + e,
#: b + k) (exact integers); prints what the test asserts as one JSON line
_CALL_A_KERNEL = """
import itertools, json, math, os, sys, warnings
import numpy as np
warnings.simplefilter("always")
with warnings.catch_warnings(record=True) as caught:
    from limetheory.theory.linear.subset_means import full_means, hypergeometric_weights
    x, w = np.array([[0.3, 0.9, 0.5, 0.7]]), np.array([1.0, -2.0, 0.5, 3.0])
    P, Pw = full_means(x, w)
    H = hypergeometric_weights(5, 3)
subsets = [list(itertools.combinations(range(4), a)) for a in range(5)]
P_ref = [float(np.mean([math.prod(x[0, list(A)]) for A in sets])) for sets in subsets]
Pw_ref = [float(np.mean([w[list(A)].sum() * math.prod(x[0, list(A)]) for A in sets])) for sets in subsets]
H_ref = [[math.comb(3, k) * math.comb(5, b) / math.comb(8, b + k) for b in range(6)] for k in range(4)]
import limetheory.theory.linear.subset_means as module
print(json.dumps(dict(
    file=module.__file__, package=getattr(sys.modules["limetheory"], "__file__", None), uid=os.geteuid(),
    P=P[0].tolist(), P_ref=P_ref, Pw=Pw[0].tolist(), Pw_ref=Pw_ref,
    H=H.tolist(), H_ref=H_ref,
    warnings=[str(warning.message) for warning in caught],
)))
"""

#: the package's __init__ replaced by an empty module, so that the theory's kernels are reached without the pipelines
_EMPTY_PACKAGE = """
import importlib.util, sys, types
spec = importlib.util.find_spec("limetheory")
package = types.ModuleType("limetheory")
package.__path__, package.__spec__ = list(spec.submodule_search_locations), spec
sys.modules["limetheory"] = package
"""


def _unprivileged_prefix() -> list[str] | None:
    """The command prefix that runs a process unable to write a folder of root's with mode 755 (None: none here)."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    try:
        pwd.getpwnam("nobody")
    except KeyError:
        return None
    if setpriv is None:
        return None
    return [setpriv, "--reuid=nobody", "--regid=nogroup", "--clear-groups"]


def _read_only_tree(folder: Path) -> None:
    """Every file and folder under ``folder`` readable by all, writable by none (for a user who is not root)."""
    for path in [folder, *folder.rglob("*")]:
        mode = stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH
        if path.is_dir():
            mode |= stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH
        path.chmod(mode)


@pytest.fixture(scope="module")
def read_only_install():
    """(command prefix, folder holding a read-only copy of the package, an empty read-only HOME)."""
    prefix = _unprivileged_prefix()
    if prefix is None:
        pytest.skip("running as root without setpriv or the user nobody: no process here respects a read-only mode")
    base = Path(tempfile.mkdtemp(prefix="limetheory-read-only-"))
    try:
        site, home = base / "site", base / "home"
        shutil.copytree(ROOT / "limetheory", site / "limetheory", ignore=shutil.ignore_patterns("__pycache__"))
        home.mkdir()
        _read_only_tree(site)
        _read_only_tree(home)
        base.chmod(0o755)  # mkdtemp's 700 would keep nobody out altogether
        yield prefix, site, home
    finally:
        for path in [base, *base.rglob("*")]:
            path.chmod(0o755 if path.is_dir() else 0o644)
        shutil.rmtree(base)


def _run_read_only(read_only_install, code: str) -> dict:
    prefix, site, home = read_only_install
    env = {key: value for key, value in os.environ.items() if not key.startswith(("NUMBA_", "XDG_", "PYTHON"))}
    env.update(HOME=str(home), PYTHONPATH=str(site), OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    done = subprocess.run(
        [*prefix, sys.executable, "-c", code], cwd=home, env=env, capture_output=True, text=True, timeout=900
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.splitlines()[-1])


def test_the_copy_cannot_be_written_by_the_test_process(read_only_install):
    """The premise: the process the tests start can write neither the package's folder nor HOME."""
    probe = (
        "import json, os, pathlib\n"
        "out = {}\n"
        "for name, folder in (('site', os.environ['PYTHONPATH'] + '/limetheory'), ('home', os.environ['HOME'])):\n"
        "    try:\n"
        "        (pathlib.Path(folder) / 'probe').write_text('x')\n"
        "        out[name] = 'written'\n"
        "    except OSError as error:\n"
        "        out[name] = type(error).__name__\n"
        "print(json.dumps(out))\n"
    )
    assert _run_read_only(read_only_install, probe) == {"site": "PermissionError", "home": "PermissionError"}


@pytest.fixture(scope="module")
def kernels_called_read_only(read_only_install) -> dict:
    """The report of ``import limetheory`` and two kernels' first calls in the read-only copy: one interpreter for
    both tests below (each start compiles the kernels afresh, without a cache: 3-5 s of CPU)."""
    return _run_read_only(read_only_install, "import limetheory\n" + _CALL_A_KERNEL)


def test_a_theory_kernel_compiles_without_a_writable_cache(read_only_install, kernels_called_read_only):
    _, site, _ = read_only_install
    out = kernels_called_read_only
    assert Path(out["file"]).is_relative_to(site)  # the copy ran, not the repository's package
    if os.geteuid() == 0:
        assert out["uid"] != 0
    # tol: each mean is at most 6 products of at most 4 factors, summed: a few roundings, far below 100 eps
    assert out["P"] == pytest.approx(out["P_ref"], rel=100 * sys.float_info.epsilon)
    # tol: the same sums times W(A) (at most 4 terms of size <= 3): a few more roundings of terms <= 6.5
    assert out["Pw"] == pytest.approx(out["Pw_ref"], rel=100 * sys.float_info.epsilon, abs=100 * sys.float_info.epsilon)
    # tol: the weights' logarithm sums have relative error about 2 e log(n + e) eps (their docstring), e = 3
    assert np.asarray(out["H"]) == pytest.approx(np.asarray(out["H_ref"]), rel=100 * sys.float_info.epsilon)
    # two kernels compiled without a cache, said once per process, with the way out
    assert [message for message in out["warnings"] if "NUMBA_CACHE_DIR" in message] == [NO_CACHE_WARNING]
    assert not list(site.rglob("*.nbi")), "numba wrote an index into the read-only copy"


def test_import_limetheory_and_a_kernel_work_read_only(read_only_install, kernels_called_read_only):
    _, site, _ = read_only_install
    out = kernels_called_read_only
    assert Path(out["package"]).is_relative_to(site)  # the whole package imported from the copy
    # tol: as in test_a_theory_kernel_compiles_without_a_writable_cache
    assert out["P"] == pytest.approx(out["P_ref"], rel=100 * sys.float_info.epsilon)


def test_the_kernel_uses_a_writable_numba_cache_dir_when_one_is_given(read_only_install):
    """With NUMBA_CACHE_DIR writable, numba's own fallback serves: no warning, and the index is written there."""
    prefix, site, home = read_only_install
    cache = Path(tempfile.mkdtemp(prefix="limetheory-numba-cache-"))
    try:
        cache.chmod(0o777)  # nobody writes here
        env = {key: value for key, value in os.environ.items() if not key.startswith(("NUMBA_", "XDG_", "PYTHON"))}
        env.update(HOME=str(home), PYTHONPATH=str(site), NUMBA_CACHE_DIR=str(cache), OPENBLAS_NUM_THREADS="1")
        code = _EMPTY_PACKAGE + _CALL_A_KERNEL
        done = subprocess.run(
            [*prefix, sys.executable, "-c", code], cwd=home, env=env, capture_output=True, text=True, timeout=900
        )
        assert done.returncode == 0, done.stderr[-3000:]
        out = json.loads(done.stdout.splitlines()[-1])
        assert out["warnings"] == []
        assert list(cache.rglob("*full_means_kernel*.nbi"))
    finally:
        shutil.rmtree(cache, ignore_errors=True)


def test_compiled_names_the_options_it_does_not_know():
    from limetheory._compiled import compiled

    with pytest.raises(TypeError, match=r"numba.njit's options .*got \['cach'\]"):
        compiled(cach=True)
