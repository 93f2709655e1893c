"""presence_forest_proba: a forest's predict_proba on 0/1 rows, bit for bit, each tree once per distinct row."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.ensemble import ExtraTreesClassifier, RandomForestClassifier, RandomForestRegressor
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.pipeline import make_pipeline

import limetheory as lt
import limetheory.book.forest_rows as forest_rows
from limetheory.book import presence_forest_proba

DOCS = [
    "good food and kind staff",
    "bad food and slow staff",
    "good wine, good food",
    "slow service, bad wine",
    "kind staff but slow service",
    "good service and good wine",
    "bad staff, bad food",
    "kind service, fine food",
]
LABELS = [1, 0, 1, 0, 1, 1, 0, 1]


def binary_rows(rng, m, n, density):
    return sp.random(m, n, density=density, format="csr", random_state=rng, data_rvs=np.ones, dtype=np.float64)


@pytest.mark.parametrize("kind", [RandomForestClassifier, ExtraTreesClassifier])
def test_equal_to_the_forest_bit_for_bit_across_calls(kind):
    rng = np.random.default_rng(0)
    X = (rng.random((300, 20)) < 0.3).astype(int)
    y = X[:, 0] + X[:, 3] * X[:, 5]  # three classes
    forest = kind(n_estimators=30, random_state=0).fit(X, y)
    proba = presence_forest_proba(forest)
    for density, m in ((0.3, 2000), (0.3, 500), (0.05, 800)):  # the tables are reused from call to call
        rows = binary_rows(rng, m, 20, density)
        ours = proba(rows)
        assert ours.shape == (m, 3)
        assert np.array_equal(ours, forest.predict_proba(rows))
    dense = rng.integers(0, 2, size=(400, 20))
    assert np.array_equal(proba(dense), forest.predict_proba(dense))


def test_equal_on_lime_perturbations_through_a_pipeline():
    pipe = make_pipeline(CountVectorizer(binary=True), RandomForestClassifier(n_estimators=40, random_state=1))
    pipe.fit(DOCS, LABELS)
    text = "good food, slow staff and bad wine but kind service"
    d = len(lt.local_dictionary(text))
    masks = (np.random.default_rng(2).random((3000, d)) < 0.5).astype(int)
    rows = pipe[0].transform(lt.perturbed_documents(text, masks))
    proba = presence_forest_proba(pipe[-1])
    assert np.array_equal(proba(rows), pipe.predict_proba(lt.perturbed_documents(text, masks)))
    runs = lt.fast_lime_explanations(text, pipe[0], proba, n_exp=3, num_samples=400)
    assert np.array_equal(
        runs, lt.fast_lime_explanations(text, pipe[0], pipe[-1].predict_proba, n_exp=3, num_samples=400)
    )


def test_a_tree_reading_many_columns_is_evaluated_on_every_row(monkeypatch):
    rng = np.random.default_rng(3)
    X = (rng.random((300, 12)) < 0.5).astype(int)
    forest = RandomForestClassifier(n_estimators=10, random_state=0).fit(X, X[:, 1] ^ X[:, 4])
    monkeypatch.setattr(forest_rows, "MAX_TABLE_COLUMNS", 2)  # most trees now go through tree.predict_proba
    rows = binary_rows(rng, 700, 12, 0.5)
    assert np.array_equal(presence_forest_proba(forest)(rows), forest.predict_proba(rows))


def test_rows_other_than_zero_one_go_to_the_forest():
    rng = np.random.default_rng(4)
    X = rng.random((200, 6))
    forest = RandomForestClassifier(n_estimators=10, random_state=0).fit(X, X[:, 0] > 0.5)
    rows = rng.random((300, 6))
    assert np.array_equal(presence_forest_proba(forest)(rows), forest.predict_proba(rows))


def test_refusals():
    X, y = np.eye(4, dtype=int), [0, 1, 0, 1]
    with pytest.raises(TypeError, match="RandomForestClassifier or ExtraTreesClassifier"):
        presence_forest_proba(RandomForestRegressor(n_estimators=2).fit(X, y))
    with pytest.raises(TypeError, match="must be fitted"):
        presence_forest_proba(RandomForestClassifier())
    with pytest.raises(ValueError, match="n_jobs None or 1"):
        presence_forest_proba(RandomForestClassifier(n_estimators=2, n_jobs=2).fit(X, y))
    with pytest.raises(ValueError, match="one output"):
        presence_forest_proba(RandomForestClassifier(n_estimators=2).fit(X, np.column_stack([y, y])))
