"""``explain_many``: ``explain`` over a corpus, in chunks, on joblib's processes or a dask cluster, resumable.

Every document is explained by :func:`limetheory.explain` itself, with the same options, so each document's rows
equal ``explain(model, text, **options)`` bit for bit whatever the backend, the number of processes, the chunk size
or the number of resumed runs, provided every process computes with as many BLAS threads: joblib limits a loky
worker's to the cores over ``n_jobs`` (one on two cores with ``n_jobs=2``), so a calling process with more rounds
some sums differently, in their last bits (measured: 64% of an estimate corpus's coefficients), and
``OPENBLAS_NUM_THREADS=1``, as the Makefile and the benchmarks set, makes them equal. The model travels to each
worker once: for processes on this machine (joblib's ``"loky"`` and ``"multiprocessing"`` backends) it is saved once
with ``joblib.dump`` and each process loads it on its first chunk; on a ``dask.distributed`` cluster it is broadcast
to the workers once (``joblib.parallel_config(scatter=[model])``). The documents go in chunks, and a chunk's
explanations come back as one table; only the chunks in flight are held by the workers, so memory is bounded by the
chunk when the results go to a Parquet folder (``path=``, ``limetheory.pipelines.corpora.store``) rather than to
memory (``collect=False``).
"""

from __future__ import annotations

import contextlib
import inspect
import itertools
import math
import os
import shutil
import tempfile
import uuid
import warnings

import numpy as np

from ..._validation import check_bool, check_int
from ..reading.blackbox import read_model
from ..reading.lime_call import LIME_ONLY, LimeCall
from ..routing import explain
from . import store
from .linear_many import linear_many_rows
from .worker_heap import reused_heap

#: the columns of explain_many's frame, in order
COLUMNS = (
    "document",
    "label",
    "position",
    "word",
    "coefficient",
    "stderr",
    "exact",
    "method",
    "kernel_width",
    "lime_agrees",
)
#: the ``word`` of each document's intercept row (lime's words are runs of word characters: never this)
INTERCEPT = "(intercept)"
#: largest default chunk (documents per task); smaller corpora get about four chunks per worker
MAX_DEFAULT_CHUNK = 128
#: joblib backends that start processes on this machine: the model goes to them as a file, loaded once each
_LOCAL_PROCESS_BACKENDS = ("loky", "multiprocessing")
#: the model a worker process loaded last (its key, the model): a process serves one run at a time
_LOADED = {}


class _ModelFile:
    """The model as the worker processes of one run receive it: a file saved once, loaded once per process."""

    def __init__(self, file, key):
        self.file, self.key = file, key

    def load(self):
        if _LOADED.get("key") != self.key:
            import joblib

            _LOADED.clear()
            _LOADED.update(key=self.key, model=joblib.load(self.file))
        return _LOADED["model"]


class _ScatteredModel:
    """The model as one explain_many call broadcasts it to a dask cluster: with a tag that makes its key unique."""

    def __init__(self, model, tag):
        self.model, self.tag = model, tag


def explain_option_names():
    """The keyword options of :func:`limetheory.explain` (everything but ``model`` and ``text``), in order.

    Examples
    --------
    >>> names = explain_option_names()
    >>> names[:2], "model" in names
    (['kernel_width', 'label'], False)
    """
    return [
        name
        for name, parameter in inspect.signature(explain).parameters.items()
        if parameter.kind is inspect.Parameter.KEYWORD_ONLY
    ]


def _complete_options(options):
    """explain's options with every default filled in (the fingerprint of a run), ``progress`` left out."""
    names = explain_option_names()
    unknown = sorted(set(options) - set(names))
    if unknown:
        hint = " (explain takes lime's unit: kernel_width = 100 ν)" if "nu" in unknown else ""
        hint += "".join(f" ({name}: {LIME_ONLY[name]})" for name in unknown if name in LIME_ONLY)
        raise TypeError(f"explain_many got options that explain does not take: {unknown}{hint}; explain's are {names}")
    parameters = inspect.signature(explain).parameters
    complete = {name: options.get(name, parameters[name].default) for name in names}
    complete.pop("progress", None)  # a display setting, not part of the answer
    return complete


