"""The API page's cross-references resolve: what the book's ``-W -n`` build would refuse, found in seconds.

The book is built with ``-W -n`` (``make book``): a docstring on the API page (book/api.md) whose ``:func:``,
``:mod:``, ``:meth:`` or ``:data:`` target is not itself documented there fails the whole build, minutes into
``make test`` (twice in November 2026: a link to a module the page does not list).  This test builds that one page
with Sphinx's own autodoc and Python domain (the book's settings for them, from _config.yml, and its link resolver
from booktools.bookext) and fails on the same warnings, naming each; the page's links to the rest of the book
(``{doc}``, ``{ref}`` outside it) are the full build's to check.  ``make test``, whose book build runs beside
pytest and fails on the same warnings, leaves this file out (the Makefile's ``BOOK_BESIDE``).  Sphinx runs in a
process of its own: it configures the ``logging`` module for the whole process, which other tests' log captures
would then read.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
#: the warnings that concern the docstrings: a Python object not documented, an autodoc import, an unknown role
DOCSTRING_WARNING = re.compile(
    r"py:\w+ reference target not found|autodoc|Unknown interpreted text role|more than one target found"
)
MYST_EXTENSIONS = ["amsmath", "dollarmath", "colon_fence", "deflist", "substitution"]


def docstring_warnings(source: Path, conf: str, python_path: str | None = None) -> list[str]:
    """Build ``source`` (its index.md) with ``conf`` as conf.py, nitpicky, in a new process: the docstring warnings."""
    pytest.importorskip("sphinx")
    pytest.importorskip("myst_parser")
    (source / "conf.py").write_text(conf)
    env = dict(os.environ)
    if python_path is not None:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [python_path, env.get("PYTHONPATH")]))
    command = [sys.executable, "-m", "sphinx", "-b", "dummy", "-n", "-E", "-q", str(source), str(source / "_build")]
    done = subprocess.run(command, capture_output=True, text=True, env=env, cwd=ROOT, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    return [line for line in done.stderr.splitlines() if DOCSTRING_WARNING.search(line)]


def test_every_docstring_reference_on_the_api_page_resolves(tmp_path):
    shutil.copy(ROOT / "book" / "api.md", tmp_path / "index.md")
    config = yaml.safe_load((ROOT / "_config.yml").read_text())["sphinx"]["config"]
    kept = {key: value for key, value in config.items() if key.startswith(("autodoc_", "napoleon_", "nitpick_"))}
    settings = "".join(f"{key} = {value!r}\n" for key, value in sorted(kept.items()))
    conf = (
        "from booktools import bookext\n\n"
        'extensions = ["myst_parser", "sphinx.ext.autodoc", "sphinx.ext.napoleon"]\n'
        f"myst_enable_extensions = {MYST_EXTENSIONS!r}\n{settings}\n\n"
        "def setup(app):\n"
        "    # the book's handlers: ``limetheory.explain`` names the function documented in its module; ``|x|`` is an\n"
        "    # absolute value, not a substitution\n"
        '    app.connect("missing-reference", bookext._resolve_package_names)\n'
        '    app.connect("autodoc-process-docstring", bookext._escape_absolute_values)\n'
    )
    found = docstring_warnings(tmp_path, conf)
    assert not found, "\n".join(found)


def test_the_check_sees_a_broken_reference(tmp_path):
    """The same build fails on a docstring that links to an undocumented function (the check can fail)."""
    (tmp_path / "broken_refs_module.py").write_text('"""Links to :func:`broken_refs_module.nowhere`."""\n')
    (tmp_path / "index.md").write_text("# Page\n\n```{eval-rst}\n.. automodule:: broken_refs_module\n```\n")
    conf = 'extensions = ["myst_parser", "sphinx.ext.autodoc"]\n'
    found = docstring_warnings(tmp_path, conf, python_path=str(tmp_path))
    assert any("broken_refs_module.nowhere" in line for line in found), found
