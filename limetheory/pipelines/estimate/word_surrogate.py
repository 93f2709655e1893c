r"""A per-word link surrogate for long documents: :math:`g(z, s) = \mathrm{link}^{-1}(c \cdot h(s) + a \cdot z)`.

Beyond ``estimate_batches.MAX_WORD_FEATURES`` words the polynomial controls see the words through a few directions,
and the pilot's linked surrogate (:mod:`limetheory.pipelines.estimate.link_surrogate`) is link⁻¹ of those same
features, fitted by least squares in link space on the pilot's few hundred masks.  This one has a weight per word
and is fitted in output space (in link space the rounding of outputs near ±1, VADER's compound at 0.9989 to 4
decimals, is blown up a thousand times), on about a thousand masks or more
(:func:`limetheory.pipelines.estimate.surrogate_average.refit_word_surrogates`).

What it buys is the within-stratum variance it removes, not lime's residual (lime fits one affine function for all
s, and most of its residual is the change with s that the strata take out). VADER on the first 12 Yelp reviews
joined (d = 488), 8000 masks drawn in proportion to lime's weights, the variance of the terms within 160 bins of s
left by g and a cubic in s, over that left by the cubic alone (mean over the words; the largest): tanh link fitted
on 1000 masks 0.73 (0.83), on 2000 0.68 (0.82); the algebraic link 0.53 (0.49) and 0.32 (0.26) (ridge 0.1); a
per-word linear fit 1.40 and 1.16 (1.03 on 5000).  On the masks the estimate holds (its allocation favours the
strata of few words kept, where the score flips sign: 0.1% of the masks carry 67% of that variance), the algebraic
link 0.86-0.99 on up to 2000 masks, 0.62 (0.76) on 3700.

The fit (:func:`fit_word_surrogate`): weighted least squares in link space as a start, then Gauss-Newton in output
space with a ridge on a only (relative to the Jacobian's scale at the start; no ridge on c) and step halving. The
surrogate's moments are not known: like the pilot's, its Γ is averaged over cheap masks, whose control is
:attr:`WordSurrogate.design`, the polynomial design on its own direction a (a ⊗ polynomials in t and the powers of
the index a·z, all with exact moments).  Any a keeps the estimate unbiased.
"""

from __future__ import annotations

import functools

import numpy as np
import scipy.linalg

from .controls import Design, mask_product, s_basis
from .link_surrogate import LINK_CLIP, from_link, to_link

#: polynomials in t of the surrogate's offset (1, u, u²)
OFFSET_DEGREE = 3
#: the ridge on a, relative to the mean diagonal of the Gauss-Newton matrix over the words at the start (the estimate
#: passes ``surrogate_average.WORD_RIDGE``): with the tanh link on 1000-2000 masks of VADER on the 1043-token
#: document, 3e-3 matched the best absolute ridge of 1e-6..1e-3 (lime's ψ²-weighted residual: 0.41 at 1000 masks)
RIDGE = 3e-3
#: Gauss-Newton iterations at most, and the relative decrease of the objective below which they stop: on 2500 and
#: 4000 masks of VADER's long document (algebraic link) 1e-6 took half the iterations of 1e-9 for the same held-out
#: error to 4 digits (a surrogate only needs to be close: any keeps the estimate unbiased); on 2068 of them (a third
#: held out) 1e-3 took 7 Gram matrices where 1e-6 took 13, for the same held-out error (4.18e-4 and 4.19e-4; starting
#: from the fit on the masks before them saved one and left 4.35e-4)
ITERATIONS, TOLERANCE = 40, 1e-3


#: the links of the surrogate: logit for outputs in [0, 1]; for outputs in [-1, 1], atanh, or the algebraic
#: sigmoid's inverse f / sqrt(1 - f²), whose inverse u / sqrt(1 + u²) saturates as 1 - 1 / (2u²), not exponentially
#: (VADER's compound is x / sqrt(x² + 15), x the sum of the kept words' valences: an index linear in the words)
WORD_LINKS = ("logit", "atanh", "algebraic")


def _to_link(values, link):
    if link == "algebraic":
        f = np.clip(values, -1.0 + LINK_CLIP, 1.0 - LINK_CLIP)
        return f / np.sqrt(1.0 - f * f)
    return to_link(values, link)


def _from_link(u, link):
    return u / np.sqrt(1.0 + u * u) if link == "algebraic" else from_link(u, link)


def _derivative(g, link):
    """d link⁻¹(u) / du at g = link⁻¹(u)."""
    if link == "algebraic":
        return (1.0 - g * g) ** 1.5
    return g * (1.0 - g) if link == "logit" else 1.0 - g * g


