"""lt.explain under lime's other text modes (bow=False, split_expression, mask_string, char_level),
limetheory.pipelines.reading.modes.

Every exact route is compared with enumeration over all 2^d masks of the real pipeline on the strings lime itself
builds (lime's ``IndexedString`` / ``IndexedCharacters`` with the same settings, called here, not through the
package), on real Yelp reviews; the bow=False routes also with real lime (``LimeTextExplainer(bow=False)``).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from lime.lime_text import IndexedCharacters, IndexedString, LimeTextExplainer
from sklearn.ensemble import GradientBoostingClassifier, RandomForestClassifier
from sklearn.feature_extraction.text import CountVectorizer, TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.tree import DecisionTreeClassifier

import limetheory as lt
from limetheory.pipelines.reading.modes import check_mode, linear_features, mode_document_columns, mode_features

#: β of the exact routes vs enumeration: the linear route's quadrature is accurate to about 1e-12 relative to
#: max |lam| (linear_exact's docstring) and enumeration sums 2^d values of order one, so 1e-10 relative to the
#: largest coefficient leaves a margin of 100 for rounding at d <= 14 (as tests/test_explain.py)
EXACT_RTOL = 1e-10
DOCS = ["good food and good service", "bad food, bad service", "good wine", "bad staff, cold food", "good staff"]
LABELS = [1, 0, 1, 0, 1]


def _close(beta, reference):
    scale = max(1.0, float(np.abs(reference).max()))
    np.testing.assert_allclose(beta, reference, rtol=0, atol=EXACT_RTOL * scale)


def _lime_strings(text, *, bow=True, split_expression=r"\W+", mask_string=None, char_level=False):
    """Masks -> lime's own perturbed strings for these settings (lime's classes, called directly)."""
    if char_level:
        indexed = IndexedCharacters(text, bow=bow, mask_string=mask_string)
    else:
        indexed = IndexedString(text, bow=bow, split_expression=split_expression, mask_string=mask_string)
    d = indexed.num_words()
    return d, lambda z: [indexed.inverse_removing(np.flatnonzero(row == 0)) for row in z]


#: lime's strings of every mask, by document and mode, with the masks they were built from: the enumerations below
#: read the same few documents under several models, and building 2^d strings costs more than a model's call on them
#: (each call gets its own list; a mode's callable split is a key by identity, and the memo holds it; cleared after
#: the module)
_STRINGS: dict[tuple, tuple[np.ndarray, list[str]]] = {}


@pytest.fixture(scope="module", autouse=True)
def _forget_strings():
    yield
    _STRINGS.clear()


def _enumerated(model, text, output, label=1, **mode):
    """β by enumeration of all masks, the real pipeline on lime's own strings (independent of explain)."""
    d, strings = _lime_strings(text, **mode)
    key = (text, *sorted(mode.items()))

    def f(z):
        masks, documents = _STRINGS.get(key, (None, None))
        if masks is None or not np.array_equal(masks, z):
            if len(_STRINGS) >= 16:
                _STRINGS.clear()
            masks, documents = _STRINGS[key] = (z.copy(), strings(z))
        values = np.asarray(getattr(model, output)(list(documents)), dtype=float)
        return values if values.ndim == 1 else values[:, label]

    return lt.beta_enumerate(f, d, nu=0.25)


@pytest.fixture(scope="module")
def yelp(data_dir):
    reviews = lt.load_yelp_reviews()
    texts, labels = reviews["text"].tolist(), reviews["stars"].to_numpy()

    def wanted(text):  # 9 to 14 occurrences with a repeated word (bow=False differs from bow=True): 2^d masks
        occurrences = len(IndexedString(text, bow=False).inverse_vocab)
        return 9 <= occurrences <= 14 and len(IndexedString(text).inverse_vocab) < occurrences

    # the first four such real reviews, in the file's order (the search stops there)
    small = list(itertools.islice(filter(wanted, texts), 4))
    assert len(small) == 4
    return texts, labels, small


def test_check_mode_refuses_bad_settings():
    with pytest.raises(TypeError, match="bow must be"):
        check_mode(bow="no")
    with pytest.raises(TypeError, match="char_level must be"):
        check_mode(char_level=1.5)
    with pytest.raises(TypeError, match="split_expression must be a regular expression"):
        check_mode(split_expression=3)
    with pytest.raises(TypeError, match="mask_string must be None or a str"):
        check_mode(mask_string=0)
    assert check_mode().is_default and not check_mode(bow=False).is_default
    assert mode_features("good food, good", check_mode(bow=False)) == ["good", "food", "good"]
    with pytest.raises(ValueError, match="at least 2 word occurrences"):
        mode_features("good", check_mode(bow=False))


