"""Linear models on the normalised TF-IDF, in the two forms lime and the fast engine call.

Part VI explains f(φ(x)) = Σ_j λ_j φ(x)_j, a linear function of the document's TF-IDF vector. lime needs it as
a ``classifier_fn`` (list of str -> (m, 2) array, label 1 explained) and ``fast_lime_explanations`` as a
``model_fn`` (TF-IDF matrix -> (m, 2) array). Both return the columns (-f, f): lime explains label 1 only, so
column 0 is never used; -f keeps the two classes symmetric for a model whose output is not a probability.
"""

from __future__ import annotations

import numpy as np

from .._validation import as_float_array, check_vectorizer
from ..engine.tokens import tfidf_columns

__all__ = ["linear_tfidf_classifier", "linear_tfidf_model", "vocabulary_coefficients"]


def _check_fitted_vectorizer(vectorizer):
    """The vectorizer's vocabulary size; refuses anything that is not a fitted vectorizer."""
    return len(check_vectorizer(vectorizer).vocabulary_)


def vocabulary_coefficients(text, vectorizer, lam):
    """Coefficients over the vectorizer's vocabulary of the model with coefficient ``lam[j]`` on lime word j.

    The model f(φ(x)) = Σ_j λ_j φ(x)_j is indexed by lime's local dictionary of ``text``; a vectorizer indexes
    its whole vocabulary. Word j's coefficient goes to word j's TF-IDF column; words the vectorizer cannot see
    (one character, stop words, unknown tokens) have no column and their coefficient is dropped, as the model
    cannot react to them. Every other column gets 0.

    Parameters
    ----------
    text : str
        The document whose lime words index ``lam``.
    vectorizer : sklearn.feature_extraction.text.TfidfVectorizer
        Fitted, with the paper's normalised TF-IDF (``norm='l2'``, the default).
    lam : array_like of shape (d,)
        Finite coefficients, one per word of ``lt.local_dictionary(text)``, in that order.

    Returns
    -------
    numpy.ndarray of shape (len(vectorizer.vocabulary_),)

    Raises
    ------
    ValueError
        If ``lam`` does not have one finite entry per lime word, or as :func:`limetheory.tfidf_columns`.

    Examples
    --------
    >>> from sklearn.feature_extraction.text import TfidfVectorizer
    >>> vectorizer = TfidfVectorizer().fit(["good food", "bad food", "good service"])
    >>> sorted(vectorizer.vocabulary_.items())
    [('bad', 0), ('food', 1), ('good', 2), ('service', 3)]
    >>> vocabulary_coefficients("Good food, I say", vectorizer, [2.0, 3.0, 5.0, 7.0]).tolist()
    [0.0, 3.0, 2.0, 0.0]
    """
    n_columns = _check_fitted_vectorizer(vectorizer)
    columns = tfidf_columns(text, vectorizer)
    lam = as_float_array(lam, "lam", ndim=1)
    if lam.shape != columns.shape:
        raise ValueError(f"lam must have one entry per lime word of text ({len(columns)}), got shape {lam.shape}")
    visible = columns >= 0
    coef = np.zeros(n_columns)
    coef[columns[visible]] = lam[visible]
    return coef


def linear_tfidf_model(coef):
    """``model_fn`` of f = X @ coef on TF-IDF rows: (m, V) matrix -> (m, 2) array with columns (-f, f).

    The form :func:`limetheory.fast_lime_explanations` calls; explain label 1.

    Parameters
    ----------
    coef : array_like of shape (V,)
        Finite coefficients, one per column of the TF-IDF matrix (see :func:`vocabulary_coefficients`).

    Returns
    -------
    callable
        Takes a dense or scipy-sparse matrix with V columns.

    Examples
    --------
    >>> import numpy as np
    >>> model_fn = linear_tfidf_model([1.0, -2.0])
    >>> model_fn(np.array([[0.6, 0.8], [1.0, 0.0]])).tolist()
    [[1.0, -1.0], [-1.0, 1.0]]
    """
    coef = as_float_array(coef, "coef", ndim=1)
    if coef.size == 0:
        raise ValueError("coef must have at least one entry (one per TF-IDF column)")

    def model_fn(X):
        if getattr(X, "ndim", None) != 2 or X.shape[1] != coef.size:
            raise ValueError(
                f"X must be a 2-d TF-IDF matrix with {coef.size} columns, got shape {getattr(X, 'shape', None)}"
            )
        f = np.asarray(X @ coef, dtype=float).reshape(-1)
        return np.column_stack([-f, f])

    return model_fn


def linear_tfidf_classifier(vectorizer, coef):
    """lime's ``classifier_fn`` of f(φ(x)) = Σ_k coef_k φ(x)_k: list of str -> (m, 2) array, columns (-f, f).

    φ is the vectorizer's normalised TF-IDF; explain label 1.

    Parameters
    ----------
    vectorizer : sklearn.feature_extraction.text.TfidfVectorizer
        Fitted.
    coef : array_like of shape (len(vectorizer.vocabulary_),)
        Finite coefficients over the vectorizer's columns (see :func:`vocabulary_coefficients`).

    Returns
    -------
    callable

    Examples
    --------
    >>> from sklearn.feature_extraction.text import TfidfVectorizer
    >>> vectorizer = TfidfVectorizer().fit(["good food", "bad food"])
    >>> classifier_fn = linear_tfidf_classifier(vectorizer, [0.0, 0.0, 1.0])  # f = phi("good")
    >>> classifier_fn(["good", "bad food"]).tolist()
    [[-1.0, 1.0], [-0.0, 0.0]]
    """
    n_columns = _check_fitted_vectorizer(vectorizer)
    coef = as_float_array(coef, "coef", ndim=1)
    if coef.shape != (n_columns,):
        raise ValueError(f"coef must have one entry per vectorizer column ({n_columns}), got shape {coef.shape}")
    model_fn = linear_tfidf_model(coef)

    def classifier_fn(documents):
        if isinstance(documents, (str, bytes)):
            raise TypeError("documents must be a list of str, not a single str")
        return model_fn(vectorizer.transform(list(documents)))

    return classifier_fn
