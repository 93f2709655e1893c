"""lt.explain on lime's own call: any classifier_fn, bound methods of pipelines, pipelines of any shape, lime's
labels/top_labels/num_features/random_state conventions against real lime, to_lime, linear steps and float32,
the agreement check against real lime, lime's spread at any d, and bad input."""

from __future__ import annotations

import re
import warnings

import IPython.display
import matplotlib
import numpy as np
import pandas as pd
import pytest
from lime.explanation import Explanation as LimeExplanation
from lime.lime_text import LimeTextExplainer
from sklearn.compose import ColumnTransformer
from sklearn.feature_extraction.text import CountVectorizer, HashingVectorizer, TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import FeatureUnion, Pipeline, make_pipeline
from sklearn.preprocessing import MaxAbsScaler, StandardScaler
from toy_reviews import DOCS, LABELS

import limetheory as lt
from limetheory.pipelines.reading.lime_variance import solve_patterned
from limetheory.pipelines.reading.pipeline_reading import LinearReading, self_check_tolerance
from limetheory.theory.coefficients import sigma_inverse, sigma_matrix
from limetheory.theory.explanation import all_masks
from limetheory.theory.sampling import kernel_weights

matplotlib.use("Agg")

THREE = [0, 1, 2, 0, 1, 2, 0, 1]
TEXT = "The food was good but the staff rude"  # d = 8
#: β of two exact routes (or one route against enumeration): sums of 2^d values of order one in double precision
#: (d <= 14) and the linear route's quadrature, 1e-12 relative (linear_exact); 1e-10 leaves a margin of 100
EXACT_RTOL = 1e-10


def _close(beta, reference, rtol=EXACT_RTOL):
    scale = max(1.0, float(np.abs(reference).max()))
    np.testing.assert_allclose(beta, reference, rtol=0, atol=rtol * scale)


@pytest.fixture(scope="module")
def binary():
    return make_pipeline(TfidfVectorizer(), LogisticRegression()).fit(DOCS, LABELS)


@pytest.fixture(scope="module")
def multiclass():
    return make_pipeline(TfidfVectorizer(), LogisticRegression()).fit(DOCS, THREE)


@pytest.fixture(scope="module")
def long_text():
    reviews = lt.load_yelp_reviews()
    return next(t for t in reviews.text if 20 <= len(lt.local_dictionary(t)) <= 30)  # the first such review


def _quiet(call):
    """Run ``call`` and return its result with the warnings it raised."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = call()
    return result, [w for w in caught if issubclass(w.category, UserWarning)]


# ----------------------------------------------------------------------------- classifier_fn and bound methods


def test_classifier_fn_of_two_columns_equals_the_pipeline(binary):
    """lime's classifier_fn (an anonymous function): every mask through it, the same β as the Pipeline's route."""
    result = lt.explain(lambda docs: binary.predict_proba(docs), TEXT)
    reference = lt.explain(binary, TEXT, method="enumeration")
    assert result.method == "enumeration" and result.exact and result.output == "classifier_fn"
    assert result.label == 1 and result.labels == (1,)
    np.testing.assert_array_equal(result.beta, reference.beta)


def test_classifier_fn_of_one_score_is_label_zero(binary):
    """(n,) outputs: one score, label 0; its β is the binary decision_function's label 1 (exact, linear route)."""
    score = lt.explain(lambda docs: binary.decision_function(docs), TEXT)
    assert score.label == 0 and score.labels == (0,) and len(score.document_outputs) == 1
    linear = lt.explain(binary, TEXT, output="decision_function")
    assert linear.method == "linear"
    _close(score.beta, linear.beta)
    lists = lt.explain(lambda docs: [[float(len(doc))] for doc in docs], TEXT)  # lists of lists: lime's (n, 1)
    assert lists.label == 0 and lists.exact


