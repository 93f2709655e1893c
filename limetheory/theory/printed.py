"""The paper's formulas exactly as it prints them: one transcription of each, to be checked once by a reviewer.

A reference module, not part of the public API (``limetheory.__all__``). Chapters and tests that check a formula
"as printed" import it from here instead of typing it again, so a reviewer compares each transcription with the
paper once. Every function cites the place where its formula is printed, by the numbers a reader of the compiled
paper sees (arXiv 2010.12487, main text and supplement in one file; ``book/paper_numbers.yml`` derives them from
the LaTeX, and ``tests/test_printed.py`` checks the citations against it). A transcription keeps the printed
form, typos included (the book's errata page says which are wrong); it follows the printed order of the terms,
and evaluates a printed sum over all words but one as the total minus that word (Σ_{k≠j} Γ_k = G − Γⱼ).

The functions do plain arithmetic on whatever they are given: sympy symbols (symbolic d and α), mpmath numbers
at high precision (``limetheory.book.mpreference``), floats (the "naive" double-precision route of the chapters), or
exact fractions. They do not guard against cancellation; the package's numerics (``limetheory.theory.coefficients``)
are the stable forms, checked against these.
"""

from __future__ import annotations

import math
import numbers
from fractions import Fraction

_MAIN_32 = "Section 3.2 (Expression of βᶠ)"
_SUPP_11 = "Supplement, Section 1.1 (Computation of Σ)"
_SUPP_12 = "Supplement, Section 1.2 (Computation of Σ⁻¹)"
_SUPP_22 = "Supplement, Section 2.2 (Indicator functions)"
_SUPP_31 = "Supplement, Section 3.1 (Computation of βᶠ)"
_MAIN_41 = "Section 4.1 (Decision trees)"
_MAIN_42 = "Section 4.2 (Linear models)"
_SUPP_23 = "Supplement, Section 2.3 (Linear model)"

#: where each formula is printed, as (printed number, section) pairs that a reader of arXiv 2010.12487 finds
#: (key: the function's name; the first pair is the statement transcribed, the others where it is printed again)
LOCATIONS = {
    "psi": (("Eq. (15)", _SUPP_11),),
    "kept_probability": (("Proposition 1", _MAIN_32), ("Proposition 5", _SUPP_11)),
    "alpha": (("Proposition 1", _MAIN_32), ("Proposition 5", _SUPP_11)),
    "normalization_constant": (("Eq. (7)", _MAIN_32), ("Proposition 6", _SUPP_12)),
    "sigma_coefficients": (("Definition 4", _MAIN_32), ("Eq. (8)", _MAIN_32), ("Proposition 6", _SUPP_12)),
    "gamma_indicator_product": (("Proposition 10", _SUPP_22),),
    "beta_general": (
        ("Proposition 13", _SUPP_31),
        ("Eq. (37)", _SUPP_31),
        ("Eq. (38)", _SUPP_31),
        ("Eq. (9)", _MAIN_32),
        ("Proposition 2", _MAIN_32),
    ),
    "beta_indicator_product": (("Proposition 14", _SUPP_31), ("Proposition 3", _MAIN_41)),
    # the display that follows Proposition 3 in the main text
    "indicator_gap": (("Proposition 3", _MAIN_41),),
    "expected_tfidf_approximations": (("Eq. (35)", _SUPP_23), ("Eq. (36)", _SUPP_23)),
    "linear_large_bandwidth": (
        ("Proposition 15", _SUPP_31),
        ("Proposition 4", _MAIN_42),
        ("Eq. (41)", _SUPP_31),
        ("Eq. (12)", _MAIN_42),
    ),
}


def _check_integer(value, name, minimum):
    """A Python or numpy integer >= ``minimum``; anything else (e.g. a sympy symbol) passes through unchecked."""
    if isinstance(value, bool):
        raise TypeError(f"{name} must be an integer or a sympy expression, got {value!r}")
    if isinstance(value, numbers.Integral) and value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    if isinstance(value, float):
        raise TypeError(f"{name} must be an integer or a sympy expression, got the float {value!r}")
    return value


