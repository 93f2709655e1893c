"""The numbers a reader of the paper's PDF sees, derived from its LaTeX source.

The paper (Mardaoui & Garreau, *An Analysis of LIME for Text Data*, AISTATS 2021; arXiv 2010.12487) is one
LaTeX file holding the main text and the supplement. Its ``\\newtheorem`` counters are global (the
``[section]`` option is commented out) and the supplement only resets the *section* counter, so the
supplement's statements, equations and figures continue the main text's numbering. This module replays
LaTeX's counters over the source in order, the way ``\\refstepcounter`` and ``\\label`` work:

- one counter per theorem-like environment (read from the ``\\newtheorem`` lines, including a shared counter
  ``\\newtheorem{a}[b]{A}`` and a reset ``\\newtheorem{a}{A}[section]``), stepped at ``\\begin``;
- the equation counter, stepped by ``equation`` and ``multline`` and by every line of ``align``, ``gather``,
  ``flalign``, ``alignat`` and ``eqnarray`` unless the line carries ``\\nonumber``, ``\\notag`` or ``\\tag``
  (starred environments are never numbered; a ``\\\\`` inside braces or a nested ``cases``/``aligned``/...
  does not end a line; an empty last line after a trailing ``\\\\`` is not a line);
- the figure counter, stepped by ``\\caption`` inside ``figure`` and by ``\\captionof{figure}``;
- the section counters, with ``\\setcounter{section}{0}`` (the supplement) and ``\\appendix`` (letters).

A ``\\label`` names the most recent numbered item, as in LaTeX (inside an ``align``, the current line).

``python -m booktools.papernumbers [TEX] [OUT]`` writes ``book/paper_numbers.yml``; the book reads that stored
file (it must build without the paper), and ``tests/test_book_registries.py`` checks that it equals a fresh
derivation whenever the paper's source is present.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path

import yaml

#: where the paper's source lives, relative to the repository root (``../shared`` beside the clone)
DEFAULT_TEX = Path("..") / "shared" / "paper" / "analysis-of-lime-for-text-data.tex"
DEFAULT_OUT = Path("book") / "paper_numbers.yml"

_ALIGN_LIKE = ("align", "gather", "flalign", "alignat", "eqnarray", "xalignat")
_SINGLE_NUMBER = ("equation", "multline")
# environments nested inside a display whose ``\\`` separates their own rows, not numbered lines
_INNER_ROWS = (
    "cases",
    "aligned",
    "gathered",
    "split",
    "array",
    "matrix",
    "pmatrix",
    "bmatrix",
    "vmatrix",
    "Vmatrix",
    "smallmatrix",
    "alignedat",
    "dcases",
    "substack",
    "subarray",
    "tabular",
)

_NEWTHEOREM = re.compile(
    r"\\newtheorem\*?\{(?P<env>[^}]+)\}(?:\[(?P<shared>[^\]]+)\])?\{(?P<name>[^}]+)\}(?:\[(?P<within>[^\]]+)\])?"
)
_TOKEN = re.compile(
    r"(?P<linebreak>\\\\)"
    r"|(?P<escaped>\\[{}%$&#_])"
    r"|\\(?P<beginend>begin|end)\s*\{(?P<env>[^}]*)\}"
    r"|\\(?P<sectioning>section|subsection|subsubsection)(?P<star>\*?)"
    r"|\\setcounter\s*\{(?P<counter>[^}]*)\}\s*\{(?P<value>-?\d+)\}"
    r"|\\(?P<appendix>appendix)(?![A-Za-z])"
    r"|\\label\s*\{(?P<label>[^}]*)\}"
    r"|\\(?P<caption>captionof|caption)(?![A-Za-z])"
    r"|\\(?P<nonumber>nonumber|notag)(?![A-Za-z])"
    r"|\\(?P<tag>tag)\*?(?![A-Za-z])"
    r"|(?P<open>\{)"
    r"|(?P<close>\})"
)
_SECTION_LEVELS = ("section", "subsection", "subsubsection")

# plain-Unicode renderings of the paper's macros and of the TeX used in its titles and captions
_MACROS = {
    r"\betahat": "β̂",
    r"\betainf": "β∞",
    r"\Sigmahat": "Σ̂",
    r"\Gammahat": "Γ̂",
    r"\Gammainf": "Γ∞",
    r"\dencst": "c",
    r"\Normtfidf": "ϕ",
    r"\Tfidf": "φ",
    r"\Expec": "E",
    r"\Proba": "P",
    r"\Reals": "ℝ",
    r"\alpha": "α",
    r"\beta": "β",
    r"\gamma": "γ",
    r"\Gamma": "Γ",
    r"\sigma": "σ",
    r"\Sigma": "Σ",
    r"\lambda": "λ",
    r"\psi": "ψ",
    r"\pi": "π",
    r"\nu": "ν",
    r"\phi": "ϕ",
    r"\varphi": "φ",
    r"\infty": "∞",
    r"\leq": "≤",
    r"\geq": "≥",
    r"\neq": "≠",
    r"\to": "→",
    r"\cdot": "·",
    r"\times": "×",
    r"\ldots": "…",
    r"\dots": "…",
    r"\sim": "∼",
}
_SUPERSCRIPTS = str.maketrans("0123456789-+fn", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺ᶠⁿ")
_SUBSCRIPTS = str.maketrans("0123456789nijk", "₀₁₂₃₄₅₆₇₈₉ₙᵢⱼₖ")


@dataclass(frozen=True)
class Numbered:
    """One numbered item of the paper, in the order of the source."""

    kind: str  # theorem-like environment name, "equation", "figure" or "section"
    number: str  # as printed: "4", "14", "A.2"
    printed: str  # "Proposition 4", "Eq. (14)", "Figure 11", "Section 3.2"
    part: str  # "main" or "supplement"
    section: str  # "Section 3.2 (Expression of βᶠ)" or "Supplement, Section 1.2 (Computation of Σ⁻¹)"
    title: str  # the statement's optional title, a caption's first sentence, or an equation's TeX
    label: str | None
    line: int  # line of the source where the number is stepped (for error messages and review)


def _read_group(text: str, pos: int, opening: str = "{", closing: str = "}") -> tuple[str, int]:
    """The balanced group starting at the first non-space character at or after ``pos``: (content, end)."""
    while pos < len(text) and text[pos].isspace():
        pos += 1
    if pos >= len(text) or text[pos] != opening:
        return "", pos
    depth, start = 0, pos
    while pos < len(text):
        char = text[pos]
        if char == "\\":
            pos += 2
            continue
        if char == opening:
            depth += 1
        elif char == closing:
            depth -= 1
            if depth == 0:
                return text[start + 1 : pos], pos + 1
        pos += 1
    raise ValueError(f"unbalanced {opening}{closing} group starting at offset {start}")


def strip_comments(source: str) -> str:
    """``source`` with every LaTeX comment removed (an unescaped ``%`` to the end of its line).

    The newline stays, so line numbers are preserved; ``\\%`` is a literal percent sign, not a comment.
    """
    if not isinstance(source, str):
        raise TypeError(f"source must be a str of LaTeX, got {type(source).__name__}")
    return re.sub(r"(?<!\\)((?:\\\\)*)%[^\n]*", r"\1", source)


def plain(tex: str, refs: dict[str, str] | None = None) -> str:
    """A plain-Unicode rendering of a short piece of the paper's TeX (titles, captions), for page text.

    ``refs`` maps labels to printed numbers, for ``\\ref`` and ``\\eqref`` (``?`` when unknown).

    Examples
    --------
    >>> plain(r"Concentration of $\\betahat_n$")
    'Concentration of β̂ₙ'
    >>> plain(r"Computation of $\\Sigma^{-1}$")
    'Computation of Σ⁻¹'
    >>> plain(r"Expression of $\\beta^f$")
    'Expression of βᶠ'
    """
    if not isinstance(tex, str):
        raise TypeError(f"tex must be a str, got {type(tex).__name__}")
    text = tex.replace("$", "").replace("``", "“").replace("''", "”")
    text = re.sub(r"\\(?:eqref)\s*\{([^{}]*)\}", lambda m: f"({_ref(refs, m.group(1))})", text)
    text = re.sub(r"\\ref\s*\{([^{}]*)\}", lambda m: _ref(refs, m.group(1)), text)
    text = re.sub(r"\\cite[pt]?\s*\{[^{}]*\}", "(citation)", text)
    text = re.sub(r"\\(?:emph|textit|textbf|text|mathrm|mathbf|operatorname)\s*\{([^{}]*)\}", r"\1", text)
    for macro in sorted(_MACROS, key=len, reverse=True):
        text = re.sub(re.escape(macro) + r"(?![A-Za-z])", _MACROS[macro], text)
    text = re.sub(r"\^\{([-+0-9fn]+)\}", lambda m: m.group(1).translate(_SUPERSCRIPTS), text)
    text = re.sub(r"\^([0-9fn])", lambda m: m.group(1).translate(_SUPERSCRIPTS), text)
    text = re.sub(r"_\{([0-9nijk]+)\}", lambda m: m.group(1).translate(_SUBSCRIPTS), text)
    text = re.sub(r"_([0-9nijk])", lambda m: m.group(1).translate(_SUBSCRIPTS), text)
    text = re.sub(r"\\opnorm\s*\{([^{}]*)\}", r"‖\1‖_op", text)
    text = re.sub(r"\\(?:smallnorm|norm)\s*\{([^{}]*)\}", r"‖\1‖", text)
    text = re.sub(r"\\(?:left|right|big|Big|bigg|Bigg)(?![A-Za-z])", "", text)
    text = text.replace("~", " ").replace(r"\,", " ").replace(r"\ ", " ")
    text = re.sub(r"\\[A-Za-z]+\*?", "", text)
    text = text.replace("{", "").replace("}", "")
    return re.sub(r"\s+", " ", text).strip()


def _ref(refs: dict[str, str] | None, label: str) -> str:
    return (refs or {}).get(label.strip(), "?")


def _first_sentence(tex: str, refs: dict[str, str] | None, limit: int | None = 90) -> str:
    """The first sentence of ``tex`` as plain text, cut to ``limit`` characters with "…" (``None``: whole)."""
    text = plain(re.sub(r"\\label\s*\{[^}]*\}", "", tex), refs)
    # a sentence ends at a full stop after a word (a Greek letter too: "parameter ν. The") or a number, not after
    # the abbreviations "Eq." or "vs."
    sentence = re.split(r"(?<!Eq)(?<!vs)(?<=[a-z0-9)α-ω])\.\s", text + " ", maxsplit=1)[0].strip().rstrip(".")
    return sentence if limit is None or len(sentence) <= limit else sentence[: limit - 1].rstrip() + "…"


def _theorem_kinds(source: str) -> dict[str, tuple[str, str, str | None]]:
    """env -> (printed name, counter, counter it is reset with) from the ``\\newtheorem`` lines."""
    kinds: dict[str, tuple[str, str, str | None]] = {}
    for match in _NEWTHEOREM.finditer(source):
        if match.group(0).startswith(r"\newtheorem*"):
            continue
        env = match.group("env")
        kinds[env] = (match.group("name"), match.group("shared") or env, match.group("within"))
    return kinds


def _letter(n: int) -> str:
    letters = ""
    while n > 0:
        n, rest = divmod(n - 1, 26)
        letters = chr(ord("A") + rest) + letters
    return letters


class _Replay:
    """LaTeX's counters, stepped in the order of the source."""

    def __init__(self, source: str, refs: dict[str, str] | None = None) -> None:
        self.refs = refs
        self.text = strip_comments(source)
        self.kinds = _theorem_kinds(self.text)
        self.counters: dict[str, int] = {"equation": 0, "figure": 0}
        self.counters.update({counter: 0 for _, counter, _ in self.kinds.values()})
        self.sections = [0, 0, 0]
        self.section_titles = ["", "", ""]
        self.part = "main"
        self.appendix = False
        self.items: list[Numbered] = []
        self.labelled: dict[str, int] = {}
        self.last: int | None = None  # index of the most recent numbered item (what \label names)
        self.stack: list[dict] = []  # open environments
        self.depth = 0  # brace depth

    # -- positions and names -------------------------------------------------------------------
    def _line(self, pos: int) -> int:
        return self.text.count("\n", 0, pos) + 1

    def _section_number(self, level: int) -> str:
        head = _letter(self.sections[0]) if self.appendix else str(self.sections[0])
        return ".".join([head] + [str(n) for n in self.sections[1 : level + 1]])

    def _where(self) -> str:
        level = 1 if self.sections[1] else 0
        if self.sections[0] == 0:
            return "Supplement" if self.part == "supplement" else "Main text"
        where = f"Section {self._section_number(level)} ({self.section_titles[level]})"
        return f"Supplement, {where}" if self.part == "supplement" else where

    def _add(self, kind: str, number: str, printed: str, title: str, pos: int) -> int:
        self.items.append(Numbered(kind, number, printed, self.part, self._where(), title, None, self._line(pos)))
        self.last = len(self.items) - 1
        return self.last

    def _label(self, label: str, pos: int) -> None:
        frame = self._display()
        if frame is not None and frame["env"] in _ALIGN_LIKE:
            frame["labels"].append((label, pos))
            return
        if self.last is None:
            raise ValueError(f"\\label{{{label}}} on line {self._line(pos)} names no numbered item")
        self._name(self.last, label, pos)

    def _name(self, index: int, label: str, pos: int) -> None:
        if label in self.labelled:
            raise ValueError(f"\\label{{{label}}} on line {self._line(pos)} is defined twice")
        item = self.items[index]
        if item.label is not None:
            # a second label on one item: keep both names pointing at it
            self.items.append(
                Numbered(item.kind, item.number, item.printed, item.part, item.section, item.title, label, item.line)
            )
            self.labelled[label] = len(self.items) - 1
            return
        self.items[index] = Numbered(
            item.kind, item.number, item.printed, item.part, item.section, item.title, label, item.line
        )
        self.labelled[label] = index

    def _display(self) -> dict | None:
        """The innermost open numbered display whose rows are the current lines, if any."""
        for frame in reversed(self.stack):
            if frame["env"] in _INNER_ROWS:
                return None
            if frame["env"] in _ALIGN_LIKE or frame["env"] in _SINGLE_NUMBER:
                return frame
        return None

    # -- equations -----------------------------------------------------------------------------
    def _end_align_line(self, frame: dict, end: int, last: bool) -> None:
        body = self.text[frame["line_start"] : end]
        frame["line_start"] = end
        is_empty = not re.sub(r"\\label\s*\{[^}]*\}", "", body).strip()
        if last and is_empty and frame["lines"] > 0:
            frame["labels"].clear()
            return
        frame["lines"] += 1
        if frame["numbered"]:
            self.counters["equation"] += 1
            n = str(self.counters["equation"])
            index = self._add("equation", n, f"Eq. ({n})", _tidy_tex(body), frame["line_pos"])
            for label, pos in frame["labels"]:
                self._name(index, label, pos)
        elif frame["labels"]:
            label, pos = frame["labels"][0]
            raise ValueError(f"\\label{{{label}}} on line {self._line(pos)} is on an unnumbered line")
        frame["labels"].clear()
        frame["numbered"] = not frame["starred"]
        frame["line_pos"] = end

    # -- the replay ----------------------------------------------------------------------------
    def run(self) -> list[Numbered]:
        text = self.text
        start = text.find(r"\begin{document}")
        pos = 0 if start < 0 else start
        for match in _TOKEN.finditer(text, pos):
            kind = match.lastgroup
            if match.group("open"):
                self.depth += 1
            elif match.group("close"):
                self.depth -= 1
            elif match.group("linebreak"):
                frame = self._display()
                if frame is not None and frame["env"] in _ALIGN_LIKE and self.depth == frame["depth"]:
                    self._end_align_line(frame, match.start(), last=False)
                    frame["line_start"] = match.end()
            elif match.group("beginend"):
                self._environment(match)
            elif match.group("sectioning"):
                self._section(match)
            elif match.group("counter"):
                self._setcounter(match)
            elif match.group("appendix"):
                self.appendix = True
                self.part = "supplement"
                self.sections = [0, 0, 0]
            elif match.group("label") is not None:
                self._label(match.group("label"), match.start())
            elif match.group("caption"):
                self._caption(match)
            elif match.group("nonumber") or match.group("tag"):
                frame = self._display()
                if frame is not None:
                    frame["numbered"] = False
            elif kind == "escaped":
                continue
        return self.items

    def _environment(self, match: re.Match) -> None:
        env = match.group("env")
        base, starred = env.rstrip("*"), env.endswith("*")
        if match.group("beginend") == "begin":
            frame = {"env": base, "starred": starred, "depth": self.depth}
            self.stack.append(frame)
            if base in self.kinds and not starred:
                name, counter, _ = self.kinds[base]
                self.counters[counter] += 1
                number = str(self.counters[counter])
                title, _ = _read_group(self.text, match.end(), "[", "]")
                if not title:
                    body_end = self.text.find(rf"\end{{{env}}}", match.end())
                    title = _first_sentence(self.text[match.end() : body_end], self.refs, limit=70)
                self._add(base, number, f"{name} {number}", plain(title, self.refs), match.start())
            elif base in _SINGLE_NUMBER and not starred:
                frame.update(numbered=True, labels=[])
                self.counters["equation"] += 1
                n = str(self.counters["equation"])
                body_end = self.text.find(rf"\end{{{env}}}", match.end())
                self._add("equation", n, f"Eq. ({n})", _tidy_tex(self.text[match.end() : body_end]), match.start())
            elif base in _ALIGN_LIKE:
                if base in ("alignat", "xalignat"):
                    _, after = _read_group(self.text, match.end())
                else:
                    after = match.end()
                frame.update(numbered=not starred, labels=[], line_start=after, line_pos=after, lines=0)
            return
        if not self.stack or self.stack[-1]["env"] != base:
            opened = self.stack[-1]["env"] if self.stack else "nothing"
            raise ValueError(f"\\end{{{env}}} on line {self._line(match.start())} closes {opened}")
        frame = self.stack[-1]
        if base in _ALIGN_LIKE:
            self._end_align_line(frame, match.start(), last=True)
        self.stack.pop()

    def _section(self, match: re.Match) -> None:
        level = _SECTION_LEVELS.index(match.group("sectioning"))
        title, _ = _read_group(self.text, match.end())
        if match.group("star"):
            return
        self.sections[level] += 1
        for deeper in range(level + 1, len(self.sections)):
            self.sections[deeper] = 0
        self.section_titles[level] = plain(title)
        for deeper in range(level + 1, len(self.section_titles)):
            self.section_titles[deeper] = ""
        for env, (_, counter, within) in self.kinds.items():
            if within == _SECTION_LEVELS[level] and counter == env:
                self.counters[counter] = 0
        number = self._section_number(level)
        self._add("section", number, f"Section {number}", plain(title), match.start())

    def _setcounter(self, match: re.Match) -> None:
        counter, value = match.group("counter"), int(match.group("value"))
        if counter == "section":
            if value == 0 and any(item.kind == "section" for item in self.items):
                self.part = "supplement"  # the supplement starts its sections again
            self.sections = [value, 0, 0]
        elif counter in self.counters:
            self.counters[counter] = value

    def _caption(self, match: re.Match) -> None:
        pos = match.end()
        if match.group("caption") == "captionof":
            float_type, pos = _read_group(self.text, pos)
            if float_type.strip() != "figure":
                return
        elif not any(frame["env"] == "figure" for frame in self.stack):
            return
        _, after_short = _read_group(self.text, pos, "[", "]")
        caption, _ = _read_group(self.text, after_short)
        self.counters["figure"] += 1
        n = str(self.counters["figure"])
        # a caption's whole first sentence: the concordance and the figure index quote it, and a cut one reads as
        # a broken caption ("(ν=0.…")
        self._add("figure", n, f"Figure {n}", _first_sentence(caption, self.refs, limit=None), match.start())


