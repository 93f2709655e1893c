"""Property-based fuzz of the public API: an answer or a clear error, in bounded time (issue 20).

Every name of ``limetheory.__all__`` (and every public callable of ``limetheory.theory.symbolic``) has an entry in
``REGISTRY``: a hypothesis strategy that draws its arguments from the families below, mixed with valid values,
and a check of what it returns.  The families: huge, tiny and negative integers (2**63, 10**9, -2**63, ...),
floats at the ends of the double range, NaN and +-inf, numpy scalar types (np.float32, np.int64, np.uint64,
np.bool_), empty, ragged and 0-d arrays, object / complex / bool / str dtypes, sympy numbers and symbols where
numbers are expected, None and plain junk.

Each call runs in this process under two timers (pytest-xdist runs tests in the main thread of each worker, where
signals work): ``BUDGET_SECONDS`` of CPU time in user mode (ITIMER_VIRTUAL / SIGVTALRM, so that a loaded shared
machine does not make a fast call look slow, nor the kernel's work for it: on this VM the first touch of a 128 MiB
array, at the package's largest O(d) size, has cost up to 3 s of system time) and ``HANG_SECONDS`` of wall-clock
time (ITIMER_REAL / SIGALRM, for a call that blocks without computing). Either aborts the call, which then fails
instead of hanging the suite. It must either return a value of the documented type and shape, or raise
``ValueError`` / ``TypeError`` -- exactly those classes (not a subclass such as numpy's LinAlgError) -- with a
message that names something the caller passed or a limit. numpy's floating-point warnings (overflow, invalid value,
divide by zero) and ComplexWarning fail the call too: they mean an extreme argument reached arithmetic that was not
meant for it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import inspect
import math
import os
import signal
import sys
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import matplotlib
import matplotlib.axes
import numpy as np
import pandas as pd
import pytest
import sympy as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline

import limetheory as lt
import limetheory.book as book
from limetheory.book import (
    EXAMPLE_REVIEW_INDEX,
    Equations,
    Summary,
    constant_classifier,
    fit_yelp_vectorizer,
    linear_tfidf_classifier,
    linear_tfidf_model,
    reader_label,
    reader_text,
    scientific,
    show_equations,
    significant,
    summary,
    theory_vs_practice,
    train_random_forest,
    vocabulary_coefficients,
    word_indicator,
    word_indicator_rows,
)
from limetheory.pipelines.reading.modes import check_mode, mode_features
from limetheory.theory import symbolic as sy

matplotlib.use("Agg")

#: user-mode CPU-time budget of one call (valid calls here take milliseconds; the limits of the package allow ~10 s of
#: work, which the fuzz never asks for: its huge arguments must be refused before any work)
BUDGET_SECONDS = 5.0
#: wall-clock budget of one call: a hang guard, generous because the machine is shared
HANG_SECONDS = 60.0
#: interval at which an expired timer fires again until the call is over
RETRY_SECONDS = 0.5
NAN, INF = float("nan"), float("inf")
SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"

# ----------------------------------------------------------------------------- the families of arguments

HUGE_INTS = [2**63, 2**63 - 1, 2**64 + 1, 10**9, 10**12, 10**30, -(2**63), -(10**9), -1, 0]
NUMPY_INTS = [np.int64(3), np.int8(2), np.uint64(2**63), np.int32(-4), np.uint8(5)]
NOT_INTS = [True, False, np.bool_(True), 2.0, np.float64(3.0), "3", None, 2 + 0j, sp.Symbol("d"), sp.Float(2.0)]
SPECIAL_REALS = [
    NAN,
    INF,
    -INF,
    0.0,
    -0.0,
    5e-324,
    1e-300,
    1e-200,
    1e-160,
    1e154,
    1e300,
    1.7976931348623157e308,
    -1.0,
    -1e300,
    np.float32(0.25),
    np.float16(0.5),
    np.float64(1e300),
    np.float32(np.inf),
    np.int64(2),
    sp.Float(0.25),
    sp.Rational(1, 4),
    sp.Integer(3),
]
NOT_REALS = [
    sp.oo,
    sp.nan,
    sp.zoo,
    sp.Symbol("nu"),
    sp.pi,
    sp.I,
    0.25j,
    np.complex128(0.25),
    "0.25",
    b"0.25",
    None,
    True,
    np.bool_(False),
    [0.25],
    np.array(0.25),
    np.array([0.25]),
    object(),
]
BAD_ARRAYS = [
    [],
    [[]],
    np.zeros(0),
    np.zeros((0, 3)),
    np.zeros((3, 0)),
    [[1.0], [1.0, 2.0]],
    np.array([1, None], dtype=object),
    np.array([1.0, 2.0], dtype=object),
    np.array([1 + 2j, 0.0]),
    np.array([True, False, True]),
    np.array(["a", "b", "c"]),
    [NAN, 1.0, 1.0],
    [INF, 1.0, 1.0],
    [1.0, -INF, 1.0],
    np.full(3, 1.7976931348623157e308),
    np.full(3, 5e-324),
    np.full((2, 2), 1e300),
    np.zeros((2, 2, 2)),
    3.0,
    np.float64(2.0),
    None,
    "abc",
    b"abc",
    [sp.Symbol("x"), 1.0, 1.0],
    [sp.Float(1.0), sp.Rational(1, 2), sp.Integer(1)],
    {"a": 1.0},
    {1.0, 2.0},
]
TEXTS = ["good food, bad service", "The food was good. The service was slow!", "a b", "Good food", "ñandú café über"]
BAD_TEXTS = ["", "   ", "!!! ...", "good", "good good", None, b"good food", 3, ["good food"], sp.Symbol("good")]


def ints(lo, hi):
    """Valid integers in [lo, hi] (Python and numpy), the huge ones, and things that are not integers."""
    valid = st.integers(lo, hi)
    return st.one_of(
        valid,
        valid.map(np.int64),
        st.sampled_from(HUGE_INTS),
        st.sampled_from(NUMPY_INTS),
        st.sampled_from(NOT_INTS),
    )


def reals(lo=-10.0, hi=10.0):
    """Valid floats in [lo, hi], the special and extreme ones, numpy/sympy numbers, and non-reals."""
    return st.one_of(
        st.floats(lo, hi, allow_nan=False),
        st.sampled_from(SPECIAL_REALS),
        st.sampled_from(NOT_REALS),
    )


def bandwidths():
    """nu: ordinary bandwidths, a geometric spread over the whole double range, and the special values."""
    return st.one_of(
        st.floats(0.01, 10.0),
        st.integers(-320, 308).map(lambda k: 10.0**k),
        st.sampled_from(SPECIAL_REALS),
        st.sampled_from(NOT_REALS),
    )


def _as_float32(array):
    with np.errstate(over="ignore"):  # 1e300 becomes inf: one more extreme value for the function under test
        return array.astype(np.float32)


def float_arrays(shape):
    """Arrays of the given shape (finite floats, or with ends of the range) and the bad arrays."""
    size = int(np.prod(shape))
    values = st.one_of(st.floats(-10, 10, allow_nan=False), st.sampled_from([0.0, 1e300, -1e300, 5e-324, 1e-300]))
    valid = st.lists(values, min_size=size, max_size=size).map(lambda v: np.array(v, dtype=float).reshape(shape))
    return st.one_of(valid, valid.map(lambda a: a.tolist()), valid.map(_as_float32), bad_arrays())


def weight_arrays(shape):
    """Non-negative weights of the given shape (some zero), or anything from :func:`float_arrays`."""
    size = int(np.prod(shape))
    valid = st.lists(st.floats(0.0, 5.0), min_size=size, max_size=size).map(lambda v: np.array(v).reshape(shape))
    return st.one_of(valid, valid, float_arrays(shape))


def bad_arrays():
    return st.sampled_from(BAD_ARRAYS)


def masks(n, d):
    """0/1 masks of shape (n, d), as int8, bool, float or nested lists."""
    valid = st.lists(st.integers(0, 1), min_size=n * d, max_size=n * d).map(
        lambda v: np.array(v, dtype=np.int8).reshape(n, d)
    )
    return st.one_of(valid, valid.map(lambda z: z.astype(bool)), valid.map(lambda z: z.astype(float).tolist()))


def texts():
    return st.one_of(st.sampled_from(TEXTS), st.sampled_from(BAD_TEXTS), st.text(max_size=30))


def anything():
    """Any value of any family."""
    return st.one_of(
        st.sampled_from(HUGE_INTS + NUMPY_INTS + NOT_INTS + SPECIAL_REALS + NOT_REALS),
        bad_arrays(),
        st.sampled_from(BAD_TEXTS),
    )


def either(valid, bad=None):
    """Mostly ``valid``, sometimes anything at all."""
    return st.one_of(valid, valid, bad if bad is not None else anything())


# ----------------------------------------------------------------------------- shared fitted objects


def _vectorizer():
    return fit_yelp_vectorizer(["good food", "bad service", "slow staff", "the food was good"])


VECTORIZER = _vectorizer()
WORDS = lt.local_dictionary(TEXTS[0])  # good, food, bad, service


def _presence_tree():
    from sklearn.tree import DecisionTreeClassifier

    docs = ["good food", "bad service", "good service", "bad food", "slow staff", "the food was good"] * 3
    labels = [1, 0, 1, 0, 0, 1] * 3
    presence = (VECTORIZER.transform(docs) > 0).astype(float)
    return DecisionTreeClassifier(random_state=0).fit(presence, labels)


TREE = _presence_tree()


def _presence_vectorizer():
    from sklearn.feature_extraction.text import CountVectorizer

    return CountVectorizer(binary=True, vocabulary=VECTORIZER.vocabulary_).fit([])


#: the columns TREE reads: 0/1 presence of VECTORIZER's columns (VECTORIZER's normalised TF-IDF values are not
#: functions of which words are kept, so trees on them are refused)
PRESENCE_VECTORIZER = _presence_vectorizer()


def _presence_forest():
    from sklearn.ensemble import RandomForestClassifier

    docs = ["good food", "bad service", "good service", "bad food", "slow staff", "the food was good"] * 3
    labels = [1, 0, 1, 0, 0, 1] * 3
    return RandomForestClassifier(n_estimators=3, random_state=0).fit(PRESENCE_VECTORIZER.transform(docs), labels)


FOREST = _presence_forest()


def _classifier(documents):
    good = np.array(["good" in doc for doc in documents], dtype=float)
    return np.column_stack([1 - good, good])


def _model_fn(matrix):
    total = np.asarray(matrix.sum(axis=1)).ravel()
    return np.column_stack([1 - total / (1 + total), total / (1 + total)])


CLASSIFIERS = [
    _classifier,
    constant_classifier(0.3),
    lambda docs: np.full((len(docs), 2), NAN),
    lambda docs: np.zeros((len(docs), 2)) + 1j,
    lambda docs: np.zeros(len(docs)),
    lambda docs: [["a", "b"]] * len(docs),
    lambda docs: None,
]
MODEL_FNS = [
    _model_fn,
    lambda matrix: np.full((matrix.shape[0], 2), INF),
    lambda matrix: np.zeros((matrix.shape[0], 1)),
    lambda matrix: "junk",
]
EXPLAIN_MODEL = make_pipeline(TfidfVectorizer(), LogisticRegression()).fit(
    ["good food", "bad service", "good service", "bad food", "slow staff", "the food was good"], [1, 0, 1, 0, 0, 1]
)
MASK_FUNCTIONS = [
    lambda z: z[:, 0],
    lambda z: z.sum(axis=1) * 0.5,
    lambda z: np.full(len(z), 2.0),
    lambda z: z[:, 0] + 1j,
    lambda z: z[:, :2],
    lambda z: np.full(len(z), NAN),
    lambda z: ["x"] * len(z),
    lambda z: None,
]

# ----------------------------------------------------------------------------- checks of the return values


def _shape(x):
    return np.shape(np.asarray(x, dtype=object))


def is_float(out, *_):
    assert isinstance(out, float), type(out)  # a Python float or numpy's float64, which subclasses it


def is_array(shape_of):
    def check(out, args, kwargs):
        assert isinstance(out, np.ndarray), type(out)
        assert out.dtype.kind == "f", out.dtype
        expected = shape_of(args, kwargs)
        assert out.shape == expected, (out.shape, expected)

    return check


def is_tuple_of_floats(n):
    def check(out, *_):
        assert isinstance(out, tuple) and len(out) == n and all(type(v) is float for v in out), out

    return check


def is_instance(*types):
    def check(out, *_):
        assert isinstance(out, types), type(out)

    return check


def is_pipeline(out, *_):
    assert np.asarray(out.predict_proba(["good food", "bad service"])).shape == (2, 2)


def is_classifier_fn(n_columns=2):
    def check(out, *_):
        assert callable(out)
        values = np.asarray(out(["good food", "bad service"]))
        assert values.shape == (2, n_columns)

    return check


def is_rows_fn(vectorizer):
    """A model_fn of the vectorizer's rows: (m, 2) on two rows."""

    def check(out, *_):
        assert callable(out)
        values = np.asarray(out(vectorizer.transform(["good food", "bad service"])))
        assert values.shape == (2, 2)

    return check


