"""``subset_means.node_sums_at_once`` (one compiled call) gives ``node_sums``' per-step results, bit for bit.

The per-step path (each recursion called from Python: what runs when the kernels are replaced by their Python
``py_func``, as tests/test_work_estimate.py does) and the compiled chain call the same kernels on the same arrays in the
same order, so every output must be identical, with and without shared columns and distinct weights.
"""

from __future__ import annotations

import numpy as np
import pytest

from limetheory.theory.linear import linear_moments
from limetheory.theory.linear.linear_exact import beta_linear_exact
from limetheory.theory.linear.tfidf_model import scale_free_model


def _document(d, columns, seed):
    """A document of d words over ``columns`` vectorizer columns (words of one column share it and its λ)."""
    rng = np.random.default_rng(seed)
    groups = rng.integers(0, columns, d)
    groups[rng.random(d) < 0.1] = -1  # a few words the model cannot see
    lam = rng.normal(size=columns)[np.maximum(groups, 0)]
    tfidf = np.where(groups >= 0, rng.choice([1.0, 2.0, 3.5], d) * rng.uniform(1.0, 4.0, columns)[groups], 0.0)
    return lam, tfidf, groups


@pytest.mark.parametrize(
    ("d", "columns", "seed"),
    [(12, 12, 0), (30, 22, 1), (60, 45, 2), (9, 3, 3), (200, 150, 4), (400, 330, 5)],  # the last: several blocks
)
@pytest.mark.parametrize("norm", ["l2", "l1"])
def test_at_once_equals_per_step(d, columns, seed, norm, monkeypatch):
    lam, tfidf, groups = _document(d, columns, seed)
    model = scale_free_model(lam, tfidf, groups, norm)
    at_once = linear_moments.quadrature_moments(model)
    with monkeypatch.context() as patch:
        patch.setattr(linear_moments, "_compiled_recursions", lambda: False)
        per_step = linear_moments.quadrature_moments(model)
        beta_per_step = beta_linear_exact(lam, tfidf, nu=0.25, groups=groups, norm=norm)
    if norm == "l2":
        assert len(model.shared) > 0 or columns == d  # the shared columns' chain is exercised
    for name in ("f_given_s", "out0", "slope", "member_loo", "class_of", "member_words"):
        ours, theirs = getattr(at_once, name), getattr(per_step, name)
        assert ours.shape == theirs.shape, name
        assert np.array_equal(ours, theirs), name
    assert np.array_equal(beta_linear_exact(lam, tfidf, nu=0.25, groups=groups, norm=norm), beta_per_step)


def test_every_word_in_a_shared_column(monkeypatch):
    """No word alone in its column (no distinct weight for the leave-one-out pass): the same empty sums."""
    lam, tfidf, groups = np.array([1.0, 1.0, -2.0, -2.0]), np.array([1.0, 2.0, 0.5, 3.0]), np.array([0, 0, 1, 1])
    at_once = linear_moments.quadrature_moments(scale_free_model(lam, tfidf, groups, "l2"))
    monkeypatch.setattr(linear_moments, "_compiled_recursions", lambda: False)
    per_step = linear_moments.quadrature_moments(scale_free_model(lam, tfidf, groups, "l2"))
    assert at_once.out0.shape == per_step.out0.shape == (3, 0)
    for name in ("f_given_s", "out0", "slope", "member_loo"):
        assert np.array_equal(getattr(at_once, name), getattr(per_step, name)), name


def test_several_blocks_of_nodes():
    """The 400-word case above splits its quadrature nodes into blocks (the memory budget): each is one call."""
    lam, tfidf, groups = _document(400, 330, 5)
    model = scale_free_model(lam, tfidf, groups, "l2")
    nodes, _ = linear_moments.inverse_power_quadrature(model.r_min, model.power)
    per_node = 400 * (2 + 2 * len(model.shared))
    assert linear_moments._BLOCK_ENTRIES // per_node < nodes.size
