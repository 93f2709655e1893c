"""A chapter's closing summary as a small labelled table, every value written for a reader.

The last cell of a chapter prints the rounded numbers that nbval compares from run to run. Printed with
``print``, they read as Python: tuples ``(True, 19)``, dicts, ``5.05324e-05``, sympy's ``6*(d**2 - 2*d + 3)``.
:func:`summary` returns an object that shows as a two-column table instead: a ``text/markdown`` form, which the
book and JupyterLab render (a sympy value becomes LaTeX between dollars), and a ``text/plain`` form of labelled
lines in the same notation. Both forms are deterministic, so nbval still checks every value, in the reader's format.

Values are written as follows: ``True``/``False`` as yes/no; an integer as is (groups of three digits from 10⁴ on);
a real number with ``digits`` significant digits, in scientific notation (``5.05×10⁻⁵``) outside [10⁻³, 10⁵);
a sympy object as mathematics; a string as is; a sequence as its items joined by commas; a mapping as
``key: value`` pairs joined by semicolons. Negative numbers take a Unicode minus sign; infinities
are written ∞ and a NaN –.
"""

from __future__ import annotations

import math
import numbers
import re
import sys
from collections.abc import Mapping

import numpy as np

__all__ = ["Summary", "reader_label", "reader_text", "summary"]

_MINUS = "\N{MINUS SIGN}"
MAX_ITEMS = 1000  # a summary shows a few numbers; a longer sequence is a table's job
_GROUP = "\N{NARROW NO-BREAK SPACE}"
_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")
_POWER = re.compile(r"\*\*(\d+)")


_GREEK = {
    "alpha": "α", "beta": "β", "gamma": "γ", "Gamma": "Γ", "epsilon": "ε", "eps": "ε", "eta": "η", "iota": "ι",
    "kappa": "κ", "lambda": "λ", "mu": "μ", "nu": "ν", "xi": "ξ", "pi": "π", "Pi": "Π", "rho": "ρ", "sigma": "σ",
    "Sigma": "Σ", "tau": "τ", "phi": "φ", "psi": "ψ", "omega": "ω", "chi": "χ", "inf": "∞", "ell": "ℓ",
}  # fmt: skip
_GREEK_WORD = re.compile(r"(?<![A-Za-z])(" + "|".join(sorted(_GREEK, key=len, reverse=True)) + r")(?![A-Za-z])")
_SUBSCRIPT = dict(zip("0123456789aehijklmnoprstuvx", "₀₁₂₃₄₅₆₇₈₉ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓ", strict=True))
_SUPERSCRIPT_RUN = re.compile(r"\^(\(-?\d+\)|-?\d+(?![.\d]))")
_SYMBOLS = (("<=", "≤"), (">=", "≥"), ("!=", "≠"), ("+-", "±"), ("->", "→"), ("sqrt(", "√("), (" * ", " · "))