def test_linear_features_per_occurrence():
    """bow=False: each occurrence feeds its word's column once; the mask token's column when the vocabulary has it."""
    vectorizer = CountVectorizer().fit(DOCS + ["unkwordz"])
    features = linear_features("good food, good staff", vectorizer, check_mode(bow=False))
    vocabulary = vectorizer.vocabulary_
    assert features.columns.tolist() == [vocabulary[w] for w in ("good", "food", "good", "staff")]
    assert features.counts.tolist() == [1, 1, 1, 1]
    assert features.mask_columns.tolist() == [vocabulary["unkwordz"]] and features.mask_counts.tolist() == [1]
    bag = linear_features("good, food good good staff", vectorizer, check_mode(split_expression=r"\s+"))
    assert bag.counts.tolist() == [1, 1, 2, 1] and not len(bag.mask_columns)  # "good," and "good": two words
    assert bag.columns[0] == bag.columns[2] == vocabulary["good"]  # ... sharing the column "good"


def test_presence_groups_are_occurrences():
    vectorizer = CountVectorizer(binary=True).fit(DOCS)
    columns = mode_document_columns("good food, good staff", vectorizer, check_mode(bow=False))
    assert columns.groups == ((0, 2), (1,), (3,))
    good = vectorizer.vocabulary_["good"]
    assert columns.values[good].tolist() == [0.0, 1.0, 1.0, 1.0]  # an Or over the two positions
    with pytest.raises(ValueError, match="mask token"):
        mode_document_columns("good food, good", CountVectorizer().fit(DOCS + ["unkwordz"]), check_mode(bow=False))
    with pytest.raises(ValueError, match="norm='l2'"):
        mode_document_columns("good food, good", TfidfVectorizer().fit(DOCS), check_mode(bow=False))


def test_mode_refusals_name_the_reason():
    """Each structure refuses what it cannot mirror, with the reason (explain then notes it and moves on)."""
    counts = CountVectorizer().fit(DOCS)
    with pytest.raises(ValueError, match="several tokens"):
        linear_features("good food/service, bad", counts, check_mode(split_expression=r"\s+"))
    with pytest.raises(ValueError, match="char_level=True"):
        linear_features("good food", counts, check_mode(char_level=True))
    with pytest.raises(ValueError, match="char_level=True"):
        mode_document_columns("good food", counts, check_mode(char_level=True))
    with pytest.raises(ValueError, match="n_features_in_ = 3"):
        mode_document_columns("good food, good", counts, check_mode(bow=False), n_features=3)
    with pytest.raises(ValueError, match="above the limit of 12"):
        mode_document_columns(" ".join(["good"] * 13), counts, check_mode(bow=False))
    # a split that cuts a run of word characters makes the vectorizer read tokens no lime word holds
    with pytest.raises(ValueError, match="cuts a run of word characters"):
        linear_features("goodfood bad", counts, check_mode(split_expression=lambda s: ["good", "food", " ", "bad"]))


@pytest.mark.parametrize("vectorizer", [TfidfVectorizer(), CountVectorizer(), TfidfVectorizer(norm="l1")])
def test_linear_route_bow_false_matches_enumeration(yelp, vectorizer):
    """The grouped exact route per occurrence = enumeration over all masks of the real pipeline on lime's strings."""
    texts, labels, small = yelp
    model = make_pipeline(vectorizer, LogisticRegression(max_iter=1000)).fit(texts, labels)
    for text in small:
        result = lt.explain(model, text, output="decision_function", bow=False)
        assert result.method == "linear" and result.exact, result.notes
        assert result.words == [str(w) for w in IndexedString(text, bow=False).inverse_vocab]
        _close(result.beta, _enumerated(model, text, "decision_function", bow=False))


def test_mask_token_in_the_vocabulary(yelp):
    """The mask token is a word when the vocabulary has it: on counts the model stays affine (exact linear route),
    with a norm the linear route refuses and enumeration takes over; both equal enumeration of lime's strings."""
    texts, labels, small = yelp
    text = small[0]
    for vectorizer, route in ((CountVectorizer(), "linear"), (TfidfVectorizer(), "enumeration")):
        model = make_pipeline(vectorizer, LogisticRegression(max_iter=1000)).fit(
            texts + ["unkwordz"] * 5, [0] * 5 + list(labels)
        )
        result = lt.explain(model, text, output="decision_function", bow=False)
        assert result.method == route and result.exact, result.notes
        if route == "enumeration":
            assert any("mask token" in note for note in result.notes)
        reference = _enumerated(model, text, "decision_function", bow=False)
        _close(result.beta, reference)
        # the mask token matters: the same model with a mask string its vocabulary ignores gives another β
        other = lt.explain(model, text, output="decision_function", bow=False, mask_string="zzzqqq")
        assert np.abs(other.beta - result.beta).max() > 1e-3


