r"""Exact explanations of models that are boolean formulas or polynomials in the word indicators.

A model of the presence of words, :math:`f(x) = F(z_1, \ldots, z_d)` with
:math:`z_j = \mathbb{1}[\text{word } j \text{ is in } x]`, is a polynomial in the :math:`z_j`.  Because
:math:`z_j^k = z_j` on {0, 1}, it is even *multilinear*: a sum of :math:`c_J \prod_{j \in J} z_j` over
subsets J.  LIME's limit explanation :math:`\beta^f = \Sigma^{-1} \Gamma^f` is linear in f, and
Proposition 3 of the paper (``beta_indicator_product``) gives it for every monomial, so
:math:`\beta^f = \sum_J c_J \beta^{\prod_J}`.  This covers every decision tree built on word
presence: a tree is the sum over its leaves of the leaf value times the product of the literals
(z or 1 - z) on the path to the leaf.

Models are written as sympy expressions whose free symbols are named after the words of the local
dictionary.  A word that is not a Python identifier is still a valid sympy symbol name:
``sympy.Symbol("don't")`` or ``sympy.Symbol("New York")``; never build symbols by parsing a string
(``sympy.sympify("I")`` is the imaginary unit, ``sympy.Symbol("I")`` is the word "I").

Functions
---------
indicator_polynomial(expr, words)
    The multilinear expansion {J: c_J}.
beta_boolean(expr, words, nu)
    βᶠ by linearity over the monomials.
mask_function(expr, words)
    f as a function of LIME's masks (for ``beta_enumerate`` and for comparisons with lime).

Decision trees are turned into such formulas by :mod:`limetheory.pipelines.routes.trees`.
"""

from __future__ import annotations

import numbers
from fractions import Fraction

import numpy as np

from .._validation import check_int, check_nu
from ..units import bandwidth_keyword
from .explanation import beta_indicator_product

# sympy (about a second to import) is imported inside the functions that use it, so that ``import limetheory``
# stays cheap (tests/test_import_cost.py); a caller of this module has imported it already to build a formula

#: most products of two monomials one expansion may form (about a second of dictionary work); an Or of k words or a
#: product of k factors (1 + z_j) has 2ᵏ monomials, so k stays below about 20
MAX_MONOMIAL_PRODUCTS = 2**20
#: largest exponent of a power in a formula; zᵏ = z on {0, 1}, but the coefficients of (c + z)ᵏ grow as cᵏ
MAX_EXPONENT = 1024


class _Budget:
    """The number of monomial products an expansion may still form; refuses the expansion when it runs out."""

    def __init__(self):
        self.left = MAX_MONOMIAL_PRODUCTS

    def spend(self, count):
        self.left -= count
        if self.left < 0:
            raise ValueError(
                f"expr expands into too many monomials: more than {MAX_MONOMIAL_PRODUCTS} products of monomials "
                "(an Or of k words, or a product of k factors (1 + z), has 2^k of them); use beta_enumerate with "
                "mask_function(expr, words) for d <= 22, or simplify the formula"
            )


# ----------------------------------------------------------------------------- argument checks


def check_words(words):
    """words: a sequence of distinct str; returns (list, {word: index})."""
    if isinstance(words, (str, bytes)) or not isinstance(words, (list, tuple, np.ndarray)):
        raise TypeError(f"words must be a list or tuple of str (the local dictionary), got {type(words).__name__}")
    words = list(words)
    if not all(isinstance(w, str) for w in words):
        bad = [w for w in words if not isinstance(w, str)][:3]
        raise TypeError(f"words must contain only str, got {bad!r}")
    seen, duplicates = set(), []
    for w in words:
        if w in seen and w not in duplicates:
            duplicates.append(w)
        seen.add(w)
    if duplicates:
        raise ValueError(f"words must be distinct; repeated: {duplicates!r}")
    return words, {w: j for j, w in enumerate(words)}


def _check_expr(expr):
    """A sympy expression, or a plain number / bool (a constant model)."""
    import sympy as sp

    if isinstance(expr, sp.Basic):
        return expr
    if isinstance(expr, (bool, np.bool_)):
        return sp.true if expr else sp.false
    if isinstance(expr, numbers.Real):
        value = float(expr)
        if not np.isfinite(value):
            raise ValueError(f"expr must be finite, got {expr!r}")
        return sp.Integer(int(expr)) if isinstance(expr, numbers.Integral) else sp.Float(value)
    raise TypeError(
        f"expr must be a sympy expression (or a real number for a constant model), got {type(expr).__name__}; "
        "build word symbols with sympy.Symbol(word), not by parsing strings"
    )


