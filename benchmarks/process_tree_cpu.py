"""The CPU time (user + system) of a command and of every process it starts, Chromium's renderers included.

``time`` (and ``resource.getrusage``) count only the children a process waited for: Chromium's renderers and its
zygote are not, so ``time make browser`` misses most of the browser suite's CPU; and a sampler of every process on
the machine counts the other jobs of a shared machine too. This script runs the command, reads ``/proc`` every
0.2 s, and keeps, for each process descended from it (by parent, at the time it is seen; once seen, a process stays
counted after it is re-parented), its last reading of ``utime + stime``. A process that exits between two readings
loses at most its last 0.2 s; one that starts and exits between two readings is missed (Chromium's are long-lived).

Printed (and written as JSON to ``--out``): the wall time, the total CPU, the CPU by kind (a Chromium process by its
``--type``, a Python one as pytest's worker, JupyterLab or a kernel, else its command name), and the load average
before and its mean during the run: CPU times under a load of 15 on the shared 2-core machine varied by about 10%
between runs of the same command, so compare means of several runs.

Run: ``python benchmarks/process_tree_cpu.py --out browser.json -- make browser`` (Linux only).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time

INTERVAL = 0.2


def _kind(pid: int, command: str) -> str:
    """A process's kind, from its command line (Chromium rewrites its own: the --type switch is still in it)."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            line = handle.read().replace(b"\0", b" ").decode("utf-8", "replace")
    except OSError:
        return command
    if command in ("chromium", "chrome"):
        found = re.search(r"--type=([a-z-]+)", line)
        return "chromium:" + (found.group(1) if found else "browser")
    if command.startswith("python"):
        for needle, name in (("ipykernel_launcher", "kernel"), ("jupyterlab", "jupyterlab"), ("exec(eval", "worker")):
            if needle in line:
                return "python:" + name
    return command


def _table() -> dict[int, tuple[int, str, float, str]]:
    """Every process now: pid -> (parent, command name, CPU seconds, start time in ticks)."""
    tick = os.sysconf("SC_CLK_TCK")
    table = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as handle:
                stat = handle.read()
        except OSError:
            continue
        close = stat.rfind(")")  # the command name may hold spaces and parentheses
        fields = stat[close + 2 :].split()
        table[int(entry)] = (
            int(fields[1]),
            stat[stat.find("(") + 1 : close],
            (int(fields[11]) + int(fields[12])) / tick,
            fields[19],
        )
    return table


def measure(command: list[str]) -> dict:
    """Run ``command`` and return its wall time, return code, CPU total and CPU by kind, and the load."""
    if not command:
        raise ValueError("command: give the command to run after --")
    load_before = os.getloadavg()[0]
    start = time.monotonic()
    process = subprocess.Popen(command)
    ours = {process.pid}
    readings: dict[tuple[int, str], float] = {}
    kinds: dict[tuple[int, str], tuple[str, str]] = {}  # (command name, kind) of each process
    loads = []
    while True:
        running = process.poll() is None
        table = _table()
        grew = True
        while grew:  # descendants, however deep, in one pass over the table per level
            grew = False
            for pid, (parent, *_rest) in table.items():
                if pid not in ours and parent in ours:
                    ours.add(pid)
                    grew = True
        for pid in ours & table.keys():
            _parent, name, cpu, started = table[pid]
            key = (pid, started)
            if kinds.get(key, ("", ""))[0] != name:  # first seen, or exec'd another program since
                kinds[key] = (name, _kind(pid, name))
            readings[key] = cpu
        loads.append(os.getloadavg()[0])
        if not running:
            break
        time.sleep(INTERVAL)
    by_kind: dict[str, float] = {}
    for key, cpu in readings.items():
        kind = kinds[key][1]
        by_kind[kind] = by_kind.get(kind, 0.0) + cpu
    return {
        "command": command,
        "returncode": process.returncode,
        "wall": round(time.monotonic() - start, 1),
        "cpu": round(sum(by_kind.values()), 1),
        "by_kind": {kind: round(cpu, 1) for kind, cpu in sorted(by_kind.items(), key=lambda item: -item[1])},
        "load_before": round(load_before, 2),
        "load_mean": round(sum(loads) / len(loads), 2),
    }


def main(argv: list[str] | None = None) -> int:
    """Parse the arguments, run and measure the command, print and save the result; return its return code."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", help="a JSON file for the result")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="the command, after --")
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    result = measure(command)
    print(json.dumps(result, indent=1))
    if args.out:
        with open(args.out, "w") as handle:
            json.dump(result, handle, indent=1)
    return result["returncode"]


if __name__ == "__main__":
    sys.exit(main())
