"""Bad input, one case at a time: every public function refuses it with a TypeError or ValueError naming the
argument and what is allowed (checked by the start of the message).

Cases are grouped by module; each is (id, call, exception, regex).  The calls are thunks so that nothing runs at
collection time.  Nothing here runs lime beyond its first batch of a few samples.
"""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp
from sklearn.feature_extraction.text import TfidfVectorizer

import limetheory as lt
import limetheory.book as book
from limetheory.book import (
    constant_classifier,
    fit_yelp_vectorizer,
    theory_vs_practice,
    train_random_forest,
    word_indicator,
    word_indicator_rows,
)
from limetheory.theory import symbolic as sy
from limetheory.theory.explanation import all_masks, beta_from_weighted_moments
from limetheory.theory.law import weighted_law

NAN, INF = float("nan"), float("inf")
TEXT = "good food, bad service"


def classifier(documents):
    """Two columns: 1 - P(good), P(good), with P(good) = 1 when the word good is kept."""
    good = np.array(["good" in doc for doc in documents], dtype=float)
    return np.column_stack([1 - good, good])


def vectorizer():
    return fit_yelp_vectorizer(["good food", "bad service", "slow staff"])


def axes():
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    plt.close(fig)
    return ax


# The bandwidth and the number of words take the same checks in every function.
NU_CASES = [
    ("nu=0", 0, ValueError, "^nu must be > 0"),
    ("nu<0", -0.5, ValueError, "^nu must be > 0"),
    ("nu=nan", NAN, ValueError, "^nu must be > 0"),
    ("nu=-inf", -INF, ValueError, "^nu must be > 0"),
    ("nu=str", "0.25", TypeError, "^nu must be a positive real number"),
    ("nu=None", None, TypeError, "^nu must be a positive real number"),
    ("nu=bool", True, TypeError, "^nu must be a positive real number"),
    ("nu=complex", 0.25j, TypeError, "^nu must be a positive real number"),
]
D_CASES = [
    ("d=float", 3.0, TypeError, "^d must be an integer"),
    ("d=str", "3", TypeError, "^d must be an integer"),
    ("d=None", None, TypeError, "^d must be an integer"),
    ("d=bool", True, TypeError, "^d must be an integer"),
    ("d=-1", -1, ValueError, "^d must be >= "),
    ("d=0", 0, ValueError, "^d must be >= "),
]
SIGMA_FUNCTIONS = {
    "normalization_constant": lt.normalization_constant,
    "sigma_coefficients": lt.sigma_coefficients,
    "sigma_eigenvalues": lt.sigma_eigenvalues,
    "sigma_inverse_opnorm": lt.sigma_inverse_opnorm,
    "sigma_inverse": lt.sigma_inverse,
    "sigma_matrix": lt.sigma_matrix,
    "weighted_law": weighted_law,
    "kernel_weights": lt.kernel_weights,
    "alphas": lt.alphas,
    "alpha(p=0)": lambda d, nu: lt.alpha(0, d, nu=nu),
    "beta_indicator_product(J=())": lambda d, nu: lt.beta_indicator_product((), d, nu=nu),
    "beta_enumerate(f=z_0)": lambda d, nu: lt.beta_enumerate(lambda z: z[:, 0], d, nu=nu),
}


