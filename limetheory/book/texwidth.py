r"""How wide a line of display math renders, estimated from its TeX source, in em of the display's font.

:class:`limetheory.book.Equations` breaks a long relation into lines that fit a phone's column; it needs the width
a line will take once MathJax typesets it, before any browser sees it. :func:`tex_width` lays the source out as
TeX does, on the widths of the Computer Modern glyphs MathJax's TeX fonts copy: each symbol is an atom (ordinary,
operator, binary, relation, opening, closing, punctuation, inner) with its glyph's width, and the space between
two atoms comes from TeX's table of inter-atom spacing (thin, medium or thick; none around binary and relation
signs in sub- and superscripts). Fractions, roots, ``\left ... \right`` groups, scripts, text and the usual
font switches are laid out to their width; glyphs this table does not know count as 0.6 em.

It is an estimate: on twelve of the book's displays measured in Chromium, MathJax rendered 18.2 to 19.6 px per em
of it (tests/test_texwidth.py), a spread of 8 %; the browser test measures the real widths
(browser_tests/book_layout.py). Heights and kerning are ignored.
"""

from __future__ import annotations

import re

__all__ = ["tex_terms", "tex_width"]

# widths in em of the glyphs (cmmi10 for math italic, cmr10 for upright), as MathJax's TeX fonts have them
_ITALIC = dict(
    zip(
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
        (0.529, 0.429, 0.433, 0.520, 0.466, 0.490, 0.477, 0.576, 0.345, 0.412, 0.521, 0.298, 0.878, 0.600, 0.485,
         0.503, 0.446, 0.451, 0.469, 0.361, 0.572, 0.485, 0.716, 0.572, 0.490, 0.465, 0.750, 0.759, 0.715, 0.828,
         0.738, 0.643, 0.786, 0.831, 0.440, 0.555, 0.849, 0.681, 0.970, 0.803, 0.763, 0.642, 0.791, 0.759, 0.613,
         0.584, 0.683, 0.583, 0.944, 0.828, 0.581, 0.683),
        strict=True,
    )
)  # fmt: skip
_UPRIGHT = dict(
    zip(
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
        (0.500, 0.556, 0.444, 0.556, 0.444, 0.306, 0.500, 0.556, 0.278, 0.306, 0.528, 0.278, 0.833, 0.556, 0.500,
         0.556, 0.528, 0.392, 0.394, 0.389, 0.556, 0.528, 0.722, 0.528, 0.528, 0.444, 0.750, 0.708, 0.722, 0.764,
         0.681, 0.653, 0.785, 0.750, 0.361, 0.514, 0.778, 0.625, 0.917, 0.750, 0.778, 0.681, 0.778, 0.736, 0.556,
         0.722, 0.750, 0.750, 1.028, 0.750, 0.750, 0.611),
        strict=True,
    )
)  # fmt: skip
_GREEK = {
    "alpha": 0.640, "beta": 0.566, "gamma": 0.518, "delta": 0.444, "epsilon": 0.466, "varepsilon": 0.466,
    "zeta": 0.438, "eta": 0.497, "theta": 0.469, "vartheta": 0.592, "iota": 0.354, "kappa": 0.576, "lambda": 0.583,
    "mu": 0.603, "nu": 0.494, "xi": 0.438, "pi": 0.570, "varpi": 0.828, "rho": 0.517, "varrho": 0.517,
    "sigma": 0.571, "varsigma": 0.474, "tau": 0.437, "upsilon": 0.540, "phi": 0.596, "varphi": 0.654, "chi": 0.626,
    "psi": 0.651, "omega": 0.622, "Gamma": 0.625, "Delta": 0.833, "Theta": 0.778, "Lambda": 0.694, "Xi": 0.667,
    "Pi": 0.750, "Sigma": 0.722, "Upsilon": 0.778, "Phi": 0.722, "Psi": 0.778, "Omega": 0.722,
    "infty": 1.0, "partial": 0.566, "ell": 0.417, "nabla": 0.833, "emptyset": 0.5, "varnothing": 0.5,
    "forall": 0.556, "exists": 0.556, "neg": 0.667, "lnot": 0.667, "prime": 0.275, "hbar": 0.540, "imath": 0.345,
    "jmath": 0.412, "aleph": 0.611, "top": 0.778, "bot": 0.778, "angle": 0.722, "|": 0.5, "#": 0.833, "%": 0.833,
    "&": 0.778, "$": 0.5, "_": 0.5, "vert": 0.278, "Vert": 0.5, "backslash": 0.5, "star": 0.5, "ast": 0.5,
    "checkmark": 0.833, "square": 0.778, "blacksquare": 0.778, "dagger": 0.444, "S": 0.444,
}  # fmt: skip
_RELATIONS = {
    "le": 0.778, "leq": 0.778, "ge": 0.778, "geq": 0.778, "ne": 0.778, "neq": 0.778, "approx": 0.778,
    "equiv": 0.778, "sim": 0.778, "simeq": 0.778, "cong": 0.778, "propto": 0.778, "ll": 1.0, "gg": 1.0,
    "to": 1.0, "rightarrow": 1.0, "leftarrow": 1.0, "Rightarrow": 1.0, "Leftarrow": 1.0, "leftrightarrow": 1.0,
    "Leftrightarrow": 1.0, "mapsto": 1.0, "longrightarrow": 1.639, "longmapsto": 1.639, "iff": 1.75,
    "implies": 1.639, "in": 0.667, "notin": 0.667, "ni": 0.667, "subset": 0.778, "subseteq": 0.778,
    "supset": 0.778, "supseteq": 0.778, "mid": 0.278, "parallel": 0.5, "perp": 0.778, "coloneqq": 1.056,
    "prec": 0.778, "succ": 0.778, "preceq": 0.778, "succeq": 0.778, "lesssim": 0.778, "gtrsim": 0.778,
    "leqslant": 0.778, "geqslant": 0.778, "colon": 0.278,
}  # fmt: skip
_BINARIES = {
    "pm": 0.778, "mp": 0.778, "times": 0.778, "cdot": 0.278, "circ": 0.5, "bullet": 0.5, "cup": 0.667,
    "cap": 0.667, "setminus": 0.5, "wedge": 0.667, "land": 0.667, "vee": 0.667, "lor": 0.667, "oplus": 0.778,
    "otimes": 0.778, "div": 0.778, "odot": 0.778, "triangle": 0.889, "sqcup": 0.667,
}  # fmt: skip
# large operators: (width in display style, width in text style, limits above and below in display style)
_LARGE = {
    "sum": (1.444, 1.056, True), "prod": (1.278, 0.944, True), "coprod": (1.278, 0.944, True),
    "bigcup": (1.111, 0.833, True), "bigcap": (1.111, 0.833, True), "bigoplus": (1.511, 1.111, True),
    "bigotimes": (1.511, 1.111, True), "int": (1.1, 0.75, False), "iint": (1.8, 1.3, False),
    "oint": (1.1, 0.75, False),
}  # fmt: skip
# operator names set in upright type; those with limits put their subscript below in display style
_NAMED = {"log", "ln", "exp", "det", "sin", "cos", "tan", "cot", "sec", "csc", "sinh", "cosh", "tanh", "arcsin",
          "arccos", "arctan", "arg", "dim", "ker", "deg", "hom", "gcd", "lg", "Pr", "max", "min", "sup", "inf",
          "lim", "liminf", "limsup", "argmax", "argmin", "tr", "Var", "Cov", "sgn"}  # fmt: skip
