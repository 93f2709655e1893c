"""limetheory: the closed forms of "An Analysis of LIME for Text Data", checked against lime."""

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
from .empirical import LimeSamples, capture_lime_samples, lime_explanations, local_dictionary
from .explanation import beta_enumerate, beta_from_gamma, beta_indicator_product
from .models import EXAMPLE_REVIEW_INDEX, fit_yelp_vectorizer, train_random_forest, word_indicator
from .plotting import theory_vs_practice
from .sampling import kernel_weights, prob_kept, psi, sample_masks
from .surrogate import normal_equations, weighted_ridge

__version__ = "0.1.0"

__all__ = [
    "EXAMPLE_REVIEW_INDEX",
    "fit_yelp_vectorizer",
    "train_random_forest",
    "word_indicator",
    "LimeSamples",
    "alpha",
    "alphas",
    "beta_enumerate",
    "beta_from_gamma",
    "beta_indicator_product",
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
    "weighted_ridge",
]
