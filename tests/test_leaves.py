"""limetheory.pipelines.routes.leaves: the exact route for trees and tree ensembles, against enumeration of every mask.

The reference never uses the package's route: every one of the 2^d masks becomes lime's perturbed string
(``lt.perturbed_documents``), the real vectorizer and the real model give its output, and the conditional
moments E[f | s] and E[z_j f | s] are averages over the masks with s removed words; β is ``lt.beta_enumerate``
on the same outputs.  d <= 14, several Yelp reviews (with words that share a column under lower-casing), every
model family, binary counts, counts and unnormalised TF-IDF.
"""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp
from sklearn.dummy import DummyClassifier
from sklearn.ensemble import (
    ExtraTreesClassifier,
    GradientBoostingClassifier,
    GradientBoostingRegressor,
    RandomForestClassifier,
    RandomForestRegressor,
)
from sklearn.feature_extraction.text import CountVectorizer, TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor, ExtraTreeRegressor

import limetheory as lt
from limetheory.book import EXAMPLE_REVIEW_INDEX

# The route and enumeration compute the same sums in different orders, each term a product of at most d
# factors of order one: their moments agree to a few hundred ulps (measured: <= 3e-14).  β divides by
# cond(Σ) ~ 1e3 at these d and bandwidths, and the bound for every exact route is 1e-10.
TOL = 1e-10
BANDWIDTHS = (0.25, 1.0, np.inf)
# d = 12 ("Excellent"/"excellent"), 13 ("Love" twice, "Great"/"great"), 8 ("Still"/"still"), 10, 14
REVIEWS = (49, 190, 436, 669, 991)


def enumerate_moments(outputs, d):
    """E[f | s] and E[z_j f | s] (s = 1..d) from the model's outputs on all_masks(d), by plain averages."""
    z, s, _ = lt.all_masks(d)
    counts = np.bincount(s, minlength=d + 1)[1:]
    f_given_s = np.bincount(s, weights=outputs, minlength=d + 1)[1:] / counts
    zf_given_s = np.column_stack(
        [np.bincount(s, weights=outputs * z[:, j], minlength=d + 1)[1:] / counts for j in range(d)]
    )
    return f_given_s, zf_given_s


def model_outputs(model, vectorizer, text, output, label):
    """The real pipeline's output on every mask LIME can draw (all_masks order)."""
    d = len(lt.local_dictionary(text))
    z, _, _ = lt.all_masks(d)
    out = getattr(model, output)(vectorizer.transform(lt.perturbed_documents(text, z)))
    return np.asarray(out[:, label] if np.ndim(out) == 2 else out, dtype=float)


def check_exact(model, vectorizer, text, output, label=1):
    d = len(lt.local_dictionary(text))
    assert d <= 14
    outputs = model_outputs(model, vectorizer, text, output, label)
    f_given_s, zf_given_s = lt.conditional_moments_trees(model, vectorizer, text, output=output, label=label)
    expected_f, expected_zf = enumerate_moments(outputs, d)
    scale = max(1.0, float(np.abs(outputs).max()))
    np.testing.assert_allclose(f_given_s, expected_f, rtol=0, atol=TOL * scale)
    np.testing.assert_allclose(zf_given_s, expected_zf, rtol=0, atol=TOL * scale)
    for nu in BANDWIDTHS:
        expected = lt.beta_enumerate(lambda m: outputs[m @ (1 << np.arange(d))], d, nu=nu)
        beta = lt.beta_tree_model(model, vectorizer, text, nu=nu, output=output, label=label)
        np.testing.assert_allclose(beta, expected, rtol=0, atol=TOL * max(1.0, float(np.abs(expected).max())))
    return f_given_s


# ----------------------------------------------------------------------------- real reviews, every family

