"""The work estimate of the exact linear route's recursions follows the steps the recursions take (issue 37, item 4).

``linear_moments.quadrature_moments`` refuses above the package's work limit with the estimate, per quadrature node,
``FLOPS_FORWARD * d * top + FLOPS_LEAVE_ONE_OUT * d * (distinct weights)`` (plus the shared columns' terms).  The
constants are timings (``benchmarks/work_constants.py`` measures them); what is tested here is the model they
multiply, without a clock: the compiled loops are run as plain Python (their ``py_func``) on small documents and
the executions of each innermost step are counted (``sys.settrace``).  The forward recursion updates sizes 1..min(j
+ 1, top) for word j at every node, so its steps are between half of and all of ``nodes * d * top``; the
leave-one-out recursion runs, per node and per distinct weight, at most every size once upwards and once
downwards, so its steps are at most ``2 * nodes * d * distinct``.  And the refusal states exactly that estimate.
"""

from __future__ import annotations

import inspect
import re
import sys
from collections import Counter

import numpy as np
import pytest

from limetheory._validation import work_limit
from limetheory.theory.linear import linear_moments, subset_means
from limetheory.theory.linear.linear_quadrature import inverse_power_quadrature
from limetheory.theory.linear.subset_means import negligible_sizes
from limetheory.theory.linear.tfidf_model import scale_free_model

#: the innermost statement of each recursion (the step the estimate counts), by kernel
STEPS = {
    "_full_means_kernel": ("xp = xj[b] * below[b]",),
    "_leave_one_out_kernel": ("part = share * xc", "T0 = (mean - keep * Ls[c]) * grow"),
}


def _document(d, distinct, seed):
    """A TF-IDF document of d words, one column each, whose weights take ``distinct`` values."""
    rng = np.random.default_rng(seed)
    values = rng.uniform(1.0, 6.0, distinct)
    tfidf = values[np.arange(d) % distinct]
    return rng.normal(size=d), tfidf


def _counted_steps(model, monkeypatch):
    """{kernel: innermost steps executed} over one ``quadrature_moments(model)``, the kernels run as Python."""
    lines, codes = {}, {}
    for name, statements in STEPS.items():
        py_func = getattr(subset_means, name).py_func
        monkeypatch.setattr(subset_means, name, py_func)
        source, first = inspect.getsourcelines(py_func)
        found = [first + i for i, line in enumerate(source) if line.strip() in statements]
        assert len(found) == len(statements), f"{name}: the counted statements moved"
        codes[py_func.__code__] = name
        lines[name] = set(found)
    counts = Counter()

    def tracer(frame, event, arg):
        name = codes.get(frame.f_code)
        if name is None:
            return None

        def local(frame, event, arg):
            if event == "line" and frame.f_lineno in lines[name]:
                counts[name] += 1
            return local

        return local

    sys.settrace(tracer)
    try:
        # numpy's scalars warn where the compiled loop (error_model="numpy") gives inf quietly (1 / x underflowed)
        with work_limit(float("inf")), np.errstate(all="ignore"):
            linear_moments.quadrature_moments(model)
    finally:
        sys.settrace(None)
    return counts


def _terms(model):
    """The estimate's two terms without their constants: nodes * d * top and nodes * d * distinct."""
    nodes, _ = inverse_power_quadrature(model.r_min, model.power)
    top = min(int(negligible_sizes(model, nodes)[0]), model.d)
    distinct = np.unique(model.omega[model.singles]).size
    return nodes.size * model.d * top, nodes.size * model.d * distinct


@pytest.mark.parametrize(("d", "distinct"), [(12, 1), (24, 3), (24, 24), (48, 7)])
def test_the_estimate_follows_the_recursions_steps(d, distinct, monkeypatch):
    model = scale_free_model(*_document(d, distinct, seed=d + distinct), None, "l2")
    forward_term, loo_term = _terms(model)
    steps = _counted_steps(model, monkeypatch)
    # forward: word j updates min(j + 1, top) sizes at each node, between half and all of d * top
    assert 0.5 * forward_term <= steps["_full_means_kernel"] <= forward_term
    # leave-one-out: each size at most once upwards and once downwards, per node and distinct weight; on documents
    # this short no size is negligible at most nodes, so most sizes are run once (0.84-0.92 of the term here)
    assert 0.5 * loo_term <= steps["_leave_one_out_kernel"] <= 2 * loo_term


def test_the_refusal_states_the_estimate_of_those_terms():
    """What a refusal says is FLOPS_FORWARD and FLOPS_LEAVE_ONE_OUT times the terms counted above, in seconds too."""
    from limetheory._validation import seconds_text

    model = scale_free_model(*_document(300, 40, seed=1), None, "l2")
    forward_term, loo_term = _terms(model)
    expected = linear_moments.FLOPS_FORWARD * forward_term + linear_moments.FLOPS_LEAVE_ONE_OUT * loo_term
    with work_limit(1.0), pytest.raises(ValueError, match="floating-point operations") as refusal:
        linear_moments.quadrature_moments(model)
    stated = float(re.search(r"costs about ([0-9.e+]+) floating-point", str(refusal.value)).group(1))
    assert stated == pytest.approx(expected, rel=0.05)  # tol: the message rounds to 2 significant digits
    assert f"about {seconds_text(expected)} here" in str(refusal.value)
