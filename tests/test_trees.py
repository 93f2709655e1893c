"""pipelines.routes.trees: fitted scikit-learn trees as formulas in lime's words, against the trees themselves.

References never use the package's expansion: trees are evaluated by scikit-learn's own ``predict_proba`` on
every 0/1 input or on the documents lime builds, and beta is checked against ``beta_enumerate`` (all 2^d masks).
"""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp
from formula_checks import BANDWIDTHS, all_binary, close
from lime.lime_text import IndexedString
from sklearn.feature_extraction.text import CountVectorizer, TfidfVectorizer
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor, ExtraTreeClassifier

import limetheory as lt
from limetheory.book import EXAMPLE_REVIEW_INDEX, fit_yelp_vectorizer, train_random_forest

# ----------------------------------------------------------------------------- trees on 0/1 features


def random_binary_data(rng, n, d):
    X = (rng.random((n, d)) < rng.uniform(0.2, 0.8, size=d)).astype(np.int8)
    score = X[:, 0] - X[:, 1] * X[:, 2] + 0.5 * X[:, 3] + rng.normal(scale=0.6, size=n)
    return X, score


# seeds 0 (two classes, d = 9) and 1 (four classes, d = 6) in make test, the others in the slow group (every seed has
# d >= 5, so every bandwidth is checked)
@pytest.mark.parametrize("seed", [0, 1, *(pytest.param(seed, marks=pytest.mark.slow) for seed in range(2, 6))])
def test_tree_formula_equals_the_tree_on_every_input(seed):
    rng = np.random.default_rng(100 + seed)
    d = int(rng.integers(5, 11))
    X, score = random_binary_data(rng, 400, d)
    words = [f"w{j}" for j in range(d)]
    z = all_binary(d)
    labels = np.digitize(score, [-0.3, 0.4, 1.0]) if seed % 2 else (score > 0.2).astype(int)
    classifier = DecisionTreeClassifier(max_depth=int(rng.integers(2, 7)), random_state=seed).fit(X, labels)
    regressor = DecisionTreeRegressor(max_depth=5, min_samples_leaf=3, random_state=seed).fit(X, score)
    cases = [(classifier, k, classifier.predict_proba(z)[:, k]) for k in range(classifier.n_classes_)]
    cases.append((regressor, None, regressor.predict(z)))
    for tree, k, prediction in cases:
        for form in ("leaves", "piecewise"):
            expr = lt.tree_to_formula(tree, words, class_index=k, form=form)
            assert np.allclose(lt.mask_function(expr, words)(z), prediction, rtol=0, atol=1e-12)
        for nu, d_min in BANDWIDTHS:
            if d >= d_min:
                expected = lt.beta_enumerate(
                    lambda m, tree=tree, k=k: tree.predict_proba(m)[:, k] if k is not None else tree.predict(m),
                    d,
                    nu=nu,
                )
                assert close(lt.beta_boolean(expr, words, nu=nu), expected), (seed, k, nu)


def test_tree_default_class_and_extra_trees():
    rng = np.random.default_rng(3)
    X, score = random_binary_data(rng, 300, 6)
    words = list("abcdef")
    tree = ExtraTreeClassifier(max_depth=4, random_state=0).fit(X, score > 0)
    z = all_binary(6)
    expr = lt.tree_to_formula(tree, words)  # class_index defaults to 1
    assert np.allclose(lt.mask_function(expr, words)(z), tree.predict_proba(z)[:, 1], rtol=0, atol=1e-12)


def test_tree_with_formula_features():
    """Columns given as formulas: (a or b), c, never-present, and a constant-true column."""
    rng = np.random.default_rng(5)
    X, score = random_binary_data(rng, 500, 4)
    tree = DecisionTreeClassifier(max_depth=4, random_state=0).fit(X, score > 0.2)
    a, b, c = sp.symbols("a b c")
    words = ["a", "b", "c", "e"]
    features = [sp.Or(a, b), c, sp.false, sp.true]
    z = all_binary(4)
    columns = np.column_stack([np.maximum(z[:, 0], z[:, 1]), z[:, 2], np.zeros(16), np.ones(16)])
    for form in ("leaves", "piecewise"):
        expr = lt.tree_to_formula(tree, features, form=form)
        assert np.allclose(lt.mask_function(expr, words)(z), tree.predict_proba(columns)[:, 1], rtol=0, atol=1e-12)


