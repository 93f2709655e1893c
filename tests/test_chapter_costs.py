"""What a chapter's execution costs: the measurement behind `make outputs` / `make costs` and book/chapter_costs.json.

The kernel's own view of itself (its resident memory while it holds a large block, and ``time.process_time``,
printed by the chapter) is the independent computation the measurement from outside is checked against.  (Not
``ru_maxrss``: Linux carries it over from the process that started the kernel, across ``exec``.)
"""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest

from booktools import chapters

LINUX_PROC = Path("/proc/self/status").is_file()
BLOCK_MIB = 200
BUSY_SECONDS = 0.5

COSTLY_CHAPTER = (
    chapters.FRONT_MATTER
    + f"""
# Costly

```{{code-cell}} ipython3
import resource
import time

import numpy as np

block = np.ones({BLOCK_MIB} * 2**20 // 8)  # every page written, so resident
with open("/proc/self/statm") as statm:
    resident_with_block = int(statm.read().split()[1]) * resource.getpagesize()
del block
start = time.process_time()
while time.process_time() - start < {BUSY_SECONDS}:
    pass
```

```{{code-cell}} ipython3
print(resident_with_block, time.process_time())
```
"""
)

#: the same two cells with a 1 MiB block and no busy loop: the chapters whose cost no test reads against the kernel's
#: own (writing, recording and reporting them needs neither the memory nor the half second of CPU)
QUICK_CHAPTER = COSTLY_CHAPTER.replace(f"np.ones({BLOCK_MIB} *", "np.ones(1 *").replace(f"< {BUSY_SECONDS}:", "< 0:")
assert QUICK_CHAPTER.count("np.ones(1 *") == 1 and QUICK_CHAPTER.count("< 0:") == 1


@pytest.fixture(scope="module")
def measured(tmp_path_factory):
    source = tmp_path_factory.mktemp("costly") / "01-costly.md"
    source.write_text(COSTLY_CHAPTER)
    notebook, cost = chapters.measure(source, timeout=120)
    return source, notebook, cost


def _kernel_self_report(notebook):
    """(resident bytes while holding the block, CPU seconds) that the kernel printed about itself."""
    text = "".join(output.get("text", "") for output in notebook.cells[-1].outputs)
    resident, process_seconds = text.split()
    return int(resident), float(process_seconds)


def test_measure_writes_nothing(measured):
    source, _, _ = measured
    assert sorted(path.name for path in source.parent.iterdir()) == [source.name]


@pytest.mark.skipif(not LINUX_PROC, reason="peak memory and CPU time are read from Linux's /proc")
def test_peak_memory_is_the_kernels_own_high_water_mark(measured):
    _, notebook, cost = measured
    resident_with_block, _ = _kernel_self_report(notebook)
    assert resident_with_block >= BLOCK_MIB * 2**20
    # the block is the largest thing the kernel ever holds: its peak is the resident size with the block, plus at
    # most what printing and replying allocate afterwards (well under 32 MiB); Linux batches each thread's page
    # counts (64 faults at a time), so the two readings may also disagree by 64 pages per thread: 4 MiB covers 16
    counter_lag = 4 * 2**20
    assert resident_with_block - counter_lag <= cost.peak_rss_bytes <= resident_with_block + 32 * 2**20


@pytest.mark.skipif(not LINUX_PROC, reason="peak memory and CPU time are read from Linux's /proc")
def test_cpu_time_is_the_kernels_own(measured):
    _, notebook, cost = measured
    _, kernel_cpu = _kernel_self_report(notebook)
    assert kernel_cpu >= BUSY_SECONDS
    # read after the last cell: only the last reply's handling (milliseconds) is added; clock ticks are 1/100 s
    assert kernel_cpu - 0.02 <= cost.cpu_seconds <= kernel_cpu + 1.0
    assert cost.seconds >= BUSY_SECONDS


def test_regenerate_returns_the_cost_and_writes_the_notebook(tmp_path):
    source = tmp_path / "02-tiny.md"
    source.write_text(QUICK_CHAPTER)
    target, cost = chapters.regenerate(source, timeout=120, return_cost=True)
    assert target == source.with_suffix(".ipynb")
    notebook = nbformat.read(target, as_version=4)
    assert [cell.execution_count for cell in notebook.cells if cell.cell_type == "code"] == [1, 2]
    assert cost.seconds > 0


