"""Decision trees as formulas in lime's words: scikit-learn trees on word-presence features, read node by node.

A fitted tree whose splits are functions of which words are present is the sum over its leaves of the leaf value
times the product of the literals (z or 1 - z, or the indicator of a formula in the words that share a column) on
the path to the leaf, a formula that :func:`limetheory.beta_boolean` explains exactly.  For large trees and for
ensembles, :mod:`limetheory.pipelines.routes.leaves` computes the same explanation from the leaves directly.

Functions
---------
tree_to_formula(tree, feature_words, ...)
    A fitted scikit-learn decision tree on 0/1 presence features as a sympy formula.
presence_formula(column_word, words, vectorizer=None)
    "The vectorizer column is positive" as a formula in lime's (case-sensitive) words.
tree_formula_for_document(tree, vectorizer, text, ...)
    The exact formula, in lime's words, of a tree that reads ``vectorizer.transform(docs)`` (counts, binary
    counts or unnormalised TF-IDF), on the documents LIME builds from ``text``; normalised TF-IDF is refused.
"""

from __future__ import annotations

# sympy (about a second to import) is imported inside the functions that build formulas, so that importing
# limetheory stays cheap (tests/test_import_cost.py)
import numpy as np

from ..._validation import check_int, check_vectorizer
from ...engine.presence import document_columns
from ...engine.tokens import local_dictionary, word_tokens
from ...theory.boolean import arithmetic_indicator, check_words

_FORMS = ("leaves", "piecewise")


def _check_tree(tree):
    from sklearn.exceptions import NotFittedError
    from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor
    from sklearn.utils.validation import check_is_fitted

    if not isinstance(tree, (DecisionTreeClassifier, DecisionTreeRegressor)):
        raise TypeError(
            f"tree must be a scikit-learn DecisionTreeClassifier or DecisionTreeRegressor, got {type(tree).__name__}"
        )
    try:
        check_is_fitted(tree, "tree_")
    except NotFittedError as error:
        raise ValueError("tree must be fitted (call tree.fit first)") from error
    if tree.n_outputs_ != 1:
        raise ValueError(f"tree must have a single output, got n_outputs_ = {tree.n_outputs_}")
    return isinstance(tree, DecisionTreeClassifier)


def _feature_formula(entry, i):
    import sympy as sp
    from sympy.logic import boolalg

    if isinstance(entry, str):
        return sp.Symbol(entry)
    if isinstance(entry, boolalg.Boolean):  # Symbols, And/Or/Not/..., true/false
        return entry
    raise TypeError(
        f"feature_words[{i}] must be a str (a word) or a sympy boolean formula in word symbols, "
        f"got {type(entry).__name__}"
    )


def _literal(formula, present):
    """z or 1 - z (arithmetic) for a feature formula; compound formulas through their arithmetic form."""
    import sympy as sp

    if formula is sp.true or formula is sp.false:
        value = sp.Integer(1 if (formula is sp.true) == present else 0)
        return value
    if isinstance(formula, sp.Symbol):
        return formula if present else 1 - formula
    indicator = arithmetic_indicator(formula)  # e.g. Or(The, the) -> 1 - (1 - The)*(1 - the)
    return indicator if present else 1 - indicator


def _leaf_value(value):
    import sympy as sp

    value = float(value)
    return sp.Integer(int(value)) if value.is_integer() else sp.Float(value)


