"""sympy counterparts of the sampling law and of the α coefficients, for symbolic d.

The sum over s in α_p has no closed form for a general weight ψ, so ``alpha_sum``
keeps ψ as an undefined function; at ψ = 1 (infinite bandwidth) sympy evaluates the
sums in closed form for symbolic d.

Limits: the number p of given words is at most ``MAX_SYMBOLIC_P`` = 10 (a ValueError beyond): the expressions
are products of p factors, and their expansion and summation grow much faster than p.
"""

from __future__ import annotations

import numbers

import numpy as np
import sympy as sp

from .._validation import check_int
from . import printed

d, s, t, nu = sp.symbols("d s t nu", positive=True)
k = sp.Symbol("k", integer=True, nonnegative=True)
psi_function = sp.Function("psi")

#: largest number p of given words in the symbolic probabilities (they are products of p factors that sympy
#: expands and sums, at a cost that doubles with every two more words; about 1.4 s at p = 8 here)
MAX_SYMBOLIC_P = 10


def _expression(value, name, *, minimum=None, maximum=None, positive=False):
    """``value`` as a sympy expression (a number or an expression; no str), range-checked when it is a number."""
    if isinstance(value, (bool, str, bytes)) or not isinstance(value, (sp.Basic, numbers.Real)):
        raise TypeError(f"{name} must be a sympy expression or a real number, got {value!r}")
    expr = sp.sympify(value)
    if expr.is_number:
        if expr.is_real is False or expr.has(sp.nan, sp.zoo):
            raise ValueError(f"{name} must be real, got {expr}")
        if positive and not expr.is_positive:
            raise ValueError(f"{name} must be > 0, got {expr}")
        if minimum is not None and expr < minimum:
            raise ValueError(f"{name} must be >= {minimum}, got {expr}")
        if maximum is not None and expr > maximum:
            raise ValueError(f"{name} must be <= {maximum}, got {expr}")
    return expr


def _entry(value, name):
    """A matrix entry: a sympy expression or a number.

    numpy scalars become Python numbers, whose arithmetic with large Python ints is exact instead of overflowing a
    C long.
    """
    if isinstance(value, (bool, np.bool_, str, bytes)) or not isinstance(value, (sp.Basic, numbers.Number)):
        raise TypeError(f"{name} must be a sympy expression or a number, got {value!r}")
    return value.item() if isinstance(value, np.generic) else value


def _number_of_words(value, name="d_expr"):
    """A symbolic d or a positive integer."""
    expr = _expression(value, name, minimum=1)
    if expr.is_number and not expr.is_integer:
        raise ValueError(f"{name} must be an integer when it is a number, got {expr}")
    return expr


def psi_expr(t_expr=t, nu_expr=nu):
    r""":math:`\psi(t) = \exp\bigl(-(1 - \sqrt{1 - t})^2 / (2 \nu^2)\bigr)` as a sympy expression.

    ``t_expr`` in [0, 1] and ``nu_expr`` > 0 when they are numbers (``sp.oo`` is allowed for ν).

    Examples
    --------
    >>> psi_expr(sp.Rational(1, 4), 1)
    exp(-(1 - sqrt(3)/2)**2/2)
    """
    t_expr = _expression(t_expr, "t_expr", minimum=0, maximum=1)
    nu_expr = _expression(nu_expr, "nu_expr", positive=True)
    return sp.exp(-((1 - sp.sqrt(1 - t_expr)) ** 2) / (2 * nu_expr**2))


def prob_kept_given_s(p, d_expr=d, s_expr=s):
    """P(p given words kept, given that s words are removed) = prod_{k<p} (d - s - k)/(d - k), for a fixed integer p.

    Examples
    --------
    >>> prob_kept_given_s(2)
    (d - s)*(d - s - 1)/(d*(d - 1))
    """
    p = check_int(p, "p", minimum=0, maximum=MAX_SYMBOLIC_P)
    d_expr = _number_of_words(d_expr)
    s_expr = _expression(s_expr, "s_expr", minimum=0)
    return sp.Mul(*[(d_expr - s_expr - j) / (d_expr - j) for j in range(p)])


def prob_kept_given_s_binomial(p, d_expr=d, s_expr=s):
    """The same probability counted as binom(d - p, s) / binom(d, s) (subsets avoiding the p words).

    Examples
    --------
    >>> prob_kept_given_s_binomial(1, 4, 1)
    3/4
    """
    p = check_int(p, "p", minimum=0, maximum=MAX_SYMBOLIC_P)
    d_expr = _number_of_words(d_expr)
    s_expr = _expression(s_expr, "s_expr", minimum=0)
    return sp.binomial(d_expr - p, s_expr) / sp.binomial(d_expr, s_expr)


