"""The book's registries, read from the repository and checked against the chapters.

- ``book/blueprint.yml``: one entry per ``{prf:...}`` result (what it is, what it uses, how it is verified).
- ``book/figures.yml``: the paper's figures, each mapped to the book figure that reproduces it.
- ``book/errata.md``: the errata entries, each with a severity and a link to the cell that proves it.

Used twice: by the Sphinx extension ``bookext`` (pages rendered from the registries) and by
``tests/test_book_registries.py`` (the registries agree with the chapters). ``problems(root)`` lists every
disagreement; an empty list means the blueprint is consistent.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

KINDS = ("definition", "theorem", "proposition", "lemma", "corollary", "remark", "conjecture")
VERIFICATIONS = ("symbolic", "exact", "lime", "approximate", "cited")
VERIFICATION_MEANING = {
    "symbolic": "derived or checked with sympy for general d",
    "exact": "checked exactly (enumeration or closed form) for given d",
    "lime": "checked against real lime runs with a stated tolerance",
    "approximate": "an approximation, measured but not exact",
    "cited": "a published result used as is",
}
SEVERITIES = ("typo", "wrong constant", "wrong statement", "approximation presented as exact")
NEW = "new in this book"

_PRF_BLOCK = re.compile(r"^(`{3,}|:{3,})\{prf:([a-z]+)\}[^\n]*\n((?::[a-z]+:[^\n]*\n)*)", re.MULTILINE)
_LABEL = re.compile(r"^:label:\s*(\S+)", re.MULTILINE)
_CHECK = re.compile(r"^# check: ([a-z0-9][a-z0-9-]*)\s*$", re.MULTILINE)
_ERRATUM_TARGET = re.compile(r"^\((erratum-[a-z0-9-]+)\)=\s*$", re.MULTILINE)
ERRATUM_PROOF = re.compile(r"\{ref\}`(?:[^`<]*<)?(erratum-[a-z0-9-]+)>?`")


@dataclass(frozen=True)
class Result:
    """One registry entry."""

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
    """What a chapter's MyST source declares: its results (label -> kind) and its check ids."""

    docname: str
    results: dict[str, str] = field(default_factory=dict)
    checks: set[str] = field(default_factory=set)
    errata_targets: set[str] = field(default_factory=set)


def chapters(root) -> dict[str, Chapter]:
    """Every ``notebooks/*.md`` chapter, keyed by docname (``notebooks/05-alpha``)."""
    root = Path(root)
    found = {}
    for path in sorted((root / "notebooks").glob("*.md")):
        text = path.read_text(encoding="utf-8")
        chapter = Chapter(f"notebooks/{path.stem}")
        for match in _PRF_BLOCK.finditer(text):
            label = _LABEL.search(match.group(3))
            if label and match.group(2) != "proof":
                chapter.results[label.group(1)] = match.group(2)
        chapter.checks = set(_CHECK.findall(text))
        chapter.errata_targets = set(_ERRATUM_TARGET.findall(text))
        found[chapter.docname] = chapter
    return found


