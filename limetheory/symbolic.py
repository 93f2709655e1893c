"""sympy counterparts of the sampling law and of the alpha coefficients, for symbolic d.

The sum over s in alpha_p has no closed form for a general weight psi, so ``alpha_sum``
keeps psi as an undefined function; at psi = 1 (infinite bandwidth) sympy evaluates the
sums in closed form for symbolic d.
"""

from __future__ import annotations

import sympy as sp

from ._validation import check_int

d, s, t, nu = sp.symbols("d s t nu", positive=True)
k = sp.Symbol("k", integer=True, nonnegative=True)
psi_function = sp.Function("psi")


def psi_expr(t_expr=t, nu_expr=nu):
    """psi(t) = exp(-(1 - sqrt(1 - t))^2 / (2 nu^2)) as a sympy expression."""
    return sp.exp(-((1 - sp.sqrt(1 - t_expr)) ** 2) / (2 * nu_expr**2))


def prob_kept_given_s(p, d_expr=d, s_expr=s):
    """P(p given words kept | |S| = s) = prod_{k<p} (d - s - k)/(d - k), for a fixed integer p."""
    p = check_int(p, "p", minimum=0)
    return sp.Mul(*[(d_expr - s_expr - j) / (d_expr - j) for j in range(p)])


def prob_kept_given_s_binomial(p, d_expr=d, s_expr=s):
    """The same probability counted as binom(d - p, s) / binom(d, s) (subsets avoiding the p words)."""
    p = check_int(p, "p", minimum=0)
    return sp.binomial(d_expr - p, s_expr) / sp.binomial(d_expr, s_expr)


def prob_kept(p, d_expr=d):
    """P(p given words kept) averaged over s uniform in {1..d}, summed by sympy for symbolic d."""
    s_dummy = sp.Symbol("s_", integer=True, positive=True)
    total = sp.summation(sp.expand(prob_kept_given_s(p, d_expr, s_dummy)), (s_dummy, 1, d_expr))
    return sp.simplify(total / d_expr)


def alpha_sum(p, d_expr=d, weight=None):
    """alpha_p = (1/d) sum_{s=1}^d P(kept | s) weight(s/d) as an unevaluated sympy Sum.

    ``weight`` is a callable t -> expression; by default the undefined function psi.
    """
    p = check_int(p, "p", minimum=0)
    weight = weight or psi_function
    s_dummy = sp.Symbol("s_", integer=True, positive=True)
    return sp.Sum(prob_kept_given_s(p, d_expr, s_dummy) * weight(s_dummy / d_expr), (s_dummy, 1, d_expr)) / d_expr


def alpha_large_bandwidth(p, d_expr=d):
    """lim_{nu -> inf} alpha_p for symbolic d: the sum of ``alpha_sum`` with psi = 1, evaluated."""
    return sp.simplify(alpha_sum(p, d_expr, weight=lambda _t: sp.Integer(1)).doit())
