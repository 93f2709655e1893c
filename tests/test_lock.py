"""requirements.lock pins, to exact versions, everything requirements.txt asks for, within its ranges.

`make` and CI install with ``pip install --constraint requirements.lock -r requirements.txt``.  A requirement the
lock does not pin would be installed at its latest version (a clone would no longer reproduce the stored outputs),
and a pin outside a range of requirements.txt would make pip fail: both mean `make lock` was not run after
requirements.txt changed.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[1]
PIN = re.compile(r"(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)==(?P<version>[0-9][0-9A-Za-z.!+-]*)")


def parse_lock(text: str) -> dict[str, Version]:
    """Canonical name -> pinned version; raises ValueError on any line that is not a comment or name==version."""
    pins = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        match = PIN.fullmatch(line)
        if match is None:
            raise ValueError(f"line {number} is not an exact pin name==version: {raw!r}")
        version = Version(match["version"])
        if version.local is not None:  # e.g. 2.1.0+cpu: a build of one index, not on PyPI
            raise ValueError(f"line {number} pins a local version: {raw!r}")
        name = canonicalize_name(match["name"])
        if name in pins:
            raise ValueError(f"line {number} pins {name} a second time")
        pins[name] = version
    return pins


def requirements(text: str) -> list[Requirement]:
    """The requirements of a requirements.txt, without comments, options and the editable package itself."""
    out = []
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].strip()
        if line and not line.startswith("-"):
            out.append(Requirement(line))
    return out


@pytest.fixture(scope="module")
def pins():
    return parse_lock((ROOT / "requirements.lock").read_text(encoding="utf-8"))


def test_every_requirement_is_pinned_within_its_range(pins):
    wanted = requirements((ROOT / "requirements.txt").read_text(encoding="utf-8"))
    assert len(wanted) > 10  # (the package's own dependencies are all named in requirements.txt too)
    missing = sorted({str(r) for r in wanted if canonicalize_name(r.name) not in pins})
    assert not missing, f"not in requirements.lock (run `make lock`): {missing}"
    outside = sorted(
        f"{r} (locked {pins[canonicalize_name(r.name)]})"
        for r in wanted
        if not r.specifier.contains(pins[canonicalize_name(r.name)], prereleases=True)
    )
    assert not outside, f"locked outside the range of requirements.txt (run `make lock`): {outside}"


def test_the_lock_pins_neither_the_package_itself_nor_pip(pins):
    assert "limetheory" not in pins  # installed editable from the clone
    assert "pip" not in pins  # upgraded before the constrained install


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("numpy>=2\n", "not an exact pin"),
        ("-e .\n", "not an exact pin"),
        ("limetheory @ file:///work/main\n", "not an exact pin"),
        ("torch==2.13.0+cpu\n", "local version"),
        ("numpy==2.4.6\nNumPy==2.4.5\n", "second time"),
    ],
)
def test_parse_lock_refuses_what_is_not_a_portable_pin(text, message):
    with pytest.raises(ValueError, match=message):
        parse_lock(text)


def test_parse_lock_and_requirements_on_a_sample():
    pins = parse_lock("# header\n\nscikit_learn==1.9.1\nlime==0.2.0.1\n")
    assert pins == {"scikit-learn": Version("1.9.1"), "lime": Version("0.2.0.1")}
    wanted = requirements("# comment\nscikit-learn>=1.4  # why\n-e .\nnumpy>=2,<3\n")
    assert [str(r) for r in wanted] == ["scikit-learn>=1.4", "numpy<3,>=2"]
