"""Sphinx extension: the book's mathematics typeset once, at the build, instead of in every reader's browser.

Sphinx writes each formula as TeX (``<span class="math">\\(...\\)</span>``, ``<div class="math">\\[...\\]</div>``)
and a page with formulas loads MathJax (``sphinx-mathjax-offline``'s copy, 3.2.2), which typesets them in the
reader's browser. On the heaviest chapter that was about 6 CPU-s of the page's 7.5 on a desktop core, before the
page could be read or scrolled; a phone takes several times longer. Once the HTML builder has finished, this
extension hands every page's formulas to the same MathJax in Node.js (``booktools/mathjax/prerender.js``, from
``mathjax-full`` 3.2.2 pinned by ``booktools/mathjax/package-lock.json``, installed by ``make``): each formula
becomes the CHTML markup MathJax would have inserted, with its hidden MathML for screen readers, the page gets the
stylesheet of the characters it uses, and its MathJax scripts are removed. The fonts are still the ones
``sphinx-mathjax-offline`` copies into ``_static/mathjax``.

What changes for a reader: the page is laid out with its mathematics from the start; MathJax's context menu (show
the TeX, zoom) is gone, as MathJax is no longer loaded. The scale is fixed at the 127.3% that MathJax's
``matchFontHeight`` chose for the theme's text in Chromium here (``SCALE``) rather than measured per reader.

A TeX error, or an undefined macro (which the browser showed in red), is a Sphinx warning naming the page and the
formula: an error under ``-W``. Without Node.js or ``booktools/mathjax/node_modules``, the build warns once and
leaves the pages to the browser's MathJax, as before. A page whose formulas are already typeset (an incremental
build that did not rewrite it) has nothing left to do.
"""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

from sphinx.util import logging

logger = logging.getLogger(__name__)

MATHJAX_DIR = Path(__file__).resolve().parent / "mathjax"
SCRIPT = MATHJAX_DIR / "prerender.js"
#: MathJax's CHTML font directory, as sphinx-mathjax-offline copies it into the build
FONTS = "_static/mathjax/output/chtml/fonts/woff-v2"
#: the size of mathematics against the surrounding text: MathJax's matchFontHeight in Chromium on the theme's font
SCALE = 1.273
EM, EX = 16, 8  # the metrics MathJax is told (EX only scales under matchFontHeight, which SCALE replaces)

# a math element as Sphinx (and myst-nb's text/latex outputs) write it, and each delimited formula inside it
_MATH_ELEMENT = re.compile(
    r'(<(span|div) class="(?:output text_latex )?math notranslate nohighlight"[^>]*>)(.*?)(</\2>)', re.S
)
_FORMULA = re.compile(r"\\\((.*?)\\\)|\\\[(.*?)\\\]", re.S)
_SCRIPTS = re.compile(
    r"[ \t]*<script>window\.MathJax = [^<]*</script>\n?"
    r'|[ \t]*<script[^>]*src="[^"]*mathjax/tex-chtml\.js(?:\?[^"]*)?"[^>]*></script>\n?'
)


def formulas(page_html):
    """The formulas of a page, in order: a list of ``(start, end, tex, display)``, ``start:end`` spanning the
    delimiters in ``page_html`` and ``tex`` unescaped.

    Examples
    --------
    >>> formulas('<p>Let <span class="math notranslate nohighlight">\\\\(x &lt; 1\\\\)</span>.</p>')
    [(50, 62, 'x < 1', False)]
    """
    if not isinstance(page_html, str):
        raise TypeError(f"page_html must be a str, got {type(page_html).__name__}")
    found = []
    for element in _MATH_ELEMENT.finditer(page_html):
        offset = element.start(3)
        for formula in _FORMULA.finditer(element.group(3)):
            display = formula.group(2) is not None
            tex = formula.group(2) if display else formula.group(1)
            found.append((offset + formula.start(), offset + formula.end(), html.unescape(tex), display))
    return found