def test_bound_methods_are_read_as_their_pipeline(binary):
    """pipe.decision_function and pipe.predict_proba: the pipeline's own routes and outputs."""
    decision = lt.explain(binary.decision_function, TEXT)
    assert decision.method == "linear" and decision.output == "decision_function" and decision.label == 1
    _close(decision.beta, lt.explain(binary, TEXT, output="decision_function").beta)
    proba = lt.explain(binary.predict_proba, TEXT)
    assert proba.output == "predict_proba" and proba.class_names == ("0", "1")
    np.testing.assert_array_equal(proba.beta, lt.explain(binary, TEXT).beta)
    with pytest.raises(ValueError, match="output='predict_proba' contradicts the method passed as model"):
        lt.explain(binary.decision_function, TEXT, output="predict_proba")


@pytest.mark.parametrize(
    "function, error, message",
    [
        (lambda docs: np.ones((len(docs) + 1, 2)), ValueError, r"shape \(n,\) or \(n, k\).*n = 1 documents"),
        (lambda docs: np.ones((len(docs), 2, 1)), ValueError, r"shape \(n,\) or \(n, k\)"),
        (lambda docs: np.ones((len(docs), 0)), ValueError, r"k >= 1"),
        (lambda docs: ["x"] * len(docs), TypeError, "classifier_fn must return numbers"),
        (lambda docs: np.full((len(docs), 2), np.nan), ValueError, "non-finite"),
        (lambda docs: np.ones((len(docs), 2 if len(docs) == 1 else 3)), ValueError, "must not depend on the text"),
    ],
    ids=["rows", "3-d", "no column", "strings", "nan", "columns change"],
)
def test_classifier_fn_outputs_are_checked(function, error, message):
    with pytest.raises(error, match=message):
        lt.explain(function, TEXT)


def test_classifier_fn_labels_and_output_are_checked():
    def score(docs):
        return np.arange(len(docs), dtype=float)

    with pytest.raises(ValueError, match=r"label must be in 0\.\.0 \(the model's output has 1 columns\)"):
        lt.explain(score, TEXT, label=1)
    with pytest.raises(TypeError, match="a classifier_fn is its own output"):
        lt.explain(score, TEXT, output="predict_proba")
    with pytest.raises(TypeError, match="model must be a fitted scikit-learn Pipeline or lime's classifier_fn"):
        lt.explain(LogisticRegression(), TEXT)


def test_classifier_fn_estimate_is_honest(binary, long_text):
    """A classifier_fn that secretly wraps a linear pipeline: its exact β is known (the linear route of the bound
    method), and the estimate through the function (d > 14) has honest standard errors.

    20 seeds x (d + 1) z-scores (correlated within a seed): their mean square is 1 in expectation and, with at most
    d + 1 <= 31 correlated values per seed, has standard deviation at most sqrt(2 * 31 / (20 * 31)) = 0.32, so
    [0.4, 1.9] is beyond 2 of those on either side."""
    model = make_pipeline(TfidfVectorizer(), LogisticRegression()).fit(DOCS * 3, LABELS * 3)
    exact = lt.explain(model.decision_function, long_text)
    assert exact.method == "linear"
    z = []
    for seed in range(20):
        estimate = lt.explain(lambda docs: model.decision_function(docs), long_text, max_calls=1500, random_state=seed)
        assert estimate.method == "monte_carlo" and not estimate.exact
        assert any(note.startswith("enumeration: the document has d = ") for note in estimate.notes)
        z.append((estimate.beta - exact.beta) / estimate.stderr)
    z = np.concatenate(z)
    assert 0.4 <= np.mean(z**2) <= 1.9, np.mean(z**2)


# ----------------------------------------------------------------------------- lime's conventions, against lime


