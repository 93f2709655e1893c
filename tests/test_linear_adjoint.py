"""``linear_adjoint``: the shared columns' members by the gradient of Ψ = Σ_s m_s E[f | s], against enumeration and
against the leave-one-out route (``linear_moments.quadrature_moments``), and its fallback beyond its memory budget."""

from __future__ import annotations

import math
import types

import numpy as np
import pytest

import limetheory as lt
from limetheory.theory.linear import linear_adjoint, linear_moments, subset_means
from limetheory.theory.linear.linear_exact import MOMENTS_ACCURACY, beta_linear_exact
from limetheory.theory.linear.linear_quadrature import inverse_power_quadrature
from limetheory.theory.linear.tfidf_model import scale_free_model

EPS = np.finfo(float).eps


def _grouped_document(d, columns, seed):
    """d words over ``columns`` columns (words of one column share it and its λ), a few invisible words."""
    rng = np.random.default_rng(seed)
    groups = rng.integers(0, columns, d)
    groups[rng.random(d) < 0.1] = -1
    lam = rng.normal(size=columns)[np.maximum(groups, 0)]
    tfidf = np.where(groups >= 0, rng.choice([1.0, 2.0, 3.5], d) * rng.uniform(1.0, 4.0, columns)[groups], 0.0)
    return lam, tfidf, groups


def _enumerated(lam, tfidf, groups, norm):
    """E[f | s] and E[z_k f | s] (s = 1..d) over every mask: the columns summed, then normalised."""
    d = lam.size
    z = ((np.arange(2**d)[:, None] >> np.arange(d)) & 1).astype(float)
    columns = np.zeros((d, max(int(groups.max()) + 1, 1)))
    visible = groups >= 0
    columns[np.flatnonzero(visible), groups[visible]] = tfidf[visible]
    values = z @ columns
    coefficient = np.zeros(columns.shape[1])
    coefficient[groups[visible]] = lam[visible]
    total = np.sqrt((values**2).sum(axis=1)) if norm == "l2" else values.sum(axis=1)
    f = np.divide(values @ coefficient, total, out=np.zeros(2**d), where=total > 0)
    removed = d - z.sum(axis=1).astype(int)
    counts = np.array([math.comb(d, s) for s in range(1, d + 1)], float)
    f_given_s = np.bincount(removed, weights=f, minlength=d + 1)[1:] / counts
    zf = np.stack([np.bincount(removed, weights=f * z[:, k], minlength=d + 1)[1:] / counts for k in range(d)], 1)
    return f_given_s, zf


@pytest.mark.parametrize(("d", "columns", "seed"), [(6, 3, 0), (9, 4, 1), (11, 5, 2), (12, 4, 3)])
@pytest.mark.parametrize("nu", [0.25, np.inf])
def test_moments_match_enumeration(d, columns, seed, nu):
    """E[f | s] and Σ_s m_s E[z_k f | s] against the 2^d masks: within MOMENTS_ACCURACY |f|(ξ) (|f|(ξ) = Σ|w|), the
    route's accuracy for every moment, which a weighted sum with Σ_s m_s <= 1 keeps."""
    lam, tfidf, groups = _grouped_document(d, columns, seed)
    model = scale_free_model(lam, tfidf, groups, "l2")
    assert model.shared  # the gradient's part is exercised
    law = lt.theory.law.weighted_law(d, nu)
    f_given_s, mean_zf = linear_adjoint.adjoint_moments(model, law.m)
    expected_f, expected_zf = _enumerated(lam, tfidf, groups, "l2")
    unit = np.abs(model.w).sum()
    np.testing.assert_allclose(f_given_s, expected_f, rtol=0, atol=MOMENTS_ACCURACY * unit)
    np.testing.assert_allclose(mean_zf, law.m @ expected_zf, rtol=0, atol=MOMENTS_ACCURACY * unit)


@pytest.mark.parametrize(
    ("d", "columns", "seed", "norm"),
    [(30, 22, 1, "l2"), (60, 45, 2, "l2"), (200, 150, 4, "l2"), (400, 330, 5, "l2"), (80, 60, 6, "l1")],
)
def test_agrees_with_the_leave_one_out_route(d, columns, seed, norm):
    """The same moments as quadrature_moments' weighted sums, E[f | s] and every word's within 4 d eps Σ|w|: both
    routes sum the same terms in other orders (the factors' exponentials and the sums over the nodes are compiled
    loops here, numpy's there), each step adding a few roundings relative to the same sums with |w| (at most Σ|w|),
    over d steps."""
    lam, tfidf, groups = _grouped_document(d, columns, seed)
    model = scale_free_model(lam, tfidf, groups, norm)
    law = lt.theory.law.weighted_law(d, 0.25)
    f_given_s, mean_zf = linear_adjoint.adjoint_moments(model, law.m)
    moments = linear_moments.quadrature_moments(model)
    np.testing.assert_allclose(f_given_s, moments.f_given_s, rtol=0, atol=4 * d * EPS * np.abs(model.w).sum())
    np.testing.assert_allclose(mean_zf, moments.weighted(law.m), rtol=0, atol=4 * d * EPS * np.abs(model.w).sum())


