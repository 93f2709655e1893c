r"""A nonlinear surrogate of the model for the estimate route, whose Γ is averaged over cheap masks.

A probability or a bounded score is rarely close to a polynomial in the mask: it saturates. A link (logit for outputs
in [0, 1], the inverse hyperbolic tangent for outputs in [-1, 1], e.g. VADER's compound score) makes it much closer to
one, so the surrogate :math:`g = \mathrm{link}^{-1}(\varphi \cdot a)` (φ the polynomial features of
:mod:`limetheory.pipelines.estimate.controls`, a fitted on the pilot batch) follows the model far better than any
polynomial. Its conditional moments are not known in closed form, but g costs nothing next to a model call: they are
averaged over masks that the model never sees (with the polynomial fit of g itself as a control), and the variance of
that average enters the standard errors. Only the choice of a and of the link depends on the model's outputs; any choice
keeps the estimate unbiased.
"""

from __future__ import annotations

import numpy as np
from scipy.special import expit, logit

#: how close to the ends of the range an output is clipped before the link (a surrogate only: any clip is valid)
LINK_CLIP = 1e-6
LINKS = ("logit", "atanh")


def choose_link(values):
    """The link for outputs ``values``: "logit" within [0, 1], "atanh" within [-1, 1], None otherwise."""
    low, high = float(np.min(values)), float(np.max(values))
    if low >= 0.0 and high <= 1.0:
        return "logit"
    if low >= -1.0 and high <= 1.0:
        return "atanh"
    return None


def to_link(values, link):
    """The link applied to clipped outputs."""
    if link == "logit":
        return logit(np.clip(values, LINK_CLIP, 1.0 - LINK_CLIP))
    return np.arctanh(np.clip(values, -1.0 + LINK_CLIP, 1.0 - LINK_CLIP))


def from_link(values, link):
    """The inverse link."""
    return expit(values) if link == "logit" else np.tanh(values)


class Surrogate:
    """g(z, s) = link⁻¹(φ(z, s) · a), for one output column."""

    def __init__(self, design, coefficients, link):
        self.design = design
        self.coefficients = np.asarray(coefficients, dtype=float).ravel()
        self.link = link

    def values(self, z, sizes):
        """g on the masks ``z`` with ``sizes`` removed words (:meth:`values_from_features` without the features)."""
        return from_link(self.design.values(z, sizes, self.coefficients), self.link)

    def values_from_features(self, features):
        """g on masks given by their features (the surrogate's design, or one with pairs after its columns)."""
        # the first columns of a design with pairs are those of the same design without them
        return from_link(features[:, : len(self.coefficients)] @ self.coefficients, self.link)
