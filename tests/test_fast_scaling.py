"""The fast engine as the work grows: lime's ridge in the primal or the dual, sparse counts, memory, the cost page.

Tolerances: two backward-stable solutions of the ridge system A c = b (A = X^T X + I or X X^T + I, which have
the same condition number kappa, since the nonzero eigenvalues of X^T X and X X^T coincide) differ by at most
about kappa times the relative backward errors, each a small multiple of m * eps for sums of m terms
(forming the Gram matrix) -- we allow 8 m eps kappa relative to the size of the solution, and check that the
bound stays far below the size of the coefficients, so that the comparison is not vacuous.
"""

from __future__ import annotations

import importlib.util
import json
import re
import sys
import tracemalloc
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression, Ridge

import limetheory as lt
from limetheory.book import fit_yelp_vectorizer
from limetheory.engine import lime_sampler
from limetheory.engine.ridge import ridge_coefficients
from limetheory.engine.tokens import DocumentCounts

ROOT = Path(__file__).resolve().parent.parent
EPS = np.finfo(float).eps


def ridge_tolerance(z, weights, beta):
    """8 m eps kappa (|beta| + 1): the round-off allowed between two solutions of lime's ridge system (see top)."""
    z = np.asarray(z, float)
    n, d = z.shape
    mean = weights @ z / weights.sum()
    x = (z - mean) * np.sqrt(weights)[:, None]
    small = x @ x.T if n < d else x.T @ x
    kappa = np.linalg.cond(small + np.eye(len(small)))
    return 8 * max(n, d) * EPS * kappa * (np.abs(beta).max() + 1.0)


def sklearn_ridge(z, y, weights):
    fit = Ridge(alpha=1.0, fit_intercept=True).fit(np.asarray(z, float), y, sample_weight=weights)
    return np.concatenate([[fit.intercept_], fit.coef_])


# ----------------------------------------------------------------------------- the ridge, primal and dual


@pytest.mark.parametrize(("n", "d"), [(40, 120), (300, 25), (64, 64), (7, 500)])
@pytest.mark.parametrize("form", ["auto", "primal", "dual"])
def test_ridge_coefficients_equal_sklearn_ridge(n, d, form):
    rng = np.random.default_rng(n * d)
    z = (rng.random((n, d)) < rng.random((n, 1))).astype(np.int8)
    z[0] = 1
    y = rng.random(n) + z[:, :3].sum(axis=1)
    weights = np.exp(-rng.exponential(2.0, n))  # spans orders of magnitude, as lime's kernel does
    expected = sklearn_ridge(z, y, weights)
    ours = ridge_coefficients(z, y, weights, form=form)
    tolerance = ridge_tolerance(z, weights, expected)
    assert tolerance < 1e-6 * np.abs(expected).max()  # the bound is far from vacuous
    np.testing.assert_allclose(ours, expected, rtol=0, atol=tolerance)


def test_ridge_blocks_do_not_change_the_solution(monkeypatch):
    """Blocks of one row / one column give the same coefficients as one block (sums regrouped: round-off)."""
    rng = np.random.default_rng(5)
    for n, d in [(50, 9), (9, 50)]:
        z = (rng.random((n, d)) < 0.5).astype(np.int8)
        y, weights = rng.random(n), rng.random(n) + 0.1
        whole = ridge_coefficients(z, y, weights)
        with monkeypatch.context() as patch:
            patch.setattr("limetheory.engine.ridge.BLOCK_ENTRIES", 1)
            blocked = ridge_coefficients(z, y, weights)
        np.testing.assert_allclose(blocked, whole, rtol=0, atol=ridge_tolerance(z, weights, whole))


def limes_law_run(d, num_samples, seed, kernel_width=25.0):
    """Masks drawn as lime draws them (RandomState: randint, then choice per row), lime's weights, smooth responses."""
    state = np.random.RandomState(seed)
    z = np.ones((num_samples, d), dtype=np.int8)
    for row, size in enumerate(state.randint(1, d + 1, num_samples - 1), start=1):
        z[row, state.choice(range(d), size, replace=False)] = 0
    distance = 100.0 * (1.0 - np.sqrt(z.sum(axis=1) / d))
    weights = np.sqrt(np.exp(-(distance**2) / kernel_width**2))
    score = z @ np.linspace(-1.0, 1.0, d) + 0.3 * z[:, 0] * z[:, -1]
    return z, 1.0 / (1.0 + np.exp(-3.0 * score)), weights