def test_tree_route_bow_false_matches_enumeration(yelp):
    """Presence trees with bow=False: a word is present when one of its kept occurrences is (an Or over positions)."""
    texts, labels, small = yelp
    forest = make_pipeline(CountVectorizer(binary=True), RandomForestClassifier(n_estimators=30, random_state=0))
    tree = make_pipeline(CountVectorizer(), DecisionTreeClassifier(max_depth=6, random_state=0))
    for model in (forest.fit(texts, labels), tree.fit(texts, labels)):
        for text in small:
            result = lt.explain(model, text, bow=False)
            assert result.method == "trees" and result.exact, result.notes
            _close(result.beta, _enumerated(model, text, "predict_proba", bow=False))


def test_tree_route_bow_false_with_two_repeated_words_in_one_path():
    """Two words repeated 6 times each, read by count thresholds on one path (at least k of the 6 occurrences kept):
    a leaf's atoms are a product of the two groups' allowed subsets, summed by size through their convolution; the
    route equals enumeration of all 2^14 masks of lime's strings."""
    docs = ["good " * k + "bad " * j + "food" for k in range(7) for j in range(7)]
    labels = [int(k >= 3 + (j > 4)) for k in range(7) for j in range(7)]
    text = "good bad " * 6 + "food wine"
    model = make_pipeline(CountVectorizer(), DecisionTreeClassifier(random_state=0)).fit(docs, labels)
    splits = model[-1].tree_.feature[model[-1].tree_.feature >= 0]
    vocabulary = model[0].vocabulary_
    assert {vocabulary["good"], vocabulary["bad"]} <= set(splits.tolist())  # both groups on the tree's paths
    result = lt.explain(model, text, bow=False)
    assert result.method == "trees" and result.exact and len(result.words) == 14, result.notes
    _close(result.beta, _enumerated(model, text, "predict_proba", bow=False))


def test_tree_route_model_of_masks_reads_lime_strings(yelp):
    """The tree route's model of masks in another word mode (``mask_fn``, behind the spread and the agreement check)
    reads the count mirror's rows: equal, bit for bit, to the pipeline on lime's own strings, for binary counts,
    TF-IDF without a norm, another split and a binary decision_function (both labels)."""
    texts, labels, small = yelp
    text = next(t for t in texts if 40 <= len(IndexedString(t, bow=False).inverse_vocab) <= 80)
    cases = [
        (CountVectorizer(binary=True), RandomForestClassifier(n_estimators=10, random_state=0), "predict_proba", {}),
        (TfidfVectorizer(norm=None), DecisionTreeClassifier(max_depth=6, random_state=0), "predict_proba", {}),
        (
            CountVectorizer(),
            GradientBoostingClassifier(n_estimators=10, random_state=0),
            "decision_function",
            {"split_expression": r"\s+"},
        ),
    ]
    for vectorizer, estimator, output, mode in cases:
        model = make_pipeline(vectorizer, estimator).fit(texts, labels)
        for document in (text, small[0]):
            d, strings = _lime_strings(document, bow=False, **mode)
            masks = (np.random.default_rng(d).random((60, d)) < 0.7).astype(np.int8)
            masks[0], masks[1], masks[2] = 1, 0, masks[3]  # the document, every feature removed, a repeated mask
            truth = np.asarray(getattr(model, output)(strings(masks)), dtype=float)
            for label in (0, 1):
                result = lt.explain(model, document, output=output, label=label, bow=False, **mode)
                assert result.method == "trees" and result.exact, result.notes
                expected = truth[:, label] if truth.ndim == 2 else (truth if label == 1 else -truth)
                assert np.array_equal(result.mask_fn(masks), expected)


def test_binary_and_sublinear_counts_are_not_sums(yelp):
    """bow=False with binary or sublinear counts: a column is not a sum over occurrences, so the linear route refuses
    (with the reason) and enumeration takes over (d <= 14), equal to our own enumeration of lime's strings."""
    texts, labels, small = yelp
    for vectorizer in (CountVectorizer(binary=True), TfidfVectorizer(sublinear_tf=True)):
        model = make_pipeline(vectorizer, LogisticRegression(max_iter=1000)).fit(texts, labels)
        result = lt.explain(model, small[0], output="decision_function", bow=False)
        assert result.method == "enumeration" and result.exact
        assert any("not sums" in note for note in result.notes), result.notes
        _close(result.beta, _enumerated(model, small[0], "decision_function", bow=False))


