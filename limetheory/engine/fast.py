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
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from lime.lime_text import IndexedCharacters, IndexedString
from sklearn.exceptions import NotFittedError
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.metrics.pairwise import cosine_distances
from sklearn.pipeline import Pipeline
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from .._validation import check_int, check_memory, check_positive_finite, check_text, check_vectorizer
from .ridge import ridge_coefficients
from .selection import FEATURE_SELECTIONS, lime_feature_selection, resolve_feature_selection
from .tokens import DocumentCounts, column_entries, count_matrix

STREAMS = ("lime", "batched")

_SELF_CHECK_ROWS = 3  # the first perturbed rows checked, besides the unperturbed and the sparsest and densest ones
_MAX_CHUNK_ENTRIES = 4_000_000  # runs x samples x d per chunk (float64: 32 MB)
_MAX_MODEL_ROWS = 20_000  # rows per call of model_fn
_LIME_SPLIT = r"\W+"  # LimeTextExplainer's default split_expression (the engine's fastest path)
_WORD_CHARACTER = re.compile(r"\w")


# ----------------------------------------------------------------------------- lime's other text settings


class LimeTextCounts(DocumentCounts):
    """A document as lime sees it with any supported ``bow``, ``split_expression`` and ``mask_string``.

    And as the vectorizer sees it (:class:`limetheory.engine.tokens.DocumentCounts` is the case of lime's defaults).

    lime's ``IndexedString(text, bow=bow, split_expression=split_expression, mask_string=mask_string)`` cuts the
    text into words and separators.  With ``bow=True`` a feature is a distinct word and removing it deletes all its
    occurrences; with ``bow=False`` a feature is one occurrence, in text order, and a removed occurrence is
    replaced by ``mask_string`` ('UNKWORDZ' when None).  Row j of ``counts`` holds feature j's vectorizer columns
    (times its number of occurrences) and ``mask_counts`` those of the mask string, so a perturbed document's
    counts are ``mask @ counts + (number removed) * mask_counts`` (the mask string counts whenever the
    vectorizer's vocabulary has it, lower-cased 'unkwordz' by default; with ``bow=True`` it never appears).

    This holds when the vectorizer's tokens (maximal runs of word characters) never straddle two of lime's pieces:
    every separator must hold no word character after preprocessing, and no two words may touch with word
    characters on both sides (a zero-width split inside a run); both are refused here, and ``self_check``
    compares rows with the vectorizer's real ``transform``.
    """

    def __init__(self, text, vectorizer, *, bow=True, split_expression=r"\W+", mask_string=None):
        self.text = text
        self.vectorizer = vectorizer
        self.indexed = IndexedString(text, bow=bow, split_expression=split_expression, mask_string=mask_string)
        self.words = [str(w) for w in self.indexed.inverse_vocab]
        self.d = len(self.words)
        if vectorizer.lowercase and ("\u03a3" in text or "\u03a3" in self.indexed.mask_string):
            # Python lower-cases the capital sigma according to its neighbours (final sigma)
            raise ValueError("text or mask_string contains the capital sigma 'Σ', whose lower case depends on context")
        preprocess = vectorizer.build_preprocessor()
        pieces = [str(piece) for piece in self.indexed.as_list]
        is_word = np.zeros(len(pieces), dtype=bool)
        if self.d:
            is_word[np.concatenate([np.ravel(p) for p in self.indexed.positions]).astype(np.int64)] = True
        for piece in {pieces[i] for i in np.flatnonzero(~is_word)}:
            if _WORD_CHARACTER.search(preprocess(piece)):
                raise ValueError(
                    f"a separator of text, {piece!r}, holds a word character after preprocessing: the vectorizer "
                    "would read it as (part of) a token"
                )
        for i in np.flatnonzero(is_word[:-1] & is_word[1:]):
            left, right = pieces[i], pieces[i + 1]
            if _WORD_CHARACTER.match(left[-1]) and _WORD_CHARACTER.match(right[0]):
                raise ValueError(
                    f"split_expression={split_expression!r} cuts a run of word characters ({left!r} + {right!r}), "
                    "which the vectorizer reads as one token: the engine cannot mirror it"
                )
        # after the checks above: a split that cuts words apart is reported as such, not as a short dictionary
        unit = "distinct words" if bow else "words with bow=False (each occurrence is a feature)"
        if self.d == 0:
            raise ValueError(f"text has no word lime can remove (with split_expression={split_expression!r})")
        if self.d < 2:
            raise ValueError(
                f"text must contain at least 2 {unit}, got {self.words}: with one feature every perturbation "
                "removes it, so the explanation is undefined (Sigma is singular)"
            )
        occurrences = [len(positions) for positions in self.indexed.positions] if bow else [1] * self.d
        entries = column_entries(vectorizer, self.words, occurrences)
        masked = {}
        if not bow:  # lime deletes a removed word when bow=True: the mask string never appears
            # the mask string's columns, counted as those of a word that occurs once
            masked = {c: n for (_, c), n in column_entries(vectorizer, [self.indexed.mask_string], [1]).items()}
        self.columns = np.array(sorted({column for _, column in entries} | set(masked)), dtype=np.int64)
        self.counts = count_matrix(entries, self.d, self.columns)
        self.mask_counts = np.zeros(len(self.columns), dtype=np.int64)
        for column, count in masked.items():
            self.mask_counts[np.searchsorted(self.columns, column)] = count
        self.n_features = len(vectorizer.vocabulary_)
        self._matrix_type = None

    def documents(self, masks):
        """The strings lime builds for these masks (1 = feature kept; 0 = deleted, or masked with bow=False)."""
        return [self.indexed.inverse_removing(np.flatnonzero(np.asarray(mask) == 0)) for mask in masks]

    def kept_counts(self, masks):
        """The counts of :meth:`~limetheory.engine.tokens.DocumentCounts.kept_counts`, plus those of ``mask_string``."""
        kept = sp.csr_matrix(np.asarray(masks).astype(bool, copy=False), dtype=np.int64)
        counts = kept @ self.counts
        if self.mask_counts.any():
            removed = self.d - np.asarray(kept.sum(axis=1)).ravel()
            counts = counts + sp.csr_matrix(np.outer(removed, self.mask_counts))
        return counts