_WITH_LIMITS = {"max", "min", "sup", "inf", "lim", "liminf", "limsup", "det", "gcd", "Pr", "argmax", "argmin"}
_SPACES = {",": 0.167, ":": 0.222, ">": 0.222, ";": 0.278, "!": -0.167, " ": 0.333, "quad": 1.0, "qquad": 2.0,
           "enspace": 0.5, "thinspace": 0.167, "medspace": 0.222, "thickspace": 0.278, "negthinspace": -0.167,
           "enskip": 0.5, "space": 0.333, "nobreakspace": 0.333}  # fmt: skip
_ACCENTS = {"hat", "bar", "tilde", "vec", "dot", "ddot", "check", "breve", "acute", "grave", "widehat",
            "widetilde", "overline", "underline", "overrightarrow", "mathring", "boxed", "underbrace",
            "overbrace"}  # fmt: skip
_TEXT = {"text", "textrm", "textit", "textbf", "textsf", "texttt", "mbox", "hbox", "textnormal", "textup"}
_FONTS = {"mathrm": 1.0, "mathit": 1.0, "mathbf": 1.1, "boldsymbol": 1.1, "bm": 1.1, "mathsf": 1.0, "mathtt": 1.0,
          "mathcal": 1.15, "mathscr": 1.3, "mathbb": 1.25, "mathfrak": 1.1, "pmb": 1.1}  # fmt: skip
