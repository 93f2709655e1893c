"""The fast engine's sampler: lime's masks, the model's responses and lime's kernel weights, run after run.

:func:`sample_chunks` checks the arguments of :func:`limetheory.engine.fast.fast_lime_explanations` (a fitted
``Pipeline`` is split into its vectorizer and the rest's ``predict_proba``), draws the masks from lime's own
``RandomState`` stream or from the same law in vectorised calls, evaluates the model once per distinct mask on the
TF-IDF rows computed from word counts, and weights each mask with lime's kernel of its cosine distance, computed bit
for bit as lime computes it.  It yields the runs in chunks of bounded memory; the fast engine fits lime's ridge on
each (:mod:`limetheory.engine.fast`).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from sklearn.exceptions import NotFittedError
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.pipeline import Pipeline
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from .._compiled import compiled
from .._validation import check_int, check_memory, check_positive_finite, check_text, check_vectorizer
from .lime_documents import LIME_SPLIT, WORD_CHARACTER, LimeCharacters, LimeTextCounts
from .mt_masks import lime_masks_from_words
from .tokens import DocumentCounts

#: the two random streams: lime's own RandomState, consumed as lime consumes it, or vectorised draws of the same law
STREAMS = ("lime", "batched")

_SELF_CHECK_ROWS = 3  # the first perturbed rows checked, besides the unperturbed and the sparsest and densest ones
_MAX_CHUNK_ENTRIES = 4_000_000  # runs x samples x d per chunk (float64: 32 MB)
_MAX_MODEL_ROWS = 20_000  # rows per call of model_fn


def _lime_stream_masks(random_state, d, num_samples):
    """One run's (num_samples, d) int8 masks, drawn from lime's RandomState exactly as lime draws them."""
    masks = lime_masks_from_words(random_state, d, num_samples)  # the Mersenne Twister's words, a compiled loop
    if masks is not None:
        return masks
    sizes = random_state.randint(1, d + 1, num_samples - 1)
    masks = np.ones((num_samples, d), dtype=np.int8)
    identity = np.arange(d, dtype=np.int64)
    row = np.empty(d, dtype=np.int64)  # one buffer: memory n x d bytes for the masks, not n x d int64 permutations
    shuffle = random_state.shuffle
    for mask, size in zip(masks[1:], sizes, strict=True):
        row[:] = identity  # choice(range(d), s, replace=False) is permutation(d)[:s]: shuffle(arange(d))
        shuffle(row)
        mask[row[:size]] = 0
    return masks


def _batched_masks(rng, d, num_samples, runs):
    """(runs, num_samples, d) int8 masks from lime's law, vectorised; the first row of each run is all ones.

    Row i removes s_i ~ uniform{1..d} words, a uniform s_i-subset drawn by selection sampling (Knuth's
    algorithm S): word j is removed with probability (number still to remove) / (d - j), one column at a
    time for all rows at once.  The uniforms are drawn a block of words at a time (the same numbers as
    ``rng.random((d, num_samples - 1))``, at most ``_MAX_CHUNK_ENTRIES`` of them held at once) and the selection
    runs in one compiled loop (:func:`_select_words`), where numpy made five passes over each word's column.
    """
    count = num_samples - 1
    masks = np.empty((runs, num_samples, d), dtype=np.int8)
    masks[:, 0] = 1
    words = max(1, min(d, _MAX_CHUNK_ENTRIES // max(count, 1)))
    kept = np.empty((d, count), dtype=np.int8)  # word-major, so that each step writes contiguous memory
    for run in range(runs):  # run by run, so that the draws do not depend on how runs are grouped
        to_remove = rng.integers(1, d + 1, size=count).astype(float)
        for start in range(0, d, words):
            _select_words(rng.random((min(words, d - start), count)), to_remove, start, d, kept)
        masks[run, 1:] = kept.T
    return masks


@compiled(cache=True, nogil=True)
def _select_words(uniforms, to_remove, start, d, out):
    """Words ``start``, ``start + 1``, ... of ``out`` (word-major) by selection sampling; ``to_remove`` counts down.

    Word j (``uniforms[j - start, i]`` its uniform in row i) is removed when the uniform is below
    to_remove[i] / (d - j): the float division and comparison numpy made (the ratio is exactly 1 when all
    remaining words must go).
    """
    for w in range(uniforms.shape[0]):
        word = start + w
        left = d - word
        for i in range(uniforms.shape[1]):  # branch-free: the comparisons are random
            removed = uniforms[w, i] < to_remove[i] / left
            out[word, i] = not removed
            to_remove[i] -= removed


def _distance_table(d, kept=None):
    """lime's distance (cosine distance x 100 to the all-ones row) of a mask with k words kept, k = 0..d.

    Computed with the very call lime makes, on one canonical mask per k: every product in the sparse
    dot product is the same number, so the value depends on k only, bit for bit (and sklearn normalises
    and multiplies row by row, so the rows may be computed in any grouping).  With ``kept`` (an array of
    numbers of kept words), only those entries are computed, in blocks of rows whose canonical masks hold
    at most ``_MAX_CHUNK_ENTRIES`` ones (O(d^2) work and memory for every k at once would dominate at large d
    with few samples); the others are NaN.
    """
    wanted = np.arange(d + 1) if kept is None else np.unique(np.asarray(kept, dtype=np.int64))
    # sklearn.metrics takes a tenth of a second to import: loaded on first use, not by import limetheory
    from sklearn.metrics.pairwise import cosine_distances

    table = np.full(d + 1, np.nan)
    reference = sp.csr_matrix(np.ones((1, d)))
    start = 0
    while start < len(wanted):
        sizes = np.cumsum(wanted[start:])
        stop = start + max(1, int(np.searchsorted(sizes, _MAX_CHUNK_ENTRIES, side="right")))
        block = wanted[start:stop]  # row i keeps the first block[i] words
        indptr = np.concatenate([[0], np.cumsum(block)])
        indices = np.concatenate([np.arange(k) for k in block])
        canonical = sp.csr_matrix((np.ones(indptr[-1]), indices, indptr), shape=(len(block), d))
        # pairwise_distances(metric="cosine") with n_jobs=None calls cosine_distances(X, Y): the same numbers
        table[block] = cosine_distances(canonical, reference).ravel() * 100
        start = stop
    return table


def _lime_distances(d, kept):
    """``_distance_table(d, kept)`` by the same floating-point operations, without scikit-learn's call overhead.

    For a 0/1 row with k ones, sklearn's cosine_distances normalises it to entries fl(1 / fl(sqrt(k))) (the sum
    of squares is exactly k), the all-ones row to fl(1 / fl(sqrt(d))), and scipy's sparse product accumulates
    the k equal products p = fl(x y) one after the other from 0; the distance is fl(1 - sum) clipped to [0, 2].
    Replaying these operations gives the same bits (tests compare with :func:`_distance_table`, which makes the
    real call) and removes a fixed cost that is a third of a small run.  O(sum of the distinct k).
    """
    wanted = np.unique(np.asarray(kept, dtype=np.int64))
    table = np.full(d + 1, np.nan)
    y = 1.0 / np.sqrt(np.float64(d))
    for k in wanted.tolist():
        if k == 0:
            total = 0.0  # a zero row stays zero under normalisation
        else:
            product = (1.0 / np.sqrt(np.float64(k))) * y
            total = np.add.accumulate(np.full(k, product))[-1]  # sequential, as scipy's csr_matmat accumulates
        table[k] = np.clip(1.0 - total, 0.0, 2.0) * 100
    return table


def _kernel(distances, kernel_width):
    """lime's default text kernel, as lime writes it."""
    return np.sqrt(np.exp(-(distances**2) / kernel_width**2))