def test_custom_split_expression_matches_enumeration(yelp, yelp_logistic):
    """split_expression r'\\s+' (punctuation stays on the words: 'food' and 'food,' are two lime words sharing a
    column) and a callable: the linear and tree routes equal enumeration."""
    texts, labels, small = yelp
    linear = yelp_logistic  # the same fit on the same reviews (conftest, once per worker)
    forest = make_pipeline(CountVectorizer(binary=True), RandomForestClassifier(n_estimators=20, random_state=0))
    forest.fit(texts, labels)
    for split in (r"\s+", lambda s: s.split(" ")):
        for text in small[:2]:
            result = lt.explain(linear, text, output="decision_function", split_expression=split)
            assert result.method == "linear", result.notes
            _close(result.beta, _enumerated(linear, text, "decision_function", split_expression=split))
            result = lt.explain(forest, text, split_expression=split)
            assert result.method == "trees", result.notes
            _close(result.beta, _enumerated(forest, text, "predict_proba", split_expression=split))
    # a lime word that holds two tokens feeds two columns: the tree route links them, the linear route refuses
    text = "Great food/service, the food was great, great!"
    for bow in (True, False):
        result = lt.explain(forest, text, split_expression=r"\s+", bow=bow)
        assert result.method == "trees", result.notes
        _close(result.beta, _enumerated(forest, text, "predict_proba", split_expression=r"\s+", bow=bow))
    result = lt.explain(linear, text, output="decision_function", split_expression=r"\s+")
    assert result.method == "enumeration" and any("several tokens" in note for note in result.notes)


def test_char_level_is_enumerated_or_estimated(yelp, yelp_logistic):
    """char_level=True: no word-count route applies (they say why); enumeration when d <= 14, else Monte Carlo."""
    texts, labels, _ = yelp
    model = yelp_logistic  # the same fit on the same reviews (conftest, once per worker)
    text = "good food"  # 7 distinct characters
    result = lt.explain(model, text, char_level=True, output="decision_function")
    assert result.method == "enumeration" and result.exact
    assert any("char_level" in note for note in result.notes)
    _close(result.beta, _enumerated(model, text, "decision_function", char_level=True))
    long = lt.explain(model, "the good food was cold, very cold", char_level=True, num_samples=3000)
    assert long.method == "monte_carlo" and not long.exact and long.stderr is not None


def test_explain_refuses_bad_modes():
    model = make_pipeline(CountVectorizer(), LogisticRegression()).fit(DOCS, LABELS)
    with pytest.raises(TypeError, match="bow must be"):
        lt.explain(model, "good food", bow=None)
    with pytest.raises(TypeError, match="mask_string must be None or a str"):
        lt.explain(model, "good food", bow=False, mask_string=3)
    with pytest.raises(ValueError, match="at least 2 word occurrences"):
        lt.explain(model, "good!", bow=False)
    with pytest.raises(ValueError, match="does not apply"):
        lt.explain(model, "good food", char_level=True, method="linear")


@pytest.mark.parametrize("n_runs", [10, pytest.param(30, marks=pytest.mark.slow)])
def test_bow_false_against_real_lime(yelp, n_runs):
    """Real lime with bow=False (every feature kept), 10 runs (30 in the slow case) at n = 1000 on a real review: for
    the linear and the tree route, the mean of the runs is within 4.5 standard errors of the centre lime_spread
    predicts around the exact β (the standard error is lime_spread's predicted sd over sqrt(runs), not estimated from
    the runs, so the false-alarm rate does not depend on their number: with d + 1 <= 15 coefficients, a normal mean
    exceeds 4.5 standard errors with probability < 1e-4; fewer runs only detect a smaller bias less often)."""
    texts, labels, small = yelp
    text = small[1]
    models = [
        (make_pipeline(TfidfVectorizer(), LogisticRegression(max_iter=1000)), "decision_function", "linear"),
        (
            make_pipeline(CountVectorizer(binary=True), RandomForestClassifier(30, random_state=0)),
            "predict_proba",
            "trees",
        ),
    ]
    for model, output, route in models:
        model.fit(texts, labels)
        result = lt.explain(model, text, output=output, bow=False)
        assert result.method == route and result.exact, result.notes

        def classifier_fn(documents, model=model, output=output):
            if output == "predict_proba":
                return model.predict_proba(documents)
            score = model.decision_function(documents)
            return np.column_stack([-score, score])

        explainer = LimeTextExplainer(bow=False, feature_selection="none", random_state=0)
        d = len(result.words)
        runs = []
        for _ in range(n_runs):
            exp = explainer.explain_instance(text, classifier_fn, labels=(1,), num_features=d, num_samples=1000)
            row = np.zeros(d + 1)
            row[0] = exp.intercept[1]
            for j, weight in exp.local_exp[1]:
                row[1 + j] = weight
            runs.append(row)
        runs = np.array(runs)
        spread = result.lime_spread(1000)
        z = (runs.mean(axis=0) - spread.centre) / (spread.std / np.sqrt(len(runs)))
        assert np.abs(z).max() < 4.5, z
