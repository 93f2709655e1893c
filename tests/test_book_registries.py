"""The book's registries (blueprint of results, errata, figure index) agree with the chapters."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from booktools import blueprint

ROOT = Path(__file__).resolve().parents[1]


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
```{prf:proposition} Proposition 1 of the paper: a statement
:label: mini-prop
:nonumber:

Text.
```

```{prf:lemma} Another (new in this book)
:label: mini-lemma
:nonumber:
```

(erratum-mini-slip)=
### Erratum: a slip

```{code-cell} ipython3
:tags: [hide-input, check-mini-check]

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


TAGGED_CELL = "```{code-cell} ipython3\n:tags: [check-mini-check]\n\n```\n"


def _mini_book(tmp_path, registry, errata="", figures="[]", chapters=None):
    """A repository holding one chapter (or the ``chapters`` given, file name -> text) and the three registries."""
    (tmp_path / "notebooks").mkdir()
    (tmp_path / "book").mkdir()
    for name, text in (chapters or {"01-mini.md": CHAPTER}).items():
        (tmp_path / "notebooks" / name).write_text(text)
    (tmp_path / "book" / "blueprint.yml").write_text(textwrap.dedent(registry))
    (tmp_path / "book" / "errata.md").write_text(textwrap.dedent(errata))
    (tmp_path / "book" / "figures.yml").write_text(textwrap.dedent(figures))
    return tmp_path


GOOD = """\
- label: mini-prop
  paper: Proposition 1
  uses: [mini-lemma]
  verified: [symbolic]
  checks: [mini-check]
- label: mini-lemma
  paper: new in this book
  verified: [exact]
  checks: [mini-check]
