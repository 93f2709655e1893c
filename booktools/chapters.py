"""The chapter loop: MyST sources (notebooks/*.md) and their executed .ipynb twins.

``regenerate`` executes a chapter from its .md and writes the .ipynb deterministically
(cell ids from positions, no timing metadata, no stale outputs: every output comes from
this execution).  ``input_drift`` lists where a .md and its .ipynb disagree in their inputs.
``sync_prose`` copies an edit of the prose (markdown cells, cell tags) into the .ipynb without executing anything:
it refuses when any code differs, since the outputs come from the code alone.

Every execution is measured (``measure``): wall-clock seconds, the kernel's CPU seconds and its peak resident
memory.  ``record_costs`` merges those measurements into a JSON file that the book renders as a table.

Command line: ``python -m booktools.chapters notebooks/01-tfidf.md [...]`` regenerates,
``python -m booktools.chapters --check notebooks/*.md`` reports drift, ``--prose`` syncs the prose only,
``--costs book/chapter_costs.json`` also records what each execution cost, and ``--measure-only`` executes
and records without writing any .ipynb.
"""

from __future__ import annotations

import json
import os
import platform
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path

# "<pandas.io.formats.style.Styler at 0x7f...>": the address changes from run to run
_MEMORY_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+>")

KERNEL = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}
#: the YAML front matter a chapter source starts with: jupytext's MyST pairing and the kernel
FRONT_MATTER = (
    "---\njupytext:\n  text_representation:\n    extension: .md\n    format_name: myst\nkernelspec:\n"
    f"  display_name: {KERNEL['display_name']}\n  language: {KERNEL['language']}\n  name: {KERNEL['name']}\n---\n"
)


def _markdown_path(path) -> Path:
    path = Path(path)
    if path.suffix != ".md":
        raise ValueError(f"expected a chapter source ending in .md, got {path}")
    if not path.is_file():
        raise ValueError(f"no chapter source at {path}")
    return path


def read_source(md_path):
    """The chapter's MyST source as an (unexecuted) nbformat notebook."""
    import jupytext

    return jupytext.read(_markdown_path(md_path), fmt="md:myst")


def _inputs(notebook):
    # the tags too: they decide what the book folds or removes, and the book renders the .ipynb
    return [(cell.cell_type, cell.source.strip(), tuple(cell.metadata.get("tags", ()))) for cell in notebook.cells]


def input_drift(md_path, ipynb_path=None):
    """Differences in inputs between a chapter's .md and its .ipynb, as readable strings.

    An empty list means the .ipynb was generated from this exact source.
    """
    import nbformat

    md_path = _markdown_path(md_path)
    ipynb_path = Path(ipynb_path) if ipynb_path else md_path.with_suffix(".ipynb")
    if not ipynb_path.is_file():
        return [f"{ipynb_path} is missing: run `make outputs`"]
    source = _inputs(read_source(md_path))
    executed = _inputs(nbformat.read(ipynb_path, as_version=4))
    problems = []
    if len(source) != len(executed):
        problems.append(f"{md_path.name}: {len(source)} cells in the .md, {len(executed)} in the .ipynb")
    for index, (left, right) in enumerate(zip(source, executed, strict=False)):
        if left != right:
            problems.append(f"{md_path.name}: cell {index} differs ({left[0]}: {left[1][:60]!r})")
    return problems


def normalise(notebook):
    """Strip what changes from run to run: timing metadata, kernel versions, object addresses in reprs.

    Cell ids are set from the cells' positions.
    """
    notebook.metadata = {"kernelspec": dict(KERNEL), "language_info": {"name": "python"}}
    for index, cell in enumerate(notebook.cells):
        cell.id = f"cell-{index:03d}"
        cell.metadata.pop("execution", None)
        if cell.cell_type == "code":
            for output in cell.outputs:
                output.get("metadata", {}).pop("execution", None)
                plain = output.get("data", {}).get("text/plain")
                if isinstance(plain, str):
                    output["data"]["text/plain"] = _MEMORY_ADDRESS.sub(">", plain)
    return notebook


