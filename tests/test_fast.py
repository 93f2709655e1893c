"""limetheory.engine.fast: the fast engine against real lime (same stream), against sklearn, and its batched law."""

from __future__ import annotations

import re

import numpy as np
import pytest
import scipy.sparse as sp
from lime.lime_text import IndexedString, LimeTextExplainer
from sklearn.feature_extraction.text import CountVectorizer, HashingVectorizer, TfidfTransformer, TfidfVectorizer
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.svm import LinearSVC
from sklearn.tree import DecisionTreeClassifier

import limetheory as lt
from limetheory.book import EXAMPLE_REVIEW_INDEX, fit_yelp_vectorizer, train_random_forest
from limetheory.engine import fast, lime_documents, lime_sampler
from limetheory.engine.tokens import DocumentCounts

TOY_CORPUS = [
    "The food was good but the service was slow, and the food was cold!",
    "Good food. GOOD service; good prices: I'd go back, a 10/10 experience.",
    "Terrible service, cold food and rude staff; never again.",
    "café naïve coöperation: the_underscored word_s and İstanbul trips",
    "We waited 45 minutes for a table and the waiter forgot our drinks.",
]
# mixed case (distinct lime words, one vectorizer column), one-letter words, unseen words, digits,
# underscores, accents, an apostrophe, a dotted capital I whose lower case is two characters
TOY_TEXT = "Good food, good FOOD and Good prices!! I'd say a 10/10: café İstanbul the_best, unseenword x y z."


@pytest.fixture(scope="module")
def models(yelp):
    """(vectorizer, model_fn) pairs: a linear model, a tree on word presence, a small random forest."""
    texts, labels = yelp
    vectorizer = fit_yelp_vectorizer(texts)
    tfidf = vectorizer.transform(texts)
    linear = LogisticRegression(C=10.0, max_iter=1000).fit(tfidf, labels)
    tree = DecisionTreeClassifier(max_depth=6, random_state=0).fit((tfidf > 0).astype(float), labels)
    forest = train_random_forest(texts, labels, n_estimators=10, random_state=0)
    return {
        "linear": (vectorizer, linear.predict_proba),
        "tree": (vectorizer, lambda matrix: tree.predict_proba((matrix > 0).astype(float))),
        "forest": (forest[0], forest[-1].predict_proba),
    }


def lime_fn(vectorizer, model_fn):
    return lambda documents: model_fn(vectorizer.transform(documents))


def lime_beta(explanation, d):
    """A real lime explanation of label 1 as a vector of length d + 1: its intercept, then feature j at 1 + j
    (0 for a feature that lime's selection dropped)."""
    limes = np.zeros(d + 1)
    limes[0] = explanation.intercept[1]
    for feature, value in explanation.local_exp[1]:
        limes[1 + feature] = value
    return limes


def toy_model(matrix):
    """A 'probability' that depends on every column a little (smooth, so any TF-IDF error shows)."""
    score = np.asarray(matrix @ np.linspace(-1.0, 1.0, matrix.shape[1])).ravel()
    p = 1.0 / (1.0 + np.exp(-3.0 * score))
    return np.column_stack([1.0 - p, p])


# lime's weights are sqrt(exp(-x)), x = D^2 / w^2 (D: lime's distance of a mask, w: the kernel width), and ours apply
# that formula to the same distances: equal to the last bit today, but not by construction across numpy's exp paths
# and lime versions.  An algebraically equal rewrite in lime, exp(-x / 2) (x / 2 is exact), measured 1 ulp apart
# here: each side is one exp (within ~1 ulp) and at most one sqrt (which halves the error and adds half an ulp).
# 4 ulps bound that with margin; a real change of the kernel moves the weights by far more.
WEIGHT_MAXULP = 4


def assert_same_weights(ours, limes):
    np.testing.assert_array_max_ulp(ours, limes, maxulp=WEIGHT_MAXULP)


# ----------------------------------------------------------------------------- the facts the engine relies on


@pytest.mark.parametrize("d", [1, 2, 5, 29, 64, 257])
def test_legacy_choice_is_a_truncated_permutation(d):
    """RandomState.choice(range(d), s, replace=False) == permutation(d)[:s], and the generators stay in step."""
    for seed in range(5):
        a, b = np.random.RandomState(seed), np.random.RandomState(seed)
        for size in [1, d, *range(1, min(d, 12) + 1)]:
            np.testing.assert_array_equal(a.choice(range(d), size, replace=False), b.permutation(d)[:size])
        assert a.randint(2**31) == b.randint(2**31)


def test_removing_words_never_merges_tokens():
    """In every perturbed document, the vectorizer's tokens are those of the kept lime words (no merge, no split)."""
    vectorizer = TfidfVectorizer().fit(TOY_CORPUS)
    indexed = IndexedString(TOY_TEXT)
    analyze = vectorizer.build_analyzer()
    rng = np.random.default_rng(0)
    d = indexed.num_words()
    for _ in range(200):
        removed = np.flatnonzero(rng.random(d) < 0.5)
        document = indexed.inverse_removing(removed)
        kept = [
            feature
            for piece in indexed.as_list
            if piece in indexed.inverse_vocab and indexed.inverse_vocab.index(piece) not in removed
            for feature in analyze(piece)
        ]
        assert analyze(document) == kept, document


# ----------------------------------------------------------------------------- TF-IDF of perturbed documents


