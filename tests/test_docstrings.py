"""One docstring style for the public API: numpydoc, with the sections a reader looks for.

Every function of ``limetheory.__all__`` has a one-line summary, a ``Parameters`` section that documents each
of its parameters (by name, in ``name : type`` lines), a ``Returns`` section and an ``Examples`` section with at
least one doctest (``>>>``); every class has ``Parameters`` or ``Attributes`` and ``Examples``.  The doctests
themselves run in tests/test_doctests.py; ruff's pydocstyle rules (``D``, numpy convention, pyproject.toml)
check the layout of every docstring of the package.

numpydoc itself is not a dependency, so its sections are parsed here: a section starts at a line holding its
name followed by a line of dashes of the same length (numpydoc's own rule).
"""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pytest

import limetheory as lt
import limetheory.book as book

SECTION = re.compile(r"^(?P<name>[A-Z][A-Za-z ]+)\n(?P<rule>-+)\n", re.MULTILINE)
PARAMETER_LINE = re.compile(r"^(?P<names>\*{0,2}[A-Za-z_][\w, *]*?)(?: : .*)?$")


def sections(doc: str) -> dict[str, str]:
    """The numpydoc sections of a docstring: name -> body (up to the next section)."""
    found = [match for match in SECTION.finditer(doc) if len(match["rule"]) == len(match["name"])]
    bodies = {}
    ends = [match.start() for match in found[1:]] + [len(doc)] * bool(found)
    for match, end in zip(found, ends, strict=True):
        bodies[match["name"]] = doc[match.end() : end]
    return bodies


def documented_parameters(body: str) -> set[str]:
    """The names of a Parameters section: unindented lines ``name : type`` or ``name1, name2``."""
    names = set()
    for line in body.splitlines():
        if not line or line[0].isspace():
            continue
        match = PARAMETER_LINE.match(line)
        if match:
            names.update(name.strip().lstrip("*") for name in match["names"].split(","))
    return names


def problems(obj) -> list[str]:
    """What the docstring of ``obj`` lacks (empty when it is complete)."""
    doc = inspect.getdoc(obj)
    if not doc:
        return ["no docstring"]
    found = []
    summary = doc.split("\n\n", 1)[0]
    if "\n" in summary:
        found.append("the summary is not one line")
    parts = sections(doc)
    examples = parts.get("Examples", "")
    if ">>>" not in examples:
        found.append("no Examples section with a doctest")
    if inspect.isclass(obj):
        if "Parameters" not in parts and "Attributes" not in parts:
            found.append("no Parameters or Attributes section")
        return found
    if "Returns" not in parts and "Yields" not in parts:
        found.append("no Returns section")
    wanted = list(inspect.signature(obj).parameters)  # *args and **kwargs too, documented as ``*args``
    if wanted:
        if "Parameters" not in parts:
            found.append("no Parameters section")
        else:
            missing = [name for name in wanted if name not in documented_parameters(parts["Parameters"])]
            if missing:
                found.append(f"parameters not documented: {missing}")
    return found


NAMESPACES = {"limetheory": lt, "limetheory.book": book}


def _public_objects():
    """``namespace.name`` of every callable of the user's namespace and of the book's."""
    return [
        f"{prefix}.{name}"
        for prefix, namespace in NAMESPACES.items()
        for name in namespace.__all__
        if callable(getattr(namespace, name))
    ]


def _object(dotted):
    prefix, _, name = dotted.rpartition(".")
    return getattr(NAMESPACES[prefix], name)


@pytest.mark.parametrize("name", _public_objects())
def test_public_docstring_is_numpydoc(name):
    assert problems(_object(name)) == []


def test_every_public_name_is_checked():
    """Constants are the only public names without a docstring of their own."""
    every = {f"{prefix}.{name}" for prefix, namespace in NAMESPACES.items() for name in namespace.__all__}
    unchecked = sorted(every - set(_public_objects()))
    assert all(not callable(_object(name)) for name in unchecked), unchecked
    assert "limetheory.book.significant" in _public_objects() and "limetheory.explain" in _public_objects()


# ----------------------------------------------------------------------------- the checker itself


def _complete(x, *, nu=1.0):
    """Add.

    Parameters
    ----------
    x : float
        A number.
    nu : float
        Another.

    Returns
    -------
    float

    Examples
    --------
    >>> _complete(1.0)
    2.0
    """
    return x + nu


def _prose(x, nu):
    """Add ``x`` and ``nu``, described in prose: no sections.

    >>> _prose(1, 2)
    3
    """
    return x + nu


def _partial(x, nu):
    """Add.

    Parameters
    ----------
    x : float
        A number.

    Returns
    -------
    float
    """
    return x + nu


def test_the_checker_accepts_a_complete_docstring():
    assert problems(_complete) == []


def test_the_checker_finds_what_is_missing():
    assert problems(_prose) == [
        "no Examples section with a doctest",
        "no Returns section",
        "no Parameters section",
    ]
    assert problems(_partial) == ["no Examples section with a doctest", "parameters not documented: ['nu']"]
    assert problems(lambda x: x) == ["no docstring"]


def test_sections_need_a_rule_of_the_same_length():
    doc = "Summary.\n\nParameters\n-----\nx : int\n\nReturns\n-------\nint\n"
    assert list(sections(doc)) == ["Returns"]
    assert documented_parameters("x, y : int\n    Two.\n*args\n    More.\n") == {"x", "y", "args"}


def test_the_linter_enforces_the_numpy_convention_on_the_package():
    """ruff's pydocstyle rules (``make lint``) check the layout of every docstring of limetheory/."""
    tomllib = pytest.importorskip("tomllib")  # Python >= 3.11
    lint = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text())["tool"]["ruff"]["lint"]
    assert "D" in lint["select"]
    assert lint["pydocstyle"]["convention"] == "numpy"
    exempt = {pattern for pattern, rules in lint.get("per-file-ignores", {}).items() if "D" in rules}
    assert exempt <= {"!limetheory/**"}, exempt  # nothing inside the package is exempt