def test_labels_and_num_features_as_lime(multiclass):
    """labels=(0, 2) and num_features=3: the labels and the number of words of lime's own explanation."""
    theirs = LimeTextExplainer(random_state=0).explain_instance(
        TEXT, multiclass.predict_proba, labels=(0, 2), num_features=3, num_samples=300
    )
    ours = lt.explain(multiclass.predict_proba, TEXT, labels=(0, 2), num_features=3)
    assert ours.labels == (0, 2) and sorted(theirs.available_labels()) == [0, 2]
    for label in (0, 2):
        assert len(ours.as_list(label=label)) == len(theirs.as_list(label=label)) == 3
        member = ours.for_label(label)
        reference = lt.explain(multiclass, TEXT, label=label, method="enumeration")
        np.testing.assert_array_equal(member.beta, reference.beta)
        # lime's answer at num_features=3 ('auto': forward selection), its refit on the selected words
        limit = lt.lime_selection_limit(reference.beta, kernel_width=25, num_features=3, feature_selection="auto")
        assert ours.as_list(label=label) == [(member.words[j], c) for j, c in limit.as_list()]
    assert len(ours.as_list(num_features=5)) == 5 and len(ours.as_list()) == 3
    with pytest.raises(ValueError, match=r"label 1 was not explained: this explanation holds labels \(0, 2\)"):
        ours.as_list(label=1)


def test_top_labels_as_lime(multiclass):
    """top_labels=2: lime's two largest outputs on the document, largest first, and lime's labels ignored."""
    theirs = LimeTextExplainer(random_state=0).explain_instance(
        TEXT, multiclass.predict_proba, top_labels=2, num_samples=300
    )
    ours = lt.explain(multiclass, TEXT, top_labels=2)
    assert list(ours.top_labels) == theirs.top_labels == list(ours.labels)
    assert ours.label == theirs.top_labels[0]
    assert lt.explain(multiclass, TEXT, top_labels=0).labels == (1,)  # lime: `if top_labels:`
    with pytest.raises(TypeError, match="top_labels chooses the labels"):
        lt.explain(multiclass, TEXT, top_labels=1, labels=(0,))


def test_default_labels_are_limes(binary):
    """lime's labels=(1,) by default; label= (the earlier keyword) is one label; both at once are refused."""
    assert lt.explain(binary, TEXT).labels == (1,)
    zero = lt.explain(binary, TEXT, label=0)
    assert zero.labels == (0,) and zero.label == 0
    np.testing.assert_array_equal(zero.beta, lt.explain(binary, TEXT, labels=[0]).beta)
    with pytest.raises(TypeError, match="pass label= .* or labels="):
        lt.explain(binary, TEXT, label=1, labels=(1,))
    with pytest.raises(ValueError, match=r"labels must be in 0\.\.1"):
        lt.explain(binary, TEXT, labels=(0, 5))
    with pytest.raises(TypeError, match="labels must be an iterable of integers"):
        lt.explain(binary, TEXT, labels=1)


def test_random_state_none_draws_a_recorded_seed(binary, long_text):
    """random_state=None: each call draws a fresh seed (as lime's None), recorded so that the call can be repeated."""
    first = lt.explain(binary, long_text, random_state=None, max_calls=1500)
    second = lt.explain(binary, long_text, random_state=None, max_calls=1500)
    assert first.method == "monte_carlo" and first.random_state != second.random_state
    assert not np.array_equal(first.beta, second.beta)
    again = lt.explain(binary, long_text, random_state=first.random_state, max_calls=1500)
    np.testing.assert_array_equal(again.beta, first.beta)
    generator = lt.explain(binary, long_text, random_state=np.random.default_rng(3), max_calls=1500)
    assert generator.random_state == np.random.default_rng(3).integers(0, 2**63 - 1)
    legacy = lt.explain(binary, long_text, random_state=np.random.RandomState(3), max_calls=1500)
    assert legacy.random_state == np.random.RandomState(3).randint(0, 2**31 - 1)


def _without_ids(html):
    """lime's HTML without its random div ids (drawn anew on each call)."""
    return re.sub(r"top_div[A-Z0-9]+", "top_div", html)