def check_forest_rows(out, args, kwargs):
    """The forest's own predict_proba, bit for bit, on presence rows of its vectorizer."""
    rows = PRESENCE_VECTORIZER.transform(["good food", "bad service", "the food was good", "zzz"])
    assert np.array_equal(out(rows), args[0].predict_proba(rows))


def _d(args, index=0):
    return int(args[index])


def check_word_columns(out, args, kwargs):
    columns, counts = out
    d = len(lt.local_dictionary(args[0]))
    assert columns.shape == counts.shape == (d,) and columns.dtype.kind == counts.dtype.kind == "i", out
    assert (columns >= -1).all() and (counts >= 1).all(), out


def check_explanation(out, args, kwargs):
    # lime's features under the text mode asked for (distinct words by default; occurrences, characters otherwise)
    mode = {key: kwargs[key] for key in ("bow", "split_expression", "mask_string", "char_level") if key in kwargs}
    words = mode_features(args[1], check_mode(**mode))
    d = len(words)
    assert isinstance(out, lt.Explanation) and out.words == words, out
    assert out.beta.shape == (d + 1,) and np.isfinite(out.beta).all(), out.beta
    assert (out.stderr is None) == out.exact, out


def check_masks(out, args, kwargs):
    d, n = int(args[0]), int(args[1])
    assert isinstance(out, np.ndarray) and out.dtype == np.int8 and out.shape == (n, d)
    assert np.isin(out, (0, 1)).all()


def check_all_masks(out, args, kwargs):
    d = int(args[0])
    z, s, prob = out
    assert z.shape == (2**d - 1, d) and s.shape == (2**d - 1,) and prob.shape == (2**d - 1,)
    assert math.isclose(prob.sum(), 1.0, rel_tol=2**d * np.finfo(float).eps)  # a sum of 2^d rounded terms


def check_psi(out, args, kwargs):
    shape = np.shape(np.asarray(args[0], dtype=float))
    if shape == ():
        assert type(out) is float
    else:
        assert isinstance(out, np.ndarray) and out.shape == shape
    values = np.asarray(out)
    assert ((values >= 0) & (values <= 1)).all()


def check_polynomial(out, *_):
    assert isinstance(out, dict) and all(isinstance(k, tuple) for k in out)


def check_mask_function(out, args, kwargs):
    words = list(args[1])
    values = out(np.ones((3, len(words)), dtype=np.int8))
    assert isinstance(values, np.ndarray) and values.shape == (3,)


def check_moments(out, args, kwargs):
    f_given_s, zf_given_s = out
    d = len(args[0])
    assert f_given_s.shape == (d,) and zf_given_s.shape == (d, d)


def check_lime_samples(out, args, kwargs):
    assert isinstance(out, lt.LimeSamples)
    d = len(out.words)
    assert out.z.shape == (kwargs["num_samples"], d) and out.beta.shape == (d + 1,)


def check_lime_runs(out, args, kwargs):
    d = len(lt.local_dictionary(args[0]))
    assert isinstance(out, np.ndarray) and out.shape == (kwargs["n_exp"], d + 1)


def check_fast_samples(out, args, kwargs):
    assert isinstance(out, lt.FastLimeSamples)
    assert out.z.shape == (kwargs["n_exp"], kwargs["num_samples"], len(out.words))


def check_sweep(out, args, kwargs):
    z = np.asarray(args[0], dtype=float)
    shape = (len(np.asarray(args[2], dtype=float)), z.shape[1] + 1)
    parts = out if isinstance(out, tuple) else (out,)
    assert all(isinstance(p, np.ndarray) and p.shape == shape for p in parts)


def check_frame(out, *_):
    assert isinstance(out, pd.DataFrame) and list(out.columns) == ["text", "stars"] and len(out) == 1000


def check_equations(out, *_):
    assert isinstance(out, Equations)
    assert isinstance(out._repr_latex_(), str) and isinstance(repr(out), str)


def check_tree_formula(out, *_):
    formula, words = out
    assert isinstance(formula, sp.Basic) and all(isinstance(w, str) for w in words)


def check_tree_moments(out, args, kwargs):
    f_given_s, zf_given_s = out
    d = len(lt.local_dictionary(args[2]))
    assert f_given_s.shape == (d,) and zf_given_s.shape == (d, d), (f_given_s.shape, zf_given_s.shape)
    assert np.isfinite(f_given_s).all() and np.isfinite(zf_given_s).all()


def check_expression(out, *_):
    assert isinstance(out, sp.Basic), type(out)


def check_patterned(out, *_):
    assert isinstance(out, sy.PatternedMatrix)


# ----------------------------------------------------------------------------- the registry


@dataclass
class Spec:
    """How to fuzz one public name: its arguments, the check of its return value, the number of examples."""

    call: object  # the callable (or None for a constant)
    args: st.SearchStrategy = field(default_factory=lambda: st.just(()))
    kwargs: st.SearchStrategy = field(default_factory=lambda: st.just({}))
    check: object = None
    examples: int = 40
    extra_errors: tuple = ()
    #: the fuzz must see both outcomes (a valid call answered, a bad one refused) unless this says otherwise
    refuses: bool = True
    #: a known failure in a module this file does not own: the test is a strict xfail until it is fixed
    known_bug: str = ""
    #: (args, kwargs) that are all valid, drawn half of the time so that the answering path is always exercised
    valid: st.SearchStrategy | None = None


def _kw(**strategies):
    return st.fixed_dictionaries({}, optional=strategies)


D_SMALL = ints(1, 12)
ZERO_Z = lt.sample_masks(3, 60, np.random.default_rng(1))
ZERO_Y = ZERO_Z[:, 0] * ZERO_Z[:, 1] - 0.5 * ZERO_Z[:, 0] + 0.01 * np.random.default_rng(2).normal(size=60)
D_ANY = st.one_of(ints(1, 40), st.sampled_from([10**6, 2**24, 2**24 + 1, 16383, 16384]))

