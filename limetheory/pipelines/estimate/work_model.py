"""A deterministic work model of a classifier's time per row, for the default budget of rows from counts.

By default ``explain`` costs at most one lime run.  When it scores masks on rows from the document's counts
(:mod:`limetheory.pipelines.reading.count_rows`) a row costs far less than lime's string, vectorizer and row, and
the budget may hold more masks than lime's calls in lime's time, but only by as much as the classifier's own time
leaves: lime runs the classifier once on its ``n`` rows, the estimate once per mask.  For the scikit-learn
classifiers whose time follows from their fitted structure, :func:`classifier_costs` states that time in CPU
microseconds (a fixed work model, not a clock: the same call gives the same answer on any machine and load), and
:func:`rows_budget` turns it into masks.  Any other classifier is unknown (None): the caller keeps lime's number of
calls.

The constants were measured by ``benchmarks/row_budget.py`` on rows of TF-IDF vectorizers (scipy CSR, the rows
both lime and the count rows pass), each fitted by non-negative least squares and then rounded up (a classifier
made dearer pulls the budget toward lime's number of calls: the safe side).
"""

from __future__ import annotations

import numpy as np

#: a tree's CPU microseconds per row (its share of the output), per column of a sparse row (each tree scatters the
#: row's non-zeros before walking: scikit-learn's ``_apply_sparse_csr``) and per node on the row's mean path
#: (:func:`mean_path`); per call, the classifier's (input validation) and each tree's (dispatch, a tree's own
#: validation).  ``benchmarks/row_budget.py`` fitted 0, 0.00165 and 0.0042 per row, 0 and 118 per call on a decision
#: tree, random forests (10 and 100 trees, 100 of depth 8) and 100 extra trees, on 4000 TF-IDF rows of documents of
#: d = 39..488 words (at load 3.7 on two cores, scikit-learn 1.9.1): rounded up, the model overestimates every
#: forest's time per row measured there by 0-70%, a classifier made dearer pulls the budget toward lime's number of
#: calls (lime spends more per sample than the estimate per mask, the classifier aside)
TREE_US_PER_ROW, TREE_US_PER_COLUMN, TREE_US_PER_NODE = 0.01, 0.002, 0.005
TREE_US_PER_CALL, CLASSIFIER_US_PER_CALL = 120.0, 400.0
#: a gradient boosting's CPU microseconds per column of a sparse row (scattered once for all its stages), per tree
#: and row (besides the nodes on its path, ``TREE_US_PER_NODE``), per tree and call: 0.0068, 0.0011 and about 6
#: fitted on 50 stages (the same run), rounded up
BOOST_US_PER_COLUMN, BOOST_US_PER_TREE, BOOST_US_PER_TREE_CALL = 0.008, 0.002, 10.0
#: the compiled walk of a forest's rows (``reading.forest_walk.sparse_forest_proba``, the estimate's for a random
#: forest or extra trees): CPU microseconds per tree and row (its root's jump and its leaf's values), per tree and
#: column of a row (the more columns a row holds, the more of a path's splits are on them and compared), per node on
#: the mean path, and per call (the float32 copy of the rows, the jumps over the splits on the columns they lack).
#: ``benchmarks/row_budget.py`` fitted 0, 0.00057, 0.0027 and at most 196 per call, then 0, 0.00037, 0.0023 and 210
#: (the same forests and rows as above, at load 5.3 and 4.0; the walk 1.3x to 7x faster than ``predict_proba`` on
#: them, the 100-tree forest's 1.4x to 3.3x), rounded up so that the model is above the forests' measured times per
#: row but two of 40 (by at most 11%: 10 trees, c = 80 and 152), the fully grown forests' by up to 2x, the depth-8
#: forest's by up to 6x (its paths are shorter than the columns' term allows): the safe side, fewer masks
WALK_US_PER_TREE, WALK_US_PER_TREE_COLUMN, WALK_US_PER_NODE, WALK_US_PER_CALL = 0.01, 0.0013, 0.0015, 250.0
#: a linear classifier's CPU microseconds per row and per non-zero column of a sparse row, each per output (a row of
#: its ``coef_``: one for two classes), and per call (input validation, the intercept, the link): its
#: ``decision_function`` is the sparse product of the rows with ``coef_``, ``predict_proba`` adds the link per row.
#: ``benchmarks/row_budget.py`` (part 5) fitted 0.033 and 0.0018 per output, at most 444 per call, then 0.107, 0.0018
#: and 531 (load 1.5, then 2.1-2.5 on two cores), on logistic regressions (two and three classes) and an SGD
#: classifier on unigram, bigram, trigram and char_wb TF-IDF rows of documents of d = 39..488 words: rounded up, the
#: model is above every time per row measured there (0.09-3.4 us a row measured); a third run (the full script, load
#: 4.5-7.1) fitted 0.087 and 0.0020 and measured one char_wb row at 2.40 us against 2.02 modelled at 0.003 a column:
#: 0.004 now
LINEAR_US_PER_ROW, LINEAR_US_PER_COLUMN, LINEAR_US_PER_CALL = 0.2, 0.004, 600.0
#: the n-gram rows' own CPU microseconds per mask beyond a unigram row's (already in the estimate's ``ROWS_US_PER_*``):
#: per token of the document's sequence and per n-gram length (each length's n-grams are coded and looked up once in
#: the table's pass and once in the row's).  ``benchmarks/row_budget.py`` (part 5) fitted 0.0185, then 0.0239 at load
#: 2.1-2.5, on the whole n-gram row (unigram part included: the safe side) of bigram and trigram TF-IDF rows, d =
#: 39..488 (1.5 to 80 us a mask): rounded up so that the model is above every row measured in both runs
NGRAM_US_PER_TOKEN = 0.035
#: a ``char_wb`` row's CPU microseconds per mask and per character n-gram of the whole document (a mask's chunks add
#: their tabulated entries: about half of them), and lime's per n-gram of its strings beyond ``LIME_US_PER_WORD`` (its
#: vectorizer analyses every chunk of every string).  ``benchmarks/row_budget.py`` (part 5) fitted 0.010 for the row
#: (2.5x below the constant: 6.7-126 us a mask measured against 12.7-330 modelled, (2, 4)-grams, d = 39..488) and
#: 0.41-0.61 for lime (lime's char_wb run on d = 39..176, its time beyond the unigram model): lime's taken below its
#: least ratio (a lime made cheaper gives fewer masks), the row's above (load 2.1-2.5)
CHAR_US_PER_GRAM, LIME_US_PER_CHAR_GRAM = 0.025, 0.3
#: lime's CPU microseconds per word of its strings and per n-gram length beyond the first, for a word n-gram
#: vectorizer (its analyzer joins and counts every n-gram of every string): ``benchmarks/row_budget.py`` (part 5)
#: measured lime's bigram run beyond the unigram work model at 0.87 and 0.59 (160 words) and 1.15 and 0.45 (the
#: 488-word document: 3.0 s of 6.7, 1.16 s of 4.9) per word (two runs, load 1 and 0.6; on the 39-word review the
#: excess, 0.03 and -0.05 s, is within the run's noise); taken below every ratio (a lime made cheaper gives fewer
#: masks)
LIME_US_PER_NGRAM_WORD = 0.25
#: the estimate calls the classifier at most ``CALLS_FIXED`` times plus once per ``ROWS_PER_CALL`` masks (its pilot,
#: its batches, 8192-row blocks; counted on 5000 to 200000 masks at d = 39 and 488: 5-9 calls at 5000 masks, 37
#: at 200000)
CALLS_FIXED, ROWS_PER_CALL = 8, 4096