VECTORIZERS = {
    "default": lambda: TfidfVectorizer(),
    "case sensitive": lambda: TfidfVectorizer(lowercase=False),
    "stop words": lambda: TfidfVectorizer(stop_words="english"),
    "binary": lambda: TfidfVectorizer(binary=True),
    "sublinear": lambda: TfidfVectorizer(sublinear_tf=True),
    "l1": lambda: TfidfVectorizer(norm="l1"),
    "no norm": lambda: TfidfVectorizer(norm=None),
    "no idf": lambda: TfidfVectorizer(use_idf=False, smooth_idf=False),
    "one-letter words": lambda: TfidfVectorizer(token_pattern=r"(?u)\b\w+\b"),
    "float32": lambda: TfidfVectorizer(dtype=np.float32),
    "min_df": lambda: TfidfVectorizer(min_df=2),
    "counts": lambda: CountVectorizer(),
    "binary counts": lambda: CountVectorizer(binary=True, lowercase=False),
}


@pytest.mark.parametrize("name", sorted(VECTORIZERS))
def test_tfidf_of_perturbed_documents_is_bitwise_that_of_the_vectorizer(name):
    vectorizer = VECTORIZERS[name]().fit(TOY_CORPUS)
    document = DocumentCounts(TOY_TEXT, vectorizer)
    rng = np.random.default_rng(1)
    masks = (rng.random((300, document.d)) < rng.random((300, 1))).astype(np.int8)
    masks[0] = 1
    masks[1] = 0
    ours = document.transform(masks)
    truth = vectorizer.transform(document.documents(masks))
    assert type(ours) is type(truth)
    assert ours.dtype == truth.dtype and ours.shape == truth.shape
    np.testing.assert_array_equal(ours.indptr, truth.indptr)
    np.testing.assert_array_equal(ours.indices, truth.indices)
    # bit for bit, by construction: exact integer counts, then the same single product by idf_ and the same
    # sklearn normalize call on identical rows as TfidfTransformer.transform
    np.testing.assert_array_equal(ours.data, truth.data)


def test_words_and_documents_are_limes():
    vectorizer = TfidfVectorizer().fit(TOY_CORPUS)
    document = DocumentCounts(TOY_TEXT, vectorizer)
    assert document.words == lt.local_dictionary(TOY_TEXT)
    mask = np.ones(document.d, dtype=np.int8)
    mask[[0, 2]] = 0
    assert document.documents([mask]) == [IndexedString(TOY_TEXT).inverse_removing([0, 2])]


# ----------------------------------------------------------------------------- exact stream: equal to real lime

CASES = [  # (review index, seed, kernel width)
    (EXAMPLE_REVIEW_INDEX, 0, 25),
    (28, 7, 10),
    (47, 3, 100),
]


@pytest.mark.parametrize("model", ["linear", "tree", "forest"])
@pytest.mark.parametrize("case", CASES)
def test_exact_stream_equals_real_lime(models, yelp, model, case):
    index, seed, kernel_width = case
    text = yelp[0][index]
    vectorizer, model_fn = models[model]
    arguments = dict(n_exp=3, num_samples=600, kernel_width=kernel_width, label=1, random_state=seed)
    reference = lt.lime_explanations(text, lime_fn(vectorizer, model_fn), **arguments)
    ours = lt.fast_lime_explanations(text, vectorizer, model_fn, **arguments)
    assert ours.shape == reference.shape == (3, len(lt.local_dictionary(text)) + 1)
    # lime's own Ridge and our batched normal equations: round-off only
    np.testing.assert_allclose(ours, reference, rtol=0, atol=1e-10 * max(1.0, np.abs(reference).max()))
    assert np.abs(reference).max() > 1e-3  # the comparison is not vacuous


@pytest.mark.parametrize("model", ["linear", "forest"])
def test_exact_stream_samples_are_bitwise_limes(models, yelp, model):
    text = yelp[0][EXAMPLE_REVIEW_INDEX]
    vectorizer, model_fn = models[model]
    captured = lt.capture_lime_samples(text, lime_fn(vectorizer, model_fn), num_samples=800, kernel_width=40,
                                       random_state=11)  # fmt: skip
    ours = lt.fast_lime_samples(text, vectorizer, model_fn, num_samples=800, kernel_width=40, random_state=11)
    assert ours.words == captured.words
    assert ours.z.shape == (1, 800, len(captured.words))
    np.testing.assert_array_equal(ours.z[0], captured.z)  # 0/1 masks: exact
    # the same model on bit-identical TF-IDF rows (test above), row by row: the same responses bit for bit
    np.testing.assert_array_equal(ours.y[0], captured.y)
    assert_same_weights(ours.weights[0], captured.weights)


def test_weights_survive_an_equivalent_rewrite_of_limes_kernel(monkeypatch):
    """lime's kernel rewritten as exp(-D^2 / (2 w^2)) still passes; a 0.1% change of the width does not."""
    vectorizer = TfidfVectorizer().fit(TOY_CORPUS)
    arguments = dict(num_samples=2000, kernel_width=40, random_state=11)
    ours = lt.fast_lime_samples(TOY_TEXT, vectorizer, toy_model, **arguments).weights[0]
    make_explainer = lt.engine.empirical._explainer

    def captured_weights(kernel):
        def explainer(kernel_width, random_state):
            made = make_explainer(kernel_width, random_state)
            made.base.kernel_fn = lambda distances: kernel(distances, kernel_width)
            return made

        monkeypatch.setattr(lt.engine.empirical, "_explainer", explainer)
        return lt.capture_lime_samples(TOY_TEXT, lime_fn(vectorizer, toy_model), **arguments).weights

    assert_same_weights(ours, captured_weights(lambda distances, w: np.exp(-(distances**2) / (2 * w**2))))
    with pytest.raises(AssertionError):
        assert_same_weights(ours, captured_weights(lambda distances, w: lime_sampler._kernel(distances, 1.001 * w)))


