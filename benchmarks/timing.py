"""The benchmarks' one way of timing: CPU time of this process, the median of repeated runs.

CPU time (``time.process_time``), not wall-clock time: the machines these run on are shared, and other jobs there
stretched wall-clock times by a factor of 2 between runs while leaving this process's CPU time alone.  lime and the
BLAS run single-threaded (``make`` sets ``OPENBLAS_NUM_THREADS=1``), so CPU time is the time of one core.  Every
script times real lime (the baseline) and the package in the same run, with these functions, and prints the ratio.
A script run as ``python benchmarks/<name>.py`` imports this module as ``timing`` (its folder is on ``sys.path``).
"""

from __future__ import annotations

import statistics
import time


def cpu_seconds(action):
    """(result, CPU seconds) of one call of ``action`` (no arguments)."""
    start = time.process_time()
    result = action()
    return result, time.process_time() - start


def median_cpu_seconds(action, repeats):
    """Median CPU seconds of ``repeats`` calls of ``action``."""
    if repeats < 1:
        raise ValueError(f"repeats must be at least 1, got {repeats}")
    return statistics.median(cpu_seconds(action)[1] for _ in range(repeats))


def median_cpu_and_wall(action, repeats):
    """(median CPU seconds, median wall-clock seconds, last result) of ``repeats`` calls of ``action``."""
    if repeats < 1:
        raise ValueError(f"repeats must be at least 1, got {repeats}")
    cpu, wall = [], []
    for _ in range(repeats):
        start_cpu, start_wall = time.process_time(), time.perf_counter()
        result = action()
        cpu.append(time.process_time() - start_cpu)
        wall.append(time.perf_counter() - start_wall)
    return statistics.median(cpu), statistics.median(wall), result


def ratio(baseline, ours):
    """lime's time over ours, as the scripts print it."""
    return baseline / ours if ours > 0 else float("inf")
