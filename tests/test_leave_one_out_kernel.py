"""The leave-one-out recursion's compiled loop against the same recursion written plainly, bit for bit.

``subset_means._leave_one_out_kernel`` is written for LLVM's vectoriser (slices from 0, selects instead of
branches that store conditionally).  :func:`_reference` below is the recursion as its docstring states it, with
branches: a word that has left the upward pass is skipped, a word outside its downward range is not touched.  Each
word's operations are the same in both and every sum over the nodes runs in the same order, so the two agree to the
bit (``==`` on the bytes); the documents below make both passes run, with and without the shared columns' words,
at small and large nodes (negligible sizes, the downward pass from a negligible top).
"""

from __future__ import annotations

import numpy as np
import pytest

from limetheory.theory.linear import subset_means
from limetheory.theory.linear.linear_quadrature import inverse_power_quadrature
from limetheory.theory.linear.subset_means import full_means, negligible_sizes
from limetheory.theory.linear.tfidf_model import scale_free_model

#: the recursion's own constants: a mean below NEGLIGIBLE adds nothing; a word goes downwards past UPWARD_SHARE
NEGLIGIBLE, UPWARD_SHARE = subset_means._NEGLIGIBLE_MEAN, subset_means._UPWARD_SHARE


def _reference(x, u, rest, w_total, d, P, Pw, weights, tops, top, truncated):
    """The leave-one-out sums as the recursion reads (subset_means.leave_one_out_sums' docstring), with branches."""
    B, C = x.shape
    out0, slope = np.zeros((max(top, 1), C)), np.zeros((max(top, 1), C))
    first_down = np.full((B, C), d - 1)
    for b in range(B):
        q = weights[b]
        slope[0] += q * x[b]
        for c in range(C):
            L, Lw0, E, up = 1.0, 0.0, 1.0, True
            for a in range(1, min(top, tops[b])):
                if not up:
                    break  # its state is 0 from here on: it adds nothing
                mean, mean_w = P[b, a], Pw[b, a]
                threshold = UPWARD_SHARE * mean if mean >= NEGLIGIBLE else np.inf
                part = (a / d) * x[b, c]
                if part * L > threshold:
                    first_down[b, c], up = a, False
                    break
                grow = d / (d - a)
                T0, T1, T2 = (mean - part * L) * grow, (mean_w - part * Lw0) * grow, (0.0 - part * E) * grow
                L = max(T0, 0.0)
                Lw0, E = (T1, T2 + L) if L > 0 else (0.0, 0.0)
                out0[a, c] += q * (x[b, c] * Lw0)
                slope[a, c] += q * (x[b, c] * E)
    lowest = int(first_down.min())
    if truncated or lowest >= d - 1:
        return out0, slope, lowest
    for b in range(B):
        q = weights[b]
        for c in range(C):
            if first_down[b, c] >= d - 1:
                continue
            if top == d - 1 and tops[b] > top:
                L = np.exp(-u[b] * rest[c])
                Lw0, E = w_total * L, -L
            else:
                L = Lw0 = E = 0.0
            inverse = 1.0 / x[b, c]
            for a in range(top, first_down[b, c], -1):
                mean, mean_w = P[b, a], Pw[b, a]
                if mean < NEGLIGIBLE:
                    L = Lw0 = E = 0.0
                    continue
                keep, grow = (d - a) / d, d / a
                T0, T1, T2 = (mean - keep * L) * grow, (mean_w - keep * Lw0) * grow, (0.0 - keep * E) * grow
                L = T0 * inverse
                Lw0, E = T1 * inverse, T2 * inverse - L
                out0[a - 1, c] += q * T1
                slope[a - 1, c] += q * T2
    return out0, slope, lowest


def _arguments(d, distinct, seed, stretch):
    """The kernel's arguments for a document of d words whose weights take ``distinct`` values over ``stretch``."""
    rng = np.random.default_rng(seed)
    values = np.exp(rng.uniform(0.0, np.log(stretch), distinct))
    tfidf = values[np.arange(d) % distinct]
    model = scale_free_model(rng.normal(size=d), tfidf, None, "l2")
    nodes, weights = inverse_power_quadrature(model.r_min, model.power)
    tops = negligible_sizes(model, nodes)
    with np.errstate(under="ignore"):
        P, Pw = full_means(np.exp(-np.outer(nodes, model.omega)), model.w, tops[0])
        distinct_omega, first = np.unique(model.omega, return_index=True)
        x = np.exp(-np.outer(nodes, distinct_omega))
    top = min(int(tops[0]), d - 1)
    rest, w_total = model.rest[first], float(model.w.sum())
    return x, nodes, rest, w_total, d, P, Pw, weights, np.ascontiguousarray(tops, dtype=np.int64), top


@pytest.mark.parametrize(
    ("d", "distinct", "stretch"),
    [(3, 3, 2.0), (9, 4, 5.0), (25, 25, 10.0), (40, 6, 1e3), (60, 20, 1e6)],
)
@pytest.mark.parametrize("truncated", [False, True])
def test_the_compiled_loop_is_the_plain_recursion_to_the_bit(d, distinct, stretch, truncated):
    arguments = _arguments(d, distinct, seed=d, stretch=stretch)
    expected = _reference(*arguments, truncated)
    got = subset_means._leave_one_out_kernel(*arguments, truncated)
    assert got[2] == expected[2]
    for ours, theirs in zip(got[:2], expected[:2], strict=True):
        assert ours.tobytes() == theirs.tobytes()  # the same operations in the same order: equal to the bit
    if not truncated:  # the documents run the downward pass too (else this test would not see it)
        assert d < 5 or got[2] < d - 1