REGISTRY = {
    # sampling
    "psi": Spec(
        lt.psi, st.tuples(either(st.one_of(st.floats(0, 1), float_arrays((3,)))), bandwidths()), check=check_psi
    ),
    "kernel_weights": Spec(
        lt.kernel_weights, st.tuples(D_ANY, bandwidths()), check=is_array(lambda a, k: (_d(a),)), examples=60
    ),
    "prob_kept": Spec(lt.prob_kept, st.tuples(ints(0, 12), D_ANY, st.one_of(st.none(), ints(1, 12))), check=is_float),
    "sample_masks": Spec(
        lt.sample_masks,
        st.tuples(
            D_ANY, st.one_of(ints(1, 50), st.sampled_from([10**7, 10**8])), either(st.just(np.random.default_rng(0)))
        ),
        check=check_masks,
    ),
    # coefficients
    "alpha": Spec(
        lt.alpha,
        st.tuples(ints(0, 3), D_ANY, bandwidths()),
        _kw(log=either(st.booleans())),
        check=is_float,
        examples=60,
    ),
    "alphas": Spec(
        lt.alphas,
        st.tuples(D_ANY, bandwidths(), ints(0, 3)),
        _kw(log=either(st.booleans())),
        check=is_array(lambda a, k: (int(a[2]) + 1,)),
        examples=60,
    ),
    "normalization_constant": Spec(
        lt.normalization_constant, st.tuples(D_ANY, bandwidths()), _kw(log=either(st.booleans())), check=is_float
    ),
    "sigma_coefficients": Spec(lt.sigma_coefficients, st.tuples(D_ANY, bandwidths()), check=is_tuple_of_floats(4)),
    "sigma_eigenvalues": Spec(
        lt.sigma_eigenvalues,
        st.tuples(D_ANY, bandwidths()),
        _kw(log=either(st.booleans())),
        check=is_tuple_of_floats(3),
    ),
    "sigma_inverse_opnorm": Spec(
        lt.sigma_inverse_opnorm, st.tuples(D_ANY, bandwidths()), _kw(log=either(st.booleans())), check=is_float
    ),
    "sigma_matrix": Spec(
        lt.sigma_matrix,
        st.tuples(st.one_of(ints(1, 30), st.just(16384)), bandwidths()),
        check=is_array(lambda a, k: (_d(a) + 1, _d(a) + 1)),
    ),
    "sigma_inverse": Spec(
        lt.sigma_inverse,
        st.tuples(st.one_of(ints(1, 30), st.just(16384)), bandwidths()),
        check=is_array(lambda a, k: (_d(a) + 1, _d(a) + 1)),
    ),
    # explanation
    "beta_from_gamma": Spec(
        lt.beta_from_gamma,
        st.integers(2, 6).flatmap(lambda d: st.tuples(float_arrays((d + 1,)), either(st.just(d)), bandwidths())),
        check=is_array(lambda a, k: (_d(a, 1) + 1,)),
    ),
    "beta_from_conditional_moments": Spec(
        lt.beta_from_conditional_moments,
        st.integers(1, 5).flatmap(lambda d: st.tuples(float_arrays((d,)), float_arrays((d, d)), bandwidths())),
        check=is_array(lambda a, k: (len(a[0]) + 1,)),
    ),
    "beta_indicator_product": Spec(
        lt.beta_indicator_product,
        st.tuples(
            either(st.lists(st.integers(-1, 6), max_size=4), st.sampled_from([range(2**63), "01", 3, None, [0.0]])),
            D_ANY,
            bandwidths(),
        ),
        check=is_array(lambda a, k: (_d(a, 1) + 1,)),
    ),
    "beta_enumerate": Spec(
        lt.beta_enumerate,
        st.tuples(either(st.sampled_from(MASK_FUNCTIONS)), st.one_of(ints(1, 8), st.just(23)), bandwidths()),
        check=is_array(lambda a, k: (_d(a, 1) + 1,)),
    ),
    "all_masks": Spec(lt.all_masks, st.tuples(st.one_of(ints(1, 10), st.just(23))), check=check_all_masks),
    # boolean models
    "beta_boolean": Spec(lt.beta_boolean, examples=60),  # arguments filled in below (formulas)
    "indicator_polynomial": Spec(lt.indicator_polynomial, check=check_polynomial, examples=60),
    "mask_function": Spec(lt.mask_function, check=check_mask_function),
    "presence_formula": Spec(
        lt.presence_formula,
        st.tuples(either(st.sampled_from(["good", "food", "the", "zzz"])), either(st.just(WORDS))),
        _kw(vectorizer=either(st.just(VECTORIZER))),
        check=check_expression,
    ),
    "tree_to_formula": Spec(
        lt.tree_to_formula,
        st.tuples(
            either(st.just(TREE)),
            either(st.just(sorted(VECTORIZER.vocabulary_, key=VECTORIZER.vocabulary_.get)), st.just(["good"])),
        ),
        _kw(
            class_index=either(st.sampled_from([None, 0, 1, 2])), form=either(st.sampled_from(["leaves", "piecewise"]))
        ),
        check=check_expression,
        examples=25,
    ),
    "tree_formula_for_document": Spec(
        lt.tree_formula_for_document,
        st.tuples(either(st.just(TREE)), either(st.sampled_from([PRESENCE_VECTORIZER, VECTORIZER])), texts()),
        _kw(class_index=either(st.sampled_from([None, 0, 1])), form=either(st.sampled_from(["leaves", "piecewise"]))),
        check=check_tree_formula,
        examples=25,
    ),
    # exact tree route: a tree and a forest on presence features; VECTORIZER (normalised TF-IDF) is refused
    "conditional_moments_trees": Spec(
        lt.conditional_moments_trees,
        st.tuples(
            either(st.sampled_from([TREE, FOREST])), either(st.sampled_from([PRESENCE_VECTORIZER, VECTORIZER])), texts()
        ),
        _kw(output=either(st.sampled_from(["predict_proba", "decision_function", "predict"])), label=ints(0, 2)),
        check=check_tree_moments,
        examples=25,
    ),
    "beta_tree_model": Spec(
        lt.beta_tree_model,
        st.tuples(
            either(st.sampled_from([TREE, FOREST])), either(st.sampled_from([PRESENCE_VECTORIZER, VECTORIZER])), texts()
        ),
        _kw(nu=bandwidths(), output=either(st.sampled_from(["predict_proba", "predict"])), label=ints(0, 2)),
        check=is_array(lambda a, k: (len(lt.local_dictionary(a[2])) + 1,)),
        examples=25,
    ),
    # linear models
    "beta_linear_approx": Spec(
        lt.beta_linear_approx,
        st.integers(1, 6).flatmap(lambda d: st.tuples(float_arrays((d,)), weight_arrays((d,)))),
        check=is_array(lambda a, k: (len(a[0]) + 1,)),
    ),
    "beta_linear_exact": Spec(
        lt.beta_linear_exact,
        st.integers(1, 6).flatmap(lambda d: st.tuples(float_arrays((d,)), weight_arrays((d,)), bandwidths())),
        check=is_array(lambda a, k: (len(a[0]) + 1,)),
    ),
    "gamma_linear_exact": Spec(
        lt.gamma_linear_exact,
        st.integers(1, 6).flatmap(lambda d: st.tuples(float_arrays((d,)), weight_arrays((d,)), bandwidths())),
        check=is_array(lambda a, k: (len(a[0]) + 1,)),
    ),
    "conditional_moments_linear_exact": Spec(
        lt.conditional_moments_linear_exact,
        st.integers(1, 6).flatmap(lambda d: st.tuples(float_arrays((d,)), weight_arrays((d,)))),
        check=check_moments,
    ),
    "tfidf_columns": Spec(
        lt.tfidf_columns, st.tuples(texts(), either(st.just(VECTORIZER))), check=is_instance(np.ndarray), examples=25
    ),
    "tfidf_weights": Spec(
        lt.tfidf_weights, st.tuples(texts(), either(st.just(VECTORIZER))), check=is_instance(np.ndarray), examples=25
    ),
    "word_columns": Spec(
        lt.word_columns,
        st.tuples(texts(), either(st.just(VECTORIZER), st.sampled_from([None, "the", type(VECTORIZER)()]))),
        check=check_word_columns,
        examples=25,
    ),
    "vocabulary_coefficients": Spec(
        vocabulary_coefficients,
        st.tuples(texts(), either(st.just(VECTORIZER)), float_arrays((4,))),
        check=is_array(lambda a, k: (len(VECTORIZER.vocabulary_),)),
        examples=25,
    ),
    "linear_tfidf_model": Spec(linear_tfidf_model, st.tuples(float_arrays((3,))), check=is_instance(object)),
    "linear_tfidf_classifier": Spec(
        linear_tfidf_classifier,
        st.tuples(either(st.just(VECTORIZER)), float_arrays((len(VECTORIZER.vocabulary_),))),
        check=is_classifier_fn(),
        examples=25,
    ),
    # runs of lime (small arguments: every valid call runs lime)
    "local_dictionary": Spec(lt.local_dictionary, st.tuples(texts()), check=is_instance(list)),
    "capture_lime_samples": Spec(
        lt.capture_lime_samples,
        st.tuples(texts(), either(st.sampled_from(CLASSIFIERS))),
        st.fixed_dictionaries(
            {"num_samples": ints(2, 12)},
            optional={"kernel_width": reals(0.0, 100.0), "label": ints(0, 2), "random_state": ints(0, 9)},
        ),
        check=check_lime_samples,
        examples=20,
    ),
    "lime_explanations": Spec(
        lt.lime_explanations,
        st.tuples(texts(), either(st.sampled_from(CLASSIFIERS))),
        st.fixed_dictionaries(
            {"num_samples": ints(2, 12), "n_exp": ints(1, 2)},
            optional={
                "kernel_width": reals(0.0, 100.0),
                "label": ints(0, 2),
                "random_state": ints(0, 9),
                "num_features": ints(1, 12),
                "feature_selection": either(st.sampled_from(["none", "auto", "highest_weights", "forward_selection"])),
            },
        ),
        check=check_lime_runs,
        examples=20,
    ),
    "fast_lime_explanations": Spec(
        lt.fast_lime_explanations,
        st.tuples(texts(), either(st.just(VECTORIZER)), either(st.sampled_from(MODEL_FNS))),
        st.fixed_dictionaries(
            {"num_samples": ints(2, 12), "n_exp": ints(1, 2)},
            optional={
                "kernel_width": reals(0.0, 100.0),
                "label": ints(0, 2),
                "random_state": ints(0, 9),
                "stream": either(st.sampled_from(["lime", "batched"])),
                "num_features": ints(1, 12),
                "feature_selection": either(
                    st.sampled_from(["none", "auto", "highest_weights", "forward_selection", "lasso_path"])
                ),
            },
        ),
        check=check_lime_runs,
        examples=20,
    ),
    "fast_lime_samples": Spec(
        lt.fast_lime_samples,
        st.tuples(texts(), either(st.just(VECTORIZER)), either(st.sampled_from(MODEL_FNS))),
        st.fixed_dictionaries(
            {"num_samples": ints(2, 12), "n_exp": ints(1, 2)},
            optional={"kernel_width": reals(0.0, 100.0), "label": ints(0, 2), "random_state": ints(0, 9)},
        ),
        check=check_fast_samples,
        examples=20,
    ),
    "explain": Spec(
        lt.explain,
        st.tuples(either(st.just(EXPLAIN_MODEL), st.sampled_from([EXPLAIN_MODEL[-1], VECTORIZER, None])), texts()),
        _kw(
            kernel_width=reals(0.0, 100.0),
            label=ints(0, 2),
            output=either(st.sampled_from(["predict_proba", "decision_function", "predict"])),
            num_samples=st.one_of(st.none(), ints(2, 3000)),
            random_state=ints(0, 9),
            method=either(st.sampled_from(["auto", "linear", "trees", "enumeration", "monte_carlo"])),
            nu=st.just(0.25),
            bow=either(st.booleans()),
            split_expression=either(st.sampled_from([r"\W+", r"\s+", r"[ ,.]+"])),
            mask_string=either(st.sampled_from([None, "UNK", "food"])),
            char_level=either(st.booleans()),
        ),
        check=check_explanation,
        examples=30,
    ),
    "perturbed_documents": Spec(
        lt.perturbed_documents,
        st.one_of(st.tuples(st.just(TEXTS[0]), masks(3, 4)), st.tuples(texts(), either(masks(2, 4), bad_arrays()))),
        check=is_instance(list),
    ),
    # the surrogate
    "normal_equations": Spec(
        lt.normal_equations,
        st.tuples(either(masks(5, 3), bad_arrays()), float_arrays((5,)), weight_arrays((5,))),
        check=is_instance(tuple),
    ),
    "weighted_ridge": Spec(
        lt.weighted_ridge,
        st.tuples(either(masks(5, 3), bad_arrays()), float_arrays((5,)), weight_arrays((5,))),
        _kw(lam=reals(0.0, 5.0), penalise_intercept=either(st.booleans())),
        check=is_array(lambda a, k: (np.shape(a[0])[1] + 1,)),
    ),
    "expected_lime_fit": Spec(
        lt.expected_lime_fit,
        st.tuples(float_arrays((3, 3)), float_arrays((3,)), reals(), ints(1, 100)),
        _kw(lam=reals(0.0, 5.0)),
        check=is_array(lambda a, k: (3,)),
    ),
    # the bandwidth sweep
    "beta_bandwidth_sweep": Spec(
        lt.beta_bandwidth_sweep,
        st.tuples(
            st.one_of(st.just(lt.sample_masks(3, 40, np.random.default_rng(1))), masks(4, 3), bad_arrays()),
            st.one_of(st.just(np.random.default_rng(2).random(40)), float_arrays((4,))),
            either(st.lists(bandwidths(), min_size=1, max_size=3)),
        ),
        _kw(standard_errors=either(st.booleans()), n_blocks=ints(1, 3)),
        check=check_sweep,
    ),
    "coefficient_zero": Spec(
        lt.coefficient_zero,
        st.one_of(
            # the coefficient of word 0 changes sign between nu = 0.2 and 0.5 here
            st.tuples(
                st.just(ZERO_Z),
                st.just(ZERO_Y),
                st.just(0),
                st.tuples(st.floats(0.05, 0.2), st.floats(0.5, 3.0)),
            ),
            st.tuples(
                st.one_of(st.just(ZERO_Z), masks(4, 3), bad_arrays()),
                st.one_of(st.just(ZERO_Y), float_arrays((4,))),
                ints(0, 3),
                either(st.tuples(bandwidths(), bandwidths())),
            ),
        ),
        _kw(n_blocks=ints(1, 3), xtol=reals(0.0, 1e-3)),
        check=is_instance(lt.CoefficientZero),
        examples=30,
    ),
    # models and data
    "fit_yelp_vectorizer": Spec(
        fit_yelp_vectorizer,
        st.tuples(either(st.lists(texts(), max_size=3), st.sampled_from([[], "good food", None, 3, [b"x"]]))),
        check=is_instance(object),
        examples=25,
    ),
    "train_random_forest": Spec(
        train_random_forest,
        st.tuples(
            either(st.just(["good food", "bad service", "good service", "bad food"])),
            either(st.sampled_from([[1, 0, 1, 0], [1.0, NAN, 1.0, 0.0], ["a", "b", "a", "b"], [1, 1, 1, 1], [0, 1]])),
        ),
        _kw(n_estimators=ints(1, 3), random_state=ints(0, 5)),
        check=is_pipeline,
        examples=15,
    ),
    "word_indicator": Spec(
        word_indicator,
        st.tuples(either(st.just(VECTORIZER)), either(st.sampled_from(["good", "Good", "zzz", "food"]))),
        check=is_classifier_fn(),
        examples=25,
    ),
    "word_indicator_rows": Spec(
        word_indicator_rows,
        st.tuples(either(st.just(VECTORIZER)), either(st.sampled_from(["good", "Good", "zzz", "food"]))),
        check=is_rows_fn(VECTORIZER),
        examples=25,
    ),
    "constant_classifier": Spec(constant_classifier, st.tuples(reals(0.0, 1.0)), check=is_classifier_fn()),
    "presence_forest_proba": Spec(
        book.presence_forest_proba,
        st.tuples(either(st.sampled_from([FOREST, TREE, LogisticRegression()]))),
        check=check_forest_rows,
        examples=20,
    ),
    "sparse_forest_proba": Spec(
        book.sparse_forest_proba,
        st.tuples(either(st.sampled_from([FOREST, TREE, LogisticRegression()]))),
        check=check_forest_rows,
        examples=20,
    ),
    "EXAMPLE_REVIEW_INDEX": Spec(None),
    "load_yelp_reviews": Spec(lt.load_yelp_reviews, check=check_frame, examples=1, refuses=False),
    # plots
    "theory_vs_practice": Spec(
        theory_vs_practice,
        st.tuples(
            float_arrays((4, 3)),
            float_arrays((3,)),
            either(st.just(["a", "b", "c"]), st.sampled_from([["a", "b"], "abc", None, [1, 2, 3]])),
        ),
        _kw(title=either(st.text(max_size=5)), ylabel=either(st.text(max_size=5))),
        check=is_instance(matplotlib.axes.Axes),
        examples=25,
    ),
    # display
    "Equations": Spec(Equations, check=check_equations),
    "show_equations": Spec(show_equations, check=check_equations),
    "significant": Spec(significant, st.tuples(reals()), _kw(digits=ints(1, 17)), check=is_float),
    "Summary": Spec(Summary, check=is_instance(Summary)),
    "summary": Spec(summary, check=is_instance(Summary)),
    "reader_text": Spec(reader_text, _kw(digits=ints(1, 17)), check=is_instance(str)),
    "reader_label": Spec(reader_label, st.tuples(either(st.text(max_size=30))), check=is_instance(str)),
    "scientific": Spec(
        scientific,
        st.tuples(reals()),
        _kw(digits=ints(1, 17)),
        check=is_instance(str),
    ),
    # result records (dataclasses: any values are stored as given)
    "LimeSamples": Spec(
        lt.LimeSamples,
        st.tuples(*[anything()] * 5, reals(), float_arrays((3,))),
        check=is_instance(lt.LimeSamples),
        refuses=False,
    ),
    "FastLimeSamples": Spec(
        lt.FastLimeSamples,
        st.tuples(*[anything()] * 4),
        check=is_instance(lt.FastLimeSamples),
        refuses=False,
        examples=10,
    ),
    "Explanation": Spec(
        lt.Explanation, st.tuples(*[anything()] * 10), check=is_instance(lt.Explanation), refuses=False
    ),
    "LimeSpread": Spec(lt.LimeSpread, st.tuples(*[anything()] * 5), check=is_instance(lt.LimeSpread), refuses=False),
    "CoefficientZero": Spec(
        lt.CoefficientZero, st.tuples(*[reals()] * 4), check=is_instance(lt.CoefficientZero), refuses=False
    ),
}