def test_random_state_instance_is_consumed_as_lime_consumes_it(models, yelp):
    """A RandomState passed in is left exactly where lime leaves it after the same number of explanations."""
    text = yelp[0][49]
    vectorizer, model_fn = models["linear"]
    ours_state, lime_state = np.random.RandomState(5), np.random.RandomState(5)
    ours = lt.fast_lime_explanations(text, vectorizer, model_fn, n_exp=2, num_samples=300, random_state=ours_state)
    explainer = LimeTextExplainer(random_state=lime_state, feature_selection="none")
    d = len(lt.local_dictionary(text))
    for run in range(2):
        explanation = explainer.explain_instance(text, lime_fn(vectorizer, model_fn), num_features=d, num_samples=300)
        assert float(explanation.intercept[1]) == pytest.approx(ours[run, 0], abs=1e-12)
    assert ours_state.randint(2**31) == lime_state.randint(2**31)


@pytest.mark.parametrize("stream", lime_sampler.STREAMS)
def test_chunking_does_not_change_the_result(monkeypatch, stream):
    vectorizer = TfidfVectorizer().fit(TOY_CORPUS)
    arguments = dict(n_exp=5, num_samples=200, random_state=4, stream=stream)
    whole = lt.fast_lime_explanations(TOY_TEXT, vectorizer, toy_model, **arguments)
    monkeypatch.setattr(lime_sampler, "_MAX_CHUNK_ENTRIES", 1)  # one run per chunk
    # the same code on the same runs, only grouped differently: equal bit for bit
    np.testing.assert_array_equal(lt.fast_lime_explanations(TOY_TEXT, vectorizer, toy_model, **arguments), whole)


def test_same_seed_same_numbers_and_lime_stream_differs_from_batched():
    vectorizer = TfidfVectorizer().fit(TOY_CORPUS)
    a = lt.fast_lime_explanations(TOY_TEXT, vectorizer, toy_model, n_exp=2, num_samples=100, stream="batched")
    b = lt.fast_lime_explanations(TOY_TEXT, vectorizer, toy_model, n_exp=2, num_samples=100, stream="batched")
    c = lt.fast_lime_explanations(TOY_TEXT, vectorizer, toy_model, n_exp=2, num_samples=100)
    np.testing.assert_array_equal(a, b)  # the same call twice: bit for bit
    assert not np.allclose(a, c)


# ----------------------------------------------------------------------------- the ridge


@pytest.mark.parametrize("seed", range(4))
def test_batched_ridge_matches_sklearn_ridge(seed):
    rng = np.random.default_rng(seed)
    runs, n, d = 3, 400, 12
    z = (rng.random((runs, n, d)) < 0.5).astype(np.int8)
    y = rng.random((runs, n)) + 3.0 * z[:, :, 0]
    weights = np.exp(-rng.exponential(3.0, (runs, n)))  # spans several orders of magnitude
    ours, selected = fast._explain_runs(z, y, weights, 10, "none")
    assert selected.all()
    for run in range(runs):
        ridge = Ridge(alpha=1.0, fit_intercept=True).fit(z[run].astype(float), y[run], sample_weight=weights[run])
        expected = np.concatenate([[ridge.intercept_], ridge.coef_])
        np.testing.assert_allclose(ours[run], expected, rtol=1e-10, atol=1e-12)


def test_distance_table_is_limes_distance_and_gives_the_papers_weights():
    for d in [1, 2, 7, 29, 100]:
        table = lime_sampler._distance_table(d)
        k = np.arange(d + 1)
        # cosine distance of a mask with k kept words to the all-ones mask, times 100
        np.testing.assert_allclose(table, 100 * (1 - np.sqrt(k / d)), rtol=0, atol=1e-12)
        for nu in [0.1, 0.25, 1.0]:
            weights = lime_sampler._kernel(table[d - np.arange(1, d + 1)], 100 * nu)
            np.testing.assert_allclose(weights, lt.kernel_weights(d, nu=nu), rtol=1e-12)


# ----------------------------------------------------------------------------- batched stream: lime's law


def test_batched_stream_draws_limes_law():
    """Frequencies of z_j = 1, z_j z_k = 1 and |S| = s within 5 standard errors of the exact law; exact weights.

    N masks, each frequency a mean of N Bernoulli(p): standard error sqrt(p (1 - p) / N).  5 standard errors
    give a per-check false alarm below 6e-7 (normal approximation), below 1e-4 over all checks here.
    """
    text = "alpha beta gamma delta epsilon zeta eta theta"
    vectorizer = TfidfVectorizer().fit([text])
    d, runs, n = 8, 40, 2000
    samples = lt.fast_lime_samples(text, vectorizer, toy_model, n_exp=runs, num_samples=n, kernel_width=25,
                                   random_state=2, stream="batched")  # fmt: skip
    assert samples.z.shape == (runs, n, d)
    assert (samples.z[:, 0] == 1).all() and (samples.weights[:, 0] == 1.0).all()
    z = samples.z[:, 1:].reshape(-1, d).astype(float)
    weights = samples.weights[:, 1:].ravel()
    total = len(z)

    def within_5_se(frequency, p):
        return abs(frequency - p) <= 5 * np.sqrt(p * (1 - p) / total)

    p1, p2 = lt.prob_kept(1, d), lt.prob_kept(2, d)
    for j in range(d):
        assert within_5_se(z[:, j].mean(), p1), j
        for k in range(j + 1, d):
            assert within_5_se((z[:, j] * z[:, k]).mean(), p2), (j, k)
    removed = d - z.sum(axis=1).astype(int)
    for s in range(1, d + 1):
        assert within_5_se((removed == s).mean(), 1 / d), s
    np.testing.assert_allclose(weights, lt.kernel_weights(d, nu=0.25)[removed - 1], rtol=1e-12)


