"""The package on its own: a wheel built from the repository works in a fresh virtual environment, away from the clone.

The wheel is built offline (``uv build --no-build-isolation``, else ``pip wheel``, with this environment's
setuptools) from a copy of the files a wheel is made of, so the clone is not touched.  The fresh environment gets no
network either: it sees the
already installed distributions that the wheel *declares* (the closure of its ``Requires-Dist``, linked from this
environment's site-packages), and nothing else, so an undeclared import fails here.  The editable ``limetheory`` of
this environment is never visible.  In that environment, from a temporary working folder, ``limetheory`` must import
from the environment itself, every module must import, the data must load through ``LIMETHEORY_DATA_DIR``, and every
docstring example must pass.  With the ``notebook`` extra added, a chapter's stored ``.ipynb``, as the book offers it
for download, must run to the same summary.

The installed package's numba cache starts from this checkout's (``__pycache__/*.nbi``, ``*.nbc``), copied for each
module whose installed source is byte for byte the checkout's: numba stamps an index with the sha256 of the source
file's bytes, not its path or time, so it loads an entry only for the very source it was compiled from, and compiles
anything else afresh.  Compiling the same kernels again in another folder (about 20 s of CPU) would test numba, not
the wheel; compiling without a usable cache is tests/test_read_only_install.py's subject.
"""

from __future__ import annotations

import email.parser
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import venv
import zipfile
from importlib import metadata
from pathlib import Path

import nbformat
import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from booktools.markers import SUMMARY_TAG

ROOT = Path(__file__).resolve().parents[1]
SITE_PACKAGES = Path(sysconfig.get_paths()["purelib"])
# what the wheel is built from; a wheel built from these files alone must work
WHEEL_SOURCES = ("pyproject.toml", "README.md", "limetheory")
# the quickest chapter (as in browser_tests/test_lab.py)
CHAPTER = "17-expected-tfidf"

CHECK_INSTALLED = """
import doctest, importlib, json, os, pkgutil, sys
from pathlib import Path

import limetheory

report = {"file": limetheory.__file__, "prefix": sys.prefix, "modules": [], "doctest": {}}
for module in pkgutil.walk_packages(limetheory.__path__, "limetheory."):
    imported = importlib.import_module(module.name)
    report["modules"].append(module.name)
    failed, attempted = doctest.testmod(imported, optionflags=doctest.ELLIPSIS, report=True)
    report["doctest"][module.name] = [failed, attempted]
reviews = limetheory.load_yelp_reviews()
report["reviews"] = [len(reviews), sorted(reviews.columns)]
print(json.dumps(report))
"""

RUN_CHAPTER = """
import json, sys
import nbformat
from nbclient import NotebookClient

notebook = nbformat.read(sys.argv[1], as_version=4)
for cell in notebook.cells:
    if cell.cell_type == "code":
        cell.outputs, cell.execution_count = [], None
# which python and which limetheory the kernel uses
probe = nbformat.v4.new_code_cell("import sys, limetheory; print(sys.prefix); print(limetheory.__file__)")
notebook.cells.insert(0, probe)
NotebookClient(notebook, timeout=600, kernel_name="python3").execute()
print(json.dumps(notebook))
"""


def _requirements_of_wheel(wheel: Path) -> list[Requirement]:
    with zipfile.ZipFile(wheel) as archive:
        name = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        headers = email.parser.Parser().parsestr(archive.read(name).decode())
    return [Requirement(line) for line in headers.get_all("Requires-Dist") or []]


#: what make leaves out of the venv on purpose although an extra asks for it (requirements-exclude.txt): not
#: installed here, so not linked into the fresh environment either
EXCLUDED = {
    canonicalize_name(line.strip())
    for line in (ROOT / "requirements-exclude.txt").read_text(encoding="utf-8").splitlines()
    if line.strip() and not line.startswith("#")
}


