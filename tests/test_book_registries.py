"""The book's registries (blueprint of results, errata, figure index) agree with the chapters."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

import blueprint  # noqa: E402


def test_every_result_has_a_consistent_blueprint_entry():
    assert blueprint.blueprint_problems(ROOT) == []


def test_errata_entries_are_complete_and_match_the_chapters():
    assert blueprint.errata_problems(ROOT) == []


def test_every_paper_figure_is_reproduced_or_explained():
    figures = blueprint.paper_figures(ROOT)
    assert [f.number for f in figures] == [f"Figure {k}" for k in range(1, 18)]
    assert [f.part for f in figures] == ["main text"] * 7 + ["supplement"] * 10
    assert blueprint.figure_problems(ROOT) == []


def test_every_erratum_has_an_allowed_severity():
    severities = {entry.fields["severity"] for entry in blueprint.errata(ROOT)}
    assert severities <= set(blueprint.SEVERITIES)


# The checks themselves must be able to fail: a miniature book with one fault of each kind.

CHAPTER = """\
```{prf:proposition} A statement
:label: mini-prop
:nonumber:

Text.
```

```{prf:lemma} Another
:label: mini-lemma
:nonumber:
```

(erratum-mini-slip)=
### Erratum: a slip

```{code-cell} ipython3
# check: mini-check
assert True
```

```{code-cell} ipython3
---
mystnb:
  figure:
    name: fig-mini
---
pass
```
"""


def _mini_book(tmp_path, registry, errata="", figures="[]"):
    (tmp_path / "notebooks").mkdir()
    (tmp_path / "book").mkdir()
    (tmp_path / "notebooks" / "01-mini.md").write_text(CHAPTER)
    (tmp_path / "book" / "blueprint.yml").write_text(textwrap.dedent(registry))
    (tmp_path / "book" / "errata.md").write_text(textwrap.dedent(errata))
    (tmp_path / "book" / "figures.yml").write_text(textwrap.dedent(figures))
    return tmp_path


GOOD = """\
- label: mini-prop
  kind: proposition
  paper: Proposition 1
  chapter: notebooks/01-mini
  uses: [mini-lemma]
  verified: [symbolic]
  checks: [mini-check]
- label: mini-lemma
  kind: lemma
  paper: new in this book
  chapter: notebooks/01-mini
  verified: [exact]
  checks: [mini-check]
"""


def test_a_consistent_mini_book_has_no_problems(tmp_path):
    root = _mini_book(tmp_path, GOOD)
    assert blueprint.blueprint_problems(root) == []
    chapter = blueprint.chapters(root)["notebooks/01-mini"]
    assert chapter.results == {"mini-prop": "proposition", "mini-lemma": "lemma"}
    assert chapter.checks == {"mini-check"}


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (lambda r: r.replace("- label: mini-lemma", "- label: mini-other"), "mini-lemma: a {prf} result"),
        (lambda r: r.replace("chapter: notebooks/01-mini\n  uses", "chapter: notebooks/02-gone\n  uses"), "does not"),
        (lambda r: r.replace("checks: [mini-check]\n- label", "checks: [mini-nothing]\n- label"), "no cell starts"),
        (lambda r: r.replace("uses: [mini-lemma]", "uses: [mini-unknown]"), "uses mini-unknown"),
        (lambda r: r + "  uses: [mini-prop]\n", "dependency cycle"),
        (lambda r: r.replace("kind: lemma", "kind: theorem"), "kind theorem"),
        (lambda r: r.replace("verified: [exact]\n  checks: [mini-check]\n", ""), "how it is verified"),
        (lambda r: r + r[: r.index("- label: mini-lemma")], "listed twice"),
        (lambda r: r.replace("checks: [mini-check]\n- label", "checks: [tests/none.py::test_x]\n- label"), "test"),
    ],
)
def test_each_blueprint_fault_is_reported(tmp_path, change, expected):
    root = _mini_book(tmp_path, change(GOOD))
    problems = blueprint.blueprint_problems(root)
    assert any(expected in problem for problem in problems), problems


@pytest.mark.parametrize(
    ("field", "value"),
    [("kind", "guess"), ("verified", "[by eye]")],
)
def test_a_malformed_blueprint_entry_is_a_value_error(tmp_path, field, value):
    registry = GOOD.replace(f"  {field}: ", f"  {field}: {value}\n  old_{field}: ", 1)
    root = _mini_book(tmp_path, registry)
    with pytest.raises(ValueError):
        blueprint.load_results(root)


ERRATUM = """\
## Mini
### A slip
- **Where:** Section 1
- **Printed:** $a$
- **Correct:** $b$
- **Severity:** typo
- **Proof:** {ref}`the check <erratum-mini-slip>` in {doc}`../notebooks/01-mini`
"""


def test_errata_faults_are_reported(tmp_path):
    root = _mini_book(tmp_path, GOOD, errata=ERRATUM)
    assert blueprint.errata_problems(root) == []
    (root / "book" / "errata.md").write_text(ERRATUM.replace("typo", "small"))
    assert any("severity 'small'" in p for p in blueprint.errata_problems(root))
    (root / "book" / "errata.md").write_text(ERRATUM.replace("- **Where:** Section 1\n", ""))
    assert any("no **Where:**" in p for p in blueprint.errata_problems(root))
    (root / "book" / "errata.md").write_text("## Mini\n")
    assert any(
        "erratum-mini-slip in notebooks/01-mini is not on the errata page" in p for p in blueprint.errata_problems(root)
    )
    (root / "book" / "errata.md").write_text(ERRATUM.replace("erratum-mini-slip", "erratum-mini-gone"))
    assert any("no chapter defines" in p for p in blueprint.errata_problems(root))


def test_figure_faults_are_reported(tmp_path):
    good = "- {number: Figure 1, part: main text, subject: s, chapter: notebooks/01-mini, figure: fig-mini}\n"
    root = _mini_book(tmp_path, GOOD, figures=good)
    assert blueprint.figure_problems(root) == []
    (root / "book" / "figures.yml").write_text(good.replace("fig-mini", "fig-gone"))
    assert any("no figure named fig-gone" in p for p in blueprint.figure_problems(root))
    (root / "book" / "figures.yml").write_text("- {number: Figure 1, part: main text, subject: s}\n")
    assert any("neither reproduced" in p for p in blueprint.figure_problems(root))
    (root / "book" / "figures.yml").write_text("- {number: Figure 1, part: main text, subject: s, reason: why}\n")
    assert blueprint.figure_problems(root) == []


def test_find_cycle():
    assert blueprint.find_cycle({"a": ("b",), "b": ("c",), "c": ()}) is None
    cycle = blueprint.find_cycle({"a": ("b",), "b": ("c",), "c": ("a",)})
    assert cycle[0] == cycle[-1] and set(cycle) == {"a", "b", "c"}
    assert blueprint.find_cycle({"a": ("a",)}) == ["a", "a"]


def test_scope_limits_the_check_to_the_chapters_a_build_includes(tmp_path):
    root = _mini_book(tmp_path, "[]", errata="", figures="[]")
    assert any("no blueprint entry" in p for p in blueprint.blueprint_problems(root))
    assert blueprint.blueprint_problems(root, scope={"book/intro"}) == []
    assert any("not on the errata page" in p for p in blueprint.errata_problems(root))
    assert blueprint.errata_problems(root, scope={"book/intro"}) == []
    (root / "_toc.yml").write_text("root: book/intro\nparts:\n  - chapters:\n      - file: notebooks/01-mini\n")
    assert blueprint.toc_docnames(root / "_toc.yml") == {"book/intro", "notebooks/01-mini"}