def exact_ridge(z, y, weights):
    """lime's ridge (alpha = 1, intercept unpenalised) in rational arithmetic on the float inputs.

    The normal equations' sums are exact, so they may be grouped by distinct row (exact sums do not depend on the
    order): the sums of the weights and of weight x response per row, then the (d + 1) x (d + 1) system.
    """
    size = z.shape[1] + 1
    totals = {}
    for row, w, value in zip(map(tuple, np.asarray(z, dtype=int).tolist()), weights.tolist(), y.tolist(), strict=True):
        weight, weighted = totals.get(row, (Fraction(0), Fraction(0)))
        totals[row] = (weight + Fraction(w), weighted + Fraction(w) * Fraction(value))
    system = [[Fraction(0)] * size for _ in range(size)]
    rhs = [Fraction(0)] * size
    for row, (weight, weighted) in totals.items():
        vector = (1, *row)
        for a in range(size):
            rhs[a] += weighted * vector[a]
            for b in range(size):
                system[a][b] += weight * vector[a] * vector[b]
    for a in range(1, size):
        system[a][a] += 1
    augmented = [system[a] + [rhs[a]] for a in range(size)]
    for col in range(size):  # Gauss-Jordan: the matrix is positive definite, every pivot is non-zero
        for row in range(size):
            if row != col:
                factor = augmented[row][col] / augmented[col][col]
                augmented[row] = [p - factor * q for p, q in zip(augmented[row], augmented[col], strict=True)]
    return np.array([float(augmented[a][size] / augmented[a][a]) for a in range(size)])


@pytest.mark.parametrize("d", [2, 3, 4])
def test_short_documents_solve_limes_ridge_to_round_off_of_the_condition_number(d):
    """Against the exact rational solution: error <= 4 (d + 2) eps kappa |beta|, where sums over n rows would not do.

    The merged system is formed from at most 2^d correctly rounded sums (one rounding each) and solved by Cholesky:
    its forward error is a small multiple of (d + 1) eps kappa (Higham, Thm 10.4) -- we allow 4 (d + 2).  kappa is
    the condition number of lime's centred system (about 330 at d = 2, where lime's weights put almost all the mass
    on the two one-word masks).  scikit-learn's unmerged solve, whose sums run over n = 5000 rows, misses this bound
    at d = 2 on these seeds (1e-12, against 1e-14 here), as lime itself does.
    """
    worst_ratio = 0.0
    for seed in range(3):
        z, y, weights = limes_law_run(d, 5000, seed)
        exact = exact_ridge(z, y, weights)
        x = (z - weights @ z / weights.sum()) * np.sqrt(weights)[:, None]
        kappa = np.linalg.cond(x.T @ x + np.eye(d))
        bound = 4 * (d + 2) * EPS * kappa * np.abs(exact).max()
        error = np.abs(ridge_coefficients(z, y, weights) - exact).max()
        assert error <= bound, (seed, error, bound)
        worst_ratio = max(worst_ratio, np.abs(sklearn_ridge(z, y, weights) - exact).max() / bound)
    if d == 2:
        assert worst_ratio > 1.0  # the unmerged solve is outside the bound: the test can tell the two apart


@pytest.mark.parametrize(
    ("arguments", "error", "message"),
    [
        (dict(alpha=0.0), ValueError, "alpha must be > 0"),
        (dict(alpha=np.inf), ValueError, "alpha must be > 0"),
        (dict(alpha="1"), TypeError, "alpha must be a real number"),
        (dict(z=np.ones(5)), ValueError, "z must be a non-empty 2-d"),
        (dict(z=np.array([["a", "b"]] * 5)), TypeError, "z must hold real numbers"),
        (dict(y=np.ones(4)), ValueError, "y must have shape"),
        (dict(weights=np.ones(6)), ValueError, "weights must have shape"),
        (dict(y=np.full(5, np.nan)), ValueError, "y must be finite"),
        (dict(weights=-np.ones(5)), ValueError, "weights must be finite, >= 0"),
        (dict(weights=np.zeros(5)), ValueError, "not all 0"),
        (dict(form="qr"), ValueError, "form must be"),
    ],
)
def test_ridge_coefficients_refuses_bad_input(arguments, error, message):
    base = dict(z=np.eye(5, 3), y=np.arange(5.0), weights=np.ones(5))
    with pytest.raises(error, match=message):
        ridge_coefficients(**{**base, **arguments})


# ----------------------------------------------------------------------------- against real lime, n < d and n > d


@pytest.fixture(scope="module")
def long_setting(data_dir):
    """A document of the lower-cased Yelp reviews joined, with d = 180 distinct words, and a logistic regression."""
    reviews = lt.load_yelp_reviews()
    texts = [text.lower() for text in reviews.text]
    vectorizer = fit_yelp_vectorizer(texts)
    model = LogisticRegression(C=10.0, max_iter=1000).fit(vectorizer.transform(texts), reviews.stars.to_numpy())
    joined, seen = " ".join(texts), set()
    for match in re.finditer(r"\w+", joined):
        seen.add(match.group())
        if len(seen) == 180:
            return joined[: match.end()], vectorizer, model.predict_proba