def _check_p_and_d(p, d):
    """p ≥ 0, d ≥ 1 and p ≤ d where they are integers (symbols pass through)."""
    _check_integer(p, "p", 0)
    _check_integer(d, "d", 1)
    if isinstance(p, numbers.Integral) and isinstance(d, numbers.Integral) and p > d:
        raise ValueError(f"p must be <= d = {d}, got {p}")


def _check_sigmas(sigmas):
    """(σ₀, σ₁, σ₂, σ₃) as a tuple of four."""
    sigmas = tuple(sigmas)
    if len(sigmas) != 4:
        raise ValueError(f"sigmas must be (sigma_0, sigma_1, sigma_2, sigma_3), got {len(sigmas)} entries")
    return sigmas


def psi(t, *, nu, lib=math):
    """ψ(t) = exp(−(1 − √(1 − t))² / (2ν²)), the weight of a sample that removed a fraction t of the distinct words.

    Printed as Eq. (15), Supplement, Section 1.1 (Computation of Σ).

    Parameters
    ----------
    t : number
        Fraction of the distinct words removed, in [0, 1] (not checked: sympy symbols are allowed).
    nu : number
        Bandwidth ν > 0 (kernel_width / 100); ``math.inf`` (or mpmath's ``inf``, sympy's ``oo``) gives 1.
    lib : module, default math
        Where ``exp`` and ``sqrt`` come from: ``math``, ``numpy``, ``mpmath`` or ``sympy``.

    Returns
    -------
    number
        Of the type ``lib`` computes in.

    Raises
    ------
    TypeError
        If ``lib`` has no ``exp`` or ``sqrt``.

    Examples
    --------
    >>> round(psi(0.5, nu=0.25), 6)
    0.50344
    >>> import sympy
    >>> psi(sympy.Rational(3, 4), nu=1, lib=sympy)
    exp(-1/8)
    """
    if not (callable(getattr(lib, "exp", None)) and callable(getattr(lib, "sqrt", None))):
        raise TypeError(f"lib must provide exp and sqrt (math, numpy, mpmath or sympy), got {lib!r}")
    return lib.exp(-((1 - lib.sqrt(1 - t)) ** 2) / (2 * nu**2))


def kept_probability(p, d, s, *, number=Fraction):
    """∏ₖ (d − s − k)/(d − k), k = 0, …, p − 1: the probability that p given words survive when s are removed.

    Printed inside Proposition 1, Section 3.2 (and Proposition 5, Supplement, Section 1.1).

    Parameters
    ----------
    p : int
        Number of given words, p ≥ 0 (p = 0 gives the empty product, 1).
    d : int or sympy expression
        Number of distinct words.
    s : int or sympy expression
        Number of removed words.
    number : callable, default fractions.Fraction
        Converts each integer numerator and denominator before dividing, so that the ratio is exact
        (``Fraction``, ``sympy.Integer``) or in the caller's precision (``mpmath.mpf``).

    Returns
    -------
    number

    Raises
    ------
    TypeError
        If ``p`` is not an integer.
    ValueError
        If ``p`` < 0.

    Examples
    --------
    >>> kept_probability(2, 5, 1)
    Fraction(3, 5)
    """
    if isinstance(p, bool) or not isinstance(p, numbers.Integral):
        raise TypeError(f"p must be an integer, got {p!r}")
    _check_integer(p, "p", 0)
    product = number(1)
    for k in range(p):
        product *= number(d - s - k) / number(d - k)
    return product


