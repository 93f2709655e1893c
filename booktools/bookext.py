"""Sphinx extension: pages rendered from the book's registries, and the reading surface around them.

Directives (each usable once per page):
- ``blueprint-graph``: the dependency graph, drawn by Graphviz after a transitive reduction (``blueprint_graph``),
  each node labelled with its book number and linked to its statement; the legend comes first;
- ``blueprint-table``: every result, its chapter, and the checks that verify it, each check linked to its cell
  (``#check-<id>`` anchors added to the chapters' cells) or to its test on the repository;
- ``errata-table``: one row per erratum (number, where in the paper, severity, summary, proof), filterable by
  severity; the entries below it are numbered E1, E2, ... with matching anchors;
- ``paper-concordance``: the paper's numbered items (``book/paper_numbers.yml``) mapped to the book;
- ``figure-index``: the paper's figures beside thumbnails of the book figures that reproduce them;
- ``book-summary``: the landing page's overview and the paper's false statements.

At ``builder-inited`` the registries are checked against the chapters (``booktools/blueprint.py``); every
disagreement is a Sphinx warning, so the ``-W`` build fails on an inconsistent blueprint.

The reading surface on a phone (``static/bookext.css`` and ``static/bookext.js``, checked page by page by
``browser_tests/``): every captioned figure gets its caption's first sentence as alt text (``alttext.py``); a
figure shown below its natural width opens full size in a lightbox on a tap, and one of several panels side by side
shows them one under the other on a phone; the back matter's tables (``CARD_PAGES``) stack as cards on a phone, and
any other table wider than its column scrolls with a hint line, edge shadows and a sticky first column.
"""

from __future__ import annotations

import base64
import html
import io
import json
import re
import shutil
from collections import Counter
from pathlib import Path

from docutils import nodes
from docutils.statemachine import StringList
from sphinx.ext.graphviz import graphviz
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

from booktools import alttext, bibstyle, blueprint, blueprint_graph, concordance, htmltables, markers

logger = logging.getLogger(__name__)

STATIC = Path(__file__).resolve().parent / "static"
GRAPH_DOC_ATTRIBUTE = "limetheory_blueprint_graph"
CHECK_ANCHOR = "check-{}"
ERRATUM_ANCHOR = "e{}"
THUMBNAIL_WIDTH = 340  # CSS pixels; PNG thumbnails are stored at twice this width, to stay crisp at 2x
THUMBNAIL_FOLDER = "_images/thumbnails"  # in the built site
THUMBNAILS_ATTRIBUTE = "limetheory_thumbnails"


def _root(env) -> Path:
    return Path(env.srcdir)


def _chapter_number(docname: str) -> str:
    """A chapter's number is the one in its file name (tests/test_chapter_numbering.py checks it against _toc.yml)."""
    match = re.match(r"notebooks/(\d+)-", docname)
    return str(int(match.group(1))) if match else ""


def _table_cell(text: str) -> str:
    """Text safe inside a Markdown table cell."""
    return text.replace("|", "\\|").replace("\n", " ")


def _depend_on_chapters(env) -> None:
    """The numbers these pages show (Proposition 19.2) come from the chapters: re-read the page when one changes."""
    for chapter in sorted((_root(env) / "notebooks").glob("*.ipynb")):
        env.note_dependency(str(chapter))


class _MarkdownDirective(SphinxDirective):
    """A directive whose output is MyST text parsed in place (so references are resolved and checked)."""

    def markdown(self) -> list[str]:
        raise NotImplementedError

    def run(self):
        for docname in self._depends_on():
            self.env.note_dependency(str(_root(self.env) / docname))
        _depend_on_chapters(self.env)
        container = nodes.container()
        self.state.nested_parse(StringList(self.markdown(), source=self.env.docname), self.content_offset, container)
        return container.children

    def _depends_on(self) -> list[str]:
        return ["book/blueprint.yml", "book/figures.yml", "book/errata.md", "book/paper_numbers.yml"]


# -- the blueprint -------------------------------------------------------------------------------------------