def test_record_costs_merges_rounds_and_is_deterministic(tmp_path):
    path = tmp_path / "costs.json"
    machine = {"cpu": "test CPU", "cores": 2}
    chapters.record_costs(path, {"02-b": chapters.Cost(12.34, 10.06, 300 * 2**20 + 2**19)}, machine=machine)
    first = path.read_text()
    content = chapters.record_costs(path, {"01-a": chapters.Cost(1.26, None, None)}, machine=machine)
    assert list(content["chapters"]) == ["01-a", "02-b"]
    assert content["chapters"]["02-b"] == {"seconds": 12.3, "cpu_seconds": 10.1, "peak_rss_mib": 300.5}
    assert content["chapters"]["01-a"] == {"seconds": 1.3, "cpu_seconds": None, "peak_rss_mib": None}
    assert json.loads(path.read_text()) == content
    # recording the same measurement again gives the same bytes
    chapters.record_costs(path, {"01-a": chapters.Cost(1.26, None, None)}, machine=machine)
    assert path.read_text() == json.dumps(content, indent=2, sort_keys=True) + "\n"
    assert first != path.read_text()


def test_record_costs_drops_chapters_measured_on_another_machine(tmp_path):
    path = tmp_path / "costs.json"
    chapters.record_costs(path, {"01-a": chapters.Cost(1.0, 1.0, 2**20)}, machine={"cpu": "old"})
    content = chapters.record_costs(path, {"02-b": chapters.Cost(2.0, 2.0, 2**20)}, machine={"cpu": "new"})
    assert list(content["chapters"]) == ["02-b"] and content["machine"] == {"cpu": "new"}


def test_record_costs_validates_its_arguments(tmp_path):
    with pytest.raises(TypeError, match="measured"):
        chapters.record_costs(tmp_path / "c.json", {"01-a": 1.0})
    with pytest.raises(TypeError, match="machine"):
        chapters.record_costs(tmp_path / "c.json", {}, machine="a laptop")
    with pytest.raises(ValueError, match="timeout"):
        chapters.measure(_existing_md(tmp_path), timeout=0)
    with pytest.raises(TypeError, match="return_cost"):
        chapters.regenerate(_existing_md(tmp_path), return_cost="yes")


def _existing_md(folder: Path) -> Path:
    path = folder / "03-empty.md"
    path.write_text("# Empty\n")
    return path


def test_machine_description_states_the_machine():
    machine = chapters.machine_description()
    assert machine["cores"] >= 1 and machine["cpu"] and machine["python"].count(".") == 2
    assert json.loads(json.dumps(machine)) == machine


@pytest.mark.parametrize(
    "argv",
    [[], ["--measure-only", "x.md"], ["--check", "--costs", "c.json", "x.md"], ["--bogus", "x.md"]],
    ids=["nothing", "measure-only-without-costs", "check-with-costs", "unknown-option"],
)
def test_command_line_refuses_inconsistent_options(argv, capsys):
    assert chapters.main(argv) == 2
    assert "usage" in capsys.readouterr().err


def test_measure_only_records_costs_and_writes_no_notebook(tmp_path, capsys):
    source = tmp_path / "04-quick.md"
    source.write_text(QUICK_CHAPTER)
    costs = tmp_path / "costs.json"
    assert chapters.main(["--measure-only", "--costs", str(costs), str(source)]) == 0
    assert not source.with_suffix(".ipynb").exists()
    content = json.loads(costs.read_text())
    assert list(content["chapters"]) == ["04-quick"] and content["machine"] == chapters.machine_description()
    assert "executing" in capsys.readouterr().out


def test_a_failing_chapter_is_reported_and_the_others_still_run(tmp_path, capsys):
    failing = tmp_path / "05-failing.md"
    failing.write_text(COSTLY_CHAPTER.split("# Costly")[0] + "# Failing\n\n```{code-cell} ipython3\n1 / 0\n```\n")
    passing = tmp_path / "06-passing.md"
    passing.write_text(QUICK_CHAPTER)
    costs = tmp_path / "costs.json"
    assert chapters.main(["--costs", str(costs), str(failing), str(passing)]) == 1
    assert not failing.with_suffix(".ipynb").exists() and passing.with_suffix(".ipynb").exists()
    assert list(json.loads(costs.read_text())["chapters"]) == ["06-passing"]
    assert "ZeroDivisionError" in capsys.readouterr().err
