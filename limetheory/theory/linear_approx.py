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
approximation, as printed apart from the intercept.
"""

from __future__ import annotations

import numpy as np

from .._validation import check_linear_model

#: the paper's coefficient of λ_j φ(ξ)_j, 3 √(3/2) - 2 √(4/3) (printed as 1.36)
LINEAR_COEFFICIENT = (9.0 * np.sqrt(6.0) - 8.0 * np.sqrt(3.0)) / 6.0
#: the corrected intercept coefficient of f(φ(ξ)) = Σ_j λ_j φ(ξ)_j, 2 √(3/2) - 2 √(4/3)
LINEAR_INTERCEPT_COEFFICIENT = (3.0 * np.sqrt(6.0) - 4.0 * np.sqrt(3.0)) / 3.0


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
