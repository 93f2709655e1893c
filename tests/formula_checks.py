"""What test_boolean.py and test_trees.py share: the bandwidths, the tolerance and the comparison of two exact routes
(a formula expanded into monomials, and the enumeration of every mask), and every 0/1 input of d words.

Not a test module (pytest does not collect it); the two test files import it.
"""

from __future__ import annotations

import numpy as np

# nu = 0.05 is the smallest bandwidth here; at small d the closed forms (and enumeration) lose accuracy
# there because Sigma is ill-conditioned (d = 3: cond ~ 6e13), so each bandwidth has a smallest d.
BANDWIDTHS = [(0.05, 5), (0.1, 3), (0.35, 2), (1.0, 2), (np.inf, 2)]
# two exact routes summed in different orders, relative to the largest coefficient when it exceeds 1
TOL = 1e-10


def close(actual, expected, tol=TOL):
    scale = max(1.0, float(np.abs(expected).max()))
    return np.allclose(actual, expected, rtol=0, atol=tol * scale)


def all_binary(d):
    """Every 0/1 input of d features, one a row (row i is the binary expansion of i, feature j its bit j)."""
    return ((np.arange(2**d)[:, None] >> np.arange(d)) & 1).astype(np.int8)


def log_choose(n):
    """log C(n, k) for k = 0..n, summed in extended precision (about 1e-16 relative once exponentiated).

    Cumulative sums of log((n - k) / (k + 1)); scipy's log-gamma and binomial pmf lose up to 1e-10 relative at
    n ~ 10³ where the references need 1e-15.
    """
    k = np.arange(n, dtype=np.longdouble)
    return np.concatenate([[np.longdouble(0)], np.cumsum(np.log((n - k) / (k + 1)))])
