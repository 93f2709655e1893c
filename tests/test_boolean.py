"""limetheory.theory.boolean: boolean/polynomial models, against exact enumeration.

References never use the package's expansion: formulas are generated together with an independent numpy
evaluator, and beta is checked against ``beta_enumerate`` (all 2^d masks).  The trees are tested in
test_trees.py.
"""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp
from formula_checks import BANDWIDTHS, all_binary, close
from sympy.logic import boolalg

import limetheory as lt
from limetheory.theory.explanation import all_masks

# ----------------------------------------------------------------------------- random formulas


def random_formula(rng, symbols, depth):
    """(sympy expression, numpy evaluator z -> values, is_boolean), built side by side."""
    d = len(symbols)
    if depth == 0 or rng.random() < 0.2:
        j = int(rng.integers(d))
        return symbols[j], (lambda z, j=j: z[:, j].astype(float)), True
    kind = rng.choice(["not", "and", "or", "xor", "ite", "piecewise", "add", "mul", "scale", "pow", "minus"])
    a, fa, ba = random_formula(rng, symbols, depth - 1)
    b, fb, bb = random_formula(rng, symbols, depth - 1)

    if kind in ("not", "and", "or", "xor", "ite") and ba and bb:
        if kind == "not":
            return sp.Not(a), (lambda z: 1.0 - fa(z)), True
        if kind == "and":
            return sp.And(a, b), (lambda z: fa(z) * fb(z)), True
        if kind == "or":
            return sp.Or(a, b), (lambda z: np.maximum(fa(z), fb(z))), True
        if kind == "xor":
            return sp.Xor(a, b), (lambda z: (fa(z) + fb(z)) % 2), True
        c, fc, bc = random_formula(rng, symbols, depth - 1)
        if bc:
            return sp.ITE(a, b, c), (lambda z: np.where(fa(z) == 1, fb(z), fc(z))), True
    if kind == "piecewise" and bb:
        value = float(np.round(rng.normal(), 3))
        # first true branch wins: a where b holds, the constant elsewhere
        return (
            sp.Piecewise((a, b), (value, True))
            if not ba
            else sp.Piecewise((sp.Piecewise((1, a), (0, True)), b), (value, True)),
            (lambda z: np.where(fb(z) == 1, fa(z), value)),
            False,
        )
    if ba:
        a, fa = sp.Piecewise((1, a), (0, True)), fa
    if bb:
        b, fb = sp.Piecewise((1, b), (0, True)), fb
    if kind == "add":
        return a + b, (lambda z: fa(z) + fb(z)), False
    if kind == "mul":
        return a * b, (lambda z: fa(z) * fb(z)), False
    if kind == "scale":
        c = sp.Rational(int(rng.integers(-5, 6)), int(rng.integers(1, 4)))
        return c * a, (lambda z: float(c) * fa(z)), False
    if kind == "pow":
        k = int(rng.integers(0, 4))
        return a**k, (lambda z: fa(z) ** k), False
    return 1 - a, (lambda z: 1.0 - fa(z)), False


@pytest.mark.parametrize("seed", range(12))
def test_random_formulas_match_enumeration(seed):
    rng = np.random.default_rng(seed)
    d = int(rng.integers(5, 11)) if seed < 10 else 16
    words = [f"w{j}" for j in range(d)]
    symbols = [sp.Symbol(w) for w in words]
    expr, f, _ = random_formula(rng, symbols, depth=4)
    if d <= 12:  # the formula as the package reads it equals the independent evaluator on every mask
        z = all_binary(d)
        assert np.allclose(lt.mask_function(expr, words)(z), f(z), rtol=0, atol=1e-12)
    for nu, d_min in BANDWIDTHS:
        if d < d_min:
            continue
        expected = lt.beta_enumerate(f, d, nu=nu)
        assert close(lt.beta_boolean(expr, words, nu=nu), expected), (seed, nu, str(expr))


