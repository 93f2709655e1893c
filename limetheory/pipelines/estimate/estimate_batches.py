"""The estimate route's batches: masks drawn per stratum, the fits of each output column, the running sums.

A :class:`BatchEstimator` holds what :func:`limetheory.pipelines.estimate.limit_estimate.estimate_limit` has seen so
far: the pilot batch, which only fits (the pairs of words, the linked surrogate, the caller's control coefficients);
each later batch, whose terms use the control fitted on earlier batches only and leave per-stratum sums behind; the
cheap masks that average the surrogate's Γ without calling the model; and the estimate with its standard errors and
lime's spread, from those sums (``BatchEstimator.state``).  The method is described in
``limetheory.pipelines.estimate.limit_estimate``'s docstring; ``estimate_limit`` decides the sizes of the batches.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
from scipy.special import ndtri, stdtrit

from ...theory.explanation import beta_from_gamma
from ..reading.lime_variance import lime_first_order_std
from ..reading.mask_samples import MaskSample, sigma_inverse_pattern
from .batch_sums import accumulate, bin_sums, unique_sizes
from .controls import Design, ExactPowers, NormalEquations, control_values, top_pairs
from .link_surrogate import Surrogate, choose_link, to_link
from .own_work import OwnWork
from .strata import MAX_STRATA, Strata, allocate, draw_sizes, make_strata, masks_removing
from .surrogate_average import SurrogateAverage

#: largest d with one control feature per word (beyond, a few directions); pairs too up to this d
MAX_WORD_FEATURES = 150
#: words whose pairwise products are controls
PAIR_WORDS = 10
#: the same when a model call costs about as much as a mask (``estimate_limit(cheap_calls=True)``): the index's
#: powers take most of what the pairs caught, and each feature costs as much as the call it saves
CHEAP_PAIR_WORDS = 6
#: polynomials in t multiplying (1, z), the pair products, and each power of the index
DEGREE, PAIR_DEGREE, INDEX_DEGREE = 3, 2, 3
#: polynomials in t multiplying each power of a caller's control with exact powers (``controls.ExactPowers``), and
#: (1, z) beside them, without pairs or the index: on five 26-34-word reviews (a fit on 3000 masks, the residual
#: variance on 20000) the design of 36-44 features left 1.00-1.28 times the variance of the full one (126-150
#: features: pairs, the index's powers, three polynomials times (1, z)), whose normal equations cost 11 times more;
#: explain's default call then stops at its least work (pilot, two batches).  Its standard errors there are right on
#: average (mean square error / mean stderr² 0.94 over 100 seeds on a 17-word review, 0.5-1.4 per coefficient on
#: another) but vary between seeds, as a few masks where σ saturates carry a stratum's variance: mean z² 1.17 and
#: 1.21 on two 17-18-word reviews over 100 seeds (1.03 and 1.00 without g's powers), 1.00, 0.95, 2.10 and 1.99 on
#: four 17-20-word reviews over 60 seeds (1.02, 1.03, 1.48 and 1.18 without; 2.10 also at four times the masks):
#: coverage of ±1.96 stderr 91.5% (93.6% without).  A Satterthwaite widening that reads each stratum's kurtosis
#: (``t_widening`` reads only its counts) would take this in
EXACT_DEGREE, EXACT_WORD_DEGREE = 3, 1
#: mask entries (masks x words) per batch: the memory bound
MAX_BATCH_ENTRIES = 4_000_000
#: the surrogate is used when it divides the held-out residual variance by at least this
SURROGATE_GAIN = 1.5
#: masks kept for lime's spread (a stratified sample with its weights): the lime standard deviation that the stopping
#: rule and the note read, and ``Explanation.lime_spread``'s (enough for a standard deviation to a few per cent)
RETAINED_MASKS = 20_000
#: lime's sd is read again (O(masks d)) once the model calls grew by this factor since it was last read, and whenever
#: the caller asks for it fresh (the stopping decision, the final state): at d = 721 a tol = 0.1 estimate runs ~200
#: batches of ~5000 masks (MAX_BATCH_ENTRIES), and reading it at each took 10.4 s of its 84 s
LIME_STD_REFRESH = 1.1
#: masks of a batch added to the control fit at most (a random subset): the fit only has to be a good control, and
#: its normal equations cost K² per row (K ~ 200 features at d = 40), more than scoring a cheap model
FIT_ROWS_PER_BATCH = 2000
#: the same for cheap calls: a fit row costs K² (K ~ 150), a call about d
CHEAP_FIT_ROWS_PER_BATCH = 1000
#: the strata scored in full (every mask with at most two words removed or kept) cost at most 1 / ENUMERATED_SHARE
#: of the budget, and at most ENUMERATED_MASKS masks (within the first masks that lime's spread and the retained
#: sample keep)
ENUMERATED_SHARE, ENUMERATED_MASKS = 4, 1000


def strata_to_enumerate(strata, budget, words=None):
    """Which strata are scored in full: s <= 2 or s >= d - 2 removed words, fewest masks first, within the budget.

    Such a stratum has d or d(d - 1)/2 masks, and a good control misses one or two of them by much (a model of one
    or two words kept saturates where the affine part and the pairs do not reach): one mask then carries most of the
    stratum's variance and a sample that never drew it reports a small standard error (12 words, ``"ouchh...my
    fuckin head is pounding"``: one of the 66 two-word masks held 85-92% of its stratum's variance, Neyman's rule gave
    that stratum 24 masks from the spreads that had missed it, and mean z² was 2.0 at 1500 calls, 2.6 at the default
    budget).  Scored in full, the stratum's mean is exact.  Only when every s is a stratum of its own (d <=
    ``MAX_STRATA``), and one stratum at least is left to the batches.

    ``words`` = (the document's words, the budget of words in all the strings) bounds the strata's strings too, to
    the same share: a stratum of masks removing few words is long strings (s = 2 of 39 distinct words, 741 masks:
    a third of the words of lime's 5000 strings), one keeping few is short ones; a stratum beyond either share is
    skipped and the next tried.

    Examples
    --------
    >>> from limetheory.pipelines.estimate.strata import make_strata
    >>> strata_to_enumerate(make_strata(8, 0.25), 1500).astype(int).tolist()  # s = 1, 2, 6, 7, 8: 8 + 28 + 28 + 8 + 1
    [1, 1, 0, 0, 0, 1, 1, 1]
    >>> strata_to_enumerate(make_strata(8, 0.25), 64).astype(int).tolist()  # 16 masks: s = 8 and s = 1
    [1, 0, 0, 0, 0, 0, 0, 1]
    >>> # strings of at most 600 words in all: s = 2 (28 strings of 6 words) would pass a quarter, s = 6 does not
    >>> strata_to_enumerate(make_strata(8, 0.25), 1500, words=(8, 600)).astype(int).tolist()
    [1, 0, 0, 0, 0, 1, 1, 1]
    """
    d = strata.d
    chosen = np.zeros(strata.count, dtype=bool)
    if strata.count != d:
        return chosen
    sizes = np.arange(1, d + 1)
    atoms = np.array([math.comb(d, int(s)) for s in sizes])
    candidates = np.flatnonzero(((sizes <= 2) | (sizes >= d - 2)) & strata.live)
    room, total = min(budget // ENUMERATED_SHARE, ENUMERATED_MASKS), 0
    # the words of a stratum's strings: by symmetry each word is kept in a share (d - s) / d of its masks
    strings = np.zeros(d) if words is None else atoms * (d - sizes) / d * words[0]
    word_room, word_total = (np.inf if words is None else words[1] / ENUMERATED_SHARE), 0.0
    for b in candidates[np.argsort(atoms[candidates], kind="stable")]:
        if chosen.sum() + 1 >= strata.live.sum():
            break
        if total + atoms[b] > room or word_total + strings[b] > word_room:
            continue  # fewest masks first: without words, none after fits either
        chosen[b] = True
        total += atoms[b]
        word_total += strings[b]
    return chosen


def _every_mask_removing(s, d):
    """All C(d, s) masks of d words removing s of them (True = kept), in the order of ``itertools.combinations``.

    Examples
    --------
    >>> _every_mask_removing(2, 3).astype(int).tolist()  # removed (0, 1), (0, 2), (1, 2)
    [[0, 0, 1], [0, 1, 0], [1, 0, 0]]
    """
    if 2 * s > d:
        # the kept sets of the removed sets in lexicographic order are the (d - s)-sets in reverse lexicographic
        # order: the masks removing d - s words, negated and reversed (no tuple per mask of d - 2 removed words)
        return np.ascontiguousarray(~_every_mask_removing(d - s, d)[::-1])
    # s <= 2: the same sets as itertools.combinations, in its order, without a tuple per mask
    if s == 0:
        removed = np.zeros((1, 0), dtype=np.int64)
    elif s == 1:
        removed = np.arange(d)[:, None]
    elif s == 2:
        removed = np.column_stack(np.triu_indices(d, 1))
    else:
        removed = np.array(list(itertools.combinations(range(d), s)), dtype=np.int64).reshape(-1, s)
    z = np.ones((len(removed), d), dtype=bool)
    z[np.arange(len(removed))[:, None], removed] = False
    return z


#: the standard normal's 0.975 quantile (``scipy.stats.norm.ppf(0.975)``, bit for bit)
Z_975 = float(ndtri(0.975))


def t_widening(contributions, counts, exact=0.0):
    r"""(scale, dof): Student's t widening of a stratified standard error, with Satterthwaite's degrees of freedom.

    The variance of a stratified mean is estimated by :math:`\hat V = \sum_b c_b + e`, with
    :math:`c_b = W_b^2 s_b^2 / n_b` from the :math:`n_b` masks of stratum b and e a part taken as exact (the cheap
    masks, which are many).  Each :math:`s_b^2` has :math:`n_b - 1` degrees of freedom, so :math:`\hat V` has about
    :math:`\nu = \hat V^2 / \sum_b c_b^2 / (n_b - 1)` (Satterthwaite) and :math:`(\hat\beta - \beta) / \sqrt{\hat V}`
    is about Student's t with ν degrees of freedom, not normal: with two to four masks in a stratum that carries the
    variance, ±1.96 plain standard errors cover well under 95%.  ``scale`` = :math:`t_{\nu, 0.975} / z_{0.975}`, so
    that ±1.96 widened standard errors are the 95% t interval (and the mean square of the widened z-scores is about
    1 for ν >= 3); it is 1 + O(1/ν), negligible once every stratum holds tens of masks.

    Parameters
    ----------
    contributions : ndarray, shape (strata, k)
        :math:`c_b` for each of k estimated quantities.
    counts : ndarray, shape (strata,)
        :math:`n_b` (a stratum with fewer than 2 masks must contribute 0).
    exact : float or ndarray, shape (k,)
        The part of the variance taken as known.

    Returns
    -------
    scale, dof : ndarray, shape (k,)
        dof is inf (and scale 1) when nothing is estimated.

    Examples
    --------
    >>> import numpy as np
    >>> scale, dof = t_widening(np.array([[1.0], [1.0]]), np.array([3, 3]))
    >>> float(dof[0]), round(float(scale[0]), 3)  # two strata of 3 masks: 2 + 2 degrees of freedom
    (4.0, 1.417)
    >>> t_widening(np.array([[1.0], [0.0]]), np.array([1001, 2]))[1].tolist()  # the empty stratum adds none
    [1000.0]
    """
    contributions = np.asarray(contributions, dtype=float)
    total = contributions.sum(axis=0) + exact
    spread = (contributions**2 / np.maximum(np.asarray(counts, dtype=float) - 1.0, 1.0)[:, None]).sum(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        dof = np.where(spread > 0, total**2 / np.where(spread > 0, spread, 1.0), np.inf)
    finite = np.isfinite(dof)
    scale = np.ones_like(dof)
    # scipy.stats.t.ppf(0.975, dof) / scipy.stats.norm.ppf(0.975), bit for bit (their _ppf are these special
    # functions; dof > 0 here), without the distributions' argument checks: 0.7 ms a call, 4 calls an estimate
    scale[finite] = stdtrit(dof[finite], 0.975) / Z_975
    return scale, dof


def _index(direction, z, weights):
    """The index of the controls: lime's direction of the pilot, centred and scaled to unit spread on its masks.

    A model that saturates along that direction (a probability of a linear score) is mostly a function of it; its
    powers (``controls.INDEX_POWERS``) then take most of what the affine control leaves, and their scale only
    conditions the fit.  None when the direction is 0 (a constant model).  The sign is fixed by the largest entry,
    so that outputs which are affine in each other (p and 1 - p) get the same features, and estimates that add up.
    """
    direction = direction * (1.0 if direction[np.argmax(np.abs(direction))] >= 0 else -1.0)
    values = z @ direction
    total = weights.sum()
    centre = float(weights @ values / total)
    spread = float(np.sqrt(weights @ (values - centre) ** 2 / total))
    if not spread > 0:
        return None, 0.0
    return direction / spread, -centre / spread


def _parallel(a, b):
    """Whether two directions agree to rounding (the lime fits of outputs that are affine in each other)."""
    return abs(float(a @ b)) >= (1.0 - 1e-9) * float(np.linalg.norm(a) * np.linalg.norm(b))


def _scores(score_masks, z):
    out = np.asarray(score_masks(z), dtype=float)
    if out.ndim == 1:
        out = out[:, None]
    if out.ndim != 2 or out.shape[0] != len(z):
        raise ValueError(f"score_masks must return an array of shape ({len(z)},) or ({len(z)}, k), got {out.shape}")
    if not np.isfinite(out).all():
        raise ValueError("score_masks returned a non-finite value (NaN or inf)")
    return out


class ColumnState:
    """The state of one output column: its fits, the per-stratum sums of its terms, its surrogates' cheap averages."""

    def __init__(self, strata, d, design, control_coefficients, surrogate):
        bins = strata.count
        self.design = design
        self.control_coefficients = control_coefficients  # held after the pilot
        width = design.size + (surrogate is not None)
        self.fit = NormalEquations(width)
        self.sum_terms = np.zeros((bins, d + 1))
        self.exact_terms = np.zeros((bins, d + 1))  # the strata scored in full
        self.sum_mapped = np.zeros((bins, d + 1))
        self.sum_squares = np.zeros((bins, d + 1))
        # each surrogate used so far with its cheap average (``surrogate_average``); the last is the current one
        self.averages = [] if surrogate is None else [SurrogateAverage(surrogate, bins, d)]
        self.last_moments = (None, None)  # (coefficients and sizes, the design's moments there)

    @property
    def surrogate(self):
        """The surrogate the next batch uses (None: none)."""
        return self.averages[-1].surrogate if self.averages else None

    def use(self, average):
        """From the next batch on, the surrogate of ``average`` (a ``SurrogateAverage``; ``fit`` rebuilt with it)."""
        self.averages.append(average)

    def moments(self, coefficients, unique):
        """``design.moments(coefficients, unique)``, kept: the first batch's are the pilot's spread's (same fit)."""
        key = (coefficients.tobytes(), unique.tobytes())
        if self.last_moments[0] != key:
            self.last_moments = (key, self.design.moments(coefficients, unique))
        return self.last_moments[1]


class BatchEstimator:
    """The estimate's state: the strata, the output columns' fits and sums, the model calls spent, retained masks."""

    def __init__(self, score_masks, d, nu, num_samples, tol, budget, rng, progress, controls, surrogate,
                 cheap_calls=False, word_tokens=None, max_words=None):  # fmt: skip
        self.score_masks, self.d, self.nu = score_masks, d, nu
        self.num_samples, self.tol, self.budget, self.rng = num_samples, tol, budget, rng
        self.controls = tuple(controls)
        self.control_betas = np.array([np.asarray(b, dtype=float) for _, b in self.controls]).reshape(-1, d + 1)
        self.use_surrogate = surrogate
        # a long document scored on strings (strata binned, words budgeted: explain's default call): a per-word
        # surrogate refitted before each batch on every mask so far, none from the pilot (surrogate_average)
        self.word_refits = surrogate is not False and max_words is not None and min(d, MAX_STRATA) < d
        self.word_links = {}  # column -> the link of its adopted per-word surrogate (later refits keep it)
        self.own_work = OwnWork(np.inf)  # the optional work's ledger (``own_work``; bounded at lime's cost)
        self.pair_words = CHEAP_PAIR_WORDS if cheap_calls else PAIR_WORDS
        self.fit_rows = CHEAP_FIT_ROWS_PER_BATCH if cheap_calls else FIT_ROWS_PER_BATCH
        self.strata = make_strata(d, nu)
        # the words of the strings scored (``word_tokens``: each word's occurrences), bounded by ``max_words``
        self.word_tokens = None if word_tokens is None else np.asarray(word_tokens, dtype=float)
        self.max_words, self.words, self.words_bound = max_words, 0.0, False
        words = None if self.word_tokens is None else (float(self.word_tokens.sum()), max_words)
        # the strata scored in full have exact means; the batches sample the others (``sampled``: their weights)
        self.enumerated = strata_to_enumerate(self.strata, budget, words)
        weight = np.where(self.enumerated, 0.0, self.strata.weight)
        self.sampled = Strata(d=d, psi=self.strata.psi, bin_of_s=self.strata.bin_of_s, weight=weight,
                              within=self.strata.within)  # fmt: skip
        self.sigma_pattern = sigma_inverse_pattern(d, nu)
        self.calls = 0
        self.counts = np.zeros(self.strata.count)
        self.cheap_counts = np.zeros(self.strata.count)
        self.batches = 0
        self.retained = []
        self.retained_arrays = None  # the retained masks concatenated, with their weights (``_retained``)
        self.lime_std_cache = (None, None)  # (the sums' state, lime's standard deviation per column there)
        self.state_cache = (None, None)  # (the sums' state, ``state``'s entries there without lime's sd)
        self.progress = progress
        self.max_batch = max(4 * int(self.strata.live.sum()), MAX_BATCH_ENTRIES // d)

    def spend(self, z):
        """Count the masks ``z`` scored by the model, and the words of their strings."""
        self.calls += len(z)
        if self.word_tokens is not None:
            self.words += float(np.count_nonzero(z, axis=0) @ self.word_tokens)

    def bin_words(self):
        """The expected words of a mask's string in each bin (each word is kept in a share (d - s) / d of them)."""
        s = np.arange(1, self.d + 1)
        kept = np.bincount(self.strata.bin_of_s, weights=self.strata.within * (self.d - s) / self.d,
                           minlength=self.strata.count)  # fmt: skip
        return kept * float(self.word_tokens.sum())

    def limit_batch(self):
        """The batch size bound once the designs are known: masks and features within MAX_BATCH_ENTRIES."""
        width = self.d + sum(c.design.size + 2 for c in self.columns)
        self.max_batch = max(4 * int(self.strata.live.sum()), MAX_BATCH_ENTRIES // width)

    # ------------------------------------------------------------------ drawing

    def draw(self, counts):
        """(bins, sizes, masks) of a batch with ``counts[b]`` masks in stratum b, drawn bin after bin."""
        bins, sizes = draw_sizes(self.strata, counts, self.rng)
        return bins, sizes, masks_removing(sizes, self.d, self.rng)

    def mask_weights(self, bins, counts):
        """Each mask's weight in the fits: the estimator's W_b / n_b, scaled so a batch weighs its size."""
        return self.strata.weight[bins] / counts[bins] * len(bins)

    # ------------------------------------------------------------------ the pilot

    def pilot(self, size, per_stratum=4):
        """Score the pilot batch (4 masks or more per live stratum) and fit each column's design, control, surrogate.

        Returns the pilot's allocation to the strata; no term of the estimate comes from the pilot.
        """
        live = int(self.sampled.live.sum())
        counts = allocate(self.sampled, max(size, per_stratum * live))
        bins, sizes, z = self.draw(counts)
        f = _scores(self.score_masks, z)
        self.spend(z)
        e = control_values(self.controls, z)
        self.k = f.shape[1]
        weights = self.mask_weights(bins, counts)
        d = self.d
        small = d <= MAX_WORD_FEATURES
        # a caller's control whose powers have exact moments (a logistic regression's decision function) enters the
        # design, times polynomials in t; its held coefficient is then 0
        exact = next((g for g, _ in self.controls if isinstance(g, ExactPowers)), None)
        x = None if small and exact is not None else np.column_stack([np.ones(len(z)), z])
        if x is None:  # the lean design below reads neither the index nor the pairs: no fit of lime's on the pilot
            ref = None
        elif small:  # lime's own fit on the pilot: the direction of the index and the choice of pairs
            root = np.sqrt(weights)
            ref = np.linalg.lstsq(x * root[:, None], f * root[:, None], rcond=None)[0].T
        else:  # a plain stratified average (O(m d)): only a direction for the controls
            terms = x[:, :, None] * f[:, None, :]
            sums = np.zeros((self.strata.count, d + 1, self.k))
            sums += bin_sums(bins, terms, self.strata.count)
            gamma = np.einsum("b,bjk->jk", self.strata.weight / np.maximum(counts, 1), sums)
            ref = np.array([beta_from_gamma(gamma[:, c], d, nu=self.nu) for c in range(self.k)])
        self.columns, spreads = [], []
        half = self.rng.random(len(z)) < 0.5
        indices = []
        for c in range(self.k):
            index, offset = (None, 0.0) if ref is None else _index(ref[c, 1:], z, weights)
            for earlier, earlier_offset in indices:  # p and 1 - p: one index, the same features, sums that add up
                if index is not None and earlier is not None and _parallel(index, earlier):
                    index, offset = earlier, earlier_offset
                    break
            indices.append((index, offset))
            if small and exact is not None:  # g's powers take what the pairs and the index caught: a lean design
                design = Design(d, EXACT_WORD_DEGREE, None, None, PAIR_DEGREE, None, 0.0, INDEX_DEGREE, exact,
                                EXACT_DEGREE)  # fmt: skip
            elif small:
                pairs = top_pairs(ref[c, 1:], min(self.pair_words, d))
                design = Design(d, DEGREE, None, pairs, PAIR_DEGREE, index, offset, INDEX_DEGREE)
            else:
                directions = np.column_stack([ref[c, 1:], *self.control_betas[:, 1:]])
                directions = directions / np.maximum(np.abs(directions).max(axis=0), 1e-300)
                design = Design(d, DEGREE, directions, None, PAIR_DEGREE, index, offset, INDEX_DEGREE, exact,
                                EXACT_DEGREE)  # fmt: skip
            phi = design.features(z, sizes)
            if exact is None:
                both = np.column_stack([phi, e])
                fit = NormalEquations(both.shape[1])
                fit.add(both, f[:, c], weights)
                held = fit.solve()[design.size :, 0] if self.controls else np.zeros(0)
            else:  # g is among the design's features: a held coefficient would only duplicate it
                held = np.zeros(len(self.controls))
            target = f[:, c] - e @ held
            surrogate = self._choose_surrogate(design, phi, target, f[:, c], weights, half)
            column = ColumnState(self.strata, d, design, held, surrogate)
            column.fit.add(self._fit_features(column, phi, z, sizes), target, weights)
            self.columns.append(column)
            spreads.append(self._pilot_spread(column, bins, counts, sizes, z, target))
        self.pilot_spread = np.mean(spreads, axis=0)
        self.limit_batch()
        self._retain(z, sizes, bins, f)
        self._enumerate()
        return counts

    def _enumerate(self):
        """Score every mask of the strata in ``enumerated``, in one call: their exact means of x (f - controls)."""
        strata = np.flatnonzero(self.enumerated)
        if not len(strata):
            return
        parts = [_every_mask_removing(b + 1, self.d) for b in strata]  # one stratum per s = b + 1
        z = np.concatenate(parts)
        ends = np.cumsum([len(part) for part in parts])
        bins = np.repeat(strata, [len(part) for part in parts])
        f = _scores(self.score_masks, z)
        self.spend(z)
        e = control_values(self.controls, z)
        for c, column in enumerate(self.columns):
            target = f[:, c] - e @ column.control_coefficients
            for b, part, end in zip(strata, parts, ends, strict=True):
                rows = slice(end - len(part), end)
                column.exact_terms[b, 0] = target[rows].mean()
                column.exact_terms[b, 1:] = target[rows] @ part / len(part)
        self._retain(z, bins + 1, bins, f)

    def _pilot_spread(self, column, bins, counts, sizes, z, target):
        """Each stratum's spread of the terms on the pilot, under the control fitted on the pilot.

        In sample, so smaller than the spread a later batch will see: only a guide for Neyman's allocation of the
        first batch, which would otherwise follow the weights W_b alone and leave the strata that carry the
        variance (few words kept, where a good control misses a few masks by much) a handful of masks each.
        """
        coefficients = column.fit.solve()[:, 0]
        design = column.design
        fitted = design.values(z, sizes, coefficients[: design.size])
        if column.surrogate is not None:
            fitted += coefficients[design.size] * column.surrogate.values(z, sizes)
        unique, where = unique_sizes(sizes)
        mapped, squares = np.zeros((self.strata.count, self.d + 1)), np.zeros((self.strata.count, self.d + 1))
        accumulate(z, target - fitted, bins, self.sigma_pattern, mapped, squares,
                   table=column.moments(coefficients[: design.size], unique), where=where)  # fmt: skip
        n = np.maximum(counts, 1)[:, None]
        var_bin = np.clip((squares - mapped**2 / n) / np.maximum(n - 1, 1), 0.0, None)
        return np.sqrt(var_bin.mean(axis=1))

    def _choose_surrogate(self, design, phi, target, f, weights, half):
        if self.use_surrogate is False or self.word_refits:
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
    def _fit_features(column, phi, z, sizes):
        if column.surrogate is None:
            return phi
        if isinstance(column.surrogate, Surrogate):  # a link of the design's own features: read from them
            return np.column_stack([phi, column.surrogate.values_from_features(phi)])
        return np.column_stack([phi, column.surrogate.values(z, sizes)])

    # ------------------------------------------------------------------ one batch

    def batch(self, counts):
        """Score one batch, add its terms (with the controls fitted on earlier batches) to the sums, then refit."""
        bins, sizes, z = self.draw(counts)
        f = _scores(self.score_masks, z)
        self.spend(z)
        e = control_values(self.controls, z)
        weights = self.mask_weights(bins, counts)
        for c, column in enumerate(self.columns):
            coefficients = column.fit.solve()[:, 0]  # fitted on earlier batches only
            design = column.design
            fitted = design.values(z, sizes, coefficients[: design.size])
            if column.surrogate is not None:
                fitted += coefficients[design.size] * column.surrogate.values(z, sizes)
            target = f[:, c] - e @ column.control_coefficients
            residual = target - fitted
            unique, where = unique_sizes(sizes)
            extra = None
            if column.surrogate is not None and column.averages[-1].counts.sum() > 0:
                # the surrogate's part at this batch's coefficient, so that the spread within a stratum does not
                # mix batches whose terms have different means (the estimate adds it once, at the end)
                extra = column.averages[-1].mean()
            accumulate(z, residual, bins, self.sigma_pattern, column.sum_mapped, column.sum_squares,
                       table=column.moments(coefficients[: design.size], unique), where=where, extra=extra,
                       extra_coef=coefficients[design.size] if extra is not None else 0.0,
                       sum_terms=column.sum_terms)  # fmt: skip
            if column.surrogate is not None:
                column.averages[-1].coefficient_sum += (
                    np.bincount(bins, minlength=self.strata.count) * coefficients[design.size]
                )
            fit_rows = self._fit_rows(len(z))
            features = self._fit_features(column, design.features(z[fit_rows], sizes[fit_rows]), z[fit_rows],
                                          sizes[fit_rows])  # fmt: skip
            column.fit.add(features, target[fit_rows], weights[fit_rows])
        self.counts += np.bincount(bins, minlength=self.strata.count)
        self.batches += 1
        self._retain(z, sizes, bins, f)

    def _fit_rows(self, m):
        """The rows of a batch of m masks that enter the control fit: all, or a random ``fit_rows`` of them."""
        if m <= self.fit_rows:
            return slice(None)
        return np.sort(self.rng.choice(m, self.fit_rows, replace=False))

    def _retain(self, z, sizes, bins, f):
        held = sum(len(part[0]) for part in self.retained)
        room = RETAINED_MASKS - held
        if room > 0:
            self.retained.append((z[:room], sizes[:room], bins[:room], f[:room]))
            self.retained_arrays = None

    # ------------------------------------------------------------------ the surrogate's cheap average

    def cheap(self, counts, averages=None):
        """Masks the model never sees, for ``averages`` (at most one per column; None: each column's current one).

        A surrogate's first cheap batch fits the polynomial control of g (its masks are not averaged), later ones
        average g's Γ (``surrogate_average.SurrogateAverage``).
        """
        if averages is None:
            averages = [c.averages[-1] for c in self.columns if c.surrogate is not None]
        if not averages:
            return
        bins, sizes, z = self.draw(counts)
        self.own_work.cheap(len(z), self.d)
        weights = self.mask_weights(bins, counts)
        averaged = [average.add(z, sizes, bins, weights, self.sigma_pattern) for average in averages]
        if any(averaged):  # the masks averaged (a first batch only fits the controls)
            self.cheap_counts += np.bincount(bins, minlength=self.strata.count)

    # ------------------------------------------------------------------ the estimate so far

    def state(self, fresh=False):
        """(beta, expensive variance, cheap variance, lime_std, per-bin spread, dof) per column.

        Both variances are widened by :func:`t_widening`'s scale squared (the effective degrees of freedom of the
        per-stratum variances), so that their sum is the square of the reported standard error.  lime_std is lime's
        standard deviation at num_samples from the retained masks with residuals against this β (``_lime_std``; with
        ``fresh`` False, the one last read while the model calls have grown by less than ``LIME_STD_REFRESH``).
        """
        key = (self.calls, float(self.cheap_counts.sum()))  # the sums change only with the masks scored or drawn
        if self.state_cache[0] == key:
            out = self.state_cache[1]
        else:
            out = self._column_states()
            self.state_cache = (key, out)
        lime_std = self._lime_std([entry[0] for entry in out], fresh)
        return [(b, v, cv, ls, spread, dof) for (b, v, cv, _, spread, dof), ls in zip(out, lime_std, strict=True)]

    def _column_states(self):
        """``state``'s entries without lime's sd, from the sums (computed once per state of the sums)."""
        weight = self.strata.weight
        n = np.maximum(self.counts, 1)
        out = []
        for column in self.columns:
            mean = np.where(self.enumerated[:, None], column.exact_terms, column.sum_terms / n[:, None])
            var_bin = (column.sum_squares - column.sum_mapped**2 / n[:, None]) / np.maximum(n - 1, 1)[:, None]
            var_bin = np.clip(var_bin, 0.0, None)
            contributions = weight[:, None] ** 2 * var_bin / n[:, None]
            variance = contributions.sum(axis=0)
            gamma = weight @ mean
            cheap_variance = np.zeros(self.d + 1)
            for average in column.averages:  # independent cheap masks: the variances add
                part, part_variance = average.part(weight, n)
                gamma, cheap_variance = gamma + part, cheap_variance + part_variance
            scale, dof = t_widening(contributions, self.counts, cheap_variance)
            variance, cheap_variance = variance * scale**2, cheap_variance * scale**2
            beta = beta_from_gamma(gamma, self.d, nu=self.nu)
            if self.controls:
                beta = beta + column.control_coefficients @ self.control_betas
            spread = np.sqrt(var_bin.mean(axis=1))
            out.append((beta, variance, cheap_variance, None, spread, dof))
        return out

    def _lime_std(self, betas, fresh=True):
        r"""lime's standard deviation at num_samples for each column, from the retained masks and the column's β.

        :math:`\sqrt{m \operatorname{diag}(\bar A^{-1} \Omega_c \bar A^{-1})}`, residuals against lime's centre c for β.
        The same function of the same masks as ``Explanation.lime_spread(num_samples).std``
        (:func:`limetheory.pipelines.reading.lime_variance.lime_first_order_std`), so that the note's ratio is the
        one a user computes apart.  Residuals against a rough β would add the rough part's own spread: the pilot's
        plain stratified average beyond ``MAX_WORD_FEATURES`` words made lime's sd 400 times too large at d = 721
        (the note stated 0.018 x lime's sd where it was 7, and "within the target").  The estimate's own error adds
        its spread too, in proportion to d (stderr / sd)² / n: far from the target it shows (d = 721 after lime's 5000
        calls, stated 3.3: lime's sd 1.96 times, median over the words, that read on the same masks with the β of
        a 200000-call estimate), at tol = 0.1 it is some 0.2% of the sd.  The document's own output,
        which lime's centre takes as its first row, is not scored here: x₀ᵀβ stands for it (an O(1/n) shift of
        the centre, whose effect on the spread is of a smaller order still).  Computed once per state of the sums
        (O(masks d) per column: 0.07 s at d = 721 and 20000 masks, 11 times in a 50000-call estimate).
        """
        key = (self.calls, float(self.cheap_counts.sum()))
        read, cached = self.lime_std_cache
        if read == key or (not fresh and read is not None and self.calls <= LIME_STD_REFRESH * read[0]):
            return cached
        z, f, prob, psi = self._retained()
        out = []
        for c, beta in enumerate(betas):
            sample = MaskSample(z=z, f=f[:, c], prob=prob, psi=psi, exact=False)
            out.append(lime_first_order_std(sample, beta, self.nu, float(beta.sum()), self.num_samples)[1])
        self.lime_std_cache = (key, out)
        return out

    def _retained(self):
        """(masks as int8, outputs of every column, probabilities under LIME's law, kernel weights) of those kept."""
        if self.retained_arrays is None:
            # one part from now on (the masks are held once, and a later part is concatenated to it alone)
            self.retained = [tuple(np.concatenate([part[i] for part in self.retained]) for i in range(4))]
            z, sizes, bins, f = self.retained[0]
            z = z.astype(np.int8, copy=False)  # 0/1 whatever the dtype the masks came in
            counts = np.bincount(bins, minlength=self.strata.count)
            psi = self.strata.psi[sizes - 1]
            prob = self.strata.weight[bins] / (counts[bins] * psi)
            self.retained_arrays = (z, f, prob, psi)
        return self.retained_arrays

    def retained_sample(self):
        """The retained masks as a :class:`MaskSample` with their probabilities under LIME's law (None if none)."""
        if not self.retained:
            return None
        z, f, prob, psi = self._retained()
        return MaskSample(z=z, f=f[:, 0], prob=prob, psi=psi, exact=False)
