"""One Python floor, true everywhere: the oldest Python that can install the lock is the one the project states.

`make` installs the exact versions of requirements.lock.  Each pinned distribution declares the Pythons it
supports (its ``Requires-Python``); the floor of the lock is the highest of their lower bounds.  pyproject's
``requires-python``, the README and the page *Running the chapters* must state that floor: a reader on an older
Python would otherwise meet a failed install instead of a stated requirement.
"""

from __future__ import annotations

import re
from importlib import metadata
from pathlib import Path

import pytest
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import Version
from test_lock import parse_lock

ROOT = Path(__file__).resolve().parents[1]


def floor_of(specifier: str) -> Version | None:
    """The lowest Python a ``Requires-Python`` specifier admits (its greatest ``>=`` or ``>`` bound), or None."""
    bounds = [Version(s.version) for s in SpecifierSet(specifier) if s.operator in (">=", ">")]
    return max(bounds, default=None)


def lock_floor() -> tuple[Version, list[str]]:
    """The highest lower bound over the locked distributions installed here at their locked versions."""
    pins = parse_lock((ROOT / "requirements.lock").read_text(encoding="utf-8"))
    installed = {canonicalize_name(d.metadata["Name"]): d for d in metadata.distributions()}
    floors = {}
    for name, version in pins.items():
        dist = installed.get(name)
        if dist is None or Version(dist.version) != version:
            continue  # not installed at the pinned version (make test LOCK= installs the latest)
        requires = dist.metadata.get("Requires-Python")
        low = floor_of(requires) if requires else None
        if low is not None:
            floors[name] = low
    if len(floors) < 20:
        pytest.skip("the venv was not installed from requirements.lock (make test LOCK=)")
    top = max(floors.values())
    return top, sorted(name for name, low in floors.items() if low == top)


def minor(version: Version) -> str:
    return f"{version.major}.{version.minor}"


def test_floor_of_reads_lower_bounds():
    assert floor_of(">=3.11") == Version("3.11")
    assert floor_of(">=3.8,!=3.9.0,<4") == Version("3.8")
    assert floor_of("<4") is None


def test_pyproject_states_the_floor_of_the_lock():
    floor, which = lock_floor()
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    stated = re.search(r'^requires-python = ">=([0-9.]+)"', text, re.MULTILINE)
    assert stated is not None
    assert Version(stated[1]) == Version(minor(floor)), (
        f"requires-python is >={stated[1]} but the lock needs Python {minor(floor)} ({', '.join(which[:5])})"
    )


@pytest.mark.parametrize("page", ["README.md", "book/running.md"])
def test_the_prose_states_the_floor_of_the_lock(page):
    floor, _ = lock_floor()
    text = (ROOT / page).read_text(encoding="utf-8")
    stated = set(re.findall(r"(3\.[0-9]+) or newer", text))
    assert stated == {minor(floor)}, f"{page} states Python {sorted(stated)} or newer; the lock needs {minor(floor)}"
