"""lime's neighbourhood of one ``explain_instance`` call, replayed: its masks, the model's outputs and its distances.

lime 0.2.0.1 (``LimeTextExplainer.__data_labels_distances``) draws ``randint(1, d + 1, n - 1)`` numbers of removed
words and one ``choice(range(d), s, replace=False)`` per row from the explainer's ``RandomState``, builds a string
for each row, calls ``classifier_fn`` once on the n strings and computes the cosine distance (times 100) of each
0/1 row to the first.  Here the same draws come from :func:`limetheory.engine.lime_sampler.lime_masks`, so the
stream is consumed exactly as lime consumes it, and the outputs are obtained one of two ways:

* ``classifier_fn`` is a bound method of a fitted scikit-learn ``Pipeline`` whose first step is a Count or Tfidf
  vectorizer the engine can recompute: the rows come from the document's word counts and the rest of the pipeline
  is evaluated once per distinct mask (:func:`limetheory.engine.lime_sampler.model_outputs`), after a self-check of
  a few rows against the vectorizer's own ``transform`` of lime's strings;
* anything else: lime's strings are built from the masks and ``classifier_fn`` is called once on all of them, as
  lime calls it.

A pipeline the engine cannot read, or whose self-check fails, falls back to the second way on the same masks, so the
answer is lime's in every case.
"""

from __future__ import annotations

import inspect
from itertools import compress

import numpy as np
import scipy.sparse as sp
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.pipeline import Pipeline
from sklearn.utils.validation import check_is_fitted

from ..._validation import check_vectorizer
from ...engine.lime_documents import LIME_SPLIT
from ...engine.lime_sampler import lime_cosine_distances, lime_document, lime_masks, model_outputs
from ...engine.tokens import perturbed_documents

#: a Pipeline's outputs that lime's classifier_fn can be (an (n, k) array for a classifier)
PIPELINE_OUTPUTS = ("predict_proba", "decision_function", "predict_log_proba")
#: perturbed rows compared with the vectorizer's own transform of lime's strings (besides the unperturbed one)
_SELF_CHECK_ROWS = 3


def pipeline_document(classifier_fn, text, *, bow, char_level, split_expression, mask_string):
    r"""(document, model_fn) when ``classifier_fn`` is a bound method the engine can compute from counts, else None.

    ``document`` is :func:`limetheory.engine.lime_sampler.lime_document` of the pipeline's first step and
    ``model_fn`` the same method of the pipeline's other steps.  Nothing is drawn from any random stream here, so
    a refusal costs lime's stream nothing.

    Examples
    --------
    >>> from sklearn.feature_extraction.text import TfidfVectorizer
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.pipeline import make_pipeline
    >>> pipe = make_pipeline(TfidfVectorizer(), LogisticRegression()).fit(["good food", "bad food"], [1, 0])
    >>> settings = dict(bow=True, char_level=False, split_expression=r"\W+", mask_string=None)
    >>> document, model_fn = pipeline_document(pipe.predict_proba, "good food", **settings)
    >>> document.words, model_fn.__name__
    (['good', 'food'], 'predict_proba')
    >>> pipeline_document(lambda docs: pipe.predict_proba(docs), "good food", **settings) is None
    True
    """
    owner, name = getattr(classifier_fn, "__self__", None), getattr(classifier_fn, "__name__", None)
    if not (inspect.ismethod(classifier_fn) and isinstance(owner, Pipeline) and name in PIPELINE_OUTPUTS):
        return None
    if len(owner.steps) < 2 or not isinstance(owner.steps[0][1], CountVectorizer):
        return None
    try:
        check_is_fitted(owner)
        vectorizer = check_vectorizer(owner.steps[0][1], mirrored_by=None if char_level else "the fast engine")
        rest = owner[1:]
        model_fn = getattr(rest, name)
        document = lime_document(
            text, vectorizer, bow=bow, char_level=char_level, split_expression=split_expression, mask_string=mask_string
        )
    except (TypeError, ValueError, AttributeError):  # unfitted, unmirrored or a text it refuses: lime's strings
        return None
    return document, model_fn


