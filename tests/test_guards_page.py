"""The page "What the suite guards" shows the catalogue's plain-text formulas without raw carets.

The browser test reports a ``^`` outside math on any page; these tests check the conversion behind the page
(booktools/guards.py) on hand-written cases and on the stored report, without building the book.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from booktools import guards

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("sqrt(exp(-D^2 / w^2))", "√(exp(-D² / w²))"),
        ("psi(s/d, nu) with nu = kernel_width / 100", "ψ(s/d, ν) with ν = kernel_width / 100"),
        ("bandwidth nu / sqrt 2", "bandwidth ν / √2"),
        ("x^(d-1) and w^{-1} and X^T", "x⁽ᵈ⁻¹⁾ and w⁻¹ and Xᵀ"),
        ("10^12", "10¹²"),
        # words that merely contain the names, and sqrt not followed by an argument, are left alone
        ("number, nuance, psis, no | sqrt <x>", "number, nuance, psis, no | sqrt <x>"),
        ("split_expression r'\\s+' (whitespace)", "split_expression r'\\s+' (whitespace)"),
    ],
)
def test_readable_formula(text, expected):
    assert guards.readable_formula(text) == expected


def test_an_exponent_without_a_superscript_form_keeps_its_caret():
    # no superscript q in Unicode: the caret stays, so the browser test reports it instead of a wrong glyph
    assert guards.readable_formula("z^q + z^2") == "z^q + z²"


def test_readable_formula_refuses_other_types():
    with pytest.raises(TypeError, match="text must be a str"):
        guards.readable_formula(b"D^2")


def test_stored_report_renders_without_carets_outside_code():
    report = json.loads((ROOT / "book" / "_data" / "mutants.json").read_text(encoding="utf-8"))
    raw = json.dumps(report)
    assert "^" in raw, "the stored report no longer writes any exponent: this test checks nothing"
    for line in guards.report_markdown(report):
        prose = re.sub(r"`[^`]*`", "", line)  # code spans are shown as code, carets and all
        assert "^" not in prose, line