def _closure(requirements: list[Requirement], extra: str = "") -> set[str]:
    """Installed distributions (canonical names) that ``requirements`` need, with the given extra of the root."""
    needed: set[str] = set()
    pending = [(requirement, extra) for requirement in requirements]
    while pending:
        requirement, active_extra = pending.pop()
        if requirement.marker and not requirement.marker.evaluate({"extra": active_extra}):
            continue
        if canonicalize_name(requirement.name) in EXCLUDED:
            continue
        try:
            distribution = metadata.distribution(requirement.name)
        except metadata.PackageNotFoundError:
            pytest.fail(f"{requirement} is declared but not installed here: the fresh environment cannot get it")
        key = canonicalize_name(distribution.metadata["Name"])
        wanted = [(key, "")] + [(key, canonicalize_name(e)) for e in requirement.extras]
        for name, wanted_extra in wanted:
            if (name, wanted_extra) in needed:
                continue
            needed.add((name, wanted_extra))
            pending += [(Requirement(line), wanted_extra) for line in distribution.requires or []]
    return {name for name, _ in needed}


def _link_distributions(names: set[str], farm: Path) -> None:
    """Symlink into ``farm`` the top-level entries of site-packages that belong to the distributions ``names``."""
    for name in names:
        distribution = metadata.distribution(name)
        assert Path(distribution.locate_file("")).resolve() == SITE_PACKAGES.resolve(), f"{name} is not in the venv"
        tops = {Path(file).parts[0] for file in distribution.files or [] if not str(file).startswith("..")}
        for top in tops:
            assert "limetheory" not in top.lower(), f"{name} would bring limetheory along ({top})"
            link = farm / top
            if not link.exists() and (SITE_PACKAGES / top).exists():
                link.symlink_to(SITE_PACKAGES / top)


def _seed_numba_cache(installed: Path) -> int:
    """Copy this checkout's numba cache files into ``installed`` (the installed ``limetheory`` folder), for each module
    whose installed source has the checkout's bytes; return how many files were copied."""
    copied = 0
    for source in installed.rglob("*.py"):
        relative = source.relative_to(installed)
        origin = ROOT / "limetheory" / relative
        if not origin.is_file() or origin.read_bytes() != source.read_bytes():
            continue
        for cached in sorted((origin.parent / "__pycache__").glob(f"{origin.stem}.*.nb[ic]")):
            target = source.parent / "__pycache__" / cached.name
            target.parent.mkdir(exist_ok=True)
            shutil.copyfile(cached, target)
            copied += 1
    return copied


def _run(command: list[str], cwd: Path, env: dict[str, str], timeout: int = 600) -> str:
    result = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert result.returncode == 0, f"{' '.join(map(str, command))} failed:\n{result.stdout}\n{result.stderr}"
    return result.stdout


