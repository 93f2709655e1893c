"""Symbolic results shown as rendered mathematics in a notebook, and as plain text elsewhere.

A chapter derives a formula with sympy and shows it to the reader. Printing the sympy object gives
Python text (``6*(d**2 - 2*d + 3)/...``); wrapping it in :class:`Equations` gives an object whose
``_repr_latex_`` is a display-math block that MyST-NB and Jupyter render with MathJax, while its
``repr`` stays the readable one-line text that nbval compares.
"""

from __future__ import annotations

import numbers

import numpy as np
import sympy as sp

__all__ = ["Equations", "show_equations", "significant"]


def _check_side(value, name):
    """An equation side: a str (LaTeX), a sympy object or a number (not a bool); returned unchanged."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (str, sp.Basic, sp.MatrixBase, numbers.Number)):
        raise TypeError(
            f"an equation side must be a str (LaTeX), a sympy object or a number; the {name} is "
            f"{type(value).__name__}: {value!r:.60}"
        )
    return value


def _latex(value) -> str:
    """LaTeX for a sympy expression or a number; a str is taken as LaTeX already."""
    if isinstance(value, str):
        return value
    if isinstance(value, np.generic):
        value = value.item()  # a numpy scalar as the Python number sympy knows
    return sp.latex(value)


def _text(value) -> str:
    return value if isinstance(value, str) else str(value)


class Equations:
    r"""A list of displayed relations ``lhs  op  rhs``, aligned at the relation sign.

    Parameters
    ----------
    rows : sequence of tuple
        Each row is ``(lhs, rhs)`` or ``(lhs, op, rhs)``. ``lhs`` and ``rhs`` are sympy objects,
        numbers (Python or numpy, not bool), or strings holding LaTeX; ``op`` is a LaTeX relation (default ``"="``).
        Checked here, so that showing the object cannot fail later.

    Examples
    --------
    >>> import sympy as sp
    >>> d = sp.Symbol("d", positive=True)
    >>> eq = Equations([(r"\sigma_2 / c_d", 6 / (d + 1))])
    >>> print(eq._repr_latex_())
    $$\begin{aligned}\sigma_2 / c_d &= \frac{6}{d + 1}\end{aligned}$$
    >>> eq
    \sigma_2 / c_d = 6/(d + 1)
    """

    def __init__(self, rows):
        if isinstance(rows, (str, bytes)) or not hasattr(rows, "__iter__"):
            raise TypeError(f"rows must be a sequence of (lhs, rhs) or (lhs, op, rhs) tuples, got {rows!r}")
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

    def _repr_latex_(self) -> str:
        body = r" \\ ".join(f"{_latex(lhs)} &{op} {_latex(rhs)}" for lhs, op, rhs in self.rows)
        return rf"$$\begin{{aligned}}{body}\end{{aligned}}$$"

    def __repr__(self) -> str:
        return "\n".join(f"{_text(lhs)} {op} {_text(rhs)}" for lhs, op, rhs in self.rows)


def show_equations(*rows) -> Equations:
    r"""Display relations as rendered mathematics: ``show_equations((lhs, rhs), ...)``.

    Parameters
    ----------
    *rows : tuple
        ``(lhs, rhs)`` or ``(lhs, op, rhs)``, as for :class:`Equations`.

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
    return Equations(rows)


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