@pytest.mark.parametrize("num_samples", [60, 400])  # the dual (n < d = 180) and the primal (n > d)
def test_exact_stream_equals_real_lime_on_both_sides_of_d(long_setting, num_samples):
    text, vectorizer, model_fn = long_setting
    arguments = dict(n_exp=2, num_samples=num_samples, kernel_width=25, label=1, random_state=3)
    reference = lt.lime_explanations(text, lambda docs: model_fn(vectorizer.transform(docs)), **arguments)
    ours = lt.fast_lime_explanations(text, vectorizer, model_fn, **arguments)
    samples = lt.fast_lime_samples(text, vectorizer, model_fn, **arguments)
    assert ours.shape == reference.shape == (2, 181)
    for run in range(2):
        tolerance = ridge_tolerance(samples.z[run], samples.weights[run], reference[run])
        assert tolerance < 1e-6 * np.abs(reference[run]).max()
        np.testing.assert_allclose(ours[run], reference[run], rtol=0, atol=tolerance)


def test_long_document_tfidf_is_bitwise_the_vectorizers(long_setting):
    text, vectorizer, _ = long_setting
    document = DocumentCounts(text, vectorizer)
    rng = np.random.default_rng(8)
    masks = (rng.random((40, document.d)) < rng.random((40, 1))).astype(np.int8)
    ours = document.transform(masks)
    truth = vectorizer.transform(document.documents(masks))
    np.testing.assert_array_equal(ours.indptr, truth.indptr)
    np.testing.assert_array_equal(ours.indices, truth.indices)
    np.testing.assert_array_equal(ours.data, truth.data)


# ----------------------------------------------------------------------------- memory and the pieces behind it


def test_memory_stays_linear_in_n_times_d_when_n_is_small():
    """With n << d the engine allocates O(n d + n^2), never a (d x d) matrix (the old normal equations did)."""
    d, n = 3000, 60
    words = [f"w{k}" for k in range(d)]
    text = " ".join(words)
    vectorizer = TfidfVectorizer().fit([text, " ".join(words[::2])])

    def model_fn(matrix):
        score = np.asarray(matrix.sum(axis=1)).ravel()
        return np.column_stack([1 - score / 2, score / 2])

    lt.fast_lime_explanations(text, vectorizer, model_fn, n_exp=1, num_samples=n)  # imports and caches first
    tracemalloc.start()
    try:
        lt.fast_lime_explanations(text, vectorizer, model_fn, n_exp=1, num_samples=n)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # one dense (d x d) float64 matrix would take 72 MB; we allow a quarter of it
    assert peak < d * d * 8 / 4, f"peak {peak / 1e6:.1f} MB"


def test_distance_table_for_some_kept_counts_is_the_full_tables():
    for d in [2, 9, 64, 300]:
        full = lime_sampler._distance_table(d)
        kept = np.random.default_rng(d).integers(0, d + 1, size=7)
        part = lime_sampler._distance_table(d, kept)
        np.testing.assert_array_equal(part[kept], full[kept])  # bit for bit
        assert np.isnan(np.delete(part, kept)).all()


def test_distance_table_in_blocks_is_the_same(monkeypatch):
    full = lime_sampler._distance_table(50)
    monkeypatch.setattr(lime_sampler, "_MAX_CHUNK_ENTRIES", 30)
    np.testing.assert_array_equal(lime_sampler._distance_table(50), full)


def test_batched_masks_are_selection_sampling_of_the_documented_draws():
    """Independent computation: s_i, then an (d, n - 1) block of uniforms per run, word j removed when
    u_j < (words still to remove) / (d - j)."""
    d, n, runs = 7, 50, 3
    masks = lime_sampler._batched_masks(np.random.default_rng(4), d, n, runs)
    rng = np.random.default_rng(4)
    for run in range(runs):
        sizes = rng.integers(1, d + 1, size=n - 1)
        uniforms = rng.random((d, n - 1))
        assert (masks[run, 0] == 1).all()
        for i in range(n - 1):
            left = sizes[i]
            for j in range(d):
                removed = uniforms[j, i] < left / (d - j)
                assert masks[run, i + 1, j] == (not removed)
                left -= removed
            assert masks[run, i + 1].sum() == d - sizes[i]


def test_lime_stream_masks_are_limes_choice_draws():
    """Independent computation: lime's own calls, randint then choice(range(d), s, replace=False) per sample."""
    d, n = 12, 40
    masks = lime_sampler._lime_stream_masks(np.random.RandomState(6), d, n)
    state = np.random.RandomState(6)
    sizes = state.randint(1, d + 1, n - 1)
    expected = np.ones((n, d), dtype=np.int8)
    for i, size in enumerate(sizes, 1):
        expected[i, state.choice(range(d), size, replace=False)] = 0
    np.testing.assert_array_equal(masks, expected)


