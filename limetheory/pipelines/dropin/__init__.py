"""A drop-in for lime 0.2.0.1's ``LimeTextExplainer``: lime's own random run replayed faster, or its limit.

What it holds: the class (``explainer``), lime's neighbourhood of one call replayed from its ``RandomState``
(``neighbourhood``) and lime's selection and refit on it (``surrogate_fit``).
What it may import: ``limetheory.engine``, ``limetheory.theory`` and the root helpers; ``limetheory.pipelines.routing``
only inside ``LimeTextExplainer(limit=True)``'s call, for ``explain``.
Who imports it: the top-level namespace (``limetheory.LimeTextExplainer``, from ``explainer``).
"""