_IGNORED = {"limits", "nolimits", "displaylimits", "nonumber", "notag", "left", "right", "middle", "relax",
            "allowbreak", "strut", "mathstrut", "big", "Big", "bigg", "Bigg"}  # fmt: skip
# a \big-family delimiter: its width by size (the glyph's own width at that size, parentheses' widths)
_BIG = {"big": 0.458, "Big": 0.597, "bigg": 0.736, "Bigg": 0.806}
_OPEN_CHARS = {"(": 0.389, "[": 0.278, "\\{": 0.5, "\\lbrace": 0.5, "\\langle": 0.389, "\\lfloor": 0.444,
               "\\lceil": 0.444, "\\lvert": 0.278, "\\lVert": 0.5}  # fmt: skip
_CLOSE_CHARS = {")": 0.389, "]": 0.278, "\\}": 0.5, "\\rbrace": 0.5, "\\rangle": 0.389, "\\rfloor": 0.444,
                "\\rceil": 0.444, "\\rvert": 0.278, "\\rVert": 0.5}  # fmt: skip
_DELIMITERS = {**_OPEN_CHARS, **_CLOSE_CHARS, "|": 0.278, "\\|": 0.5, "\\vert": 0.278, "\\Vert": 0.5, "/": 0.5,
               "\\backslash": 0.5, ".": 0.0, "\\uparrow": 0.5, "\\downarrow": 0.5}  # fmt: skip
_CHARS = {"+": (0.778, "bin"), "-": (0.778, "bin"), "*": (0.5, "bin"), "=": (0.778, "rel"), "<": (0.778, "rel"),
          ">": (0.778, "rel"), ":": (0.278, "rel"), ",": (0.278, "punct"), ";": (0.278, "punct"),
          "(": (0.389, "open"), "[": (0.278, "open"), ")": (0.389, "close"), "]": (0.278, "close"),
          "!": (0.278, "close"), "?": (0.472, "close"), "/": (0.5, "ord"), "|": (0.278, "ord"), ".": (0.278, "ord"),
          "'": (0.275, "ord"), "@": (0.778, "ord"), "\u2212": (0.778, "bin")}  # fmt: skip
_TEXT_CHARS = {" ": 0.333, ".": 0.278, ",": 0.278, ":": 0.278, ";": 0.278, "-": 0.333, "(": 0.389, ")": 0.389,
               "[": 0.278, "]": 0.278, "'": 0.278, "/": 0.5, "!": 0.278, "?": 0.472, "=": 0.778, "+": 0.778,
               "~": 0.333}  # fmt: skip

THIN, MEDIUM, THICK = 3 / 18, 4 / 18, 5 / 18
# TeX's inter-atom spacing (The TeXbook, chapter 18): (left class, right class) -> (space, only in display and
# text style); pairs not listed get no space
_SPACING = {
    ("ord", "op"): (THIN, False), ("ord", "bin"): (MEDIUM, True), ("ord", "rel"): (THICK, True),
    ("ord", "inner"): (THIN, True), ("op", "ord"): (THIN, False), ("op", "op"): (THIN, False),
    ("op", "rel"): (THICK, True), ("op", "inner"): (THIN, True), ("bin", "ord"): (MEDIUM, True),
    ("bin", "op"): (MEDIUM, True), ("bin", "open"): (MEDIUM, True), ("bin", "inner"): (MEDIUM, True),
    ("rel", "ord"): (THICK, True), ("rel", "op"): (THICK, True), ("rel", "open"): (THICK, True),
    ("rel", "inner"): (THICK, True), ("close", "op"): (THIN, False), ("close", "bin"): (MEDIUM, True),
    ("close", "rel"): (THICK, True), ("close", "inner"): (THIN, True), ("punct", "ord"): (THIN, True),
    ("punct", "op"): (THIN, True), ("punct", "rel"): (THIN, True), ("punct", "open"): (THIN, True),
    ("punct", "close"): (THIN, True), ("punct", "punct"): (THIN, True), ("punct", "inner"): (THIN, True),
    ("inner", "ord"): (THIN, True), ("inner", "op"): (THIN, False), ("inner", "bin"): (MEDIUM, True),
    ("inner", "rel"): (THICK, True), ("inner", "open"): (THIN, True), ("inner", "punct"): (THIN, True),
    ("inner", "inner"): (THIN, True),
}  # fmt: skip
# the size of each style relative to the display's font: display, text, script, scriptscript
_SCALE = (1.0, 1.0, 0.7, 0.5)
_TOKEN = re.compile(r"\\([A-Za-z]+)\s*|\\(.)|(\s+)|(.)", re.S)


