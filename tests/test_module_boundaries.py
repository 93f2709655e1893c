"""The package's module boundaries: imports flow one way between the subpackages, no module reaches into another's
private names, and imports form no cycle.

The layers (``limetheory/*/__init__.py`` says the same in each folder)::

    book        the chapters' helpers                       may import everything
    pipelines   exact explanations of real models           may import engine, theory and the root helpers
    engine      lime reproduced                             may import the root helpers
    theory      the paper in closed form                    may import the root helpers
    root        _validation, _compiled, units, data         import only each other

``limetheory/__init__.py`` (the user's namespace) imports engine, theory, pipelines and the root helpers, never
``book``.  An import from ``theory`` into ``engine`` or back is allowed only through :data:`ALLOWED_CROSSINGS`,
each entry with its reason (none is needed today: the two halves of the paper's world, its formulas and lime's
code, meet in ``pipelines``).

A name with a leading underscore is private to its module.  A module that needs another's helper imports a
public name (``limetheory.theory.law.weighted_law``, ``limetheory.engine.tokens.word_tokens``), so that every
private name can be changed by reading one file.  ``limetheory._validation`` is a private *module* (not part of the
public API) whose names are public within the package; importing it is allowed, importing an underscore name from
it is not.  The public API is ``limetheory.__all__``: no module mirrors another's names through a module-level
``__getattr__``.

No module is longer than :data:`MAX_MODULE_LINES`: a module has one job, and a longer one is split along its seams
(``theory.linear.linear_exact`` into the model, the quadrature, the means by size, the moments and the size mixture).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "limetheory"
#: private modules whose names are public within the package: the argument checks, and numba kernels compiled on
#: first use (``_compiled``, so that numba is not imported with the package)
ALLOWED_PRIVATE_MODULES = {"_validation", "_compiled"}
ROOT_HELPERS = {"_validation", "_compiled", "units", "data"}

#: which layers each layer may import (its own included)
MAY_IMPORT = {
    "root": {"root"},
    "theory": {"theory", "root"},
    "engine": {"engine", "root"},
    "pipelines": {"pipelines", "engine", "theory", "root"},
    "book": {"book", "pipelines", "engine", "theory", "root", "namespace"},
    "namespace": {"pipelines", "engine", "theory", "root"},
}

#: the sub-wings of ``pipelines`` in the order data flows through them: a sub-wing may import itself and those
#: before it; the last three are siblings that never import each other.  ``routing`` (the module that holds
#: ``explain``) composes the four before it.
PIPELINE_WINGS = ("reading", "routes", "estimate", "results", "routing")
#: the sub-wings built on ``explain``, which import any of PIPELINE_WINGS but not each other
PIPELINE_USERS = ("corpora", "shapley_values", "dropin")
#: reading, routes, estimate and results are independent of each other's internals where the flow allows: routes and
#: estimate never import each other, results imports neither (an Explanation is built from what they return)
PIPELINE_FORBIDDEN = {("routes", "estimate"), ("estimate", "routes"), ("results", "routes"), ("results", "estimate")}
#: the most modules side by side in one folder of the package (the issue's "about 15")
MAX_FOLDER_MODULES = 15

#: the most lines a module may have: the house rule is "about 600", and 650 leaves room for a docstring to grow
MAX_MODULE_LINES = 650
#: modules still over the limit while issue 26 splits them one at a time; each must still be over it
#: (test_no_module_is_longer_than_the_limit), so that the list shrinks as they are split
NOT_YET_SPLIT: set[str] = set()

#: (importing module, imported module) -> why this import crosses between theory and engine; each entry must be
#: used (test_every_allowed_crossing_is_used), so the list says what is true of the code today
ALLOWED_CROSSINGS: dict[tuple[str, str], str] = {}


def _modules(package: Path = PACKAGE) -> dict[str, str]:
    """Dotted names relative to the package ("theory.law", "theory" for its __init__, "" for the package's)."""
    found = {}
    for path in sorted(package.rglob("*.py")):
        parts = path.relative_to(package).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path.read_text(encoding="utf-8")
    return found


def _is_package(name: str, names) -> bool:
    return name == "" or any(other.startswith(name + ".") for other in names)


def layer(name: str) -> str:
    """The layer of a module given by its dotted name relative to the package."""
    if name == "":
        return "namespace"
    first = name.split(".")[0]
    return "root" if first in ROOT_HELPERS else first


def imports(
    source: str, name: str, names, *, module_level_only: bool = False
) -> list[tuple[int, str, str | None, str]]:
    """(line, imported module, imported name or None, local name) of every import of a package module in ``source``.

    ``name`` is the dotted name of the importing module and ``names`` every module of the package, so that
    ``from . import x`` is read as the module ``x`` when there is one and as the name ``x`` of the package
    otherwise.  With ``module_level_only``, imports inside functions (which run later) are left out.
    """
    package = name if _is_package(name, names) else name.rpartition(".")[0]
    nodes = ast.parse(source).body if module_level_only else list(ast.walk(ast.parse(source)))
    found = []
    for node in nodes:
        if isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".") if package else []
                if node.level - 1 > len(parts):
                    continue
                base = parts[: len(parts) - (node.level - 1)]
                target = ".".join([*base, *(node.module.split(".") if node.module else [])])
            elif node.module == "limetheory" or (node.module or "").startswith("limetheory."):
                target = node.module.removeprefix("limetheory").lstrip(".")
            else:
                continue
            for alias in node.names:
                submodule = f"{target}.{alias.name}".lstrip(".")
                local = alias.asname or alias.name
                if submodule in names:
                    found.append((node.lineno, submodule, None, local))
                else:
                    found.append((node.lineno, target, alias.name, local))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "limetheory" or alias.name.startswith("limetheory."):
                    local = alias.asname or alias.name.partition(".")[0]
                    found.append((node.lineno, alias.name.removeprefix("limetheory").lstrip("."), None, local))
    return found