def _tidy_tex(body: str) -> str:
    body = re.sub(r"\\label\s*\{[^}]*\}|\\nonumber|\\notag", "", body)
    return re.sub(r"\s+", " ", body).strip().rstrip(",.").strip()


def derive(tex_path: str | Path) -> list[Numbered]:
    """Every numbered item of the paper, in the order of its source, with the number its PDF prints.

    Parameters
    ----------
    tex_path : str or pathlib.Path
        The paper's LaTeX source (one file holding the main text and the supplement).

    Returns
    -------
    list of Numbered
        Sections, theorem-like statements, numbered equation lines and figures; an item with two labels
        appears once per label.

    Examples
    --------
    >>> items = derive(DEFAULT_TEX)  # doctest: +SKIP
    >>> next(i.printed for i in items if i.label == "prop:beta-computation-linear-main")  # doctest: +SKIP
    'Proposition 4'
    """
    if not isinstance(tex_path, (str, Path)):
        raise TypeError(f"tex_path must be a str or pathlib.Path, got {type(tex_path).__name__}")
    path = Path(tex_path)
    if not path.is_file():
        raise ValueError(f"tex_path must name the paper's .tex file; {path} does not exist")
    source = path.read_text(encoding="utf-8")
    # two passes, as LaTeX does: the first learns every label's number, the second writes titles with them
    first = _Replay(source).run()
    refs = {item.label: item.number for item in first if item.label}
    return _Replay(source, refs).run()