def _tokens(source: str) -> list[str]:
    r"""Control words (``\frac``), control symbols (``\,``), braces, single characters and one space per run."""
    found = []
    for word, symbol, _, char in _TOKEN.findall(source):
        if word:
            found.append("\\" + word)
        elif symbol:
            found.append("\\" + symbol)
        elif char:
            found.append(char)
        else:
            found.append(" ")  # kept for the words of \text; math mode skips it
    return found


class _Layout:
    """One pass over a token list: atoms ``(width, class)`` in the order TeX sets them."""

    def __init__(self, tokens: list[str]):
        self.tokens = tokens
        self.at = 0

    def next_argument(self) -> list[str]:
        """The tokens of the next argument: a braced group's content, or one token."""
        while self.at < len(self.tokens) and self.tokens[self.at] == " ":
            self.at += 1
        if self.at >= len(self.tokens):
            return []
        token = self.tokens[self.at]
        self.at += 1
        if token != "{":
            return [token]
        depth, start = 1, self.at
        while self.at < len(self.tokens):
            token = self.tokens[self.at]
            self.at += 1
            if token == "{":
                depth += 1
            elif token == "}":
                depth -= 1
                if depth == 0:
                    return self.tokens[start : self.at - 1]
        return self.tokens[start:]

    def optional_argument(self) -> list[str]:
        if self.at < len(self.tokens) and self.tokens[self.at] == "[":
            end = self.tokens.index("]", self.at) if "]" in self.tokens[self.at :] else len(self.tokens)
            content, self.at = self.tokens[self.at + 1 : end], end + 1
            return content
        return []

    def until_right(self) -> tuple[list[str], str]:
        r"""The tokens up to the ``\right`` that closes a ``\left`` just read, and the closing delimiter."""
        depth, start = 1, self.at
        while self.at < len(self.tokens):
            token = self.tokens[self.at]
            self.at += 1
            if token == "\\left":
                depth += 1
            elif token == "\\right":
                depth -= 1
                if depth == 0:
                    content = self.tokens[start : self.at - 1]
                    return content, (self.next_argument() or ["."])[0]
        return self.tokens[start:], "."

    def until_end(self, name: str) -> list[str]:
        r"""The tokens of an environment's body, up to its matching ``\end{name}``."""
        depth, start = 1, self.at
        while self.at < len(self.tokens):
            token = self.tokens[self.at]
            self.at += 1
            if token in ("\\begin", "\\end"):
                argument = "".join(self.next_argument())
                if argument == name:
                    depth += 1 if token == "\\begin" else -1
                    if depth == 0:
                        return self.tokens[start : self.at - len(name) - 3]
        return self.tokens[start:]


def _tall(tokens: list[str], style: int) -> bool:
    """Whether a group holds something taller than a line in a non-script style (a fraction, a large operator)."""
    return style <= 1 and any(t in ("\\frac", "\\dfrac", "\\binom", "\\sum", "\\int", "\\prod") for t in tokens)


