r"""Views of a corpus of explanations: global word importance and lime's submodular pick (SP-LIME), made exact.

lime's ``SubmodularPick`` (Ribeiro et al. 2016, Algorithm 2; ``lime/submodular_pick.py``) explains a sample of
documents, keeps each explanation's ``num_features`` words (10 by default) in an explanation matrix W
(documents x words, summed over the explained labels), scores each word by
:math:`I_j = \sqrt{\sum_i \lvert W_{ij} \rvert}`
and picks B documents greedily, each time the one that maximises the coverage
:math:`c(V) = \sum_j I_j\, [\exists i \in V: W_{ij} \neq 0]`.  Its W changes with lime's random samples, so its
picks do too.  Here W comes from exact explanations (``explain_many``): the pick is a function of the model and
the corpus.  The greedy loop is lime's, step for step (the same coverage, computed by the same ``np.dot`` over the
words in lime's order, and its tie rule: among equal coverages, the last document wins).

lime also refits its surrogate on the ``num_features`` words it selects, so its W holds the refitted values:
their limit is a small linear solve from the exact explanation (:func:`refit_limit`), and ``refit=True`` (the
default) puts that limit in W, so that W is what lime's W converges to as its number of samples grows.
"""

from __future__ import annotations

import numpy as np

from ..._validation import check_bool, check_int, check_positive_finite
from ...theory.coefficients import sigma_matrix
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


def refit_limit(beta, selected, *, kernel_width):
    r"""The limit of lime's surrogate refitted on some words only: what lime reports after its feature selection.

    lime (``num_features`` words, ``feature_selection="highest_weights"`` or ``"auto"`` beyond 6 words) selects the
    words and fits its weighted ridge again on them alone.  As its number of samples grows, that fit tends to the
    minimiser of :math:`\mathbb{E}[\pi (f - b_0 - \sum_{j \in S} b_j z_j)^2]`, whose normal equations are
    :math:`\Sigma_{\bar S \bar S}\, b = \Gamma_{\bar S}` on :math:`\bar S = \{0\} \cup S` (the intercept and the
    selected words), with :math:`\Gamma = \Sigma \beta` from the explanation with every word kept.

    Parameters
    ----------
    beta : array_like, shape (d + 1,)
        The explanation with every word kept (intercept first), e.g. ``explain(...).beta``.
    selected : array_like of int
        The selected words (0-based word indices, distinct).
    kernel_width : float
        lime's kernel width of ``beta`` (the paper's ν = kernel_width / 100).

    Returns
    -------
    ndarray, shape (len(selected) + 1,)
        The refitted intercept, then the selected words' coefficients in the order given.

    Examples
    --------
    >>> beta = np.array([0.2, 1.0, -0.5, 0.1])
    >>> bool(np.allclose(refit_limit(beta, [0, 1, 2], kernel_width=25), beta))  # every word: beta itself
    True
    >>> refit_limit(beta, [0], kernel_width=25).round(3).tolist()
    [-0.123, 1.15]
    """
    beta = np.asarray(beta, dtype=float)
    if beta.ndim != 1 or beta.size < 2:
        raise ValueError(f"beta must be a 1-D array of length d + 1 >= 2, got shape {beta.shape}")
    d = beta.size - 1
    selected = np.asarray(selected)
    if selected.ndim != 1 or not np.issubdtype(selected.dtype, np.integer):
        raise TypeError("selected must be a 1-D array of word indices (integers)")
    if selected.size and (selected.min() < 0 or selected.max() >= d or np.unique(selected).size != selected.size):
        raise ValueError(f"selected must hold distinct word indices in 0..{d - 1}, got {selected.tolist()}")
    return _refit(_sigma(d, kernel_width), beta, selected)


def _sigma(d, kernel_width, cache=None):
    # Σ of d words at lime's kernel width, kept in `cache` (a dict) when given: the same array for every document
    key = (d, kernel_width)
    if cache is None or key not in cache:
        sigma = sigma_matrix(d, nu=check_positive_finite(kernel_width, "kernel_width") / 100.0)
        if cache is None:
            return sigma
        cache[key] = sigma
    return cache[key]


