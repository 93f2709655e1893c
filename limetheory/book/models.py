"""Models that several chapters explain: the Yelp TF-IDF vectorizer, a random forest, word indicators, a constant."""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.pipeline import make_pipeline

from .._validation import check_int, check_vectorizer

#: most trees in one forest (one tree on the paper's 1000 reviews takes about 10 ms)
MAX_ESTIMATORS = 10_000

# The review of the paper's supplementary tree and linear-model figures: lime's local
# dictionary has d = 29 words, among them "food", "about", "Everything", "bad", "character".
EXAMPLE_REVIEW_INDEX = 134


def fit_yelp_vectorizer(texts):
    """scikit-learn's ``TfidfVectorizer`` with its defaults (smooth idf, l2 norm), fitted on ``texts``.

    These defaults are the paper's normalised TF-IDF (Definition 1).

    Parameters
    ----------
    texts : list of str
        The corpus (e.g. the 1000 Yelp reviews).

    Returns
    -------
    TfidfVectorizer
        Fitted on ``texts``.

    Raises
    ------
    TypeError, ValueError
        ``texts`` not a non-empty list of str; no word the vectorizer can index.

    Examples
    --------
    >>> sorted(fit_yelp_vectorizer(["good food", "bad service"]).vocabulary_.items())
    [('bad', 0), ('food', 1), ('good', 2), ('service', 3)]
    """
    texts = _check_texts(texts)
    try:
        return TfidfVectorizer().fit(texts)
    except ValueError as error:  # sklearn: "empty vocabulary; perhaps the documents only contain stop words"
        raise ValueError(f"texts contain no word the vectorizer can index ({error})") from None


def train_random_forest(texts, labels, *, n_estimators=100, random_state=0):
    """A ``TfidfVectorizer`` + ``RandomForestClassifier`` pipeline fitted on (texts, labels).

    ``predict_proba`` of the result is a lime ``classifier_fn``.  Single-threaded and seeded,
    so the fitted forest is the same on every machine with the same scikit-learn.

    Parameters
    ----------
    texts : str or sequence of str
        The training documents (not empty).
    labels : array_like, shape (len(texts),)
        Class labels, at least two classes, no missing values.
    n_estimators : int
        Number of trees, 1 <= n_estimators <= 10 000 (about 10 ms per tree on the paper's 1000 reviews).
    random_state : int
        Seed of the forest, 0 <= random_state < 2**32.

    Returns
    -------
    sklearn.pipeline.Pipeline

    Examples
    --------
    >>> model = train_random_forest(["good food", "bad food", "good staff", "bad staff"], [1, 0, 1, 0], n_estimators=5)
    >>> model.predict_proba(["good"]).shape
    (1, 2)
    """
    texts = _check_texts(texts)
    labels = np.asarray(labels)
    if labels.shape != (len(texts),):
        raise ValueError(f"labels must have one entry per text ({len(texts)}), got shape {labels.shape}")
    if labels.dtype == object or (np.issubdtype(labels.dtype, np.floating) and not np.isfinite(labels).all()):
        raise ValueError("labels must be class labels without missing values (no None, NaN or inf)")
    if len(np.unique(labels)) < 2:
        raise ValueError(f"labels must contain at least two classes, got only {np.unique(labels).tolist()}")
    n_estimators = check_int(n_estimators, "n_estimators", minimum=1, maximum=MAX_ESTIMATORS)
    random_state = check_int(random_state, "random_state", minimum=0, maximum=2**32 - 1)
    from sklearn.ensemble import RandomForestClassifier  # here: most chapters train no forest (0.1 s to import)

    forest = RandomForestClassifier(n_estimators=n_estimators, random_state=random_state, n_jobs=1)
    try:
        return make_pipeline(TfidfVectorizer(), forest).fit(texts, labels)
    except ValueError as error:  # empty vocabulary
        raise ValueError(f"texts contain no word the vectorizer can index ({error})") from None