def alpha(p, d, weight, *, number=Fraction):
    """α_p = (1/d) Σₛ ∏ₖ (d − s − k)/(d − k) · ψ(s/d), s = 1, …, d, k = 0, …, p − 1, term by term as printed.

    Printed as Proposition 1, Section 3.2 (and Proposition 5, Supplement, Section 1.1).

    Parameters
    ----------
    p : int
        0 ≤ p ≤ d.
    d : int
        Number of distinct words, d ≥ 1 (a concrete integer: the sum is expanded term by term).
    weight : callable
        t ↦ ψ(t), called at ``number(s) / number(d)``; e.g. ``lambda t: psi(t, nu=0.25)``.
    number : callable, default fractions.Fraction
        The number type of the probabilities and of s/d (see :func:`kept_probability`).

    Returns
    -------
    number

    Raises
    ------
    TypeError
        If ``p`` or ``d`` is not an integer, or ``weight`` is not callable.
    ValueError
        If ``d`` < 1 or ``p`` is not in [0, d].

    Examples
    --------
    >>> alpha(1, 3, lambda t: 1)  # at ν = ∞: (d − 1)/(2d)
    Fraction(1, 3)
    """
    for name, value in (("p", p), ("d", d)):
        if isinstance(value, bool) or not isinstance(value, numbers.Integral):
            raise TypeError(f"{name} must be an integer, got {value!r}")
    if d < 1:
        raise ValueError(f"d must be >= 1, got {d}")
    if not 0 <= p <= d:
        raise ValueError(f"p must be in [0, d] = [0, {d}], got {p}")
    if not callable(weight):
        raise TypeError(f"weight must be a callable t -> psi(t), got {weight!r}")
    total = number(0)
    for s in range(1, d + 1):
        total += kept_probability(p, d, s, number=number) * weight(number(s) / number(d))
    return total / number(d)


def normalization_constant(a0, a1, a2, d):
    """c_d = (d − 1)α₀α₂ − dα₁² + α₀α₁.

    Printed as Eq. (7), Section 3.2 (Expression of βᶠ); recalled in Proposition 6 (Supplement, Section 1.2).

    Parameters
    ----------
    a0, a1, a2 : number or sympy expression
        α₀, α₁, α₂.
    d : int or sympy expression
        Number of distinct words (d ≥ 1 when an integer).

    Returns
    -------
    number or sympy expression

    Raises
    ------
    TypeError
        If ``d`` is a bool or a float.
    ValueError
        If ``d`` is an integer < 1.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> normalization_constant(1, F(1, 3), F(1, 9), 3)  # the α's at ν = ∞, d = 3: (d² − 1)/(12d)
    Fraction(2, 9)
    """
    _check_integer(d, "d", 1)
    return (d - 1) * a0 * a2 - d * a1**2 + a0 * a1


def sigma_coefficients(a0, a1, a2, d):
    """(σ₀, σ₁, σ₂, σ₃) = ((d − 1)α₂ + α₁, −α₁, ((d − 2)α₀α₂ − (d − 1)α₁² + α₀α₁)/(α₁ − α₂), (α₁² − α₀α₂)/(α₁ − α₂)).

    σ₀ is printed in Proposition 6 (Computation of Σ⁻¹, Supplement, Section 1.2), σ₁, σ₂, σ₃ as Definition 4,
    Eq. (8), Section 3.2 (and recalled in Proposition 6). Σ⁻¹ is then c_d⁻¹ times the matrix with σ₀ in the corner,
    σ₁ on the rest of the first row and column, σ₂ on the diagonal and σ₃ elsewhere (Eq. (17)).

    Parameters
    ----------
    a0, a1, a2 : number or sympy expression
        α₀, α₁, α₂ (α₁ ≠ α₂: the printed σ₂ and σ₃ divide by α₁ − α₂).
    d : int or sympy expression
        Number of distinct words (d ≥ 1 when an integer).

    Returns
    -------
    tuple
        (σ₀, σ₁, σ₂, σ₃).

    Raises
    ------
    TypeError
        If ``d`` is a bool or a float.
    ValueError
        If ``d`` is an integer < 1.
    ZeroDivisionError
        If α₁ = α₂ in a number type that raises on division by zero.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> sigma_coefficients(1, F(1, 3), F(1, 9), 3)
    (Fraction(5, 9), Fraction(-1, 3), Fraction(1, 1), Fraction(0, 1))
    """
    _check_integer(d, "d", 1)
    sigma0 = (d - 1) * a2 + a1
    sigma1 = -a1
    sigma2 = ((d - 2) * a0 * a2 - (d - 1) * a1**2 + a0 * a1) / (a1 - a2)
    sigma3 = (a1**2 - a0 * a2) / (a1 - a2)
    return sigma0, sigma1, sigma2, sigma3


