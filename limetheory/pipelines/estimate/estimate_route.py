"""The estimate route of :func:`limetheory.explain`: which masks-to-scores function it uses, and its budget.

By default (``explain`` given neither ``tol`` nor ``max_calls``) the estimate costs at most one lime run: lime's
``num_samples`` model calls, on lime's strings (holding no more words in all than lime's: :func:`lime_words`; the
estimate's optional work beside the calls, the per-word surrogates of a long document, held within half of lime's
own work: :mod:`limetheory.pipelines.estimate.own_work`) or, for a pipeline whose first step is a Count, Tfidf or
Hashing vectorizer, on rows from the document's counts (:mod:`limetheory.pipelines.reading.count_rows`), which cost
less than lime's string, vectorizer and row; for a scikit-learn tree model, as many rows as take ``1 / ROWS_SAFETY``
of lime's time by a fixed work model of both sides and of the trees' time per row (:func:`rows_budget`,
:mod:`limetheory.pipelines.estimate.work_model`; a random forest's or extra trees' rows are scored by the package's
compiled walk, their ``predict_proba`` bit for bit at a fraction of its time:
:mod:`limetheory.pipelines.reading.forest_walk`). The linked reading of a logistic regression's probabilities is
cheap and near-exact: it spends up to about half of lime's time (:func:`linked_budget`, a fixed work model; on
documents of a few hundred words tol = 0.1 took more than lime's whole run) and usually stops at ``tol`` first. With
``tol`` or ``max_calls`` given, the budget is that large one for rows and ten lime runs' worth on strings
(:data:`limetheory.pipelines.estimate.limit_estimate.DEFAULT_CALLS_PER_LIME_RUN`); the notes say what precision was
reached.
"""

from __future__ import annotations

import numpy as np

from ...engine.tokens import word_occurrences
from ..reading.count_rows import count_score_masks
from ..reading.forest_walk import pipeline_forest_walk, walks
from . import work_model
from .limit_estimate import DEFAULT_CALLS_PER_LIME_RUN, estimate_limit
from .own_work import OWN_WORK_SHARE, lime_own_us
from .work_model import classifier_costs, lime_row_costs, row_costs, walk_costs

#: model calls by default when the rows come from counts, in lime runs of ``num_samples``
COUNT_CALLS_PER_LIME_RUN = 200
#: the pilot's masks when rows come from counts or a linked reading: a quarter of the general default of 4000 (the
#: fits improve over the batches, and a cheap model needs no long pilot; with the index's powers among the controls,
#: ten 26-38-word reviews took 142900 calls in all after a pilot of 1000 and 141200 after 2000).  Never
#: more than a tenth of the budget, as the general rule (``estimate.PILOT_SHARE``: a longer pilot leaves the batches
#: too few masks in the strata that carry the variance, and their standard errors came out too small)
COUNT_PILOT_CALLS = 1000
#: the work model of :func:`linked_budget`, in CPU microseconds on the machine the README names: lime per sample and
#: per word of its strings (a TF-IDF logistic regression's predict_proba, 40 to 830 distinct words), the linked
#: estimate's marginal cost per mask; ``benchmarks/linked_budget.py`` fitted 0-68 and 1.38-1.59, then 0, 0.003-0.028
#: and 3.7e-5-6.4e-5 in three runs at load 5-5.6.  The constants are rounded so that the model's lime / mask ratio
#: (19-38) stays below every ratio measured (31-63 in the last run, d = 49..830): it never gives lime more time
#: than it took, before the halving
LIME_US_PER_SAMPLE, LIME_US_PER_WORD = 60.0, 1.3
LINKED_US_PER_MASK, LINKED_US_PER_WORD, LINKED_US_PER_WORD2 = 1.0, 0.03, 6.5e-5
#: the share of lime's time the default linked estimate may spend, inverted: it must never be slower than lime
LINKED_SAFETY = 2.0
#: lime's default num_samples: the precision target is set against lime at this n unless told otherwise
LIME_NUM_SAMPLES = 5000
#: the work model of :func:`rows_budget`: the estimate's CPU microseconds per mask on rows from counts, the classifier
#: aside (the row from counts, about half the document's columns, and the estimate's own work on the mask), as
#: ``ROWS_US_PER_MASK + ROWS_US_PER_WORD d + ROWS_US_PER_WORD2 d²``.  ``benchmarks/row_budget.py`` fitted 0, 0.053 and
#: 9.2e-5 (a decision tree's rows, its own time per row taken off; d = 39..488 at load 3.7 on two cores, 0.1 to
#: 48 us a mask), rounded up so that the model is above every mask's measured cost (9.5 against 9.4 at d = 107, 55
#: against 48 at d = 488): an estimate made dearer gets fewer masks
ROWS_US_PER_MASK, ROWS_US_PER_WORD, ROWS_US_PER_WORD2 = 2.0, 0.06, 1.0e-4
#: the share of lime's modelled time the default estimate on rows from counts may spend, inverted: it is never slower
#: than lime while the work model errs by less than this factor.  At 1.5, ``benchmarks/row_budget.py`` and
#: ``default_call.py`` measured 1.28x to 1.87x lime's CPU time on forests, extra trees, a tree and a boosting at d = 39
#: and 488 (loads 3.7 to 5.4: lime's own time moves by 20% between runs); 1.75 keeps about 1.5x in the worst of them
#: and the 100-tree forest on the 488-word document below lime's standard deviation (0.80 of it at 1.5)
ROWS_SAFETY = 1.75
#: a linear classifier's rows at lime's cost take the estimate's words path (its surrogate, its cheap masks and
#: refits: the estimate's own work), each mask's words counted so that the budget's masks hold 1 / this of the bound:
#: the words bound never stops the calls on rows
ROWS_WORDS_MARGIN = 1.25
#: the share of lime's modelled time the estimate's own work may take on a linear classifier's rows (its allowance,
#: ``own_work``, set through the words bound), beside the masks' ``1 / ROWS_SAFETY``: at most 0.97 of lime's modelled
#: time in all, which is below lime's measured time (0.6 to 0.9 of it for the bigram and char_wb pipelines).  On the
#: bigram pipeline's long document the allowance at lime's own words (0.5 of lime's own work) left the largest
#: standard error at 0.99 of lime's sd, five times it at 0.67 (16800 masks)
ROWS_OWN_SHARE = 0.4