# sympy formulas in the words of TEXTS[0], with the pathological ones: a non-polynomial, a non-real constant, an
# expansion into 2^30 monomials, symbols that are not words
_GOOD, _FOOD, _BAD, _SERVICE = (sp.Symbol(w) for w in WORDS)
_MANY = [sp.Symbol(f"w{i}") for i in range(30)]
FORMULAS = [
    _GOOD,
    sp.And(_GOOD, sp.Not(_BAD)),
    sp.Piecewise((2, sp.Or(_GOOD, _FOOD)), (0, True)) - _SERVICE,
    sp.Xor(_GOOD, _FOOD, _BAD),
    sp.Piecewise((1, _GOOD), (0.5, _FOOD), (0, True)),
    sp.Piecewise((1, _GOOD)),
    (_GOOD + _FOOD) ** 5,
    _GOOD ** sp.Rational(1, 2),
    sp.exp(_GOOD),
    1 / (1 + _GOOD),
    _GOOD * sp.I,
    _GOOD * sp.nan,
    _GOOD * sp.zoo,
    _GOOD > 0,
    sp.Symbol("pizza"),
    sp.Or(*_MANY),
    sp.Mul(*[1 + s for s in _MANY]),
    (1 + _GOOD + _FOOD) ** (2**62),
    sp.true,
    sp.false,
    sp.Integer(3),
    2.5,
    NAN,
    INF,
    2**63,
    True,
    "good",
    None,
]
MANY_WORDS = [f"w{i}" for i in range(30)]
_word_lists = either(st.sampled_from([WORDS, MANY_WORDS, ["good"]]), st.sampled_from([["good", "good"], "good", None]))
REGISTRY["beta_boolean"].args = st.tuples(st.sampled_from(FORMULAS), _word_lists, bandwidths())
# corpora and Shapley values: a small corpus's frame, explained once, feeds the corpus views
_CORPUS = ["good food", "bad service", "good service", "slow staff"]


def _made_on_first_draw(make):
    """``st.just(make())``, with ``make()`` called when a test first draws it, not when the module is imported.

    Both pytest workers import every test file to collect it, and only one runs this one: the corpus's frame and
    the moments (numba's kernels loaded, or compiled on a fresh clone) are made by that worker alone.  The deferred
    strategy draws nothing itself, so the examples are those of ``st.just`` with the value made at import.
    """
    return st.deferred(lambda: st.just(make()))


