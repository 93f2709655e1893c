"""sparse_forest_proba: bit for bit scikit-learn's own forest predict_proba (the reference computation), on sparse
rows holding few columns, dense rows, several classes and extra trees; NaN rows and repeated entries fall back."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.ensemble import ExtraTreesClassifier, GradientBoostingClassifier, RandomForestClassifier

from limetheory.book import sparse_forest_proba

RNG = np.random.default_rng(3)
X_FIT = RNG.random((400, 60)) * (RNG.random((400, 60)) < 0.15)
Y3 = (X_FIT[:, 0] > X_FIT[:, 1]).astype(int) + (X_FIT[:, 2] > 0.1)  # three classes


def _rows(m, columns, density=0.5, seed=0):
    """m sparse rows holding only ``columns`` (as lime's perturbations of one document do)."""
    rng = np.random.default_rng(seed)
    dense = np.zeros((m, X_FIT.shape[1]))
    dense[:, columns] = rng.random((m, len(columns))) * (rng.random((m, len(columns))) < density)
    return sp.csr_matrix(dense)


@pytest.mark.parametrize("kind", [RandomForestClassifier, ExtraTreesClassifier])
@pytest.mark.parametrize("labels", [X_FIT[:, 0] > X_FIT[:, 3], Y3], ids=["two", "three"])
def test_equal_to_predict_proba_bit_for_bit(kind, labels):
    forest = kind(n_estimators=15, random_state=0).fit(X_FIT, labels)
    proba = sparse_forest_proba(forest)
    for X in (_rows(700, [0, 1, 2, 3, 7, 11]), _rows(300, list(range(60)), 0.1, 1), X_FIT, X_FIT[:40]):
        assert np.array_equal(proba(X), forest.predict_proba(X))
    dense = _rows(50, [0, 3, 5]).toarray()
    assert np.array_equal(proba(dense), forest.predict_proba(dense))
    # a column stored twice in a row: passed to the forest itself
    twice = sp.csr_matrix((np.array([0.9, 0.0, 0.4]), np.array([0, 0, 3]), np.array([0, 3])), shape=(1, 60))
    assert np.array_equal(proba(twice), forest.predict_proba(twice))


def test_missing_values_and_refusals():
    forest = RandomForestClassifier(n_estimators=5, random_state=0).fit(X_FIT, X_FIT[:, 0] > 0.2)
    X = _rows(10, [0, 1]).toarray()
    X[0, 0] = np.nan
    assert np.array_equal(sparse_forest_proba(forest)(X), forest.predict_proba(X))  # forest.predict_proba itself
    with pytest.raises(TypeError, match="forest must be a fitted RandomForestClassifier"):
        sparse_forest_proba(GradientBoostingClassifier())
    with pytest.raises(TypeError, match="must be fitted"):
        sparse_forest_proba(RandomForestClassifier())
    with pytest.raises(ValueError, match="n_jobs"):
        sparse_forest_proba(RandomForestClassifier(n_estimators=3, n_jobs=2).fit(X_FIT, X_FIT[:, 0] > 0.2))
    with pytest.raises(ValueError, match="one output"):
        sparse_forest_proba(RandomForestClassifier(n_estimators=3).fit(X_FIT, np.c_[Y3, Y3]))
