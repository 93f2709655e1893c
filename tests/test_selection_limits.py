"""The limit of lime's feature selection and refit (limetheory.theory.selection_limits) against lime on the population.

The reference is independent of the closed forms: every mask LIME can draw (``all_masks``) with its exact probability
times its kernel weight is a weighted sample whose averages *are* the expectations, so lime's own
``LimeBase.feature_selection`` run on it selects what lime selects as n grows, and scikit-learn's weighted
``LinearRegression`` on the selected columns is the refit's limit (lime's alpha = 1 vanishes against n).  β itself
is the weighted least-squares fit on every word of the same population.
"""

from __future__ import annotations

import numpy as np
import pytest
from lime.lime_base import LimeBase
from scipy import integrate, stats
from sklearn.linear_model import LinearRegression

from limetheory.theory.coefficients import sigma_matrix
from limetheory.theory.explanation import all_masks
from limetheory.theory.sampling import kernel_weights
from limetheory.theory.selection_limits import SelectionLimit, lime_selection_limit, selection_probability

METHODS = ("none", "auto", "highest_weights", "forward_selection", "lasso_path")
#: the enumerated fits solve least squares on at most 2^8 rows with cond(Σ) <= 1e4 at these widths: their error is
#: below 1e-11 relative, and 1e-9 leaves a margin of 100
RTOL = 1e-9
#: lime's selection ridge (alpha = 0.01) must not move the population's coefficients: the weights sum to this, so
#: alpha / total = 1e-14, far below every margin the tests rely on
TOTAL_WEIGHT = 1e12


def population(d, kernel_width, seed):
    """Every mask, its weight (probability x kernel weight, the normalisation of Σ), and a nonlinear model's value."""
    z, s, prob = all_masks(d)
    weights = prob * kernel_weights(d, nu=kernel_width / 100.0)[s - 1]
    # lime reads the document from row 0 (highest_weights scales by it): the all-ones mask, which LIME's law never
    # draws (s >= 1), first with weight 0
    z = np.vstack([np.ones((1, d), dtype=z.dtype), z])
    weights = np.concatenate([[0.0], weights])
    rng = np.random.default_rng(seed)
    slopes = rng.normal(size=d)
    pair = rng.normal()
    y = 1.0 / (1.0 + np.exp(-(z @ slopes + pair * z[:, 0] * z[:, 1] - 0.3)))
    return z.astype(float), weights, y


def weighted_fit(z, y, weights, columns):
    model = LinearRegression().fit(z[:, columns], y, sample_weight=weights)
    score = model.score(z[:, columns], y, sample_weight=weights)
    return model.intercept_, model.coef_, score


def lime_on_population(z, y, weights, k, method):
    """lime's selection on the population (weights scaled so that its alpha = 0.01 vanishes), then the exact refit."""
    base = LimeBase(kernel_fn=None, random_state=0)
    scaled = weights * (TOTAL_WEIGHT / weights.sum())
    used = np.asarray(base.feature_selection(z, y, scaled, k, method), dtype=np.int64)
    intercept, coef, score = weighted_fit(z, y, weights, used)
    order = sorted(range(len(used)), key=lambda i: abs(coef[i]), reverse=True)  # lime's as_list sort
    return used[order], coef[order], intercept, score


# the grid d x kernel_width: d = 4 to 6 at every width and d = 7, 8 at width 25 in make test; d = 7, 8 at widths 10
# and 100 (the costliest populations: 1.9 of the grid's 4.9 CPU-s) in the slow group
ENUMERATED_GRID = [
    pytest.param(d, width, marks=pytest.mark.slow) if d >= 7 and width != 25 else (d, width)
    for d in [4, 5, 6, 7, 8]
    for width in [10, 25, 100]
]