class LimeCharacters:
    """A document as lime sees it with ``char_level=True``: every character a feature.

    ``bow=True``: each distinct character, all its occurrences removed together; ``bow=False``: each position,
    replaced by ``mask_string`` (chr(0) when None).

    Removing characters changes the words themselves (a word vanishes, shrinks or merges with its neighbour), so
    the vectorizer's rows are not a function of word counts: here the perturbed strings are built with lime's own
    ``IndexedCharacters.inverse_removing`` and passed to the vectorizer's ``transform``, exactly as lime does
    (once per distinct mask).  The engine's gain is then only its ridge and feature selection, not the strings.
    """

    def __init__(self, text, vectorizer, *, bow=True, mask_string=None):
        self.text = text
        self.vectorizer = vectorizer
        self.indexed = IndexedCharacters(text, bow=bow, mask_string=mask_string)
        self.words = [str(c) for c in self.indexed.inverse_vocab]
        self.d = len(self.words)
        if self.d < 2:
            unit = "distinct characters" if bow else "characters"
            raise ValueError(
                f"text must contain at least 2 {unit} with char_level=True, got {self.words}: with one feature every "
                "perturbation removes it, so the explanation is undefined (Sigma is singular)"
            )

    def documents(self, masks):
        """The strings lime builds for these masks (1 = character kept)."""
        return [self.indexed.inverse_removing(np.flatnonzero(np.asarray(mask) == 0)) for mask in masks]

    def transform(self, masks):
        """``vectorizer.transform(self.documents(masks))``: the vectorizer's own call on lime's strings."""
        return self.vectorizer.transform(self.documents(masks))

    def self_check(self, masks):
        """Nothing to check: :meth:`transform` is the vectorizer's own call on lime's own strings."""


# ----------------------------------------------------------------------------- the masks
# (the document, as lime and as the vectorizer see it, is limetheory.engine.tokens.DocumentCounts)


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
    if settings["split_expression"] == _LIME_SPLIT and not settings["char_level"] and not _WORD_CHARACTER.search(text):
        raise ValueError(
            f"text has no word lime can remove: lime's words are the maximal runs of word characters (it splits on "
            f"{_LIME_SPLIT}), and {text[:60]!r} has none"
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


def _chunks(text, vectorizer, model_fn, n_exp, num_samples, kernel_width, label, random_state, stream, settings):
    """Yield (document, masks, y, weights) for consecutive chunks of runs, after the run-time self-check."""
    text, vectorizer, model_fn, n_exp, num_samples, kernel_width, label, random_state = _check_arguments(
        text, vectorizer, model_fn, n_exp, num_samples, kernel_width, label, random_state, stream, settings
    )
    # tokenises once; its memory does not grow with the runs
    if settings["char_level"]:  # lime ignores split_expression then
        document = LimeCharacters(text, vectorizer, bow=settings["bow"], mask_string=settings["mask_string"])
    elif settings["bow"] and settings["split_expression"] == _LIME_SPLIT:
        document = DocumentCounts(text, vectorizer)  # lime's defaults
    else:
        document = LimeTextCounts(text, vectorizer, bow=settings["bow"], split_expression=settings["split_expression"],
                                  mask_string=settings["mask_string"])  # fmt: skip
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


def _lime_settings(bow, char_level, split_expression, mask_string, kernel, distance_metric, model_regressor):
    return dict(bow=bow, char_level=char_level, split_expression=split_expression, mask_string=mask_string,
                kernel=kernel, distance_metric=distance_metric, model_regressor=model_regressor)  # fmt: skip


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
    split_expression=_LIME_SPLIT,
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
    settings = _lime_settings(bow, char_level, split_expression, mask_string, kernel, distance_metric, model_regressor)
    if not isinstance(return_selected, (bool, np.bool_)):
        raise TypeError(f"return_selected must be True or False, got {type(return_selected).__name__}")
    num_features = check_int(num_features, "num_features", minimum=1)
    if feature_selection not in FEATURE_SELECTIONS:
        raise ValueError(
            f"feature_selection must be one of {FEATURE_SELECTIONS} (lime's methods), got {feature_selection!r}"
        )
    method = resolve_feature_selection(feature_selection, num_features)
    betas, selected = [], []
    for _, masks, y, weights in _chunks(
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
    split_expression=_LIME_SPLIT,
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
    settings = _lime_settings(bow, char_level, split_expression, mask_string, kernel, distance_metric, None)
    words, zs, ys, ws = None, [], [], []
    for document, masks, y, weights in _chunks(
        text, vectorizer, model_fn, n_exp, num_samples, kernel_width, label, random_state, stream, settings
    ):
        words = document.words
        zs.append(masks)
        ys.append(y)
        ws.append(weights)
    return FastLimeSamples(words=list(words), z=np.concatenate(zs), y=np.concatenate(ys), weights=np.concatenate(ws))