def test_to_lime_gives_limes_views(multiclass, monkeypatch):
    """to_lime: lime's own Explanation with our coefficients; as_list, as_map, as_html, as_pyplot_figure, notebook."""
    import matplotlib.figure
    import matplotlib.pyplot as plt

    ours = lt.explain(multiclass.predict_proba, TEXT, labels=(0, 2), num_features=4)
    theirs = ours.to_lime()
    assert isinstance(theirs, LimeExplanation)
    assert sorted(theirs.available_labels()) == [0, 2] and theirs.class_names == ["0", "1", "2"]
    for label in (0, 2):
        assert [(str(w), v) for w, v in theirs.as_list(label=label)] == ours.as_list(label=label)
        assert theirs.intercept[label] == ours.lime_answer(label).selection.intercept  # the refit's intercept
    np.testing.assert_array_equal(theirs.predict_proba, multiclass.predict_proba([TEXT])[0])
    assert set(theirs.as_map()) == {0, 2}
    html = theirs.as_html()
    assert "<html>" in html and "good" in html
    figure = theirs.as_pyplot_figure(label=2)
    assert isinstance(figure, matplotlib.figure.Figure)
    plt.close(figure)
    with pytest.raises(ImportError):  # lime's own, on an explanation lime made: IPython 9 moved display
        LimeExplanation.show_in_notebook(theirs)
    shown = []
    monkeypatch.setattr(IPython.display, "display", shown.append)  # what a notebook would render
    theirs.show_in_notebook(labels=[2])
    assert len(shown) == 1
    assert _without_ids(shown[0].data) == _without_ids(theirs.as_html(labels=[2]))
    named = ours.to_lime(class_names=["bad", "fine", "good"])
    assert named.class_names == ["bad", "fine", "good"]
    with pytest.raises(ValueError, match="class_names must name the output's 3 columns"):
        ours.to_lime(class_names=["a", "b"])
    with pytest.raises(TypeError, match="class_names must be a sequence of str"):
        ours.to_lime(class_names="abc")
    top = lt.explain(multiclass, TEXT, top_labels=2).to_lime()
    assert top.top_labels == list(np.argsort(multiclass.predict_proba([TEXT])[0])[-2:][::-1])


def test_to_lime_with_lime_text_modes(binary):
    """bow=False: lime's ids are occurrences; to_lime maps them to the words as lime's TextDomainMapper does."""
    text = "good food, good service"
    ours = lt.explain(binary.decision_function, text, bow=False)
    theirs = ours.to_lime()
    assert [str(w) for w, _ in theirs.as_list()] == [w for w, _ in ours.as_list()]


# ----------------------------------------------------------------------------- pipelines of other shapes


LINEAR_STEPS = [
    ("standard scaler", [TfidfVectorizer(), StandardScaler(with_mean=False)]),
    ("max-abs scaler", [CountVectorizer(), MaxAbsScaler()]),
    ("passthrough", [TfidfVectorizer(), "passthrough"]),
    ("two steps", [TfidfVectorizer(norm=None), MaxAbsScaler(), StandardScaler(with_mean=False)]),
]


@pytest.mark.parametrize("name, steps", LINEAR_STEPS, ids=[case[0] for case in LINEAR_STEPS])
def test_linear_steps_keep_the_linear_route(name, steps):
    """Scalers without centring and passthrough are linear maps of the columns: the linear route equals enumeration."""
    model = Pipeline([(f"step{i}", step) for i, step in enumerate(steps)] + [("model", LogisticRegression())])
    model.fit(DOCS, LABELS)
    exact = lt.explain(model.decision_function, TEXT)
    reference = lt.explain(model, TEXT, output="decision_function", method="enumeration")
    assert exact.method == "linear", exact.notes
    _close(exact.beta, reference.beta)


