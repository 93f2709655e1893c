"""booktools/running.py: the chapters' "Run this chapter" line and the table of what running them costs."""

from __future__ import annotations

import doctest
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from booktools import running

ROOT = Path(__file__).resolve().parents[1]


def test_docstring_examples():
    failed, attempted = doctest.testmod(running)
    assert attempted > 0 and failed == 0


@pytest.mark.parametrize("seconds", [0, 0.4, 0.6, 59.4, 59.6, 60, 61.2, 185, 3599.5, 7322])
def test_format_seconds_reads_back_as_the_rounded_duration(seconds):
    text = running.format_seconds(seconds)
    match = re.fullmatch(r"(?:(\d+) min (\d\d) s)|(\d+) s", text)
    assert match, text
    minutes, rest, plain = match.groups()
    total = int(plain) if plain is not None else 60 * int(minutes) + int(rest)
    assert total == round(seconds)
    assert (plain is not None) == (round(seconds) < 60)


def test_format_mib_switches_to_gib_at_1024():
    assert running.format_mib(1023.4) == "1023 MiB"
    assert running.format_mib(1024) == "1.0 GiB"
    assert running.format_mib(3 * 1024 + 512) == "3.5 GiB"


def test_describe_machine_leaves_out_what_is_unknown():
    assert running.describe_machine({"cpu": "X", "cores": None, "memory_gib": None}) == "X"
    assert running.describe_machine({}) == ""


@pytest.mark.parametrize(
    ("function", "argument", "error"),
    [
        (running.format_seconds, -1, ValueError),
        (running.format_seconds, "5", ValueError),
        (running.format_mib, -0.5, ValueError),
        (running.describe_machine, "a laptop", TypeError),
    ],
)
def test_bad_arguments_are_refused(function, argument, error):
    with pytest.raises(error):
        function(argument)


def test_stored_costs_cover_every_chapter_and_are_in_record_costs_format():
    """book/chapter_costs.json is what `make outputs` / `make costs` write: one entry per chapter, one machine."""
    path = ROOT / running.COSTS_FILE
    content = json.loads(path.read_text())
    chapters = {source.stem for source in (ROOT / "notebooks").glob("*.md")}
    assert set(content["chapters"]) == chapters
    assert content["machine"].get("cpu") and content["machine"].get("cores")
    for cost in content["chapters"].values():
        assert cost["seconds"] > 0
        assert cost["peak_rss_mib"] is None or cost["peak_rss_mib"] > 0
    assert path.read_text() == json.dumps(content, indent=2, sort_keys=True) + "\n"


CONF = """
extensions = ["myst_parser", "booktools.running"]
# the book's theme, which takes the repository address as an option
html_theme = "sphinx_book_theme"
html_theme_options = {"repository_url": "https://github.com/example/limetheory"}
exclude_patterns = ["_build"]
"""


def _tiny_book(folder: Path, measured: dict) -> Path:
    (folder / "notebooks").mkdir(parents=True)
    (folder / "book").mkdir()
    (folder / "conf.py").write_text(CONF)
    (folder / "index.md").write_text("# Tiny\n\n```{toctree}\nbook/running\nnotebooks/01-first\n```\n")
    (folder / "notebooks" / "01-first.md").write_text("# First chapter\n\nSome text.\n")
    (folder / "book" / "running.md").write_text("(running)=\n# Running\n\n```{chapter-costs}\n```\n")
    costs = {"machine": {"cpu": "Test CPU", "cores": 2}, "chapters": measured}
    (folder / "book" / "chapter_costs.json").write_text(json.dumps(costs))
    return folder


def _text(html: str) -> str:
    """The text of an HTML fragment, tags removed and entities of quotes decoded."""
    return re.sub(r"<[^>]+>", "", html).replace("&quot;", '"').replace("&#64;", "@").replace("\n", " ")


def _build(folder: Path) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "sphinx", "-W", "-n", "-q", "-b", "html", str(folder), str(folder / "_build")]
    return subprocess.run(command, capture_output=True, text=True, timeout=300)


def test_tiny_book_renders_the_hint_and_the_table(tmp_path):
    book = _tiny_book(tmp_path, {"01-first": {"seconds": 75.2, "cpu_seconds": 70.0, "peak_rss_mib": 1536.0}})
    result = _build(book)
    assert result.returncode == 0, result.stderr
    page = (book / "_build" / "notebooks" / "01-first.html").read_text()
    hint = re.search(r'<div class="tip run-this-chapter admonition">.*?</div>', page, flags=re.DOTALL).group(0)
    hint = " ".join(_text(hint).split())
    assert hint.startswith("Run this chapter") and "make lab opens notebooks/01-first.md" in hint
    assert 'pip install "limetheory[notebook] @ git+https://github.com/example/limetheory"' in hint
    assert "runs in about 1 min 15 s" in hint
    assert 'href="../book/running.html"' in page
    table = (book / "_build" / "book" / "running.html").read_text()
    assert "Test CPU, 2 cores" in table
    row = _text(re.search(r"<tr[^>]*>\s*<td[^>]*>.*?First chapter.*?</tr>", table, flags=re.DOTALL).group(0))
    assert row.split() == ["1.", "First", "chapter", "1", "min", "15", "s", "1", "min", "10", "s", "1.5", "GiB"]


def test_tiny_book_fails_on_a_chapter_without_a_measurement(tmp_path):
    result = _build(_tiny_book(tmp_path, {}))
    assert result.returncode != 0
    assert "has no measurement of 01-first" in result.stderr
