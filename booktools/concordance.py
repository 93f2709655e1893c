"""The concordance between the paper's printed numbering and the book.

For every numbered item of the paper (``book/paper_numbers.yml``): the book statements that treat it (the
``paper_refs`` of ``book/blueprint.yml``), the book figure that reproduces it (``book/figures.yml``), and the
errata whose *Where* names its printed number. Pure data; ``bookext`` renders it as the concordance page.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from booktools import blueprint

_STATEMENT = re.compile(r"\b(Definition|Theorem|Proposition|Lemma|Corollary|Remark|Figure)s? (\d+)(?![\d.])")
_EQUATIONS = re.compile(r"\bEqs?\.\s*\((\d+)\)((?:\s*(?:,|and|or|–|-)\s*\(\d+\))*)")
_STRONGEST = ("symbolic", "exact", "lime", "approximate", "cited", "unverified")


def printed_refs(text: str) -> list[str]:
    """The paper's printed numbers named in ``text``, in order and without repeats.

    Examples
    --------
    >>> printed_refs("supplement, Section 1.4, proof of Proposition 9, Eqs. (41) and (42); Figure 11")
    ['Proposition 9', 'Eq. (41)', 'Eq. (42)', 'Figure 11']
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    found: list[tuple[int, str]] = []
    for match in _STATEMENT.finditer(text):
        found.append((match.start(), f"{match.group(1)} {match.group(2)}"))
    for match in _EQUATIONS.finditer(text):
        numbers = [match.group(1), *re.findall(r"\((\d+)\)", match.group(2))]
        found.extend((match.start() + k, f"Eq. ({n})") for k, n in enumerate(numbers))
    return list(dict.fromkeys(name for _, name in sorted(found)))


@dataclass
class Row:
    """One numbered item of the paper and where the book treats it."""

    key: str  # key in book/paper_numbers.yml
    printed: str
    kind: str
    part: str
    section: str
    title: str
    results: list[blueprint.Result] = field(default_factory=list)
    figure: blueprint.PaperFigure | None = None
    errata: list[int] = field(default_factory=list)  # 1-based positions on the errata page

    @property
    def status(self) -> str:
        """How the book verifies it: the strongest status of its statements, or the figure's fate."""
        if self.kind == "figure":
            if self.figure is None:
                return "not listed"
            return "reproduced" if self.figure.figure else "not reproduced"
        statuses = [r.status for r in self.results if r.kind != "definition"]
        statuses = statuses or [r.status for r in self.results if r.verified]
        if not statuses:
            return "stated" if self.results else "not treated"
        return min(statuses, key=_STRONGEST.index)


def rows(root, equations: str = "cited") -> list[Row]:
    """The concordance, in the paper's order.

    Parameters
    ----------
    root : str or pathlib.Path
        The repository root (holding ``book/``).
    equations : {"cited", "all"}
        Which numbered equations to list: those a book statement or an erratum names ("cited", the key
        displays), or every one.

    Returns
    -------
    list of Row

    Examples
    --------
    >>> [r.printed for r in rows(".") if r.kind == "theorem"]  # doctest: +SKIP
    ['Theorem 1', 'Theorem 2']
    """
    if equations not in ("cited", "all"):
        raise ValueError(f"equations must be 'cited' or 'all', got {equations!r}")
    numbers = blueprint.paper_numbers(root)
    results = blueprint.load_results(root)
    figures = {f.number: f for f in blueprint.paper_figures(root)}
    entries = blueprint.errata(root)
    cited_by_errata: dict[str, list[int]] = {}
    for position, entry in enumerate(entries, start=1):
        for name in printed_refs(entry.fields.get("where", "")):
            cited_by_errata.setdefault(name, []).append(position)
    table = []
    for key, entry in numbers.items():
        row = Row(key, entry["printed"], entry["kind"], entry["part"], entry["section"], entry["title"])
        row.results = [r for r in results if key in r.paper_refs]
        row.figure = figures.get(entry["printed"]) if entry["kind"] == "figure" else None
        row.errata = cited_by_errata.get(entry["printed"], [])
        if entry["kind"] == "equation" and equations == "cited" and not (row.results or row.errata):
            continue
        table.append(row)
    return table
