"""Chapters re-use the package, never re-implement it: no chapter defines a function whose body is a package function's.

Every code cell of ``notebooks/*.md`` is parsed with ``ast``; every function it defines (at any depth) is compared with
every function and method of ``limetheory/`` by its normalised body: the ``ast.dump`` of its statements without the
docstring, with the arguments renamed by position (so renaming the arguments does not hide a copy). A package
function is matched twice: whole, and without its argument checks (leading ``if ...: raise ...`` statements), so a
copy of its computation without the validation is found too. A chapter that
needs what a package function computes calls it (or, if the chapter's version is better, the package gets it).
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import jupytext
import pytest

from booktools import chapters

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = sorted((ROOT / "notebooks").glob("[0-9][0-9]-*.md"))
PACKAGE = sorted((ROOT / "limetheory").rglob("*.py"))


def _is_guard(statement: ast.stmt) -> bool:
    """``if <condition>: raise ...`` (an argument check)."""
    return (
        isinstance(statement, ast.If)
        and not statement.orelse
        and all(isinstance(inner, ast.Raise) for inner in statement.body)
    )


def normalised_body(function: ast.FunctionDef | ast.AsyncFunctionDef, *, without_guards: bool = False) -> str:
    """The function's statements as one ``ast.dump``: no docstring, arguments renamed by position (and, with
    ``without_guards``, no leading argument checks)."""
    body = list(function.body)
    if body and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant):
        if isinstance(body[0].value.value, str):
            body = body[1:]
    while without_guards and body and _is_guard(body[0]):
        body = body[1:]
    arguments = function.args
    every = [*arguments.posonlyargs, *arguments.args, arguments.vararg, *arguments.kwonlyargs, arguments.kwarg]
    names = {arg.arg: f"_arg{i}" for i, arg in enumerate(a for a in every if a is not None)}
    # the arguments renamed in place for the dump, then restored: the tree is the caller's and unchanged afterwards
    # (a deep copy of every body to rename was most of the scan's time: ~10 of its 20 s of CPU)
    renamed = [
        node for statement in body for node in ast.walk(statement) if isinstance(node, ast.Name) and node.id in names
    ]
    originals = [node.id for node in renamed]
    try:
        for node in renamed:
            node.id = names[node.id]
        return ast.dump(ast.Module(body=body, type_ignores=[]), annotate_fields=False, include_attributes=False)
    finally:
        for node, name in zip(renamed, originals, strict=True):
            node.id = name


@functools.cache
def parsed(source: str) -> ast.Module:
    """``ast.parse(source)``, once per process (tests/test_no_duplicates.py reads the package's files too); the trees
    are shared: :func:`normalised_body` leaves them as it found them."""
    return ast.parse(source)


def _has_guards(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether the function's first statement after the docstring is an argument check."""
    body = function.body
    if body and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant):
        if isinstance(body[0].value.value, str):
            body = body[1:]
    return bool(body) and _is_guard(body[0])


def functions_in(source: str, where: str, *, without_guards: bool = False):
    """(where:line, name, normalised body) of every function defined in ``source``, at any depth (with
    ``without_guards``, a second entry without the argument checks where the function has some)."""
    found = []
    for node in ast.walk(parsed(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            bodies = {normalised_body(node)}
            if without_guards and _has_guards(node):  # otherwise the same body again
                bodies.add(normalised_body(node, without_guards=True))
            found += [(f"{where}:{node.lineno}", node.name, body) for body in sorted(bodies)]
    return found


@functools.cache
def code_cells(path: Path) -> tuple[tuple[int, str], ...]:
    """(index, source) of each code cell, with IPython magics and shell lines blanked (they are not Python); read
    once per process (jupytext's parse is most of a chapter's reading; tests/test_no_duplicates.py reads them too)."""
    notebook = jupytext.read(path, fmt="md:myst")
    return tuple(
        (index, "\n".join("" if line.lstrip().startswith(("%", "!")) else line for line in cell.source.splitlines()))
        for index, cell in enumerate(notebook.cells)
        if cell.cell_type == "code"
    )


def duplicates(chapter_functions, package_functions):
    """Chapter functions whose normalised body is that of a package function: (chapter place, name, package place)."""
    by_body = {}
    for place, name, body in package_functions:
        by_body.setdefault(body, f"{place} {name}")
    return [(place, name, by_body[body]) for place, name, body in chapter_functions if body in by_body]


@functools.cache
def package_functions():
    return [
        found
        for path in PACKAGE
        for found in functions_in(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)), without_guards=True)
    ]


@functools.cache
def chapter_functions(path: Path):
    return [
        found
        for index, source in code_cells(path)
        for found in functions_in(source, f"notebooks/{path.name} cell {index}")
    ]


def test_the_scan_reads_the_repository():
    assert len(CHAPTERS) > 20 and len(PACKAGE) > 10
    assert len(package_functions()) > 100
    assert sum(len(chapter_functions(path)) for path in CHAPTERS) > 50


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda path: path.stem)
def test_no_chapter_function_repeats_a_package_function(chapter):
    found = duplicates(chapter_functions(chapter), package_functions())
    assert not found, "a chapter re-implements a package function; call the package instead:\n" + "\n".join(
        f"  {place}: def {name} has the body of {original}" for place, name, original in found
    )


# ----------------------------------------------------------------------------- the check itself can fail

PACKAGE_SAMPLE = '''
def conditional_mean(values, event, probabilities):
    """E[values | event] under the law ``probabilities``."""
    if not np.any(event):
        raise ValueError("event must hold for at least one mask")
    return np.sum(probabilities[event] * values[event]) / np.sum(probabilities[event])


class Law:
    def weight(self, s):
        return np.exp(-s / self.nu)
'''


@pytest.mark.parametrize(
    ("chapter_source", "expected"),
    [
        # the same computation with other argument names, no docstring and no argument check: a copy
        (
            "def mean_given(v, e, p):\n    return np.sum(p[e] * v[e]) / np.sum(p[e])\n",
            ["mean_given"],
        ),
        # a copy of a method, nested inside another function
        (
            "def outer():\n    def w(me, t):\n        return np.exp(-t / me.nu)\n    return w\n",
            ["w"],
        ),
        # a different computation (one operand changed), and a call of the package function: not copies
        (
            "def mean_given(v, e, p):\n    return np.sum(p[e] * v[e]) / np.sum(p)\n\n"
            "def mean_of(v, e, p):\n    return conditional_mean(v, e, p)\n",
            [],
        ),
    ],
)
def test_duplicates_are_found_by_body_not_by_name(chapter_source, expected):
    package = functions_in(PACKAGE_SAMPLE, "package", without_guards=True)
    found = duplicates(functions_in(chapter_source, "chapter"), package)
    assert [name for _, name, _ in found] == expected


def test_code_cells_skip_magics(tmp_path):
    chapter = tmp_path / "99-sample.md"
    chapter.write_text(
        chapters.FRONT_MATTER + "\n"
        "```{code-cell} ipython3\n%config InlineBackend.figure_formats = ['svg']\n"
        "def f(x):\n    return x + 1\n```\n",
        encoding="utf-8",
    )
    assert [name for _, name, _ in chapter_functions(chapter)] == ["f"]
