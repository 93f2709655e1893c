"""Chapter kernels forked from a process that has already imported the chapters' libraries (``make pytest``'s nbval).

Every chapter's kernel spends about 3 CPU-s before its first cell is done: the interpreter, ipykernel, and the
imports every chapter makes (numpy, scipy.stats, scikit-learn, lime, limetheory, numba, pandas, sympy,
matplotlib, myst_nb). Over 28 chapters that is about 85 CPU-s of ``make test``, on two cores. This module serves
nbval a kernel (the kernelspec ``booktools/kernels/limetheory-forked``) that skips that cost: the first kernel of a
pytest worker starts a *zygote*, a process that imports those modules once and waits on a Unix socket; each kernel
after that is a ``fork()`` of it, which then runs ipykernel exactly as ``python -m ipykernel_launcher -f
CONNECTION_FILE`` would, in the kernel's own working directory and environment.

The process jupyter_client starts (the *launcher*, this module's ``main``) stays alive as the kernel's stand-in: it
passes its standard streams to the forked kernel, forwards the signals jupyter_client sends (an interrupt, a
terminate) and exits when the kernel exits; the kernel exits, with every process it started, when the launcher is
killed. The zygote exits when the pytest worker that started it is gone.

Nothing here changes what a chapter computes: the chapter still runs every import statement (the modules are
already loaded, as in a kernel that ran them before), and the book's costs (``make costs``, ``booktools.chapters``)
are measured in ordinary kernels. Where anything fails (no zygote, a thread in the zygote, which a fork would lose,
a socket error), the launcher becomes an ordinary kernel instead (``os.execv`` of ``ipykernel_launcher``); so it does
when the environment sets ``BOOKTOOLS_FORKED_KERNEL=0``.

Run by jupyter_client as ``python -m booktools.forked_kernel -f CONNECTION_FILE``; the zygote is
``python -m booktools.forked_kernel --serve SOCKET --watch PID``.
"""

from __future__ import annotations

import atexit
import hashlib
import importlib
import json
import os
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

#: what the zygote imports, in this order: the chapters' own imports (notebooks/*.md) and the kernel's machinery.
#: matplotlib.pyplot is left out: it picks its backend from the kernel's IPython shell, which only the fork has
PRELOAD = (
    "numpy",
    "scipy",
    "scipy.sparse",
    "scipy.special",
    "scipy.stats",
    "scipy.integrate",
    "scipy.optimize",
    "sklearn",
    "sklearn.base",
    "sklearn.linear_model",
    "sklearn.feature_extraction.text",
    "sklearn.pipeline",
    "sklearn.ensemble",
    "sklearn.tree",
    "lime.lime_base",
    "lime.lime_text",
    "limetheory",
    "limetheory.theory",
    "limetheory.book",
    # the package's compiled loops import numba on their first call (about 0.4 CPU-s in each chapter that runs one);
    # its import starts no thread (with make's one BLAS thread), so the forks get it already loaded
    "numba",
    "pandas",
    "sympy",
    "mpmath",
    "matplotlib",
    "matplotlib.figure",
    "matplotlib.axes",
    "myst_nb",
    "IPython",
    "ipykernel.kernelapp",
    "ipykernel.ipkernel",
)
#: the signals jupyter_client may send the kernel (interrupt, terminate...), passed on from the launcher
FORWARDED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1, signal.SIGUSR2)
#: seconds a launcher waits for a zygote it started to listen before it becomes an ordinary kernel: the zygote's
#: imports take about 4 CPU-s (20 s at a load of 10), and nbval gives a kernel 60 s to answer
STARTUP_SECONDS = 40.0
_HEADER = struct.Struct("!Q")


def socket_path(watched_pid: int) -> str:
    """The zygote's socket for a pytest worker (``watched_pid``) and this interpreter (another venv, another zygote)."""
    if not isinstance(watched_pid, int) or isinstance(watched_pid, bool) or watched_pid <= 0:
        raise ValueError(f"watched_pid must be a positive process id, got {watched_pid!r}")
    tag = hashlib.sha256(os.path.realpath(sys.executable).encode()).hexdigest()[:12]
    return os.path.join(tempfile.gettempdir(), f"limetheory-zygote-{os.getuid()}-{watched_pid}-{tag}.sock")


