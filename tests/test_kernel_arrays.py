"""The linear kernels' array layouts (limetheory.theory.linear.kernel_arrays): one numba signature per kernel."""

import numpy as np
import pytest

from limetheory.theory.linear import subset_means
from limetheory.theory.linear.kernel_arrays import doubles, reading


def test_reading_is_a_read_only_contiguous_view_with_the_same_values():
    a = np.arange(12.0).reshape(3, 4)[:, ::2]  # not contiguous: a contiguous copy, then the view
    view = reading(a)
    assert not view.flags.writeable and view.flags.c_contiguous and view.dtype == np.float64
    assert np.array_equal(view, a)
    assert a.base is not None and a.base.flags.writeable  # the caller's array keeps its flag
    b = np.arange(5.0)
    assert np.shares_memory(reading(b), b) and b.flags.writeable
    ints = reading(np.array([1, 2, 3], dtype=np.int32), np.int64)
    assert ints.dtype == np.int64 and ints.tolist() == [1, 2, 3] and not ints.flags.writeable


def test_reading_refuses_other_dtypes():
    with pytest.raises(ValueError, match="dtype"):
        reading([1.0], np.float32)


def test_doubles_copies_only_when_needed():
    a = np.arange(4.0)
    assert doubles(a) is a
    assert doubles([1, 2]).dtype == np.float64


#: the arguments each kernel only reads, passed read-only by the Python functions as by _node_sums_kernel (by position)
READ_ONLY = {
    "_times_column_kernel": (4,),
    "_column_means_kernel": (0, 3),
    "_leave_one_out_kernel": (1, 7),
    "_member_sums_kernel": (0, 2, 3, 7),
}


def test_the_python_functions_pass_the_inputs_read_only(monkeypatch):
    """The flags _node_sums_kernel's nested calls have (its u, q, tables, masks and sizes are read-only views), so
    that numba compiles each kernel for one signature; a fresh NUMBA_CACHE_DIR shows one per kernel."""
    seen = {}
    for name in READ_ONLY:
        kernel = getattr(subset_means, name)

        def spy(*args, _name=name, _kernel=kernel):
            seen[_name] = [not args[i].flags.writeable for i in READ_ONLY[_name]]
            return _kernel.py_func(*args)

        monkeypatch.setattr(subset_means, name, spy)
    u, t, w = np.array([0.5, 1.0]), np.array([1.0, 2.0]), np.array([0.3, -0.2])
    G, Gw, factor, masks, sizes, subset_w = subset_means.column_means(u, t, w)
    P, Pw = subset_means.full_means(np.exp(-np.outer(u, [0.4, 0.9])), np.array([0.1, 0.2]))
    full = subset_means.times_column(P, Pw, G, Gw, subset_means.hypergeometric_weights(2, 2))
    x, q = np.exp(-np.outer(u, [0.4])), np.array([0.2, 0.3])
    subset_means.leave_one_out_sums(x, u, np.array([1.0]), 0.3, 4, *full, q, np.array([4, 4]))
    columns = [(G, Gw, factor, masks, sizes, subset_w)]
    weights = [subset_means.hypergeometric_weights(2, 0)]
    member = [subset_means.hypergeometric_weights(1, 1)]
    subset_means.shared_column_sums(u, q, 4, [np.array([2, 3])], columns, [(P, Pw), full], None, weights, member)
    assert seen == {name: [True] * len(positions) for name, positions in READ_ONLY.items()}


def test_reading_returns_a_read_only_contiguous_array_itself():
    """A cached quadrature rule (read-only, contiguous, float64) is passed as it is: no new view per call."""
    a = np.arange(4.0)
    a.flags.writeable = False
    assert reading(a) is a
    b = np.arange(4, dtype=np.int32)
    b.flags.writeable = False
    assert reading(b, np.int64).dtype == np.int64  # another dtype: converted, as before
