"""The argument checks of limetheory/_validation.py, one path at a time."""

from __future__ import annotations

import numpy as np
import pytest

from limetheory._validation import (
    WORD_TOKEN_PATTERNS,
    as_float_array,
    check_bool,
    check_d_invertible,
    check_int,
    check_nu,
    check_positive_finite,
    check_real,
    check_text,
    check_vectorizer,
)


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


class TestCheckDInvertible:
    @pytest.mark.parametrize("value", [2, 3, np.int32(10), 10_000])
    def test_accepts(self, value):
        assert check_d_invertible(value) == int(value)

    @pytest.mark.parametrize("value", [1, 0, -4])
    def test_refuses_d_below_two_and_says_why(self, value):
        with pytest.raises(ValueError, match=rf"^d must be >= 2, got {value}: .*alpha_1 = 0 and Sigma is singular"):
            check_d_invertible(value)

    @pytest.mark.parametrize("value", [2.0, "2", None, True])
    def test_refuses_non_integers(self, value):
        with pytest.raises(TypeError, match="^words must be an integer"):
            check_d_invertible(value, "words")


class TestCheckBool:
    @pytest.mark.parametrize("value", [True, False, np.bool_(True)])
    def test_accepts(self, value):
        assert check_bool(value, "log") is bool(value)

    @pytest.mark.parametrize("value", [0, 1, "True", None, 1.0])
    def test_refuses(self, value):
        with pytest.raises(TypeError, match="^log must be True or False"):
            check_bool(value, "log")


class TestCheckReal:
    def test_accepts_and_converts(self):
        assert check_real(np.float32(1.5), "lam") == 1.5
        assert check_real(-2, "lam") == -2.0
        assert check_real(np.inf, "x", allow_inf=True) == np.inf

    @pytest.mark.parametrize("value", [np.nan, np.inf, -np.inf])
    def test_refuses_nan_and_inf(self, value):
        with pytest.raises(ValueError, match="^lam must be a finite real number"):
            check_real(value, "lam")

    @pytest.mark.parametrize("value", [True, "1", None, 1j, [1.0]])
    def test_refuses_non_reals(self, value):
        with pytest.raises(TypeError, match="^lam must be a real number"):
            check_real(value, "lam")


class TestAsFloatArray:
    def test_converts_numbers_lists_and_booleans(self):
        np.testing.assert_array_equal(as_float_array([1, 2], "x"), [1.0, 2.0])
        np.testing.assert_array_equal(as_float_array(np.array([True, False]), "x"), [1.0, 0.0])
        assert as_float_array(3, "x").shape == ()
        assert as_float_array([[1.0]], "x", ndim=2).shape == (1, 1)

    @pytest.mark.parametrize("value", ["abc", b"abc", ["a", "b"], [None], [1, None], {"a": 1}])
    def test_refuses_non_numeric(self, value):
        with pytest.raises(TypeError, match="^x must be "):
            as_float_array(value, "x")

    def test_refuses_complex(self):
        with pytest.raises(TypeError, match="^x must be real"):
            as_float_array([1 + 2j], "x")

    def test_refuses_ragged(self):
        with pytest.raises(ValueError, match="^x must be a rectangular array"):
            as_float_array([[1.0], [1.0, 2.0]], "x")

    def test_dimension_and_finiteness(self):
        with pytest.raises(ValueError, match=r"^x must be a 2-D array, got shape \(3,\)"):
            as_float_array([1, 2, 3], "x", ndim=2)
        with pytest.raises(ValueError, match="^x must be finite"):
            as_float_array([1.0, np.nan], "x")
        assert np.isnan(as_float_array([np.nan], "x", allow_nonfinite=True)[0])


