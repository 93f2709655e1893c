"""lime reproduced: tokenisation, the vectorizer's view of a perturbed document, the fast engine, ridge, runs of lime.

What it holds: lime's tokens and the TF-IDF columns of its perturbed documents (``tokens``, their counts from the
masks in ``kept_counts``), which columns are functions of lime's kept words (``presence``), feature selection and
ridge as lime computes them (``selection``, ``ridge``), the weighted least squares of the surrogate (``surrogate``),
the fast replica of lime's runs (``fast``, its sampler ``lime_sampler`` with lime's masks replayed from the Mersenne
Twister's words in ``mt_masks``, and lime's other text settings in ``lime_documents``) and the capture of real lime
runs (``empirical``).

Who may import it: ``limetheory.pipelines``, ``limetheory.book`` and the top-level namespace.
What it may import: the root helpers (``limetheory._validation``, ``limetheory.units``) and its own modules; never
``theory``, ``pipelines`` or ``book`` (tests/test_module_boundaries.py).  ``presence`` lives here, not with the
pipelines, because it is lime's perturbation seen through a vectorizer and needs nothing but ``tokens``.
"""
