"""lt.shapley: each exact route against Shapley values enumerated here through the real pipeline on lime's own
perturbed strings, and against shap's ExactExplainer; the permutation estimate's standard errors; the weights
by size against sympy; the result's views; the refusals of bad input."""

from __future__ import annotations

import importlib
import math
from itertools import combinations

import numpy as np
import pytest
import sympy as sp
from lime.lime_text import IndexedString
from sklearn.ensemble import GradientBoostingClassifier, RandomForestClassifier, RandomForestRegressor
from sklearn.feature_extraction.text import CountVectorizer, TfidfVectorizer
from sklearn.linear_model import LinearRegression, LogisticRegression
from sklearn.neural_network import MLPClassifier
from sklearn.pipeline import make_pipeline
from sklearn.tree import DecisionTreeClassifier
from toy_reviews import DOCS, LABELS, TEXTS

import limetheory as lt
from limetheory.pipelines.shapley_values.exact import permutation_estimate
from limetheory.theory.shapley_sizes import shapley_from_weighted_moments, shapley_size_weights

#: φ of the exact routes vs enumeration: the linear route's moments are accurate to about 1e-13 max |lam|
#: (linear_exact's docstring), the Shapley weights d/(s(d-s)) and 1/s sum to about 2 log d, and enumeration sums
#: 2^d values of order one with weights below 1: 1e-10 relative to the largest value leaves a margin of 100
EXACT_RTOL = 1e-10


def _close(values, reference):
    scale = max(1.0, float(np.abs(reference).max()))
    np.testing.assert_allclose(values, reference, rtol=0, atol=EXACT_RTOL * scale)


def reference_shapley(fn, text):
    """Shapley values of lime's words by the definition, subset by subset, on lime's own strings.

    Independent of the package: the documents come from lime's ``IndexedString.inverse_removing`` and the
    weights |S|! (d - |S| - 1)! / d! from math.factorial.
    """
    indexed = IndexedString(text)
    d = indexed.num_words()
    subsets = [frozenset(c) for m in range(d + 1) for c in combinations(range(d), m)]
    documents = [indexed.inverse_removing([j for j in range(d) if j not in kept]) for kept in subsets]
    value = dict(zip(subsets, np.asarray(fn(documents), dtype=float), strict=True))
    phi = np.zeros(d)
    for j in range(d):
        for kept in subsets:
            if j in kept:
                continue
            weight = math.factorial(len(kept)) * math.factorial(d - len(kept) - 1) / math.factorial(d)
            phi[j] += weight * (value[kept | {j}] - value[kept])
    return value[frozenset()], phi


def _output(model, output, label):
    def fn(documents):
        out = np.asarray(getattr(model, output)(documents), dtype=float)
        if out.ndim == 1:
            return out if label == 1 or output == "predict" else -out
        return out[:, label]

    return fn


LINEAR_VECTORIZERS = {
    "tfidf-l2": lambda: TfidfVectorizer(),
    "tfidf-l1": lambda: TfidfVectorizer(norm="l1"),
    "tfidf-none": lambda: TfidfVectorizer(norm=None),
    "tfidf-sublinear": lambda: TfidfVectorizer(sublinear_tf=True, lowercase=False),
    "counts": lambda: CountVectorizer(),
    "binary": lambda: CountVectorizer(binary=True, lowercase=False),
}


@pytest.mark.parametrize("vectorizer", sorted(LINEAR_VECTORIZERS))
@pytest.mark.parametrize("text", TEXTS)
def test_linear_route_is_the_enumerated_shapley_value(vectorizer, text):
    model = make_pipeline(LINEAR_VECTORIZERS[vectorizer](), LogisticRegression(C=10.0)).fit(DOCS, LABELS)
    for label in (0, 1):
        phi = lt.shapley(model, text, output="decision_function", label=label)
        assert phi.method == "linear" and phi.exact and phi.stderr is None
        base, reference = reference_shapley(_output(model, "decision_function", label), text)
        _close(phi.values, reference)
        assert abs(phi.base - base) <= EXACT_RTOL * max(1.0, abs(base))
        assert abs(phi.efficiency_gap) <= EXACT_RTOL * max(1.0, float(np.abs(phi.values).max()))