class TestResourceLimits:
    def test_memory_within_the_limit_passes_and_beyond_it_names_the_estimate(self):
        from limetheory._validation import MEMORY_LIMIT_BYTES, check_memory

        check_memory(MEMORY_LIMIT_BYTES, "exactly the limit")
        with pytest.raises(
            ValueError, match=r"^a dense Sigma at d = 1000000000 needs about 8e\+18 bytes, above .*; use"
        ):
            check_memory(8.0 * (10**9 + 1) ** 2, "a dense Sigma at d = 1000000000", "use sigma_coefficients")

    def test_work_within_the_limit_passes_and_beyond_it_names_the_estimate(self):
        from limetheory._validation import WORK_LIMIT_FLOPS, check_work

        check_work(WORK_LIMIT_FLOPS, "exactly the limit")
        with pytest.raises(
            ValueError, match=r"^alphas costs about 4e\+16 floating-point operations \(about .+\), above the limit"
        ):
            check_work(4e16, "alphas")

    def test_the_linear_limit_is_2_to_the_24_words(self):
        from limetheory._validation import MAX_LINEAR_D, check_linear_d

        assert MAX_LINEAR_D == 2**24
        assert check_linear_d(MAX_LINEAR_D) == MAX_LINEAR_D
        with pytest.raises(ValueError, match=rf"d must be <= {2**24} \(about 128 bytes per word\)$"):
            check_linear_d(MAX_LINEAR_D + 1)

    @pytest.mark.parametrize("d", [2**63, np.uint64(2**63), 10**9, np.int64(10**9)])
    def test_check_d_invertible_refuses_a_huge_d_before_any_work(self, d):
        with pytest.raises(ValueError, match=r"needs about .* bytes, above the limit of 2 GiB"):
            check_d_invertible(d)


class TestCheckVectorizer:
    """One check for every function that reads a vectorizer (fast engine, trees, linear models, word_columns)."""

    CORPUS = ["good food", "bad service"]

    def test_returns_the_fitted_vectorizer(self):
        from sklearn.feature_extraction.text import CountVectorizer, TfidfVectorizer

        for vectorizer in (CountVectorizer().fit(self.CORPUS), TfidfVectorizer().fit(self.CORPUS)):
            assert check_vectorizer(vectorizer, unigrams=True, mirrored_by="the fast engine") is vectorizer

    def test_refuses_other_objects_and_unfitted_vectorizers(self):
        from sklearn.feature_extraction.text import CountVectorizer, HashingVectorizer, TfidfVectorizer

        for value in (None, object(), HashingVectorizer(), "vectorizer"):
            with pytest.raises(TypeError, match="^model must be a fitted scikit-learn CountVectorizer or Tfidf"):
                check_vectorizer(value, "model")
        with pytest.raises(TypeError, match="^vectorizer must be a fitted scikit-learn TfidfVectorizer, got Count"):
            check_vectorizer(CountVectorizer().fit(self.CORPUS), tfidf=True)
        for unfitted in (CountVectorizer(), TfidfVectorizer()):
            with pytest.raises(ValueError, match=r"^vectorizer must be fitted \(call .fit first\)$"):
                check_vectorizer(unfitted)

    @pytest.mark.parametrize(
        ("settings", "message"),
        [
            ({"norm": "l1"}, "norm='l2'"),
            ({"sublinear_tf": True}, "sublinear_tf=False"),
            ({"binary": True}, "binary=False"),
            ({"use_idf": False}, "use_idf=True"),
        ],
    )
    def test_tfidf_is_the_papers_normalised_tfidf(self, settings, message):
        from sklearn.feature_extraction.text import TfidfVectorizer

        with pytest.raises(ValueError, match=message):
            check_vectorizer(TfidfVectorizer(**settings).fit(self.CORPUS), tfidf=True)

    @pytest.mark.parametrize("settings", [{"ngram_range": (1, 2)}, {"analyzer": "char"}, {"analyzer": "char_wb"}])
    def test_unigrams(self, settings):
        from sklearn.feature_extraction.text import CountVectorizer

        with pytest.raises(ValueError, match=r"^vectorizer must use analyzer='word' and ngram_range=\(1, 1\)"):
            check_vectorizer(CountVectorizer(**settings).fit(self.CORPUS), unigrams=True)

    def test_mirrored_lists_every_setting_it_cannot_mirror(self):
        from sklearn.feature_extraction.text import TfidfVectorizer

        vectorizer = TfidfVectorizer(strip_accents="ascii", token_pattern=r"\S+", ngram_range=(1, 2)).fit(self.CORPUS)
        with pytest.raises(ValueError, match="^the engine mirrors the vectorizer's tokenisation") as error:
            check_vectorizer(vectorizer, mirrored_by="the engine")
        for setting in ("strip_accents='ascii'", "token_pattern='\\\\S+'", "ngram_range=(1, 2)"):
            assert setting in str(error.value)
        for pattern in WORD_TOKEN_PATTERNS:  # each accepted pattern's tokens are maximal runs of word characters
            assert check_vectorizer(TfidfVectorizer(token_pattern=pattern).fit(self.CORPUS), mirrored_by="x")