def test_beta_takes_the_gradient_route_below_its_budget(monkeypatch):
    """beta_linear_exact is adjoint_beta's β; with no budget for the columns' states the leave-one-out route answers,
    and the two agree within 4 d eps Σ|w| (divided by Σ's smallest scale, bulk_ratio, for the words)."""
    lam, tfidf, groups = _grouped_document(120, 80, 7)
    model = scale_free_model(lam, tfidf, groups, "l2")
    law = lt.theory.law.weighted_law(120, 0.25)
    beta = beta_linear_exact(lam, tfidf, nu=0.25, groups=groups)
    np.testing.assert_array_equal(beta, linear_adjoint.adjoint_beta(model, law))
    monkeypatch.setattr(linear_adjoint, "ADJOINT_MAX_ENTRIES", 0)
    assert linear_adjoint.adjoint_beta(model, law) is None
    moments = linear_moments.quadrature_moments(model)
    expected = linear_moments.beta_from_weighted_moments(law, moments.f_given_s, moments.weighted(law.m))
    np.testing.assert_array_equal(beta_linear_exact(lam, tfidf, nu=0.25, groups=groups), expected)
    scale = 4 * 120 * EPS * np.abs(model.w).sum() * (1 + 1 / law.bulk_ratio)
    np.testing.assert_allclose(beta, expected, rtol=0, atol=scale)