def _atoms(tokens: list[str], style: int) -> list[tuple[float, str | None]]:
    """Lay out a token list in a style (0 display, 1 text, 2 script, 3 scriptscript) as atoms; class None is glue."""
    layout, atoms = _Layout(tokens), []
    while layout.at < len(tokens):
        scale = _SCALE[style]
        token = tokens[layout.at]
        layout.at += 1
        atom: tuple[float, str | None] | None = None
        limits = False
        name = token[1:] if token.startswith("\\") else None
        if token in ("^", "_"):
            atom = (0.0, "ord")  # a script with nothing before it attaches to an empty atom
            layout.at -= 1
        elif token == "{":
            layout.at -= 1
            atom = (_width(layout.next_argument(), style), "ord")
        elif token in ("}", "&", "\\\\", " "):
            continue
        elif name is None:
            if token.isalpha():
                atom = (_ITALIC.get(token, 0.6) * scale, "ord")
            elif token.isdigit():
                atom = (0.5 * scale, "ord")
            else:
                width, kind = _CHARS.get(token, (0.6, "ord"))
                atom = (width * scale, kind)
        elif name in _GREEK:
            atom = (_GREEK[name] * scale, "ord")
        elif name in _RELATIONS:
            atom = (_RELATIONS[name] * scale, "rel" if name != "colon" else "punct")
        elif name in _BINARIES:
            atom = (_BINARIES[name] * scale, "bin")
        elif name in _SPACES:
            atom = (_SPACES[name] * scale, None)
        elif name in _LARGE:
            display_width, text_width, limits = _LARGE[name]
            atom = ((display_width if style == 0 else text_width * scale), "op")
            limits = limits and style == 0
        elif name in _NAMED or name == "operatorname":
            text = "".join(layout.next_argument()) if name == "operatorname" else name
            atom = (sum(_UPRIGHT.get(c, 0.5) for c in text) * scale, "op")
            limits = name in _WITH_LIMITS and style == 0
        elif name in ("frac", "dfrac", "tfrac", "binom", "dbinom", "tbinom", "genfrac"):
            inner = {"dfrac": 1, "dbinom": 1, "tfrac": 2, "tbinom": 2}.get(name, min(style + 1, 3))
            if style >= 2 and name not in ("dfrac", "dbinom"):
                inner = 3
            numerator, denominator = layout.next_argument(), layout.next_argument()
            width = max(_width(numerator, inner), _width(denominator, inner)) + 0.24 * scale
            if "binom" in name:
                width += 2 * (0.597 if inner <= 1 else 0.458) * scale
            atom = (width, "inner")
        elif name == "sqrt":
            layout.optional_argument()
            content = layout.next_argument()
            atom = (_width(content, style) + (1.0 if _tall(content, style) else 0.833) * scale, "ord")
        elif name == "left":
            opening = (layout.next_argument() or ["."])[0]
            content, closing = layout.until_right()
            tall = _tall(content, style)
            # a delimiter around a fraction grows to the next size, as wide as a \Big one
            width = sum(0.0 if d == "." else 0.597 if tall else _DELIMITERS.get(d, 0.4) for d in (opening, closing))
            atom = (_width(content, style) + width * scale, "inner")
        elif name[:-1] in _BIG and name[-1] in "lrm" or name in _BIG:
            size = name if name in _BIG else name[:-1]
            delimiter = (layout.next_argument() or ["."])[0]
            kind = {"l": "open", "r": "close", "m": "rel"}.get(name[-1], "ord") if name not in _BIG else "ord"
            width = _BIG[size] if delimiter != "." else 0.0
            atom = (width * scale, kind)
        elif "\\" + name in _OPEN_CHARS:
            atom = (_OPEN_CHARS["\\" + name] * scale, "open")
        elif "\\" + name in _CLOSE_CHARS:
            atom = (_CLOSE_CHARS["\\" + name] * scale, "close")
        elif name in _TEXT:
            text = "".join(t if not t.startswith("\\") else " " for t in layout.next_argument())
            atom = (sum(_TEXT_CHARS.get(c, _UPRIGHT.get(c, 0.5)) for c in text) * scale, "ord")
        elif name in _FONTS:
            content = layout.next_argument()
            atom = (_width(content, style) * _FONTS[name], "ord")
            if name in ("mathrm",):
                atom = (sum(_UPRIGHT.get(t, 0.5) for t in content if len(t) == 1) * scale, "ord")
        elif name in _ACCENTS:
            atom = (_width(layout.next_argument(), style), "ord")
        elif name in ("phantom", "hphantom"):
            atom = (_width(layout.next_argument(), style), None)
        elif name in ("vphantom", "label", "tag", "hspace"):
            layout.next_argument()
            continue
        elif name == "color":
            layout.next_argument()
            continue
        elif name in ("overset", "underset", "stackrel"):
            over, base = layout.next_argument(), layout.next_argument()
            atom = (max(_width(base, style), _width(over, min(style + 2, 3))), "rel" if name == "stackrel" else "ord")
        elif name in ("displaystyle", "textstyle", "scriptstyle", "scriptscriptstyle"):
            style = {"displaystyle": 0, "textstyle": 1, "scriptstyle": 2, "scriptscriptstyle": 3}[name]
            continue
        elif name in ("cdots", "ldots", "dots", "dotsb", "dotsc", "vdots", "ddots"):
            atom = (1.172 * scale, "inner")
        elif name == "begin":
            environment = "".join(layout.next_argument())
            if environment == "array":
                layout.next_argument()
            atom = (_environment_width(environment, layout.until_end(environment), style), "inner")
        elif name in _IGNORED:
            continue
        else:
            atom = (0.6 * scale, "ord")
        atoms.append(_with_scripts(layout, atom, style, limits))
    return atoms


