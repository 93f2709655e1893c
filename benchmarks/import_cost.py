"""What ``import limetheory`` costs beyond ``import sklearn, lime`` (issue 36, item 6: at most 0.3 s more).

Each repetition runs two fresh interpreters one after the other (in alternating order), ``python -c "import
limetheory"`` and ``python -c "import sklearn, lime"``, and reads each one's CPU time (user + system, of the child
process, from ``resource.getrusage``): the machines these run on are shared, and CPU time moves less with the load
than wall time.
The script prints the median of each, and the median of the paired differences (the target: at most 0.3 s).  A
third reading times the same difference inside one interpreter (``import sklearn, lime``, then the CPU time of
``import limetheory``), without the noise of two interpreters' start-up and teardown, which at a load of 8 on two
cores moves a single reading by 0.3 s.

Bytecode: an installed package has its ``.pyc`` files, which an environment with ``PYTHONDONTWRITEBYTECODE=1``
never writes for an editable checkout (every module of the package is then compiled from source at each import,
about half a second here).  The script times what an installed package costs: it unsets
``PYTHONDONTWRITEBYTECODE`` and points ``PYTHONPYCACHEPREFIX`` at a temporary folder, warmed by one untimed import
of each.  ``--no-bytecode`` times the checkout as the environment leaves it instead.

The modules that ``import limetheory`` loads beyond the baseline, with their import times, come from ``python -X
importtime`` with ``--modules``.  Run with ``python benchmarks/import_cost.py [--repeats 15] [--modules]``.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "import limetheory"
BASELINE = "import sklearn, lime"


def _environment(prefix: str | None) -> dict[str, str]:
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    if prefix is not None:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = prefix
    return env


def child_cpu_seconds(code: str, env: dict[str, str]) -> float:
    """CPU seconds (user + system) of a fresh interpreter running ``code``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def increment_cpu_seconds(env: dict[str, str]) -> float:
    """CPU seconds of ``import limetheory`` in an interpreter that has imported scikit-learn and lime already."""
    code = (
        "import time\nimport sklearn, lime\nstart = time.process_time()\nimport limetheory\n"
        "print(time.process_time() - start)"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    return float(done.stdout.split()[-1])


def import_times(code: str, env: dict[str, str]) -> dict[str, float]:
    """Seconds of each module's own import (``-X importtime``'s self column) when running ``code``."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=True
    )
    times = {}
    for line in done.stderr.splitlines():
        parts = line.split("|")
        if line.startswith("import time:") and len(parts) == 3 and parts[0].split(":")[1].strip().isdigit():
            times[parts[2].strip()] = int(parts[0].split(":")[1]) / 1e6
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=15, help="paired repetitions (default 15)")
    parser.add_argument("--no-bytecode", action="store_true", help="time the checkout without .pyc files")
    parser.add_argument("--modules", action="store_true", help="list the modules loaded beyond the baseline")
    args = parser.parse_args()
    if args.repeats < 1:
        parser.error(f"--repeats must be at least 1, got {args.repeats}")
    with tempfile.TemporaryDirectory(prefix="limetheory-pyc-") as prefix:
        env = _environment(None if args.no_bytecode else prefix)
        for code in (PACKAGE, BASELINE):  # warm the bytecode cache and the file system's
            child_cpu_seconds(code, env)
        ours, theirs, increments = [], [], []
        for repeat in range(args.repeats):
            if repeat % 2:  # alternate which runs first: the second of a pair finds warmer caches
                theirs.append(child_cpu_seconds(BASELINE, env))
                ours.append(child_cpu_seconds(PACKAGE, env))
            else:
                ours.append(child_cpu_seconds(PACKAGE, env))
                theirs.append(child_cpu_seconds(BASELINE, env))
            increments.append(increment_cpu_seconds(env))
        differences = [a - b for a, b in zip(ours, theirs, strict=True)]
        print(f"bytecode: {'none (as the environment leaves it)' if args.no_bytecode else 'cached, as installed'}")
        print(f"{PACKAGE!r:28} median CPU {statistics.median(ours):.3f} s over {args.repeats} runs")
        print(f"{BASELINE!r:28} median CPU {statistics.median(theirs):.3f} s")
        print(f"paired difference: median {statistics.median(differences):+.3f} s (target: at most +0.300 s)")
        print(
            f"'import limetheory' after 'import sklearn, lime' in one interpreter: median CPU "
            f"{statistics.median(increments):.3f} s (the same difference without two start-ups' noise)"
        )
        if args.modules:
            extra = {}
            for _ in range(3):
                base = import_times(BASELINE, env)
                for name, seconds in import_times(PACKAGE, env).items():
                    if name not in base:
                        extra.setdefault(name, []).append(seconds)
            medians = {name: statistics.median(values) for name, values in extra.items()}
            print(f"{len(medians)} modules beyond the baseline, {sum(medians.values()):.3f} s of their own import:")
            groups: dict[str, float] = {}
            for name, seconds in medians.items():
                parts = name.split(".")
                group = ".".join(parts[:2]) if parts[0] in ("limetheory", "sklearn", "scipy") else parts[0]
                groups[group] = groups.get(group, 0.0) + seconds
            for group, seconds in sorted(groups.items(), key=lambda item: -item[1])[:20]:
                print(f"  {group:40} {seconds * 1e3:7.1f} ms")


if __name__ == "__main__":
    main()
