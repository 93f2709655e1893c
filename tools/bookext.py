"""Sphinx extension: pages rendered from the book's registries, and the chapters' MyST download button.

Directives (each usable once per page):
- ``blueprint-table``: every result with its status, what it uses and the checks that verify it;
- ``blueprint-graph``: the dependency graph as an inline SVG, coloured by status (Lean-blueprint style);
- ``errata-summary``: errata counted by chapter section and severity;
- ``figure-index``: the paper's figures with a thumbnail of the book figure that reproduces each;
- ``book-summary``: the one-screen overview on the introduction.

At ``builder-inited`` the registries are checked against the chapters (``tools/blueprint.py``); every
disagreement is a Sphinx warning, so the ``-W`` build fails on an inconsistent blueprint.
"""

from __future__ import annotations

import base64
import html
import io
import json
import shutil
from collections import Counter
from pathlib import Path

from docutils import nodes
from docutils.statemachine import StringList
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

import blueprint

logger = logging.getLogger(__name__)

STATUS_COLOURS = {
    "symbolic": "#1a7f37",
    "exact": "#4ac26b",
    "lime": "#218bff",
    "approximate": "#d4a72c",
    "cited": "#8250df",
    "unverified": "#cf222e",
}
DEFINITION_COLOUR = "#8c959f"


def _root(env) -> Path:
    return Path(env.srcdir)


def _link(env, docname: str, target: str = "") -> str:
    uri = env.app.builder.get_relative_uri(env.docname, docname)
    return html.escape(uri + (f"#{target}" if target else ""), quote=True)


class _MarkdownDirective(SphinxDirective):
    """A directive whose output is MyST text parsed in place (so references are resolved and checked)."""

    def markdown(self) -> list[str]:
        raise NotImplementedError

    def run(self):
        for docname in self._depends_on():
            self.env.note_dependency(str(_root(self.env) / docname))
        container = nodes.container()
        self.state.nested_parse(StringList(self.markdown(), source=self.env.docname), self.content_offset, container)
        return container.children

    def _depends_on(self) -> list[str]:
        return ["book/blueprint.yml", "book/figures.yml", "book/errata.md"]


def _result_ref(result: blueprint.Result) -> str:
    name = result.paper if not result.is_new else result.label
    return f"{{prf:ref}}`{name} <{result.label}>`"


class BlueprintTable(_MarkdownDirective):
    def markdown(self):
        results = blueprint.load_results(_root(self.env))
        lines = ["| Result | Kind | Chapter | Uses | Verified | Checks |", "|---|---|---|---|---|---|"]
        for result in results:
            uses = ", ".join(f"{{prf:ref}}`{u} <{u}>`" for u in result.uses) or "—"
            verified = ", ".join(result.verified) or "—"
            if result.is_new:
                verified += " (new)"
            checks = ", ".join(f"`{c}`" for c in result.checks) or "—"
            chapter = f"{{doc}}`{result.chapter.split('/')[-1]} <../{result.chapter}>`"
            lines.append(f"| {_result_ref(result)} | {result.kind} | {chapter} | {uses} | {verified} | {checks} |")
        return lines


def _layers(results: list[blueprint.Result]) -> list[list[blueprint.Result]]:
    """Depth = 1 + the largest depth of the results used; each layer ordered by its parents' mean position."""
    by_label = {r.label: r for r in results}
    depth: dict[str, int] = {}

    def depth_of(label: str) -> int:
        if label not in depth:
            uses = [u for u in by_label[label].uses if u in by_label]
            depth[label] = 1 + max((depth_of(u) for u in uses), default=-1)
        return depth[label]

    for result in results:
        depth_of(result.label)
    layers: list[list[blueprint.Result]] = [[] for _ in range(max(depth.values(), default=-1) + 1)]
    for result in results:
        layers[depth[result.label]].append(result)
    position: dict[str, float] = {}
    for layer in layers:

        def key(result):
            parents = [position[u] for u in result.uses if u in position]
            return (sum(parents) / len(parents) if parents else -1.0, result.chapter, result.label)

        layer.sort(key=key)
        for index, result in enumerate(layer):
            position[result.label] = index - (len(layer) - 1) / 2
    return layers


