"""A fitted forest's ``predict_proba`` on rows that hold few of its columns, bit for bit (chapter 23).

On lime's perturbations of one document read through a TF-IDF vectorizer every row is 0 outside the document's
columns, so a split on another column sends every row the same way (``0 <= threshold``: left), whatever its value
elsewhere.  :func:`sparse_forest_proba` follows those splits once per call (the tree route's chains,
``leaves.jump_targets``), then walks each row through the splits on the columns the rows hold, in a compiled
loop, and adds the trees' leaf values in the forest's order before dividing by their number, as
``RandomForestClassifier.predict_proba`` does with ``n_jobs=1`` (each tree's ``predict_proba`` is its leaf's
``tree_.value``, compared in float32 against the float64 threshold, as scikit-learn's own walk compares them).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .._compiled import compiled
from .forest_rows import check_forest


def sparse_forest_proba(forest):
    """``forest.predict_proba`` for rows that hold few columns, each row walked through the splits it can reach.

    The returned function equals ``forest.predict_proba(X)`` bit for bit (module docstring): the same float32 values
    against the same thresholds, the same leaf values added in the forest's order and divided by the number of
    trees.  Rows holding a NaN or an infinity go to ``forest.predict_proba`` itself (its walk treats missing values
    its own way), and so do rows that store a column twice.

    Parameters
    ----------
    forest : RandomForestClassifier or ExtraTreesClassifier
        Fitted, one output, ``n_jobs`` None or 1 (so that its own sum runs in the trees' order).

    Returns
    -------
    callable
        ``X`` (an (m, n_features) sparse or dense array) -> the (m, n_classes) array ``forest.predict_proba(X)``.

    Raises
    ------
    TypeError, ValueError
        The forest refused by ``forest_rows.check_forest``.

    Examples
    --------
    >>> from sklearn.ensemble import RandomForestClassifier
    >>> rng = np.random.default_rng(0)
    >>> X = rng.random((300, 40)) * (rng.random((300, 40)) < 0.2)
    >>> forest = RandomForestClassifier(n_estimators=20, random_state=0).fit(X, X[:, 0] > X[:, 3])
    >>> rows = sp.csr_matrix(rng.random((2000, 40)) * (rng.random((2000, 40)) < 0.1))
    >>> bool(np.array_equal(sparse_forest_proba(forest)(rows), forest.predict_proba(rows)))
    True
    """
    from ..pipelines.routes.leaves import forest_nodes, jump_targets

    check_forest(forest)
    trees = forest.estimators_

    def proba(X):
        matrix = sp.csr_matrix(X, dtype=np.float32)  # the trees read float32, as scikit-learn converts
        if (
            matrix.shape[1] != forest.n_features_in_
            or not np.all(np.isfinite(matrix.data))
            or not matrix.has_canonical_format  # a column stored twice in a row: scikit-learn's own reading
        ):
            return forest.predict_proba(X)
        arrays = forest_nodes(trees)  # the nodes of every tree in one numbering (cached for the last forest)
        present = np.unique(matrix.indices)
        starts = arrays.feature_start
        present = present[present < len(starts) - 1]  # columns no tree splits on have no nodes
        runs = [arrays.by_feature[starts[c] : starts[c + 1]] for c in present.tolist()]
        nodes = np.sort(np.concatenate(runs)) if runs else np.zeros(0, dtype=np.int64)
        # from each root and each child of a split on a held column: the node reached through the splits on the
        # columns every row lacks (0 <= threshold: the default child), a held split or a leaf
        left, right, roots = np.split(
            jump_targets(arrays, nodes, np.concatenate([arrays.left[nodes], arrays.right[nodes], arrays.roots])),
            [len(nodes), 2 * len(nodes)],
        )
        split_of = np.full(len(arrays.left), -1, dtype=np.int64)
        split_of[nodes] = np.arange(len(nodes))
        table = np.ascontiguousarray(arrays.value[:, 0, : forest.n_classes_], dtype=np.float64)
        out = _walk_rows(
            matrix.indptr.astype(np.int64), matrix.indices.astype(np.int64), matrix.data, int(matrix.shape[1]),
            roots, split_of, arrays.feature[nodes], arrays.threshold[nodes], left, right, table,
        )  # fmt: skip
        out /= len(trees)
        return out

    return proba


@compiled(cache=True, nogil=True)
def _walk_rows(indptr, indices, data, n_features, roots, split_of, feature, threshold, left, right, table):
    """Each row's leaf in each tree, its value added to the row's sum tree after tree (trees in the forest's order).

    A row's entries (one per column: canonical CSR) are written into a dense float32 row and cleared after it.
    """
    m, n_classes = len(indptr) - 1, table.shape[1]
    out = np.zeros((m, n_classes))
    dense = np.zeros(n_features, dtype=np.float32)
    for i in range(m):
        for k in range(indptr[i], indptr[i + 1]):
            dense[indices[k]] = data[k]
        for t in range(len(roots)):
            node = roots[t]
            s = split_of[node]
            while s >= 0:
                node = left[s] if dense[feature[s]] <= threshold[s] else right[s]
                s = split_of[node]
            for c in range(n_classes):
                out[i, c] += table[node, c]
        for k in range(indptr[i], indptr[i + 1]):
            dense[indices[k]] = 0.0
    return out