def load_results(root) -> list[Result]:
    """The entries of ``book/blueprint.yml``, validated field by field (ValueError on a malformed entry)."""
    raw = yaml.safe_load((Path(root) / "book" / "blueprint.yml").read_text(encoding="utf-8"))
    if not isinstance(raw, list):
        raise ValueError("book/blueprint.yml must be a list of entries")
    results = []
    for number, entry in enumerate(raw):
        if not isinstance(entry, dict):
            raise ValueError(f"blueprint entry #{number} is not a mapping")
        unknown = set(entry) - {"label", "kind", "paper", "paper_refs", "chapter", "uses", "verified", "checks", "note"}
        if unknown:
            raise ValueError(f"blueprint entry {entry.get('label', number)!r} has unknown fields {sorted(unknown)}")
        try:
            result = Result(
                label=str(entry["label"]),
                kind=str(entry["kind"]),
                paper=str(entry["paper"]),
                chapter=str(entry["chapter"]),
                uses=tuple(entry.get("uses") or ()),
                verified=tuple(entry.get("verified") or ()),
                checks=tuple(entry.get("checks") or ()),
                note=str(entry.get("note", "")),
                paper_refs=tuple(str(ref) for ref in entry.get("paper_refs") or ()),
            )
        except KeyError as missing:
            raise ValueError(f"blueprint entry {entry.get('label', number)!r} lacks the field {missing}") from None
        if result.kind not in KINDS:
            raise ValueError(f"blueprint entry {result.label!r}: kind must be one of {KINDS}, got {result.kind!r}")
        bad = set(result.verified) - set(VERIFICATIONS)
        if bad:
            raise ValueError(f"blueprint entry {result.label!r}: verified must be among {VERIFICATIONS}, got {bad}")
        results.append(result)
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
    results = load_results(root)
    by_label: dict[str, Result] = {}
    problems = []
    for result in results:
        if result.label in by_label:
            problems.append(f"{result.label}: listed twice in book/blueprint.yml")
        by_label[result.label] = result
    all_checks = {check: doc for doc, chapter in found.items() for check in chapter.checks}
    for docname, chapter in found.items():
        if not _in_scope(docname, scope):
            continue
        for label in chapter.results:
            if label not in by_label:
                problems.append(f"{label}: a {{prf}} result of {docname} with no blueprint entry")
    for result in results:
        chapter = found.get(result.chapter)
        if chapter is not None and not _in_scope(result.chapter, scope):
            continue
        if chapter is None:
            problems.append(f"{result.label}: chapter {result.chapter} does not exist")
            continue
        if result.label not in chapter.results:
            problems.append(f"{result.label}: no {{prf}} block with this label in {result.chapter}")
        elif chapter.results[result.label] != result.kind:
            problems.append(f"{result.label}: kind {result.kind} but the chapter has {chapter.results[result.label]}")
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
                problems.append(f"{result.label}: no cell starts with '# check: {check}'")
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
    table = yaml.safe_load(path.read_text(encoding="utf-8"))
    if not isinstance(table, dict):
        raise ValueError("book/paper_numbers.yml must map labels to entries")
    return table


def _label_patterns(root) -> list[tuple[str, re.Pattern]]:
    """What a LaTeX label of the paper looks like when a text cites it instead of the printed number."""
    patterns = []
    for entry in paper_numbers(root).values():
        label = entry.get("label")
        if not label:
            continue
        printed = entry["printed"]
        patterns.append((printed, re.compile(rf"(?<![\w-]){re.escape(label)}(?![\w-])")))
        suffix = label.split(":", 1)[-1]
        if "-" in suffix:
            # "Eq. (dencst-alt-writing)", the figure "tree-bandwidth": a bare suffix in brackets or quotes
            quoted = rf"[(\"'`‘“]{re.escape(suffix)}[)\"'`’”]"
            patterns.append((printed, re.compile(quoted)))
    return patterns


_MYST_TARGET = re.compile(r"^\([A-Za-z0-9_-]+\)=\s*$")


def label_citations(root, texts: list[str]) -> list[str]:
    """Places in ``texts`` ("where: text") that cite the paper by a LaTeX label instead of its printed number."""
    problems = []
    patterns = _label_patterns(root)
    for text in texts:
        where, _, body = text.partition(": ")
        body = _MYST_TARGET.sub("", body)  # "(name)=" declares a target of the book; it cites nothing
        for printed, pattern in patterns:
            match = pattern.search(body)
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
    number: str
    part: str
    subject: str
    chapter: str = ""
    figure: str = ""
    reason: str = ""


def paper_figures(root) -> list[PaperFigure]:
    """The entries of ``book/figures.yml``."""
    raw = yaml.safe_load((Path(root) / "book" / "figures.yml").read_text(encoding="utf-8"))
    figures = []
    for entry in raw:
        unknown = set(entry) - {"number", "part", "subject", "chapter", "figure", "reason"}
        if unknown:
            raise ValueError(f"figure entry {entry.get('number')!r} has unknown fields {sorted(unknown)}")
        figures.append(PaperFigure(**{key: str(value) for key, value in entry.items()}))
    return figures


_FIGURE_NAME = re.compile(r"^\s+name: (fig-[a-z0-9-]+)\s*$", re.MULTILINE)


def figure_problems(root, scope=None) -> list[str]:
    """Paper figures neither reproduced (by an existing named figure) nor explained."""
    root = Path(root)
    problems = []
    for figure in paper_figures(root):
        if figure.figure and not _in_scope(figure.chapter, scope) and (root / f"{figure.chapter}.md").is_file():
            continue
        if figure.figure:
            source = root / f"{figure.chapter}.md"
            if not source.is_file():
                problems.append(f"{figure.number}: chapter {figure.chapter} does not exist")
            elif figure.figure not in _FIGURE_NAME.findall(source.read_text(encoding="utf-8")):
                problems.append(f"{figure.number}: {figure.chapter} has no figure named {figure.figure}")
        elif not figure.reason:
            problems.append(f"{figure.number}: neither reproduced nor given a reason")
    return problems