def _legend_html() -> str:
    items = []
    for status, (fill, border) in blueprint_graph.STATUS_STYLE.items():
        meaning = blueprint.VERIFICATION_MEANING.get(status, "no check names it")
        items.append(
            f'<li><span class="bp-swatch" style="background:{fill};border-color:{border}"></span>'
            f"<strong>{status}</strong>: {html.escape(meaning)}</li>"
        )
    fill, border = blueprint_graph.DEFINITION_STYLE
    items.append(
        f'<li><span class="bp-swatch" style="background:{fill};border-color:{border}"></span>'
        "<strong>definition</strong></li>"
    )
    shapes = ", ".join(
        f"{kind}: {shape.replace('doubleoctagon', 'double octagon').replace('box', 'rounded box')}"
        for kind, (shape, _) in blueprint_graph.KIND_SHAPE.items()
        if kind != "conjecture"
    )
    return (
        '<div class="bp-legend"><p><strong>Legend.</strong> Fill: how the result is verified (its strongest check). '
        f"Shape: the kind of statement ({html.escape(shapes)}). A dashed border marks a result new in this book. "
        "An arrow goes from a result to a result that uses it directly (indirect uses are implied by the "
        "arrows). Each box is a link to the statement; hovering shows its name.</p>"
        f'<ul class="bp-legend-list">{"".join(items)}</ul></div>'
    )


class BlueprintGraph(SphinxDirective):
    """One graph per part of the book (so each fits the column), with the legend first."""

    def run(self):
        root = _root(self.env)
        self.env.note_dependency(str(root / "book/blueprint.yml"))
        self.env.note_dependency(str(root / "_toc.yml"))
        results = blueprint.load_results(root)  # fail early on a malformed registry
        _depend_on_chapters(self.env)
        output: list[nodes.Node] = [nodes.raw("", _legend_html(), format="html")]
        for caption, chapters in _toc_parts(root):
            if not any(result.chapter in chapters for result in results):
                continue
            node = graphviz()
            node["code"] = "digraph blueprint {}\n"  # filled in at doctree-resolved, when the numbers are known
            node["options"] = {"docname": self.env.docname}
            node["alt"] = f"Dependency graph of {caption}"
            node["classes"] = ["blueprint-graph"]
            node[GRAPH_DOC_ATTRIBUTE] = list(chapters)
            heading = nodes.rubric("", caption)
            output += [heading, nodes.container("", node, classes=["bp-graph-card"])]
        return output


def _toc_parts(root: Path) -> list[tuple[str, list[str]]]:
    """(caption, chapter docnames) of each part of ``_toc.yml``."""
    import yaml

    toc = yaml.safe_load((root / "_toc.yml").read_text(encoding="utf-8"))
    return [
        (str(part.get("caption", "")), [str(c["file"]) for c in part.get("chapters", []) if "file" in c])
        for part in toc.get("parts", [])
    ]


def _statement_number(env, label: str) -> str:
    """The number Sphinx gave a ``{prf:...}`` statement ("19.2"), or "" when it has none."""
    entry = getattr(env, "proof_list", {}).get(label)
    if not entry or entry.get("nonumber"):
        return ""
    numbers = env.toc_fignumbers.get(entry["docname"], {}).get(entry["countertype"], {}).get(label)
    return ".".join(str(n) for n in numbers) if numbers else ""


def _fill_blueprint_graph(app, doctree, docname):
    graphs = [node for node in doctree.findall(graphviz) if node.get(GRAPH_DOC_ATTRIBUTE)]
    if not graphs:
        return
    env = app.env
    results = blueprint.load_results(_root(env))

    def url(result):
        return app.builder.get_relative_uri(docname, result.chapter) + "#" + result.label

    for node in graphs:
        chapters = set(node[GRAPH_DOC_ATTRIBUTE])
        # of the four layouts, the one Graphviz shrinks least (its labels stay legible in the 784 px column)
        layouts = [
            blueprint_graph.dot_source(
                results,
                number=lambda result: _statement_number(env, result.label),
                url=url,
                chapter_title=lambda chapter: f"Chapter {_chapter_number(chapter)}",
                only={result.label for result in results if result.chapter in chapters},
                rankdir=rankdir,
                stack_chapters=stack,
            )
            for stack in (True, False)
            for rankdir in ("TB", "LR")
        ]
        node["code"] = max(layouts, key=lambda code: blueprint_graph.drawn_scale(code, app.config.graphviz_dot))