class BlueprintGraph(SphinxDirective):
    node_width, node_height, gap_x, gap_y, per_row = 160, 34, 12, 56, 4

    def run(self):
        self.env.note_dependency(str(_root(self.env) / "book/blueprint.yml"))
        results = blueprint.load_results(_root(self.env))
        # a wide layer is wrapped over several rows, so the graph fits the text column
        rows = [layer[k : k + self.per_row] for layer in _layers(results) for k in range(0, len(layer), self.per_row)]
        step_x = self.node_width + self.gap_x
        width = self.per_row * step_x + self.gap_x
        height = len(rows) * (self.node_height + self.gap_y) + self.gap_y
        centre: dict[str, tuple[float, float]] = {}
        for row, members in enumerate(rows):
            offset = (width - len(members) * step_x + self.gap_x) / 2
            for column, result in enumerate(members):
                x = offset + column * step_x + self.node_width / 2
                y = self.gap_y / 2 + row * (self.node_height + self.gap_y) + self.node_height / 2
                centre[result.label] = (x, y)
        parts = [
            f'<div class="blueprint-graph" style="overflow-x:auto"><svg xmlns="http://www.w3.org/2000/svg" '
            f'width="{width:.0f}" height="{height:.0f}" viewBox="0 0 {width:.0f} {height:.0f}" '
            'role="img" aria-label="Dependency graph of the results">',
            '<defs><marker id="bp-arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="6" markerHeight="6" '
            'orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="#57606a"/></marker></defs>',
        ]
        half = self.node_height / 2
        for result in results:
            x1, y1 = centre[result.label]
            for used in result.uses:
                if used in centre:
                    x0, y0 = centre[used]
                    parts.append(
                        f'<path d="M {x0:.1f} {y0 + half:.1f} C {x0:.1f} {y0 + half + 30:.1f}, {x1:.1f} '
                        f'{y1 - half - 30:.1f}, {x1:.1f} {y1 - half:.1f}" fill="none" stroke="#8c959f" '
                        'stroke-width="1" marker-end="url(#bp-arrow)"/>'
                    )
        for result in results:
            x, y = centre[result.label]
            colour = DEFINITION_COLOUR if result.kind == "definition" else STATUS_COLOURS[result.status]
            dash = ' stroke-dasharray="5 3"' if result.is_new else ""
            title = html.escape(f"{result.paper} ({result.kind}), {result.chapter}: {result.status}")
            parts.append(
                f'<a href="{_link(self.env, result.chapter, result.label)}"><title>{title}</title>'
                f'<rect x="{x - self.node_width / 2:.1f}" y="{y - half:.1f}" width="{self.node_width}" '
                f'height="{self.node_height}" rx="6" fill="{colour}" fill-opacity="0.18" stroke="{colour}" '
                f'stroke-width="2"{dash}/>'
                f'<text x="{x:.1f}" y="{y + 4:.1f}" text-anchor="middle" font-size="10" '
                f'font-family="sans-serif" fill="#1f2328">{html.escape(result.label)}</text></a>'
            )
        parts.append("</svg></div>")
        legend = ["<p class='blueprint-legend'>"]
        for status, colour in [*STATUS_COLOURS.items(), ("definition", DEFINITION_COLOUR)]:
            meaning = blueprint.VERIFICATION_MEANING.get(status, status)
            legend.append(
                '<span style="display:inline-block;margin-right:1em"><span style="display:inline-block;width:1em;'
                f'height:1em;background:{colour};opacity:.6;vertical-align:middle"></span> '
                f"{html.escape(meaning)}</span>"
            )
        legend.append("<span>dashed border: new in this book; arrows point from a result to those that use it.</span>")
        legend.append("</p>")
        return [nodes.raw("", "".join(parts + legend), format="html")]


class ErrataSummary(_MarkdownDirective):
    def markdown(self):
        entries = blueprint.errata(_root(self.env))
        sections = list(dict.fromkeys(entry.section for entry in entries))
        counts = Counter((entry.section, entry.fields.get("severity", "")) for entry in entries)
        header = "| Section | " + " | ".join(blueprint.SEVERITIES) + " | total |"
        lines = [header, "|---" * (len(blueprint.SEVERITIES) + 2) + "|"]
        for section in sections:
            row = [counts[(section, severity)] for severity in blueprint.SEVERITIES]
            lines.append(f"| {section} | " + " | ".join(str(c) for c in row) + f" | {sum(row)} |")
        totals = [sum(counts[(s, severity)] for s in sections) for severity in blueprint.SEVERITIES]
        lines.append("| **all** | " + " | ".join(f"**{t}**" for t in totals) + f" | **{sum(totals)}** |")
        return lines


def _thumbnail(root: Path, chapter: str, name: str, width: int = 220) -> str:
    from PIL import Image

    notebook = json.loads((root / f"{chapter}.ipynb").read_text(encoding="utf-8"))
    for cell in notebook["cells"]:
        if cell.get("metadata", {}).get("mystnb", {}).get("figure", {}).get("name") == name:
            for output in cell.get("outputs", []):
                png = output.get("data", {}).get("image/png")
                if png:
                    image = Image.open(io.BytesIO(base64.b64decode(png)))
                    image.thumbnail((width, width))
                    buffer = io.BytesIO()
                    image.save(buffer, format="PNG", optimize=True)
                    return base64.b64encode(buffer.getvalue()).decode()
    raise ValueError(f"{chapter}.ipynb has no executed figure named {name}")


