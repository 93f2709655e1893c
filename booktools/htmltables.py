"""pandas tables as the book shows them: the index's name in the header row, not on a row of its own.

A DataFrame (or its Styler) whose index has a name prints that name on a second header row, under an empty corner
cell and beside a row of empty cells: an empty band across the table. :func:`merge_index_names` moves the names
into the corner and drops the band; the Sphinx extension applies it to every HTML output of the chapters.
"""

from __future__ import annotations

import re

__all__ = ["merge_index_names"]

_HEADER = re.compile(
    r"(?P<open><thead>\s*)(?P<first><tr[^>]*>.*?</tr>)\s*(?P<second><tr[^>]*>.*?</tr>)(?P<close>\s*</thead>)", re.S
)
_CELL = re.compile(r"<th(?P<attributes>[^>]*)>(?P<text>.*?)</th>", re.S)


def _blank(text: str) -> bool:
    return text.replace("&nbsp;", "").strip() == ""


def merge_index_names(html: str) -> str:
    """``html`` with each table's index-name row merged into the header row above it.

    A header is merged when it has exactly two rows, the second row holds the index names in its first cells and
    nothing after them, and the first row's cells above the names are empty. Any other table is left as it is.

    Parameters
    ----------
    html : str
        An HTML fragment (a notebook's ``text/html`` output).

    Returns
    -------
    str

    Examples
    --------
    >>> table = (
    ...     "<table><thead><tr><th></th><th>a</th></tr>"
    ...     "<tr><th>nu</th><th></th></tr></thead><tbody></tbody></table>"
    ... )
    >>> merge_index_names(table)
    '<table><thead><tr><th>nu</th><th>a</th></tr></thead><tbody></tbody></table>'
    """
    if not isinstance(html, str):
        raise TypeError(f"html must be a str, got {type(html).__name__}")

    def merge(match: re.Match) -> str:
        first = list(_CELL.finditer(match["first"]))
        second = list(_CELL.finditer(match["second"]))
        names = 0
        while names < len(second) and not _blank(second[names]["text"]):
            names += 1
        if (
            names == 0
            or len(first) < names
            or not all(_blank(cell["text"]) for cell in second[names:])
            or not all(_blank(cell["text"]) for cell in first[:names])
        ):
            return match[0]
        row = match["first"]
        # replace the corner cells from the last to the first, so that earlier offsets stay valid
        for corner, name in reversed(list(zip(first[:names], second[:names], strict=True))):
            start, end = corner.span()
            row = row[:start] + f"<th{name['attributes']}>{name['text']}</th>" + row[end:]
        return match["open"] + row + match["close"]

    return _HEADER.sub(merge, html)