def linked_budget(num_samples, d, words):
    """Masks of the linked reading that cost about half of one lime run at ``num_samples`` (explain's default).

    A deterministic work model, not a clock (the same call gives the same answer on any machine and load): lime
    spends ``LIME_US_PER_SAMPLE`` per sample (its mask, distance, row, model call and ridge share) and
    ``LIME_US_PER_WORD`` per word of its strings (``words`` in all: :func:`lime_words`; building each string and
    the vectorizer reading it); the estimate with a linked reading spends
    ``LINKED_US_PER_MASK + LINKED_US_PER_WORD d + LINKED_US_PER_WORD2 d²`` per mask (drawing it, the reading, the
    controls, the per-stratum sums; the d² is the strata's moments and lime's spread, read again as masks grow).
    ``benchmarks/linked_budget.py`` measures both.  The ratio is divided by ``LINKED_SAFETY`` and kept between one
    and :data:`COUNT_CALLS_PER_LIME_RUN` lime runs' worth of calls.

    Examples
    --------
    >>> linked_budget(5000, 39, lime_words("word " * 60, 5000)[1]) > 5000  # more masks than lime's samples
    True
    """
    lime_us = LIME_US_PER_SAMPLE * num_samples + LIME_US_PER_WORD * words
    mask_us = LINKED_US_PER_MASK + LINKED_US_PER_WORD * d + LINKED_US_PER_WORD2 * d * d
    ratio = lime_us / num_samples / mask_us / LINKED_SAFETY
    return int(num_samples * min(max(ratio, 1.0), COUNT_CALLS_PER_LIME_RUN))


