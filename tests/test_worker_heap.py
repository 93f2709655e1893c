"""glibc's heap kept while a chunk runs in a dask-style worker (limetheory.pipelines.corpora.worker_heap)."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from limetheory.pipelines.corpora import worker_heap
from limetheory.pipelines.corpora.worker_heap import reused_heap

# a child process with dask's setting: system time spent on 300 temporary 8 MB arrays, with and without the block.
# The module is loaded from its file (argv[1]), which imports nothing of the package: the child does not pay for
# ``import limetheory`` (scikit-learn with it, about 2.5 s of CPU) to time a loop that never uses it.
_CHILD = """
import importlib.util, os, sys
import numpy as np
spec = importlib.util.spec_from_file_location("worker_heap", sys.argv[1])
worker_heap = importlib.util.module_from_spec(spec)
spec.loader.exec_module(worker_heap)
reused_heap = worker_heap.reused_heap
def churn():
    start = os.times().system
    for _ in range(300):
        a = np.ones(1_000_000); a += 1.0; del a
    return os.times().system - start
plain = churn()
with reused_heap():
    kept = churn()
print(plain, kept)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's mallopt is Linux's")
def test_the_block_keeps_large_arrays_in_the_heap_under_dask_s_setting():
    """Under MALLOC_TRIM_THRESHOLD_=65536 each 8 MB array is mapped and faulted in again; in the block it is not.

    The system time of 300 arrays (2.4 GB of zero-filled pages without the block) is compared with itself in the
    same process: the block must cut it by more than half (measured at a load of 6: 0.46 s against 0.00 s for 250
    arrays, 1.59 s against 0.01 s for 1000; the ratio, not the size, is what the test reads, and 300 arrays keep the
    plain loop's time ten times the skip threshold).  A kernel that maps pages so cheaply that the plain loop spends
    under 0.05 s (five clock ticks) shows nothing to cut: skipped.
    """
    environment = dict(os.environ, MALLOC_TRIM_THRESHOLD_="65536")
    command = [sys.executable, "-c", _CHILD, worker_heap.__file__]
    output = subprocess.run(command, env=environment, capture_output=True, text=True, check=True)
    plain, kept = map(float, output.stdout.split())
    if plain < 0.05:
        pytest.skip(f"mapping 8 GB of pages took {plain:.2f} s of system time here: nothing to measure")
    assert kept < plain / 2, (plain, kept)


@pytest.mark.parametrize("setting", [None, "not a number"])
def test_nothing_changes_without_a_numeric_setting(monkeypatch, setting):
    if setting is None:
        monkeypatch.delenv("MALLOC_TRIM_THRESHOLD_", raising=False)
    else:
        monkeypatch.setenv("MALLOC_TRIM_THRESHOLD_", setting)
    with reused_heap():
        assert float(np.ones(10).sum()) == 10.0


def test_an_error_in_the_block_propagates_and_the_settings_come_back(monkeypatch):
    monkeypatch.setenv("MALLOC_TRIM_THRESHOLD_", "65536")
    with pytest.raises(KeyError), reused_heap():
        raise KeyError("inside")
    with reused_heap():  # usable again
        assert np.zeros(300_000).size == 300_000
