r"""Control variates of the estimate route: functions of the mask whose conditional moments given s are exact.

For a mask with s removed words (uniform among the s-subsets), P(given p words all kept | s) is
:math:`\binom{d-p}{s} / \binom{d}{s}` (:func:`limetheory.pipelines.estimate.strata.kept_probabilities`), so for any
function of the form

.. math::

   \varphi(z, s) \cdot c = \sum_l h_l(s) \bigl(c_{0l} + (V z) \cdot c_l\bigr)
       + \sum_l h'_l(s) \sum_{(i, j)} q_{ijl} z_i z_j + \sum_l h''_l(s) \sum_{p=2}^{3} r_{pl}\, \ell(z)^p

(h_l a basis of polynomials in t = s/d, V a fixed linear map of the mask: the identity, one coefficient per word,
or a few directions for long documents, products of pairs of chosen words, and powers of one linear form
:math:`\ell(z) = c + a \cdot z`, the index), the vector
:math:`\mathbb{E}[x\, \varphi \cdot c \mid s]` (x = (1, z)) is exact: a sum of such
probabilities (:meth:`Design.moments`).
The estimate then averages only the residual :math:`x (f - \varphi \cdot c)` and adds the exact part back, which
keeps it unbiased for any c fitted on earlier batches.  The polynomial in t lets the affine control change with the
number of removed words (a saturating model is steeper when few words are left); the pairs catch the interactions
of the words that matter most; the powers of the index catch a model that saturates along one direction of the
words (a logistic regression's probability, a single-index model), whatever d, at the cost of a few features:
:math:`\mathbb{E}[\ell^p \mid s]` and :math:`\mathbb{E}[z_k \ell^p \mid s]` are sums over the partitions of the
p factors into blocks of equal words, each a power sum of a times the probability that its distinct words are kept
(:func:`index_power_moments`).  When the model is a link of a function g whose powers have exact moments (a
logistic regression's decision function: :func:`limetheory.theory.linear.linear_powers.power_moments`, carried by
an :class:`ExactPowers`), g, g² and g³ times polynomials in t are features too: a cubic in the model's own score
follows σ(g) far closer than powers of lime's direction do (least squares on 20000 masks of five 26-34-word reviews
left 10-88 times less residual variance than the index's powers and g alone).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field

import numpy as np
from scipy.linalg.lapack import dposv as _posv

from .strata import kept_probabilities

#: relative ridge added to the normal equations of a fit (numerical safety on collinear columns, e.g. t ⊗ 1 when
#: a single s is sampled)
FIT_RIDGE = 1e-8


def control_values(controls, z):
    """The caller's controls on the masks ``z``: column j is ``controls[j][0](z)`` as floats, shape (len(z), J).

    Examples
    --------
    >>> import numpy as np
    >>> control_values([(lambda z: z.sum(axis=1), None)], np.array([[1, 0], [1, 1]])).tolist()
    [[1.0], [2.0]]
    >>> control_values([], np.ones((3, 2))).shape
    (3, 0)
    """
    if not controls:
        return np.zeros((len(z), 0))
    return np.column_stack([np.asarray(g(z), dtype=float).reshape(len(z)) for g, _ in controls])


#: rows of boolean masks converted to float at a time by :func:`mask_product`
MASK_PRODUCT_ROWS = 1024


def mask_product(z, matrix):
    """``z @ matrix`` for masks z (m, d), z converted to float ``MASK_PRODUCT_ROWS`` rows at a time into one buffer.

    numpy's ``z @ matrix`` on boolean masks converts all of z to float first: thousands x 488 masks of a long
    document's cheap batches, a fresh array whose pages cost 14 ms a call in faults, more than the product.  Row by
    row the products are the same BLAS calls, so the result is equal to the bit (checked on 180 shapes of 1-9000 rows
    and 2-700 words).  Float masks are multiplied as they are.

    Examples
    --------
    >>> z = np.array([[True, False, True], [False, True, True]])
    >>> mask_product(z, np.array([1.0, 2.0, 4.0])).tolist()
    [5.0, 6.0]
    """
    z = np.asarray(z)
    matrix = np.asarray(matrix, dtype=float)
    if z.dtype == np.float64:
        return z @ matrix
    out = np.empty((len(z), *matrix.shape[1:]))
    buffer = np.empty((min(len(z), MASK_PRODUCT_ROWS), z.shape[1]))
    for start in range(0, len(z), MASK_PRODUCT_ROWS):
        block = z[start : start + MASK_PRODUCT_ROWS]
        buffer[: len(block)] = block
        np.matmul(buffer[: len(block)], matrix, out=out[start : start + len(block)])
    return out


def s_basis(sizes, d, degree):
    """(m, degree) basis of polynomials in t = s/d, centred on [0, 1]: 1, 2t - 1, (2t - 1)², ..."""
    u = 2.0 * np.asarray(sizes, dtype=float) / d - 1.0
    out = np.empty((len(u), degree))
    for k in range(degree):  # the columns u**k filled in place (no list of columns stacked)
        out[:, k] = 1.0 if k == 0 else u if k == 1 else u**k
    return out


@dataclass(frozen=True, eq=False)
class ExactPowers:
    r"""A function g of the masks with the exact conditional moments of its powers: a control of its own.

    Called on masks it returns g (so that it is also a caller's control, ``(ExactPowers, β_g)``); in a
    :class:`Design` its powers g, g², ..., each times polynomials in t, are features whose
    :math:`\mathbb{E}[x\, g^p \mid s]` are ``mean`` and ``per_word``.

    Attributes
    ----------
    function : callable
        Masks (m, d) -> g, shape (m,).
    mean : ndarray, shape (d, P)
        ``mean[s - 1, p - 1]`` = E[g^p | s], s = 1..d.
    per_word : ndarray, shape (d, P, d)
        ``per_word[s - 1, p - 1, k]`` = E[z_k g^p | s].

    Examples
    --------
    >>> import numpy as np
    >>> a = np.array([1.0, -1.0])
    >>> powers = ExactPowers(lambda z: z @ a, np.array([[0.0], [0.0]]), np.array([[[0.5, -0.5]], [[0.0, 0.0]]]))
    >>> powers.count, powers(np.array([[1, 0], [0, 1]])).tolist()
    (1, [1.0, -1.0])
    """

    function: object
    mean: np.ndarray
    per_word: np.ndarray
    #: the last masks scored and g on them: a batch asks for g of the same masks twice (the caller's control, then
    #: the design's values), and g costs as much as the model's linked reading
    _last: list = field(default_factory=lambda: [None, None], repr=False, compare=False)

    @property
    def count(self):
        """The number of powers P."""
        return self.mean.shape[1]

    def __call__(self, z):
        """g on the masks ``z`` (m, d), shape (m,): computed once for the same array of masks (or a view of all of it).

        A batch's features are formed on ``z[rows]``, which is a new view of the same masks when every row is
        fitted: a view with the same data, shape, strides and dtype as the masks held is those masks (the held array
        keeps its memory from being reused, and the estimate never changes masks in place).
        """
        last = self._last[0]
        if last is not z and not _same_view(last, z):
            self._last[:] = [z, np.asarray(self.function(z), dtype=float)]
        return self._last[1]


def _same_view(a, b):
    """Whether two arrays are views of the same memory with the same layout (then they hold the same entries)."""
    return (
        isinstance(a, np.ndarray)
        and isinstance(b, np.ndarray)
        and a.shape == b.shape
        and a.dtype == b.dtype
        and a.strides == b.strides
        and a.__array_interface__["data"][0] == b.__array_interface__["data"][0]
    )


@dataclass(frozen=True, eq=False)
class Design:
    r"""The polynomial control features φ(z, s) and their exact conditional moments.

    Attributes
    ----------
    d : int
    degree : int
        Number of polynomials in t multiplying (1, V z).
    directions : ndarray of shape (d, r) or None
        V as columns (None: the identity, one feature per word).
    pairs : tuple of two int arrays or None
        The pairs of words (i, j), i < j, whose products are features.
    pair_degree : int
        Number of polynomials in t multiplying the pair products.
    index : ndarray of shape (d,) or None
        a of the index :math:`\ell(z) = c + a \cdot z`, whose powers 2 and 3 are features (None: none).
    index_offset : float
        c of the index.
    index_degree : int
        Number of polynomials in t multiplying each power of the index.
    exact : ExactPowers or None
        A function g of the masks whose powers g, g², ... have exact conditional moments (a logistic regression's
        decision function, :func:`limetheory.theory.linear.linear_powers.power_moments`): each power times
        ``exact_degree`` polynomials in t is a feature (None: none).
    exact_degree : int
        Number of polynomials in t multiplying each power of g.
    """

    d: int
    degree: int = 3
    directions: np.ndarray | None = None
    pairs: tuple | None = None
    pair_degree: int = 2
    index: np.ndarray | None = None
    index_offset: float = 0.0
    index_degree: int = 3
    exact: ExactPowers | None = None
    exact_degree: int = 3

    @functools.cached_property  # a frozen instance: computed once (read a dozen times a batch)
    def width(self):
        """The number of linear features r (d for the identity)."""
        return self.d if self.directions is None else self.directions.shape[1]

    @functools.cached_property
    def n_pairs(self):
        """The number of pair products."""
        return 0 if self.pairs is None else len(self.pairs[0])

    @functools.cached_property
    def n_index(self):
        """The number of index features (powers times polynomials in t)."""
        return 0 if self.index is None else len(INDEX_POWERS) * self.index_degree

    @functools.cached_property
    def n_exact(self):
        """The number of features of g's powers (powers times polynomials in t)."""
        return 0 if self.exact is None else self.exact.count * self.exact_degree

    @functools.cached_property
    def size(self):
        """The number of features K."""
        return self.degree * (1 + self.width) + self.pair_degree * self.n_pairs + self.n_index + self.n_exact

    def features(self, z, sizes):
        """(m, K) features of the masks ``z`` (m, d) with ``sizes`` removed words."""
        z = np.asarray(z)
        m, width = len(z), 1 + self.width
        out = np.empty((m, self.size))  # filled block by block: no intermediate column_stack of m x K
        h = s_basis(sizes, self.d, self.degree)
        base = out[:, :width]
        base[:, 0] = 1.0
        if self.directions is None:
            base[:, 1:] = z
        else:
            np.matmul(z.astype(float), self.directions, out=base[:, 1:])
        for k in range(1, self.degree):
            np.multiply(base, h[:, k : k + 1], out=out[:, k * width : (k + 1) * width])
        # the first polynomial is 1 (``s_basis``): its block is the plain (1, V z), as x * 1.0 is x to the bit
        if self.n_pairs:
            i, j = self.pairs
            start = self.degree * width
            products = out[:, start : start + self.n_pairs]
            if z.dtype == bool:
                np.logical_and(z[:, i], z[:, j], out=products, casting="unsafe")
            else:
                np.multiply(z[:, i], z[:, j], out=products, casting="unsafe")
            hp = s_basis(sizes, self.d, self.pair_degree)
            for k in range(1, self.pair_degree):
                np.multiply(
                    products, hp[:, k : k + 1], out=out[:, start + k * self.n_pairs : start + (k + 1) * self.n_pairs]
                )
        if self.n_index:
            start = self.size - self.n_index - self.n_exact
            index = self.index_offset + mask_product(z, self.index)
            hi = s_basis(sizes, self.d, self.index_degree)
            for n, p in enumerate(INDEX_POWERS):
                block = slice(start + n * self.index_degree, start + (n + 1) * self.index_degree)
                np.multiply(hi, (index**p)[:, None], out=out[:, block])
        if self.n_exact:
            start = self.size - self.n_exact
            g = self.exact(z)
            he = s_basis(sizes, self.d, self.exact_degree)
            power = g  # g's first power (1.0 * g is g), then g², g³, ...
            for n in range(self.exact.count):
                power = power if n == 0 else power * g
                block = slice(start + n * self.exact_degree, start + (n + 1) * self.exact_degree)
                np.multiply(he, power[:, None], out=out[:, block])
        return out

    def values(self, z, sizes, coefficients):
        """``features(z, sizes) @ coefficients``, shape (m,), without forming the (m, K) features.

        The estimate needs the fitted control on every mask but the features themselves only on the rows it fits
        on: summing each block's coefficients first costs m (d + pairs) degree operations instead of m K.
        """
        z = np.asarray(z)
        c = np.asarray(coefficients, dtype=float)
        width, degree = 1 + self.width, self.degree
        blocks = c[: degree * width].reshape(degree, width)
        per_word = blocks[:, 1:] if self.directions is None else blocks[:, 1:] @ self.directions.T  # (degree, d)
        out = np.einsum("ml,ml->m", s_basis(sizes, self.d, degree), blocks[:, 0] + mask_product(z, per_word.T))
        if self.n_pairs:
            i, j = self.pairs
            start = degree * width
            q = c[start : start + self.pair_degree * self.n_pairs].reshape(self.pair_degree, self.n_pairs)
            products = np.logical_and(z[:, i], z[:, j]) if z.dtype == bool else z[:, i] * z[:, j]
            out += np.einsum("ml,ml->m", s_basis(sizes, self.d, self.pair_degree), products @ q.T)
        if self.n_index:
            start = self.size - self.n_index - self.n_exact
            index = self.index_offset + mask_product(z, self.index)
            r = c[start : start + self.n_index].reshape(len(INDEX_POWERS), self.index_degree)
            per_power = s_basis(sizes, self.d, self.index_degree) @ r.T  # (m, powers)
            for n, p in enumerate(INDEX_POWERS):
                out += per_power[:, n] * index**p
        if self.n_exact:
            r = c[self.size - self.n_exact :].reshape(self.exact.count, self.exact_degree)
            per_power = s_basis(sizes, self.d, self.exact_degree) @ r.T  # (m, powers)
            # Horner's rule in g: sum_p c_p g^p = g (c_1 + g (c_2 + ...))
            g = self.exact(z)
            acc = per_power[:, -1].copy()
            for n in range(self.exact.count - 2, -1, -1):
                acc = acc * g + per_power[:, n]
            out += acc * g
        return out

    def moments(self, coefficients, sizes):
        r""":math:`\mathbb{E}[x\, \varphi(z, s) \cdot c \mid s]` for each s in ``sizes``: shape (len(sizes), d + 1)."""
        d, width, degree = self.d, self.width, self.degree
        sizes = np.asarray(sizes, dtype=np.int64)
        c = np.asarray(coefficients, dtype=float)
        p1, p2, p3 = (p[sizes - 1] for p in kept_probabilities(d))
        h = s_basis(sizes, d, degree)
        blocks = c[: degree * (1 + width)].reshape(degree, 1 + width)
        constant = h @ blocks[:, 0]
        per_word = blocks[:, 1:] if self.directions is None else blocks[:, 1:] @ self.directions.T  # (degree, d)
        b = h @ per_word  # (S, d): the coefficient of each word at each s
        total = b.sum(axis=1)
        out = np.empty((len(sizes), d + 1))
        out[:, 0] = constant + p1 * total
        out[:, 1:] = (p1 * constant)[:, None] + (p1 - p2)[:, None] * b + (p2 * total)[:, None]
        if self.n_pairs:
            i, j = self.pairs
            q = s_basis(sizes, d, self.pair_degree) @ c[
                degree * (1 + width) : degree * (1 + width) + self.pair_degree * self.n_pairs
            ].reshape(self.pair_degree, -1)
            pair_total = q.sum(axis=1)
            rows = np.zeros((len(sizes), d))
            np.add.at(rows.T, i, q.T)
            np.add.at(rows.T, j, q.T)
            out[:, 0] += p2 * pair_total
            out[:, 1:] += p2[:, None] * rows + (p3 * pair_total)[:, None] - p3[:, None] * rows
        if self.n_index:
            start = self.size - self.n_index - self.n_exact
            r = c[start : start + self.n_index].reshape(len(INDEX_POWERS), self.index_degree)
            b = s_basis(sizes, d, self.index_degree) @ r.T  # (S, powers): each power's coefficient at each s
            mean, per_word = index_power_moments(self.index, self.index_offset, sizes, d)
            out[:, 0] += (b * mean).sum(axis=1)
            out[:, 1:] += np.einsum("sp,spk->sk", b, per_word)
        if self.n_exact:
            r = c[self.size - self.n_exact :].reshape(self.exact.count, self.exact_degree)
            b = s_basis(sizes, d, self.exact_degree) @ r.T  # (S, powers)
            out[:, 0] += (b * self.exact.mean[sizes - 1]).sum(axis=1)
            out[:, 1:] += np.einsum("sp,spk->sk", b, self.exact.per_word[sizes - 1])
        return out


#: the powers of the index that are control features
INDEX_POWERS = (2, 3)


def _partition_sums(q, s1, s2, s3, power, shift):
    r"""The mean of :math:`L^{power}` (L = a·z over some words with power sums s1, s2, s3), times the kept z's.

    ``q[r]`` = P(r given words all kept | s), q[0] = 1.  The ordered products of ``power`` factors a_i z_i group by
    the partition of the factors into blocks of equal words: a block of size b contributes a power sum s_b, and the
    distinct words of the partition (plus ``shift`` given words, the z_k of E[z_k L^p]) are kept with probability
    q[blocks + shift].  The sums over distinct words of the blocks' powers are the augmented monomials of the power
    sums (power 3: s1³ - 3 s1 s2 + 2 s3 for three distinct words).
    """
    if power == 0:
        return q[shift] * np.ones_like(s1)
    if power == 1:
        return q[1 + shift] * s1
    if power == 2:
        return q[1 + shift] * s2 + q[2 + shift] * (s1 * s1 - s2)
    return q[1 + shift] * s3 + 3 * q[2 + shift] * (s1 * s2 - s3) + q[3 + shift] * (s1**3 - 3 * s1 * s2 + 2 * s3)


def index_power_moments(a, offset, sizes, d):
    r""":math:`\mathbb{E}[\ell^p \mid s]` and :math:`\mathbb{E}[z_k \ell^p \mid s]` for :math:`\ell = c + a \cdot z`.

    For each s in ``sizes`` and each p in ``INDEX_POWERS``: shapes (S, powers) and (S, powers, d).  With L = a·z,
    :math:`\ell^p = \sum_r \binom{p}{r} c^{p-r} L^r`, and :math:`z_k L^r = z_k (a_k + L_{-k})^r` (z_k² = z_k)
    expands over the other words' :math:`L_{-k}`; each mean is :func:`_partition_sums`.
    """
    a = np.asarray(a, dtype=float)
    sizes = np.asarray(sizes, dtype=np.int64)
    q = [np.ones(len(sizes))[:, None]] + [p[sizes - 1][:, None] for p in kept_probabilities(d, 4)]
    s1, s2, s3 = a.sum(), (a * a).sum(), (a**3).sum()
    o1, o2, o3 = s1 - a, s2 - a * a, s3 - a**3  # the power sums of the words other than k
    plain = [_partition_sums(q, s1, s2, s3, r, 0) for r in range(4)]  # E[L^r | s], (S, 1)
    without = [_partition_sums(q, o1, o2, o3, r, 1) for r in range(4)]  # E[z_k L_{-k}^r | s], (S, d)
    with_k = [
        sum(math.comb(r, j) * a ** (r - j) * without[j] for j in range(r + 1)) for r in range(4)
    ]  # E[z_k L^r | s]
    mean = np.zeros((len(sizes), len(INDEX_POWERS)))
    per_word = np.zeros((len(sizes), len(INDEX_POWERS), len(a)))
    for n, p in enumerate(INDEX_POWERS):
        for r in range(p + 1):
            factor = math.comb(p, r) * offset ** (p - r)
            mean[:, n] += factor * plain[r][:, 0]
            per_word[:, n] += factor * with_k[r]
    return mean, per_word


def top_pairs(weights, count):
    """All pairs (i, j), i < j, of the ``count`` words with the largest ``abs(weights)``."""
    top = np.sort(np.argsort(-np.abs(np.asarray(weights)), kind="stable")[:count])
    i, j = np.triu_indices(len(top), 1)
    return top[i], top[j]


class NormalEquations:
    """Weighted least squares accumulated over batches: Σ w φ φᵀ and Σ w φ y for one or more responses y."""

    def __init__(self, size, responses=1):
        self.matrix = np.zeros((size, size))
        self.rhs = np.zeros((size, responses))
        self.rows = 0
        self._solved = (None, None)  # (rows, solution): a solve repeated without rows added in between is free

    def add(self, features, responses, weights):
        """Add rows (features, responses) with their weights."""
        weighted = features * weights[:, None]
        self.matrix += weighted.T @ features
        self.rhs += weighted.T @ np.asarray(responses, dtype=float).reshape(len(features), -1)
        self.rows += len(features)
        self._solved = (None, None)

    def solve(self):
        """The coefficients (K, responses); zeros before any row."""
        if self.rows == 0:
            return np.zeros_like(self.rhs)
        if self._solved[0] == self.rows:
            return self._solved[1].copy()
        diagonal = np.diag(self.matrix).copy()
        scale = np.where(diagonal > 0, diagonal, 1.0)
        matrix = self.matrix / np.sqrt(np.outer(scale, scale))
        matrix[np.diag_indices_from(matrix)] += FIT_RIDGE
        # LAPACK's Cholesky solve (dposv, the upper triangle): what ``scipy.linalg.solve(assume_a="pos")`` computes,
        # bit for bit (tests/test_estimate_kernels.py), without its checks and condition estimate (0.11 -> 0.02 ms
        # at K = 45, two or three solves an estimate); a matrix that is not positive definite goes to least squares
        _, solution, info = _posv(matrix, self.rhs / np.sqrt(scale)[:, None], lower=0)
        if info != 0 or not np.isfinite(solution).all():
            solution = np.linalg.lstsq(matrix, self.rhs / np.sqrt(scale)[:, None], rcond=None)[0]
        solution = solution / np.sqrt(scale)[:, None]
        self._solved = (self.rows, solution)
        return solution.copy()
