"""The estimate: the limit of any model, unbiased, with standard errors, for the labels no exact route answered.

What it holds: the entry point ``limit_estimate.estimate_limit`` and its batches (``estimate_batches``,
``batch_sums``), the strata of the number of removed words (``strata``), exact control variates (``controls``),
the linked surrogate (``link_surrogate``), the plain stratified Monte Carlo estimate (``montecarlo``), the route's
choice of rows and budget (``estimate_route``) and the estimate for each label of a call (``labels``).
What it may import: ``limetheory.pipelines.reading``, ``theory``, ``engine`` and the root helpers (never ``routes``).
Who imports it: ``limetheory.pipelines.routing`` (explain) and the sub-wings built on it.
"""
