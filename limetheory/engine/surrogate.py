r"""The weighted linear surrogate that lime fits, solved with plain linear algebra.

lime fits sklearn's ``Ridge(alpha=lam, fit_intercept=True)`` on the masks z with sample weights π:
it minimises

.. math::

   \sum_i \pi_i \bigl(y_i - \beta_0 - z_i \cdot \beta_{1:}\bigr)^2 + \lambda \lVert \beta_{1:} \rVert^2,

leaving the intercept unpenalised (λ = ``lam``).  With λ = 0 this is the weighted least squares that the
paper analyses.
"""

from __future__ import annotations

import numpy as np

from .._validation import as_float_array, check_bool, check_int, check_memory, check_real, check_work


def _check_samples(z, y, weights):
    z = as_float_array(z, "z")
    if z.ndim != 2 or z.shape[1] < 1 or z.shape[0] < 1:
        raise ValueError(f"z must be an (n, d) array with n >= 1 and d >= 1, got shape {z.shape}")
    y = as_float_array(y, "y")
    weights = as_float_array(weights, "weights")
    if y.shape != (z.shape[0],) or weights.shape != (z.shape[0],):
        raise ValueError(f"y and weights must have shape ({z.shape[0]},) to match z, got {y.shape} and {weights.shape}")
    if (weights < 0).any() or not (weights > 0).any():
        raise ValueError("weights must be non-negative and not all zero")
    n, p = z.shape[0], z.shape[1] + 1
    what = f"the normal equations of {n} rows and {p} columns"
    check_memory(8.0 * (2 * n * p + p * p), what, "use fewer rows or words")  # the design matrix, weighted
    check_work(2.0 * n * p * p, what, "use fewer rows or words")
    return z, y, weights


def normal_equations(z, y, weights):
    r""":math:`A = X^\top W X` and :math:`c = X^\top W y`, where X = [1, z] has a leading column of ones.

    Parameters
    ----------
    z : array_like, shape (n, d)
    y, weights : array_like, shape (n,)
        Responses and non-negative sample weights (not all zero); everything finite.

    Returns
    -------
    (A, c) : ndarray of shape (d + 1, d + 1), ndarray of shape (d + 1,)

    Notes
    -----
    Limits: 2 n (d + 1)² operations and 16 n (d + 1) bytes for the design matrix; calls above 2e10 operations
    or 2 GiB are refused with the estimate (e.g. n = 10**6 rows of d = 29 words take 1.8e9 and 480 MB).

    Examples
    --------
    >>> A, c = normal_equations([[1], [0]], [2.0, 1.0], [1.0, 1.0])
    >>> A.tolist(), c.tolist()
    ([[2.0, 1.0], [1.0, 1.0]], [3.0, 2.0])
    """
    z, y, weights = _check_samples(z, y, weights)
    design = np.column_stack([np.ones(len(y)), z])
    with np.errstate(over="ignore", invalid="ignore"):  # checked just below
        matrix, vector = design.T @ (weights[:, None] * design), design.T @ (weights * y)
    if not (np.isfinite(matrix).all() and np.isfinite(vector).all()):
        raise ValueError("the weighted sums of z, y and weights overflow double precision; rescale y or the weights")
    return matrix, vector


def weighted_ridge(z, y, weights, *, lam=1.0, penalise_intercept=False):
    r"""The minimiser :math:`(A + \lambda P)^{-1} c` of lime's weighted ridge objective.

    ``P`` is diag(0, 1, ..., 1) (lime's problem: sklearn does not penalise the intercept), or the
    identity with ``penalise_intercept=True`` (the paper's Eq. (5) as printed).  ``lam = 0`` gives
    weighted least squares.  Limits as :func:`normal_equations`.

    Parameters
    ----------
    z, y, weights
        The masks (n, d), the responses (n,) and the weights (n,), as in :func:`normal_equations`.
    lam : float
        The ridge penalty, >= 0 (lime's default is 1).
    penalise_intercept : bool
        Penalise the intercept too (the paper's Eq. (5) as printed), unlike lime.

    Returns
    -------
    ndarray, shape (d + 1,)
        The coefficients, index 0 the intercept.

    Raises
    ------
    ValueError
        As :func:`normal_equations`; ``lam`` < 0; singular normal equations (``lam`` = 0 and samples that do not
        span [1, z]); a system that overflows double precision.

    Examples
    --------
    >>> weighted_ridge([[1], [0]], [2.0, 1.0], [1.0, 1.0], lam=0.0).tolist()
    [1.0, 1.0]
    """
    lam = check_real(lam, "lam")
    if lam < 0:
        raise ValueError(f"lam must be a finite number >= 0, got {lam}")
    penalise_intercept = check_bool(penalise_intercept, "penalise_intercept")
    design_matrix, vector = normal_equations(z, y, weights)
    penalty = np.eye(len(vector))
    if not penalise_intercept:
        penalty[0, 0] = 0.0
    try:
        with np.errstate(over="ignore", invalid="ignore"):  # a penalty near the double range: checked below
            beta = np.linalg.solve(design_matrix + lam * penalty, vector)
    except np.linalg.LinAlgError:
        raise ValueError(
            "the weighted normal equations are singular: with lam = 0 (or an unpenalised intercept) the weighted "
            "samples must span the d + 1 columns of [1, z]; use lam > 0 or more (distinct) samples"
        ) from None
    if not np.isfinite(beta).all():
        raise ValueError(f"the ridge system overflows double precision (lam = {lam}); use a smaller lam")
    return beta


