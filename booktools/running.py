"""Sphinx extension: how to run the chapters, and what running them costs.

- Every chapter page (``notebooks/*``) opens with one admonition saying how to run it: ``make lab`` in a clone, or
  the package with its ``notebook`` extra and the page's downloaded ``.ipynb``; with the chapter's measured time.
- The ``chapter-costs`` directive renders ``book/chapter_costs.json`` (written by ``make outputs`` and ``make costs``,
  that is ``python -m booktools.chapters --costs``) as a table: each chapter's time, the kernel's CPU time and its
  peak memory, on the machine the file states.  A chapter without a measurement, or a measurement without a
  chapter, is a Sphinx warning, so the ``-W`` build fails on a stale table.
"""

from __future__ import annotations

import json
from pathlib import Path

from docutils import nodes
from docutils.statemachine import StringList
from sphinx import addnodes
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

logger = logging.getLogger(__name__)

COSTS_FILE = "book/chapter_costs.json"
RUNNING_PAGE = "book/running"
CHAPTERS_FOLDER = "notebooks"


def _costs(srcdir: Path) -> dict:
    path = srcdir / COSTS_FILE
    if not path.is_file():
        return {"machine": {}, "chapters": {}}
    return json.loads(path.read_text())


def _chapter_stems(srcdir: Path) -> list[str]:
    return sorted(path.stem for path in (srcdir / CHAPTERS_FOLDER).glob("*.md"))


def format_seconds(seconds: float) -> str:
    """A duration as a reader reads it: ``"22 s"``, ``"3 min 05 s"``.

    Examples
    --------
    >>> format_seconds(22.14), format_seconds(185.0)
    ('22 s', '3 min 05 s')
    """
    if not isinstance(seconds, int | float) or seconds < 0:
        raise ValueError(f"seconds must be a non-negative number, got {seconds!r}")
    whole = round(seconds)
    return f"{whole} s" if whole < 60 else f"{whole // 60} min {whole % 60:02d} s"


def format_mib(mib: float) -> str:
    """A memory size given in MiB: ``"307 MiB"``, ``"1.5 GiB"`` from 1024 MiB on.

    Examples
    --------
    >>> format_mib(306.8), format_mib(1536)
    ('307 MiB', '1.5 GiB')
    """
    if not isinstance(mib, int | float) or mib < 0:
        raise ValueError(f"mib must be a non-negative number, got {mib!r}")
    return f"{mib:.0f} MiB" if mib < 1024 else f"{mib / 1024:.1f} GiB"


def describe_machine(machine: dict) -> str:
    """One sentence naming the machine of ``book/chapter_costs.json``.

    Examples
    --------
    >>> describe_machine({"cpu": "AMD EPYC", "cores": 2, "memory_gib": 23.4, "system": "Linux x86_64",
    ...                   "python": "3.11.7"})
    'AMD EPYC, 2 cores, 23.4 GiB of memory, Linux x86_64, Python 3.11.7'
    """
    if not isinstance(machine, dict):
        raise TypeError(f"machine must be a dict, got {type(machine).__name__}")
    parts = [
        machine.get("cpu"),
        f"{machine['cores']} cores" if machine.get("cores") else None,
        f"{machine['memory_gib']} GiB of memory" if machine.get("memory_gib") else None,
        machine.get("system"),
        f"Python {machine['python']}" if machine.get("python") else None,
    ]
    return ", ".join(part for part in parts if part)