def _cases():
    cases = []
    # --------------------------------------------------------------------- shared d and nu checks
    for name, function in SIGMA_FUNCTIONS.items():
        for label, nu, error, pattern in NU_CASES:
            cases.append((f"{name}-{label}", lambda f=function, nu=nu: f(3, nu=nu), error, pattern))
        for label, d, error, pattern in D_CASES:
            cases.append((f"{name}-{label}", lambda f=function, d=d: f(d, nu=0.25), error, pattern))
    singular = r"^d must be >= 2, got 1: .*Sigma is singular"
    for name in (
        "normalization_constant",
        "sigma_coefficients",
        "sigma_eigenvalues",
        "sigma_inverse_opnorm",
        "sigma_inverse",
        "weighted_law",
        "beta_indicator_product(J=())",
        "beta_enumerate(f=z_0)",
    ):
        cases.append((f"{name}-d=1", lambda f=SIGMA_FUNCTIONS[name]: f(1, nu=0.25), ValueError, singular))

    # --------------------------------------------------------------------- sampling
    cases += [
        ("psi-t>1", lambda: lt.psi(1.5, nu=0.25), ValueError, r"^t must lie in \[0, 1\]"),
        ("psi-t<0", lambda: lt.psi([-0.1, 0.5], nu=0.25), ValueError, r"^t must lie in \[0, 1\]"),
        ("psi-t=nan", lambda: lt.psi([0.5, NAN], nu=0.25), ValueError, r"^t must lie in \[0, 1\]"),
        ("psi-t=str", lambda: lt.psi("half", nu=0.25), TypeError, "^t must be an array of real numbers"),
        ("psi-t=None", lambda: lt.psi(None, nu=0.25), TypeError, "^t must be an array of real numbers"),
        ("psi-t=complex", lambda: lt.psi(0.5j, nu=0.25), TypeError, "^t must be real"),
        ("psi-nu=0", lambda: lt.psi(0.5, nu=0), ValueError, "^nu must be > 0"),
        ("prob_kept-p>d", lambda: lt.prob_kept(4, 3), ValueError, "^p must be <= 3"),
        ("prob_kept-p<0", lambda: lt.prob_kept(-1, 3), ValueError, "^p must be >= 0"),
        ("prob_kept-s=0", lambda: lt.prob_kept(1, 3, 0), ValueError, "^s must be >= 1"),
        ("prob_kept-s>d", lambda: lt.prob_kept(1, 3, 4), ValueError, "^s must be <= 3"),
        ("prob_kept-s=float", lambda: lt.prob_kept(1, 3, 1.0), TypeError, "^s must be an integer"),
        ("prob_kept-d=0", lambda: lt.prob_kept(0, 0), ValueError, "^d must be >= 1"),
        ("sample_masks-n=0", lambda: lt.sample_masks(3, 0, np.random.default_rng(0)), ValueError, "^n must be >= 1"),
        ("sample_masks-n=float", lambda: lt.sample_masks(3, 2.0, np.random.default_rng(0)), TypeError, "^n must be"),
        ("sample_masks-d=0", lambda: lt.sample_masks(0, 5, np.random.default_rng(0)), ValueError, "^d must be >= 1"),
        ("sample_masks-rng=int", lambda: lt.sample_masks(3, 5, 0), TypeError, "^rng must be a numpy.random.Generator"),
        (
            "sample_masks-rng=RandomState",
            lambda: lt.sample_masks(3, 5, np.random.RandomState(0)),
            TypeError,
            "^rng must be a numpy.random.Generator",
        ),
    ]

    # --------------------------------------------------------------------- coefficients
    cases += [
        ("alpha-p>d", lambda: lt.alpha(3, 2, nu=0.25), ValueError, "^p must be <= 2"),
        ("alpha-p<0", lambda: lt.alpha(-1, 2, nu=0.25), ValueError, "^p must be >= 0"),
        ("alpha-p=float", lambda: lt.alpha(1.0, 2, nu=0.25), TypeError, "^p must be an integer"),
        ("alpha-log=str", lambda: lt.alpha(1, 2, nu=0.25, log="yes"), TypeError, "^log must be True or False"),
        ("alphas-p_max>d", lambda: lt.alphas(2, nu=0.25, p_max=3), ValueError, "^p_max must be <= 2"),
        ("alphas-p_max<0", lambda: lt.alphas(2, nu=0.25, p_max=-1), ValueError, "^p_max must be >= 0"),
        ("alphas-log=1", lambda: lt.alphas(2, nu=0.25, log=1), TypeError, "^log must be True or False"),
        ("c_d-log=None", lambda: lt.normalization_constant(3, nu=0.25, log=None), TypeError, "^log must be True or"),
        ("eigenvalues-log=0", lambda: lt.sigma_eigenvalues(3, nu=0.25, log=0), TypeError, "^log must be True or"),
        ("opnorm-log=str", lambda: lt.sigma_inverse_opnorm(3, nu=0.25, log="no"), TypeError, "^log must be True or"),
    ]

    # --------------------------------------------------------------------- explanation
    z3 = np.zeros((3, 3))
    cases += [
        ("beta_from_gamma-short", lambda: lt.beta_from_gamma(np.zeros(3), 3, nu=0.25), ValueError, r"^gamma must have"),
        (
            "beta_from_gamma-2d",
            lambda: lt.beta_from_gamma(np.zeros((4, 1)), 3, nu=0.25),
            ValueError,
            r"^gamma must have",
        ),
        ("beta_from_gamma-scalar", lambda: lt.beta_from_gamma(0.0, 3, nu=0.25), ValueError, r"^gamma must have"),
        ("beta_from_gamma-nan", lambda: lt.beta_from_gamma([0, NAN, 0, 0], 3, nu=0.25), ValueError, "^gamma must be"),
        ("beta_from_gamma-inf", lambda: lt.beta_from_gamma([0, 0, INF, 0], 3, nu=0.25), ValueError, "^gamma must be"),
        (
            "beta_from_gamma-str",
            lambda: lt.beta_from_gamma(["a"] * 4, 3, nu=0.25),
            TypeError,
            "^gamma must be an array",
        ),
        ("beta_from_gamma-None", lambda: lt.beta_from_gamma(None, 3, nu=0.25), TypeError, "^gamma must be an array"),
        ("beta_from_gamma-ragged", lambda: lt.beta_from_gamma([[1], [1, 2]], 3, nu=0.25), ValueError, "^gamma must be"),
        ("beta_from_gamma-d=1", lambda: lt.beta_from_gamma(np.zeros(2), 1, nu=0.25), ValueError, "^d must be >= 2"),
        ("beta_from_gamma-nu=0", lambda: lt.beta_from_gamma(np.zeros(4), 3, nu=0), ValueError, "^nu must be > 0"),
        (
            "beta_from_gamma-alpha0-underflows",
            lambda: lt.beta_from_gamma(np.zeros(3), 2, nu=0.005),
            ValueError,
            "^at d = 2, nu = 0.005 the entries of Gamma .* below the double range",
        ),
        ("conditional-f=2d", lambda: lt.beta_from_conditional_moments(z3, z3, nu=0.25), ValueError, "^f_given_s must"),
        ("conditional-len=1", lambda: lt.beta_from_conditional_moments([1.0], [[1.0]], nu=0.25), ValueError, r"^len\("),
        (
            "conditional-f=nan",
            lambda: lt.beta_from_conditional_moments([1, NAN, 0], z3, nu=0.25),
            ValueError,
            "^f_given",
        ),
        ("conditional-f=str", lambda: lt.beta_from_conditional_moments("abc", z3, nu=0.25), TypeError, "^f_given_s"),
        (
            "conditional-zf-shape",
            lambda: lt.beta_from_conditional_moments([1, 2, 3], np.zeros((2, 2)), nu=0.25),
            ValueError,
            r"^zf_given_s must have shape \(3, 3\)",
        ),
        (
            "conditional-zf-1d",
            lambda: lt.beta_from_conditional_moments([1, 2, 3], np.zeros(3), nu=0.25),
            ValueError,
            "^zf_given_s must be a 2-D array",
        ),
        (
            "conditional-zf-inf",
            lambda: lt.beta_from_conditional_moments([1, 2, 3], np.full((3, 3), INF), nu=0.25),
            ValueError,
            "^zf_given_s must be finite",
        ),
        ("conditional-nu=0", lambda: lt.beta_from_conditional_moments([1, 2], np.eye(2), nu=0), ValueError, "^nu must"),
        (
            "weighted-moments-law=nu",
            lambda: lt.theory.explanation.beta_from_weighted_moments([1.0, 2.0], [0.0, 0.0], 0.25),
            TypeError,
            "^law must be a limetheory.theory.law.WeightedLaw",
        ),
        (
            "weighted-moments-shapes",
            lambda: beta_from_weighted_moments([1.0, 2.0], [0.0], weighted_law(2, 0.25)),
            ValueError,
            "^f_given_s and weighted_zf must both have shape",
        ),
        (
            "weighted-moments-nan",
            lambda: beta_from_weighted_moments([1.0, NAN], [0.0, 0.0], weighted_law(2, 0.25)),
            ValueError,
            "^f_given_s",
        ),
        ("enumerate-f=str", lambda: lt.beta_enumerate("z", 3, nu=0.25), TypeError, "^f must be a callable"),
        ("enumerate-d>22", lambda: lt.beta_enumerate(lambda z: z[:, 0], 23, nu=0.25), ValueError, "^d must be <= 22"),
        (
            "enumerate-f-shape",
            lambda: lt.beta_enumerate(lambda z: np.zeros((len(z), 2)), 3, nu=0.25),
            ValueError,
            r"^f must return one output per mask \(7\)",
        ),
        (
            "enumerate-f-nan",
            lambda: lt.beta_enumerate(lambda z: np.full(len(z), NAN), 3, nu=0.25),
            ValueError,
            "^f returned a non-finite value",
        ),
        (
            "enumerate-f-str",
            lambda: lt.beta_enumerate(lambda z: ["a"] * len(z), 3, nu=0.25),
            ValueError,
            "^f must return one real output per mask",
        ),
        ("indicator-J=int", lambda: lt.beta_indicator_product(3, 4, nu=0.25), TypeError, "^J must be an iterable"),
        ("indicator-J=str", lambda: lt.beta_indicator_product("ab", 4, nu=0.25), TypeError, "^J must be an iterable"),
        ("indicator-J-out", lambda: lt.beta_indicator_product([4], 4, nu=0.25), ValueError, "^J element must be <= 3"),
        ("indicator-J-neg", lambda: lt.beta_indicator_product([-1], 4, nu=0.25), ValueError, "^J element must be >= 0"),
        ("indicator-J-float", lambda: lt.beta_indicator_product([0.5], 4, nu=0.25), TypeError, "^J element must be an"),
        ("indicator-J-repeat", lambda: lt.beta_indicator_product([1, 1], 4, nu=0.25), ValueError, "^J must not repeat"),
        ("all_masks-d=0", lambda: all_masks(0), ValueError, "^d must be >= 1"),
        ("all_masks-d=23", lambda: all_masks(23), ValueError, "^d must be <= 22"),
    ]

    # --------------------------------------------------------------------- empirical (lime runs)
    def run(function, **kwargs):
        arguments = {"text": TEXT, "classifier_fn": classifier, "num_samples": 10, **kwargs}
        if function is lt.lime_explanations:
            arguments.setdefault("n_exp", 1)
        return lambda: function(arguments.pop("text"), arguments.pop("classifier_fn"), **arguments)

    for name, function in (("capture", lt.capture_lime_samples), ("lime_explanations", lt.lime_explanations)):
        cases += [
            (f"{name}-text=empty", run(function, text=""), ValueError, "^text must be a non-empty document"),
            (f"{name}-text=blank", run(function, text="  \n"), ValueError, "^text must be a non-empty document"),
            (f"{name}-text=bytes", run(function, text=b"good food"), TypeError, "^text must be a str"),
            (f"{name}-text=None", run(function, text=None), TypeError, "^text must be a str"),
            (f"{name}-text=punct", run(function, text="!?"), ValueError, "^text must contain at least one word"),
            (f"{name}-one-word", run(function, text="good"), ValueError, "^text must contain at least 2 distinct"),
            (
                f"{name}-one-word-repeated",
                run(function, text="good good!"),
                ValueError,
                "^text must contain at least 2",
            ),
            (f"{name}-fn=None", run(function, classifier_fn=None), TypeError, "^classifier_fn must be callable"),
            (f"{name}-n=1", run(function, num_samples=1), ValueError, "^num_samples must be >= 2"),
            (f"{name}-n=0", run(function, num_samples=0), ValueError, "^num_samples must be >= 2"),
            (f"{name}-n=float", run(function, num_samples=10.0), TypeError, "^num_samples must be an integer"),
            (f"{name}-width=0", run(function, kernel_width=0), ValueError, "^kernel_width must be a finite number > 0"),
            (f"{name}-width<0", run(function, kernel_width=-25), ValueError, "^kernel_width must be a finite"),
            (f"{name}-width=inf", run(function, kernel_width=INF), ValueError, "^kernel_width must be a finite"),
            (f"{name}-width=nan", run(function, kernel_width=NAN), ValueError, "^kernel_width must be a finite"),
            (f"{name}-width=str", run(function, kernel_width="25"), TypeError, "^kernel_width must be a positive"),
            (f"{name}-label<0", run(function, label=-1), ValueError, "^label must be >= 0"),
            (f"{name}-label=2", run(function, label=2), ValueError, r"^label must be < n_labels = 2"),
            (f"{name}-label=float", run(function, label=1.0), TypeError, "^label must be an integer"),
            (f"{name}-seed<0", run(function, random_state=-1), ValueError, "^random_state must be >= 0"),
            (f"{name}-seed=2^32", run(function, random_state=2**32), ValueError, "^random_state must be <="),
            (f"{name}-seed=str", run(function, random_state="0"), TypeError, "^random_state must be an integer"),
            (
                f"{name}-output-1d",
                run(function, classifier_fn=lambda docs: np.zeros(len(docs))),
                ValueError,
                r"^classifier_fn must return an array of shape \(10, n_labels\)",
            ),
            (
                f"{name}-output-rows",
                run(function, classifier_fn=lambda docs: np.zeros((3, 2))),
                ValueError,
                "^classifier_fn must return an array of shape",
            ),
            (
                f"{name}-output-nan",
                run(function, classifier_fn=lambda docs: np.full((len(docs), 2), NAN)),
                ValueError,
                "^classifier_fn returned a non-finite value",
            ),
            (
                f"{name}-output-str",
                run(function, classifier_fn=lambda docs: [["a", "b"]] * len(docs)),
                TypeError,
                "^classifier_fn must return a numeric array",
            ),
        ]
    cases += [
        ("explanations-n_exp=0", run(lt.lime_explanations, n_exp=0), ValueError, "^n_exp must be >= 1"),
        ("explanations-n_exp=float", run(lt.lime_explanations, n_exp=1.5), TypeError, "^n_exp must be an integer"),
        ("local_dictionary-empty", lambda: lt.local_dictionary(""), ValueError, "^text must be a non-empty"),
        ("local_dictionary-punct", lambda: lt.local_dictionary("..."), ValueError, "^text must contain at least"),
        ("local_dictionary-bytes", lambda: lt.local_dictionary(b"abc"), TypeError, "^text must be a str"),
    ]

    # --------------------------------------------------------------------- surrogate
    def ridge(**kwargs):
        arguments = {"z": np.eye(5, 2), "y": np.arange(5.0), "weights": np.ones(5), **kwargs}
        return lambda: lt.weighted_ridge(**arguments)

    def normal(**kwargs):
        arguments = {"z": np.eye(5, 2), "y": np.arange(5.0), "weights": np.ones(5), **kwargs}
        return lambda: lt.normal_equations(**arguments)

    for name, make in (("weighted_ridge", ridge), ("normal_equations", normal)):
        cases += [
            (f"{name}-z-1d", make(z=np.ones(5)), ValueError, r"^z must be an \(n, d\) array"),
            (f"{name}-z-empty", make(z=np.ones((0, 2)), y=[], weights=[]), ValueError, r"^z must be an \(n, d\)"),
            (f"{name}-z-no-columns", make(z=np.ones((5, 0))), ValueError, r"^z must be an \(n, d\) array"),
            (f"{name}-z-nan", make(z=np.full((5, 2), NAN)), ValueError, "^z must be finite"),
            (f"{name}-z-str", make(z=[["a", "b"]] * 5), TypeError, "^z must be an array of real numbers"),
            (f"{name}-y-shape", make(y=np.ones(4)), ValueError, r"^y and weights must have shape \(5,\)"),
            (f"{name}-y-inf", make(y=[0, 1, INF, 3, 4]), ValueError, "^y must be finite"),
            (f"{name}-y-complex", make(y=np.arange(5) * 1j), TypeError, "^y must be real"),
            (f"{name}-w-shape", make(weights=np.ones(6)), ValueError, r"^y and weights must have shape"),
            (f"{name}-w-negative", make(weights=-np.ones(5)), ValueError, "^weights must be non-negative"),
            (f"{name}-w-zero", make(weights=np.zeros(5)), ValueError, "^weights must be non-negative and not all"),
            (f"{name}-w-nan", make(weights=[1, 1, NAN, 1, 1]), ValueError, "^weights must be finite"),
        ]
    cases += [
        ("weighted_ridge-lam<0", ridge(lam=-1.0), ValueError, "^lam must be a finite number >= 0"),
        ("weighted_ridge-lam=inf", ridge(lam=INF), ValueError, "^lam must be a finite real number"),
        ("weighted_ridge-lam=nan", ridge(lam=NAN), ValueError, "^lam must be a finite real number"),
        ("weighted_ridge-lam=bool", ridge(lam=True), TypeError, "^lam must be a real number"),
        ("weighted_ridge-lam=str", ridge(lam="1"), TypeError, "^lam must be a real number"),
        ("weighted_ridge-penalise=1", ridge(penalise_intercept=1), TypeError, "^penalise_intercept must be True"),
        ("weighted_ridge-singular", ridge(lam=0.0, z=np.zeros((5, 2))), ValueError, "^the weighted normal equations"),
    ]

    def expected(**kwargs):
        arguments = {"sigma": lt.sigma_matrix(3, nu=0.25), "gamma": np.ones(4), "y0": 0.5, "num_samples": 100, **kwargs}
        return lambda: lt.engine.surrogate.expected_lime_fit(**arguments)

    cases += [
        ("expected_lime_fit-sigma-1d", expected(sigma=np.ones(4)), ValueError, r"^sigma must be a \(d \+ 1, d \+ 1\)"),
        ("expected_lime_fit-sigma-not-square", expected(sigma=np.ones((4, 3))), ValueError, "^sigma must be a"),
        ("expected_lime_fit-sigma-1x1", expected(sigma=np.ones((1, 1)), gamma=[1.0]), ValueError, "^sigma must be"),
        ("expected_lime_fit-sigma-nan", expected(sigma=np.full((4, 4), NAN)), ValueError, "^sigma must be finite"),
        ("expected_lime_fit-sigma-str", expected(sigma=[["a"] * 4] * 4), TypeError, "^sigma must be an array"),
        ("expected_lime_fit-gamma-shape", expected(gamma=np.ones(3)), ValueError, r"^gamma must have shape \(4,\)"),
        ("expected_lime_fit-gamma-inf", expected(gamma=[1, INF, 1, 1]), ValueError, "^gamma must be finite"),
        ("expected_lime_fit-y0-nan", expected(y0=NAN), ValueError, "^y0 must be a finite real number"),
        ("expected_lime_fit-y0-str", expected(y0="1"), TypeError, "^y0 must be a real number"),
        ("expected_lime_fit-n=0", expected(num_samples=0), ValueError, "^num_samples must be >= 1"),
        ("expected_lime_fit-n=float", expected(num_samples=10.0), TypeError, "^num_samples must be an integer"),
        ("expected_lime_fit-lam<0", expected(lam=-1.0), ValueError, "^lam must be a finite number >= 0"),
        ("expected_lime_fit-lam=bool", expected(lam=False), TypeError, "^lam must be a real number"),
        (
            "expected_lime_fit-singular",
            expected(sigma=np.zeros((4, 4)), lam=0.0, num_samples=5),
            ValueError,
            "^the expected normal equations .* are singular",
        ),
    ]

    # --------------------------------------------------------------------- plotting
    def plot(**kwargs):
        arguments = {"empirical": np.zeros((4, 3)), "theory": np.zeros(3), "words": ["a", "b", "c"], **kwargs}
        return lambda: theory_vs_practice(arguments.pop("ax", None) or axes(), **arguments)

    cases += [
        ("plot-ax=None", lambda: theory_vs_practice(None, np.zeros((2, 1)), [0.0], ["a"]), TypeError, "^ax must"),
        ("plot-empirical-1d", plot(empirical=np.zeros(3)), ValueError, "^empirical must be a 2-D array"),
        ("plot-empirical-no-rows", plot(empirical=np.zeros((0, 3))), ValueError, "^empirical must be a 2-D array"),
        ("plot-empirical-no-cols", plot(empirical=np.zeros((4, 0)), theory=[], words=[]), ValueError, "^empirical"),
        ("plot-empirical-nan", plot(empirical=np.full((4, 3), NAN)), ValueError, "^empirical and theory must be"),
        ("plot-empirical-str", plot(empirical=[["a"] * 3] * 4), TypeError, "^empirical must be an array of real"),
        ("plot-theory-shape", plot(theory=np.zeros(2)), ValueError, r"^theory must have shape \(3,\)"),
        ("plot-theory-inf", plot(theory=[0, INF, 0]), ValueError, "^empirical and theory must be finite"),
        ("plot-words-count", plot(words=["a", "b"]), ValueError, "^words must have 3 entries"),
        ("plot-words-str", plot(words="abc"), TypeError, "^words must be a sequence of str"),
        ("plot-words-None", plot(words=None), TypeError, "^words must be a sequence of str"),
        ("plot-title-int", plot(title=3), TypeError, "^title must be a str or None"),
        ("plot-ylabel-int", plot(ylabel=3), TypeError, "^ylabel must be a str or None"),
    ]

    # --------------------------------------------------------------------- models
    cases += [
        ("vectorizer-empty", lambda: fit_yelp_vectorizer([]), ValueError, "^texts must be a non-empty sequence"),
        ("vectorizer-int", lambda: fit_yelp_vectorizer(3), TypeError, "^texts must be a sequence of str"),
        ("vectorizer-None-entry", lambda: fit_yelp_vectorizer(["a b", None]), TypeError, "^texts must contain"),
        ("vectorizer-no-words", lambda: fit_yelp_vectorizer(["!!", "a"]), ValueError, "^texts contain no word"),
        ("forest-labels-length", lambda: train_random_forest(["a b", "c d"], [0]), ValueError, "^labels must have"),
        (
            "forest-one-class",
            lambda: train_random_forest(["a b", "c d"], [1, 1]),
            ValueError,
            "^labels must contain",
        ),
        (
            "forest-nan-label",
            lambda: train_random_forest(["ab", "cd"], [0, NAN]),
            ValueError,
            "^labels must be class",
        ),
        (
            "forest-n_estimators=0",
            lambda: train_random_forest(["ab", "cd"], [0, 1], n_estimators=0),
            ValueError,
            "^n_",
        ),
        ("forest-seed<0", lambda: train_random_forest(["ab", "cd"], [0, 1], random_state=-1), ValueError, "^random"),
        ("forest-texts=None", lambda: train_random_forest(None, [0, 1]), TypeError, "^texts must be a sequence"),
        ("indicator-unfitted", lambda: word_indicator(TfidfVectorizer(), "a"), ValueError, "^vectorizer"),
        ("indicator-not-vectorizer", lambda: word_indicator(object(), "good"), TypeError, "^vectorizer must be"),
        ("indicator-unknown-word", lambda: word_indicator(vectorizer(), "pizza"), ValueError, "^word must be in"),
        ("constant_classifier-p=2", lambda: constant_classifier(2.0), ValueError, "^probability must be a real"),
        ("constant_classifier-p=str", lambda: constant_classifier("0.5"), TypeError, "^probability must be a real"),
        ("indicator-upper-case", lambda: word_indicator(vectorizer(), "Good"), ValueError, "^word must be in.*try"),
        ("indicator-word=int", lambda: word_indicator(vectorizer(), 3), TypeError, "^word must be a str"),
        ("indicator_rows-unfitted", lambda: word_indicator_rows(TfidfVectorizer(), "a"), ValueError, "^vectorizer"),
        ("indicator_rows-unknown-word", lambda: word_indicator_rows(vectorizer(), "pizza"), ValueError, "^word must"),
    ]

    # --------------------------------------------------------------------- resource limits (issue 20)
    cases += [
        ("sample_masks-memory", lambda: lt.sample_masks(10**4, 10**6, np.random.default_rng(0)), ValueError, "^sam"),
        (
            "alphas-work",
            lambda: lt.alphas(10**7, nu=0.25, p_max=10**4),
            ValueError,
            "^alphas at d = 10000000 with p_max",
        ),
        ("alpha-d=2**63", lambda: lt.alpha(0, 2**63, nu=0.25), ValueError, "^alpha at d = 9223372036854775808 needs"),
        ("kernel_weights-d=1e9", lambda: lt.kernel_weights(10**9, nu=0.25), ValueError, "^kernel_weights at d = "),
        ("prob_kept-p=2**40", lambda: lt.prob_kept(2**40, 2**41, 1), ValueError, "^prob_kept given s .* needs"),
        ("sigma_matrix-d=1e9", lambda: lt.sigma_matrix(10**9, nu=0.25), ValueError, "^a dense Sigma at d = 1000000000"),
        ("sigma_inverse-d=16384", lambda: lt.sigma_inverse(16384, nu=0.25), ValueError, "^a dense Sigma at d = 16384"),
        (
            "expected_lime_fit-n>2**53",
            lambda: lt.expected_lime_fit(np.eye(2), np.ones(2), 1.0, 2**53 + 1),
            ValueError,
            r"^num_samples must be <= 9007199254740992",
        ),
        (
            "normal_equations-wide",
            lambda: lt.normal_equations(np.zeros((1, 20_000)), [1.0], [1.0]),
            ValueError,
            "^the normal equations of 1 rows and 20001 columns needs about",
        ),
        (
            "sweep-too-many-bandwidths",
            lambda: lt.beta_bandwidth_sweep(np.eye(3), np.ones(3), nus=np.full(10**6, 0.25)),
            ValueError,
            "^a sweep of 1000000 bandwidths costs about",
        ),
        (
            "forest-n_estimators",
            lambda: train_random_forest(["ab", "cd"], [0, 1], n_estimators=10**5),
            ValueError,
            "^n_",
        ),
        (
            "plot-too-many-words",
            lambda: theory_vs_practice(axes(), np.zeros((2, 501)), np.zeros(501), ["w"] * 501),
            ValueError,
            "^empirical must have at most 500 columns",
        ),
        ("symbolic-p>10", lambda: sy.prob_kept(11), ValueError, "^p must be <= 10"),
    ]

    # --------------------------------------------------------------------- data
    cases += [
        ("sha256_of-missing", lambda: lt.data.sha256_of("/nonexistent/file"), FileNotFoundError, "No such file"),
    ]

    # --------------------------------------------------------------------- symbolic
    cases += [
        ("psi_expr-t=str", lambda: sy.psi_expr("t", 1), TypeError, "^t_expr must be a sympy expression"),
        ("psi_expr-t>1", lambda: sy.psi_expr(2, 1), ValueError, "^t_expr must be <= 1"),
        ("psi_expr-t<0", lambda: sy.psi_expr(sp.Rational(-1, 2), 1), ValueError, "^t_expr must be >= 0"),
        ("psi_expr-nu=0", lambda: sy.psi_expr(sy.t, 0), ValueError, "^nu_expr must be > 0"),
        ("psi_expr-nu<0", lambda: sy.psi_expr(sy.t, -1), ValueError, "^nu_expr must be > 0"),
        ("psi_expr-nu=None", lambda: sy.psi_expr(sy.t, None), TypeError, "^nu_expr must be a sympy expression"),
        ("psi_expr-nu=I", lambda: sy.psi_expr(sy.t, sp.I), ValueError, "^nu_expr must be real"),
        ("prob_kept_given_s-p<0", lambda: sy.prob_kept_given_s(-1), ValueError, "^p must be >= 0"),
        ("prob_kept_given_s-p=sym", lambda: sy.prob_kept_given_s(sy.d), TypeError, "^p must be an integer"),
        ("prob_kept_given_s-d=0", lambda: sy.prob_kept_given_s(1, 0), ValueError, "^d_expr must be >= 1"),
        ("prob_kept_given_s-d=1.5", lambda: sy.prob_kept_given_s(1, 1.5), ValueError, "^d_expr must be an integer"),
        ("prob_kept_given_s-s<0", lambda: sy.prob_kept_given_s(1, 3, -1), ValueError, "^s_expr must be >= 0"),
        ("binomial-d=str", lambda: sy.prob_kept_given_s_binomial(1, "d"), TypeError, "^d_expr must be a sympy"),
        ("prob_kept-p=float", lambda: sy.prob_kept(1.0), TypeError, "^p must be an integer"),
        ("symbolic-prob_kept-d=0", lambda: sy.prob_kept(1, 0), ValueError, "^d_expr must be >= 1"),
        ("alpha_sum-weight=3", lambda: sy.alpha_sum(1, weight=3), TypeError, "^weight must be a callable"),
        ("alpha_sum-p<0", lambda: sy.alpha_sum(-1), ValueError, "^p must be >= 0"),
        ("alpha_large_bandwidth-p=str", lambda: sy.alpha_large_bandwidth("1"), TypeError, "^p must be an integer"),
        ("patterned-d=0", lambda: sy.PatternedMatrix(1, 0, 0, 1, 0, 0), ValueError, "^d must be >= 1"),
        ("patterned-entry=str", lambda: sy.PatternedMatrix("a", 0, 0, 1, 0), TypeError, "^corner must be a sympy"),
        ("patterned-entry=None", lambda: sy.PatternedMatrix(1, None, 0, 1, 0), TypeError, "^row must be a sympy"),
        ("patterned-scale=str", lambda: sy.PatternedMatrix.identity().scale("2"), TypeError, "^factor must be"),
        ("patterned-matmul", lambda: sy.PatternedMatrix.identity() @ sp.eye(3), TypeError, "^expected a Patterned"),
        (
            "patterned-sizes",
            lambda: sy.PatternedMatrix(1, 0, 0, 1, 0, 2) @ sy.PatternedMatrix(1, 0, 0, 1, 0, 3),
            ValueError,
            "^matrices of different sizes",
        ),
        ("patterned-to_matrix-0", lambda: sy.PatternedMatrix.identity().to_matrix(0), ValueError, "^d_value must be"),
        ("patterned-to_matrix-sym", lambda: sy.sigma_patterned().to_matrix(), ValueError, "^d is symbolic"),
        ("sigma_patterned-d=0", lambda: sy.sigma_patterned(d_expr=0), ValueError, "^d must be >= 1"),
    ]
    return cases


