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
    agree with :func:`limetheory.empirical.lime_explanations` to floating-point round-off.
``stream="batched"``
    Draws the same law (first row unperturbed, then s uniform in {1..d} and a uniform s-subset
    of words removed) with vectorised ``numpy.random.Generator`` calls; not lime's stream.
    For large sweeps.

In both, each run's weighted ridge regression is lime's (:func:`limetheory.ridge.ridge_coefficients`:
centred as scikit-learn's ``Ridge`` centres, solved in the primal or the dual, whichever system is
smaller), and the model is evaluated once per distinct mask.  The word counts and the perturbed
TF-IDF rows are sparse and lime's kernel distances are computed only for the numbers of kept words
that occur, so long documents cost memory in proportion to n × d (the int8 masks), not d².
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from sklearn.metrics.pairwise import cosine_distances
from sklearn.utils import check_random_state

from ._validation import check_int, check_memory, check_positive_finite, check_text, check_vectorizer
from .ridge import ridge_coefficients
from .tokens import DocumentCounts

STREAMS = ("lime", "batched")

_SELF_CHECK_ROWS = 3  # the first perturbed rows checked, besides the unperturbed and the sparsest and densest ones
_MAX_CHUNK_ENTRIES = 4_000_000  # runs x samples x d per chunk (float64: 32 MB)
_MAX_MODEL_ROWS = 20_000  # rows per call of model_fn


# ----------------------------------------------------------------------------- the masks
# (the document, as lime and as the vectorizer see it, is limetheory.tokens.DocumentCounts)