def rewrite(page_html, typeset, css):
    r"""``page_html`` with its formulas replaced by ``typeset`` (one markup string per formula, in order), the
    stylesheet ``css`` added to its head and its MathJax scripts removed.

    Examples
    --------
    >>> page = ('<html><head><script>window.MathJax = {}</script>\n</head><body>'
    ...         '<span class="math notranslate nohighlight">\\(x\\)</span></body></html>')
    >>> out = rewrite(page, ["<mjx-container>x</mjx-container>"], "mjx-container {}")
    >>> out[: out.index("<body>")]
    '<html><head><style id="MJX-CHTML-styles">mjx-container {}</style>\n</head>'
    >>> out[out.index("<body>") :]
    '<body><span class="math notranslate nohighlight"><mjx-container>x</mjx-container></span></body></html>'
    """
    spans = formulas(page_html)
    if len(typeset) != len(spans):
        raise ValueError(f"typeset has {len(typeset)} formulas, the page {len(spans)}")
    parts, last = [], 0
    for (start, end, _, _), markup in zip(spans, typeset, strict=True):
        parts += [page_html[last:start], markup]
        last = end
    parts.append(page_html[last:])
    out = _SCRIPTS.sub("", "".join(parts))
    head_end = out.find("</head>")
    if head_end < 0:
        raise ValueError("the page has no </head>")
    return f'{out[:head_end]}<style id="MJX-CHTML-styles">{css}</style>\n{out[head_end:]}'


def typeset(pages, node=None):
    """Typeset ``pages`` (a list of ``(font_url, [(tex, display), ...])``) in one Node.js process: a list of
    ``(markup, css, errors)``, one per page, ``errors`` a list of ``[index, message]`` (the formula's index in
    the page's list)."""
    node = node or shutil.which("node")
    request = {
        "em": EM,
        "ex": EX,
        "scale": SCALE,
        "pages": [
            {"fontURL": url, "items": [{"tex": tex, "display": display} for tex, display in items]}
            for url, items in pages
        ],
    }
    done = subprocess.run([node, str(SCRIPT)], input=json.dumps(request), capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{SCRIPT.name} failed: {done.stderr.strip()[-2000:]}")
    return [(page["html"], page["css"], page["errors"]) for page in json.loads(done.stdout)["pages"]]


def missing_tools():
    """Why the formulas cannot be typeset here (``None`` if they can)."""
    if shutil.which("node") is None:
        return "Node.js (`node`) is not on the PATH"
    if not (MATHJAX_DIR / "node_modules" / "mathjax-full").is_dir():
        return f"mathjax-full is not installed in {MATHJAX_DIR} (`npm ci` there)"
    return None


def prerender_book(app, exception):
    """``build-finished``: typeset the formulas of every page the HTML builder wrote."""
    if exception is not None or app.builder.format != "html":
        return
    outdir = Path(app.outdir)
    todo = []
    for docname in sorted(app.env.found_docs):
        path = Path(app.builder.get_outfilename(docname))
        if not path.is_file():
            continue
        page_html = path.read_text(encoding="utf-8")
        spans = formulas(page_html)
        if spans:
            url = os.path.relpath(outdir / FONTS, path.parent).replace(os.sep, "/")
            todo.append((docname, path, page_html, url, [(tex, display) for _, _, tex, display in spans]))
    if not todo:
        return
    why = missing_tools()
    if why:
        logger.warning(f"the formulas are left to the readers' browsers: {why} (`make book` installs both)")
        return
    results = typeset([(url, items) for _, _, _, url, items in todo])
    for (docname, path, page_html, _, items), (markup, css, errors) in zip(todo, results, strict=True):
        for index, message in errors:
            logger.warning(f"{docname}: formula {index + 1} ({items[index][0][:80]!r}): {message}")
        path.write_text(rewrite(page_html, markup, css), encoding="utf-8")


def setup(app):
    # after the other build-finished handlers (sphinx-mathjax-offline copies MathJax's fonts there)
    app.connect("build-finished", prerender_book, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "1"}
