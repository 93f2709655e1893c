"""The book's registries, read from the repository and checked against the chapters.

- ``book/blueprint.yml``: one entry per ``{prf:...}`` result (what the paper calls it, what it uses, how it is
  verified); its chapter and its kind are read from the ``{prf:...}`` block that defines the label.
- ``book/figures.yml``: the paper's figures, each mapped to the book figure that reproduces it (its chapter is
  where that figure's name is defined) or to the reason it is not reproduced.
- ``book/errata.md``: the errata entries, each with a severity and a link to the cell that proves it.

Both YAML registries are validated against the JSON schemas of :mod:`booktools.registry_schema` when they are
read (ValueError naming the entry and the field).

Used twice: by the Sphinx extension ``bookext`` (pages rendered from the registries) and by
``tests/test_book_registries.py`` (the registries agree with the chapters). ``problems(root)`` lists every
disagreement; an empty list means the blueprint is consistent.
"""

from __future__ import annotations

import copy
import functools
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from booktools import provenance
from booktools.markers import OLD_MARKER_ANYWHERE, check_tags, markdown_cells
from booktools.registry_schema import BLUEPRINT_SCHEMA, FIGURES_SCHEMA, VERIFICATIONS, validate

KINDS = ("definition", "theorem", "proposition", "lemma", "corollary", "remark", "conjecture")
VERIFICATION_MEANING = {
    "symbolic": "derived or checked with sympy for general d",
    "exact": "checked exactly (enumeration or closed form) for given d",
    "lime": "checked against real lime runs with a stated tolerance",
    "approximate": "an approximation, measured but not exact",
    "cited": "a published result used as is",
}
SEVERITIES = ("typo", "wrong constant", "wrong statement", "approximation presented as exact")
NEW = "new in this book"

_PRF_BLOCK = re.compile(r"^(`{3,}|:{3,})\{prf:([a-z]+)\}([^\n]*)\n((?::[a-z]+:[^\n]*\n)*)", re.MULTILINE)
_LABEL = re.compile(r"^:label:\s*(\S+)", re.MULTILINE)
_FIGURE_NAME = re.compile(r"^\s+name: (fig-[a-z0-9-]+)\s*$", re.MULTILINE)
_ERRATUM_TARGET = re.compile(r"^\((erratum-[a-z0-9-]+)\)=\s*$", re.MULTILINE)
ERRATUM_PROOF = re.compile(r"\{ref\}`(?:[^`<]*<)?(erratum-[a-z0-9-]+)>?`")


@dataclass(frozen=True)
class Result:
    """One registry entry, with the chapter (docname) and kind of the ``{prf}`` block that defines its label.

    ``chapter`` and ``kind`` are empty when no chapter defines the label (:func:`blueprint_problems` says so).
    """

    label: str
    kind: str
    paper: str
    chapter: str
    uses: tuple[str, ...] = ()
    verified: tuple[str, ...] = ()
    checks: tuple[str, ...] = ()
    note: str = ""
    paper_refs: tuple[str, ...] = ()  # keys of book/paper_numbers.yml: the paper's items this result treats

    @property
    def is_new(self) -> bool:
        return self.paper == NEW

    @property
    def status(self) -> str:
        """The strongest verification: symbolic > exact > lime > approximate > cited (or 'unverified')."""
        for level in VERIFICATIONS:
            if level in self.verified:
                return level
        return "unverified"


@dataclass
class Chapter:
    """What a chapter's MyST source declares: its results (label -> kind), check ids, errata targets and figures.

    ``checks`` are read from the code cells' tags ``check-<id>`` (:mod:`booktools.markers`); ``repeated_checks``
    are the check ids that tag more than one of its cells (each must be unique); ``old_markers`` are the marker
    comments (``# check: <id>``, ``# NBVAL_CHECK_OUTPUT``) still in its code, which readers would see.
    """

    docname: str
    results: dict[str, str] = field(default_factory=dict)
    checks: set[str] = field(default_factory=set)
    errata_targets: set[str] = field(default_factory=set)
    figures: set[str] = field(default_factory=set)
    repeated_checks: set[str] = field(default_factory=set)
    old_markers: list[str] = field(default_factory=list)
    titles: dict[str, str] = field(default_factory=dict)


