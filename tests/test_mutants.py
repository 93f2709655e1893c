"""The mutation harness (booktools/mutants.py), its catalogue and the page rendered from its report.

The harness itself runs in ``make mutants`` (minutes per mutant); these tests check its parts on small inputs:
patching a copy (and refusing a patch whose text is gone), reading pytest's JUnit report, the verdicts, the
catalogue's consistency with the tests it names, and the page's text.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from booktools import guards, mutants
from booktools import mutants_catalogue as catalogue

ROOT = Path(__file__).resolve().parents[1]


def fake_package(folder):
    package = folder / "lime"
    package.mkdir()
    (package / "lime_text.py").write_text("def kernel(d, w):\n    return sqrt(exp(-d ** 2 / w ** 2))\n")
    (package / "__pycache__").mkdir()
    (package / "__pycache__" / "stale.pyc").write_bytes(b"stale")
    return package


def kernel_mutant(search="sqrt(exp(-d ** 2 / w ** 2))", count=1):
    patch = catalogue.Patch("lime_text.py", search, "exp(-d ** 2 / (2 * w ** 2))", count)
    return catalogue.Mutant("test-kernel", "kernel", catalogue.EQUIVALENT_REWRITE, "a test rewrite", (patch,))


def test_mutated_copy_patches_a_copy_and_leaves_the_original(tmp_path):
    source = fake_package(tmp_path)
    workdir = tmp_path / "work"
    workdir.mkdir()
    assert mutants.mutated_copy(kernel_mutant(), workdir, source=source) == workdir
    assert (workdir / "lime" / "lime_text.py").read_text().endswith("return exp(-d ** 2 / (2 * w ** 2))\n")
    assert "sqrt" in (source / "lime_text.py").read_text()
    assert not (workdir / "lime" / "__pycache__").exists()  # no bytecode of the unpatched sources


@pytest.mark.parametrize(
    ("mutant", "message"),
    [
        (kernel_mutant(search="np.sqrt(np.exp"), "holds its search text 0 times, expected 1"),
        (kernel_mutant(count=2), "holds its search text 1 times, expected 2"),
    ],
)
def test_a_patch_whose_text_is_gone_no_longer_applies(tmp_path, mutant, message):
    source = fake_package(tmp_path)
    workdir = tmp_path / "work"
    workdir.mkdir()
    with pytest.raises(mutants.MutantDoesNotApply, match=rf"^mutant 'test-kernel' no longer applies: .*{message}"):
        mutants.mutated_copy(mutant, workdir, source=source)


def test_a_patch_of_a_missing_file_no_longer_applies(tmp_path):
    mutant = catalogue.Mutant(
        "gone", "kernel", catalogue.BEHAVIOUR_CHANGE, "x", (catalogue.Patch("gone.py", "a", "b"),)
    )
    with pytest.raises(mutants.MutantDoesNotApply, match="gone.py does not exist"):
        mutants.apply_patches(tmp_path, mutant)


def test_the_mutated_copy_of_lime_is_what_python_imports(tmp_path):
    mutant = catalogue.mutant("num-features-6")
    pythonpath = mutants.mutated_copy(mutant, tmp_path)
    assert mutants.imported_from("lime", pythonpath) == tmp_path / "lime"
    assert "num_features=6," in (tmp_path / "lime" / "lime_text.py").read_text()
    assert "num_features=10," in (mutants.package_folder("lime") / "lime_text.py").read_text()


def test_package_folder_refuses_other_packages():
    with pytest.raises(ValueError, match="^package must be one of"):
        mutants.package_folder("numpy")
    assert (mutants.package_folder("lime") / "lime_text.py").is_file()


def test_failures_are_read_from_junit(tmp_path):
    junit = tmp_path / "junit.xml"
    junit.write_text(
        """<testsuites><testsuite>
        <testcase classname="tests.test_fast" name="test_ok"/>
        <testcase classname="tests.test_fast" name="test_bad[a]"><failure message="x"/></testcase>
        <testcase classname="tests.test_lime_defaults" name="test_setup"><error message="y"/></testcase>
        <testcase classname="notebooks.02-sampling.ipynb" name="Cell 3"><failure message="z"/></testcase>
        <testcase classname="tests.test_fast" name="test_skipped"><skipped/></testcase>
        </testsuite></testsuites>"""
    )
    assert mutants.failures_in_junit(junit) == [
        "notebooks.02-sampling.ipynb::Cell 3",
        "tests/test_fast.py::test_bad[a]",
        "tests/test_lime_defaults.py::test_setup",
    ]


def test_failed_chapter_summaries_are_the_nbval_checked_cells(tmp_path):
    (tmp_path / "notebooks").mkdir()
    cells = [
        {"cell_type": "markdown", "source": ["# title"]},
        {"cell_type": "code", "source": ["x = 1"]},
        {"cell_type": "code", "metadata": {"tags": ["hide-input", "nbval-check-output"]}, "source": ["print(x)"]},
    ]
    (tmp_path / "notebooks" / "09-x.ipynb").write_text(json.dumps({"cells": cells}))
    assert mutants.failed_chapter_summaries(["notebooks.09-x.ipynb::Cell 0"], root=tmp_path) == []
    failures = ["notebooks.09-x.ipynb::Cell 1", "tests/test_fast.py::test_a"]
    assert mutants.failed_chapter_summaries(failures, root=tmp_path) == ["notebooks/09-x"]


def test_verdicts():
    change = catalogue.mutant("kernel-without-square-root")
    rewrite = catalogue.mutant("kernel-as-one-exponential")
    named = "tests/test_upstream_behaviour.py::test_lime_kernel_weights_are_psi_of_the_removed_fraction[25]"
    other = "tests/test_fast.py::test_exact_stream_equals_real_lime[case0-tree]"
    assert mutants.verdict(change, []) == mutants.MISSED
    assert mutants.verdict(change, [other]) == mutants.CAUGHT_UNNAMED
    assert mutants.verdict(change, [other, named]) == mutants.CAUGHT
    assert mutants.named_failures(change, [other, named]) == [named]
    assert mutants.verdict(rewrite, []) == mutants.PASSES
    assert mutants.verdict(rewrite, [named]) == mutants.FALSE_ALARM
    # a module that did not even import concludes nothing, whatever the kind
    assert mutants.verdict(change, ["tests.test_fast", named]) == mutants.NOT_RUN
    assert mutants.verdict(rewrite, ["tests.test_fast"]) == mutants.NOT_RUN
    # a behaviour word in the file name does not count: the test's own name must say it
    assert mutants.named_failures(change, ["tests/test_kernel.py::test_other"]) == []


def test_summary_is_on_target_only_when_every_verdict_is():
    entries = [{"kind": "behaviour", "verdict": "caught"}, {"kind": "equivalent", "verdict": "passes"}]
    assert mutants.summary(entries) == {"counts": {"caught": 1, "passes": 1}, "on_target": True, "mutants": 2}
    for kind, verdict in [
        ("behaviour", "caught, unnamed"),
        ("equivalent", "false alarm"),
        ("behaviour", "missed"),
        ("equivalent", "no longer applies"),
    ]:
        assert not mutants.summary([*entries, {"kind": kind, "verdict": verdict}])["on_target"]


def test_selection_command_adds_nbval_only_for_chapters(tmp_path):
    plain = mutants.selection_command(["tests/test_fast.py"], [], tmp_path / "j.xml")
    assert "--nbval-lax" not in plain and plain[-1] == str(tmp_path / "j.xml")
    with_chapter = mutants.selection_command(["tests/test_fast.py"], ["notebooks/02-sampling"], tmp_path / "j.xml")
    assert "notebooks/02-sampling.ipynb" in with_chapter and "--nbval-lax" in with_chapter


# ----------------------------------------------------------------------------- the catalogue


def function_names_of_tests(path):
    return [
        node.name
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test_")
    ]


def test_catalogue_covers_the_issue_and_is_consistent():
    names = [m.name for m in catalogue.MUTANTS]
    assert len(names) == len(set(names))
    keys = {b.key for b in catalogue.BEHAVIOURS}
    assert keys >= {
        "sampling",
        "kernel",
        "distance",
        "surrogate",
        "first-row",
        "tokenisation",
        "defaults",
        "random-state",
        "tfidf",
    }
    for m in catalogue.MUTANTS:
        assert m.behaviour in keys and m.kind in catalogue.KINDS and m.patches, m.name
    for b in catalogue.BEHAVIOURS:
        assert b.package in catalogue.PACKAGES
        kinds = {m.kind for m in catalogue.MUTANTS if m.behaviour == b.key}
        assert catalogue.BEHAVIOUR_CHANGE in kinds, b.key
        for selector in b.tests:
            assert (ROOT / selector.split("::")[0]).is_file(), selector
        for chapter in b.chapters:
            assert (ROOT / f"{chapter}.ipynb").is_file(), chapter
    with pytest.raises(KeyError, match="unknown mutant"):
        catalogue.mutant("nothing")
    with pytest.raises(KeyError, match="unknown behaviour"):
        catalogue.behaviour("nothing")


def test_every_behaviour_has_a_test_named_after_it_in_its_selection():
    for b in catalogue.BEHAVIOURS:
        names = [name for selector in b.tests for name in function_names_of_tests(ROOT / selector.split("::")[0])]
        assert any(word in name for name in names for word in b.names), b.key


# ----------------------------------------------------------------------------- the page


def small_report(verdict="caught"):
    return {
        "generated": "2026-01-01T00:00:00+00:00",
        "versions": {"lime": "0.2.0.1", "scikit-learn": "1.9.1"},
        "control": {"failures": []},
        "behaviours": [
            {
                "key": "kernel",
                "package": "lime",
                "title": "lime's kernel",
                "tests": ["tests/a.py"],
                "chapters": ["notebooks/03-weights"],
                "names": ["kernel"],
            }
        ],
        "mutants": [
            {
                "name": "kernel-x",
                "behaviour": "kernel",
                "kind": "behaviour",
                "change": "no | sqrt <x>",
                "verdict": verdict,
                "failures": ["tests/a.py::test_kernel_a", "tests/a.py::test_b"],
                "named": ["tests/a.py::test_kernel_a"],
                "chapter_summaries": ["notebooks/03-weights"],
            },
        ],
        "summary": {"counts": {verdict: 1}, "on_target": verdict == "caught", "mutants": 1},
    }


def test_page_text_from_a_report():
    text = "\n".join(guards.report_markdown(small_report()))
    assert "**On target**" in text
    assert "lime 0.2.0.1, scikit-learn 1.9.1" in text
    assert "{doc}`03-weights <../notebooks/03-weights>`" in text
    summary = "checked summary of {doc}`03-weights <../notebooks/03-weights>` failed"
    row = f"| no \\| sqrt \\<x> (`kernel-x`) | behaviour change | ✓ caught; {summary} | 2 (1 named after it) |"
    assert row in text
    missed = "\n".join(guards.report_markdown(small_report("missed")))
    assert "**Not on target**" in missed and "✗ missed" in missed
    assert "Failed under `kernel-x`: `test_kernel_a`, `test_b`." in missed  # off target: every name shown


def test_stored_report_renders_and_matches_the_catalogue():
    report = json.loads((ROOT / "book" / "_data" / "mutants.json").read_text())
    assert {e["name"] for e in report["mutants"]} == {m.name for m in catalogue.MUTANTS}
    assert guards.report_markdown(report)
