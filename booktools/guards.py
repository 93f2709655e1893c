"""Sphinx extension: the page "What the suite guards", rendered from the mutation harness's stored report.

Directive ``mutation-report`` (option ``:report:``, the JSON written by ``booktools/mutants.py``, relative to the
book's root): a summary of the last run (date, versions, verdicts), then one table per upstream behaviour the
book relies on, with the tests and chapters that guard it and, for each upstream change of the catalogue, the
last result and the tests that caught it.  A missing or malformed report is a Sphinx warning (an error under
``-W``), so the page never shows stale or invented results.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from docutils import nodes
from docutils.statemachine import StringList
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

logger = logging.getLogger(__name__)

# text symbols every font has (emoji render as empty boxes without an emoji font)
VERDICT_MARKS = {
    "caught": "✓ caught",
    "passes": "✓ passes",
    "caught, unnamed": "⚠ caught, by tests not named after it",
    "missed": "✗ missed",
    "false alarm": "✗ false alarm",
    "no longer applies": "⚠ no longer applies",
    "not run": "⚠ not run (a test module did not import)",
}
KIND_NAMES = {"behaviour": "behaviour change", "equivalent": "equivalent rewrite"}

# The catalogue writes formulas as plain text ("sqrt(exp(-D^2 / w^2)) = psi(s/d, nu)"), as in a terminal; on the
# page a caret would read as raw TeX, so exponents become superscripts and the paper's symbols their letters.
SUPERSCRIPTS = str.maketrans("0123456789+-=()ndkijT", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ⁿᵈᵏⁱʲᵀ")
_EXPONENT = re.compile(r"\^(?:\{([^{}]+)\}|\(([^()]+)\)|([0-9]+|[A-Za-z]))")
_SYMBOLS = (
    (re.compile(r"\bpsi\b"), "ψ"),
    (re.compile(r"\bnu\b"), "ν"),
    (re.compile(r"\bsqrt(?=\()|\bsqrt ?(?=[0-9])"), "√"),
)


def readable_formula(text):
    """Plain-text formulas in ``text`` written with superscripts and symbols, without carets.

    ``D^2``, ``w^{-1}`` and ``x^(d-1)`` become ``D²``, ``w⁻¹`` and ``x⁽ᵈ⁻¹⁾``; ``psi`` and ``nu`` (whole words)
    become ψ and ν, and ``sqrt`` before a parenthesis or a number √.  An exponent with a character that has no
    superscript form is left as it is (the browser test then reports its caret).

    Examples
    --------
    >>> readable_formula("weights sqrt(exp(-D^2 / w^2)) = psi(s/d, nu), nu / sqrt 2; a number")
    'weights √(exp(-D² / w²)) = ψ(s/d, ν), ν / √2; a number'
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")

    def superscript(match):
        exponent = next(group for group in match.groups() if group is not None)
        if match.group(2) is not None:
            exponent = f"({exponent})"
        exponent = exponent.replace(" ", "")
        raised = exponent.translate(SUPERSCRIPTS)  # same length: one character for one
        return match.group(0) if any(a == b for a, b in zip(raised, exponent, strict=True)) else raised

    text = _EXPONENT.sub(superscript, text)
    for pattern, symbol in _SYMBOLS:
        text = pattern.sub(symbol, text)
    return text


def _test_name(node_id):
    return node_id.split("::")[-1]


def _failures_cell(entry):
    """How many tests failed, and how many of them are named after the behaviour (their names are listed above)."""
    failures, named = len(entry.get("failures", [])), len(entry.get("named", []))
    if not failures:
        return "—"
    return f"{failures} ({named} named after it)" if entry["kind"] == "behaviour" else str(failures)


def _chapter_links(chapters):
    return ", ".join(f"{{doc}}`{Path(c).name} <../{c}>`" for c in chapters) or "—"


def report_markdown(report):
    """The page's MyST text for a harness report (a dictionary as written by ``booktools/mutants.py``)."""
    summary = report["summary"]
    versions = ", ".join(f"{name} {version}" for name, version in report["versions"].items())
    counts = "; ".join(f"{VERDICT_MARKS.get(v, v)}: {n}" for v, n in sorted(summary["counts"].items()))
    target = "every behaviour change was caught by a test named after it and every equivalent rewrite passed"
    lines = [
        f"Last run: {report['generated']} ({versions}); {summary['mutants']} upstream changes: {counts}.",
        "",
        f"**{'On target' if summary['on_target'] else 'Not on target'}**: "
        + (f"{target}." if summary["on_target"] else f"not all of the following held: {target}."),
        "",
    ]
    if report["control"]["failures"]:
        lines += [
            f"The control run (unmodified packages) had {len(report['control']['failures'])} failing tests; "
            "they are not counted against any change.",
            "",
        ]
    for behaviour in report["behaviours"]:
        entries = [e for e in report["mutants"] if e["behaviour"] == behaviour["key"]]
        guards = sorted({_test_name(name) for e in entries for name in e.get("named", [])})
        lines += [
            "```{rubric} " + readable_formula(behaviour["title"]),
            "```",
            "",
            f"Package: `{behaviour['package']}`. Run against each change: "
            + ", ".join(f"`{t}`" for t in behaviour["tests"])
            + f"; chapters: {_chapter_links(behaviour['chapters'])}.",
            "",
            "Tests named after this behaviour that caught a change: "
            + (", ".join(f"`{g}`" for g in guards) or "none in the last run")
            + ".",
            "",
            "| Upstream change | Kind | Last result | Failing tests |",
            "|---|---|---|---|",
        ]
        for e in entries:
            change = readable_formula(e["change"]).replace("|", "\\|").replace("<", "\\<")  # a cell, not raw HTML
            result = VERDICT_MARKS.get(e["verdict"], e["verdict"])
            if e.get("chapter_summaries"):
                result += f"; checked summary of {_chapter_links(e['chapter_summaries'])} failed"
            lines.append(f"| {change} (`{e['name']}`) | {KIND_NAMES[e['kind']]} | {result} | {_failures_cell(e)} |")
        lines.append("")
        for e in entries:
            off_target = e["verdict"] not in ("caught", "passes")
            if off_target and e.get("failures"):
                shown = ", ".join(f"`{_test_name(name)}`" for name in e["failures"][:5])
                more = f" and {len(e['failures']) - 5} more" if len(e["failures"]) > 5 else ""
                lines += [f"Failed under `{e['name']}`: {shown}{more}.", ""]
            if e.get("reason"):
                lines += [f"`{e['name']}`: {readable_formula(e['reason'])}.", ""]
    return lines


class MutationReport(SphinxDirective):
    option_spec = {"report": str}

    def run(self):
        path = Path(self.env.srcdir) / self.options.get("report", "book/_data/mutants.json")
        self.env.note_dependency(str(path))
        try:
            markdown = report_markdown(json.loads(path.read_text(encoding="utf-8")))
        except (OSError, ValueError, KeyError) as error:
            logger.warning(f"mutation-report: cannot render {path}: {error!r}", location=self.get_location())
            return []
        container = nodes.container()
        self.state.nested_parse(StringList(markdown, source=self.env.docname), self.content_offset, container)
        return container.children


def setup(app):
    app.add_directive("mutation-report", MutationReport)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "1"}