def tree_to_formula(tree, feature_words, *, class_index=None, form="leaves"):
    """A fitted decision tree on 0/1 word-presence features, as a sympy formula in the word indicators.

    Column i of the tree's input must be 1[feature_words[i] is in the document] (0/1 features,
    e.g. ``vectorizer.transform(docs) > 0``).  A split ``x_i <= t`` with ``0 <= t < 1`` sends
    "absent" left and "present" right.  The formula is the tree's prediction: the probability of
    class ``class_index`` (``predict_proba[:, class_index]``) for a classifier, ``predict`` for a
    regressor.

    Parameters
    ----------
    tree : sklearn.tree.DecisionTreeClassifier or DecisionTreeRegressor
        Fitted, single output.  (The function cannot tell whether the tree was trained on presence
        features: a tree trained on TF-IDF values has thresholds in (0, 1) too, and its formula would
        be wrong.  Train it on presence, or give the vectorizer to :func:`tree_formula_for_document`, which
        reads the values the tree sees and refuses those that are not functions of the kept words.)
    feature_words : sequence, length ``tree.n_features_in_``
        Entry i is a str (the word of column i, turned into ``sympy.Symbol``) or a sympy boolean
        formula in word symbols (e.g. ``Or(The, the)`` for a lower-cased column, ``sympy.false`` for
        a column that no word of the document feeds), see :func:`presence_formula`.
    class_index : int or None
        Classifier: the column of ``predict_proba`` (default 1, the class lime explains with
        ``label=1`` for a binary classifier).  Regressor: must be None.
    form : {"leaves", "piecewise"}
        "leaves": sum over leaves of (leaf value) * product of the path literals (z or 1 - z).
        "piecewise": nested ``Piecewise((right, feature), (left, True))`` from the root.

    Returns
    -------
    sympy expression
        Accepted by :func:`beta_boolean`, :func:`indicator_polynomial` and :func:`mask_function`.

    Raises
    ------
    TypeError
        ``tree`` is not a scikit-learn decision tree; an entry of ``feature_words`` is neither a str nor
        a sympy boolean.
    ValueError
        Unfitted or multi-output tree; ``len(feature_words) != tree.n_features_in_``; a split threshold
        outside [0, 1) (it does not separate absent from present); invalid ``class_index`` or ``form``.

    Examples
    --------
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]] * 5)  # columns: "good" present, "bad" present
    >>> tree = DecisionTreeClassifier(random_state=0).fit(X, X[:, 0] & (1 - X[:, 1]))
    >>> tree_to_formula(tree, ["good", "bad"])
    good*(1 - bad)
    >>> tree_to_formula(tree, ["good", "bad"], form="piecewise")
    Piecewise((0, bad), (Piecewise((1, good), (0, True)), True))
    """
    is_classifier = _check_tree(tree)
    if form not in _FORMS:
        raise ValueError(f"form must be one of {_FORMS}, got {form!r}")
    n_features = int(tree.n_features_in_)
    if isinstance(feature_words, (str, bytes)) or not hasattr(feature_words, "__len__"):
        raise TypeError("feature_words must be a sequence with one entry per column of the tree's input")
    if len(feature_words) != n_features:
        raise ValueError(
            f"feature_words must have one entry per feature of the tree ({n_features}), got {len(feature_words)}"
        )
    class_index = _check_class_index(tree, is_classifier, class_index)
    structure = tree.tree_
    left, feature, threshold = structure.children_left, structure.feature, structure.threshold
    formulas = {}

    def formula_of(i):
        if i not in formulas:
            formulas[i] = _feature_formula(feature_words[i], i)
        return formulas[i]

    for node in np.flatnonzero(left != -1):
        t = float(threshold[node])
        if not 0.0 <= t < 1.0:
            raise ValueError(
                f"tree node {int(node)} splits feature {int(feature[node])} at threshold {t}, outside [0, 1): "
                "it does not separate absent (0) from present (1); train the tree on 0/1 presence features"
            )

    return _formula(tree, is_classifier, class_index, form, lambda node: formula_of(int(feature[node])))


def _check_class_index(tree, is_classifier, class_index):
    """The predict_proba column to read (default 1) for a classifier; None for a regressor."""
    if is_classifier:
        n_classes = int(tree.n_classes_)
        class_index = 1 if class_index is None else check_int(class_index, "class_index", minimum=0)
        if class_index >= n_classes:
            raise ValueError(f"class_index must be < the number of classes ({n_classes}), got {class_index}")
        return class_index
    if class_index is not None:
        raise ValueError("class_index must be None for a regressor (its prediction is explained)")
    return None


