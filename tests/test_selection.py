"""limetheory.engine.selection: lime's feature selection, against lime's own LimeBase.feature_selection on its
samples."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest
from lime.lime_base import LimeBase
from sklearn.linear_model import LogisticRegression

import limetheory as lt
from limetheory.book import EXAMPLE_REVIEW_INDEX, fit_yelp_vectorizer
from limetheory.engine import selection

NUM_FEATURES = [1, 3, 6, 10, 200]  # 200 > d for every review below


class _RememberingLimeBase(LimeBase):
    """lime's LimeBase whose forward selection answers each (arrays, num_features) once per process.

    lime's ``auto`` runs its forward selection for num_features <= 6 (lime's own dispatch, not repeated here), so the
    cases ``auto`` and ``forward_selection`` at 1, 3 and 6 words ask lime the same question on the same samples: its
    seconds of ridge fits are spent once.  The key is a digest of the arrays' bytes and of the random state, and
    num_features; each caller gets its own copy of the answer.
    """

    _answers: dict[tuple, np.ndarray] = {}

    def forward_selection(self, data, labels, weights, num_features):
        arrays = [np.ascontiguousarray(a) for a in (data, labels, weights)]
        digest = hashlib.sha256()
        for array in arrays:
            digest.update(repr((array.dtype.str, array.shape)).encode())
            digest.update(array.tobytes())
        _, keys, position, *_ = self.random_state.get_state()  # the ridge's random_state, as lime built it
        digest.update(keys.tobytes() + repr(position).encode())
        key = (digest.hexdigest(), num_features)
        if key not in self._answers:
            self._answers[key] = super().forward_selection(data, labels, weights, num_features)
        return self._answers[key].copy()


def limes_selection(z, y, weights, num_features, method):
    """lime's own code on the arrays lime fitted (its data is float64 0/1)."""
    chosen = _RememberingLimeBase(kernel_fn=None, random_state=0).feature_selection(
        np.asarray(z, dtype=float), y, weights, num_features, method
    )
    return np.asarray(chosen, dtype=np.int64)


@pytest.fixture
def replays(monkeypatch):
    """Counts the selections that fell back to lime's own code."""
    calls = []
    original = selection._replay

    def counting(*arguments):
        calls.append(arguments[-1])
        return original(*arguments)

    monkeypatch.setattr(selection, "_replay", counting)
    return calls


@pytest.fixture(scope="module")
def lime_runs(data_dir):
    """Masks, responses and weights recorded from real lime runs of a logistic model on four reviews (d 8 to 114)."""
    reviews = lt.load_yelp_reviews()
    texts = list(reviews.text)
    vectorizer = fit_yelp_vectorizer(texts)
    model = LogisticRegression(C=10.0, max_iter=1000).fit(vectorizer.transform(texts), reviews.stars.to_numpy())
    runs = []
    for index, seed in [(EXAMPLE_REVIEW_INDEX, 0), (28, 1), (47, 2), (3, 3)]:
        run = lt.capture_lime_samples(
            texts[index],
            lambda documents: model.predict_proba(vectorizer.transform(documents)),
            num_samples=1500,
            random_state=seed,
        )
        runs.append(run)
    assert sorted(len(run.words) for run in runs)[0] <= 10 < sorted(len(run.words) for run in runs)[-1]
    return runs


# lime's forward selection at k = 10 is left out: it takes seconds in lime, and k = 6 and k > d cover the path.
# At k > d (200) lime's forward selection runs d rounds of d ridge fits on each review: on the two short reviews
# (d = 6 and 12) in make test, on all four (d up to 31; 4 of the test's 8 CPU-s) in the slow group.
SHORT = 12
CASES = [
    pytest.param(method, num_features, None, id=f"{method}-{num_features}")
    for method in ["auto", "highest_weights", "forward_selection", "none"]
    for num_features in NUM_FEATURES
    if not (method == "forward_selection" and num_features in (10, 200))
] + [
    pytest.param("forward_selection", 200, SHORT, id="forward_selection-200-short-reviews"),
    pytest.param("forward_selection", 200, None, id="forward_selection-200", marks=pytest.mark.slow),
]


@pytest.mark.parametrize(("method", "num_features", "longest"), CASES)
def test_selection_is_limes_on_limes_samples(lime_runs, replays, method, num_features, longest):
    runs = [run for run in lime_runs if longest is None or len(run.words) <= longest]
    assert len(runs) >= 2  # the short reviews: d = 6 and 12
    for run in runs:
        ours = selection.lime_feature_selection(run.z, run.y, run.weights, num_features=num_features, method=method)
        # indices and their order: lime's final fit uses these columns in this order
        np.testing.assert_array_equal(ours, limes_selection(run.z, run.y, run.weights, num_features, method))
    assert replays == []  # decided by the fast computation, not by replaying lime


def test_lasso_path_is_limes(lime_runs):
    run = lime_runs[0]
    for num_features in [2, 5]:
        ours = selection.lime_feature_selection(
            run.z, run.y, run.weights, num_features=num_features, method="lasso_path"
        )
        np.testing.assert_array_equal(ours, limes_selection(run.z, run.y, run.weights, num_features, "lasso_path"))