def _check_symbols(expr, index):
    unknown = sorted({str(getattr(s, "name", s)) for s in expr.free_symbols} - set(index))
    if unknown:
        raise ValueError(
            f"expr has symbols that are not words of `words`: {unknown!r} "
            "(symbols must be named after words of the local dictionary; words absent from the document "
            "have indicator 0 under LIME's sampling: replace them by 0)"
        )


# ----------------------------------------------------------------------------- booleans -> arithmetic


def _polynomial_power(e):
    """(base, exponent) of a sympy power, refusing exponents that leave the polynomials."""
    base, exponent = e.args
    if not (exponent.is_Integer and exponent >= 0):
        raise ValueError(
            f"expr must be a polynomial in the word indicators: the power {e} has exponent {exponent}, "
            "not a non-negative integer"
        )
    if exponent > MAX_EXPONENT:
        raise ValueError(
            f"expr has the power {e} with exponent {exponent} > {MAX_EXPONENT}: z^k = z on {{0, 1}}, so write the "
            "base itself when it is an indicator (the coefficients of a larger power overflow)"
        )
    return base, exponent


def _arith(e, undefined, memo=None):
    """Rewrite booleans as arithmetic: Not a -> 1 - a, And -> product, Or -> 1 - prod(1 - a), ...

    Piecewise((v1, c1), (v2, c2), ...) -> v1 c1 + (1 - c1) v2 c2 + ...; the leftover
    prod_i (1 - c_i) (where no condition holds) is appended to ``undefined`` to be checked for zero.
    Arithmetic nodes are rebuilt with converted arguments; nothing is expanded here.
    """
    import sympy as sp
    from sympy.logic import boolalg

    if memo is None:
        memo = {}
    if e in memo:
        return memo[e]
    if e is sp.true:
        out = sp.Integer(1)
    elif e is sp.false:
        out = sp.Integer(0)
    elif isinstance(e, (sp.Symbol, sp.Number)) or not e.free_symbols:
        out = e
    elif isinstance(e, boolalg.Not):
        out = 1 - _arith(e.args[0], undefined, memo)
    elif isinstance(e, boolalg.And):
        out = sp.Mul(*[_arith(a, undefined, memo) for a in e.args])
    elif isinstance(e, boolalg.Or):
        out = 1 - sp.Mul(*[1 - _arith(a, undefined, memo) for a in e.args])
    elif isinstance(e, boolalg.Nand):
        out = 1 - sp.Mul(*[_arith(a, undefined, memo) for a in e.args])
    elif isinstance(e, boolalg.Nor):
        out = sp.Mul(*[1 - _arith(a, undefined, memo) for a in e.args])
    elif isinstance(e, (boolalg.Xor, boolalg.Xnor)):
        parity = sp.Integer(0)  # a xor b = a + b - 2ab on {0, 1}
        for a in e.args:
            b = _arith(a, undefined, memo)
            parity = parity + b - 2 * parity * b
        out = parity if isinstance(e, boolalg.Xor) else 1 - parity
    elif isinstance(e, boolalg.Implies):
        a, b = (_arith(x, undefined, memo) for x in e.args)
        out = 1 - a + a * b
    elif isinstance(e, boolalg.Equivalent):
        parts = [_arith(a, undefined, memo) for a in e.args]
        out = sp.Mul(*parts) + sp.Mul(*[1 - a for a in parts])
    elif isinstance(e, boolalg.ITE):
        c, a, b = (_arith(x, undefined, memo) for x in e.args)
        out = c * a + (1 - c) * b
    elif isinstance(e, sp.Piecewise):
        out, remaining = sp.Integer(0), sp.Integer(1)
        for value, condition in e.args:
            c = _arith(condition, undefined, memo)
            out = out + remaining * c * _arith(value, undefined, memo)
            remaining = remaining * (1 - c)
        if remaining != 0:
            undefined.append((e, remaining))
    elif isinstance(e, (sp.Add, sp.Mul)):
        out = e.func(*[_arith(a, undefined, memo) for a in e.args])
    elif isinstance(e, sp.Pow):
        base, exponent = _polynomial_power(e)
        out = sp.Pow(_arith(base, undefined, memo), exponent, evaluate=False)
    elif isinstance(e, sp.core.relational.Relational):
        raise ValueError(
            f"expr must be a boolean formula or a polynomial in the word indicators: relation {e} is not supported "
            "(write the indicator itself, e.g. sympy.Symbol('food') rather than Eq(food, 1))"
        )
    else:
        raise ValueError(
            f"expr must be a boolean formula or a polynomial in the word indicators: cannot handle {e} "
            f"({type(e).__name__})"
        )
    memo[e] = out
    return out