def prob_kept(p, d_expr=d):
    """P(p given words kept) averaged over s uniform in {1..d}, summed by sympy for symbolic d.

    Examples
    --------
    >>> prob_kept(1)
    (d - 1)/(2*d)
    """
    p = check_int(p, "p", minimum=0, maximum=MAX_SYMBOLIC_P)
    d_expr = _number_of_words(d_expr)
    s_dummy = sp.Symbol("s_", integer=True, positive=True)
    total = sp.summation(sp.expand(prob_kept_given_s(p, d_expr, s_dummy)), (s_dummy, 1, d_expr))
    return sp.simplify(total / d_expr)


def alpha_sum(p, d_expr=d, weight=None):
    r"""The sum that defines α_p (Proposition 1), as an unevaluated sympy Sum.

    :math:`\alpha_p = \frac{1}{d} \sum_{s=1}^d \mathbb{P}(\text{kept} \mid s)\, \mathrm{weight}(s/d)`.

    ``weight`` is a callable t ↦ expression; by default the undefined function ψ.

    Examples
    --------
    >>> alpha_sum(1, 3)
    Sum((1 - s_/3)*psi(s_/3), (s_, 1, 3))/3
    """
    p = check_int(p, "p", minimum=0, maximum=MAX_SYMBOLIC_P)
    d_expr = _number_of_words(d_expr)
    if weight is not None and not callable(weight):
        raise TypeError(f"weight must be a callable t -> expression (or None for psi), got {weight!r}")
    weight = weight or psi_function
    s_dummy = sp.Symbol("s_", integer=True, positive=True)
    return sp.Sum(prob_kept_given_s(p, d_expr, s_dummy) * weight(s_dummy / d_expr), (s_dummy, 1, d_expr)) / d_expr


def alpha_large_bandwidth(p, d_expr=d):
    r""":math:`\lim_{\nu \to \infty} \alpha_p` for symbolic d: the sum of ``alpha_sum`` with ψ = 1, evaluated.

    Examples
    --------
    >>> alpha_large_bandwidth(1)
    (d - 1)/(2*d)
    """
    p = check_int(p, "p", minimum=0, maximum=MAX_SYMBOLIC_P)
    return sp.simplify(alpha_sum(p, d_expr, weight=lambda _t: sp.Integer(1)).doit())