@pytest.mark.parametrize(("d", "kernel_width"), ENUMERATED_GRID)
def test_every_method_equals_lime_on_the_enumerated_population(d, kernel_width):
    z, weights, y = population(d, kernel_width, seed=10 * d + kernel_width)
    intercept, coef, _ = weighted_fit(z, y, weights, np.arange(d))
    beta = np.concatenate([[intercept], coef])
    second_moment = float(weights @ y**2)
    compared = dict.fromkeys(METHODS, 0)
    for method in METHODS:
        if method == "auto":
            continue  # resolved to one of the others: test_auto_is_forward_selection_up_to_six_words_...
        for k in sorted({1, 2, d // 2, d - 1, d}):
            limit = lime_selection_limit(
                beta, kernel_width=kernel_width, num_features=k, feature_selection=method, second_moment=second_moment
            )
            # tol: a margin below 1e-8 is within the enumerated beta's error: lime may then take either candidate
            if limit.margin < 1e-8:
                continue
            selected, coefficients, refit_intercept, score = lime_on_population(z, y, weights, k, method)
            assert limit.selected.tolist() == selected.tolist(), (method, k)
            np.testing.assert_allclose(limit.coefficients, coefficients, rtol=RTOL, atol=RTOL)
            assert limit.intercept == pytest.approx(refit_intercept, rel=RTOL, abs=RTOL)
            assert limit.local_pred == pytest.approx(refit_intercept + coefficients.sum(), rel=RTOL, abs=RTOL)
            assert limit.score == pytest.approx(score, rel=RTOL, abs=RTOL)
            compared[method] += 1
    # every method is compared at k = 1 at least (no near-tie there for these models) and at k = d
    assert all(compared[method] >= 2 for method in METHODS if method != "auto"), compared


@pytest.mark.parametrize("kernel_width", [10, 25, 100])
def test_the_second_moment_is_in_the_normalisation_of_sigma(kernel_width):
    d = 6
    z, weights, _ = population(d, kernel_width, seed=1)
    design = np.hstack([np.ones((len(z), 1)), z])
    # tol: sums of 63 positive terms against the closed form of alpha_p: a few ulps each
    np.testing.assert_allclose(
        (design * weights[:, None]).T @ design, sigma_matrix(d, nu=kernel_width / 100.0), rtol=1e-12
    )


@pytest.mark.parametrize("kernel_width", [15, 25, 100])
def test_the_refit_is_the_dense_normal_equations_at_large_d(kernel_width):
    """The closed-form refit against Σ_S̄S̄⁻¹ (Σβ)_S̄ solved densely (pipelines' refit_limit), d = 40."""
    from limetheory import refit_limit

    beta = np.random.default_rng(kernel_width).normal(size=41)
    limit = lime_selection_limit(beta, kernel_width=kernel_width, num_features=10, feature_selection="highest_weights")
    dense = refit_limit(beta, limit.selected, kernel_width=kernel_width)
    # tol: the dense solve loses cond(Σ_S̄S̄) ~ 1e3 times eps, the closed form a few eps
    np.testing.assert_allclose(limit.coefficients, dense[1:], rtol=1e-11, atol=1e-11)
    assert limit.intercept == pytest.approx(dense[0], rel=1e-11, abs=1e-11)  # tol: as above


def test_forward_selection_order_is_lime_greedy_order():
    """lime's own forward selection returns the greedy order; the limit's set is that set (its order is as_list's)."""
    d, kernel_width, k = 7, 25, 4
    z, weights, y = population(d, kernel_width, seed=3)
    intercept, coef, _ = weighted_fit(z, y, weights, np.arange(d))
    beta = np.concatenate([[intercept], coef])
    limit = lime_selection_limit(beta, kernel_width=kernel_width, num_features=k, feature_selection="forward_selection")
    assert limit.margin > 1e-6
    greedy = LimeBase(kernel_fn=None).forward_selection(z, y, weights, k)
    assert sorted(greedy.tolist()) == sorted(limit.selected.tolist())


def test_auto_is_forward_selection_up_to_six_words_then_highest_weights():
    beta = np.random.default_rng(4).normal(size=13)
    for k, method in [
        (1, "forward_selection"),
        (6, "forward_selection"),
        (7, "highest_weights"),
        (10, "highest_weights"),
    ]:
        auto = lime_selection_limit(beta, kernel_width=25, num_features=k)
        explicit = lime_selection_limit(beta, kernel_width=25, num_features=k, feature_selection=method)
        assert auto.method == method
        assert auto.selected.tolist() == explicit.selected.tolist()


def test_none_is_beta_in_lime_order():
    beta = np.array([0.3, 0.2, -1.0, 0.5, 0.0])
    limit = lime_selection_limit(beta, kernel_width=25, num_features=1, feature_selection="none")
    assert limit.selected.tolist() == [1, 2, 0, 3]
    # tol: the refit on every word reproduces beta up to a few roundings of the patterned solve
    np.testing.assert_allclose(limit.coefficients, beta[1:][[1, 2, 0, 3]], rtol=0, atol=8 * np.finfo(float).eps)
    assert limit.local_pred == pytest.approx(beta.sum(), rel=8 * np.finfo(float).eps)  # tol: as above
    assert limit.margin == np.inf


def test_small_kernel_widths_stay_finite_and_every_word_is_beta_itself():
    beta = np.random.default_rng(8).normal(size=9)
    for width in (0.5, 2.0):  # V = Var_m(a) underflows: the law puts all its weight on s = 1
        for method in METHODS:
            limit = lime_selection_limit(beta, kernel_width=width, num_features=3, feature_selection=method)
            assert np.isfinite(limit.coefficients).all() and np.isfinite([limit.intercept, limit.local_pred]).all()
        every = lime_selection_limit(beta, kernel_width=width, feature_selection="none")
        assert sorted(every.as_list()) == list(enumerate(beta[1:].tolist()))


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")  # LARS through an exact tie
def test_ties_take_the_earlier_word_with_margin_zero():
    beta = np.array([0.1, 0.5, -1.0, 1.0, 0.2])  # words 1 and 2 tie in |beta|
    highest = lime_selection_limit(beta, kernel_width=25, num_features=1, feature_selection="highest_weights")
    assert highest.selected.tolist() == [1] and highest.margin == 0.0
    equal = np.array([0.1, 0.3, 0.8, 0.8, 0.2])  # words 1 and 2 equal: the same gain at the first greedy step
    forward = lime_selection_limit(equal, kernel_width=25, num_features=1, feature_selection="forward_selection")
    assert forward.selected.tolist() == [1] and forward.margin == 0.0
    lasso = lime_selection_limit(equal, kernel_width=25, num_features=1, feature_selection="lasso_path")
    # the two equal words enter the LARS path at the same knot: no point with one word, margin 0
    assert lasso.margin == 0.0


def test_every_word_when_num_features_reaches_d():
    beta = np.random.default_rng(5).normal(size=6)
    for method in METHODS:
        limit = lime_selection_limit(beta, kernel_width=25, num_features=5, feature_selection=method)
        assert sorted(limit.selected.tolist()) == list(range(5)) and limit.margin == np.inf


def test_a_second_moment_below_the_explained_variance_is_refused():
    d, kernel_width = 5, 25
    z, weights, y = population(d, kernel_width, seed=6)
    intercept, coef, _ = weighted_fit(z, y, weights, np.arange(d))
    beta = np.concatenate([[intercept], coef])
    with pytest.raises(ValueError, match="second_moment"):
        lime_selection_limit(beta, kernel_width=kernel_width, second_moment=0.5 * float(weights @ y**2))


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"beta": [0.1, 1.0]}, ValueError, "d \\+ 1 >= 3"),
        ({"beta": [[0.1, 1.0, 2.0]]}, ValueError, "beta"),
        ({"beta": [0.1, np.nan, 2.0]}, ValueError, "beta"),
        ({"kernel_width": 0}, ValueError, "kernel_width"),
        ({"kernel_width": "25"}, TypeError, "kernel_width"),
        ({"num_features": 0}, ValueError, "num_features"),
        ({"num_features": 2.5}, TypeError, "num_features"),
        ({"feature_selection": "lasso"}, ValueError, "feature_selection"),
        ({"second_moment": "1"}, TypeError, "second_moment"),
    ],
)
def test_argument_validation(kwargs, error, match):
    arguments = {"beta": [0.1, 1.0, -0.5], "kernel_width": 25} | kwargs
    with pytest.raises(error, match=match):
        lime_selection_limit(**arguments)


