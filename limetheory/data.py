"""The Yelp review subset used by the paper, fetched from the authors' repository and checksum-pinned.

Where the file comes from, in order (never falling back from one to the other silently):

1. ``$LIMETHEORY_DATA_DIR/positive_negative_reviews_yelp.csv`` when that variable is set (no download);
2. otherwise a download by pooch into the cache folder ``$LIMETHEORY_CACHE_DIR`` (default: pooch's
   per-user cache, e.g. ``~/.cache/limetheory``).  A cached copy whose sha256 differs (a truncated or
   corrupted earlier download) is detected and downloaded again; a download whose sha256 differs is
   discarded.

Every failure raises an error that says what went wrong and what to do.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pandas is imported where a file is read: ``import limetheory`` stays cheap (test_import_cost)
    import pandas as pd

YELP_FILENAME = "positive_negative_reviews_yelp.csv"
YELP_COMMIT = "6f5f95ccade6331ccb39db4cec97a711c1937cc6"
YELP_URL = f"https://raw.githubusercontent.com/dmardaoui/lime_text_theory/{YELP_COMMIT}/dataset/{YELP_FILENAME}"
YELP_SHA256 = "29150a1a1903b5f3dbaa3a0387155815f4aa40b94a05e1d4398e7c957c0ebf13"
DATA_DIR_VARIABLE = "LIMETHEORY_DATA_DIR"
CACHE_DIR_VARIABLE = "LIMETHEORY_CACHE_DIR"

# pooch's downloader (None: its default HTTP downloader).  Tests replace it to simulate the network.
DOWNLOADER = None

_OFFLINE_ADVICE = (
    f"Without network, download {YELP_FILENAME} (from {YELP_URL}) elsewhere and set {DATA_DIR_VARIABLE} "
    "to the folder that holds it."
)


def sha256_of(path) -> str:
    """Hex sha256 digest of a file."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _readable_hash(path: Path) -> str:
    try:
        return sha256_of(path)
    except OSError as error:
        raise PermissionError(
            f"cannot read {path} ({type(error).__name__}: {error}); make the file readable or replace it with "
            f"{YELP_FILENAME} from the authors' repository at commit {YELP_COMMIT}"
        ) from error


def _verified(path: Path) -> Path:
    actual = _readable_hash(path)
    if actual != YELP_SHA256:
        raise ValueError(
            f"{path} does not have the expected content: sha256 is {actual}, expected {YELP_SHA256} "
            f"(a truncated, edited or different file). Replace it with {YELP_FILENAME} from the authors' "
            f"repository at commit {YELP_COMMIT} ({YELP_URL})."
        )
    return path


def _local_copy(folder: str) -> Path:
    directory = Path(folder).expanduser()
    if not directory.is_dir():
        reason = "it is a file" if directory.exists() else "it does not exist"
        raise FileNotFoundError(
            f"{DATA_DIR_VARIABLE}={folder!r} is not a folder ({reason}); point it at the folder holding "
            f"{YELP_FILENAME}, or unset it to download the file"
        )
    path = directory / YELP_FILENAME
    if not path.is_file():
        raise FileNotFoundError(
            f"{DATA_DIR_VARIABLE}={folder!r} has no {YELP_FILENAME}; put the file there or unset the variable "
            "to download it"
        )
    return _verified(path)


def cache_folder() -> Path:
    """The folder where downloads are cached: ``$LIMETHEORY_CACHE_DIR``, else pooch's per-user cache."""
    import pooch

    folder = os.environ.get(CACHE_DIR_VARIABLE)
    return Path(folder).expanduser() if folder else Path(pooch.os_cache("limetheory"))