FAMILIES = {
    "tree-counts": (lambda: CountVectorizer(), lambda: DecisionTreeClassifier(random_state=0), "predict_proba"),
    "forest-binary": (
        lambda: CountVectorizer(binary=True),
        lambda: RandomForestClassifier(n_estimators=30, random_state=0, n_jobs=1),
        "predict_proba",
    ),
    "extra-trees-sublinear-tfidf": (
        lambda: TfidfVectorizer(norm=None, sublinear_tf=True),
        lambda: ExtraTreesClassifier(n_estimators=20, random_state=0, n_jobs=1),
        "predict_proba",
    ),
    "boosting-tfidf": (
        lambda: TfidfVectorizer(norm=None),
        lambda: GradientBoostingClassifier(n_estimators=30, random_state=0),
        "decision_function",
    ),
    "boosting-regressor-counts": (
        lambda: CountVectorizer(),
        lambda: GradientBoostingRegressor(n_estimators=30, random_state=0),
        "predict",
    ),
    "forest-regressor-binary-tfidf": (
        lambda: TfidfVectorizer(norm=None, binary=True),
        lambda: RandomForestRegressor(n_estimators=15, max_depth=12, random_state=0, n_jobs=1),
        "predict",
    ),
    "extra-tree-regressor-counts": (lambda: CountVectorizer(), lambda: ExtraTreeRegressor(random_state=0), "predict"),
}


@pytest.fixture(scope="module")
def fitted(yelp):
    texts, stars = yelp
    models, matrices = {}, {}
    for name, (make_vectorizer, make_model, output) in FAMILIES.items():
        # one fit and transform per vectorizer setting (three families share CountVectorizer()): the same vocabulary
        # and matrix as a fit of their own, at a third of the fixture's vectorizing
        vectorizer = make_vectorizer()
        key = repr(vectorizer)
        if key not in matrices:
            matrices[key] = (vectorizer.fit(texts), vectorizer.transform(texts))
        vectorizer, matrix = matrices[key]
        models[name] = (vectorizer, make_model().fit(matrix, stars), output)
    return models


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_every_family_equals_enumeration_on_real_reviews(family, fitted, yelp):
    vectorizer, model, output = fitted[family]
    texts, _ = yelp
    for index in REVIEWS:
        check_exact(model, vectorizer, texts[index], output)


def test_multiclass_models(yelp):
    """Three classes: each predict_proba column of a tree, each decision_function column of gradient boosting."""
    texts, stars = yelp
    classes = stars + (np.array([len(t) for t in texts]) > 300)  # 0, 1, 2
    vectorizer = CountVectorizer().fit(texts)
    X = vectorizer.transform(texts)
    tree = DecisionTreeClassifier(max_depth=8, random_state=0).fit(X, classes)
    boosting = GradientBoostingClassifier(n_estimators=8, random_state=0).fit(X, classes)
    text = texts[190]
    for label in range(3):
        check_exact(tree, vectorizer, text, "predict_proba", label)
        check_exact(boosting, vectorizer, text, "decision_function", label)


def test_boosting_with_zero_init_and_subsampling(yelp):
    texts, stars = yelp
    vectorizer = CountVectorizer(binary=True).fit(texts)
    model = GradientBoostingClassifier(n_estimators=15, init="zero", subsample=0.7, random_state=1)
    model.fit(vectorizer.transform(texts), stars)
    check_exact(model, vectorizer, texts[49], "decision_function")


# ----------------------------------------------------------------------------- words that share a column


def test_splits_on_how_many_words_of_a_shared_column_are_kept():
    """'The' (once) and 'the' (three times) feed one column whose count is 0, 1, 3 or 4: a split between 1 and 3
    asks for 'the' itself, a split between 3 and 4 for both.  The leaf conditions are on the group, not on a word."""
    rng = np.random.default_rng(3)
    corpus = [
        " ".join(rng.choice(["the", "food", "staff", "good", "bad"], size=rng.integers(1, 9))) for _ in range(300)
    ]
    vectorizer = CountVectorizer().fit(corpus)
    X = vectorizer.transform(corpus).toarray()
    the = X[:, vectorizer.vocabulary_["the"]]
    target = np.where(the >= 4, 2.0, np.where(the >= 2, 1.0, 0.0)) + 0.1 * X[:, vectorizer.vocabulary_["good"]]
    model = DecisionTreeRegressor(random_state=0).fit(X, target)
    thresholds = model.tree_.threshold[model.tree_.feature == vectorizer.vocabulary_["the"]]
    assert ((thresholds > 1) & (thresholds < 3)).any() and ((thresholds > 3) & (thresholds < 4)).any()
    text = "The food: the staff, the good, the end."
    check_exact(model, vectorizer, text, "predict")