@pytest.mark.parametrize("nu,d_min", BANDWIDTHS)
def test_paper_tree_and_its_equivalent_forms(nu, d_min):
    d = max(8, d_min)
    words = ["food", "about", "Everything", "bad", "character"] + [f"w{j}" for j in range(d - 5)]
    food, about, every, bad, character = sp.symbols("food about Everything bad character")
    forms = [
        food + (1 - food) * about * every,
        sp.Or(food, sp.And(about, every)),
        sp.ITE(food, sp.true, sp.And(about, every)),
        sp.Piecewise((1, food), (1, sp.And(about, every)), (0, True)),
        sp.Piecewise((1, food), (sp.Piecewise((1, about & every), (0, True)), True)),
    ]
    z_all = all_masks(d)[0]

    def g(z):
        return z[:, 0] + (1 - z[:, 0]) * z[:, 1] * z[:, 2]

    expected = lt.beta_enumerate(g, d, nu=nu)
    for form in forms:
        assert np.array_equal(lt.mask_function(form, words)(z_all), g(z_all).astype(float))
        assert close(lt.beta_boolean(form, words, nu=nu), expected)
    # the supplement's deeper rule, with values up to 3
    rule = food + (1 - food) * about * every + bad + bad * character

    def rule_np(z):
        return g(z) + z[:, 3] + z[:, 3] * z[:, 4]

    assert close(lt.beta_boolean(rule, words, nu=nu), lt.beta_enumerate(rule_np, d, nu=nu))


def test_monomials_reduce_to_beta_indicator_product():
    words = [f"w{j}" for j in range(7)]
    w = sp.symbols(words)
    for J in [(), (3,), (0, 6), (1, 2, 5), tuple(range(7))]:
        expr = sp.Mul(*[w[j] ** (j + 1) for j in J])  # powers reduce to the indicator itself
        for nu in (0.1, 0.25, np.inf):
            assert close(lt.beta_boolean(expr, words, nu=nu), lt.beta_indicator_product(J, 7, nu=nu), tol=1e-13)


def test_linearity_in_the_formula():
    rng = np.random.default_rng(7)
    words = [f"w{j}" for j in range(9)]
    symbols = [sp.Symbol(w) for w in words]
    a, _, _ = random_formula(rng, symbols, 3)
    b, _, _ = random_formula(rng, symbols, 3)
    a = sp.Piecewise((1, a), (0, True)) if isinstance(a, sp.logic.boolalg.Boolean) else a
    b = sp.Piecewise((1, b), (0, True)) if isinstance(b, sp.logic.boolalg.Boolean) else b
    for nu in (0.1, 0.25, np.inf):
        combined = lt.beta_boolean(2 * a - sp.Rational(1, 3) * b, words, nu=nu)
        separate = 2 * lt.beta_boolean(a, words, nu=nu) - lt.beta_boolean(b, words, nu=nu) / 3
        assert close(combined, separate, tol=1e-12)


# ----------------------------------------------------------------------------- indicator_polynomial


def test_indicator_polynomial_exact_expansions():
    words = ["a", "b", "c"]
    a, b, c = sp.symbols(words)
    cases = {
        sp.Or(a, b): {(0,): 1, (1,): 1, (0, 1): -1},
        sp.And(a, sp.Not(b)): {(0,): 1, (0, 1): -1},
        sp.Xor(a, b): {(0,): 1, (1,): 1, (0, 1): -2},
        boolalg.Xnor(a, b): {(): 1, (0,): -1, (1,): -1, (0, 1): 2},
        sp.Nand(a, b): {(): 1, (0, 1): -1},
        sp.Nor(a, b): {(): 1, (0,): -1, (1,): -1, (0, 1): 1},
        sp.Implies(a, b): {(): 1, (0,): -1, (0, 1): 1},
        sp.Equivalent(a, b): {(): 1, (0,): -1, (1,): -1, (0, 1): 2},
        sp.ITE(a, b, c): {(2,): 1, (0, 1): 1, (0, 2): -1},
        a**3 * b**2: {(0, 1): 1},
        (a + b) ** 2: {(0,): 1, (1,): 1, (0, 1): 2},
        (1 - a) * (1 - a): {(): 1, (0,): -1},
        sp.Rational(1, 3) * a + sp.Rational(2, 3) * a: {(0,): 1},
        a - a: {},
        sp.Piecewise((sp.Rational(1, 2), a & b), (2, c), (0, True)): {
            (0, 1): sp.Rational(1, 2),
            (2,): 2,
            (0, 1, 2): -2,
        },
    }
    for expr, expected in cases.items():
        assert lt.indicator_polynomial(expr, words) == expected, expr
    assert all(isinstance(v, sp.Rational) for v in lt.indicator_polynomial(sp.Or(a, b, c), words).values())