def explanations_frame(explanations, documents=None):
    """Explanations as one tidy DataFrame: a row per (document, coefficient), the intercept's word "(intercept)".

    Parameters
    ----------
    explanations : sequence of limetheory.Explanation
        One per document (or objects with the fields read here: ``linear_many.LinearRow``).
    documents : sequence of int or None
        The documents' positions (None: 0, 1, ...).

    Returns
    -------
    pandas.DataFrame
        Columns ``document``, ``label``, ``position`` (the index in ``beta``: 0 for the intercept, 1 + j for word
        j), ``word``, ``coefficient``, ``stderr`` (NaN when exact), ``exact``, ``method``, ``kernel_width``,
        ``lime_agrees`` (False where lime at its n will not agree with the limit: ``Explanation.lime_agrees``);
        sorted by document and position, so a document's ``coefficient`` column is its ``beta``.

    Examples
    --------
    >>> from limetheory.pipelines.results.result import Explanation
    >>> e = Explanation(["good", "bad"], np.array([0.5, 0.2, -0.4]), True, "linear", None, 25.0,
    ...                 "decision_function", 1, None)
    >>> explanations_frame([e], [7])[["document", "word", "coefficient"]].values.tolist()
    [[7, '(intercept)', 0.5], [7, 'good', 0.2], [7, 'bad', -0.4]]
    """
    import pandas as pd

    explanations = list(explanations)
    documents = list(range(len(explanations))) if documents is None else [int(i) for i in documents]
    if len(documents) != len(explanations):
        raise ValueError(
            f"documents must have one position per explanation, got {len(documents)} for {len(explanations)}"
        )
    if not explanations:
        return _empty_frame()
    # one array per column for the whole list (a chunk's LinearRows hold their fields as plain attributes)
    betas = [np.asarray(e.beta, dtype=float) for e in explanations]
    sizes = np.fromiter(map(len, betas), dtype=np.int64, count=len(betas))
    coefficient = np.concatenate(betas)
    stderrs = [e.stderr for e in explanations]
    if all(stderr is None for stderr in stderrs):
        stderr = np.full(coefficient.size, np.nan)
    else:
        pairs = zip(stderrs, sizes.tolist(), strict=True)
        stderr = np.concatenate([np.full(size, np.nan) if s is None else np.asarray(s, float) for s, size in pairs])
    documents = np.asarray(documents, dtype=np.int64)
    frame = pd.DataFrame(
        {
            "document": np.repeat(documents, sizes),
            "label": np.repeat(np.array([e.label for e in explanations], dtype=np.int64), sizes),
            "position": np.arange(coefficient.size, dtype=np.int64) - np.repeat(np.cumsum(sizes) - sizes, sizes),
            "word": pd.array(list(itertools.chain.from_iterable((INTERCEPT, *e.words) for e in explanations)), "str"),
            "coefficient": coefficient,
            "stderr": stderr,
            "exact": np.repeat(np.array([bool(e.exact) for e in explanations]), sizes),
            "method": pd.array(np.repeat(np.array([e.method for e in explanations], dtype=object), sizes), "str"),
            "kernel_width": np.repeat(np.array([e.kernel_width for e in explanations], dtype=float), sizes),
            "lime_agrees": np.repeat(np.array([bool(e.lime_agrees) for e in explanations]), sizes),
        },
        columns=list(COLUMNS),
    )
    if (np.diff(documents) > 0).all():  # already in order: each document's rows by position
        return frame
    return frame.sort_values(["document", "position"], kind="stable").reset_index(drop=True)


def _empty_frame():
    import pandas as pd

    frame = pd.DataFrame({name: pd.Series(dtype=dtype) for name, dtype in zip(COLUMNS, _DTYPES, strict=True)})
    return frame


_DTYPES = ("int64", "int64", "int64", "str", "float64", "float64", "bool", "str", "float64", "bool")


