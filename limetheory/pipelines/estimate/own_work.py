"""The estimate's own work on a long document scored on strings, held within lime's own work by a fixed work model.

By default ``explain`` costs at most one lime run.  On strings that bound is lime's number of calls and the words of
lime's strings (:func:`limetheory.pipelines.estimate.estimate_route.lime_words`): a model's time grows with both,
whatever the model.  The estimate's own work is the other half of the bound.  Drawing the masks, building their
strings and the controls cost about what lime's own work costs per sample (its strings, distances and ridge).  The
per-word surrogates (:mod:`limetheory.pipelines.estimate.surrogate_average`) cost more: their Gauss-Newton fits on
every mask so far and the cheap masks that average their Γ.  On an expensive model (VADER) they are a small share
of the call and buy a fifth of the standard errors; on a cheap one (a keyword count) they cost twice lime's whole
run.

:class:`OwnWork` is a ledger of that optional work in modelled CPU microseconds, charged by what was done (the
Gram matrices a fit computed, the cheap masks drawn), never by a clock: the same call gives the same answer on any
machine and load.  Its allowance is a share of lime's own work, modelled the same way (:func:`lime_own_us`), so
that the estimate's own work stays below lime's whatever the model costs; once spent, the estimate keeps the
surrogate it has (any surrogate keeps the estimate unbiased) and draws no more cheap masks than the ledger allows
(the cheap average's variance is in the standard errors, which say what precision was reached).

The constants were measured by ``benchmarks/own_work.py``, each rounded to the safe side (lime's work down, the
estimate's up).
"""

from __future__ import annotations

#: lime's own CPU microseconds (the classifier aside) per sample, per word of its strings and per sample and word of
#: the document (its distances and the ridge of its ``highest_weights`` selection, a dense n x d least squares):
#: ``benchmarks/own_work.py`` fitted 50.8, 0.615, 0.021 and then 29.7, 0.362, 0.122 (two runs, load 0.4 and 1.3: the
#: machine's speed moves by a third between runs), on lime with a classifier_fn of negligible cost at d = 39 to 908;
#: rounded down so that the model is below lime's time at every d of the faster run (0.80 to 0.97 of it)
LIME_OWN_US_PER_SAMPLE, LIME_OWN_US_PER_WORD, LIME_OWN_US_PER_SAMPLE_WORD = 25.0, 0.33, 0.1
#: a Gram matrix of the per-word fit costs this many microseconds per mask and squared column ((d + 3)² of them,
#: BLAS's symmetric product), per mask and column (the products with the masks, the link, the step's trials) and per
#: cubed column (the Cholesky factor of the (d + 3)² matrix) and per Gram matrix (numpy's calls and temporaries); a
#: cheap mask this per word of the document (drawing it, the surrogate's value, its control, the sums).
#: ``benchmarks/own_work.py`` fitted 1.5e-5, 0.012, 2.0e-5 and 0 (d = 200 to 900, 250 to 8000 masks, load 2; before
#: the last two terms 3.5e-5 and 0.0037, then 2.7e-5 and 0.0032 at load 0.4 and 1.3), a cheap mask 0.014 to 0.025
#: (d = 317 to 908); rounded up, so that the model is at least the measured time but at a few points (by at most 20%)
FIT_US_PER_MASK_COLUMN2, FIT_US_PER_MASK_COLUMN, FIT_US_PER_COLUMN3, FIT_US_PER_GRAM = 3.6e-5, 0.006, 3e-5, 1000.0
CHEAP_US_PER_MASK_WORD = 0.03
#: a refit's work besides its fits, per mask and word: the polynomial design's features on every mask, the
#: surrogates' values, the held-out comparison's two least-squares fits (3 to 7 ms of refits on 320 to 3745 masks at
#: d = 488, VADER's long document: 0.002 to 0.005)
REFIT_US_PER_MASK_WORD = 0.01
#: Gram matrices a fit is assumed to take before it runs (the ledger charges what it took): 6 to 8 at d = 200 to 900
#: in ``benchmarks/own_work.py``, 7 on VADER's long document (``word_surrogate.TOLERANCE``)
PREDICTED_GRAMS = 8
#: the share of lime's own work the optional work may take: the estimate's necessary work (masks, strings, controls,
#: sums) takes most of the rest, 0.58 s on the keyword count's long document where lime's own took 1.26 to 1.73 s
#: (0.34 to 0.46 of it): on a model that costs nothing, the two sides' own work is about even
OWN_WORK_SHARE = 0.5
#: the share of the allowance the refits may take (their cheap masks' first batches included): the rest is left to
#: the cheap masks, since a surrogate whose Γ is averaged over too few of them adds their variance to every
#: standard error (the keyword count's long document: a refit that left none took the largest standard error from
#: 0.8 to 1.4 of lime's sd).  VADER's long document at random_state 0: 1.1 at 0.5 (no surrogate adopted: the one
#: refit afforded came on 320 masks, too few), 0.8 at 0.7 (one adopted on 640 masks)
FIT_SHARE = 0.7