def _repository_file_url(app, path: str, line: int | None = None) -> str:
    base = (app.config.html_theme_options or {}).get("repository_url", "").rstrip("/")
    branch = (app.config.html_theme_options or {}).get("repository_branch", "main") or "main"
    anchor = f"#L{line}" if line else ""
    return f"{base}/blob/{branch}/{path}{anchor}" if base else path


def _check_link(env, result: blueprint.Result, check: str, cells: dict[str, str]) -> str:
    if "::" in check:
        file, _, name = check.partition("::")
        source = (_root(env) / file).read_text(encoding="utf-8").splitlines()
        line = next((k for k, text in enumerate(source, 1) if text.startswith(f"def {name}(")), None)
        href = _repository_file_url(env.app, file, line)
        return f'<a href="{html.escape(href, quote=True)}" class="bp-check">{html.escape(name)}</a>'
    docname = cells.get(check, result.chapter)
    href = env.app.builder.get_relative_uri(env.docname, docname) + "#" + CHECK_ANCHOR.format(check)
    return f'<a href="{html.escape(href, quote=True)}" class="bp-check">{html.escape(check)}</a>'


class BlueprintTable(_MarkdownDirective):
    def markdown(self):
        results = blueprint.load_results(_root(self.env))
        cells = {check: doc for doc, chapter in blueprint.chapters(_root(self.env)).items() for check in chapter.checks}
        lines = [
            '<div class="bp-table">',
            "",
            "| Result | Ch. | Verified by |",
            "|---|---|---|",
        ]
        for result in results:
            name = "new in this book" if result.is_new else result.paper
            note = f" ({result.note})" if result.note else ""
            verified = ", ".join(result.verified) or ("stated" if result.kind == "definition" else "unverified")
            checks = " ".join(_check_link(self.env, result, check, cells) for check in result.checks)
            chapter = f"{{doc}}`{_chapter_number(result.chapter)} <../{result.chapter}>`"
            lines.append(
                f"| {{prf:ref}}`{result.label}` <br> <small>{_table_cell(name + note)}</small> | {chapter} "
                f"| **{verified}** <br> {checks} |"
            )
        lines += ["", "</div>"]
        return lines


# -- errata ----------------------------------------------------------------------------------------------------


def _where_short(where: str) -> str:
    parts = [part for part in ("main text", "supplement") if part in where]
    refs = concordance.printed_refs(where) or list(dict.fromkeys(re.findall(r"Section \d+(?:\.\d+)?", where)))
    return (" and ".join(parts) or "paper") + (": " + ", ".join(refs[:4]) if refs else "")


def _erratum_proof(entry: blueprint.Erratum) -> tuple[str, str]:
    """(the erratum target its proof links to, the number of the chapter that holds it); "" for what is missing."""
    proof = entry.fields.get("proof", "")
    targets = blueprint.ERRATUM_PROOF.findall(proof)
    chapter = re.search(r"\{doc\}`[^`]*?(notebooks/[0-9a-z-]+)>?`", proof)
    return (targets[0] if targets else ""), (_chapter_number(chapter.group(1)) if chapter else "")


def _severity_class(severity: str) -> str:
    return re.sub(r"[^a-z]+", "-", severity.lower()).strip("-")