class FigureIndex(SphinxDirective):
    def run(self):
        root = _root(self.env)
        self.env.note_dependency(str(root / "book/figures.yml"))
        rows = []
        for figure in blueprint.paper_figures(root):
            if figure.figure:
                self.env.note_dependency(str(root / f"{figure.chapter}.ipynb"))
                href = _link(self.env, figure.chapter, figure.figure)
                thumb = _thumbnail(root, figure.chapter, figure.figure)
                shown = (
                    f'<a href="{href}"><img src="data:image/png;base64,{thumb}" alt="{html.escape(figure.subject)}" '
                    f'style="max-width:220px"/></a>'
                )
                where = f'<a href="{href}">{html.escape(figure.chapter.split("/")[-1])}</a>'
            else:
                shown, where = f"<em>not reproduced:</em> {html.escape(figure.reason)}", "—"
            rows.append(
                f"<tr><td>{html.escape(figure.number)}<br/><small>{html.escape(figure.part)}</small></td>"
                f"<td>{html.escape(figure.subject)}</td><td>{where}</td><td>{shown}</td></tr>"
            )
        table = (
            '<table class="table figure-index"><thead><tr><th>Paper figure</th><th>Shows</th><th>Chapter</th>'
            "<th>Book figure</th></tr></thead><tbody>" + "".join(rows) + "</tbody></table>"
        )
        return [nodes.raw("", table, format="html")]


class BookSummary(_MarkdownDirective):
    """Two compact tables: what is verified, and the paper's false statements with the cells that prove them."""

    def markdown(self):
        root = _root(self.env)
        results = [r for r in blueprint.load_results(root) if r.kind != "definition"]
        status = Counter(r.status for r in results)
        new = sum(r.is_new for r in results)
        against_lime = sum("lime" in r.verified for r in results)
        entries = blueprint.errata(root)
        severity = Counter(e.fields.get("severity", "") for e in entries)
        figures = blueprint.paper_figures(root)
        reproduced = sum(bool(f.figure) for f in figures)
        lines = [
            "| Verified | | Corrected | |",
            "|---|---|---|---|",
            f"| results stated, {new} new | **{len(results)}** | errata in the paper | **{len(entries)}** |",
            f"| … proved or checked with sympy for general $d$ | {status['symbolic']} "
            f"| … wrong statements | {severity['wrong statement']} |",
            f"| … exact for given $d$ at best | {status['exact']} | … wrong constants | {severity['wrong constant']} |",
            f"| … checked against real lime | {against_lime} "
            f"| … approximations presented as exact | {severity['approximation presented as exact']} |",
            f"| paper figures reproduced | {reproduced} of {len(figures)} | … typos | {severity['typo']} |",
            "",
            "The statements of the paper that are false as printed, each linked to the cell that shows it:",
            "",
        ]
        for entry in entries:
            if entry.fields.get("severity") == "wrong statement":
                targets = blueprint.ERRATUM_PROOF.findall(entry.fields.get("proof", ""))
                if targets:
                    lines.append(f"- {entry.title} ({entry.section}; {{ref}}`the proof <{targets[0]}>`)")
        return lines


def _escape_absolute_values(app, what, name, obj, options, lines):
    """Docstrings write |J| for a size or |x| for an absolute value; reST would read a substitution."""
    for index, line in enumerate(lines):
        lines[index] = line.replace("|", "\\|")


def _check_registries(app):
    root = Path(app.srcdir)
    # only the chapters this build includes (a contributor's private table of contents may list a few)
    toc = getattr(app.config, "external_toc_path", None)
    scope = blueprint.toc_docnames(Path(app.confdir) / toc) if toc else None
    for check in (blueprint.blueprint_problems, blueprint.errata_problems, blueprint.figure_problems):
        try:
            problems = check(root, scope)
        except (OSError, ValueError) as error:
            problems = [str(error)]
        for problem in problems:
            logger.warning(f"book registry: {problem}", type="limetheory", subtype="registry")


def _markdown_download(app, pagename, templatename, context, doctree):
    """Offer the chapter's MyST source (the reviewed text) beside the .ipynb in the download menu."""
    if not pagename.startswith("notebooks/"):
        return
    for button in context.get("header_buttons", []):
        if button.get("label") == "download-buttons":
            button["buttons"].insert(
                1,
                {
                    "type": "link",
                    "url": f"{context['pathto']('_sources', 1)}/{pagename}.md",
                    "text": ".md",
                    "tooltip": "Download the MyST source",
                    "icon": "fas fa-file-lines",
                    "label": "download-myst-button",
                },
            )


def _copy_markdown_sources(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    target = Path(app.outdir) / "_sources" / "notebooks"
    target.mkdir(parents=True, exist_ok=True)
    for source in sorted((Path(app.srcdir) / "notebooks").glob("*.md")):
        shutil.copyfile(source, target / source.name)


def setup(app):
    app.add_directive("blueprint-table", BlueprintTable)
    app.add_directive("blueprint-graph", BlueprintGraph)
    app.add_directive("errata-summary", ErrataSummary)
    app.add_directive("figure-index", FigureIndex)
    app.add_directive("book-summary", BookSummary)
    app.connect("builder-inited", _check_registries)
    app.connect("autodoc-process-docstring", _escape_absolute_values)
    app.connect("html-page-context", _markdown_download, priority=600)
    app.connect("build-finished", _copy_markdown_sources)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "1"}
