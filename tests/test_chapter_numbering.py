"""One chapter numbering: a chapter's file number is the number the book prints, and "chapter N" links agree.

The book's numbers are derived from ``_toc.yml`` (the chapters of the numbered parts, counted across the parts in
reading order, as Jupyter Book's ``use_multitoc_numbering`` prints them), never from the file names; the files must
then carry the same numbers, and every link whose text says "chapter N" must point into chapter N.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from booktools import numbering

ROOT = Path(__file__).resolve().parents[1]

SAMPLE_TOC = """format: jb-book
root: book/intro
parts:
  - caption: Front matter
    chapters:
      - file: book/notation
  - caption: "Part I"
    numbered: true
    chapters:
      - file: notebooks/01-first
      - file: notebooks/02-second
  - caption: "Part II"
    numbered: true
    chapters:
      - file: notebooks/03-third
  - caption: Back matter
    chapters:
      - file: book/errata
"""

SAMPLE_CHAPTERS = {
    "01-first": "# First\n\n```{prf:lemma} A lemma\n:label: first-lemma\n```\n",
    "02-second": "(second-start)=\n# Second\n\nBy {prf:ref}`the lemma of chapter 1 <first-lemma>`.\n",
    "03-third": "# Third\n\nAs {doc}`chapter 2 <02-second>` and [chapter 1](01-first.md) show.\n",
}
SAMPLE_ERRATA = "# Errata\n\nProved in {ref}`chapter 2 <second-start>`; see {doc}`chapter 3 <../notebooks/03-third>`.\n"


def write_sample_book(root: Path) -> Path:
    (root / "notebooks").mkdir()
    (root / "book").mkdir()
    for stem, text in SAMPLE_CHAPTERS.items():
        (root / "notebooks" / f"{stem}.md").write_text(text)
    (root / "book" / "errata.md").write_text(SAMPLE_ERRATA)
    (root / "_toc.yml").write_text(SAMPLE_TOC)
    return root


def test_the_book_numbering_agrees_with_the_files_and_the_links():
    problems = numbering.problems(ROOT)
    assert problems == [], "\n".join(problems)


def test_the_toc_numbers_every_chapter_once_from_1_to_n():
    numbers = numbering.toc_chapter_numbers(ROOT / "_toc.yml")
    assert sorted(numbers.values()) == list(range(1, len(numbers) + 1))


def test_the_numbers_count_chapters_across_numbered_parts_only(tmp_path):
    write_sample_book(tmp_path)
    assert numbering.toc_chapter_numbers(tmp_path / "_toc.yml") == {
        "notebooks/01-first": 1,
        "notebooks/02-second": 2,
        "notebooks/03-third": 3,
    }
    assert numbering.problems(tmp_path) == []


def test_a_file_out_of_reading_order_is_found(tmp_path):
    # the state issue 35 found: Part IX's files numbered before Part VIII's
    write_sample_book(tmp_path)
    swapped = SAMPLE_TOC.replace("notebooks/02-second", "SECOND").replace("notebooks/03-third", "notebooks/02-second")
    (tmp_path / "_toc.yml").write_text(swapped.replace("SECOND", "notebooks/03-third"))
    problems = numbering.problems(tmp_path)
    assert "notebooks/03-third: the file says chapter 3, the book numbers it 2" in problems
    assert "notebooks/02-second: the file says chapter 2, the book numbers it 3" in problems


def test_a_chapter_file_missing_from_the_toc_is_found(tmp_path):
    write_sample_book(tmp_path)
    (tmp_path / "notebooks" / "04-unlisted.md").write_text("# Unlisted\n")
    assert numbering.problems(tmp_path) == [
        "notebooks/04-unlisted: a chapter file that no numbered part of _toc.yml lists"
    ]


def test_a_chapter_listed_without_a_file_is_found(tmp_path):
    write_sample_book(tmp_path)
    (tmp_path / "notebooks" / "03-third.md").unlink()
    assert numbering.problems(tmp_path) == ["notebooks/03-third: _toc.yml lists chapter 3, which has no file"]


def test_a_gap_in_the_toc_is_found(tmp_path):
    # a chapter file removed from the table of contents shifts every later number, and its links go nowhere
    write_sample_book(tmp_path)
    (tmp_path / "_toc.yml").write_text(SAMPLE_TOC.replace("      - file: notebooks/02-second\n", ""))
    problems = numbering.problems(tmp_path)
    assert "notebooks/03-third: the file says chapter 3, the book numbers it 2" in problems
    assert "notebooks/02-second: a chapter file that no numbered part of _toc.yml lists" in problems
    assert any("{doc}`chapter 2 <02-second>` names a chapter but points to 02-second" in line for line in problems)


@pytest.mark.parametrize(
    ("page", "old", "new", "expected"),
    [
        (
            "notebooks/03-third.md",
            "{doc}`chapter 2 <02-second>`",
            "{doc}`chapter 1 <02-second>`",
            "points into chapter 2",
        ),
        ("notebooks/03-third.md", "[chapter 1](01-first.md)", "[Chapter 2](01-first.md)", "points into chapter 1"),
        ("notebooks/02-second.md", "the lemma of chapter 1 <", "the lemma of chapter 3 <", "points into chapter 1"),
        (
            "book/errata.md",
            "{ref}`chapter 2 <second-start>`",
            "{ref}`chapter 1 <second-start>`",
            "points into chapter 2",
        ),
        (
            "book/errata.md",
            "{doc}`chapter 3 <../notebooks/03-third>`",
            "{doc}`chapter 2 <../notebooks/03-third>`",
            "points into chapter 3",
        ),
        (
            "book/errata.md",
            "{ref}`chapter 2 <second-start>`",
            "{ref}`chapter 2 <nowhere>`",
            "which is in no numbered chapter",
        ),
        (
            "book/errata.md",
            "{doc}`chapter 3 <../notebooks/03-third>`",
            "{doc}`02 <../notebooks/03-third>`",
            "points into chapter 3",
        ),
    ],
)
def test_a_link_whose_text_names_another_chapter_is_found(tmp_path, page, old, new, expected):
    write_sample_book(tmp_path)
    path = tmp_path / page
    assert old in path.read_text()
    path.write_text(path.read_text().replace(old, new))
    problems = numbering.problems(tmp_path)
    assert len(problems) == 1 and expected in problems[0] and new.split("<")[0].split("]")[0] in problems[0], problems


def test_a_chapter_cited_by_its_whole_title_is_found_outside_the_introduction(tmp_path):
    write_sample_book(tmp_path)
    cited = "# Third\n\nAs {doc}`02-second` shows.\n"
    (tmp_path / "notebooks" / "03-third.md").write_text(cited)
    (tmp_path / "book" / "intro.md").write_text("# Intro\n\n- Part I: {doc}`../notebooks/01-first`\n")
    assert numbering.problems(tmp_path) == [
        "notebooks/03-third: {doc}`02-second` prints the whole title: write {doc}`chapter 2 <02-second>`"
    ]


def test_links_that_name_no_single_chapter_are_not_read_as_chapter_numbers(tmp_path):
    write_sample_book(tmp_path)
    text = "See {doc}`chapters 1-3 <01-first>`, {doc}`the first chapter <03-third>` and [chapter 2](https://example.org).\n"
    (tmp_path / "book" / "notation.md").write_text(text)
    assert numbering.problems(tmp_path) == []


def test_a_table_of_contents_without_parts_is_refused(tmp_path):
    (tmp_path / "_toc.yml").write_text("format: jb-book\nroot: intro\nchapters:\n  - file: a\n")
    with pytest.raises(ValueError, match="toc_path"):
        numbering.toc_chapter_numbers(tmp_path / "_toc.yml")