# ----------------------------------------------------------------------------- multilinear algebra


def _number(e):
    """A constant sympy expression as int, Fraction or float (finite and real, else ValueError)."""
    import sympy as sp

    if e.is_Integer:
        return int(e)
    if e.is_Rational:
        return Fraction(int(e.p), int(e.q))
    value = sp.N(e, 30)
    if not (value.is_Number and value.is_real and value.is_finite):
        raise ValueError(f"expr has a constant that is not a finite real number: {e}")
    return float(value)


def _prune(poly):
    return {k: v for k, v in poly.items() if v != 0}


def _add(p, q):
    out = dict(p)
    for k, v in q.items():
        out[k] = out.get(k, 0) + v
    return _prune(out)


def _mul(p, q, budget):
    budget.spend(len(p) * len(q))
    out = {}
    get = out.get
    for k1, v1 in p.items():
        for k2, v2 in q.items():
            k = k1 | k2  # bit masks: z_j^2 = z_j
            out[k] = get(k, 0) + v1 * v2
    return _prune(out)


def _indices(monomial):
    """The word indices of a monomial's bit mask, in increasing order."""
    return tuple(j for j in range(monomial.bit_length()) if monomial >> j & 1)


def _power(p, n, budget):
    result, base = {0: 1}, p
    while n:
        if n & 1:
            result = _mul(result, base, budget)
        n >>= 1
        if n:
            base = _mul(base, base, budget)
    return result


def _multilinear(e, index, memo, budget=None):
    """Multilinear expansion of an arithmetic sympy expression: {monomial: coefficient}.

    A monomial is the int whose bit j is set when word j is in it: products of monomials are bitwise ors, several
    times faster than unions of frozensets once monomials hold a dozen words.

    ``budget`` (a :class:`_Budget`, one per expansion) bounds the number of monomial products.
    """
    import sympy as sp

    if budget is None:
        budget = _Budget()
    if e in memo:
        return memo[e]
    if not e.free_symbols:
        value = _number(e)
        out = {0: value} if value != 0 else {}
    elif isinstance(e, sp.Symbol):
        out = {1 << index[e.name]: 1}
    elif isinstance(e, sp.Add):
        out = {}
        for a in e.args:
            out = _add(out, _multilinear(a, index, memo, budget))
    elif isinstance(e, sp.Mul):
        out = {0: 1}
        for a in e.args:
            out = _mul(out, _multilinear(a, index, memo, budget), budget)
    elif isinstance(e, sp.Pow):
        base, exponent = _polynomial_power(e)
        out = _power(_multilinear(base, index, memo, budget), int(exponent), budget)
    else:
        raise ValueError(f"expr must be a polynomial in the word indicators: cannot expand {e} ({type(e).__name__})")
    memo[e] = out
    return out


def _prepare(expr, words):
    """(words, index, arithmetic form) after all checks (Piecewise defined everywhere included)."""
    expr = _check_expr(expr)
    words, index = check_words(words)
    _check_symbols(expr, index)
    undefined = []
    arithmetic = _arith(expr, undefined)
    memo, budget = {}, _Budget()
    for piecewise, remaining in undefined:
        if _multilinear(remaining, index, memo, budget):
            raise ValueError(
                f"expr has a Piecewise that is undefined where none of its conditions holds: {piecewise}; "
                "add a last branch (value, True)"
            )
    return words, index, arithmetic


def _expand(expr, words):
    """(words, index, {monomial bit mask of J: c_J}) after all checks."""
    words, index, arithmetic = _prepare(expr, words)
    return words, index, _multilinear(arithmetic, index, {})