def lime_strings(text, indexed, masks, *, default_split):
    """The strings lime builds for ``masks`` (1 = feature kept) from its ``IndexedString``/``IndexedCharacters``.

    lime's ``inverse_removing`` joins the kept tokens (``bow=True``), or every token with the removed ones replaced
    by ``mask_string`` (``bow=False``).  At lime's default text settings this is
    :func:`limetheory.engine.tokens.perturbed_documents`; otherwise the masks are expanded to lime's tokens in one
    indexing operation and only the joins are per row.

    Examples
    --------
    >>> from lime.lime_text import IndexedString
    >>> text = "good food, bad food"
    >>> lime_strings(text, IndexedString(text), np.array([[1, 0, 1], [0, 1, 1]]), default_split=True)
    ['good , bad ', ' food, bad food']
    >>> lime_strings(text, IndexedString(text, bow=False), np.array([[1, 0, 1, 1]]), default_split=False)
    ['good UNKWORDZ, bad food']
    """
    if default_split:
        return perturbed_documents(text, masks)
    tokens = [str(token) for token in indexed.as_list]
    feature_of_token = np.full(len(tokens), -1, dtype=np.int64)
    if indexed.bow:
        for j, positions in enumerate(indexed.positions):
            feature_of_token[positions] = j
    else:
        feature_of_token[np.asarray(indexed.positions, dtype=np.int64)] = np.arange(masks.shape[1])
    is_feature = feature_of_token >= 0
    keep = np.ones((len(masks), len(tokens)), dtype=bool)
    keep[:, is_feature] = masks[:, feature_of_token[is_feature]] == 1
    if indexed.bow:
        return ["".join(compress(tokens, row)) for row in keep.tolist()]
    # token i is candidates[2 i] when kept and candidates[2 i + 1] (the mask string) when removed
    candidates = [piece for token in tokens for piece in (token, indexed.mask_string)]
    choice = (2 * np.arange(len(tokens)) + ~keep).tolist()
    return ["".join(map(candidates.__getitem__, row)) for row in choice]


def lime_distances(masks, distance_metric):
    """lime's ``distance_fn``: the distance of each row of ``masks`` to the first, times 100, as lime computes it.

    The cosine distance of lime's 0/1 rows depends on the number of kept words only and is taken from
    :func:`limetheory.engine.lime_sampler.lime_cosine_distances` (bit for bit); another metric is lime's own call.

    Examples
    --------
    >>> masks = np.array([[1, 1, 1], [1, 0, 0]], dtype=np.int8)
    >>> lime_distances(masks, "cosine").round(4).tolist(), lime_distances(masks, "euclidean").round(4).tolist()
    ([0.0, 42.265], [0.0, 141.4214])
    """
    if isinstance(distance_metric, str) and distance_metric == "cosine":
        return lime_cosine_distances(masks)
    # sklearn.metrics takes a tenth of a second to import: loaded on first use, not by import limetheory
    from sklearn.metrics.pairwise import pairwise_distances

    data = sp.csr_matrix(masks.astype(float))
    return pairwise_distances(data, data[0], metric=distance_metric).ravel() * 100


def lime_neighbourhood(text, indexed, classifier_fn, random_state, num_samples, distance_metric, settings):
    r"""(masks, yss, distances) of one lime call: lime's ``__data_labels_distances`` with its stream, replayed.

    Parameters
    ----------
    text : str
        The document.
    indexed : lime.lime_text.IndexedString or IndexedCharacters
        lime's reading of ``text`` with the explainer's settings (its ``num_words()`` is d).
    classifier_fn : callable
        lime's classifier_fn.
    random_state : numpy.random.RandomState
        The explainer's stream, consumed as lime consumes it.
    num_samples : int
        lime's n.
    distance_metric : str or callable
        lime's ``distance_metric``.
    settings : dict
        ``bow``, ``char_level``, ``split_expression`` and ``mask_string``.

    Returns
    -------
    masks : ndarray, shape (n, d), int8
    yss : the model's outputs on lime's n documents (what ``classifier_fn`` returns, or the pipeline's rows)
    distances : ndarray, shape (n,)

    Examples
    --------
    >>> from lime.lime_text import IndexedString
    >>> text = "good food, bad food"
    >>> settings = dict(bow=True, char_level=False, split_expression=r"\W+", mask_string=None)
    >>> masks, yss, distances = lime_neighbourhood(text, IndexedString(text), lambda docs: np.ones((len(docs), 2)),
    ...                                            np.random.RandomState(0), 4, "cosine", settings)
    >>> masks.shape, yss.shape, distances.shape
    ((4, 3), (4, 2), (4,))
    """
    fast = pipeline_document(classifier_fn, text, **settings)
    d = indexed.num_words()
    masks = lime_masks(random_state, d, num_samples)
    yss = None
    if fast is not None and fast[0].d == d:
        document, model_fn = fast
        try:
            kept = masks.sum(axis=1)
            rows = sorted({0, int(np.argmin(kept)), int(np.argmax(kept[1:])) + 1, *range(1, _SELF_CHECK_ROWS)})
            document.self_check(masks[[r for r in rows if r < num_samples]])
            yss = model_outputs(document, masks, model_fn)
        except ValueError:  # rows it cannot reproduce, or an output lime's code would refuse: lime's own call
            yss = None
    if yss is None:
        default_split = not settings["char_level"] and settings["bow"] and settings["split_expression"] == LIME_SPLIT
        yss = classifier_fn(lime_strings(text, indexed, masks, default_split=default_split))
    return masks, yss, lime_distances(masks, distance_metric)
