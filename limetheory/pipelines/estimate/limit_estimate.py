r"""The estimate route: β^f = Σ⁻¹Γ^f for any model, in batches, until its standard errors reach a fraction of lime's.

Σ⁻¹ is exact, so only :math:`\Gamma = \mathbb{E}[\pi x f]` is estimated, by an average over masks that is
unbiased whatever was fitted on earlier batches, with standard errors that the batches themselves give:

* **strata** (:mod:`limetheory.pipelines.estimate.strata`): masks stratified on the number s of removed words (bins of s
for long
  documents), s drawn inside a bin in proportion to lime's weights ψ (importance sampling), masks allocated to
  the bins by Neyman's rule from the spread seen so far; the strata with at most two words removed or kept (d or
  d(d - 1)/2 masks each) are scored in full when they fit in a quarter of the budget and 1000 masks, since a good
  control misses one or two of their masks by much and a sample that never drew those reports too small an error
  (``estimate_batches.strata_to_enumerate``);
* **exact control variates** (:mod:`limetheory.pipelines.estimate.controls`): a polynomial in t = s/d times (1, z), plus
the
  products of the most important pairs of words, refitted before each batch on up to ``FIT_ROWS_PER_BATCH``
  masks of every earlier batch (weighted least squares on the estimator's own weights); their conditional moments
  given s are exact, so only the residual is averaged. Lime's own regression adjusts for the words in the same way,
  with one affine fit for all s: letting it change with s and adding pairs is what makes the estimate more
  efficient than lime per model call;
* **the caller's controls**: functions of the masks with an exact β (the model's own decision function, computed
  from the words' columns), their coefficients fitted on the pilot batch and then held;
* **a nonlinear surrogate** (:mod:`limetheory.pipelines.estimate.link_surrogate`): link⁻¹ of the polynomial, fitted on
the
  pilot batch, used when it cuts the residual variance on held-out pilot masks by a third or more; its Γ is
  averaged over cheap masks that the model never sees, and that average's variance enters the standard errors;
* **per-word surrogates** (:mod:`limetheory.pipelines.estimate.word_surrogate`,
  :mod:`limetheory.pipelines.estimate.surrogate_average`): on a long document scored on strings, link⁻¹ of a weight
  per word, refitted before each batch on every mask so far and used when it pays on held-out masks, each with its
  own cheap average.  At lime's cost their fits and cheap masks are charged to a ledger
  (:mod:`limetheory.pipelines.estimate.own_work`) whose allowance is half of lime's own work by a fixed work model:
  refits stop and cheap masks are capped when it is spent, so that on a cheap model the estimate's own work stays
  below lime's.

The first (pilot) batch only fits: it chooses the pairs, the surrogate and the caller's control coefficients, and
no term of the estimate comes from it, so every term's control was fitted on other masks.  Its spread per stratum
(in sample) allocates the first batch, which takes at most half of what remains, so that at least one batch
allocated from the spreads of unseen masks follows.  Then batches are drawn until every coefficient's standard
error is at most ``tol`` times lime's predicted standard deviation at ``num_samples`` (estimated along the way from
the retained masks, with residuals against the current estimate: :math:`m \bar A^{-1} \Omega \bar A^{-1}`, see
:mod:`limetheory.pipelines.reading.lime_variance`, the same as ``Explanation.lime_spread``), or until
``max_calls`` model calls are spent.  The standard errors are Student's: each stratum's variance has n_b - 1 degrees
of freedom, their weighted sum about ν (Satterthwaite), and the standard errors are widened by
:math:`t_{\nu, 0.975} / 1.96` (a quarter at the smallest budget, 2 to 4 masks a stratum; nothing once strata hold
tens of masks: ``estimate_batches.t_widening``).  Memory is bounded by the batch: the
batches leave only per-stratum sums behind (and at most ``RETAINED_MASKS`` masks, for lime's spread later).

This module holds the entry point and the loop that sizes the batches; the batches themselves, with the fits and
the running sums (and the constants named above), are ``limetheory.pipelines.estimate.estimate_batches``; on a long
document scored on strings whose words are budgeted, the batches' allocation (minimax weights over the coefficients,
batches that fill the bins up to Neyman's allocation of all the masks) is ``limetheory.pipelines.estimate.allocation``.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field

import numpy as np
from scipy.special import stdtrit

from ..._validation import check_int, check_nu
from ...theory.coefficients import sigma_eigenvalues
from .allocation import filling, minimax_spread
from .estimate_batches import Z_975, BatchEstimator
from .montecarlo import MAX_CONDITION
from .own_work import OWN_WORK_SHARE, OwnWork, lime_own_us
from .strata import allocate
from .surrogate_average import refit_word_surrogates

#: model calls of a black box by default: ten lime runs' worth
DEFAULT_CALLS_PER_LIME_RUN = 10
#: the cheap average of the surrogate's Γ may contribute at most this share of the variance
CHEAP_SHARE = 0.15
#: cheap masks per model call at most
MAX_CHEAP_PER_CALL = 50
#: at lime's cost (explain's default budget) the cheap average may reach this share of the variance the model's calls
#: leave: its masks are CPU time lime does not spend (about 2 µs each at d = 39, where a VADER call is 110 µs and the
#: estimate drew 90000 of them at 0.15), for standard errors at most sqrt(1.3 / 1.15) - 1 = 6% larger
LIME_COST_CHEAP_SHARE = 0.3
#: the same on a long document scored on strings with per-word surrogates (``surrogate_average``): a cheap mask
#: (about 10 µs at d = 488) costs some 1000 times less than a call of VADER on its string (8 ms), and at 0.3 the
#: cheap averages took 0.3 of lime's sd in every standard error (VADER, the 1043-token document, random_state 0)
WORD_CHEAP_SHARE = 0.05
#: the target never asks for standard errors below this, relative to the largest coefficient (rounding's level:
#: a model exactly affine in the mask leaves lime no residual, and lime's spread is then rounding itself)
ABSOLUTE_FLOOR = 1e-9
#: the rounding error of an estimate, in units of eps x ||β||₁ / λ_min(Σ), below which no standard error falls.
#: Each term averaged is the model's output minus its control, plus the control's exact moments; the controls'
#: normal equations carry a relative ridge of ``controls.FIT_RIDGE`` = 1e-8, so on nearly collinear columns (one s
#: per stratum) their values reach 1 / sqrt(FIT_RIDGE) = 1e4 times the output's scale and cancel against it: each
#: term is rounded at about 1e4 eps of that scale (||β||₁ bounds the surrogate's largest value), a factor 10 for
#: the columns that add up, and Σ⁻¹ magnifies an error in Γ by up to 1 / λ_min(Σ).  Measured against an mpmath
#: enumeration (d = 2 to 5, kernel widths 15 to 300, 400 to 50000 calls, about 60 estimates): the error is at most 0.52
#: of this floor, and up to 1e4 times eps ||β||₁ / λ_min: an all-enumerated estimate (d <= 5) otherwise reports a
#: standard error of 0 beside an error of about 1e-10
ROUNDING_UNITS = 1e5
#: smallest spread given to a stratum in Neyman's allocation, relative to the largest
NEYMAN_FLOOR = 0.05
#: the same on a long document (strata binned: more than ``strata.MAX_STRATA`` words) scored on strings whose words
#: are budgeted (``max_words``, explain's default call): a model that saturates (VADER on 1043 tokens, d = 488) has
#: spreads 100 times smaller in the strata that keep most words than in those that keep few, and those strata weigh
#: most and hold the longest strings; a floor of 5% lifted them to about half the masks and the words, and the words
#: bound stopped the calls at 3863 of 5000.  At 1%: 4500 calls, the largest standard error 1.9 -> 1.2 of lime's
#: first-order sd, the median 1.35 -> 0.88 (seed 0).  On a VADER-like function of the same document (x / sqrt(x² +
#: 15), x the kept words' valences in VADER's lexicon) over seeds 1-8: the median standard error 1.48 -> 1.11 of lime's
#: sd (2%: 1.19, 0.3%: 1.06), mean z² 1.02 -> 1.01 against a 300000-call estimate; seeds 10-25 at 1%: 1.05, z² 1.06.
#: The 1% was of the largest spread of one bin, read from a few masks: on VADER one mask where the score flips sign
#: (about 1% of the masks keeping 8% to 38% of the words, 87% of their variance) sets it, and the floor stood above
#: the true spreads of every bin keeping most words, which took half the masks.  With the spreads pooled
#: (``SPREAD_WINDOW``) and the pilot's masks cut (``WORDS_PILOT_PER_STRATUM``), 0.1% (VADER, the 1043-token document,
#: load 8-11): at seeds 0-6 the largest standard error over lime's first-order sd was 1.19, 0.97, 1.43, 1.36, 1.50,
#: 1.77, 1.60 at 1% unpooled (median over the words 0.75-1.38), 1.10, 1.27, 0.87, 1.27, 1.17, 0.99, 1.09 at 0.3% and
#: a window of 2, and 1.07, 1.07, 0.97, 0.97, 1.38, 0.99 at 0.1% and 3 (seeds 0-5, medians 0.83-1.02), every one
#: within lime's 5000 calls and at most 2.45 million of its 2.60 million words
WORDS_NEYMAN_FLOOR = 0.001
#: on such a document Neyman's rule reads each bin's spread pooled with its ``SPREAD_WINDOW`` neighbours on either
#: side (the root mean square): the spread changes smoothly with s, and a bin's own, from a few masks, is mostly chance
SPREAD_WINDOW = 3
#: on such a document a batch after the first is at most this many times the masks so far (doubling): with each
#: batch filling the bins up to Neyman's allocation of all the masks (``allocation.filling``), more of them are
#: allocated from spreads read on more masks (VADER, the 1043-token document, random_state 0-5: the largest standard
#: error over lime's first-order sd, intercept included, 1.125 on average before, 1.051 with filling and doubling,
#: 1.119 growing by half; with the minimax weights too, ``allocation.minimax_spread``, 1.006, and over random_state
#: 0-17 1.055 against 1.181)
WORDS_BATCH_GROWTH = 1.0
#: the pilot's masks per stratum on such a document (4 elsewhere): it only fits the controls, which see the words
#: through a few directions there and take little of such a model's variance, and no term of the estimate comes from
#: it; its masks go to the batches (VADER at 0.3% and a window of 2, seeds 0, 1, 4, 5: the largest standard error
#: 1.10, 1.27, 1.17, 0.99 with 4 a stratum, 1.07, 1.00, 1.11, 1.11 with 2)
WORDS_PILOT_PER_STRATUM = 2
#: the stopping decision reads lime's sd afresh when the ratio to the target, with lime's sd as last read
#: (``estimate_batches.LIME_STD_REFRESH``), is at most this
NEAR_TARGET = 1.25
#: the pilot is at most 1 / PILOT_SHARE of the budget (``estimate_limit(pilot_calls=...)`` above it is capped)
PILOT_SHARE = 10


@dataclass(frozen=True, eq=False)
class LimitEstimate:
    """β estimated by the route, with its standard errors and what was reached.

    Attributes
    ----------
    beta, stderr : ndarray, shape (d + 1,) or (k, d + 1)
        The estimate (intercept first) and its standard errors (one row per output column when the scores have k
        columns).  The standard errors are widened to Student's t with Satterthwaite's degrees of freedom
        (``techniques["dof"]``), so that ±1.96 stderr is a 95% interval however few masks a stratum holds.
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
        What the estimate used (strata, of which ``enumerated_strata`` scored in full, pairs, surrogate link,
        caller's controls, cheap masks, batches), and the
        smallest effective degrees of freedom of a variance (``dof``) with the largest widening it caused
        (``widening``, the factor applied to a standard error).
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
    cheap_calls=False,
    raise_budget=False,
    word_tokens=None,
    max_words=None,
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
        Masks of the pilot batch (None: about a tenth of ``max_calls``, between 4 per stratum and 4000); at most
        a tenth of ``max_calls`` (a larger value is capped: a long pilot leaves the batches too few masks for
        honest standard errors).  None with binned strata and ``max_words``: ``WORDS_PILOT_PER_STRATUM`` a stratum.
    cheap_calls : bool
        True when a model call costs about as much as a mask (rows from counts, a linked reading): the controls
        then use fewer pairs of words and fit on fewer rows per batch, so that the masks, not the fits, are the
        cost.
    raise_budget : bool
        True: a ``max_calls`` below the least the estimate needs (a pilot and two batches, two masks in each
        stratum) is raised to that least instead of refused (explain's default budget, lime's cost, on long
        documents at a small ``num_samples``); the note gives the calls made.  A budget that is lime's cost also
        sizes the surrogate's cheap masks to the variance it leaves, not to a ``tol`` it cannot reach
        (``_refill_cheap``): their CPU time counts against lime's.
    word_tokens : array_like of shape (d,) or None
        The occurrences of each word in the document (:func:`limetheory.engine.tokens.word_occurrences`), so that
        the string of a mask z holds ``z @ word_tokens`` words; given with ``max_words``.
    max_words : float or None
        Most words in all the strings scored (explain's default budget: lime's expected number at
        ``num_samples``, since a model whose cost grows with its string, VADER or a vectorizer, costs lime that
        much).  The batches then favour strata of short strings (Neyman's allocation with each stratum's cost:
        a call and its words, each against its budget) and stop when either budget is spent; the least the
        estimate needs (two batches) is kept.

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
    >>> bool((np.abs(e.beta - exact) <= 5 * e.stderr + 1e-9).all())  # + rounding: 4 of the 5 strata are exact
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
    if not isinstance(cheap_calls, (bool, np.bool_)):
        raise TypeError(f"cheap_calls must be True or False, got {type(cheap_calls).__name__}")
    if (word_tokens is None) != (max_words is None):
        raise ValueError("word_tokens and max_words go together: the words of each mask's string and their budget")
    if word_tokens is not None:
        word_tokens = np.asarray(word_tokens, dtype=float)
        if word_tokens.shape != (d,) or not (np.isfinite(word_tokens).all() and (word_tokens >= 0).all()):
            raise ValueError(f"word_tokens must hold d = {d} non-negative counts, got {word_tokens!r}")
        if isinstance(max_words, bool) or not isinstance(max_words, (int, float, np.integer, np.floating)):
            raise TypeError(f"max_words must be a number, got {type(max_words).__name__}")
        if not 0 < max_words < np.inf:
            raise ValueError(f"max_words must be positive and finite, got {max_words!r}")
    estimator = BatchEstimator(score_masks, d, nu, num_samples, float(tol), budget, rng, progress, controls,
                              surrogate if surrogate != "auto" else "auto", bool(cheap_calls), word_tokens,
                              None if max_words is None else float(max_words))  # fmt: skip
    live = int(estimator.strata.live.sum())
    estimator.lime_cost = bool(raise_budget)
    if estimator.lime_cost and estimator.word_refits:  # the optional work held within a share of lime's own
        estimator.own_work = OwnWork(OWN_WORK_SHARE * lime_own_us(num_samples, d, max_words))
    if budget < 8 * live and raise_budget:  # lime's cost is below the estimate's least: the least, said in the note
        budget = estimator.budget = 8 * live
    if budget < 8 * live:
        raise ValueError(
            f"max_calls must be >= {8 * live} for a document of {d} words (a pilot and two batches with two masks "
            f"in each of the {live} strata), got {budget}"
        )
    sampled = int(estimator.sampled.live.sum())
    pilot = pilot_calls if pilot_calls is not None else int(np.clip(budget // 10, 4 * sampled, 4000))
    # a larger pilot makes the control good on the masks it saw and leaves the batches too few masks to find the
    # ones it misses by much (single masks of the strata with few words kept): at max_calls = 1500 for 8 words, a
    # pilot of half the budget gave mean z² 1.58 over 100 seeds, a tenth 0.98
    pilot = min(check_int(pilot, "pilot_calls", minimum=2), budget // PILOT_SHARE)
    if _words_binned(estimator) and pilot_calls is None:  # a pilot of WORDS_PILOT_PER_STRATUM masks a stratum
        return _run(estimator, WORDS_PILOT_PER_STRATUM * live, WORDS_PILOT_PER_STRATUM)
    return _run(estimator, pilot)


class _NoBar:
    """The progress bar of ``progress=False``: nothing shown, nothing built (a disabled tqdm costs 0.1 ms a call)."""

    def update(self, _):
        pass

    def close(self):
        pass


def _progress_bar(estimator):
    if not estimator.progress:
        return _NoBar()
    from tqdm import TqdmWarning

    with warnings.catch_warnings():  # tqdm.auto warns in a notebook without ipywidgets; its text bar serves
        warnings.simplefilter("ignore", TqdmWarning)
        from tqdm.auto import tqdm

    return tqdm(total=estimator.budget, delay=2.0, unit="call", desc="estimate", leave=False)


def _run(estimator, pilot_size, per_stratum=4):
    start = time.process_time()
    bar = _progress_bar(estimator)
    try:
        counts = estimator.pilot(pilot_size, per_stratum)
        bar.update(estimator.calls)
        spread = estimator.pilot_spread
        target_met = False
        while True:
            remaining = estimator.budget - estimator.calls
            live = int(estimator.sampled.live.sum())
            if estimator.batches == 0:
                size = min(int(counts.sum()), remaining // 2)
            else:
                _refill_cheap(estimator)
                states = estimator.state()
                # near the target, the decision reads lime's sd at this β (between, it is read as calls grow 10%)
                if estimator.batches >= 2 and _ratio(estimator, states) <= NEAR_TARGET:
                    states = estimator.state(fresh=True)
                    if _ratio(estimator, states) <= 1.0:
                        target_met = True
                        break
                # the model's share of the variance must fall to (1 - CHEAP_SHARE) of the target's
                share = max(
                    float(np.max(v / ((1.0 - CHEAP_SHARE) * _target(estimator, b, ls) ** 2)))
                    for b, v, _, ls, *_ in states
                )
                done = estimator.counts.sum()
                size = int(min(max(done * (share - 1.0) * 1.1, 2 * live), max(done, 4 * live) * 4))
                if _words_binned(estimator):  # ``allocation``: growing batches, minimax weights (pooled)
                    size = min(size, int(max(done, 4 * live) * WORDS_BATCH_GROWTH))
                    spread = minimax_spread(estimator, states, SPREAD_WINDOW)
                else:
                    spread = np.mean([s[4] for s in states], axis=0)
            if remaining < 2 * live:
                break
            filled = _words_binned(estimator) and estimator.batches > 0  # ``allocation.filling``
            if filled and remaining - size < 2 * live:  # the last batch: what would be left is below a batch's least
                size = remaining
            size = int(min(size, remaining, estimator.max_batch))
            share = WORDS_NEYMAN_FLOOR if _words_binned(estimator) else NEYMAN_FLOOR
            if _words_binned(estimator) and spread is not None and not filled:  # (minimax_spread pools its own)
                spread = _pooled(spread, SPREAD_WINDOW)
            floor = share * (spread.max() if spread is not None and spread.max() > 0 else 1.0)
            neyman = None if spread is None else np.maximum(spread, floor)
            if estimator.max_words is not None:
                neyman, size = _within_words(estimator, neyman, size, live, filled)
                if size == 0:
                    break
            allocation = filling(estimator, size, neyman) if filled else allocate(estimator.sampled, size, neyman)
            if estimator.word_refits:  # per-word surrogates fitted on every mask so far (``surrogate_average``)
                # while the ledger affords them: a fit of each link on half the masks and one on all (a surrogate
                # adopted before: one on all), two cheap batches
                masks = sum(len(part[0]) for part in estimator.retained)  # the masks the fits read
                fits = sum(1 if c in estimator.word_links else 2 for c in range(len(estimator.columns)))
                afford = estimator.own_work.afford_fit(masks, estimator.d, fits, cheap=2 * max(size, 4 * live))
                new = [a for a in refit_word_surrogates(estimator) if a is not None] if afford else []
            else:
                new = [c.averages[-1] for c in estimator.columns if c.averages] if estimator.batches == 0 else []
            if new:
                estimator.cheap(allocate(estimator.sampled, max(size, 4 * live)), new)  # fits the cheap control
                estimator.cheap(allocate(estimator.sampled, max(size, 4 * live)), new)  # a first average
            estimator.batch(allocation)
            bar.update(int(allocation.sum()))
        if not target_met:  # else ``states`` is already the final state, read fresh
            states = estimator.state(fresh=True)
            target_met = _ratio(estimator, states) <= 1.0
    finally:
        bar.close()
    beta = np.array([s[0] for s in states])
    sampling = np.sqrt(np.array([s[1] + s[2] for s in states]))
    floors = np.array([[_rounding_floor(estimator, s[0])] for s in states])
    stderr = np.maximum(sampling, floors)
    lime_std = np.array([s[3] for s in states])
    seconds = time.process_time() - start
    # the ratio the target reads (lime's standard deviation floored at rounding's level, as _target floors it), so
    # that the sentence never states a ratio above tol beside "met"
    worst = estimator.tol * _ratio(estimator, states)
    if target_met:
        note = (
            f"estimate from {estimator.calls} model calls: the largest standard error is {worst:.2g} x lime's "
            f"standard deviation at n = {estimator.num_samples}, within the target tol = {estimator.tol:g}"
        )
    else:
        note = (
            f"estimate from {estimator.calls} model calls (max_calls = {estimator.budget}, spent before tol was "
            f"met): the largest standard error is {worst:.2g} x lime's standard deviation at n = "
            f"{estimator.num_samples} (tol = {estimator.tol:g}); a larger max_calls buys more precision"
        )
    if estimator.max_words is not None and estimator.words > estimator.max_words:
        note += (
            f"; its strings held {estimator.words:.0f} words in all, more than the {estimator.max_words:.0f} of "
            f"lime's {estimator.num_samples} strings: the least the estimate needs (a pilot and two batches, two "
            "masks in each stratum)"
        )
    elif estimator.words_bound and not target_met:
        note += (
            f"; its strings held {estimator.words:.0f} words in all, against {estimator.max_words:.0f} in lime's "
            f"{estimator.num_samples} strings (a model whose cost grows with its string costs lime that much), "
            "which bound the calls first"
        )
    dof = float(min(np.min(s[5]) for s in states))
    widening = float(stdtrit(dof, 0.975) / Z_975) if np.isfinite(dof) else 1.0  # scipy.stats.t.ppf / norm.ppf
    if widening > 1.01:
        note += (
            f"; standard errors widened by {100 * (widening - 1):.0f}% at most (Student's t with {dof:.1f} degrees "
            f"of freedom: few masks in the strata that carry the variance)"
        )
    floored = int((sampling < floors).sum())
    if floored:
        note += (
            f". {floored} standard error(s) are floored at the estimate's rounding error ({floors.max():.2g}: "
            f"{ROUNDING_UNITS:g} x eps x ||beta||_1 / the smallest eigenvalue of Sigma), above their sampling error"
        )
    squeeze = (lambda a: a[0]) if estimator.k == 1 else (lambda a: a)
    techniques = dict(
        strata=int(estimator.strata.count),
        enumerated_strata=int(estimator.enumerated.sum()),
        pairs=int(estimator.columns[0].design.n_pairs),
        word_features=estimator.columns[0].design.directions is None,
        surrogate=[c.surrogate.link if c.surrogate is not None else None for c in estimator.columns],
        controls=len(estimator.controls),
        cheap_masks=int(estimator.cheap_counts.sum()),
        words=estimator.words if estimator.max_words is not None else None,
        batches=estimator.batches,
        cpu_seconds=seconds,
        dof=dof,
        widening=widening,
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
    """The largest standard error (floored at the rounding error) over its target."""
    return max(
        float(np.max(np.maximum(np.sqrt(v + cv), _rounding_floor(estimator, b)) / _target(estimator, b, ls)))
        for b, v, cv, ls, *_ in states
    )


def _rounding_floor(estimator, beta):
    """The estimate's rounding error: ``ROUNDING_UNITS`` x eps x ||β||₁ / λ_min(Σ) (the constant's comment)."""
    if "smallest_eigenvalue" not in estimator.__dict__:
        estimator.smallest_eigenvalue = float(min(sigma_eigenvalues(estimator.d, nu=estimator.nu)))
    scale = float(np.abs(beta).sum())
    return ROUNDING_UNITS * np.finfo(float).eps * scale / estimator.smallest_eigenvalue


def _words_binned(estimator):
    """Whether the strings' words are budgeted on a document whose strata are bins of s (``WORDS_NEYMAN_FLOOR``)."""
    return estimator.max_words is not None and estimator.strata.count < estimator.d


def _pooled(spread, window):
    """Each bin's spread pooled with its ``window`` neighbours on either side (the root mean square).

    Examples
    --------
    >>> _pooled(np.array([0.0, 0.0, 3.0, 0.0]), 1).round(3).tolist()  # the ends pool the bins they have
    [0.0, 1.732, 1.732, 2.121]
    """
    ones = np.ones(2 * window + 1)
    return np.sqrt(np.convolve(spread**2, ones, "same") / np.convolve(np.ones(len(spread)), ones, "same"))


def _within_words(estimator, neyman, size, live, filled=False):
    """(Neyman's spreads over the root of each stratum's cost, the batch size whose strings fit the words left).

    A mask of stratum b costs a call, 1 / max_calls of that budget, and its string's expected words, w_b / max_words
    of the other: Neyman's allocation with costs puts n_b in proportion to W_b σ_b / sqrt(c_b).  The first batch
    takes at most half the words left (as it takes at most half the calls left); 0 once the words are spent after
    two batches (before, the least the estimate needs: two masks in each stratum).
    """
    words = estimator.bin_words()
    cost = 1.0 / estimator.budget + words / estimator.max_words
    neyman = (estimator.strata.weight > 0).astype(float) if neyman is None else neyman
    neyman = neyman / np.sqrt(cost)
    allocation = filling(estimator, size, neyman) if filled else allocate(estimator.sampled, size, neyman)
    left = estimator.max_words - estimator.words
    if estimator.batches == 0:
        left /= 2
    per_mask = float(allocation @ words) / max(int(allocation.sum()), 1)
    fits = int(left / per_mask) if per_mask > 0 else size
    if fits >= size:
        return neyman, size
    estimator.words_bound = True
    if fits < 2 * live and estimator.batches >= 2:
        return neyman, 0
    return neyman, max(fits, 2 * live)


def _refill_cheap(estimator):
    """Draw cheap masks (the model is not called) until the surrogate's average is a small share of the variance.

    The share is ``CHEAP_SHARE`` of the target's variance; when the budget is lime's cost (``raise_budget``),
    ``LIME_COST_CHEAP_SHARE`` of the larger variance the model's calls will leave if the budget ends first (the
    current one times the batches' masks so far over those the budget allows): a target that lime's cost cannot
    reach must not buy cheap masks by the hundred thousand (VADER on 39 words: 250000 cheap masks, 40% of the CPU
    time of its 5000 calls, for 1.5% of a standard error).  A budget asked for (``tol``, ``max_calls``) keeps buying
    them up to ``MAX_CHEAP_PER_CALL`` per call: there they are the cheaper way to the precision asked.  At lime's
    cost, after the first average, the masks go to the strata by Neyman's rule on the spread of the surrogate's terms
    (times its coefficient), as the model's masks do (VADER on 39 words: 10-40% fewer for the same variance).
    """
    if not any(c.averages for c in estimator.columns):
        return
    cap = MAX_CHEAP_PER_CALL * estimator.calls
    if estimator.word_refits:  # the optional work's ledger (``own_work``): no more cheap masks than it holds
        cap = min(cap, float(estimator.cheap_counts.sum()) + estimator.own_work.cheap_masks_left(estimator.d))
    done = float(estimator.counts.sum())
    left = max(estimator.budget - estimator.calls, 0)
    if estimator.max_words is not None and estimator.words > 0:
        left = min(left, max(estimator.max_words - estimator.words, 0.0) * estimator.calls / estimator.words)
    # the model's variance at the end over its variance now (0: the target's variance alone, as asked)
    final = done / (done + left) if done > 0 and estimator.lime_cost else 0.0
    share = LIME_COST_CHEAP_SHARE if estimator.lime_cost else CHEAP_SHARE
    if estimator.word_refits:  # a cheap mask costs some 1000 times less than a call of a model on a long string
        share = min(share, WORD_CHEAP_SHARE)
    n = np.maximum(estimator.counts, 1)
    for _ in range(8):
        need, chosen = 0.0, []
        for column, (b, v, cv, ls, *_) in zip(estimator.columns, estimator.state(), strict=True):
            if column.averages:
                floor = share * np.maximum(_target(estimator, b, ls) ** 2, final * v)
                need = max(need, float(np.max(cv / floor)))
                # the masks go to the surrogate (of those this column used) whose average leaves the most variance
                parts = [float(np.max(a.part(estimator.strata.weight, n)[1] / floor)) for a in column.averages]
                chosen.append(column.averages[int(np.argmax(parts))])
        have = max(float(a.counts.sum()) for a in chosen)
        if (need <= 1.0 and have > 0) or estimator.cheap_counts.sum() >= cap:
            return
        size = int(
            min(max(have * (need - 1.0) * 1.2, 4 * estimator.sampled.live.sum()), cap - estimator.cheap_counts.sum(),
                estimator.max_batch)
        )  # fmt: skip
        spread = _cheap_spread(estimator, chosen) if estimator.lime_cost else None
        estimator.cheap(allocate(estimator.sampled, size, spread), chosen)


def _cheap_spread(estimator, averages):
    """Each stratum's spread of the ``averages``' cheap terms times their coefficients (floored), for Neyman's rule."""
    n = np.maximum(estimator.counts, 1)
    spread = np.zeros(estimator.strata.count)
    for average in averages:
        coefficient = np.abs(average.coefficient_sum / n)
        spread = np.maximum(spread, coefficient * np.sqrt(average.bin_variance().mean(axis=1)))
    if not spread.max() > 0:
        return None
    return np.maximum(spread, NEYMAN_FLOOR * spread.max())
