"""booktools is a package of the repository like limetheory: declared, importable without path edits, and apart.

- pyproject.toml's ``book`` extra lists exactly the distributions that booktools imports (read from its import
  statements, function-level imports included), so a clone that installs ``-e .[book]`` can build the book;
- nothing in the repository puts a folder on ``sys.path`` to reach the tooling (the book's ``_config.yml``
  loads the extensions by their package names), and ``python -m booktools.chapters`` works from any folder;
- limetheory never imports booktools: the mathematics installs and runs without the book's tooling.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest
import yaml
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

try:  # Python 3.11 and newer
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - Python 3.10
    tomllib = None

ROOT = Path(__file__).resolve().parents[1]
FIRST_PARTY = {"booktools", "limetheory"}


def _imported_modules(package: Path) -> dict[str, set[str]]:
    """Top-level module name -> the files of ``package`` that import it (absolute imports only)."""
    found: dict[str, set[str]] = {}
    for path in sorted(package.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                found.setdefault(name.partition(".")[0], set()).add(path.name)
    return found


def _book_extra() -> list[Requirement]:
    """The ``book`` extra of pyproject.toml."""
    if tomllib is None:
        pytest.skip("reading pyproject.toml needs tomllib (Python 3.11)")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return [Requirement(line) for line in project["optional-dependencies"]["book"]]


def test_limetheory_never_imports_booktools():
    # the mathematics installs and runs on its own (tests/test_wheel.py builds a wheel of limetheory alone)
    imported = _imported_modules(ROOT / "limetheory")
    assert "booktools" not in imported, sorted(imported.get("booktools", ()))
    assert not (ROOT / "limetheory" / "chapters.py").exists(), "the chapter writer is booktools.chapters"


def test_the_book_extra_declares_what_booktools_imports_and_nothing_else():
    distributions = metadata.packages_distributions()
    imported: dict[str, set[str]] = {}
    for module, files in _imported_modules(ROOT / "booktools").items():
        if module in sys.stdlib_module_names or module in FIRST_PARTY or module == "__future__":
            continue
        assert module in distributions, f"{sorted(files)} import {module}, which no installed distribution provides"
        for distribution in distributions[module]:
            imported.setdefault(canonicalize_name(distribution), set()).update(files)
    declared = {canonicalize_name(requirement.name) for requirement in _book_extra()}
    assert set(imported) - declared == set(), {d: sorted(imported[d]) for d in set(imported) - declared}
    assert declared - set(imported) == set(), "declared in the book extra but not imported by booktools"


def test_requirements_install_the_book_extra():
    # the editable install of the repository, with its extras: the book's tooling among them
    lines = (ROOT / "requirements.txt").read_text(encoding="utf-8").splitlines()
    editable = [re.fullmatch(r"-e \.\[([a-z,]+)\]", line.strip()) for line in lines]
    extras = [set(match[1].split(",")) for match in editable if match]
    assert len(extras) == 1, "requirements.txt installs the repository once, editable, with its extras"
    assert "book" in extras[0]


def test_booktools_is_installed_from_this_repository(tmp_path):
    # from another folder, so that neither the working directory nor pytest's rootdir puts the clone on the path
    command = [sys.executable, "-c", "import booktools; print(booktools.__file__)"]
    completed = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert completed.returncode == 0, f"reinstall with: pip install -e '.[book]' --no-deps\n{completed.stderr}"
    assert Path(completed.stdout.strip()).resolve().parent == ROOT / "booktools"


# where a path edit could hide: Python files, the book's configuration, the Makefile and CI
_PATH_EDIT = re.compile(r"sys\.path\.(insert|append|extend)|sys\.path\s*[+]?=|local_extensions|PYTHONPATH=\S*tools")
_SEARCHED = ("booktools", "tests", "browser_tests", "benchmarks", "limetheory")


def test_nothing_puts_the_tooling_on_sys_path():
    files = [p for folder in _SEARCHED for p in (ROOT / folder).rglob("*.py")]
    files += [ROOT / "_config.yml", ROOT / "Makefile", *sorted((ROOT / ".github" / "workflows").glob("*.yml"))]
    offenders = [
        f"{path.relative_to(ROOT)}:{number}"
        for path in files
        if path != Path(__file__).resolve()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if _PATH_EDIT.search(line)
    ]
    assert offenders == []


def test_the_book_loads_its_extensions_by_package_name():
    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))["sphinx"]
    ours = [name for name in config["extra_extensions"] if name.startswith("booktools")]
    assert ours == ["booktools.bookext", "booktools.running", "booktools.guards", "booktools.prerender_math"]
    assert "local_extensions" not in config


BOOKTOOLS_MODULES = sorted(path.stem for path in (ROOT / "booktools").glob("*.py") if path.stem != "__init__")


@pytest.mark.parametrize("name", BOOKTOOLS_MODULES)
def test_the_examples_of_every_booktools_module_run(name):
    import doctest
    import importlib

    module = importlib.import_module(f"booktools.{name}")
    failed, _ = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert failed == 0


def test_the_chapter_writer_runs_as_a_module_from_any_folder(tmp_path):
    completed = subprocess.run(
        [sys.executable, "-m", "booktools.chapters"], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert completed.returncode == 2 and "usage: python -m booktools.chapters" in completed.stderr


def test_the_lock_pins_the_book_extra_within_its_ranges():
    # make installs `-e .[book]` with requirements.lock as constraints: every distribution of the extra must be pinned
    lock = (ROOT / "requirements.lock").read_text(encoding="utf-8")
    pins = {canonicalize_name(name): version for name, version in re.findall(r"^([A-Za-z0-9._-]+)==(\S+)$", lock, re.M)}
    for requirement in _book_extra():
        pinned = pins.get(canonicalize_name(requirement.name))
        assert pinned is not None, f"{requirement.name} is not in requirements.lock (run `make lock`)"
        assert requirement.specifier.contains(pinned, prereleases=True), f"{requirement} but the lock has {pinned}"