def test_tree_errors():
    rng = np.random.default_rng(0)
    X, score = random_binary_data(rng, 200, 4)
    words = list("abcd")
    with pytest.raises(ValueError, match="fitted"):
        lt.tree_to_formula(DecisionTreeClassifier(), words)
    with pytest.raises(TypeError, match="DecisionTree"):
        lt.tree_to_formula(object(), words)
    # features in {0, 2}: thresholds at 1.0 do not separate absent from present
    tree_02 = DecisionTreeClassifier(max_depth=2, random_state=0).fit(2 * X, score > 0)
    with pytest.raises(ValueError, match=r"threshold 1\.0.*outside \[0, 1\)"):
        lt.tree_to_formula(tree_02, words)
    tree_neg = DecisionTreeClassifier(max_depth=2, random_state=0).fit(X - 1, score > 0)
    with pytest.raises(ValueError, match="outside"):
        lt.tree_to_formula(tree_neg, words)
    tree = DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, score > 0)
    with pytest.raises(ValueError, match="one entry per feature"):
        lt.tree_to_formula(tree, words[:3])
    with pytest.raises(TypeError, match=r"feature_words\[2\]"):
        lt.tree_to_formula(tree, ["a", "b", 3, "d"])
    with pytest.raises(ValueError, match="class_index"):
        lt.tree_to_formula(tree, words, class_index=2)
    with pytest.raises(ValueError, match="form"):
        lt.tree_to_formula(tree, words, form="nested")
    regressor = DecisionTreeRegressor(max_depth=2).fit(X, score)
    with pytest.raises(ValueError, match="regressor"):
        lt.tree_to_formula(regressor, words, class_index=1)
    multi = DecisionTreeRegressor(max_depth=2).fit(X, np.column_stack([score, -score]))
    with pytest.raises(ValueError, match="single output"):
        lt.tree_to_formula(multi, words)


# ----------------------------------------------------------------------------- lime words -> vectorizer columns


def test_presence_formula():
    words = ["The", "food", "the", "I", "FOOD", "a", "was"]
    The, food, the, FOOD = sp.symbols("The food the FOOD")
    assert lt.presence_formula("the", words) == sp.Or(The, the)
    assert lt.presence_formula("food", words) == sp.Or(food, FOOD)
    assert lt.presence_formula("i", words) is sp.false  # one-character tokens are dropped
    assert lt.presence_formula("pizza", words) is sp.false
    corpus = ["The food was good", "the FOOD was bad", "I ate a pizza"]
    cased = CountVectorizer(lowercase=False).fit(corpus)
    assert lt.presence_formula("The", words, cased) == The
    assert lt.presence_formula("FOOD", words, cased) == FOOD
    with pytest.raises(ValueError, match="vocabulary"):
        lt.presence_formula("salad", words, cased)
    with pytest.raises(ValueError, match="ngram_range"):
        lt.presence_formula("food", words, TfidfVectorizer(ngram_range=(1, 2)).fit(corpus))
    with pytest.raises(ValueError, match="fitted"):
        lt.presence_formula("food", words, TfidfVectorizer())
    with pytest.raises(TypeError, match="vectorizer"):
        lt.presence_formula("food", words, object())
    with pytest.raises(TypeError, match="column_word"):
        lt.presence_formula(3, words)


CORPUS = [
    "The food was great, the staff friendly.",
    "Food was bad and the service was slow!",
    "I loved it. Great place, great food.",
    "Terrible: cold food, rude staff; never again.",
    "Not bad at all, I'd come back for the food.",
    "The place was dirty and the food was bland.",
    "Great staff! The service was quick and friendly.",
    "Awful service, awful food. Don't go.",
    "Friendly staff and a great view, but the food was bad.",
    "It was OK; the pizza was great but the place was loud.",
    "Bad experience: slow service and rude staff.",
    "Loved the food, loved the place, will come back!",
] * 3
LABELS = [1, 0, 1, 0, 1, 0, 1, 0, 0, 1, 0, 1] * 3


def perturbed_documents(text):
    """Every document LIME can build from text: remove all occurrences of a subset of words (lime's own code)."""
    indexed = IndexedString(text)
    d = indexed.num_words()
    z = all_binary(d)
    docs = [indexed.inverse_removing(np.flatnonzero(row == 0)) for row in z]
    return z, docs