class WordSurrogate:
    """g(z, s) = link⁻¹(c · h(s) + a · z), h(s) = (1, u, u²) with u = 2s/d - 1, for one output column.

    Parameters
    ----------
    offset : array_like, shape (3,)
        c.
    weights : array_like, shape (d,)
        a, one per word.
    link : {"logit", "atanh", "algebraic"}
    spread : float
        The spread of a · z on the masks fitted (scales the index of :attr:`design`).
    centre : float
        The mean of a · z there.

    Examples
    --------
    >>> import numpy as np
    >>> g = WordSurrogate([0.5, 0.0, 0.0], [1.0, -1.0], "atanh")
    >>> g.values(np.array([[True, False], [False, True]]), np.array([1, 1])).round(4).tolist()  # tanh(1.5), tanh(-0.5)
    [0.9051, -0.4621]
    """

    def __init__(self, offset, weights, link, spread=1.0, centre=0.0):
        self.offset = np.asarray(offset, dtype=float).ravel()
        self.weights = np.asarray(weights, dtype=float).ravel()
        if len(self.offset) != OFFSET_DEGREE:
            raise ValueError(f"offset must have {OFFSET_DEGREE} entries, got {len(self.offset)}")
        if link not in WORD_LINKS:
            raise ValueError(f"link must be one of {WORD_LINKS}, got {link!r}")
        if not (spread > 0 and np.isfinite(spread)):
            raise ValueError(f"spread must be positive and finite, got {spread!r}")
        self.link, self.spread, self.centre = link, float(spread), float(centre)
        self.d = len(self.weights)

    def linear(self, z, sizes):
        """c · h(s) + a · z on the masks ``z`` (m, d) with ``sizes`` removed words."""
        return s_basis(sizes, self.d, OFFSET_DEGREE) @ self.offset + mask_product(z, self.weights)

    def values(self, z, sizes):
        """g on the masks ``z`` with ``sizes`` removed words, shape (m,)."""
        return _from_link(self.linear(z, sizes), self.link)

    @functools.cached_property
    def design(self):
        """The polynomial control of g's cheap average: (1, a · z) and the index a · z's powers, times polynomials in t.

        g is a function of s and a · z alone, so these few features (with exact moments) follow it closely.
        """
        from .estimate_batches import DEGREE, INDEX_DEGREE, PAIR_DEGREE

        scale = max(float(np.abs(self.weights).max()), 1e-300)
        return Design(self.d, DEGREE, (self.weights / scale)[:, None], None, PAIR_DEGREE,
                      self.weights / self.spread, -self.centre / self.spread, INDEX_DEGREE)  # fmt: skip


def _gram(x, weights, out):
    """xᵀ diag(weights) x as RᵀR, R = diag(√weights) x written into ``out`` (x's shape; ``weights`` nonnegative).

    Most of the fit's time.  numpy computes an array's transpose times itself by BLAS's symmetric rank-k update
    (syrk), a third of the general product's time at 3742 x 491 (0.030 s against 0.109 s, one thread; equal to
    rounding, 4e-16 relative there), and R written into a buffer kept for the fit costs 2.5 ms where a new array of
    that size took 27-34 ms (the fresh pages' faults).
    """
    np.multiply(x, np.sqrt(weights)[:, None], out=out)
    return out.T @ out


def _solve(matrix, rhs):
    """matrix⁻¹ rhs: by Cholesky, or by LU where the matrix is not positive definite.

    Cholesky takes 2.9 ms against LU's 4.7 ms at 491 x 491; rounding can leave the matrix not positive definite
    without a ridge, where a column is a function of s.
    """
    try:
        factor = scipy.linalg.cho_factor(matrix, check_finite=False)
    except np.linalg.LinAlgError:
        return np.linalg.solve(matrix, rhs)
    return scipy.linalg.cho_solve(factor, rhs, check_finite=False)


def _penalised(g, f, weights, ridge, a):
    return float(weights @ (f - g) ** 2) + ridge * float(a @ a)


