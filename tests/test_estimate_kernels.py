"""The default call's faster pieces (issue 37) against the plain code they replaced, bit for bit.

Each piece must give the same numbers as before, to the bit, so that ``explain``'s results did not move: the loops
written out for series of four terms against the general loops (read at five terms, whose first four coefficients
are the same sums), the compiled selection sampling against the loop over words, the enumerated strata against
``itertools.combinations``, the few masks' deduplication against ``np.unique``, Student's widening against
``scipy.stats``.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
import scipy.stats

from limetheory.pipelines.estimate import batch_sums, controls, estimate_batches, strata
from limetheory.pipelines.estimate.controls import ExactPowers, NormalEquations
from limetheory.pipelines.reading.blackbox import unique_masks
from limetheory.pipelines.reading.lime_variance import lime_normal_equations, omega_diagonal_sandwich, solve_patterned
from limetheory.pipelines.reading.mask_samples import MaskSample
from limetheory.theory.linear import linear_powers


def _series_case(seed, order=5):
    rng = np.random.default_rng(seed)
    d, nodes = int(rng.integers(2, 60)), int(rng.integers(1, 60))
    x = rng.random((nodes, d)) ** rng.integers(1, 20)
    x[:, 0] = 1e-300 if seed % 3 == 0 else x[:, 0]  # a word negligible at every node
    w = rng.normal(size=d) * rng.choice([0.01, 1.0, 10.0])
    return rng, d, nodes, x, w


def _assert_four_is_general(rng, nodes, x, w):
    """_deflate_kernel4 (four terms written out, two nodes at once) equals the general loop's first four terms.

    Returns the weights drawn and _deflate_kernel4's result.
    """
    total = linear_powers._product_kernel(x, w, 5)
    weights = rng.random((nodes, 5))
    general = linear_powers._deflate_kernel(total, x, w, weights, 1e-280)
    four = linear_powers._deflate_kernel4(np.ascontiguousarray(total[:, :, :4]), x, w,
                                          np.ascontiguousarray(weights[:, :4]), 1e-280)  # fmt: skip
    assert np.array_equal(four, general[:, :, :4])
    return weights, four


@pytest.mark.parametrize("seed", range(8))
def test_the_deflation_written_out_is_the_general_loop(seed):
    rng, d, nodes, x, w = _series_case(seed)
    _assert_four_is_general(rng, nodes, x, w)


@pytest.mark.parametrize("seed", range(40))
def test_the_deflation_by_pairs_of_nodes_is_the_general_loop(seed):
    # _deflate_kernel4 runs two nodes at once: odd and even numbers of nodes, negligible factors scattered among
    # them (a pair then joins nodes further apart), words that switch to the downward pass at different sizes
    rng, d, nodes, x, w = _series_case(seed)
    x[rng.random(x.shape) < rng.choice([0.0, 0.3, 0.9])] = 1e-300
    weights, four = _assert_four_is_general(rng, nodes, x, w)
    # power_moments at max_power = 2 reads the first three terms of the kernels for four (no shared column)
    three_total = linear_powers._product_kernel(x, w, 3)
    assert np.array_equal(linear_powers._product_kernel(x, w, 4)[:, :, :3], three_total)
    three = linear_powers._deflate_kernel(three_total, x, w, np.ascontiguousarray(weights[:, :3]), 1e-280)
    assert np.array_equal(four[:, :, :3], three)


@pytest.mark.parametrize("seed", range(24))  # _times_columns has its own loops written out for four terms too
def test_the_product_written_out_is_the_general_loop(seed):
    rng, d, nodes, x, w = _series_case(seed)
    columns, length = int(rng.integers(0, 3)), int(rng.integers(1, 4))
    polys = rng.random((columns, nodes, length + 1, 5))
    lengths = np.full(columns, length, dtype=np.int64)
    singles, singles_four = linear_powers._product_kernel(x, w, 5), linear_powers._product_kernel(x, w, 4)
    assert np.array_equal(singles_four, singles[..., :4])
    for skip in range(-1, columns):
        general = linear_powers._times_columns(singles, polys, lengths, skip)
        four = linear_powers._times_columns(singles_four, np.ascontiguousarray(polys[..., :4]), lengths, skip)
        assert np.array_equal(four, general[..., :4])


def _series_product(x, w, polys, lengths, skip, order, magnitude=False):
    """The product of the words' and the columns' polynomials in y (τ-series coefficients), by numpy convolutions."""
    nodes = x.shape[0]
    taus = np.array([w_j**q / math.factorial(q) for w_j in w for q in range(order)]).reshape(len(w), order)
    factors = []
    for j in range(x.shape[1]):
        factor = np.zeros((nodes, 2, order))
        factor[:, 0, 0] = 1.0
        factor[:, 1, :] = x[:, j, None] * taus[j]
        factors.append(factor)
    factors += [polys[c, :, : lengths[c] + 1] for c in range(len(lengths)) if c != skip]
    out = np.zeros((nodes, 1, order))
    out[:, 0, 0] = 1.0
    for factor in factors:
        factor = np.abs(factor) if magnitude else factor
        new = np.zeros((nodes, out.shape[1] + factor.shape[1] - 1, order))
        for a in range(out.shape[1]):
            for i in range(factor.shape[1]):
                for q in range(order):
                    new[:, a + i, q] += (factor[:, i, : q + 1] * out[:, a, q::-1]).sum(axis=1)
        out = new
    return out


# seeds 0 (a word negligible at every node: seed % 3 == 0), 1 and 2 in make test, 3 to 5 in the slow group
@pytest.mark.parametrize("seed", [0, 1, 2, *(pytest.param(seed, marks=pytest.mark.slow) for seed in range(3, 6))])
def test_the_single_words_product_times_the_shared_columns_is_the_whole_product(seed):
    """Against numpy's convolutions of every factor's series: to 1e-12 of the product of the factors' magnitudes
    (a product of ~60 factors of ~4 terms: each of its sums rounds to a few ulps of that magnitude)."""
    rng, d, nodes, x, w = _series_case(seed, order=4)
    columns = int(rng.integers(1, 4))
    lengths = rng.integers(2, 5, columns).astype(np.int64)
    polys = rng.random((columns, nodes, int(lengths.max()) + 1, 4))
    base = linear_powers._product_kernel(x, w, 4)
    for skip in range(-1, columns):
        ours = linear_powers._times_columns(base, polys, lengths, skip)
        reference = _series_product(x, w, polys, lengths, skip, 4)
        magnitude = _series_product(x, np.abs(w), polys, lengths, skip, 4, magnitude=True)
        assert ours.shape == reference.shape
        assert (np.abs(ours - reference) <= 1e-12 * magnitude + 1e-300).all()


def test_the_compiled_convolution_is_the_array_form():
    rng = np.random.default_rng(0)
    member, others, weights = rng.random((7, 3, 4)), rng.random((7, 20, 4)), rng.random((7, 4))
    product = np.zeros((7, 23, 4))
    for i in range(3):
        for q in range(4):
            for r in range(q + 1):
                product[:, i : i + 20, q] += member[:, i, r, None] * others[:, :, q - r]
    expected = np.einsum("bq,baq->aq", weights, product)
    assert np.array_equal(linear_powers._weighted_convolution(member, others, weights, 23), expected)


def _masks_by_words(sizes, d, rng):
    """The selection sampling as it was: one word at a time for all masks, d calls of rng.random(m)."""
    m = len(sizes)
    kept = np.empty((d, m), dtype=bool)
    to_remove = np.asarray(sizes, dtype=float)
    for j in range(d):
        removed = rng.random(m) < to_remove / (d - j)
        np.logical_not(removed, out=kept[j])
        to_remove -= removed
    return np.ascontiguousarray(kept.T)


@pytest.mark.parametrize(("d", "m"), [(2, 1), (7, 50), (30, 2000), (161, 300)])
def test_the_compiled_selection_draws_the_same_masks_from_the_same_stream(d, m, monkeypatch):
    sizes = np.random.default_rng(d).integers(1, d + 1, m)
    monkeypatch.setattr(strata, "_SELECTION_DRAWS", 3 * m)  # several blocks of words
    ours, theirs = np.random.default_rng(1), np.random.default_rng(1)
    z = strata.masks_removing(sizes, d, ours)
    assert z.dtype == bool and z.flags.c_contiguous
    assert np.array_equal(z, _masks_by_words(sizes, d, theirs))
    assert np.array_equal((d - z.sum(axis=1)), sizes)
    assert ours.random() == theirs.random()  # the generators are left in the same state


def test_one_stratum_per_s_draws_no_size():
    grid = strata.make_strata(12, 0.25)
    counts = strata.allocate(grid, 100)
    rng = np.random.default_rng(0)
    bins, sizes = strata.draw_sizes(grid, counts, rng)
    assert np.array_equal(sizes, bins + 1) and rng.random() == np.random.default_rng(0).random()


def _sizes_bin_by_bin(grid, counts, rng):
    """draw_sizes' definition: for each bin, its masks (found among all) draw s from the bin's values (found among
    all s) in proportion to their weights within the bin."""
    bins = np.repeat(np.arange(grid.count), counts)
    sizes = np.zeros(len(bins), dtype=np.int64)
    for b in np.flatnonzero(counts):
        members = np.flatnonzero(grid.bin_of_s == b)
        where = bins == b
        if len(members) == 1:
            sizes[where] = members[0] + 1
        else:
            sizes[where] = rng.choice(members, size=int(counts[b]), p=grid.within[members]) + 1
    return bins, sizes


@pytest.mark.parametrize(("d", "nu"), [(161, 0.25), (488, 0.1), (1000, 1.0)])
def test_binned_sizes_are_the_bin_by_bin_draws(d, nu):
    grid = strata.make_strata(d, nu)
    assert grid.count < d  # binned: several s a bin
    for seed in range(3):
        spread = np.random.default_rng(seed).random(grid.count) + 0.01
        counts = strata.allocate(grid, 5000 + 3000 * seed, spread if seed else None)
        ours, theirs = np.random.default_rng(seed), np.random.default_rng(seed)
        bins, sizes = strata.draw_sizes(grid, counts, ours)
        expected_bins, expected = _sizes_bin_by_bin(grid, counts, theirs)
        assert np.array_equal(bins, expected_bins) and np.array_equal(sizes, expected)
        assert ours.random() == theirs.random()  # the generators are left in the same state


@pytest.mark.parametrize("d", [1, 2, 5, 9, 14])
def test_every_mask_removing_is_itertools_order(d):
    for s in range(1, d + 1):
        removed = np.array(list(itertools.combinations(range(d), s)), dtype=np.int64).reshape(-1, s)
        expected = np.ones((len(removed), d), dtype=bool)
        expected[np.arange(len(removed))[:, None], removed] = False
        z = estimate_batches._every_mask_removing(s, d)
        assert z.dtype == bool and z.flags.c_contiguous and np.array_equal(z, expected)


@pytest.mark.parametrize("seed", range(6))
def test_a_few_masks_are_deduplicated_as_np_unique_does(seed):
    rng = np.random.default_rng(seed)
    for m in (1, 3, 8, 64, 65):
        z = (rng.random((m, int(rng.integers(1, 40)))) < rng.random()).astype(np.int8)
        z[m // 2 :] = z[: m - m // 2] if seed % 2 else z[m // 2 :]  # repeated masks
        unique, inverse = unique_masks(z)
        expected, where = np.unique(z, axis=0, return_inverse=True)
        assert unique.dtype == np.int8 and np.array_equal(unique, expected)
        assert np.array_equal(inverse, where.ravel()) and np.array_equal(unique[inverse], z)


def test_students_widening_is_scipy_stats():
    contributions = np.abs(np.random.default_rng(0).normal(size=(6, 5)))
    counts = np.array([2, 3, 5, 40, 1000, 7])
    scale, dof = estimate_batches.t_widening(contributions, counts)
    assert np.array_equal(scale, scipy.stats.t.ppf(0.975, dof) / scipy.stats.norm.ppf(0.975))


def test_a_repeated_solve_is_the_first_and_rows_refresh_it():
    rng = np.random.default_rng(0)
    fit = NormalEquations(4)
    fit.add(rng.normal(size=(50, 4)), rng.normal(size=50), np.ones(50))
    first = fit.solve()
    first[0, 0] = np.nan  # the caller's copy: the remembered solution is untouched
    again = fit.solve()
    assert np.isfinite(again).all() and np.array_equal(again[1:], first[1:])
    features = rng.normal(size=(50, 4))
    fit.add(features, features @ np.arange(4.0), np.ones(50))
    fresh = NormalEquations(4)
    fresh.matrix, fresh.rhs, fresh.rows = fit.matrix.copy(), fit.rhs.copy(), fit.rows
    assert np.array_equal(fit.solve(), fresh.solve()) and not np.array_equal(fit.solve(), again)


def test_exact_powers_answer_a_view_of_all_the_masks_from_the_masks_and_recompute_anything_else():
    """A batch forms its features on ``z[rows]``, a new view of the same masks when every row is fitted: g is not
    computed again for it, and is for any other array (a part of the masks, another order, a copy changed)."""
    calls = []

    def g(z):
        calls.append(len(z))
        return np.asarray(z, dtype=float) @ np.arange(1.0, 6.0)

    powers = ExactPowers(g, np.zeros((5, 1)), np.zeros((5, 1, 5)))
    z = np.random.default_rng(0).random((40, 5)) < 0.5
    first = powers(z)
    assert powers(z[slice(None)]) is first and powers(z[:]) is first and calls == [40]
    changed = z.copy()
    changed[0] = ~changed[0]
    for other in (z[1:], z[::-1], changed, z.astype(np.int8)):
        assert np.array_equal(powers(other), g(other))
    assert calls == [40, 39, 39, 40, 40, 40, 40, 40, 40]


@pytest.mark.parametrize("seed", range(20))
def test_the_fit_solves_as_scipys_positive_definite_solve(seed):
    """NormalEquations.solve calls LAPACK's dposv: scipy.linalg.solve(assume_a="pos") on the same scaled matrix, bit
    for bit (the weighted products leave the matrix symmetric only to rounding: both read its upper triangle)."""
    rng = np.random.default_rng(seed)
    size, rows = int(rng.integers(2, 60)), int(rng.integers(60, 3000))
    fit = NormalEquations(size, int(rng.integers(1, 3)))
    features = rng.normal(size=(rows, size)) * rng.choice([1e-3, 1.0, 1e3], size=size)
    fit.add(features, rng.normal(size=(rows, fit.rhs.shape[1])), rng.random(rows))
    diagonal = np.diag(fit.matrix).copy()
    scale = np.where(diagonal > 0, diagonal, 1.0)
    matrix = fit.matrix / np.sqrt(np.outer(scale, scale))
    matrix[np.diag_indices_from(matrix)] += controls.FIT_RIDGE
    expected = scipy.linalg.solve(matrix, fit.rhs / np.sqrt(scale)[:, None], assume_a="pos") / np.sqrt(scale)[:, None]
    assert np.array_equal(fit.solve(), expected)


def test_a_fit_that_is_not_positive_definite_is_solved_by_least_squares():
    fit = NormalEquations(3)
    fit.matrix, fit.rhs, fit.rows = np.diag([1.0, -1.0, 1.0]), np.ones((3, 1)), 1  # no Cholesky factor
    # the solve adds FIT_RIDGE = 1e-8 to the scaled diagonal: x_i = 1 / (±1 + 1e-8) is ±1 to 1e-8 relative;
    # rtol 1e-7 leaves a factor 10 for it
    assert np.allclose(fit.solve()[:, 0], [1.0, -1.0, 1.0], rtol=1e-7)


@pytest.mark.parametrize("degree", range(5))
def test_the_polynomials_in_t_are_the_stacked_powers(degree):
    sizes = np.arange(1, 31)
    u = 2.0 * sizes / 30 - 1.0
    expected = np.column_stack([u**k for k in range(degree)]) if degree else np.zeros((30, 0))
    assert np.array_equal(controls.s_basis(sizes, 30, degree), expected)


@pytest.mark.parametrize("seed", range(6))
def test_a_batchs_distinct_sizes_are_np_uniques(seed):
    rng = np.random.default_rng(seed)
    for m in (1, 2, 17, 1000):
        sizes = rng.integers(1, 40, m)
        for case in (np.sort(sizes), sizes):  # drawn bin after bin (sorted), or within bins of several s
            unique, inverse = batch_sums.unique_sizes(case)
            expected, where = np.unique(case, return_inverse=True)
            assert np.array_equal(unique, expected) and np.array_equal(inverse, where.ravel())


def _sandwich_as_it_was(sample, centre, pattern):
    """omega_diagonal_sandwich with the row sums of the masks by z.sum(axis=1)."""
    d = sample.z.shape[1]
    basis = solve_patterned(*pattern, np.eye(min(d, 2) + 1, d + 1))
    corner, edge, gap = basis[0, 0], basis[0, 1], basis[1, 1] - (basis[1, 2] if d >= 2 else 0.0)
    off = basis[1, 2] if d >= 2 else 0.0
    z = sample.z.astype(float)
    size = z.sum(axis=1)
    a = sample.psi * (sample.f - centre[0] - z @ centre[1:])
    pa = sample.prob * a
    pa2 = pa * a
    head, shared = corner + edge * size, edge + off * size
    sums = np.zeros(4) + [pa @ head, pa2 @ head**2, pa @ shared, pa2 @ shared**2]
    tails = np.zeros((d, 2)) + z.T @ np.column_stack([pa, pa2 * (gap * gap + 2.0 * gap * shared)])
    first = np.concatenate([[sums[0]], sums[2] + gap * tails[:, 0]])
    second = np.concatenate([[sums[1]], sums[3] + tails[:, 1]])
    return second - first**2


@pytest.mark.parametrize("d", [2, 9, 39, 160])
def test_limes_sandwich_counts_the_kept_words_exactly(d):
    rng = np.random.default_rng(d)
    m = 3000
    sample = MaskSample(z=(rng.random((m, d)) < rng.random((m, 1))).astype(np.int8), f=rng.random(m),
                        prob=rng.random(m) / m, psi=rng.random(m), exact=False)  # fmt: skip
    centre, pattern = lime_normal_equations(rng.normal(size=d + 1), 0.25, 0.3, 5000)
    assert np.array_equal(
        omega_diagonal_sandwich(sample, centre, pattern), _sandwich_as_it_was(sample, centre, pattern)
    )