def expected_lime_fit(sigma, gamma, y0, num_samples, lam=1.0):
    r"""The population version of lime's fit: its normal equations with the random rows replaced by expectations.

    lime fits ``Ridge(alpha=lam)`` (intercept unpenalised) on ``num_samples`` rows: first the document itself,
    x₀ = (1, ..., 1) with weight ψ(0) = 1 and response ``y0``, then m = num_samples - 1 i.i.d. rows from LIME's
    sampling law.  Replacing the sums over these m rows, :math:`\sum \pi x x^\top` and :math:`\sum \pi x y`,
    by :math:`m \Sigma` and :math:`m \Gamma` gives

    .. math::

       (m \Sigma + P + x_0 x_0^\top)^{-1} (m \Gamma + x_0 y_0),

       P = \lambda \operatorname{diag}(0, 1, \ldots, 1),

    the target around which lime's coefficients concentrate (to first order).  As num_samples grows it tends to
    :math:`\Sigma^{-1} \Gamma = \beta^f`; the first row and the penalty shift it by O(1/num_samples).

    Parameters
    ----------
    sigma : array_like, shape (d + 1, d + 1)
        :math:`\mathbb{E}[\pi x x^\top]`, e.g. :func:`~limetheory.theory.coefficients.sigma_matrix` or a Monte Carlo
        estimate.
    gamma : array_like, shape (d + 1,)
        :math:`\mathbb{E}[\pi x f]`, e.g. ``sigma @ beta`` for a known explanation ``beta``.
    y0 : float
        The model's output on the document itself (lime's first row).
    num_samples : int
        lime's ``num_samples`` (>= 1), counting the first row.
    lam : float
        Ridge penalty on the word coefficients (>= 0); lime's default ``Ridge(alpha=1)`` is 1.

    Returns
    -------
    ndarray, shape (d + 1,)
        Intercept first, then one coefficient per word.

    Raises
    ------
    TypeError
        Non-numeric ``sigma`` or ``gamma``, ``y0`` or ``lam`` not a real number, ``num_samples`` not an integer.
    ValueError
        ``sigma`` not a square matrix of size >= 2, ``gamma`` not of matching length, a non-finite entry,
        ``num_samples`` < 1 or > 2**53 (beyond, the count is not exact in double precision), ``lam`` < 0, a
        singular system, or a size beyond the limits (a dense solve of (d + 1)³ / 3 operations: d <= 3900).

    Examples
    --------
    >>> expected_lime_fit([[1.0, 0.5], [0.5, 0.5]], [1.0, 0.75], 1.5, 10**12, lam=1.0).round(6).tolist()
    [0.5, 1.0]
    """
    sigma = as_float_array(sigma, "sigma")
    if sigma.ndim != 2 or sigma.shape[0] != sigma.shape[1] or sigma.shape[0] < 2:
        raise ValueError(f"sigma must be a (d + 1, d + 1) matrix with d >= 1, got shape {sigma.shape}")
    gamma = as_float_array(gamma, "gamma")
    if gamma.shape != (sigma.shape[0],):
        raise ValueError(f"gamma must have shape ({sigma.shape[0]},) to match sigma, got {gamma.shape}")
    y0 = check_real(y0, "y0")
    num_samples = check_int(num_samples, "num_samples", minimum=1, maximum=2**53)
    lam = check_real(lam, "lam")
    if lam < 0:
        raise ValueError(f"lam must be a finite number >= 0, got {lam}")
    size = sigma.shape[0]
    what = f"the expected normal equations of size {size}"
    check_memory(8.0 * 4 * size * size, what)
    check_work(size**3 / 3.0 + 8.0 * size * size, what)
    m = num_samples - 1
    penalty = lam * np.eye(size)
    penalty[0, 0] = 0.0
    first = np.ones(size)
    try:
        return np.linalg.solve(m * sigma + penalty + np.outer(first, first), m * gamma + first * y0)
    except np.linalg.LinAlgError:
        raise ValueError(
            "the expected normal equations m sigma + P + x_0 x_0^T are singular; use lam > 0 or more samples"
        ) from None