def test_the_result_is_frozen():
    limit = lime_selection_limit([0.1, 1.0, -0.5], kernel_width=25)
    assert isinstance(limit, SelectionLimit)
    with pytest.raises(AttributeError):
        limit.score = 1.0


def test_selection_probability_of_highest_weights_against_quadrature():
    """Independent normals, k = 1: P(|X_1| > |X_j| for all j) is a one-dimensional integral."""
    beta = np.array([0.0, 1.0, 0.8, -0.7])
    std = np.array([0.0, 0.2, 0.25, 0.3])
    result = selection_probability(
        beta, beta, np.diag(std**2), kernel_width=25, num_features=1, feature_selection="highest_weights", draws=40000
    )

    def density_times_rest(x):
        first = stats.norm.pdf(x, 1.0, 0.2) + stats.norm.pdf(-x, 1.0, 0.2)  # density of |X_1| at x >= 0
        rest = [stats.norm.cdf(x, m, s) - stats.norm.cdf(-x, m, s) for m, s in zip(beta[2:], std[2:], strict=True)]
        return first * np.prod(rest)

    exact, _ = integrate.quad(density_times_rest, 0, 10)
    assert abs(result.probability - exact) < 4 * result.stderr  # tol: 4 Monte Carlo standard errors
    assert result.stderr == pytest.approx(np.sqrt(exact * (1 - exact) / 40000), rel=0.05)  # tol: p within 4 se