def layer_violations(modules: dict[str, str], allowed_crossings=None) -> list[str]:
    """Every import that goes against :data:`MAY_IMPORT`, except the allowed crossings."""
    allowed_crossings = ALLOWED_CROSSINGS if allowed_crossings is None else allowed_crossings
    problems = []
    for name, source in modules.items():
        for line, target, _, _ in imports(source, name, modules):
            if target == name:
                continue
            if layer(target) not in MAY_IMPORT[layer(name)] and (name, target) not in allowed_crossings:
                problems.append(f"{name or '__init__'}:{line} ({layer(name)}) imports {target or 'limetheory'}")
    return problems


def private_imports(source: str, name: str, names=()) -> list[str]:
    """Every place where ``source`` (the module ``name``) uses another module's underscore name.

    Three forms: ``from .other import _name``; ``from . import _module`` for a private module other than
    ``_validation``; and ``other._name`` where ``other`` was bound by ``from . import other`` or
    ``import limetheory.engine.other as other``.
    """
    names = set(names) | {name}
    problems = []
    bound = {}  # local name -> package module bound to it
    for line, target, imported, local in imports(source, name, names):
        if imported is None:
            bound[local] = target
            last = target.rpartition(".")[2]
            if last.startswith("_") and last not in ALLOWED_PRIVATE_MODULES:
                problems.append(f"{name}:{line} imports the private module {target}")
        elif imported.startswith("_") and not imported.startswith("__"):
            problems.append(f"{name}:{line} imports {imported} from {target}")
    for node in ast.walk(ast.parse(source)):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in bound
            and node.attr.startswith("_")
            and not node.attr.startswith("__")
        ):
            problems.append(f"{name}:{node.lineno} uses {bound[node.value.id]}.{node.attr}")
    return problems


def long_modules(modules: dict[str, str], limit: int = MAX_MODULE_LINES) -> dict[str, int]:
    """The modules with more than ``limit`` lines, with their number of lines."""
    lengths = {name: len(source.splitlines()) for name, source in modules.items()}
    return {name: length for name, length in lengths.items() if length > limit}


def module_graph(modules: dict[str, str]) -> dict[str, set[str]]:
    """Module -> the package modules it imports when it is itself imported (imports inside functions run later).

    Importing ``a.b`` first imports the package ``a``, so a module also depends on the packages above it.
    """
    graph = {}
    for name, source in modules.items():
        targets = set()
        for _, target, _, _ in imports(source, name, modules, module_level_only=True):
            parts = target.split(".") if target else []
            targets |= {".".join(parts[:k]) for k in range(1, len(parts) + 1)}
        graph[name] = targets - {name}
    return graph


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


