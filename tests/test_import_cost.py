"""``import limetheory`` is cheap: it loads no heavy library that ``import sklearn, lime`` does not load already.

sympy, pandas, pyarrow, dask, matplotlib, shap and numba (each between a tenth of a second and a second to import)
are imported inside the functions that use them, so that ``import limetheory`` costs little more than scikit-learn
and lime (issue 36, item 6: at most 0.3 s more).  The tests count modules, not seconds, which depend on the machine
and its load: in a fresh interpreter, the heavy libraries in ``sys.modules`` after ``import limetheory`` must be
among those after ``import sklearn, lime`` (scikit-learn itself imports pandas and pyarrow today, when they are
installed; lime's ``__init__`` imports nothing).  A second reading, of the source, catches what the baseline hides:
no module that ``import limetheory`` loads imports a heavy library at module level (outside a function or an
``if TYPE_CHECKING:`` block), so that pandas stays out even where scikit-learn stops importing it.

The modules outside ``pipelines`` are checked on their own as well (the package's ``__init__`` replaced by an empty
module, so that importing ``limetheory.theory.boolean`` runs no other layer).
"""

from __future__ import annotations

import ast
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "limetheory"

#: the libraries ``import limetheory`` must not load beyond what scikit-learn and lime load (with the libraries
#: they bring: mpmath with sympy, llvmlite with numba, distributed with dask)
HEAVY = ("sympy", "mpmath", "pandas", "pyarrow", "dask", "distributed", "matplotlib", "shap", "numba", "llvmlite")

#: the package's __init__ replaced by an empty module: its sub-modules import without running the other layers
_EMPTY_PACKAGE = """
import importlib, importlib.util, sys, types
spec = importlib.util.find_spec("limetheory")
package = types.ModuleType("limetheory")
package.__path__, package.__spec__ = list(spec.submodule_search_locations), spec
sys.modules["limetheory"] = package
"""


#: a report line: the names in ``sys.modules`` at that point of the interpreter's run (a step may print its own)
_REPORT = "\nimport json, sys\nprint('@report', json.dumps(sorted(sys.modules)), flush=True)\n"


