"""The paper's printed numbering (booktools/papernumbers.py) replays LaTeX's counters correctly.

The miniature documents below are numbered by hand, following LaTeX's rules (amsthm counters,
amsmath's numbered lines, \\caption and \\captionof, \\setcounter and \\appendix); the stored table
``book/paper_numbers.yml`` must equal a fresh derivation from the paper's source whenever it is present.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from booktools import papernumbers

ROOT = Path(__file__).resolve().parents[1]

PAPER = ROOT / papernumbers.DEFAULT_TEX
STORED = ROOT / papernumbers.DEFAULT_OUT

PREAMBLE = r"""
\newtheorem{theorem}{Theorem}%[section]
\newtheorem{proposition}{Proposition}
\newtheorem{lemma}[proposition]{Lemma}
\newtheorem{remark}{Remark}[section]
\begin{document}
"""


def _numbers(tmp_path, body: str) -> dict[str, str]:
    tex = tmp_path / "mini.tex"
    tex.write_text(PREAMBLE + textwrap.dedent(body) + "\n\\end{document}\n", encoding="utf-8")
    return {item.label: item.printed for item in papernumbers.derive(tex) if item.label}


def test_theorem_counters_are_separate_shared_or_reset_as_declared(tmp_path):
    numbers = _numbers(
        tmp_path,
        r"""
        \section{One}
        \begin{theorem}[Main]\label{th:a}\end{theorem}
        \begin{proposition}\label{p:a}\end{proposition}
        \begin{lemma}\label{l:a}\end{lemma}
        \begin{remark}\label{r:a}\end{remark}
        \section{Two}
        \begin{remark}\label{r:b}\end{remark}
        \begin{theorem}\label{th:b}\end{theorem}
        """,
    )
    # the commented-out [section] does not reset; lemma shares proposition's counter; remark resets per section
    assert numbers == {
        "th:a": "Theorem 1",
        "p:a": "Proposition 1",
        "l:a": "Lemma 2",
        "r:a": "Remark 1",
        "r:b": "Remark 1",
        "th:b": "Theorem 2",
    }


def test_equation_lines_are_numbered_unless_starred_or_marked(tmp_path):
    numbers = _numbers(
        tmp_path,
        r"""
        \begin{equation}\label{e:one} a = b \end{equation}
        \begin{equation*} c = d \end{equation*}
        \begin{align}
        x &= y \label{e:two} \\
        &= \sum_{\substack{k=1 \\ k\neq j}} z \notag \\
        &= w \tag{why} \\
        &= \begin{cases} 1 \\ 2 \end{cases} \label{e:three} \\
        \end{align}
        \begin{align*} p &= q \\ r &= s \end{align*}
        \begin{align} u &= v \nonumber \\ t &= t \label{e:four} \end{align}
        """,
    )
    assert numbers == {"e:one": "Eq. (1)", "e:two": "Eq. (2)", "e:three": "Eq. (3)", "e:four": "Eq. (4)"}


def test_figures_are_numbered_by_caption_and_captionof(tmp_path):
    numbers = _numbers(
        tmp_path,
        r"""
        \begin{figure}\caption{\label{f:a}First. More.}\end{figure}
        \begin{minipage}{1cm}\captionof{figure}{\label{f:b}Second}\end{minipage}
        \begin{minipage}{1cm}\captionof{table}{A table}\end{minipage}
        \begin{figure}\caption[short]{Third}\label{f:c}\end{figure}
        """,
    )
    assert numbers == {"f:a": "Figure 1", "f:b": "Figure 2", "f:c": "Figure 3"}


def test_a_caption_title_is_its_whole_first_sentence(tmp_path):
    # a long first sentence is kept whole (the concordance once showed "(ν=0.…"), and one that ends after a Greek
    # letter ends there
    long = (
        "Weights as a function of the number of deletions for different bandwidth parameters ($\\nu=0.25$ is default)"
    )
    tex = tmp_path / "mini.tex"
    body = (
        f"\\begin{{figure}}\\caption{{\\label{{f:a}}{long}. More.}}\\end{{figure}}\n"
        "\\begin{figure}\\caption{\\label{f:b}The first coefficients against $\\nu$. The red lines.}\\end{figure}\n"
    )
    tex.write_text(PREAMBLE + body + "\\end{document}\n", encoding="utf-8")
    titles = {item.label: item.title for item in papernumbers.derive(tex) if item.label}
    plain_long = long.replace("$\\nu=0.25$", "ν=0.25")
    assert titles == {"f:a": plain_long, "f:b": "The first coefficients against ν"}


def test_no_stored_caption_is_cut():
    cut = [
        key for key, entry in papernumbers.load(STORED).items() if entry["kind"] == "figure" and "…" in entry["title"]
    ]
    assert not cut, cut


def test_the_supplement_restarts_sections_and_continues_everything_else(tmp_path):
    tex = tmp_path / "mini.tex"
    body = r"""
        \section{Main}\label{s:main}
        \begin{theorem}\label{th:a}\end{theorem}
        \setcounter{section}{0}
        \section*{Organisation}
        \section{Supplement}\label{s:supp}
        \subsection{Part}\label{s:part}
        \begin{theorem}[Restated]\label{th:b}\end{theorem}
        \appendix
        \section{Lettered}\label{s:letter}
        """
    tex.write_text(PREAMBLE + textwrap.dedent(body) + "\\end{document}\n", encoding="utf-8")
    items = {item.label: item for item in papernumbers.derive(tex) if item.label}
    assert items["s:main"].printed == "Section 1" and items["s:main"].part == "main"
    assert items["s:supp"].printed == "Section 1" and items["s:supp"].part == "supplement"
    assert items["s:part"].printed == "Section 1.1"
    assert items["th:b"].printed == "Theorem 2"
    assert items["th:b"].section == "Supplement, Section 1.1 (Part)"
    assert items["th:b"].title == "Restated"
    assert items["s:letter"].printed == "Section A"


def test_titles_resolve_references_and_read_as_plain_text(tmp_path):
    tex = tmp_path / "mini.tex"
    body = r"""
        \begin{equation}\label{e:g} g = 1 \end{equation}
        \begin{figure}\caption{\label{f:g}Theory \emph{vs.} practice for $\beta^f$ of Eq.~\eqref{e:g}. Details.}
        \end{figure}
        """
    tex.write_text(PREAMBLE + textwrap.dedent(body) + "\\end{document}\n", encoding="utf-8")
    titles = {item.label: item.title for item in papernumbers.derive(tex) if item.label}
    assert titles["f:g"] == "Theory vs. practice for βᶠ of Eq. (1)"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (r"\label{x:orphan}", "names no numbered item"),
        (r"\begin{theorem}\label{a}\end{theorem}\begin{theorem}\label{a}\end{theorem}", "defined twice"),
        (r"\begin{align*} x \label{a} \end{align*}", "unnumbered line"),
        (r"\begin{theorem} x \end{proposition}", "closes theorem"),
    ],
)
def test_malformed_sources_are_value_errors(tmp_path, body, message):
    tex = tmp_path / "bad.tex"
    tex.write_text(PREAMBLE + body + "\n\\end{document}\n", encoding="utf-8")
    with pytest.raises(ValueError, match=message):
        papernumbers.derive(tex)


def test_bad_arguments_are_rejected(tmp_path):
    with pytest.raises(ValueError, match="tex_path"):
        papernumbers.derive(tmp_path / "missing.tex")
    with pytest.raises(TypeError, match="tex_path"):
        papernumbers.derive(3)
    with pytest.raises(TypeError, match="items"):
        papernumbers.table(["x"])
    with pytest.raises(TypeError, match="tex"):
        papernumbers.plain(None)


def test_comments_are_stripped_but_escaped_percent_signs_stay():
    assert papernumbers.strip_comments("a % gone\nb \\% kept % gone") == "a \nb \\% kept "


@pytest.mark.skipif(not PAPER.is_file(), reason=f"the paper's source is not at {PAPER}")
def test_stored_table_equals_a_fresh_derivation():
    fresh = papernumbers.dump(papernumbers.table(papernumbers.derive(PAPER)))
    assert STORED.read_text(encoding="utf-8") == fresh, "regenerate with: python -m booktools.papernumbers"


@pytest.mark.skipif(not PAPER.is_file(), reason=f"the paper's source is not at {PAPER}")
def test_landmarks_of_the_published_numbering():
    # what a reader of arXiv 2010.12487 sees: the main text's statements, and the supplement continuing them
    table = papernumbers.load(STORED)
    assert table["th:concentration-of-betahat"]["printed"] == "Theorem 1"
    assert table["prop:alphas-computation-main"]["printed"] == "Proposition 1"
    assert table["prop:expression-of-beta"]["printed"] == "Proposition 2"
    assert table["prop:beta-computation-indicator-product-general-main"]["printed"] == "Proposition 3"
    assert table["prop:beta-computation-linear-main"]["printed"] == "Proposition 4"
    assert table["prop:alphas-computation"]["printed"] == "Proposition 5"
    assert table["th:betahat-concentration"]["printed"] == "Theorem 2"
    assert table["fig:linear"]["printed"] == "Figure 7" and table["fig:linear"]["part"] == "main"
    assert table["fig:psi-t"]["printed"] == "Figure 8" and table["fig:psi-t"]["part"] == "supplement"
    figures = [entry for entry in table.values() if entry["kind"] == "figure"]
    assert [entry["number"] for entry in figures] == [str(k) for k in range(1, 18)]
    equations = [entry for entry in table.values() if entry["kind"] == "equation"]
    assert [int(entry["number"]) for entry in equations] == list(range(1, len(equations) + 1))