# ----------------------------------------------------------------------------- refusals

CORPUS = ["good food", "bad food", "good staff", "bad staff", "The food was good", "the staff was bad"] * 4
LABELS = [1, 0, 1, 0, 1, 0] * 4


def fit(model, vectorizer):
    return model.fit(vectorizer.fit(CORPUS).transform(CORPUS), LABELS)


def test_normalised_tfidf_is_refused_and_points_to_explain():
    for norm in ("l2", "l1"):
        vectorizer = TfidfVectorizer(norm=norm)
        model = fit(RandomForestClassifier(n_estimators=3, random_state=0), vectorizer)
        with pytest.raises(ValueError, match=rf"norm='{norm}'.*not a function of which lime words.*lt\.explain"):
            lt.conditional_moments_trees(model, vectorizer, "good food, bad staff")


def test_models_without_leaves_are_refused():
    vectorizer = CountVectorizer(binary=True)
    logistic = fit(LogisticRegression(), vectorizer)
    with pytest.raises(TypeError, match=r"model must be a fitted scikit-learn tree.*lt\.explain"):
        lt.conditional_moments_trees(logistic, vectorizer, "good food")
    with pytest.raises(TypeError, match="model must be"):
        lt.conditional_moments_trees(lambda docs: docs, vectorizer, "good food")


def test_outputs_that_are_not_sums_of_leaves_are_refused():
    vectorizer = CountVectorizer(binary=True)
    forest = fit(RandomForestClassifier(n_estimators=3, random_state=0), vectorizer)
    boosting = fit(GradientBoostingClassifier(n_estimators=3), vectorizer)
    regressor = fit(GradientBoostingRegressor(n_estimators=3), vectorizer)
    with pytest.raises(ValueError, match="output must be 'predict_proba'"):
        lt.conditional_moments_trees(forest, vectorizer, "good food", output="predict")
    with pytest.raises(ValueError, match="output must be 'decision_function'"):
        lt.conditional_moments_trees(boosting, vectorizer, "good food")  # predict_proba: a sigmoid of the sum
    with pytest.raises(ValueError, match="output must be 'predict'"):
        lt.conditional_moments_trees(regressor, vectorizer, "good food", output="decision_function")
    with pytest.raises(ValueError, match="output must be one of"):
        lt.conditional_moments_trees(forest, vectorizer, "good food", output="proba")


def test_bad_arguments_are_named():
    vectorizer = CountVectorizer(binary=True)
    forest = fit(RandomForestClassifier(n_estimators=3, random_state=0), vectorizer)
    boosting = fit(GradientBoostingClassifier(n_estimators=3), vectorizer)
    with pytest.raises(ValueError, match="fitted"):
        lt.conditional_moments_trees(RandomForestClassifier(), vectorizer, "good food")
    with pytest.raises(ValueError, match=r"label must be a column of predict_proba, in \[0, 2\)"):
        lt.conditional_moments_trees(forest, vectorizer, "good food", label=2)
    with pytest.raises(TypeError, match="label must be an integer"):
        lt.conditional_moments_trees(forest, vectorizer, "good food", label=1.0)
    with pytest.raises(ValueError, match="label must be 1 for the decision_function of a binary"):
        lt.conditional_moments_trees(boosting, vectorizer, "good food", output="decision_function", label=0)
    with pytest.raises(ValueError, match="n_features_in_"):
        lt.conditional_moments_trees(forest, CountVectorizer().fit(["only two"]), "good food")
    with pytest.raises(ValueError, match="ngram_range"):
        lt.conditional_moments_trees(forest, TfidfVectorizer(ngram_range=(1, 2)).fit(CORPUS), "good food")
    with pytest.raises(TypeError, match="vectorizer"):
        lt.conditional_moments_trees(forest, object(), "good food")
    with pytest.raises(ValueError, match="text"):
        lt.conditional_moments_trees(forest, vectorizer, "!!!")
    multi = RandomForestRegressor(n_estimators=2).fit(vectorizer.transform(CORPUS), np.column_stack([LABELS, LABELS]))
    with pytest.raises(ValueError, match="single output"):
        lt.conditional_moments_trees(multi, vectorizer, "good food", output="predict")
    with pytest.raises(TypeError, match="nu="):
        lt.beta_tree_model(forest, vectorizer, "good food", 0.25)
    with pytest.raises(ValueError, match="nu must be > 0"):
        lt.beta_tree_model(forest, vectorizer, "good food", nu=0.0)


