"""mpmath references for the exact linear route: a linear model of the normalised TF-IDF on equal weights.

With equal TF-IDF weights the L2-normalised TF-IDF of a kept set of m words is 1/√m on each of them, so
f(K) = W(K)/√m and every conditional moment, and β, is a one-dimensional sum over the number of removed words: an
exact reference at any d (10⁴ in seconds) for :func:`limetheory.theory.linear.linear_exact.beta_linear_exact`, which
does not know the weights are equal.  Like :mod:`limetheory.book.mpreference` (whose c_d, σ's and ψ it uses), it is
independent of the package's numerics: only the printed formulas (:mod:`limetheory.theory.printed`).
"""

from __future__ import annotations

import numbers

import mpmath as mp

from ..theory import printed
from . import mpreference

__all__ = ["beta_linear_equal_weights", "linear_equal_weights_moments"]


def _check_lam(lam):
    """A sequence of at least two finite real numbers, as mpmath numbers (floats taken exactly)."""
    if isinstance(lam, (str, bytes)) or not hasattr(lam, "__len__"):
        raise TypeError(f"lam must be a sequence of real numbers, got {type(lam).__name__}")
    values = []
    for value in lam:
        if isinstance(value, (bool, str, bytes)) or not isinstance(value, (numbers.Real, mp.mpf)):
            raise TypeError(f"lam must hold real numbers, got {value!r}")
        if not mp.isfinite(value):
            raise ValueError(f"lam must hold finite numbers, got {value!r}")
        values.append(mp.mpf(float(value)) if isinstance(value, numbers.Real) else value)
    if len(values) < 2:
        raise ValueError(f"lam must have at least two entries (d >= 2 words), got {len(values)}")
    return values


def linear_equal_weights_moments(lam, *, dps=50):
    r"""E[f | s] and E[z_k f | s] of :math:`f = \sum_j \lambda_j \phi(x)_j` when every word has the same TF-IDF weight.

    With equal weights the L2-normalised TF-IDF of a kept set K of m = d - s words is :math:`1/\sqrt m` on each
    kept word, so :math:`f(K) = W(K)/\sqrt m` with :math:`W(K) = \sum_{j \in K} \lambda_j`, and the means over the
    sets of each size are one-dimensional sums: :math:`\mathbb{E}[f \mid s] = \sqrt m\, \Lambda / d` with
    :math:`\Lambda = \sum_j \lambda_j`, and :math:`\mathbb{E}[z_k f \mid s] = a_s \lambda_k + b_s (\Lambda -
    \lambda_k)`, :math:`a_s = \sqrt m / d` (k kept) and :math:`b_s = \sqrt m\, (m - 1) / (d (d - 1))` (k and
    another word kept).  No quadrature and no recursion: the exact reference of the exact linear route
    (``tests/test_linear_exact_accuracy.py``, ``benchmarks/linear_exact_accuracy.py``).

    Parameters
    ----------
    lam : sequence of real numbers
        The model's coefficients, one per word (d = len(lam) >= 2); floats are taken exactly.
    dps : int, default 50
        Decimal digits.

    Returns
    -------
    f_given_s, own, others : list of mpmath.mpf
        Each of length d, index s - 1 for s = 1..d removed words (0 at s = d):
        ``f_given_s[s - 1]`` = E[f | s], and E[z_k f | s] = ``own[s - 1]`` λ_k + ``others[s - 1]`` (Λ − λ_k).

    Raises
    ------
    TypeError
        If ``lam`` is not a sequence of real numbers or ``dps`` not an integer.
    ValueError
        If ``lam`` has fewer than two entries or a non-finite one, or ``dps`` < 15.

    Examples
    --------
    >>> f_given_s, own, others = linear_equal_weights_moments([1.0] * 4)  # λ = 1: E[f | s] = √(d − s)
    >>> [round(float(x), 12) for x in f_given_s]
    [1.732050807569, 1.414213562373, 1.0, 0.0]
    """
    if isinstance(dps, bool) or not isinstance(dps, numbers.Integral):
        raise TypeError(f"dps must be an integer number of digits, got {dps!r}")
    if dps < 15:
        raise ValueError(f"dps must be >= 15 digits (a reference finer than a double), got {dps}")
    with mp.workdps(dps):
        lam = _check_lam(lam)
        d = len(lam)
        total = mp.fsum(lam)
        f_given_s, own, others = [], [], []
        for s in range(1, d + 1):
            m = d - s
            root = mp.sqrt(m)
            f_given_s.append(root * total / d)
            own.append(root / d)
            others.append(root * (m - 1) / (d * (d - 1)) if m else mp.mpf(0))
        return f_given_s, own, others


def beta_linear_equal_weights(lam, *, nu, dps=None):
    r"""β of :math:`f = \sum_j \lambda_j \phi(x)_j` when every word has the same TF-IDF weight, at ``dps`` digits.

    Γᶠ from :func:`linear_equal_weights_moments` weighted by LIME's law of s (s uniform on 1..d, weight ψ(s/d)):
    :math:`\Gamma_0 = \frac1d \sum_s \psi(s/d)\, \mathbb{E}[f \mid s]` and
    :math:`\Gamma_k = \frac1d \sum_s \psi(s/d)\, \mathbb{E}[z_k f \mid s]`; β by the printed Proposition 2
    (:func:`limetheory.theory.printed.beta_general` with the printed c_d and σ's of
    :func:`limetheory.book.mpreference.closed_forms`).  One
    sum over s, so d = 10⁴ takes seconds.

    Parameters
    ----------
    lam : sequence of real numbers
        The model's coefficients, one per word (d = len(lam) >= 2); floats are taken exactly.
    nu : real number
        Bandwidth ν > 0, or ``math.inf`` (``float("inf")``).
    dps : int, optional
        Decimal digits; by default :func:`limetheory.book.mpreference.digits_for`.

    Returns
    -------
    list of mpmath.mpf
        β, length d + 1: the intercept, then one coefficient per word.

    Raises
    ------
    TypeError, ValueError
        As :func:`linear_equal_weights_moments` and :func:`limetheory.book.mpreference.closed_forms`.

    Examples
    --------
    >>> beta = beta_linear_equal_weights([1.0, 0.0, 0.0], nu=float("inf"))  # f = φ₁, three equal weights
    >>> [round(float(b), 12) + 0.0 for b in beta]
    [0.032543690979, 0.804737854124, -0.048815536469, -0.048815536469]
    """
    d = len(_check_lam(lam))
    dps = mpreference.digits_for(d, nu=nu) if dps is None else dps
    ref = mpreference.closed_forms(d, nu=nu, dps=dps)
    psi_values = mpreference.weights(d, nu=nu, dps=dps)
    f_given_s, own, others = linear_equal_weights_moments(lam, dps=dps)
    with mp.workdps(dps):
        lam = _check_lam(lam)
        total = mp.fsum(lam)
        gamma0 = mp.fsum(w * f for w, f in zip(psi_values, f_given_s, strict=True)) / d
        a = mp.fsum(w * x for w, x in zip(psi_values, own, strict=True)) / d
        b = mp.fsum(w * x for w, x in zip(psi_values, others, strict=True)) / d
        gamma_total = a * total + b * (d - 1) * total
        beta = [printed.beta_general(ref["c"], ref["sigma"], gamma0, gamma0, gamma_total)[0]]
        for value in lam:
            beta.append(
                printed.beta_general(ref["c"], ref["sigma"], gamma0, a * value + b * (total - value), gamma_total)[1]
            )
        return beta
