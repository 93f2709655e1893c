"""Every docstring example of the package runs, module by module, as a doctest.

The examples are written to print the same text on every CPU: floating-point results are rounded (and 0.0 is
added to rounded values, so that a tiny negative number prints as 0.0, not -0.0).  tests/test_wheel.py runs them
again in a freshly installed wheel.
"""

from __future__ import annotations

import doctest
import importlib
import os
import pkgutil

import numpy as np
import pytest

import limetheory
import limetheory.book

MODULES = sorted(module.name for module in pkgutil.walk_packages(limetheory.__path__, "limetheory."))
# modules whose examples read the paper's Yelp reviews (CI sets LIMETHEORY_DATA_DIR; nothing is downloaded here)
NEEDS_DATA = {"limetheory.data"}


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name, monkeypatch):
    if name in NEEDS_DATA and not os.environ.get("LIMETHEORY_DATA_DIR"):
        pytest.skip("LIMETHEORY_DATA_DIR is not set (CI sets it to the folder holding the Yelp csv)")
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "1")
    module = importlib.import_module(name)
    with np.printoptions(legacy=False):  # numpy's default printing, whatever a previous test set
        result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples of {name} failed (output above)"


def test_every_module_with_public_functions_has_examples():
    """A module of the public API without a single example would pass the test above vacuously."""
    public_modules = {
        getattr(namespace, name).__module__
        for namespace in (limetheory, limetheory.book)
        for name in namespace.__all__
        if callable(getattr(namespace, name))
    }
    finder = doctest.DocTestFinder()
    empty = [
        name
        for name in sorted(public_modules)
        if not any(test.examples for test in finder.find(importlib.import_module(name)))
    ]
    assert empty == []


def test_every_module_is_collected():
    """The subpackages' modules are walked, not only the package's top level."""
    assert {"limetheory.theory.law", "limetheory.engine.fast", "limetheory.book.display"} <= set(MODULES)


def test_a_failing_example_is_reported(tmp_path, monkeypatch):
    """The check above fails when an example prints something else."""
    (tmp_path / "wrong_example.py").write_text('def f():\n    """\n    >>> 1 + 1\n    3\n    """\n')
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module("wrong_example")
    result = doctest.testmod(module, report=False)
    assert (result.failed, result.attempted) == (1, 1)
