"""Numbers written for the prose of a chapter: ``2.1×10⁻¹³``, not Python's ``2.1e-13``.

A chapter glues computed numbers into its text (``myst_nb.glue`` and ``{glue:text}``). The format spec of
``{glue:text}`` can only produce Python's e-notation for very small or very large numbers, which reads as
code. :func:`scientific` returns the number as a plain Unicode string in the notation of a printed text; glue
that string and paste it with ``{glue:text}`key``` (no format spec).
"""

from __future__ import annotations

import math
import numbers

import numpy as np

__all__ = ["scientific"]

_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")
_MINUS = "\N{MINUS SIGN}"


def scientific(value, digits: int = 2) -> str:
    """``value`` with ``digits`` significant digits in the notation of a printed text: ``"2.1×10⁻¹³"``.

    The mantissa is rounded to ``digits`` significant digits (as Python's ``format(value, ".{digits-1}e")``
    rounds it); exactly zero is written ``"0"``; a negative value starts with a Unicode minus sign.

    Parameters
    ----------
    value : real number
        Finite; numpy and sympy numbers are accepted (anything ``float()`` takes, except bool and str).
    digits : int, default 2
        Significant digits of the mantissa, from 1 to 17.

    Returns
    -------
    str

    Examples
    --------
    >>> scientific(2.0934e-13)
    '2.1×10⁻¹³'
    >>> scientific(-0.00456, 1)
    '−5×10⁻³'
    >>> scientific(123456.0, 3)
    '1.23×10⁵'
    >>> scientific(0.0)
    '0'
    """
    if isinstance(digits, bool) or not isinstance(digits, numbers.Integral):
        raise TypeError(f"digits must be an integer from 1 to 17, got {digits!r}")
    if not 1 <= digits <= 17:
        raise ValueError(f"digits must be an integer from 1 to 17, got {digits}")
    if isinstance(value, (bool, str, bytes, complex, np.complexfloating)):
        raise TypeError(f"value must be a real number, got {value!r}")
    try:
        number = float(value)
    except (TypeError, ValueError) as error:
        raise TypeError(f"value must be a real number, got {value!r}") from error
    if not math.isfinite(number):
        raise ValueError(f"value must be finite, got {number}")
    if number == 0:
        return "0"
    mantissa, exponent = f"{abs(number):.{int(digits) - 1}e}".split("e")
    sign = _MINUS if number < 0 else ""
    return f"{sign}{mantissa}×10{str(int(exponent)).translate(_SUPERSCRIPT)}"