def test_boosting_with_a_fitted_init_model_is_refused():
    vectorizer = CountVectorizer(binary=True)
    model = fit(GradientBoostingRegressor(n_estimators=3, init=DecisionTreeRegressor(max_depth=2)), vectorizer)
    with pytest.raises(ValueError, match="init estimator .*DecisionTreeRegressor.* is not a constant"):
        lt.conditional_moments_trees(model, vectorizer, "good food", output="predict")
    stratified = GradientBoostingClassifier(n_estimators=3, init=DummyClassifier(strategy="stratified"))
    with pytest.raises(ValueError, match="stratified.* is not a constant"):
        lt.conditional_moments_trees(fit(stratified, vectorizer), vectorizer, "good food", output="decision_function")
    # a dummy that predicts the prior is a constant: accepted, and exact
    prior = fit(GradientBoostingClassifier(n_estimators=3, init=DummyClassifier(strategy="prior")), vectorizer)
    check_exact(prior, vectorizer, "good food, the staff was bad", "decision_function")


def test_a_constant_tree_and_a_document_the_model_cannot_see():
    """A tree that never splits, and a document none of whose words the vectorizer knows: constant models."""
    vectorizer = CountVectorizer(binary=True)
    stump = fit(DecisionTreeRegressor(max_depth=1, min_samples_leaf=len(CORPUS)), vectorizer)
    forest = fit(RandomForestClassifier(n_estimators=4, random_state=0), vectorizer)
    for model, output in ((stump, "predict"), (forest, "predict_proba")):
        f_given_s = check_exact(model, vectorizer, "unknown words only here", output)
        assert np.ptp(f_given_s) == 0.0  # the same leaves for every mask: the same sum


def test_a_forest_on_the_papers_review_equals_its_formula(yelp):
    """d = 29, beyond enumeration: the leaf route against the expansion into monomials of the trees' formulas."""
    texts, stars = yelp
    vectorizer = CountVectorizer(binary=True).fit(texts)
    forest = RandomForestClassifier(n_estimators=20, random_state=0, n_jobs=1).fit(vectorizer.transform(texts), stars)
    text = texts[EXAMPLE_REVIEW_INDEX]
    formulas = [lt.tree_formula_for_document(tree, vectorizer, text)[0] for tree in forest.estimators_]
    formula, words = sp.Add(*formulas) / len(formulas), lt.local_dictionary(text)
    assert len(words) == 29 and len(formula.free_symbols) >= 5
    for nu in BANDWIDTHS:
        expected = lt.beta_boolean(formula, words, nu=nu)
        beta = lt.beta_tree_model(forest, vectorizer, text, nu=nu)
        np.testing.assert_allclose(beta, expected, rtol=0, atol=TOL * max(1.0, float(np.abs(expected).max())))