def _unique_rows(masks):
    """(unique masks, inverse) of an (m, d) 0/1 array: the distinct rows in the order of their binary keys.

    The key of a row is the integer whose bit j is its entry j (``np.packbits(..., bitorder="little")`` read as
    little-endian bytes); up to 64 words it is one uint64, computed in one compiled pass, and the rows are sorted
    by an unstable argsort, each distinct row's first index being the smallest of its run: the unique rows and
    inverse of ``np.unique(keys, return_index=True, return_inverse=True)``, without its stable sort.  Beyond 64
    words the packed bytes are the keys, as before.
    """
    if masks.shape[1] > 64 or len(masks) == 0:
        packed = np.packbits(masks.astype(bool), axis=1, bitorder="little")
        keys = np.ascontiguousarray(packed).view(np.dtype((np.void, packed.shape[1]))).ravel()
        _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
        return masks[first], inverse.ravel()
    keys = _row_keys(masks)
    order = np.argsort(keys)
    ordered = keys[order]
    starts = np.ones(len(keys), dtype=bool)
    starts[1:] = ordered[1:] != ordered[:-1]
    first = np.minimum.reduceat(order, np.flatnonzero(starts))  # the first occurrence of each distinct row
    inverse = np.empty(len(keys), dtype=np.intp)
    inverse[order] = np.cumsum(starts) - 1
    return masks[first], inverse


