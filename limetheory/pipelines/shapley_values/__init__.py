"""Shapley values: the exact Shapley values of a model on a document's words, lime's call and routes reused.

What it holds: ``shapley`` and ``ShapleyValues`` (``exact``).
What it may import: ``limetheory.pipelines.routing`` and the sub-wings below it, ``theory``, ``engine`` and the
root helpers (never ``corpora`` or ``dropin``).
Who imports it: the namespace.
"""
