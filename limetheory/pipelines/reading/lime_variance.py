r"""lime's first-order spread at n samples from a sample of masks: what the estimate and lime's spread share.

lime's coefficients at n = ``num_samples`` concentrate at the centre c of its normal equations in expectation,
:math:`\bar A c = m \Sigma \beta + x_0 y_0` with :math:`\bar A = m \Sigma + P + x_0 x_0^\top` (m = n - 1 random
rows, P lime's ridge, x₀ the document), and spread with covariance :math:`m \bar A^{-1} \Omega_c \bar A^{-1}`,
:math:`\Omega_c = \operatorname{Cov}(\pi x (f - x^\top c))` under LIME's law (the derivation is
:mod:`limetheory.pipelines.results.spread`'s).  Σ, :math:`\bar A` and their inverses are *patterned* (one value in
the corner, one on the rest of the first row and column, one on the rest of the diagonal, one elsewhere), so
:math:`\bar A^{-1}` is applied to a row in O(d) (:func:`solve_patterned`) and the diagonal of the sandwich costs
O(m d) for m masks, at any d.

The estimate's stopping rule (:mod:`limetheory.pipelines.estimate.estimate_batches`: its standard errors against
``tol`` times lime's standard deviation) and :func:`limetheory.pipelines.results.spread.lime_spread` both compute
that standard deviation here, from the same masks and the same β: the precision the estimate's note states is the
one ``lime_spread`` reports.
"""

from __future__ import annotations

import functools

import numpy as np

from ...theory.coefficients import alphas
from .mask_samples import design

#: lime's ridge penalty (``Ridge(alpha=1)``)
LIME_RIDGE = 1.0
#: entries of one block of masks mapped by the inverse, or drawn, at a time (32 MiB of doubles)
BLOCK_ENTRIES = 2**22


def solve_patterned(corner, edge, diagonal, off, rows):
    r"""Solve :math:`M v = w` for each row w of ``rows`` (shape (m, d + 1)), M patterned, in O(m d).

    M has ``corner`` at (0, 0), ``edge`` on the rest of its first row and column, ``diagonal`` on the rest of its
    diagonal and ``off`` elsewhere.  With :math:`S = \sum_{j \ge 1} v_j`, the first equation and the sum of the
    others are a 2 × 2 system in :math:`(v_0, S)`; then :math:`v_j = (w_j - e v_0 - o S) / (g - o)`.

    Examples
    --------
    >>> from limetheory.theory.coefficients import sigma_matrix
    >>> m = 7 * sigma_matrix(3, nu=0.25) + np.diag([0.0, 1, 1, 1]) + 1.0
    >>> w = np.array([[1.0, 2.0, -1.0, 0.5]])
    >>> bool(np.allclose(solve_patterned(m[0, 0], m[0, 1], m[1, 1], m[1, 2], w)[0], np.linalg.solve(m, w[0])))
    True
    """
    rows = np.asarray(rows, dtype=float)
    d = rows.shape[1] - 1
    head, tail = rows[:, 0], rows[:, 1:]
    total = tail.sum(axis=1)
    a11, a12, a21, a22 = corner, edge, edge * d, diagonal - off + off * d
    det = a11 * a22 - a12 * a21
    v0 = (head * a22 - a12 * total) / det
    s = (a11 * total - a21 * head) / det
    out = np.empty_like(rows)
    out[:, 0] = v0
    out[:, 1:] = (tail - (edge * v0 + off * s)[:, None]) / (diagonal - off)
    return out


@functools.lru_cache(maxsize=1024)
def sigma_pattern(d, nu):
    """Σ's four values (corner α₀, edge α₁, diagonal α₁, off-diagonal α₂).

    Cached (four floats per (d, ν)): a corpus's documents share their numbers of words, and each explanation's
    agreement check asks for them (``agreement.lime_disagreement``).
    """
    a = alphas(d, nu=nu, p_max=min(2, d)).tolist() + [0.0] * (2 - min(2, d))
    return a[0], a[1], a[1], a[2]


def apply_patterned(pattern, vector):
    """M v for a patterned M (its four values) and one vector, in O(d)."""
    corner, edge, diagonal, off = pattern
    head, tail = vector[0], vector[1:]
    total = tail.sum()
    return np.concatenate([[corner * head + edge * total], edge * head + (diagonal - off) * tail + off * total])


def lime_normal_equations(beta, nu, y0, num_samples):
    r"""(lime's centre at ``num_samples``, the four values of its expected normal matrix :math:`\bar A`), in O(d)."""
    sigma = sigma_pattern(len(beta) - 1, nu)
    rows = num_samples - 1
    # lime's normal equations in expectation: (m Σ + P + x0 x0^T) c = m Σ β + x0 y0 (surrogate.expected_lime_fit)
    corner, edge, diagonal, off = (rows * v + 1.0 for v in sigma)
    expected = (corner, edge, diagonal + LIME_RIDGE, off)
    right = rows * apply_patterned(sigma, np.asarray(beta, dtype=float)) + y0
    return solve_patterned(*expected, right[None, :])[0], expected


