"""The book's chapter numbers, derived from ``_toc.yml``, and the places that disagree with them.

Jupyter Book numbers the chapters of the numbered parts one after the other, across the parts
(``use_multitoc_numbering``), in the order ``_toc.yml`` lists them; a statement or a figure takes its chapter's
number (Proposition 19.2). A chapter's file is named after that number (``notebooks/19-linear-large-bandwidth.md`` is
chapter 19), text that says "chapter 19" in a link must point into chapter 19, and prose cites a chapter by that
number rather than by its whole title. ``problems(root)`` lists every
place where the files or the links disagree with the table of contents; ``tests/test_chapter_numbering.py`` runs it.
"""

from __future__ import annotations

import re
from pathlib import Path, PurePosixPath

import yaml

CHAPTERS_FOLDER = "notebooks"
_FILE_NUMBER = re.compile(r"^notebooks/(\d+)-")

# link text that names one chapter: "chapter 20", "Chapter 20", "the exact theorem of chapter 20"
_CHAPTER_IN_TEXT = re.compile(r"\bchapter\s+(\d+)\b(?!\s*[-–]\s*\d)", re.IGNORECASE)
# MyST roles with explicit text, {doc}`text <target>`, and Markdown links [text](target)
_ROLE_LINK = re.compile(r"\{(doc|ref|numref|prf:ref)\}`([^`<]*?)\s*<([^`>]+)>`")
_MARKDOWN_LINK = re.compile(r"(?<![!\]])\[([^\]\n]+)\]\(([^)\s]+)\)")
# what a chapter defines that a {ref}, {numref} or {prf:ref} can point to
_TARGETS = (
    re.compile(r"^\(([A-Za-z0-9_.:-]+)\)=\s*$", re.MULTILINE),  # (name)=
    re.compile(r"^\s*:(?:label|name):\s*(\S+)\s*$", re.MULTILINE),  # :label: of {prf}, :name: of figures
    re.compile(r"^\s*name:\s*(\S+)\s*$", re.MULTILINE),  # name: in a code cell's mystnb figure options
)


def toc_chapter_numbers(toc_path) -> dict[str, int]:
    """The number the book prints for each chapter of a numbered part, keyed by docname.

    Parameters
    ----------
    toc_path : str or pathlib.Path
        A Jupyter Book ``_toc.yml`` (``format: jb-book``, parts with ``numbered: true``).

    Returns
    -------
    dict of str to int
        ``{"notebooks/01-tfidf": 1, ...}``: the chapters of the numbered parts, counted from 1 in the order the
        table of contents lists them, across the parts. Unnumbered parts (front and back matter) are left out.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> toc = pathlib.Path(tempfile.mkdtemp()) / "_toc.yml"
    >>> _ = toc.write_text(
    ...     "format: jb-book\\nroot: intro\\nparts:\\n"
    ...     "  - caption: Front\\n    chapters:\\n      - file: book/notation\\n"
    ...     "  - caption: I\\n    numbered: true\\n    chapters:\\n      - file: notebooks/01-a\\n"
    ...     "  - caption: II\\n    numbered: true\\n    chapters:\\n      - file: notebooks/02-b.md\\n"
    ... )
    >>> toc_chapter_numbers(toc)
    {'notebooks/01-a': 1, 'notebooks/02-b': 2}
    """
    toc = yaml.safe_load(Path(toc_path).read_text(encoding="utf-8"))
    if not isinstance(toc, dict) or not isinstance(toc.get("parts"), list):
        raise ValueError(f"toc_path must be a jb-book table of contents with a list of parts, got {toc_path}")
    numbers: dict[str, int] = {}
    for part in toc["parts"]:
        if not part.get("numbered"):
            continue
        for chapter in part.get("chapters", []):
            docname = str(chapter["file"]).removesuffix(".md").removesuffix(".ipynb")
            numbers[docname] = len(numbers) + 1
    return numbers


def file_number(docname: str) -> int | None:
    """The number in a chapter's file name (``notebooks/19-linear-large-bandwidth`` -> 19), or None.

    Examples
    --------
    >>> file_number("notebooks/07-sigma-invertible"), file_number("book/costs")
    (7, None)
    """
    match = _FILE_NUMBER.match(docname)
    return int(match.group(1)) if match else None


