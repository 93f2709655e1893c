"""lt.explain: each exact route against enumeration with the real pipeline, the Monte Carlo route's standard errors,
lime's predicted spread against runs of lime, the Explanation's views, and the refusals of bad input."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from lime.lime_text import LimeTextExplainer
from sklearn.ensemble import GradientBoostingClassifier, RandomForestClassifier
from sklearn.feature_extraction.text import CountVectorizer, TfidfVectorizer
from sklearn.linear_model import LinearRegression, LogisticRegression, RidgeClassifier, SGDClassifier
from sklearn.neural_network import MLPClassifier
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.svm import LinearSVC
from sklearn.tree import DecisionTreeClassifier
from toy_reviews import DOCS, LABELS, TEXTS

import limetheory as lt
from limetheory.book import EXAMPLE_REVIEW_INDEX

#: β of the exact routes vs enumeration: the linear route's quadrature is accurate to about 1e-12 relative to
#: max |lam| (linear_exact's docstring) and enumeration sums 2^d values of order one, so 1e-10 relative to the
#: largest coefficient leaves a margin of 100 for rounding at d <= 14
EXACT_RTOL = 1e-10


def _close(beta, reference):
    scale = max(1.0, float(np.abs(reference).max()))
    np.testing.assert_allclose(beta, reference, rtol=0, atol=EXACT_RTOL * scale)


def _shares_a_column(text, vectorizer):
    columns = lt.word_columns(text, vectorizer)[0]
    visible = columns[columns >= 0]
    return len(set(visible.tolist())) < len(visible)


@pytest.fixture(scope="module")
def yelp(data_dir):
    reviews = lt.load_yelp_reviews()
    texts, labels = reviews["text"].tolist(), reviews["stars"].to_numpy()
    # several real reviews of 9 to 14 distinct words (2^d masks: cheap to enumerate), the first two with words that
    # share a column of the default vectorizer ("The" and "the") and the first two without, in the file's order (the
    # search stops once it has both pairs)
    vectorizer = TfidfVectorizer().fit(texts)
    shared, single = [], []
    for text in texts:
        if len(shared) == len(single) == 2:
            break
        if 9 <= len(lt.local_dictionary(text)) <= 14:
            found = shared if _shares_a_column(text, vectorizer) else single
            if len(found) < 2:
                found.append(text)
    small = shared + single
    assert len(small) == 4
    return texts, labels, small


# ----------------------------------------------------------------------------- exact routes vs enumeration

LINEAR_PIPELINES = [
    (TfidfVectorizer(), LogisticRegression(), "decision_function"),
    (TfidfVectorizer(norm=None), LogisticRegression(), "decision_function"),
    (TfidfVectorizer(norm="l1", smooth_idf=False), LogisticRegression(), "decision_function"),
    (TfidfVectorizer(sublinear_tf=True, lowercase=False), LinearSVC(), "decision_function"),
    (CountVectorizer(), RidgeClassifier(), "decision_function"),
    (CountVectorizer(binary=True, lowercase=False), SGDClassifier(random_state=0), "decision_function"),
    (TfidfVectorizer(norm=None), LinearRegression(), "predict"),
]


@pytest.mark.parametrize("vectorizer, estimator, output", LINEAR_PIPELINES, ids=lambda v: type(v).__name__)
def test_linear_route_equals_enumeration_on_toy_documents(vectorizer, estimator, output):
    """Every linear model and vectorizer setting: the exact linear route equals enumeration with the real pipeline."""
    model = make_pipeline(vectorizer, estimator).fit(DOCS, LABELS)
    label = 0 if output == "predict" else 1
    for text in TEXTS:
        exact = lt.explain(model, text, output=output, label=label)
        reference = lt.explain(model, text, output=output, label=label, method="enumeration")
        assert exact.method == "linear" and exact.exact and exact.stderr is None, exact.notes
        _close(exact.beta, reference.beta)


def test_linear_route_binary_label_zero_is_the_opposite_score():
    model = make_pipeline(CountVectorizer(), LogisticRegression()).fit(DOCS, LABELS)
    one = lt.explain(model, TEXTS[1], output="decision_function", label=1)
    zero = lt.explain(model, TEXTS[1], output="decision_function", label=0)
    assert one.method == zero.method == "linear"
    np.testing.assert_array_equal(zero.beta, -one.beta)  # the same sums with the opposite sign


def test_linear_route_on_yelp_reviews(yelp, yelp_logistic):
    """A logistic regression on the default TfidfVectorizer (words share columns under lower-casing) and on counts,
    real reviews: the linear route equals enumeration to rounding."""
    texts, labels, small = yelp
    model = yelp_logistic  # the same fit on the same reviews (conftest, once per worker)
    counts = make_pipeline(CountVectorizer(), LogisticRegression(max_iter=1000)).fit(texts, labels)
    for text in small:
        for pipeline in (model, counts):
            exact = lt.explain(pipeline, text, output="decision_function")
            reference = lt.explain(pipeline, text, output="decision_function", method="enumeration")
            assert exact.method == "linear", exact.notes
            _close(exact.beta, reference.beta)


def test_linear_route_multiclass_and_regressor_labels():
    """A three-class model: each column of decision_function; a regressor: its one output is label 0."""
    labels = [0, 1, 2, 0, 1, 2, 0, 1]
    model = make_pipeline(TfidfVectorizer(), LogisticRegression()).fit(DOCS, labels)
    for label in range(3):
        exact = lt.explain(model, TEXTS[1], output="decision_function", label=label)
        reference = lt.explain(model, TEXTS[1], output="decision_function", label=label, method="enumeration")
        assert exact.method == "linear"
        _close(exact.beta, reference.beta)
    with pytest.raises(ValueError, match=r"label must be in 0\.\.2"):
        lt.explain(model, TEXTS[1], output="decision_function", label=3)
    regressor = make_pipeline(CountVectorizer(), LinearRegression()).fit(DOCS, np.arange(8.0))
    with pytest.raises(ValueError, match=r"label must be in 0\.\.0"):
        lt.explain(regressor, TEXTS[1], output="predict", label=1)
    assert lt.explain(regressor, TEXTS[1], output="predict", label=0).method == "linear"
    assert lt.explain(regressor, TEXTS[1], output="predict").label == 0  # one output: lime's label is its column


def test_nonlinear_steps_between_vectorizer_and_model_leave_the_closed_routes():
    """A pipeline with a non-linear step after the vectorizer: no closed route reads it, enumeration (exact) does."""
    from sklearn.preprocessing import Normalizer

    model = make_pipeline(CountVectorizer(), Normalizer(), LogisticRegression()).fit(DOCS, LABELS)
    result = lt.explain(model, TEXTS[1], output="decision_function")
    assert result.method == "enumeration" and result.exact
    assert result.notes[0].startswith("linear: the step 'normalizer' (Normalizer) is not one of the linear steps")


TREE_PIPELINES = [
    (CountVectorizer(binary=True), RandomForestClassifier(n_estimators=20, random_state=0), "predict_proba"),
    (CountVectorizer(), DecisionTreeClassifier(random_state=0), "predict_proba"),
    (TfidfVectorizer(norm=None), GradientBoostingClassifier(n_estimators=20, random_state=0), "decision_function"),
]


@pytest.mark.parametrize("vectorizer, estimator, output", TREE_PIPELINES, ids=lambda v: type(v).__name__)
def test_tree_route_equals_enumeration(yelp, vectorizer, estimator, output):
    pytest.importorskip("limetheory.pipelines.routes.leaves")
    texts, labels, small = yelp
    model = make_pipeline(vectorizer, estimator).fit(texts, labels)
    for text in small[:3]:
        for label in (0, 1):
            exact = lt.explain(model, text, output=output, label=label)
            reference = lt.explain(model, text, output=output, label=label, method="enumeration")
            assert exact.method == "trees", exact.notes
            _close(exact.beta, reference.beta)


def test_normalised_tfidf_tree_is_not_exact_beyond_enumeration(yelp):
    """A forest on normalised TF-IDF has splits that are not presence functions: Monte Carlo, with the reason."""
    texts, labels, _ = yelp
    model = make_pipeline(TfidfVectorizer(), RandomForestClassifier(n_estimators=10, random_state=0)).fit(texts, labels)
    text = texts[EXAMPLE_REVIEW_INDEX]
    result = lt.explain(model, text, num_samples=3000)
    assert result.method == "monte_carlo" and not result.exact
    assert result.stderr is not None and result.stderr.shape == result.beta.shape
    assert any(note.startswith("trees:") for note in result.notes)


def test_enumeration_route_equals_beta_enumerate_of_the_pipeline():
    """The enumeration route is beta_enumerate over lime's perturbed strings through the pipeline."""
    network = MLPClassifier((5,), solver="lbfgs", max_iter=2000, random_state=0)
    model = make_pipeline(TfidfVectorizer(), network).fit(DOCS, LABELS)
    text = TEXTS[0]
    result = lt.explain(model, text)
    assert result.method == "enumeration" and result.exact
    d = len(result.words)

    def f(z):
        return model.predict_proba(lt.perturbed_documents(text, z))[:, 1]

    np.testing.assert_array_equal(result.beta, lt.beta_enumerate(f, d, nu=0.25))