# seeds 3 to 5 in the slow group: each replays lime's forward selection (~2 s of CPU); three designs stay in make test
@pytest.mark.parametrize("seed", [0, 1, 2, *(pytest.param(seed, marks=pytest.mark.slow) for seed in range(3, 6))])
def test_fast_paths_agree_with_lime_on_synthetic_designs(seed, replays):
    """Random sparse linear responses with noise: the fast computations alone decide, and decide as lime does."""
    rng = np.random.default_rng(seed)
    n, d = 600, 25
    z = (rng.random((n, d)) < rng.random((n, 1))).astype(np.int8)
    z[0] = 1
    effects = np.where(rng.random(d) < 0.4, rng.normal(size=d), 0.0)
    y = z @ effects + 0.3 * rng.normal(size=n)
    weights = np.exp(-rng.exponential(1.0, n))
    for method, num_features in [("forward_selection", 4), ("highest_weights", 8), ("auto", 10), ("auto", 5)]:
        ours = selection.lime_feature_selection(z, y, weights, num_features=num_features, method=method)
        np.testing.assert_array_equal(ours, limes_selection(z, y, weights, num_features, method))
    assert replays == []


def test_ambiguous_choices_are_replayed_with_limes_code(replays):
    """Ties (a constant model; two identical columns) cannot be decided from round-off: lime's code decides."""
    rng = np.random.default_rng(0)
    z = (rng.random((300, 6)) < 0.5).astype(np.int8)
    z[0] = 1
    weights = rng.random(300)
    constant = np.full(300, 0.7)
    for method, num_features in [("forward_selection", 3), ("highest_weights", 2)]:
        ours = selection.lime_feature_selection(z, constant, weights, num_features=num_features, method=method)
        np.testing.assert_array_equal(ours, limes_selection(z, constant, weights, num_features, method))
    twins = z.copy()
    twins[:, 4] = twins[:, 1]  # words 1 and 4 always removed together: equal scores, lime keeps the first
    y = 2.0 * twins[:, 1] + 0.1 * rng.random(300)
    for method, num_features in [("forward_selection", 1), ("highest_weights", 1)]:
        ours = selection.lime_feature_selection(twins, y, weights, num_features=num_features, method=method)
        np.testing.assert_array_equal(ours, limes_selection(twins, y, weights, num_features, method))
    assert len(replays) == 4


def test_auto_is_limes_rule():
    assert selection.resolve_feature_selection("auto", 6) == "forward_selection"
    assert selection.resolve_feature_selection("auto", 7) == "highest_weights"
    assert selection.resolve_feature_selection("lasso_path", 3) == "lasso_path"


def test_certification_margins_detect_a_near_tie():
    """Words 0 and 2 play symmetric roles (every row also appears with them swapped), then differ by 1e-14:
    their scores are equal to round-off, which no margin can certify, so both fast paths decline."""
    rng = np.random.default_rng(1)
    base = (rng.random((250, 5)) < 0.5).astype(np.int8)
    base[0] = 1  # the unperturbed row (its swapped copy is itself)
    z = np.concatenate([base, base[:, [2, 1, 0, 3, 4]]])
    weights = np.tile(rng.random(250), 2)
    y = z[:, 0] + z[:, 2] + 0.3 * z[:, 1] + np.tile(0.05 * rng.random(250), 2) - 1e-14 * z[:, 2]
    assert selection._forward_selection(z, y, weights, 1) is None
    assert selection._highest_weights(z, y, weights, 1) is None
    for method in ("forward_selection", "highest_weights"):  # and the replay decides as lime
        ours = selection.lime_feature_selection(z, y, weights, num_features=1, method=method)
        np.testing.assert_array_equal(ours, limes_selection(z, y, weights, 1, method))
    far = y + 1e-3 * z[:, 2]  # a real difference: decided by the fast paths, as lime decides
    np.testing.assert_array_equal(selection._forward_selection(z, far, weights, 1), [2])
    np.testing.assert_array_equal(selection._highest_weights(z, far, weights, 1), [2])
    np.testing.assert_array_equal(limes_selection(z, far, weights, 1, "forward_selection"), [2])


@pytest.mark.parametrize(
    ("arguments", "error", "message"),
    [
        (dict(method="lars"), ValueError, "feature_selection must be one of"),
        (dict(num_features=0), ValueError, "num_features must be >= 1"),
        (dict(num_features=2.0), TypeError, "num_features must be an integer"),
        (dict(num_features=True), TypeError, "num_features must be an integer"),
        (dict(y=np.ones(3)), ValueError, "y must have shape"),
        (dict(weights=-np.ones(10)), ValueError, "weights must be"),
    ],
)
def test_refuses_bad_input(arguments, error, message):
    z = np.ones((10, 3), dtype=np.int8)
    base = dict(z=z, y=np.arange(10.0), weights=np.ones(10), num_features=2, method="auto")
    with pytest.raises(error, match=message):
        selection.lime_feature_selection(**{**base, **arguments})