def _send(conn: socket.socket, payload: dict, fds: list[int] | None = None) -> None:
    data = json.dumps(payload).encode()
    message = _HEADER.pack(len(data)) + data
    if fds:
        socket.send_fds(conn, [message], fds)
    else:
        conn.sendall(message)


def _receive(conn: socket.socket, max_fds: int = 0) -> tuple[dict, list[int]]:
    if max_fds:
        chunk, fds, _, _ = socket.recv_fds(conn, 1 << 16, max_fds)
    else:
        chunk, fds = conn.recv(1 << 16), []
    while len(chunk) < _HEADER.size or len(chunk) < _HEADER.size + _HEADER.unpack_from(chunk)[0]:
        more = conn.recv(1 << 16)
        if not more:
            raise ConnectionError("the other side closed the socket mid-message")
        chunk += more
    (size,) = _HEADER.unpack_from(chunk)
    return json.loads(chunk[_HEADER.size : _HEADER.size + size]), list(fds)


# ---------------------------------------------------------------------------------------------------- the zygote


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


#: native threads a fork may lose safely: jemalloc's purging thread (in pyarrow's libarrow, which scikit-learn's import
#: of pandas loads), which jemalloc's own fork handlers stop and restart
FORK_SAFE_THREADS = frozenset({"jemalloc_bg_thd"})


def _unsafe_threads() -> list[str]:
    """The threads besides this one that a fork would lose: Python's, and native ones not in ``FORK_SAFE_THREADS``."""
    names = [thread.name for thread in threading.enumerate() if thread is not threading.current_thread()]
    try:
        tasks = os.listdir("/proc/self/task")
    except OSError:
        return names
    for task in tasks:
        if int(task) == os.getpid():
            continue
        try:
            with open(f"/proc/self/task/{task}/comm") as comm:
                name = comm.read().strip()
        except OSError:
            continue
        if name not in FORK_SAFE_THREADS:
            names.append(name)
    return names