def _linear_batch_options(options):
    """explain_linear_many's options when explain's first route for these options is the linear one, else None.

    That is when every option but those it takes (and those only the estimate route reads) has its default and
    ``method`` is "auto" or "linear": lime's default words or ``bow=False`` with any ``mask_string``, not another
    ``split_expression`` or ``char_level=True``.
    """
    defaults = inspect.signature(explain).parameters
    for name, value in options.items():
        if name in _LINEAR_BATCH_OPTIONS or name in _IGNORED_BY_EXACT_ROUTES:
            continue
        if name == "method" and value in ("auto", "linear"):
            continue
        default = defaults[name].default
        if value is default or (isinstance(value, (str, bool, int, float, type(None))) and value == default):
            continue
        return None
    return {name: options[name] for name in _LINEAR_BATCH_OPTIONS if name in options}


#: the options of explain that explain_linear_many takes
_LINEAR_BATCH_OPTIONS = (
    "kernel_width", "label", "output", "random_state", "num_features", "feature_selection", "bow", "mask_string",
)  # fmt: skip
#: options of explain that only its estimate route reads (and the display of its bar)
_IGNORED_BY_EXACT_ROUTES = ("num_samples", "tol", "max_calls", "progress")


def _explain_one(model, position, text, options):
    try:
        return explain(model, text, **options)
    except (ValueError, TypeError) as error:
        raise type(error)(f"document {position}: {error}") from error


def _explain_chunk(model, documents, texts, options):
    """Explain one chunk (in a worker): its documents' positions and their frame.

    The first document goes through explain (it checks every option); when the options make the linear route
    explain's first, the others go through linear_many_rows (explain_linear_many's answers, one call of the
    pipeline for all their self-checks, the same β bit for bit, an Explanation built only where lime's agreement needs
    its notes), and explain takes the documents that route leaves.
    """
    if isinstance(model, _ModelFile):
        model = model.load()
    elif isinstance(model, _ScatteredModel):
        model = model.model
    # explain's warnings (lime at n will not agree, the bandwidth's unit) are recorded in the worker and warned
    # again in the calling process, where a process or a dask worker would otherwise print them or lose them
    # a dask worker returns freed memory to the system at once (MALLOC_TRIM_THRESHOLD_): once per chunk instead
    with warnings.catch_warnings(record=True) as caught, reused_heap():
        warnings.simplefilter("always")
        explanations = [_explain_one(model, documents[0], texts[0], options)] if documents else []
        batch = _linear_batch_options(options)
        reader = read_model(model, options["output"])
        if batch is not None and reader.pipeline is not None:
            # a bound method of a pipeline is that pipeline and its output, as explain reads it
            batch = {**batch, "output": reader.output}
            rest = linear_many_rows(reader.pipeline, texts[1:], **batch)  # Explanations only where needed
        else:
            rest = [None] * (len(texts) - 1)
        for position, text, explanation in zip(documents[1:], texts[1:], rest, strict=True):
            if explanation is None:
                explanation = _explain_one(model, position, text, options)
            explanations.append(explanation)
    raised = [(str(w.message), w.category) for w in caught]
    return documents, explanations_frame(explanations, documents), raised


def _check_texts(texts):
    if isinstance(texts, (str, bytes)):
        raise TypeError("texts must be a sequence of str (one document each), got a single " + type(texts).__name__)
    try:
        texts = list(texts)
    except TypeError:
        raise TypeError(f"texts must be a sequence of str (one document each), got {type(texts).__name__}") from None
    for position, text in enumerate(texts):
        if not isinstance(text, str):
            raise TypeError(f"texts must hold str only (one document each), got {type(text).__name__} at {position}")
    return texts


def _check_backend(backend):
    if not isinstance(backend, str):
        raise TypeError(f"backend must be the name of a joblib backend ('loky', 'dask', ...), got {backend!r:.80}")
    from joblib.parallel import BACKENDS, EXTERNAL_BACKENDS

    if backend not in BACKENDS and backend not in EXTERNAL_BACKENDS:
        known = sorted(set(BACKENDS) | set(EXTERNAL_BACKENDS))
        raise ValueError(f"backend must be a joblib backend, one of {known} (or one registered), got {backend!r}")
    return backend