def table(items: list[Numbered]) -> dict[str, dict]:
    """The stored table: key -> entry, in the source's order, sections left out.

    The key is the LaTeX label, or the printed number for an unlabelled item ("Remark 1", "Eq. (7)").

    Examples
    --------
    >>> t = table([Numbered("figure", "3", "Figure 3", "main", "Section 2.3 (Weights)", "Weights", "fig:psi", 301)])
    >>> t["fig:psi"]["printed"]
    'Figure 3'
    """
    if not isinstance(items, list) or not all(isinstance(item, Numbered) for item in items):
        raise TypeError("items must be a list of Numbered, as returned by derive()")
    entries: dict[str, dict] = {}
    for item in items:
        if item.kind == "section":
            continue
        key = item.label or item.printed
        if key in entries and item.label is None:
            continue
        entries[key] = {
            "label": item.label,
            "kind": item.kind,
            "number": item.number,
            "printed": item.printed,
            "part": item.part,
            "section": item.section,
            "title": item.title,
        }
    return entries


HEADER = (
    "# The paper's printed numbering, derived from its LaTeX source by booktools/papernumbers.py; do not edit.\n"
    "# Regenerate: .venv/bin/python -m booktools.papernumbers ../shared/paper/analysis-of-lime-for-text-data.tex\n"
    "# Key: the LaTeX label (or the printed number of an unlabelled item). Counters are global: the\n"
    "# supplement continues the main text's numbering of statements, equations and figures.\n"
)


