"""The chapters' kernels forked from a preloaded process (booktools/forked_kernel.py, make pytest's nbval kernel).

Each test starts a kernel through jupyter_client with the kernelspec ``limetheory-forked``, as nbval does, and asks
the kernel about itself: whether it is a fork of the zygote (its parent is not the launcher jupyter_client started,
and scikit-learn is loaded before any cell imported it), where it runs and with what environment, whether an
interrupt and a kill reach it, and whether the launcher becomes an ordinary kernel where no zygote can serve.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from booktools import forked_kernel

ROOT = Path(__file__).resolve().parents[1]
KERNEL = "limetheory-forked"
#: what a kernel reports about itself, as one JSON line
REPORT = (
    "import json, os, sys\n"
    "print(json.dumps(dict(pid=os.getpid(), ppid=os.getppid(), cwd=os.getcwd(), marker=os.environ.get('FORK_MARKER'),"
    " preloaded=all(m in sys.modules for m in ('sklearn.linear_model', 'numba')), argv0=os.path.basename(sys.argv[0]),"
    " backend=os.environ.get('MPLBACKEND'))))"
)


@pytest.fixture
def start_kernel(monkeypatch, tmp_path):
    """Starts kernels of the forked kernelspec in ``tmp_path`` (with FORK_MARKER set); shuts them all down after."""
    from jupyter_client.manager import KernelManager

    monkeypatch.setenv("JUPYTER_PATH", str(ROOT / "booktools"))
    monkeypatch.setenv("FORK_MARKER", "from-the-launcher")
    started = []

    def start(**env):
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        manager = KernelManager(kernel_name=KERNEL)
        manager.start_kernel(cwd=str(tmp_path))
        client = manager.client()
        client.start_channels()
        client.wait_for_ready(timeout=180)
        started.append((manager, client))
        return manager, client

    yield start
    for manager, client in started:
        client.stop_channels()
        if manager.is_alive():
            manager.shutdown_kernel(now=True)


def _run(client, code: str, timeout: float = 60) -> tuple[list[str], dict]:
    texts = []

    def keep(message):
        if message["header"]["msg_type"] == "stream":
            texts.append(message["content"]["text"])

    reply = client.execute_interactive(code, timeout=timeout, output_hook=keep)
    return "".join(texts).splitlines(), reply["content"]


def _report(client) -> dict:
    lines, reply = _run(client, REPORT)
    assert reply["status"] == "ok", reply
    return json.loads(lines[-1])


def _gone(pid: int, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.05)
    return False


def test_a_kernel_is_a_fork_that_runs_where_and_as_its_launcher_was_started(start_kernel, tmp_path):
    manager, client = start_kernel()
    report = _report(client)
    launcher = manager.provisioner.process.pid
    assert report["pid"] != launcher and report["ppid"] != launcher  # forked by the zygote, not the launcher
    assert report["preloaded"]  # scikit-learn's linear models and numba were loaded before any cell imported them
    assert Path(report["cwd"]) == tmp_path  # nbval runs a chapter in its folder
    assert report["marker"] == "from-the-launcher"  # the launcher's environment, not the zygote's
    assert report["argv0"] == "ipykernel_launcher.py"  # as `python -m ipykernel_launcher` leaves sys.argv
    assert report["backend"] == "module://matplotlib_inline.backend_inline"  # figures shown inline, as in ipykernel
    # a second kernel of the same worker comes from the same zygote
    _, other = start_kernel()
    assert _report(other)["ppid"] == report["ppid"]


def test_an_interrupt_reaches_the_forked_kernel(start_kernel):
    manager, client = start_kernel()
    message = client.execute("import time\ntime.sleep(60)")
    time.sleep(1.0)
    manager.interrupt_kernel()
    reply = client.get_shell_msg(timeout=30)
    while reply["parent_header"].get("msg_id") != message:  # kernel_info's reply, from wait_for_ready
        reply = client.get_shell_msg(timeout=30)
    assert reply["content"]["status"] == "error" and reply["content"]["ename"] == "KeyboardInterrupt"
    # the kernel is still there; ipykernel aborts what it receives just after an error (stop_on_error), so wait
    time.sleep(1.0)
    assert _report(client)["preloaded"]


def test_killing_the_launcher_takes_the_kernel_and_what_it_started(start_kernel):
    manager, client = start_kernel()
    lines, reply = _run(client, "import subprocess, sys\nchild = subprocess.Popen(['sleep', '600'])\nprint(child.pid)")
    assert reply["status"] == "ok", reply
    grandchild = int(lines[-1])
    kernel = _report(client)["pid"]
    manager.shutdown_kernel(now=True)  # what nbval does after a chapter: a SIGKILL to the launcher's group
    # tol: the kernel's watcher sees the launcher's socket close at once; 10 s covers a loaded machine
    assert _gone(kernel, 10.0), "the forked kernel outlived its launcher"
    assert _gone(grandchild, 10.0), "a process the kernel started outlived it"


def test_the_switch_makes_the_launcher_an_ordinary_kernel(start_kernel):
    manager, client = start_kernel(BOOKTOOLS_FORKED_KERNEL="0")
    report = _report(client)
    assert report["pid"] == manager.provisioner.process.pid  # the launcher exec'd ipykernel itself
    assert not report["preloaded"]
    assert report["marker"] == "from-the-launcher"


def test_the_zygote_leaves_when_the_worker_it_serves_is_gone(tmp_path):
    worker = subprocess.Popen(["sleep", "600"])
    path = str(tmp_path / "zygote.sock")
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1"}
    # the zygote's main with nothing to preload: its imports (about 4 CPU-s) are the other tests' subject (their
    # kernels come from the zygote `python -m booktools.forked_kernel --serve` starts), its lifetime is this one's
    serve = (
        "import sys\nfrom booktools import forked_kernel\nforked_kernel.PRELOAD = ()\nforked_kernel.main(sys.argv[1:])"
    )
    zygote = subprocess.Popen(
        [sys.executable, "-c", serve, "--serve", path, "--watch", str(worker.pid)], cwd=ROOT, env=env
    )
    try:
        deadline = time.monotonic() + 180
        while not os.path.exists(path) and time.monotonic() < deadline and zygote.poll() is None:
            time.sleep(0.05)
        assert os.path.exists(path), "the zygote never listened"
        worker.kill()
        worker.wait()
        # tol: the zygote looks for its worker once a second
        assert zygote.wait(timeout=30) == 0
        assert not os.path.exists(path)
    finally:
        worker.kill()
        zygote.kill()


@pytest.mark.parametrize("pid", [0, -3, True, 2.5, "12"])
def test_socket_path_names_the_bad_pid(pid):
    with pytest.raises(ValueError, match="watched_pid must be a positive process id"):
        forked_kernel.socket_path(pid)


def test_socket_path_is_per_worker_and_per_interpreter():
    assert forked_kernel.socket_path(11) != forked_kernel.socket_path(12)
    assert str(os.getuid()) in Path(forked_kernel.socket_path(11)).name