# ----------------------------------------------------------------------------- the book page's generated results


def _scaling_module():
    spec = importlib.util.spec_from_file_location("scaling_benchmark", ROOT / "benchmarks" / "scaling.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("scaling_benchmark", module)
    spec.loader.exec_module(module)
    return module


def test_cost_page_table_is_rendered_from_the_stored_results():
    """book/_generated/costs-results.md is what benchmarks/scaling.py renders from benchmarks/results/scaling.json."""
    scaling = _scaling_module()
    results = json.loads(scaling.RESULTS.read_text())
    assert scaling.TABLE.read_text() == scaling.table_markdown(results)
    for path in scaling.FIGURES.values():
        assert path.is_file() and path.read_text().lstrip().startswith("<?xml")


def test_growth_exponents_recover_a_known_power_law():
    scaling = _scaling_module()
    points = [
        {"method": "lime", "d": d, "n": n, "cpu": 1e-9 * d**1.5 * n**0.75}
        for d in (1000, 3000, 10000)
        for n in (300, 1000, 5000)
    ]
    a, b = scaling.growth_exponents({"points": points}, "lime")
    assert a == pytest.approx(1.5, rel=1e-9) and b == pytest.approx(0.75, rel=1e-9)


@pytest.mark.parametrize("d", [1, 2, 3, 10, 29, 100, 257, 1000, 4099])
def test_replayed_distances_are_the_real_calls_bit_for_bit(d):
    """_lime_distances replays sklearn's cosine_distances arithmetic; _distance_table makes the call (lime_sampler)."""
    kept = np.arange(d + 1)
    np.testing.assert_array_equal(lime_sampler._lime_distances(d, kept), lime_sampler._distance_table(d))
    some = np.random.default_rng(d).integers(0, d + 1, size=5)
    assert np.isnan(np.delete(lime_sampler._lime_distances(d, some), some)).all()


def test_fast_engine_at_d_2_is_within_the_condition_number_bound_of_the_exact_solution():
    """The engine's explanation of a two-word document against the exact rational ridge of its own samples."""
    vectorizer = TfidfVectorizer().fit(["good food", "bad food", "good service", "bad service great"])

    def model(matrix):
        score = np.asarray(matrix @ np.linspace(-1.0, 1.0, matrix.shape[1])).ravel()
        p = 1.0 / (1.0 + np.exp(-3.0 * score))
        return np.column_stack([1.0 - p, p])

    for seed in range(2):
        samples = lt.fast_lime_samples("good food", vectorizer, model, num_samples=5000, random_state=seed)
        beta = lt.fast_lime_explanations("good food", vectorizer, model, n_exp=1, num_samples=5000, random_state=seed)
        z, y, weights = samples.z[0], samples.y[0], samples.weights[0]
        exact = exact_ridge(z, y, weights)
        x = (z - weights @ z / weights.sum()) * np.sqrt(weights)[:, None]
        kappa = np.linalg.cond(x.T @ x + np.eye(2))
        assert kappa > 100  # lime's weights make d = 2 ill-conditioned: the bound is not loose by construction
        np.testing.assert_allclose(beta[0], exact, rtol=0, atol=4 * 4 * EPS * kappa * np.abs(exact).max())


@pytest.mark.parametrize("d", [1, 5, 33, 64, 65])
def test_unique_rows_are_the_distinct_rows_in_key_order(d):
    """Independent computation: each row's key sum(bit_j << j) as a Python int (beyond 64 words its bytes, least
    significant first, compared as bytes), then the distinct keys in order."""
    rng = np.random.default_rng(d)
    masks = (rng.random((400, d)) < rng.random((400, 1))).astype(np.int8) * 3  # any nonzero entry is a kept word
    masks[:50] = masks[50:100]  # repeated rows
    for rows in (masks, masks.astype(bool), masks[::3]):  # int8, bool, a strided view
        keys = [sum(1 << j for j in np.flatnonzero(row).tolist()) for row in rows]
        if d > 64:
            keys = [key.to_bytes((d + 7) // 8, "little") for key in keys]
        distinct = sorted(set(keys))
        first = [keys.index(key) for key in distinct]
        unique, inverse = lime_sampler._unique_rows(rows)
        np.testing.assert_array_equal(unique, rows[first])
        assert unique.dtype == rows.dtype
        np.testing.assert_array_equal(inverse, [distinct.index(key) for key in keys])
    empty, none = lime_sampler._unique_rows(masks[:0])
    assert empty.shape == (0, d) and none.shape == (0,)
