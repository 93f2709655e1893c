r"""The exact law of a tree model's output under LIME's sampling, leaf by leaf.

A fitted scikit-learn tree sends each perturbed document to one leaf; a forest's ``predict_proba`` (or
``predict``) is the average of its trees' leaf values, and a gradient-boosted model's ``decision_function`` is a
constant plus the learning rate times the sum of its trees' leaf values.  When every split reads a column whose
value is a function of which lime words are kept (``limetheory.engine.presence``: counts, binary counts,
unnormalised TF-IDF), reaching a leaf is an event on the mask z, and the model is

.. math::

   f(z) = c + \sum_L v_L \, \mathbb{1}[z \in L].

So the conditional moments that :func:`limetheory.beta_from_conditional_moments` takes are sums over leaves of
:math:`v_L\,\mathbb{P}(L \mid s)` and :math:`v_L\,\mathbb{P}(L, z_j = 1 \mid s)`, with s the number of removed
words (LIME removes a uniform subset of s of the d words).

A leaf is a set of conditions on columns.  A column fed by one lime word asks that word to be kept or removed
(or nothing); a column fed by a group of words (lower-casing maps "The" and "the" to one column) allows a set of
kept subsets of the group.  Splitting each group's allowed subsets apart writes the leaf as a disjoint union of
*atoms*, "every word of K kept and every word of R removed".  Given s (k = d − s words kept) an atom has
probability

.. math::

   &\mathbb{P}(K \text{ kept}, R \text{ removed} \mid s)
     = \frac{\binom{d - a - b}{k - a}}{\binom{d}{k}}

   &\qquad = \prod_{i < a} \frac{k - i}{d - i} \, \prod_{i < b} \frac{d - k - i}{d - a - i},

   &\qquad a = \lvert K \rvert, \; b = \lvert R \rvert,

a ratio of binomials computed as a product of a + b factors (no cancellation, no overflow), and
:math:`\mathbb{P}(\text{atom}, z_j = 1 \mid s)` is that probability for j in K, 0 for j in R, and the
probability of the atom with j added to K for every other word.  Leaves never pass through an expansion into
monomials (whose signed coefficients cancel); identical leaves of different trees are merged, and the sums over
atoms are two matrix products.  The atoms are never listed: summed by their sizes, those of one leaf are a
convolution over its groups of the numbers of allowed subsets by size.

Only the nodes that split on a column the document feeds are visited in Python: every other split sends all of
lime's documents the same way (the column is 0 in each of them), and those chains are jumped over for all trees
at once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ..._validation import check_int, check_memory, check_nu, check_work
from ...engine.presence import EXPLAIN_ADVICE, document_columns
from ...theory.explanation import beta_from_weighted_moments
from ...theory.law import weighted_law
from ...units import bandwidth_keyword
from .leaf_atoms import atom_probabilities, atoms_by_size
from .leaf_walk import fed_splits, leaf_events

#: the outputs of a tree model that are sums of leaf values
OUTPUTS = ("predict_proba", "decision_function", "predict")


def _tree_kinds():
    from sklearn.ensemble import (
        ExtraTreesClassifier,
        ExtraTreesRegressor,
        GradientBoostingClassifier,
        GradientBoostingRegressor,
        RandomForestClassifier,
        RandomForestRegressor,
    )
    from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

    return {
        "tree_classifier": (DecisionTreeClassifier,),
        "tree_regressor": (DecisionTreeRegressor,),
        "forest_classifier": (RandomForestClassifier, ExtraTreesClassifier),
        "forest_regressor": (RandomForestRegressor, ExtraTreesRegressor),
        "boosting_classifier": (GradientBoostingClassifier,),
        "boosting_regressor": (GradientBoostingRegressor,),
    }


_SUPPORTED = (
    "DecisionTreeClassifier/Regressor, ExtraTreeClassifier/Regressor, RandomForestClassifier/Regressor, "
    "ExtraTreesClassifier/Regressor, GradientBoostingClassifier/Regressor"
)
_OUTPUT_OF = {
    "tree_classifier": "predict_proba",
    "forest_classifier": "predict_proba",
    "tree_regressor": "predict",
    "forest_regressor": "predict",
    "boosting_classifier": "decision_function",
    "boosting_regressor": "predict",
}


def _kind(model):
    for kind, classes in _tree_kinds().items():
        if isinstance(model, classes):
            return kind
    raise TypeError(
        f"model must be a fitted scikit-learn tree or tree ensemble ({_SUPPORTED}), got {type(model).__name__}; "
        f"for other models, {EXPLAIN_ADVICE}"
    )


def _components(model, output, label):
    """(kind, trees, node_values): the trees whose leaves sum to the output, and each node's share of that sum.

    ``node_values`` maps the trees' stacked ``tree_.value`` arrays to each node's contribution: the class
    frequency divided by the number of trees (forests average), the value (regressors), or learning_rate × value
    (gradient boosting, whose constant is read off the model later).
    """
    from sklearn.dummy import DummyClassifier, DummyRegressor
    from sklearn.exceptions import NotFittedError
    from sklearn.utils.validation import check_is_fitted

    kind = _kind(model)
    if not isinstance(output, str) or output not in OUTPUTS:
        raise ValueError(f"output must be one of {OUTPUTS}, got {output!r}")
    if output != _OUTPUT_OF[kind]:
        raise ValueError(
            f"output must be {_OUTPUT_OF[kind]!r} for a {type(model).__name__}: that is the output that is a sum of "
            f"leaf values (its {output!r} is not, or does not exist); for it, {EXPLAIN_ADVICE}"
        )
    label = check_int(label, "label")
    try:
        check_is_fitted(model)
    except NotFittedError as error:
        raise ValueError(f"model must be fitted (call model.fit first): {type(model).__name__}") from error
    if getattr(model, "n_outputs_", 1) != 1:
        raise ValueError(f"model must have a single output, got n_outputs_ = {model.n_outputs_}")
    if kind.endswith("classifier") and kind != "boosting_classifier":
        n_classes = int(model.n_classes_)
        if not 0 <= label < n_classes:
            raise ValueError(f"label must be a column of predict_proba, in [0, {n_classes}), got {label}")
    if kind in ("tree_classifier", "tree_regressor"):
        trees = [model]
    elif kind in ("forest_classifier", "forest_regressor"):
        trees = list(model.estimators_)
    else:
        init = model.init_
        # a dummy's prediction ignores the features, but "stratified" draws a random one for each document
        constant = (isinstance(init, str) and init == "zero") or isinstance(init, DummyRegressor)
        constant = constant or (isinstance(init, DummyClassifier) and init.strategy != "stratified")
        if not constant:
            raise ValueError(
                f"model's init estimator ({init!r}) is not a constant: its raw prediction depends on the features "
                f"(or is random), so the model is not a constant plus a sum of leaf values; {EXPLAIN_ADVICE}"
            )
        n_columns = model.estimators_.shape[1]
        if kind == "boosting_classifier":
            if n_columns == 1 and label != 1:
                raise ValueError(
                    "label must be 1 for the decision_function of a binary GradientBoostingClassifier (one column: "
                    f"the score of classes_[1]), got {label}"
                )
            if n_columns > 1 and not 0 <= label < n_columns:
                raise ValueError(f"label must be a column of decision_function, in [0, {n_columns}), got {label}")
        column = label if n_columns > 1 else 0
        trees = list(model.estimators_[:, column])
    if kind in ("tree_classifier", "forest_classifier"):

        def node_values(value):  # predict_proba column `label` as scikit-learn normalises it, averaged over trees
            return value[:, 0, label] / value[:, 0, :].sum(axis=1) / len(trees)

    elif kind in ("tree_regressor", "forest_regressor"):

        def node_values(value):
            return value[:, 0, 0] / len(trees)

    else:

        def node_values(value):  # predict_stages adds learning_rate * value, stage after stage
            return model.learning_rate * value[:, 0, 0]

    return kind, trees, node_values


def _chains(left, right, default_child):
    """The nodes in chain order: each chain a run of default children, from its head down to its leaf.

    Following ``default_child`` (where a split on a column that is 0 sends a document) from a node is a path that
    ends at a leaf; a node is the default child of at most one node (its parent), so these paths are disjoint
    chains.  Returns (order, position, end): the nodes listed chain by chain, head first; each node's index in
    ``order``; and the index of the leaf that ends its chain.
    """
    n = len(left)
    parent = np.full(n, -1, dtype=np.int64)
    internal = np.flatnonzero(left >= 0)
    parent[left[internal]], parent[right[internal]] = internal, internal
    up = np.where((parent >= 0) & (default_child[np.maximum(parent, 0)] == np.arange(n)), parent, np.arange(n))
    depth = (up != np.arange(n)).astype(np.int64)
    while True:  # pointer doubling to each chain's head: log2(longest chain) passes, once per forest
        step = up[up]
        if np.array_equal(step, up):
            break
        depth = depth + depth[up]
        up = step
    order = np.lexsort((depth, up))
    position = np.empty(n, dtype=np.int64)
    position[order] = np.arange(n)
    head_of = up[order]
    last = np.flatnonzero(np.append(head_of[1:] != head_of[:-1], True))  # each chain's last index, its leaf
    end = np.repeat(last, np.diff(np.concatenate([[-1], last])))[position]
    return order, position, end


def _jumps(forest, fed_nodes, nodes):
    """For each of ``nodes``, the node reached by following the splits that treat all of lime's documents alike.

    Those are the splits on columns no word feeds (not in ``fed_nodes``): every perturbed document goes to the
    default child.  The answer is the first node of ``fed_nodes`` on the node's chain (:func:`_chains`), or the
    leaf that ends it.
    """
    fed_positions = np.sort(forest.position[fed_nodes])
    start, end = forest.position[nodes], forest.chain_end[nodes]
    first = np.searchsorted(fed_positions, start)
    found = fed_positions[np.minimum(first, max(len(fed_positions) - 1, 0))] if len(fed_positions) else end
    return forest.order[np.where((first < len(fed_positions)) & (found <= end), found, end)]


class _Forest(NamedTuple):
    """The nodes of all trees in one numbering (:func:`_forest_arrays`)."""

    left: np.ndarray
    right: np.ndarray
    feature: np.ndarray
    threshold: np.ndarray
    value: np.ndarray  # the trees' stacked ``tree_.value``, before ``node_values``
    roots: np.ndarray
    default_child: np.ndarray  # the child of a split on a column that is 0: left when 0 <= threshold
    order: np.ndarray  # the nodes chain by chain (:func:`_chains`)
    position: np.ndarray  # each node's index in ``order``
    chain_end: np.ndarray  # the index in ``order`` of the leaf that ends each node's chain
    by_feature: np.ndarray  # the internal nodes sorted by the column they split on
    feature_start: np.ndarray  # where each column's nodes start in ``by_feature`` (one more entry at the end)


#: the last forest read, (its trees' ``tree_`` objects, its :class:`_Forest`): explaining many documents with one
#: model reads its nodes once.  The key holds the ``tree_`` objects themselves and compares them by identity, so a
#: refitted model (scikit-learn builds new trees) is read anew; a fitted tree's nodes are not changed in place.
_LAST_FOREST = [((), None)]


def _forest_arrays(trees):
    """The :class:`_Forest` of ``trees``, from the cache when they are the last forest read."""
    structures = tuple(tree.tree_ for tree in trees)
    cached_structures, cached = _LAST_FOREST[0]
    same = len(cached_structures) == len(structures)
    if same and all(a is b for a, b in zip(cached_structures, structures, strict=True)):
        return cached
    sizes = np.array([structure.node_count for structure in structures], dtype=np.int64)
    roots = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    shift = np.repeat(roots, sizes)  # each node's offset in the common numbering
    left = np.concatenate([structure.children_left for structure in structures]).astype(np.int64)
    right = np.concatenate([structure.children_right for structure in structures]).astype(np.int64)
    left = np.where(left >= 0, left + shift, -1)
    right = np.where(right >= 0, right + shift, -1)
    feature = np.concatenate([structure.feature for structure in structures]).astype(np.int64)
    threshold = np.concatenate([structure.threshold for structure in structures])
    value = np.concatenate([structure.value for structure in structures])
    # a column no word feeds is 0 in every perturbed document: 0 <= threshold goes left
    default_child = np.where(left >= 0, np.where(threshold >= 0.0, left, right), -1)
    order, position, chain_end = _chains(left, right, default_child)
    internal = np.flatnonzero(left >= 0)
    by_feature = internal[np.argsort(feature[internal], kind="stable")]
    feature_start = np.searchsorted(feature[by_feature], np.arange(int(feature.max(initial=0)) + 2))
    forest = _Forest(
        left, right, feature, threshold, value, roots, default_child, order, position, chain_end, by_feature,
        feature_start,
    )  # fmt: skip
    _LAST_FOREST[0] = (structures, forest)
    return forest


def _splits(forest, columns):
    """{node: split} for the nodes whose column the document feeds, with the chains between them jumped over.

    A split is (True, word bit, code, left, right) for a column fed by one word, where bit 0 of ``code`` says
    whether "word removed" goes left and bit 1 whether "word kept" goes left; or (False, group, bit set of the
    group's kept subsets that go left, left, right) for a column shared by a group of words.
    """
    fed = fed_splits(forest, columns, _jumps)
    single = fed.single
    splits = dict(
        zip(
            fed.nodes[single].tolist(),
            zip(
                [True] * int(single.sum()),
                [1 << w for w in fed.word[single].tolist()],
                fed.code[single].tolist(),
                fed.left[single].tolist(),
                fed.right[single].tolist(),
                strict=True,
            ),
            strict=True,
        )
    )
    shared_cache = {}
    for node, c, t, jl, jr in zip(
        *(x[~single].tolist() for x in (fed.nodes, fed.column, fed.threshold, fed.left, fed.right)), strict=True
    ):
        goes_left = shared_cache.get((c, t))
        if goes_left is None:
            goes_left = shared_cache[c, t] = columns.left_subsets(c, t)
        splits[node] = (False, columns.group_of_column[c], goes_left, jl, jr)
    return splits, fed.roots


def _leaf_events(trees, node_values, columns, d):
    """The leaves lime's documents can reach, as events, with the summed leaf values of identical events.

    An event is (kept bits, removed bits, shared): words whose bit is set in ``kept`` (``removed``) must be kept
    (removed), and ``shared`` is a sorted tuple of (group, bit set of its allowed kept subsets) for the groups of
    words sharing a column that the path constrains.  The walk is compiled (:func:`leaf_walk.leaf_events`) and
    returns the events as ``leaf_walk.Events`` arrays; :func:`_leaf_events_python` is the same walk in Python, the
    reference of the tests.
    """
    forest = _forest_arrays(trees)
    return leaf_events(
        forest, fed_splits(forest, columns, _jumps), columns, d, lambda nodes: node_values(forest.value[nodes])
    )


def _leaf_events_python(trees, node_values, columns):
    """:func:`_leaf_events` walked in Python, a stack of (node, kept bits, removed bits, shared) tuples.

    Returns the dict {(kept bits, removed bits, shared): summed value}, in the order of the events' first leaves.
    """
    forest = _forest_arrays(trees)
    splits, jump_roots = _splits(forest, columns)
    full = [(1 << (1 << len(group))) - 1 for group in columns.groups]
    keys, reached = [], []
    stack = [(node, 0, 0, ()) for node in jump_roots.tolist()]
    push, pop, split_of = stack.append, stack.pop, splits.get
    while stack:
        node, kept, removed, shared = pop()
        split = split_of(node)
        if split is None:  # a leaf
            keys.append((kept, removed, shared))
            reached.append(node)
            continue
        single, where, goes_left, child_left, child_right = split
        if single:  # goes_left: bit 0 whether "word removed" goes left, bit 1 whether "word kept" does
            if kept & where:
                push((child_left if goes_left & 2 else child_right, kept, removed, shared))
            elif removed & where:
                push((child_left if goes_left & 1 else child_right, kept, removed, shared))
            elif goes_left == 3:
                push((child_left, kept, removed, shared))
            elif goes_left == 0:
                push((child_right, kept, removed, shared))
            elif goes_left == 2:  # kept goes left, removed right
                push((child_left, kept | where, removed, shared))
                push((child_right, kept, removed | where, shared))
            else:
                push((child_left, kept, removed | where, shared))
                push((child_right, kept | where, removed, shared))
            continue
        allowed = full[where]
        for g, a in shared:
            if g == where:
                allowed = a
        for child, subsets in ((child_left, allowed & goes_left), (child_right, allowed & ~goes_left)):
            if subsets == allowed:
                push((child, kept, removed, shared))
            elif subsets:
                if shared:
                    updated = tuple(sorted([(g, a) for g, a in shared if g != where] + [(where, subsets)]))
                else:
                    updated = ((where, subsets),)
                push((child, kept, removed, updated))
    index = {}
    codes = np.array([index.setdefault(key, len(index)) for key in keys], dtype=np.int64)
    # the values of the reached leaves only (node_values is elementwise in the nodes: the same numbers)
    leaf_value = node_values(forest.value[np.array(reached, dtype=np.int64)])
    sums = np.bincount(codes, weights=leaf_value, minlength=len(index))
    return dict(zip(index, sums.tolist(), strict=True))


def conditional_moments_trees(model, vectorizer, text, *, output="predict_proba", label=1, columns=None):
    r"""The conditional moments of a tree model's output under LIME's sampling, exactly, from its leaves.

    The model reads ``vectorizer.transform(documents)`` (as the last step of ``Pipeline(vectorizer, model)``).
    With s the number of removed words, the result is what :func:`limetheory.beta_from_conditional_moments` takes:
    ``beta_from_conditional_moments(*conditional_moments_trees(...), nu=...)`` is LIME's limit explanation.
    Each leaf's probability given s is a ratio of binomials (module docstring); nothing is sampled.

    Parameters
    ----------
    model : fitted scikit-learn tree model
        ``DecisionTreeClassifier``, ``DecisionTreeRegressor``, ``ExtraTreeClassifier``, ``ExtraTreeRegressor``,
        ``RandomForestClassifier``, ``RandomForestRegressor``, ``ExtraTreesClassifier``, ``ExtraTreesRegressor``,
        ``GradientBoostingClassifier`` (with a constant init, the default) or ``GradientBoostingRegressor``; single
        output; trained on the vectorizer's columns.
    vectorizer : CountVectorizer or TfidfVectorizer
        Fitted, ``analyzer='word'``, ``ngram_range=(1, 1)``, and such that each column is a function of which lime
        words are kept: counts, ``binary=True``, or TF-IDF with ``norm=None`` (``sublinear_tf`` and ``use_idf``
        allowed).  Words may share a column (lower-casing).
    text : str
        The document to explain.
    output : {"predict_proba", "decision_function", "predict"}
        The model's output that is a sum of leaf values: ``"predict_proba"`` for tree and forest classifiers,
        ``"decision_function"`` for ``GradientBoostingClassifier``, ``"predict"`` for regressors.
    label : int
        Column of ``predict_proba`` (classifiers), or of ``decision_function`` for a multi-class gradient-boosted
        model; must be 1 for a binary one (its single column is the score of ``classes_[1]``).  Not used by
        regressors.
    columns : limetheory.engine.presence.DocumentColumns, optional
        The document's features and the presence structure of their columns, when lime's features are not its
        default words (``bow=False``, another ``split_expression``:
        ``limetheory.pipelines.reading.modes.mode_document_columns``); by default ``document_columns(vectorizer,
        text)``.

    Returns
    -------
    f_given_s : ndarray, shape (d,)
        ``f_given_s[s - 1]`` = E[f | s words removed], s = 1..d, over lime's local dictionary of ``text``.
    zf_given_s : ndarray, shape (d, d)
        ``zf_given_s[s - 1, j]`` = E[z_j f | s words removed].

    Raises
    ------
    TypeError
        ``model`` is not one of the tree models above (other models have no leaves: ``lt.explain`` estimates
        them), ``vectorizer`` is not a Count/Tfidf vectorizer, ``text`` not a str, ``label`` not an int.
    ValueError
        A column is not a function of which words are kept (normalised TF-IDF: the message says so and points to
        ``lt.explain``); ``output`` is not the model's sum of leaf values; an unfitted or multi-output model; a
        model trained on another number of columns; ``label`` out of range; a non-constant boosting init; a
        vectorizer whose tokens span lime's separators; a document without words; work arrays beyond 2 GiB.

    Examples
    --------
    >>> from sklearn.feature_extraction.text import CountVectorizer
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> docs = ["good food", "bad food", "good staff", "bad staff"]
    >>> vectorizer = CountVectorizer(binary=True).fit(docs)
    >>> tree = DecisionTreeClassifier(random_state=0).fit(vectorizer.transform(docs), [1, 0, 1, 0])
    >>> int(tree.tree_.feature[0]) == vectorizer.vocabulary_["bad"]  # the root splits on "bad": f = 1 - z_bad
    True
    >>> f_given_s, zf_given_s = conditional_moments_trees(tree, vectorizer, "bad food")
    >>> f_given_s.tolist()  # one of two words removed: "bad" is gone half the time; both removed: always
    [0.5, 1.0]
    >>> from limetheory import beta_from_conditional_moments
    >>> (beta_from_conditional_moments(f_given_s, zf_given_s, nu=0.25).round(12) + 0.0).tolist()
    [1.0, -1.0, 0.0]
    """
    parts = _moment_parts(model, vectorizer, text, output, label, columns, square=True)
    # every word free, then corrected for the words an atom keeps (P instead) and removes (0 instead)
    zf_given_s = (parts.total @ parts.with_one_more)[:, None] + parts.without.T @ parts.kept
    zf_given_s -= parts.with_one_more.T @ parts.removed
    zf_given_s += parts.constant * ((parts.d - np.arange(1, parts.d + 1)) / parts.d)[:, None]
    return parts.f_given_s, zf_given_s


@dataclass(frozen=True)
class _Parts:
    """The leaf atoms summed by size, in the form both the d x d moments and their weighted sum over s take.

    ``f_given_s`` is E[f | s]; ``with_one_more`` and ``without`` are P(atom and one more free word kept | s) and
    P(atom and one free word removed | s), one row per size (a, b), one column per s; ``total`` the atoms' values
    summed per size, ``kept`` and ``removed`` summed per size and per word they keep or remove; ``constant`` a
    boosting model's init.
    """

    d: int
    f_given_s: np.ndarray
    total: np.ndarray
    kept: np.ndarray
    removed: np.ndarray
    with_one_more: np.ndarray
    without: np.ndarray
    constant: float


def _moment_parts(model, vectorizer, text, output, label, columns, square):
    """:class:`_Parts` of a tree model's output on ``text``; ``square``: the caller forms the d x d moments."""
    kind, trees, node_values = _components(model, output, label)
    if columns is None:
        columns = document_columns(vectorizer, text, n_features=int(model.n_features_in_))
    d = len(columns.words)
    events = _leaf_events(trees, node_values, columns, d)
    a, b, total, kept, removed, n_atoms = atoms_by_size(events, columns, d)
    what = f"the moments of {n_atoms} leaf atoms at d = {d}"
    check_memory(8.0 * ((3 * d * d if square else 0) + 2 * len(a)), what)
    check_memory(8.0 * 6 * len(a) * d, f"{what} ({len(a)} sizes)")
    check_work(8.0 * (d if square else 1) * d * len(a), f"{what} ({len(a)} sizes)")
    probability = atom_probabilities(a, b, d)  # P(atom | s), one row per size (a, b)
    # P(atom, z_j = 1 | s) for a word j the atom leaves free: the atom with j kept too, P * (k - a) / (d - a - b)
    k = (d - np.arange(1, d + 1)).astype(float)
    free = np.maximum(d - a - b, 1)[:, None].astype(float)
    with_one_more = probability * np.maximum(k - a[:, None], 0.0) / free
    without = probability * np.maximum(d - b[:, None] - k, 0.0) / free  # P - with_one_more, without cancellation
    f_given_s = total @ probability
    constant = 0.0
    if kind.startswith("boosting"):
        # the init's constant: the model's own output on the document minus its trees' (every word kept)
        full_document = vectorizer.transform([text])
        raw = model.decision_function(full_document) if output == "decision_function" else model.predict(full_document)
        raw = np.asarray(raw, dtype=float).reshape(1, -1)[0]
        constant = float(raw[label if raw.size > 1 else 0]) - float(total[b == 0].sum())
        f_given_s = f_given_s + constant
    return _Parts(d, f_given_s, total, kept, removed, with_one_more, without, constant)


def beta_trees(model, vectorizer, text, *, nu, output="predict_proba", label=1, columns=None):
    """:func:`beta_tree_model` for ``columns`` of another text mode, without the d x d moments.

    LIME's β needs the words' moments only summed over s with its law
    (:func:`limetheory.theory.explanation.beta_from_weighted_moments`), and each part of them is a product of the sizes'
    probabilities with their per-word sums: summed over s first, the cost is (number of sizes) x d, not d², and
    so is the memory.

    Parameters
    ----------
    model, vectorizer, text, output, label, columns
        As in :func:`conditional_moments_trees`.
    nu : float
        Bandwidth > 0 or ``np.inf``; keyword only.

    Returns
    -------
    ndarray, shape (d + 1,)
        LIME's limit explanation of the model: the intercept, then the coefficient of each of lime's features
        (the words of ``text``, or ``columns.words``).

    Examples
    --------
    >>> from sklearn.ensemble import GradientBoostingRegressor
    >>> from sklearn.feature_extraction.text import CountVectorizer
    >>> vectorizer = CountVectorizer().fit(["fresh bread", "stale bread"])
    >>> model = GradientBoostingRegressor(n_estimators=5, random_state=0)
    >>> model = model.fit(vectorizer.transform(["fresh bread", "stale bread"]), [1.0, 0.0])
    >>> moments = conditional_moments_trees(model, vectorizer, "stale bread", output="predict")
    >>> from limetheory import beta_from_conditional_moments
    >>> bool(np.allclose(beta_trees(model, vectorizer, "stale bread", nu=0.25, output="predict"),
    ...                  beta_from_conditional_moments(*moments, nu=0.25), rtol=0, atol=1e-12))
    True
    """
    nu = check_nu(nu)
    parts = _moment_parts(model, vectorizer, text, output, label, columns, square=False)
    d = parts.d
    if d < 2:
        raise ValueError(f"text must have at least 2 distinct words (lime's features), got d = {d}")
    law = weighted_law(d, nu)
    weighted_zf = float(law.m @ (parts.total @ parts.with_one_more)) + (parts.without @ law.m) @ parts.kept
    weighted_zf = weighted_zf - (parts.with_one_more @ law.m) @ parts.removed
    weighted_zf = weighted_zf + parts.constant * float(law.m @ ((d - np.arange(1, d + 1)) / d))
    return beta_from_weighted_moments(parts.f_given_s, weighted_zf, law)


@bandwidth_keyword
def beta_tree_model(model, vectorizer, text, *, nu, output="predict_proba", label=1):
    r"""LIME's limit explanation of a tree model on a presence vectorizer, exactly (:math:`\Sigma^{-1}\Gamma^f`).

    ``beta_from_conditional_moments(*conditional_moments_trees(model, vectorizer, text, output=output,
    label=label), nu=nu)``, computed without the d x d moments (:func:`beta_trees`: memory and time grow as the
    number of leaf-atom sizes times d); see :func:`conditional_moments_trees` for what the model and vectorizer
    may be.

    Parameters
    ----------
    model, vectorizer, text, output, label
        As in :func:`conditional_moments_trees`.
    nu : float
        The paper's bandwidth ν = kernel_width / 100 (> 0, or ``np.inf``); keyword only.

    Returns
    -------
    ndarray, shape (d + 1,)
        Index 0 the intercept, index 1 + j the coefficient of word j of ``local_dictionary(text)``; d >= 2.

    Raises
    ------
    TypeError, ValueError
        As :func:`conditional_moments_trees`; ``nu`` not a positive number; a document of one word.

    Examples
    --------
    >>> from sklearn.feature_extraction.text import CountVectorizer
    >>> from sklearn.ensemble import RandomForestClassifier
    >>> docs = ["good food", "bad food", "good staff", "bad staff"] * 5
    >>> vectorizer = CountVectorizer(binary=True).fit(docs)
    >>> X = vectorizer.transform(docs)
    >>> forest = RandomForestClassifier(n_estimators=10, random_state=0).fit(X, [1, 0, 1, 0] * 5)
    >>> (beta_tree_model(forest, vectorizer, "bad food", nu=0.25).round(12) + 0.0).tolist()
    [0.9, -0.9, 0.0]
    """
    return beta_trees(model, vectorizer, text, nu=nu, output=output, label=label)
