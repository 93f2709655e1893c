"""Symbolic results shown as rendered mathematics in a notebook, and as plain text elsewhere.

A chapter derives a formula with sympy and shows it to the reader. Printing the sympy object gives
Python text (``6*(d**2 - 2*d + 3)/...``); wrapping it in :class:`Equations` gives an object whose
``_repr_latex_`` is a display-math block that MyST-NB and Jupyter render with MathJax, while its
``repr`` stays the readable one-line text that nbval compares.

A display must fit a phone's column (414 px wide, 395 px for the math): :class:`Equations` estimates each line's
rendered width (``limetheory.book.texwidth.tex_width``) and breaks what is too wide, at the signs between
terms, inside the parentheses of a product, and by setting a long left-hand side on a line of its own.
"""

from __future__ import annotations

import numbers
import sys

import numpy as np

__all__ = ["Equations", "show_equations", "significant"]

#: the widest line of a display, in em of its font, that a 414 px phone shows without scrolling: the column is
#: 395 px, MathJax sets the book's displays at 18.2 to 19.6 px per em of :func:`tex_width`'s estimate (measured on
#: twelve displays in Chromium), so 19 em keeps a line under 375 px
PHONE_WIDTH_EM = 19.0


def _check_side(value, name):
    """An equation side: a str (LaTeX), a sympy object or a number (not a bool); returned unchanged."""
    sp = sys.modules.get("sympy")  # not imported: no value is a sympy object (a chapter without sympy skips it)
    sympy_types = (sp.Basic, sp.MatrixBase) if sp is not None else ()
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (str, *sympy_types, numbers.Number)):
        raise TypeError(
            f"an equation side must be a str (LaTeX), a sympy object or a number; the {name} is "
            f"{type(value).__name__}: {value!r:.60}"
        )
    return value


def _latex(value) -> str:
    """LaTeX for a sympy expression or a number; a str is taken as LaTeX already."""
    if isinstance(value, str):
        return value
    import sympy as sp  # here: importing sympy costs a chapter that uses none about half a CPU-second

    if isinstance(value, np.generic):
        value = value.item()  # a numpy scalar as the Python number sympy knows
    return sp.latex(value)


def _text(value) -> str:
    return value if isinstance(value, str) else str(value)


def _opened_product(value) -> list[str] | None:
    r"""A product with a sum among its factors, as pieces of a line; None for anything else (a fraction too).

    The pieces: the other factors and ``\bigl(`` before the sum's first term, its other terms, ``\bigr)`` after
    its last.
    """
    # imported here: a module-level import of a sibling would run limetheory.book's __init__,
    # which imports this module
    from .texwidth import tex_terms, tex_width

    sp = sys.modules.get("sympy")  # not imported: value is no sympy product
    if sp is None or not isinstance(value, sp.Mul) or sp.fraction(value)[1] != 1:
        return None
    factors = list(value.args)
    sums = [index for index, factor in enumerate(factors) if isinstance(factor, sp.Add)]
    if not sums:
        return None
    widest = max(sums, key=lambda index: tex_width(sp.latex(factors[index])))
    terms = tex_terms(sp.latex(factors[widest]))
    rest = sp.Mul(*(factors[:widest] + factors[widest + 1 :]), evaluate=False)
    prefix = {1: "", -1: "-"}.get(rest, sp.latex(rest))
    size = r"\Big" if any(r"\frac" in term for term in terms) else r"\big"
    if len(terms) == 1:
        return [rf"{prefix} {size}l({terms[0]}{size}r)".strip()]
    return [rf"{prefix} {size}l({terms[0]}".strip(), *terms[1:-1], rf"{terms[-1]}{size}r)"]


def _block_width(lines: list[str]) -> float:
    """The estimated width of lines set as one ``aligned`` block (its columns as wide as their widest cells)."""
    from .texwidth import tex_width

    return tex_width(r"\begin{aligned}" + r" \\ ".join(lines) + r"\end{aligned}")


def _fill(pieces: list[str], first: str, later: str, width: float) -> list[str]:
    """Pieces joined into lines, as many on each as fit ``width``; a piece wider than a line gets a line of its own.

    ``first`` starts the first line, ``later`` the others; each line's width is estimated with its start.
    """
    from .texwidth import tex_width

    lines: list[list[str]] = [[]]
    for piece in pieces:
        start = first if len(lines) == 1 else later
        if lines[-1] and tex_width(" ".join([start, *lines[-1], piece])) > width:
            lines.append([])
        lines[-1].append(piece)
    return [" ".join([first if index == 0 else later, *line]) for index, line in enumerate(lines)]