# ----------------------------------------------------------------------------- the Monte Carlo route


def test_monte_carlo_standard_errors_are_honest():
    """Over 30 seeds the z-scores (estimate - exact) / stderr behave as standard normal ones.

    270 z-scores (30 seeds x 9 coefficients, correlated within a seed): their mean square is 1 in expectation;
    with at most 9 correlated values per seed its standard deviation is at most sqrt(2 * 9 / 270) = 0.26, so
    [0.5, 1.6] is about 2 of those on either side; and 95% of |z| should be below 1.96 (binomial sd 1.3%, and
    more with the correlation: [0.88, 0.995]).
    """
    model = make_pipeline(TfidfVectorizer(), LogisticRegression()).fit(DOCS, LABELS)
    text = "The food was good but the staff rude"
    exact = lt.explain(model, text, method="enumeration")
    z = []
    for seed in range(30):
        estimate = lt.explain(model, text, method="monte_carlo", max_calls=1500, tol=1e-9, random_state=seed)
        assert not estimate.exact and estimate.num_samples <= 1500
        z.append((estimate.beta - exact.beta) / estimate.stderr)
    z = np.concatenate(z)
    assert 0.5 <= np.mean(z**2) <= 1.6, np.mean(z**2)
    assert 0.88 <= np.mean(np.abs(z) < 1.96) <= 0.995


