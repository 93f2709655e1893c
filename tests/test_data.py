"""limetheory.data: the checksum-pinned Yelp subset, the local-folder override and the download path (mocked)."""

from __future__ import annotations

import hashlib
import re
import shutil
from pathlib import Path

import numpy as np
import pooch
import pytest
import requests

import limetheory as lt
from limetheory import data as data_module
from limetheory.data import DATA_DIR_VARIABLE, YELP_FILENAME, YELP_SHA256, load_yelp_reviews, sha256_of


@pytest.fixture
def real_file(data_dir):
    path = Path(data_dir) / YELP_FILENAME
    if not path.is_file():
        pytest.skip(f"{path} is missing")
    return path


@pytest.fixture
def no_network(monkeypatch, tmp_path):
    """Make every pooch download fail as a network error would; record the calls."""
    calls = []

    def refuse(*args, **kwargs):
        calls.append((args, kwargs))
        raise requests.exceptions.ConnectionError("no network in the test suite")

    monkeypatch.setattr(pooch, "retrieve", refuse)
    monkeypatch.setattr(pooch, "os_cache", lambda name: tmp_path / "cache" / name)
    return calls


# ----------------------------------------------------------------------------- sha256_of


@pytest.mark.parametrize("size", [0, 1, 1000, (1 << 20) - 1, 1 << 20, (1 << 20) + 1, 5 * (1 << 19) + 7])
def test_sha256_of_matches_hashlib(tmp_path, size):
    payload = np.random.default_rng(size).integers(0, 256, size=size, dtype=np.uint8).tobytes()
    path = tmp_path / "blob.bin"
    path.write_bytes(payload)
    expected = hashlib.sha256(payload).hexdigest()
    assert sha256_of(path) == expected
    assert sha256_of(str(path)) == expected


def test_sha256_of_missing_file(tmp_path):
    with pytest.raises(FileNotFoundError):
        sha256_of(tmp_path / "absent")


# ----------------------------------------------------------------------------- the real file


def test_real_file_has_the_pinned_hash(real_file):
    assert hashlib.sha256(real_file.read_bytes()).hexdigest() == YELP_SHA256


def test_load_yelp_reviews_from_the_data_folder(real_file, monkeypatch):
    monkeypatch.setenv(DATA_DIR_VARIABLE, str(real_file.parent))
    frame = load_yelp_reviews()
    assert frame.shape == (1000, 2)
    assert list(frame.columns) == ["text", "stars"]
    assert set(frame["stars"].unique()) == {0, 1}
    assert (frame["stars"] == 1).sum() == 500
    assert all(isinstance(text, str) and text.strip() for text in frame["text"])
    assert data_module.yelp_reviews_path() == real_file


def test_example_review_has_the_documented_dictionary(real_file, monkeypatch):
    monkeypatch.setenv(DATA_DIR_VARIABLE, str(real_file.parent))
    text = load_yelp_reviews()["text"][lt.EXAMPLE_REVIEW_INDEX]
    words = lt.local_dictionary(text)
    assert len(words) == 29
    assert {"food", "about", "Everything", "bad", "character"} <= set(words)


def test_a_copy_in_another_folder_is_accepted(real_file, monkeypatch, tmp_path, no_network):
    shutil.copy(real_file, tmp_path / YELP_FILENAME)
    monkeypatch.setenv(DATA_DIR_VARIABLE, str(tmp_path))
    assert load_yelp_reviews().shape == (1000, 2)
    assert not no_network  # the variable is set: no download is attempted


def test_data_dir_with_user_home(monkeypatch, tmp_path, real_file):
    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / "yelp").mkdir()
    shutil.copy(real_file, tmp_path / "yelp" / YELP_FILENAME)
    monkeypatch.setenv(DATA_DIR_VARIABLE, "~/yelp")
    assert data_module.yelp_reviews_path() == tmp_path / "yelp" / YELP_FILENAME


# ----------------------------------------------------------------------------- a corrupted local copy


def _expect_rejection(monkeypatch, folder: Path, payload: bytes, no_network):
    (folder / YELP_FILENAME).write_bytes(payload)
    monkeypatch.setenv(DATA_DIR_VARIABLE, str(folder))
    with pytest.raises(ValueError) as info:
        load_yelp_reviews()
    message = str(info.value)
    assert str(folder / YELP_FILENAME) in message
    assert hashlib.sha256(payload).hexdigest() in message
    assert YELP_SHA256 in message
    assert not no_network  # never falls back to a download


def test_foreign_file_is_rejected_with_both_hashes(monkeypatch, tmp_path, no_network):
    _expect_rejection(monkeypatch, tmp_path, b"text|stars\nnot the file|1\n", no_network)


def test_empty_file_is_rejected(monkeypatch, tmp_path, no_network):
    _expect_rejection(monkeypatch, tmp_path, b"", no_network)


def test_truncated_copy_is_rejected_with_both_hashes(monkeypatch, tmp_path, no_network, real_file):
    _expect_rejection(monkeypatch, tmp_path, real_file.read_bytes()[:5000], no_network)