def _with_scripts(layout: _Layout, atom, style: int, limits: bool):
    """An atom widened by the sub- and superscripts that follow it (set beside it, or above and below it)."""
    width, kind = atom
    scripts = []
    while layout.at < len(layout.tokens) and layout.tokens[layout.at] in ("^", "_"):
        layout.at += 1
        scripts.append(_width(layout.next_argument(), min(style + 2, 3) if style < 2 else 3))
    if not scripts:
        return atom
    script_width = max(scripts) + 0.05 * _SCALE[style]  # TeX's \scriptspace after a script
    return (max(width, script_width), kind) if limits else (width + script_width, kind)


def _environment_width(name: str, tokens: list[str], style: int) -> float:
    """An alignment's width: each column as wide as its widest cell, plus the environment's delimiters."""
    rows, row, cell, depth = [], [], [], 0
    for token in tokens:
        if token in ("{", "\\begin"):
            depth += 1
        elif token in ("}", "\\end"):
            depth -= 1
        if depth == 0 and token == "&":
            row.append(cell)
            cell = []
        elif depth == 0 and token == "\\\\":
            rows.append([*row, cell])
            row, cell = [], []
        else:
            cell.append(token)
    rows.append([*row, cell])
    inner = 0 if name in ("aligned", "align", "split", "gathered", "alignedat", "multline") else 1
    columns: list[float] = []
    for cells in rows:
        for index, content in enumerate(cells):
            # amsmath puts {} before every right-hand column of an alignment, so a relation there has its space
            prefix = ["{", "}"] if inner == 0 and index % 2 else []
            width = _width(prefix + content, style if inner == 0 else max(style, 1))
            columns += [0.0] * (index + 1 - len(columns))
            columns[index] = max(columns[index], width)
    separation = 0.0 if inner == 0 else 1.0 * (len(columns) - 1)
    fences = {"pmatrix": 0.78, "bmatrix": 0.56, "vmatrix": 0.56, "Bmatrix": 1.0, "cases": 1.0}.get(name, 0.0)
    return sum(columns) + separation + fences * _SCALE[style]


def _width(tokens: list[str], style: int) -> float:
    """The width of a token list set in a style: its atoms' widths plus TeX's spaces between them."""
    atoms = _atoms(tokens, style)
    total = sum(width for width, _ in atoms)
    previous = None
    kinds = [kind for _, kind in atoms if kind is not None]
    for index, kind in enumerate(kinds):
        # a binary sign with no operand before it, or before a relation, a closing or a punctuation, is ordinary
        if kind == "bin" and (
            previous in (None, "bin", "op", "rel", "open", "punct")
            or (index + 1 < len(kinds) and kinds[index + 1] in ("rel", "close", "punct"))
        ):
            kind = "ord"
        if previous is not None:
            space, only_large = _SPACING.get((previous, kind), (0.0, False))
            if style <= 1 or not only_large:
                total += space * _SCALE[style]
        previous = kind
    return total