def _trees(classifier):
    """(the fitted trees of a scikit-learn tree model, "forest" or "boost"), or None for any other model."""
    from sklearn.ensemble import ExtraTreesClassifier, GradientBoostingClassifier, RandomForestClassifier
    from sklearn.tree import DecisionTreeClassifier, ExtraTreeClassifier

    if type(classifier) in (RandomForestClassifier, ExtraTreesClassifier):
        trees = getattr(classifier, "estimators_", None)
        return (list(trees), "forest") if trees else None
    if type(classifier) in (DecisionTreeClassifier, ExtraTreeClassifier):
        return ([classifier], "forest") if hasattr(classifier, "tree_") else None
    if type(classifier) is GradientBoostingClassifier and hasattr(classifier, "estimators_"):
        return list(np.ravel(classifier.estimators_)), "boost"
    return None


def mean_path(tree):
    """The nodes a row walks through, on average over the tree's training rows (weighted).

    The sum of the inner nodes' weights over the root's.

    Examples
    --------
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> tree = DecisionTreeClassifier(random_state=0).fit([[0], [1], [2], [3]], [0, 0, 1, 1])
    >>> mean_path(tree)  # one split: every row passes the root
    1.0
    """
    inner = tree.tree_.children_left >= 0
    weights = tree.tree_.weighted_n_node_samples
    return float(weights[inner].sum() / weights[0])