_CORPUS_FRAME = _made_on_first_draw(
    lambda: lt.explain_many(EXPLAIN_MODEL, _CORPUS, output="decision_function", progress=False)
)
_MOMENTS = functools.cache(lambda: lt.conditional_moments_linear_exact([1.0, -2.0, 0.5], [1.0, 1.0, 2.0]))
REGISTRY.update(
    {
        "explain_many": Spec(
            lt.explain_many,
            st.tuples(
                either(st.just(EXPLAIN_MODEL), st.sampled_from([VECTORIZER, None, "model"])),
                either(st.just(_CORPUS[:2]), st.one_of(st.lists(texts(), max_size=2), anything())),
            ),
            st.fixed_dictionaries(
                {"progress": st.just(False)},
                optional={
                    "output": either(st.sampled_from(["predict_proba", "decision_function"])),
                    "chunk_size": either(ints(1, 4)),
                },
            ),
            check=is_instance(pd.DataFrame),
            examples=15,
        ),
        "explanation_matrix": Spec(
            lt.explanation_matrix,
            st.tuples(either(_CORPUS_FRAME)),
            _kw(num_features=either(ints(1, 4)), refit=either(st.booleans())),
            check=is_instance(tuple),
            examples=15,
        ),
        "global_importance": Spec(
            lt.global_importance,
            st.tuples(either(_CORPUS_FRAME)),
            _kw(num_features=either(ints(1, 4)), refit=either(st.booleans())),
            check=is_instance(pd.DataFrame, pd.Series),
            examples=15,
        ),
        "submodular_pick": Spec(
            lt.submodular_pick,
            st.tuples(either(_CORPUS_FRAME), either(ints(1, 4))),
            _kw(num_features=either(ints(1, 4)), refit=either(st.booleans())),
            check=is_instance(pd.DataFrame),
            examples=15,
        ),
        "lime_selection_limit": Spec(
            lt.lime_selection_limit,
            st.tuples(either(st.just(np.array([0.1, 0.5, -0.2, 0.3, 0.05])), float_arrays((5,)))),
            st.fixed_dictionaries(
                {"kernel_width": either(reals(1.0, 100.0))},
                optional={
                    "num_features": either(ints(1, 5)),
                    "feature_selection": either(
                        st.sampled_from(["auto", "none", "highest_weights", "forward_selection", "lasso_path"])
                    ),
                },
            ),
            check=is_instance(lt.SelectionLimit),
            examples=20,
        ),
        "selection_probability": Spec(
            lt.selection_probability,
            st.tuples(
                either(st.just(np.array([0.1, 0.5, -0.2, 0.3]))),
                either(st.just(np.array([0.1, 0.5, -0.2, 0.3]))),
                either(st.just(0.01 * np.eye(4)), float_arrays((4, 4))),
            ),
            st.fixed_dictionaries(
                {"kernel_width": either(reals(1.0, 100.0))},
                optional={"num_features": either(ints(1, 3)), "draws": either(ints(10, 200))},
            ),
            check=is_instance(lt.SelectionProbability),
            examples=15,
        ),
        "SelectionLimit": Spec(
            lt.SelectionLimit, st.tuples(*[anything()] * 7), check=is_instance(lt.SelectionLimit), refuses=False
        ),
        "SelectionProbability": Spec(
            lt.SelectionProbability,
            st.tuples(*[anything()] * 3),
            check=is_instance(lt.SelectionProbability),
            refuses=False,
        ),
        "LimeTextExplainer": Spec(
            lt.LimeTextExplainer,
            st.tuples(),
            _kw(
                kernel_width=reals(0.0, 100.0),
                feature_selection=either(
                    st.sampled_from(["auto", "none", "highest_weights", "forward_selection", "lasso_path"])
                ),
                random_state=either(st.one_of(st.none(), ints(0, 9))),
                bow=either(st.booleans()),
                char_level=either(st.booleans()),
                kernel=either(st.just(None)),
                class_names=either(st.just(["negative", "positive"])),
                split_expression=either(st.sampled_from([r"\W+", r"\s+", str.split])),
                mask_string=either(st.sampled_from([None, "UNK"])),
                limit=either(st.booleans()),
            ),
            check=is_instance(lt.LimeTextExplainer),
            examples=20,
        ),
        "refit_limit": Spec(
            lt.refit_limit,
            st.tuples(
                either(st.just(np.array([0.1, 0.5, -0.2, 0.3])), float_arrays((4,))),
                either(st.just([0, 2]), st.lists(ints(-1, 5), max_size=3)),
            ),
            st.fixed_dictionaries({"kernel_width": either(reals(1.0, 100.0))}),
            check=is_instance(np.ndarray),
            examples=20,
        ),
        "shapley": Spec(
            lt.shapley,
            st.tuples(either(st.just(EXPLAIN_MODEL), st.sampled_from([VECTORIZER, None])), texts()),
            _kw(
                output=either(st.sampled_from(["predict_proba", "decision_function"])),
                label=ints(0, 2),
                random_state=ints(0, 9),
            ),
            check=is_instance(lt.ShapleyValues),
            examples=20,
        ),
        "ShapleyValues": Spec(
            lt.ShapleyValues, st.tuples(*[anything()] * 9), check=is_instance(lt.ShapleyValues), refuses=False
        ),
        "shapley_enumerate": Spec(
            lt.shapley_enumerate,
            st.tuples(either(st.sampled_from(MASK_FUNCTIONS)), st.one_of(ints(1, 8), st.just(23))),
            check=is_instance(tuple),
        ),
        "shapley_from_conditional_moments": Spec(
            lt.shapley_from_conditional_moments,
            st.tuples(
                either(st.just(0.7), reals()),
                either(_made_on_first_draw(lambda: _MOMENTS()[0]), float_arrays((3,))),
                either(_made_on_first_draw(lambda: _MOMENTS()[1]), float_arrays((3, 3))),
            ),
            check=is_instance(np.ndarray),
        ),
    }
)
REGISTRY["beta_boolean"].valid = st.tuples(
    st.tuples(st.sampled_from(FORMULAS[:7]), st.just(WORDS), st.floats(0.01, 10.0)), st.just({})
)
REGISTRY["indicator_polynomial"].valid = st.tuples(
    st.tuples(st.sampled_from(FORMULAS[:7]), st.just(WORDS)), st.just({})
)
REGISTRY["mask_function"].valid = REGISTRY["indicator_polynomial"].valid
REGISTRY["beta_boolean"].check = is_array(lambda a, k: (len(a[1]) + 1,))
REGISTRY["indicator_polynomial"].args = st.tuples(st.sampled_from(FORMULAS), _word_lists)
REGISTRY["mask_function"].args = st.tuples(st.sampled_from(FORMULAS), _word_lists)

_SIDES = st.one_of(
    st.sampled_from([r"\alpha", sp.Symbol("d") / 2, sp.Rational(1, 3), 2, 0.5, NAN, sp.Matrix([[1, 2]]), sp.oo]),
    st.sampled_from([None, object(), [1], b"x", 1j, np.float32(1.5), np.int64(3), True]),
)
_ROWS = st.lists(
    st.one_of(st.tuples(_SIDES, _SIDES), st.tuples(_SIDES, either(st.sampled_from(["=", r"\le"])), _SIDES), anything()),
    max_size=3,
)
_VALID_SIDES = st.sampled_from([r"\alpha", sp.Symbol("d") / 2, sp.Rational(1, 3), 2, 0.5, np.float32(1.5), 1j, NAN])
_VALID_ROWS = st.lists(st.tuples(_VALID_SIDES, _VALID_SIDES), min_size=1, max_size=3)
REGISTRY["Equations"].args = st.tuples(st.one_of(_VALID_ROWS, _ROWS, anything()))
REGISTRY["show_equations"].args = st.one_of(_VALID_ROWS, _ROWS).map(tuple)
# the widest line, in em: a phone's 19, a narrow column that breaks every sum, and what is not a width
REGISTRY["Equations"].kwargs = REGISTRY["show_equations"].kwargs = _kw(width=reals(0.0, 60.0))
# a summary's values: numbers, sympy, text and containers of them, and what it cannot write
_VALUES = st.one_of(
    st.sampled_from([True, 19, -3, 0.5, 5e-15, NAN, INF, np.float32(1.5), np.int64(3), "linear", sp.Symbol("d") ** 2]),
    st.sampled_from([(True, 19), [0.83, 0.95], {"pair": 2.75}, np.arange(3.0), list(range(2000))]),
    anything(),
)
_SUMMARY_ROWS = st.lists(
    st.one_of(st.tuples(either(st.sampled_from(["d", "max |z|", "nu = 0.25"])), _VALUES), anything()), max_size=3
)
REGISTRY["Summary"].args = st.tuples(_SUMMARY_ROWS)
REGISTRY["Summary"].kwargs = _kw(digits=ints(1, 17))
REGISTRY["summary"].args = _SUMMARY_ROWS.map(tuple)
REGISTRY["summary"].kwargs = _kw(digits=ints(1, 17))
REGISTRY["reader_text"].args = st.tuples(_VALUES)

# the symbolic module: sympy counterparts (numbers, sympy numbers and symbols are all valid there)
SYMBOLIC_VALUES = st.one_of(
    st.sampled_from([sy.d, sy.nu, sy.t, sp.Integer(3), sp.Rational(1, 2), sp.oo, sp.I, sp.nan, sp.zoo, sp.Float(0.5)]),
    st.sampled_from([2, 0, -1, 0.5, 1.5, 2**63, NAN, INF, "d", None, True, np.float64(0.5), np.int64(4)]),
)
SYMBOLIC_P = st.one_of(st.integers(0, 3), st.sampled_from([-1, 2**63, 10**6, 1.0, sp.Integer(2), sy.d, None, True]))
SYMBOLIC_REGISTRY = {
    "psi_expr": Spec(sy.psi_expr, st.tuples(SYMBOLIC_VALUES, SYMBOLIC_VALUES), check=check_expression),
    "prob_kept_given_s": Spec(
        sy.prob_kept_given_s, st.tuples(SYMBOLIC_P, SYMBOLIC_VALUES, SYMBOLIC_VALUES), check=check_expression
    ),
    "prob_kept_given_s_binomial": Spec(
        sy.prob_kept_given_s_binomial, st.tuples(SYMBOLIC_P, SYMBOLIC_VALUES, SYMBOLIC_VALUES), check=check_expression
    ),
    "prob_kept": Spec(sy.prob_kept, st.tuples(SYMBOLIC_P, SYMBOLIC_VALUES), check=check_expression, examples=25),
    "alpha_sum": Spec(
        sy.alpha_sum,
        st.tuples(SYMBOLIC_P, SYMBOLIC_VALUES, st.sampled_from([None, lambda t: t, 3, "psi"])),
        check=check_expression,
    ),
    "alpha_large_bandwidth": Spec(
        sy.alpha_large_bandwidth, st.tuples(SYMBOLIC_P, SYMBOLIC_VALUES), check=check_expression, examples=25
    ),
    "sigma_patterned": Spec(sy.sigma_patterned, st.tuples(*[SYMBOLIC_VALUES] * 4), check=check_patterned, examples=25),
    "sigma_inverse_patterned": Spec(
        sy.sigma_inverse_patterned, st.tuples(*[SYMBOLIC_VALUES] * 4), check=check_patterned, examples=25
    ),
    "PatternedMatrix": Spec(sy.PatternedMatrix, st.tuples(*[SYMBOLIC_VALUES] * 6), check=check_patterned),
}

