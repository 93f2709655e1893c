r"""How far lime's coefficients at a finite number of samples n fall from where they concentrate.

lime fits its ridge on n rows: the document itself (x₀ = (1, ..., 1), weight 1, response y₀) and m = n - 1 i.i.d.
rows from LIME's law.  Its normal equations are :math:`A \hat\beta = b` with
:math:`A = x_0 x_0^\top + P + \sum_i \pi_i x_i x_i^\top` and :math:`b = x_0 y_0 + \sum_i \pi_i x_i y_i`
(P = diag(0, 1, ..., 1), lime's ridge penalty).  Replacing the sums by their expectations gives the centre
:math:`c = \bar A^{-1} \bar b` (:func:`limetheory.engine.surrogate.expected_lime_fit`, with
:math:`\bar A = m \Sigma + P + x_0 x_0^\top`), and to first order (the delta method)

.. math::

   \hat\beta - c \approx \bar A^{-1} \sum_i \bigl(\pi_i x_i (y_i - x_i^\top c) - \mathbb{E}[\ldots]\bigr),
   \qquad \operatorname{Cov}(\hat\beta) \approx m \bar A^{-1} \Omega_c \bar A^{-1},

with :math:`\Omega_c = \operatorname{Cov}(\pi x (f - x^\top c))` under LIME's law.  As n grows,
:math:`m \bar A^{-1} \Omega_c \bar A^{-1} \to \Sigma^{-1} \Omega \Sigma^{-1} / m`, the CLT covariance of the paper's
Theorem 1.  Ω is a sum over masks: exact when the masks are all enumerated, an unbiased estimate from a
stratified sample otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._validation import check_memory, check_work
from ..engine.surrogate import expected_lime_fit
from ..theory.coefficients import sigma_matrix
from .montecarlo import design

#: lime's ridge penalty (``Ridge(alpha=1)``)
LIME_RIDGE = 1.0


@dataclass(frozen=True, eq=False)  # arrays inside: equality is identity
class LimeSpread:
    """Where lime's coefficients concentrate at ``num_samples`` and how much they spread around it.

    Attributes
    ----------
    num_samples : int
        lime's n (counting the document itself).
    centre : ndarray, shape (d + 1,)
        The centre of lime's coefficients at that n: its normal equations in expectation (ridge and first row
        included, :func:`limetheory.engine.surrogate.expected_lime_fit`); intercept first.
    std : ndarray, shape (d + 1,)
        The standard deviation of each of lime's coefficients at that n (first-order, CLT covariance).
    exact : bool
        True when Ω comes from all 2ᵈ - 1 masks; False when it is estimated from ``omega_samples`` masks.
    omega_samples : int or None
        The number of masks behind the estimate of Ω (None when exact).
    centre_stderr : ndarray of shape (d + 1,) or None
        The Monte Carlo standard error of ``centre`` when the explanation is an estimate (that of β: the centre
        is β up to O(1/n)); None when β is exact.

    Examples
    --------
    >>> from sklearn.feature_extraction.text import CountVectorizer
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.pipeline import make_pipeline
    >>> import limetheory as lt
    >>> docs = ["good food", "bad food", "good staff", "bad staff"]
    >>> model = make_pipeline(CountVectorizer(), LogisticRegression()).fit(docs, [1, 0, 1, 0])
    >>> spread = lt.explain(model, "good food, bad staff", output="decision_function").lime_spread(5000)
    >>> spread.exact, spread.omega_samples, spread.std.shape  # d = 4: every mask enumerated
    (True, None, (5,))
    """

    num_samples: int
    centre: np.ndarray
    std: np.ndarray
    exact: bool
    omega_samples: int | None
    centre_stderr: np.ndarray | None = None

    def interval(self, level=0.95):
        """The two-sided normal interval (low, high) where each of lime's coefficients falls with probability ``level``.

        Its half-width is z · std, with z the normal quantile; when the centre is a Monte Carlo estimate its
        standard error is added in quadrature (the interval then predicts lime's coefficient from the estimate).

        Parameters
        ----------
        level : float
            In (0, 1); 0.95 by default.

        Returns
        -------
        (low, high) : two ndarrays of shape (d + 1,)

        Examples
        --------
        >>> spread = LimeSpread(5000, np.array([0.0, 1.0]), np.array([0.1, 0.2]), True, None)
        >>> [v.round(3).tolist() for v in spread.interval(0.95)]
        [[-0.196, 0.608], [0.196, 1.392]]
        """
        from scipy.stats import norm

        if isinstance(level, bool) or not isinstance(level, (int, float, np.floating)) or not 0 < level < 1:
            raise ValueError(f"level must be a number in (0, 1), got {level!r}")
        std = self.std if self.centre_stderr is None else np.hypot(self.std, self.centre_stderr)
        half = norm.ppf(0.5 + level / 2) * std
        return self.centre - half, self.centre + half


def omega(sample, centre):
    r""":math:`\Omega_c = \operatorname{Cov}(\pi x (f - x^\top c))` under LIME's law, from a :class:`MaskSample`."""
    x = design(sample.z)
    residual = sample.f - x @ centre
    weighted = x * (sample.psi * residual)[:, None]  # pi x (f - x c)
    mean = sample.prob @ weighted
    return (weighted * sample.prob[:, None]).T @ weighted - np.outer(mean, mean)


def lime_spread(sample, beta, nu, y0, num_samples, beta_stderr=None):
    """The :class:`LimeSpread` of lime at ``num_samples`` for the explanation ``beta`` (Ω from ``sample``)."""
    d1 = len(beta)
    m = len(sample.f)
    check_memory(8.0 * m * d1 * 3 + 8.0 * 6 * d1 * d1, f"lime's spread from {m} masks of {d1 - 1} words")
    check_work(4.0 * m * d1 * d1 + 4.0 * d1**3, f"lime's spread from {m} masks of {d1 - 1} words", "use fewer masks")
    sigma = sigma_matrix(d1 - 1, nu=nu)
    centre = expected_lime_fit(sigma, sigma @ beta, y0, num_samples, lam=LIME_RIDGE)
    rows = num_samples - 1
    if rows == 0:  # only the document itself: lime's fit is deterministic
        return LimeSpread(num_samples, centre, np.zeros(d1), sample.exact, None if sample.exact else m, beta_stderr)
    penalty = LIME_RIDGE * np.eye(d1)
    penalty[0, 0] = 0.0
    expected = rows * sigma + penalty + np.ones((d1, d1))
    inverse = np.linalg.inv(expected)
    covariance = rows * inverse @ omega(sample, centre) @ inverse.T
    std = np.sqrt(np.clip(np.diag(covariance), 0.0, None))
    return LimeSpread(num_samples, centre, std, sample.exact, None if sample.exact else m, beta_stderr)