def reader_label(text: str) -> str:
    """An ASCII label of a table (``||Sigma^-1||_op <= ||Sigma^-1||_F``) in a reader's notation (``‖Σ⁻¹‖ₒₚ ≤ ‖Σ⁻¹‖_F``).

    Greek names standing alone become letters (``nu`` → ν, ``Sigma_hat`` → Σ̂, ``inf`` → ∞), ``||x||`` becomes ‖x‖,
    integer powers and one- or two-letter or digit subscripts are raised or lowered where Unicode has the
    characters, ``<=``, ``>=``, ``+-``, ``->``, ``sqrt(`` become ≤, ≥, ±, →, √(, and a starred name ``M*(n)`` is
    M⋆(n). A table shows the label through ``Styler.format_index(reader_label, axis=1)`` or
    ``DataFrame.rename(columns=reader_label)``, so that the code keeps naming its columns in ASCII.

    Parameters
    ----------
    text : str
        The label as the code writes it.

    Returns
    -------
    str

    Examples
    --------
    >>> reader_label("||Sigma^-1||_op <= ||Sigma^-1||_F")
    '‖Σ⁻¹‖ₒₚ ≤ ‖Σ⁻¹‖_F'
    >>> reader_label("paper 70 d^1.5 e^(5/2nu^2)")
    'paper 70 d^1.5 e^(5/2ν²)'
    >>> reader_label("max |Sigma_hat - Sigma|, alpha_0, sqrt(n) * max dev, nu = inf")
    'max |Σ̂ − Σ|, α₀, √(n) · max dev, ν = ∞'
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    text = re.sub(r"\|\|([^|]+)\|\|", r"‖\1‖", text)
    text = text.replace("chi2", "χ²")
    text = _GREEK_WORD.sub(lambda match: _GREEK[match.group(1)], text)
    text = text.replace("_hat", "\N{COMBINING CIRCUMFLEX ACCENT}")
    for ascii_, symbol in _SYMBOLS:
        text = text.replace(ascii_, symbol)
    text = re.sub(r"(?<=[^\W\d_])\*(?=\()", "⋆", text)  # a starred name, M*(n): not a product
    text = _SUPERSCRIPT_RUN.sub(lambda match: match.group(1).strip("()").translate(_SUPERSCRIPT), text)
    text = re.sub(r"_(\d+|[a-z]{1,2})(?![A-Za-z0-9])", _lower, text)
    return text.replace(" - ", f" {_MINUS} ")


def _lower(match) -> str:
    """A subscript lowered where Unicode has every character of it; left as ``_x`` otherwise."""
    chars = match.group(1)
    return "".join(_SUBSCRIPT[c] for c in chars) if all(c in _SUBSCRIPT for c in chars) else match.group(0)


def _check_digits(digits):
    if isinstance(digits, bool) or not isinstance(digits, numbers.Integral):
        raise TypeError(f"digits must be an integer from 1 to 17, got {digits!r}")
    if not 1 <= digits <= 17:
        raise ValueError(f"digits must be an integer from 1 to 17, got {digits}")


def _real(number: float, digits: int) -> str:
    # imported here: a module-level import of a sibling would run limetheory.book's __init__, which imports this
    from .prose import scientific

    if not math.isfinite(number):
        return {math.inf: "∞", -math.inf: f"{_MINUS}∞"}.get(number, "–")  # NaN: no value, as a table writes it
    if number == 0:
        return "0"
    rounded = float(f"{number:.{digits - 1}e}")
    if 1e-3 <= abs(rounded) < 1e5:
        text = f"{rounded:.{digits}g}"
        if "e" in text:  # an integer of more digits than `digits`, e.g. 12000 at 2 digits
            text = f"{rounded:.0f}"
        return text.replace("-", _MINUS)
    # the fewest digits that give the same rounded value: 1×10⁵, not 1.00000×10⁵
    shortest = next(k for k in range(1, digits + 1) if float(f"{number:.{k - 1}e}") == rounded)
    return scientific(number, shortest)


def _latex_math(expr) -> str:
    """A sympy object as inline LaTeX between dollars."""
    import sympy as sp

    return f"${sp.latex(expr)}$"


def _sympy_text(expr) -> str:
    """sympy's one-line text in the notation of a printed formula: ``6·(d² − 2·d + 3)/((d − 1)·(d + 1))``."""
    import sympy as sp  # here, as in _latex_math: only a sympy value comes here, so sympy is loaded already

    text = sp.sstr(expr)
    text = _POWER.sub(lambda match: match.group(1).translate(_SUPERSCRIPT), text)
    text = text.replace("**", "^").replace("*", "·").replace("sqrt(", "√(")
    text = re.sub(r"(^|[(\s])-", lambda match: match.group(1) + _MINUS, text).replace(" - ", f" {_MINUS} ")
    return text


