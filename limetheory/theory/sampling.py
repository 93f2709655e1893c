r"""LIME's sampling law for text: how many words are removed, which ones, and the weights.

LIME draws ``s`` uniformly in {1, ..., d}, then removes a uniformly random set of ``s``
distinct words (every occurrence of each).  A sample with ``s`` removals gets the weight
ψ(s/d), where ν = ``kernel_width`` / 100 and

.. math::

   \psi(t) = \exp\left(-\frac{(1 - \sqrt{1 - t})^2}{2\nu^2}\right).
"""

from __future__ import annotations

import numpy as np

from .._validation import as_float_array, check_int, check_linear_d, check_memory, check_nu, check_work
from ..units import bandwidth_keyword

# nu * nu is a normal double for nu in [NU_SQUARE_MIN, inf): there gap^2 / (2 nu^2) is evaluated as printed
# (so every value in the ordinary range keeps its bits); below, nu^2 would lose digits to underflow, and
# (gap / nu)^2 / 2 is used instead.  The two forms agree to a few ulps of the exponent where they meet.
NU_SQUARE_MIN = float(np.sqrt(np.finfo(float).tiny))


def _half_squared_ratio(gap, nu, out=None):
    """gap^2 / (2 nu^2), elementwise, for gap >= 0 and nu > 0 (np.inf allowed), with no spurious overflow.

    Large nu underflows to 0.0 (the limit, weight 1), tiny nu overflows to inf only where gap > 0 (weight 0),
    and gap = 0 gives 0.0 at every nu.  Used by every weight computation of the package, so that all of them
    are continuous in nu up to np.inf.  ``out`` (a float array, ``gap`` itself allowed) receives the result:
    the same operations, so the same bits.
    """
    gap = np.asarray(gap, dtype=float)
    with np.errstate(over="ignore", under="ignore"):
        if nu >= NU_SQUARE_MIN:
            out = np.square(gap, out=out)  # gap**2 is numpy's square, bit for bit
            out /= 2.0 * (nu * nu)  # nu * nu == nu**2 bit for bit; inf for nu > 1.3e154: exact 0.0
            return out
        out = np.divide(gap, nu, out=out)
        np.square(out, out=out)
        out /= 2.0
        return out


