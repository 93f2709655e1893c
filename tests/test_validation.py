"""The argument checks of limetheory/_validation.py, one path at a time."""

from __future__ import annotations

import numpy as np
import pytest

from limetheory._validation import check_int, check_nu, check_positive_finite, check_text


class TestCheckInt:
    @pytest.mark.parametrize("value", [0, 7, -3, np.int64(5), np.int8(2), np.uint16(9)])
    def test_accepts_integers_and_returns_python_int(self, value):
        out = check_int(value, "n")
        assert out == int(value)
        assert type(out) is int

    @pytest.mark.parametrize("value", [True, False, np.bool_(True), 2.0, np.float64(3.0), "3", None, [1], 1 + 0j])
    def test_rejects_non_integers(self, value):
        with pytest.raises(TypeError, match="^n must be an integer"):
            check_int(value, "n")

    def test_minimum(self):
        assert check_int(2, "d", minimum=2) == 2
        with pytest.raises(ValueError, match=r"^d must be >= 2, got 1$"):
            check_int(1, "d", minimum=2)

    def test_maximum(self):
        assert check_int(22, "d", maximum=22) == 22
        with pytest.raises(ValueError, match=r"^d must be <= 22, got 23$"):
            check_int(23, "d", maximum=22)

    def test_the_name_is_used_in_the_message(self):
        with pytest.raises(ValueError, match="^num_samples "):
            check_int(1, "num_samples", minimum=2)


class TestCheckNu:
    @pytest.mark.parametrize("value", [1, 0.25, np.float32(0.5), np.float64(3.0), 1e-300, np.inf, float("inf")])
    def test_accepts_positive_reals_and_inf(self, value):
        out = check_nu(value)
        assert out == float(value)
        assert type(out) is float

    @pytest.mark.parametrize("value", [0, 0.0, -1, -0.25, -np.inf, float("nan"), np.nan])
    def test_rejects_non_positive_and_nan(self, value):
        with pytest.raises(ValueError, match="^nu must be > 0"):
            check_nu(value)

    @pytest.mark.parametrize("value", [True, np.bool_(False), "0.25", None, [0.25], 1j])
    def test_rejects_non_reals(self, value):
        with pytest.raises(TypeError, match="^nu must be a positive real number"):
            check_nu(value)

    def test_custom_name(self):
        with pytest.raises(ValueError, match="^bandwidth must be > 0"):
            check_nu(-1.0, "bandwidth")


class TestCheckPositiveFinite:
    @pytest.mark.parametrize("value", [25, 0.5, np.float64(1e-8), np.int32(3)])
    def test_accepts(self, value):
        assert check_positive_finite(value, "kernel_width") == float(value)

    @pytest.mark.parametrize("value", [0, -1.0, np.inf, -np.inf, np.nan])
    def test_rejects_non_positive_or_non_finite(self, value):
        with pytest.raises(ValueError, match="^kernel_width must be a finite number > 0"):
            check_positive_finite(value, "kernel_width")

    @pytest.mark.parametrize("value", [True, "25", None, 1j])
    def test_rejects_non_reals(self, value):
        with pytest.raises(TypeError, match="^kernel_width must be a positive real number"):
            check_positive_finite(value, "kernel_width")


class TestCheckText:
    @pytest.mark.parametrize("value", ["a", "  padded  ", "!!!", "Food is great."])
    def test_accepts_non_blank_strings_unchanged(self, value):
        assert check_text(value) is value

    @pytest.mark.parametrize("value", ["", " ", "\t\n  \r"])
    def test_rejects_empty_or_whitespace(self, value):
        with pytest.raises(ValueError, match="^text must be a non-empty document"):
            check_text(value)

    @pytest.mark.parametrize("value", [None, b"bytes", 3, ["a list"]])
    def test_rejects_non_strings(self, value):
        with pytest.raises(TypeError, match="^text must be a str"):
            check_text(value)

    def test_custom_name(self):
        with pytest.raises(ValueError, match="^document must be"):
            check_text("", "document")
