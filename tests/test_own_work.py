"""The ledger of the estimate's own work on long string documents (``limetheory.pipelines.estimate.own_work``,
issue 37): its arithmetic against the work model written out, its bound on a default call, the work it charges.
"""

from __future__ import annotations

import numpy as np
import pytest

from limetheory.pipelines.estimate import limit_estimate, own_work, surrogate_average, word_surrogate
from limetheory.pipelines.estimate.limit_estimate import estimate_limit
from limetheory.pipelines.estimate.own_work import OwnWork, fit_us, lime_own_us
from limetheory.pipelines.estimate.word_surrogate import fit_word_surrogate


def test_lime_own_work_is_the_model_written_out():
    """a n + b words + c n d, the constants read from the module, at three documents."""
    for n, d, words in [(5000, 488, 2.62e6), (2000, 39, 1.0e5), (100, 900, 4.0e4)]:
        expected = (own_work.LIME_OWN_US_PER_SAMPLE * n + own_work.LIME_OWN_US_PER_WORD * words
                    + own_work.LIME_OWN_US_PER_SAMPLE_WORD * n * d)  # fmt: skip
        assert lime_own_us(n, d, words) == pytest.approx(expected, rel=4e-16)  # tol: three products and sums


def test_a_fits_work_is_grams_times_masks_times_columns():
    """Per Gram matrix: masks x (columns² and columns) terms, a columns³ term (its Cholesky factor) and a constant."""
    k = 488 + 3
    per_gram = (3000 * (own_work.FIT_US_PER_MASK_COLUMN2 * k * k + own_work.FIT_US_PER_MASK_COLUMN * k)
                + own_work.FIT_US_PER_COLUMN3 * k**3 + own_work.FIT_US_PER_GRAM)  # fmt: skip
    assert fit_us(5, 3000, 488) == pytest.approx(5 * per_gram, rel=1e-15)  # tol: the same sums, in another order
    assert fit_us(0, 3000, 488) == 0.0


def test_the_ledger_charges_and_bounds():
    """Charges add up; a fit is afforded within ``FIT_SHARE`` of the allowance only; the cheap masks left are the
    allowance's rest over a cheap mask's cost, rounded down; an infinite allowance affords everything."""
    ledger = OwnWork(1e6)
    ledger.fit(3, 1000, 100)
    ledger.refit(1000, 100)
    ledger.cheap(500, 100)
    spent = (
        fit_us(3, 1000, 100)
        + own_work.REFIT_US_PER_MASK_WORD * 1000 * 100
        + own_work.CHEAP_US_PER_MASK_WORD * 500 * 100
    )
    assert ledger.spent == pytest.approx(spent, rel=1e-15)  # tol: three sums
    left = (1e6 - spent) / (own_work.CHEAP_US_PER_MASK_WORD * 100)
    assert ledger.cheap_masks_left(100) == int(left)
    need = 2 * fit_us(own_work.PREDICTED_GRAMS, 1000, 100) + own_work.REFIT_US_PER_MASK_WORD * 1000 * 100
    assert ledger.afford_fit(1000, 100, 2) == (spent + need <= own_work.FIT_SHARE * 1e6)
    ledger.cheap(10**9, 100)
    assert ledger.cheap_masks_left(100) == 0 and not ledger.afford_fit(10, 100, 1)
    unbounded = OwnWork(np.inf)
    unbounded.cheap(10**9, 1000)
    assert unbounded.afford_fit(20000, 1000, 4, cheap=10**6) and unbounded.cheap_masks_left(1000) > 10**15
    with pytest.raises(ValueError, match="allowance"):
        OwnWork(-1.0)


def _keyword_like(d=400):
    """A keyword count of d words (10% positive, 10% negative): [1 - p, p], p the logistic of their difference;
    one occurrence each, lime's strings at n = 5000 holding half the words."""
    rng = np.random.default_rng(2)
    sign = np.where(rng.random(d) < 0.1, 1.0, 0.0) - np.where(rng.random(d) < 0.1, 1.0, 0.0)

    def score(z):
        return 1.0 / (1.0 + np.exp(-(z @ sign - sign.sum() / 2)))

    return score, np.ones(d), 0.5 * 5000 * d