# ----------------------------------------------------------------------------- running one call


class CallTimedOut(BaseException):
    """Raised by a timer inside a call that exceeded its budget.

    A BaseException (like KeyboardInterrupt), so that library code that catches Exception does not swallow it; the
    timers also repeat every ``RETRY_SECONDS`` until the call is over, in case one is swallowed anyway.
    """


def _on_timer(signum, frame):
    budget = f"{BUDGET_SECONDS} s of CPU time" if signum == signal.SIGVTALRM else f"{HANG_SECONDS} s of wall-clock time"
    raise CallTimedOut(f"the call did not return within {budget}")


NUMPY_WARNINGS = ("overflow encountered", "invalid value encountered", "divide by zero encountered")


def by_keyword(function, args, kwargs):
    """Pass the drawn arguments beyond a theory function's positional ones by keyword, in signature order.

    The strategies draw a theory function's arguments in the paper's order (``alpha(p, d, nu)``); its bandwidth
    is keyword-only (``limetheory.units``), so ``nu`` and what follows it are passed by name.
    """
    if not hasattr(function, "__wrapped__"):
        return args, kwargs
    parameters = inspect.signature(function).parameters.values()
    positional = sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in parameters)
    keywords = [p.name for p in parameters if p.kind is p.KEYWORD_ONLY]
    extra = dict(zip(keywords, args[positional:], strict=False))  # fewer drawn than declared: a bad call
    return args[:positional], {**extra, **kwargs}


def run_call(name, spec, args, kwargs):
    """Call ``spec.call(*args, **kwargs)`` under the alarm; return (outcome, value or exception, seconds)."""
    args, kwargs = by_keyword(spec.call, tuple(args), kwargs)
    previous = {signum: signal.signal(signum, _on_timer) for signum in (signal.SIGVTALRM, signal.SIGALRM)}
    signal.setitimer(signal.ITIMER_VIRTUAL, BUDGET_SECONDS, RETRY_SECONDS)
    signal.setitimer(signal.ITIMER_REAL, HANG_SECONDS, RETRY_SECONDS)
    start = time.perf_counter()
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                outcome, value = "returned", spec.call(*args, **kwargs)
            except (ValueError, TypeError, *spec.extra_errors) as error:
                outcome, value = "raised", error
    finally:
        signal.setitimer(signal.ITIMER_VIRTUAL, 0)
        signal.setitimer(signal.ITIMER_REAL, 0)
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    seconds = time.perf_counter() - start
    bad_warnings = [
        str(w.message)
        for w in caught
        if issubclass(w.category, np.exceptions.ComplexWarning) or str(w.message).startswith(NUMPY_WARNINGS)
    ]
    assert not bad_warnings, f"{name}{args!r:.200} {kwargs!r:.100}: numpy warnings {bad_warnings}"
    return outcome, value, seconds


def check_outcome(name, spec, args, kwargs, outcome, value):
    label = f"{name}(*{args!r:.300}, **{kwargs!r:.200})"
    if outcome == "raised":
        allowed = (ValueError, TypeError, *spec.extra_errors)
        assert type(value) in allowed, f"{label} raised {type(value).__name__} (a subclass), not one of {allowed}"
        assert str(value).strip(), f"{label} raised {type(value).__name__} without a message"
        return
    if spec.check is not None:
        try:
            spec.check(value, args, kwargs)
        except AssertionError as error:
            raise AssertionError(f"{label} returned {value!r:.300}: {error}") from None


@contextlib.contextmanager
def fixed_constant_pool():
    """Hypothesis's draws without the constants it collects from the local modules loaded so far.

    Hypothesis (6.1xx) draws about one value in twenty from a pool of the literals of every local module in
    ``sys.modules`` at the time, so a derandomized test drew other calls when it ran alone than in the whole suite
    (``lime_selection_limit``'s overflow, fixed on 2026-11-30, was found only when test_fuzz.py ran alone), and a
    new module anywhere could change what these tests try. Here that pool is held empty (Hypothesis's own global
    constants stay), so the draws depend on the seed and the strategies alone. The pool is a private part of
    Hypothesis: where it is not found (another version), nothing is changed and the draws are as Hypothesis makes
    them.
    """
    providers = sys.modules.get("hypothesis.internal.conjecture.providers")
    cache = getattr(providers, "CONSTANTS_CACHE", None)
    if providers is None or cache is None or not hasattr(providers, "_get_local_constants"):
        yield
        return
    original = providers._get_local_constants
    empty = providers.Constants()
    providers._get_local_constants = lambda: empty
    cache.cache.clear()  # pools already built from the modules' constants
    try:
        yield
    finally:
        providers._get_local_constants = original
        cache.cache.clear()


def fuzz(name, spec):
    drawn = st.tuples(spec.args, spec.kwargs)
    if spec.valid is not None:
        drawn = st.one_of(spec.valid, drawn)

    @settings(
        max_examples=spec.examples,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(arguments=drawn)
    def run(arguments):
        args, kwargs = arguments
        outcome, value, _ = run_call(name, spec, args, kwargs)
        check_outcome(name, spec, args, kwargs, outcome, value)
        outcomes[outcome] = outcomes.get(outcome, 0) + 1

    outcomes = {}
    with fixed_constant_pool():
        run()
    # not vacuous: the families reached both the answering and the refusing paths
    assert outcomes.get("returned", 0) > 0, f"{name}: no drawn call returned ({outcomes})"
    assert outcomes.get("raised", 0) > 0 or not spec.refuses, f"{name}: no drawn call was refused ({outcomes})"


# ----------------------------------------------------------------------------- the tests


@pytest.fixture(scope="module", autouse=True)
def compiled_routes():
    """The tree and linear routes' compiled loops loaded before any call is timed (compiled, on a fresh clone: about
    4 and up to 20 CPU-s, ``benchmarks/linear_compile_cost.py``).

    The budget bounds what a call computes, not numba's compilation of the package's loops, once per signature and
    machine; on a fresh clone the first tree or linear call of this worker would otherwise compile them under the
    timer (each norm, and words sharing a column, have loops of their own).
    """
    lt.beta_tree_model(FOREST, PRESENCE_VECTORIZER, TEXTS[1], nu=0.25)
    for norm in ("l2", "l1"):
        lt.beta_linear_exact([1.0, -2.0, 0.5], [1.0, 2.0, 3.0], nu=0.25, norm=norm)
        lt.beta_linear_exact([1.0, 1.0, 0.5], [1.0, 2.0, 3.0], nu=0.25, groups=[0, 0, 1], norm=norm)
    lt.explain(EXPLAIN_MODEL, TEXTS[1], output="decision_function")


def _public_symbolic_names():
    return sorted(
        name
        for name, value in vars(sy).items()
        if not name.startswith("_")
        and (inspect.isfunction(value) or inspect.isclass(value))
        and getattr(value, "__module__", None) == sy.__name__
    )


def _exported(name):
    """A name of the user's namespace, or of the book's (``limetheory.book``), which the registry covers too."""
    return getattr(lt, name) if name in lt.__all__ else getattr(book, name)


def test_every_public_name_is_in_the_registry():
    public = set(lt.__all__) | set(book.__all__)
    assert not set(lt.__all__) & set(book.__all__), "a name exported by both namespaces"
    assert sorted(public - set(REGISTRY)) == [], "public names without a fuzz entry"
    assert sorted(set(REGISTRY) - public) == [], "fuzz entries for names that are not public"
    assert _public_symbolic_names() == sorted(SYMBOLIC_REGISTRY)


def test_every_entry_is_what_the_package_exports():
    for name, spec in REGISTRY.items():
        if spec.call is not None:
            assert spec.call is _exported(name), name
    for name, spec in SYMBOLIC_REGISTRY.items():
        assert spec.call is getattr(sy, name), name


def test_the_constant():
    assert type(EXAMPLE_REVIEW_INDEX) is int and 0 <= EXAMPLE_REVIEW_INDEX < 1000


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(name, marks=[pytest.mark.xfail(strict=True, reason=spec.known_bug)] if spec.known_bug else [])
        for name, spec in sorted(REGISTRY.items())
        if spec.call is not None
    ],
)
def test_fuzz_public_function(name, monkeypatch, tmp_path):
    if name == "load_yelp_reviews":
        if not (SHARED_DATA / "positive_negative_reviews_yelp.csv").is_file() and not os.environ.get(
            "LIMETHEORY_DATA_DIR"
        ):
            pytest.skip("the Yelp file is not available offline (set LIMETHEORY_DATA_DIR)")
        monkeypatch.setenv("LIMETHEORY_DATA_DIR", os.environ.get("LIMETHEORY_DATA_DIR", str(SHARED_DATA)))
    if name == "theory_vs_practice":
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots()
        spec = dataclasses.replace(REGISTRY[name], call=lambda *a, **k: theory_vs_practice(ax, *a, **k))
        try:
            fuzz(name, spec)
        finally:
            plt.close(fig)
        return
    fuzz(name, REGISTRY[name])


@pytest.mark.parametrize("name", sorted(SYMBOLIC_REGISTRY))
def test_fuzz_symbolic_function(name):
    fuzz(name, SYMBOLIC_REGISTRY[name])


def test_the_cpu_budget_stops_a_call_that_computes_forever(monkeypatch):
    """The CPU budget is enforced: an endless computation is interrupted and reported as a timeout."""
    monkeypatch.setattr(f"{__name__}.BUDGET_SECONDS", 0.2)

    def spin():
        while True:
            sum(range(1000))

    with pytest.raises(CallTimedOut, match="CPU time"):
        run_call("spin", Spec(spin), (), {})