def test_monte_carlo_is_reproducible_and_reaches_its_target_by_default():
    """The default budget reaches tol = 0.1 of lime's spread at n = 5000, and the notes say so (and how it scored)."""
    model = make_pipeline(TfidfVectorizer(), LogisticRegression()).fit(DOCS, LABELS)
    text = "The food was good but the staff rude"
    first = lt.explain(model, text, method="monte_carlo", random_state=3)
    second = lt.explain(model, text, method="monte_carlo", random_state=3)
    np.testing.assert_array_equal(first.beta, second.beta)
    assert any(note.endswith("within the target tol = 0.1") for note in first.notes)  # the linked reading: tol
    assert any("the link of its linear reading" in note for note in first.notes)  # a logistic regression
    assert (first.stderr <= 0.1 * first.lime_spread(5000).std * 1.2).all()  # Ω re-estimated: 20% slack


def test_monte_carlo_refuses_an_ill_conditioned_sigma():
    """At small bandwidth Σ⁻¹ amplifies rounding beyond use: the Monte Carlo route says so, enumeration still holds."""
    model = make_pipeline(TfidfVectorizer(), LogisticRegression()).fit(DOCS, LABELS)
    text = "The food was good but the staff rude"
    with pytest.raises(ValueError, match="condition number .* exceeds 1e\\+10"):
        lt.explain(model, text, kernel_width=1.0, method="monte_carlo")
    with pytest.warns(UserWarning, match="lime at num_samples=5000 will not agree with the limit"):
        assert lt.explain(model, text, kernel_width=1.0).method == "enumeration"