def test_the_default_call_holds_its_own_work_within_the_ledger(monkeypatch):
    """At lime's cost on strings the optional work (fits, refits, cheap masks) stays within the allowance, a share
    of lime's modelled own work; given ``tol`` and ``max_calls`` (a budget asked for) the ledger is unbounded."""
    score, tokens, max_words = _keyword_like()
    d = len(tokens)
    ledgers = []
    original = limit_estimate.refit_word_surrogates

    def watched(estimator):
        ledgers.append(estimator.own_work)
        return original(estimator)

    monkeypatch.setattr(limit_estimate, "refit_word_surrogates", watched)
    estimate_limit(score, d, nu=0.25, num_samples=5000, max_calls=5000, random_state=0, progress=False,
                   raise_budget=True, word_tokens=tokens, max_words=max_words)  # fmt: skip
    assert ledgers, "no refit was afforded"
    ledger = ledgers[-1]
    allowance = own_work.OWN_WORK_SHARE * lime_own_us(5000, d, max_words)
    assert ledger.allowance == pytest.approx(allowance, rel=1e-15)  # tol: one product
    assert 0 < ledger.spent <= ledger.allowance
    ledgers.clear()
    estimate_limit(score, d, nu=0.25, num_samples=5000, max_calls=4000, tol=0.5, random_state=0, progress=False,
                   word_tokens=tokens, max_words=max_words)  # fmt: skip
    assert ledgers and all(ledger.allowance == np.inf for ledger in ledgers)


def test_a_fit_counts_its_gram_matrices(monkeypatch):
    """``grams``, the work the ledger charges, is the number of Gram matrices the fit computed."""
    computed = []
    original = word_surrogate._gram

    def counted(x, weights, out):
        computed.append(len(x))
        return original(x, weights, out)

    monkeypatch.setattr(word_surrogate, "_gram", counted)
    rng = np.random.default_rng(5)
    d, m = 60, 800
    sizes = rng.integers(1, d + 1, m)
    z = rng.random((m, d)).argsort(axis=1) >= sizes[:, None]
    a = rng.normal(0, 0.5, d)
    f = np.clip(1 / (1 + np.exp(-(z @ a - a.sum() / 2))) + 0.02 * rng.normal(size=m), 0.001, 0.999)
    for tolerance in (1e-3, 1e-9):
        computed.clear()
        fitted = fit_word_surrogate(z, sizes, f, np.ones(m), "logit", 0.1, tolerance=tolerance)
        assert fitted.grams == len(computed) >= 2 and set(computed) == {m}


def test_an_adopted_surrogate_is_refitted_once_on_every_mask(monkeypatch):
    """Unbounded (``OWN_WORK_SHARE`` infinite): before a surrogate is adopted, each refit fits half the masks then
    all of them; after, one fit on all the masks retained, with the adopted link."""
    monkeypatch.setattr(limit_estimate, "OWN_WORK_SHARE", np.inf)
    fits, refits = [], []
    original_fit, original_refit = surrogate_average.fit_word_surrogate, limit_estimate.refit_word_surrogates

    def fit(z, sizes, f, weights, link, ridge):
        fits.append((len(z), link))
        return original_fit(z, sizes, f, weights, link, ridge)

    def refit(estimator):
        fits.clear()
        added = original_refit(estimator)
        refits.append((sum(len(part[0]) for part in estimator.retained), list(fits), dict(estimator.word_links)))
        return added

    monkeypatch.setattr(surrogate_average, "fit_word_surrogate", fit)
    monkeypatch.setattr(limit_estimate, "refit_word_surrogates", refit)
    score, tokens, max_words = _keyword_like()
    estimate_limit(score, len(tokens), nu=0.25, num_samples=5000, max_calls=5000, random_state=0, progress=False,
                   raise_budget=True, word_tokens=tokens, max_words=max_words)  # fmt: skip
    adopted = [i for i, (_, _, links) in enumerate(refits) if links]
    assert adopted and adopted[0] < len(refits) - 1, refits
    for masks, called, links in refits[adopted[0] + 1 :]:
        assert called == [(masks, links[0])]
