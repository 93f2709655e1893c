"""The API page's cross-references resolve: what the book's ``-W -n`` build would refuse, found in seconds.

The book is built with ``-W -n`` (``make book``): a docstring on the API page (book/api.md) whose ``:func:``,
``:mod:``, ``:meth:`` or ``:data:`` target is not itself documented there fails the whole build, minutes into
``make test`` (twice in November 2026: a link to a module the page does not list).  This test builds that one
page with Sphinx's own autodoc and Python domain (the book's settings for them, from _config.yml) and fails on the
same warnings, naming each; the page's links to the rest of the book (``{doc}``, ``{ref}`` outside it) are the full
build's to check.
"""

from __future__ import annotations

import io
import re
import shutil
from pathlib import Path

import pytest
import yaml

from booktools import bookext

ROOT = Path(__file__).resolve().parents[1]
#: the warnings that concern the docstrings: a Python object not documented, an autodoc import, an unknown role
DOCSTRING_WARNING = re.compile(
    r"py:\w+ reference target not found|autodoc|Unknown interpreted text role|more than one target found"
)


@pytest.fixture(scope="module")
def api_warnings(tmp_path_factory):
    sphinx_application = pytest.importorskip("sphinx.application")
    pytest.importorskip("myst_parser")
    source = tmp_path_factory.mktemp("api_page")
    shutil.copy(ROOT / "book" / "api.md", source / "index.md")
    config = yaml.safe_load((ROOT / "_config.yml").read_text())["sphinx"]["config"]
    keep = {key: value for key, value in config.items() if key.startswith(("autodoc_", "napoleon_", "nitpick_"))}
    overrides = dict(keep, extensions=["myst_parser", "sphinx.ext.autodoc", "sphinx.ext.napoleon"])
    overrides["myst_enable_extensions"] = ["amsmath", "dollarmath", "colon_fence", "deflist", "substitution"]
    (source / "conf.py").write_text("")
    stream = io.StringIO()
    app = sphinx_application.Sphinx(
        str(source), str(source), str(source / "_build"), str(source / "_doctrees"), "dummy",
        confoverrides=overrides, status=None, warning=stream, freshenv=True,
    )  # fmt: skip
    app.config.nitpicky = True  # the book's -n
    # the book's own handlers of docstrings and links (booktools.bookext): ``limetheory.explain`` names the function
    # documented in its module; ``|x|`` is an absolute value, not a substitution
    app.connect("missing-reference", bookext._resolve_package_names)
    app.connect("autodoc-process-docstring", bookext._escape_absolute_values)
    app.build()
    return [line for line in stream.getvalue().splitlines() if DOCSTRING_WARNING.search(line)]


def test_every_docstring_reference_on_the_api_page_resolves(api_warnings):
    assert not api_warnings, "\n".join(api_warnings)


def test_the_check_sees_a_broken_reference(tmp_path):
    """The same build fails on a docstring that links to an undocumented function (the check can fail)."""
    sphinx_application = pytest.importorskip("sphinx.application")
    pytest.importorskip("myst_parser")
    module = tmp_path / "broken_refs_module.py"
    module.write_text('"""A module whose docstring links to :func:`broken_refs_module.nowhere`."""\n')
    (tmp_path / "index.md").write_text("# Page\n\n```{eval-rst}\n.. automodule:: broken_refs_module\n```\n")
    (tmp_path / "conf.py").write_text(f"import sys\nsys.path.insert(0, {str(tmp_path)!r})\n")
    stream = io.StringIO()
    app = sphinx_application.Sphinx(
        str(tmp_path), str(tmp_path), str(tmp_path / "_build"), str(tmp_path / "_doctrees"), "dummy",
        confoverrides={"extensions": ["myst_parser", "sphinx.ext.autodoc"]}, status=None, warning=stream,
        freshenv=True,
    )  # fmt: skip
    app.config.nitpicky = True
    app.build()
    found = [line for line in stream.getvalue().splitlines() if DOCSTRING_WARNING.search(line)]
    assert any("broken_refs_module.nowhere" in line for line in found), stream.getvalue()
