"""The exact linear route: β of a model linear in lime's TF-IDF (or count) features, at any bandwidth.

What it holds: the entry points (``linear_exact``: beta_linear_exact, gamma_linear_exact,
conditional_moments_linear_exact), the model's TF-IDF of a perturbed document (``tfidf_model``), the quadrature over
the removed words' sum (``linear_quadrature``), the means over subsets of a size (``subset_means``, compiled), the
moments by size (``linear_moments``), β's sums for the words of shared columns by reverse mode (``linear_adjoint``,
compiled), β for a corpus's chunk of documents (``linear_chunk``), the mixture over sizes (``linear_mixture``,
``sizemixture``), the paper's large-bandwidth approximation (``linear_approx``), and the moments of the model's
powers (``linear_powers``: the estimate's exact controls for a logistic regression's probabilities).
What it may import: the rest of ``limetheory.theory`` and the root helpers (never ``engine`` or ``pipelines``).
Who imports it: ``limetheory.pipelines`` (the linear route and the linked reading), the namespace and the chapters.
"""
