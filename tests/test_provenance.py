"""booktools.provenance: one provenance label in the statements' titles, derived from the blueprint."""

from __future__ import annotations

from pathlib import Path

import pytest

from booktools import blueprint, provenance

ROOT = Path(__file__).resolve().parents[1]
NEW = blueprint.NEW


@pytest.mark.parametrize(
    ("title", "paper", "expected"),
    [
        ("Exact Γ of a linear model (new in this book)", NEW, None),
        ("Exact Γ of a linear model (this book)", NEW, "ends with"),
        ("New (not in the paper): exact Γ", NEW, "ends with"),
        ("Exact Γ of a linear model", NEW, "ends with"),
        ("The sizes (as a mixture) (new in this book)", NEW, "no other parentheses"),
        ("Exact Γ (new in this book; see Remark 4) (new in this book)", NEW, "no other parentheses"),
        ("Proposition 7 of the paper: Σ is invertible", "Proposition 7 (supplement)", None),
        ("Σ is invertible (Proposition 7 of the paper)", "Proposition 7 (supplement)", "starts with"),
        ("Lemma 4 of the supplement: conditional probability", "Lemma 4 (supplement)", "starts with 'Lemma 4 of"),
        ("Eq. (4) of the paper: the weights depend on s", "Eq. (4): the weights depend only on s", None),
        ("Eqs. (33)–(36) of the paper and Remark 3: a correction", "Eqs. (33)–(36) and Remark 3", None),
        ("Eqs. (39) and (40) of the paper (supplement); main text", "Eqs. (39) and (40) (supplement)", None),
        ("Linearity of explanations (main text, Section 3.2)", "Linearity of explanations (main text)", None),
        ("Linearity (main text (Section 3.2))", "Linearity of explanations (main text)", "nests"),
        ("Linearity (this book)", "Linearity of explanations (main text)", "does not say it is new"),
        ("Linearity (main text", "Linearity of explanations (main text)", "do not balance"),
    ],
)
def test_title_problem(title, paper, expected):
    problem = provenance.title_problem(title, paper, paper == NEW)
    assert problem is None if expected is None else expected in problem, problem


def test_bad_input():
    with pytest.raises(TypeError, match="title must be a str"):
        provenance.title_problem(None, NEW, True)
    with pytest.raises(TypeError, match="paper must be a str"):
        provenance.title_problem("A (new in this book)", 3, True)


def test_every_statement_of_the_book_carries_the_label_its_blueprint_entry_implies():
    found = blueprint.chapters(ROOT)
    results = blueprint.load_results(ROOT, found)
    titles = {label: title for chapter in found.values() for label, title in chapter.titles.items()}
    problems = [
        f"{result.label}: {problem} (title {titles.get(result.label)!r})"
        for result in results
        if result.chapter and (problem := provenance.title_problem(titles[result.label], result.paper, result.is_new))
    ]
    assert problems == []
    new = [result for result in results if result.is_new]
    assert new and all(titles[result.label].endswith(provenance.NEW_MARKER) for result in new)
    labelled = [label for label, title in titles.items() if title.endswith(provenance.NEW_MARKER)]
    assert sorted(labelled) == sorted(result.label for result in new)