def _refit(sigma, beta, selected):
    rows = np.concatenate([[0], 1 + selected])
    return np.linalg.solve(sigma[np.ix_(rows, rows)], (sigma @ beta)[rows])


def explanation_matrix(frame_or_explanations, num_features=LIME_NUM_FEATURES, *, refit=True):
    """lime's explanation matrix W of SP-LIME: documents x words, each document's ``num_features`` largest words.

    Parameters
    ----------
    frame_or_explanations : pandas.DataFrame or sequence of limetheory.Explanation
        ``explain_many``'s frame, or explanations (document i the i-th).
    num_features : int or None
        Words kept per document and label: the largest |coefficient| (ties: the earlier word), as lime's
        "highest_weights" selection does in the limit; None keeps every word.
    refit : bool
        True: the kept words' values are lime's refitted surrogate in the limit (:func:`refit_limit`, which needs
        the frame's ``kernel_width`` and intercept rows), which is what lime's W converges to; False: their
        coefficients with every word kept.

    Returns
    -------
    W : ndarray, shape (documents, words)
        Summed over the labels of a document, as lime does.
    words : list of str
        The columns, in lime's order: first appearance, documents in order, each in the order of its
        ``as_list`` (decreasing |value| in W).
    documents : ndarray of int
        The rows' document positions, increasing.

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"document": [0, 0, 0, 1, 1], "label": 1, "position": [0, 1, 2, 0, 1],
    ...                       "word": ["(intercept)", "good", "food", "(intercept)", "bad"],
    ...                       "coefficient": [0.5, 0.1, -0.3, 0.4, -0.2]})
    >>> W, words, documents = explanation_matrix(frame, num_features=1, refit=False)
    >>> W.tolist(), words, documents.tolist()
    ([[-0.3, 0.0], [0.0, -0.2]], ['food', 'bad'], [0, 1])
    """
    frame = _as_frame(frame_or_explanations)
    num_features = _check_num_features(num_features)
    refit = check_bool(refit, "refit")
    if refit and "kernel_width" not in frame.columns:
        raise ValueError(
            "refit=True needs the frame's kernel_width column (explain_many's frame has it); or refit=False"
        )
    documents = np.unique(frame["document"].to_numpy())
    row_of = {int(position): i for i, position in enumerate(documents)}
    keys = ["document", "label"] if "label" in frame.columns else ["document"]
    # the groups of frame.groupby(keys, sort=True), each sorted by position (stable), as slices of one reordering
    group = frame.groupby(keys, sort=True).ngroup().to_numpy()
    by = (frame["position"].to_numpy(), group) if "position" in frame.columns else (group,)
    rows = np.lexsort(by)
    rows = rows[group[rows] >= 0]  # rows whose key is NaN are in no group
    starts = np.flatnonzero(np.r_[True, np.diff(group[rows]) != 0]) if rows.size else np.zeros(0, dtype=int)
    ends = np.r_[starts[1:], rows.size]
    all_words = frame["word"].to_numpy()[rows]
    all_values = frame["coefficient"].to_numpy(dtype=float)[rows]
    all_documents = frame["document"].to_numpy()[rows]
    widths = frame["kernel_width"].to_numpy()[rows] if refit else None
    column_of, entries, sigmas = {}, [], {}
    for start, end in zip(starts.tolist(), ends.tolist(), strict=True):
        is_word = all_words[start:end] != INTERCEPT
        words = all_words[start:end][is_word]
        values = all_values[start:end]
        order = np.argsort(-np.abs(values[is_word]), kind="stable")[:num_features]  # lime's stable sort
        if refit:
            if is_word.sum() != end - start - 1 or is_word[0]:
                raise ValueError("refit=True needs each document's intercept row first (explain_many's frame)")
            if values.size < 2:  # refit_limit's message
                refit_limit(values, order, kernel_width=float(widths[start]))
            sigma = _sigma(values.size - 1, float(widths[start]), sigmas)
            kept = _refit(sigma, values, order)[1:]
        else:
            kept = values[is_word][order]
        document = all_documents[start]
        shown = np.argsort(-np.abs(kept), kind="stable")  # lime's as_list order: by |value|, after the refit
        for word, value in zip(words[order][shown], kept[shown], strict=True):
            if word not in column_of:
                column_of[word] = len(column_of)
            entries.append((row_of[int(document)], column_of[word], value))
    matrix = np.zeros((documents.size, len(column_of)))
    for i, j, value in entries:
        matrix[i, j] += value
    return matrix, [str(word) for word in column_of], documents