def chapters(root) -> dict[str, Chapter]:
    """Every ``notebooks/*.md`` chapter, keyed by docname (``notebooks/05-alpha``)."""
    root = Path(root)
    found = {}
    for path in sorted((root / "notebooks").glob("*.md")):
        text = path.read_text(encoding="utf-8")
        chapter = Chapter(f"notebooks/{path.stem}")
        for match in _PRF_BLOCK.finditer(text):
            label = _LABEL.search(match.group(4))
            if label and match.group(2) != "proof":
                chapter.results[label.group(1)] = match.group(2)
                chapter.titles[label.group(1)] = match.group(3).strip()
        checks = Counter(_cell_checks(text))
        chapter.checks = set(checks)
        chapter.repeated_checks = {check for check, count in checks.items() if count > 1}
        chapter.old_markers = OLD_MARKER_ANYWHERE.findall(text)
        chapter.errata_targets = set(_ERRATUM_TARGET.findall(text))
        chapter.figures = set(_FIGURE_NAME.findall(text))
        found[chapter.docname] = chapter
    return found


# One book build reads the chapters and the registries about ten times (each page rendered from them, each check): a
# parse is kept for as long as the text is the same (memoised on the text itself, so an edited file is read afresh).


@functools.lru_cache(maxsize=256)
def _cell_checks(text: str) -> tuple[str, ...]:
    """The checks named by the tags of a chapter's code cells, one entry per tagged cell (YAML: the slow part)."""
    return tuple(check for tags, _ in markdown_cells(text) for check in check_tags(tags))


@functools.lru_cache(maxsize=32)
def _parsed_yaml(text: str):
    return yaml.safe_load(text)


def _read_yaml(path: Path):
    """The YAML file at ``path``, parsed (a fresh copy each call: callers may change what they get)."""
    try:
        return copy.deepcopy(_parsed_yaml(path.read_text(encoding="utf-8")))
    except yaml.YAMLError as error:
        raise ValueError(f"{path.parent.name}/{path.name} is not valid YAML: {error}") from None


def _read_registry(root: Path, name: str, schema: dict):
    """``book/<name>`` as loaded from YAML, validated against ``schema`` (ValueError naming entry and field)."""
    raw = _read_yaml(root / "book" / name)
    validate(raw, schema)
    return raw


def _index(found: dict[str, Chapter], places) -> dict:
    """name -> the places that define it, in chapter order: ``places(docname, chapter)`` yields (name, place)."""
    where: dict = {}
    for docname, chapter in found.items():
        for name, place in places(docname, chapter):
            where.setdefault(name, []).append(place)
    return where


def definitions(found: dict[str, Chapter]) -> dict[str, list[tuple[str, str]]]:
    """Where each ``{prf}`` label is defined: label -> [(docname, kind), ...] (one pair unless it is repeated)."""
    return _index(found, lambda docname, chapter: ((label, (docname, kind)) for label, kind in chapter.results.items()))


def load_results(root, found: dict[str, Chapter] | None = None) -> list[Result]:
    """The entries of ``book/blueprint.yml``, validated against its schema (ValueError naming entry and field).

    Each entry's chapter and kind are those of the ``{prf}`` block that defines its label in ``found`` (the
    chapters, read from ``root`` unless given); empty when no chapter defines it.
    """
    root = Path(root)
    raw = _read_registry(root, "blueprint.yml", BLUEPRINT_SCHEMA)
    where = definitions(chapters(root) if found is None else found)
    results = []
    for entry in raw:
        chapter, kind = where.get(entry["label"], [("", "")])[0]
        results.append(
            Result(
                label=entry["label"],
                kind=kind,
                paper=entry["paper"],
                chapter=chapter,
                uses=tuple(entry.get("uses", ())),
                verified=tuple(entry.get("verified", ())),
                checks=tuple(entry.get("checks", ())),
                note=entry.get("note", ""),
                paper_refs=tuple(entry.get("paper_refs", ())),
            )
        )
    return results