@compiled(cache=True, nogil=True)
def _row_keys(masks):
    """Each row's uint64 key: bit j set when entry j is nonzero (at most 64 columns)."""
    keys = np.zeros(masks.shape[0], dtype=np.uint64)
    for i in range(masks.shape[0]):
        key = np.uint64(0)
        for j in range(masks.shape[1]):
            if masks[i, j] != 0:
                key |= np.uint64(1) << np.uint64(j)
        keys[i] = key
    return keys


def _distinct_outputs(document, masks, model_fn, label=None):
    """(model_fn's output on the distinct masks, inverse): column ``label`` only, or every column (label None).

    The model is evaluated once per distinct mask, in calls of at most ``_MAX_MODEL_ROWS`` rows and
    ``_MAX_CHUNK_ENTRIES`` mask entries, so that the sparse TF-IDF of one block stays small when documents are long.
    """
    unique, inverse = _unique_rows(masks)
    values = None
    rows_per_call = max(1, min(_MAX_MODEL_ROWS, _MAX_CHUNK_ENTRIES // masks.shape[1]))
    for start in range(0, len(unique), rows_per_call):
        block = unique[start : start + rows_per_call]
        out = np.asarray(model_fn(document.transform(block)), dtype=float)
        if out.ndim != 2 or out.shape[0] != len(block):
            raise ValueError(f"model_fn must return an array of shape ({len(block)}, n_labels), got {out.shape}")
        if label is not None:
            if label >= out.shape[1]:
                raise ValueError(f"label must be < n_labels = {out.shape[1]}, got {label}")
            if not np.isfinite(out[:, label]).all():
                raise ValueError("model_fn returned a non-finite value (NaN or inf)")
            out = out[:, label]
        if values is None:
            values = np.empty((len(unique), *out.shape[1:]))
        values[start : start + len(block)] = out
    return values, inverse


def _responses(document, masks, model_fn, label):
    """model_fn's column ``label`` on the TF-IDF of every mask (model evaluated once per distinct mask)."""
    values, inverse = _distinct_outputs(document, masks, model_fn, label)
    return values[inverse]


def _check_engine_memory(n_exp, num_samples, d):
    """Refuse, before any work, runs whose arrays would exceed the package's memory limit.

    The engine's own footprint, not lime's (lime holds n x d float64 arrays, several times over): per run the
    int8 masks, their distinct rows and packed keys (about 3 n d bytes), the ridge system of size min(n, d + 1)
    (8 min(n, d + 1)^2 bytes) and bounded blocks (the design, the TF-IDF of one model call: about 64 MB);
    the explanations take 8 n_exp (d + 1) bytes.
    """
    system = min(num_samples, d + 1)
    check_memory(
        3.0 * num_samples * d + 8.0 * system**2 + 2**26,
        f"one run of the fast engine with num_samples = {num_samples} on a document of {d} distinct words",
        "use fewer samples",
    )
    check_memory(8.0 * n_exp * (d + 1), f"{n_exp} explanations of {d + 1} coefficients", "use fewer runs")


def _model_parts(vectorizer, model_fn, label):
    """(vectorizer, model_fn): a fitted Pipeline is split into its first step and the rest's ``predict_proba``."""
    if isinstance(vectorizer, Pipeline):
        steps = vectorizer.steps
        first = steps[0][1]
        if not isinstance(first, CountVectorizer):
            raise TypeError(
                "vectorizer is a Pipeline whose first step is "
                f"{type(first).__name__}: the fast engine needs a fitted CountVectorizer or TfidfVectorizer as the "
                "first step (it recomputes that step's output from word counts)"
            )
        if model_fn is None:
            if len(steps) < 2:
                raise ValueError(
                    "vectorizer is a Pipeline with no step after its vectorizer: pass model_fn, or a Pipeline that "
                    "ends with a classifier"
                )
            final = steps[-1][1]
            if not hasattr(final, "predict_proba"):
                raise TypeError(
                    f"vectorizer: the Pipeline's last step, {type(final).__name__}, has no predict_proba; pass "
                    "model_fn (a callable mapping the vectorizer's matrix to an (m, n_labels) array)"
                )
            for name, step in steps[1:]:
                if step is None or step == "passthrough":
                    continue
                try:
                    check_is_fitted(step)
                except NotFittedError:
                    raise ValueError(
                        f"vectorizer: the Pipeline's step {name!r} ({type(step).__name__}) is not fitted; fit the "
                        "pipeline first"
                    ) from None
            classes = getattr(final, "classes_", None)
            if classes is not None and label >= len(classes):
                raise ValueError(
                    f"label must be < {len(classes)}, the number of classes of the Pipeline's model "
                    f"(classes_ = {[c.item() if hasattr(c, 'item') else c for c in classes]}), got {label}"
                )
            model_fn = vectorizer[1:].predict_proba
        vectorizer = first
    elif model_fn is None:
        raise TypeError(
            "model_fn is required with a bare vectorizer: a callable mapping the vectorizer's matrix to an "
            "(m, n_labels) array (or pass a fitted Pipeline(vectorizer, ..., classifier) as vectorizer: its "
            "predict_proba is then the model)"
        )
    if not callable(model_fn):
        raise TypeError("model_fn must be callable: TF-IDF matrix -> (m, n_labels) array, or None with a Pipeline")
    return vectorizer, model_fn


def _check_lime_settings(settings):
    """Refuse every LimeTextExplainer / explain_instance setting the engine does not reproduce (see the docstring)."""
    for name in ("bow", "char_level"):
        if not isinstance(settings[name], (bool, np.bool_)):
            raise TypeError(f"{name} must be True or False, got {type(settings[name]).__name__}")
    split = settings["split_expression"]
    if not (callable(split) or isinstance(split, str)):
        raise TypeError(
            f"split_expression must be a regular expression (str) or a callable, got {type(split).__name__}"
        )
    if not (settings["mask_string"] is None or isinstance(settings["mask_string"], str)):
        raise TypeError(f"mask_string must be None or a str, got {type(settings['mask_string']).__name__}")
    if settings["kernel"] is not None:
        raise ValueError(
            "kernel must be None: the engine reproduces lime's default kernel √exp(-D²/w²) of the cosine distance D "
            "(times 100) only"
        )
    if settings["distance_metric"] != "cosine":
        raise ValueError(f"distance_metric must be 'cosine' (lime's default), got {settings['distance_metric']!r}")
    if settings["model_regressor"] is not None:
        raise ValueError("model_regressor must be None: the engine fits lime's default surrogate, Ridge(alpha=1)")


def _check_arguments(text, vectorizer, model_fn, n_exp, num_samples, kernel_width, label, random_state, stream,
                     settings):  # fmt: skip
    text = check_text(text)
    label = check_int(label, "label", minimum=0)
    vectorizer, model_fn = _model_parts(vectorizer, model_fn, label)
    _check_lime_settings(settings)
    # characters: the vectorizer's own transform runs on lime's strings, so any fitted Count/Tfidf vectorizer will do
    check_vectorizer(vectorizer, mirrored_by=None if settings["char_level"] else "the fast engine")
    if settings["split_expression"] == LIME_SPLIT and not settings["char_level"] and not WORD_CHARACTER.search(text):
        raise ValueError(
            f"text has no word lime can remove: lime's words are the maximal runs of word characters (it splits on "
            f"{LIME_SPLIT}), and {text[:60]!r} has none"
        )
    n_exp = check_int(n_exp, "n_exp", minimum=1)
    num_samples = check_int(num_samples, "num_samples", minimum=2)
    kernel_width = check_positive_finite(kernel_width, "kernel_width")
    if stream not in STREAMS:
        raise ValueError(f"stream must be one of {STREAMS}, got {stream!r}")
    if stream == "lime":
        if isinstance(random_state, np.random.Generator):
            raise TypeError(
                "random_state: lime's stream needs an int seed, None or a numpy RandomState, because lime calls "
                "sklearn's check_random_state, which refuses a numpy Generator; a Generator works with "
                "stream='batched' (the same law of masks, not lime's draws)"
            )
        if not (random_state is None or isinstance(random_state, np.random.RandomState)):
            random_state = check_int(random_state, "random_state", minimum=0, maximum=2**32 - 1)
        random_state = check_random_state(random_state)  # None: numpy's global RandomState, as in lime
    else:
        if isinstance(random_state, np.random.Generator):
            pass
        elif random_state is None:
            random_state = np.random.default_rng()
        else:
            random_state = np.random.default_rng(check_int(random_state, "random_state", minimum=0))
    return text, vectorizer, model_fn, n_exp, num_samples, kernel_width, label, random_state


def sample_chunks(text, vectorizer, model_fn, n_exp, num_samples, kernel_width, label, random_state, stream, settings):
    """Yield (document, masks, y, weights) for consecutive chunks of runs, after the run-time self-check."""
    text, vectorizer, model_fn, n_exp, num_samples, kernel_width, label, random_state = _check_arguments(
        text, vectorizer, model_fn, n_exp, num_samples, kernel_width, label, random_state, stream, settings
    )
    # tokenises once; its memory does not grow with the runs
    document = lime_document(
        text,
        vectorizer,
        bow=settings["bow"],
        char_level=settings["char_level"],
        split_expression=settings["split_expression"],
        mask_string=settings["mask_string"],
    )
    d = document.d
    _check_engine_memory(n_exp, num_samples, d)  # before any sampling or model call
    table = np.full(d + 1, np.nan)  # filled lazily: only the numbers of kept words that occur
    per_chunk = max(1, _MAX_CHUNK_ENTRIES // (num_samples * d))
    checked = False
    done = 0
    while done < n_exp:
        runs = min(per_chunk, n_exp - done)
        if stream == "lime":
            masks = np.stack([_lime_stream_masks(random_state, d, num_samples) for _ in range(runs)])
        else:
            masks = _batched_masks(random_state, d, num_samples, runs)
        flat = masks.reshape(-1, d)
        if not checked:
            kept = flat[:num_samples].sum(axis=1)
            rows = [0, int(np.argmin(kept)), int(np.argmax(kept[1:])) + 1, *range(1, _SELF_CHECK_ROWS)]
            document.self_check(flat[sorted(set(r for r in rows if r < num_samples))])
            checked = True
        y = _responses(document, flat, model_fn, label).reshape(runs, num_samples)
        kept = masks.sum(axis=2, dtype=np.int64)
        missing = np.unique(kept[np.isnan(table[kept])])
        if missing.size:
            table[missing] = _lime_distances(d, missing)[missing]
        weights = _kernel(table[kept], kernel_width)
        yield document, masks, y, weights
        done += runs


def lime_settings(bow, char_level, split_expression, mask_string, kernel, distance_metric, model_regressor):
    """lime's text and surrogate settings as one dict, checked by ``_check_lime_settings``."""
    return dict(bow=bow, char_level=char_level, split_expression=split_expression, mask_string=mask_string,
                kernel=kernel, distance_metric=distance_metric, model_regressor=model_regressor)  # fmt: skip


def lime_document(text, vectorizer, *, bow=True, char_level=False, split_expression=LIME_SPLIT, mask_string=None):
    """The document as lime cuts it with these settings and as the fitted ``vectorizer`` reads each perturbation.

    :class:`~limetheory.engine.tokens.DocumentCounts` at lime's defaults, :class:`LimeCharacters` with
    ``char_level=True`` (lime then ignores ``split_expression``), :class:`LimeTextCounts` otherwise.  Each has
    ``words``, ``d``, ``documents(masks)`` (lime's strings), ``transform(masks)`` (the vectorizer's rows) and
    ``self_check(masks)``.  Raises ValueError where the vectorizer's tokens cannot be mirrored (see the classes).

    Examples
    --------
    >>> from sklearn.feature_extraction.text import TfidfVectorizer
    >>> vectorizer = TfidfVectorizer().fit(["good food", "bad service"])
    >>> document = lime_document("good food, bad food", vectorizer, bow=False)
    >>> document.words, document.documents([[1, 0, 1, 1]])
    (['good', 'food', 'bad', 'food'], ['good UNKWORDZ, bad food'])
    """
    if char_level:
        return LimeCharacters(text, vectorizer, bow=bow, mask_string=mask_string)
    if bow and split_expression == LIME_SPLIT:
        return DocumentCounts(text, vectorizer)
    return LimeTextCounts(text, vectorizer, bow=bow, split_expression=split_expression, mask_string=mask_string)


def lime_masks(random_state, d, num_samples):
    """One ``explain_instance`` call's (num_samples, d) int8 masks, drawn from lime's ``RandomState`` as lime draws.

    ``random_state.randint(1, d + 1, num_samples - 1)``, then per row ``choice(range(d), size, replace=False)``
    (the same numbers and the same final state as ``shuffle`` of ``arange(d)``); row 0 is all ones.

    Examples
    --------
    >>> masks = lime_masks(np.random.RandomState(0), 4, 3)
    >>> masks.dtype.name, masks[0].tolist(), masks.shape
    ('int8', [1, 1, 1, 1], (3, 4))
    """
    return _lime_stream_masks(random_state, d, num_samples)


def lime_cosine_distances(masks):
    """lime's distance of each 0/1 mask to the all-ones row: cosine distance times 100, bit for bit as lime's.

    Examples
    --------
    >>> lime_cosine_distances(np.array([[1, 1, 1, 1], [1, 1, 0, 0]], dtype=np.int8)).round(6).tolist()
    [0.0, 29.289322]
    """
    masks = np.asarray(masks)
    kept = masks.sum(axis=1, dtype=np.int64)
    return _lime_distances(masks.shape[1], kept)[kept]


def model_outputs(document, masks, model_fn):
    """Every column of ``model_fn(document.transform(masks))``, with the model evaluated once per distinct mask.

    Raises ValueError if the model's output is not an (m, n_labels) array.

    Examples
    --------
    >>> from sklearn.feature_extraction.text import CountVectorizer
    >>> vectorizer = CountVectorizer().fit(["good food", "bad service"])
    >>> document = lime_document("good food", vectorizer)
    >>> model_outputs(document, np.array([[1, 1], [1, 0], [1, 1]]), lambda m: m.toarray()).tolist()
    [[0.0, 1.0, 1.0, 0.0], [0.0, 0.0, 1.0, 0.0], [0.0, 1.0, 1.0, 0.0]]
    """
    values, inverse = _distinct_outputs(document, np.asarray(masks), model_fn)
    return values[inverse]