def test_batched_explanations_agree_in_law_with_limes_stream():
    """Mean coefficients of the two streams (40 runs each) differ by less than 5 two-sample standard errors."""
    vectorizer = TfidfVectorizer().fit(TOY_CORPUS)
    arguments = dict(n_exp=40, num_samples=300, kernel_width=30, random_state=9)
    a = lt.fast_lime_explanations(TOY_TEXT, vectorizer, toy_model, stream="lime", **arguments)
    b = lt.fast_lime_explanations(TOY_TEXT, vectorizer, toy_model, stream="batched", **arguments)
    standard_error = np.sqrt(a.var(axis=0, ddof=1) / len(a) + b.var(axis=0, ddof=1) / len(b))
    assert (np.abs(a.mean(axis=0) - b.mean(axis=0)) <= 5 * standard_error).all()


def test_batched_stream_accepts_a_generator():
    vectorizer = TfidfVectorizer().fit(TOY_CORPUS)
    a = lt.fast_lime_explanations(TOY_TEXT, vectorizer, toy_model, n_exp=2, num_samples=50, stream="batched",
                                  random_state=np.random.default_rng(3))  # fmt: skip
    b = lt.fast_lime_explanations(TOY_TEXT, vectorizer, toy_model, n_exp=2, num_samples=50, stream="batched",
                                  random_state=3)  # fmt: skip
    np.testing.assert_array_equal(a, b)  # the same draws through the same code


# ----------------------------------------------------------------------------- refusals


@pytest.mark.parametrize(
    ("vectorizer", "message"),
    [
        (TfidfVectorizer(strip_accents="unicode"), "strip_accents"),
        (TfidfVectorizer(ngram_range=(1, 2)), "ngram_range"),
        (TfidfVectorizer(analyzer="char"), "analyzer"),
        (TfidfVectorizer(analyzer=str.split), "analyzer"),
        (TfidfVectorizer(tokenizer=str.split, token_pattern=None), "tokenizer"),
        (TfidfVectorizer(preprocessor=str.upper), "preprocessor"),
        (TfidfVectorizer(token_pattern=r"\S+"), "token_pattern"),
    ],
)
def test_refuses_vectorizers_it_cannot_mirror(vectorizer, message):
    vectorizer.fit(TOY_CORPUS)
    with pytest.raises(ValueError, match=message):
        lt.fast_lime_explanations(TOY_TEXT, vectorizer, toy_model, n_exp=1, num_samples=20)


def test_refuses_other_objects_and_unfitted_vectorizers():
    with pytest.raises(TypeError, match="vectorizer"):
        lt.fast_lime_explanations(TOY_TEXT, HashingVectorizer(), toy_model, n_exp=1, num_samples=20)
    with pytest.raises(ValueError, match="fitted"):
        lt.fast_lime_explanations(TOY_TEXT, TfidfVectorizer(), toy_model, n_exp=1, num_samples=20)


def test_self_check_catches_a_vectorizer_that_does_something_else():
    class Doubling(TfidfVectorizer):
        def transform(self, raw_documents):
            return super().transform(raw_documents) * 2.0

    vectorizer = Doubling().fit(TOY_CORPUS)
    with pytest.raises(ValueError, match="self-check"):
        lt.fast_lime_explanations(TOY_TEXT, vectorizer, toy_model, n_exp=1, num_samples=20)


def test_refuses_documents_it_cannot_mirror():
    vectorizer = TfidfVectorizer().fit(TOY_CORPUS)
    with pytest.raises(ValueError, match="sigma"):
        lt.fast_lime_explanations("ΟΔΟΣ'Α food", vectorizer, toy_model, n_exp=1, num_samples=20)
    for text in ("!!! ...", "-- ? --", "…"):  # d = 0: no word at all (not "d = 1")
        with pytest.raises(ValueError, match="text has no word lime can remove") as refused:
            lt.fast_lime_explanations(text, vectorizer, toy_model, n_exp=1, num_samples=20)
        assert "d = 1" not in str(refused.value)
    for text in ("good", "good, good!"):  # d = 1, refused as lt.lime_explanations refuses it
        with pytest.raises(ValueError, match="at least 2 distinct words"):
            lt.fast_lime_explanations(text, vectorizer, toy_model, n_exp=1, num_samples=20)
    # case sensitive: the capital sigma is harmless
    lt.fast_lime_explanations("ΟΔΟΣ'Α food", TfidfVectorizer(lowercase=False).fit(TOY_CORPUS), toy_model,
                              n_exp=1, num_samples=20)  # fmt: skip


@pytest.mark.parametrize(
    ("arguments", "error", "message"),
    [
        (dict(n_exp=0), ValueError, "n_exp"),
        (dict(num_samples=1), ValueError, "num_samples"),
        (dict(kernel_width=0.0), ValueError, "kernel_width"),
        (dict(kernel_width=np.inf), ValueError, "kernel_width"),
        (dict(label=-1), ValueError, "label"),
        (dict(label=2), ValueError, "label"),
        (dict(random_state=-1), ValueError, "random_state"),
        (dict(random_state=2**32), ValueError, "random_state"),
        (dict(random_state=1.5), TypeError, "random_state"),
        (dict(stream="fast"), ValueError, "stream"),
        (dict(n_exp=2.0), TypeError, "n_exp"),
    ],
)
def test_argument_validation(arguments, error, message):
    vectorizer = TfidfVectorizer().fit(TOY_CORPUS)
    with pytest.raises(error, match=message):
        lt.fast_lime_explanations(TOY_TEXT, vectorizer, toy_model, **{"n_exp": 1, "num_samples": 20, **arguments})