def wing(name: str) -> str | None:
    """The sub-wing of a module of ``pipelines`` ("pipelines.reading.modes" -> "reading"), None outside it."""
    parts = name.split(".")
    if parts[0] != "pipelines" or len(parts) < 2:
        return None
    return parts[1]


def wing_violations(modules: dict[str, str]) -> list[str]:
    """Every import inside ``pipelines`` that goes against the sub-wings' order (:data:`PIPELINE_WINGS`)."""
    order = {name: rank for rank, name in enumerate(PIPELINE_WINGS)}
    problems = []
    for name, source in modules.items():
        here = wing(name)
        if here is None:
            continue
        for line, target, _, _ in imports(source, name, modules):
            there = wing(target)
            if there is None or there == here:
                continue
            if here in PIPELINE_USERS:
                wrong = there in PIPELINE_USERS
            else:
                wrong = there in PIPELINE_USERS or order.get(there, 0) > order.get(here, 0)
            if wrong or (here, there) in PIPELINE_FORBIDDEN:
                problems.append(f"{name}:{line} ({here}) imports {target} ({there})")
    return problems


def crowded_folders(package: Path = PACKAGE, limit: int = MAX_FOLDER_MODULES) -> dict[str, int]:
    """The folders of the package with more than ``limit`` modules side by side (``__init__`` not counted)."""
    counts = {}
    for folder in [package, *(path for path in package.rglob("*") if path.is_dir())]:
        if folder.name == "__pycache__":
            continue
        count = sum(1 for path in folder.glob("*.py") if path.name != "__init__.py")
        if count > limit:
            counts[str(folder.relative_to(package.parent))] = count
    return counts


# ----------------------------------------------------------------------------- the package


def test_the_package_has_the_four_parts():
    modules = _modules()
    assert {"theory", "engine", "pipelines", "book"} <= set(modules)
    layers = {layer(name) for name in modules}
    assert layers == {"namespace", "root", "theory", "engine", "pipelines", "book"}, layers
    loose = sorted(name for name in modules if "." not in name and name and layer(name) == "root")
    assert loose == sorted(ROOT_HELPERS), f"a module at the root that is not a root helper: {loose}"


def test_imports_flow_one_way_between_the_layers():
    problems = layer_violations(_modules())
    assert problems == [], "\n".join(problems)


def test_every_allowed_crossing_is_used():
    modules = _modules()
    used = {(name, target) for name, source in modules.items() for _, target, _, _ in imports(source, name, modules)}
    assert set(ALLOWED_CROSSINGS) <= used, set(ALLOWED_CROSSINGS) - used
    assert all(reason.strip() for reason in ALLOWED_CROSSINGS.values())


def test_no_module_uses_a_private_name_of_another():
    modules = _modules()
    problems = [problem for name, source in modules.items() for problem in private_imports(source, name, modules)]
    assert problems == [], "\n".join(problems)


def test_no_module_is_longer_than_the_limit():
    long = long_modules(_modules())
    assert set(long) - NOT_YET_SPLIT == set(), {name: long[name] for name in set(long) - NOT_YET_SPLIT}
    assert NOT_YET_SPLIT <= set(long), f"split already, remove from NOT_YET_SPLIT: {NOT_YET_SPLIT - set(long)}"


def test_pipelines_sub_wings_import_in_the_order_of_the_data_flow():
    modules = _modules()
    wings = {wing(name) for name in modules} - {None}
    assert set(PIPELINE_WINGS) - {"routing"} <= wings, wings
    assert wings <= set(PIPELINE_WINGS) | set(PIPELINE_USERS), f"a sub-wing the order does not know: {wings}"
    problems = wing_violations(modules)
    assert problems == [], "\n".join(problems)


def test_every_sub_wing_says_what_it_holds_and_may_import():
    for name, source in _modules().items():
        if wing(name) is not None and name.count(".") == 1 and wing(name) != "routing":
            docstring = ast.get_docstring(ast.parse(source)) or ""
            assert "may import" in docstring and "imports it" in docstring, f"{name}/__init__.py: {docstring!r:.80}"


def test_no_folder_is_crowded():
    assert crowded_folders() == {}


def test_no_module_has_a_module_level_getattr():
    """The public API is limetheory.__all__; no module serves names of another layout lazily (PEP 562)."""
    offenders = [
        name
        for name, source in _modules().items()
        if any(isinstance(node, ast.FunctionDef) and node.name == "__getattr__" for node in ast.parse(source).body)
    ]
    assert offenders == []