"""


def test_a_consistent_mini_book_has_no_problems(tmp_path):
    root = _mini_book(tmp_path, GOOD)
    assert blueprint.blueprint_problems(root) == []
    chapter = blueprint.chapters(root)["notebooks/01-mini"]
    assert chapter.results == {"mini-prop": "proposition", "mini-lemma": "lemma"}
    assert chapter.checks == {"mini-check"} and chapter.figures == {"fig-mini"}


def test_an_entry_takes_its_chapter_and_kind_from_the_block_that_defines_its_label(tmp_path):
    root = _mini_book(tmp_path, GOOD)
    found = {(r.label, r.chapter, r.kind) for r in blueprint.load_results(root)}
    assert found == {("mini-prop", "notebooks/01-mini", "proposition"), ("mini-lemma", "notebooks/01-mini", "lemma")}


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (lambda r: r.replace("- label: mini-lemma", "- label: mini-other"), "mini-lemma: a {prf} result"),
        (lambda r: r.replace("- label: mini-lemma", "- label: mini-other"), "mini-other: no {prf} block of any"),
        (lambda r: r.replace("checks: [mini-check]\n- label", "checks: [mini-nothing]\n- label"), "no cell has"),
        (lambda r: r.replace("uses: [mini-lemma]", "uses: [mini-unknown]"), "uses mini-unknown"),
        (lambda r: r + "  uses: [mini-prop]\n", "dependency cycle"),
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
    ("chapters", "expected"),
    [
        # one check id starting two cells: the blueprint's link to "the" cell would be ambiguous
        ({"01-mini.md": CHAPTER + TAGGED_CELL}, "more than one cell"),
        ({"01-mini.md": CHAPTER, "02-more.md": TAGGED_CELL}, "cells in"),
        # the old markers, which readers see: the chapter must be converted to tags
        ({"01-mini.md": CHAPTER + "```{code-cell} ipython3\n# check: mini-other\nassert True\n```\n"}, "markers"),
        ({"01-mini.md": CHAPTER + "```{code-cell} ipython3\n# NBVAL_CHECK_OUTPUT\nprint(1)\n```\n"}, "markers"),
        ({"01-mini.md": CHAPTER, "02-more.md": CHAPTER[: CHAPTER.index("(erratum")]}, "defined by {prf} blocks in"),
        ({"01-mini.md": CHAPTER.replace("{prf:lemma}", "{prf:example}")}, "a {prf:example} block"),
        # one provenance label: the blueprint says which results are new, the titles say it the same way
        ({"01-mini.md": CHAPTER.replace("Another (new in this book)", "Another (this book)")}, "ends with"),
        ({"01-mini.md": CHAPTER.replace("Another (new in this book)", "Another")}, "ends with"),
        ({"01-mini.md": CHAPTER.replace("Another (new", "Another (for d > 1) (new")}, "no other parentheses"),
        ({"01-mini.md": CHAPTER.replace("Proposition 1 of the paper: a", "A")}, "starts with 'Proposition 1 of"),
        ({"01-mini.md": CHAPTER.replace("paper: a statement", "paper: a statement (new in this book)")}, "not say"),
    ],
)
def test_each_chapter_fault_is_reported(tmp_path, chapters, expected):
    root = _mini_book(tmp_path, GOOD, chapters=chapters)
    problems = blueprint.blueprint_problems(root)
    assert any(expected in problem for problem in problems), problems


# The registries' schema (booktools/registry_schema.py): a malformed registry is a ValueError that names the entry
# and the field, raised when the registry is read (the book build turns it into an error).


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        # a scalar where a list belongs (it used to become a tuple of its characters)
        (
            lambda r: r.replace("uses: [mini-lemma]", "uses: mini-lemma"),
            "entry 0 (mini-prop), field uses: 'mini-lemma'",
        ),
        (lambda r: r.replace("verified: [exact]", "verified: exact"), "field verified: 'exact' is not of type 'array'"),
        # an entry that is not a mapping
        (lambda r: r + "- mini-third\n", "entry 2: each entry must be a mapping of fields to values (got str)"),
        # the same check id twice in one entry
        (
            lambda r: r.replace("checks: [mini-check]\n- label", "checks: [mini-check, mini-check]\n- label"),
            "non-unique",
        ),
        # unknown fields, among them the two that are read from the chapters
        (lambda r: r.replace("  paper: new", "  kind: lemma\n  paper: new"), "('kind' was unexpected)"),
        (lambda r: r.replace("  paper: new", "  chapter: notebooks/01-mini\n  paper: new"), "('chapter' was"),
        (lambda r: r.replace("  paper: new", "  notes: typo\n  paper: new"), "('notes' was unexpected)"),
        (lambda r: r.replace("verified: [exact]", "verified: [by eye]"), "field verified.0: 'by eye' is not one of"),
        (lambda r: r.replace("  paper: Proposition 1\n", ""), "entry 0 (mini-prop): 'paper' is a required property"),
        (lambda r: r.replace("checks: [mini-check]\n- label", "checks: [Mini Check]\n- label"), "checks.0"),
        (
            lambda r: "results:\n" + textwrap.indent(r, "  "),
            "book/blueprint.yml: must be a list of entries, one per result (got dict)",
        ),
        (lambda r: r + "  uses: [a\n", "book/blueprint.yml is not valid YAML"),
    ],
)
def test_a_malformed_blueprint_is_a_value_error_naming_entry_and_field(tmp_path, change, expected):
    root = _mini_book(tmp_path, change(GOOD))
    with pytest.raises(ValueError) as raised:
        blueprint.load_results(root)
    assert expected in str(raised.value)


def test_every_schema_violation_is_reported_at_once_in_the_file_order(tmp_path):
    entries = "".join(f"- {{label: mini-{k}, paper: p, uses: mini-prop}}\n" for k in range(12))
    root = _mini_book(tmp_path, entries)
    with pytest.raises(ValueError) as raised:
        blueprint.load_results(root)
    lines = str(raised.value).splitlines()
    assert [line.split("(")[1].split(")")[0] for line in lines] == [f"mini-{k}" for k in range(12)]


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


FIGURE = "- {number: Figure 1, part: main text, subject: s, figure: fig-mini}\n"


def test_figure_faults_are_reported(tmp_path):
    root = _mini_book(tmp_path, GOOD, figures=FIGURE)
    assert blueprint.figure_problems(root) == []
    assert blueprint.paper_figures(root)[0].chapter == "notebooks/01-mini"
    (root / "book" / "figures.yml").write_text(FIGURE.replace("fig-mini", "fig-gone"))
    assert any("no chapter has a figure named fig-gone" in p for p in blueprint.figure_problems(root))
    (root / "book" / "figures.yml").write_text(FIGURE + FIGURE)
    assert any("Figure 1: listed 2 times" in p for p in blueprint.figure_problems(root))
    (root / "book" / "figures.yml").write_text("- {number: Figure 1, part: main text, subject: s, reason: why}\n")
    assert blueprint.figure_problems(root) == []
    (root / "notebooks" / "02-more.md").write_text(CHAPTER[CHAPTER.index("(erratum") :])
    (root / "book" / "figures.yml").write_text(FIGURE)
    assert any("named in notebooks/01-mini and notebooks/02-more" in p for p in blueprint.figure_problems(root))


@pytest.mark.parametrize(
    ("figures", "expected"),
    [
        (FIGURE.replace("}", ", reason: not yet}"), "entry 0 (Figure 1): give either `figure`"),
        (FIGURE.replace(", figure: fig-mini", ""), "exactly one of the two"),
        (FIGURE.replace("}", ", chapter: notebooks/01-mini}"), "('chapter' was unexpected)"),
        (FIGURE + "- Figure 2\n", "entry 1: each entry must be a mapping of fields to values (got str)"),
        (FIGURE.replace("main text", "appendix"), "field part: 'appendix' is not one of"),
        (FIGURE.replace("Figure 1", "Fig. 1"), "field number: 'Fig. 1' does not match"),
        (
            "{Figure 1: fig-mini}\n",
            "book/figures.yml: must be a list of entries, one per figure of the paper (got dict)",
        ),
    ],
)
def test_a_malformed_figure_registry_is_a_value_error(tmp_path, figures, expected):
    root = _mini_book(tmp_path, GOOD, figures=figures)
    with pytest.raises(ValueError) as raised:
        blueprint.paper_figures(root)
    assert expected in str(raised.value)


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


# The paper is cited by the numbers its readers see (book/paper_numbers.yml), never by LaTeX labels.

PAPER_NUMBERS = """\
prop:mini:
  label: prop:mini
  kind: proposition
  number: '1'
  printed: Proposition 1
  part: main
  section: Section 1 (Mini)
  title: Mini
