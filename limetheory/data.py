"""The Yelp review subset used by the paper, fetched from the authors' repository and checksum-pinned."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pandas as pd

YELP_FILENAME = "positive_negative_reviews_yelp.csv"
YELP_COMMIT = "6f5f95ccade6331ccb39db4cec97a711c1937cc6"
YELP_URL = f"https://raw.githubusercontent.com/dmardaoui/lime_text_theory/{YELP_COMMIT}/dataset/{YELP_FILENAME}"
YELP_SHA256 = "29150a1a1903b5f3dbaa3a0387155815f4aa40b94a05e1d4398e7c957c0ebf13"
DATA_DIR_VARIABLE = "LIMETHEORY_DATA_DIR"


def sha256_of(path) -> str:
    """Hex sha256 digest of a file."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _verified(path: Path) -> Path:
    actual = sha256_of(path)
    if actual != YELP_SHA256:
        raise ValueError(
            f"{path} does not have the expected content: sha256 is {actual}, expected {YELP_SHA256}. "
            f"Replace it with {YELP_FILENAME} from the authors' repository at commit {YELP_COMMIT}."
        )
    return path


def _local_copy(folder: str) -> Path:
    directory = Path(folder).expanduser()
    if not directory.is_dir():
        raise FileNotFoundError(
            f"{DATA_DIR_VARIABLE}={folder!r} is not a folder; point it at the folder holding {YELP_FILENAME}"
        )
    path = directory / YELP_FILENAME
    if not path.is_file():
        raise FileNotFoundError(
            f"{DATA_DIR_VARIABLE}={folder!r} has no {YELP_FILENAME}; put the file there or unset the variable"
        )
    return _verified(path)


def _downloaded_copy() -> Path:
    import pooch

    try:
        fetched = pooch.retrieve(
            YELP_URL,
            known_hash=f"sha256:{YELP_SHA256}",
            fname=YELP_FILENAME,
            path=pooch.os_cache("limetheory"),
            progressbar=False,
        )
    except ValueError:  # pooch: the downloaded file's hash differs
        raise
    except Exception as error:  # network failures surface as requests/OSError subclasses
        raise ConnectionError(
            f"could not download {YELP_URL} ({type(error).__name__}: {error}). Without network, download "
            f"{YELP_FILENAME} elsewhere and set {DATA_DIR_VARIABLE} to the folder that holds it."
        ) from error
    return _verified(Path(fetched))


def yelp_reviews_path() -> Path:
    """Path of a checksum-verified copy of the paper's Yelp subset.

    ``$LIMETHEORY_DATA_DIR/positive_negative_reviews_yelp.csv`` when the variable is set
    (never falling back to anything else), otherwise a download cached by pooch.
    """
    folder = os.environ.get(DATA_DIR_VARIABLE)
    return _local_copy(folder) if folder else _downloaded_copy()


def load_yelp_reviews() -> pd.DataFrame:
    """The paper's 1000 Yelp reviews as a DataFrame with columns ``text`` and ``stars``.

    The file is the authors' ``dataset/positive_negative_reviews_yelp.csv`` at commit
    6f5f95cc (``|``-separated), verified against its sha256 wherever it comes from.
    """
    frame = pd.read_csv(yelp_reviews_path(), sep="|")
    missing = {"text", "stars"} - set(frame.columns)
    if missing:
        raise ValueError(f"the Yelp file lacks the columns {sorted(missing)}")
    return frame[["text", "stars"]]
