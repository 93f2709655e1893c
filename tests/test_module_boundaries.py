"""The package's module boundaries: no module reaches into another's private names, and imports form no cycle.

A name with a leading underscore is private to its module.  A module that needs another's helper imports a
public name (``limetheory.law.weighted_law``, ``limetheory.tokens.word_tokens``), so that every private name
can be changed by reading one file.  ``limetheory._validation`` is a private *module* (not part of the public
API) whose names are public within the package; importing it is allowed, importing an underscore name from it
is not.  The public API is ``limetheory.__all__``: no module mirrors another's names through a module-level
``__getattr__``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "limetheory"
ALLOWED_PRIVATE_MODULES = {"_validation"}


def _sibling(node: ast.ImportFrom, module_name: str) -> str | None:
    """The sibling module an import names (``from .x import``, ``from limetheory.x import``), or None."""
    if node.level == 1:
        return node.module or ""  # "" for ``from . import x``
    if node.level == 0 and node.module and (node.module == "limetheory" or node.module.startswith("limetheory.")):
        return node.module.removeprefix("limetheory").lstrip(".")
    return None


def private_imports(source: str, module_name: str) -> list[str]:
    """Every place where ``source`` (the module ``module_name``) uses another module's underscore name.

    Three forms: ``from .other import _name``; ``from . import _module`` for a private module other than
    ``_validation``; and ``other._name`` where ``other`` was bound by ``from . import other`` or
    ``import limetheory.other as other``.
    """
    tree = ast.parse(source)
    problems = []
    modules = {}  # local name -> sibling module bound to it
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            sibling = _sibling(node, module_name)
            if sibling is None:
                continue
            for alias in node.names:
                if sibling == "":  # from . import name: name is a module
                    modules[alias.asname or alias.name] = alias.name
                    if alias.name.startswith("_") and alias.name not in ALLOWED_PRIVATE_MODULES:
                        problems.append(f"{module_name}:{node.lineno} imports the private module {alias.name}")
                elif alias.name.startswith("_") and not alias.name.startswith("__"):
                    problems.append(f"{module_name}:{node.lineno} imports {alias.name} from {sibling}")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("limetheory.") and alias.asname:
                    modules[alias.asname] = alias.name.removeprefix("limetheory.")
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in modules
            and node.attr.startswith("_")
            and not node.attr.startswith("__")
        ):
            problems.append(f"{module_name}:{node.lineno} uses {modules[node.value.id]}.{node.attr}")
    return problems


def module_level_imports(source: str) -> set[str]:
    """The sibling modules a module imports when it is itself imported (imports inside functions run later)."""
    imported = set()
    for node in ast.parse(source).body:
        if isinstance(node, ast.ImportFrom):
            sibling = _sibling(node, "")
            if sibling is None:
                continue
            if sibling == "":
                imported.update(alias.name for alias in node.names)
            else:
                imported.add(sibling.split(".")[0])
        elif isinstance(node, ast.Import):
            imported.update(alias.name.split(".")[1] for alias in node.names if alias.name.startswith("limetheory."))
    return imported


def _modules():
    return {path.stem: path.read_text(encoding="utf-8") for path in sorted(PACKAGE.glob("*.py"))}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of the directed graph (as a list of nodes, first = last), or None."""
    state = {}  # node -> "open" while on the stack, "done" after

    def visit(node, path):
        state[node] = "open"
        for target in sorted(graph.get(node, ())):
            if state.get(target) == "open":
                return [*path[path.index(target) :], target]
            if target not in state:
                found = visit(target, [*path, target])
                if found:
                    return found
        state[node] = "done"
        return None

    for start in sorted(graph):
        if start not in state:
            found = visit(start, [start])
            if found:
                return found
    return None


def test_no_module_uses_a_private_name_of_another():
    problems = [problem for name, source in _modules().items() for problem in private_imports(source, name)]
    assert problems == [], "\n".join(problems)


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("from .coefficients import _SAFE_LOG, weighted_law\n", "imports _SAFE_LOG from coefficients"),
        ("from limetheory.fast import _Document\n", "imports _Document from fast"),
        ("from . import _secret\n", "imports the private module _secret"),
        ("from . import fast\nx = fast._kernel\n", "uses fast._kernel"),
        ("import limetheory.ridge as ridge\nridge._blocks()\n", "uses ridge._blocks"),
    ],
)
def test_the_check_finds_a_private_import(source, expected):
    problems = private_imports(source, "sample")
    assert len(problems) == 1 and expected in problems[0], problems


@pytest.mark.parametrize(
    "source",
    [
        "from ._validation import check_int\n",
        "from . import _validation\n",
        "from .law import weighted_law\n",
        "from numpy import _core\n",  # another package's business
        "from .units import __doc__\n",
    ],
)
def test_the_check_accepts_public_imports(source):
    assert private_imports(source, "sample") == []


def test_no_module_has_a_module_level_getattr():
    """The public API is limetheory.__all__; no module serves names of another layout lazily (PEP 562)."""
    offenders = [
        name
        for name, source in _modules().items()
        if any(isinstance(node, ast.FunctionDef) and node.name == "__getattr__" for node in ast.parse(source).body)
    ]
    assert offenders == []


def test_module_level_imports_form_no_cycle():
    graph = {name: module_level_imports(source) - {name} for name, source in _modules().items()}
    assert find_cycle(graph) is None, find_cycle(graph)


def test_the_cycle_check_finds_a_cycle():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set(), "c": {"a", "b"}}) is None
    sources = {"a": "from .b import x\n", "b": "def f():\n    from .a import y\n"}  # a function-level import runs later
    assert find_cycle({name: module_level_imports(source) for name, source in sources.items()}) is None
    sources["b"] = "from . import a\n"
    assert find_cycle({name: module_level_imports(source) for name, source in sources.items()}) == ["a", "b", "a"]