eq:mini-eq:
  label: eq:mini-eq
  kind: equation
  number: '2'
  printed: Eq. (2)
  part: main
  section: Section 1 (Mini)
  title: x = y
"""


def test_paper_refs_must_name_an_item_of_the_paper(tmp_path):
    registry = GOOD.replace("  paper: Proposition 1\n", "  paper: Proposition 1\n  paper_refs: [prop:mini]\n")
    root = _mini_book(tmp_path, registry)
    (root / "book" / "paper_numbers.yml").write_text(PAPER_NUMBERS)
    assert blueprint.blueprint_problems(root) == []
    assert blueprint.load_results(root)[0].paper_refs == ("prop:mini",)
    (root / "book" / "blueprint.yml").write_text(registry.replace("[prop:mini]", "[prop:gone]"))
    assert any("paper_refs names 'prop:gone'" in p for p in blueprint.blueprint_problems(root))


@pytest.mark.parametrize(
    "text",
    ["see Eq. (mini-eq) of the supplement", 'the figure "mini-eq"', "Proposition prop:mini", "`eq:mini-eq`"],
)
def test_a_latex_label_citation_is_reported(tmp_path, text):
    root = _mini_book(tmp_path, GOOD)
    (root / "book" / "paper_numbers.yml").write_text(PAPER_NUMBERS)
    (root / "book" / "notation.md").write_text(f"(mini-eq)=\n# Notation\n\nAs in {text}.\n")
    problems = blueprint.page_label_citations(root)
    assert len(problems) == 1 and "book/notation.md:4" in problems[0], problems
    (root / "book" / "notation.md").write_text("(mini-eq)=\n# Notation\n\nAs in Eq. (2) and Proposition 1.\n")
    assert blueprint.page_label_citations(root) == []


def test_book_pages_cite_the_paper_by_printed_numbers():
    assert blueprint.page_label_citations(ROOT) == []


def test_every_blueprint_paper_ref_is_in_the_paper_numbering():
    numbers = blueprint.paper_numbers(ROOT)
    refs = {ref for result in blueprint.load_results(ROOT) for ref in result.paper_refs}
    assert refs and refs <= set(numbers)
    # the main text's numbered results all have a book statement
    main = {key for key, entry in numbers.items() if entry["part"] == "main" and entry["kind"] != "equation"}
    main -= {key for key, entry in numbers.items() if entry["kind"] == "figure"}
    assert main - refs == set()


def _number(text: str) -> float:
    """A glued number as stored: a float's repr, or a quoted "1.144×10⁵" written for prose."""
    text = text.strip().strip("'\"")
    mantissa, times, power = text.partition("×10")
    if not times:
        return float(text)
    exponent = power.translate(str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-"))
    return float(mantissa) * 10 ** int(exponent)


def _glued(notebook: str, name: str) -> float:
    import json

    cells = json.loads((ROOT / notebook).read_text(encoding="utf-8"))["cells"]
    for cell in cells:
        for output in cell.get("outputs", []):
            if output.get("metadata", {}).get("scrapbook", {}).get("name") == name:
                return _number(output["data"]["application/papermill.record/text/plain"])
    raise LookupError(f"{notebook} glues no {name}")


def test_errata_quotes_the_gamma_hat_thresholds_that_chapter_10_computes():
    # the errata page prints them to two significant digits, in the form a·10^k
    text = (ROOT / "book" / "errata.md").read_text(encoding="utf-8")
    for name, n in (("conc-mstar-1", 1), ("conc-mstar-5000", 4999)):
        value = _glued("notebooks/10-concentration.ipynb", name)
        exponent = int(f"{value:.1e}".split("e")[1])
        mantissa = f"{value / 10**exponent:.1f}"
        assert f"$M > {mantissa}\\cdot 10^{exponent}$ for $n = {n}$" in text, (name, value)


# The blueprint's graph, the concordance and the bibliography labels (booktools/blueprint_graph.py, concordance.py,
# bibstyle.py), against independent computations.


def test_transitive_reduction_agrees_with_networkx():
    import random

    import networkx as nx

    from booktools import blueprint_graph

    rng = random.Random(20260)
    for _ in range(30):
        n = rng.randint(2, 14)
        edges = {str(a): [str(b) for b in range(a + 1, n) if rng.random() < 0.35] for a in range(n)}
        expected = nx.transitive_reduction(nx.DiGraph([(a, b) for a, bs in edges.items() for b in bs]))
        reduced = blueprint_graph.transitive_reduction(edges)
        assert {(a, b) for a, bs in reduced.items() for b in bs} == set(expected.edges())


def test_transitive_reduction_refuses_a_cycle():
    from booktools import blueprint_graph

    with pytest.raises(ValueError, match="acyclic"):
        blueprint_graph.transitive_reduction({"a": ["b"], "b": ["a"]})
    with pytest.raises(TypeError, match="edges"):
        blueprint_graph.transitive_reduction([("a", "b")])


def test_the_book_graph_keeps_reachability_and_draws_every_result_once():
    import networkx as nx

    from booktools import blueprint_graph

    results = blueprint.load_results(ROOT)
    labels = {r.label for r in results}
    edges = {r.label: [u for u in r.uses if u in labels] for r in results}
    reduced = blueprint_graph.transitive_reduction(edges)
    full = nx.DiGraph([(a, b) for a, bs in edges.items() for b in bs])
    small = nx.DiGraph([(a, b) for a, bs in reduced.items() for b in bs])
    full.add_nodes_from(labels)
    small.add_nodes_from(labels)
    assert nx.transitive_closure(full).edges() == nx.transitive_closure(small).edges()
    source = blueprint_graph.dot_source(results, lambda r: "1.1", lambda r: "#" + r.label, lambda c: c)
    for result in results:
        assert source.count(f'"{result.label}" [label=') == 1
    part = {r.label for r in results if r.chapter == "notebooks/05-alpha"}
    partial = blueprint_graph.dot_source(results, lambda r: "", lambda r: "#", lambda c: c, only=part)
    outside = {u for r in results if r.label in part for u in reduced[r.label]} - part
    assert all(f'"{label}" [label=' in partial for label in part | outside)
    assert "cluster_1" not in partial  # one chapter, one cluster


def test_stacked_chapters_make_a_part_narrower_and_its_labels_larger():
    from booktools import blueprint_graph

    # Part VI (chapters 17-20) side by side is shrunk to about half its size; stacked, it is shrunk far less
    results = blueprint.load_results(ROOT)
    part = {r.label for r in results if r.chapter[10:12] in ("17", "18", "19", "20")}
    side = blueprint_graph.dot_source(results, lambda r: "19.12", lambda r: "#", lambda c: c, only=part)
    stacked = blueprint_graph.dot_source(
        results, lambda r: "19.12", lambda r: "#", lambda c: c, only=part, stack_chapters=True
    )
    assert "style=invis" in stacked and "style=invis" not in side
    assert blueprint_graph.drawn_scale(stacked) > blueprint_graph.drawn_scale(side) + 0.1
    assert blueprint_graph.drawn_scale("digraph g { a -> b; }") == 1.0
    with pytest.raises(ValueError, match="rankdir must be"):
        blueprint_graph.dot_source(results, lambda r: "", lambda r: "#", lambda c: c, rankdir="BT")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("main text, Section 2.1, Definition 1", ["Definition 1"]),
        ("proof of Lemma 5, the display before Eq. (47) and Eq. (47) itself", ["Lemma 5", "Eq. (47)"]),
        (
            "Eqs. (41) and (42); Proposition 15 (Proposition 4 restated)",
            ["Eq. (41)", "Eq. (42)", "Proposition 15", "Proposition 4"],
        ),
        ("caption of Figure 11; Section 1.2", ["Figure 11"]),
        ("no number here", []),
    ],
)
def test_printed_refs_reads_the_paper_numbers_a_text_names(text, expected):
    from booktools import concordance

    assert concordance.printed_refs(text) == expected