def _usable_cache(folder: Path) -> Path:
    """Create the cache folder if needed and check that the file can be written there."""
    advice = (
        f"set {CACHE_DIR_VARIABLE} to a writable folder, or download {YELP_FILENAME} yourself and set "
        f"{DATA_DIR_VARIABLE} to the folder that holds it"
    )
    if folder.exists() and not folder.is_dir():
        raise NotADirectoryError(f"the download cache {folder} exists but is not a folder; {advice}")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise PermissionError(
            f"cannot create the download cache {folder} ({type(error).__name__}: {error}); {advice}"
        ) from error
    if not os.access(folder, os.W_OK | os.X_OK):
        raise PermissionError(f"the download cache {folder} is not writable; {advice}")
    cached = folder / YELP_FILENAME
    if cached.exists() and not cached.is_file():
        raise IsADirectoryError(f"{cached} is in the way of the download (it is not a file); remove it, or {advice}")
    return folder


def _downloaded_copy() -> Path:
    import pooch
    import requests

    folder = _usable_cache(cache_folder())
    cached = folder / YELP_FILENAME
    stale = cached.is_file() and _readable_hash(cached) != YELP_SHA256
    try:
        fetched = pooch.retrieve(
            YELP_URL,
            known_hash=f"sha256:{YELP_SHA256}",
            fname=YELP_FILENAME,
            path=folder,
            progressbar=False,
            downloader=DOWNLOADER,
        )
    except ValueError as error:  # pooch: the downloaded file's hash differs (it deletes the download)
        raise ValueError(
            f"the file downloaded from {YELP_URL} is not the pinned one ({error}); it was discarded. The "
            f"download was probably truncated or altered: retry later. {_OFFLINE_ADVICE}"
        ) from error
    except (requests.exceptions.RequestException, OSError) as error:  # network failures (and other I/O)
        note = f" The cached copy {cached} is corrupt (its sha256 differs) and could not be replaced." if stale else ""
        raise ConnectionError(
            f"could not download {YELP_URL} ({type(error).__name__}: {error}).{note} {_OFFLINE_ADVICE}"
        ) from error
    return _verified(Path(fetched))


def yelp_reviews_path() -> Path:
    """Path of a checksum-verified copy of the paper's Yelp subset.

    ``$LIMETHEORY_DATA_DIR/positive_negative_reviews_yelp.csv`` when the variable is set (never falling
    back to anything else), otherwise a download cached by pooch in :func:`cache_folder` (a corrupt cached
    copy is downloaded again).

    Raises
    ------
    FileNotFoundError
        ``LIMETHEORY_DATA_DIR`` names no folder, or a folder without the file.
    ValueError
        A file (local, cached or downloaded) whose sha256 is not the pinned one.
    ConnectionError
        The download failed (no network); the message says how to work offline.
    PermissionError, NotADirectoryError, IsADirectoryError
        The cache folder cannot hold the download, or a file cannot be read.
    """
    folder = os.environ.get(DATA_DIR_VARIABLE)
    return _local_copy(folder) if folder else _downloaded_copy()


def load_yelp_reviews() -> pd.DataFrame:
    """The paper's 1000 Yelp reviews as a DataFrame with columns ``text`` and ``stars``.

    The file is the authors' ``dataset/positive_negative_reviews_yelp.csv`` at commit
    6f5f95cc (``|``-separated), verified against its sha256 wherever it comes from (see
    :func:`yelp_reviews_path` for the sources and the errors).

    Returns
    -------
    pandas.DataFrame
        1000 rows, columns ``text`` (str) and ``stars`` (int).

    Raises
    ------
    ValueError
        A file that fails its checksum or lacks the columns (see :func:`yelp_reviews_path`).

    Examples
    --------
    >>> reviews = load_yelp_reviews()  # LIMETHEORY_DATA_DIR, or the verified download in the user cache
    >>> reviews.shape, list(reviews.columns)
    ((1000, 2), ['text', 'stars'])
    """
    import pandas as pd

    frame = pd.read_csv(yelp_reviews_path(), sep="|")
    missing = {"text", "stars"} - set(frame.columns)
    if missing:
        raise ValueError(f"the Yelp file lacks the columns {sorted(missing)}")
    return frame[["text", "stars"]]