@dataclass(frozen=True)
class Cost:
    """What one execution of a chapter cost.

    ``seconds`` is wall-clock time from starting the kernel to the end of the last cell; ``cpu_seconds`` is the
    kernel's user plus system CPU time (its waited-for children included); ``peak_rss_bytes`` is the kernel's peak
    resident memory (Linux's ``VmHWM``).  The last two are ``None`` where ``/proc`` does not exist.
    """

    seconds: float
    cpu_seconds: float | None
    peak_rss_bytes: int | None


def _proc_cost(pid):
    """(cpu seconds, peak RSS bytes) of a live process from Linux's /proc, or (None, None) elsewhere."""
    proc = Path("/proc") / str(pid)
    try:
        stat = (proc / "stat").read_text()
        status = (proc / "status").read_text()
    except OSError:
        return None, None
    # the command name (field 2) may hold spaces; the fields after its closing ")" start with the state
    fields = stat.rpartition(")")[2].split()
    ticks = sum(int(fields[k]) for k in (11, 12, 13, 14))  # utime, stime, cutime, cstime
    cpu = ticks / os.sysconf("SC_CLK_TCK")
    peak = re.search(r"^VmHWM:\s+(\d+)\s+kB", status, flags=re.MULTILINE)
    return cpu, (int(peak.group(1)) * 1024 if peak else None)


def measure(md_path, *, timeout=1800):
    """Execute the chapter ``md_path`` from scratch, without writing anything.

    Parameters
    ----------
    md_path : str or pathlib.Path
        A chapter source ``notebooks/NN-slug.md``.
    timeout : int, optional
        Seconds allowed for any one cell.

    Returns
    -------
    notebook : nbformat.NotebookNode
        The executed notebook, not yet normalised.
    cost : Cost
        Its wall-clock time, the kernel's CPU time and the kernel's peak resident memory.

    Examples
    --------
    >>> notebook, cost = measure("notebooks/05-alpha.md")  # doctest: +SKIP
    >>> cost.seconds > 0  # doctest: +SKIP
    True
    """
    from nbclient import NotebookClient

    md_path = _markdown_path(md_path)
    if not isinstance(timeout, int) or isinstance(timeout, bool) or timeout <= 0:
        raise ValueError(f"timeout must be a positive int of seconds, got {timeout!r}")
    notebook = read_source(md_path)
    notebook.metadata["kernelspec"] = dict(KERNEL)
    for cell in notebook.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    readings = []

    # read after every cell, while the kernel is alive: its CPU time and peak memory only grow,
    # so the reading after the last cell is the chapter's total
    def read_kernel(**_):
        readings.append(_proc_cost(client.km.provisioner.pid))

    client = NotebookClient(
        notebook,
        timeout=timeout,
        kernel_name=KERNEL["name"],
        resources={"metadata": {"path": str(md_path.parent.resolve())}},
        on_cell_executed=read_kernel,
    )
    start = time.perf_counter()
    # a fixed string hashing, so that nothing a chapter prints in a set's or a dict-of-sets' order changes between two
    # executions of the same source (chapter 27's formulas did)
    client.execute(env={**os.environ, "PYTHONHASHSEED": "0"})
    seconds = time.perf_counter() - start
    cpu, peak = readings[-1] if readings else (None, None)
    return notebook, Cost(seconds=seconds, cpu_seconds=cpu, peak_rss_bytes=peak)