def _check_n_jobs(n_jobs):
    if n_jobs is None:
        return None
    n_jobs = check_int(n_jobs, "n_jobs")
    if n_jobs == 0:
        raise ValueError("n_jobs must be a positive number of workers, -1 for all cores, or None; got 0")
    return n_jobs


def _chunk_size(chunk_size, n_documents, workers):
    if chunk_size is not None:
        return check_int(chunk_size, "chunk_size", minimum=1)
    return max(1, min(MAX_DEFAULT_CHUNK, math.ceil(n_documents / (4 * max(1, workers)))))


def explain_many(
    model,
    texts,
    *,
    n_jobs=None,
    backend="loky",
    progress=True,
    path=None,
    chunk_size=None,
    collect=True,
    fingerprint=None,
    **explain_options,
):
    """Explain every document of a corpus with :func:`limetheory.explain`: one tidy frame, parallel, resumable.

    Each document's rows are ``explain(model, text, **explain_options)`` bit for bit (the same routes, exact
    where a closed route exists), whatever ``n_jobs``, ``backend``, ``chunk_size`` or the runs a result was
    resumed from, when every process has as many BLAS threads (module docstring).  The documents go to joblib's
    workers in chunks, and the model to each worker once (module docstring).  Where explain's first route is the
    linear one (a pipeline linear in its vectorizer's columns, read through its linear output), a chunk is read at
    once (``limetheory.pipelines.corpora.linear_many``: one model call for every self-check, the same rows), under
    lime's default words and with ``bow=False`` (any ``mask_string``); other options go to explain document by
    document.

    Parameters
    ----------
    model : sklearn.pipeline.Pipeline or callable
        What :func:`limetheory.explain` takes: a fitted Pipeline (its output named by ``output``), a bound method
        of one (``pipe.decision_function``), or lime's ``classifier_fn`` (any function of a list of str, lambdas
        and closures included).
    texts : sequence of str
        The documents (a list, a tuple, a pandas Series, ...); a document's position in it is its ``document``.
    n_jobs : int or None
        Workers, as in scikit-learn: None for one (or the active ``joblib.parallel_config``'s), -1 for every
        core (with ``backend="dask"``: every worker thread of the cluster).
    backend : str
        A joblib backend: ``"loky"`` (processes on this machine, the default), ``"dask"`` (the active
        ``dask.distributed.Client``), ``"threading"``, or one registered by a plugin (``"ray"`` after
        ``ray.util.joblib.register_ray()``).
    progress : bool
        A tqdm bar counting documents (``tqdm.auto``: a widget in notebooks, text in terminals).
    path : str, os.PathLike or None
        A folder for a Parquet dataset (pyarrow): each finished chunk is written there at once, and a later call
        with the same path explains only the documents not yet stored and returns them all.  The folder records
        the model's ``joblib.hash``, a hash of the texts and the options; a call that differs in any of them is
        refused (``limetheory.pipelines.corpora.store``).
    chunk_size : int or None
        Documents per task (None: about four chunks per worker, at most 128).  It does not change the result.
    fingerprint : str or None
        What identifies the model in ``path``'s record, so that a later call resumes only with the same model.
        None: ``joblib.hash`` of the model, or, for a model joblib cannot pickle (a lambda, a closure), a hash of
        its ``cloudpickle`` bytes (its code and what it refers to, the fitted pipeline included).  Pass a str
        (e.g. a model version) where neither is stable across sessions.
    collect : bool
        False (with ``path``): return the folder as a ``pyarrow.dataset.Dataset`` instead of reading every row into
        memory, so that the run's memory stays bounded by the chunk.
    **explain_options
        Keyword options of :func:`limetheory.explain` (``kernel_width``, ``output``, ``label``, ``method``,
        ``num_samples``, ``random_state``, ...), the same for every document.

    Returns
    -------
    pandas.DataFrame or pyarrow.dataset.Dataset
        One row per (document, coefficient), sorted by document and position, with the columns of
        ``explanations_frame``: ``document``, ``label``, ``position`` (0 the intercept, 1 + j word j),
        ``word`` (the intercept's is ``"(intercept)"``), ``coefficient``, ``stderr`` (NaN when exact), ``exact``,
        ``method``, ``kernel_width``, ``lime_agrees`` (False for a document where lime at its n will not agree with
        the limit: explain's warning, kept per document).  ``frame.pivot(index="document", columns="word",
        values="coefficient")`` gives the documents x words matrix (with ``bow=False`` a word may repeat: pivot
        on ``position`` instead).

    Raises
    ------
    TypeError
        ``texts`` not a sequence of str, an option that explain does not take, arguments of the wrong type.
    ValueError
        ``n_jobs=0``, an unknown backend, ``collect=False`` without ``path``, a ``path`` that holds another run;
        explain's own errors, prefixed with the document's position.

    Examples
    --------
    >>> from sklearn.feature_extraction.text import TfidfVectorizer
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.pipeline import make_pipeline
    >>> import limetheory as lt
    >>> docs = ["good food", "bad food", "good service", "slow service", "good staff", "bad staff"]
    >>> model = make_pipeline(TfidfVectorizer(), LogisticRegression()).fit(docs, [1, 0, 1, 0, 1, 0])
    >>> texts = ["Good food, bad service", "slow staff but good food"]
    >>> frame = explain_many(model, texts, output="decision_function", progress=False)
    >>> frame.columns.tolist()  # doctest: +NORMALIZE_WHITESPACE
    ['document', 'label', 'position', 'word', 'coefficient', 'stderr', 'exact', 'method',
     'kernel_width', 'lime_agrees']
    >>> frame.groupby("document").size().tolist(), frame["method"].unique().tolist()
    ([5, 6], ['linear'])
    >>> one = lt.explain(model, texts[1], output="decision_function")
    >>> bool((frame[frame.document == 1].coefficient.to_numpy() == one.beta).all())
    True
    """
    texts = _check_texts(texts)
    n_jobs, backend = _check_n_jobs(n_jobs), _check_backend(backend)
    progress, collect = check_bool(progress, "progress"), check_bool(collect, "collect")
    if path is not None and not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path must be None or a folder name (str or os.PathLike), got {type(path).__name__}")
    if fingerprint is not None and (not isinstance(fingerprint, str) or not fingerprint):
        raise TypeError(
            f"fingerprint must be None or a non-empty str (e.g. the model's version), got {fingerprint!r:.80}"
        )
    if not collect and path is None:
        raise ValueError("collect=False keeps the explanations on disk only: it needs a path")
    options = _complete_options(explain_options)
    # the model and every option checked once, as explain checks them, before anything is pickled or hashed
    read_model(model, options["output"])
    LimeCall.from_arguments(**options)
    if chunk_size is not None:
        check_int(chunk_size, "chunk_size", minimum=1)
    folder, done, record = None, set(), None
    if path is not None:
        record = store.fingerprint(model, texts, options, _package_version(), fingerprint=fingerprint)
        folder = store.check_store(path, record)
        if folder.exists():
            store.remove_leftovers(folder)
            done = store.stored_documents(folder)
    todo = [position for position in range(len(texts)) if position not in done]
    per_document = dict(options)
    if "progress" in explain_option_names():
        per_document["progress"] = False  # one bar, for the corpus
    frames = []
    if todo:
        frames = _run(model, texts, todo, per_document, n_jobs, backend, progress, chunk_size, folder, record, collect)
    if folder is None:
        return _joined(frames) if frames else _empty_frame()
    if not collect:
        import pyarrow.dataset as ds

        return ds.dataset([str(file) for file in store.chunk_files(folder)], format="parquet")
    return read_explanations(folder)