def rows_budget(model, num_samples, d, words, columns, walked=None, row_us=0.0, lime_row_us=0.0):
    """Masks on rows from counts that cost about ``1 / ROWS_SAFETY`` of one lime run (explain's default).

    lime's number of calls ``num_samples`` when the work model does not know the classifier.

    A deterministic work model, not a clock (the same call gives the same answer on any machine and load), as
    :func:`linked_budget`: lime spends ``LIME_US_PER_SAMPLE`` per sample and ``LIME_US_PER_WORD`` per word of its
    strings, and the classifier's time on its rows; the estimate spends ``ROWS_US_PER_MASK + ROWS_US_PER_WORD d +
    ROWS_US_PER_WORD2 d²`` per mask and the classifier's time on each mask's row.  The classifier's time is known for
    a pipeline of a vectorizer and one scikit-learn tree model
    (:func:`limetheory.pipelines.estimate.work_model.classifier_costs`); on the estimate's side a random forest's or
    extra trees' rows are walked by the package (``walked``, None: whenever
    :func:`limetheory.pipelines.reading.forest_walk.walks` says the estimate walks them), at the walk's cost
    (:func:`limetheory.pipelines.estimate.work_model.walk_costs`), while lime calls the forest's own
    ``predict_proba``.  ``benchmarks/row_budget.py`` measures every constant.  The masks are kept between one and
    :data:`COUNT_CALLS_PER_LIME_RUN` lime runs' worth of calls.  ``row_us``: the row's own microseconds per mask
    beyond a unigram row's (an n-gram row: :func:`limetheory.pipelines.estimate.work_model.row_costs`);
    ``lime_row_us``: lime's beyond its per-word cost (a ``char_wb`` vectorizer: ``work_model.lime_row_costs``).

    Examples
    --------
    >>> from sklearn.ensemble import RandomForestClassifier
    >>> from sklearn.feature_extraction.text import TfidfVectorizer
    >>> from sklearn.pipeline import make_pipeline
    >>> docs = ["good food", "bad food", "good service", "bad service"]
    >>> forest = make_pipeline(TfidfVectorizer(), RandomForestClassifier(10, random_state=0)).fit(docs, [1, 0, 1, 0])
    >>> text = "good food and good wine but the slow service " * 20
    >>> rows_budget(forest, 5000, 9, lime_words(text, 5000)[1], 3) > 5000  # more masks than lime's samples
    True
    >>> rows_budget(lambda docs: None, 5000, 9, lime_words(text, 5000)[1], 3)  # an unknown model: lime's calls
    5000
    """
    from sklearn.pipeline import Pipeline

    known = isinstance(model, Pipeline) and len(model.steps) == 2
    costs = classifier_costs(model.steps[-1][1]) if known else None
    if costs is None:
        return num_samples
    # lime calls the forest's own predict_proba; the estimate its walk when it scores the rows with it
    walked = walks(model, "predict_proba") if walked is None else walked
    ours = walk_costs(model.steps[-1][1]) if walked else costs
    lime_us = LIME_US_PER_SAMPLE * num_samples + LIME_US_PER_WORD * words + lime_row_us
    mask_us = ROWS_US_PER_MASK + ROWS_US_PER_WORD * d + ROWS_US_PER_WORD2 * d * d + row_us
    return work_model.rows_budget(lime_us, num_samples, columns, mask_us, costs, ROWS_SAFETY,
                                  COUNT_CALLS_PER_LIME_RUN * num_samples, ours=ours)  # fmt: skip


def _rows_words(text, d, num_samples, budget, document):
    """(each word's occurrences as counted, the words bound) for a linear classifier's rows on the words path.

    The bound is the words at which the estimate's own work is allowed ``ROWS_OWN_SHARE`` of lime's modelled time
    (``own_work``: ``OWN_WORK_SHARE x lime_own_us``, linear in the words); each word's occurrences are scaled so that
    the budget's masks hold ``1 / ROWS_WORDS_MARGIN`` of it, a mask's words still in proportion to its kept tokens.
    """
    occurrences, words = lime_words(text, num_samples)
    lime_us = LIME_US_PER_SAMPLE * num_samples + LIME_US_PER_WORD * words + lime_row_costs(document, words)
    base = lime_own_us(num_samples, d, 0.0)
    per_word = lime_own_us(num_samples, d, 1.0) - base
    bound = max(words, (ROWS_OWN_SHARE * lime_us / OWN_WORK_SHARE - base) / per_word)
    return occurrences * (bound / (ROWS_WORDS_MARGIN * budget * words / num_samples)), bound


def lime_words(text, num_samples):
    """(each word's occurrences, the words lime's strings hold in all at ``num_samples``, in expectation).

    lime's first string is the document (T words); each of the others removes s distinct words, s uniform on
    1..d, so each word is kept with probability 1 - E[s] / d = (d - 1) / (2d): T (1 + (n - 1)(d - 1) / (2d)) words.

    Examples
    --------
    >>> occurrences, words = lime_words("good food, good wine", 5000)
    >>> occurrences.tolist(), words  # T = 4, d = 3: each string keeps a third of the words
    ([2, 1, 1], 6669.333333333333)
    """
    occurrences = word_occurrences(text)
    d, total = len(occurrences), float(occurrences.sum())
    return occurrences, total * (1.0 + (num_samples - 1) * (d - 1) / (2.0 * d))


