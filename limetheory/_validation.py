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