def _lime_stream_masks(random_state, d, num_samples):
    """One run's (num_samples, d) int8 masks, drawn from lime's RandomState exactly as lime draws them."""
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
    time for all rows at once.
    """
    count = num_samples - 1
    masks = np.empty((runs, num_samples, d), dtype=np.int8)
    masks[:, 0] = 1
    kept = np.empty((d, count), dtype=np.int8)  # word-major, so that each step writes contiguous memory
    for run in range(runs):  # run by run, so that the draws do not depend on how runs are grouped
        to_remove = rng.integers(1, d + 1, size=count).astype(float)
        for j in range(d):
            # one word's uniforms at a time: the same numbers as rng.random((d, count)), without its n x d floats
            removed = rng.random(count) < to_remove / (d - j)  # the ratio is exactly 1 when all remaining must go
            np.logical_not(removed, out=kept[j], casting="unsafe")
            to_remove -= removed
        masks[run, 1:] = kept.T
    return masks


# ----------------------------------------------------------------------------- responses and weights


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
    """(unique masks, inverse) of an (m, d) 0/1 array."""
    packed = np.packbits(masks.astype(bool), axis=1, bitorder="little")
    if packed.shape[1] <= 8:
        keys = np.zeros((len(packed), 8), dtype=np.uint8)
        keys[:, : packed.shape[1]] = packed
        keys = keys.view("<u8").ravel()
    else:
        keys = np.ascontiguousarray(packed).view(np.dtype((np.void, packed.shape[1]))).ravel()
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    return masks[first], inverse.ravel()


def _responses(document, masks, model_fn, label):
    """model_fn's column ``label`` on the TF-IDF of every mask (model evaluated once per distinct mask)."""
    unique, inverse = _unique_rows(masks)
    values = np.empty(len(unique))
    # rows per call: at most _MAX_MODEL_ROWS, and at most _MAX_CHUNK_ENTRIES mask entries, so that the sparse
    # TF-IDF of one block stays small when documents are long
    rows_per_call = max(1, min(_MAX_MODEL_ROWS, _MAX_CHUNK_ENTRIES // masks.shape[1]))
    for start in range(0, len(unique), rows_per_call):
        block = unique[start : start + rows_per_call]
        out = np.asarray(model_fn(document.transform(block)), dtype=float)
        if out.ndim != 2 or out.shape[0] != len(block):
            raise ValueError(f"model_fn must return an array of shape ({len(block)}, n_labels), got {out.shape}")
        if label >= out.shape[1]:
            raise ValueError(f"label must be < n_labels = {out.shape[1]}, got {label}")
        if not np.isfinite(out[:, label]).all():
            raise ValueError("model_fn returned a non-finite value (NaN or inf)")
        values[start : start + len(block)] = out[:, label]
    return values[inverse]


def _ridge(z, y, weights):
    """lime's surrogate, sklearn ``Ridge(alpha=1, fit_intercept=True)`` with sample weights, for a stack of runs.

    z : (R, n, d), y and weights : (R, n).  Each run is solved by :func:`limetheory.ridge.ridge_coefficients`,
    in the primal ((d + 1) unknowns) or the dual (n unknowns), whichever system is smaller.  Returns (R, d + 1).
    """
    return np.stack([ridge_coefficients(z[run], y[run], weights[run]) for run in range(z.shape[0])])


# ----------------------------------------------------------------------------- public functions


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
    """

    words: list
    z: np.ndarray
    y: np.ndarray
    weights: np.ndarray


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


def _check_arguments(text, vectorizer, model_fn, n_exp, num_samples, kernel_width, label, random_state, stream):
    text = check_text(text)
    check_vectorizer(vectorizer, mirrored_by="the fast engine")
    if not callable(model_fn):
        raise TypeError("model_fn must be callable: TF-IDF matrix -> (m, n_labels) array")
    n_exp = check_int(n_exp, "n_exp", minimum=1)
    num_samples = check_int(num_samples, "num_samples", minimum=2)
    kernel_width = check_positive_finite(kernel_width, "kernel_width")
    label = check_int(label, "label", minimum=0)
    if stream not in STREAMS:
        raise ValueError(f"stream must be one of {STREAMS}, got {stream!r}")
    if stream == "lime":
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
    return text, n_exp, num_samples, kernel_width, label, random_state


def _chunks(text, vectorizer, model_fn, n_exp, num_samples, kernel_width, label, random_state, stream):
    """Yield (document, masks, y, weights) for consecutive chunks of runs, after the run-time self-check."""
    text, n_exp, num_samples, kernel_width, label, random_state = _check_arguments(
        text, vectorizer, model_fn, n_exp, num_samples, kernel_width, label, random_state, stream
    )
    document = DocumentCounts(text, vectorizer)  # tokenises once; its memory does not grow with the runs
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


def fast_lime_explanations(
    text,
    vectorizer,
    model_fn,
    *,
    n_exp=100,
    num_samples=5000,
    kernel_width=25,
    label=1,
    random_state=0,
    stream="lime",
):
    """lime's explanations of a model that reads a scikit-learn vectorizer, computed without lime's string work.

    With ``stream="lime"`` the result equals
    ``lt.lime_explanations(text, lambda docs: model_fn(vectorizer.transform(docs)), n_exp=n_exp, ...)``
    to floating-point round-off: the same masks run for run (lime's ``RandomState`` stream is consumed
    exactly as lime consumes it), the same TF-IDF rows bit for bit, the same weights, and lime's ridge
    regression.  With ``stream="batched"`` the masks come from the same law through vectorised draws
    (not lime's stream): statistically equivalent, faster, for large sweeps.

    Parameters
    ----------
    text : str
        The document to explain.
    vectorizer : sklearn CountVectorizer or TfidfVectorizer, fitted
        Word unigrams on maximal runs of word characters only (token_pattern ``(?u)\\b\\w\\w+\\b`` or
        ``(?u)\\b\\w+\\b``; no custom analyzer, tokenizer or preprocessor, no strip_accents, ngram_range
        (1, 1)); ``lowercase``, ``stop_words``, ``binary``, ``sublinear_tf``, ``use_idf``, ``smooth_idf``
        and ``norm`` ('l1', 'l2', None) are supported.  Others raise ValueError.
    model_fn : callable
        Maps the sparse matrix returned by ``vectorizer.transform`` to an (m, n_labels) array (e.g. a
        fitted classifier's ``predict_proba``).  Row i of the output must depend on row i of the input
        only (the model is evaluated once per distinct perturbed document).
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

    Returns
    -------
    ndarray, shape (n_exp, d + 1)
        Column 0 the intercept, column 1 + j the coefficient of word j (local-dictionary order).

    Raises
    ------
    TypeError
        If ``vectorizer`` is not a CountVectorizer / TfidfVectorizer, ``model_fn`` is not callable, or an
        argument has the wrong type.
    ValueError
        For an unsupported vectorizer setting, a document with fewer than 2 distinct words (as
        :func:`limetheory.empirical.lime_explanations`), bad argument values, a malformed model output, or when the
        run-time self-check (a few perturbed rows against ``vectorizer.transform`` of lime's strings) fails.
    """
    parts = []
    for _, masks, y, weights in _chunks(
        text, vectorizer, model_fn, n_exp, num_samples, kernel_width, label, random_state, stream
    ):
        parts.append(_ridge(masks, y, weights))
    return np.concatenate(parts)


def fast_lime_samples(
    text,
    vectorizer,
    model_fn,
    *,
    n_exp=1,
    num_samples=5000,
    kernel_width=25,
    label=1,
    random_state=0,
    stream="lime",
):
    """The masks, responses and weights behind :func:`fast_lime_explanations` (a :class:`FastLimeSamples`).

    Same arguments and random streams as :func:`fast_lime_explanations`; with ``stream="lime"`` and
    ``n_exp=1`` the arrays equal what :func:`limetheory.empirical.capture_lime_samples` records from lime itself.
    Memory grows as n_exp x num_samples x d.
    """
    words, zs, ys, ws = None, [], [], []
    for document, masks, y, weights in _chunks(
        text, vectorizer, model_fn, n_exp, num_samples, kernel_width, label, random_state, stream
    ):
        words = document.words
        zs.append(masks)
        ys.append(y)
        ws.append(weights)
    return FastLimeSamples(words=list(words), z=np.concatenate(zs), y=np.concatenate(ys), weights=np.concatenate(ws))