def test_module_level_imports_form_no_cycle():
    graph = module_graph(_modules())
    assert find_cycle(graph) is None, find_cycle(graph)


def test_no_module_is_named_like_a_public_name():
    """``limetheory.x`` would be shadowed by (or shadow) a function ``x`` of the namespace it is exported from."""
    import limetheory
    import limetheory.book

    exported = set(limetheory.__all__) | set(limetheory.book.__all__)
    clashes = sorted(name for name in _modules() if name and name.rpartition(".")[2] in exported)
    assert clashes == []


# ----------------------------------------------------------------------------- the checks on samples


@pytest.mark.parametrize(
    ("importer", "source", "expected"),
    [
        ("pipelines.reading.modes", "from ..routes.trees import x\n", "(reading) imports pipelines.routes.trees"),
        ("pipelines.routes.trees", "from ..estimate.strata import x\n", "(routes) imports pipelines.estimate"),
        ("pipelines.estimate.strata", "from ..routes.trees import x\n", "(estimate) imports pipelines.routes"),
        ("pipelines.results.result", "from ..routing import explain\n", "(results) imports pipelines.routing"),
        ("pipelines.reading.modes", "from ..corpora.corpus import x\n", "(reading) imports pipelines.corpora"),
        (
            "pipelines.shapley_values.exact",
            "from ..corpora.corpus import x\n",
            "(shapley_values) imports pipelines.corpora",
        ),
    ],
)
def test_the_wing_check_finds_an_import_against_the_flow(importer, source, expected):
    names = {
        "pipelines", "pipelines.routing", "pipelines.reading", "pipelines.reading.modes", "pipelines.routes",
        "pipelines.routes.trees", "pipelines.estimate", "pipelines.estimate.strata", "pipelines.results",
        "pipelines.results.result", "pipelines.corpora", "pipelines.corpora.corpus", "pipelines.shapley_values",
        "pipelines.shapley_values.exact",
    }  # fmt: skip
    modules = dict.fromkeys(names, "")
    modules[importer] = source
    problems = wing_violations(modules)
    assert len(problems) == 1 and expected in problems[0], problems


def test_the_wing_check_accepts_the_flow():
    modules = dict.fromkeys(["pipelines.reading.modes", "pipelines.routes.trees", "pipelines.routing"], "")
    modules["pipelines.routing"] = "from .routes.trees import x\nfrom .reading.modes import y\n"
    modules["pipelines.routes.trees"] = "from ..reading.modes import y\n"
    assert wing_violations(modules) == []


def test_the_folder_check_finds_a_crowded_folder(tmp_path):
    (tmp_path / "pkg" / "wing").mkdir(parents=True)
    for k in range(4):
        (tmp_path / "pkg" / "wing" / f"m{k}.py").write_text("")
    (tmp_path / "pkg" / "wing" / "__init__.py").write_text("")
    assert crowded_folders(tmp_path / "pkg", limit=3) == {"pkg/wing": 4}
    assert crowded_folders(tmp_path / "pkg", limit=4) == {}


SAMPLE_NAMES = {
    "",
    "_validation",
    "_hidden",
    "units",
    "theory",
    "theory.law",
    "theory.printed",
    "engine",
    "engine.tokens",
    "engine.fast",
    "pipelines",
    "pipelines.routing",
    "book",
    "book.display",
}


def _sample(**sources):
    """A package of SAMPLE_NAMES with empty modules, some given sources (keys with "__" for ".")."""
    modules = dict.fromkeys(SAMPLE_NAMES, "")
    modules.update({key.replace("__", "."): source for key, source in sources.items()})
    return modules


@pytest.mark.parametrize(
    ("importer", "source", "expected"),
    [
        ("theory.law", "from ..engine.tokens import local_dictionary\n", "theory.law:1 (theory) imports engine.tokens"),
        ("engine.fast", "from ..theory import printed\n", "engine.fast:1 (engine) imports theory.printed"),
        ("engine.tokens", "from ..pipelines.routing import explain\n", "imports pipelines.routing"),
        ("pipelines.routing", "from ..book.display import significant\n", "imports book.display"),
        ("pipelines.routing", "from limetheory.book import significant\n", "(pipelines) imports book"),
        ("units", "from .theory.law import weighted_law\n", "units:1 (root) imports theory.law"),
        ("", "from .book import significant\n", "__init__:1 (namespace) imports book"),
        ("theory.law", "def f():\n    import limetheory.engine.tokens\n", "imports engine.tokens"),  # even later
        ("engine.fast", "from .. import explain\n", "(engine) imports limetheory"),
    ],
)
def test_the_layer_check_finds_an_upward_import(importer, source, expected):
    problems = layer_violations(_sample(**{importer.replace(".", "__"): source}), {})
    assert len(problems) == 1 and expected in problems[0], problems