def test_exact_routes_ignore_num_samples():
    model = make_pipeline(CountVectorizer(), LogisticRegression()).fit(DOCS, LABELS)
    with pytest.warns(UserWarning, match="lime at num_samples=100 will not agree"):  # lime's ridge at n = 100
        result = lt.explain(model, TEXTS[1], output="decision_function", num_samples=100)
    assert result.method == "linear" and result.num_samples is None


# ----------------------------------------------------------------------------- against real lime


def test_lime_spread_predicts_real_lime():
    """Real lime (its own explainer, every word kept), 40 runs at n = 2000: the mean is within 4 standard errors of
    the predicted centre and the spread of the runs matches the predicted std (sample sd of 40 runs: relative
    error about 1/sqrt(80) = 11%, so [0.6, 1.5] is beyond 3 of those)."""
    model = make_pipeline(TfidfVectorizer(), LogisticRegression()).fit(DOCS, LABELS)
    text = "The food was good but the staff rude"
    result = lt.explain(model, text)
    runs = lt.lime_explanations(text, model.predict_proba, n_exp=40, num_samples=2000)
    spread = result.lime_spread(2000)
    assert spread.exact and spread.omega_samples is None  # d = 8: every mask enumerated
    error = (runs.mean(axis=0) - spread.centre) / (spread.std / np.sqrt(len(runs)))
    assert np.abs(error).max() < 4.0, error
    ratio = runs.std(axis=0, ddof=1) / spread.std
    assert (0.6 < ratio).all() and (ratio < 1.5).all(), ratio


def test_second_order_spread_predicts_many_runs():
    """n = 80 on an eight-word document (every mask enumerated), 2500 runs of LIME's law (the fast engine's batched
    stream): lime's mean is within 5 standard errors of the second-order centre c_n + b_n for every coefficient and
    its standard deviations within 5 sampling errors of a standard deviation (5 / sqrt(2 * 2499) = 7%) of the
    second-order ones, while the first order misses on both (its bias is O(1/n), 17 standard errors here)."""
    model = make_pipeline(TfidfVectorizer(), LogisticRegression()).fit(DOCS, LABELS)
    text = "The food was good but the staff rude"
    result = lt.explain(model, text)
    n, n_runs = 80, 2500
    runs = lt.fast_lime_explanations(
        text, model[0], model[-1].predict_proba, n_exp=n_runs, num_samples=n, stream="batched", random_state=3
    )
    first, second = result.lime_spread(n), result.lime_spread(n, order=2)
    assert (first.order, second.order) == (1, 2)
    mean, sd = runs.mean(axis=0), runs.std(axis=0, ddof=1)
    se = second.std / np.sqrt(n_runs)
    assert np.abs((mean - second.centre) / se).max() <= 5.0
    assert np.abs(sd / second.std - 1).max() <= 5 / np.sqrt(2 * (n_runs - 1))
    assert np.abs((mean - first.centre) / se).max() > 5.0
    assert np.abs(sd / first.std - 1).max() > 5 / np.sqrt(2 * (n_runs - 1))


def test_lime_spread_order_is_checked():
    model = make_pipeline(TfidfVectorizer(), LogisticRegression()).fit(DOCS, LABELS)
    result = lt.explain(model, "The food was good but the staff rude")
    for order in (0, 3, True, "2"):
        with pytest.raises(ValueError, match="order must be 1 or 2"):
            result.lime_spread(100, order=order)


REAL_LIME_ROUTES = [
    ("linear", TfidfVectorizer(), LogisticRegression(max_iter=1000), "decision_function"),
    ("trees", CountVectorizer(binary=True), RandomForestClassifier(n_estimators=20, random_state=0), "predict_proba"),
]