def _formula(tree, is_classifier, class_index, form, goes_right):
    """The tree as a formula, given for each split node the boolean formula of "this document goes right"."""
    import sympy as sp

    structure = tree.tree_
    left, right, values = structure.children_left, structure.children_right, structure.value

    def leaf(node):
        if is_classifier:
            counts = values[node, 0, :]
            return _leaf_value(counts[class_index] / counts.sum())
        return _leaf_value(values[node, 0, 0])

    if form == "piecewise":

        def build(node):
            if left[node] == -1:
                return leaf(node)
            return sp.Piecewise((build(right[node]), goes_right(node)), (build(left[node]), True))

        return build(0)

    terms = []
    stack = [(0, ())]
    while stack:
        node, literals = stack.pop()
        if left[node] == -1:
            value = leaf(node)
            if value != 0:
                terms.append(sp.Mul(value, *literals))
            continue
        condition = goes_right(node)
        if condition is not sp.false:
            stack.append((right[node], (*literals, _literal(condition, True))))
        if condition is not sp.true:
            stack.append((left[node], (*literals, _literal(condition, False))))
    return sp.Add(*terms)


def presence_formula(column_word, words, vectorizer=None):
    r"""The boolean formula in lime's words for "column ``column_word`` of the vectorizer is positive".

    lime's words are case-sensitive ``\W+``-separated tokens; a vectorizer sees each of them through its
    own analyzer (by default lower-cased, one-character tokens dropped).  A column is positive in a
    perturbed document exactly when at least one lime word that maps to it is kept, so its presence is
    the Or of those words (``sympy.false`` if none: unseen words, one-character tokens, stop words).

    Parameters
    ----------
    column_word : str
        A term of the vectorizer's vocabulary (e.g. ``"the"``).
    words : list or tuple of str
        The local dictionary (``local_dictionary(text)``).
    vectorizer : CountVectorizer or TfidfVectorizer, optional
        Fitted, ``analyzer='word'``, ``ngram_range=(1, 1)``; its analyzer maps lime words to terms and
        ``column_word`` must be in its vocabulary.  Without it, TfidfVectorizer's defaults are assumed
        (lower-case, token pattern ``(?u)\b\w\w+\b``).

    Returns
    -------
    sympy boolean
        A Symbol, an Or of Symbols named after words of ``words``, or ``sympy.false``.

    Raises
    ------
    TypeError
        ``column_word`` not a str, ``words`` not a sequence of str, ``vectorizer`` not a Count/Tfidf vectorizer.
    ValueError
        Repeated words; an unfitted or n-gram vectorizer; ``column_word`` not in its vocabulary.

    Examples
    --------
    >>> presence_formula("the", ["The", "food", "the", "I"])  # lower-cased: both feed the column "the"
    The | the
    >>> presence_formula("i", ["The", "food", "the", "I"])  # one-character tokens are dropped
    False
    """
    import sympy as sp

    if not isinstance(column_word, str):
        raise TypeError(f"column_word must be a str, got {type(column_word).__name__}")
    words, _ = check_words(words)
    analyzer = None
    if vectorizer is not None:
        analyzer = check_vectorizer(vectorizer, unigrams=True).build_analyzer()
        if column_word not in vectorizer.vocabulary_:
            raise ValueError(f"column_word must be in the vectorizer's vocabulary, got {column_word!r}")
    return sp.Or(*[sp.Symbol(w) for w in words if column_word in word_tokens(w, analyzer)])


