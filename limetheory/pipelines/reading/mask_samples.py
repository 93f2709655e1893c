r"""Samples of lime's masks with the model's outputs: what the routes, the estimate and lime's spread share.

A :class:`MaskSample` holds masks z, the model's outputs f on them and the weights that turn sums over them into
expectations under lime's law (exact for all 2ᵈ - 1 masks, stratified on the number s of removed words
otherwise); the helpers draw and merge such samples and apply Σ⁻¹ through its four distinct entries.  The
estimate that uses them is :mod:`limetheory.pipelines.estimate.montecarlo`.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from ..._validation import check_memory
from ...theory.explanation import all_masks, beta_from_gamma
from ...theory.sampling import kernel_weights

#: masks per stratum at least (two, so that each stratum has a sample variance)
MIN_PER_STRATUM = 2


@dataclass(frozen=True)
class MaskSample:
    r"""Masks with the model's outputs and the weights that turn sums over them into expectations under LIME's law.

    ``sum(prob * h(z))`` estimates (or, when ``exact``, equals) :math:`\mathbb{E}[h(z)]` under LIME's law of the
    masks, and ``psi`` is the kernel weight π of each mask.

    Attributes
    ----------
    z : ndarray, shape (m, d), int8
        Masks (1 = word kept).
    f : ndarray, shape (m,)
        The model's output on each mask's perturbed document.
    prob : ndarray, shape (m,)
        The weight of each mask: its probability (enumeration) or (1/d) / n_s (stratified sample).
    psi : ndarray, shape (m,)
        The kernel weight ψ(s/d) of each mask.
    exact : bool
        True when the masks are all 2ᵈ - 1 masks with their probabilities.
    """

    z: np.ndarray
    f: np.ndarray
    prob: np.ndarray
    psi: np.ndarray
    exact: bool


def allocation(d, nu, num_samples, spread=None):
    """Masks per stratum s = 1..d: ``MIN_PER_STRATUM`` each, the rest in proportion to ψ(s/d) · ``spread[s - 1]``.

    ``spread`` (default 1) is the standard deviation of what is averaged in each stratum: ψ(s/d) · spread is
    Neyman's optimal allocation.  Strata whose weight ψ(s/d) is 0.0 in double precision contribute nothing to Γ
    and get no masks.
    """
    weights = kernel_weights(d, nu=nu)
    live = weights > 0
    base = MIN_PER_STRATUM * int(live.sum())
    if num_samples < base:
        raise ValueError(
            f"num_samples must be >= {base} for a document of {d} distinct words "
            f"({MIN_PER_STRATUM} masks for each number of removed words), got {num_samples}"
        )
    target = weights if spread is None else weights * spread
    share = np.floor((num_samples - base) * target / target.sum()).astype(np.int64)
    return np.where(live, MIN_PER_STRATUM + share, 0), weights


def masks_removing(sizes, d, rng):
    """One mask per entry of ``sizes``, removing a uniformly random set of ``sizes[i]`` of the d words."""
    ranks = np.argsort(np.argsort(rng.random((len(sizes), d)), axis=1), axis=1)
    return (ranks >= np.asarray(sizes)[:, None]).astype(np.int8)


def stratified_sample(mask_fn, d, nu, counts, rng):
    """A :class:`MaskSample` with ``counts[s - 1]`` masks removing s words, for s = 1..d."""
    counts = np.asarray(counts, dtype=np.int64)
    total = int(counts.sum())
    check_memory(40.0 * total * (d + 1), f"a stratified sample of {total} masks of {d} words", "use fewer samples")
    sizes = np.repeat(np.arange(1, d + 1), counts)
    z = masks_removing(sizes, d, rng)
    f = mask_fn(z)
    weights = kernel_weights(d, nu=nu)
    with np.errstate(divide="ignore"):
        per_mask = np.where(counts > 0, (1.0 / d) / np.maximum(counts, 1), 0.0)
    return MaskSample(z=z, f=f, prob=per_mask[sizes - 1], psi=weights[sizes - 1], exact=False)


def enumerated_sample(mask_fn, d, nu):
    """A :class:`MaskSample` of all 2ᵈ - 1 masks (in the binary order of ``all_masks``) with their probabilities."""
    z, s, prob = all_masks(d)
    return MaskSample(z=z, f=mask_fn(z), prob=prob, psi=kernel_weights(d, nu=nu)[s - 1], exact=True)


def merge(first, second):
    """The union of two independent stratified samples, as one stratified sample (weights recomputed)."""
    d = first.z.shape[1]
    z = np.concatenate([first.z, second.z])
    sizes = d - z.sum(axis=1, dtype=np.int64)
    counts = np.bincount(sizes, minlength=d + 1)[1:]
    prob = (1.0 / d) / counts[sizes - 1]
    return MaskSample(
        z=z, f=np.concatenate([first.f, second.f]), prob=prob, psi=np.concatenate([first.psi, second.psi]), exact=False
    )


def design(z):
    """x = (1, z) as float rows."""
    return np.column_stack([np.ones(len(z)), z.astype(float)])


@functools.lru_cache(maxsize=1024)
def sigma_inverse_pattern(d, nu):
    """The four distinct entries of Σ⁻¹ (corner, edge, diagonal, off-diagonal), from its stable closed form.

    Cached (four floats per (d, ν)): every estimate of a document of d words at ν asks for them.
    """
    first = beta_from_gamma(np.eye(1, d + 1, 0).ravel(), d, nu=nu)
    second = beta_from_gamma(np.eye(1, d + 1, 1).ravel(), d, nu=nu)
    return first[0], first[1], second[1], second[2]


def apply_sigma_inverse(pattern, rows):
    """Σ⁻¹ applied to each row of ``rows`` (shape (m, d + 1)) in O(m d), through its four distinct entries.

    Any matrix of that pattern (corner, edge, diagonal, off-diagonal) is applied the same way: the estimate uses it
    for lime's expected normal matrix too.
    """
    corner, edge, diagonal, off = pattern
    head, tail = rows[:, :1], rows[:, 1:]
    total = tail.sum(axis=1, keepdims=True)
    out = np.empty_like(rows)
    out[:, :1] = corner * head + edge * total
    out[:, 1:] = edge * head + (diagonal - off) * tail + off * total
    return out