def test_concordance_maps_every_statement_and_figure_of_the_paper():
    from booktools import concordance

    rows = concordance.rows(ROOT)
    kinds = {row.kind for row in rows}
    assert {"theorem", "proposition", "lemma", "corollary", "definition", "remark", "figure"} <= kinds
    numbers = blueprint.paper_numbers(ROOT)
    listed = {row.key for row in rows}
    assert {key for key, e in numbers.items() if e["kind"] != "equation"} <= listed
    by_printed = {row.printed: row for row in rows}
    assert [r.label for r in by_printed["Theorem 1"].results] == ["concentration-thm-1"]
    assert by_printed["Figure 12"].figure is not None and by_printed["Figure 12"].status == "reproduced"
    # an erratum is attached to every item its Where names, and only to those
    errata = blueprint.errata(ROOT)
    for row in rows:
        for position in row.errata:
            assert row.printed in concordance.printed_refs(errata[position - 1].fields["where"])
    with pytest.raises(ValueError, match="equations"):
        concordance.rows(ROOT, equations="some")


def test_bibliography_labels_are_author_year_with_letters_for_one_pair():
    from pybtex.database import parse_file

    from booktools import bibstyle

    entries = parse_file(ROOT / "book" / "references.bib").entries
    labels = {key: bibstyle.author_year(entry) for key, entry in entries.items()}
    assert labels["garreau_luxburg_2020_aistats"] == "Garreau and von Luxburg, 2020a"
    assert labels["garreau_luxburg_2020_arxiv"] == "Garreau and von Luxburg, 2020b"
    assert labels["ribeiro_et_al_2016"] == "Ribeiro et al., 2016"
    assert labels["sparck_jones_1972"] == "Spärck Jones, 1972"
    assert len(set(labels.values())) == len(labels)
    for key, entry in entries.items():
        if entry.type != "book" and key != "filipovski_2019":
            assert "doi" in entry.fields or "url" in entry.fields, key


