r"""Views of a corpus of explanations: global word importance and lime's submodular pick (SP-LIME), made exact.

lime's ``SubmodularPick`` (Ribeiro et al. 2016, Algorithm 2; ``lime/submodular_pick.py``) explains a sample of
documents, keeps each explanation's ``num_features`` words (10 by default) in an explanation matrix W
(documents x words, summed over the explained labels), scores each word by :math:`I_j = \sqrt{\sum_i |W_{ij}|}`
and picks B documents greedily, each time the one that maximises the coverage
:math:`c(V) = \sum_j I_j\, [\exists i \in V: W_{ij} \neq 0]`.  Its W changes with lime's random samples, so its
picks do too.  Here W comes from exact explanations (``explain_many``): the pick is a function of the model and
the corpus.  The greedy loop is lime's, step for step (the same coverage, computed by the same ``np.dot`` over the
words in lime's order, and its tie rule: among equal coverages, the last document wins).

One difference stays: lime refits its surrogate on the ``num_features`` words it selects, so its W holds the
refitted values; the exact W holds the limit coefficients of those words with every word kept (the limit of
lime's "highest_weights" selection, before the refit).
"""

from __future__ import annotations

import numpy as np

from ._validation import check_int
from .corpus import INTERCEPT, explanations_frame

#: lime's SubmodularPick default number of words per explanation
LIME_NUM_FEATURES = 10


def _as_frame(frame_or_explanations, name="frame_or_explanations"):
    import pandas as pd

    if isinstance(frame_or_explanations, pd.DataFrame):
        missing = {"document", "word", "coefficient"} - set(frame_or_explanations.columns)
        if missing:
            raise ValueError(f"{name} must have the columns of explain_many's frame; {sorted(missing)} are missing")
        return frame_or_explanations
    if isinstance(frame_or_explanations, (str, bytes)) or not hasattr(frame_or_explanations, "__iter__"):
        raise TypeError(
            f"{name} must be explain_many's DataFrame or a sequence of Explanations, "
            f"got {type(frame_or_explanations).__name__}"
        )
    explanations = list(frame_or_explanations)
    if not all(hasattr(e, "beta") and hasattr(e, "words") for e in explanations):
        raise TypeError(f"{name} must be explain_many's DataFrame or a sequence of Explanations")
    return explanations_frame(explanations)


def _check_num_features(num_features):
    return None if num_features is None else check_int(num_features, "num_features", minimum=1)


def explanation_matrix(frame_or_explanations, num_features=LIME_NUM_FEATURES):
    """lime's explanation matrix W of SP-LIME: documents x words, each document's ``num_features`` largest words.

    Parameters
    ----------
    frame_or_explanations : pandas.DataFrame or sequence of limetheory.Explanation
        ``explain_many``'s frame, or explanations (document i the i-th).
    num_features : int or None
        Words kept per document and label: the largest |coefficient| (ties: the earlier word), as lime's
        ``as_list`` with ``num_features`` words; None keeps every word.

    Returns
    -------
    W : ndarray, shape (documents, words)
        Summed over the labels of a document, as lime does.
    words : list of str
        The columns, in lime's order: first appearance, documents in order, each by decreasing |coefficient|.
    documents : ndarray of int
        The rows' document positions, increasing.

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"document": [0, 0, 0, 1, 1], "label": 1, "position": [0, 1, 2, 0, 1],
    ...                       "word": ["(intercept)", "good", "food", "(intercept)", "bad"],
    ...                       "coefficient": [0.5, 0.1, -0.3, 0.4, -0.2]})
    >>> W, words, documents = explanation_matrix(frame, num_features=1)
    >>> W.tolist(), words, documents.tolist()
    ([[-0.3, 0.0], [0.0, -0.2]], ['food', 'bad'], [0, 1])
    """
    frame = _as_frame(frame_or_explanations)
    num_features = _check_num_features(num_features)
    rows = frame[frame["word"] != INTERCEPT]
    if "position" in rows.columns:
        rows = rows.sort_values(["document", "position"], kind="stable")
    label = rows["label"].to_numpy() if "label" in rows.columns else np.zeros(len(rows), dtype=np.int64)
    document = rows["document"].to_numpy()
    magnitude = np.abs(rows["coefficient"].to_numpy(dtype=float))
    # within each (document, label), words by decreasing |coefficient|, ties in word order (lime's stable sort)
    order = np.lexsort((np.arange(len(rows)), -magnitude, label, document))
    document, label = document[order], label[order]
    words, values = rows["word"].to_numpy()[order], rows["coefficient"].to_numpy(dtype=float)[order]
    starts = (
        np.r_[True, (document[1:] != document[:-1]) | (label[1:] != label[:-1])] if len(order) else np.zeros(0, bool)
    )
    rank = np.arange(len(order)) - np.maximum.accumulate(np.where(starts, np.arange(len(order)), 0))
    keep = np.ones(len(order), bool) if num_features is None else rank < num_features
    # lime's order: documents in turn, each document's labels in turn; labels of one document in increasing order
    all_documents = np.unique(frame["document"].to_numpy())
    row_of = {int(position): i for i, position in enumerate(all_documents)}
    column_of, columns = {}, []
    W = []
    for i, word, value in zip(document[keep], words[keep], values[keep], strict=True):
        if word not in column_of:
            column_of[word] = len(columns)
            columns.append(str(word))
        W.append((row_of[int(i)], column_of[word], value))
    matrix = np.zeros((all_documents.size, len(columns)))
    for i, j, value in W:
        matrix[i, j] += value
    return matrix, columns, all_documents