def tex_width(source: str, style: str = "display") -> float:
    r"""The estimated width of a line of math, in em of the display's font, as MathJax sets it from TeX.

    A source with line breaks (``\\``, outside an environment) is as wide as its widest line; an ``aligned`` (or
    other alignment) environment as wide as its columns. Multiply by the font's size in pixels (about 19.4 px in
    the book's displays) for a width on screen.

    Parameters
    ----------
    source : str
        TeX math, without the ``$$`` delimiters.
    style : {"display", "text"}, default "display"
        The style the line is set in: a display equation, or inline math.

    Returns
    -------
    float
        Width in em.

    Examples
    --------
    >>> round(tex_width("a + b"), 3)  # 0.529 + 0.429 for the letters, 0.778 for the plus, two spaces of 4/18 em
    2.18
    >>> round(tex_width(r"\frac{d - 1}{2 d}"), 3)  # the wider of numerator and denominator, 0.12 em each side
    2.482
    >>> round(tex_width(r"x \\ a + b"), 3)  # two lines
    2.18
    """
    if not isinstance(source, str):
        raise TypeError(f"source must be a str of TeX math, got {type(source).__name__}: {source!r:.60}")
    if style not in ("display", "text"):
        raise ValueError(f"style must be 'display' or 'text', got {style!r}")
    level = 0 if style == "display" else 1
    tokens = _tokens(source)
    lines, line, depth = [], [], 0
    for token in tokens:
        if token == "\\begin":
            depth += 1
        elif token == "\\end":
            depth -= 1
        if token == "\\\\" and depth == 0:
            lines.append(line)
            line = []
        else:
            line.append(token)
    lines.append(line)
    return round(max(_environment_width("aligned", line, level) for line in lines), 6)


# what a line of a display may break before: a sign between two terms, or a relation
_BREAKS = {
    "+",
    "-",
    "\\pm",
    "\\mp",
    "=",
    "<",
    ">",
    *("\\" + name for name in _RELATIONS if name not in ("mid", "colon")),
}
_OPENING = {"{", "(", "[", "\\left", "\\begin", *("\\" + size + "l" for size in _BIG)}
_CLOSING = {"}", ")", "]", "\\right", "\\end", *("\\" + size + "r" for size in _BIG)}
_SOURCE_TOKEN = re.compile(r"\\[A-Za-z]+|\\.|\s+|.", re.S)


def tex_terms(source: str) -> list[str]:
    r"""A line of math cut before each sign and relation outside any group: where a display may break it.

    A ``+``, ``-``, ``\pm`` or a relation (``=``, ``\approx``, ``\le``, ...) starts a new term when it stands
    outside braces, parentheses, brackets, ``\left ... \right`` and ``\bigl ... \bigr`` pairs and environments, and
    follows an operand (a leading minus, or one after another sign, stays with its term). Joining the terms with
    spaces gives the source back, up to whitespace.

    Parameters
    ----------
    source : str
        TeX math, as ``sympy.latex`` writes it for instance.

    Returns
    -------
    list of str
        The terms, each after the first beginning with its sign; a source with no place to break is one term.

    Examples
    --------
    >>> tex_terms(r"- \frac{6 k \left(d - 3\right)}{d + 1} + 2 d - 1")
    ['- \\frac{6 k \\left(d - 3\\right)}{d + 1}', '+ 2 d', '- 1']
    >>> tex_terms(r"\left(a + b\right)^{2} \approx 1")
    ['\\left(a + b\\right)^{2}', '\\approx 1']
    """
    if not isinstance(source, str):
        raise TypeError(f"source must be a str of TeX math, got {type(source).__name__}: {source!r:.60}")
    terms, current, depth, operand = [], [], 0, False
    tokens = _SOURCE_TOKEN.findall(source)
    skip_delimiter = False
    for token in tokens:
        if token.isspace():
            current.append(token)
            continue
        if skip_delimiter:  # the delimiter of a \left, \right, \bigl, ...: neither opens nor closes a group
            skip_delimiter = False
            current.append(token)
            continue
        if depth == 0 and token in _BREAKS and operand:
            terms.append("".join(current).strip())
            current, operand = [], False
        if token in _OPENING:
            depth += 1
            skip_delimiter = token not in ("{", "(", "[", "\\begin")
        elif token in _CLOSING:
            depth -= 1
            skip_delimiter = token not in ("}", ")", "]", "\\end")
        current.append(token)
        if depth == 0:
            operand = token not in _BREAKS and token not in (",", ";", "\\,", "\\;", "\\quad", "\\qquad")
        elif token in _OPENING and depth == 1:
            operand = False
        if depth <= 0 and token in _CLOSING:
            operand = True
    terms.append("".join(current).strip())
    return [term for term in terms if term]