def test_linear_regressor_and_raw_counts_closed_form():
    """On raw counts a linear model's Shapley value is λ_j x_j: its coefficient times the word's count."""
    model = make_pipeline(CountVectorizer(), LinearRegression()).fit(DOCS, np.arange(len(DOCS), dtype=float))
    text = TEXTS[1]
    phi = lt.shapley(model, text, output="predict", label=0)
    assert phi.method == "linear"
    vectorizer, regression = model.steps[0][1], model.steps[1][1]
    columns, counts = lt.word_columns(text, vectorizer)
    expected = np.where(columns >= 0, regression.coef_[np.maximum(columns, 0)] * counts, 0.0)
    _close(phi.values, expected)
    _close(phi.values, reference_shapley(_output(model, "predict", 0), text)[1])


TREE_MODELS = {
    "tree": (lambda: DecisionTreeClassifier(random_state=0), "predict_proba"),
    "forest": (lambda: RandomForestClassifier(n_estimators=15, random_state=0), "predict_proba"),
    "boosting": (lambda: GradientBoostingClassifier(n_estimators=10, random_state=0), "decision_function"),
    "forest-regressor": (lambda: RandomForestRegressor(n_estimators=8, random_state=0), "predict"),
}


@pytest.mark.parametrize("kind", sorted(TREE_MODELS))
@pytest.mark.parametrize("text", TEXTS)
def test_tree_route_is_the_enumerated_shapley_value(kind, text):
    make, output = TREE_MODELS[kind]
    target = np.arange(len(DOCS), dtype=float) if output == "predict" else LABELS
    model = make_pipeline(CountVectorizer(), make()).fit(DOCS, target)
    for label in (0,) if output == "predict" else (0, 1):
        phi = lt.shapley(model, text, output=output, label=label)
        assert phi.method == "trees" and phi.exact
        base, reference = reference_shapley(_output(model, output, label), text)
        _close(phi.values, reference)
        assert abs(phi.base - base) <= EXACT_RTOL
        assert abs(phi.efficiency_gap) <= EXACT_RTOL


def test_enumeration_route_for_a_network():
    model = make_pipeline(TfidfVectorizer(), MLPClassifier((8,), solver="lbfgs", random_state=0, max_iter=500))
    model.fit(DOCS, LABELS)
    text = TEXTS[0]
    phi = lt.shapley(model, text)
    assert phi.method == "enumeration" and phi.notes  # linear and trees refused, with their reasons
    base, reference = reference_shapley(_output(model, "predict_proba", 1), text)
    _close(phi.values, reference)
    assert abs(phi.base - base) <= EXACT_RTOL


#: shap's numba-compiled loops that ExactExplainer calls (module, name): numba compiles them without a cache in every
#: process, 4 of the 5 CPU-s of the first test below; run as the Python functions they are compiled from, they do the
#: same operations in the same order (bit for bit the compiled values on the d = 12 document below)
SHAP_COMPILED_LOOPS = [
    ("shap.utils._masked_model", "_build_fixed_single_output"),
    ("shap.utils._masked_model", "_build_fixed_multi_output"),
    ("shap.explainers._exact", "_compute_grey_code_row_values"),
]


def _shap_exact(model, output, label, text, monkeypatch):
    shap = pytest.importorskip("shap")
    for module, name in SHAP_COMPILED_LOOPS:
        monkeypatch.setattr(f"{module}.{name}", getattr(importlib.import_module(module), name).py_func)
    d = len(lt.local_dictionary(text))
    fn = _output(model, output, label)

    def f(masks):  # shap's masks over lime's words: the value function removes every occurrence of a word
        return fn(lt.perturbed_documents(text, np.asarray(masks, dtype=np.int8)))

    explainer = shap.ExactExplainer(f, lambda mask, x: (x * mask).reshape(1, -1))
    # every mask in one call of f (shap's default batch of 10 masks costs ~400 calls of the pipeline); f is row-wise
    out = explainer(np.ones((1, d)), silent=True, batch_size=2**d)
    return float(np.ravel(out.base_values)[0]), out.values[0]


