"""The mutation harness: the suite as an upstream-change detector (``make mutants``; not part of ``make test``).

For each mutant of :mod:`mutants_catalogue`, the installed package (lime or scikit-learn) is copied whole into a
temporary folder (a package cannot be shadowed in part), the mutant's textual patches are applied to the copy,
the folder is put first on ``PYTHONPATH`` and the tests and chapters that guard the mutant's behaviour are run
(pytest, and nbval for the chapters).  A control run of the same selections on the unmodified packages comes
first; only failures that the control does not have count.  The report (JSON) records, per mutant, the failing
tests and the verdict:

- behaviour change: ``caught`` (a failing test's name says which behaviour), ``caught, unnamed`` or ``missed``;
- equivalent rewrite: ``passes`` or ``false alarm``;
- either: ``no longer applies`` when a patch's search text is not in the installed sources, ``not run`` when a
  test module could not even be collected against the mutated copy.

Usage: ``python -m booktools.mutants --report book/_data/mutants.json [--only NAME ...]``; ``--list`` prints the
catalogue.  The exit status is 0 when every behaviour change is caught by a named test and every equivalent
rewrite passes.
"""

from __future__ import annotations

import argparse
import datetime
import importlib.metadata
import importlib.util
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ElementTree
from pathlib import Path

from booktools import markers
from booktools import mutants_catalogue as catalogue

ROOT = Path(__file__).resolve().parents[1]
CAUGHT = "caught"
CAUGHT_UNNAMED = "caught, unnamed"
MISSED = "missed"
PASSES = "passes"
FALSE_ALARM = "false alarm"
DOES_NOT_APPLY = "no longer applies"
NOT_RUN = "not run"
ON_TARGET = {catalogue.BEHAVIOUR_CHANGE: CAUGHT, catalogue.EQUIVALENT_REWRITE: PASSES}
DISTRIBUTIONS = {"lime": "lime", "sklearn": "scikit-learn", "numpy": "numpy", "scipy": "scipy"}


class MutantDoesNotApply(Exception):
    """A patch's search text is not in the installed sources (as many times as the catalogue expects)."""


def package_folder(package):
    """The folder of the installed ``package`` (lime or sklearn), as Python would import it now."""
    if package not in catalogue.PACKAGES:
        raise ValueError(f"package must be one of {catalogue.PACKAGES}, got {package!r}")
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise ValueError(f"package {package!r} is not installed")
    return Path(list(spec.submodule_search_locations)[0])


def apply_patches(folder, mutant):
    """Apply ``mutant``'s patches to the package copy in ``folder``; MutantDoesNotApply when a search text is off."""
    for patch in mutant.patches:
        path = Path(folder) / patch.path
        if not path.is_file():
            raise MutantDoesNotApply(f"mutant {mutant.name!r} no longer applies: {patch.path} does not exist")
        text = path.read_text(encoding="utf-8")
        found = text.count(patch.search)
        if found != patch.count:
            raise MutantDoesNotApply(
                f"mutant {mutant.name!r} no longer applies: {patch.path} holds its search text {found} times, "
                f"expected {patch.count} (the installed version changed these lines)"
            )
        path.write_text(text.replace(patch.search, patch.replace), encoding="utf-8")


def mutated_copy(mutant, workdir, source=None):
    """Copy the mutant's package (whole, without bytecode or its own tests) into ``workdir`` and patch it.

    Returns the folder to put first on PYTHONPATH.  ``source`` overrides the installed package's folder.
    """
    behaviour = catalogue.behaviour(mutant.behaviour)
    source = Path(source) if source is not None else package_folder(behaviour.package)
    target = Path(workdir) / behaviour.package
    shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__", "tests"))
    # wheels keep their shared libraries beside the package (scikit_learn.libs), found through the extension
    # modules' RPATH $ORIGIN/../..: link them next to the copy too
    distribution = DISTRIBUTIONS.get(behaviour.package, behaviour.package).replace("-", "_")
    for libs in source.parent.glob(f"{distribution}.libs"):
        (Path(workdir) / libs.name).symlink_to(libs, target_is_directory=True)
    apply_patches(target, mutant)
    return Path(workdir)


