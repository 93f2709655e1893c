"""Argument checks shared by the public functions (one clear ValueError each)."""

from __future__ import annotations

import numbers

import numpy as np


def check_int(value, name: str, *, minimum: int | None = None, maximum: int | None = None) -> int:
    """Return ``value`` as an int, or raise naming ``name`` and the allowed range."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {value!r}")
    value = int(value)
    if minimum is not None and value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    if maximum is not None and value > maximum:
        raise ValueError(f"{name} must be <= {maximum}, got {value}")
    return value


def check_nu(nu, name: str = "nu") -> float:
    """The bandwidth: a positive real number or ``np.inf`` (the large-bandwidth limit)."""
    if isinstance(nu, (bool, np.bool_)) or not isinstance(nu, numbers.Real):
        raise TypeError(f"{name} must be a positive real number or np.inf, got {nu!r}")
    nu = float(nu)
    if np.isnan(nu) or nu <= 0:
        raise ValueError(f"{name} must be > 0 (np.inf for the large-bandwidth limit), got {nu}")
    return nu


def check_positive_finite(value, name: str) -> float:
    """A finite real number > 0 (for lime's kernel width)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a positive real number, got {value!r}")
    value = float(value)
    if not np.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a finite number > 0, got {value}")
    return value


def check_text(text, name: str = "text") -> str:
    """A non-empty document with at least one word character."""
    if not isinstance(text, str):
        raise TypeError(f"{name} must be a str, got {type(text).__name__}")
    if not text.strip():
        raise ValueError(f"{name} must be a non-empty document, got {text!r}")
    return text


def check_d_invertible(value, name: str = "d") -> int:
    """A number of distinct words for which Sigma is invertible: an integer >= 2.

    For d = 1 LIME always removes the only word, so alpha_1 = 0 and Sigma is singular.
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {value!r}")
    value = int(value)
    if value < 2:
        raise ValueError(
            f"{name} must be >= 2, got {value}: with one distinct word LIME always removes it, "
            "so alpha_1 = 0 and Sigma is singular (c_1 = 0)"
        )
    return value


def check_bool(value, name: str) -> bool:
    """A flag: True or False (numpy booleans accepted)."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {value!r}")
    return bool(value)


def check_real(value, name: str, *, allow_inf: bool = False) -> float:
    """A real number (not NaN; +-inf only with ``allow_inf``)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {value!r}")
    value = float(value)
    if np.isnan(value) or (not allow_inf and np.isinf(value)):
        raise ValueError(f"{name} must be a finite real number, got {value}")
    return value


def as_float_array(value, name: str, *, ndim: int | None = None, allow_nonfinite: bool = False) -> np.ndarray:
    """``value`` as a float ndarray of the given number of dimensions, all entries finite (unless allowed).

    Raises TypeError for non-numeric content (strings, objects, complex numbers) and ValueError for the
    wrong number of dimensions or a NaN/inf entry, each naming ``name``.
    """
    if isinstance(value, (str, bytes)):
        raise TypeError(f"{name} must be an array of real numbers, got {type(value).__name__}")
    try:
        array = np.asarray(value)
    except (TypeError, ValueError) as error:  # ragged nested sequences
        raise ValueError(f"{name} must be a rectangular array of real numbers ({error})") from None
    if array.dtype == object or not (np.issubdtype(array.dtype, np.number) or array.dtype == np.bool_):
        raise TypeError(f"{name} must be an array of real numbers, got dtype {array.dtype}")
    if np.iscomplexobj(array):
        raise TypeError(f"{name} must be real, got complex dtype {array.dtype}")
    array = array.astype(float)
    if ndim is not None and array.ndim != ndim:
        raise ValueError(f"{name} must be a {ndim}-D array, got shape {array.shape}")
    if not allow_nonfinite and not np.isfinite(array).all():
        raise ValueError(f"{name} must be finite (no NaN or inf)")
    return array


def check_linear_model(lam, tfidf) -> tuple[np.ndarray, np.ndarray]:
    """A linear model on the normalised TF-IDF: its coefficients ``lam`` and the document's weights ``tfidf``.

    Returns ``(lam, tfidf / tfidf.max())`` as float arrays (phi is invariant under a rescaling of the weights).
    ``tfidf[j]`` = m_j v_j is 0 for a word the model cannot see; at least one must be positive, d >= 2.
    """
    lam = as_float_array(lam, "lam", ndim=1)
    tfidf = as_float_array(tfidf, "tfidf", ndim=1)
    if lam.shape != tfidf.shape:
        raise ValueError(
            f"lam and tfidf must have the same length (one entry per word), got {lam.size} and {tfidf.size}"
        )
    if lam.size < 2:
        raise ValueError(
            f"the document must have d >= 2 distinct words (Sigma is singular for d = 1), got d = {lam.size}"
        )
    if (tfidf < 0).any():
        raise ValueError(f"tfidf must be >= 0 (m_j v_j, or 0 for a word the model cannot see), got {tfidf.min()}")
    top = tfidf.max()
    if not top > 0:
        raise ValueError("tfidf must have a positive entry: a document the model cannot see at all has no phi")
    return lam, tfidf / top
