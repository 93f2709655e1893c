"""The exact linear route: a pipeline linear in its vectorizer's columns, read through its decision function.

The reading (:class:`~limetheory.pipelines.reading.pipeline_reading.LinearReading`) must reproduce the pipeline on
the check masks that :func:`~limetheory.pipelines.reading.document.read_document` scored before its β
(:func:`limetheory.beta_linear_exact`) is trusted.
"""

from __future__ import annotations

from ..reading.pipeline_reading import LinearReading
from .protocol import Route, RouteResult, RouteUnavailable


class LinearRoute(Route):
    """Exact β of a pipeline linear in the columns of a Count, Tfidf or Hashing vectorizer (or a union of them)."""

    name = "linear"

    def unavailable(self, document):
        """See :meth:`Route.unavailable`."""
        if document.reader.pipeline is None:
            return "a classifier_fn is read through its outputs only"
        return None

    def solve(self, document, label, call):
        """See :meth:`Route.solve`."""
        reader = document.reader
        reading = LinearReading(
            reader.pipeline, reader.pipeline.steps[0][1], document.text, reader.output, label, document.mode
        )
        if document.truth is None:  # the reading above refuses every model whose check masks were not scored
            raise RouteUnavailable(f"the output {reader.output!r} is not read as linear")
        masks, outputs = document.truth
        reading.check(masks, outputs[:, label])
        return RouteResult(self.name, reading.beta(call.nu), reading)
