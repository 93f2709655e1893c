"""The API reference shows formulas as mathematics: no raw TeX or caret in the prose of a documented docstring.

The browser test finds the first raw ``^`` on the built API page; this test names every one, in the source,
without building the book.  It reads the modules that ``book/api.md`` documents with ``automodule`` and checks
what autodoc shows of them (module, public functions, classes and methods, ``#:`` attribute comments): outside
``:math:`` roles, ``.. math::`` blocks, inline code and doctest examples, the text must hold no caret, dollar,
``\\(`` or TeX command.  Inside math, no bare ``|``: the book's autodoc hook escapes bars (reST would read
``|J|`` as a substitution), and in TeX ``\\|`` is a double bar, so math writes ``\\lvert``, ``\\mid`` or ``\\vert``.
"""

from __future__ import annotations

import ast
import inspect
import re
from pathlib import Path

import pytest

from booktools.rawtex import RAW_TEX

ROOT = Path(__file__).resolve().parents[1]
MATH_ROLE = re.compile(r":math:`([^`]*)`", re.DOTALL)
INLINE_CODE = re.compile(r"``[^`]*``", re.DOTALL)


def documented_modules() -> list[str]:
    page = (ROOT / "book" / "api.md").read_text(encoding="utf-8")
    return re.findall(r"^\.\. automodule:: (\S+)", page, re.MULTILINE)


def shown_docstrings(path: Path) -> list[tuple[str, str]]:
    """(where, text) for every docstring and ``#:`` comment that autodoc puts on the page."""
    source = path.read_text(encoding="utf-8")
    tree = ast.parse(source)
    found = [("module docstring", ast.get_docstring(tree, clean=True) or "")]

    def visit(body, prefix):
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                if node.name.startswith("_"):
                    continue
                found.append((f"{prefix}{node.name}", ast.get_docstring(node, clean=True) or ""))
                if isinstance(node, ast.ClassDef):
                    visit(node.body, f"{prefix}{node.name}.")

    visit(tree.body, "")
    for number, line in enumerate(source.splitlines(), start=1):
        if line.lstrip().startswith("#:"):
            found.append((f"#: comment, line {number}", line.lstrip()[2:]))
    return found


def split_math(text: str) -> tuple[list[str], list[str]]:
    """(prose lines, math fragments): ``.. math::`` blocks and ``:math:`` roles go to the second list.

    Doctest examples (``>>>`` lines and their output, up to a blank line) and inline code are dropped.
    """
    prose, math, block_indent, in_example = [], [], None, False
    for line in text.splitlines():
        indent = len(line) - len(line.lstrip())
        stripped = line.strip()
        if block_indent is not None:
            if not stripped or indent > block_indent:
                math.append(line)
                continue
            block_indent = None
        if stripped.startswith(".. math::"):
            block_indent = indent
            math.append(stripped.removeprefix(".. math::"))
            continue
        if stripped.startswith((">>>", "...")):
            in_example = True
            continue
        if in_example:
            in_example = bool(stripped)
            if in_example:
                continue
        prose.append(line)
    joined = "\n".join(prose)
    math += MATH_ROLE.findall(joined)
    return INLINE_CODE.sub("", MATH_ROLE.sub("", joined)).splitlines(), math


@pytest.mark.parametrize("module", documented_modules())
def test_documented_docstrings_have_no_raw_tex_outside_math(module):
    path = ROOT / Path(*module.split(".")).with_suffix(".py")
    assert path.is_file(), f"book/api.md documents {module}, which is not a module file"
    problems = []
    for where, text in shown_docstrings(path):
        prose, math = split_math(text)
        problems += [f"{where}: {line.strip()}" for line in prose if RAW_TEX.search(line)]
        problems += [f"{where}: a bare | in math: {fragment.strip()}" for fragment in math if "|" in fragment]
    assert not problems, "\n".join(problems)


def test_the_check_can_fail():
    doc = """Sigma^{-1} in prose, :math:`\\Sigma^{-1}` in a role, ``x**2`` and ``x^2`` in code.

    .. math::

       \\beta^f = \\Sigma^{-1} \\Gamma^f

    After the block, |J| = p^2 again, and :math:`|J|` is a bar in math.

    >>> 2^3
    1
    """
    prose, math = split_math(inspect.cleandoc(doc))
    assert [line for line in prose if RAW_TEX.search(line)] == [
        "Sigma^{-1} in prose,  in a role,  and  in code.",
        "After the block, |J| = p^2 again, and  is a bar in math.",
    ]
    assert any("\\beta^f" in fragment for fragment in math) and "\\Sigma^{-1}" in math
    assert [fragment for fragment in math if "|" in fragment] == ["|J|"]