def imported_from(package, pythonpath):
    """The folder ``package`` is imported from with ``pythonpath`` first (checks that the copy shadows it)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(pythonpath), os.environ.get("PYTHONPATH")]))}
    command = [sys.executable, "-c", f"import {package}, os; print(os.path.dirname({package}.__file__))"]
    completed = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    if completed.returncode != 0:
        raise RuntimeError(f"the mutated {package} does not import: {completed.stderr.strip().splitlines()[-1]}")
    return Path(completed.stdout.strip())


def failures_in_junit(path):
    """Names of the failed or erroring test cases of a pytest JUnit XML file (``file::test`` where known)."""
    failed = []
    for case in ElementTree.parse(path).getroot().iter("testcase"):
        if case.find("failure") is None and case.find("error") is None:
            continue
        classname, name = case.get("classname", ""), case.get("name", "")
        if classname.startswith("tests."):
            failed.append(f"{classname.replace('.', '/')}.py::{name}")
        else:
            failed.append(f"{classname}::{name}" if classname else name)
    return sorted(set(failed))


def selection_command(tests, chapters, junit):
    command = [
        sys.executable,
        "-m",
        "pytest",
        *tests,
        "-q",
        "-p",
        "no:cacheprovider",
        "-o",
        "addopts=",
        "--junitxml",
        str(junit),
    ]
    if chapters:
        command += [f"{chapter}.ipynb" for chapter in chapters]
        command += ["--nbval-lax", "--nbval-current-env", "--nbval-cell-timeout=1800"]
    return command


def run_selection(tests, chapters, pythonpath=None, log=None):
    """Run pytest (and nbval on ``chapters``) with ``pythonpath`` first; (failed test names, seconds)."""
    env = dict(os.environ)
    env.setdefault("OPENBLAS_NUM_THREADS", "1")
    env.setdefault("OMP_NUM_THREADS", "1")
    if pythonpath is not None:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(pythonpath), env.get("PYTHONPATH", "")]))
    with tempfile.TemporaryDirectory(prefix="mutant-junit-") as folder:
        junit = Path(folder) / "junit.xml"
        start = time.perf_counter()
        completed = subprocess.run(
            selection_command(tests, chapters, junit), cwd=ROOT, env=env, capture_output=True, text=True
        )
        seconds = time.perf_counter() - start
        if log is not None:
            log.write(completed.stdout[-4000:] + completed.stderr[-4000:])
        if not junit.exists():
            raise RuntimeError(f"pytest did not run (exit {completed.returncode}):\n{completed.stderr[-2000:]}")
        return failures_in_junit(junit), seconds


def failed_chapter_summaries(failures, root=ROOT):
    """The chapters whose nbval-checked summary cell (tagged ``nbval-check-output``) is among ``failures``.

    nbval names a chapter's cells "Cell k", k counting code cells only, under the class "notebooks.<file>".
    """
    chapters = []
    for name in failures:
        classname, _, cell = name.partition("::")
        if not (classname.startswith("notebooks.") and cell.startswith("Cell ")):
            continue
        notebook = json.loads((Path(root) / "notebooks" / classname.removeprefix("notebooks.")).read_text("utf-8"))
        code = [c for c in notebook["cells"] if c["cell_type"] == "code"]
        if markers.SUMMARY_TAG in code[int(cell.removeprefix("Cell "))].get("metadata", {}).get("tags", ()):
            chapters.append("notebooks/" + classname.removeprefix("notebooks.").removesuffix(".ipynb"))
    return sorted(set(chapters))


def verdict(mutant, failures):
    """The verdict of ``mutant`` given the failures that the control run does not have.

    A failure without a test name (``file::test``) is a module that could not be collected: then the selection
    did not run, and nothing is concluded.
    """
    if any("::" not in name for name in failures):
        return NOT_RUN
    if mutant.kind == catalogue.EQUIVALENT_REWRITE:
        return FALSE_ALARM if failures else PASSES
    if not failures:
        return MISSED
    return CAUGHT if named_failures(mutant, failures) else CAUGHT_UNNAMED


def named_failures(mutant, failures):
    """The failures whose test name contains one of the words of the mutant's behaviour."""
    words = catalogue.behaviour(mutant.behaviour).names
    return [name for name in failures if any(word in name.split("::")[-1].lower() for word in words)]