@bandwidth_keyword
def psi(t, *, nu):
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
        (e.g. t = 1 with nu < 0.026) are 0.0, as the nearest double.  Continuous in nu up to ``np.inf``:
        for nu > 1e154 the exponent is below the double range and the weight is exactly 1.0, its limit.

    Raises
    ------
    TypeError
        ``t`` not real numbers, ``nu`` not a real number.
    ValueError
        ``t`` outside [0, 1] or NaN, ``nu`` <= 0 or NaN.

    Examples
    --------
    >>> psi(0.5, nu=0.25)
    0.5034396167555494
    >>> psi([0.0, 1.0], nu=np.inf).tolist(), psi(1.0, nu=1e300)
    ([1.0, 1.0], 1.0)
    """
    nu = check_nu(nu)
    arr = as_float_array(t, "t", allow_nonfinite=True)
    if arr.size and (np.isnan(arr).any() or arr.min() < 0 or arr.max() > 1):
        raise ValueError(f"t must lie in [0, 1], got values in [{arr.min()}, {arr.max()}]")
    out = _psi_of_checked(arr, nu)
    return out if out.ndim else float(out)


def _psi_of_checked(arr, nu):
    """:func:`psi` of a float array already in [0, 1] and a checked ``nu`` (an array of the same shape)."""
    return _psi_in_place(np.array(arr, dtype=float), nu)


def _psi_in_place(arr, nu):
    """:func:`_psi_of_checked`, overwriting the float array ``arr`` with its result (one temporary beside it).

    At the largest d, kernel_weights' arrays are 128 MiB each, and a fresh page costs this VM far more than the
    arithmetic on it (kernel_weights at d = 2**24: 3.8 s of CPU time with six such arrays on first touch, 0.5 s once
    the pages were the process's); in place, the same operations give the same bits.
    """
    # 1 - sqrt(1 - t) written as t / (1 + sqrt(1 - t)) to keep accuracy for small t
    denominator = np.subtract(1.0, arr, out=np.empty_like(arr))
    np.sqrt(denominator, out=denominator)
    denominator += 1.0
    gap = np.divide(arr, denominator, out=arr)
    del denominator
    # exactly 1.0 at nu = inf (the exponent is 0.0); exponents beyond 746 give 0.0 either way, and clipping them
    # spares exp its slow underflow path (kernel_weights at d = 10**7, nu = 0.25: 1.5 s -> 0.3 s)
    exponent = _half_squared_ratio(gap, nu, out=gap)
    np.minimum(exponent, 746.0, out=exponent)
    np.negative(exponent, out=exponent)
    return np.exp(exponent, out=exponent)


@bandwidth_keyword
def kernel_weights(d, *, nu):
    """The weights ψ(s/d) for s = 1, ..., d (array of length ``d``).

    Parameters
    ----------
    d : int
        Number of distinct words, 1 <= d <= 2**24 (O(d) time and memory: about 1 s at d = 10**7; beyond the
        limit a ValueError states the memory it would need).
    nu : float
        Bandwidth > 0 or ``np.inf`` (all weights 1).

    Returns
    -------
    ndarray, shape (d,)

    Examples
    --------
    >>> kernel_weights(4, nu=np.inf).tolist()
    [1.0, 1.0, 1.0, 1.0]
    >>> kernel_weights(2, nu=0.25).round(4).tolist()
    [0.5034, 0.0003]
    """
    d = check_linear_d(check_int(d, "d", minimum=1), what="kernel_weights")
    nu = check_nu(nu)
    t = np.arange(1, d + 1, dtype=float)
    t /= d  # s/d is in [0, 1]: psi's checks of t would find nothing
    return _psi_in_place(t, nu)


def prob_kept(p, d, s=None):
    """Probability that ``p`` given distinct words all survive the sampling.

    With ``s`` set, conditionally on exactly ``s`` words being removed:
    prod_{k<p} (d - s - k) / (d - k)  (zero when s > d - p).
    Without ``s``, averaged over s uniform in {1, ..., d}: (d - p) / ((p + 1) d).

    Parameters
    ----------
    p : int
        Number of given words, 0 <= p <= d.
    d : int
        Number of distinct words, >= 1 (any size: the average is O(1)).
    s : int or None
        Number of removed words, 1 <= s <= d.  The conditional probability is a product of p factors, O(p):
        p <= 2**24 (a larger p with s <= d - p is refused with the memory estimate).

    Returns
    -------
    float

    Examples
    --------
    >>> prob_kept(1, 4)
    0.375
    >>> prob_kept(2, 4, s=1)
    0.5
    >>> prob_kept(1, 10**9, s=1)
    0.999999999
    """
    d = check_int(d, "d", minimum=1)
    p = check_int(p, "p", minimum=0, maximum=d)
    if s is None:
        return (d - p) / ((p + 1) * d)  # exact integers, one rounding: any size of d
    s = check_int(s, "s", minimum=1, maximum=d)
    if s > d - p:
        return 0.0
    check_linear_d(p, "p", "prob_kept given s (a product of p factors)")
    k = np.arange(p, dtype=float)
    # float(d - s) and float(d) are exact below 2**53 (so are the differences): the int64 product of before
    return float(np.prod((float(d - s) - k) / (float(d) - k)))


def sample_masks(d, n, rng):
    """Draw ``n`` interpretable-feature vectors z from LIME's law (vectorised).

    Same law as lime, not lime's random stream.  Returns an (n, d) int8 array
    with z[i, j] = 1 when word j is kept in sample i.

    Parameters
    ----------
    d : int
        Number of distinct words, >= 1.
    n : int
        Number of masks, >= 1.
    rng : numpy.random.Generator
        The source of randomness (``np.random.default_rng(seed)``).

    Returns
    -------
    ndarray, shape (n, d), int8

    Notes
    -----
    Limits: the work arrays take about 24 n d bytes (two argsorts of an (n, d) array) and the time grows as
    n d log d; calls above 2 GiB or 2e10 operations (``limetheory._validation``) are refused with the estimate
    before anything is drawn, e.g. n d <= 8.9e7 (n = 3 * 10**6 masks of d = 29 words).

    Examples
    --------
    >>> z = sample_masks(5, 3, np.random.default_rng(0))
    >>> z.shape, z.dtype, bool((z.sum(axis=1) <= 4).all())
    ((3, 5), dtype('int8'), True)
    """
    d = check_int(d, "d", minimum=1)
    n = check_int(n, "n", minimum=1)
    if not isinstance(rng, np.random.Generator):
        raise TypeError("rng must be a numpy.random.Generator (np.random.default_rng(seed))")
    what = f"sample_masks with n = {n}, d = {d}"
    check_memory(24 * n * d, what, "draw the masks in batches")
    check_work(10 * n * d * max(1.0, np.log2(d)), what, "draw the masks in batches")
    sizes = rng.integers(1, d + 1, size=n)
    # the ranks of i.i.d. uniform keys give a uniform random permutation per row;
    # removing the words of rank < s removes a uniform subset of size s
    ranks = np.argsort(np.argsort(rng.random((n, d)), axis=1), axis=1)
    return (ranks >= sizes[:, None]).astype(np.int8)