@pytest.mark.parametrize(
    ("make", "output"),
    [
        (lambda: make_pipeline(TfidfVectorizer(), LogisticRegression()), "decision_function"),
        (
            lambda: make_pipeline(CountVectorizer(binary=True), RandomForestClassifier(10, random_state=0)),
            "predict_proba",
        ),
        (lambda: make_pipeline(TfidfVectorizer(), LogisticRegression()), "predict_proba"),
    ],
    ids=["linear", "trees", "enumeration"],
)
def test_agrees_with_shap_exact_explainer(make, output, monkeypatch):
    model = make().fit(DOCS, LABELS)
    text = "The food was good, the staff friendly but the wine cold and the place terrible"  # d = 12
    phi = lt.shapley(model, text, output=output)
    base, values = _shap_exact(model, output, 1, text, monkeypatch)
    _close(phi.values, values)
    assert abs(phi.base - base) <= EXACT_RTOL


def test_permutation_estimate_within_its_standard_errors():
    """d = 16 under predict_proba (no exact route): the estimate against enumeration, in standard errors."""
    text = "good food and good service but the staff was rude, the wine cold, never again: terrible place, great"
    model = make_pipeline(CountVectorizer(), LogisticRegression()).fit(DOCS, LABELS)
    d = len(lt.local_dictionary(text))
    assert d == 16
    estimate = lt.shapley(model, text, num_samples=20_000, random_state=1)
    assert estimate.method == "permutation" and not estimate.exact and estimate.num_samples <= 20_000
    assert abs(estimate.efficiency_gap) < 1e-12  # each order's contributions telescope
    fn = _output(model, "predict_proba", 1)
    base, exact = lt.shapley_enumerate(lambda z: fn(lt.perturbed_documents(text, z)), d)
    assert estimate.base == base
    # 16 words, each within 5 standard errors: a false alarm has probability below 1e-5 (seeded anyway)
    seen = estimate.stderr > 0  # a word the model cannot see contributes 0 in every order
    assert np.abs((estimate.values - exact)[seen] / estimate.stderr[seen]).max() < 5.0
    assert (estimate.values[~seen] == 0).all() and (
        np.abs(exact[~seen]) <= 8 * np.finfo(float).eps
    ).all()  # O(1) terms that cancel
    assert estimate.stderr.max() < 0.01