class ChapterCosts(SphinxDirective):
    """The table of every chapter's measured cost (MyST text parsed in place, so the chapter links are checked)."""

    def run(self):
        srcdir = Path(self.env.srcdir)
        self.env.note_dependency(str(srcdir / COSTS_FILE))
        costs = _costs(srcdir)
        measured, stems = costs.get("chapters", {}), _chapter_stems(srcdir)
        for stem in sorted(set(stems) - set(measured)):
            logger.warning(
                f"{COSTS_FILE} has no measurement of {stem}: run `make costs CHAPTER=notebooks/{stem}.md`",
                location=(self.env.docname, self.lineno),
                type="limetheory",
            )
        for stem in sorted(set(measured) - set(stems)):
            logger.warning(
                f"{COSTS_FILE} measures {stem}, which is not a chapter",
                location=(self.env.docname, self.lineno),
                type="limetheory",
            )
        lines = [
            f"Measured on: {describe_machine(costs.get('machine', {}))}.",
            "",
            "| Chapter | Time | Kernel CPU time | Peak memory |",
            "|---|--:|--:|--:|",
        ]
        rows = [(stem, measured[stem]) for stem in stems if stem in measured]
        for stem, cost in rows:
            cpu = "—" if cost.get("cpu_seconds") is None else format_seconds(cost["cpu_seconds"])
            peak = "—" if cost.get("peak_rss_mib") is None else format_mib(cost["peak_rss_mib"])
            # the chapter's number in the book, from its file name (tests/test_chapter_numbering.py)
            number = f"{int(stem.split('-', 1)[0])}. " if stem.split("-", 1)[0].isdigit() else ""
            chapter = f"{number}{{doc}}`/{CHAPTERS_FOLDER}/{stem}`"
            lines.append(f"| {chapter} | {format_seconds(cost['seconds'])} | {cpu} | {peak} |")
        if rows:
            total = sum(cost["seconds"] for _, cost in rows)
            lines.append(f"| **All {len(rows)} chapters, one after the other** | **{format_seconds(total)}** | | |")
        container = nodes.container(classes=["chapter-costs"])
        self.state.nested_parse(StringList(lines, source=self.env.docname), self.content_offset, container)
        return container.children


def _literal(text: str) -> nodes.literal:
    return nodes.literal(text, text)


def _run_hint(app, doctree) -> None:
    """Open every chapter page with one line on how to run it."""
    docname = app.env.docname
    if not docname.startswith(f"{CHAPTERS_FOLDER}/"):
        return
    section = next(iter(doctree.findall(nodes.section)), None)
    if section is None:
        return
    srcdir = Path(app.env.srcdir)
    app.env.note_dependency(str(srcdir / COSTS_FILE))
    stem = docname.split("/", 1)[1]
    repository = app.config.html_theme_options.get("repository_url", "").rstrip("/")
    paragraph = nodes.paragraph()
    paragraph += [
        nodes.Text("In a clone of the repository, "),
        _literal("make lab"),
        nodes.Text(" opens "),
        _literal(f"{CHAPTERS_FOLDER}/{stem}.md"),
        nodes.Text(" in JupyterLab; or "),
        _literal(f'pip install "limetheory[notebook] @ git+{repository}"' if repository else "pip install limetheory"),
        nodes.Text(", download this page as "),
        _literal(".ipynb"),
        nodes.Text(" (the download button above) and open it with "),
        _literal("jupyter lab"),
        nodes.Text("."),
    ]
    cost = _costs(srcdir).get("chapters", {}).get(stem)
    if cost:
        paragraph += nodes.Text(f" It runs in about {format_seconds(cost['seconds'])} (")
    else:
        paragraph += nodes.Text(" (")
    link = addnodes.pending_xref(
        "", refdomain="std", reftype="doc", reftarget=f"/{RUNNING_PAGE}", refexplicit=True, refwarn=True, refdoc=docname
    )
    link += nodes.inline("", "what each chapter costs")
    paragraph += [link, nodes.Text(").")]
    hint = nodes.admonition(classes=["tip", "run-this-chapter"])
    hint += nodes.title("", "Run this chapter")
    hint += paragraph
    title = next((index for index, child in enumerate(section.children) if isinstance(child, nodes.title)), -1)
    section.insert(title + 1, hint)


def setup(app):
    app.add_directive("chapter-costs", ChapterCosts)
    app.connect("doctree-read", _run_hint)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
