r"""How far lime's coefficients at a finite number of samples n fall from where they concentrate.

lime fits its ridge on n rows: the document itself (x₀ = (1, ..., 1), weight 1, response y₀) and m = n - 1 i.i.d.
rows from LIME's law.  Its normal equations are :math:`A \hat\beta = b` with
:math:`A = x_0 x_0^\top + P + \sum_i \pi_i x_i x_i^\top` and :math:`b = x_0 y_0 + \sum_i \pi_i x_i y_i`
(P = diag(0, 1, ..., 1), lime's ridge penalty).  Replacing the sums by their expectations gives the centre
:math:`c = \bar A^{-1} \bar b` (:func:`limetheory.engine.surrogate.expected_lime_fit`, with
:math:`\bar A = m \Sigma + P + x_0 x_0^\top`), and to first order (the delta method)

.. math::

   \hat\beta - c &\approx \bar A^{-1} \sum_i \bigl(\pi_i x_i (y_i - x_i^\top c) \\
   &\qquad - \mathbb{E}[\ldots]\bigr),

   \operatorname{Cov}(\hat\beta) &\approx m \bar A^{-1} \Omega_c \bar A^{-1},

with :math:`\Omega_c = \operatorname{Cov}(\pi x (f - x^\top c))` under LIME's law.  As n grows,
:math:`m \bar A^{-1} \Omega_c \bar A^{-1} \to \Sigma^{-1} \Omega \Sigma^{-1} / m`, the CLT covariance of the paper's
Theorem 1.  Ω is a sum over masks: exact when the masks are all enumerated, an unbiased estimate from a
stratified sample otherwise.

Nothing here forms a (d + 1) × (d + 1) matrix: Σ, :math:`\bar A` and :math:`\bar A^{-1}` are *patterned* (one
value in the corner, one on the rest of the first row and column, one on the rest of the diagonal, one
elsewhere), so :math:`\bar A^{-1}` is applied to a vector in O(d) by a 2 × 2 solve (``solve_patterned``), and
only the diagonal of the sandwich is needed: :math:`\operatorname{diag}(\bar A^{-1} \Omega_c \bar A^{-1}) =
\mathbb{E}[(\bar A^{-1} w)^2] - (\bar A^{-1} \mathbb{E}[w])^2` with :math:`w = \pi x (f - x^\top c)`.  The cost
is O(m d) for m masks, so the spread is computed at any d (the masks are taken in blocks of bounded memory).

c is lime's centre to first order only: :math:`\mathbb{E}[\hat\beta] - c = O(1/n)`, like c - β itself (a ratio
estimator is biased).  With W = Ā⁻¹, the centred rows :math:`D_i = \pi_i x_i x_i^\top - \Sigma` and
:math:`\xi_i = \pi_i x_i (y_i - x_i^\top c) - \mu`, :math:`\hat\beta - c = (I + V)^{-1} U` with
:math:`U = W \sum_i \xi_i` and :math:`V = W \sum_i D_i`; expanding :math:`(I + V)^{-1} = I - V + V^2 - \dots` and
keeping the index patterns whose expectation is of order :math:`m^{-1}` (mean) and :math:`m^{-2}` (covariance),

.. math::

   \mathbb{E}[\hat\beta] - c &= -m W \mathbb{E}[D W \xi] + O(m^{-2}),

   \operatorname{Cov}(\hat\beta) &= m W \Omega_c W - m (W H W + (W H W)^\top)

   &\quad + m^2 W (P_1 + P_2) W

   &\quad + m^2 (W Q W + (W Q W)^\top) + O(m^{-3}),

with, for independent rows 1 and 2, :math:`H = \mathbb{E}[D W \xi \xi^\top]`,
:math:`P_1 = \mathbb{E}[D_1 W \xi_2 \xi_1^\top W D_2]`, :math:`P_2 = \mathbb{E}[D W \Omega_c W D]` and
:math:`Q = \mathbb{E}[D W D] W \Omega_c + \mathbb{E}[D_1 W D_2 W \xi_1 \xi_2^\top] + \mathbb{E}[D_1 W D_2 W \xi_2
\xi_1^\top]` (the square of the mean's correction cancels the remaining pattern).  Every expectation is over one
row or a product of one-row moments (the tensor :math:`T_{acf} = \mathbb{E}[D_{ac} \xi_f]`), computed from the same
masks as Ω: ``order=2`` of :meth:`limetheory.pipelines.results.result.Explanation.lime_spread` (dense matrices: for
small d and small n, where it matters).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..._validation import MEMORY_LIMIT_BYTES, check_memory, check_work, current_work_limit
from ...theory.coefficients import sigma_matrix
from ...theory.sampling import kernel_weights
from ..reading.lime_variance import (
    BLOCK_ENTRIES,
    LIME_RIDGE,
    lime_first_order_std,
    lime_normal_equations,
    mapped_blocks,
)
from ..reading.mask_samples import MaskSample, allocation, design

#: fewest masks behind a second-order spread per coefficient: below 2 (d + 1), Ω_c's estimate is not of full
#: rank and the next term's moments are mostly noise, so order 2 is refused rather than subsampled further
MIN_SECOND_ORDER_MASKS_PER_COEFFICIENT = 2


def second_order_cost(masks, d1):
    """(floating-point operations, bytes) of the second-order terms from ``masks`` masks of d1 - 1 words.

    The operations are those of ``_second_order_terms`` (m (d + 1)³ per mask for the pair tensor and the three
    quadratic forms, (d + 1)⁴ for the contractions); the bytes its work arrays, the (m, (d + 1)²) pairs first.
    """
    return 6.0 * masks * d1**3 + 20.0 * d1**4, 8.0 * (masks * d1 * d1 + 4 * masks * d1 + 3 * d1**3)


def second_order_masks(d1, flops=None):
    """The most masks of d1 - 1 words whose second-order terms fit in ``flops`` (the work limit) and in memory."""
    flops = current_work_limit() if flops is None else flops
    by_work = (flops - 20.0 * d1**4) / (6.0 * d1**3)
    by_memory = (MEMORY_LIMIT_BYTES - 24.0 * d1**3) / (8.0 * (d1 * d1 + 4 * d1))
    return int(max(0.0, min(by_work, by_memory)))


def subsample(sample, size, rng):
    """``size`` of ``sample``'s masks drawn uniformly without replacement, their probabilities renormalised.

    Each kept mask stands for the share of the masks left out (its probability times len / size), then the
    probabilities are rescaled to sum to 1, so the weighted means over the subset are ratio estimates of those
    over the whole sample (bias O(1/size)); the result is no longer exact.
    """
    rows = np.sort(rng.choice(len(sample.f), size, replace=False))
    prob = sample.prob[rows]
    return MaskSample(sample.z[rows], sample.f[rows], prob / prob.sum(), sample.psi[rows], False)


@dataclass(frozen=True, eq=False)  # arrays inside: equality is identity
class LimeSpread:
    """Where lime's coefficients concentrate at ``num_samples`` and how much they spread around it.

    Attributes
    ----------
    num_samples : int
        lime's n (counting the document itself).
    centre : ndarray, shape (d + 1,)
        The centre of lime's coefficients at that n, intercept first.  With ``order=1``, c_n: its normal
        equations in expectation (ridge and first row included, :func:`limetheory.engine.surrogate.expected_lime_fit`),
        lime's mean to first order only (E[lime] - c_n = O(1/n)); with ``order=2``, c_n plus that O(1/n) term.
    std : ndarray, shape (d + 1,)
        The standard deviation of each of lime's coefficients at that n (the CLT covariance, plus its next term
        with ``order=2``).
    exact : bool
        True when Ω comes from all 2ᵈ - 1 masks; False when it is estimated from ``omega_samples`` masks.
    omega_samples : int or None
        The number of masks behind the estimate of Ω (None when exact).
    centre_stderr : ndarray of shape (d + 1,) or None
        The Monte Carlo standard error of ``centre`` when the explanation is an estimate (that of β: the centre
        is β up to O(1/n)); None when β is exact.
    order : int
        1: ``centre`` is c_n, the solution of lime's normal equations in expectation, and ``std`` the first-order
        (CLT) standard deviation; lime's mean differs from c_n by O(1/n).  2: ``centre`` is c_n plus the O(1/n)
        bias of lime's ratio estimator and ``std`` includes the next term of the variance (module docstring), so
        that both hold to one order of 1/n more.

    Examples
    --------
    >>> from sklearn.feature_extraction.text import CountVectorizer
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.pipeline import make_pipeline
    >>> import limetheory as lt
    >>> docs = ["good food", "bad food", "good staff", "bad staff"]
    >>> model = make_pipeline(CountVectorizer(), LogisticRegression()).fit(docs, [1, 0, 1, 0])
    >>> spread = lt.explain(model, "good food, bad staff", output="decision_function").lime_spread(5000)
    >>> spread.exact, spread.omega_samples, spread.std.shape  # d = 4: every mask enumerated
    (True, None, (5,))
    """

    num_samples: int
    centre: np.ndarray
    std: np.ndarray
    exact: bool
    omega_samples: int | None
    centre_stderr: np.ndarray | None = None
    order: int = 1

    def interval(self, level=0.95):
        """The two-sided normal interval (low, high) where each of lime's coefficients falls with probability ``level``.

        Its half-width is z · std, with z the normal quantile; when the centre is a Monte Carlo estimate its
        standard error is added in quadrature (the interval then predicts lime's coefficient from the estimate).

        Parameters
        ----------
        level : float
            In (0, 1); 0.95 by default.

        Returns
        -------
        (low, high) : two ndarrays of shape (d + 1,)

        Examples
        --------
        >>> spread = LimeSpread(5000, np.array([0.0, 1.0]), np.array([0.1, 0.2]), True, None)
        >>> [v.round(3).tolist() for v in spread.interval(0.95)]
        [[-0.196, 0.608], [0.196, 1.392]]
        """
        from scipy.stats import norm

        if isinstance(level, bool) or not isinstance(level, (int, float, np.floating)) or not 0 < level < 1:
            raise ValueError(f"level must be a number in (0, 1), got {level!r}")
        std = self.std if self.centre_stderr is None else np.hypot(self.std, self.centre_stderr)
        half = norm.ppf(0.5 + level / 2) * std
        return self.centre - half, self.centre + half


def lime_covariance(sample, beta, nu, y0, num_samples, columns):
    r"""lime's centre at ``num_samples`` and the first-order covariance of the coefficients ``columns``.

    The (k, k) block of :math:`m \bar A^{-1} \Omega_c \bar A^{-1}` (module docstring) for the k coefficient
    indices ``columns`` (0 the intercept, 1 + j word j), with the centre c_n and the standard deviation of every
    coefficient: O(m d) patterned solves plus O(m k²), in blocks of masks.  Its diagonal is
    ``lime_spread(...).std ** 2`` on ``columns``.

    Returns
    -------
    centre : ndarray, shape (d + 1,)
    std : ndarray, shape (d + 1,)
    covariance : ndarray, shape (k, k)

    Examples
    --------
    >>> from limetheory.pipelines.reading.mask_samples import enumerated_sample
    >>> sample = enumerated_sample(lambda z: np.tanh(z @ np.array([1.0, -2.0, 0.5])), 3, 0.25)
    >>> beta = np.array([0.1, 0.6, -0.9, 0.3])
    >>> centre, std, cov = lime_covariance(sample, beta, 0.25, 0.2, 500, [1, 2])
    >>> spread = lime_spread(sample, beta, 0.25, 0.2, 500)
    >>> bool(np.allclose(np.sqrt(np.diag(cov)), spread.std[[1, 2]], rtol=1e-10))
    True
    """
    columns = np.asarray(columns, dtype=np.int64)
    centre, expected = lime_normal_equations(np.asarray(beta, dtype=float), nu, y0, num_samples)
    rows = num_samples - 1
    d1 = len(centre)
    second, first = np.zeros(d1), np.zeros(d1)
    cross = np.zeros((len(columns), len(columns)))
    for mapped, prob in mapped_blocks(sample, centre, expected):
        second += prob @ mapped**2
        first += prob @ mapped
        chosen = mapped[:, columns]
        cross += (chosen * prob[:, None]).T @ chosen
    std = np.sqrt(np.clip(rows * (second - first**2), 0.0, None))
    covariance = rows * (cross - np.outer(first[columns], first[columns]))
    return centre, std, covariance


def omega_sample(mask_fn, d, nu, size, rng):
    """``size`` masks of d words with the model's outputs, for Ω: stratified on s when it fits, else i.i.d.

    Stratified (``montecarlo.allocation``: at least two masks for each number s of removed words with a weight)
    when ``size`` allows it, else i.i.d. from LIME's law (s uniform on 1..d, then a uniform set of s words), each
    with probability 1 / size.  The masks are drawn and evaluated in blocks (each row a random permutation of its
    removals, no sort), so memory is the masks themselves (``size`` × d bytes) whatever d.

    Examples
    --------
    >>> sample = omega_sample(lambda z: z.sum(axis=1) * 1.0, 5, 0.25, 300, np.random.default_rng(0))
    >>> sample.z.shape[1], len(sample.f) <= 300, bool(np.isclose(sample.prob.sum(), 1.0)), sample.exact
    (5, True, True, False)
    """
    weights = kernel_weights(d, nu=nu)
    live = int((weights > 0).sum())
    if size >= 2 * live:
        counts, _ = allocation(d, nu, size)
        sizes = np.repeat(np.arange(1, d + 1), counts)
        with np.errstate(divide="ignore"):
            per_mask = np.where(counts > 0, (1.0 / d) / np.maximum(counts, 1), 0.0)
        prob = per_mask[sizes - 1]
    else:
        sizes = np.sort(rng.integers(1, d + 1, size=size))
        prob = np.full(size, 1.0 / size)
    z = np.empty((len(sizes), d), dtype=np.int8)
    f = np.empty(len(sizes))
    block = max(1, BLOCK_ENTRIES // d)
    for start in range(0, len(sizes), block):
        removed = sizes[start : start + block]
        kept = (np.arange(d)[None, :] >= removed[:, None]).astype(np.int8)  # the first s removed, then permuted
        z[start : start + block] = rng.permuted(kept, axis=1)
        f[start : start + block] = mask_fn(z[start : start + block])
    return MaskSample(z=z, f=f, prob=prob, psi=weights[sizes - 1], exact=False)


def lime_centre(beta, nu, y0, num_samples):
    """Where lime's coefficients concentrate at ``num_samples`` (no model call): O(d), at any d.

    :func:`limetheory.engine.surrogate.expected_lime_fit` with Σ's pattern instead of the dense matrix.

    Examples
    --------
    >>> from limetheory.theory.coefficients import sigma_matrix
    >>> from limetheory.engine.surrogate import expected_lime_fit
    >>> beta = np.array([0.5, 1.0, -2.0, 0.25])
    >>> dense = expected_lime_fit(sigma_matrix(3, nu=0.25), sigma_matrix(3, nu=0.25) @ beta, 0.1, 50)
    >>> bool(np.allclose(lime_centre(beta, 0.25, 0.1, 50), dense, rtol=1e-12))
    True
    """
    return lime_normal_equations(beta, nu, y0, num_samples)[0]


def lime_spread(sample, beta, nu, y0, num_samples, beta_stderr=None, order=1, random_state=0, max_flops=None):
    """The :class:`LimeSpread` of lime at ``num_samples`` for the explanation ``beta`` (Ω from ``sample``).

    ``order=1``: O(m d) for m masks of d words, patterned solves (module docstring), no (d + 1) × (d + 1) matrix.
    ``order=2`` adds the O(1/n) bias to the centre and the next term to the covariance (module docstring), with
    dense matrices, in O(m d³ + d⁴): when that exceeds ``max_flops`` (None: the work limit) or the memory limit,
    a uniform subset of the masks that fits is used instead (seeded by ``random_state``; ``omega_samples`` of the
    result states how many), and only when fewer than ``MIN_SECOND_ORDER_MASKS_PER_COEFFICIENT`` (d + 1) masks
    would fit is it refused.
    """
    d1 = len(beta)
    if order == 2 and len(sample.f) > (fit := second_order_masks(d1, max_flops)):
        if fit < MIN_SECOND_ORDER_MASKS_PER_COEFFICIENT * d1:
            flops, _ = second_order_cost(MIN_SECOND_ORDER_MASKS_PER_COEFFICIENT * d1, d1)
            raise ValueError(
                f"lime's second-order spread at d = {d1 - 1} words costs about {flops:.2g} floating-point operations "
                f"even from the fewest masks it needs ({MIN_SECOND_ORDER_MASKS_PER_COEFFICIENT} (d + 1) = "
                f"{MIN_SECOND_ORDER_MASKS_PER_COEFFICIENT * d1}), above the work limit: use order=1 (lime's law to "
                "first order, which holds from about 10 (d + 1) samples)"
            )
        sample = subsample(sample, fit, np.random.default_rng([random_state, 3]))
    m = len(sample.f)
    omega_samples = None if sample.exact else m
    centre, expected = lime_normal_equations(beta, nu, y0, num_samples)
    rows = num_samples - 1
    if rows == 0:  # only the document itself: lime's fit is deterministic
        return LimeSpread(num_samples, centre, np.zeros(d1), sample.exact, omega_samples, beta_stderr, order)
    if order == 1:  # the estimate's note states its precision against this standard deviation (lime_variance)
        centre, std = lime_first_order_std(sample, beta, nu, y0, num_samples)
        return LimeSpread(num_samples, centre, std, sample.exact, omega_samples, beta_stderr, order)
    check_memory(8.0 * m * d1 * 3 + 8.0 * 6 * d1 * d1, f"lime's spread from {m} masks of {d1 - 1} words")
    penalty = LIME_RIDGE * np.eye(d1)
    penalty[0, 0] = 0.0
    inverse = np.linalg.inv(rows * sigma_matrix(d1 - 1, nu=nu) + penalty + np.ones((d1, d1)))
    covariance = rows * inverse @ omega(sample, centre) @ inverse.T
    bias, next_term = _second_order_terms(sample, centre, inverse, rows)
    centre, covariance = centre + bias, covariance + next_term
    std = np.sqrt(np.clip(np.diag(covariance), 0.0, None))
    return LimeSpread(num_samples, centre, std, sample.exact, omega_samples, beta_stderr, order)


def omega(sample, centre):
    r""":math:`\Omega_c = \operatorname{Cov}(\pi x (f - x^\top c))` under LIME's law, from a :class:`MaskSample`."""
    x = design(sample.z)
    residual = sample.f - x @ centre
    weighted = x * (sample.psi * residual)[:, None]  # pi x (f - x c)
    mean = sample.prob @ weighted
    return (weighted * sample.prob[:, None]).T @ weighted - np.outer(mean, mean)


def _second_order_terms(sample, centre, inverse, rows):
    r"""The O(1/n) bias of lime's mean and the O(1/n²) term of its covariance (module docstring).

    Parameters
    ----------
    sample : limetheory.pipelines.reading.mask_samples.MaskSample
        Masks, outputs, probabilities and kernel weights (the same as for Ω).
    centre : ndarray, shape (d + 1,)
        c_n, the first-order centre.
    inverse : ndarray, shape (d + 1, d + 1)
        W = Ā⁻¹, the inverse of lime's normal matrix in expectation.
    rows : int
        m = n - 1, lime's random rows.

    Returns
    -------
    bias, covariance : ndarray of shape (d + 1,), ndarray of shape (d + 1, d + 1)
        E[lime] - c_n to order 1/n, and the covariance's term of order 1/n².
    """
    d1 = len(centre)
    m_masks = len(sample.f)
    what = f"lime's second-order spread from {m_masks} masks of {d1 - 1} words"
    check_memory(8.0 * (4 * m_masks * d1 + 3 * d1**3), what)
    check_work(second_order_cost(m_masks, d1)[0], what, "pass fewer omega_samples= or use order=1")
    W = inverse
    x = design(sample.z).astype(float)
    prob, pi = sample.prob, sample.psi
    weighted = x * (pi * (sample.f - x @ centre))[:, None]  # pi x (y - x c)
    mu = prob @ weighted
    xi = weighted - mu
    omega_c = (xi * prob[:, None]).T @ xi
    sigma = (x * (prob * pi)[:, None]).T @ x  # E[pi x x^T] over the same masks, so that each D is centred
    # T[a, c, f] = E[D_ac xi_f] = E[pi x_a x_c xi_f] (xi is centred)
    pairs = (x[:, :, None] * x[:, None, :]).reshape(m_masks, d1 * d1)
    T = ((pairs * (prob * pi)[:, None]).T @ xi).reshape(d1, d1, d1)
    bias = -rows * W @ np.einsum("acf,cf->a", T, W)

    def outer_moment(quadratic):
        """E[D M D] for D = pi x x^T - Sigma, given the quadratic forms x^T M x of the masks (M symmetric)."""
        return (x * (prob * pi**2 * quadratic)[:, None]).T @ x

    w_omega_w = W @ omega_c @ W
    e_dwd = outer_moment(np.einsum("ia,ab,ib->i", x, W, x)) - sigma @ W @ sigma
    e_dwowd = outer_moment(np.einsum("ia,ab,ib->i", x, w_omega_w, x)) - sigma @ w_omega_w @ sigma
    # H = E[D W xi xi^T] = E[pi x (x^T W xi) xi^T] - Sigma W Omega_c
    third = (x * (prob * pi * np.einsum("ia,ab,ib->i", x, W, xi))[:, None]).T @ xi - sigma @ W @ omega_c
    pair_crossed = np.einsum("acf,ce,fg,gbe->ab", T, W, W, T, optimize=True)
    q = e_dwd @ W @ omega_c
    q = q + np.einsum("acg,ce,efb,fg->ab", T, W, T, W, optimize=True)
    q = q + np.einsum("acb,ce,efg,fg->ab", T, W, T, W, optimize=True)
    first = -rows * W @ third @ W
    second = W @ q @ W
    covariance = first + first.T + rows * rows * (W @ (pair_crossed + e_dwowd) @ W + second + second.T)
    return bias, covariance