def test_antithetic_pairs_beat_independent_orders():
    """A probability of a linear score: the reversal's contributions are negatively correlated (seeded)."""
    d = 16
    lam = np.linspace(-1.5, 2.0, d)

    def f(z):
        return 1.0 / (1.0 + np.exp(-(np.asarray(z, float) @ lam - 0.5)))

    values, stderr, calls, base, full = permutation_estimate(f, d, 20_000, np.random.default_rng(0))
    # independent orders with the same budget: twice as many, each on its own
    rng = np.random.default_rng(0)
    singles = []
    for _ in range(calls // (d + 1)):
        order = rng.permutation(d)
        chain = f(np.array([np.isin(np.arange(d), order[:t]) for t in range(d + 1)], dtype=np.int8))
        marginal = np.empty(d)
        marginal[order] = np.diff(chain)
        singles.append(marginal)
    independent = np.std(singles, axis=0, ddof=1) / np.sqrt(len(singles))
    assert np.mean(stderr**2) < 0.5 * np.mean(independent**2)
    _, exact = lt.shapley_enumerate(f, d)
    assert np.abs((values - exact) / stderr).max() < 5.0


def test_size_weights_against_sympy():
    """ω_s = d/(s(d-s)): Shapley's weights of the kept sets of size k = d - s that contain j (w_{k-1}) and that
    avoid it (w_k), times their number C(d, k), for symbolic d and k (module docstring of shapley_sizes)."""
    d, k = sp.symbols("d k", positive=True, integer=True)

    def w(m):
        return sp.factorial(m) * sp.factorial(d - m - 1) / sp.factorial(d)

    assert sp.simplify(sp.combsimp((w(k - 1) + w(k)) * sp.binomial(d, k)) - d / (k * (d - k))) == 0
    assert sp.simplify(sp.combsimp(w(k) * sp.binomial(d, k)) - 1 / (d - k)) == 0  # the weight of F_s: 1/s
    for n in (2, 5, 40):
        expected = [float(sp.Rational(n, s * (n - s))) for s in range(1, n)]
        np.testing.assert_allclose(shapley_size_weights(n), expected, rtol=4e-16)


def test_from_moments_is_enumeration_on_random_set_functions():
    rng = np.random.default_rng(0)
    for d in (2, 3, 7, 10):
        table = rng.normal(size=2**d)
        codes = 1 << np.arange(d)

        def f(z, table=table, codes=codes):
            return table[np.asarray(z, dtype=np.int64) @ codes]

        base, phi = lt.shapley_enumerate(f, d)
        z = (np.arange(2**d)[:, None] >> np.arange(d)) & 1
        s = d - z.sum(axis=1)
        f_given_s = np.array([table[s == k].mean() for k in range(1, d + 1)])
        zf_given_s = np.array([(z[s == k] * table[s == k, None]).mean(axis=0) for k in range(1, d + 1)])
        values = lt.shapley_from_conditional_moments(table[-1], f_given_s, zf_given_s)
        np.testing.assert_allclose(values, phi, rtol=0, atol=1e-13 * d)
        weighted = shapley_size_weights(d) @ zf_given_s[: d - 1]
        np.testing.assert_allclose(shapley_from_weighted_moments(table[-1], f_given_s, weighted), phi, atol=1e-13 * d)
        assert base == table[0]
        assert abs(phi.sum() - (table[-1] - table[0])) < 1e-13 * d


def test_shapley_enumerate_against_the_definition_by_orders():
    """Shapley's average over all d! orders of the marginal contributions (d = 5, a random set function)."""
    from itertools import permutations

    rng = np.random.default_rng(2)
    d = 5
    table = rng.normal(size=2**d)

    def value(kept):
        return table[sum(1 << j for j in kept)]

    by_orders = np.zeros(d)
    for order in permutations(range(d)):
        for t, j in enumerate(order):
            by_orders[j] += value(order[: t + 1]) - value(order[:t])
    by_orders /= math.factorial(d)
    _, phi = lt.shapley_enumerate(lambda z: table[np.asarray(z, dtype=np.int64) @ (1 << np.arange(d))], d)
    np.testing.assert_allclose(phi, by_orders, rtol=0, atol=1e-14)


def test_views_of_the_result():
    model = make_pipeline(TfidfVectorizer(), LogisticRegression()).fit(DOCS, LABELS)
    phi = lt.shapley(model, TEXTS[0], output="decision_function")
    pairs = phi.as_list()
    assert [w for w, _ in pairs] == sorted(phi.words, key=lambda w: -abs(phi.values[phi.words.index(w)]))
    frame = phi.to_frame()
    assert frame.index.tolist() == phi.words and frame["shapley"].tolist() == phi.values.tolist()
    assert "Shapley values" in phi._repr_html_()
    import matplotlib

    matplotlib.use("Agg")
    ax = phi.plot(max_words=3)
    assert len(ax.patches) == 3
    estimate = lt.shapley(model, TEXTS[0], method="permutation", num_samples=200)
    assert "stderr" in estimate.to_frame().columns and "±" in estimate._repr_html_()


def test_bow_false_features_are_occurrences():
    model = make_pipeline(CountVectorizer(), LogisticRegression()).fit(DOCS, LABELS)
    text = TEXTS[1]
    phi = lt.shapley(model, text, output="decision_function", bow=False)
    assert phi.words == ["Good", "food", "bad", "service", "good", "wine"] and phi.method == "linear"
    reference = lt.shapley(model, text, output="decision_function", bow=False, method="enumeration")
    _close(phi.values, reference.values)


def test_a_classifier_fn_is_enumerated_against_the_definition():
    """lime's call: a plain function of strings (VADER-like: a rule on the words), reference by subsets."""

    def rule(documents):  # (n, 2): a score per document and its opposite
        score = np.array([doc.lower().count("good") - 2.0 * doc.count("bad") + 0.1 * len(doc) for doc in documents])
        return np.column_stack([-score, np.tanh(score)])

    text = TEXTS[1]
    phi = lt.shapley(rule, text)
    assert (phi.method, phi.output, phi.label, phi.exact) == ("enumeration", "classifier_fn", 1, True)
    base, reference = reference_shapley(lambda docs: rule(docs)[:, 1], text)
    _close(phi.values, reference)
    assert phi.base == base and abs(phi.efficiency_gap) < 1e-12
    one_column = lt.shapley(lambda docs: rule(docs)[:, 1], text)  # (n,) scores: lime's label 0
    assert one_column.label == 0 and np.array_equal(one_column.values, phi.values)


def test_a_classifier_fn_of_a_long_document_is_estimated_by_permutations():
    text = "good food and good service but the staff was rude, the wine cold, never again: terrible place, great"
    model = make_pipeline(CountVectorizer(), LogisticRegression()).fit(DOCS, LABELS)
    black_box = lt.shapley(lambda docs: model.predict_proba(docs), text, num_samples=4000, random_state=3)
    pipeline = lt.shapley(model, text, num_samples=4000, random_state=3)
    assert black_box.method == pipeline.method == "permutation" and black_box.output == "classifier_fn"
    # the same seed and the same model: the same orders, the same values
    assert np.array_equal(black_box.values, pipeline.values) and np.array_equal(black_box.stderr, pipeline.stderr)
    assert any(note.startswith("enumeration: the document has d = 16") for note in black_box.notes)


def test_a_bound_method_names_the_output():
    model = make_pipeline(TfidfVectorizer(), LogisticRegression()).fit(DOCS, LABELS)
    via_method = lt.shapley(model.decision_function, TEXTS[0])
    direct = lt.shapley(model, TEXTS[0], output="decision_function")
    assert via_method.method == "linear" and np.array_equal(via_method.values, direct.values)


BAD = [
    ("model", lambda m: lt.shapley(object(), "good food"), TypeError, "^model must be a fitted scikit-learn Pipeline"),
    (
        "fn-output",
        lambda m: lt.shapley(lambda docs: m.predict_proba(docs), "good food", output="predict_proba"),
        TypeError,
        "^output='predict_proba' names a Pipeline's method",
    ),
    (
        "fn-linear",
        lambda m: lt.shapley(lambda docs: m.predict_proba(docs), "good food", method="linear"),
        ValueError,
        "^method='linear' needs a Pipeline",
    ),
    ("fn-label", lambda m: lt.shapley(lambda docs: m.predict_proba(docs), "good food", label=2), ValueError, "^label"),
    ("text", lambda m: lt.shapley(m, None), TypeError, "^text must be a str"),
    ("one-word", lambda m: lt.shapley(m, "good good"), ValueError, "^text must contain at least 2 distinct words"),
    ("output", lambda m: lt.shapley(m, "good food", output="proba"), ValueError, "^output must be one of"),
    ("label", lambda m: lt.shapley(m, "good food", label=2), ValueError, "^label must be in 0..1"),
    ("label-float", lambda m: lt.shapley(m, "good food", label=1.0), TypeError, "^label must be an integer"),
    ("method", lambda m: lt.shapley(m, "good food", method="kernel"), ValueError, "^method must be one of"),
    ("trees-refused", lambda m: lt.shapley(m, "good food", method="trees"), ValueError, "^method='trees' does not"),
    ("samples", lambda m: lt.shapley(m, "good food", num_samples=1), ValueError, "^num_samples must be >= 2"),
    ("seed", lambda m: lt.shapley(m, "good food", random_state=-1), ValueError, "^random_state must be >= 0"),
    ("bow", lambda m: lt.shapley(m, "good food", bow="yes"), TypeError, "^bow must be"),
]


@pytest.mark.parametrize(("call", "error", "pattern"), [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_bad_input(call, error, pattern):
    model = make_pipeline(TfidfVectorizer(), LogisticRegression()).fit(DOCS, LABELS)
    with pytest.raises(error, match=pattern):
        call(model)


def test_unfitted_model_is_refused():
    with pytest.raises(ValueError, match="^model must be a fitted Pipeline"):
        lt.shapley(make_pipeline(TfidfVectorizer(), LogisticRegression()), "good food")
