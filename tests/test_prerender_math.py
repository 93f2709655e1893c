"""booktools.prerender_math: the book's formulas typeset at the build by MathJax in Node.js.

The markup is checked against the browser's MathJax formula by formula in ``browser_tests`` (which has a browser);
here: what the extension finds in a page, how it rewrites it, what Node.js's MathJax returns, and that a TeX error
reaches the build's log with the page and the formula.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path
from types import SimpleNamespace

import pytest

from booktools import prerender_math as pm

PAGE = """<!DOCTYPE html>
<html><head>
    <script>window.MathJax = {"options": {"processHtmlClass": "tex2jax_process|math|output_area"}}</script>
    <script defer="defer" src="../_static/mathjax/tex-chtml.js?v=20daa33d"></script>
</head><body>
<p>Let <span class="math notranslate nohighlight">\\(x &lt; \\frac{1}{2}\\)</span> and
<span class="math notranslate nohighlight">\\(y \\&amp; z\\)</span>.</p>
<div class="math notranslate nohighlight">
\\[a = b\\]</div>
<div class="output text_latex math notranslate nohighlight" tabindex="-1">\\[\\beta_j\\]</div>
<pre>\\(code is not math\\)</pre>
</body></html>
"""

needs_node = pytest.mark.skipif(
    pm.missing_tools() is not None, reason=f"cannot typeset here: {pm.missing_tools()} (make installs both)"
)


def test_formulas_are_found_in_the_math_elements_only_and_unescaped():
    found = pm.formulas(PAGE)
    assert [(tex, display) for _, _, tex, display in found] == [
        ("x < \\frac{1}{2}", False),
        ("y \\& z", False),
        ("a = b", True),
        ("\\beta_j", True),
    ]
    for start, end, _, display in found:  # each span covers the delimiters, as written in the page
        assert PAGE[start : start + 2] == ("\\[" if display else "\\(")
        assert PAGE[end - 2 : end] == ("\\]" if display else "\\)")


def test_several_formulas_in_one_display_element():
    page = '<div class="math notranslate nohighlight">\\[a\\]\n\\[b\\]</div>'
    assert [tex for _, _, tex, _ in pm.formulas(page)] == ["a", "b"]


def test_rewrite_replaces_each_formula_and_the_scripts_by_the_stylesheet():
    markup = [f"<mjx-container>{i}</mjx-container>" for i in range(4)]
    out = pm.rewrite(PAGE, markup, "mjx-c::before {}")
    assert "tex-chtml.js" not in out and "window.MathJax" not in out
    assert out.count('<style id="MJX-CHTML-styles">mjx-c::before {}</style>') == 1
    assert out.index("MJX-CHTML-styles") < out.index("</head>")
    assert re.findall(r"<mjx-container>(\d)</mjx-container>", out) == ["0", "1", "2", "3"]
    assert pm.formulas(out) == [] and "<pre>\\(code is not math\\)</pre>" in out
    # everything else is kept as it was
    assert out.replace('<style id="MJX-CHTML-styles">mjx-c::before {}</style>\n', "").count("<p>Let ") == 1


def test_rewrite_refuses_a_wrong_count_and_a_page_without_a_head():
    with pytest.raises(ValueError, match="typeset has 1 formulas, the page 4"):
        pm.rewrite(PAGE, ["x"], "")
    with pytest.raises(ValueError, match="no </head>"):
        pm.rewrite("<body></body>", [], "")
    with pytest.raises(TypeError, match="page_html must be a str"):
        pm.formulas(b"<p></p>")


@needs_node
def test_node_typesets_with_hidden_mathml_the_scale_and_the_source():
    [(markup, css, errors)] = pm.typeset([("../fonts", [("x^2", False), ("\\sum_i a_i", True)])])
    assert errors == [] and len(markup) == 2
    inline, display = markup
    assert inline.startswith('<mjx-container class="MathJax" jax="CHTML"') and 'display="true"' not in inline
    assert 'display="true"' in display
    assert "font-size: 127.3%" in inline  # SCALE, as MathJax's matchFontHeight chose it in the browser
    assert 'data-latex="x^2"' in inline and 'data-latex="\\sum_i a_i"' in display
    # the hidden MathML screen readers read: x squared
    assert re.search(r"<mjx-assistive-mml[^>]*><math[^>]*><msup><mi>x</mi><mn>2</mn></msup></math>", inline)
    # the page's stylesheet: the fonts from the given folder, and a rule for each character used (x is U+1D465)
    assert 'url("../fonts/MathJax_Zero.woff")' in css and "mjx-c.mjx-c1D465.TEX-I::before" in css
    assert "mjx-c.mjx-c1D6FD" not in css  # no beta on this page


@needs_node
def test_node_reports_tex_errors_and_unknown_macros():
    [(markup, _, errors)] = pm.typeset([("f", [("x", False), ("\\frac{a}{b", False), ("\\nosuchmacro", False)])])
    assert errors == [[1, "Missing close brace"], [2, "Undefined control sequence \\nosuchmacro"]]
    assert "mjx-merror" in markup[1] and "mjx-merror" in markup[2] and "mjx-merror" not in markup[0]


def _app(outdir: Path, pages: dict[str, str]):
    for docname, text in pages.items():
        (outdir / f"{docname}.html").parent.mkdir(parents=True, exist_ok=True)
        (outdir / f"{docname}.html").write_text(text, encoding="utf-8")
    builder = SimpleNamespace(format="html", get_outfilename=lambda docname: str(outdir / f"{docname}.html"))
    return SimpleNamespace(outdir=str(outdir), builder=builder, env=SimpleNamespace(found_docs=set(pages)))


@needs_node
def test_the_build_step_typesets_every_page_once_and_logs_errors(tmp_path, caplog):
    broken = PAGE.replace("a = b", "a = \\frac{b")
    app = _app(tmp_path, {"notebooks/01-a": PAGE, "book/b": broken, "book/plain": "<html><head></head></html>"})
    with caplog.at_level(logging.WARNING):
        pm.prerender_book(app, None)
    warnings = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert warnings == ["book/b: formula 3 ('a = \\\\frac{b'): Missing close brace"], warnings
    page = (tmp_path / "notebooks" / "01-a.html").read_text(encoding="utf-8")
    assert pm.formulas(page) == [] and page.count("<mjx-container") == 4 and "tex-chtml.js" not in page
    # the fonts' folder relative to each page
    assert 'url("../_static/mathjax/output/chtml/fonts/woff-v2/MathJax_Zero.woff")' in page
    assert "<mjx-container" not in (tmp_path / "book" / "plain.html").read_text(encoding="utf-8")
    # a second build that did not rewrite the page leaves it as it is
    pm.prerender_book(app, None)
    assert (tmp_path / "notebooks" / "01-a.html").read_text(encoding="utf-8") == page


def test_without_node_the_build_warns_and_leaves_the_pages_to_the_browser(tmp_path, caplog, monkeypatch):
    monkeypatch.setattr(pm, "missing_tools", lambda: "Node.js (`node`) is not on the PATH")
    app = _app(tmp_path, {"a": PAGE})
    with caplog.at_level(logging.WARNING):
        pm.prerender_book(app, None)
    assert any("left to the readers' browsers" in r.getMessage() for r in caplog.records)
    assert (tmp_path / "a.html").read_text(encoding="utf-8") == PAGE
    # nor after a failed build
    pm.prerender_book(_app(tmp_path, {"a": PAGE}), RuntimeError("the build failed"))
    assert (tmp_path / "a.html").read_text(encoding="utf-8") == PAGE
