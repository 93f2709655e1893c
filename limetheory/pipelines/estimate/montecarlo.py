r"""An honest Monte Carlo estimate of :math:`\beta^f = \Sigma^{-1} \Gamma^f` for any model, with standard errors.

Σ⁻¹ is known in closed form, so only :math:`\Gamma = \mathbb{E}[\pi x f]` (x = (1, z)) has to be estimated, and an
average of i.i.d. terms is unbiased with a standard error that the sample itself gives.  Two devices reduce the
variance without giving up either property:

* stratification on the number s of removed words.  Its law is known exactly (uniform on 1..d) and the weight
  π = ψ(s/d) depends on s only, so :math:`\Gamma = \sum_s \frac{\psi(s/d)}{d}\, \mathbb{E}[x f \mid s]`; each
  stratum gets a fixed number of masks n_s (2 plus a share proportional to ψ(s/d), i.e. to the tilted law of s)
  and the randomness of s disappears from the estimate;
* a regression control variate.  For any fixed vector b and any function g whose exact β_g is known,
  :math:`\beta^f = b + c \beta_g + \Sigma^{-1} \Gamma^{f - x^\top b - c g}` exactly (Γ is linear and
  :math:`\Gamma^{x^\top b} = \Sigma b`).  b and c are fitted by weighted least squares on a pilot sample (a fifth
  of the masks) that the estimate then does not use, so the estimate stays unbiased given the pilot; the
  residual :math:`f - x^\top b - c g` is what is left to average, and it is small.

The standard error of each coefficient is the square root of the diagonal of :math:`\Sigma^{-1}
\widehat{\operatorname{Cov}}(\hat\Gamma) \Sigma^{-1}`, with the within-stratum sample covariances.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..._validation import check_work
from ...theory.coefficients import sigma_eigenvalues
from ...theory.explanation import beta_from_gamma
from ...theory.sampling import kernel_weights
from ..reading.mask_samples import (
    MIN_PER_STRATUM,
    MaskSample,
    allocation,
    apply_sigma_inverse,
    design,
    merge,
    sigma_inverse_pattern,
    stratified_sample,
)

#: largest condition number of Σ at which Σ⁻¹Γ̂ is formed (beta_from_gamma warns from 1e12 on: rounding of Γ̂)
MAX_CONDITION = 1e10
#: share of the masks used as the pilot sample that fits the control variate
PILOT_SHARE = 0.2
#: smallest spread given to a stratum in Neyman's allocation, relative to the largest
NEYMAN_FLOOR = 0.05


def fit_control(sample, controls):
    """(b, c): the π-weighted least-squares fit of f on (1, z) and the control columns, on the pilot sample."""
    x = design(sample.z)
    columns = np.column_stack([x, *controls]) if controls else x
    root = np.sqrt(sample.prob * sample.psi)
    solution, *_ = np.linalg.lstsq(columns * root[:, None], sample.f * root, rcond=None)
    d1 = x.shape[1]
    return solution[:d1], solution[d1:]


@dataclass(frozen=True)
class MonteCarloEstimate:
    """β̂ with its standard errors, and the stratified sample behind it (pilot and main)."""

    beta: np.ndarray
    stderr: np.ndarray
    sample: MaskSample
    num_samples: int


def _stratum_terms(sample, b, c, controls, pattern):
    """The stratified estimate of Γ of the residual f - x·b - Σ c_k g_k, and its terms.

    The terms are centred within each stratum and mapped by Σ⁻¹ (one row per mask), with each mask's number of
    removed words.
    """
    d = sample.z.shape[1]
    x = design(sample.z)
    residual = sample.f - x @ b
    for k, (g, _) in enumerate(controls):
        residual -= c[k] * g(sample.z)
    terms = x * residual[:, None]  # x r per mask
    sizes = d - sample.z.sum(axis=1, dtype=np.int64)
    counts = np.bincount(sizes, minlength=d + 1)
    sums = np.zeros((d + 1, d + 1))
    np.add.at(sums, sizes, terms)
    means = sums / np.maximum(counts, 1)[:, None]
    gamma = (sample.prob * sample.psi) @ terms  # sum_s (psi_s / d) mean_s(x r)
    return gamma, apply_sigma_inverse(pattern, terms - means[sizes]), sizes


def estimate_beta(mask_fn, d, nu, num_samples, rng, controls=()):
    r"""β̂ = b + Σ c_k β_k + Σ⁻¹ Γ̂ of the residual, by stratified sampling; standard errors from the sample.

    ``mask_fn`` maps an (m, d) int8 array of masks to the m outputs of the model; ``controls`` is a sequence of
    (g, beta_g): g maps masks to the values of a control function whose exact β is ``beta_g``.
    """
    d1 = d + 1
    check_work(
        12.0 * num_samples * d1 * (d1 + 2),
        f"the Monte Carlo estimate with {num_samples} masks of {d} words",
        "use fewer samples",
    )
    with np.errstate(invalid="ignore"):  # logarithms of -inf below nu = 1e-150: a NaN condition, refused below
        logs = sigma_eigenvalues(d, nu=nu, log=True)
        log_condition = max(logs) - min(logs)
    if not log_condition <= np.log(MAX_CONDITION):
        raise ValueError(
            f"the Monte Carlo route averages Γ and applies Σ⁻¹, whose condition number at d = {d}, nu = {nu:g} "
            f"(kernel_width = {100 * nu:g}) exceeds {MAX_CONDITION:g}: rounding would swamp the estimate; the exact "
            f"routes (enumeration for d <= 14) hold at every bandwidth"
        )
    pattern = sigma_inverse_pattern(d, nu)
    live = int((kernel_weights(d, nu=nu) > 0).sum())
    if num_samples < 2 * MIN_PER_STRATUM * live:
        raise ValueError(
            f"num_samples must be >= {2 * MIN_PER_STRATUM * live} for a document of {d} distinct words "
            f"({MIN_PER_STRATUM} masks for each number of removed words, in the pilot and in the main sample), "
            f"got {num_samples}"
        )
    pilot_size = max(int(PILOT_SHARE * num_samples), MIN_PER_STRATUM * live)
    pilot_counts, weights = allocation(d, nu, pilot_size)
    pilot = stratified_sample(mask_fn, d, nu, pilot_counts, rng)
    b, c = fit_control(pilot, [g(pilot.z) for g, _ in controls])
    _, pilot_rows, pilot_sizes = _stratum_terms(pilot, b, c, controls, pattern)
    # Neyman's allocation from the pilot: the spread of each stratum's mapped terms (a floor keeps every stratum
    # sampled in proportion to its weight at least a little, where the pilot saw too few masks to judge)
    spread = np.sqrt(np.bincount(pilot_sizes, weights=(pilot_rows**2).sum(axis=1), minlength=d + 1)[1:])
    spread = np.maximum(spread / np.sqrt(np.maximum(pilot_counts - 1, 1)), NEYMAN_FLOOR * spread.max())
    main_counts, _ = allocation(d, nu, num_samples - len(pilot.f), spread)
    main = stratified_sample(mask_fn, d, nu, main_counts, rng)
    gamma, rows, sizes = _stratum_terms(main, b, c, controls, pattern)
    stratum_weight = weights / d  # psi_s P(s)
    # Var(Gamma_hat) = sum_s w_s^2 S_s / n_s, S_s the within-stratum sample covariance (n_s - 1 in its denominator)
    scale = stratum_weight[sizes - 1] / np.sqrt(main_counts[sizes - 1] * (main_counts[sizes - 1] - 1.0))
    stderr = np.sqrt(((rows * scale[:, None]) ** 2).sum(axis=0))
    beta = b + beta_from_gamma(gamma, d, nu=nu)
    for k, (_, beta_g) in enumerate(controls):
        beta = beta + c[k] * np.asarray(beta_g, dtype=float)
    return MonteCarloEstimate(
        beta=beta, stderr=stderr, sample=merge(pilot, main), num_samples=len(pilot.f) + len(main.f)
    )