@pytest.mark.parametrize(
    ("model_fn", "message"),
    [
        (lambda matrix: np.ones(matrix.shape[0]), "shape"),
        (lambda matrix: np.ones((matrix.shape[0] + 1, 2)), "shape"),
        (lambda matrix: np.full((matrix.shape[0], 2), np.nan), "non-finite"),
    ],
)
def test_model_output_is_checked(model_fn, message):
    vectorizer = TfidfVectorizer().fit(TOY_CORPUS)
    with pytest.raises(ValueError, match=message):
        lt.fast_lime_explanations(TOY_TEXT, vectorizer, model_fn, n_exp=1, num_samples=20)
    with pytest.raises(TypeError, match="model_fn"):
        lt.fast_lime_explanations(TOY_TEXT, vectorizer, "not callable", n_exp=1, num_samples=20)


def test_model_sees_the_vectorizers_matrix_type():
    vectorizer = TfidfVectorizer().fit(TOY_CORPUS)
    seen = []

    def model_fn(matrix):
        seen.append(type(matrix))
        return toy_model(matrix)

    lt.fast_lime_explanations(TOY_TEXT, vectorizer, model_fn, n_exp=1, num_samples=20)
    assert set(seen) == {type(vectorizer.transform(["x"]))} and sp.issparse(vectorizer.transform(["x"]))


# ----------------------------------------------------------------------------- lime's default call: feature selection

SELECTION_CASES = [  # (review index, its d, seed, the num_features tried)
    pytest.param((348, 2, 0, [3, 6, 10]), id="d=2"),  # every num_features > d
    pytest.param((3, 6, 1, [3, 6, 10]), id="d=6"),
    pytest.param((28, 12, 2, [3, 6, 10, 40]), id="d=12"),
    # forward selection (num_features = 3 and 6, checked at d = 12 and 31) on the paper's review costs lime 5 CPU-s
    # over the two models: highest_weights and every word in make test, forward selection in the slow group
    pytest.param((EXAMPLE_REVIEW_INDEX, 29, 3, [10, 40]), id="d=29"),
    pytest.param((EXAMPLE_REVIEW_INDEX, 29, 3, [3, 6]), id="d=29-forward_selection", marks=pytest.mark.slow),
    pytest.param((47, 31, 4, [3, 10]), id="d=31"),
    # n = 300 < d: the dual ridge in highest_weights' fit of every word (num_features = 10); forward selection
    # (num_features = 3, checked at d = 12, 29 and 31 above) fits at most 3 columns, no dual ridge, while real lime
    # spends 3 x 411 ridge fits on it (~30 s of CPU per model): that case runs in the slow group
    pytest.param((539, 411, 5, [10]), id="d=411"),
    pytest.param((539, 411, 5, [3]), id="d=411-forward_selection", marks=pytest.mark.slow),
]


@pytest.mark.parametrize("model", ["linear", "forest"])
@pytest.mark.parametrize("case", SELECTION_CASES)
def test_feature_selection_equals_real_lime_run_for_run(models, yelp, model, case):
    """lime with feature_selection='auto' (its default) at several num_features: same words, same coefficients."""
    index, d, seed, counts = case
    text = yelp[0][index]
    vectorizer, model_fn = models[model]
    num_samples, n_exp = (300, 1) if d > 100 else (500, 2)
    assert len(lt.local_dictionary(text)) == d
    for num_features in counts:
        arguments = dict(n_exp=n_exp, num_samples=num_samples, random_state=seed, num_features=num_features)
        reference = lt.lime_explanations(text, lime_fn(vectorizer, model_fn), feature_selection="auto", **arguments)
        ours, selected = lt.fast_lime_explanations(
            text, vectorizer, model_fn, feature_selection="auto", return_selected=True, **arguments
        )
        assert (selected.sum(axis=1) == min(num_features, d)).all()
        # lime lists exactly the selected words; the others are 0 in both
        np.testing.assert_array_equal(ours[:, 1:][~selected], 0.0)
        assert (reference[:, 1:][~selected] == 0.0).all()
        np.testing.assert_allclose(ours, reference, rtol=0, atol=1e-10 * max(1.0, np.abs(reference).max()))
        assert np.abs(reference[:, 1:]).max() > 1e-4  # not vacuous


def test_limes_default_call_is_reproduced(models, yelp):
    """explain_instance(text, fn) with nothing else: num_features=10, feature_selection='auto' ('highest_weights')."""
    text = yelp[0][EXAMPLE_REVIEW_INDEX]
    vectorizer, model_fn = models["linear"]
    explainer = LimeTextExplainer(random_state=8)  # every default
    d = len(lt.local_dictionary(text))
    ours = lt.fast_lime_explanations(text, vectorizer, model_fn, n_exp=2, random_state=8, feature_selection="auto")
    for run in range(2):
        explanation = explainer.explain_instance(text, lime_fn(vectorizer, model_fn))  # n = 5000, 10 words
        limes = lime_beta(explanation, d)
        assert len(explanation.local_exp[1]) == 10 == np.count_nonzero(ours[run, 1:])
        np.testing.assert_allclose(ours[run], limes, rtol=0, atol=1e-10 * np.abs(limes).max())
    # with every word kept, the result differs from the default call by far more than round-off
    every_word = lt.fast_lime_explanations(text, vectorizer, model_fn, n_exp=2, random_state=8)
    assert np.abs(every_word - ours).max() > 1e-3


@pytest.mark.parametrize("method", ["highest_weights", "forward_selection", "lasso_path"])
def test_each_selection_method_equals_real_lime(models, yelp, method):
    text = yelp[0][28]
    vectorizer, model_fn = models["tree"]
    arguments = dict(n_exp=2, num_samples=400, random_state=6, num_features=4, feature_selection=method)
    reference = lt.lime_explanations(text, lime_fn(vectorizer, model_fn), **arguments)
    ours = lt.fast_lime_explanations(text, vectorizer, model_fn, **arguments)
    np.testing.assert_allclose(ours, reference, rtol=0, atol=1e-10 * max(1.0, np.abs(reference).max()))


