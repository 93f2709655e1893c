"""The README's quick start runs, and every value its comments show is what the line returns.

A line ``expression  # value...`` whose comment opens with a Python literal (a tuple, a list or a number) is
evaluated, and its result, with floats rounded to the literal's decimals, must equal the literal: the README cannot
drift from the package.  A line whose comment opens with words is run only.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def quick_start():
    text = README.read_text()
    section = text[text.index("## Quick start") :]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


def leading_literal(comment):
    """The longest prefix of ``comment`` that is a Python literal, or None."""
    comment = comment.strip()
    for end in range(len(comment), 0, -1):
        if comment[end - 1] in ", ":  # "[...], lime's format" is the list, not a tuple of it
            continue
        try:
            return ast.literal_eval(comment[:end])
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            continue
    return None


def decimals(value):
    """The most decimals of any float in a literal."""
    if isinstance(value, float):
        text = repr(value)
        return len(text.split(".")[1]) if "." in text else 0
    if isinstance(value, (tuple, list)):
        return max((decimals(v) for v in value), default=0)
    return 0


def rounded(value, places):
    if isinstance(value, float):
        return round(value, places)
    if isinstance(value, (tuple, list)):
        return type(value)(rounded(v, places) for v in value)
    return value


def test_literal_prefixes_are_read():
    assert leading_literal("('linear', True)") == ("linear", True)
    assert leading_literal("[('great', 0.536)], lime's format") == [("great", 0.536)]
    assert leading_literal("407: from this n on") == 407
    assert leading_literal("the paper's reviews") is None
    assert decimals([("a", 0.536), ("b", -0.1)]) == 3


def test_every_value_shown_is_returned(data_dir, monkeypatch):
    monkeypatch.setenv("LIMETHEORY_DATA_DIR", data_dir)
    namespace = {}
    checked = 0
    for line in quick_start().splitlines():
        code, _, comment = line.partition("  #")
        if not code.strip() or code.lstrip().startswith("#"):
            continue
        expected = leading_literal(comment) if comment else None
        if expected is None or "=" in code.split("(")[0]:  # an assignment or a line without a value: run it
            exec(code, namespace)  # noqa: S102 (the README's own code)
            continue
        got = eval(code, namespace)  # noqa: S307
        got = tuple(got) if isinstance(got, tuple) else got
        assert rounded(got, decimals(expected)) == expected, (code.strip(), got)
        checked += 1
    assert checked >= 4  # the quick start shows at least this many values