def gamma_indicator_product(p, d, a_p, a_p1):
    """Γᶠ of f = ∏_{j∈J} 1{x_j > 0} for a set J of p words: (Γ₀, Γⱼ for j ∈ J, Γⱼ for j ∉ J, G = Σₖ Γₖ).

    Γ_ℓ = α_p if ℓ ∈ {0} ∪ J and α_{p+1} otherwise: Proposition 10, Supplement, Section 2.2 (Indicator
    functions). The total G = pα_p + (d − p)α_{p+1} is what :func:`beta_general` takes.

    Parameters
    ----------
    p : int or sympy expression
        Number of words in J (0 ≤ p ≤ d when integers).
    d : int or sympy expression
        Number of distinct words.
    a_p, a_p1 : number or sympy expression
        α_p and α_{p+1} (α_{d+1} = 0: pass 0 when p = d).

    Returns
    -------
    tuple
        (Γ₀, Γ_in, Γ_out, G).

    Raises
    ------
    ValueError
        If the integers p, d are out of range.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> gamma_indicator_product(1, 3, F(1, 3), F(1, 9))  # f = z₁ at ν = ∞, d = 3
    (Fraction(1, 3), Fraction(1, 3), Fraction(1, 9), Fraction(5, 9))
    """
    _check_p_and_d(p, d)
    return a_p, a_p, a_p1, p * a_p + (d - p) * a_p1


def beta_general(c_d, sigmas, gamma0, gamma_j, gamma_total):
    """(β₀, βⱼ) = (c_d⁻¹{σ₀Γ₀ + σ₁Σ_k Γ_k}, c_d⁻¹{σ₁Γ₀ + σ₂Γⱼ + σ₃Σ_{k≠j} Γ_k}), with Γ₀ = E[πf] and Γ_k = E[πz_k f].

    β₀ is printed as Eq. (37) and βⱼ as Eq. (9) (again as Eq. (38)): Proposition 2, Section 3.2, and
    Proposition 13, Supplement, Section 3.1 (Computation of βᶠ). The sum Σ_{k≠j} Γ_k is evaluated as
    G − Γⱼ, with G = Σ_k Γ_k.

    Parameters
    ----------
    c_d : number or sympy expression
        The normalization constant (:func:`normalization_constant`).
    sigmas : sequence of 4 numbers or sympy expressions
        (σ₀, σ₁, σ₂, σ₃) (:func:`sigma_coefficients`).
    gamma0 : number or sympy expression
        Γ₀ = E[πf(φ(x))].
    gamma_j : number or sympy expression
        Γⱼ = E[πzⱼf(φ(x))].
    gamma_total : number or sympy expression
        G = Σₖ Γₖ over k = 1, …, d (Γⱼ included).

    Returns
    -------
    tuple
        (β₀, βⱼ).

    Raises
    ------
    ValueError
        If ``sigmas`` does not have four entries.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> c, sig = normalization_constant(1, F(1, 3), F(1, 9), 3), sigma_coefficients(1, F(1, 3), F(1, 9), 3)
    >>> beta_general(c, sig, F(1, 3), F(1, 3), F(1, 3) + 2 * F(1, 9))  # f = z₁ at ν = ∞: β = (0, 1, 0, 0)
    (Fraction(0, 1), Fraction(1, 1))
    """
    sigmas = _check_sigmas(sigmas)
    sigma0, sigma1, sigma2, sigma3 = sigmas
    beta0 = (sigma0 * gamma0 + sigma1 * gamma_total) / c_d
    beta_j = (sigma1 * gamma0 + sigma2 * gamma_j + sigma3 * (gamma_total - gamma_j)) / c_d
    return beta0, beta_j


