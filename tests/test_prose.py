"""scientific(): numbers for the prose, checked against the decimal value they denote."""

from __future__ import annotations

from decimal import Decimal

import numpy as np
import pytest
import sympy as sp

from limetheory.book import scientific

SUPERSCRIPT_DIGITS = dict(zip("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789", strict=True))


def parse(text):
    """The number a reader sees in "−2.1×10⁻¹³", read back independently of the formatter."""
    sign = -1 if text.startswith("\N{MINUS SIGN}") else 1
    mantissa, power = text.lstrip("\N{MINUS SIGN}").split("×10")
    exponent = int("".join(SUPERSCRIPT_DIGITS[c] for c in power))
    return sign * Decimal(mantissa).scaleb(exponent)


@pytest.mark.parametrize(
    "value", [2.0934e-13, -0.00456, 123456.0, 1.0, 9.999e7, np.float64(3.3e-300), sp.Rational(1, 3)]
)
@pytest.mark.parametrize("digits", [1, 2, 4])
def test_the_text_denotes_the_value_to_the_digits_asked(value, digits):
    text = scientific(value, digits)
    read = parse(text)
    # rounding to `digits` significant digits moves the value by at most half a unit in the last digit
    assert (
        abs(float(read) - float(value)) <= 0.5 * 10.0 ** (np.floor(np.log10(abs(float(value)))) - digits + 1) * 1.000001
    )
    mantissa = text.lstrip("\N{MINUS SIGN}").split("×")[0]
    assert len(mantissa.replace(".", "")) == digits
    assert "e" not in text and "-" not in text


def test_zero_and_sign():
    assert scientific(0.0) == "0"
    assert scientific(-1e-3, 1) == "\N{MINUS SIGN}1×10⁻³"
    assert scientific(1e10, 1) == "1×10¹⁰"


@pytest.mark.parametrize(
    ("value", "digits", "error", "match"),
    [
        (np.inf, 2, ValueError, "finite"),
        (np.nan, 2, ValueError, "finite"),
        ("1e-3", 2, TypeError, "real number"),
        (True, 2, TypeError, "real number"),
        (1.0, 0, ValueError, "from 1 to 17"),
        (1.0, 2.0, TypeError, "integer"),
    ],
)
def test_invalid_arguments_are_refused(value, digits, error, match):
    with pytest.raises(error, match=match):
        scientific(value, digits)