@pytest.mark.parametrize(
    ("importer", "source"),
    [
        ("theory.law", "from .._validation import check_nu\nfrom ..units import bandwidth_keyword\n"),
        ("theory.law", "from . import printed\nfrom .printed import psi\n"),
        ("pipelines.routing", "from ..engine.tokens import x\nfrom ..theory.law import y\n"),
        ("book.display", "from ..pipelines.routing import explain\nimport limetheory as lt\n"),
        ("", "from .engine.fast import x\nfrom .pipelines.routing import explain\n"),
        ("engine.tokens", "from numpy import linalg\nimport sympy\n"),  # another package's business
    ],
)
def test_the_layer_check_accepts_imports_that_flow_down(importer, source):
    assert layer_violations(_sample(**{importer.replace(".", "__"): source}), {}) == []


def test_an_allowed_crossing_is_accepted_and_only_it():
    modules = _sample(theory__law="from ..engine.tokens import x\nfrom ..engine.fast import y\n")
    allowed = {("theory.law", "engine.tokens"): "a reason"}
    assert layer_violations(modules, allowed) == ["theory.law:2 (theory) imports engine.fast"]


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("from .law import _SAFE_LOG, weighted_law\n", "imports _SAFE_LOG from theory.law"),
        ("from limetheory.engine.fast import _Document\n", "imports _Document from engine.fast"),
        ("from ..engine.tokens import _split\n", "imports _split from engine.tokens"),
        ("from . import _secret\n", "imports _secret from theory"),
        ("from .. import _hidden\n", "imports the private module _hidden"),
        ("from ..engine import fast\nx = fast._kernel\n", "uses engine.fast._kernel"),
        ("import limetheory.engine.tokens as tokens\ntokens._blocks()\n", "uses engine.tokens._blocks"),
    ],
)
def test_the_check_finds_a_private_import(source, expected):
    problems = private_imports(source, "theory.sample", SAMPLE_NAMES)
    assert len(problems) == 1 and expected in problems[0], problems


@pytest.mark.parametrize(
    "source",
    [
        "from .._validation import check_int\n",
        "from .. import _validation\n",
        "from .law import weighted_law\n",
        "from numpy import _core\n",  # another package's business
        "import numpy as np\nnp._NoValue\n",
        "from ..units import __doc__\n",
    ],
)
def test_the_check_accepts_public_imports(source):
    assert private_imports(source, "theory.sample", SAMPLE_NAMES) == []


def test_the_cycle_check_finds_a_cycle():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set(), "c": {"a", "b"}}) is None
    later = _sample(theory__law="from .printed import x\n", theory__printed="def f():\n    from .law import y\n")
    assert find_cycle(module_graph(later)) is None  # a function-level import runs later
    now = _sample(theory__law="from .printed import x\n", theory__printed="from . import law\n")
    assert find_cycle(module_graph(now)) == ["theory.law", "theory.printed", "theory.law"]
    # a subpackage's __init__ importing a module that imports the subpackage's __init__ back
    through_init = _sample(engine="from .fast import x\n", engine__fast="from ..engine import tokens\n")
    assert find_cycle(module_graph(through_init)) == ["engine", "engine.fast", "engine"]


def test_the_length_check_finds_a_long_module():
    lines = "x = 1\n"
    at_the_limit = _sample(theory__law=lines * MAX_MODULE_LINES, engine__fast=lines * MAX_MODULE_LINES)
    assert long_modules(at_the_limit) == {}
    over = _sample(theory__law=lines * (MAX_MODULE_LINES + 1), engine__fast=lines * MAX_MODULE_LINES)
    assert long_modules(over) == {"theory.law": MAX_MODULE_LINES + 1}
    assert long_modules(_sample(book__display='"""A docstring.\n\nOf\nfour lines."""\n'), limit=3) == {
        "book.display": 4
    }