def regenerate(md_path, *, timeout=1800, return_cost=False):
    """Execute the chapter ``md_path`` from scratch and write its .ipynb beside it.

    Parameters
    ----------
    md_path : str or pathlib.Path
        A chapter source ``notebooks/NN-slug.md``.
    timeout : int, optional
        Seconds allowed for any one cell.
    return_cost : bool, optional
        Also return the execution's :class:`Cost`.

    Returns
    -------
    pathlib.Path or (pathlib.Path, Cost)
        The .ipynb written (and what executing it cost, if asked).

    Examples
    --------
    >>> regenerate("notebooks/05-alpha.md")  # doctest: +SKIP
    PosixPath('notebooks/05-alpha.ipynb')
    """
    import nbformat

    if not isinstance(return_cost, bool):
        raise TypeError(f"return_cost must be True or False, got {return_cost!r}")
    notebook, cost = measure(md_path, timeout=timeout)
    target = Path(md_path).with_suffix(".ipynb")
    nbformat.write(normalise(notebook), target)
    return (target, cost) if return_cost else target


def sync_prose(md_path):
    """Copy the markdown cells and every cell's metadata of a chapter's .md into its .ipynb, keeping the outputs.

    A prose edit (a reworded paragraph, a cell folded by a tag) changes no output, so the chapter need not run
    again. The outputs are those of the last execution, which ran this exact code: the .md and the .ipynb must have
    the same cells, of the same types, with the same code, or nothing is written.

    Parameters
    ----------
    md_path : str or pathlib.Path
        A chapter source ``notebooks/NN-slug.md`` whose .ipynb exists.

    Returns
    -------
    pathlib.Path
        The .ipynb written.

    Raises
    ------
    ValueError
        If the .ipynb is missing, or the cells or the code differ (then run :func:`regenerate`).

    Examples
    --------
    >>> sync_prose("notebooks/05-alpha.md")  # doctest: +SKIP
    PosixPath('notebooks/05-alpha.ipynb')
    """
    import nbformat

    md_path = _markdown_path(md_path)
    target = md_path.with_suffix(".ipynb")
    if not target.is_file():
        raise ValueError(f"{target} is missing: regenerate the chapter (python -m booktools.chapters {md_path})")
    source = read_source(md_path)
    executed = nbformat.read(target, as_version=4)
    kinds = [cell.cell_type for cell in source.cells], [cell.cell_type for cell in executed.cells]
    if kinds[0] != kinds[1]:
        raise ValueError(f"{md_path.name}: the cells of the .md and the .ipynb differ; regenerate the chapter")
    for index, (new, old) in enumerate(zip(source.cells, executed.cells, strict=True)):
        if new.cell_type == "code" and new.source.strip() != old.source.strip():
            raise ValueError(f"{md_path.name}: the code of cell {index} changed; regenerate the chapter")
    for new, old in zip(source.cells, executed.cells, strict=True):
        old.metadata = new.metadata
        if new.cell_type != "code":
            old.source = new.source
    nbformat.write(normalise(executed), target)
    return target


def machine_description():
    """The machine the costs are measured on, as a dict of strings and numbers (CPU, cores, memory, system, Python).

    Examples
    --------
    >>> sorted(machine_description())
    ['cores', 'cpu', 'memory_gib', 'python', 'system']
    """
    cpu = platform.processor() or platform.machine()
    memory = None
    try:
        cpuinfo = Path("/proc/cpuinfo").read_text()
        names = re.findall(r"^model name\s*:\s*(.+)$", cpuinfo, flags=re.MULTILINE)
        cpu = names[0].strip() if names else cpu
        meminfo = re.search(r"^MemTotal:\s+(\d+)\s+kB", Path("/proc/meminfo").read_text(), flags=re.MULTILINE)
        memory = round(int(meminfo.group(1)) / 2**20, 1) if meminfo else None
    except OSError:
        pass
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "memory_gib": memory,
        "system": f"{platform.system()} {platform.machine()}",
        "python": platform.python_version(),
    }