def beta_indicator_product(c_d, sigmas, p, d, a_p, a_p1):
    """β of f = ∏_{j∈J} 1{x_j > 0} for a set J of p words: (β₀, βⱼ for j ∈ J, βⱼ for j ∉ J), as printed.

    β₀ = c_d⁻¹(σ₀α_p + pσ₁α_p + (d − p)σ₁α_{p+1}), βⱼ = c_d⁻¹(σ₁α_p + σ₂α_p + (d − p)σ₃α_{p+1} + (p − 1)σ₃α_p) for
    j ∈ J, and βⱼ = c_d⁻¹(σ₁α_p + σ₂α_{p+1} + (d − p − 1)σ₃α_{p+1} + pσ₃α_p) otherwise: Proposition 14, Supplement,
    Section 3.1 (Computation of βᶠ); the word coefficients also as Proposition 3, Section 4.1 (Decision trees).

    Parameters
    ----------
    c_d : number or sympy expression
        The normalization constant (:func:`normalization_constant`).
    sigmas : sequence of 4 numbers or sympy expressions
        (σ₀, σ₁, σ₂, σ₃) (:func:`sigma_coefficients`).
    p : int or sympy expression
        Number of words in J (0 ≤ p ≤ d when integers).
    d : int or sympy expression
        Number of distinct words.
    a_p, a_p1 : number or sympy expression
        α_p and α_{p+1} (α_{d+1} = 0: pass 0 when p = d).

    Returns
    -------
    tuple
        (β₀, β_in, β_out).

    Raises
    ------
    ValueError
        If ``sigmas`` does not have four entries, or the integers p, d are out of range.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> a = (1, F(1, 3), F(1, 9), 0)  # α₀..α₃ at ν = ∞, d = 3
    >>> c, sig = normalization_constant(*a[:3], 3), sigma_coefficients(*a[:3], 3)
    >>> beta_indicator_product(c, sig, 1, 3, a[1], a[2])  # f = z₁: β = (0, 1, 0, 0)
    (Fraction(0, 1), Fraction(1, 1), Fraction(0, 1))
    """
    sigmas = _check_sigmas(sigmas)
    _check_p_and_d(p, d)
    s0, s1, s2, s3 = sigmas
    beta0 = (s0 * a_p + p * s1 * a_p + (d - p) * s1 * a_p1) / c_d
    inside = (s1 * a_p + s2 * a_p + (d - p) * s3 * a_p1 + (p - 1) * s3 * a_p) / c_d
    outside = (s1 * a_p + s2 * a_p1 + (d - p - 1) * s3 * a_p1 + p * s3 * a_p) / c_d
    return beta0, inside, outside


def indicator_gap(c_d, sigmas, a_p, a_p1):
    """β_j − β_k = c_d⁻¹(σ₂ + σ₃)(α_p − α_{p+1}) for j ∈ J, k ∉ J, **as printed** (the sign of σ₃ is wrong).

    Printed in Section 4.1 (Decision trees), in the display after Proposition 3. Proposition 3 itself gives
    c_d⁻¹(σ₂ − σ₃)(α_p − α_{p+1}); the book's errata page records the difference.

    Parameters
    ----------
    c_d : number or sympy expression
        The normalization constant.
    sigmas : sequence of 4 numbers or sympy expressions
        (σ₀, σ₁, σ₂, σ₃).
    a_p, a_p1 : number or sympy expression
        α_p and α_{p+1}.

    Returns
    -------
    number or sympy expression

    Raises
    ------
    ValueError
        If ``sigmas`` does not have four entries.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> a = (1, F(3, 8), F(1, 6), F(1, 16))  # α₀..α₃ at ν = ∞, d = 4
    >>> c, sig = normalization_constant(*a[:3], 4), sigma_coefficients(*a[:3], 4)
    >>> indicator_gap(c, sig, a[1], a[2])  # p = 1: Proposition 3 gives 1
    Fraction(5, 6)
    """
    sigmas = _check_sigmas(sigmas)
    return (sigmas[2] + sigmas[3]) * (a_p - a_p1) / c_d