def dump(entries: dict[str, dict]) -> str:
    """The YAML text stored in ``book/paper_numbers.yml`` for a table made by :func:`table`.

    Examples
    --------
    >>> dump({"eq:x": {"kind": "equation", "printed": "Eq. (1)"}}).splitlines()[-1]
    '  printed: Eq. (1)'
    """
    if not isinstance(entries, dict):
        raise TypeError(f"entries must be a dict made by table(), got {type(entries).__name__}")
    body = yaml.safe_dump(entries, sort_keys=False, allow_unicode=True, width=1000)
    return HEADER + body


def load(path: str | Path) -> dict[str, dict]:
    """The stored table (``book/paper_numbers.yml``) as a dict.

    Examples
    --------
    >>> load("book/paper_numbers.yml")["th:concentration-of-betahat"]["printed"]  # doctest: +SKIP
    'Theorem 1'
    """
    if not isinstance(path, (str, Path)):
        raise TypeError(f"path must be a str or pathlib.Path, got {type(path).__name__}")
    return yaml.safe_load(Path(path).read_text(encoding="utf-8"))


def main(argv: list[str]) -> int:
    tex = Path(argv[1]) if len(argv) > 1 else DEFAULT_TEX
    out = Path(argv[2]) if len(argv) > 2 else DEFAULT_OUT
    out.write_text(dump(table(derive(tex))), encoding="utf-8")
    print(f"wrote {out} from {tex}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
