"""limetheory: the closed forms of "An Analysis of LIME for Text Data", checked against lime."""

from .data import load_yelp_reviews
from .engine.empirical import LimeSamples, capture_lime_samples, lime_explanations
from .engine.fast import FastLimeSamples, fast_lime_explanations, fast_lime_samples
from .engine.surrogate import expected_lime_fit, normal_equations, weighted_ridge
from .engine.tokens import local_dictionary, perturbed_documents, tfidf_columns, tfidf_weights, word_columns
from .pipelines.corpora.corpus import explain_many
from .pipelines.corpora.pick import explanation_matrix, global_importance, refit_limit, submodular_pick
from .pipelines.dropin.explainer import LimeTextExplainer
from .pipelines.results.result import Explanation
from .pipelines.results.spread import LimeSpread
from .pipelines.routes.leaves import beta_tree_model, conditional_moments_trees
from .pipelines.routes.trees import presence_formula, tree_formula_for_document, tree_to_formula
from .pipelines.routing import explain
from .pipelines.shapley_values.exact import ShapleyValues, shapley
from .theory.boolean import beta_boolean, indicator_polynomial, mask_function
from .theory.coefficients import (
    alpha,
    alphas,
    normalization_constant,
    sigma_coefficients,
    sigma_eigenvalues,
    sigma_inverse,
    sigma_inverse_opnorm,
    sigma_matrix,
)
from .theory.explanation import (
    all_masks,
    beta_enumerate,
    beta_from_conditional_moments,
    beta_from_gamma,
    beta_indicator_product,
)
from .theory.linear.linear_approx import beta_linear_approx
from .theory.linear.linear_exact import beta_linear_exact, conditional_moments_linear_exact, gamma_linear_exact
from .theory.sampling import kernel_weights, prob_kept, psi, sample_masks
from .theory.selection_limits import SelectionLimit, SelectionProbability, lime_selection_limit, selection_probability
from .theory.shapley_sizes import shapley_enumerate, shapley_from_conditional_moments
from .theory.sweep import CoefficientZero, beta_bandwidth_sweep, coefficient_zero

__version__ = "0.1.0"

__all__ = [
    "explain",
    "LimeTextExplainer",
    "explain_many",
    "submodular_pick",
    "global_importance",
    "explanation_matrix",
    "refit_limit",
    "lime_selection_limit",
    "selection_probability",
    "SelectionLimit",
    "SelectionProbability",
    "Explanation",
    "shapley",
    "ShapleyValues",
    "shapley_enumerate",
    "shapley_from_conditional_moments",
    "LimeSpread",
    "beta_boolean",
    "indicator_polynomial",
    "mask_function",
    "presence_formula",
    "tree_formula_for_document",
    "tree_to_formula",
    "conditional_moments_trees",
    "beta_tree_model",
    "LimeSamples",
    "alpha",
    "alphas",
    "beta_enumerate",
    "beta_from_conditional_moments",
    "beta_from_gamma",
    "beta_indicator_product",
    "beta_linear_approx",
    "beta_linear_exact",
    "gamma_linear_exact",
    "conditional_moments_linear_exact",
    "FastLimeSamples",
    "fast_lime_explanations",
    "fast_lime_samples",
    "capture_lime_samples",
    "kernel_weights",
    "lime_explanations",
    "load_yelp_reviews",
    "local_dictionary",
    "normal_equations",
    "normalization_constant",
    "prob_kept",
    "psi",
    "sample_masks",
    "sigma_coefficients",
    "sigma_eigenvalues",
    "sigma_inverse_opnorm",
    "sigma_inverse",
    "sigma_matrix",
    "tfidf_columns",
    "tfidf_weights",
    "weighted_ridge",
    "all_masks",
    "perturbed_documents",
    "word_columns",
    "expected_lime_fit",
    "CoefficientZero",
    "beta_bandwidth_sweep",
    "coefficient_zero",
]