def linear_outputs(classifier):
    """The outputs (rows of ``coef_``) of a fitted linear classifier the work model knows, or None for any other.

    Known: scikit-learn's ``LogisticRegression``, ``SGDClassifier``, ``LinearSVC`` and ``RidgeClassifier`` (their
    exact types: a subclass may predict otherwise).

    Examples
    --------
    >>> from sklearn.linear_model import LogisticRegression
    >>> linear_outputs(LogisticRegression().fit([[0.0], [1.0], [2.0]], [0, 1, 2])), linear_outputs(object())
    (3, None)
    """
    from sklearn.linear_model import LogisticRegression, RidgeClassifier, SGDClassifier
    from sklearn.svm import LinearSVC

    if type(classifier) not in (LogisticRegression, SGDClassifier, LinearSVC, RidgeClassifier):
        return None
    coef = getattr(classifier, "coef_", None)
    return None if coef is None else int(np.atleast_2d(coef).shape[0])


def row_costs(document):
    """The estimate's CPU microseconds per mask to build a row, beyond a unigram row's (0 for those).

    ``document``: the rows' mirror (:func:`limetheory.pipelines.reading.count_rows.document_rows`); an n-gram one
    (:class:`limetheory.pipelines.reading.ngram_rows.NgramCounts`) costs ``NGRAM_US_PER_TOKEN`` per token of its
    sequence and n-gram length.

    Examples
    --------
    >>> from sklearn.feature_extraction.text import TfidfVectorizer
    >>> from limetheory.pipelines.reading.ngram_rows import NgramCounts
    >>> vectorizer = TfidfVectorizer(ngram_range=(1, 2)).fit(["good food", "bad wine"])
    >>> bool(row_costs(NgramCounts("good food, bad wine", vectorizer)) == 4 * 2 * NGRAM_US_PER_TOKEN)
    True
    >>> row_costs(object())
    0.0
    """
    grams = getattr(document, "grams", None)
    if grams is not None:  # a char_wb reading (:class:`limetheory.pipelines.reading.ngram_rows.CharChunks`)
        return CHAR_US_PER_GRAM * grams
    tokens = getattr(document, "sequence_tokens", None)
    if tokens is None:
        return 0.0
    return NGRAM_US_PER_TOKEN * len(tokens) * (document.high - document.low + 1)


def lime_row_costs(document, words):
    """lime's CPU microseconds beyond its work model's per word, for strings of ``words`` words in all (0 mostly).

    A ``char_wb`` vectorizer reads each word of lime's strings as its character n-grams: ``LIME_US_PER_CHAR_GRAM``
    each, the document's n-grams per word (``document.grams`` over its word tokens) times ``words``.  A word n-gram
    vectorizer reads each word once more per n-gram length beyond the first: ``LIME_US_PER_NGRAM_WORD`` each.

    Examples
    --------
    >>> lime_row_costs(object(), 1e6)
    0.0
    """
    grams = getattr(document, "grams", None)
    if grams is not None:
        return LIME_US_PER_CHAR_GRAM * words * grams / max(1, len(document.reading.word_of_token))
    if hasattr(document, "sequence_tokens"):  # word n-grams: each length beyond the first read again
        return LIME_US_PER_NGRAM_WORD * words * (document.high - document.low)
    return 0.0