def test_selection_keeps_the_stream_and_the_batched_stream_selects_too():
    """The selection draws no random number: the runs after a selected run are the same as without selection."""
    vectorizer = TfidfVectorizer().fit(TOY_CORPUS)
    arguments = dict(n_exp=3, num_samples=200, random_state=4)
    _, selected = lt.fast_lime_explanations(TOY_TEXT, vectorizer, toy_model, num_features=3, feature_selection="auto",
                                            return_selected=True, **arguments)  # fmt: skip
    assert (selected.sum(axis=1) == 3).all()
    state_a, state_b = np.random.RandomState(2), np.random.RandomState(2)
    lt.fast_lime_explanations(TOY_TEXT, vectorizer, toy_model, n_exp=2, num_samples=100, random_state=state_a,
                              feature_selection="forward_selection", num_features=2)  # fmt: skip
    lt.fast_lime_explanations(TOY_TEXT, vectorizer, toy_model, n_exp=2, num_samples=100, random_state=state_b)
    assert state_a.randint(2**31) == state_b.randint(2**31)
    batched, chosen = lt.fast_lime_explanations(TOY_TEXT, vectorizer, toy_model, stream="batched", num_features=4,
                                                feature_selection="highest_weights", return_selected=True,
                                                **arguments)  # fmt: skip
    assert (chosen.sum(axis=1) == 4).all() and (batched[:, 1:][~chosen] == 0).all()


# ----------------------------------------------------------------------------- pipelines


@pytest.fixture(scope="module")
def pipeline(yelp):
    texts, labels = yelp
    return make_pipeline(TfidfVectorizer(), LogisticRegression(C=10.0, max_iter=1000)).fit(texts, labels)


def test_pipeline_is_its_vectorizer_and_the_rest_predict_proba(pipeline, yelp):
    text = yelp[0][28]
    arguments = dict(n_exp=2, num_samples=400, random_state=3, feature_selection="auto")
    ours = lt.fast_lime_explanations(text, pipeline, **arguments)
    # the same computation with the pieces passed by hand: bit for bit
    np.testing.assert_array_equal(
        ours, lt.fast_lime_explanations(text, pipeline[0], pipeline[1:].predict_proba, **arguments)
    )
    reference = lt.lime_explanations(text, pipeline.predict_proba, **arguments)
    np.testing.assert_allclose(ours, reference, rtol=0, atol=1e-10 * np.abs(reference).max())
    samples = lt.fast_lime_samples(text, pipeline, num_samples=300, random_state=3)
    captured = lt.capture_lime_samples(text, pipeline.predict_proba, num_samples=300, random_state=3)
    np.testing.assert_array_equal(samples.z[0], captured.z)
    np.testing.assert_array_equal(samples.y[0], captured.y)


def test_pipeline_with_intermediate_steps(yelp):
    """A transformer between the vectorizer and the classifier is part of the model the engine calls."""
    texts, labels = yelp
    pipe = make_pipeline(CountVectorizer(binary=True), TfidfTransformer(), LogisticRegression(max_iter=1000))
    pipe.fit(texts, labels)
    text = yelp[0][3]
    reference = lt.lime_explanations(text, pipe.predict_proba, n_exp=1, num_samples=300, random_state=1)
    ours = lt.fast_lime_explanations(text, pipe, n_exp=1, num_samples=300, random_state=1)
    np.testing.assert_allclose(ours, reference, rtol=0, atol=1e-10 * np.abs(reference).max())


def test_pipelines_and_models_it_refuses(yelp):
    texts, labels = yelp[0][::20], yelp[1][::20]  # both classes
    text = yelp[0][3]
    fitted = make_pipeline(TfidfVectorizer(), LogisticRegression()).fit(texts, labels)
    cases = [
        (make_pipeline(HashingVectorizer(), LogisticRegression()), TypeError, "first step is HashingVectorizer"),
        (
            make_pipeline(TfidfVectorizer(), LogisticRegression()).fit(texts, labels)[:1],
            ValueError,
            "no step after its vectorizer",
        ),  # fmt: skip
        (make_pipeline(TfidfVectorizer(), LinearSVC()).fit(texts, labels), TypeError, "has no predict_proba"),
        (make_pipeline(TfidfVectorizer(), LogisticRegression()), ValueError, "fitted"),
        (
            make_pipeline(TfidfVectorizer(analyzer="char"), LogisticRegression()).fit(texts, labels),
            ValueError,
            "analyzer",
        ),  # fmt: skip
    ]
    for model, error, message in cases:
        with pytest.raises(error, match=message):
            lt.fast_lime_explanations(text, model, n_exp=1, num_samples=20)
    unfitted_model = Pipeline([("tfidf", fitted[0]), ("model", LogisticRegression())])
    with pytest.raises(ValueError, match="step 'model' \\(LogisticRegression\\) is not fitted"):
        lt.fast_lime_explanations(text, unfitted_model, n_exp=1, num_samples=20)
    with pytest.raises(ValueError, match=r"label must be < 2, the number of classes"):
        lt.fast_lime_explanations(text, fitted, n_exp=1, num_samples=20, label=2)
    with pytest.raises(TypeError, match="model_fn is required with a bare vectorizer"):
        lt.fast_lime_explanations(text, fitted[0], n_exp=1, num_samples=20)
    with pytest.raises(TypeError, match="vectorizer"):
        lt.fast_lime_explanations(text, LogisticRegression(), n_exp=1, num_samples=20)


# ----------------------------------------------------------------------------- lime settings and messages


