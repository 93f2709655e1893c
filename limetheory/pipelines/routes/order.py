"""The exact routes in the order :func:`limetheory.explain` tries them, as new route objects for one call."""

from __future__ import annotations

from .enumeration import EnumerationRoute
from .linear_route import LinearRoute
from .tree_route import TreeRoute

#: the exact routes in the order "auto" tries them
EXACT_ROUTES = ("linear", "trees", "enumeration")


def routes_for(method):
    """New route objects for ``method``: every exact route in order for "auto", a named one alone, else none."""
    make = {"linear": LinearRoute, "trees": TreeRoute, "enumeration": EnumerationRoute}
    names = EXACT_ROUTES if method == "auto" else tuple(name for name in (method,) if name in make)
    return [make[name]() for name in names]