def file_problems(numbers: dict[str, int], root) -> list[str]:
    """Chapters whose file number is not their number in the book, chapter files the book does not list, and
    chapters the book lists without a file.

    Parameters
    ----------
    numbers : dict of str to int
        docname -> number in the book, as :func:`toc_chapter_numbers` returns it.
    root : str or pathlib.Path
        The repository, whose ``notebooks/*.md`` are the chapters on disk.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> (root / "notebooks").mkdir()
    >>> for name in ("01-a", "03-b"):
    ...     _ = (root / "notebooks" / f"{name}.md").write_text("# A")
    >>> file_problems({"notebooks/01-a": 1, "notebooks/03-b": 2}, root)
    ['notebooks/03-b: the file says chapter 3, the book numbers it 2']
    """
    problems = []
    for docname, number in numbers.items():
        if not (Path(root) / f"{docname}.md").is_file() and not (Path(root) / f"{docname}.ipynb").is_file():
            problems.append(f"{docname}: _toc.yml lists chapter {number}, which has no file")
        elif docname.startswith(f"{CHAPTERS_FOLDER}/") and file_number(docname) != number:
            problems.append(f"{docname}: the file says chapter {file_number(docname)}, the book numbers it {number}")
    for path in sorted((Path(root) / CHAPTERS_FOLDER).glob("*.md")):
        docname = f"{CHAPTERS_FOLDER}/{path.stem}"
        if docname not in numbers:
            problems.append(f"{docname}: a chapter file that no numbered part of _toc.yml lists")
    return problems


def chapter_targets(root) -> dict[str, str]:
    """Every name a chapter defines for references (statement labels, figure names, ``(name)=`` targets) -> docname.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> (root / "notebooks").mkdir()
    >>> source = "(b-start)=\\n# B\\n\\n```{prf:lemma} L\\n:label: b-lemma\\n```\\n"
    >>> _ = (root / "notebooks" / "02-b.md").write_text(source)
    >>> sorted(chapter_targets(root).items())
    [('b-lemma', 'notebooks/02-b'), ('b-start', 'notebooks/02-b')]
    """
    targets = {}
    for path in sorted((Path(root) / CHAPTERS_FOLDER).glob("*.md")):
        text = path.read_text(encoding="utf-8")
        for pattern in _TARGETS:
            for name in pattern.findall(text):
                targets.setdefault(name, f"{CHAPTERS_FOLDER}/{path.stem}")
    return targets


def _document(target: str, docname: str) -> str:
    """The docname a {doc} or Markdown link target means, seen from the page ``docname``."""
    target = target.split("#", 1)[0].removesuffix(".md").removesuffix(".ipynb")
    if target.startswith("/"):
        return target.lstrip("/")
    parts: list[str] = []
    for part in (PurePosixPath(docname).parent / target).parts:
        if part == "..":
            parts = parts[:-1]
        elif part != ".":
            parts.append(part)
    return "/".join(parts)


def link_problems(text: str, docname: str, numbers: dict[str, int], targets: dict[str, str]) -> list[str]:
    """Links in ``text`` whose text names a chapter ("chapter 20", or just "20") other than the one they point into.

    Parameters
    ----------
    text : str
        A page's MyST source.
    docname : str
        The page's docname (``book/errata``), against which relative targets are resolved.
    numbers : dict of str to int
        docname -> number in the book (:func:`toc_chapter_numbers`).
    targets : dict of str to str
        Reference name -> the chapter that defines it (:func:`chapter_targets`).

    Returns
    -------
    list of str
        One readable line per link: what it says and where it points. A link that names a chapter but points
        to something no numbered chapter holds is listed too.

    Examples
    --------
    >>> numbers = {"notebooks/19-linear": 19, "notebooks/20-exact": 20}
    >>> targets = {"exact-thm": "notebooks/20-exact"}
    >>> link_problems("{doc}`chapter 19 <19-linear>` and {prf:ref}`chapter 20 <exact-thm>`",
    ...               "notebooks/21-practice", numbers, targets)
    []
    >>> text = "[chapter 19](../notebooks/20-exact.md), {doc}`19 <../notebooks/20-exact>`"
    >>> for problem in link_problems(text, "book/notation", numbers, targets):
    ...     print(problem)
    book/notation: [chapter 19](../notebooks/20-exact.md) points into chapter 20
    book/notation: {doc}`19 <../notebooks/20-exact>` points into chapter 20
    """
    links = [(m.start(), m.group(0), m.group(1), m.group(2), m.group(3)) for m in _ROLE_LINK.finditer(text)]
    links += [(m.start(), m.group(0), "md", m.group(1), m.group(2)) for m in _MARKDOWN_LINK.finditer(text)]
    problems = []
    for _, written, role, label_text, target in sorted(links):
        named = {int(number) for number in _CHAPTER_IN_TEXT.findall(label_text)}
        if label_text.strip().isdigit():  # a bare number in a column of chapters, as on the notation page
            named = {int(label_text)}
        if len(named) != 1 or re.match(r"[a-z][a-z0-9+.-]*://", target):
            continue
        if role in ("doc", "md"):
            chapter = _document(target, docname)
        else:
            chapter = targets.get(target.strip(), "")
        actual = numbers.get(chapter)
        if actual is None:
            problems.append(
                f"{docname}: {written} names a chapter but points to {target}, which is in no numbered chapter"
            )
        elif named != {actual}:
            problems.append(f"{docname}: {written} points into chapter {actual}")
    return problems


