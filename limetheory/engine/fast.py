"""A fast engine for LIME on text: lime's own numbers, without lime's per-sample string work.

lime's ``LimeTextExplainer.explain_instance`` spends almost all of its time in Python: it draws
the 4,999 perturbations one by one, rebuilds a string for each, and the classifier then
re-tokenises all of them.  For a model that reads a scikit-learn ``CountVectorizer`` /
``TfidfVectorizer``, none of that is needed: removing words from a document only removes
columns from its count vector, so the TF-IDF of every perturbed document follows from one
small (d x q) count matrix (q = the document's vocabulary columns).

Two streams:

``stream="lime"`` (default)
    Consumes lime's ``numpy.random.RandomState`` exactly as lime 0.2.0.1 does
    (``randint(1, d + 1, n - 1)`` for the numbers of removed words, then, per sample,
    ``choice(range(d), s, replace=False)``, which equals ``permutation(d)[:s]`` and leaves the
    generator in the same state), so the masks are lime's, run for run, and the coefficients
    agree with :func:`limetheory.engine.empirical.lime_explanations` to floating-point round-off.
``stream="batched"``
    Draws the same law (first row unperturbed, then s uniform in {1..d} and a uniform s-subset
    of words removed) with vectorised ``numpy.random.Generator`` calls; not lime's stream.
    For large sweeps.

In both, each run selects its words as lime does (``feature_selection`` and ``num_features``, every method of
lime 0.2.0.1, by ``limetheory.engine.selection``; every word by default) and fits lime's weighted ridge regression on
them (:func:`limetheory.engine.ridge.ridge_coefficients`: centred as scikit-learn's ``Ridge`` centres, solved in the
primal or the dual, whichever system is smaller), and the model is evaluated once per distinct mask.  The
model is a callable on the vectorizer's matrix, or the rest of a fitted scikit-learn ``Pipeline`` whose first
step is the vectorizer.  The word counts and the perturbed
TF-IDF rows are sparse and lime's kernel distances are computed only for the numbers of kept words
that occur, so long documents cost memory in proportion to n × d (the int8 masks), not d².

This module holds the entry points and the regression of each run; the sampler (masks, responses, kernel weights,
the checks of the arguments) is ``limetheory.engine.lime_sampler``, and the documents of lime's other text settings
are :mod:`limetheory.engine.lime_documents`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._validation import check_int
from .lime_documents import LIME_SPLIT
from .lime_sampler import lime_settings, sample_chunks
from .ridge import ridge_coefficients
from .selection import FEATURE_SELECTIONS, lime_feature_selection, resolve_feature_selection


def _explain_runs(z, y, weights, num_features, feature_selection):
    """lime's explanations of a stack of runs: its feature selection, then its ridge on the selected words.

    z : (R, n, d), y and weights : (R, n).  Each run's words are selected as lime selects them
    (``limetheory.engine.selection.lime_feature_selection``; every word for ``"none"``) and its ridge is solved by
    :func:`limetheory.engine.ridge.ridge_coefficients` on those columns, in the primal ((k + 1) unknowns) or the dual
    (n unknowns), whichever system is smaller.  Returns (R, d + 1) coefficients, 0 for a word not selected, and
    the (R, d) boolean mask of the selected words.
    """
    runs, _, d = z.shape
    betas = np.zeros((runs, d + 1))
    selected = np.zeros((runs, d), dtype=bool)
    for run in range(runs):
        if feature_selection == "none":
            betas[run] = ridge_coefficients(z[run], y[run], weights[run])
            selected[run] = True
            continue
        chosen = lime_feature_selection(
            z[run], y[run], weights[run], num_features=num_features, method=feature_selection
        )
        fit = ridge_coefficients(z[run][:, chosen], y[run], weights[run])  # lime's Ridge on its used_features
        betas[run, 0] = fit[0]
        betas[run, 1 + chosen] = fit[1:]
        selected[run, chosen] = True
    return betas, selected


@dataclass(frozen=True)
class FastLimeSamples:
    """What the fast engine generated for ``n_exp`` runs (the counterpart of :class:`LimeSamples`).

    Attributes
    ----------
    words : list of str
        The local dictionary (column order of ``z``).
    z : ndarray, shape (n_exp, num_samples, d), int8
        Masks (1 = word kept); row 0 of each run is all ones.
    y : ndarray, shape (n_exp, num_samples)
        The model's output for ``label``.
    weights : ndarray, shape (n_exp, num_samples)
        lime's kernel weights.

    Examples
    --------
    >>> from sklearn.feature_extraction.text import TfidfVectorizer
    >>> from limetheory import fast_lime_samples
    >>> vectorizer = TfidfVectorizer().fit(["good food", "bad service"])
    >>> def model_fn(matrix):  # f = the TF-IDF of "good"
    ...     good = matrix[:, vectorizer.vocabulary_["good"]].toarray().ravel()
    ...     return np.column_stack([1 - good, good])
    >>> samples = fast_lime_samples("good food, bad service", vectorizer, model_fn, n_exp=2, num_samples=5)
    >>> type(samples).__name__, samples.words, samples.z.shape, samples.z[:, 0].tolist()
    ('FastLimeSamples', ['good', 'food', 'bad', 'service'], (2, 5, 4), [[1, 1, 1, 1], [1, 1, 1, 1]])
    """

    words: list
    z: np.ndarray
    y: np.ndarray
    weights: np.ndarray


def fast_lime_explanations(
    text,
    vectorizer,
    model_fn=None,
    *,
    n_exp=100,
    num_samples=5000,
    kernel_width=25,
    label=1,
    random_state=0,
    stream="lime",
    num_features=10,
    feature_selection="none",
    return_selected=False,
    bow=True,
    char_level=False,
    split_expression=LIME_SPLIT,
    mask_string=None,
    kernel=None,
    distance_metric="cosine",
    model_regressor=None,
):
    r"""lime's explanations of a model that reads a scikit-learn vectorizer, computed without lime's string work.

    With ``stream="lime"`` the result equals, run for run and to floating-point round-off, what
    ``LimeTextExplainer(kernel_width=kernel_width, feature_selection=feature_selection, random_state=random_state)``
    returns from ``n_exp`` successive calls ``explain_instance(text, fn, labels=(label,), num_features=num_features,
    num_samples=num_samples)`` with ``fn = lambda docs: model_fn(vectorizer.transform(docs))`` (that is
    :func:`limetheory.engine.empirical.lime_explanations` with the same keywords): the same masks (lime's
    ``RandomState`` stream is consumed exactly as lime consumes it), the same TF-IDF rows bit for bit, the same weights,
    the same selected words and lime's ridge regression on them.  With ``stream="batched"`` the masks come from the same
    law through vectorised draws (not lime's stream): statistically equivalent, faster, for large sweeps.

    lime's settings it reproduces, exactly these (the defaults of ``LimeTextExplainer`` and ``explain_instance``
    unless listed otherwise):

    * ``kernel_width``: any width > 0; ``kernel=None`` (lime's exponential kernel √exp(-D²/w²) of the cosine
      distance D times 100, ``distance_metric='cosine'``) — another kernel or metric is refused;
    * ``char_level=False``, and ``char_level=True`` (every character a feature, distinct ones with ``bow=True``,
      positions masked with ``mask_string`` with ``bow=False``): removing characters changes the words, so the
      engine then builds lime's strings and calls the vectorizer itself, as lime does (any fitted Count/Tfidf
      vectorizer, a char analyzer included), and gains only in its ridge and feature selection;
    * ``split_expression``: lime's default ``r'\W+'`` (its words are the maximal runs of word characters), and any
      other regular expression or callable whose separators hold no word character and which never cuts a run
      of word characters (e.g. ``r'\s+'``, ``str.split``): then no vectorizer token straddles two of lime's
      pieces; others are refused;
    * ``bow=True`` (a feature per distinct word; ``mask_string`` is then irrelevant, lime deletes the word) and
      ``bow=False`` (a feature per occurrence, in text order: d counts occurrences, and a removed occurrence is
      replaced by ``mask_string``, 'UNKWORDZ' when None, which the vectorizer counts if its vocabulary has it);
    * ``feature_selection``: ``'none'``, ``'auto'``, ``'highest_weights'``, ``'forward_selection'`` and
      ``'lasso_path'`` (all of lime's), with ``num_features`` (lime's default call is ``feature_selection='auto'``,
      ``num_features=10``, which runs ``'highest_weights'``); see ``limetheory.engine.selection``;
    * ``random_state``: an int, None (numpy's global ``RandomState``) or a ``RandomState`` consumed in place;
    * ``model_regressor=None`` (lime's ``Ridge(alpha=1)``) — another regressor is refused;
    * ``labels=(label,)`` for one label; ``class_names``, ``verbose`` and ``top_labels`` change no coefficient
      and are not arguments.

    Parameters
    ----------
    text : str
        The document to explain; it must have at least 2 distinct words (lime's tokens; 2 occurrences with
        ``bow=False``).
    vectorizer : sklearn CountVectorizer or TfidfVectorizer, or a Pipeline whose first step is one; fitted
        Word unigrams on maximal runs of word characters only (token_pattern ``(?u)\b\w\w+\b`` or
        ``(?u)\b\w+\b``; no custom analyzer, tokenizer or preprocessor, no strip_accents, ngram_range
        (1, 1)); ``lowercase``, ``stop_words``, ``binary``, ``sublinear_tf``, ``use_idf``, ``smooth_idf``
        and ``norm`` ('l1', 'l2', None) are supported.  Others raise ValueError (any fitted one with
        ``char_level=True``, where the engine calls ``transform`` on lime's strings).  With a ``Pipeline``, the engine
        recomputes its first step and ``model_fn`` defaults to the rest of the pipeline's ``predict_proba``.
    model_fn : callable or None
        Maps the sparse matrix returned by the vectorizer's ``transform`` to an (m, n_labels) array (e.g. a
        fitted classifier's ``predict_proba``).  Row i of the output must depend on row i of the input
        only (the model is evaluated once per distinct perturbed document).  None with a ``Pipeline``: the
        pipeline's steps after the vectorizer, ``pipeline[1:].predict_proba``.
    n_exp : int
        Number of explanations (>= 1); with ``stream="lime"`` they are lime's successive
        ``explain_instance`` calls on one explainer.
    num_samples : int
        lime's n (>= 2), including the unperturbed first row.
    kernel_width : float
        lime's kernel width (> 0); the paper's ν is kernel_width / 100.
    label : int
        Column of the model's output that is explained.
    random_state : int, None, numpy RandomState (stream "lime") or numpy Generator (stream "batched")
        Seed.  For stream "lime", as lime's ``LimeTextExplainer(random_state=...)``: an int seeds a new
        ``RandomState``, a ``RandomState`` is consumed in place, None uses numpy's global one.  For
        stream "batched", an int or None seeds ``numpy.random.default_rng``.
    stream : {"lime", "batched"}
        Which random stream draws the masks (see above).
    num_features : int
        lime's ``num_features`` (>= 1; default 10, lime's); ignored with ``feature_selection="none"``.
    feature_selection : {"none", "auto", "highest_weights", "forward_selection", "lasso_path"}
        lime's ``feature_selection``; the default ``"none"`` keeps every word (the paper's setting), ``"auto"``
        is lime's default.
    return_selected : bool
        Also return which words were selected in each run.
    bow, char_level, split_expression, mask_string, kernel, distance_metric, model_regressor
        lime's settings of the same names, accepted at the values listed above only.

    Returns
    -------
    betas : ndarray, shape (n_exp, d + 1)
        Column 0 the intercept, column 1 + j the coefficient of word j (local-dictionary order; with
        ``bow=False``, occurrence j in text order); 0 for a word
        lime did not select in that run (lime's explanation does not list it), as
        :func:`limetheory.engine.empirical.lime_explanations` reports it.
    selected : ndarray of bool, shape (n_exp, d)
        Only with ``return_selected=True``: ``selected[r, j]`` says whether word j was selected in run r (a
        selected word may have coefficient 0; every word with ``feature_selection="none"``).

    Raises
    ------
    TypeError
        If ``vectorizer`` is neither a CountVectorizer / TfidfVectorizer nor a Pipeline starting with one, if
        ``model_fn`` is not callable (or None without a Pipeline, or None with a Pipeline whose model has no
        ``predict_proba``), if a numpy ``Generator`` is given to stream "lime", or an argument has the wrong type.
    ValueError
        For an unsupported vectorizer setting or lime setting (another kernel, metric or regressor, a split
        expression whose pieces the vectorizer's tokens would straddle), an unfitted
        vectorizer or pipeline step, a text without a word lime can remove or with only one, a ``label`` beyond
        the model's classes, an unknown ``feature_selection``, bad argument values, a malformed model output, or
        when the run-time self-check (a few perturbed rows against the vectorizer's own ``transform`` of lime's
        strings) fails.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.feature_extraction.text import TfidfVectorizer
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.pipeline import make_pipeline
    >>> corpus = ["good food", "bad food", "good service", "bad service", "great food", "awful service"]
    >>> pipeline = make_pipeline(TfidfVectorizer(), LogisticRegression()).fit(corpus, [1, 0, 1, 0, 1, 0])
    >>> text = "good food but bad service and awful wine"
    >>> betas, selected = fast_lime_explanations(text, pipeline, n_exp=2, num_samples=500,
    ...     feature_selection="auto", num_features=3, return_selected=True)  # lime's default call has 10
    >>> betas.shape, selected.sum(axis=1).tolist()
    ((2, 9), [3, 3])
    >>> bool((betas[:, 1:][~selected] == 0).all())
    True
    """
    settings = lime_settings(bow, char_level, split_expression, mask_string, kernel, distance_metric, model_regressor)
    if not isinstance(return_selected, (bool, np.bool_)):
        raise TypeError(f"return_selected must be True or False, got {type(return_selected).__name__}")
    num_features = check_int(num_features, "num_features", minimum=1)
    if feature_selection not in FEATURE_SELECTIONS:
        raise ValueError(
            f"feature_selection must be one of {FEATURE_SELECTIONS} (lime's methods), got {feature_selection!r}"
        )
    method = resolve_feature_selection(feature_selection, num_features)
    betas, selected = [], []
    for _, masks, y, weights in sample_chunks(
        text, vectorizer, model_fn, n_exp, num_samples, kernel_width, label, random_state, stream, settings
    ):
        chunk_betas, chunk_selected = _explain_runs(masks, y, weights, num_features, method)
        betas.append(chunk_betas)
        selected.append(chunk_selected)
    if return_selected:
        return np.concatenate(betas), np.concatenate(selected)
    return np.concatenate(betas)


def fast_lime_samples(
    text,
    vectorizer,
    model_fn=None,
    *,
    n_exp=1,
    num_samples=5000,
    kernel_width=25,
    label=1,
    random_state=0,
    stream="lime",
    bow=True,
    char_level=False,
    split_expression=LIME_SPLIT,
    mask_string=None,
    kernel=None,
    distance_metric="cosine",
):
    """The masks, responses and weights behind :func:`fast_lime_explanations` (a :class:`FastLimeSamples`).

    Same arguments, lime settings, refusals and random streams as :func:`fast_lime_explanations` (a
    ``Pipeline`` included); the samples do not depend on the feature selection.  With ``stream="lime"`` and
    ``n_exp=1`` the arrays equal what :func:`limetheory.engine.empirical.capture_lime_samples` records from lime itself.
    Memory grows as n_exp x num_samples x d.

    Parameters
    ----------
    text, vectorizer, model_fn, n_exp, num_samples, kernel_width, label, random_state, stream
        As in :func:`fast_lime_explanations`.
    bow, char_level, split_expression, mask_string, kernel, distance_metric
        lime's settings, accepted at the values :func:`fast_lime_explanations` lists only.

    Returns
    -------
    FastLimeSamples
        ``words``, and ``z``, ``y``, ``weights`` with one leading axis of length ``n_exp``.

    Raises
    ------
    TypeError, ValueError
        As :func:`fast_lime_explanations`.

    Examples
    --------
    >>> from sklearn.feature_extraction.text import CountVectorizer
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.pipeline import make_pipeline
    >>> pipeline = make_pipeline(CountVectorizer(), LogisticRegression()).fit(["good food", "bad food"], [1, 0])
    >>> samples = fast_lime_samples("good food, bad service", pipeline, num_samples=50)
    >>> samples.words, samples.z.shape, samples.z[0, 0].tolist()
    (['good', 'food', 'bad', 'service'], (1, 50, 4), [1, 1, 1, 1])
    """
    settings = lime_settings(bow, char_level, split_expression, mask_string, kernel, distance_metric, None)
    words, zs, ys, ws = None, [], [], []
    for document, masks, y, weights in sample_chunks(
        text, vectorizer, model_fn, n_exp, num_samples, kernel_width, label, random_state, stream, settings
    ):
        words = document.words
        zs.append(masks)
        ys.append(y)
        ws.append(weights)
    return FastLimeSamples(words=list(words), z=np.concatenate(zs), y=np.concatenate(ys), weights=np.concatenate(ws))