class PatternedMatrix:
    """A (d + 1) × (d + 1) matrix with Σ's pattern, kept as five scalars and d.

    ``corner`` is entry (0, 0), ``row`` the rest of row 0, ``column`` the rest of column 0,
    ``diagonal`` the entries (j, j) and ``off_diagonal`` the entries (j, k), j != k, for
    1 <= j, k <= d.  Such matrices are closed under sums and products, so identities like
    Σ Σ⁻¹ = I can be checked for a symbolic ``d`` on five scalars.  Entries may be
    sympy expressions or numbers.
    """

    __slots__ = ("corner", "row", "column", "diagonal", "off_diagonal", "d")

    def __init__(self, corner, row, column, diagonal, off_diagonal, d=d):
        corner, row, column, diagonal, off_diagonal = (
            _entry(value, name)
            for name, value in zip(
                ("corner", "row", "column", "diagonal", "off_diagonal"),
                (corner, row, column, diagonal, off_diagonal),
                strict=True,
            )
        )
        d = _number_of_words(d, "d")
        self.corner, self.row, self.column = corner, row, column
        self.diagonal, self.off_diagonal, self.d = diagonal, off_diagonal, d

    @classmethod
    def symmetric(cls, corner, border, diagonal, off_diagonal, d_expr=d):
        """The symmetric case (row = column = ``border``), e.g. Σ and Σ⁻¹."""
        return cls(corner, border, border, diagonal, off_diagonal, d_expr)

    @classmethod
    def identity(cls, d_expr=d):
        """The identity matrix of size d + 1."""
        return cls(1, 0, 0, 1, 0, d_expr)

    def entries(self):
        """(corner, row, column, diagonal, off_diagonal)."""
        return (self.corner, self.row, self.column, self.diagonal, self.off_diagonal)

    def _check_same_d(self, other):
        if not isinstance(other, PatternedMatrix):
            raise TypeError(f"expected a PatternedMatrix, got {type(other).__name__}")
        if sp.simplify(sp.sympify(self.d) - sp.sympify(other.d)) != 0:
            raise ValueError(f"matrices of different sizes: d = {self.d} and d = {other.d}")

    def __add__(self, other):
        self._check_same_d(other)
        return PatternedMatrix(*(x + y for x, y in zip(self.entries(), other.entries(), strict=True)), self.d)

    def scale(self, factor):
        """factor * self."""
        factor = _entry(factor, "factor")
        return PatternedMatrix(*(factor * x for x in self.entries()), self.d)

    def __matmul__(self, other):
        self._check_same_d(other)
        a1, b1, c1, e1, f1 = self.entries()
        a2, b2, c2, e2, f2 = other.entries()
        n = self.d
        return PatternedMatrix(
            a1 * a2 + n * b1 * c2,
            a1 * b2 + b1 * e2 + (n - 1) * b1 * f2,
            c1 * a2 + e1 * c2 + (n - 1) * f1 * c2,
            c1 * b2 + e1 * e2 + (n - 1) * f1 * f2,
            c1 * b2 + e1 * f2 + f1 * e2 + (n - 2) * f1 * f2,
            n,
        )

    def simplify(self):
        """Entry-wise ``sympy.simplify``."""
        return PatternedMatrix(*(sp.simplify(x) for x in self.entries()), self.d)

    def equals(self, other):
        """True when every entry of self - other simplifies to 0."""
        self._check_same_d(other)
        return all(sp.simplify(x - y) == 0 for x, y in zip(self.entries(), other.entries(), strict=True))

    def determinant(self):
        r"""The determinant of the patterned matrix.

        :math:`(\mathrm{diagonal} - \mathrm{off})^{d-1}
        \bigl(\mathrm{corner}\, (\mathrm{diagonal} + (d-1)\, \mathrm{off}) - d\, \mathrm{row}\, \mathrm{column}\bigr)`,
        where off is ``off_diagonal``.
        """
        n = self.d
        a, b, c, e, f = self.entries()
        return (e - f) ** (n - 1) * (a * (e + (n - 1) * f) - n * b * c)

    def reduced_block(self):
        """The 2 × 2 matrix of the map on span{e₀, (0, 1, ..., 1)/√d} (a sympy Matrix).

        The other d - 1 eigenvalues all equal diagonal - off_diagonal (vectors (0, v), v orthogonal to 1).
        """
        n = self.d
        a, b, c, e, f = self.entries()
        return sp.Matrix([[a, sp.sqrt(n) * b], [sp.sqrt(n) * c, e + (n - 1) * f]])

    def to_matrix(self, d_value=None):
        """Dense sympy Matrix for a concrete d: ``d_value``, substituted for a symbolic d, or self.d."""
        if d_value is None:
            if not isinstance(sp.sympify(self.d), sp.Integer):
                raise ValueError(f"d is symbolic ({self.d}); pass d_value to build a dense matrix")
            d_value = int(self.d)
        size = check_int(d_value, "d_value", minimum=1)
        subs = {self.d: size} if isinstance(self.d, sp.Symbol) else {}
        a, b, c, e, f = (sp.sympify(x).subs(subs) for x in self.entries())
        return sp.Matrix(
            size + 1,
            size + 1,
            lambda i, j: a if i == j == 0 else b if i == 0 else c if j == 0 else e if i == j else f,
        )

    def __repr__(self):
        names = ("corner", "row", "column", "diagonal", "off_diagonal")
        body = ", ".join(f"{name}={value}" for name, value in zip(names, self.entries(), strict=True))
        return f"PatternedMatrix({body}, d={self.d})"


alpha0, alpha1, alpha2 = sp.symbols("alpha_0 alpha_1 alpha_2", positive=True)


def sigma_patterned(a0=alpha0, a1=alpha1, a2=alpha2, d_expr=d):
    """Σ as a PatternedMatrix: α₀ in the corner, α₁ on the border and diagonal, α₂ elsewhere.

    Examples
    --------
    >>> sigma_patterned(1, sp.Rational(1, 2), sp.Rational(1, 3), 2).to_matrix()
    Matrix([
    [  1, 1/2, 1/2],
    [1/2, 1/2, 1/3],
    [1/2, 1/3, 1/2]])
    """
    return PatternedMatrix.symmetric(a0, a1, a1, a2, d_expr)


def sigma_inverse_patterned(a0=alpha0, a1=alpha1, a2=alpha2, d_expr=d):
    """The paper's closed form of Σ⁻¹ as a PatternedMatrix.

    Its entries are σ₀, ..., σ₃ over c_d, as printed in ``limetheory.theory.printed``.

    Numbers and sympy expressions are both accepted; a numerical α₁ - α₂ or c_d equal to 0 (a singular
    Σ) is refused with a ValueError.

    Examples
    --------
    >>> (sigma_patterned() @ sigma_inverse_patterned()).equals(PatternedMatrix.identity())
    True
    """
    a0, a1, a2 = _entry(a0, "a0"), _entry(a1, "a1"), _entry(a2, "a2")
    d_expr = _number_of_words(d_expr)
    c_d = printed.normalization_constant(a0, a1, a2, d_expr)
    for what, value in (("alpha_1 - alpha_2", a1 - a2), ("c_d", c_d)):
        if sp.sympify(value).is_zero:
            raise ValueError(f"{what} = 0 for a0 = {a0}, a1 = {a1}, a2 = {a2}, d = {d_expr}: Sigma is singular")
    sigmas = printed.sigma_coefficients(a0, a1, a2, d_expr)
    return PatternedMatrix.symmetric(*sigmas, d_expr).scale(1 / c_d)