def expected_tfidf_approximations(*, lib=math, number=Fraction):
    """The paper's E_j ≈ √(1/(1 − 1/3)) ≈ 1.22 and E_{j,k} ≈ √(1/(1 − 1/4)) ≈ 1.15, as printed.

    E_j = E[1/√(1 − H_S) | S ∌ j] and E_{j,k} = E[1/√(1 − H_S) | S ∌ j, k] replaced by their values at
    E[H_S | ...] = 1/3 and 1/4 (small ω's, large d): the square roots of Eq. (35) and Eq. (36), Supplement,
    Section 2.3 (Linear model), which the main text (Section 4.2) quotes as 1.22 and 1.15.

    Parameters
    ----------
    lib : module, default math
        Where ``sqrt`` comes from: ``math``, ``numpy``, ``mpmath`` or ``sympy``.
    number : callable, default fractions.Fraction
        The number type of 1/3 and 1/4 (``sympy.Integer`` for exact roots).

    Returns
    -------
    tuple
        (E_j, E_{j,k}).

    Raises
    ------
    TypeError
        If ``lib`` has no ``sqrt``.

    Examples
    --------
    >>> [round(value, 4) for value in expected_tfidf_approximations()]
    [1.2247, 1.1547]
    >>> import sympy
    >>> expected_tfidf_approximations(lib=sympy, number=sympy.Integer)
    (sqrt(6)/2, 2*sqrt(3)/3)
    """
    if not callable(getattr(lib, "sqrt", None)):
        raise TypeError(f"lib must provide sqrt (math, numpy, mpmath or sympy), got {lib!r}")
    one = number(1)
    return lib.sqrt(one / (1 - one / 3)), lib.sqrt(one / (1 - one / 4))


def linear_large_bandwidth(d, e_j, e_j1, sum_e_jk, sum_e_jl):
    """The brackets of the printed Proposition 15 (f = φⱼ, ν = ∞): (β₀, βₖ for k ≠ j, βⱼ) / φ(ξ)ⱼ up to O(1/d).

    β₀ = {5E_j − (2/d)Σ_{k≠j} E_{j,k}}φ(ξ)ⱼ, βₖ = {2E_{j,1} − (2/d)Σ_{ℓ≠k,j} E_{j,ℓ}}φ(ξ)ⱼ and
    βⱼ = {3E_j − (2/d)Σ_{k≠j} E_{j,k}}φ(ξ)ⱼ: Proposition 15, Supplement, Section 3.1 (Computation of βᶠ); βₖ and βⱼ
    also as Proposition 4, Section 4.2 (Linear models). With the approximations of
    :func:`expected_tfidf_approximations` and d → ∞, βⱼ gives the 1.36 of Eq. (12) (main text) and Eq. (41)
    (supplement). Typos included: the book's errata page shows that the intercept's 5 should be 2 and
    E_{j,1} should be E_{j,k}.

    Parameters
    ----------
    d : int or sympy expression
        Number of distinct words (d ≥ 1 when an integer).
    e_j : number or sympy expression
        E_j.
    e_j1 : number or sympy expression
        E_{j,1}, as printed in βₖ.
    sum_e_jk : number or sympy expression
        Σ_{k≠j} E_{j,k}.
    sum_e_jl : number or sympy expression
        Σ_{ℓ≠k,j} E_{j,ℓ}.

    Returns
    -------
    tuple
        (intercept bracket, bracket of a word k ≠ j, bracket of the word j).

    Raises
    ------
    TypeError
        If ``d`` is a bool or a float.
    ValueError
        If ``d`` is an integer < 1.

    Examples
    --------
    >>> import sympy
    >>> d = sympy.Symbol("d", positive=True)
    >>> e_j, e_jk = expected_tfidf_approximations(lib=sympy, number=sympy.Integer)
    >>> brackets = linear_large_bandwidth(d, e_j, e_jk, (d - 1) * e_jk, (d - 2) * e_jk)
    >>> [sympy.radsimp(sympy.limit(b, d, sympy.oo)) for b in brackets]  # 5E_j − 2E_{j,k}, 0, 3E_j − 2E_{j,k}
    [(-8*sqrt(3) + 15*sqrt(6))/6, 0, (-8*sqrt(3) + 9*sqrt(6))/6]
    """
    _check_integer(d, "d", 1)
    intercept = 5 * e_j - 2 * sum_e_jk / d
    other = 2 * e_j1 - 2 * sum_e_jl / d
    own = 3 * e_j - 2 * sum_e_jk / d
    return intercept, other, own