def _other_modules_cases():
    """Cases for the modules written by other helpers (boolean, linear_approx, linear_exact, fast), only those
    their own test files do not already cover.  Gaps found in those modules are marked xfail (reported, not
    patched here)."""
    cases = []
    food = sp.Symbol("good")
    words = ["good", "food"]

    def model_fn(matrix):
        total = np.asarray(matrix.sum(axis=1)).ravel()
        return np.column_stack([1 - total / (1 + total), total / (1 + total)])

    def fast(function=lt.fast_lime_explanations, text=TEXT, **kwargs):
        arguments = {"num_samples": 10, **kwargs}
        if function is lt.fast_lime_explanations:
            arguments.setdefault("n_exp", 1)
        return lambda: function(text, vectorizer(), model_fn, **arguments)

    cases += [
        ("beta_boolean-nu=nan", lambda: lt.beta_boolean(food, words, nu=NAN), ValueError, "^nu must be > 0"),
        ("beta_boolean-nu=-1", lambda: lt.beta_boolean(food, words, nu=-1.0), ValueError, "^nu must be > 0"),
        ("beta_boolean-nu=str", lambda: lt.beta_boolean(food, words, nu="0.25"), TypeError, "^nu must be"),
        ("beta_boolean-nu=None", lambda: lt.beta_boolean(food, words, nu=None), TypeError, "^nu must be"),
        ("indicator_polynomial-words=None", lambda: lt.indicator_polynomial(food, None), TypeError, "^words must"),
        ("mask_function-unknown-word", lambda: lt.mask_function(sp.Symbol("x"), words), ValueError, "^expr has"),
        ("tfidf_columns-text=None", lambda: lt.tfidf_columns(None, vectorizer()), TypeError, "^text must be a str"),
        ("tfidf_columns-text=empty", lambda: lt.tfidf_columns("", vectorizer()), ValueError, "^text must be a non"),
        ("word_columns-memo=list", lambda: lt.word_columns("good", vectorizer(), memo=[]), TypeError, "^memo must"),
        ("tfidf_weights-text=bytes", lambda: lt.tfidf_weights(b"good", vectorizer()), TypeError, "^text must be a"),
        ("gamma_linear_exact-nu=None", lambda: lt.gamma_linear_exact([1, 2], [1, 2], nu=None), TypeError, "^nu must"),
        ("fast-text=empty", fast(text=""), ValueError, "^text must be a non-empty document"),
        ("fast-text=None", fast(text=None), TypeError, "^text must be a str"),
        ("fast-text=bytes", fast(text=b"good food"), TypeError, "^text must be a str"),
        ("fast-width=nan", fast(kernel_width=NAN), ValueError, "^kernel_width must be a finite"),
        ("fast-width<0", fast(kernel_width=-25), ValueError, "^kernel_width must be a finite"),
        ("fast-width=str", fast(kernel_width="25"), TypeError, "^kernel_width must be a positive"),
        ("fast-label=float", fast(label=1.0), TypeError, "^label must be an integer"),
        ("fast-samples-n=1", fast(lt.fast_lime_samples, num_samples=1), ValueError, "^num_samples must be >= 2"),
        ("fast-samples-text=empty", fast(lt.fast_lime_samples, text=""), ValueError, "^text must be a non-empty"),
        ("fast-samples-label=2", fast(lt.fast_lime_samples, label=2), ValueError, "^label must be < n_labels"),
    ]
    many = [sp.Symbol(f"w{i}") for i in range(30)]
    cases += [
        (
            "beta_boolean-2^30-monomials",
            lambda: lt.beta_boolean(sp.Or(*many), [str(w) for w in many], nu=0.25),
            ValueError,
            "^expr expands into too many monomials",
        ),
        (
            "beta_boolean-power",
            lambda: lt.beta_boolean((1 + food) ** 2000, words, nu=0.25),
            ValueError,
            "^expr has the power",
        ),
        ("mask_function-complex", lambda: lt.mask_function(sp.I * food, words), ValueError, "^expr has a constant"),
    ]
    cases += [
        ("shapley-model=None", lambda: lt.shapley(None, TEXT), TypeError, "^model must be a fitted scikit-learn"),
        ("shapley_enumerate-f=None", lambda: lt.shapley_enumerate(None, 3), TypeError, "^f must be a callable"),
        ("shapley_enumerate-d=23", lambda: lt.shapley_enumerate(len, 23), ValueError, "^d must be <= 22"),
        (
            "shapley_from_conditional_moments-shape",
            lambda: lt.shapley_from_conditional_moments(1.0, [0.5, 0.0], np.zeros((2, 3))),
            ValueError,
            "^zf_given_s must be a \\(d, d\\) array",
        ),
        (
            "shapley_from_conditional_moments-nan",
            lambda: lt.shapley_from_conditional_moments(NAN, [0.5, 0.0], np.zeros((2, 2))),
            ValueError,
            "^f_full must",
        ),
    ]
    cases += [
        ("fast-one-word", fast(text="good"), ValueError, "at least 2 distinct words"),
        ("fast-samples-one-word", fast(lt.fast_lime_samples, text="good good"), ValueError, "at least 2 distinct"),
    ]
    cases += _corpus_cases()
    return cases


