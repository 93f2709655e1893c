"""A fitted forest's ``predict_proba`` on many 0/1 rows, each tree evaluated once per distinct row of its columns.

A tree reads only the columns it splits on: two rows equal on those columns reach the same leaf, so its
``predict_proba`` on them is the same, bit for bit.  On lime's perturbations of one document read through a binary
``CountVectorizer`` a row varies only in the document's few columns, and each tree splits on a handful of them
(the 500-tree forest of chapter 23 on its 29-word review: 8 of the document's 25 columns per tree on average),
so each tree sees a few hundred distinct rows among hundreds of thousands.  :func:`presence_forest_proba` evaluates
each tree (scikit-learn's own ``predict_proba``) once per distinct row of its columns and adds the trees' outputs in
the forest's order, as ``RandomForestClassifier.predict_proba`` does with ``n_jobs=1``: the result is the forest's,
bit for bit, in a fraction of its time.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ..pipelines.reading.forest_walk import check_forest  # one copy, shared with the estimate's forest walk

#: a tree whose columns in the rows exceed this many is evaluated on every row (its table would be 2^k rows)
MAX_TABLE_COLUMNS = 16
#: rows x columns present beyond which the rows go to the forest itself (the 0/1 copy of the present columns)
MAX_DENSE_ENTRIES = 2**26


def presence_forest_proba(forest):
    """``forest.predict_proba`` for 0/1 rows, each tree evaluated once per distinct row of the columns it reads.

    The returned function equals ``forest.predict_proba(X)`` bit for bit on every ``X`` (module docstring): each
    tree's output is scikit-learn's own on a representative row, and the trees are added in the forest's order and
    divided by their number, as the forest does with ``n_jobs=1``.  Rows holding a value other than 0 and 1 are
    passed to ``forest.predict_proba`` itself.  Each tree remembers its outputs on the rows it has seen (the
    document's columns fix them), so later calls on rows of the same document cost a lookup per tree.

    Parameters
    ----------
    forest : RandomForestClassifier or ExtraTreesClassifier
        Fitted, one output (``n_jobs`` None or 1, so that its own sum runs in the trees' order).

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
    >>> X = rng.integers(0, 2, size=(200, 12))
    >>> forest = RandomForestClassifier(n_estimators=20, random_state=0).fit(X, X[:, 0] ^ X[:, 3])
    >>> proba = presence_forest_proba(forest)
    >>> rows = rng.integers(0, 2, size=(5000, 12))
    >>> bool(np.array_equal(proba(rows), forest.predict_proba(rows)))
    True
    """
    check_forest(forest)
    trees = forest.estimators_
    features = [np.unique(tree.tree_.feature[tree.tree_.feature >= 0]) for tree in trees]
    tables = {}  # (tree, its columns in the rows) -> (its output on each key, which keys are known)
    layouts = {}  # the columns present in the rows -> (each tree's columns among them, their place values)

    def layout(present):
        """Each tree's columns among ``present`` and the (trees, columns) place values that make its keys.

        Row t holds 2^j at tree t's j-th column (zeros for a tree read on every row): the product with a 0/1 row
        is the tree's key of that row, a sum of distinct powers of two below 2^16, exact in float32.
        """
        columns = [np.flatnonzero(np.isin(present, f)) for f in features]
        places = np.zeros((len(trees), len(present)), dtype=np.float32)
        for t, cols in enumerate(columns):
            if len(cols) <= MAX_TABLE_COLUMNS:
                places[t, cols] = 2.0 ** np.arange(len(cols))
        return columns, places

    def proba(X):
        matrix = sp.csr_matrix(X, dtype=np.float32)  # the trees read float32, as scikit-learn converts
        matrix.sum_duplicates()
        matrix.eliminate_zeros()
        present = np.unique(matrix.indices)  # columns outside these are 0 in every row
        m = matrix.shape[0]
        if (
            matrix.shape[1] != forest.n_features_in_
            or not np.all(matrix.data == 1)
            or m * len(present) > MAX_DENSE_ENTRIES
        ):
            return forest.predict_proba(X)
        if present.tobytes() not in layouts:
            layouts[present.tobytes()] = layout(present)
        columns, places = layouts[present.tobytes()]
        # every tree's key of every row at once: (trees, columns) @ (columns, rows), one row of keys per tree
        keys = (places @ matrix[:, present].toarray().T).astype(np.int32)
        out = np.zeros((m, forest.n_classes_))
        for t, tree in enumerate(trees):
            if len(columns[t]) > MAX_TABLE_COLUMNS:
                out += tree.predict_proba(matrix)
                continue
            size = 2 ** len(columns[t])
            table, known = tables.setdefault(
                (t, present[columns[t]].tobytes()), (np.empty((size, forest.n_classes_)), np.zeros(size, dtype=bool))
            )
            key = keys[t]
            new = np.flatnonzero(~known[key])
            if len(new):
                # one row of each new key (any: rows with one key reach one leaf); many new keys against the table's
                # size: a scatter and a count over the table, no sort; a few: sorted
                if 4 * len(new) >= size:
                    representative = np.empty(size, dtype=np.int64)
                    representative[key[new]] = new
                    seen = np.flatnonzero(np.bincount(key[new], minlength=size))
                    rows = representative[seen]
                else:
                    seen, first = np.unique(key[new], return_index=True)
                    rows = new[first]
                table[seen] = tree.predict_proba(matrix[rows])
                known[seen] = True
            out += np.take(table, key, axis=0)
        out /= len(trees)
        return out

    return proba