@pytest.mark.parametrize(
    ("setting", "error", "message"),
    [
        (dict(char_level="yes"), TypeError, "char_level must be True or False"),
        (dict(bow="yes"), TypeError, "bow must be True or False"),
        (dict(split_expression=r"\s+and\s+"), ValueError, "separator of text, ' and ', holds a word character"),
        (dict(split_expression=r"(?=o)"), ValueError, "separator of text, .* holds a word character"),
        (dict(split_expression=lambda text: re.findall(r"\w{1,3}", text)), ValueError, "cuts a run of word characters"),
        (dict(split_expression=3), TypeError, "split_expression must be a regular expression"),
        (dict(kernel=lambda d, kernel_width: np.exp(-d / kernel_width)), ValueError, "kernel must be None"),
        (dict(distance_metric="euclidean"), ValueError, "distance_metric must be 'cosine'"),
        (dict(model_regressor=Ridge(alpha=2.0)), ValueError, "model_regressor must be None"),
        (dict(mask_string=3), TypeError, "mask_string"),
        (dict(feature_selection="lars"), ValueError, "feature_selection must be one of"),
        (dict(num_features=0), ValueError, "num_features"),
        (dict(return_selected=1), TypeError, "return_selected"),
    ],
)
def test_lime_settings_it_does_not_reproduce_are_refused(setting, error, message):
    vectorizer = TfidfVectorizer().fit(TOY_CORPUS)
    with pytest.raises(error, match=message):
        lt.fast_lime_explanations(TOY_TEXT, vectorizer, toy_model, n_exp=1, num_samples=20, **setting)


def test_mask_string_is_irrelevant_with_bag_of_words():
    vectorizer = TfidfVectorizer().fit(TOY_CORPUS)
    arguments = dict(n_exp=1, num_samples=50, random_state=1)
    np.testing.assert_array_equal(
        lt.fast_lime_explanations(TOY_TEXT, vectorizer, toy_model, mask_string="XXX", **arguments),
        lt.fast_lime_explanations(TOY_TEXT, vectorizer, toy_model, **arguments),
    )


def test_a_generator_on_limes_stream_is_refused_with_the_reason():
    vectorizer = TfidfVectorizer().fit(TOY_CORPUS)
    with pytest.raises(TypeError, match="check_random_state.*stream='batched'") as refused:
        lt.fast_lime_explanations(TOY_TEXT, vectorizer, toy_model, n_exp=1, num_samples=20,
                                  random_state=np.random.default_rng(0))  # fmt: skip
    assert "must be an integer" not in str(refused.value)


# ----------------------------------------------------------------------------- bow=False: every occurrence a feature


@pytest.mark.parametrize("name", sorted(VECTORIZERS))
@pytest.mark.parametrize("mask_string", [None, "food", "[MASK]", ""])
def test_bow_false_tfidf_is_bitwise_that_of_limes_masked_strings(name, mask_string):
    """A removed occurrence becomes the mask string: counted when the vocabulary has it ('food'), else not."""
    vectorizer = VECTORIZERS[name]().fit(TOY_CORPUS)
    document = lime_documents.LimeTextCounts(TOY_TEXT, vectorizer, bow=False, mask_string=mask_string)
    indexed = IndexedString(TOY_TEXT, bow=False, mask_string=mask_string)
    assert document.words == list(indexed.inverse_vocab) and document.d > len(lt.local_dictionary(TOY_TEXT))
    rng = np.random.default_rng(2)
    masks = (rng.random((200, document.d)) < rng.random((200, 1))).astype(np.int8)
    masks[0], masks[1] = 1, 0
    strings = [indexed.inverse_removing(np.flatnonzero(mask == 0)) for mask in masks]
    assert document.documents(masks) == strings
    ours, truth = document.transform(masks), vectorizer.transform(strings)
    assert type(ours) is type(truth) and ours.dtype == truth.dtype
    np.testing.assert_array_equal(ours.indptr, truth.indptr)
    np.testing.assert_array_equal(ours.indices, truth.indices)
    np.testing.assert_array_equal(ours.data, truth.data)  # exact counts, then the same operations


@pytest.mark.parametrize("mask_string", [None, "food"])
@pytest.mark.parametrize("feature_selection", ["none", "auto"])
def test_bow_false_equals_real_lime_run_for_run(models, yelp, mask_string, feature_selection):
    text = yelp[0][74]  # 24 distinct words in 32 occurrences
    vectorizer, model_fn = models["linear"]
    explainer = LimeTextExplainer(
        bow=False, mask_string=mask_string, random_state=5, feature_selection=feature_selection
    )
    d = IndexedString(text, bow=False).num_words()
    assert d > len(lt.local_dictionary(text))
    ours, selected = lt.fast_lime_explanations(text, vectorizer, model_fn, n_exp=2, num_samples=500, random_state=5,
                                               bow=False, mask_string=mask_string, feature_selection=feature_selection,
                                               return_selected=True)  # fmt: skip
    assert ours.shape == (2, d + 1)
    for run in range(2):
        explanation = explainer.explain_instance(text, lime_fn(vectorizer, model_fn), num_samples=500)
        limes = lime_beta(explanation, d)
        assert {int(j) for j, _ in explanation.local_exp[1]} == set(np.flatnonzero(selected[run]))
        np.testing.assert_allclose(ours[run], limes, rtol=0, atol=1e-10 * max(1.0, np.abs(limes).max()))
    assert np.abs(ours[:, 1:]).max() > 1e-3
    # a masked occurrence that the model reads ('food') changes the explanation: the mask string is not ignored
    if mask_string == "food":
        plain = lt.fast_lime_explanations(text, vectorizer, model_fn, n_exp=2, num_samples=500, random_state=5,
                                          bow=False, feature_selection=feature_selection)  # fmt: skip
        assert np.abs(plain - ours).max() > 1e-4