def word_indicator(vectorizer, word):
    """classifier_fn for f(x) = 1[word is in x], seen through the vectorizer's tokenisation.

    Parameters
    ----------
    vectorizer : CountVectorizer or TfidfVectorizer
        Fitted.
    word : str
        A term of the vectorizer's vocabulary (by default lower-case, two characters or more).

    Returns
    -------
    callable
        list of str -> (m, 2) array with columns (1 - f, f), as lime expects; explain label 1.

    Raises
    ------
    TypeError, ValueError
        ``vectorizer`` not a fitted CountVectorizer / TfidfVectorizer; ``word`` not a str or not in its
        vocabulary.

    Examples
    --------
    >>> classifier_fn = word_indicator(fit_yelp_vectorizer(["good food", "bad service"]), "food")
    >>> classifier_fn(["good food", "bad service"]).tolist()
    [[0.0, 1.0], [1.0, 0.0]]
    """
    on_rows = word_indicator_rows(vectorizer, word)

    def classifier_fn(documents):
        rows = vectorizer.transform(list(documents))  # the indicator reads only the word's column
        return on_rows(rows)

    return classifier_fn


def word_indicator_rows(vectorizer, word):
    """:func:`word_indicator` on the vectorizer's rows: the ``model_fn`` of ``lt.fast_lime_samples`` for it.

    Parameters
    ----------
    vectorizer, word
        As in :func:`word_indicator` (the same checks).

    Returns
    -------
    callable
        (m, V) sparse rows of the vectorizer -> (m, 2) array with columns (1 - f, f): ``word_indicator``'s
        ``classifier_fn(documents)`` is this function of ``vectorizer.transform(documents)``.

    Examples
    --------
    >>> vectorizer = fit_yelp_vectorizer(["good food", "bad service"])
    >>> word_indicator_rows(vectorizer, "food")(vectorizer.transform(["good food", "bad service"])).tolist()
    [[0.0, 1.0], [1.0, 0.0]]
    """
    vocabulary = check_vectorizer(vectorizer).vocabulary_
    if not isinstance(word, str):
        raise TypeError(f"word must be a str, got {type(word).__name__}")
    if word not in vocabulary:
        hint = f" (the vocabulary is lower-case: try {word.lower()!r})" if word.lower() in vocabulary else ""
        raise ValueError(f"word must be in the vectorizer's vocabulary, got {word!r}{hint}")
    column = vocabulary[word]

    def model_fn(rows):
        present = (rows[:, column].toarray().ravel() > 0).astype(float)
        return np.column_stack([1.0 - present, present])

    return model_fn


def constant_classifier(probability=0.5):
    """classifier_fn of a model that ignores its input: P(label 1) = ``probability`` for every document.

    lime's masks and weights do not depend on the model, so chapters that study the sampling law or Σ
    run lime with this model; its explanation is exactly (probability, 0, ..., 0).

    Parameters
    ----------
    probability : float, default 0.5
        The constant probability of label 1, in [0, 1].

    Returns
    -------
    callable
        list of str -> (m, 2) array with rows (1 - probability, probability).

    Examples
    --------
    >>> classifier_fn = constant_classifier(0.7)
    >>> classifier_fn(["good food", "bad service"]).tolist()
    [[0.30000000000000004, 0.7], [0.30000000000000004, 0.7]]
    """
    if isinstance(probability, (bool, np.bool_)) or not isinstance(probability, numbers.Real):
        raise TypeError(f"probability must be a real number in [0, 1], got {probability!r}")
    probability = float(probability)
    if not 0.0 <= probability <= 1.0:  # also refuses NaN
        raise ValueError(f"probability must be a real number in [0, 1], got {probability}")
    row = np.array([1.0 - probability, probability])

    def classifier_fn(documents):
        return np.tile(row, (len(documents), 1))

    return classifier_fn


def _check_texts(texts):
    """A str (one text) or a non-empty sequence of str."""
    if isinstance(texts, str):
        texts = [texts]
    elif isinstance(texts, bytes) or not np.iterable(texts):
        raise TypeError(f"texts must be a sequence of str, got {type(texts).__name__}")
    texts = list(texts)
    if not texts:
        raise ValueError("texts must be a non-empty sequence of str")
    bad = next((i for i, text in enumerate(texts) if not isinstance(text, str)), None)
    if bad is not None:
        raise TypeError(f"texts must contain only str, got {type(texts[bad]).__name__} at index {bad}")
    return texts
