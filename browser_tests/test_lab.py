"""Run one chapter in JupyterLab in headless Chromium, as a reader of `make lab` would.

Starts the venv's JupyterLab on 127.0.0.1 (a free port, a random token) with the settings `make lab` installs, opens
the chapter's MyST ``.md`` (which must open as a notebook, through jupytext), runs all cells from the browser, waits
until the kernel is idle and every code cell has its execution count, then fails on any error output or on a
summary cell (tagged ``nbval-check-output``) whose text differs from the one stored in the chapter's ``.ipynb``.
Saves a screenshot of the executed notebook to ``_build/screenshots/lab-<chapter>.png``.

The chapter is copied to a temporary folder that the server serves, so nothing JupyterLab saves (autosave, or
jupytext writing a paired ``.ipynb``) can touch the repository's files.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import nbformat
import pytest

from booktools.markers import SUMMARY_TAG

ROOT = Path(__file__).resolve().parents[1]
SCREENSHOTS = ROOT / "_build" / "screenshots"
# Debian's chromium and chromium-driver unless the Makefile (or CI) names others
CHROMIUM = os.environ.get("CHROME_BINARY", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver")
# `make lab` copies booktools/lab_settings.json here: without it JupyterLab opens a .md as text
LAB_SETTINGS = Path(sys.prefix) / "share" / "jupyter" / "lab" / "settings" / "overrides.d" / "limetheory.json"
# the quickest chapter to execute (the least kernel CPU time in book/chapter_costs.json); one chapter keeps
# `make test` short, and a short one still runs lime, sympy and matplotlib through the browser
CHAPTER = "17-expected-tfidf"
# a chapter measured at 15 s gets sixty times that before the check gives up (the machine may be shared)
RUN_TIMEOUT = 900
SERVER_START_TIMEOUT = 120

# the notebook panel showing `path`, its kind and its kernel; null while JupyterLab is still loading
PANEL_STATE = """
const path = arguments[0];
const app = window.jupyterapp;
if (!app || !app.shell) { return null; }
for (const widget of app.shell.widgets('main')) {
  if (widget.context && widget.context.path === path) {
    const session = widget.sessionContext;
    const kernel = session && session.session ? session.session.kernel : null;
    return {
      notebook: widget.node.classList.contains('jp-NotebookPanel'),
      ready: Boolean(session && session.isReady),
      kernel: kernel ? kernel.name : null,
      status: kernel ? kernel.status : null,
    };
  }
}
return null;
"""
# every code cell's source, execution count and outputs (as nbformat JSON), and the kernel's status
CELLS = """
const path = arguments[0];
const widget = Array.from(window.jupyterapp.shell.widgets('main')).find(w => w.context && w.context.path === path);
const cells = widget.content.model.cells;
const code = [];
for (let i = 0; i < cells.length; i++) {
  const cell = cells.get(i);
  if (cell.type === 'code') {
    code.push({index: i, source: cell.sharedModel.getSource(), count: cell.executionCount,
               outputs: cell.outputs.toJSON()});
  }
}
return {status: widget.sessionContext.session.kernel.status, cells: code};
"""
# what the wait polls for: the kernel's status, how many code cells have no execution count yet, and whether any
# output is an error (not the outputs themselves, which carry the figures: read once, with CELLS, at the end)
PROGRESS = """
const path = arguments[0];
const widget = Array.from(window.jupyterapp.shell.widgets('main')).find(w => w.context && w.context.path === path);
const cells = widget.content.model.cells;
let waiting = 0, errors = 0;
for (let i = 0; i < cells.length; i++) {
  const cell = cells.get(i);
  if (cell.type !== 'code') continue;
  if (cell.executionCount == null) waiting++;
  for (let j = 0; j < cell.outputs.length; j++) { if (cell.outputs.get(j).type === 'error') errors++; }
}
return {status: widget.sessionContext.session.kernel.status, waiting: waiting, errors: errors};
"""
SCROLL_TO_CELL = """
const [path, index, done] = arguments;
const widget = Array.from(window.jupyterapp.shell.widgets('main')).find(w => w.context && w.context.path === path);
const notebook = widget.content;
notebook.activeCellIndex = index;
Promise.resolve(notebook.scrollToItem(index, 'start')).then(() => done(true), error => done(String(error)));
"""


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _text(outputs: list[dict]) -> str:
    """The text a reader sees in a cell's outputs: streams and plain-text results, in order."""
    parts = []
    for output in outputs:
        if output["output_type"] == "stream":
            text = output["text"]
        elif output["output_type"] in ("execute_result", "display_data"):
            text = output.get("data", {}).get("text/plain", "")
        else:
            continue
        parts.append("".join(text) if isinstance(text, list) else text)
    return "".join(parts)