def test_bow_false_refusals():
    vectorizer = TfidfVectorizer().fit(TOY_CORPUS)
    with pytest.raises(ValueError, match="at least 2 words with bow=False"):
        lt.fast_lime_explanations("good!", vectorizer, toy_model, n_exp=1, num_samples=20, bow=False)
    # two occurrences of one word are two features with bow=False (one with bow=True)
    runs = lt.fast_lime_explanations("good, good!", vectorizer, toy_model, n_exp=1, num_samples=20, bow=False)
    assert runs.shape == (1, 3)
    with pytest.raises(ValueError, match="sigma"):
        lt.fast_lime_explanations("food good", vectorizer, toy_model, n_exp=1, num_samples=20, bow=False,
                                  mask_string="ΟΔΟΣ")  # fmt: skip


# ----------------------------------------------------------------------------- other split expressions


SPLITS = {"whitespace": r"\s+", "str.split": str.split, "punctuation and spaces": r"[\s,.;:!?]+"}


@pytest.mark.parametrize("split", sorted(SPLITS))
@pytest.mark.parametrize("bow", [True, False])
@pytest.mark.parametrize("name", ["default", "case sensitive", "binary counts", "one-letter words"])
def test_other_split_expressions_give_the_vectorizers_tfidf_bit_for_bit(split, bow, name):
    """lime's words then carry punctuation ("food," or "10/10:"); the vectorizer's tokens never straddle them."""
    vectorizer = VECTORIZERS[name]().fit(TOY_CORPUS)
    document = lime_documents.LimeTextCounts(TOY_TEXT, vectorizer, bow=bow, split_expression=SPLITS[split])
    indexed = IndexedString(TOY_TEXT, bow=bow, split_expression=SPLITS[split])
    assert document.words == [str(word) for word in indexed.inverse_vocab]
    assert any(not word.isalnum() for word in document.words)  # not the default dictionary
    rng = np.random.default_rng(3)
    masks = (rng.random((200, document.d)) < rng.random((200, 1))).astype(np.int8)
    masks[0], masks[1] = 1, 0
    strings = [indexed.inverse_removing(np.flatnonzero(mask == 0)) for mask in masks]
    ours, truth = document.transform(masks), vectorizer.transform(strings)
    np.testing.assert_array_equal(ours.indptr, truth.indptr)
    np.testing.assert_array_equal(ours.indices, truth.indices)
    np.testing.assert_array_equal(ours.data, truth.data)


@pytest.mark.parametrize("split", ["whitespace", "str.split"])
@pytest.mark.parametrize("bow", [True, False])
def test_other_split_expressions_equal_real_lime_run_for_run(models, yelp, split, bow):
    text = yelp[0][74]
    vectorizer, model_fn = models["linear"]
    explainer = LimeTextExplainer(bow=bow, split_expression=SPLITS[split], random_state=2, feature_selection="auto")
    d = IndexedString(text, bow=bow, split_expression=SPLITS[split]).num_words()
    ours = lt.fast_lime_explanations(text, vectorizer, model_fn, n_exp=2, num_samples=400, random_state=2, bow=bow,
                                     split_expression=SPLITS[split], feature_selection="auto")  # fmt: skip
    assert ours.shape == (2, d + 1)
    for run in range(2):
        explanation = explainer.explain_instance(text, lime_fn(vectorizer, model_fn), num_samples=400)
        limes = lime_beta(explanation, d)
        np.testing.assert_allclose(ours[run], limes, rtol=0, atol=1e-10 * max(1.0, np.abs(limes).max()))


# ----------------------------------------------------------------------------- char_level=True


@pytest.fixture(scope="module")
def character_pipeline(yelp):
    texts, labels = yelp
    vectorizer = TfidfVectorizer(analyzer="char", ngram_range=(1, 3))
    return make_pipeline(vectorizer, LogisticRegression(max_iter=1000)).fit(texts[::4], labels[::4])


@pytest.mark.parametrize("bow", [True, False])
@pytest.mark.parametrize("model", ["words", "characters"])
def test_char_level_equals_real_lime_run_for_run(models, character_pipeline, yelp, bow, model):
    """Characters as features: a word model (whose words break apart) and a character n-gram model."""
    text = yelp[0][3]
    if model == "words":
        vectorizer, model_fn = models["linear"]
        classifier = lime_fn(vectorizer, model_fn)
        arguments = dict(vectorizer=vectorizer, model_fn=model_fn)
    else:
        classifier = character_pipeline.predict_proba
        arguments = dict(vectorizer=character_pipeline)
    explainer = LimeTextExplainer(char_level=True, bow=bow, random_state=4, feature_selection="auto")
    d = len(set(text)) if bow else len(text)
    ours = lt.fast_lime_explanations(text, **arguments, n_exp=2, num_samples=300, random_state=4, char_level=True,
                                     bow=bow, feature_selection="auto")  # fmt: skip
    assert ours.shape == (2, d + 1)
    for run in range(2):
        explanation = explainer.explain_instance(text, classifier, num_samples=300)
        limes = lime_beta(explanation, d)
        np.testing.assert_allclose(ours[run], limes, rtol=0, atol=1e-10 * max(1.0, np.abs(limes).max()))
    assert np.abs(ours[:, 1:]).max() > 1e-4


def test_char_level_words_are_characters_and_short_texts_are_refused():
    vectorizer = TfidfVectorizer().fit(TOY_CORPUS)
    samples = lt.fast_lime_samples("ab ba", vectorizer, toy_model, num_samples=20, char_level=True)
    assert samples.words == ["a", "b", " "]
    with pytest.raises(ValueError, match="at least 2 distinct characters with char_level=True"):
        lt.fast_lime_explanations("aaa", vectorizer, toy_model, n_exp=1, num_samples=20, char_level=True)
