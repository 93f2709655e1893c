"""limetheory.data: the checksum-pinned Yelp subset, the local-folder override and the download path (mocked)."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
from pathlib import Path

import numpy as np
import pooch
import pytest
import requests

import limetheory as lt
from limetheory import data as data_module
from limetheory.book import EXAMPLE_REVIEW_INDEX
from limetheory.data import DATA_DIR_VARIABLE, YELP_FILENAME, YELP_SHA256, load_yelp_reviews, sha256_of


@pytest.fixture(autouse=True)
def _no_cache_override(monkeypatch):
    """Tests choose their cache folder themselves (the user's LIMETHEORY_CACHE_DIR must not leak in)."""
    monkeypatch.delenv(data_module.CACHE_DIR_VARIABLE, raising=False)


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
    text = load_yelp_reviews()["text"][EXAMPLE_REVIEW_INDEX]
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


# ----------------------------------------------------------------------------- faults, through pooch's real logic
# pooch.retrieve runs for real below (hash checks, the "update" of a corrupt cached file, the temporary file);
# only its downloader is replaced, so nothing touches the network.

GOOD = b"text|stars\nlovely food|1\nawful service|0\n"
GOOD_SHA = hashlib.sha256(GOOD).hexdigest()


class FakeDownloader:
    """pooch downloader that writes ``payload`` (or raises ``failure``) and counts its calls."""

    def __init__(self, payload=GOOD, failure=None):
        self.payload, self.failure, self.calls = payload, failure, 0

    def __call__(self, url, output_file, pooch_instance, check_only=False):
        self.calls += 1
        if self.failure is not None:
            raise self.failure
        Path(output_file).write_bytes(self.payload)


@pytest.fixture
def offline_cache(monkeypatch, tmp_path):
    """A pinned hash for the synthetic file GOOD, an empty cache folder and no LIMETHEORY_DATA_DIR."""
    monkeypatch.delenv(DATA_DIR_VARIABLE, raising=False)
    monkeypatch.setattr(data_module, "YELP_SHA256", GOOD_SHA)
    cache = tmp_path / "cache"
    monkeypatch.setenv(data_module.CACHE_DIR_VARIABLE, str(cache))
    return cache


def _use(monkeypatch, downloader):
    monkeypatch.setattr(data_module, "DOWNLOADER", downloader)
    return downloader


def test_first_download_is_cached_and_reused(monkeypatch, offline_cache):
    downloader = _use(monkeypatch, FakeDownloader())
    frame = load_yelp_reviews()
    assert list(frame["text"]) == ["lovely food", "awful service"]
    assert (offline_cache / YELP_FILENAME).read_bytes() == GOOD
    load_yelp_reviews()
    assert downloader.calls == 1  # the second call finds a verified copy


@pytest.mark.parametrize("corrupt", [GOOD[:10], b"", GOOD.replace(b"lovely", b"lovelY"), b"<html>rate limited</html>"])
def test_corrupt_cached_copy_is_detected_and_downloaded_again(monkeypatch, offline_cache, corrupt):
    offline_cache.mkdir()
    (offline_cache / YELP_FILENAME).write_bytes(corrupt)
    downloader = _use(monkeypatch, FakeDownloader())
    assert load_yelp_reviews().shape == (2, 2)
    assert downloader.calls == 1
    assert (offline_cache / YELP_FILENAME).read_bytes() == GOOD


def test_corrupt_cached_copy_without_network_is_an_error_not_used(monkeypatch, offline_cache):
    offline_cache.mkdir()
    (offline_cache / YELP_FILENAME).write_bytes(GOOD[:10])
    _use(monkeypatch, FakeDownloader(failure=requests.exceptions.ConnectionError("no route to host")))
    with pytest.raises(ConnectionError) as info:
        load_yelp_reviews()
    message = str(info.value)
    assert "is corrupt" in message and str(offline_cache / YELP_FILENAME) in message
    assert DATA_DIR_VARIABLE in message and "no route to host" in message


def test_missing_file_and_no_network(monkeypatch, offline_cache):
    _use(monkeypatch, FakeDownloader(failure=requests.exceptions.ConnectionError("Name or service not known")))
    with pytest.raises(ConnectionError, match=rf"^could not download .*Without network, .* set {DATA_DIR_VARIABLE}"):
        load_yelp_reviews()
    assert not (offline_cache / YELP_FILENAME).exists()


@pytest.mark.parametrize("payload", [GOOD[:-5], GOOD + b"extra|1\n", b""])
def test_truncated_or_altered_download_is_discarded(monkeypatch, offline_cache, payload):
    downloader = _use(monkeypatch, FakeDownloader(payload=payload))
    with pytest.raises(ValueError, match=r"^the file downloaded from .* is not the pinned one .*discarded"):
        load_yelp_reviews()
    assert downloader.calls == 1
    assert not (offline_cache / YELP_FILENAME).exists()  # nothing half-written is left to be trusted later
    assert not [p for p in offline_cache.iterdir() if p.is_file()]


def test_cache_folder_that_is_a_file(monkeypatch, offline_cache):
    offline_cache.write_text("not a folder")
    downloader = _use(monkeypatch, FakeDownloader())
    with pytest.raises(
        NotADirectoryError, match=rf"download cache .* is not a folder; set {data_module.CACHE_DIR_VARIABLE}"
    ):
        load_yelp_reviews()
    assert downloader.calls == 0


def test_cache_folder_inside_a_file(monkeypatch, offline_cache, tmp_path):
    (tmp_path / "blocker").write_text("x")
    monkeypatch.setenv(data_module.CACHE_DIR_VARIABLE, str(tmp_path / "blocker" / "cache"))
    _use(monkeypatch, FakeDownloader())
    with pytest.raises(PermissionError, match=r"^cannot create the download cache .*blocker"):
        load_yelp_reviews()


def test_cache_folder_that_cannot_be_written(monkeypatch, offline_cache):
    # tests run as root, for whom chmod does not deny writing: simulate the permission check instead
    offline_cache.mkdir()
    real_access = os.access
    monkeypatch.setattr(
        data_module.os, "access", lambda path, mode: False if Path(path) == offline_cache else real_access(path, mode)
    )
    downloader = _use(monkeypatch, FakeDownloader())
    with pytest.raises(PermissionError, match=r"^the download cache .* is not writable; set LIMETHEORY_CACHE_DIR"):
        load_yelp_reviews()
    assert downloader.calls == 0


def test_cache_folder_that_cannot_be_created(monkeypatch, offline_cache):
    def refuse(self, *args, **kwargs):
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(Path, "mkdir", refuse)
    _use(monkeypatch, FakeDownloader())
    with pytest.raises(PermissionError, match=r"^cannot create the download cache .*Permission denied"):
        load_yelp_reviews()


def test_a_folder_in_place_of_the_cached_file(monkeypatch, offline_cache):
    (offline_cache / YELP_FILENAME).mkdir(parents=True)
    _use(monkeypatch, FakeDownloader())
    with pytest.raises(IsADirectoryError, match=r"is in the way of the download"):
        load_yelp_reviews()


def test_unreadable_local_file(monkeypatch, tmp_path):
    (tmp_path / YELP_FILENAME).write_bytes(GOOD)
    monkeypatch.setenv(DATA_DIR_VARIABLE, str(tmp_path))

    def refuse(path):
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(data_module, "sha256_of", refuse)
    with pytest.raises(PermissionError, match=r"^cannot read .*Permission denied.*make the file readable"):
        load_yelp_reviews()


def test_data_dir_set_never_downloads_even_when_the_file_is_bad(monkeypatch, tmp_path, offline_cache):
    (tmp_path / YELP_FILENAME).write_bytes(GOOD[:10])
    monkeypatch.setenv(DATA_DIR_VARIABLE, str(tmp_path))
    downloader = _use(monkeypatch, FakeDownloader())
    with pytest.raises(ValueError, match="does not have the expected content"):
        load_yelp_reviews()
    assert downloader.calls == 0 and not offline_cache.exists()


def test_data_dir_missing_folder_message_is_actionable(monkeypatch, tmp_path, offline_cache):
    monkeypatch.setenv(DATA_DIR_VARIABLE, str(tmp_path / "absent"))
    downloader = _use(monkeypatch, FakeDownloader())
    with pytest.raises(FileNotFoundError, match=r"is not a folder \(it does not exist\); point it at the folder"):
        load_yelp_reviews()
    assert downloader.calls == 0


def test_cache_folder_default_is_poochs(monkeypatch, tmp_path):
    monkeypatch.delenv(data_module.CACHE_DIR_VARIABLE, raising=False)
    monkeypatch.setattr(pooch, "os_cache", lambda name: tmp_path / "pooch" / name)
    assert data_module.cache_folder() == tmp_path / "pooch" / "limetheory"
    monkeypatch.setenv(data_module.CACHE_DIR_VARIABLE, "~/somewhere")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert data_module.cache_folder() == tmp_path / "somewhere"
