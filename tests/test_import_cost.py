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


def _modules_after(code: str) -> set[str]:
    """The names in ``sys.modules`` after running ``code`` in a fresh interpreter (from the repository's root)."""
    report = "\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    done = subprocess.run(
        [sys.executable, "-c", code + report], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return set(json.loads(done.stdout.splitlines()[-1]))


def _heavy(modules: set[str]) -> set[str]:
    return {name for name in modules if name.split(".")[0] in HEAVY}


@pytest.fixture(scope="module")
def baseline() -> set[str]:
    """The heavy modules ``import sklearn, lime`` loads by itself."""
    return _heavy(_modules_after("import sklearn, lime"))


@pytest.fixture(scope="module")
def package_modules() -> set[str]:
    """The package's modules that ``import limetheory`` loads (heavy or not)."""
    return {name for name in _modules_after("import limetheory") if name.split(".")[0] == "limetheory"}


def _layer(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 2 else "root"


def _module_level_heavy_imports(source: str) -> list[str]:
    """``line: statement`` of each import of a HEAVY library in ``source`` that runs when the module is imported."""
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
            if any(name.split(".")[0] in HEAVY for name in names):
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
    outside = sorted(name for name in package_modules if _layer(name) not in ("pipelines", "book"))
    assert "limetheory.theory.boolean" in outside and "limetheory.data" in outside  # the reading covers them
    found = {name: _module_level_heavy_imports(_source(name)) for name in outside}
    assert {name: lines for name, lines in found.items() if lines} == {}


def test_the_pipelines_import_no_heavy_library_at_module_level(package_modules):
    inside = sorted(name for name in package_modules if _layer(name) == "pipelines")
    found = {name: _module_level_heavy_imports(_source(name)) for name in inside}
    assert {name: lines for name, lines in found.items() if lines} == {}


def test_the_modules_outside_pipelines_load_nothing_heavy_beyond_sklearn_and_lime(package_modules, baseline):
    outside = sorted(name for name in package_modules if _layer(name) not in ("pipelines", "book"))
    code = _EMPTY_PACKAGE + "".join(f"importlib.import_module({name!r})\n" for name in outside)
    loaded = _modules_after("import sklearn, lime\n" + code)
    assert not any(_layer(name) == "pipelines" for name in loaded if name.startswith("limetheory."))
    assert sorted(_heavy(loaded) - baseline) == []


def test_import_limetheory_loads_nothing_heavy_beyond_sklearn_and_lime(baseline):
    loaded = _heavy(_modules_after("import limetheory"))
    assert sorted(loaded - baseline) == []


#: what lime's text module loads beyond ``import sklearn, lime``: lime's own modules and scikit-learn's linear models,
#: metrics and model selection (a third of a second in a fresh interpreter at a load of 8); the package imports them
#: where it calls lime, so that ``import limetheory`` stays within 0.3 s of ``import sklearn, lime``
LIME_TEXT_LOADS = ("lime.lime_text", "lime.lime_base", "sklearn.linear_model", "sklearn.metrics", "sklearn.compose")


def test_import_limetheory_loads_neither_limes_text_module_nor_sklearns_linear_models():
    loaded = _modules_after("import limetheory")
    assert sorted(name for name in LIME_TEXT_LOADS if name in loaded) == []
    use = "limetheory.explain(lambda docs: [1.0 * len(d) for d in docs], 'good food', progress=False).to_lime()"
    used = _modules_after(f"import limetheory\n{use}\nlimetheory.LimeTextExplainer()")
    assert {"lime.lime_text", "lime.lime_base", "sklearn.linear_model"} <= used  # loaded where they are used


def test_a_compiled_loop_imports_numba_on_its_first_call():
    """The recursions of the exact linear route load numba when first called, and compute what they should.

    The reference is the definition: the mean over the a-subsets A of the words of prod_A x and W(A) prod_A x,
    enumerated with itertools.
    """
    code = _EMPTY_PACKAGE + (
        "import itertools, math, numpy as np\n"
        "from limetheory.theory.linear.subset_means import full_means\n"
        "before = 'numba' in sys.modules\n"
        "x, w = np.array([[0.3, 0.9, 0.5, 0.7]]), np.array([1.0, -2.0, 0.5, 3.0])\n"
        "P, Pw = full_means(x, w)\n"
        "subsets = [list(itertools.combinations(range(4), a)) for a in range(5)]\n"
        "P_ref = [np.mean([math.prod(x[0, list(A)]) for A in sets]) for sets in subsets]\n"
        "Pw_ref = [np.mean([w[list(A)].sum() * math.prod(x[0, list(A)]) for A in sets]) for sets in subsets]\n"
        "print(json.dumps([before, 'numba' in sys.modules, P[0].tolist(), P_ref, Pw[0].tolist(), Pw_ref]))\n"
    )
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    done = subprocess.run(
        [sys.executable, "-c", "import json, sys\n" + code], cwd=ROOT, env=env, capture_output=True, text=True,
        timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    before, after, P, P_ref, Pw, Pw_ref = json.loads(done.stdout.splitlines()[-1])
    assert (before, after) == (False, True)
    # tol: each mean is at most 6 products of at most 4 factors, summed: a few roundings, far below 100 eps
    assert P == pytest.approx(P_ref, rel=100 * sys.float_info.epsilon)
    # tol: the same sums times W(A) (at most 4 terms of size <= 3): a few more roundings of terms <= 6.5
    assert Pw == pytest.approx(Pw_ref, rel=100 * sys.float_info.epsilon, abs=100 * sys.float_info.epsilon)