def test_the_wall_clock_guard_stops_a_call_that_blocks(monkeypatch):
    """A call that blocks without computing is stopped by the wall-clock guard."""
    monkeypatch.setattr(f"{__name__}.HANG_SECONDS", 0.2)
    start = time.perf_counter()
    with pytest.raises(CallTimedOut, match="wall-clock"):
        run_call("sleep", Spec(lambda: time.sleep(30)), (), {})
    assert time.perf_counter() - start < 20  # interrupted long before the 30 s sleep ends


def test_a_subclass_of_value_error_is_not_accepted():
    """numpy's LinAlgError is a ValueError, but not a clear one: the fuzz rejects it."""

    def singular():
        np.linalg.inv(np.zeros((2, 2)))

    outcome, value, _ = run_call("singular", Spec(singular), (), {})
    with pytest.raises(AssertionError, match="a subclass"):
        check_outcome("singular", Spec(singular), (), {}, outcome, value)


# ----------------------------------------------------------------------------- the cases of issue 20, one by one

D_HUGE = 2**63
D_TOO_LARGE = 10**9


@pytest.mark.parametrize(
    "call",
    [
        lambda d: lt.alpha(0, d, nu=0.25),
        lambda d: lt.alphas(d, nu=0.25),
        lambda d: lt.normalization_constant(d, nu=0.25),
        lambda d: lt.sigma_coefficients(d, nu=0.25),
        lambda d: lt.sigma_inverse_opnorm(d, nu=0.25),
        lambda d: lt.sigma_eigenvalues(d, nu=0.25),
        lambda d: lt.kernel_weights(d, nu=0.25),
        lambda d: lt.beta_indicator_product((0, 1), d, nu=0.25),
        lambda d: lt.beta_from_gamma(np.zeros(3), d, nu=0.25),
    ],
    ids=[
        "alpha",
        "alphas",
        "normalization_constant",
        "sigma_coefficients",
        "sigma_inverse_opnorm",
        "sigma_eigenvalues",
        "kernel_weights",
        "beta_indicator_product",
        "beta_from_gamma",
    ],
)
@pytest.mark.parametrize("d", [D_HUGE, D_TOO_LARGE, np.uint64(D_HUGE), np.int64(D_TOO_LARGE)])
def test_an_o_of_d_routine_refuses_a_huge_d_with_its_memory_estimate(call, d):
    outcome, value, _ = run_call("O(d) routine", Spec(call), (d,), {})
    assert outcome == "raised" and type(value) is ValueError, value
    bytes_needed = lt._validation.LINEAR_BYTES_PER_WORD * int(d)
    assert f"needs about {float(bytes_needed):.2g} bytes" in str(value)
    assert f"d must be <= {lt._validation.MAX_LINEAR_D}" in str(value)


@pytest.mark.parametrize("function", [lt.sigma_matrix, lt.sigma_inverse])
@pytest.mark.parametrize("d", [D_HUGE, D_TOO_LARGE, 16384])
def test_a_dense_sigma_is_refused_beyond_2_gib_with_the_estimate_and_the_o_of_d_alternatives(function, d):
    outcome, value, _ = run_call(function.__name__, Spec(function), (d, 0.25), {})
    assert outcome == "raised" and type(value) is ValueError, value
    message = str(value)
    assert message.startswith(f"a dense Sigma at d = {d} needs about {8.0 * (d + 1) ** 2:.2g} bytes")
    assert "use sigma_coefficients or beta_from_gamma, which are O(d)" in message


def test_the_largest_dense_sigma_within_the_limit_is_allowed():
    """d = 16383 is the last d with 8 (d + 1)^2 <= 2 GiB; the check itself does not allocate."""
    lt.theory.coefficients._check_dense(16383)
    with pytest.raises(ValueError, match="^a dense Sigma at d = 16384"):
        lt.theory.coefficients._check_dense(16384)


@pytest.mark.parametrize("d", [10**5, pytest.param(10**7, marks=pytest.mark.slow)])
def test_o_of_d_routines_answer_at_ten_million_words(d):
    """The O(d) routines stay usable at d = 10**7 (about a second each here; no timing is asserted).  `make test`
    runs d = 10**5, where a d x d array would already need 80 GB: an O(d²) routine fails there too."""
    c_d = lt.normalization_constant(d, nu=0.25)
    assert np.isfinite(c_d) and c_d > 0
    beta = lt.beta_from_gamma(np.zeros(d + 1), d, nu=0.25)
    assert beta.shape == (d + 1,) and not beta.any()  # Gamma = 0 gives beta = 0 exactly
    weights = lt.kernel_weights(d, nu=0.25)
    assert weights.shape == (d,) and weights[0] == lt.psi(1 / d, nu=0.25)


@pytest.mark.parametrize("nu", [1e155, 1e300, 1.7976931348623157e308, np.float64(1e300), INF])
def test_psi_and_kernel_weights_at_huge_nu_are_their_limit(nu):
    assert lt.psi(0.5, nu=nu) == 1.0 and lt.psi(1.0, nu=nu) == 1.0
    assert (lt.kernel_weights(7, nu=nu) == 1.0).all()


# ----------------------------------------------------------------------------- continuity in nu up to inf

#: a geometric grid over the whole double range above 1, then the largest double
NU_GRID = [10.0**k for k in range(0, 309, 6)] + [1.7976931348623157e308]
#: beyond this, (g^2 - g_1^2) / (2 nu^2) <= 1 / (2 nu^2) = 5e-19 < eps / 2 for every word count: every weight
#: rounds to 1.0 and every function must equal its nu = inf value up to the rounding of its own sums
NU_LIMIT_REACHED = 1e9
#: a few roundings of sums whose terms may differ by one ulp where a weight did not yet round to 1.0
LIMIT_ULPS = 8


def _scalar_functions():
    gamma = np.array([0.3, 0.1, -0.2, 0.05])
    good, food = sp.symbols("good food")
    return {
        "psi(t=0.3)": lambda nu: lt.psi(0.3, nu=nu),
        "psi(t=1)": lambda nu: lt.psi(1.0, nu=nu),
        "kernel_weights(5)": lambda nu: lt.kernel_weights(5, nu=nu),
        "alpha_2(d=6)": lambda nu: lt.alpha(2, 6, nu=nu),
        "alphas(29)": lambda nu: lt.alphas(29, nu=nu, p_max=3),
        "log alpha_1(d=4)": lambda nu: lt.alpha(1, 4, nu=nu, log=True),
        "c_d(7)": lambda nu: lt.normalization_constant(7, nu=nu),
        "sigma_coefficients(5)": lambda nu: np.array(lt.sigma_coefficients(5, nu=nu)),
        "sigma_eigenvalues(5)": lambda nu: np.array(lt.sigma_eigenvalues(5, nu=nu)),
        "opnorm(5)": lambda nu: lt.sigma_inverse_opnorm(5, nu=nu),
        "sigma_matrix(3)": lambda nu: lt.sigma_matrix(3, nu=nu),
        "sigma_inverse(3)": lambda nu: lt.sigma_inverse(3, nu=nu),
        "beta_from_gamma(3)": lambda nu: lt.beta_from_gamma(gamma, 3, nu=nu),
        "beta_indicator_product((0, 2), 5)": lambda nu: lt.beta_indicator_product((0, 2), 5, nu=nu),
        "beta_enumerate(4)": lambda nu: lt.beta_enumerate(lambda z: z[:, 0] * (1 - z[:, 3]), 4, nu=nu),
        "beta_boolean": lambda nu: lt.beta_boolean(sp.Or(good, food), ["good", "food", "bad"], nu=nu),
        "beta_linear_exact": lambda nu: lt.beta_linear_exact([1.0, -2.0, 0.5], [1.0, 2.0, 3.0], nu=nu),
        "gamma_linear_exact": lambda nu: lt.gamma_linear_exact([1.0, -2.0, 0.5], [1.0, 2.0, 3.0], nu=nu),
        "sweep": lambda nu: lt.beta_bandwidth_sweep(SWEEP_Z, SWEEP_Y, nus=[nu])[0],
    }


SWEEP_Z = lt.sample_masks(4, 200, np.random.default_rng(3))
SWEEP_Y = SWEEP_Z @ np.array([1.0, -1.0, 0.5, 0.0]) + np.random.default_rng(4).normal(0, 0.1, 200)


@pytest.mark.parametrize("name", sorted(_scalar_functions()))
def test_every_function_of_nu_is_continuous_up_to_inf(name):
    """No overflow, no NaN, and from nu = 1e9 on the value is the nu = inf value up to a few ulps (no threshold)."""
    function = _scalar_functions()[name]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an overflow or an invalid operation anywhere fails the test
        values = [np.asarray(function(nu), dtype=float) for nu in NU_GRID]
        limit = np.asarray(function(np.inf), dtype=float)
    assert np.isfinite(limit).all()
    for nu, value in zip(NU_GRID, values, strict=True):
        assert np.isfinite(value).all(), (nu, value)
        if nu >= NU_LIMIT_REACHED:
            scale = np.maximum(np.abs(limit), np.finfo(float).tiny)
            ulps = np.abs(value - limit) / (scale * np.finfo(float).eps)
            assert (ulps <= LIMIT_ULPS).all(), (nu, value, limit)