def mapped_blocks(sample, centre, inverse_pattern):
    r"""Blocks (:math:`\bar A^{-1} \pi x (f - x^\top c)` per mask, their weights ``prob``) of bounded memory.

    ``sample`` is a :class:`~limetheory.pipelines.reading.mask_samples.MaskSample` and ``inverse_pattern``
    :math:`\bar A`'s four values.
    """
    block = max(1, BLOCK_ENTRIES // (sample.z.shape[1] + 1))
    for start in range(0, len(sample.f), block):
        stop = start + block
        x = design(sample.z[start:stop])
        residual = sample.f[start:stop] - x @ centre
        yield (
            solve_patterned(*inverse_pattern, x * (sample.psi[start:stop] * residual)[:, None]),
            sample.prob[start:stop],
        )


def omega_diagonal_sandwich(sample, centre, inverse_pattern):
    r""":math:`\operatorname{diag}(\bar A^{-1} \Omega_c \bar A^{-1})` from a :class:`MaskSample`, in blocks of masks.

    ``inverse_pattern`` is :math:`\bar A`'s four values.  :math:`\bar A^{-1}` has the same pattern (C, E, G, O), so
    with a = π (f - xᵀc) and S = Σ_j z_j the image of a mask is :math:`u_0 = a (C + E S)` and
    :math:`u_j = a (k + (G - O) z_j)`, k = E + O S; as :math:`z_j^2 = z_j`, the sums of u and u² over the masks are
    sums of per-mask scalars plus two products zᵀv: three passes over the masks (the residuals' z c, the row sums,
    zᵀv), no (m, d + 1) array of images (at d = 721 and 20000 masks, 0.03 s instead of 0.3 s).

    Examples
    --------
    >>> from limetheory.pipelines.reading.mask_samples import enumerated_sample
    >>> sample = enumerated_sample(lambda z: np.tanh(z @ np.array([1.0, -2.0, 0.5, 0.3])), 4, 0.25)
    >>> centre, pattern = lime_normal_equations(np.array([0.1, 0.6, -0.9, 0.3, 0.2]), 0.25, 0.2, 50)
    >>> second, first = np.zeros(5), np.zeros(5)
    >>> for mapped, prob in mapped_blocks(sample, centre, pattern):  # the images themselves
    ...     second, first = second + prob @ mapped**2, first + prob @ mapped
    >>> bool(np.allclose(omega_diagonal_sandwich(sample, centre, pattern), second - first**2, rtol=1e-12, atol=0))
    True
    """
    d = sample.z.shape[1]
    basis = solve_patterned(*inverse_pattern, np.eye(min(d, 2) + 1, d + 1))  # Ā⁻¹'s first rows: its four values
    corner, edge, gap = basis[0, 0], basis[0, 1], basis[1, 1] - (basis[1, 2] if d >= 2 else 0.0)
    off = basis[1, 2] if d >= 2 else 0.0
    sums = np.zeros(4)  # Σ p a h, Σ p a² h², Σ p a k, Σ p a² k² (h = C + E S)
    tails = np.zeros((d, 2))  # zᵀ (p a), zᵀ (p a² (gap² + 2 gap k))
    block = max(1, BLOCK_ENTRIES // (d + 1))
    for start in range(0, len(sample.f), block):
        stop = start + block
        z = sample.z[start:stop].astype(float)
        size = z @ np.ones(d)  # the kept words: sums of 0s and 1s, exact in any order (z.sum(axis=1) to the bit)
        a = sample.psi[start:stop] * (sample.f[start:stop] - centre[0] - z @ centre[1:])
        pa = sample.prob[start:stop] * a
        pa2 = pa * a
        head, shared = corner + edge * size, edge + off * size
        sums += [pa @ head, pa2 @ head**2, pa @ shared, pa2 @ shared**2]
        tails += z.T @ np.column_stack([pa, pa2 * (gap * gap + 2.0 * gap * shared)])
    first = np.concatenate([[sums[0]], sums[2] + gap * tails[:, 0]])
    second = np.concatenate([[sums[1]], sums[3] + tails[:, 1]])
    return second - first**2


def lime_first_order_std(sample, beta, nu, y0, num_samples):
    r"""(centre, standard deviation) of lime's coefficients at ``num_samples``, to first order, Ω from ``sample``.

    The standard deviation is :math:`\sqrt{m \operatorname{diag}(\bar A^{-1} \Omega_c \bar A^{-1})}` with the
    residuals taken against lime's centre c for the explanation ``beta`` (0 when n = 1: lime's fit is then its
    document alone).

    Examples
    --------
    >>> from limetheory.pipelines.reading.mask_samples import enumerated_sample
    >>> sample = enumerated_sample(lambda z: np.tanh(z @ np.array([1.0, -2.0, 0.5])), 3, 0.25)
    >>> centre, std = lime_first_order_std(sample, np.array([0.1, 0.6, -0.9, 0.3]), 0.25, 0.2, 500)
    >>> centre.shape, bool((std > 0).all())
    ((4,), True)
    """
    centre, expected = lime_normal_equations(np.asarray(beta, dtype=float), nu, y0, num_samples)
    rows = num_samples - 1
    if rows == 0:
        return centre, np.zeros(len(centre))
    variance = rows * omega_diagonal_sandwich(sample, centre, expected)
    return centre, np.sqrt(np.clip(variance, 0.0, None))