@pytest.mark.parametrize("n", [1, 2, 3, 7, 64, 333])
def test_prepare_kernel_groups_the_singles_by_distinct_weight_as_a_stable_sort(n):
    """_prepare_kernel's merge sort (written out) gives np.unique's classes, each taking its first single's column."""
    rng = np.random.default_rng(n)
    d = n + 2
    omega = rng.integers(0, max(n // 3, 1) + 1, size=d) * 0.25  # ties, in no order
    singles = np.sort(rng.permutation(d)[:n])
    u = np.array([0.1, 0.7])
    rest = np.arange(d) * 0.5
    limit = subset_means.NEGLIGIBLE_LIMIT
    factors, x, rest_first, class_of, _, _ = linear_adjoint._prepare_kernel(omega, rest, singles, u, np.ones(d), limit)
    _, first, inverse = np.unique(omega[singles], return_index=True, return_inverse=True)
    assert np.array_equal(class_of, inverse)
    assert np.array_equal(x, factors[:, first]) and np.array_equal(rest_first, rest[singles[first]])
    # each node's negligible sizes, as subset_means.negligible_sizes finds them (np.sort, np.cumsum, np.searchsorted)
    sums = np.unique(np.cumsum(np.sort(omega)))  # nodes whose bound is one of the sums: ties, found on the right
    for nodes in (u, np.array([1e-3, 1.0, 600.0, 2300.0, 1e6]), limit / sums[sums > 0][-3:]):
        model = types.SimpleNamespace(omega=omega, d=d)
        got = linear_adjoint._prepare_kernel(omega, rest, singles, nodes, np.ones(d), limit)[5]
        np.testing.assert_array_equal(got, subset_means.negligible_sizes(model, nodes))


def test_forward_means_stop_at_each_nodes_negligible_size():
    """full_means with ``tops`` (adjoint_moments passes each node's negligible size): node b's means below tops[b]
    are those of the untruncated recursion to the bit, and its sizes from tops[b] on are 0 (their means are below
    subset_means._NEGLIGIBLE_MEAN, 1e-250, in the untruncated recursion: nothing the sums could see)."""
    lam, tfidf, groups = _grouped_document(120, 120, 3)
    model = scale_free_model(lam, tfidf, groups, "l2")
    nodes, _ = inverse_power_quadrature(model.r_min, model.power)
    tops = subset_means.negligible_sizes(model, nodes)
    assert tops[-1] < model.d  # some nodes are truncated
    factors = np.exp(-np.outer(nodes, model.omega[model.singles]))
    P, Pw = subset_means.full_means(factors, model.w[model.singles])
    P_cut, Pw_cut = subset_means.full_means(factors, model.w[model.singles], None, tops)
    for b, top in enumerate(tops):
        np.testing.assert_array_equal(P_cut[b, :top], P[b, :top])
        np.testing.assert_array_equal(Pw_cut[b, :top], Pw[b, :top])
        assert not P_cut[b, top:].any() and not Pw_cut[b, top:].any()
        assert (P[b, top:] < 1e-250).all()  # tol: subset_means._NEGLIGIBLE_MEAN, the threshold that tops stand for


def test_truncation_limit_drops_sizes_within_its_share(monkeypatch):
    """truncation_limit: ln(sum w) - ln(TRUNCATION_SHARE), below NEGLIGIBLE_LIMIT; on a 120-word document it drops
    sizes at the nodes of large u that the old limit kept, and the moments move by rounding only (within 4 d eps
    sum|w|, the recursions' own accuracy: the dropped terms are below 1e-17 of |f(K)| for each kept set K)."""
    lam, tfidf, groups = _grouped_document(120, 120, 3)
    model = scale_free_model(lam, tfidf, groups, "l2")
    nodes, weights = inverse_power_quadrature(model.r_min, model.power)
    limit = linear_adjoint.truncation_limit(weights)
    assert limit == pytest.approx(np.log(weights.sum()) + np.log(1e17), rel=1e-15)
    assert limit < subset_means.NEGLIGIBLE_LIMIT
    assert math.exp(-limit) * weights.sum() <= 1.0000001 * linear_adjoint.TRUNCATION_SHARE
    lightest = np.concatenate([[0.0], np.cumsum(np.sort(model.omega))])
    tops_new = np.searchsorted(lightest, limit / nodes, side="right").clip(max=model.d + 1)
    assert (tops_new < subset_means.negligible_sizes(model, nodes)).sum() >= 5  # sizes dropped at several nodes
    law = lt.theory.law.weighted_law(120, 0.25)
    f_given_s, mean_zf = linear_adjoint.adjoint_moments(model, law.m)
    # the rule and its limit are cached together (quadrature_and_limit): the old limit replaces the pair
    old_rule = lambda r_min, power: (*inverse_power_quadrature(r_min, power), subset_means.NEGLIGIBLE_LIMIT)  # noqa: E731
    monkeypatch.setattr(linear_adjoint, "quadrature_and_limit", old_rule)
    f_old, zf_old = linear_adjoint.adjoint_moments(model, law.m)
    unit = 4 * 120 * EPS * np.abs(model.w).sum()
    np.testing.assert_allclose(f_given_s, f_old, rtol=0, atol=unit)
    np.testing.assert_allclose(mean_zf, zf_old, rtol=0, atol=unit)


@pytest.mark.parametrize("power", [0.5, 1.0])
def test_quadrature_and_limit_is_the_rule_and_its_truncation_limit(power):
    """The cached (nodes, weights, limit) are inverse_power_quadrature's arrays and truncation_limit of its weights,
    to the bit, for r_min across the rules' range (the cache is keyed by the rule's last grid point)."""
    for r_min in np.geomspace(1e-12, 1.0, 37):
        nodes, weights, limit = linear_adjoint.quadrature_and_limit(r_min, power)
        expected_nodes, expected_weights = inverse_power_quadrature(r_min, power)
        np.testing.assert_array_equal(nodes, expected_nodes)
        np.testing.assert_array_equal(weights, expected_weights)
        assert limit == linear_adjoint.truncation_limit(expected_weights)


def test_flat_moments_are_adjoint_moments_of_the_model():
    """flat_adjoint_moments on a model's arrays and its columns concatenated: adjoint_moments' answer, to the bit."""
    lam, tfidf, groups = _grouped_document(60, 20, 5)
    model = scale_free_model(lam, tfidf, groups, "l2")
    assert model.shared  # the document has shared columns
    law = lt.theory.law.weighted_law(60, 0.25)
    members = np.concatenate(model.shared)
    sizes = np.array([column.size for column in model.shared], dtype=np.int64)
    arrays = (model.t, model.omega, model.w, model.singles, model.rest)
    flat = linear_adjoint.flat_adjoint_moments(model.d, model.power, arrays, model.r_min, members, sizes, law.m)
    for got, expected in zip(flat, linear_adjoint.adjoint_moments(model, law.m), strict=True):
        np.testing.assert_array_equal(got, expected)


def _assembly_written_out(law, f_given_s, mean_zf):
    """beta_from_weighted_moments as it was written before its caches: every product formed, np.mean."""
    gaps = f_given_s[1:] - f_given_s[0]
    dot_centred = float(np.dot(law.w_hat * linear_moments.centred_sizes(law), gaps))
    dot_hat = float(np.dot(law.w_hat, gaps))
    slope = dot_centred / law.var_over_tau
    beta = np.empty(law.d + 1)
    beta[1:] = (mean_zf - mean_zf.mean()) / law.bulk_ratio + slope / law.d
    beta[0] = f_given_s[0] + law.tau * dot_hat - law.a_mean * slope
    return beta


@pytest.mark.parametrize("d", [2, 5, 40, 300, 2100])
def test_assembly_with_its_caches_is_the_written_out_assembly(d):
    """The cached w_hat * centred sizes (by law, also for the uncached laws beyond 2048 words, a new object each
    call) and the mean as one reduction change no bit of β, on the first call and on the later ones."""
    rng = np.random.default_rng(d)
    for _ in range(3):
        law = lt.theory.law.weighted_law(d, 0.25)
        f_given_s, mean_zf = rng.normal(size=d), rng.normal(size=d) * 10.0 ** rng.integers(-5, 5, size=d)
        expected = _assembly_written_out(law, f_given_s, mean_zf)
        for _ in range(2):
            np.testing.assert_array_equal(linear_moments.beta_from_weighted_moments(law, f_given_s, mean_zf), expected)
