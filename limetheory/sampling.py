"""LIME's sampling law for text: how many words are removed, which ones, and the weights.

LIME draws ``s`` uniformly in {1, ..., d}, then removes a uniformly random set of ``s``
distinct words (every occurrence of each).  A sample with ``s`` removals gets the weight
psi(s/d), where psi(t) = exp(-(1 - sqrt(1 - t))^2 / (2 nu^2)) and nu = kernel_width / 100.
"""

from __future__ import annotations

import numpy as np

from ._validation import as_float_array, check_int, check_nu


def psi(t, nu):
    """Weight of a perturbed document from which a fraction ``t`` of the distinct words was removed.

    Parameters
    ----------
    t : float or array_like
        Fraction of removed distinct words, in [0, 1].
    nu : float
        The paper's bandwidth (``kernel_width / 100``), > 0; ``np.inf`` gives weight 1.

    Returns
    -------
    float or ndarray
        ``exp(-(1 - sqrt(1 - t))**2 / (2 nu**2))``, same shape as ``t``; values below the double range
        (e.g. t = 1 with nu < 0.026) are 0.0, as the nearest double.

    Raises
    ------
    TypeError
        ``t`` not real numbers, ``nu`` not a real number.
    ValueError
        ``t`` outside [0, 1] or NaN, ``nu`` <= 0 or NaN.
    """
    nu = check_nu(nu)
    arr = as_float_array(t, "t", allow_nonfinite=True)
    if arr.size and (np.isnan(arr).any() or arr.min() < 0 or arr.max() > 1):
        raise ValueError(f"t must lie in [0, 1], got values in [{arr.min()}, {arr.max()}]")
    if np.isinf(nu):
        out = np.ones_like(arr)
    else:
        # 1 - sqrt(1 - t) written as t / (1 + sqrt(1 - t)) to keep accuracy for small t
        gap = arr / (1.0 + np.sqrt(1.0 - arr))
        out = np.exp(-(gap**2) / (2.0 * nu**2))
    return out if out.ndim else float(out)


def kernel_weights(d, nu):
    """The weights psi(s/d) for s = 1, ..., d (array of length ``d``)."""
    d = check_int(d, "d", minimum=1)
    return psi(np.arange(1, d + 1) / d, nu)


def prob_kept(p, d, s=None):
    """Probability that ``p`` given distinct words all survive the sampling.

    With ``s`` set, conditionally on exactly ``s`` words being removed:
    prod_{k<p} (d - s - k) / (d - k)  (zero when s > d - p).
    Without ``s``, averaged over s uniform in {1, ..., d}: (d - p) / ((p + 1) d).
    """
    d = check_int(d, "d", minimum=1)
    p = check_int(p, "p", minimum=0, maximum=d)
    if s is None:
        return (d - p) / ((p + 1) * d)
    s = check_int(s, "s", minimum=1, maximum=d)
    if s > d - p:
        return 0.0
    k = np.arange(p)
    return float(np.prod((d - s - k) / (d - k)))


def sample_masks(d, n, rng):
    """Draw ``n`` interpretable-feature vectors z from LIME's law (vectorised).

    Same law as lime, not lime's random stream.  Returns an (n, d) int8 array
    with z[i, j] = 1 when word j is kept in sample i.
    """
    d = check_int(d, "d", minimum=1)
    n = check_int(n, "n", minimum=1)
    if not isinstance(rng, np.random.Generator):
        raise TypeError("rng must be a numpy.random.Generator (np.random.default_rng(seed))")
    sizes = rng.integers(1, d + 1, size=n)
    # the ranks of i.i.d. uniform keys give a uniform random permutation per row;
    # removing the words of rank < s removes a uniform subset of size s
    ranks = np.argsort(np.argsort(rng.random((n, d)), axis=1), axis=1)
    return (ranks >= sizes[:, None]).astype(np.int8)