@pytest.mark.parametrize("route, vectorizer, estimator, output", REAL_LIME_ROUTES, ids=[r[0] for r in REAL_LIME_ROUTES])
def test_exact_routes_against_real_lime(yelp, route, vectorizer, estimator, output):
    """Real lime (LimeTextExplainer, every word kept), 30 runs at n = 1000 on a real review: the mean of the runs is
    within 4.5 standard errors of the centre lime_spread predicts around the exact β, for every coefficient (with
    d + 1 <= 15 coefficients, a true normal mean exceeds 4.5 standard errors with probability < 1e-4)."""
    texts, labels, small = yelp
    model = make_pipeline(vectorizer, estimator).fit(texts, labels)
    text = small[0]
    result = lt.explain(model, text, output=output)
    assert result.method == route and result.exact

    def classifier_fn(documents):
        if output == "predict_proba":
            return model.predict_proba(documents)
        score = model.decision_function(documents)
        return np.column_stack([-score, score])

    runs = lt.lime_explanations(text, classifier_fn, n_exp=30, num_samples=1000)
    spread = result.lime_spread(1000)
    z = (runs.mean(axis=0) - spread.centre) / (spread.std / np.sqrt(len(runs)))
    assert np.abs(z).max() < 4.5, z


def test_lime_spread_estimated_for_long_documents(yelp):
    """d > 14: Ω is estimated from a stated number of masks, and still predicts lime's spread (lime's own stream)."""
    texts, labels, _ = yelp
    vectorizer = TfidfVectorizer().fit(texts)
    classifier = LogisticRegression(max_iter=1000).fit(vectorizer.transform(texts), labels)
    model = Pipeline([("tfidf", vectorizer), ("logistic", classifier)])
    text = texts[EXAMPLE_REVIEW_INDEX]
    result = lt.explain(model, text, output="decision_function")
    spread = result.lime_spread(5000)
    assert not spread.exact and spread.omega_samples > 10_000

    def decision(matrix):
        score = classifier.decision_function(matrix)
        return np.column_stack([-score, score])

    runs = lt.fast_lime_explanations(text, vectorizer, decision, n_exp=60, num_samples=5000)
    ratio = runs.std(axis=0, ddof=1) / spread.std
    assert (0.55 < ratio).all() and (ratio < 1.5).all(), ratio  # sd of 60 runs: relative error 9%, and Ω's


def test_as_list_has_lime_format():
    """as_list matches the structure of lime's own Explanation.as_list(): (word, weight) by decreasing |weight|."""
    model = make_pipeline(TfidfVectorizer(), LogisticRegression()).fit(DOCS, LABELS)
    text = "The food was good but the staff rude"
    ours = lt.explain(model, text).as_list()
    theirs = (
        LimeTextExplainer(random_state=0)
        .explain_instance(text, model.predict_proba, num_features=8, num_samples=500)
        .as_list()
    )
    assert sorted(w for w, _ in ours) == sorted(str(w) for w, _ in theirs)
    assert all(type(w) is str and type(v) is float for w, v in ours)
    weights = [abs(v) for _, v in ours]
    assert weights == sorted(weights, reverse=True)


# ----------------------------------------------------------------------------- the views


def test_frame_plot_and_html():
    import matplotlib.axes

    model = make_pipeline(TfidfVectorizer(), LogisticRegression()).fit(DOCS, LABELS)
    result = lt.explain(model, TEXTS[0], method="monte_carlo", num_samples=600)
    frame = result.to_frame()
    assert isinstance(frame, pd.DataFrame) and list(frame.columns) == ["coefficient", "stderr"]
    assert frame.index[0] == "(intercept)" and list(frame.index[1:]) == result.words
    assert isinstance(result.plot(max_words=3), matplotlib.axes.Axes)
    html = result._repr_html_()
    assert "monte_carlo" in html and "<table>" in html and len(html) < 3000


