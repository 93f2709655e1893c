"""The bibliography's author–year labels, to match the author–year citations in the text.

pybtex's ``plain`` style numbers the bibliography ([1], [2], ...) while the text cites "Garreau and von Luxburg
(2020a)"; this style labels each entry the way the text cites it. ``bookext`` registers it as the pybtex
formatting style ``authoryear`` (``bibtex_default_style: authoryear`` in ``_config.yml``).
"""

from __future__ import annotations

import functools

from pybtex.plugin import register_plugin
from pybtex.richtext import Text
from pybtex.style.formatting.plain import Style as PlainStyle
from pybtex.style.labels import BaseLabelStyle


def _surname(person) -> str:
    """A person's surname as printed: the "von" part and the last names, LaTeX decoded."""
    parts = [*person.prelast_names, *person.last_names]
    return " ".join(_decoded(part) for part in parts)


@functools.lru_cache(maxsize=1024)
def _decoded(latex: str) -> str:
    """A name part's LaTeX as text (pybtex's LaTeX parser is slow: a build labels each entry several times)."""
    return Text.from_latex(latex).render_as("text")


def author_year(entry) -> str:
    """The label of a bibliography entry: "Ross, 1997", "Hoerl and Kennard, 1970", "Ribeiro et al., 2016".

    Examples
    --------
    >>> from pybtex.database import Entry, Person
    >>> author_year(Entry("article", {"year": "2020a"}, {"author": [Person("Garreau, Damien"),
    ...                                                          Person("von Luxburg, Ulrike")]}))
    'Garreau and von Luxburg, 2020a'
    """
    people = entry.persons.get("author") or entry.persons.get("editor")
    if not people:
        raise ValueError(f"bibliography entry {entry.key!r} has no author or editor")
    year = entry.fields.get("year")
    if not year:
        raise ValueError(f"bibliography entry {entry.key!r} has no year")
    if len(people) == 1:
        names = _surname(people[0])
    elif len(people) == 2:
        names = f"{_surname(people[0])} and {_surname(people[1])}"
    else:
        names = f"{_surname(people[0])} et al."
    return f"{names}, {year}"


class AuthorYearLabels(BaseLabelStyle):
    def format_labels(self, sorted_entries):
        for entry in sorted_entries:
            yield author_year(entry)


class AuthorYearStyle(PlainStyle):
    default_label_style = AuthorYearLabels


def register() -> None:
    """Make the style available to sphinxcontrib-bibtex as ``authoryear`` (idempotent)."""
    try:
        register_plugin("pybtex.style.formatting", "authoryear", AuthorYearStyle)
    except Exception as error:  # pybtex refuses a second registration of the same name
        if "already registered" not in str(error):
            raise