def _reports(*steps: str) -> list:
    """Run ``steps`` one after the other in one fresh interpreter (from the repository's root); the JSON of each
    ``@report`` line it prints, in order.  One interpreter reports several facts: each start of Python with
    scikit-learn costs 1-3 s of CPU, and the facts read at successive points of one run are the facts the separate
    runs read (imports only add to ``sys.modules``)."""
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    done = subprocess.run(
        [sys.executable, "-c", "\n".join(steps)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return [
        json.loads(line.removeprefix("@report ")) for line in done.stdout.splitlines() if line.startswith("@report")
    ]


def _heavy(modules: set[str]) -> set[str]:
    return {name for name in modules if name.split(".")[0] in HEAVY}


#: limetheory used where it calls lime's text module (estimate and to_lime) and lime's explainer made through it
_USE = (
    "limetheory.explain(lambda docs: [1.0 * len(d) for d in docs], 'good food', progress=False).to_lime()\n"
    "limetheory.LimeTextExplainer()"
)


#: what a chapter without formulas does with the book: a closing summary and a number for the prose
_BOOK_USE = (
    "from limetheory.book import reader_text, significant, summary\n"
    "summary(('runs', 100), ('agree', (True, 19)), ('largest error', 1.5e-12))._repr_markdown_()\n"
    "reader_text(significant(0.000123456, 3))"
)


@pytest.fixture(scope="module")
def import_then_use() -> tuple[set[str], set[str], set[str], set[str]]:
    """The modules in ``sys.modules`` after ``import limetheory`` in a fresh interpreter, after using it then, after
    importing ``limetheory.book`` last, and after a chapter's summary and prose numbers."""
    imported, used, book, book_used = _reports(
        "import limetheory" + _REPORT, _USE + _REPORT, "import limetheory.book" + _REPORT, _BOOK_USE + _REPORT
    )
    return set(imported), set(used), set(book), set(book_used)


@pytest.fixture(scope="module")
def package_modules(import_then_use) -> set[str]:
    """The package's modules that ``import limetheory`` loads (heavy or not)."""
    return {name for name in import_then_use[0] if name.split(".")[0] == "limetheory"}


def _outside(package_modules: set[str]) -> list[str]:
    return sorted(name for name in package_modules if _layer(name) not in ("pipelines", "book"))


#: the exact linear route's recursions called once, after the modules outside pipelines are imported: whether numba
#: was loaded before and after the call, and the means against their definition (the mean over the a-subsets A of
#: the words of prod_A x and W(A) prod_A x, enumerated with itertools)
_CALL_A_COMPILED_LOOP = """
import itertools, json, math, sys
import numpy as np
from limetheory.theory.linear.subset_means import full_means
before = 'numba' in sys.modules
x, w = np.array([[0.3, 0.9, 0.5, 0.7]]), np.array([1.0, -2.0, 0.5, 3.0])
P, Pw = full_means(x, w)
subsets = [list(itertools.combinations(range(4), a)) for a in range(5)]
P_ref = [np.mean([math.prod(x[0, list(A)]) for A in sets]) for sets in subsets]
Pw_ref = [np.mean([w[list(A)].sum() * math.prod(x[0, list(A)]) for A in sets]) for sets in subsets]
print('@report', json.dumps([before, 'numba' in sys.modules, P[0].tolist(), P_ref, Pw[0].tolist(), Pw_ref]))
"""


@pytest.fixture(scope="module")
def baseline_outside_loop(package_modules) -> tuple[set[str], set[str], list]:
    """One fresh interpreter: the modules after ``import sklearn, lime`` (the baseline), after importing also the
    modules outside pipelines under an empty package ``__init__``, and the compiled loop's first call's report."""
    imports = "".join(f"importlib.import_module({name!r})\n" for name in _outside(package_modules))
    baseline, outside, loop = _reports(
        "import sklearn, lime" + _REPORT, _EMPTY_PACKAGE + imports + _REPORT, _CALL_A_COMPILED_LOOP
    )
    return set(baseline), set(outside), loop


@pytest.fixture(scope="module")
def baseline(baseline_outside_loop) -> set[str]:
    """The heavy modules ``import sklearn, lime`` loads by itself."""
    return _heavy(baseline_outside_loop[0])


def _layer(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 2 else "root"


def _module_level_heavy_imports(source: str, libraries: tuple[str, ...] = HEAVY) -> list[str]:
    """``line: statement`` of each import of one of ``libraries`` (HEAVY) in ``source`` that runs when the module is
    imported."""
    found = []

    def visit(node):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                continue  # runs when called
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                visit_else(child)
                continue
            if isinstance(child, ast.Import):
                names = [alias.name for alias in child.names]
            elif isinstance(child, ast.ImportFrom) and child.level == 0:
                names = [child.module]
            else:
                names = []
            if any(name.split(".")[0] in libraries for name in names):
                found.append(f"{child.lineno}: {ast.unparse(child)}")
            visit(child)

    def visit_else(node):
        for child in node.orelse:
            visit(ast.Module(body=[child], type_ignores=[]))

    visit(ast.parse(source))
    return found


def _source(module: str) -> str:
    return Path(importlib.util.find_spec(module).origin).read_text(encoding="utf-8")


def test_module_level_import_reader():
    """The source reading sees module-level, class-level and try/if imports, and skips functions and TYPE_CHECKING."""
    code = (
        "import os\nimport sympy as sp\ntry:\n    from pandas import DataFrame\nexcept ImportError:\n    pass\n"
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import pyarrow\nelse:\n    import dask\n"
        "class A:\n    import shap\n"
        "def f():\n    import numba\n    return numba\n"
    )
    assert _module_level_heavy_imports(code) == [
        "2: import sympy as sp",
        "4: from pandas import DataFrame",
        "11: import dask",
        "13: import shap",
    ]


def test_the_modules_outside_pipelines_import_no_heavy_library_at_module_level(package_modules):
    outside = _outside(package_modules)
    assert "limetheory.theory.boolean" in outside and "limetheory.data" in outside  # the reading covers them
    found = {name: _module_level_heavy_imports(_source(name)) for name in outside}
    assert {name: lines for name, lines in found.items() if lines} == {}


def test_the_theory_layer_imports_scikit_learn_only_where_it_uses_it():
    """The theory's modules and the package's root modules (_validation, _compiled, data, units) import scikit-learn
    inside the functions that use it: a process that imports only the theory (a compiled kernel's, a worker's) does
    not pay scikit-learn's import (about 2 CPU-s, scipy.stats and pandas with it)."""
    paths = sorted([*PACKAGE.glob("*.py"), *(PACKAGE / "theory").rglob("*.py")])
    assert PACKAGE / "_validation.py" in paths and PACKAGE / "theory" / "coefficients.py" in paths
    found = {
        str(path.relative_to(ROOT)): _module_level_heavy_imports(path.read_text(encoding="utf-8"), ("sklearn",))
        for path in paths
        if path.name != "__init__.py" or path.parent != PACKAGE  # the package's __init__ imports the pipelines
    }
    assert {name: lines for name, lines in found.items() if lines} == {}


def test_the_pipelines_import_no_heavy_library_at_module_level(package_modules):
    inside = sorted(name for name in package_modules if _layer(name) == "pipelines")
    found = {name: _module_level_heavy_imports(_source(name)) for name in inside}
    assert {name: lines for name, lines in found.items() if lines} == {}


def test_the_modules_outside_pipelines_load_nothing_heavy_beyond_sklearn_and_lime(
    package_modules, baseline_outside_loop
):
    _, loaded, _ = baseline_outside_loop
    assert set(_outside(package_modules)) <= loaded  # they were imported
    assert not any(_layer(name) == "pipelines" for name in loaded if name.startswith("limetheory."))
    assert sorted(_heavy(loaded) - _heavy(baseline_outside_loop[0])) == []


def test_import_limetheory_loads_nothing_heavy_beyond_sklearn_and_lime(import_then_use, baseline):
    loaded = _heavy(import_then_use[0])
    assert sorted(loaded - baseline) == []


#: what lime's text module loads beyond ``import sklearn, lime``: lime's own modules and scikit-learn's linear models,
#: metrics and model selection (a third of a second in a fresh interpreter at a load of 8); the package imports them
#: where it calls lime, so that ``import limetheory`` stays within 0.3 s of ``import sklearn, lime``
LIME_TEXT_LOADS = ("lime.lime_text", "lime.lime_base", "sklearn.linear_model", "sklearn.metrics", "sklearn.compose")


def test_import_limetheory_loads_neither_limes_text_module_nor_sklearns_linear_models(import_then_use):
    loaded, used, _, _ = import_then_use
    assert sorted(name for name in LIME_TEXT_LOADS if name in loaded) == []
    assert {"lime.lime_text", "lime.lime_base", "sklearn.linear_model"} <= used  # loaded where they are used


def test_a_compiled_loop_imports_numba_on_its_first_call(baseline_outside_loop):
    """The recursions of the exact linear route load numba when first called, and compute what they should.

    The call follows the import of every module outside pipelines (which include the recursions' module): numba
    must not be loaded before it.  The reference is the definition: the mean over the a-subsets A of the words of
    prod_A x and W(A) prod_A x, enumerated with itertools.
    """
    before, after, P, P_ref, Pw, Pw_ref = baseline_outside_loop[2]
    assert (before, after) == (False, True)
    # tol: each mean is at most 6 products of at most 4 factors, summed: a few roundings, far below 100 eps
    assert P == pytest.approx(P_ref, rel=100 * sys.float_info.epsilon)
    # tol: the same sums times W(A) (at most 4 terms of size <= 3): a few more roundings of terms <= 6.5
    assert Pw == pytest.approx(Pw_ref, rel=100 * sys.float_info.epsilon, abs=100 * sys.float_info.epsilon)


def test_the_book_leaves_sklearns_forests_to_the_chapters_that_train_one(import_then_use):
    """``limetheory.book`` imports scikit-learn's ensemble module (0.1 s) where a forest is made or checked: most
    chapters train none, and every chapter imports the book (after lime's text module, as here)."""
    _, used, book, _ = import_then_use
    assert "limetheory.book.forest_rows" in book and "limetheory.book.models" in book  # the book was imported
    assert "sklearn.ensemble" not in used and "sklearn.ensemble" not in book


def test_the_book_leaves_sympy_and_mpmath_to_the_chapters_that_use_them(import_then_use):
    """``limetheory.book`` imports sympy (half a CPU-second) where a sympy object is written, and only there: four
    chapters use no sympy, and their kernels need not load it for a summary or a number of the prose (a value
    cannot be a sympy object while sympy is not loaded).  mpmath comes with sympy and with ``mpreference``."""
    _, _, book, book_used = import_then_use
    assert {"limetheory.book.display", "limetheory.book.reader"} <= book  # the book was imported
    assert sorted(name for name in book_used if name.split(".")[0] in ("sympy", "mpmath")) == []