def test_selection_probability_is_one_far_from_a_tie_and_seeded():
    beta = np.array([0.0, 1.0, -0.1, 0.05, 0.5])
    cov = np.diag([0.0, 1e-4, 1e-4, 1e-4, 1e-4])
    for method in ("highest_weights", "forward_selection", "lasso_path"):
        result = selection_probability(
            beta, beta, cov, kernel_width=25, num_features=2, feature_selection=method, draws=200
        )
        assert result.probability == 1.0 and result.stderr == 0.0
    near = np.array([0.0, 1.0, 0.99, 0.05, 0.5])
    first = selection_probability(near, near, np.eye(5) * 0.01, kernel_width=25, num_features=1, draws=500, seed=3)
    again = selection_probability(near, near, np.eye(5) * 0.01, kernel_width=25, num_features=1, draws=500, seed=3)
    assert first == again and 0.2 < first.probability < 0.8


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"centre": [0.0, 1.0]}, ValueError, "centre"),
        ({"covariance": np.eye(2)}, ValueError, "covariance"),
        ({"covariance": np.array([[1.0, 0, 0], [0, 1.0, 0.5], [0, 0.0, 1.0]])}, ValueError, "symmetric"),
        ({"covariance": np.diag([1.0, 1.0, -1.0])}, ValueError, "semi-definite"),
        ({"draws": 0}, ValueError, "draws"),
        ({"seed": 1.5}, TypeError, "seed"),
    ],
)
def test_selection_probability_validation(kwargs, error, match):
    arguments = {"beta": [0.1, 1.0, -0.5], "centre": [0.1, 1.0, -0.5], "covariance": np.eye(3), "kernel_width": 25}
    with pytest.raises(error, match=match):
        selection_probability(**(arguments | kwargs))


@pytest.mark.parametrize("method", ["none", "highest_weights", "forward_selection", "lasso_path"])
def test_a_beta_whose_squares_overflow_is_refused_and_a_large_one_scales(method):
    # the selection and the refit are homogeneous in beta (the selection of degree 0, the coefficients of degree 1),
    # so beta x 1e100 gives the same words and 1e100 times the coefficients, to the rounding of each product (a few
    # ulps: the scale is a power of ten, not of two); at 1e300 the squares overflow and the call is refused
    beta = np.array([0.2, 1.0, -0.5, 0.1, 0.05])
    small = lime_selection_limit(beta, kernel_width=25, num_features=2, feature_selection=method)
    large = lime_selection_limit(beta * 1e100, kernel_width=25, num_features=2, feature_selection=method)
    assert large.selected.tolist() == small.selected.tolist()
    np.testing.assert_allclose(large.coefficients, small.coefficients * 1e100, rtol=1e-13)
    huge = np.array([0.0, 0.0, 0.0, 0.0, 1e300])
    with pytest.raises(ValueError, match="too large"):
        lime_selection_limit(huge, kernel_width=1.0, num_features=2, feature_selection=method)
