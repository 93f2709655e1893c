"""One home for each piece of logic: no two functions of the package or of the book tooling have the same body, and
no two functions defined in the chapters.

Every function and method of ``limetheory/`` and ``booktools/`` (at any depth) is reduced to its normalised body, the
one ``tests/test_chapter_reuse.py`` compares chapters with: the ``ast.dump`` of its statements without the docstring,
with the arguments renamed by position, so a copy under another name or with other argument names is still the same
body. A body of six statements or more (counted at every depth, as the duplicates report counts six lines) must stand
in one place only: a second copy calls the first instead. Shorter bodies (a one-line property, a delegation) may
coincide without being shared logic. The check reads files as text and needs no tool outside the test suite.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest
from test_chapter_reuse import CHAPTERS, code_cells, normalised_body, parsed

ROOT = Path(__file__).resolve().parents[1]
SOURCES = sorted([*(ROOT / "limetheory").rglob("*.py"), *(ROOT / "booktools").glob("*.py")])
# the duplicates report's threshold: six lines of shared logic
MIN_STATEMENTS = 6


def statement_count(function: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """Statements in the body at every depth (nested blocks included), the docstring left out."""
    body = list(function.body)
    if body and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant):
        if isinstance(body[0].value.value, str):
            body = body[1:]
    return sum(isinstance(node, ast.stmt) for statement in body for node in ast.walk(statement))


@functools.cache
def long_functions(source: str) -> tuple[ast.FunctionDef | ast.AsyncFunctionDef, ...]:
    """The functions of ``source`` (at any depth) of at least :data:`MIN_STATEMENTS` statements, in ``ast.walk``'s
    order; once per process (both scans of the package below read them)."""
    return tuple(
        node
        for node in ast.walk(parsed(source))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and statement_count(node) >= MIN_STATEMENTS
    )


def repeated_bodies(sources):
    """Groups of two or more places (``where:line name``) whose functions have the same normalised body of at least
    :data:`MIN_STATEMENTS` statements; ``sources`` is a sequence of (where, source text)."""
    places = {}
    for where, source in sources:
        for node in long_functions(source):
            places.setdefault(normalised_body(node), []).append(f"{where}:{node.lineno} {node.name}")
    return [group for group in places.values() if len(group) > 1]


def test_the_scan_reads_the_package_and_the_tooling():
    names = {path.relative_to(ROOT).parts[0] for path in SOURCES}
    assert names == {"limetheory", "booktools"} and len(SOURCES) > 30
    bodies = [
        node
        for path in SOURCES
        for node in long_functions(path.read_text(encoding="utf-8"))
        if isinstance(node, ast.FunctionDef)
    ]
    assert len(bodies) > 100


def test_no_two_functions_share_a_body():
    found = repeated_bodies([(str(path.relative_to(ROOT)), path.read_text(encoding="utf-8")) for path in SOURCES])
    assert not found, "the same logic stands in two places; give it one home that both call:\n" + "\n".join(
        "  " + " = ".join(group) for group in found
    )


def test_no_two_chapter_functions_share_a_body():
    """A helper that two chapters need lives in the package (the chapter contract): a chapter never repeats one."""
    sources = [(f"notebooks/{path.name} cell {i}", source) for path in CHAPTERS for i, source in code_cells(path)]
    assert len(sources) > 300
    found = repeated_bodies(sources)
    assert not found, "two chapter functions have the same body; give it one home in the package:\n" + "\n".join(
        "  " + " = ".join(group) for group in found
    )


# ----------------------------------------------------------------------------- the check itself can fail

BODY = """
    values = np.asarray({x}, dtype=float)
    if values.ndim != 1:
        raise ValueError("x must be one-dimensional")
    total = 0.0
    for v in values:
        total += v * v
    return np.sqrt(total)
"""
# the same body under another function name and argument name, nested in another function
COPY = (
    "def norm(x):\n    'Euclidean norm.'"
    + BODY.format(x="x")
    + "\ndef outer():\n    def length(y):"
    + (BODY.format(x="y").replace("\n    ", "\n        "))
)
# one operand changed: not the same logic
CHANGED = "def norm(x):" + BODY.format(x="x") + "\ndef other(x):" + BODY.format(x="x").replace("v * v", "v * 2")
# short bodies may coincide
SHORT = "def f(x):\n    return x + 1\n\ndef g(y):\n    return y + 1\n"


@pytest.mark.parametrize(
    ("sample", "expected"),
    [(COPY, [["b.py:1 norm", "b.py:12 length"]]), (CHANGED, []), (SHORT, [])],
    ids=["copy", "changed", "short"],
)
def test_a_copy_is_found_under_other_names(sample, expected):
    found = repeated_bodies([("a.py", "x = 1\n"), ("b.py", sample)])
    assert found == expected
