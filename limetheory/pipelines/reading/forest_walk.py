"""A fitted forest's ``predict_proba`` on rows that hold few of its columns, bit for bit, in one compiled walk.

On lime's perturbations of one document read through a vectorizer every row is 0 outside the document's columns,
so a split on another column sends every row the same way (``0 <= threshold``: left), whatever its value elsewhere.
:func:`sparse_forest_proba` follows those splits once per call, from each root and from each child of a split on
a column the rows hold, then walks each row through the splits on its held columns only, and adds the trees' leaf
values in the forest's order before dividing by their number, as ``RandomForestClassifier.predict_proba`` does
with ``n_jobs=1`` (each tree's ``predict_proba`` is its leaf's ``tree_.value``, compared in float32 against the
float64 threshold, as scikit-learn's own walk compares them).  scikit-learn instead scatters each row once per
tree and walks every node of its path, in one call per tree: the walk is 3 to 4 times faster on such rows.

The estimate's rows from counts (:mod:`limetheory.pipelines.reading.count_rows`) use it for a pipeline's random
forest or extra trees (:func:`pipeline_forest_walk`); chapter 23 reads it through ``limetheory.book``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import scipy.sparse as sp

from ..._compiled import compiled


def check_forest(forest):
    """Refuse a forest whose predict_proba the trees cannot replay bit for bit: unfitted, several outputs or jobs.

    The forests of :func:`sparse_forest_proba` and ``limetheory.book.forest_rows.presence_forest_proba``: a fitted
    ``RandomForestClassifier`` or ``ExtraTreesClassifier`` of one output, with ``n_jobs`` None or 1 (so that its own
    sum of the trees runs in their order).

    Parameters
    ----------
    forest : object
        What the caller was given as a forest.

    Raises
    ------
    TypeError
        ``forest`` not a fitted random forest or extra-trees classifier.
    ValueError
        A forest of several outputs, or one that predicts with several jobs.

    Examples
    --------
    >>> from sklearn.ensemble import RandomForestClassifier
    >>> check_forest(RandomForestClassifier(n_estimators=2, n_jobs=2).fit([[0], [1]], [0, 1]))
    Traceback (most recent call last):
    ...
    ValueError: forest must predict with n_jobs None or 1 (its own sum then runs in the trees' order), got n_jobs = 2
    """
    from sklearn.ensemble import ExtraTreesClassifier, RandomForestClassifier  # here: most callers train no forest

    if not isinstance(forest, (RandomForestClassifier, ExtraTreesClassifier)):
        raise TypeError(
            f"forest must be a fitted RandomForestClassifier or ExtraTreesClassifier, got {type(forest).__name__}"
        )
    if not hasattr(forest, "estimators_"):
        raise TypeError("forest must be fitted (call forest.fit first)")
    if forest.n_outputs_ != 1:
        raise ValueError(f"forest must have one output, got n_outputs_ = {forest.n_outputs_}")
    if forest.n_jobs not in (None, 1):
        raise ValueError(
            f"forest must predict with n_jobs None or 1 (its own sum then runs in the trees' order), got "
            f"n_jobs = {forest.n_jobs}"
        )


class _Nodes(NamedTuple):
    """The nodes of all trees in one numbering, read once per forest."""

    left: np.ndarray
    right: np.ndarray
    feature: np.ndarray
    threshold: np.ndarray
    default_child: np.ndarray  # the child of a split on a column that is 0: left when 0 <= threshold
    roots: np.ndarray
    by_feature: np.ndarray  # the internal nodes sorted by the column they split on
    feature_start: np.ndarray  # where each column's nodes start in ``by_feature`` (one more entry at the end)
    table: np.ndarray  # each node's class values (float64), as the trees' predict_proba returns them


#: the last forest read, (its trees' ``tree_`` objects and its number of classes, its :class:`_Nodes`): explaining
#: many documents with one model reads its nodes once.  The key compares the ``tree_`` objects by identity: a refitted
#: model (scikit-learn builds new trees) is read anew; a fitted tree's nodes are not changed in place.
_LAST_NODES = [(((), 0), None)]


def _nodes(trees, n_classes):
    """The :class:`_Nodes` of ``trees``, from the cache when they are the last forest read."""
    structures = [tree.tree_ for tree in trees]
    (cached_structures, cached_classes), cached = _LAST_NODES[0]
    same = cached is not None and cached_classes == n_classes and len(cached_structures) == len(structures)
    if same and all(a is b for a, b in zip(cached_structures, structures, strict=True)):
        return cached
    sizes = np.array([s.node_count for s in structures], dtype=np.int64)
    roots = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    shift = np.repeat(roots, sizes)
    left = np.concatenate([s.children_left for s in structures]).astype(np.int64)
    right = np.concatenate([s.children_right for s in structures]).astype(np.int64)
    left, right = np.where(left >= 0, left + shift, -1), np.where(right >= 0, right + shift, -1)
    feature = np.concatenate([s.feature for s in structures]).astype(np.int64)
    threshold = np.concatenate([s.threshold for s in structures]).astype(np.float64)
    default_child = np.where(left >= 0, np.where(threshold >= 0.0, left, right), -1)
    internal = np.flatnonzero(left >= 0)
    by_feature = internal[np.argsort(feature[internal], kind="stable")]
    feature_start = np.searchsorted(feature[by_feature], np.arange(int(feature.max(initial=0)) + 2))
    value = np.concatenate([s.value for s in structures])
    table = np.ascontiguousarray(value[:, 0, :n_classes], dtype=np.float64)
    nodes = _Nodes(left, right, feature, threshold, default_child, roots, by_feature, feature_start, table)
    _LAST_NODES[0] = ((tuple(structures), n_classes), nodes)
    return nodes


def rows_accepted(matrix, n_features):
    """Whether the walk reads these CSR rows itself: the forest's width, finite values, one entry per column.

    Elsewhere :func:`sparse_forest_proba` passes the rows to ``forest.predict_proba`` (its own handling of missing
    values and of a column stored twice).  Rows from counts always pass (sorted, distinct columns; finite values).

    Examples
    --------
    >>> twice = sp.csr_matrix((np.array([0.9, 0.4]), np.array([0, 0]), np.array([0, 2])), shape=(1, 3))
    >>> rows_accepted(sp.csr_matrix(np.eye(3)), 3), rows_accepted(twice, 3), rows_accepted(sp.csr_matrix([[np.nan]]), 1)
    (True, False, False)
    """
    return matrix.shape[1] == n_features and bool(np.all(np.isfinite(matrix.data))) and matrix.has_canonical_format


def sparse_forest_proba(forest):
    """``forest.predict_proba`` for rows that hold few columns, each row walked through the splits it can reach.

    The returned function equals ``forest.predict_proba(X)`` bit for bit (module docstring): the same float32 values
    against the same thresholds, the same leaf values added in the forest's order and divided by the number of
    trees.  Rows refused by :func:`rows_accepted` (a NaN or an infinity, a column stored twice) go to
    ``forest.predict_proba`` itself.  The trees' nodes are read when this is called (once for the last forest read).

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
        The forest refused by :func:`check_forest`.

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
    check_forest(forest)
    nodes = _nodes(forest.estimators_, forest.n_classes_)
    n_trees = len(forest.estimators_)

    def proba(X):
        matrix = sp.csr_matrix(X, dtype=np.float32)  # the trees read float32, as scikit-learn converts
        if not rows_accepted(matrix, forest.n_features_in_):
            return forest.predict_proba(X)
        starts = nodes.feature_start
        flags = np.zeros(max(int(matrix.shape[1]), len(starts) - 1), dtype=bool)
        flags[matrix.indices] = True  # the columns the rows hold (one pass: a sort of the entries cost more)
        present = np.flatnonzero(flags[: len(starts) - 1])  # columns no tree splits on have no nodes
        runs = [nodes.by_feature[starts[c] : starts[c + 1]] for c in present.tolist()]
        held = np.sort(np.concatenate(runs)) if runs else np.zeros(0, dtype=np.int64)
        split_of = np.full(len(nodes.left), -1, dtype=np.int64)
        split_of[held] = np.arange(len(held))
        # from each root and each child of a held split: the node reached through the splits on the columns every
        # row lacks (0 <= threshold: the default child), a held split or a leaf
        left, right, roots = np.split(
            _jump(np.concatenate([nodes.left[held], nodes.right[held], nodes.roots]), split_of, nodes.default_child),
            [len(held), 2 * len(held)],
        )
        out = _walk_rows(
            matrix.indptr.astype(np.int64), matrix.indices.astype(np.int64), matrix.data, int(matrix.shape[1]),
            roots, split_of, nodes.feature[held], nodes.threshold[held], left, right, nodes.table,
        )  # fmt: skip
        out /= n_trees
        return out

    return proba


def pipeline_forest_walk(model, output):
    """:func:`sparse_forest_proba` of a two-step pipeline's forest for ``output`` "predict_proba", else None.

    The forest must be a ``RandomForestClassifier`` or ``ExtraTreesClassifier`` itself (a subclass may predict
    otherwise) that :func:`check_forest` accepts; then the walk's output on the vectorizer's rows equals
    ``model[1:].predict_proba`` bit for bit.

    Examples
    --------
    >>> from sklearn.ensemble import RandomForestClassifier
    >>> from sklearn.feature_extraction.text import TfidfVectorizer
    >>> from sklearn.pipeline import make_pipeline
    >>> docs = ["good food", "bad food", "good service", "bad service"]
    >>> pipe = make_pipeline(TfidfVectorizer(), RandomForestClassifier(5, random_state=0)).fit(docs, [1, 0, 1, 0])
    >>> pipeline_forest_walk(pipe, "predict_proba") is not None, pipeline_forest_walk(pipe, "predict")
    (True, None)
    """
    return sparse_forest_proba(model.steps[-1][1]) if walks(model, output) else None


def walks(model, output):
    """Whether :func:`pipeline_forest_walk` walks this pipeline's rows (without reading the trees' nodes).

    Examples
    --------
    >>> walks(lambda docs: None, "predict_proba")
    False
    """
    from sklearn.ensemble import ExtraTreesClassifier, RandomForestClassifier
    from sklearn.pipeline import Pipeline

    if output != "predict_proba" or not isinstance(model, Pipeline) or len(model.steps) != 2:
        return False
    forest = model.steps[-1][1]
    if type(forest) not in (RandomForestClassifier, ExtraTreesClassifier):
        return False
    try:
        check_forest(forest)
    except (TypeError, ValueError):  # unfitted, several outputs or jobs: the forest's own predict_proba
        return False
    return True


@compiled(cache=True, nogil=True)
def _jump(starts, split_of, default_child):
    """From each start node, the default children followed to the first held split or leaf (``split_of`` >= 0)."""
    out = np.empty(len(starts), dtype=np.int64)
    for i in range(len(starts)):
        node = starts[i]
        while split_of[node] < 0 and default_child[node] >= 0:
            node = default_child[node]
        out[i] = node
    return out


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