class ErrataTable(_MarkdownDirective):
    def markdown(self):
        entries = blueprint.errata(_root(self.env))
        counts = Counter(entry.fields.get("severity", "") for entry in entries)
        buttons = [f'<button type="button" data-severity="all" aria-pressed="true">all ({len(entries)})</button>']
        for severity in blueprint.SEVERITIES:
            buttons.append(
                f'<button type="button" data-severity="{_severity_class(severity)}" aria-pressed="false">'
                f"{html.escape(severity)} ({counts[severity]})</button>"
            )
        lines = [
            '<div class="errata-filter" role="group" aria-label="Show the errata of one severity">'
            + "<span>Show:</span> "
            + " ".join(buttons)
            + "</div>",
            "",
            '<div class="errata-table">',
            "",
            "| No. | Where in the paper | Severity | What is wrong | Proof |",
            "|---|---|---|---|---|",
        ]
        for position, entry in enumerate(entries, start=1):
            severity = entry.fields.get("severity", "")
            target, number = _erratum_proof(entry)
            proof = f"{{ref}}`chapter {number} <{target}>`" if target else "—"
            lines.append(
                f'| <a href="#{ERRATUM_ANCHOR.format(position)}">E{position}</a> '
                f"| {_table_cell(_where_short(entry.fields.get('where', '')))} "
                f'| <span class="erratum-severity" data-severity="{_severity_class(severity)}">'
                f"{html.escape(severity)}</span> "
                f"| {_table_cell(entry.title)} | {proof} |"
            )
        lines += ["", "</div>"]
        return lines


def _number_errata(app, doctree):
    """Number the errata entries E1, E2, ... (the ``###`` sections, in order) and give each an anchor."""
    if app.env.docname != "book/errata":
        return
    position = 0
    for section in doctree.findall(nodes.section):
        depth = sum(1 for ancestor in _ancestors(section) if isinstance(ancestor, nodes.section))
        if depth != 2:
            continue
        position += 1
        section["ids"].insert(0, ERRATUM_ANCHOR.format(position))
        title = section[0]
        if isinstance(title, nodes.title):
            title.insert(0, nodes.Text(f"E{position}. "))
    expected = len(blueprint.errata(_root(app.env)))
    if position != expected:
        logger.warning(f"errata page: {position} entry sections but {expected} entries", type="limetheory")


def _ancestors(node):
    parent = node.parent
    while parent is not None:
        yield parent
        parent = parent.parent


# -- the chapters' check cells ---------------------------------------------------------------------------------


def _anchor_check_cells(app, doctree):
    """Give each cell tagged ``check-<id>`` the anchor ``check-<id>``, so the blueprint can link to it.

    MyST-NB renders a cell's tags as classes ``tag_<tag>`` of the cell's container.
    """
    if not app.env.docname.startswith("notebooks/"):
        return
    seen = set()
    for cell in doctree.findall(nodes.container):
        classes = cell.get("classes", [])
        if "cell" not in classes:
            continue
        tags = [name.removeprefix("tag_") for name in classes if name.startswith("tag_")]
        for check in markers.check_tags(tags):
            if check not in seen:
                seen.add(check)
                cell["ids"].append(CHECK_ANCHOR.format(check))


def _merge_table_index_names(app, doctree):
    """pandas tables in the chapters' outputs: the index's name in the header row, not on an empty band."""
    if not app.env.docname.startswith("notebooks/"):
        return
    for raw in list(doctree.findall(nodes.raw)):
        if raw.get("format") != "html" or "<thead" not in raw.astext():
            continue
        merged = htmltables.merge_index_names(raw.astext())
        if merged != raw.astext():
            raw.replace_self(nodes.raw(raw.rawsource, merged, format="html", classes=raw.get("classes", [])))


# -- the concordance -------------------------------------------------------------------------------------------


def _treated(row: concordance.Row) -> str:
    if row.kind == "figure":
        figure = row.figure
        if figure is None:
            return "—"
        if not figure.figure:
            return f"not reproduced: {_table_cell(figure.reason)}"
        return f"{{numref}}`{figure.figure}`, {{doc}}`chapter {_chapter_number(figure.chapter)} <../{figure.chapter}>`"
    if not row.results:
        return "—"
    return "; ".join(
        f"{{prf:ref}}`{r.label}` ({{doc}}`chapter {_chapter_number(r.chapter)} <../{r.chapter}>`)" for r in row.results
    )