class Equations:
    r"""A list of displayed relations ``lhs  op  rhs``, aligned at the relation sign, broken to fit a phone.

    Each row is one line ``lhs &= rhs`` of an ``aligned`` block when the block fits ``width``. A row too wide is
    broken where a reader expects it: a sum after as many terms as fit (the next line starts with the sign, indented
    by a quad), a product inside the parentheses of its widest sum. When a left-hand side is too wide for the rows
    to stay aligned at their relations, each too-wide row sets its left-hand side on a line of its own and its
    relation and right-hand side, broken as above, on the next lines. Only sympy objects and the top-level sums of
    LaTeX strings are broken; a line with no place to break stays as wide as it is.

    Parameters
    ----------
    rows : sequence of tuple
        Each row is ``(lhs, rhs)`` or ``(lhs, op, rhs)``. ``lhs`` and ``rhs`` are sympy objects,
        numbers (Python or numpy, not bool), or strings holding LaTeX; ``op`` is a LaTeX relation (default ``"="``).
        Checked here, so that showing the object cannot fail later. An empty ``lhs`` continues the row above.
    width : float, default PHONE_WIDTH_EM
        The widest line allowed, in em of the display's font (as ``limetheory.book.texwidth.tex_width``
        estimates it); the default fits a 414 px phone.

    Examples
    --------
    >>> import sympy as sp
    >>> d = sp.Symbol("d", positive=True)
    >>> eq = Equations([(r"\sigma_2 / c_d", 6 / (d + 1))])
    >>> print(eq._repr_latex_())
    $$\begin{aligned}\sigma_2 / c_d &= \frac{6}{d + 1}\end{aligned}$$
    >>> eq
    \sigma_2 / c_d = 6/(d + 1)
    >>> x = sp.symbols("x_1:9")
    >>> for line in Equations([("s", sum(x))], width=9).lines():
    ...     print(line)
    s &= x_{1} + x_{2} + x_{3}
    &\quad {} + x_{4} + x_{5} + x_{6}
    &\quad {} + x_{7} + x_{8}
    """

    def __init__(self, rows, width: float = PHONE_WIDTH_EM):
        if isinstance(rows, (str, bytes)) or not hasattr(rows, "__iter__"):
            raise TypeError(f"rows must be a sequence of (lhs, rhs) or (lhs, op, rhs) tuples, got {rows!r}")
        if isinstance(width, bool) or not isinstance(width, numbers.Real):
            raise TypeError(f"width must be a real number of em, got {width!r}")
        if not 4 <= width < float("inf"):
            raise ValueError(f"width must be at least 4 em (a few symbols) and finite, got {width}")
        parsed = []
        for row in rows:
            if not isinstance(row, tuple) or len(row) not in (2, 3):
                raise ValueError(f"each row must be a tuple (lhs, rhs) or (lhs, op, rhs), got {row!r}")
            lhs, op, rhs = (row[0], "=", row[1]) if len(row) == 2 else row
            if not isinstance(op, str):
                raise TypeError(f"the relation op must be a str of LaTeX, got {op!r}")
            parsed.append((_check_side(lhs, "lhs"), op, _check_side(rhs, "rhs")))
        if not parsed:
            raise ValueError("rows must hold at least one (lhs, rhs) tuple")
        self.rows = parsed
        self.width = float(width)

    def _pieces(self, rhs) -> list[str]:
        """The right-hand side cut where a line may break: its terms, or a product opened at its widest sum."""
        from .texwidth import tex_terms, tex_width

        terms = tex_terms(_latex(rhs))
        if len(terms) == 1 and tex_width(terms[0]) > self.width / 2:
            return _opened_product(rhs) or terms
        return terms

    def _aligned(self) -> list[str]:
        """Lines aligned at the relations, with the right-hand sides broken to fit beside the widest lhs."""
        from .texwidth import tex_width

        indent = max(tex_width(_latex(lhs)) for lhs, _, _ in self.rows)
        lines = []
        for lhs, op, rhs in self.rows:
            whole = f"{_latex(lhs)} &{op} {_latex(rhs)}"
            if indent + tex_width("{}" + f"{op} {_latex(rhs)}") <= self.width:
                lines.append(whole)
                continue
            broken = _fill(self._pieces(rhs), f"{{}}{op}", r"\quad {}", self.width - indent)
            lines.append(f"{_latex(lhs)} &{broken[0][2:]}")
            lines += [f"&{line}" for line in broken[1:]]
        return lines

    def _stacked(self) -> list[str]:
        """Lines set flush left: a row that fits on one line, or its lhs above its relation and broken rhs."""
        from .texwidth import tex_width

        lines = []
        for lhs, op, rhs in self.rows:
            left = _latex(lhs)
            whole = f"{{{left}}} {op} {_latex(rhs)}" if left else rf"\quad {{}}{op} {_latex(rhs)}"
            if tex_width(whole) <= self.width:
                lines.append("&" + whole)
                continue
            if left:
                lines.append(f"&{{{left}}}")
            broken = _fill(self._pieces(rhs), rf"\quad {{}}{op}", r"\qquad {}", self.width)
            lines += [f"&{line}" for line in broken]
        return lines

    def lines(self) -> list[str]:
        r"""The display's lines, as they stand between ``\\`` in its ``aligned`` block."""
        aligned = self._aligned()
        if _block_width(aligned) <= self.width:
            return aligned
        return self._stacked()

    def _repr_latex_(self) -> str:
        body = r" \\ ".join(self.lines())
        return rf"$$\begin{{aligned}}{body}\end{{aligned}}$$"

    def __repr__(self) -> str:
        return "\n".join(f"{_text(lhs)} {op} {_text(rhs)}" for lhs, op, rhs in self.rows)


