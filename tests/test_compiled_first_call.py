"""limetheory._compiled: processes that call a cached kernel for the first time together compile it once.

Two fresh interpreters import the same module (a cached ``compiled`` kernel in a temporary folder) and call the
kernel at the same instant; numba's statistics of each say whether it compiled (a cache miss) or loaded the machine
code the other wrote (a hit). With the first-call lock, one compiles and the other loads; without it both compile.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from limetheory import _compiled

ROOT = Path(__file__).resolve().parents[1]

KERNEL = """
from limetheory._compiled import compiled


@compiled(cache=True)
def total(values):
    out = 0.0
    for value in values:
        out += value * value
    return out
"""

#: limetheory's __init__ skipped (an empty package module stands for it): the kernel needs only _compiled, and the
#: package's __init__ would cost each interpreter 2-3 CPU-s of scikit-learn and the pipelines, nothing of the race
CALL = """
import importlib.util, json, sys, time, types
spec = importlib.util.find_spec("limetheory")
package = types.ModuleType("limetheory")
package.__path__, package.__spec__ = list(spec.submodule_search_locations), spec
sys.modules["limetheory"] = package
import numpy as np
import numba  # imported before the start: only the compilation or the load races
import shared_kernel  # from the temporary folder, on PYTHONPATH
while time.time() < float(sys.argv[1]):
    time.sleep(0.001)
value = shared_kernel.total(np.arange(4.0))
stats = shared_kernel.total._dispatcher.stats
assert "sklearn" not in sys.modules  # the package's __init__ did not run
print(json.dumps([value, sum(stats.cache_hits.values()), sum(stats.cache_misses.values())]))
"""


def test_two_processes_calling_a_kernel_at_once_compile_it_once(tmp_path):
    (tmp_path / "shared_kernel.py").write_text(KERNEL)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)])}
    env.pop("NUMBA_CACHE_DIR", None)  # the cache beside the module, in tmp_path
    start = time.time() + 4.0  # both interpreters are up by then (a late one only finds the cache written)
    runs = [
        subprocess.Popen([sys.executable, "-c", CALL, repr(start)], env=env, stdout=subprocess.PIPE) for _ in range(2)
    ]
    results = sorted(json.loads(run.communicate(timeout=300)[0]) for run in runs)
    assert [run.returncode for run in runs] == [0, 0]
    assert results == [[14.0, 0, 1], [14.0, 1, 0]]  # one compiled (a miss), the other loaded it (a hit)
    assert list((tmp_path / "__pycache__").glob("shared_kernel.total.lock"))


def test_the_lock_is_skipped_where_no_lock_file_can_be_made(tmp_path):
    def kernel():
        return 1

    # a module path whose folder cannot hold a __pycache__ (a file stands where the folder would be)
    (tmp_path / "__pycache__").write_text("")
    kernel.__code__ = kernel.__code__.replace(co_filename=str(tmp_path / "module.py"))
    with _compiled._first_call_lock(kernel):
        entered = True
    assert entered