def find_cycle(edges: dict[str, tuple[str, ...]]) -> list[str] | None:
    """A dependency cycle as a list of labels, or None (iterative depth-first search)."""
    state: dict[str, int] = {}
    for start in sorted(edges):
        if state.get(start):
            continue
        stack = [(start, iter(sorted(edges.get(start, ()))))]
        path = [start]
        state[start] = 1
        while stack:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                stack.pop()
                path.pop()
                state[node] = 2
            elif state.get(child) == 1:
                return path[path.index(child) :] + [child]
            elif not state.get(child):
                state[child] = 1
                path.append(child)
                stack.append((child, iter(sorted(edges.get(child, ())))))
    return None


def _test_exists(root: Path, node: str) -> bool:
    file, _, name = node.partition("::")
    path = root / file
    return path.is_file() and re.search(rf"^def {re.escape(name)}\(", path.read_text(), re.MULTILINE) is not None


def toc_docnames(toc_path) -> set[str]:
    """Every document a Jupyter Book table of contents lists (its root included)."""
    toc = yaml.safe_load(Path(toc_path).read_text(encoding="utf-8"))
    names = set()

    def walk(node):
        if isinstance(node, dict):
            for key in ("root", "file"):
                if key in node:
                    names.add(str(node[key]).removesuffix(".md").removesuffix(".ipynb"))
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(toc)
    return names


def _in_scope(docname: str, scope) -> bool:
    return scope is None or docname in scope


def blueprint_problems(root, scope=None) -> list[str]:
    """Every disagreement between ``book/blueprint.yml`` and the chapters (empty when consistent).

    ``scope`` (a set of docnames, e.g. from :func:`toc_docnames`) restricts the check to the chapters a
    build includes; by default every chapter on disk is checked.
    """
    root = Path(root)
    found = chapters(root)
    results = load_results(root, found)
    by_label: dict[str, Result] = {}
    problems = []
    for result in results:
        if result.label in by_label:
            problems.append(f"{result.label}: listed twice in book/blueprint.yml")
        by_label[result.label] = result
    for label, places in sorted(definitions(found).items()):
        if len(places) > 1:
            problems.append(f"{label}: defined by {{prf}} blocks in {' and '.join(doc for doc, _ in places)}")
    # a check id names one cell of the book: the blueprint links to it
    check_places: dict[str, list[str]] = {}
    for docname, chapter in found.items():
        for check in sorted(chapter.checks):
            check_places.setdefault(check, []).append(docname)
        for check in sorted(chapter.repeated_checks):
            problems.append(f"check id {check!r} tags more than one cell of {docname}")
        for marker in chapter.old_markers:
            problems.append(
                f"{docname}: the comment {marker.strip()!r} is a marker readers see; make it a cell tag "
                "(python -m booktools.markers converts the chapter)"
            )
    for check, docnames in sorted(check_places.items()):
        if len(docnames) > 1:
            problems.append(f"check id {check!r} tags cells in {' and '.join(docnames)}")
    all_checks = {check: docnames[0] for check, docnames in check_places.items()}
    for docname, chapter in found.items():
        if not _in_scope(docname, scope):
            continue
        for label in chapter.results:
            if label not in by_label:
                problems.append(f"{label}: a {{prf}} result of {docname} with no blueprint entry")
    for result in results:
        if not result.chapter:
            problems.append(f"{result.label}: no {{prf}} block of any chapter has this label")
            continue
        if not _in_scope(result.chapter, scope):
            continue
        title = found[result.chapter].titles.get(result.label, "")
        if problem := provenance.title_problem(title, result.paper, result.is_new):
            problems.append(f"{result.label}: {problem} (its title: {title!r})")
        if result.kind not in KINDS:
            problems.append(f"{result.label}: a {{prf:{result.kind}}} block, but a result's kind is one of {KINDS}")
        for used in result.uses:
            if used not in by_label:
                problems.append(f"{result.label}: uses {used}, which has no blueprint entry")
        if result.kind != "definition" and not result.verified:
            problems.append(f"{result.label}: says nothing about how it is verified")
        if set(result.verified) - {"cited"} and not result.checks:
            problems.append(f"{result.label}: verified {list(result.verified)} but names no check")
        for check in result.checks:
            if "::" in check:
                if not _test_exists(root, check):
                    problems.append(f"{result.label}: test {check} does not exist")
            elif check not in all_checks:
                problems.append(f"{result.label}: no cell has the tag 'check-{check}'")
    numbers = paper_numbers(root)
    for result in results:
        for ref in result.paper_refs:
            if ref not in numbers:
                problems.append(f"{result.label}: paper_refs names {ref!r}, which book/paper_numbers.yml does not list")
    problems.extend(label_citations(root, [f"book/blueprint.yml: {r.label}: {r.paper} {r.note}" for r in results]))
    cycle = find_cycle({label: result.uses for label, result in by_label.items()})
    if cycle:
        problems.append("dependency cycle: " + " -> ".join(cycle))
    return problems


