"""The estimate's forest walk (reading.forest_walk): bit for bit scikit-learn's own predict_proba (the reference) on
rows from counts of Count, Tfidf and Hashing vectorizers, never falling back on them; which pipelines it walks; the
default's answers at a given number of masks equal to the bit with and without it; the budget's work model on the
estimate's side."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.ensemble import ExtraTreesClassifier, GradientBoostingClassifier, RandomForestClassifier
from sklearn.feature_extraction.text import CountVectorizer, HashingVectorizer, TfidfVectorizer
from sklearn.pipeline import make_pipeline

import limetheory as lt
from limetheory.pipelines.estimate import estimate_route as route
from limetheory.pipelines.estimate import work_model as wm
from limetheory.pipelines.reading import forest_walk
from limetheory.pipelines.reading.count_rows import count_score_masks, document_rows


@pytest.fixture(scope="module")
def texts(yelp):
    return yelp[0][:300], yelp[1][:300]


def _masks(d, m, seed):
    """m masks of lime's law: s ~ U{1..d} words removed (the first one keeps every word)."""
    rng = np.random.default_rng(seed)
    removed = rng.integers(1, d + 1, size=m)
    masks = rng.random((m, d)).argsort(axis=1) >= removed[:, None]
    masks[0] = True
    return masks


@pytest.mark.parametrize(
    "vectorizer",
    [
        TfidfVectorizer(),
        CountVectorizer(binary=True),
        TfidfVectorizer(sublinear_tf=True, norm="l1"),
        HashingVectorizer(n_features=2**12),
        HashingVectorizer(n_features=2**6, binary=True),
    ],  # fmt: skip
    ids=["tfidf", "binary", "sublinear-l1", "hashing", "hashing-collisions"],
)
@pytest.mark.parametrize("kind", [RandomForestClassifier, ExtraTreesClassifier])
def test_the_walk_equals_predict_proba_on_rows_from_counts(texts, vectorizer, kind):
    docs, stars = texts
    pipe = make_pipeline(vectorizer, kind(n_estimators=12, random_state=0)).fit(docs, stars)
    walk = forest_walk.pipeline_forest_walk(pipe, "predict_proba")
    assert walk is not None
    for seed, text in enumerate([docs[3], " ".join(docs[10:16])]):
        mirror, _ = document_rows(text, pipe.steps[0][1])
        rows = mirror.transform(_masks(mirror.d, 1500, seed))
        # rows from counts: the walk's own (never the fallback), equal to the forest's to the bit
        assert forest_walk.rows_accepted(sp.csr_matrix(rows, dtype=np.float32), pipe.steps[1][1].n_features_in_)
        assert np.array_equal(walk(rows), pipe.steps[1][1].predict_proba(rows))
        score, _ = count_score_masks(pipe, text, "predict_proba", method=walk)
        masks = _masks(mirror.d, 300, seed + 7)
        assert np.array_equal(score(masks), pipe.predict_proba(lt.perturbed_documents(text, masks)))


def test_which_pipelines_are_walked(texts):
    docs, stars = texts
    forest = RandomForestClassifier(5, random_state=0)
    pipe = make_pipeline(TfidfVectorizer(), forest).fit(docs, stars)
    assert forest_walk.walks(pipe, "predict_proba") and not forest_walk.walks(pipe, "predict")
    assert forest_walk.pipeline_forest_walk(pipe, "predict_proba") is not None
    jobs = make_pipeline(TfidfVectorizer(), RandomForestClassifier(5, n_jobs=2, random_state=0)).fit(docs, stars)
    boost = make_pipeline(TfidfVectorizer(), GradientBoostingClassifier(n_estimators=3)).fit(docs, np.arange(300) % 2)

    class Sub(RandomForestClassifier):  # a subclass may predict otherwise: its own predict_proba
        pass

    sub = make_pipeline(TfidfVectorizer(), Sub(5, random_state=0)).fit(docs, stars)
    unfitted = make_pipeline(TfidfVectorizer(), RandomForestClassifier(5))
    for model in (jobs, boost, sub, unfitted, forest, lambda strings: None):
        assert not forest_walk.walks(model, "predict_proba")
        assert forest_walk.pipeline_forest_walk(model, "predict_proba") is None


