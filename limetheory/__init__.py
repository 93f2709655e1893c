"""limetheory: the closed forms of "An Analysis of LIME for Text Data", checked against lime."""

from .boolean import beta_boolean, indicator_polynomial, mask_function
from .classifiers import linear_tfidf_classifier, linear_tfidf_model, vocabulary_coefficients
from .coefficients import (
    alpha,
    alphas,
    normalization_constant,
    sigma_coefficients,
    sigma_eigenvalues,
    sigma_inverse,
    sigma_inverse_opnorm,
    sigma_matrix,
)
from .data import load_yelp_reviews
from .display import Equations, show_equations, significant
from .empirical import LimeSamples, capture_lime_samples, lime_explanations
from .explanation import (
    all_masks,
    beta_enumerate,
    beta_from_conditional_moments,
    beta_from_gamma,
    beta_indicator_product,
)
from .fast import FastLimeSamples, fast_lime_explanations, fast_lime_samples
from .leaves import beta_tree_model, conditional_moments_trees
from .linear_approx import beta_linear_approx
from .linear_exact import beta_linear_exact, conditional_moments_linear_exact, gamma_linear_exact
from .models import EXAMPLE_REVIEW_INDEX, constant_classifier, fit_yelp_vectorizer, train_random_forest, word_indicator
from .plotting import theory_vs_practice
from .prose import scientific
from .result import Explanation
from .routing import explain
from .sampling import kernel_weights, prob_kept, psi, sample_masks
from .shapley_sizes import shapley_enumerate, shapley_from_conditional_moments
from .shapley_values import ShapleyValues, shapley
from .spread import LimeSpread
from .surrogate import expected_lime_fit, normal_equations, weighted_ridge
from .sweep import CoefficientZero, beta_bandwidth_sweep, coefficient_zero
from .tokens import local_dictionary, perturbed_documents, tfidf_columns, tfidf_weights, word_columns
from .trees import presence_formula, tree_formula_for_document, tree_to_formula

__version__ = "0.1.0"

__all__ = [
    "explain",
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
    "EXAMPLE_REVIEW_INDEX",
    "fit_yelp_vectorizer",
    "train_random_forest",
    "word_indicator",
    "constant_classifier",
    "Equations",
    "show_equations",
    "significant",
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
    "scientific",
    "linear_tfidf_classifier",
    "linear_tfidf_model",
    "vocabulary_coefficients",
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
    "theory_vs_practice",
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