def paper_numbers(root) -> dict[str, dict]:
    """``book/paper_numbers.yml``: the paper's printed numbering, keyed by LaTeX label (see ``papernumbers``)."""
    path = Path(root) / "book" / "paper_numbers.yml"
    if not path.is_file():
        return {}
    table = _read_yaml(path)
    if not isinstance(table, dict):
        raise ValueError("book/paper_numbers.yml must map labels to entries")
    return table


def _label_patterns(root) -> list[tuple[str, str, re.Pattern]]:
    """What a LaTeX label of the paper looks like when a text cites it instead of the printed number: (printed
    number, the literal text every match contains, the pattern)."""
    patterns = []
    for entry in paper_numbers(root).values():
        label = entry.get("label")
        if not label:
            continue
        printed = entry["printed"]
        patterns.append((printed, label, re.compile(rf"(?<![\w-]){re.escape(label)}(?![\w-])")))
        suffix = label.split(":", 1)[-1]
        if "-" in suffix:
            # "Eq. (dencst-alt-writing)", the figure "tree-bandwidth": a bare suffix in brackets or quotes
            quoted = rf"[(\"'`‘“]{re.escape(suffix)}[)\"'`’”]"
            patterns.append((printed, suffix, re.compile(quoted)))
    return patterns


_MYST_TARGET = re.compile(r"^\([A-Za-z0-9_-]+\)=\s*$")


def label_citations(root, texts: list[str]) -> list[str]:
    """Places in ``texts`` ("where: text") that cite the paper by a LaTeX label instead of its printed number."""
    problems = []
    patterns = _label_patterns(root)
    for text in texts:
        where, _, body = text.partition(": ")
        body = _MYST_TARGET.sub("", body)  # "(name)=" declares a target of the book; it cites nothing
        for printed, literal, pattern in patterns:
            # a match contains the literal: the substring test skips the regular expression on nearly every line
            # (the book's 30000 lines against ~180 patterns: 5 s -> 0.5 s)
            match = literal in body and pattern.search(body)
            if match:
                problems.append(f"{where}: cites the paper by its LaTeX label {match.group(0)!r}; write {printed!r}")
    return problems


def page_label_citations(root) -> list[str]:
    """LaTeX-label citations of the paper in the book's pages (``book/*.md``), chapters and figure registry."""
    root = Path(root)
    texts = []
    pages = sorted((root / "book").glob("*.md")) + sorted((root / "notebooks").glob("*.md"))
    for path in [*pages, root / "book" / "figures.yml"]:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            texts.append(f"{path.relative_to(root)}:{number}: {line}")
    return label_citations(root, texts)


@dataclass(frozen=True)
class Erratum:
    section: str
    title: str
    fields: dict