def test_document_columns_groups_and_values():
    """Words sharing a column form one group; its values over the group's kept subsets are the vectorizer's."""
    from limetheory.engine.presence import document_columns

    vectorizer = CountVectorizer().fit(["the food was good", "bad staff"])
    columns = document_columns(vectorizer, "The food, the food and the staff. I")
    assert columns.words == ["The", "food", "the", "and", "staff", "I"]
    assert columns.groups == ((0, 2), (1,), (4,))  # "and" and "I" are invisible: in no group
    the, food = vectorizer.vocabulary_["the"], vectorizer.vocabulary_["food"]
    # subsets of (The, the): none, The, the, both -> counts 0, 1, 2, 3
    assert columns.values[the].tolist() == [0.0, 1.0, 2.0, 3.0] and columns.values[food].tolist() == [0.0, 2.0]
    assert columns.left_subsets(the, 1.5) == 0b0011  # count <= 1.5: none kept, or only "The"
    assert columns.left_subsets(vectorizer.vocabulary_["bad"], 0.5) == 1  # a column no word feeds is 0: left
    with pytest.raises(ValueError, match="n_features_in_ = 3"):
        document_columns(vectorizer, "good food", n_features=3)


@pytest.mark.parametrize("family", ["forest-binary", "boosting-tfidf"])
def test_beta_without_the_square_moments_equals_beta_from_them(family, fitted, yelp):
    """A 400-word document: the β summed over s first (beta_tree_model) against the d x d moments' β.

    Both sum the same products in another order: the difference is the rounding of sums of d terms, divided by
    the bulk ratio (about 0.1 at these bandwidths), far below 1e-12 of the largest coefficient.
    """
    vectorizer, model, output = fitted[family]
    texts, _ = yelp
    text = " ".join(texts[:12])
    d = len(lt.local_dictionary(text))
    assert d >= 300
    for nu in (0.25, np.inf):
        direct = lt.beta_tree_model(model, vectorizer, text, nu=nu, output=output)
        f_given_s, zf_given_s = lt.conditional_moments_trees(model, vectorizer, text, output=output)
        square = lt.beta_from_conditional_moments(f_given_s, zf_given_s, nu=nu)
        np.testing.assert_allclose(direct, square, rtol=0, atol=1e-12 * max(1.0, float(np.abs(square).max())))


# ----------------------------------------------------------------------------- the compiled walk and the atoms


def list_atoms_by_size(events, columns, d):
    """atoms_by_size's sums by listing every atom of every event of nonzero value: {(a, b): [total, kept sums,
    removed sums, number of atoms, sum of |value|]} (atoms_by_size leaves out the events of value 0)."""
    from itertools import product

    sums = {}
    for kept, removed, value, shared in zip(*events, strict=True):
        if value == 0.0:
            continue
        options = []
        for g, allowed in shared:
            group = columns.groups[g]
            options.append([t for t in range(1 << len(group)) if (allowed >> t) & 1])
        for choice in product(*options):
            atom_kept, atom_removed = kept.copy(), removed.copy()
            for (g, _), t in zip(shared, choice, strict=True):
                for i, word in enumerate(columns.groups[g]):
                    (atom_kept if (t >> i) & 1 else atom_removed)[word] = True
            size = (int(atom_kept.sum()), int(atom_removed.sum()))
            entry = sums.setdefault(size, [0.0, np.zeros(d), np.zeros(d), 0, 0.0])
            entry[0] += value
            entry[3] += 1
            entry[4] += abs(value)
            entry[1][atom_kept] += value
            entry[2][atom_removed] += value
    return sums