def _evaluate(e, columns, index, memo):
    """Numerical value of an arithmetic sympy expression at the 0/1 columns (numpy arrays), without expansion."""
    import sympy as sp

    if e in memo:
        return memo[e]
    if not e.free_symbols:
        out = float(_number(e))
    elif isinstance(e, sp.Symbol):
        out = columns[index[e.name]]
    elif isinstance(e, sp.Add):
        out = sum(_evaluate(a, columns, index, memo) for a in e.args)
    elif isinstance(e, sp.Mul):
        out = 1.0
        for a in e.args:
            out = out * _evaluate(a, columns, index, memo)
    else:  # Pow with a non-negative integer exponent (checked by _arith)
        out = _evaluate(e.args[0], columns, index, memo) ** int(e.args[1])
    memo[e] = out
    return out


def arithmetic_indicator(formula):
    """A boolean formula in word symbols as arithmetic equal to it on {0, 1}: Or(a, b) -> 1 - (1 - a)(1 - b)."""
    return _arith(formula, [])


def _sympy_number(value):
    import sympy as sp

    if isinstance(value, Fraction):
        return sp.Rational(value.numerator, value.denominator)
    return sp.sympify(value)


# ----------------------------------------------------------------------------- public: formulas -> beta


def indicator_polynomial(expr, words):
    """The multilinear polynomial in the word indicators that equals ``expr`` on {0, 1}ᵈ.

    Booleans become arithmetic (Not a → 1 - a, And → product, Or → 1 - ∏(1 - a),
    Xor → a + b - 2ab, ITE(c, a, b) → c a + (1 - c) b, Piecewise → its first true branch), the
    result is expanded and z_jᵏ is reduced to z_j (k >= 1).

    Parameters
    ----------
    expr : sympy expression, or a real number
        A boolean formula (And, Or, Not, Xor, Nand, Nor, Xnor, Implies, Equivalent, ITE), a
        ``Piecewise`` with boolean conditions, or a polynomial in the indicators, in any mix.  Its free
        symbols must be named after words of ``words`` (``sympy.Symbol(word)`` works for any word,
        e.g. ``sympy.Symbol("don't")``).  A real number is a constant model.
    words : list or tuple of str
        The local dictionary (e.g. ``local_dictionary(text)``), distinct words; word j is indicator z_j.

    Returns
    -------
    dict
        {J: c_J} with J a sorted tuple of 0-based word indices (``()`` for the constant term) and c_J a
        nonzero sympy number (exact Integer or Rational when ``expr`` is exact), sorted by (|J|, J).

    Raises
    ------
    TypeError
        ``expr`` is neither a sympy expression nor a real number; ``words`` is not a sequence of str.
    ValueError
        A symbol is not a word of ``words`` (named in the message); ``expr`` is not a polynomial
        (e.g. ``exp(x)``, ``1/x``, ``x**0.5``, ``sqrt(x)``, a relation such as ``x > 0``); a Piecewise
        is undefined for some masks; ``words`` repeats a word; the expansion is beyond the limits below.

    Notes
    -----
    Limits: the expansion may form at most 2**20 products of monomials (``MAX_MONOMIAL_PRODUCTS``; an Or of k
    words has 2ᵏ monomials, so k <= about 20) and powers have exponents <= 1024; beyond, a ValueError says so
    before the work grows (:func:`mask_function` evaluates any formula without expanding it).

    Examples
    --------
    >>> import sympy as sp
    >>> good, food = sp.symbols("good food")
    >>> indicator_polynomial(sp.Or(good, food), ["good", "food"])
    {(0,): 1, (1,): 1, (0, 1): -1}
    """
    _, _, poly = _expand(expr, words)
    items = sorted(((_indices(k), v) for k, v in poly.items()), key=lambda kv: (len(kv[0]), kv[0]))
    return {k: _sympy_number(v) for k, v in items}