def test_float32_tfidf_is_exact_to_its_rounding():
    """TfidfVectorizer(dtype=float32): the linear route (double precision) against enumeration of the real float32
    pipeline.  The route's self-check bounds the pipeline's rounding on each mask by self_check_tolerance; β is a
    linear map of the outputs, β_j = Σ_z W_jz f(z) with W = Σ⁻¹ x_z π_z P(z), so the two β differ by at most
    Σ_z |W_jz| tol(z) per coefficient."""
    model = make_pipeline(TfidfVectorizer(dtype=np.float32), LogisticRegression()).fit(DOCS, LABELS)
    exact = lt.explain(model.decision_function, TEXT)
    assert exact.method == "linear", exact.notes
    reference = lt.explain(model, TEXT, output="decision_function", method="enumeration")
    d = len(exact.words)
    z, s, prob = all_masks(d)
    reading = LinearReading(model, model[0], TEXT, "decision_function", 1)
    tolerance = self_check_tolerance(reading.epsilon, reading.visible, reading(z, magnitude=True))
    x = np.column_stack([np.ones(len(z)), z])
    weights = sigma_inverse(d, nu=0.25) @ (x * (kernel_weights(d, nu=0.25)[s - 1] * prob)[:, None]).T
    bound = np.abs(weights) @ tolerance
    assert (np.abs(exact.beta - reference.beta) <= bound).all()
    assert np.abs(exact.beta - reference.beta).max() > 0  # float32 rounding is seen: the check is not vacuous
    assert reading.epsilon == np.finfo(np.float32).eps


def test_pipelines_without_a_closed_route_are_read_through_their_outputs():
    """HashingVectorizer, FeatureUnion and a ColumnTransformer reading one column: enumeration through the pipeline,
    equal to the same pipeline wrapped in an anonymous classifier_fn (predict_proba is not linear in the features;
    their decision functions' linear route is tested in test_text_features.py)."""
    hashing = make_pipeline(HashingVectorizer(n_features=2**10), LogisticRegression()).fit(DOCS, LABELS)
    characters = TfidfVectorizer(analyzer="char_wb", ngram_range=(2, 3))
    union = make_pipeline(FeatureUnion([("words", TfidfVectorizer()), ("chars", characters)]), LogisticRegression())
    union.fit(DOCS, LABELS)
    for model in (hashing, union):
        result = lt.explain(model, TEXT)
        assert result.method == "enumeration" and result.exact
        assert result.notes[0].startswith("linear: output='predict_proba' is not linear in the features")
        wrapped = lt.explain(lambda docs, model=model: model.predict_proba(docs), TEXT)
        np.testing.assert_array_equal(result.beta, wrapped.beta)
    frame = pd.DataFrame({"review": DOCS})
    column = make_pipeline(ColumnTransformer([("text", TfidfVectorizer(), "review")]), LogisticRegression())
    column.fit(frame, LABELS)
    result = lt.explain(column.predict_proba, TEXT)
    wrapped = lt.explain(lambda docs: column.predict_proba(pd.DataFrame({"review": docs})), TEXT)
    np.testing.assert_array_equal(result.beta, wrapped.beta)
    array = make_pipeline(ColumnTransformer([("text", TfidfVectorizer(), 0)]), LogisticRegression())
    array.fit(np.array(DOCS, dtype=object).reshape(-1, 1), LABELS)
    assert lt.explain(array, TEXT).exact
    two = make_pipeline(
        ColumnTransformer([("text", TfidfVectorizer(), "review"), ("n", "passthrough", ["stars"])]),
        LogisticRegression(),
    ).fit(frame.assign(stars=np.arange(8.0)), LABELS)
    with pytest.raises(TypeError, match="ColumnTransformer reads 2 input columns.*pass a classifier_fn"):
        lt.explain(two, TEXT)


def test_long_pipelines_without_a_closed_route_are_estimated(long_text):
    """d > 14 and no closed route (HashingVectorizer): the estimate, with its reasons."""
    hashing = make_pipeline(HashingVectorizer(n_features=2**10), LogisticRegression()).fit(DOCS, LABELS)
    result = lt.explain(hashing, long_text, max_calls=1500)
    assert result.method == "monte_carlo" and not result.exact and result.stderr is not None
    assert [note.split(":")[0] for note in result.notes[:3]] == ["linear", "trees", "enumeration"]
    assert result.notes[-1].startswith("estimate from ")


# ----------------------------------------------------------------------------- never refuse what lime can run


