"""The paper in closed form: the sampling law, α, Σ and Σ⁻¹, β from conditional moments, formulas, linear models.

What it holds: LIME's sampling law (``sampling``, ``law``), the coefficients α, σ and the matrices Σ, Σ⁻¹
(``coefficients``), β from conditional moments and by enumeration (``explanation``), models that are formulas in
word indicators (``boolean``, ``characters``), the bandwidth sweep (``sweep``), linear models (``linear_approx``;
the exact route ``linear_exact``, with its steps in ``tfidf_model``, ``linear_quadrature``, ``subset_means``,
``linear_moments``, ``linear_adjoint``, ``linear_mixture`` and ``sizemixture``), Shapley values by size
(``shapley_sizes``), the limit of lime's feature selection and refit (``selection_limits``), sympy counterparts
(``symbolic``) and the paper's formulas exactly as printed (``printed``).

Who may import it: ``limetheory.pipelines``, ``limetheory.book`` and the top-level namespace.
What it may import: the root helpers (``limetheory._validation``, ``limetheory.units``) and its own modules; never
``engine``, ``pipelines`` or ``book`` (tests/test_module_boundaries.py).  ``printed`` lives here, not in the book,
because ``symbolic`` checks its closed forms against the formulas as the paper prints them.
"""
