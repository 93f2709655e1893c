"""The shape of the book's two registries, as JSON schemas, and their validation with readable messages.

``book/blueprint.yml`` lists the book's results and ``book/figures.yml`` the paper's figures.  What a schema can
say is said here, once: which fields exist (an unknown field is an error), which hold a list (a scalar there is an
error, not a tuple of its characters), which values are allowed, that a list names nothing twice (a check id
listed twice would silently count once), and that a paper figure is either reproduced (``figure``) or explained
(``reason``), never both.  What needs the chapters (does the label exist, which chapter defines it, does the check
cell exist) is checked by :mod:`booktools.blueprint`.
"""

from __future__ import annotations

import jsonschema

#: How a result can be verified, strongest first (a result's status is the strongest it names).
VERIFICATIONS = ("symbolic", "exact", "lime", "approximate", "cited")

# a {prf} label or a check id: lower-case words joined by hyphens
_SLUG = "^[a-z0-9][a-z0-9-]*$"
# a pytest node id of the repository's tests: tests/test_x.py::test_name
_TEST_NODE = r"^tests/[A-Za-z0-9_/]+\.py::test_[A-Za-z0-9_]+$"


def _unique_list(items: dict) -> dict:
    return {"type": "array", "items": items, "uniqueItems": True}


def _registry(title: str, entries: str, entry: dict) -> dict:
    """The schema of the registry ``title``: a YAML list of entries (``entries``: "one per result"), each ``entry``."""
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": title,
        "type": "array",
        "errorMessage": {"type": f"must be a list of entries, {entries}"},
        "items": entry,
    }


BLUEPRINT_SCHEMA = _registry(
    "book/blueprint.yml",
    "one per result",
    {
        "type": "object",
        "errorMessage": {"type": "each entry must be a mapping of fields to values"},
        "additionalProperties": False,
        "required": ["label", "paper"],
        "properties": {
            # the :label: of the {prf:...} block; its chapter and kind are read from that block
            "label": {"type": "string", "pattern": _SLUG},
            "paper": {"type": "string", "minLength": 1},
            "paper_refs": _unique_list({"type": "string", "minLength": 1}),
            "uses": _unique_list({"type": "string", "pattern": _SLUG}),
            "verified": _unique_list({"enum": list(VERIFICATIONS)}),
            "checks": _unique_list({"type": "string", "anyOf": [{"pattern": _SLUG}, {"pattern": _TEST_NODE}]}),
            "note": {"type": "string"},
        },
    },
)

FIGURES_SCHEMA = _registry(
    "book/figures.yml",
    "one per figure of the paper",
    {
        "type": "object",
        "additionalProperties": False,
        "required": ["number", "part", "subject"],
        "properties": {
            "number": {"type": "string", "pattern": "^Figure [1-9][0-9]*$"},
            "part": {"enum": ["main text", "supplement"]},
            "subject": {"type": "string", "minLength": 1},
            # the name of the book figure that reproduces it (its chapter is where that name is defined)
            "figure": {"type": "string", "pattern": "^fig-[a-z0-9-]+$"},
            "reason": {"type": "string", "minLength": 1},
        },
        "oneOf": [{"required": ["figure"]}, {"required": ["reason"]}],
        # not a JSON-schema keyword (validators ignore it): the message shown when a keyword of this schema fails
        "errorMessage": {
            "type": "each entry must be a mapping of fields to values",
            "oneOf": "give either `figure` (the book figure that reproduces it) or `reason` (why it is not "
            "reproduced), exactly one of the two",
        },
    },
)


def _entry_name(data, error) -> str:
    """'entry 3 (tfidf-def-normalised)': the failing entry by position and, when it has one, by name."""
    if not error.absolute_path:
        return ""
    index = error.absolute_path[0]
    entry = data[index] if isinstance(data, list) and isinstance(index, int) else None
    name = entry.get("label", entry.get("number")) if isinstance(entry, dict) else None
    return f"entry {index}" + (f" ({name})" if isinstance(name, str) else "")


def _field(error) -> str:
    path = list(error.absolute_path)[1:]
    return ", field " + ".".join(str(part) for part in path) if path else ""


def schema_problems(data, schema: dict) -> list[str]:
    """Every way ``data`` (a registry as loaded from YAML) breaks ``schema``, as readable lines (empty: valid).

    Parameters
    ----------
    data : object
        The registry, as ``yaml.safe_load`` returns it.
    schema : dict
        :data:`BLUEPRINT_SCHEMA` or :data:`FIGURES_SCHEMA`.

    Returns
    -------
    list of str
        One line per violation, naming the file, the entry and the field, in the file's order.

    Raises
    ------
    TypeError
        If ``schema`` is not a dict.

    Examples
    --------
    >>> schema_problems([{"label": "a-b", "paper": "Lemma 1", "uses": "c-d"}], BLUEPRINT_SCHEMA)
    ["book/blueprint.yml: entry 0 (a-b), field uses: 'c-d' is not of type 'array'"]
    >>> schema_problems([{"label": "a-b", "paper": "Lemma 1", "checks": ["x", "x"]}], BLUEPRINT_SCHEMA)
    ["book/blueprint.yml: entry 0 (a-b), field checks: ['x', 'x'] has non-unique elements"]
    >>> schema_problems([{"number": "Figure 1", "part": "main text", "subject": "s"}], FIGURES_SCHEMA)[0][:61]
    'book/figures.yml: entry 0 (Figure 1): give either `figure` (t'
    """
    if not isinstance(schema, dict):
        raise TypeError(f"schema must be a dict (a JSON schema), got {type(schema).__name__}")
    validator = jsonschema.Draft202012Validator(schema)
    problems = []
    # in the file's order: entry 2 before entry 10, then by field
    errors = sorted(validator.iter_errors(data), key=lambda e: [(isinstance(p, str), p) for p in e.absolute_path])
    for error in errors:
        custom = error.schema.get("errorMessage", {}).get(error.validator)
        message = error.message if custom is None else custom
        if custom is not None and error.validator == "type":
            message += f" (got {type(error.instance).__name__})"
        where = _entry_name(data, error) + _field(error)
        problems.append(f"{schema['title']}: {where}: {message}" if where else f"{schema['title']}: {message}")
    return problems


def validate(data, schema: dict) -> None:
    """Raise a ValueError listing every violation of ``schema`` by ``data``; return None when it is valid.

    Parameters
    ----------
    data : object
        The registry, as ``yaml.safe_load`` returns it.
    schema : dict
        :data:`BLUEPRINT_SCHEMA` or :data:`FIGURES_SCHEMA`.

    Raises
    ------
    ValueError
        If ``data`` breaks the schema; the message has one line per violation.
    TypeError
        If ``schema`` is not a dict.

    Examples
    --------
    >>> both = {"number": "Figure 1", "part": "main text", "subject": "s", "figure": "fig-a", "reason": "r"}
    >>> validate([both], FIGURES_SCHEMA)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: book/figures.yml: entry 0 (Figure 1): give either `figure` (the book figure that reproduces it) or ...
    """
    problems = schema_problems(data, schema)
    if problems:
        raise ValueError("\n".join(problems))