def global_importance(frame_or_explanations, *, num_features=LIME_NUM_FEATURES, refit=True):
    r"""Global importance of each word over a corpus: lime's SP-LIME score and the mean absolute coefficient.

    Parameters
    ----------
    frame_or_explanations : pandas.DataFrame or sequence of limetheory.Explanation
        ``explain_many``'s frame, or explanations.
    num_features : int or None
        Words per document in lime's matrix W (:func:`explanation_matrix`; lime's default 10); None: all.
    refit : bool
        W's values: lime's refitted surrogate in the limit (True) or the coefficients with every word kept.

    Returns
    -------
    pandas.DataFrame
        Indexed by word, sorted by ``sp_lime`` (decreasing; ties by word order in W): ``sp_lime`` =
        :math:`\sqrt{\sum_i \lvert W_{ij} \rvert}` (lime's :math:`I_j`), ``mean_abs`` =
        :math:`\frac{1}{n}\sum_i \lvert W_{ij} \rvert` over
        the n documents (0 where the word is absent or not among a document's ``num_features``) and
        ``documents``, the number of documents whose row of W has the word.

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"document": [0, 0, 0, 1, 1], "word": ["(intercept)", "good", "food", "(intercept)",
    ...                       "good"], "coefficient": [0.5, 0.25, -0.5, 0.4, 0.75]})
    >>> global_importance(frame, refit=False).round(3).values.tolist()
    [[1.0, 0.5, 2.0], [0.707, 0.25, 1.0]]
    """
    import pandas as pd

    W, words, _ = explanation_matrix(frame_or_explanations, num_features, refit=refit)
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


def submodular_pick(frame_or_explanations, budget, *, num_features=LIME_NUM_FEATURES, refit=True):
    r"""lime's submodular pick (SP-LIME) on exact explanations: ``budget`` documents that cover the important words.

    The greedy loop of lime's ``SubmodularPick`` (module docstring) on the explanation matrix W of
    :func:`explanation_matrix`: each step adds the document that maximises the coverage
    :math:`c(V) = \sum_j I_j [\exists i \in V: W_{ij} \neq 0]`,
    :math:`I_j = \sqrt{\sum_i \lvert W_{ij} \rvert}`; ties go to the
    last document, as in lime.  Deterministic: W is exact, not sampled.

    Parameters
    ----------
    frame_or_explanations : pandas.DataFrame or sequence of limetheory.Explanation
        ``explain_many``'s frame (every document, or a sample of them), or explanations.
    budget : int
        Documents to pick (lime's ``num_exps_desired``, >= 1); at most the number of documents.
    num_features : int or None
        Words kept per document in W (lime's default 10); None keeps every word.
    refit : bool
        W's values: lime's refitted surrogate on the kept words in the limit (True, what lime's W converges to;
        it needs the frame's ``kernel_width``), or their coefficients with every word kept (False).

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
    >>> pick = submodular_pick(frame, 2, refit=False)
    >>> pick["document"].tolist(), pick["new_words"].tolist()  # "slow" and "staff" cover more than "food"
    ([1, 2], [2, 2])
    """
    import pandas as pd

    W, words, documents = explanation_matrix(frame_or_explanations, num_features, refit=refit)
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