def test_an_exact_route_above_max_work_gives_way_to_the_estimate(binary, long_text):
    """A work limit below the linear route's cost: auto takes the estimate and says what max_work runs the route;
    the route asked by name is refused with the same estimate."""
    result = lt.explain(binary.decision_function, long_text, max_work=1e3, max_calls=1500)
    assert result.method == "monte_carlo"
    linear_note = result.notes[0]
    assert linear_note.startswith("linear: ") and "floating-point operations (about" in linear_note
    assert "explain(..., method='linear', max_work=" in linear_note
    with pytest.raises(ValueError, match=r"method='linear' does not apply.*max_work="):
        lt.explain(binary.decision_function, long_text, max_work=1e3, method="linear")
    assert lt.explain(binary.decision_function, long_text, max_work=1e12).method == "linear"


# ----------------------------------------------------------------------------- will lime agree?


def test_small_kernel_width_warns_with_what_lime_returns(binary):
    """kernel_width = 3: the limit is far from lime's centre at n = 5000; the warning's centre is what real lime
    returns (20 runs of lime's stream through the fast engine: their mean within 4 standard errors of it, for each
    coefficient), and far from the limit."""
    result, caught = _quiet(lambda: lt.explain(binary, TEXT, output="decision_function", kernel_width=3))
    assert result.exact and len(caught) == 1 and "will not agree with the limit" in str(caught[0].message)
    assert "lime_spread(5000).centre" in str(caught[0].message) and "will not agree" in result.notes[-1]
    spread = result.lime_spread(5000)

    def decision(matrix):
        score = binary[-1].decision_function(matrix)
        return np.column_stack([-score, score])

    runs = lt.fast_lime_explanations(TEXT, binary[0], decision, n_exp=20, num_samples=5000, kernel_width=3)
    error = np.sqrt(spread.std**2 / len(runs) + runs.var(axis=0, ddof=1) / len(runs))
    assert (np.abs(runs.mean(axis=0) - spread.centre) <= 4 * error).all()
    assert (np.abs(runs.mean(axis=0) - result.beta) > 4 * error).any()


def test_default_call_does_not_warn_and_few_samples_do(binary):
    _, caught = _quiet(lambda: lt.explain(binary, TEXT))
    assert caught == []
    result, caught = _quiet(lambda: lt.explain(binary, TEXT, output="decision_function", num_samples=30))
    assert len(caught) == 1 and "lime at num_samples=30 will not agree" in str(caught[0].message)
    assert result.lime_num_samples == 30 and result.lime_spread().num_samples == 30


def test_kernel_width_below_one_warns_about_the_unit(binary):
    """kernel_width=0.25 (ν's value by mistake): the unit's warning, and lime's disagreement at that width."""
    _, caught = _quiet(lambda: lt.explain(binary, TEXT, kernel_width=0.25, output="decision_function"))
    messages = [str(w.message) for w in caught]
    assert messages[0].startswith("kernel_width=0.25 is lime's unit, ν = kernel_width / 100 = 0.0025; the paper's")
    assert "will not agree with the limit" in messages[1] and len(messages) == 2


# ----------------------------------------------------------------------------- lime's spread at any d


