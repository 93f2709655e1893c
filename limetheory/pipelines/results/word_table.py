"""The HTML table of an explanation's words in a notebook: ``Explanation`` and ``ShapleyValues`` share it."""

from __future__ import annotations

import html

#: rows shown by the HTML summary
HTML_ROWS = 10


def word_table_html(words, values, stderr, order):
    """The HTML rows of an explanation's summary: the first ``HTML_ROWS`` words of ``order``, value ± s.e.

    Rows are read by index (with ``bow=False`` a word may repeat, so looking a word up by its text would not do).
    """
    order = list(order)
    rows = []
    for j in order[:HTML_ROWS]:
        error = "" if stderr is None else f" ± {stderr[j]:.2g}"
        rows.append(f"<tr><td>{html.escape(words[j])}</td><td>{values[j]:+.4g}{error}</td></tr>")
    more = len(order) - HTML_ROWS
    tail = f"<tr><td colspan='2'>… {more} more words</td></tr>" if more > 0 else ""
    return f"<table>{''.join(rows)}{tail}</table>"