class PaperConcordance(_MarkdownDirective):
    """The concordance table of one part of the paper (argument ``main`` or ``supplement``)."""

    required_arguments = 1

    def markdown(self):
        part = self.arguments[0]
        if part not in ("main", "supplement"):
            raise self.error(f"paper-concordance takes 'main' or 'supplement', not {part!r}")
        rows = concordance.rows(_root(self.env))
        lines: list[str] = ['<div class="concordance">', ""]
        lines += ["| In the paper | In this book | Status | Errata |", "|---|---|---|---|"]
        for row in (row for row in rows if row.part == part):
            title = "" if row.kind == "equation" else f" {_table_cell(row.title)}"
            section = re.sub(r"^Supplement, ", "", row.section)
            errata = ", ".join(f'<a href="errata.html#{ERRATUM_ANCHOR.format(n)}">E{n}</a>' for n in row.errata)
            lines.append(
                f"| **{row.printed}**{title} <br> <small>{_table_cell(section)}</small> | {_treated(row)} "
                f"| {row.status} | {errata or '—'} |"
            )
        return [*lines, "", "</div>"]


# -- figures -----------------------------------------------------------------------------------------------------


def _figure_output(root: Path, chapter: str, name: str) -> tuple[str, str]:
    """The executed output of the cell that makes figure ``name``: (mime type, data)."""
    notebook = json.loads((root / f"{chapter}.ipynb").read_text(encoding="utf-8"))
    for cell in notebook["cells"]:
        if cell.get("metadata", {}).get("mystnb", {}).get("figure", {}).get("name") == name:
            for output in cell.get("outputs", []):
                data = output.get("data", {})
                for mime in ("image/svg+xml", "image/png"):
                    if mime in data:
                        value = data[mime]
                        return mime, "".join(value) if isinstance(value, list) else value
    raise ValueError(f"{chapter}.ipynb has no executed figure named {name}")