def _corpus_cases():
    """explain_many, submodular_pick, global_importance and their helpers (issue 28)."""
    from limetheory.pipelines.corpora.linear_many import explain_linear_many
    from limetheory.pipelines.corpora.pick import refit_limit

    def model():
        from sklearn.feature_extraction.text import TfidfVectorizer
        from sklearn.linear_model import LogisticRegression
        from sklearn.pipeline import make_pipeline

        return make_pipeline(TfidfVectorizer(), LogisticRegression()).fit(["good food", "bad food"], [1, 0])

    def many(texts=(TEXT,), **kwargs):
        return lambda: lt.explain_many(model(), texts, progress=False, **kwargs)

    frame = lambda: lt.explain_many(model(), [TEXT], progress=False, output="decision_function")  # noqa: E731
    return [
        ("explain_many-texts=str", many(TEXT), TypeError, "^texts must be a sequence of str"),
        ("explain_many-texts=int", many([TEXT, 3]), TypeError, "^texts must hold str only"),
        ("explain_many-texts=None", many(None), TypeError, "^texts must be a sequence of str"),
        ("explain_many-n_jobs=0", many(n_jobs=0), ValueError, "^n_jobs must be a positive number"),
        ("explain_many-n_jobs=float", many(n_jobs=2.0), TypeError, "^n_jobs must be an integer"),
        ("explain_many-backend=int", many(backend=3), TypeError, "^backend must be the name of a joblib"),
        ("explain_many-backend=unknown", many(backend="spark"), ValueError, "^backend must be a joblib backend"),
        ("explain_many-collect=str", many(collect="no"), TypeError, "^collect must be True or False"),
        ("explain_many-collect-no-path", many(collect=False), ValueError, "^collect=False keeps the explanations"),
        ("explain_many-path=int", many(path=3), TypeError, "^path must be None or a folder"),
        ("explain_many-chunk_size=0", many(chunk_size=0), ValueError, "^chunk_size must be >= 1"),
        ("explain_many-nu", many(nu=0.25), TypeError, "^explain_many got options that explain does not take"),
        ("explain_many-bad-option", many(kernel_width=-1), ValueError, "^kernel_width must be"),
        ("submodular_pick-budget=0", lambda: lt.submodular_pick(frame(), 0), ValueError, "^budget must be >= 1"),
        ("submodular_pick-budget>n", lambda: lt.submodular_pick(frame(), 2), ValueError, "^budget must be at most"),
        ("submodular_pick-frame=int", lambda: lt.submodular_pick(3, 1), TypeError, "^frame_or_explanations must"),
        ("submodular_pick-frame=str", lambda: lt.submodular_pick("x", 1), TypeError, "^frame_or_explanations must"),
        (
            "submodular_pick-columns",
            lambda: lt.submodular_pick(frame().drop(columns="coefficient"), 1),
            ValueError,
            "^frame_or_explanations must have the columns",
        ),
        (
            "submodular_pick-num_features=0",
            lambda: lt.submodular_pick(frame(), 1, num_features=0),
            ValueError,
            "^num_features must be >= 1",
        ),
        (
            "global_importance-refit-no-width",
            lambda: lt.global_importance(frame().drop(columns="kernel_width")),
            ValueError,
            "^refit=True needs the frame's kernel_width",
        ),
        ("global_importance-refit=str", lambda: lt.global_importance(frame(), refit="yes"), TypeError, "^refit must"),
        (
            "explanation_matrix-num_features",
            lambda: lt.explanation_matrix(frame(), num_features=1.5),
            TypeError,
            "^num_features must be an integer",
        ),
        ("refit_limit-selected", lambda: refit_limit([0, 1, 2], [2], kernel_width=25), ValueError, "^selected must"),
        ("refit_limit-width", lambda: refit_limit([0, 1, 2], [0], kernel_width=0), ValueError, "^kernel_width must"),
        ("refit_limit-beta", lambda: refit_limit([0.5], [], kernel_width=25), ValueError, "^beta must be a 1-D"),
        (
            "explain_linear_many-width",
            lambda: explain_linear_many(model(), [TEXT], kernel_width=-1),
            ValueError,
            "^kernel_width must be a finite",
        ),
        (
            "explain_linear_many-model",
            lambda: explain_linear_many("model", [TEXT]),
            TypeError,
            "^model must be a fitted scikit-learn Pipeline",
        ),
    ]