def check_tree_on_document(tree, vectorizer, text, class_index=1):
    """The formula equals the tree on the vectorizer's rows of every document lime can build; beta as enumeration."""
    regressor = isinstance(tree, DecisionTreeRegressor)
    expr, words = lt.tree_formula_for_document(tree, vectorizer, text, class_index=None if regressor else class_index)
    assert words == lt.local_dictionary(text)
    z, docs = perturbed_documents(text)
    rows = vectorizer.transform(docs)
    truth = tree.predict(rows) if regressor else tree.predict_proba(rows)[:, class_index]
    piecewise, _ = lt.tree_formula_for_document(
        tree, vectorizer, text, class_index=None if regressor else class_index, form="piecewise"
    )
    for form_expr in (expr, piecewise):
        assert np.allclose(lt.mask_function(form_expr, words)(z), truth, rtol=0, atol=1e-12)
    d = len(words)
    for nu, d_min in BANDWIDTHS:
        if d >= d_min:
            # the tree's output on the document of mask m, looked up by the mask's code (all_binary order)
            expected = lt.beta_enumerate(lambda m: truth[m @ (1 << np.arange(d))], d, nu=nu)
            assert close(lt.beta_boolean(expr, words, nu=nu), expected), nu
    return expr, words


def presence_vectorizer(vectorizer):
    """0/1 presence of the vectorizer's columns: ``vectorizer.transform(docs) > 0`` as a vectorizer of its own."""
    return CountVectorizer(binary=True, vocabulary=vectorizer.vocabulary_).fit([])


def test_tree_end_to_end_on_real_strings():
    vectorizer = CountVectorizer(binary=True).fit(CORPUS)
    tree = DecisionTreeClassifier(random_state=0).fit(vectorizer.transform(CORPUS), LABELS)
    # case duplicates (The/the), one-character token (I), a word the vocabulary has never seen (Yummy)
    text = "The food was great and the staff, I think, were friendly. Yummy!"
    assert len(lt.local_dictionary(text)) <= 14
    expr, words = check_tree_on_document(tree, vectorizer, text)
    names = vectorizer.get_feature_names_out()
    used = {names[f] for f in tree.tree_.feature if f >= 0}
    assert used & {"the", "food", "great", "staff", "was", "friendly"}, used  # the tree does split on the text
    # Or(The, the) enters when the tree splits on "the"
    if "the" in used:
        assert {"The", "the"} <= {s.name for s in expr.free_symbols}


def test_tree_end_to_end_case_sensitive_vectorizer():
    vectorizer = CountVectorizer(lowercase=False, token_pattern=r"(?u)\b\w+\b", binary=True).fit(CORPUS)
    tree = DecisionTreeClassifier(max_depth=5, random_state=1).fit(vectorizer.transform(CORPUS), LABELS)
    check_tree_on_document(tree, vectorizer, "Great food. The staff was bad, the place OK.", class_index=0)


# repeated and case-duplicated words: "the" has count 3 from two lime words, "food" 2 from "Food" and "food"
SHARED_TEXT = "Food was great, the food; the staff and the place were great. The end"


@pytest.mark.parametrize(
    "vectorizer",
    [
        CountVectorizer(),
        TfidfVectorizer(norm=None),
        TfidfVectorizer(norm=None, sublinear_tf=True),
        TfidfVectorizer(norm=None, use_idf=False, binary=True),
    ],
    ids=["counts", "tfidf-unnormalised", "tfidf-sublinear", "tf-binary"],
)
def test_tree_on_the_vectorizer_values(vectorizer):
    """A tree trained on counts or unnormalised TF-IDF values (thresholds anywhere), with shared columns."""
    vectorizer = vectorizer.fit(CORPUS)
    X = vectorizer.transform(CORPUS)
    rng = np.random.default_rng(7)
    score = np.asarray(X.sum(axis=1)).ravel() + rng.normal(size=X.shape[0])
    classifier = DecisionTreeClassifier(random_state=0).fit(X, LABELS)
    regressor = DecisionTreeRegressor(max_depth=6, random_state=0).fit(X, score)
    thresholds = regressor.tree_.threshold[regressor.tree_.feature >= 0]
    if not vectorizer.binary:
        assert (thresholds >= 1).any()  # splits between two positive values: not presence tests
    assert len(lt.local_dictionary(SHARED_TEXT)) <= 14
    for tree in (classifier, regressor):
        check_tree_on_document(tree, vectorizer, SHARED_TEXT)


def test_tree_on_normalised_tfidf_is_refused():
    """Silently wrong before: a tree on normalised TF-IDF values is not a function of the kept words."""
    vectorizer = TfidfVectorizer().fit(CORPUS)
    tree = DecisionTreeClassifier(random_state=0).fit(vectorizer.transform(CORPUS), LABELS)
    for text in ("great food", SHARED_TEXT):
        with pytest.raises(ValueError, match=r"norm='l2'.*lt\.explain"):
            lt.tree_formula_for_document(tree, vectorizer, text)
    with pytest.raises(ValueError, match=r"norm='l1'"):
        lt.tree_formula_for_document(tree, TfidfVectorizer(norm="l1").fit(CORPUS), "great food")
    # the same tree read through 0/1 presence of the same columns is a presence tree (and a different model)
    check_tree_on_document(tree, presence_vectorizer(vectorizer), "great food, the staff")