def errata(root) -> list[Erratum]:
    """The entries of ``book/errata.md``: each ``### title`` with its ``- **Field:** value`` lines."""
    text = (Path(root) / "book" / "errata.md").read_text(encoding="utf-8")
    entries = []
    section = ""
    current = None
    for line in text.splitlines():
        if line.startswith("## "):
            section = line[3:].strip()
        elif line.startswith("### "):
            current = Erratum(section, line[4:].strip(), {})
            entries.append(current)
        elif current is not None:
            match = re.match(r"^- \*\*([A-Za-z ]+):\*\*\s*(.*)$", line)
            if match:
                current.fields[match.group(1).lower()] = match.group(2).strip()
    return entries


def errata_problems(root, scope=None) -> list[str]:
    """Malformed errata entries, and chapter erratum targets missing from the errata page (or vice versa).

    ``scope`` restricts "missing from the errata page" to the chapters a build includes.
    """
    root = Path(root)
    problems = []
    linked = set()
    for entry in errata(root):
        for needed in ("where", "printed", "correct", "severity", "proof"):
            if needed not in entry.fields:
                problems.append(f"erratum {entry.title!r}: no **{needed.capitalize()}:** line")
        severity = entry.fields.get("severity", "")
        if severity and severity not in SEVERITIES:
            problems.append(f"erratum {entry.title!r}: severity {severity!r} is not one of {SEVERITIES}")
        proofs = ERRATUM_PROOF.findall(entry.fields.get("proof", ""))
        if "proof" in entry.fields and not proofs:
            problems.append(f"erratum {entry.title!r}: its proof links to no erratum target")
        linked.update(proofs)
    targets = {t: doc for doc, chapter in chapters(root).items() for t in chapter.errata_targets}
    for target, docname in sorted(targets.items()):
        if target not in linked and _in_scope(docname, scope):
            problems.append(f"{target} in {docname} is not on the errata page")
    for target in sorted(linked - set(targets)):
        problems.append(f"the errata page links to {target}, which no chapter defines")
    return problems


@dataclass(frozen=True)
class PaperFigure:
    """One entry of ``book/figures.yml``; ``chapter`` is where its book figure is defined ("" if nowhere)."""

    number: str
    part: str
    subject: str
    chapter: str = ""
    figure: str = ""
    reason: str = ""


def figure_definitions(found: dict[str, Chapter]) -> dict[str, list[str]]:
    """Where each named book figure (``fig-...``) is defined: name -> docnames (one unless it is repeated)."""
    return _index(found, lambda docname, chapter: ((name, docname) for name in sorted(chapter.figures)))


def paper_figures(root, found: dict[str, Chapter] | None = None) -> list[PaperFigure]:
    """The entries of ``book/figures.yml``, validated against its schema (ValueError naming entry and field).

    A reproduced figure's chapter is the one that defines its book figure in ``found`` (the chapters, read from
    ``root`` unless given).
    """
    root = Path(root)
    raw = _read_registry(root, "figures.yml", FIGURES_SCHEMA)
    where = figure_definitions(chapters(root) if found is None else found)
    return [PaperFigure(**entry, chapter=where.get(entry.get("figure"), [""])[0]) for entry in raw]


def figure_problems(root, scope=None) -> list[str]:
    """Paper figures listed twice, or mapped to a book figure that no chapter (or more than one) defines.

    ``scope`` is accepted for symmetry with the other checks: a figure's chapter is found wherever it is.
    """
    root = Path(root)
    found = chapters(root)
    where = figure_definitions(found)
    figures = paper_figures(root, found)
    numbers = Counter(figure.number for figure in figures)
    problems = [f"{number}: listed {count} times in book/figures.yml" for number, count in numbers.items() if count > 1]
    for figure in figures:
        if not figure.figure:
            continue
        places = where.get(figure.figure, [])
        if not places:
            problems.append(f"{figure.number}: no chapter has a figure named {figure.figure}")
        elif len(places) > 1:
            problems.append(f"{figure.number}: the figure {figure.figure} is named in {' and '.join(places)}")
    return problems