def _thumbnail(root: Path, chapter: str, name: str, width: int = THUMBNAIL_WIDTH) -> tuple[str, bytes, int]:
    """The figure as a thumbnail ``width`` CSS pixels wide: (file suffix, file content, width to show it at).

    An SVG figure is its own thumbnail; a PNG is stored at twice the width it is shown at, to stay crisp at 2x.
    """
    mime, data = _figure_output(root, chapter, name)
    if mime == "image/svg+xml":
        return ".svg", data.encode("utf-8"), width
    from PIL import Image

    image = Image.open(io.BytesIO(base64.b64decode(data)))
    if image.width > 2 * width:
        image = image.resize((2 * width, round(image.height * 2 * width / image.width)), Image.LANCZOS)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", optimize=True)
    return ".png", buffer.getvalue(), min(width, image.width // 2)


def _thumbnails(env) -> dict[str, bytes]:
    """The figure index's thumbnails by output path, kept in the environment (pickled between builds)."""
    if not hasattr(env, THUMBNAILS_ATTRIBUTE):
        setattr(env, THUMBNAILS_ATTRIBUTE, {})
    return getattr(env, THUMBNAILS_ATTRIBUTE)


def _merge_thumbnails(app, env, docnames, other):
    _thumbnails(env).update(_thumbnails(other))


def _write_thumbnails(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    for file, content in _thumbnails(app.env).items():
        target = Path(app.outdir) / file
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content)


class FigureIndex(_MarkdownDirective):
    def markdown(self):
        root = _root(self.env)
        numbers = {entry["printed"]: entry for entry in blueprint.paper_numbers(root).values()}
        lines = ['<div class="figure-index">', "", "| The paper's figure | The book's figure |", "|---|---|"]
        for figure in blueprint.paper_figures(root):
            caption = numbers.get(figure.number, {}).get("title", "")
            paper = f"**{figure.number}** ({figure.part}): {_table_cell(figure.subject)}"
            if caption:
                paper += f" <br> <small>Caption: {_table_cell(caption)}</small>"
            if figure.figure:
                self.env.note_dependency(str(root / f"{figure.chapter}.ipynb"))
                href = self.env.app.builder.get_relative_uri(self.env.docname, figure.chapter) + "#" + figure.figure
                suffix, content, shown = _thumbnail(root, figure.chapter, figure.figure)
                # a file beside the book's other images (written at build-finished), not inline base64: the page
                # stays small and the browser caches the images
                file = f"{THUMBNAIL_FOLDER}/{figure.figure}{suffix}"
                _thumbnails(self.env)[file] = content
                src = "../" * self.env.docname.count("/") + file
                alt = html.escape(f"{figure.number} as reproduced", quote=True)
                image = f'<img src="{html.escape(src, quote=True)}" width="{shown}" class="fig-thumb" alt="{alt}"/>'
                book = (
                    f'<a href="{html.escape(href, quote=True)}">{image}</a> <br> {{numref}}`{figure.figure}` in '
                    f"{{doc}}`../{figure.chapter}`"
                )
            else:
                book = f"*not reproduced:* {_table_cell(figure.reason)}"
            lines.append(f"| {paper} | {book} |")
        return [*lines, "", "</div>"]


# -- the API reference -----------------------------------------------------------------------------------------


class ApiSummary(_MarkdownDirective):
    """An autosummary table of everything ``limetheory`` exports, each entry linked to its documentation below.

    Names are given under their defining module (``limetheory.theory.sampling.psi``), which is where the page's
    ``automodule`` directives document them; an export whose module the page does not document is a warning.
    """

    def _depends_on(self) -> list[str]:
        return ["book/api.md"]

    def markdown(self):
        import importlib

        package = importlib.import_module("limetheory")
        page = (_root(self.env) / "book" / "api.md").read_text(encoding="utf-8")
        documented = re.findall(r"^\.\. automodule:: (\S+)", page, re.MULTILINE)
        entries: dict[str, list[str]] = {module: [] for module in documented}
        for name in package.__all__:
            module = getattr(getattr(package, name), "__module__", "")
            if module in entries:
                entries[module].append(f"{module}.{name}")
            elif not isinstance(getattr(package, name), (int, float, str)):
                logger.warning(f"API reference: limetheory.{name} ({module}) is exported but not documented")
        lines = ["```{eval-rst}", ".. autosummary::", "   :nosignatures:", ""]
        # relative to the page's current module (``limetheory``), as autosummary wants them
        # "~" shows the bare name, as a reader writes it after ``import limetheory as lt``
        lines += [f"   ~{entry.removeprefix('limetheory.')}" for module in documented for entry in entries[module]]
        return lines + ["```"]


# -- the landing page ------------------------------------------------------------------------------------------


class BookSummary(_MarkdownDirective):
    """The overview table, and the paper's false statements with links to the entry and to its proof."""

    def markdown(self):
        root = _root(self.env)
        option = self.arguments[0] if self.arguments else "overview"
        entries = blueprint.errata(root)
        if option == "false-statements":
            lines = []
            for position, entry in enumerate(entries, start=1):
                if entry.fields.get("severity") != "wrong statement":
                    continue
                target, number = _erratum_proof(entry)
                where = _where_short(entry.fields.get("where", ""))
                proof = f"; {{ref}}`proof in chapter {number} <{target}>`" if target else ""
                lines.append(
                    f'- <a href="errata.html#{ERRATUM_ANCHOR.format(position)}">E{position}. {entry.title}</a> '
                    f"({where}{proof})"
                )
            return lines
        results = [r for r in blueprint.load_results(root) if r.kind != "definition"]
        status = Counter(r.status for r in results)
        new = sum(r.is_new for r in results)
        against_lime = sum("lime" in r.verified for r in results)
        severity = Counter(e.fields.get("severity", "") for e in entries)
        figures = blueprint.paper_figures(root)
        reproduced = sum(bool(f.figure) for f in figures)
        return [
            "| The book verifies | Count | The book corrects | Count |",
            "|---|--:|---|--:|",
            f"| results stated ({new} new in this book) | {len(results)} | errata in the paper | {len(entries)} |",
            f"| proved or checked with sympy for general $d$ | {status['symbolic']} "
            f"| wrong statements | {severity['wrong statement']} |",
            f"| exact for given $d$ (strongest check) | {status['exact']} "
            f"| wrong constants | {severity['wrong constant']} |",
            f"| checked against real lime | {against_lime} "
            f"| approximations presented as exact | {severity['approximation presented as exact']} |",
            f"| paper figures reproduced | {reproduced} of {len(figures)} | typos | {severity['typo']} |",
        ]


BookSummary.optional_arguments = 1


# -- the reading surface on a phone -------------------------------------------------------------------------------

# pages whose tables stack as cards on a phone (bookext.css): tables of text, read row by row; the other tables
# (the chapters' numbers, the costs) scroll sideways with their first column in view, so columns stay comparable
CARD_PAGES = ("book/errata", "book/concordance", "book/blueprint", "book/figures", "book/notation", "book/guards")
CARD_CLASS = "bk-cards"


def _mark_card_tables(app, doctree):
    if app.env.docname in CARD_PAGES:
        for table in doctree.findall(nodes.table):
            table["classes"].append(CARD_CLASS)


def _caption_text(caption: nodes.Element) -> str:
    """A caption as plain text: its formulas read as characters (``alttext.plain_math``), its words as they are."""
    parts = []
    for node in caption.findall(nodes.Text):
        parent = node.parent
        if isinstance(parent, (nodes.math, nodes.math_block)):
            parts.append(alttext.plain_math(node.astext()))
        else:
            parts.append(node.astext())
    return "".join(parts)


def _figure_alt_text(app, doctree, docname):
    """Each captioned figure's image gets its caption's first sentence as alt text (it was the image's path)."""
    for figure in doctree.findall(nodes.figure):
        caption = next(iter(figure.findall(nodes.caption)), None)
        if caption is None:
            continue
        alt = alttext.first_sentence(_caption_text(caption))
        if not alt:
            continue
        for image in figure.findall(nodes.image):
            if not image.get("alt") or image.get("alt") == image.get("uri"):
                image["alt"] = alt


# -- events ------------------------------------------------------------------------------------------------------


def _escape_absolute_values(app, what, name, obj, options, lines):
    """Docstrings write |J| for a size or |x| for an absolute value; reST would read a substitution."""
    for index, line in enumerate(lines):
        lines[index] = line.replace("|", "\\|")


def _unnumber_back_matter_figures(app, env):
    """Figures outside the chapters get no number: "Book figure 1" on the costs page read as chapter 1's figure.

    Sphinx numbers every captioned figure; the chapters' figures read "Book figure 16.2", and a page that is not a
    chapter would show "Book figure 1". A reference to such a figure then has no number to show, and fails the
    build (``-W``), which is what a page outside the chapters should not need.
    """
    for docname, numbers in env.toc_fignumbers.items():
        if not docname.startswith("notebooks/"):
            numbers.pop("figure", None)
    return []


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
    for problem in blueprint.page_label_citations(root):
        logger.warning(f"book page: {problem}", type="limetheory", subtype="registry")


def _resolve_package_names(app, env, node, contnode):
    """``lt.alpha`` is documented where it is defined (``limetheory.theory.coefficients.alpha``); a docstring or the
    summary table that names it ``alpha`` or ``limetheory.alpha`` links there."""
    if node.get("refdomain") != "py":
        return None
    name = node.get("reftarget", "").removeprefix("limetheory.")
    import limetheory

    if "." in name or name not in limetheory.__all__:
        return None
    module = getattr(getattr(limetheory, name), "__module__", "")
    if not module.startswith("limetheory."):
        return None
    domain = env.get_domain("py")
    return domain.resolve_xref(env, node["refdoc"], app.builder, node["reftype"], f"{module}.{name}", node, contnode)


def _add_static(app, config):
    config.html_static_path = [*config.html_static_path, str(STATIC)]
    # the theme reads its default colour mode from the template context; without one its script starts from ""
    # and logs "Got invalid theme mode" on a reader's first visit. "auto" follows the reader's system setting.
    context = dict(config.html_context or {})
    context.setdefault("default_mode", "auto")
    config.html_context = context


def _dedupe_scripts(app, pagename, templatename, context, doctree):
    """Each script once: a second copy of sphinx-thebe's ``const THEBE_JS_URL`` is a console SyntaxError.

    Inline scripts that extensions add after the builder started reach the page twice, once from the registry
    (file name "") and once from the builder (file name None); they are the same script.
    """
    seen, unique = set(), []
    for script in context.get("script_files", []):
        name = getattr(script, "filename", script)
        name = "" if name in (None, "None") else str(name)
        attributes = {k: v for k, v in (getattr(script, "attributes", None) or {}).items() if k != "priority"}
        key = (name, tuple(sorted(attributes.items())))
        if key not in seen:
            seen.add(key)
            unique.append(script)
    context["script_files"] = unique


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


def _write_root_redirect(app, exception):
    """The site's root page: a redirect to the landing page that also names the favicon.

    sphinx-external-toc writes a bare ``<meta http-equiv="Refresh">`` index.html when none exists; a browser
    that opens it asks for /favicon.ico, which the book does not have (its icon is an SVG), and logs a 404.
    Written before sphinx-external-toc's own handler runs (priority 400 < 500), so that one leaves it alone.
    """
    if exception is not None or app.builder.format != "html" or app.builder.name == "dirhtml":
        return
    landing = f"{app.config.root_doc}.html"
    # the book's title (Jupyter Book sets html_title from _config.yml's title; `project` keeps Sphinx's placeholder)
    title = html.escape(app.config.html_title or app.config.project)
    favicon = Path(app.config.html_favicon or "").name
    icon = f'<link rel="icon" href="_static/{favicon}">' if favicon else ""
    (Path(app.outdir) / "index.html").write_text(
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Refresh" content="0; url={landing}">{icon}'
        f"<title>{title}</title></head>"
        f'<body><a href="{landing}">{title}</a></body></html>\n',
        encoding="utf8",
    )


def setup(app):
    bibstyle.register()
    # what the extension's own handlers and nodes need, loaded here so that it works in any book
    app.setup_extension("sphinx.ext.graphviz")
    app.setup_extension("sphinx.ext.autodoc")
    app.add_directive("blueprint-table", BlueprintTable)
    app.add_directive("blueprint-graph", BlueprintGraph)
    app.add_directive("errata-table", ErrataTable)
    app.add_directive("paper-concordance", PaperConcordance)
    app.add_directive("figure-index", FigureIndex)
    app.add_directive("book-summary", BookSummary)
    app.add_directive("api-summary", ApiSummary)
    app.connect("config-inited", _add_static)
    app.connect("builder-inited", _check_registries)
    app.connect("doctree-read", _anchor_check_cells)
    app.connect("doctree-read", _number_errata)
    app.connect("doctree-read", _merge_table_index_names)
    app.connect("doctree-read", _mark_card_tables)
    app.connect("doctree-resolved", _fill_blueprint_graph)
    app.connect("doctree-resolved", _figure_alt_text)
    app.connect("autodoc-process-docstring", _escape_absolute_values)
    app.connect("missing-reference", _resolve_package_names)
    app.connect("html-page-context", _markdown_download, priority=600)
    app.connect("html-page-context", _dedupe_scripts, priority=900)
    app.connect("env-merge-info", _merge_thumbnails)
    # after Sphinx's toctree collector has numbered the figures (it listens at the default priority, 500)
    app.connect("env-get-updated", _unnumber_back_matter_figures, priority=900)
    app.connect("build-finished", _copy_markdown_sources)
    app.connect("build-finished", _write_thumbnails)
    app.connect("build-finished", _write_root_redirect, priority=400)
    app.add_css_file("bookext.css")
    app.add_js_file("bookext.js")
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "2"}