def test_the_derivative_of_the_weights_in_nu_tends_to_zero_without_overflow():
    """d psi / d nu = psi g^2 / nu^3 <= 1 / nu^3 (g <= 1, psi <= 1): 0.0 once 1 / nu^3 is below the double range."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for nu in [10.0**k for k in range(-320, 309, 3)] + [1.7976931348623157e308, np.inf]:
            value = lt.theory.sweep._weight_derivatives(4, [nu])[0]
            with np.errstate(under="ignore", over="ignore"):
                bound = np.power(np.float64(nu), -3.0)
            assert np.isfinite(value).all() and (value >= 0).all(), (nu, value)
            assert (value <= bound * (1 + 4 * np.finfo(float).eps)).all(), (nu, value, bound)


@pytest.mark.parametrize("t", [0.0, 1e-300, 1e-8, 0.25, 0.999, 1.0])
def test_psi_is_non_decreasing_in_nu_over_the_whole_double_range(t):
    nus = [10.0**k for k in range(-320, 309)] + [1.7976931348623157e308, np.inf]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        values = [lt.psi(t, nu=nu) for nu in nus if nu > 0]
    assert all(0.0 <= v <= 1.0 for v in values)
    assert all(a <= b for a, b in zip(values, values[1:], strict=False))
    assert values[-1] == 1.0


@pytest.mark.parametrize("p", [0, 1, 2])
def test_alpha_is_non_decreasing_in_nu_down_to_the_smallest_bandwidths(p):
    """alpha_p = E[pi z_1..z_p] grows with nu (every weight does); also across the nu^2 underflow at 1.5e-154."""
    nus = [10.0**k for k in range(-320, 309, 2)] + [1.4e-154, 1.5e-154, 1.6e-154, np.inf]
    nus = sorted(nu for nu in nus if nu > 0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # alpha below the double range: documented, returns 0.0
        values = [lt.alpha(p, 6, nu=nu) for nu in nus]
    assert all(np.isfinite(values))
    assert all(a <= b * (1 + 4 * np.finfo(float).eps) for a, b in zip(values, values[1:], strict=False))


# ----------------------------------------------------------------------------- runs of lime: huge counts refused first

RUNNERS = {
    "capture_lime_samples": lambda **k: lt.capture_lime_samples(TEXTS[0], _classifier, **k),
    "lime_explanations": lambda **k: lt.lime_explanations(TEXTS[0], _classifier, **k),
    "fast_lime_explanations": lambda **k: lt.fast_lime_explanations(TEXTS[0], VECTORIZER, _model_fn, **k),
    "fast_lime_samples": lambda **k: lt.fast_lime_samples(TEXTS[0], VECTORIZER, _model_fn, **k),
}


@pytest.mark.parametrize(
    ("runner", "argument"),
    [(runner, "num_samples") for runner in sorted(RUNNERS)]
    + [(runner, "n_exp") for runner in sorted(RUNNERS) if runner != "capture_lime_samples"],  # that one runs once
)
@pytest.mark.parametrize("value", [2**63, 10**12, 10**9])
def test_runs_of_lime_refuse_huge_counts_before_the_first_run(runner, argument, value):
    kwargs = {"num_samples": 10, argument: value}
    outcome, error, _ = run_call(runner, Spec(RUNNERS[runner]), (), kwargs)
    assert outcome == "raised" and type(error) is ValueError, error
    assert "above the limit of 2 GiB" in str(error)


def _valid(args, kwargs=None):
    """All-valid arguments: a tuple of strategies for the positional ones, a dict of strategies for the others."""
    return st.tuples(st.tuples(*args), st.fixed_dictionaries(kwargs or {}))


_NU = st.floats(0.01, 10.0)
_D = st.integers(2, 30)
_VALID = {
    "psi": _valid([st.one_of(st.floats(0, 1), st.lists(st.floats(0, 1), max_size=4)), _NU]),
    "kernel_weights": _valid([_D, _NU]),
    "prob_kept": _valid([st.integers(0, 2), st.integers(2, 30), st.one_of(st.none(), st.integers(1, 2))]),
    "sample_masks": _valid([_D, st.integers(1, 50), st.just(np.random.default_rng(0))]),
    "alpha": _valid([st.integers(0, 2), _D, _NU]),
    "alphas": _valid([_D, _NU, st.integers(0, 2)]),
    "normalization_constant": _valid([_D, _NU]),
    "sigma_coefficients": _valid([_D, _NU]),
    "sigma_eigenvalues": _valid([_D, _NU]),
    "sigma_inverse_opnorm": _valid([_D, _NU]),
    "sigma_matrix": _valid([_D, _NU]),
    "sigma_inverse": _valid([_D, _NU]),
    "beta_from_gamma": _valid([st.just(np.array([0.3, 0.1, -0.2, 0.05])), st.just(3), st.floats(0.2, 10.0)]),
    "beta_indicator_product": _valid([st.sampled_from([(), (0,), (0, 1)]), _D, _NU]),
    "beta_enumerate": _valid([st.sampled_from(MASK_FUNCTIONS[:3]), st.integers(2, 8), _NU]),
    "all_masks": _valid([st.integers(1, 10)]),
    "beta_linear_approx": _valid([st.just([1.0, -2.0, 0.5]), st.just([1.0, 2.0, 0.0])]),
    "beta_linear_exact": _valid([st.just([1.0, -2.0, 0.5]), st.just([1.0, 2.0, 0.0]), _NU]),
    "gamma_linear_exact": _valid([st.just([1.0, -2.0, 0.5]), st.just([1.0, 2.0, 0.0]), st.floats(0.2, 10.0)]),
    "conditional_moments_linear_exact": _valid([st.just([1.0, -2.0, 0.5]), st.just([1.0, 2.0, 0.0])]),
    "tfidf_columns": _valid([st.just(TEXTS[0]), st.just(VECTORIZER)]),
    "tfidf_weights": _valid([st.just(TEXTS[0]), st.just(VECTORIZER)]),
    "word_columns": _valid([st.sampled_from(TEXTS), st.just(VECTORIZER)]),
    "vocabulary_coefficients": _valid([st.just(TEXTS[0]), st.just(VECTORIZER), st.just([1.0, 2.0, 3.0, 4.0])]),
    "presence_formula": _valid(
        [st.sampled_from(["good", "food"]), st.just(WORDS)], {"vectorizer": st.just(VECTORIZER)}
    ),
    "tree_to_formula": _valid(
        [st.just(TREE), st.just(sorted(VECTORIZER.vocabulary_, key=VECTORIZER.vocabulary_.get))],
        {"form": st.sampled_from(["leaves", "piecewise"])},
    ),
    "tree_formula_for_document": _valid([st.just(TREE), st.just(PRESENCE_VECTORIZER), st.just(TEXTS[0])]),
    "conditional_moments_trees": _valid(
        [st.sampled_from([TREE, FOREST]), st.just(PRESENCE_VECTORIZER), st.sampled_from(TEXTS[:2])]
    ),
    "beta_tree_model": _valid(
        [st.sampled_from([TREE, FOREST]), st.just(PRESENCE_VECTORIZER), st.sampled_from(TEXTS[:2])], {"nu": _NU}
    ),
    "capture_lime_samples": _valid([st.just(TEXTS[0]), st.just(_classifier)], {"num_samples": st.integers(2, 12)}),
    "lime_explanations": _valid(
        [st.just(TEXTS[0]), st.just(_classifier)], {"num_samples": st.integers(2, 12), "n_exp": st.integers(1, 2)}
    ),
    "fast_lime_explanations": _valid(
        [st.just(TEXTS[0]), st.just(VECTORIZER), st.just(_model_fn)],
        {"num_samples": st.integers(2, 12), "n_exp": st.integers(1, 2), "stream": st.sampled_from(["lime", "batched"])},
    ),
    "fast_lime_samples": _valid(
        [st.just(TEXTS[0]), st.just(VECTORIZER), st.just(_model_fn)],
        {"num_samples": st.integers(2, 12), "n_exp": st.integers(1, 2)},
    ),
    "normal_equations": _valid([st.just(ZERO_Z), st.just(ZERO_Y), st.just(np.ones(len(ZERO_Y)))]),
    "weighted_ridge": _valid([st.just(ZERO_Z), st.just(ZERO_Y), st.just(np.ones(len(ZERO_Y)))], {"lam": _NU}),
    "expected_lime_fit": _valid(
        [st.just(lt.sigma_matrix(2, nu=0.25)), st.just([0.3, 0.1, 0.1]), st.floats(0, 1), st.integers(1, 10**6)]
    ),
    "beta_bandwidth_sweep": _valid(
        [st.just(ZERO_Z), st.just(ZERO_Y), st.lists(_NU, min_size=1, max_size=3)],
        {"standard_errors": st.booleans()},
    ),
    "train_random_forest": _valid(
        [st.just(["good food", "bad service", "good service", "bad food"]), st.just([1, 0, 1, 0])],
        {"n_estimators": st.integers(1, 3)},
    ),
    "explain": _valid(
        [st.just(EXPLAIN_MODEL), st.sampled_from(TEXTS[:2])],
        {
            "output": st.sampled_from(["predict_proba", "decision_function"]),
            "method": st.sampled_from(["auto", "enumeration", "monte_carlo"]),
            "num_samples": st.integers(100, 2000),
        },
    ),
    "word_indicator": _valid([st.just(VECTORIZER), st.sampled_from(["good", "food", "service"])]),
    "word_indicator_rows": _valid([st.just(VECTORIZER), st.sampled_from(["good", "food", "service"])]),
    "fit_yelp_vectorizer": _valid([st.just(["good food", "bad service"])]),
    "theory_vs_practice": _valid([st.just(np.zeros((4, 3))), st.just(np.zeros(3)), st.just(["a", "b", "c"])]),
}
for _name, _strategy in _VALID.items():
    REGISTRY[_name].valid = _strategy


def test_the_draws_do_not_depend_on_the_modules_loaded(tmp_path, monkeypatch):
    """``fixed_constant_pool``: the same derandomized draws before and after a local module of odd literals loads.

    Without it the second run draws some of that module's constants (checked below), so the draws of the fuzz tests
    would change with the other tests that ran in the worker.
    """

    def draws(pool):
        seen = []

        @settings(max_examples=300, derandomize=True, database=None, deadline=None)
        @given(st.floats(allow_nan=False) | st.integers())
        def run(value):
            seen.append(value)

        with pool():
            run()
        return seen

    if not hasattr(sys.modules.get("hypothesis.internal.conjecture.providers"), "_get_local_constants"):
        pytest.skip("this Hypothesis has no pool of the modules' constants: its draws cannot depend on them")
    odd = [987654.321, -0.000123456789, 31415926535, -271828182]
    before = draws(fixed_constant_pool)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "odd_literals_module", raising=False)  # removed again after the test
    (tmp_path / "odd_literals_module.py").write_text("".join(f"C{i} = {value!r}\n" for i, value in enumerate(odd)))
    import odd_literals_module  # noqa: F401  # a local module: its literals join Hypothesis's pool

    assert draws(fixed_constant_pool) == before
    assert set(odd) & set(draws(contextlib.nullcontext)), "Hypothesis no longer draws the modules' constants"
