r"""The paper's large-bandwidth approximation of the explanation of a linear model (its Proposition 4).

For :math:`f(\phi(x)) = \sum_j \lambda_j \phi(x)_j`, the paper lets ν → ∞, keeps the leading order in 1/d
and replaces :math:`\mathbb{E}[(1 - H_S)^{-1/2} \mid \ldots]` by :math:`(1 - \mathbb{E}[H_S \mid \ldots])^{-1/2}`
with :math:`\mathbb{E}[H_S \mid S \not\ni j] \approx 1/3` and :math:`\mathbb{E}[H_S \mid S \not\ni j, k]
\approx 1/4`.  This gives :math:`E_j \approx \sqrt{3/2}`, :math:`E_{j,k} \approx \sqrt{4/3}` and

.. math::

   \beta_j &\approx (3 E_j - 2 E_{j,k})\, \lambda_j \phi(\xi)_j

   &= \frac{9 \sqrt{6} - 8 \sqrt{3}}{6}\, \lambda_j \phi(\xi)_j \approx 1.365\, \lambda_j \phi(\xi)_j,

   \beta_0 &\approx (2 E_j - 2 E_{j,k})\, f(\phi(\xi))

   &= \frac{3 \sqrt{6} - 4 \sqrt{3}}{3}\, f(\phi(\xi)) \approx 0.140\, f(\phi(\xi)).

The intercept is the corrected one: the supplement prints 5 E_j in place of 2 E_j.  The book's chapter
"Linear models at large bandwidth" shows that the replacement of :math:`\mathbb{E}[(1 - H_S)^{-1/2}]` by
:math:`(1 - \mathbb{E}[H_S])^{-1/2}` is not accurate: for many small TF-IDF weights the ν → ∞ limits are
E_j → 4/3, E_{j,k} → 6/5 and :math:`\beta_j \to (8/5)\, \lambda_j \phi(\xi)_j`.  This function implements the paper's
approximation, as printed apart from the intercept; :func:`large_d_limits` gives the limits that replace its
constants (the chapter's proposition "The large-d limits", proved for equal weights).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from scipy.integrate import quad

from ..._validation import check_linear_model, check_nu
from ...units import bandwidth_keyword
from ..sampling import psi

#: the paper's coefficient of λ_j φ(ξ)_j, 3 √(3/2) - 2 √(4/3) (printed as 1.36)
LINEAR_COEFFICIENT = (9.0 * np.sqrt(6.0) - 8.0 * np.sqrt(3.0)) / 6.0
#: the corrected intercept coefficient of f(φ(ξ)) = Σ_j λ_j φ(ξ)_j, 2 √(3/2) - 2 √(4/3)
LINEAR_INTERCEPT_COEFFICIENT = (3.0 * np.sqrt(6.0) - 4.0 * np.sqrt(3.0)) / 3.0


def _kernel_moment(p, nu):
    r""":math:`a_p = \int_0^1 \psi(u) (1 - u)^p\, du`, as :math:`\int_0^1 2 (1 - v)^{2p + 1} e^{-v^2 / (2\nu^2)} dv`.

    The substitution v = 1 - sqrt(1 - u) makes ψ a Gaussian in v and the integrand smooth at u = 1, where
    (1 - u)^{1/2} is not; 1/(p + 1) at ν = ∞.
    """
    if np.isinf(nu):
        return Fraction(1) / (Fraction(p) + 1)  # exact, so that κ(∞) = 8/5 to the last digit
    # the Gaussian's width is nu: splitting there keeps the adaptive rule accurate for small bandwidths
    breaks = [min(nu, 0.5)] if nu < 1 else None
    value, _ = quad(
        lambda v: 2.0 * (1.0 - v) ** (2 * p + 1) * float(psi(1.0 - (1.0 - v) ** 2, nu=nu)),
        0.0,
        1.0,
        points=breaks,
        epsabs=0.0,
        epsrel=1e-13,  # the rule's stated target; quad reaches it on these smooth integrands
        limit=200,
    )
    return value


@bandwidth_keyword
def large_d_limits(*, nu):
    r"""The large-d limits :math:`(\kappa(\nu), \iota(\nu), \rho(\nu))` of the explanation of one TF-IDF coordinate.

    For :math:`f = \phi(\cdot)_j` on a document of d words with equal TF-IDF weights, as d → ∞ at a fixed
    bandwidth ν (the book's proposition "The large-d limits", chapter 19):
    :math:`\beta^f_j / \phi(\xi)_j \to \kappa(\nu)`, :math:`\beta^f_0 / \phi(\xi)_j \to \iota(\nu)` and
    :math:`d\, \beta^f_k / \phi(\xi)_j \to \rho(\nu)` for k ≠ j, with :math:`a_p = \int_0^1 \psi(u) (1 - u)^p du`,

    .. math::

       \kappa = \frac{a_{1/2} - a_{3/2}}{a_1 - a_2},

       \iota = \frac{a_2 a_{1/2} - a_1 a_{3/2}}{a_0 a_2 - a_1^2},

       \rho = \frac{a_0 a_{3/2} - a_1 a_{1/2}}{a_0 a_2 - a_1^2} - \kappa.

    At ν = ∞, κ = 8/5, ι = 4/15 and ρ = -4/5; at lime's default ν = 0.25, κ ≈ 1.307.  κ replaces the paper's
    constant :math:`(9\sqrt6 - 8\sqrt3)/6 \approx 1.36` (:data:`LINEAR_COEFFICIENT`), which is not a limit.

    Parameters
    ----------
    nu : float
        Bandwidth > 0 or ``np.inf`` (ν = kernel_width / 100).

    Returns
    -------
    tuple of float
        (κ, ι, ρ), each to about 1e-12 relative (adaptive quadrature of smooth integrands; exact at ν = ∞).

    Raises
    ------
    TypeError
        If ``nu`` is not a real number (or is passed by position).
    ValueError
        If ``nu`` is not > 0.

    Examples
    --------
    >>> large_d_limits(nu=np.inf)
    (1.6, 0.26666666666666666, -0.8)
    >>> round(large_d_limits(nu=0.25)[0], 4)
    1.3069
    """
    nu = check_nu(nu)
    a = {p: _kernel_moment(p, nu) for p in (0, 1, 2, 0.5, 1.5)}
    det = a[0] * a[2] - a[1] ** 2
    kappa = (a[0.5] - a[1.5]) / (a[1] - a[2])
    limits = kappa, (a[2] * a[0.5] - a[1] * a[1.5]) / det, (a[0] * a[1.5] - a[1] * a[0.5]) / det - kappa
    return tuple(float(value) for value in limits)


def beta_linear_approx(lam, tfidf):
    r"""The paper's large-bandwidth approximation of β for a linear model on the normalised TF-IDF.

    For the model :math:`f(\phi(x)) = \sum_j \lambda_j \phi(x)_j`, with
    :math:`\phi(\xi)_j = t_j / \lVert t \rVert` (t = ``tfidf``) the normalised TF-IDF of the explained document,
    the result is

    .. math::

       \beta_0 &= \frac{3 \sqrt{6} - 4 \sqrt{3}}{3} \sum_j \lambda_j \phi(\xi)_j

       &\approx 0.1402\, f(\phi(\xi)),

       \beta_{1+j} &= \frac{9 \sqrt{6} - 8 \sqrt{3}}{6}\, \lambda_j \phi(\xi)_j

       &\approx 1.3654\, \lambda_j \phi(\xi)_j.

    This is Eq. (simplified-betainf-linear) of the paper's supplement (Proposition 4 with
    :math:`E_j \approx \sqrt{3/2}`, :math:`E_{j,k} \approx \sqrt{4/3}`, ν → ∞, terms of order 1/d
    dropped), with the intercept corrected from the printed 5 E_j to 2 E_j.  It is an approximation: the exact
    limit for ν → ∞ and many small
    weights has coefficient 8/5 (see the book's chapter on linear models at large bandwidth), and at lime's
    default ν = 0.25 the exact coefficient is close to 1.3.  It assumes that each word of the local dictionary
    has its own TF-IDF coordinate (or none), i.e. no two lime words share a vectorizer column.

    Parameters
    ----------
    lam : array_like, shape (d,)
        Coefficients of the linear model, one per word of the local dictionary (any real numbers).
    tfidf : array_like, shape (d,)
        Unnormalised TF-IDF weights m_j * v_j of the words in the explained document (term count times
        inverse document frequency), >= 0; 0 for a word the model cannot see.  Not all zero.

    Returns
    -------
    ndarray, shape (d + 1,)
        Index 0 is the intercept, index 1 + j the coefficient of word j.

    Raises
    ------
    TypeError
        If ``lam`` or ``tfidf`` is not a sequence of real numbers.
    ValueError
        If they are not one-dimensional, have different lengths, have fewer than 2 entries (Σ is
        singular for d = 1), contain NaN or inf, if ``tfidf`` has a negative entry, or is all zero (the
        document has no word the model can see, so phi(xi) is undefined).

    Examples
    --------
    >>> (beta_linear_approx([1.0, 0.0], [1.0, 1.0]).round(6) + 0.0).tolist()
    [0.099058, 0.965083, 0.0]
    """
    lam, scaled = check_linear_model(lam, tfidf)
    phi = scaled / np.sqrt(np.dot(scaled, scaled))
    contributions = lam * phi
    beta = np.empty(lam.size + 1)
    beta[0] = LINEAR_INTERCEPT_COEFFICIENT * contributions.sum()
    beta[1:] = LINEAR_COEFFICIENT * contributions
    return beta