def fit_word_surrogate(z, sizes, f, weights, link, ridge=RIDGE, tolerance=TOLERANCE):
    r"""The :class:`WordSurrogate` minimising :math:`\sum_i w_i (f_i - g(z_i, s_i))^2 + \lambda \|a\|^2`.

    Parameters
    ----------
    z : ndarray of bool, shape (m, d)
        Masks (True = word kept).
    sizes : ndarray of int, shape (m,)
        Their numbers of removed words.
    f : ndarray, shape (m,)
        The outputs, within the link's range.
    weights : ndarray, shape (m,)
        Nonnegative weights.
    link : {"logit", "atanh", "algebraic"}
    ridge : float
        λ relative to the mean diagonal over the words of the Gauss-Newton matrix at the start (``RIDGE``).
    tolerance : float
        The iterations stop when the penalised objective falls by less than this share of itself (``TOLERANCE``).

    Returns
    -------
    WordSurrogate
        With ``grams``: the Gram matrices the fit computed, the work that
        :mod:`limetheory.pipelines.estimate.own_work` charges.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> z = rng.random((400, 6)) < 0.6
    >>> sizes = 6 - z.sum(axis=1)
    >>> a = np.array([0.8, -0.5, 0.3, 0.0, 0.2, -0.1])
    >>> f = np.tanh(0.1 + z @ a)
    >>> g = fit_word_surrogate(z, sizes, f, np.ones(400), "atanh", ridge=0.0)
    >>> bool(np.abs(g.values(z, sizes) - f).max() < 1e-9)  # a itself up to a constant: Σ z = d - s
    True
    """
    z = np.asarray(z)
    m, d = z.shape
    f = np.asarray(f, dtype=float)
    weights = np.asarray(weights, dtype=float)
    if len(f) != m or len(weights) != m or len(sizes) != m:
        raise ValueError("z, sizes, f and weights must have one entry per mask")
    if not (np.isfinite(weights).all() and (weights >= 0).all() and weights.sum() > 0):
        raise ValueError("weights must be nonnegative, finite and not all zero")
    if link not in WORD_LINKS:
        raise ValueError(f"link must be one of {WORD_LINKS}, got {link!r}")
    if not ridge >= 0:
        raise ValueError(f"ridge must be nonnegative, got {ridge!r}")
    if not tolerance > 0:
        raise ValueError(f"tolerance must be positive, got {tolerance!r}")
    x = np.empty((m, OFFSET_DEGREE + d))  # (h(s), z), written in place: no float copy of z to stack
    x[:, :OFFSET_DEGREE] = s_basis(sizes, d, OFFSET_DEGREE)
    x[:, OFFSET_DEGREE:] = z
    penalty = np.zeros(OFFSET_DEGREE + d)
    # the start: least squares in link space, with a ridge of the same relative size on a
    buffer = np.empty_like(x)
    gram = _gram(x, weights, buffer)
    start_scale = float(np.mean(np.diag(gram)[OFFSET_DEGREE:]))
    penalty[OFFSET_DEGREE:] = max(ridge, 1e-12) * max(start_scale, 1e-300)
    theta = _solve(gram + np.diag(penalty), x.T @ (weights * _to_link(f, link)))
    grams = 1
    u = x @ theta
    g = _from_link(u, link)
    # the Gauss-Newton ridge, relative to the Jacobian's scale at the start
    jac = np.multiply(x, _derivative(g, link)[:, None], out=buffer)  # the buffer is free until the iterations
    scale = float(np.mean(np.einsum("ij,ij,i->j", jac[:, OFFSET_DEGREE:], jac[:, OFFSET_DEGREE:], weights)))
    penalty[OFFSET_DEGREE:] = ridge * max(scale, 1e-300)
    lam = penalty[OFFSET_DEGREE]
    objective = _penalised(g, f, weights, lam, theta[OFFSET_DEGREE:])
    tiny = 1e-12 * max(float(np.mean(np.einsum("ij,ij,i->j", jac, jac, weights))), 1e-300)
    for _ in range(ITERATIONS):
        slope = _derivative(g, link)
        matrix = _gram(x, weights * slope * slope, buffer) + np.diag(penalty + tiny)
        grams += 1
        step = _solve(matrix, x.T @ (weights * slope * (f - g)) - penalty * theta)
        for _ in range(30):  # halved until the penalised objective falls
            trial = theta + step
            g_trial = _from_link(x @ trial, link)
            value = _penalised(g_trial, f, weights, lam, trial[OFFSET_DEGREE:])
            if value <= objective:
                break
            step = step / 2
        else:
            break
        decrease = objective - value
        theta, g, objective = trial, g_trial, value
        if decrease <= tolerance * max(objective, 1e-300):
            break
    a = theta[OFFSET_DEGREE:]
    index = mask_product(z, a)  # the same bits as z @ a, without a float copy of all the masks
    total = weights.sum()
    centre = float(weights @ index / total)
    spread = float(np.sqrt(weights @ (index - centre) ** 2 / total))
    surrogate = WordSurrogate(theta[:OFFSET_DEGREE], a, link, spread if spread > 0 else 1.0, centre)
    surrogate.grams = grams  # the fit's work: Gram matrices of its m masks (``own_work`` charges them)
    return surrogate