# The Sphinx extension's helpers (booktools/bookext.py).


def _notebook_with_figure(tmp_path, name, data):
    import json

    cell = {
        "cell_type": "code",
        "metadata": {"mystnb": {"figure": {"name": name}}},
        "outputs": [{"output_type": "display_data", "data": data, "metadata": {}}],
        "source": "",
        "execution_count": 1,
    }
    (tmp_path / "notebooks").mkdir(exist_ok=True)
    (tmp_path / "notebooks" / "01-x.ipynb").write_text(json.dumps({"cells": [cell], "metadata": {}}))


def test_thumbnails_are_svg_as_is_or_png_at_twice_their_width(tmp_path):
    import base64
    import io

    from PIL import Image

    from booktools import bookext

    buffer = io.BytesIO()
    Image.new("RGB", (1000, 500), "white").save(buffer, format="PNG")
    _notebook_with_figure(tmp_path, "fig-a", {"image/png": base64.b64encode(buffer.getvalue()).decode()})
    suffix, content, shown = bookext._thumbnail(tmp_path, "notebooks/01-x", "fig-a", width=300)
    image = Image.open(io.BytesIO(content))
    assert suffix == ".png" and image.size == (600, 300) and shown == 300  # two image pixels per CSS pixel
    svg = "<svg xmlns='http://www.w3.org/2000/svg' width='10' height='5'/>"
    _notebook_with_figure(tmp_path, "fig-b", {"image/svg+xml": [svg[:20], svg[20:]], "image/png": "unused"})
    suffix, content, shown = bookext._thumbnail(tmp_path, "notebooks/01-x", "fig-b", width=300)
    assert (suffix, content.decode(), shown) == (".svg", svg, 300)
    with pytest.raises(ValueError, match="no executed figure named fig-c"):
        bookext._thumbnail(tmp_path, "notebooks/01-x", "fig-c")


def test_an_inline_script_reaches_the_page_once():
    from sphinx.builders.html._assets import _JavaScript

    from booktools import bookext

    context = {
        "script_files": [
            _JavaScript("", body="const THEBE_JS_URL = 1", priority=500),
            _JavaScript("a.js", priority=200),
            _JavaScript(None, body="const THEBE_JS_URL = 1", priority=500),
            _JavaScript("", body="var other = 2"),
        ]
    }
    bookext._dedupe_scripts(None, "page", "page.html", context, None)
    bodies = [script.attributes.get("body") for script in context["script_files"]]
    assert bodies == ["const THEBE_JS_URL = 1", None, "var other = 2"]


def test_where_an_erratum_is_reads_as_printed_numbers():
    from booktools import bookext

    where = 'supplement, Section 1.2 ("Computation of $\\Sigma^{-1}$"), proof of Proposition 7, Eq. (18)'
    assert bookext._where_short(where) == "supplement: Proposition 7, Eq. (18)"
    assert bookext._where_short("main text, Section 2.3, definition of the weights") == "main text: Section 2.3"