def test_train_random_forest_trees_are_refused(data_dir):
    """The trees of train_random_forest read normalised TF-IDF: refused, with the way out in the message."""
    reviews = lt.load_yelp_reviews()
    pipeline = train_random_forest(reviews.text, reviews.stars, n_estimators=2)
    vectorizer, forest = pipeline[0], pipeline[-1]
    text = reviews.text[EXAMPLE_REVIEW_INDEX]
    with pytest.raises(ValueError, match="lt.explain"):
        lt.tree_formula_for_document(forest.estimators_[0], vectorizer, text)


def test_tree_formula_for_document_errors():
    vectorizer = CountVectorizer(binary=True).fit(CORPUS)
    tree = DecisionTreeClassifier(max_depth=2, random_state=0).fit(vectorizer.transform(CORPUS), LABELS)
    other = DecisionTreeClassifier(max_depth=2).fit(np.eye(4), [0, 1, 0, 1])
    with pytest.raises(ValueError, match="columns"):
        lt.tree_formula_for_document(other, vectorizer, "great food")
    bigram = TfidfVectorizer(ngram_range=(1, 2)).fit(CORPUS)
    with pytest.raises(ValueError, match="ngram_range"):
        lt.tree_formula_for_document(tree, bigram, "great food")
    spanning = CountVectorizer(token_pattern=r"[\w']+", binary=True).fit(CORPUS)
    tree_spanning = DecisionTreeClassifier(max_depth=2).fit(spanning.transform(CORPUS), LABELS)
    with pytest.raises(ValueError, match="separators"):
        lt.tree_formula_for_document(tree_spanning, spanning, "Don't go, the food was bad")
    with pytest.raises(TypeError, match="vectorizer"):
        lt.tree_formula_for_document(tree, object(), "great food")
    with pytest.raises(ValueError, match="form"):
        lt.tree_formula_for_document(tree, vectorizer, "great food", form="nested")
    with pytest.raises(ValueError, match="class_index"):
        lt.tree_formula_for_document(tree, vectorizer, "great food", class_index=2)


def yelp_presence_tree():
    """The tree of chapter 16: depth 4 on the presence of the Yelp vectorizer's columns."""
    reviews = lt.load_yelp_reviews()
    vectorizer = presence_vectorizer(fit_yelp_vectorizer(reviews.text))
    tree = DecisionTreeClassifier(max_depth=4, random_state=0).fit(vectorizer.transform(reviews.text), reviews.stars)
    return reviews, vectorizer, tree


def test_tree_on_a_yelp_review(data_dir):
    reviews, vectorizer, tree = yelp_presence_tree()
    names = vectorizer.get_feature_names_out()
    used = {names[f] for f in tree.tree_.feature if f >= 0}
    # among the reviews with d <= 14 words, the one whose formula involves the most words
    best = (0, None)
    for i, text in enumerate(reviews.text):
        words = lt.local_dictionary(text)
        if len(words) <= 14 and len({w.lower() for w in words} & used) >= 2:
            expr, _ = lt.tree_formula_for_document(tree, vectorizer, text)
            best = max(best, (len(expr.free_symbols), i), key=lambda x: x[0])
    assert best[0] >= 3
    expr, words = check_tree_on_document(tree, vectorizer, reviews.text[best[1]])
    assert len(expr.free_symbols) == best[0]


def test_lime_itself_sees_the_formula(data_dir):
    """On lime's own perturbed documents of the paper's review, the formula evaluated at lime's masks is the tree."""
    reviews, vectorizer, tree = yelp_presence_tree()
    text = reviews.text[EXAMPLE_REVIEW_INDEX]

    def classifier_fn(docs):
        return tree.predict_proba(vectorizer.transform(docs))

    samples = lt.capture_lime_samples(text, classifier_fn, num_samples=400, random_state=0)
    expr, words = lt.tree_formula_for_document(tree, vectorizer, text)
    assert words == samples.words
    assert np.allclose(lt.mask_function(expr, words)(samples.z), samples.y, rtol=0, atol=1e-12)


def test_perturbed_documents_helper():
    text = "a b, c. A!"
    z, docs = perturbed_documents(text)
    assert len(docs) == 2 ** len(lt.local_dictionary(text)) == len(z)
    assert docs[-1] == text  # every word kept
    assert docs[0] == " , . !"  # every word removed, separators kept