def _joined(frames):
    """The chunks' frames (each sorted by document and position) as one, sorted by document and position.

    Concatenated in the order of their first documents, and sorted again only where two chunks' documents interleave.
    """
    import pandas as pd

    frames = sorted(frames, key=lambda frame: frame["document"].iat[0] if len(frame) else -1)
    documents = [frame["document"].to_numpy() for frame in frames if len(frame)]
    joined = pd.concat(frames, ignore_index=True)
    if all(before[-1] < after[0] for before, after in zip(documents, documents[1:], strict=False)):
        return joined
    return joined.sort_values(["document", "position"], kind="stable").reset_index(drop=True)


def _package_version():
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("limetheory")
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "unknown"


def _run(model, texts, todo, options, n_jobs, backend, progress, chunk_size, folder, record, collect):
    import joblib

    config = {"backend": backend}
    shipped = model
    if backend == "dask":
        # broadcast once to every worker, under a key of this call's own: the scatter's key is a hash of its content,
        # and the same model scattered by an earlier call, whose key the cluster was still releasing, was lost
        # ("lost dependencies") when the two met
        shipped = _ScatteredModel(model, uuid.uuid4().hex)
        config["scatter"] = [shipped]
        n_jobs = -1 if n_jobs is None else n_jobs
    with joblib.parallel_config(**config):
        workers = joblib.effective_n_jobs(n_jobs)  # on dask, -1 counts the cluster's worker threads
        size = _chunk_size(chunk_size, len(todo), workers)
        chunks = [todo[start : start + size] for start in range(0, len(todo), size)]
        scratch = None
        if backend in _LOCAL_PROCESS_BACKENDS and workers > 1:
            scratch = tempfile.mkdtemp(prefix="limetheory-model-")
            file = os.path.join(scratch, "model.joblib")
            joblib.dump(model, file)
            shipped = _ModelFile(file, uuid.uuid4().hex)
        try:
            tasks = (
                joblib.delayed(_explain_chunk)(shipped, chunk, [texts[i] for i in chunk], options) for chunk in chunks
            )
            parallel = joblib.Parallel(n_jobs=n_jobs, return_as="generator_unordered")
            frames = []
            with _bar(len(todo), progress) as bar:
                for documents, frame, raised in parallel(tasks):
                    for message, category in raised:
                        warnings.warn(message, category, stacklevel=3)
                    if folder is not None:
                        _store_chunk(folder, record, frame, documents)
                    elif collect:
                        frames.append(frame)
                    if bar is not None:
                        bar.update(len(documents))
            return frames
        finally:
            if scratch is not None:
                shutil.rmtree(scratch, ignore_errors=True)


