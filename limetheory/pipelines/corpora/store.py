"""The Parquet dataset behind ``explain_many(..., path=...)``: chunks written as they finish, and their fingerprint.

A folder holds one Parquet file per finished chunk (``part-<first document>.parquet``) and ``_fingerprint.json``,
what the stored explanations depend on: a hash of the fitted model (:func:`joblib.hash`, which sorts dicts and
sets, so it is the same in every Python session), a hash of the texts, the number of documents, every option of
``explain`` (defaults filled in, so that passing a default explicitly is the same run) and the package's version.
A later call with another model, other texts or other options is refused before anything is computed: stored
explanations are never mixed with new ones that answer a different question.

Each file is written under a temporary name starting with a dot and renamed when complete (an atomic rename on
one file system), so an interrupted run leaves finished chunks and nothing half-written; pyarrow's readers skip
names that start with ``.`` or ``_``, so ``pandas.read_parquet(path)`` reads the explanations alone.  Which
documents a file holds is in its schema's metadata (ranges of positions), so a resumed run learns what is done
without reading the explanations.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

FINGERPRINT_NAME = "_fingerprint.json"
#: the layout of the folder (bumped if the files change meaning)
STORE_FORMAT = 1
_DOCUMENTS_KEY = b"limetheory.documents"


def texts_hash(texts):
    """A SHA-256 of the texts, in order, each with its length (streamed: no copy of the corpus).

    Examples
    --------
    >>> texts_hash(["a b", "c"]) == texts_hash(["a b", "c"]), texts_hash(["a b", "c"]) == texts_hash(["a", "b c"])
    (True, False)
    """
    digest = hashlib.sha256()
    for text in texts:
        data = text.encode("utf-8", "surrogatepass")
        digest.update(len(data).to_bytes(8, "little"))
        digest.update(data)
    return digest.hexdigest()


def model_fingerprint(model):
    """A hash of the model that changes when the model does: ``joblib.hash``, or its cloudpickle bytes' hash.

    joblib pickles the model by reference where it can (a fitted pipeline's arrays and parameters by value); a
    lambda or a closure cannot be pickled so, and cloudpickle serialises it by value instead: its code and what it
    refers to (the fitted pipeline it calls included).  A model neither can serialise is refused with the way out.

    Examples
    --------
    >>> def constant(value):
    ...     return lambda docs: [value] * len(docs)
    >>> model_fingerprint(constant(1.0)) == model_fingerprint(constant(1.0))
    True
    >>> model_fingerprint(constant(1.0)) == model_fingerprint(constant(2.0))
    False
    """
    import hashlib
    import pickle

    import cloudpickle
    import joblib

    try:
        return joblib.hash(model)
    except (pickle.PicklingError, TypeError, AttributeError):
        pass
    try:
        return "cloudpickle-" + hashlib.sha256(cloudpickle.dumps(model)).hexdigest()
    except Exception as error:  # cloudpickle raises many types on objects it cannot serialise
        raise TypeError(
            f"explain_many(path=...) needs a fingerprint of the model to resume safely, and neither joblib nor "
            f"cloudpickle can serialise this {type(model).__name__} ({type(error).__name__}: {error}); pass "
            "fingerprint='...' (e.g. the model's version)"
        ) from None


def fingerprint(model, texts, options, version, fingerprint=None):
    """What stored explanations depend on, as a JSON-ready dict (module docstring).

    ``options`` are explain's keyword arguments with their defaults filled in; their hash decides, their
    ``repr`` is kept for the error message.  ``fingerprint`` (a str) replaces the model's hash
    (:func:`model_fingerprint`) when given.

    Examples
    --------
    >>> a = fingerprint("model", ["good food"], {"kernel_width": 25}, "0.1.0")
    >>> sorted(a), a == fingerprint("model", ["good food"], {"kernel_width": 25}, "0.1.0")
    (['documents', 'format', 'limetheory', 'model', 'options', 'options_hash', 'texts'], True)
    """
    import joblib

    return {
        "format": STORE_FORMAT,
        "limetheory": version,
        "model": model_fingerprint(model) if fingerprint is None else f"given-{fingerprint}",
        "texts": texts_hash(texts),
        "documents": len(texts),
        "options_hash": joblib.hash(sorted(options.items())),
        "options": {name: repr(value) for name, value in sorted(options.items())},
    }


def _differences(stored, current):
    names = {
        "format": "the folder's format",
        "limetheory": "the limetheory version",
        "model": "the model (its joblib.hash)",
        "texts": "the texts",
        "documents": "the number of documents",
        "options_hash": "the options of explain",
    }
    found = []
    for key, what in names.items():
        if stored.get(key) != current[key]:
            if key == "options_hash":
                before, now = stored.get("options", {}), current["options"]
                changed = sorted(name for name in set(before) | set(now) if before.get(name) != now.get(name))
                what += " (" + ", ".join(f"{n}: {before.get(n, '-')} -> {now.get(n, '-')}" for n in changed) + ")"
            elif key == "documents":
                what += f" ({stored.get(key)} -> {current[key]})"
            found.append(what)
    return found


def check_store(path, current):
    """The folder as a Path, after checking that what it holds (if anything) was made with ``current``.

    ``current`` is a :func:`fingerprint`.  Nothing is created here (:func:`create_store` does it with the first
    chunk, so that a run refused by ``explain`` leaves no folder behind).  Raises ValueError naming what
    differs when the folder holds explanations of another model, other texts or other options, and when it is a
    file or a folder that this module did not make.

    Examples
    --------
    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp()) / "run"
    >>> create_store(folder, fingerprint("model", ["good food"], {}, "0.1.0"))
    >>> check_store(folder, fingerprint("model", ["good food"], {}, "0.1.0")) == folder
    True
    >>> check_store(folder, fingerprint("other", ["good food"], {}, "0.1.0"))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: path=...run... holds explanations of another run, which differs in the model (its joblib.hash); ...
    """
    folder = Path(path)
    if folder.exists() and not folder.is_dir():
        raise ValueError(f"path must be a folder (a Parquet dataset), got the file {str(folder)!r}")
    record = folder / FINGERPRINT_NAME
    if record.exists():
        different = _differences(json.loads(record.read_text(encoding="utf-8")), current)
        if different:
            raise ValueError(
                f"path={str(folder)!r} holds explanations of another run, which differs in {'; '.join(different)}; "
                "pass another path (or delete the folder) to explain this run"
            )
    elif folder.exists() and any(not name.startswith(".") for name in os.listdir(folder)):
        raise ValueError(
            f"path={str(folder)!r} is a folder that explain_many did not create (it has no {FINGERPRINT_NAME}); "
            "pass a new or empty folder"
        )
    return folder


def create_store(folder, current):
    """Make the folder and write its fingerprint ``current``, unless it has one (checked by :func:`check_store`)."""
    folder = Path(folder)
    record = folder / FINGERPRINT_NAME
    if not record.exists():
        folder.mkdir(parents=True, exist_ok=True)
        _atomic_write_bytes(record, json.dumps(current, indent=1, sort_keys=True).encode("utf-8"))


def _atomic_write_bytes(target, data):
    temporary = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    temporary.write_bytes(data)
    os.replace(temporary, target)


def _ranges(documents):
    """Sorted positions as [[start, stop), ...] runs (a chunk of a resumed run need not be contiguous)."""
    runs = []
    for position in documents:
        if runs and runs[-1][1] == position:
            runs[-1][1] += 1
        else:
            runs.append([position, position + 1])
    return runs


def write_chunk(folder, table, documents):
    """Write one chunk (a pyarrow Table) as ``part-<first>.parquet``, atomically, recording its documents.

    Examples
    --------
    >>> import tempfile, pyarrow as pa
    >>> folder = Path(tempfile.mkdtemp())
    >>> write_chunk(folder, pa.table({"document": [3, 4]}), [3, 4]).name
    'part-000000003.parquet'
    >>> sorted(stored_documents(folder))
    [3, 4]
    """
    import pyarrow.parquet as pq

    documents = sorted(int(position) for position in documents)
    metadata = dict(table.schema.metadata or {})
    metadata[_DOCUMENTS_KEY] = json.dumps(_ranges(documents)).encode("ascii")
    table = table.replace_schema_metadata(metadata)
    target = Path(folder) / f"part-{documents[0]:09d}.parquet"
    temporary = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    pq.write_table(table, temporary)
    os.replace(temporary, target)
    return target


def chunk_files(folder):
    """The finished chunks' files, in order of their first document."""
    return sorted(Path(folder).glob("part-*.parquet"))


def stored_documents(folder):
    """The positions of the documents whose explanations the folder holds (read from the files' metadata).

    Examples
    --------
    >>> import tempfile
    >>> stored_documents(tempfile.mkdtemp())
    set()
    """
    import pyarrow.parquet as pq

    done = set()
    for file in chunk_files(folder):
        metadata = pq.read_schema(file).metadata or {}
        for start, stop in json.loads(metadata[_DOCUMENTS_KEY]):
            done.update(range(start, stop))
    return done


def remove_leftovers(folder):
    """Delete the temporary files of an interrupted write (names starting with a dot and ending in .tmp)."""
    for file in Path(folder).glob(".*.tmp"):
        file.unlink(missing_ok=True)
