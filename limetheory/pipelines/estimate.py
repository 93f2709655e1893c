r"""The estimate route: β^f = Σ⁻¹Γ^f for any model, in batches, until its standard errors reach a fraction of lime's.

Σ⁻¹ is exact, so only :math:`\Gamma = \mathbb{E}[\pi x f]` is estimated, by an average over masks that is
unbiased whatever was fitted on earlier batches, with standard errors that the batches themselves give:

* **strata** (:mod:`limetheory.pipelines.strata`): masks stratified on the number s of removed words (bins of s for long
  documents), s drawn inside a bin in proportion to lime's weights ψ (importance sampling), masks allocated to
  the bins by Neyman's rule from the spread seen so far;
* **exact control variates** (:mod:`limetheory.pipelines.controls`): a polynomial in t = s/d times (1, z), plus the
  products of the most important pairs of words, refitted before each batch on up to :data:`FIT_ROWS_PER_BATCH`
  masks of every earlier batch (weighted least squares on the estimator's own weights); their conditional moments
  given s are exact, so only the residual is averaged. Lime's own regression adjusts for the words in the same way,
  with one affine fit for all s: letting it change with s and adding pairs is what makes the estimate more
  efficient than lime per model call;
* **the caller's controls**: functions of the masks with an exact β (the model's own decision function, computed
  from the words' columns), their coefficients fitted on the pilot batch and then held;
* **a nonlinear surrogate** (:mod:`limetheory.pipelines.link_surrogate`): link⁻¹ of the polynomial, fitted on the
  pilot batch, used when it cuts the residual variance on held-out pilot masks by a third or more; its Γ is
  averaged over cheap masks that the model never sees, and that average's variance enters the standard errors.

The first (pilot) batch only fits: it chooses the pairs, the surrogate and the caller's control coefficients, and
no term of the estimate comes from it, so every term's control was fitted on other masks.  Then batches are drawn
until every coefficient's standard error is at most ``tol`` times lime's predicted standard deviation at
``num_samples`` (estimated along the way from the same masks: :math:`m \bar A^{-1} \Omega \bar A^{-1}`, see
:mod:`limetheory.pipelines.spread`), or until ``max_calls`` model calls are spent.  Memory is bounded by the batch: the
batches leave only per-stratum sums behind (and at most :data:`RETAINED_MASKS` masks, for lime's spread later).
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field

import numpy as np

from .._validation import check_int, check_nu
from ..theory.coefficients import sigma_eigenvalues
from ..theory.explanation import beta_from_gamma
from .controls import Design, NormalEquations, top_pairs
from .link_surrogate import Surrogate, choose_link, to_link
from .montecarlo import MAX_CONDITION, MaskSample, apply_sigma_inverse, sigma_inverse_pattern
from .strata import allocate, draw_sizes, lime_normal_inverse, make_strata, masks_removing

#: model calls of a black box by default: ten lime runs' worth
DEFAULT_CALLS_PER_LIME_RUN = 10
#: largest d with one control feature per word (beyond, a few directions); pairs too up to this d
MAX_WORD_FEATURES = 150
#: words whose pairwise products are controls
PAIR_WORDS = 10
#: polynomials in t multiplying (1, z), and the pair products
DEGREE, PAIR_DEGREE = 3, 2
#: mask entries (masks x words) per batch: the memory bound
MAX_BATCH_ENTRIES = 4_000_000
#: the surrogate is used when it divides the held-out residual variance by at least this
SURROGATE_GAIN = 1.5
#: the cheap average of the surrogate's Γ may contribute at most this share of the variance
CHEAP_SHARE = 0.15
#: cheap masks per model call at most
MAX_CHEAP_PER_CALL = 50
#: masks kept for lime's spread (a stratified sample with its weights)
RETAINED_MASKS = 20_000
#: the target never asks for standard errors below this, relative to the largest coefficient (rounding's level:
#: a model exactly affine in the mask leaves lime no residual, and lime's spread is then rounding itself)
ABSOLUTE_FLOOR = 1e-9
#: smallest spread given to a stratum in Neyman's allocation, relative to the largest
NEYMAN_FLOOR = 0.05
#: masks of a batch added to the control fit at most (a random subset): the fit only has to be a good control, and
#: its normal equations cost K² per row (K ~ 200 features at d = 40), more than scoring a cheap model
FIT_ROWS_PER_BATCH = 2000
#: masks that estimate lime's spread at most (enough for its standard deviation to a few per cent)
LIME_SPREAD_MASKS = 20_000


@dataclass(frozen=True, eq=False)
class LimitEstimate:
    """β estimated by the route, with its standard errors and what was reached.

    Attributes
    ----------
    beta, stderr : ndarray, shape (d + 1,) or (k, d + 1)
        The estimate (intercept first) and its standard errors (one row per output column when the scores have k
        columns).
    lime_std : ndarray, shape as ``beta``
        lime's predicted standard deviation at ``num_samples`` (estimated from the same masks).
    calls : int
        Masks scored by the model (pilot included).
    reached : bool
        Whether every standard error is at most ``tol`` times ``lime_std``.
    tol, num_samples : float, int
        The target: stderr <= tol x lime's standard deviation at num_samples.
    note : str
        What was reached, in words.
    techniques : dict
        What the estimate used (strata, pairs, surrogate link, caller's controls, cheap masks, batches).
    sample : MaskSample or None
        Up to ``RETAINED_MASKS`` scored masks with their weights under LIME's law (the first column's outputs),
        for lime's spread.
    """

    beta: np.ndarray
    stderr: np.ndarray
    lime_std: np.ndarray
    calls: int
    reached: bool
    tol: float
    num_samples: int
    note: str
    techniques: dict = field(default_factory=dict)
    sample: object = field(repr=False, default=None)


def _bin_sums(bins, values, count):
    """Per-bin sums of the rows of ``values``; ``bins`` is sorted (masks are drawn bin after bin)."""
    out = np.zeros((count, *values.shape[1:]))
    if len(bins):
        starts = np.flatnonzero(np.r_[True, bins[1:] != bins[:-1]])
        out[bins[starts]] = np.add.reduceat(values, starts, axis=0)
    return out


def _scores(score_masks, z):
    out = np.asarray(score_masks(z), dtype=float)
    if out.ndim == 1:
        out = out[:, None]
    if out.ndim != 2 or out.shape[0] != len(z):
        raise ValueError(f"score_masks must return an array of shape ({len(z)},) or ({len(z)}, k), got {out.shape}")
    if not np.isfinite(out).all():
        raise ValueError("score_masks returned a non-finite value (NaN or inf)")
    return out


def _control_values(controls, z):
    if not controls:
        return np.zeros((len(z), 0))
    return np.column_stack([np.asarray(g(z), dtype=float).reshape(len(z)) for g, _ in controls])


class _Column:
    """The state of one output column: its fits, and the per-stratum sums of its terms."""

    def __init__(self, strata, d, design, control_coefficients, surrogate, beta_ref):
        bins = strata.count
        self.design = design
        self.control_coefficients = control_coefficients  # held after the pilot
        self.surrogate = surrogate
        width = design.size + (surrogate is not None)
        self.fit = NormalEquations(width)
        self.sum_terms = np.zeros((bins, d + 1))
        self.sum_mapped = np.zeros((bins, d + 1))
        self.sum_squares = np.zeros((bins, d + 1))
        self.sum_surrogate_coefficient = np.zeros(bins)
        self.lime_sum = np.zeros((bins, d + 1))
        self.lime_squares = np.zeros((bins, d + 1))
        self.lime_count = np.zeros(bins)
        self.beta_ref = beta_ref
        # the surrogate's cheap average: E_qb[x g] per bin, with the polynomial fit of g as its control
        self.cheap_terms = np.zeros((bins, d + 1))
        self.cheap_mapped = np.zeros((bins, d + 1))
        self.cheap_squares = np.zeros((bins, d + 1))
        self.cheap_fit = None


class _Estimator:
    def __init__(self, score_masks, d, nu, num_samples, tol, budget, rng, progress, controls, surrogate):
        self.score_masks, self.d, self.nu = score_masks, d, nu
        self.num_samples, self.tol, self.budget, self.rng = num_samples, tol, budget, rng
        self.controls = tuple(controls)
        self.control_betas = np.array([np.asarray(b, dtype=float) for _, b in self.controls]).reshape(-1, d + 1)
        self.use_surrogate = surrogate
        self.strata = make_strata(d, nu)
        self.sigma_pattern = sigma_inverse_pattern(d, nu)
        self.lime_pattern = lime_normal_inverse(d, nu, num_samples)
        self.calls = 0
        self.counts = np.zeros(self.strata.count)
        self.cheap_counts = np.zeros(self.strata.count)
        self.batches = 0
        self.retained = []
        self.progress = progress
        self.max_batch = max(4 * int(self.strata.live.sum()), MAX_BATCH_ENTRIES // d)

    def limit_batch(self):
        """The batch size bound once the designs are known: masks and features within MAX_BATCH_ENTRIES."""
        width = self.d + sum(c.design.size + 2 for c in self.columns)
        self.max_batch = max(4 * int(self.strata.live.sum()), MAX_BATCH_ENTRIES // width)

    # ------------------------------------------------------------------ drawing

    def draw(self, counts):
        bins, sizes = draw_sizes(self.strata, counts, self.rng)
        return bins, sizes, masks_removing(sizes, self.d, self.rng)

    def mask_weights(self, bins, counts):
        """Each mask's weight in the fits: the estimator's W_b / n_b, scaled so a batch weighs its size."""
        return self.strata.weight[bins] / counts[bins] * len(bins)

    # ------------------------------------------------------------------ the pilot

    def pilot(self, size):
        live = int(self.strata.live.sum())
        counts = allocate(self.strata, max(size, 4 * live))
        bins, sizes, z = self.draw(counts)
        f = _scores(self.score_masks, z)
        self.calls += len(z)
        e = _control_values(self.controls, z)
        self.k = f.shape[1]
        self.y0_masks = None
        weights = self.mask_weights(bins, counts)
        x = np.column_stack([np.ones(len(z)), z])
        d = self.d
        small = d <= MAX_WORD_FEATURES
        if small:  # lime's own fit on the pilot: the reference for lime's spread and the choice of pairs
            root = np.sqrt(weights)
            ref = np.linalg.lstsq(x * root[:, None], f * root[:, None], rcond=None)[0].T
        else:  # a plain stratified average (O(m d)): only a direction for the controls and a reference
            terms = x[:, :, None] * f[:, None, :]
            sums = np.zeros((self.strata.count, d + 1, self.k))
            sums += _bin_sums(bins, terms, self.strata.count)
            gamma = np.einsum("b,bjk->jk", self.strata.weight / np.maximum(counts, 1), sums)
            ref = np.array([beta_from_gamma(gamma[:, c], d, nu=self.nu) for c in range(self.k)])
        self.columns = []
        half = self.rng.random(len(z)) < 0.5
        for c in range(self.k):
            if small:
                design = Design(d, DEGREE, None, top_pairs(ref[c, 1:], min(PAIR_WORDS, d)), PAIR_DEGREE)
            else:
                directions = np.column_stack([ref[c, 1:], *self.control_betas[:, 1:]])
                directions = directions / np.maximum(np.abs(directions).max(axis=0), 1e-300)
                design = Design(d, DEGREE, directions, None, PAIR_DEGREE)
            phi = design.features(z, sizes)
            both = np.column_stack([phi, e])
            fit = NormalEquations(both.shape[1])
            fit.add(both, f[:, c], weights)
            held = fit.solve()[design.size :, 0] if self.controls else np.zeros(0)
            target = f[:, c] - e @ held
            surrogate = self._choose_surrogate(design, phi, target, f[:, c], weights, half)
            column = _Column(self.strata, d, design, held, surrogate, ref[c])
            column.fit.add(self._fit_features(column, phi), target, weights)
            self.columns.append(column)
            self._lime_terms(column, bins, sizes, z, f[:, c])
        self.limit_batch()
        self._retain(z, sizes, bins, f)
        return counts

    def _choose_surrogate(self, design, phi, target, f, weights, half):
        if self.use_surrogate is False:
            return None
        link = choose_link(f)
        if link is None:
            return None
        linked = to_link(f, link)
        train, test = half, ~half
        fit = NormalEquations(design.size, 2)
        fit.add(phi[train], np.column_stack([target[train], linked[train]]), weights[train])
        plain, a = fit.solve().T
        g = Surrogate(design, a, link).values_from_features(phi)
        # held-out residual variance of the polynomial alone and with g as a further control
        with_g = NormalEquations(design.size + 1)
        with_g.add(np.column_stack([phi[train], g[train]]), target[train], weights[train])
        coefficients = with_g.solve()[:, 0]
        w = weights[test]
        plain_residual = target[test] - phi[test] @ plain
        g_residual = target[test] - np.column_stack([phi[test], g[test]]) @ coefficients
        gain = (w @ plain_residual**2) / max(w @ g_residual**2, 1e-300)
        if self.use_surrogate is True or gain >= SURROGATE_GAIN:
            full = NormalEquations(design.size)  # refitted on the whole pilot
            full.add(phi, linked, weights)
            return Surrogate(design, full.solve()[:, 0], link)
        return None

    @staticmethod
    def _fit_features(column, phi):
        if column.surrogate is None:
            return phi
        return np.column_stack([phi, column.surrogate.values_from_features(phi)])

    # ------------------------------------------------------------------ one batch

    def batch(self, counts):
        bins, sizes, z = self.draw(counts)
        f = _scores(self.score_masks, z)
        self.calls += len(z)
        e = _control_values(self.controls, z)
        weights = self.mask_weights(bins, counts)
        x = np.column_stack([np.ones(len(z)), z])
        for c, column in enumerate(self.columns):
            coefficients = column.fit.solve()[:, 0]  # fitted on earlier batches only
            design = column.design
            phi = design.features(z, sizes)
            features = self._fit_features(column, phi)
            target = f[:, c] - e @ column.control_coefficients
            residual = target - features @ coefficients
            terms = x * residual[:, None]
            unique, where = np.unique(sizes, return_inverse=True)
            terms += design.moments(coefficients[: design.size], unique)[where.ravel()]
            column.sum_terms += _bin_sums(bins, terms, self.strata.count)
            if column.surrogate is not None and self.cheap_counts.sum() > 0:
                # the surrogate's part at this batch's coefficient, so that the spread within a stratum does not
                # mix batches whose terms have different means (the estimate adds it once, at the end)
                average = column.cheap_terms / np.maximum(self.cheap_counts, 1)[:, None]
                terms = terms + coefficients[design.size] * average[bins]
            mapped = apply_sigma_inverse(self.sigma_pattern, terms)
            column.sum_mapped += _bin_sums(bins, mapped, self.strata.count)
            column.sum_squares += _bin_sums(bins, mapped**2, self.strata.count)
            if column.surrogate is not None:
                column.sum_surrogate_coefficient += (
                    np.bincount(bins, minlength=self.strata.count) * coefficients[design.size]
                )
            fit_rows = self._fit_rows(len(z))
            column.fit.add(features[fit_rows], target[fit_rows], weights[fit_rows])
            self._lime_terms(column, bins, sizes, z, f[:, c])
        self.counts += np.bincount(bins, minlength=self.strata.count)
        self.batches += 1
        self._retain(z, sizes, bins, f)

    def _fit_rows(self, m):
        """The rows of a batch of m masks that enter the control fit: all, or a random FIT_ROWS_PER_BATCH."""
        if m <= FIT_ROWS_PER_BATCH:
            return slice(None)
        return np.sort(self.rng.choice(m, FIT_ROWS_PER_BATCH, replace=False))

    def _lime_terms(self, column, bins, sizes, z, f):
        """Sums behind lime's variance at num_samples: u = Ā⁻¹ x (f - x·β_ref) per mask (see ``spread``).

        Only the first LIME_SPREAD_MASKS masks: each stratum's average is unbiased on any prefix of the batches.
        """
        room = LIME_SPREAD_MASKS - int(column.lime_count.sum())
        if room <= 0:
            return
        bins, sizes, z, f = bins[:room], sizes[:room], z[:room], f[:room]
        x = np.column_stack([np.ones(len(z)), z])
        residual = f - x @ column.beta_ref
        u = apply_sigma_inverse(self.lime_pattern, x * residual[:, None])  # any (corner, edge, diag, off) pattern
        psi = self.strata.psi[sizes - 1]
        column.lime_sum += _bin_sums(bins, u, self.strata.count)
        column.lime_squares += _bin_sums(bins, psi[:, None] * u**2, self.strata.count)
        column.lime_count += np.bincount(bins, minlength=self.strata.count)

    def _retain(self, z, sizes, bins, f):
        held = sum(len(part[0]) for part in self.retained)
        room = RETAINED_MASKS - held
        if room > 0:
            self.retained.append((z[:room], sizes[:room], bins[:room], f[:room]))

    # ------------------------------------------------------------------ the surrogate's cheap average

    def cheap(self, counts):
        bins, sizes, z = self.draw(counts)
        x = np.column_stack([np.ones(len(z)), z])
        fitting = any(c.surrogate is not None and c.cheap_fit is None for c in self.columns)
        for column in self.columns:
            if column.surrogate is None:
                continue
            design = column.surrogate.design
            phi = design.features(z, sizes)
            g = column.surrogate.values_from_features(phi)
            if fitting:  # the polynomial fit of g: fitted on this first cheap batch, whose masks are then not averaged
                fit = NormalEquations(design.size)
                fit.add(phi, g, self.mask_weights(bins, counts))
                column.cheap_fit = fit.solve()[:, 0]
                continue
            terms = x * (g - phi @ column.cheap_fit)[:, None]
            unique, where = np.unique(sizes, return_inverse=True)
            terms += design.moments(column.cheap_fit, unique)[where.ravel()]
            column.cheap_terms += _bin_sums(bins, terms, self.strata.count)
            mapped = apply_sigma_inverse(self.sigma_pattern, terms)
            column.cheap_mapped += _bin_sums(bins, mapped, self.strata.count)
            column.cheap_squares += _bin_sums(bins, mapped**2, self.strata.count)
        if not fitting:
            self.cheap_counts += np.bincount(bins, minlength=self.strata.count)

    # ------------------------------------------------------------------ the estimate so far

    def state(self):
        """(beta, stderr, lime_std, expensive variance, cheap variance, per-bin spread) per column."""
        weight = self.strata.weight
        n = np.maximum(self.counts, 1)
        out = []
        for column in self.columns:
            mean = column.sum_terms / n[:, None]
            var_bin = (column.sum_squares - column.sum_mapped**2 / n[:, None]) / np.maximum(n - 1, 1)[:, None]
            var_bin = np.clip(var_bin, 0.0, None)
            variance = (weight[:, None] ** 2 * var_bin / n[:, None]).sum(axis=0)
            gamma = weight @ mean
            cheap_variance = np.zeros(self.d + 1)
            if column.surrogate is not None and self.cheap_counts.sum() > 0:
                m = np.maximum(self.cheap_counts, 1)
                g_mean = column.cheap_terms / m[:, None]
                coefficient = column.sum_surrogate_coefficient / n
                gamma = gamma + (weight * coefficient) @ g_mean
                cheap_var = (column.cheap_squares - column.cheap_mapped**2 / m[:, None]) / np.maximum(m - 1, 1)[:, None]
                cheap_variance = ((weight * coefficient)[:, None] ** 2 * np.clip(cheap_var, 0, None) / m[:, None]).sum(
                    axis=0
                )
            beta = beta_from_gamma(gamma, self.d, nu=self.nu)
            if self.controls:
                beta = beta + column.control_coefficients @ self.control_betas
            lime_n = np.maximum(column.lime_count, 1)
            second = weight @ (column.lime_squares / lime_n[:, None])
            first = weight @ (column.lime_sum / lime_n[:, None])
            lime_var = np.clip(second - first**2, 0.0, None) * (self.num_samples - 1)
            spread = np.sqrt(var_bin.mean(axis=1))
            out.append((beta, variance, cheap_variance, np.sqrt(lime_var), spread))
        return out

    def retained_sample(self):
        if not self.retained:
            return None
        z = np.concatenate([part[0] for part in self.retained])
        sizes = np.concatenate([part[1] for part in self.retained])
        bins = np.concatenate([part[2] for part in self.retained])
        f = np.concatenate([part[3] for part in self.retained])[:, 0]
        counts = np.bincount(bins, minlength=self.strata.count)
        psi = self.strata.psi[sizes - 1]
        prob = self.strata.weight[bins] / (counts[bins] * psi)
        return MaskSample(z=z.astype(np.int8), f=f, prob=prob, psi=psi, exact=False)


def estimate_limit(
    score_masks,
    d,
    *,
    nu,
    num_samples=5000,
    tol=0.1,
    max_calls=None,
    random_state=0,
    progress=True,
    controls=(),
    surrogate="auto",
    pilot_calls=None,
):
    r"""β^f estimated in batches until its standard errors are at most ``tol`` x lime's spread at ``num_samples``.

    Parameters
    ----------
    score_masks : callable
        Masks, an (m, d) bool array (True = word kept), to the model's outputs on lime's perturbed documents:
        shape (m,), or (m, k) for k output columns (each estimated from the same masks).
    d : int
        Number of features (>= 2).
    nu : float
        The paper's bandwidth (kernel_width / 100), > 0.
    num_samples : int
        lime's n against which the precision is set (default 5000, lime's default).
    tol : float
        The target: every standard error at most ``tol`` times lime's standard deviation at ``num_samples``
        (> 0; default 0.1).
    max_calls : int or None
        Most masks scored (the pilot included); None: ten lime runs' worth, 10 x ``num_samples``.
    random_state : int or numpy Generator
        Seed.
    progress : bool
        Show a tqdm bar when the work lasts more than about 2 s.
    controls : sequence of (g, beta_g)
        Functions of the masks (m, d) -> (m,) with their exact β (length d + 1), e.g. the model's decision
        function; their coefficients are fitted on the pilot batch.  One output column only when given.
    surrogate : {"auto", True, False}
        The nonlinear surrogate: used when it pays on the pilot ("auto"), always, or never.
    pilot_calls : int or None
        Masks of the pilot batch (None: about a tenth of ``max_calls``, between 4 per stratum and 4000).

    Returns
    -------
    LimitEstimate

    Raises
    ------
    TypeError
        ``score_masks`` not callable, non-integer counts.
    ValueError
        Out-of-range arguments, or scores of the wrong shape or not finite.

    Examples
    --------
    >>> import numpy as np
    >>> weights = np.array([1.0, -2.0, 0.5, 0.0, 3.0])
    >>> def score(z):  # a saturating model of the kept words
    ...     return np.tanh(0.3 * (z @ weights))
    >>> e = estimate_limit(score, 5, nu=0.25, random_state=0, progress=False)
    >>> e.reached, e.beta.shape, bool((e.stderr <= 0.1 * e.lime_std).all())
    (True, (6,), True)
    >>> from limetheory import beta_enumerate
    >>> exact = beta_enumerate(score, 5, nu=0.25)
    >>> bool((np.abs(e.beta - exact) <= 5 * e.stderr).all())
    True
    """
    if not callable(score_masks):
        raise TypeError(f"score_masks must be callable (masks -> scores), got {type(score_masks).__name__}")
    d = check_int(d, "d", minimum=2)
    nu = check_nu(nu)
    if not np.isfinite(nu):
        raise ValueError("nu must be finite for the estimate route (the large-bandwidth limit has exact routes)")
    num_samples = check_int(num_samples, "num_samples", minimum=2)
    if isinstance(tol, bool) or not isinstance(tol, (int, float, np.floating)) or not 0 < tol < np.inf:
        raise ValueError(f"tol must be a positive number, got {tol!r}")
    budget = (
        DEFAULT_CALLS_PER_LIME_RUN * num_samples if max_calls is None else check_int(max_calls, "max_calls", minimum=2)
    )
    if surrogate not in ("auto", True, False):
        raise ValueError(f"surrogate must be 'auto', True or False, got {surrogate!r}")
    if not isinstance(progress, (bool, np.bool_)):
        raise TypeError(f"progress must be True or False, got {type(progress).__name__}")
    rng = (
        random_state
        if isinstance(random_state, np.random.Generator)
        else np.random.default_rng(check_int(random_state, "random_state", minimum=0))
    )
    controls = tuple(controls)
    for entry in controls:
        if not (isinstance(entry, tuple) and len(entry) == 2 and callable(entry[0])):
            raise TypeError("controls must be a sequence of (function of the masks, its exact beta) pairs")
        if np.shape(entry[1]) != (d + 1,):
            raise ValueError(f"each control's beta must have shape ({d + 1},), got {np.shape(entry[1])}")
    with np.errstate(invalid="ignore"):  # logarithms of -inf below nu = 1e-150: a NaN condition, refused below
        logs = sigma_eigenvalues(d, nu=nu, log=True)
    if not max(logs) - min(logs) <= np.log(MAX_CONDITION):
        raise ValueError(
            f"the estimate route averages Γ and applies Σ⁻¹, whose condition number at d = {d}, nu = {nu:g} "
            f"(kernel_width = {100 * nu:g}) exceeds {MAX_CONDITION:g}: rounding would swamp the estimate; the exact "
            f"routes (enumeration for d <= 14) hold at every bandwidth"
        )
    estimator = _Estimator(score_masks, d, nu, num_samples, float(tol), budget, rng, progress, controls,
                           surrogate if surrogate != "auto" else "auto")  # fmt: skip
    live = int(estimator.strata.live.sum())
    if budget < 8 * live:
        raise ValueError(
            f"max_calls must be >= {8 * live} for a document of {d} words (a pilot and two batches with two masks "
            f"in each of the {live} strata), got {budget}"
        )
    pilot = pilot_calls if pilot_calls is not None else int(np.clip(budget // 10, 4 * live, 4000))
    pilot = min(check_int(pilot, "pilot_calls", minimum=2), budget // 2)
    return _run(estimator, pilot)


def _run(estimator, pilot_size):
    from tqdm import TqdmWarning

    with warnings.catch_warnings():  # tqdm.auto warns in a notebook without ipywidgets; its text bar serves
        warnings.simplefilter("ignore", TqdmWarning)
        from tqdm.auto import tqdm

    start = time.process_time()
    bar = tqdm(total=estimator.budget, delay=2.0, disable=not estimator.progress, unit="call", desc="estimate",
               leave=False)  # fmt: skip
    try:
        counts = estimator.pilot(pilot_size)
        bar.update(estimator.calls)
        spread = None
        target_met = False
        while True:
            remaining = estimator.budget - estimator.calls
            live = int(estimator.strata.live.sum())
            if estimator.batches == 0:
                size = int(counts.sum())
            else:
                _refill_cheap(estimator)
                states = estimator.state()
                if _ratio(estimator, states) <= 1.0 and estimator.batches >= 2:
                    target_met = True
                    break
                # the model's share of the variance must fall to (1 - CHEAP_SHARE) of the target's
                share = max(
                    float(np.max(v / ((1.0 - CHEAP_SHARE) * _target(estimator, b, ls) ** 2)))
                    for b, v, _, ls, _ in states
                )
                done = estimator.counts.sum()
                size = int(min(max(done * (share - 1.0) * 1.1, 2 * live), max(done, 4 * live) * 4))
                spread = np.mean([s for *_, s in states], axis=0)
            if remaining < 2 * live:
                break
            size = int(min(size, remaining, estimator.max_batch))
            floor = NEYMAN_FLOOR * (spread.max() if spread is not None and spread.max() > 0 else 1.0)
            allocation = allocate(estimator.strata, size, None if spread is None else np.maximum(spread, floor))
            if estimator.batches == 0 and any(c.surrogate is not None for c in estimator.columns):
                estimator.cheap(allocate(estimator.strata, max(size, 4 * live)))  # fits the cheap control
                estimator.cheap(allocate(estimator.strata, max(size, 4 * live)))  # a first average
            estimator.batch(allocation)
            bar.update(int(allocation.sum()))
        states = estimator.state()
        target_met = _ratio(estimator, states) <= 1.0
    finally:
        bar.close()
    beta = np.array([s[0] for s in states])
    stderr = np.sqrt(np.array([s[1] + s[2] for s in states]))
    lime_std = np.array([s[3] for s in states])
    worst = float(np.max(stderr / np.maximum(lime_std, 1e-300)))
    seconds = time.process_time() - start
    if target_met:
        note = (
            f"estimate: every standard error is at most {estimator.tol:g} x lime's standard deviation at n = "
            f"{estimator.num_samples} (largest ratio {worst:.3f}), from {estimator.calls} model calls"
        )
    else:
        note = (
            f"estimate: max_calls = {estimator.budget} spent before the target; the largest standard error is "
            f"{worst:.3f} x lime's standard deviation at n = {estimator.num_samples} (target {estimator.tol:g}); "
            f"pass a larger max_calls for more precision"
        )
    squeeze = (lambda a: a[0]) if estimator.k == 1 else (lambda a: a)
    techniques = dict(
        strata=int(estimator.strata.count),
        pairs=int(estimator.columns[0].design.n_pairs),
        word_features=estimator.columns[0].design.directions is None,
        surrogate=[c.surrogate.link if c.surrogate is not None else None for c in estimator.columns],
        controls=len(estimator.controls),
        cheap_masks=int(estimator.cheap_counts.sum()),
        batches=estimator.batches,
        cpu_seconds=seconds,
    )
    return LimitEstimate(
        beta=squeeze(beta),
        stderr=squeeze(stderr),
        lime_std=squeeze(lime_std),
        calls=int(estimator.calls),
        reached=bool(target_met),
        tol=estimator.tol,
        num_samples=estimator.num_samples,
        note=note,
        techniques=techniques,
        sample=estimator.retained_sample(),
    )


def _target(estimator, beta, lime_std):
    """tol x lime's standard deviation, floored at rounding's level."""
    return np.maximum(estimator.tol * lime_std, ABSOLUTE_FLOOR * max(1.0, float(np.abs(beta).max())))


def _ratio(estimator, states):
    """The largest standard error over its target."""
    return max(float(np.max(np.sqrt(v + cv) / _target(estimator, b, ls))) for b, v, cv, ls, _ in states)


def _refill_cheap(estimator):
    """Draw cheap masks (the model is not called) until the surrogate's average is a small share of the target."""
    if not any(c.surrogate is not None for c in estimator.columns):
        return
    cap = MAX_CHEAP_PER_CALL * estimator.calls
    for _ in range(8):
        need = 0.0
        for column, (b, _, cv, ls, _) in zip(estimator.columns, estimator.state(), strict=True):
            if column.surrogate is not None:
                need = max(need, float(np.max(cv / (CHEAP_SHARE * _target(estimator, b, ls) ** 2))))
        have = estimator.cheap_counts.sum()
        if (need <= 1.0 and have > 0) or have >= cap:
            return
        size = int(
            min(max(have * (need - 1.0) * 1.2, 4 * estimator.strata.live.sum()), cap - have, estimator.max_batch)
        )
        estimator.cheap(allocate(estimator.strata, size))