@bandwidth_keyword
def beta_boolean(expr, words, *, nu):
    r"""Exact LIME explanation βᶠ of a model that is a boolean formula / polynomial in word indicators.

    With ``expr`` expanded into its multilinear form :math:`f = \sum_J c_J \prod_{j \in J} z_j`
    (:func:`indicator_polynomial`), :math:`\beta^f = \sum_J c_J \beta^{\prod_J}`, where
    :math:`\beta^{\prod_J}` is Proposition 3 of the paper
    (:func:`limetheory.theory.explanation.beta_indicator_product`). By exchangeability, :math:`\beta^{\prod_J}` only
    depends on :math:`p = \lvert J \rvert` and on whether a word is in J, so the closed form is
    evaluated once per p and the monomials are summed in O(number of monomials * p).

    Parameters
    ----------
    expr : sympy expression, or a real number
        See :func:`indicator_polynomial`.  A decision tree can be passed as the output of
        :func:`tree_to_formula` or :func:`tree_formula_for_document`.
    words : list or tuple of str
        The local dictionary, d = len(words) >= 2 distinct words.
    nu : float
        Bandwidth > 0 or ``np.inf`` (lime's kernel_width / 100).

    Returns
    -------
    ndarray, shape (d + 1,)
        Index 0 is the intercept, index 1 + j the coefficient of ``words[j]``.

    Raises
    ------
    TypeError, ValueError
        As :func:`indicator_polynomial` (including its limits on the expansion); also for fewer than two words,
        an invalid ``nu`` or a coefficient beyond double precision.

    Examples
    --------
    >>> import sympy as sp
    >>> (beta_boolean(sp.Symbol("good"), ["good", "food"], nu=np.inf).round(12) + 0.0).tolist()
    [0.0, 1.0, 0.0]
    """
    words, _, poly = _expand(expr, words)
    d = check_int(len(words), "len(words)", minimum=2)
    nu = check_nu(nu)
    by_size = {}
    for monomial, coefficient in poly.items():
        try:
            value = float(coefficient)
        except OverflowError:
            value = np.inf
        if not np.isfinite(value):
            raise ValueError(f"expr has a coefficient beyond double precision in its expansion: {str(coefficient):.40}")
        by_size.setdefault(monomial.bit_count(), []).append((_indices(monomial), value))
    beta = np.zeros(d + 1)
    for p, terms in sorted(by_size.items()):
        reference = beta_indicator_product(tuple(range(p)), d, nu=nu)  # J = {0, ..., p-1}
        inside = reference[1] if p > 0 else 0.0  # coefficient of a word of J
        outside = reference[p + 1] if p < d else 0.0  # coefficient of a word not in J
        total = sum(c for _, c in terms)
        beta[0] += total * reference[0]
        beta[1:] += total * outside
        for monomial, c in terms:
            for j in monomial:
                beta[1 + j] += c * (inside - outside)
    return beta


def mask_function(expr, words):
    """``expr`` as a function of LIME's masks: an (m, d) 0/1 array -> m real values.

    The boolean parts are rewritten as arithmetic (as in :func:`indicator_polynomial`) and the result is
    evaluated with numpy, node by node, without expansion.  Use it with
    :func:`limetheory.theory.explanation.beta_enumerate`, or to evaluate the model on the masks ``z`` that lime drew
    (:func:`limetheory.engine.empirical.capture_lime_samples`).

    Parameters
    ----------
    expr, words
        As in :func:`indicator_polynomial` (same checks).

    Returns
    -------
    callable
        f(z) with z of shape (m, len(words)) and entries 0/1; returns an ndarray of shape (m,) (a ValueError
        when a value is beyond double precision).

    Examples
    --------
    >>> import sympy as sp
    >>> f = mask_function(sp.And(sp.Symbol("good"), sp.Not(sp.Symbol("bad"))), ["good", "bad"])
    >>> f(np.array([[1, 0], [1, 1], [0, 0]])).tolist()
    [1.0, 0.0, 0.0]
    """
    import sympy as sp

    words, index, arithmetic = _prepare(expr, words)
    d = len(words)
    for node in sp.preorder_traversal(arithmetic):  # every constant now, so that f cannot fail on one later
        if not node.free_symbols:
            _number(node)

    def f(z):
        z = np.asarray(z)
        if z.ndim != 2 or z.shape[1] != d:
            raise ValueError(f"z must have shape (m, {d}), got {z.shape}")
        if not np.isin(z, (0, 1)).all():
            raise ValueError("z must contain only 0 and 1")
        columns = [z[:, j].astype(float) for j in range(d)]
        with np.errstate(over="ignore", invalid="ignore"):
            try:
                values = _evaluate(arithmetic, columns, index, {})
            except OverflowError:  # a Python float raised to a large power
                values = np.inf
        out = np.broadcast_to(np.asarray(values, dtype=float), (z.shape[0],)).copy()
        if not np.isfinite(out).all():
            raise ValueError("expr is not finite on these masks (a coefficient or power beyond double precision)")
        return out

    return f