def test_patterned_solve_and_spread_equal_the_dense_formulas(binary):
    """solve_patterned against numpy's solve; lime_spread against the dense sandwich m A⁻¹ Ω A⁻¹ (d = 8, Ω over all
    masks).  The dense route inverts A (condition number below 1e4 here): 1e-9 relative is a margin of 1e3 over it."""
    rng = np.random.default_rng(0)
    d, nu, n = 8, 0.25, 700
    matrix = (n - 1) * sigma_matrix(d, nu=nu) + np.diag([0.0] + [1.0] * d) + 1.0
    rows = rng.normal(size=(3, d + 1))
    solved = solve_patterned(matrix[0, 0], matrix[0, 1], matrix[1, 1], matrix[1, 2], rows)
    np.testing.assert_allclose(solved, np.linalg.solve(matrix, rows.T).T, rtol=1e-12, atol=1e-14)
    result = lt.explain(binary, TEXT)
    spread = result.lime_spread(n)
    sample = result.sample
    centre = np.linalg.solve(matrix, (n - 1) * sigma_matrix(d, nu=nu) @ result.beta + result.y0)
    x = np.column_stack([np.ones(len(sample.z)), sample.z])
    w = x * (sample.psi * (sample.f - x @ centre))[:, None]
    mean = sample.prob @ w
    omega = (w * sample.prob[:, None]).T @ w - np.outer(mean, mean)
    inverse = np.linalg.inv(matrix)
    std = np.sqrt(np.diag((n - 1) * inverse @ omega @ inverse))
    np.testing.assert_allclose(spread.centre, centre, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(spread.std, std, rtol=1e-9)


def test_spread_and_plot_at_large_d(binary):
    """A document of several hundred words (exact linear route): lime_spread from 20000 masks or from fewer than two
    per size (i.i.d.), and plot with and without the spread."""
    import matplotlib.axes
    import matplotlib.pyplot as plt

    reviews = lt.load_yelp_reviews()
    text = " ".join(reviews.text[:20])
    result = lt.explain(binary.decision_function, text)
    d = len(result.words)
    assert result.method == "linear" and d > 300
    spread = result.lime_spread(5000)
    assert not spread.exact and spread.omega_samples >= 19_000 and (spread.std[1:] > 0).all()
    few = result.lime_spread(5000, omega_samples=d)  # fewer than two masks per size: i.i.d. masks
    assert few.omega_samples == d and np.isfinite(few.std).all()
    ratio = few.std[1:] / spread.std[1:]
    assert 0.5 < np.median(ratio) < 2.0
    for kwargs in ({}, {"spread": False}):
        ax = result.plot(max_words=5, **kwargs)
        assert isinstance(ax, matplotlib.axes.Axes) and len(ax.get_yticklabels()) == 5
        assert (ax.get_legend() is None) == (kwargs == {"spread": False})
        plt.close(ax.figure)


# ----------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        ({"num_features": 0}, ValueError, "num_features must be >= 1"),
        ({"num_features": 2.5}, TypeError, "num_features must be an integer"),
        ({"top_labels": -1}, ValueError, "top_labels must be >= 0"),
        ({"random_state": -1}, ValueError, "random_state must be >= 0"),
        ({"random_state": "seed"}, TypeError, "random_state must be an integer"),
        ({"max_calls": 1}, ValueError, "max_calls must be >= 2"),
        ({"max_work": 0}, ValueError, "max_work must be a finite number > 0"),
        ({"num_samples": 0}, ValueError, "num_samples must be >= 1"),
        ({"labels": ()}, ValueError, "labels must hold at least one label"),
        ({"labels": ("1",)}, TypeError, "labels must be an integer"),
    ],
    ids=lambda v: str(v)[:30],
)
def test_refuses_bad_lime_arguments(binary, kwargs, error, message):
    with pytest.raises(error, match=message):
        lt.explain(binary, TEXT, **kwargs)


def test_explanation_methods_refuse_bad_input(binary):
    result = lt.explain(binary, TEXT)
    with pytest.raises(TypeError, match="label must be an integer"):
        result.for_label("1")
    with pytest.raises(ValueError, match="num_features must be >= 1"):
        result.as_list(num_features=0)
    with pytest.raises(TypeError, match="spread must be True or False"):
        result.plot(spread="no")


def test_long_documents_are_estimated_not_refused():
    """d ≈ 400 with the default 20000 masks: the estimate's work estimate is above the exact routes' limit (it was
    refused), and it is answered, as lime answers it."""
    reviews = lt.load_yelp_reviews()
    text = " ".join(reviews.text[:8])
    d = len(lt.local_dictionary(text))
    assert 300 < d < 600

    def positive(documents):  # a cheap black box: the share of a few positive words
        return np.array([[sum(doc.count(w) for w in ("good", "great", "love")) / (1 + len(doc))] for doc in documents])

    result = lt.explain(positive, text, max_calls=20_000, progress=False)
    assert result.method == "monte_carlo" and not result.exact and np.isfinite(result.beta).all()