_BARE_DOC = re.compile(r"\{doc\}`([^`<>]+)`")
#: pages that list chapters by their titles on purpose (the introduction's parts are a table of contents)
TITLE_PAGES = ("book/intro",)


def bare_citations(text: str, docname: str, numbers: dict[str, int]) -> list[str]:
    """``{doc}`` references to a chapter without link text, which print the chapter's whole title.

    The book cites a chapter as "chapter 20": ``{doc}`chapter 20 <20-linear-exact>``` (checked by
    :func:`link_problems`). A bare ``{doc}`20-linear-exact``` prints "The exact explanation of a linear model (beyond
    the paper)" in the middle of a sentence.

    Examples
    --------
    >>> numbers = {"notebooks/20-exact": 20}
    >>> bare_citations("See {doc}`20-exact` and {doc}`chapter 20 <20-exact>`.", "notebooks/21-x", numbers)
    ['notebooks/21-x: {doc}`20-exact` prints the whole title: write {doc}`chapter 20 <20-exact>`']
    """
    found = []
    for match in _BARE_DOC.finditer(text):
        number = numbers.get(_document(match.group(1).strip(), docname))
        if number is not None:
            short = f"{{doc}}`chapter {number} <{match.group(1).strip()}>`"
            found.append(f"{docname}: {match.group(0)} prints the whole title: write {short}")
    return found


def pages(root) -> dict[str, str]:
    """The MyST pages whose prose cites chapters: the chapters, the front and back matter, and the README."""
    root = Path(root)
    found = {}
    for folder in (CHAPTERS_FOLDER, "book"):
        for path in sorted((root / folder).glob("*.md")):
            found[f"{folder}/{path.stem}"] = path.read_text(encoding="utf-8")
    readme = root / "README.md"
    if readme.is_file():
        found["README"] = readme.read_text(encoding="utf-8")
    return found


def problems(root, toc_path=None) -> list[str]:
    """Every disagreement with the numbering of ``_toc.yml``: chapter files, links that name a chapter, and chapters
    cited by their whole titles instead of their numbers (outside :data:`TITLE_PAGES`).

    Parameters
    ----------
    root : str or pathlib.Path
        The repository.
    toc_path : str or pathlib.Path, optional
        The table of contents; ``root/_toc.yml`` by default.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> (root / "notebooks").mkdir()
    >>> _ = (root / "notebooks" / "01-a.md").write_text("# A\\n\\nAs {doc}`chapter 2 <01-a>` shows.\\n")
    >>> _ = (root / "_toc.yml").write_text(
    ...     "format: jb-book\\nroot: intro\\nparts:\\n"
    ...     "  - numbered: true\\n    chapters:\\n      - file: notebooks/01-a\\n"
    ... )
    >>> problems(root)
    ['notebooks/01-a: {doc}`chapter 2 <01-a>` points into chapter 1']
    """
    root = Path(root)
    numbers = toc_chapter_numbers(toc_path if toc_path is not None else root / "_toc.yml")
    found = file_problems(numbers, root)
    targets = chapter_targets(root)
    for docname, text in pages(root).items():
        found += link_problems(text, docname, numbers, targets)
        if docname not in TITLE_PAGES:
            found += bare_citations(text, docname, numbers)
    return found