def _columns(output):
    """Raw outputs of the pipeline's rest -> (m, k) columns, as explain reads them."""

    def shape(values):
        if values.ndim == 1:
            return np.column_stack([-values, values]) if output == "decision_function" else values[:, None]
        return values

    return shape


def estimate_explanation(model, text, output, label, nu, mask_fn, d, *, mode=None, num_samples=None, tol=0.1,
                         max_calls=None, random_state=0, progress=True, controls=(), linked=None,
                         lime_cost=False):  # fmt: skip
    """(LimitEstimate, the masks -> scores function used, a note on the rows) for :func:`limetheory.explain`.

    ``mask_fn`` scores masks on lime's strings; it is replaced by ``linked`` (masks -> every output column, a
    logistic regression's probabilities from its checked linear reading:
    :mod:`limetheory.pipelines.reading.linked_reading`) when given, else by scores from counts when the pipeline allows
    (lime's default word mode only: ``mode`` None).
    """
    lime_n = LIME_NUM_SAMPLES if num_samples is None else num_samples
    walk = None
    if linked is not None:
        score, reason = linked, None
        rows = "the link of its linear reading (no row built; checked against the pipeline on lime's strings)"
    else:
        # a random forest's or extra trees' rows walked in one compiled pass, equal to its predict_proba to the bit
        walk = None if mode is not None else pipeline_forest_walk(model, output)
        score, reason = (
            (None, "another text mode")
            if mode is not None
            else count_score_masks(model, text, output, _columns(output), method=walk)
        )
        rows = "rows from the document's counts (no string built)"
    if score is not None:
        per_run = COUNT_CALLS_PER_LIME_RUN

        def scores(z):
            return score(z)[:, label]
    else:
        per_run, rows = DEFAULT_CALLS_PER_LIME_RUN, f"lime's perturbed strings ({reason})"
        scores = mask_fn
    if max_calls is not None:
        budget = max_calls
    elif lime_cost and linked is None and score is None:  # lime's cost on strings: its number of calls (and words)
        budget = lime_n
    elif lime_cost and linked is None:
        # lime's cost on rows from counts: lime's time by the work model where it knows the classifier (a row from
        # counts costs less than lime's string, vectorizer and row), else lime's number of calls
        words = lime_words(text, lime_n)[1]
        budget = rows_budget(model, lime_n, d, words, score.columns, walked=walk is not None,
                             row_us=row_costs(score.document),
                             lime_row_us=lime_row_costs(score.document, words))  # fmt: skip
    elif lime_cost:  # a linked reading: as many masks as take the time of lime's run (stops at tol before)
        budget = linked_budget(lime_n, d, lime_words(text, lime_n)[1])
    else:
        budget = per_run * lime_n
    # a linear classifier's rows at lime's cost: its probabilities are a smooth link of a few directions, which the
    # nonlinear surrogate follows (the long bigram document at 20000 masks: 0.67 of lime's sd with it, 1.5 without)
    linear_rows = (lime_cost and max_calls is None and linked is None and score is not None
                   and work_model.linear_outputs(model.steps[-1][1]) is not None)  # fmt: skip
    # the surrogate replaces model calls by cheap masks: pointless when a call is as cheap as the surrogate
    pilot = None if score is None or linear_rows else min(COUNT_PILOT_CALLS, max(2, budget // 10))
    occurrences, words = None, None
    if lime_cost and score is None and mode is None:  # lime's cost on strings is also the words they hold
        occurrences, words = lime_words(text, lime_n)
    elif linear_rows:
        occurrences, words = _rows_words(text, d, lime_n, budget, score.document)
    estimate = estimate_limit(scores, d, nu=nu, num_samples=lime_n, tol=tol, max_calls=budget,
                              random_state=random_state, progress=progress, controls=controls,
                              surrogate="auto" if score is None or linear_rows else False, pilot_calls=pilot,
                              cheap_calls=score is not None, raise_budget=lime_cost and linked is None,
                              word_tokens=occurrences, max_words=words)  # fmt: skip
    return estimate, scores, f"estimate: the model scored on {rows}"