@pytest.mark.parametrize("bow", [True, False])
def test_the_compiled_walk_equals_the_python_walk_and_the_atoms_their_list(bow, fitted, yelp):
    """The compiled walk gives the Python walk's events, in its order and with its sums bit for bit; the atoms
    summed by size equal the listed atoms' sums.  Those are n terms summed in another order (the route multiplies
    an event's value by its number of atoms of a size): each side's rounding is at most n eps sum |terms|."""
    from limetheory.engine.presence import document_columns
    from limetheory.pipelines.reading.modes import TextMode, mode_document_columns
    from limetheory.pipelines.routes import leaves
    from limetheory.pipelines.routes.leaf_atoms import LISTED_ATOMS, atoms_by_size
    from limetheory.pipelines.routes.leaf_walk import events_from_dict

    texts, _ = yelp
    # short and long reviews; with bow=False, words repeated up to 12 times: events with more atoms than listed
    chosen = [49, 190, 436, 669, 991, 3, 17, 120, 333, 512]
    large = 0
    for family in ("forest-binary", "boosting-tfidf", "tree-counts"):
        vectorizer, model, output = fitted[family]
        _, trees, node_values = leaves._components(model, output, 1)
        for index in chosen:
            try:
                if bow:
                    columns = document_columns(vectorizer, texts[index], n_features=model.n_features_in_)
                else:
                    columns = mode_document_columns(texts[index], vectorizer, TextMode(bow=False))
            except ValueError:  # more than 12 occurrences of a word
                continue
            d = len(columns.words)
            compiled = leaves._leaf_events(trees, node_values, columns, d)
            python = events_from_dict(leaves._leaf_events_python(trees, node_values, columns), d)
            assert compiled.shared == python.shared
            for got, expected in zip(compiled[:3], python[:3], strict=True):
                assert got.dtype == expected.dtype and np.array_equal(got, expected)
            atoms = [np.prod([bin(allowed).count("1") for _, allowed in shared]) for shared in compiled.shared]
            if sum(atoms) > 20000:  # listing them in Python would take seconds
                continue
            large += sum(n > LISTED_ATOMS for n in atoms)
            a, b, total, kept, removed, _ = atoms_by_size(compiled, columns, d)
            listed = list_atoms_by_size(compiled, columns, d)
            assert sorted(listed) == sorted(zip(a.tolist(), b.tolist(), strict=True))
            for q, size in enumerate(zip(a.tolist(), b.tolist(), strict=True)):
                expected_total, expected_kept, expected_removed, n_terms, magnitude = listed[size]
                scale = 2 * n_terms * np.finfo(float).eps * magnitude
                assert abs(total[q] - expected_total) <= scale
                np.testing.assert_allclose(kept[q], expected_kept, rtol=0, atol=scale)
                np.testing.assert_allclose(removed[q], expected_removed, rtol=0, atol=scale)
    assert bow or large  # the events summed by convolution were among those checked


def test_atom_probabilities_are_the_factor_products_and_the_binomial_ratio():
    """The compiled products equal the numpy loop they replace bit for bit, and the ratio of binomials
    C(d - a - b, k - a) / C(d, k) to a few ulps (each of the a + b factors is rounded once)."""
    from math import comb

    from limetheory.pipelines.routes.leaf_atoms import atom_probabilities

    def numpy_loop(a, b, d):
        kept = (d - np.arange(1, d + 1)).astype(float)
        out = np.ones((len(a), d))
        possible = a + b <= d
        for i in range(int(a.max(initial=0))):
            use = (i < a) & possible
            out[use] *= np.maximum(kept - i, 0.0) / (d - i)
        for i in range(int(b.max(initial=0))):
            use = (i < b) & possible
            out[use] *= np.maximum(d - kept - i, 0.0) / (d - a[use] - i)[:, None]
        out[~possible] = 0.0
        return out

    rng = np.random.default_rng(0)
    for d in (1, 2, 7, 40, 300):
        a, b = rng.integers(0, d + 1, size=50), rng.integers(0, d + 1, size=50)  # a + b > d: some rows 0
        got = atom_probabilities(a, b, d)
        assert np.array_equal(got, numpy_loop(a, b, d))
        for r in range(len(a)):
            for s in range(1, d + 1):
                k = d - s
                fits = a[r] + b[r] <= d and a[r] <= k and b[r] <= s
                exact = comb(int(d - a[r] - b[r]), int(k - a[r])) / comb(d, k) if fits else 0.0
                assert abs(got[r, s - 1] - exact) <= 4 * (a[r] + b[r]) * np.finfo(float).eps * exact