def test_html_rows_are_read_by_position_when_a_word_repeats():
    """With bow=False lime's features repeat a word: each row shows its own value and standard error."""
    from limetheory.pipelines.results.word_table import word_table_html

    table = word_table_html(
        ["good", "food", "good"], np.array([0.1, 0.2, -0.5]), np.array([0.01, 0.03, 0.02]), [2, 1, 0]
    )
    rows = table.split("</tr>")[:3]
    assert "-0.5 ± 0.02" in rows[0] and "+0.2 ± 0.03" in rows[1] and "+0.1 ± 0.01" in rows[2]


# ----------------------------------------------------------------------------- bad input


@pytest.fixture(scope="module")
def fitted():
    return make_pipeline(TfidfVectorizer(), LogisticRegression()).fit(DOCS, LABELS)


def test_refuses_a_model_that_is_not_a_pipeline(fitted):
    with pytest.raises(TypeError, match="model must be a fitted scikit-learn Pipeline"):
        lt.explain(fitted.steps[1][1], TEXTS[0])


def test_refuses_a_closed_route_it_cannot_prove():
    with pytest.raises(ValueError, match="method='linear' does not apply.*bigram|method='linear' does not apply"):
        lt.explain(
            make_pipeline(TfidfVectorizer(ngram_range=(1, 2)), LogisticRegression()).fit(DOCS, LABELS),
            TEXTS[0],
            output="decision_function",
            method="linear",
        )


def test_refuses_an_unfitted_model():
    with pytest.raises(ValueError, match="model must be a fitted Pipeline"):
        lt.explain(make_pipeline(TfidfVectorizer(), LogisticRegression()), TEXTS[0])


def test_refuses_a_label_out_of_range(fitted):
    with pytest.raises(ValueError, match=r"label must be in 0\.\.1"):
        lt.explain(fitted, TEXTS[0], label=2)
    with pytest.raises(TypeError, match="label must be an integer"):
        lt.explain(fitted, TEXTS[0], label="1")


def test_refuses_an_output_the_model_lacks():
    forest = make_pipeline(CountVectorizer(), RandomForestClassifier(n_estimators=3, random_state=0))
    forest.fit(DOCS, LABELS)
    with pytest.raises(ValueError, match="has no decision_function; its outputs are"):
        lt.explain(forest, TEXTS[0], output="decision_function")
    with pytest.raises(ValueError, match="output must be one of"):
        lt.explain(forest, TEXTS[0], output="proba")
    with pytest.raises(ValueError, match="class labels"):
        lt.explain(forest, TEXTS[0], output="predict")


def test_refuses_a_document_without_words(fitted):
    for text in ["", "   ", "!!! ...", "word"]:
        with pytest.raises(ValueError, match="text must"):
            lt.explain(fitted, text)
    with pytest.raises(TypeError, match="text must be a str"):
        lt.explain(fitted, None)


def test_refuses_nu_and_other_bad_arguments(fitted):
    with pytest.raises(TypeError, match="kernel_width = 100 ν.*kernel_width=25"):
        lt.explain(fitted, TEXTS[0], nu=0.25)
    with pytest.raises(TypeError, match="unexpected keyword"):
        lt.explain(fitted, TEXTS[0], bandwidth=0.25)
    with pytest.raises(TypeError):
        lt.explain(fitted, TEXTS[0], 25)  # kernel_width is keyword-only too
    with pytest.raises(ValueError, match="kernel_width must be a finite number > 0"):
        lt.explain(fitted, TEXTS[0], kernel_width=0)
    with pytest.raises(ValueError, match="method must be one of"):
        lt.explain(fitted, TEXTS[0], method="exact")
    with pytest.raises(ValueError, match="max_calls must be >= "):
        lt.explain(fitted, TEXTS[0], method="monte_carlo", max_calls=5)
    with pytest.raises(ValueError, match="method='trees' does not apply"):
        lt.explain(fitted, TEXTS[0], method="trees")
