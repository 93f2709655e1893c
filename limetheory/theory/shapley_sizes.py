r"""Shapley values of a set function of the words, from its sums by the number of kept words.

The players are the d distinct words of a document; the value of a set S of words is
:math:`v(S)` = the model on the document keeping only the words of S.  The Shapley value of word j is

.. math::

   \phi_j = \sum_{S \not\ni j} \frac{m!\,(d - m - 1)!}{d!}

   \qquad \times \bigl(v(S \cup \{j\}) - v(S)\bigr), \qquad m = \lvert S \rvert,

a weighted sum over sizes of :math:`\mathbb{E}[v(S \cup j) - v(S) \mid \lvert S \rvert = m]` with the weight 1/d
for every size.  In the book's notation (s removed words, :math:`F_s = \mathbb{E}[f \mid s]` and
:math:`\mathbb{E}[z_j f \mid s]` over the kept set uniform among the sets of d - s words, as for LIME's β), the
sets of each size that contain j and those that avoid it give

.. math::

   \phi_j = \frac{f(\mathbf{1})}{d} + \sum_{s=1}^{d-1} \frac{d}{s (d - s)}\, \mathbb{E}[z_j f \mid s]
            - \sum_{s=1}^{d} \frac{F_s}{s}.

So the same conditional moments that give LIME's β (:func:`limetheory.beta_from_conditional_moments`) give the
Shapley values: LIME weighs the sizes by its kernel's law of s, Shapley by :math:`\omega_s = d / (s (d - s))`.
Summed over j (:math:`\sum_j \mathbb{E}[z_j f \mid s] = (d - s) F_s`) the formula telescopes to
:math:`f(\mathbf{1}) - F_d = v(N) - v(\emptyset)`: efficiency.
"""

from __future__ import annotations

import math

import numpy as np

from .._validation import as_float_array, check_int

#: largest d for which every subset is enumerated (2ᵈ rows of d bytes)
MAX_ENUMERATION_D = 22


def shapley_size_weights(d):
    r"""Shapley's weights by removed size: :math:`\omega_s = d / (s (d - s))` for s = 1..d-1.

    The weight of :math:`\mathbb{E}[z_j f \mid s]` in the Shapley value of word j (module docstring): the
    Shapley weight of a set of m = d - s - 1 other words, :math:`m!\,(d - m - 1)!/d!`, times the number
    :math:`\binom{d}{d-s}` of kept sets and divided by the probability (d - s)/d that j is kept, plus the same
    for the sets that avoid j.

    Parameters
    ----------
    d : int
        Number of words, d >= 2.

    Returns
    -------
    ndarray, shape (d - 1,)
        ``out[s - 1]`` = d / (s (d - s)).

    Examples
    --------
    >>> shapley_size_weights(4).tolist()
    [1.3333333333333333, 1.0, 1.3333333333333333]
    """
    d = check_int(d, "d", minimum=2)
    s = np.arange(1, d, dtype=float)
    return d / (s * (d - s))


def _check_moments(f_full, f_given_s, weighted_zf):
    f_full = float(as_float_array(f_full, "f_full", ndim=0))
    f_given_s = as_float_array(f_given_s, "f_given_s", ndim=1)
    weighted_zf = as_float_array(weighted_zf, "weighted_zf", ndim=1)
    d = f_given_s.size
    if d < 2 or weighted_zf.size != d:
        raise ValueError(
            f"f_given_s and weighted_zf must have the same length d >= 2 (one entry per word), got {d} and "
            f"{weighted_zf.size}"
        )
    return f_full, f_given_s, weighted_zf


def shapley_from_weighted_moments(f_full, f_given_s, weighted_zf):
    r"""Shapley values from :math:`f(\mathbf{1})`, :math:`F_s` and :math:`\sum_s \omega_s \mathbb{E}[z_j f \mid s]`.

    The weighted sum over s of the words' moments, with :func:`shapley_size_weights`, is what a route computes
    without the d x d moments (the tree and linear routes do, as for LIME's β); this adds the terms of
    :math:`f(\mathbf{1})` and :math:`F_s` (module docstring).

    Parameters
    ----------
    f_full : float
        The model on the document, every word kept (s = 0).
    f_given_s : array_like, shape (d,)
        ``f_given_s[s - 1]`` = E[f | s words removed]; the last entry is v(∅), the empty document.
    weighted_zf : array_like, shape (d,)
        :math:`\sum_{s=1}^{d-1} \omega_s \mathbb{E}[z_j f \mid s]` for every word j.

    Returns
    -------
    ndarray, shape (d,)
        The Shapley value of each word.

    Examples
    --------
    >>> # f = z_0 on two words: E[f | s = 1] = 1/2, E[z f | s = 1] = (1/2, 0), and omega_1 = 2
    >>> shapley_from_weighted_moments(1.0, [0.5, 0.0], [1.0, 0.0]).tolist()
    [1.0, 0.0]
    """
    f_full, f_given_s, weighted_zf = _check_moments(f_full, f_given_s, weighted_zf)
    d = f_given_s.size
    constant = f_full / d - float(np.dot(f_given_s, 1.0 / np.arange(1, d + 1)))
    return weighted_zf + constant