def _summary_text(notebook) -> str:
    cells = [
        cell for cell in notebook.cells if cell.cell_type == "code" and SUMMARY_TAG in cell.metadata.get("tags", ())
    ]
    assert len(cells) == 1, f"expected one cell tagged {SUMMARY_TAG}"
    return "".join(
        output.get("text", "") if output.output_type == "stream" else output.get("data", {}).get("text/plain", "")
        for output in cells[0].outputs
    )


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """A fresh venv with the built wheel installed; yields (its python, a neutral working folder, its environment)."""
    work = tmp_path_factory.mktemp("wheel")
    source = work / "source"
    source.mkdir()
    for name in WHEEL_SOURCES:
        origin = ROOT / name
        if origin.is_dir():
            shutil.copytree(origin, source / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copy(origin, source / name)
    env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    env.update(PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1", MPLBACKEND="Agg", PYTHONNOUSERSITE="1")
    env["LIMETHEORY_CACHE_DIR"] = str(work / "cache")
    # uv (make installs it into the venv) builds through the same backend, this environment's setuptools, in half
    # of pip's CPU time (0.8-1.0 against 2.0 CPU-s); pip where uv is missing
    uv = Path(sys.executable).with_name("uv")
    build = (
        [str(uv), "build", "--wheel", "--no-build-isolation", "--offline", "--python", sys.executable, "-o"]
        if uv.is_file()
        else [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-w"]
    )
    _run([*build, str(work / "dist"), str(source)], work, env)
    (wheel,) = (work / "dist").glob("limetheory-*.whl")

    fresh = work / "fresh"
    venv.EnvBuilder(with_pip=False).create(fresh)
    python = fresh / "bin" / "python"
    fresh_site = Path(
        _run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], work, env).strip()
    )
    farm = work / "declared-dependencies"
    farm.mkdir()
    requirements = _requirements_of_wheel(wheel)
    # the core dependencies and the corpus extra (explain_many's Parquet store: its examples use pyarrow)
    _link_distributions(_closure(requirements) | _closure(requirements, "corpus"), farm)
    # a site directory (its .pth files run) holding exactly the declared dependencies
    (fresh_site / "declared_dependencies.pth").write_text(f"import site; site.addsitedir({str(farm)!r})\n")
    # this environment's pip installs into the fresh one; --no-index: dependencies must already be there
    _run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-index", str(wheel)], work, env)
    _seed_numba_cache(fresh_site / "limetheory")
    neutral = work / "elsewhere"
    neutral.mkdir()
    yield python, neutral, env, fresh, (farm, requirements)


def test_wheel_works_on_its_own(installed):
    python, neutral, env, fresh, _ = installed
    if not os.environ.get("LIMETHEORY_DATA_DIR"):
        pytest.skip("LIMETHEORY_DATA_DIR is not set (CI sets it in .ci/run): the data would be downloaded")
    output = _run([str(python), "-c", CHECK_INSTALLED], neutral, env)
    report = json.loads(output.splitlines()[-1])
    assert Path(report["prefix"]).resolve() == fresh.resolve()
    assert Path(report["file"]).resolve().is_relative_to(fresh.resolve()), report["file"]
    shipped = {
        ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        for path in (ROOT / "limetheory").rglob("*.py")
    } - {"limetheory"}
    assert set(report["modules"]) == shipped
    failures = {module: counts for module, counts in report["doctest"].items() if counts[0]}
    assert not failures, f"docstring examples failing in the installed package: {failures}\n{output}"
    assert sum(attempted for _, attempted in report["doctest"].values()) > 0
    assert report["reviews"] == [1000, ["stars", "text"]]


def test_downloaded_chapter_runs_with_the_notebook_extra(installed):
    python, neutral, env, fresh, (farm, requirements) = installed
    if not os.environ.get("LIMETHEORY_DATA_DIR"):
        pytest.skip("LIMETHEORY_DATA_DIR is not set (CI sets it in .ci/run): the data would be downloaded")
    # what `pip install "limetheory[notebook]"` adds, and nbclient to drive the kernel as JupyterLab would
    _link_distributions(_closure(requirements, extra="notebook") | _closure([Requirement("nbclient")]), farm)
    downloaded = neutral / f"{CHAPTER}.ipynb"
    shutil.copy(ROOT / "notebooks" / f"{CHAPTER}.ipynb", downloaded)
    notebook = nbformat.reads(_run([str(python), "-c", RUN_CHAPTER, str(downloaded)], neutral, env), as_version=4)
    prefix, module = notebook.cells[0].outputs[0]["text"].split()
    assert Path(prefix).resolve() == fresh.resolve() and Path(module).resolve().is_relative_to(fresh.resolve())
    errors = [
        out for cell in notebook.cells if cell.cell_type == "code" for out in cell.outputs if out.output_type == "error"
    ]
    assert not errors
    stored = nbformat.read(ROOT / "notebooks" / f"{CHAPTER}.ipynb", as_version=4)
    assert _summary_text(notebook) == _summary_text(stored)
    assert _summary_text(stored).strip()