def serve(path: str, watched_pid: int) -> None:
    """Import ``PRELOAD``, then fork a kernel for each launcher that connects to ``path``, until ``watched_pid`` is
    gone. Refuses to serve (exits) if an import left a thread running: a forked kernel would lack it."""
    # what ipykernel sets before a kernel imports matplotlib (IPKernelApp.init_gui_pylab): matplotlib reads it on import
    os.environ.setdefault("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    start_path0 = sys.path[0] if sys.path else None
    for name in PRELOAD:
        try:
            importlib.import_module(name)
        except ImportError:
            pass
    if _unsafe_threads():
        return
    zygote = os.getpid()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
    listener.bind(path)
    listener.listen(8)
    listener.settimeout(1.0)
    previous_chld = signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # the kernels are reaped by the system
    try:
        while _alive(watched_pid):
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            conn.settimeout(None)
            try:
                request, fds = _receive(conn, max_fds=3)
            except (OSError, ValueError):
                conn.close()
                continue
            pid = os.fork()
            if pid == 0:
                signal.signal(signal.SIGCHLD, previous_chld)
                listener.close()
                _run_kernel(conn, request, fds, start_path0)  # never returns
            conn.close()
            for fd in fds:
                os.close(fd)
    finally:
        if os.getpid() == zygote:
            listener.close()
            for leftover in (path, path + ".lock"):  # the worker is gone: no launcher can want either
                try:
                    os.unlink(leftover)
                except FileNotFoundError:
                    pass


def _run_kernel(conn: socket.socket, request: dict, fds: list[int], start_path0: str | None) -> None:
    """In the fork: become the launcher's kernel (its streams, directory, environment, arguments), run ipykernel,
    exit. Never returns."""
    code = 1
    try:
        os.setsid()  # its own process group: killed with whatever it starts when the launcher goes
        for target, fd in enumerate(fds[:3]):
            os.dup2(fd, target)
            os.close(fd)
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        # as `python -m ipykernel_launcher` leaves them: the launcher's path first, then removed by the launcher
        if sys.path and sys.path[0] == start_path0:
            del sys.path[0]
        import ipykernel_launcher

        sys.argv = [ipykernel_launcher.__file__, *request["argv"]]
        _send(conn, {"pid": os.getpid()})

        def watch():  # the launcher's end closes when jupyter_client kills it: take the kernel's group down too
            try:
                while conn.recv(1):
                    pass
            except OSError:
                pass
            os.killpg(0, signal.SIGKILL)

        threading.Thread(target=watch, name="launcher-watch", daemon=True).start()
        from ipykernel import kernelapp

        try:
            kernelapp.launch_new_instance()
            code = 0
        except SystemExit as stop:
            code = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
        atexit._run_exitfuncs()
    except BaseException:  # an error before the kernel ran: the launcher sees the socket close, and exits with 1
        import traceback

        traceback.print_exc()
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
            conn.sendall(bytes([code & 0xFF]))
        except (OSError, ValueError):
            pass
        os._exit(code)


# ---------------------------------------------------------------------------------------------------- the launcher


def _connect(path: str) -> socket.socket | None:
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        conn.connect(path)
    except OSError:
        conn.close()
        return None
    return conn


def _zygote(watched_pid: int) -> socket.socket | None:
    """A connection to the worker's zygote, started here if none is listening (one at a time: a lock file)."""
    import fcntl

    path = socket_path(watched_pid)
    conn = _connect(path)
    if conn is not None:
        return conn
    with open(path + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        conn = _connect(path)
        if conn is not None:
            return conn
        zygote = subprocess.Popen(
            [sys.executable, "-m", "booktools.forked_kernel", "--serve", path, "--watch", str(watched_pid)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            cwd="/",
        )
        deadline = time.monotonic() + STARTUP_SECONDS
        while time.monotonic() < deadline and zygote.poll() is None:
            conn = _connect(path)
            if conn is not None:
                return conn
            time.sleep(0.05)
    return None


def _ordinary_kernel(argv: list[str]) -> None:
    os.execv(sys.executable, [sys.executable, "-m", "ipykernel_launcher", *argv])


def main(argv: list[str] | None = None) -> None:
    """The launcher (``-f CONNECTION_FILE``: a kernel forked from the zygote) or the zygote (``--serve``)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["--serve"]:
        if len(argv) != 4 or argv[2] != "--watch":
            raise SystemExit("usage: python -m booktools.forked_kernel --serve SOCKET --watch PID")
        serve(argv[1], int(argv[3]))
        return
    if os.environ.get("BOOKTOOLS_FORKED_KERNEL") == "0":
        _ordinary_kernel(argv)
    watched = int(os.environ.get("JPY_PARENT_PID") or os.getppid())
    try:
        conn = _zygote(watched)
    except OSError:
        conn = None
    if conn is None:
        _ordinary_kernel(argv)
    try:
        _send(conn, {"argv": argv, "cwd": os.getcwd(), "env": dict(os.environ)}, fds=[0, 1, 2])
        reply, _ = _receive(conn)
    except (OSError, ValueError):
        conn.close()
        _ordinary_kernel(argv)
    kernel = reply["pid"]

    def forward(signum, _frame):  # to the kernel's process group, as jupyter_client signals an ordinary kernel's
        try:
            os.killpg(kernel, signum)
        except ProcessLookupError:
            pass
        except PermissionError:
            os.kill(kernel, signum)

    for signum in FORWARDED:
        signal.signal(signum, forward)
    status = b""
    while True:
        try:
            chunk = conn.recv(1)
        except InterruptedError:
            continue
        if not chunk:
            break
        status = chunk
    raise SystemExit(status[0] if status else 1)


if __name__ == "__main__":
    main()
