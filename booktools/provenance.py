"""One provenance label in the title of every ``{prf:...}`` statement, derived from the blueprint.

- A result that ``book/blueprint.yml`` marks new (``paper: new in this book``) ends its title with exactly
  :data:`NEW_MARKER`, and has no other parentheses in its title.
- A restated result whose blueprint ``paper`` starts with a number of the paper ("Proposition 7 (supplement)",
  "Eq. (4): ...", "Eqs. (39) and (40) ...") starts its title with that number and " of the paper"
  ("Proposition 7 of the paper: Σ is invertible"), so readers see the paper's numbering.
- No title says "this book" otherwise, and no title nests parentheses (the book renders a title after an em dash,
  ``proof_title_format`` in ``_config.yml``, so the title's own parentheses are the only ones).
"""

from __future__ import annotations

import re

NEW_MARKER = " (new in this book)"
# how the paper numbers an item, as book/blueprint.yml writes it at the start of an entry's `paper`
PAPER_NUMBER = re.compile(
    r"^(?:(?:Definition|Lemma|Proposition|Theorem|Corollary|Remark) \d+"
    r"|Eqs?\. \(\d+\)(?:(?:, | and |–)\(\d+\))*)"
)
_OTHER_MARKERS = re.compile(r"this book|not in the paper|^new\b", re.IGNORECASE)


def _depth(text: str) -> int:
    """The deepest nesting of parentheses in ``text`` (-1 when they do not balance)."""
    depth = deepest = 0
    for char in text:
        if char == "(":
            depth += 1
            deepest = max(deepest, depth)
        elif char == ")":
            depth -= 1
            if depth < 0:
                return -1
    return deepest if depth == 0 else -1


def title_problem(title: str, paper: str, is_new: bool) -> str | None:
    """What is wrong with a statement's ``title`` given its blueprint entry (``paper``, ``is_new``); None if nothing.

    Examples
    --------
    >>> title_problem("Exact Γ of a linear model (new in this book)", "new in this book", True) is None
    True
    >>> title_problem("Proposition 7 of the paper: Σ is invertible", "Proposition 7 (supplement)", False) is None
    True
    >>> title_problem("Effect of one extra sample (this book)", "new in this book", True)
    "a result new in this book: its title ends with ' (new in this book)', with no other parentheses"
    >>> title_problem("Σ is invertible", "Proposition 7 (supplement)", False)
    "a restated result: its title starts with 'Proposition 7 of the paper'"
    """
    for name, value in (("title", title), ("paper", paper)):
        if not isinstance(value, str):
            raise TypeError(f"{name} must be a str, got {type(value).__name__}")
    if _depth(title) < 0:
        return "its title's parentheses do not balance"
    if is_new:
        head = title.removesuffix(NEW_MARKER)
        if head == title or "(" in head or ")" in head or _OTHER_MARKERS.search(head):
            return f"a result new in this book: its title ends with {NEW_MARKER!r}, with no other parentheses"
        return None
    if _OTHER_MARKERS.search(title):
        return "a restated result (the blueprint names it in the paper): its title does not say it is new"
    number = PAPER_NUMBER.match(paper)
    if number and not title.startswith(f"{number.group(0)} of the paper"):
        return f"a restated result: its title starts with '{number.group(0)} of the paper'"
    if _depth(title) > 1:
        return "its title nests parentheses"
    return None