def test_constant_models():
    words = ["x", "y", "z", "w"]
    e0 = np.eye(5)[0]
    for constant, value in [(3, 3.0), (-2.5, -2.5), (np.float64(0.25), 0.25), (np.int64(2), 2.0), (True, 1.0)]:
        for nu in (0.1, 0.35, np.inf):
            assert close(lt.beta_boolean(constant, words, nu=nu), value * e0, tol=1e-12)
    assert close(lt.beta_boolean(sp.pi, words, nu=0.25), np.pi * e0, tol=1e-12)
    assert close(lt.beta_boolean(sp.true, words, nu=0.25), e0, tol=1e-12)
    assert np.array_equal(lt.beta_boolean(sp.false, words, nu=0.25), np.zeros(5))
    assert np.array_equal(lt.beta_boolean(0, words, nu=0.25), np.zeros(5))
    assert lt.indicator_polynomial(7, words) == {(): 7}
    assert lt.mask_function(7, words)(np.ones((3, 4))).tolist() == [7.0, 7.0, 7.0]


def test_words_that_are_not_identifiers():
    words = ["don't", "New York", "I", "E", "t", "café", "1st"]
    dont, ny, i_word, e_word, t_word, cafe, first = (sp.Symbol(w) for w in words)
    expr = sp.Piecewise((1, sp.Or(dont, sp.And(ny, i_word))), (0, True)) + e_word * t_word - 2 * cafe * first
    d = len(words)

    def f(z):
        return np.maximum(z[:, 0], z[:, 1] * z[:, 2]) + z[:, 3] * z[:, 4] - 2 * z[:, 5] * z[:, 6]

    for nu in (0.1, 0.25, np.inf):
        assert close(lt.beta_boolean(expr, words, nu=nu), lt.beta_enumerate(f, d, nu=nu))
    # same name, different assumptions: the same word
    assert lt.indicator_polynomial(sp.Symbol("I", positive=True) * i_word, words) == {(2,): 1}


# ----------------------------------------------------------------------------- errors


def test_errors_name_the_problem():
    words = ["food", "about", "bad"]
    food, about = sp.symbols("food about")
    with pytest.raises(ValueError, match=r"\['pizza', 'salad'\]"):
        lt.beta_boolean(food + sp.Symbol("pizza") * sp.Symbol("salad"), words, nu=0.25)
    for bad in [sp.exp(food), 1 / food, food**0.5, sp.sqrt(food), 2**food, food ** sp.Float(2.0), sp.Abs(food - about)]:
        with pytest.raises(ValueError, match="polynomial"):
            lt.beta_boolean(bad, words, nu=0.25)
    with pytest.raises(ValueError, match="relation"):
        lt.beta_boolean(sp.Gt(food, 0), words, nu=0.25)
    with pytest.raises(ValueError, match="undefined"):
        lt.beta_boolean(sp.Piecewise((1, food), (0, about)), words, nu=0.25)
    # exhaustive conditions without a True branch are fine
    assert lt.indicator_polynomial(sp.Piecewise((1, food), (0, sp.Not(food))), words) == {(0,): 1}
    with pytest.raises(ValueError, match=r"repeated: \['food'\]"):
        lt.beta_boolean(food, ["food", "about", "food"], nu=0.25)
    with pytest.raises(ValueError, match="finite real"):
        lt.beta_boolean(sp.I * food, words, nu=0.25)
    with pytest.raises(ValueError, match="finite"):
        lt.beta_boolean(float("nan"), words, nu=0.25)
    with pytest.raises(ValueError, match="len\\(words\\)"):
        lt.beta_boolean(food, ["food"], nu=0.25)
    with pytest.raises(ValueError, match="nu"):
        lt.beta_boolean(food, words, nu=0.0)
    for not_sympy in ["food", None, [food], 1 + 2j]:
        with pytest.raises(TypeError, match="expr"):
            lt.beta_boolean(not_sympy, words, nu=0.25)
    for bad_words in ["food about", [1, 2], {"food", "about"}]:
        with pytest.raises(TypeError, match="words"):
            lt.beta_boolean(food, bad_words, nu=0.25)
    f = lt.mask_function(food, words)
    with pytest.raises(ValueError, match="shape"):
        f(np.ones((2, 4)))
    with pytest.raises(ValueError, match="0 and 1"):
        f(np.full((2, 3), 2))
