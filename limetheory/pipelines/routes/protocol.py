"""The protocol every exact route follows, and the loop that takes the first route that applies.

A route answers two questions about a :class:`~limetheory.pipelines.reading.document.DocumentReading`: does it
apply, and if not, why (:meth:`Route.unavailable`, cheap, before any work; :meth:`Route.solve` may still find a
reason and raise :class:`RouteUnavailable` with it), and what are its β and its model of the masks
(:meth:`Route.solve` returns a :class:`RouteResult`).  :func:`first_route` tries routes in order for one label.
"""

from __future__ import annotations

import contextlib
import re
from dataclasses import dataclass

import numpy as np

from ..._validation import seconds_text, work_limit
from ..reading.pipeline_reading import RouteUnavailable

__all__ = ["Route", "RouteResult", "RouteUnavailable", "first_route", "work_note"]


@dataclass(frozen=True)
class RouteResult:
    """An exact route's answer for one label.

    Attributes
    ----------
    method : str
        The route's name.
    beta : ndarray, shape (d + 1,)
        The limit, intercept first.
    model_of_masks : callable
        Masks (m, d) -> the model's output on them (what the explanation's ``mask_fn`` is).
    sample : MaskSample or None
        The masks the route scored, when it scored all of them (enumeration).
    """

    method: str
    beta: np.ndarray
    model_of_masks: object
    sample: object = None


class Route:
    """One exact route of :func:`limetheory.explain`: a name, a cheap applicability test and the computation."""

    #: the route's name, as ``method=`` names it and ``Explanation.method`` reports it
    name = ""
    #: whether ``max_work`` bounds the route (enumeration's cost is bounded by its d <= 14 instead)
    bounded_by_max_work = True

    def unavailable(self, document):
        """Why the route cannot apply to ``document`` before any work (a short reason), or None."""
        return None

    def solve(self, document, label, call):
        """The :class:`RouteResult` for ``label``; RouteUnavailable with the reason where the route finds none."""
        raise NotImplementedError


def work_note(error, name):
    """A refusal for work, with the estimate and the ``max_work`` that runs the route anyway."""
    message = str(error)
    found = re.search(r"costs about ([0-9.]+e[+-]?[0-9]+|[0-9.]+) floating-point", message)
    if found is None:
        return message
    flops = float(found.group(1))
    return (
        f"{message}; explain(..., method={name!r}, max_work={flops:.2g}) computes it exactly "
        f"(about {seconds_text(flops)})"
    )


def first_route(routes, document, label, call):
    """(the first route's :class:`RouteResult` for ``label``, or None; the reasons of the routes that did not apply).

    A route above the work limit (``call.max_work``) gives way with a note of its time and the ``max_work`` that
    runs it; a route whose result is not finite gives way too.
    """
    reasons = []
    for route in routes:
        why = route.unavailable(document)
        if why is not None:
            reasons.append(f"{route.name}: {why}")
            continue
        bounded = route.bounded_by_max_work and call.max_work is not None
        try:
            with work_limit(call.max_work) if bounded else contextlib.nullcontext():
                result = route.solve(document, label, call)
        except RouteUnavailable as why:
            reasons.append(f"{route.name}: {why}")
            continue
        except ValueError as error:  # a closed route above the work or memory limit: the estimate answers
            reasons.append(f"{route.name}: {work_note(error, route.name)}")
            continue
        if not np.isfinite(result.beta).all():
            reasons.append(f"{route.name}: its result is not finite")
            continue
        return result, reasons
    return None, reasons