def test_corrupted_copy_with_one_flipped_byte(monkeypatch, tmp_path, real_file):
    payload = bytearray(real_file.read_bytes())
    payload[len(payload) // 2] ^= 0x01
    (tmp_path / YELP_FILENAME).write_bytes(bytes(payload))
    monkeypatch.setenv(DATA_DIR_VARIABLE, str(tmp_path))
    with pytest.raises(ValueError, match=re.escape(hashlib.sha256(bytes(payload)).hexdigest())):
        load_yelp_reviews()


# ----------------------------------------------------------------------------- missing folder or file


def test_missing_folder(monkeypatch, tmp_path, no_network):
    monkeypatch.setenv(DATA_DIR_VARIABLE, str(tmp_path / "nowhere"))
    with pytest.raises(FileNotFoundError, match=rf"^{DATA_DIR_VARIABLE}=.*nowhere.* is not a folder"):
        load_yelp_reviews()
    assert not no_network


def test_variable_naming_a_file_instead_of_a_folder(monkeypatch, tmp_path, no_network):
    (tmp_path / YELP_FILENAME).write_text("text|stars\n")
    monkeypatch.setenv(DATA_DIR_VARIABLE, str(tmp_path / YELP_FILENAME))
    with pytest.raises(FileNotFoundError, match=rf"^{DATA_DIR_VARIABLE}=.* is not a folder"):
        load_yelp_reviews()


def test_missing_file(monkeypatch, tmp_path, no_network):
    (tmp_path / "other.csv").write_text("x")
    monkeypatch.setenv(DATA_DIR_VARIABLE, str(tmp_path))
    with pytest.raises(FileNotFoundError, match=rf"^{DATA_DIR_VARIABLE}=.* has no {re.escape(YELP_FILENAME)}"):
        load_yelp_reviews()
    assert not no_network


# ----------------------------------------------------------------------------- the download path (mocked)


@pytest.mark.parametrize(
    "failure",
    [
        requests.exceptions.ConnectionError("Max retries exceeded"),
        requests.exceptions.Timeout("timed out"),
        OSError("Network is unreachable"),
        ConnectionRefusedError("refused"),
    ],
)
def test_download_failure_names_the_variable(monkeypatch, tmp_path, failure):
    monkeypatch.delenv(DATA_DIR_VARIABLE, raising=False)
    monkeypatch.setattr(pooch, "os_cache", lambda name: tmp_path / name)

    def fail(*args, **kwargs):
        raise failure

    monkeypatch.setattr(pooch, "retrieve", fail)
    with pytest.raises(ConnectionError, match=DATA_DIR_VARIABLE) as info:
        load_yelp_reviews()
    assert info.value.__cause__ is failure
    assert data_module.YELP_URL in str(info.value)
    assert type(failure).__name__ in str(info.value)


def test_empty_variable_means_unset(monkeypatch, no_network):
    monkeypatch.setenv(DATA_DIR_VARIABLE, "")
    with pytest.raises(ConnectionError, match=DATA_DIR_VARIABLE):
        load_yelp_reviews()
    assert len(no_network) == 1


def test_download_asks_pooch_for_the_pinned_file(monkeypatch, no_network):
    monkeypatch.delenv(DATA_DIR_VARIABLE, raising=False)
    with pytest.raises(ConnectionError):
        load_yelp_reviews()
    ((args, kwargs),) = no_network
    url = args[0] if args else kwargs["url"]
    assert url.endswith(f"/{data_module.YELP_COMMIT}/dataset/{YELP_FILENAME}")
    assert url.startswith("https://")
    assert kwargs["known_hash"] == f"sha256:{YELP_SHA256}"


def test_pooch_hash_mismatch_propagates_as_value_error(monkeypatch, tmp_path):
    monkeypatch.delenv(DATA_DIR_VARIABLE, raising=False)
    monkeypatch.setattr(pooch, "os_cache", lambda name: tmp_path / name)

    def mismatch(*args, **kwargs):
        raise ValueError("SHA256 hash of downloaded file does not match the known hash")

    monkeypatch.setattr(pooch, "retrieve", mismatch)
    with pytest.raises(ValueError, match="does not match the known hash"):
        load_yelp_reviews()


def test_downloaded_file_is_verified_again(monkeypatch, tmp_path):
    monkeypatch.delenv(DATA_DIR_VARIABLE, raising=False)
    bad = tmp_path / YELP_FILENAME
    bad.write_text("text|stars\nhello|1\n")
    monkeypatch.setattr(pooch, "os_cache", lambda name: tmp_path / name)
    monkeypatch.setattr(pooch, "retrieve", lambda *args, **kwargs: str(bad))
    with pytest.raises(ValueError, match=re.escape(YELP_SHA256)):
        load_yelp_reviews()


def test_successful_download_is_loaded(monkeypatch, tmp_path, real_file):
    monkeypatch.delenv(DATA_DIR_VARIABLE, raising=False)
    cached = tmp_path / YELP_FILENAME
    shutil.copy(real_file, cached)
    monkeypatch.setattr(pooch, "os_cache", lambda name: tmp_path / name)
    monkeypatch.setattr(pooch, "retrieve", lambda *args, **kwargs: str(cached))
    frame = load_yelp_reviews()
    assert frame.shape == (1000, 2)


def test_missing_columns_are_reported(monkeypatch, tmp_path):
    path = tmp_path / YELP_FILENAME
    path.write_text("review|rating\ngood|1\n")
    monkeypatch.setattr(data_module, "YELP_SHA256", hashlib.sha256(path.read_bytes()).hexdigest())
    monkeypatch.setenv(DATA_DIR_VARIABLE, str(tmp_path))
    with pytest.raises(ValueError, match=r"lacks the columns \['stars', 'text'\]"):
        load_yelp_reviews()


def test_public_names_are_reexported():
    assert lt.load_yelp_reviews is load_yelp_reviews