def classifier_costs(classifier):
    """(microseconds per row, per column of a row, per call) of ``classifier.predict_proba`` on sparse rows, or None.

    None when the work model does not know the classifier.

    Parameters
    ----------
    classifier : object
        The pipeline's last step.  Known: scikit-learn's fitted ``RandomForestClassifier``,
        ``ExtraTreesClassifier``, ``DecisionTreeClassifier``, ``ExtraTreeClassifier`` and
        ``GradientBoostingClassifier`` (their exact types; a subclass may predict otherwise), and the linear
        classifiers of :func:`linear_outputs` (per output).

    Returns
    -------
    tuple of three floats, or None
        A row of c non-zero columns costs ``row + column * c`` microseconds; each call adds ``call``.

    Examples
    --------
    >>> from sklearn.ensemble import RandomForestClassifier
    >>> forest = RandomForestClassifier(10, random_state=0).fit([[0], [1], [2], [3]], [0, 0, 1, 1])
    >>> row, column, call = classifier_costs(forest)
    >>> bool(column == 10 * TREE_US_PER_COLUMN and call == CLASSIFIER_US_PER_CALL + 10 * TREE_US_PER_CALL)
    True
    >>> classifier_costs(object()) is None
    True
    """
    outputs = linear_outputs(classifier)
    if outputs is not None:
        return LINEAR_US_PER_ROW * outputs, LINEAR_US_PER_COLUMN * outputs, LINEAR_US_PER_CALL
    found = _trees(classifier)
    if found is None:
        return None
    trees, kind = found
    nodes = sum(mean_path(tree) for tree in trees) * TREE_US_PER_NODE
    if kind == "forest":
        call = CLASSIFIER_US_PER_CALL + TREE_US_PER_CALL * len(trees)
        return TREE_US_PER_ROW * len(trees) + nodes, TREE_US_PER_COLUMN * len(trees), call
    call = CLASSIFIER_US_PER_CALL + BOOST_US_PER_TREE_CALL * len(trees)
    return BOOST_US_PER_TREE * len(trees) + nodes, BOOST_US_PER_COLUMN, call


def walk_costs(forest):
    """(microseconds per row, per column of a row, per call) of the forest's walk on sparse rows.

    The estimate's cost of a random forest or extra trees whose rows it walks itself
    (:func:`limetheory.pipelines.reading.forest_walk.pipeline_forest_walk`), as :func:`classifier_costs` states
    scikit-learn's.

    Examples
    --------
    >>> from sklearn.ensemble import RandomForestClassifier
    >>> forest = RandomForestClassifier(10, random_state=0).fit([[0], [1], [2], [3]], [0, 0, 1, 1])
    >>> row, column, call = walk_costs(forest)
    >>> bool(column == 10 * WALK_US_PER_TREE_COLUMN and call == WALK_US_PER_CALL)
    True
    """
    trees = forest.estimators_
    nodes = sum(mean_path(tree) for tree in trees) * WALK_US_PER_NODE
    return WALK_US_PER_TREE * len(trees) + nodes, WALK_US_PER_TREE_COLUMN * len(trees), WALK_US_PER_CALL


def rows_budget(lime_us, num_samples, columns, mask_us, costs, safety, most, ours=None):
    """Masks of rows from counts whose modelled time is lime's modelled time over ``safety``.

    lime's run costs ``lime_us`` (its samples and strings, the classifier aside) plus the classifier on its
    ``num_samples`` rows in one call; the estimate costs ``mask_us`` per mask (the row from counts and the
    estimate's own work) plus the classifier on each mask's row, in ``CALLS_FIXED + masks / ROWS_PER_CALL`` calls.
    Rows of both keep about half of the document's ``columns`` (lime keeps each word with probability
    (d - 1) / (2d); the estimate's strata are drawn from lime's law).  The masks are kept between ``num_samples``
    (lime's number of calls, the rule for a classifier the model does not know) and ``most``.  ``ours``: the
    classifier's costs on the estimate's side when it differs from lime's ``costs`` (a forest's walk); None: the same.

    Examples
    --------
    >>> rows_budget(3e6, 5000, 200, 30.0, (1.0, 0.2, 1e4), 1.5, 10**6)  # lime 623 us a sample, a mask 53 us
    37361
    """
    row, column, call = costs
    lime = lime_us + num_samples * (row + column * columns / 2.0) + call
    row, column, call = costs if ours is None else ours
    per_mask = mask_us + row + column * columns / 2.0 + call / ROWS_PER_CALL
    masks = (lime / safety - CALLS_FIXED * call) / per_mask
    return int(min(max(masks, num_samples), most))