def shapley_from_conditional_moments(f_full, f_given_s, zf_given_s):
    r"""Shapley values of the words from the conditional moments LIME's β is made of.

    Parameters
    ----------
    f_full : float
        The model on the document, every word kept.
    f_given_s : array_like, shape (d,)
        ``f_given_s[s - 1]`` = E[f | s words removed], s = 1..d (the last is v(∅)).
    zf_given_s : array_like, shape (d, d)
        ``zf_given_s[s - 1, j]`` = E[z_j f | s], as :func:`limetheory.conditional_moments_linear_exact` and
        :func:`limetheory.conditional_moments_trees` return it.

    Returns
    -------
    ndarray, shape (d,)
        :math:`\phi_j` (module docstring); they sum to ``f_full - f_given_s[-1]`` up to rounding.

    Examples
    --------
    >>> from limetheory import conditional_moments_linear_exact
    >>> f_given_s, zf_given_s = conditional_moments_linear_exact([1.0, 3.0], [1.0, 1.0], norm=None)
    >>> shapley_from_conditional_moments(4.0, f_given_s, zf_given_s).tolist()  # linear: lambda_j t_j
    [1.0, 3.0]
    """
    zf_given_s = as_float_array(zf_given_s, "zf_given_s", ndim=2)
    d = zf_given_s.shape[1]
    if zf_given_s.shape[0] != d or d < 2:
        raise ValueError(f"zf_given_s must be a (d, d) array with d >= 2, got shape {zf_given_s.shape}")
    weighted = shapley_size_weights(d) @ zf_given_s[: d - 1]
    return shapley_from_weighted_moments(f_full, f_given_s, weighted)


def shapley_enumerate(f, d):
    r"""Shapley values by enumerating all 2ᵈ sets of words (a reference for every route).

    :math:`\phi_j = \sum_{S \ni j} w_{\lvert S \rvert - 1}\, v(S) - \sum_{S \not\ni j} w_{\lvert S \rvert}\, v(S)`
    with :math:`w_m = m!\,(d - m - 1)!/d!` (and :math:`w_d = 0`), over every mask once.

    Parameters
    ----------
    f : callable
        Maps an (m, d) int8 array of masks (1 = word kept) to m values.
    d : int
        Number of words, 1 <= d <= 22.

    Returns
    -------
    base : float
        v(∅), f of the all-zero mask.
    values : ndarray, shape (d,)
        The Shapley values.

    Examples
    --------
    >>> base, values = shapley_enumerate(lambda z: z[:, 0] * z[:, 1] + 0.5, 3)
    >>> base, values.tolist()  # the product's unit is split between its two words
    (0.5, [0.5, 0.5, 0.0])
    """
    if not callable(f):
        raise TypeError(f"f must be a callable mapping (m, d) masks to m values, got {type(f).__name__}")
    d = check_int(d, "d", minimum=1, maximum=MAX_ENUMERATION_D)
    codes = np.arange(2**d, dtype=np.int64)
    z = np.empty((codes.size, d), dtype=np.int8)
    for j in range(d):
        z[:, j] = (codes >> j) & 1
    out = f(z)
    try:
        raw = np.asarray(out)
        if np.iscomplexobj(raw):  # a cast to float would drop the imaginary part silently
            raise TypeError
        values = raw.astype(float).reshape(-1)
    except (TypeError, ValueError):
        raise ValueError(f"f must return one real value per mask ({codes.size}), got {out!r:.80}") from None
    if values.size != codes.size:
        raise ValueError(f"f must return one value per mask ({codes.size}), got {values.size}")
    if not np.isfinite(values).all():
        raise ValueError("f returned a non-finite value (NaN or inf)")
    size = z.sum(axis=1)
    weight = np.array([math.factorial(m) * math.factorial(d - m - 1) / math.factorial(d) for m in range(d)] + [0.0])
    with_j = values * np.concatenate([[0.0], weight])[size]  # w_{|S| - 1} for the sets containing j
    without_j = values * weight[size]
    phi = z.T.astype(float) @ with_j - (1 - z).T.astype(float) @ without_j
    return float(values[0]), phi