def lime_own_us(num_samples, d, words):
    """lime's own CPU microseconds at ``num_samples`` on a document of ``d`` words, ``words`` in all its strings.

    Examples
    --------
    >>> round(lime_own_us(5000, 488, 2.62e6) / 1e6, 2)  # seconds: the keyword count's long document
    1.23
    """
    return (LIME_OWN_US_PER_SAMPLE + LIME_OWN_US_PER_SAMPLE_WORD * d) * num_samples + LIME_OWN_US_PER_WORD * words


def fit_us(grams, masks, d):
    """Modelled microseconds of a per-word fit that computed ``grams`` Gram matrices of ``masks`` masks.

    Examples
    --------
    >>> round(fit_us(8, 4000, 488) / 1e6, 2)  # seconds
    0.41
    """
    k = d + 3
    per_gram = masks * (FIT_US_PER_MASK_COLUMN2 * k * k + FIT_US_PER_MASK_COLUMN * k) + FIT_US_PER_COLUMN3 * k**3
    return grams * (per_gram + FIT_US_PER_GRAM)


class OwnWork:
    """The ledger of the estimate's optional work: spent and allowed, in modelled CPU microseconds.

    Parameters
    ----------
    allowance : float
        The microseconds the optional work may take (``inf``: no bound, a budget the caller asked for).

    Examples
    --------
    >>> ledger = OwnWork(1e6)  # one second
    >>> ledger.afford_fit(masks=1000, d=488, fits=2)  # two fits of eight Grams (0.26 s) and the refit's work
    True
    >>> ledger.afford_fit(masks=4000, d=488, fits=2)  # 0.82 s and more: beyond FIT_SHARE of the allowance
    False
    >>> ledger.cheap(10000, 488)
    >>> round(ledger.spent), ledger.cheap_masks_left(488)
    (146400, 58306)
    """

    def __init__(self, allowance):
        if not allowance >= 0:
            raise ValueError(f"allowance must be nonnegative, got {allowance!r}")
        self.allowance, self.spent = float(allowance), 0.0

    def fit(self, grams, masks, d):
        """Charge a fit of ``grams`` Gram matrices on ``masks`` masks of ``d`` words."""
        self.spent += fit_us(grams, masks, d)

    def refit(self, masks, d):
        """Charge a refit's work besides its fits, on ``masks`` masks of ``d`` words."""
        self.spent += REFIT_US_PER_MASK_WORD * masks * d

    def cheap(self, masks, d):
        """Charge ``masks`` cheap masks of ``d`` words."""
        self.spent += CHEAP_US_PER_MASK_WORD * masks * d

    def afford_fit(self, masks, d, fits, cheap=0):
        """Whether ``fits`` fits on ``masks`` masks (``PREDICTED_GRAMS`` each) and ``cheap`` cheap masks fit."""
        need = (
            fits * fit_us(PREDICTED_GRAMS, masks, d)
            + (REFIT_US_PER_MASK_WORD * masks + CHEAP_US_PER_MASK_WORD * cheap) * d
        )
        return self.spent + need <= FIT_SHARE * self.allowance

    def cheap_masks_left(self, d):
        """The cheap masks of ``d`` words the allowance still holds."""
        left = self.allowance - self.spent
        return int(max(left, 0.0) // (CHEAP_US_PER_MASK_WORD * d)) if left < float("inf") else 2**62