def tree_formula_for_document(tree, vectorizer, text, *, class_index=None, form="leaves"):
    """Exact formula, in lime's words of ``text``, of a tree that reads ``vectorizer.transform(docs)``.

    The tree is the last step of ``Pipeline(vectorizer, tree)``: it splits on the vectorizer's values.  Each
    split is a function of which lime words of ``text`` are kept exactly when the split column's value is, that
    is for counts, binary counts and unnormalised TF-IDF (``TfidfVectorizer(norm=None)``, with or without
    ``sublinear_tf``), see ``limetheory.engine.presence``: then the split becomes a boolean formula in the words
    that feed its column (one word: the word or its negation; words sharing a column under lower-casing,
    e.g. "The" and "the": a formula in both), and a column no word of ``text`` feeds is 0 in every document
    LIME builds.  A normalised TF-IDF (the default ``TfidfVectorizer()``, as in
    :func:`limetheory.book.models.train_random_forest`) divides by the norm of the whole row, which depends on
    every kept word: it is refused, and ``lt.explain`` gives an honest Monte Carlo estimate for such a tree.  A
    tree trained on presence features (``vectorizer.transform(docs) > 0``) reads
    ``CountVectorizer(binary=True, vocabulary=vectorizer.vocabulary_)``.

    The result equals ``tree.predict_proba(vectorizer.transform(docs))[:, class_index]`` (``predict`` for a
    regressor) on every perturbed document ``docs`` that lime builds from ``text`` (by removing all
    occurrences of some words and keeping the separators).

    Parameters
    ----------
    tree : DecisionTreeClassifier or DecisionTreeRegressor
        Fitted on ``vectorizer.transform(texts)`` (``n_features_in_`` = vocabulary size).
    vectorizer : CountVectorizer or TfidfVectorizer
        Fitted, ``analyzer='word'``, ``ngram_range=(1, 1)``, counts, ``binary=True`` or TF-IDF with
        ``norm=None``.  Its tokens must not span lime's separators (true of the default token pattern);
        this is checked on ``text``.
    text : str
        The document to explain.
    class_index, form
        As in :func:`tree_to_formula`.

    Returns
    -------
    (sympy expression, list of str)
        The formula and the local dictionary ``words`` to pass to :func:`beta_boolean` with it.

    Raises
    ------
    TypeError
        ``tree`` is not a scikit-learn decision tree, ``vectorizer`` not a Count/Tfidf vectorizer, ``text`` not
        a str.
    ValueError
        A vectorizer whose columns are not functions of the kept words (normalised TF-IDF, n-grams), or whose
        tokens span lime's separators; a tree trained on another number of columns; as :func:`tree_to_formula`.

    Examples
    --------
    >>> from sklearn.feature_extraction.text import CountVectorizer
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> docs = ["The food was good", "the food was bad", "good staff", "bad staff"]
    >>> vectorizer = CountVectorizer(binary=True).fit(docs)
    >>> tree = DecisionTreeClassifier(random_state=0).fit(vectorizer.transform(docs), [1, 0, 1, 0])
    >>> tree_formula_for_document(tree, vectorizer, "Good food, good staff", form="piecewise")
    (Piecewise((1, Good | good), (0, True)), ['Good', 'food', 'good', 'staff'])
    """
    is_classifier = _check_tree(tree)
    check_vectorizer(vectorizer, unigrams=True)
    words = local_dictionary(text)
    n_columns = len(vectorizer.vocabulary_)
    if tree.n_features_in_ != n_columns:
        raise ValueError(
            f"tree must be trained on the vectorizer's {n_columns} columns, got n_features_in_ = {tree.n_features_in_}"
        )
    if form not in _FORMS:
        raise ValueError(f"form must be one of {_FORMS}, got {form!r}")
    class_index = _check_class_index(tree, is_classifier, class_index)
    columns = document_columns(vectorizer, text)
    structure = tree.tree_
    feature, threshold = structure.feature, structure.threshold
    conditions = {}

    def goes_right(node):
        key = (int(feature[node]), float(threshold[node]))
        if key not in conditions:
            conditions[key] = _right_formula(columns, *key)
        return conditions[key]

    return _formula(tree, is_classifier, class_index, form, goes_right), words


def _right_formula(columns, column, threshold):
    """The boolean formula in lime's words for "the document goes right at the split (column, threshold)"."""
    import sympy as sp
    from sympy.logic import SOPform

    left = columns.left_subsets(column, threshold)
    if column not in columns.group_of_column:
        return sp.false if left else sp.true
    group = columns.groups[columns.group_of_column[column]]
    symbols = [sp.Symbol(columns.words[j]) for j in group]
    right = [t for t in range(1 << len(group)) if not (left >> t) & 1]
    if not right:
        return sp.false
    if len(right) == 1 << len(group):
        return sp.true
    return SOPform(symbols, [[(t >> i) & 1 for i in range(len(group))] for t in right])