CASES = _cases()
OTHER_CASES = _other_modules_cases()


@pytest.mark.parametrize(("call", "error", "pattern"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_input_is_refused_with_a_clear_message(call, error, pattern):
    with pytest.raises(error, match=pattern):
        call()


@pytest.mark.parametrize(
    ("call", "error", "pattern"),
    [case if isinstance(case, type(pytest.param(0))) else pytest.param(*case[1:], id=case[0]) for case in OTHER_CASES],
)
def test_bad_input_of_the_other_modules(call, error, pattern):
    with pytest.raises(error, match=pattern):
        call()


def test_case_ids_are_unique():
    ids = [case[0] for case in CASES]
    assert len(ids) == len(set(ids))


def test_every_public_function_of_these_modules_has_a_case():
    """Each public function of the modules this file covers appears in at least one case (by its source)."""
    import inspect

    source = inspect.getsource(_cases)
    modules = [
        lt.theory.sampling,
        lt.theory.coefficients,
        lt.theory.explanation,
        lt.engine.empirical,
        lt.engine.surrogate,
        book.plotting,
        book.models,
    ]
    missing = []
    for module in modules:
        for name, value in vars(module).items():
            if name.startswith("_") or not inspect.isfunction(value) or value.__module__ != module.__name__:
                continue
            if name not in source and name not in SIGMA_FUNCTIONS:
                missing.append(f"{module.__name__}.{name}")
    for name in ("psi_expr", "prob_kept_given_s", "prob_kept_given_s_binomial", "prob_kept", "alpha_sum"):
        assert f"sy.{name}(" in source
    assert not missing, missing