def _summary_position(stored_cells: list[dict]) -> int:
    """The position, among the code cells, of the summary cell (the one tagged for nbval)."""
    matches = [i for i, cell in enumerate(stored_cells) if SUMMARY_TAG in cell["tags"]]
    assert len(matches) == 1, f"expected one cell tagged {SUMMARY_TAG} in {CHAPTER}, found {len(matches)}"
    return matches[0]


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """A JupyterLab server on a copy of the chapter; yields (base URL, token, served file name)."""
    if not LAB_SETTINGS.is_file():
        pytest.fail(f"{LAB_SETTINGS} is missing: `make lab` (or `make browser`) installs booktools/lab_settings.json")
    work = tmp_path_factory.mktemp("lab")
    served = work / "served"
    served.mkdir()
    shutil.copy(ROOT / "notebooks" / f"{CHAPTER}.md", served)
    port, token = _free_port(), secrets.token_hex(16)
    # a private home for Jupyter's runtime files, config and user settings: the reader's own must not matter
    env = dict(
        os.environ,
        JUPYTER_CONFIG_DIR=str(work / "config"),
        JUPYTER_RUNTIME_DIR=str(work / "runtime"),
        OPENBLAS_NUM_THREADS=os.environ.get("OPENBLAS_NUM_THREADS", "1"),
        OMP_NUM_THREADS=os.environ.get("OMP_NUM_THREADS", "1"),
    )
    command = [
        sys.executable,
        "-m",
        "jupyterlab",
        "--no-browser",
        "--ServerApp.ip=127.0.0.1",
        f"--ServerApp.port={port}",
        "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={token}",
        f"--ServerApp.root_dir={served}",
        f"--LabApp.user_settings_dir={work / 'user-settings'}",
        f"--LabApp.workspaces_dir={work / 'workspaces'}",
        # makes window.jupyterapp available to the test's scripts
        "--LabApp.expose_app_in_browser=True",
    ]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        command.append("--allow-root")  # CI containers run as root, as `make lab` allows
    log_path = work / "server.log"
    with open(log_path, "w") as log:
        server = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + SERVER_START_TIMEOUT
        while True:
            if server.poll() is not None:
                pytest.fail(f"JupyterLab exited with code {server.returncode}:\n{log_path.read_text()}")
            try:
                with urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=5) as response:
                    if response.status == 200:
                        break
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"JupyterLab did not answer within {SERVER_START_TIMEOUT} s:\n{log_path.read_text()}")
            time.sleep(0.5)
        yield base, token, f"{CHAPTER}.md", log_path
    finally:
        # terminating the server shuts its kernels down too
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    for binary in (CHROMIUM, CHROMEDRIVER):
        if not Path(binary).exists():
            pytest.fail(f"{binary} is missing: `make browser` installs Debian's chromium and chromium-driver")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}",
        "--window-size=1400,1000",
    ):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_script_timeout(60)
    driver.set_page_load_timeout(120)
    yield driver
    driver.quit()


def _wait(description: str, timeout: float, probe, interval: float = 1.0):
    """Call ``probe`` until it returns something truthy; fail after ``timeout`` seconds, saying what was awaited."""
    deadline = time.monotonic() + timeout
    while True:
        value = probe()
        if value:
            return value
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {timeout:.0f} s waiting for {description}")
        time.sleep(interval)


def test_chapter_runs_in_jupyterlab(lab, browser):
    try:
        _run_chapter(lab, browser)
    finally:
        # the executed notebook on success; where it stood on failure
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        browser.save_screenshot(str(SCREENSHOTS / f"lab-{CHAPTER}.png"))


def _run_chapter(lab, browser):
    base, token, name, server_log = lab
    browser.get(f"{base}/lab/tree/{name}?token={token}")

    panel = _wait("JupyterLab to open the chapter", 180, lambda: browser.execute_script(PANEL_STATE, name))
    assert panel["notebook"], f"{name} opened as text, not as a notebook: jupytext's default viewer is not set"

    def kernel_idle():
        state = browser.execute_script(PANEL_STATE, name)
        return state if state and state["ready"] and state["status"] == "idle" else None

    panel = _wait("the chapter's kernel to start", 180, kernel_idle)
    # the chapters' jupytext header asks for `python3`: the server's own python, i.e. this environment
    assert panel["kernel"] == "python3"

    browser.execute_script("window.jupyterapp.commands.execute('notebook:run-all-cells');")

    def finished_or_failed():
        progress = browser.execute_script(PROGRESS, name)
        return progress if progress["errors"] or (progress["status"] == "idle" and not progress["waiting"]) else None

    _wait(f"every cell of {name} to run (server log: {server_log})", RUN_TIMEOUT, finished_or_failed, 2.0)
    cells = browser.execute_script(CELLS, name)["cells"]
    errors = [
        f"cell {cell['index']}: {out['ename']}: {out['evalue']}"
        for cell in cells
        for out in cell["outputs"]
        if out["output_type"] == "error"
    ]
    assert not errors, "error output in JupyterLab:\n" + "\n".join(errors)
    # a fresh kernel numbers the cells of one "run all" 1, 2, 3, ...
    assert [cell["count"] for cell in cells] == list(range(1, len(cells) + 1))

    stored = nbformat.read(ROOT / "notebooks" / f"{CHAPTER}.ipynb", as_version=4)
    stored_cells = [
        {"source": cell.source, "tags": cell.metadata.get("tags", []), "outputs": [dict(out) for out in cell.outputs]}
        for cell in stored.cells
        if cell.cell_type == "code"
    ]
    # JupyterLab opens the chapter's .md, whose code cells are the stored notebook's, in the same order
    assert len(cells) == len(stored_cells), f"JupyterLab shows {len(cells)} code cells, the .ipynb {len(stored_cells)}"
    position = _summary_position(stored_cells)
    live, expected = cells[position], stored_cells[position]
    assert _text(expected["outputs"]).strip(), "the stored summary cell has no text output"
    assert _text(live["outputs"]) == _text(expected["outputs"]), (
        "the summary printed in JupyterLab differs from the stored one:\n"
        + json.dumps({"jupyterlab": _text(live["outputs"]), "stored": _text(expected["outputs"])}, indent=1)
    )

    scrolled = browser.execute_async_script(SCROLL_TO_CELL, name, live["index"])
    assert scrolled is True, f"could not scroll to the summary cell: {scrolled}"
    time.sleep(1.0)  # let the scrolled cells paint
    rendered = browser.execute_script(
        "return document.querySelectorAll('.jp-NotebookPanel .jp-OutputArea-output').length;"
    )
    assert rendered > 0, "no rendered outputs in the notebook's page"