def _bar(total, progress):
    """A tqdm bar counting documents (tqdm.auto, imported only when shown), or a context holding None."""
    if not progress:
        return contextlib.nullcontext()
    from tqdm import TqdmWarning

    with warnings.catch_warnings():  # tqdm.auto warns in a notebook without ipywidgets; its text bar serves
        warnings.simplefilter("ignore", TqdmWarning)
        from tqdm.auto import tqdm

    return tqdm(total=total, unit="doc", desc="explain_many")


def _store_chunk(folder, record, frame, documents):
    import pyarrow as pa

    store.create_store(folder, record)
    store.write_chunk(folder, pa.Table.from_pandas(frame, preserve_index=False), documents)


def read_explanations(path):
    """The explanations stored by ``explain_many(..., path=path)``, as its frame (sorted by document, position).

    Parameters
    ----------
    path : str or os.PathLike
        The folder.

    Returns
    -------
    pandas.DataFrame
        The columns of ``explanations_frame``.

    Examples
    --------
    >>> import tempfile
    >>> read_explanations(tempfile.mkdtemp()).shape
    (0, 10)
    """
    import pandas as pd
    import pyarrow.parquet as pq

    files = store.chunk_files(path)
    if not files:
        return _empty_frame()
    frame = pd.concat([pq.read_table(file).to_pandas() for file in files], ignore_index=True)
    frame = frame[list(COLUMNS)].astype(dict(zip(COLUMNS, _DTYPES, strict=True)))
    return frame.sort_values(["document", "position"], kind="stable").reset_index(drop=True)