@pytest.mark.filterwarnings("ignore:label .* estimate from:UserWarning")  # max_calls is spent before tol: the point
def test_the_defaults_answers_at_given_masks_are_equal_to_the_bit(texts, monkeypatch):
    """explain at a fixed max_calls with the walk and with scikit-learn's predict_proba: every number equal."""
    docs, stars = texts
    pipe = make_pipeline(TfidfVectorizer(), RandomForestClassifier(20, random_state=0, n_jobs=1)).fit(docs, stars)
    text = docs[5]
    walked = lt.explain(pipe, text, max_calls=6000, random_state=3, progress=False)
    monkeypatch.setattr(route, "pipeline_forest_walk", lambda model, output: None)
    plain = lt.explain(pipe, text, max_calls=6000, random_state=3, progress=False)
    assert np.array_equal(walked.beta, plain.beta) and np.array_equal(walked.stderr, plain.stderr)
    assert walked.notes == plain.notes and walked.as_list() == plain.as_list()


def test_the_budget_prices_the_walk_on_the_estimates_side_only(texts):
    """rows_budget recomputed here: lime's side at the forest's own costs, the estimate's at the walk's; a forest
    the estimate does not walk (n_jobs = 2) at its own costs on both sides."""
    docs, stars = texts
    forest = RandomForestClassifier(10, random_state=0, n_jobs=1)
    pipe = make_pipeline(TfidfVectorizer(), forest).fit(docs, stars)
    trees = forest.estimators_
    path = sum(wm.mean_path(t) for t in trees)
    walk = (wm.WALK_US_PER_TREE * 10 + wm.WALK_US_PER_NODE * path, wm.WALK_US_PER_TREE_COLUMN * 10,
            wm.WALK_US_PER_CALL)  # fmt: skip
    assert wm.walk_costs(forest) == pytest.approx(walk, rel=1e-12)
    own = wm.classifier_costs(forest)
    for n, d, words, columns in [(5000, 39, 120_000.0, 36), (5000, 488, 2.6e6, 470)]:
        lime = route.LIME_US_PER_SAMPLE * n + route.LIME_US_PER_WORD * words + n * (own[0] + own[1] * columns / 2)
        lime += own[2]
        mask = route.ROWS_US_PER_MASK + route.ROWS_US_PER_WORD * d + route.ROWS_US_PER_WORD2 * d * d
        per_mask = mask + walk[0] + walk[1] * columns / 2 + walk[2] / wm.ROWS_PER_CALL
        masks = (lime / route.ROWS_SAFETY - wm.CALLS_FIXED * walk[2]) / per_mask
        expected = int(min(max(masks, n), route.COUNT_CALLS_PER_LIME_RUN * n))
        assert route.rows_budget(pipe, n, d, words, columns) == expected
        assert route.rows_budget(pipe, n, d, words, columns, walked=True) == expected
        assert route.rows_budget(pipe, n, d, words, columns, walked=False) < expected  # the walk is cheaper
    forest.set_params(n_jobs=2)  # its own predict_proba on both sides
    assert route.rows_budget(pipe, 5000, 39, 120_000.0, 36) == route.rows_budget(
        pipe, 5000, 39, 120_000.0, 36, walked=False
    )


def test_the_last_forest_read_is_cached_by_its_trees(texts):
    """Two forests walked in turn, one refitted: each walk equals its own forest's predict_proba."""
    docs, stars = texts
    vectorizer = TfidfVectorizer().fit(docs)
    rows = vectorizer.transform(docs[:200])
    first = RandomForestClassifier(6, random_state=0).fit(rows, stars[:200])
    second = ExtraTreesClassifier(6, random_state=1).fit(rows, stars[:200])
    for forest in (first, second, first):
        assert np.array_equal(forest_walk.sparse_forest_proba(forest)(rows), forest.predict_proba(rows))
    first.set_params(random_state=5).fit(rows, stars[:200])  # new trees, same number of them
    assert np.array_equal(forest_walk.sparse_forest_proba(first)(rows), first.predict_proba(rows))