def show_equations(*rows, width: float = PHONE_WIDTH_EM) -> Equations:
    r"""Display relations as rendered mathematics: ``show_equations((lhs, rhs), ...)``.

    Parameters
    ----------
    *rows : tuple
        ``(lhs, rhs)`` or ``(lhs, op, rhs)``, as for :class:`Equations`.
    width : float, default PHONE_WIDTH_EM
        The widest line, in em; longer rows are broken (see :class:`Equations`).

    Returns
    -------
    Equations
        Render it by making it the last expression of a cell (or with ``IPython.display.display``).

    Examples
    --------
    >>> import sympy as sp
    >>> d = sp.Symbol("d", positive=True)
    >>> a1, a2 = r"\alpha_1^{\infty}", r"\alpha_2^{\infty}"
    >>> show_equations((a1, (d - 1) / (2 * d)), (a2, r"\le", sp.Rational(1, 3)))
    \alpha_1^{\infty} = (d - 1)/(2*d)
    \alpha_2^{\infty} \le 1/3
    """
    return Equations(rows, width=width)


def significant(value, digits: int = 6) -> float:
    """``value`` rounded to ``digits`` significant digits, as a plain Python float (for printed summaries).

    Printed summaries that nbval compares must not depend on the last bits of a computation; rounding to a
    few significant digits (and returning a plain float, not ``np.float64``, whose repr numpy 2 decorates)
    keeps them stable across CPUs.

    Parameters
    ----------
    value : real number
        Anything ``float()`` accepts except bool and str (numpy and sympy numbers included).
    digits : int, default 6
        Number of significant digits, from 1 to 17.

    Returns
    -------
    float

    Examples
    --------
    >>> significant(2 / 3)
    0.666667
    >>> significant(12345.678, 3)
    12300.0
    """
    if isinstance(digits, bool) or not isinstance(digits, numbers.Integral):
        raise TypeError(f"digits must be an integer from 1 to 17, got {digits!r}")
    if not 1 <= digits <= 17:
        raise ValueError(f"digits must be an integer from 1 to 17, got {digits}")
    if isinstance(value, (bool, str, bytes)) or (
        isinstance(value, numbers.Complex) and not isinstance(value, numbers.Real)
    ):  # float() of a numpy complex drops the imaginary part with only a warning
        raise TypeError(f"value must be a real number, got {value!r}")
    try:
        number = float(value)
    except (TypeError, ValueError) as error:
        raise TypeError(f"value must be a real number, got {value!r}") from error
    return float(f"{number:.{int(digits)}g}")