def global_importance(frame_or_explanations, *, num_features=LIME_NUM_FEATURES):
    r"""Global importance of each word over a corpus: lime's SP-LIME score and the mean absolute coefficient.

    Parameters
    ----------
    frame_or_explanations : pandas.DataFrame or sequence of limetheory.Explanation
        ``explain_many``'s frame, or explanations.
    num_features : int or None
        Words per document in lime's matrix W (:func:`explanation_matrix`; lime's default 10); None: all.

    Returns
    -------
    pandas.DataFrame
        Indexed by word, sorted by ``sp_lime`` (decreasing; ties by word order in W): ``sp_lime`` =
        :math:`\sqrt{\sum_i |W_{ij}|}` (lime's :math:`I_j`), ``mean_abs`` = :math:`\frac{1}{n}\sum_i |W_{ij}|` over
        the n documents (0 where the word is absent or not among a document's ``num_features``) and
        ``documents``, the number of documents whose row of W has the word.

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"document": [0, 0, 0, 1, 1], "word": ["(intercept)", "good", "food", "(intercept)",
    ...                       "good"], "coefficient": [0.5, 0.25, -0.5, 0.4, 0.75]})
    >>> global_importance(frame).round(3).values.tolist()
    [[1.0, 0.5, 2.0], [0.707, 0.25, 1.0]]
    """
    import pandas as pd

    W, words, _ = explanation_matrix(frame_or_explanations, num_features)
    magnitude = np.abs(W)
    summed = np.sum(magnitude, axis=0)
    table = pd.DataFrame(
        {
            "sp_lime": summed**0.5,
            "mean_abs": summed / max(1, W.shape[0]),
            "documents": (magnitude > 0).sum(axis=0),
        },
        index=pd.Index(words, name="word"),
    )
    return table.sort_values("sp_lime", ascending=False, kind="stable")


def submodular_pick(frame_or_explanations, budget, *, num_features=LIME_NUM_FEATURES):
    r"""lime's submodular pick (SP-LIME) on exact explanations: ``budget`` documents that cover the important words.

    The greedy loop of lime's ``SubmodularPick`` (module docstring) on the explanation matrix W of
    :func:`explanation_matrix`: each step adds the document that maximises the coverage
    :math:`c(V) = \sum_j I_j [\exists i \in V: W_{ij} \neq 0]`, :math:`I_j = \sqrt{\sum_i |W_{ij}|}`; ties go to the
    last document, as in lime.  Deterministic: W is exact, not sampled.

    Parameters
    ----------
    frame_or_explanations : pandas.DataFrame or sequence of limetheory.Explanation
        ``explain_many``'s frame (every document, or a sample of them), or explanations.
    budget : int
        Documents to pick (lime's ``num_exps_desired``, >= 1); at most the number of documents.
    num_features : int or None
        Words kept per document in W (lime's default 10); None keeps every word.

    Returns
    -------
    pandas.DataFrame
        One row per pick, in pick order: ``document`` (its position), ``coverage`` (c(V) after this pick, as a
        fraction of :math:`\sum_j I_j`) and ``new_words`` (the words of W this pick covers first).

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"document": [0, 0, 1, 1, 2, 2], "word": ["good", "food", "good", "bad", "slow",
    ...                       "staff"], "coefficient": [0.9, 0.1, 0.8, -0.7, 0.1, 0.1]})
    >>> pick = submodular_pick(frame, 2)
    >>> pick["document"].tolist(), pick["new_words"].tolist()  # "slow" and "staff" cover more than "food"
    ([1, 2], [2, 2])
    """
    import pandas as pd

    W, words, documents = explanation_matrix(frame_or_explanations, num_features)
    budget = check_int(budget, "budget", minimum=1)
    if budget > W.shape[0]:
        raise ValueError(f"budget must be at most the number of documents ({W.shape[0]}), got {budget}")
    magnitude = abs(W)
    importance = np.sum(magnitude, axis=0) ** 0.5
    present = magnitude > 0
    picked, remaining = [], set(range(W.shape[0]))
    covered = np.zeros(W.shape[1], dtype=bool)
    coverages, new_words = [], []
    for _ in range(budget):
        # lime's loop: ascending documents, `>=` (the last of equal coverages wins), coverage by np.dot
        best, best_index = 0, None
        for i in sorted(remaining):
            current = np.dot(covered | present[i], importance)
            if current >= best:
                best, best_index = current, i
        new_words.append(int((present[best_index] & ~covered).sum()))
        covered |= present[best_index]
        picked.append(best_index)
        remaining.discard(best_index)
        coverages.append(float(best))
    total = float(importance.sum())
    return pd.DataFrame(
        {
            "document": documents[picked].astype(np.int64),
            "coverage": np.asarray(coverages) / total if total > 0 else np.zeros(budget),
            "new_words": np.asarray(new_words, dtype=np.int64),
        }
    )