def record_costs(costs_path, measured, machine=None):
    """Merge measured chapter costs into the JSON file ``costs_path`` and return its new content.

    The file holds the machine and, per chapter (by file stem), ``seconds``, ``cpu_seconds`` and ``peak_rss_mib``,
    rounded; keys are sorted so that only measured numbers change from one run to the next.  Chapters measured on
    another machine are dropped: a table must state one machine.

    Parameters
    ----------
    costs_path : str or pathlib.Path
        The JSON file (created if missing).
    measured : dict
        Chapter stem (``"05-alpha"``) to :class:`Cost`.
    machine : dict, optional
        The machine description; :func:`machine_description` by default.

    Returns
    -------
    dict
        What was written.

    Examples
    --------
    >>> import tempfile
    >>> path = Path(tempfile.mkdtemp()) / "costs.json"
    >>> content = record_costs(path, {"05-alpha": Cost(12.34, 11.0, 300 * 2**20)}, machine={"cpu": "x"})
    >>> content["chapters"]["05-alpha"]
    {'cpu_seconds': 11.0, 'peak_rss_mib': 300.0, 'seconds': 12.3}
    """
    if not isinstance(measured, dict) or not all(isinstance(cost, Cost) for cost in measured.values()):
        raise TypeError("measured must map chapter stems to Cost records")
    machine = machine_description() if machine is None else machine
    if not isinstance(machine, dict):
        raise TypeError(f"machine must be a dict, got {type(machine).__name__}")
    costs_path = Path(costs_path)
    previous = json.loads(costs_path.read_text()) if costs_path.is_file() else {}
    chapters = previous.get("chapters", {}) if previous.get("machine") == machine else {}
    for stem, cost in measured.items():
        chapters[stem] = {
            "seconds": round(cost.seconds, 1),
            "cpu_seconds": None if cost.cpu_seconds is None else round(cost.cpu_seconds, 1),
            "peak_rss_mib": None if cost.peak_rss_bytes is None else round(cost.peak_rss_bytes / 2**20, 1),
        }
    text = json.dumps({"machine": machine, "chapters": chapters}, indent=2, sort_keys=True) + "\n"
    costs_path.write_text(text)
    return json.loads(text)


USAGE = (
    "usage: python -m booktools.chapters [--check | --prose | --measure-only] [--costs FILE.json] "
    "notebooks/NN-slug.md ..."
)


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    check, prose, measure_only, costs_path, paths = False, False, False, None, []
    while argv:
        arg = argv.pop(0)
        if arg == "--check":
            check = True
        elif arg == "--prose":
            prose = True
        elif arg == "--measure-only":
            measure_only = True
        elif arg == "--costs" and argv:
            costs_path = argv.pop(0)
        elif arg.startswith("--"):
            print(f"unknown option {arg}\n{USAGE}", file=sys.stderr)
            return 2
        else:
            paths.append(arg)
    exclusive = (check or prose) and (measure_only or costs_path or (check and prose))
    if not paths or exclusive or (measure_only and not costs_path):
        print(USAGE, file=sys.stderr)
        return 2
    if prose:
        try:
            for path in paths:
                print(f"wrote {sync_prose(path)}")
        except ValueError as error:
            print(error, file=sys.stderr)
            return 1
        return 0
    if check:
        problems = [problem for path in paths for problem in input_drift(path)]
        print("\n".join(problems) or "no drift")
        return 1 if problems else 0
    from nbclient.exceptions import CellExecutionError

    failed = []
    for path in paths:
        print(f"executing {path} ...", flush=True)
        try:
            if measure_only:
                _, cost = measure(path)
            else:
                target, cost = regenerate(path, return_cost=True)
                print(f"wrote {target}")
        except CellExecutionError as error:
            # the other chapters still run; nothing is written for this one
            print(f"FAILED {path}:\n{error}", file=sys.stderr, flush=True)
            failed.append(path)
            continue
        peak = "?" if cost.peak_rss_bytes is None else f"{cost.peak_rss_bytes / 2**20:.0f} MiB"
        print(f"  {cost.seconds:.1f} s, kernel peak memory {peak}", flush=True)
        # recorded chapter by chapter, so an interrupted run keeps what it measured
        if costs_path:
            record_costs(costs_path, {Path(path).stem: cost})
    if failed:
        print("chapters that failed: " + " ".join(failed), file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