def run_mutant(mutant, control_failures, log=None):
    """Apply, run and judge one mutant; a dictionary for the report."""
    behaviour = catalogue.behaviour(mutant.behaviour)
    entry = {
        "name": mutant.name,
        "behaviour": behaviour.key,
        "package": behaviour.package,
        "kind": mutant.kind,
        "change": mutant.change,
        "tests": list(behaviour.tests),
        "chapters": list(behaviour.chapters),
    }
    with tempfile.TemporaryDirectory(prefix=f"mutant-{mutant.name}-") as workdir:
        try:
            pythonpath = mutated_copy(mutant, workdir)
            if imported_from(behaviour.package, pythonpath) != pythonpath / behaviour.package:
                raise RuntimeError(f"the copy in {pythonpath} does not shadow the installed {behaviour.package}")
        except MutantDoesNotApply as error:
            return {
                **entry,
                "verdict": DOES_NOT_APPLY,
                "reason": str(error),
                "failures": [],
                "named": [],
                "chapter_summaries": [],
                "seconds": 0,
            }
        failures, seconds = run_selection(behaviour.tests, behaviour.chapters, pythonpath, log)
    new = [name for name in failures if name not in control_failures]
    return {
        **entry,
        "verdict": verdict(mutant, new),
        "failures": new,
        "named": named_failures(mutant, new),
        "chapter_summaries": failed_chapter_summaries(new),
        "seconds": round(seconds, 1),
    }


def versions():
    found = {name: importlib.metadata.version(dist) for name, dist in DISTRIBUTIONS.items()}
    return {**found, "python": platform.python_version()}


def summary(entries):
    counts = {}
    for entry in entries:
        counts[entry["verdict"]] = counts.get(entry["verdict"], 0) + 1
    on_target = all(entry["verdict"] == ON_TARGET[entry["kind"]] for entry in entries)
    return {"counts": counts, "on_target": on_target, "mutants": len(entries)}


def run(mutants, log=None):
    """The control run, then every mutant; the whole report as a dictionary."""
    behaviours = [catalogue.behaviour(key) for key in dict.fromkeys(m.behaviour for m in mutants)]
    tests = list(dict.fromkeys(t for b in behaviours for t in b.tests))
    chapters = list(dict.fromkeys(c for b in behaviours for c in b.chapters))
    control_failures, control_seconds = run_selection(tests, chapters, log=log)
    entries = []
    for mutant in mutants:
        entry = run_mutant(mutant, set(control_failures), log)
        entries.append(entry)
        print(
            f"{entry['verdict']:>16}  {mutant.name}  ({entry['seconds']} s, {len(entry['failures'])} failures)",
            flush=True,
        )
    return {
        "generated": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "versions": versions(),
        "control": {
            "tests": tests,
            "chapters": chapters,
            "failures": control_failures,
            "seconds": round(control_seconds, 1),
        },
        "behaviours": [
            {
                "key": b.key,
                "package": b.package,
                "title": b.title,
                "tests": list(b.tests),
                "chapters": list(b.chapters),
                "names": list(b.names),
            }
            for b in behaviours
        ],
        "mutants": entries,
        "summary": summary(entries),
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--report", type=Path, help="where to write the JSON report")
    parser.add_argument("--only", action="append", default=[], help="run only this mutant (repeatable)")
    parser.add_argument("--list", action="store_true", help="print the catalogue and exit")
    arguments = parser.parse_args(argv)
    if arguments.list:
        for m in catalogue.MUTANTS:
            print(f"{m.kind:>10}  {m.name:<36} {m.behaviour:<13} {m.change}")
        return 0
    if arguments.report is None:
        parser.error("--report is required (where to write the JSON report)")
    mutants = [catalogue.mutant(name) for name in arguments.only] or list(catalogue.MUTANTS)
    log_path = ROOT / "_build" / "mutants.log"  # pytest's output of every run, for a failure's details
    log_path.parent.mkdir(exist_ok=True)
    with open(log_path, "w", encoding="utf-8") as log:
        report = run(mutants, log)
    arguments.report.parent.mkdir(parents=True, exist_ok=True)
    arguments.report.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    counts = ", ".join(f"{count} {name}" for name, count in report["summary"]["counts"].items())
    print(f"{report['summary']['mutants']} mutants: {counts}; report in {arguments.report}")
    return 0 if report["summary"]["on_target"] else 1


if __name__ == "__main__":
    sys.exit(main())
