"""booktools.htmltables: a pandas table's index-name row is merged into its header row, other tables are kept."""

from __future__ import annotations

import re

import pandas as pd
import pytest

from booktools.htmltables import merge_index_names


def _header_rows(html: str) -> list[list[str]]:
    head = re.search(r"<thead>(.*?)</thead>", html, re.S).group(1)
    rows = re.findall(r"<tr[^>]*>(.*?)</tr>", head, re.S)
    return [[re.sub(r"&nbsp;|\s", "", cell) for cell in re.findall(r"<th[^>]*>(.*?)</th>", row, re.S)] for row in rows]


def _frame(index_names=("nu",)) -> pd.DataFrame:
    index = pd.MultiIndex.from_tuples([(0.25, "a"), (1.0, "b")], names=index_names) if len(index_names) == 2 else None
    if index is None:
        index = pd.Index([0.25, 1.0], name=index_names[0])
    return pd.DataFrame({"mean": [1.0, 2.0], "std": [0.1, 0.2]}, index=index)


@pytest.mark.parametrize("render", [lambda f: f.to_html(), lambda f: f.style.to_html()], ids=["frame", "styler"])
def test_the_index_name_joins_the_header_row(render):
    html = render(_frame())
    assert _header_rows(html) == [["", "mean", "std"], ["nu", "", ""]]
    merged = merge_index_names(html)
    assert _header_rows(merged) == [["nu", "mean", "std"]]
    # the body is untouched
    assert merged.split("</thead>")[1] == html.split("</thead>")[1]


def test_two_index_names_fill_two_corner_cells():
    merged = merge_index_names(_frame(("nu", "model")).to_html())
    assert _header_rows(merged) == [["nu", "model", "mean", "std"]]


@pytest.mark.parametrize(
    "frame",
    [
        pd.DataFrame({"mean": [1.0], "std": [0.1]}),  # no index name: one header row already
        pd.DataFrame({"mean": [1.0]}, index=pd.Index([0], name="nu")).rename_axis(columns="stat"),  # a corner label
    ],
    ids=["unnamed", "columns-name"],
)
def test_other_tables_are_kept(frame):
    html = frame.to_html()
    assert merge_index_names(html) == html


def test_bad_input():
    with pytest.raises(TypeError, match="html must be a str"):
        merge_index_names(b"<table></table>")