def reader_text(value, digits: int = 6, math_as=None) -> str:
    """``value`` written for a reader (see the module's notes); ``math_as`` formats sympy objects.

    Parameters
    ----------
    value : bool, number, sympy object, str, sequence or mapping of these
    digits : int, default 6
        Significant digits of real numbers, from 1 to 17.
    math_as : callable or None
        Writes a sympy object; by default its one-line text with superscripts and middle dots.

    Returns
    -------
    str

    Examples
    --------
    >>> reader_text((True, 19))
    'yes, 19'
    >>> reader_text(5.05324e-05)
    '5.05324×10⁻⁵'
    >>> reader_text({"nu = 0.05": 0.0139, "nu = 1": -0.000394})
    'nu = 0.05: 0.0139; nu = 1: −3.94×10⁻⁴'
    >>> import sympy as sp
    >>> d = sp.Symbol("d")
    >>> reader_text(6 * (d**2 - 2 * d + 3) / ((d - 1) * (d + 1)))
    '(6·d² − 12·d + 18)/((d − 1)·(d + 1))'
    """
    _check_digits(digits)
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    sp = sys.modules.get("sympy")  # not imported: no value is a sympy object (a chapter without sympy skips it)
    if sp is not None and isinstance(value, (sp.Basic, sp.MatrixBase)):
        if isinstance(value, sp.Integer) or (isinstance(value, sp.Float) and not math_as):
            return reader_text(int(value) if isinstance(value, sp.Integer) else float(value), digits)
        return math_as(value) if math_as else _sympy_text(value)
    if isinstance(value, numbers.Integral):
        number = int(value)
        text = f"{abs(number):,}".replace(",", _GROUP) if abs(number) >= 10_000 else str(abs(number))
        return (_MINUS if number < 0 else "") + text
    if isinstance(value, numbers.Real):
        return _real(float(value), digits)
    if isinstance(value, str):
        return value
    size = (
        value.size if isinstance(value, np.ndarray) else len(value) if isinstance(value, (Mapping, list, tuple)) else 0
    )
    if size > MAX_ITEMS:
        raise ValueError(f"value holds more than {MAX_ITEMS} items: show it as a table, not in a summary")
    if isinstance(value, np.ndarray):
        return reader_text(value.tolist(), digits, math_as)
    if isinstance(value, Mapping):
        return "; ".join(
            f"{reader_text(key, digits, math_as)}: {reader_text(item, digits, math_as)}" for key, item in value.items()
        )
    if isinstance(value, (list, tuple)):
        return ", ".join(reader_text(item, digits, math_as) for item in value)
    raise TypeError(
        "value must be a bool, a real number, a sympy object, a str, or a sequence or mapping of these; "
        f"got {type(value).__name__}: {value!r:.60}"
    )


def _cell(text: str) -> str:
    return text.replace("|", r"\|")  # a bar would end the table cell


class Summary:
    r"""A chapter's summary: rows of ``(label, value)``, shown as a two-column table.

    Parameters
    ----------
    rows : sequence of tuple
        ``(label, value)``: ``label`` a str (plain text or MyST markdown, e.g. with ``$...$`` math; shown through
        :func:`reader_label`, so ``E_j`` reads Eⱼ), ``value`` anything :func:`reader_text` writes. Checked here,
        so that showing the object cannot fail later.
    digits : int, default 6
        Significant digits of real values.

    Examples
    --------
    >>> import sympy as sp
    >>> d = sp.Symbol("d")
    >>> table = Summary([("review, d", (51, 37)), ("limit of $c_d / d$", (d - 1) / (12 * d))])
    >>> print(table._repr_markdown_())
    | Quantity | Value |
    |:--|:--|
    | review, d | 51, 37 |
    | limit of $c_d / d$ | $\frac{d - 1}{12 d}$ |
    >>> table
    review, d: 51, 37
    limit of $c_d / d$: (d − 1)/(12·d)
    """

    def __init__(self, rows, digits: int = 6):
        if isinstance(rows, (str, bytes)) or not hasattr(rows, "__iter__"):
            raise TypeError(f"rows must be a sequence of (label, value) tuples, got {rows!r:.60}")
        _check_digits(digits)
        parsed = []
        for row in rows:
            if not isinstance(row, tuple) or len(row) != 2:
                raise ValueError(f"each row must be a tuple (label, value), got {row!r:.60}")
            label, value = row
            if not isinstance(label, str) or not label:
                raise TypeError(f"a row's label must be a non-empty str, got {label!r:.60}")
            reader_text(value, digits)  # refuses a value it cannot write, now rather than when shown
            parsed.append((label, value))
        if not parsed:
            raise ValueError("rows must hold at least one (label, value) tuple")
        self.rows, self.digits = parsed, digits

    def _repr_markdown_(self) -> str:
        lines = ["| Quantity | Value |", "|:--|:--|"]
        for label, value in self.rows:
            text = reader_text(value, self.digits, math_as=_latex_math)
            lines.append(f"| {_cell(reader_label(label))} | {_cell(text)} |")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return "\n".join(f"{reader_label(label)}: {reader_text(value, self.digits)}" for label, value in self.rows)


def summary(*rows, digits: int = 6) -> Summary:
    """A chapter's closing summary: ``summary((label, value), ...)``, shown as a table of labelled values.

    Parameters
    ----------
    *rows : tuple
        ``(label, value)``, as for :class:`Summary`.
    digits : int, default 6
        Significant digits of real values.

    Returns
    -------
    Summary
        Make it the last expression of the cell (nbval compares its text and markdown forms).

    Examples
    --------
    >>> summary(("d", 29), ("within 1e-12", True), ("weight share", 5.05324e-05))
    d: 29
    within 1e-12: yes
    weight share: 5.05324×10⁻⁵
    """
    return Summary(rows, digits=digits)
