r"""Will lime agree with the limit?  The limit against where lime's coefficients concentrate at the user's n.

lime's coefficients at n samples concentrate around the centre :math:`c_n` of its normal equations in expectation
(its ridge and its first row included), with the standard deviations of :mod:`limetheory.pipelines.results.spread`.  The
limit :math:`\beta^f` is :math:`c_n` only as n grows: at small kernel widths Σ has tiny eigenvalues, lime's ridge
dominates the fit, and :math:`c_n` can be far from :math:`\beta^f` at lime's n (at kernel_width = 1 and n = 5000 a
coefficient of 0.995 in the limit is about 0.001 in lime).  ``agreement_notes`` states it for every label
``explain`` computed: in ``notes`` and in one ``UserWarning``.

Below ``ROWS_PER_COEFFICIENT`` (d + 1) samples lime's law is not yet normal around c_n: its mean differs from c_n
by an O(1/n) bias of the size of its spread, and the first-order spread is too narrow (a random forest on 13 words at
n = 50: the first-order 95% intervals held 84% of lime's runs for the worst word, the second-order ones 94%).  There
the check uses the second-order centre and spread (``lime_spread(n, order=2)``) when they cost at most
``SECOND_ORDER_CHECK_FLOPS`` (the masks behind Ω subsampled to fit, down to 2 (d + 1) of them: up to d = 87),
and otherwise says plainly that lime's law is not yet normal at that n.

What is not reported: a difference below ``MATERIAL_SHARE`` (1%) of the largest word coefficient, however many of
lime's standard deviations it is (a nearly affine model leaves lime almost no variance, and its ridge still moves the
centre by O(1/n)); when lime's spread was computed, no word is reported and such a word lies beyond
``AGREEMENT_SDS`` of them, a note says so.

Cost: lime's centre is O(d) and needs no model call (``limetheory.pipelines.results.spread.lime_centre``); only
where it differs from the limit by more than ``MATERIAL_SHARE`` of the largest coefficient is lime's spread
needed, with Ω from the route's own masks (enumeration, estimate) or from ``CHECK_OMEGA_SAMPLES`` masks of the
model (all masks when there are fewer), in O(masks × d) (``limetheory.pipelines.results.spread.lime_spread``).
"""

from __future__ import annotations

import dataclasses
import warnings

import numpy as np

from ..reading.lime_variance import LIME_RIDGE, sigma_pattern
from .spread import lime_centre

#: masks of the model behind Ω for the check when the route has none: the standard deviations are then known to
#: about 1 / sqrt(2 * 2000) = 1.6% (enough to tell 2 standard deviations from 1.6); all masks when d <= 10
CHECK_OMEGA_SAMPLES = 2000
#: lime's standard deviations between the limit and lime's centre beyond which the user is told
AGREEMENT_SDS = 2.0
#: differences below this share of the largest word coefficient are not reported: they change no reading of the
#: explanation (an affine model gives lime no variance, and its ridge still moves the centre by O(1/n))
MATERIAL_SHARE = 0.01
#: below this many samples per coefficient, 10 (d + 1), the check uses lime's second-order law
#: (``stability.ROWS_PER_COEFFICIENT``: where the first-order law stops holding)
ROWS_PER_COEFFICIENT = 10
#: floating-point operations the second-order check may take (about a second at 2e9 per second): its masks
#: are subsampled to fit, and beyond d = 87 (32 (d + 1)⁴ > this) the check stays first order and says so
SECOND_ORDER_CHECK_FLOPS = 2e9
#: how the note that lime's law is not yet normal begins
NOT_NORMAL_PREFIX = "below 10 (d + 1)"
#: ulps per term of the centre's rounding, below which a difference is never reported
ROUNDING_ULPS = 64
#: how the note that lime will not agree begins (``Explanation.lime_agrees`` reads it)
DISAGREEMENT_PREFIX = "lime at num_samples="
#: outputs known to lie in a range, whatever the model
OUTPUT_BOUNDS = {"predict_proba": (0.0, 1.0)}
#: :func:`agreeing_documents` calls a document's difference immaterial only below this share of the threshold: its sums
#: run in another order than :func:`lime_disagreement`'s (segment sums instead of one sum per document), which moves
#: the gap by rounding only (on the 1000 Yelp reviews at most 8e-12 of the threshold at kernel_width 25, 7e-10 at 5,
#: where the centre's solve is worse conditioned); the documents between the two are left to
#: :func:`lime_disagreement`, which decides them itself
CERTAIN_SHARE = 0.999


def lime_disagreement(explanation, num_samples=None, omega_samples=CHECK_OMEGA_SAMPLES):
    """(flagged, spread): the words whose limit lies beyond ``AGREEMENT_SDS`` of lime's sds from lime's centre.

    ``flagged`` is a boolean array over the words; ``spread`` the
    :class:`limetheory.pipelines.results.spread.LimeSpread` at
    ``num_samples`` (the explanation's ``lime_num_samples`` when None), or None when no difference between the limit
    and lime's centre is material (then lime's spread is not needed, and the model is not called).

    Examples
    --------
    >>> from sklearn.feature_extraction.text import CountVectorizer
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.pipeline import make_pipeline
    >>> import limetheory as lt
    >>> docs = ["good food", "bad food", "good staff", "bad staff"]
    >>> model = make_pipeline(CountVectorizer(), LogisticRegression()).fit(docs, [1, 0, 1, 0])
    >>> e = lt.explain(model.decision_function, "good food, bad staff")  # exact, linear route
    >>> flagged, spread = lime_disagreement(e, 5000)
    >>> flagged.tolist(), spread  # lime's centre at n = 5000 is within 1% of the limit: no spread needed
    ([False, False, False, False], None)
    >>> flagged, spread = lime_disagreement(e, 20)  # lime's ridge at n = 20 pulls its coefficients in
    >>> flagged.tolist(), spread.num_samples
    ([True, False, True, False], 20)
    """
    n = explanation.lime_num_samples if num_samples is None else num_samples
    beta, nu = explanation.beta, explanation.nu
    order = check_order(len(beta) - 1, n)
    # lime's centre is affine in the model's output on the document, y0: where y0 is not at hand and the output is
    # bounded (a probability), the gap at the two bounds bounds it at every y0 (|.| is convex): no model call
    bounds = OUTPUT_BOUNDS.get(explanation.output)
    candidates = bounds if bounds is not None and not explanation.outputs_known else (explanation.y0,)
    gap = np.max([np.abs(beta[1:] - lime_centre(beta, nu, y0, n)[1:]) for y0 in candidates], axis=0)
    # the centre's patterned solve sums d + 1 terms of the size of β and y0: differences below ROUNDING_ULPS ulps
    # of each of them are its rounding (a constant model has β = 0 words and a centre of about 1e-16)
    size = max(max(abs(y0) for y0 in candidates), float(np.abs(beta).max()))
    rounding = ROUNDING_ULPS * len(beta) * np.finfo(float).eps * size
    material = gap > max(MATERIAL_SHARE * float(np.abs(beta[1:]).max()), rounding)
    # below 10 (d + 1) samples the second-order bias moves lime's centre beyond the first-order one: no shortcut
    if not material.any() and explanation.sample is None and order == 1 and n >= ROWS_PER_COEFFICIENT * len(beta):
        return material, None
    spread = explanation.check_spread(n, omega_samples, order, SECOND_ORDER_CHECK_FLOPS)
    gap = np.abs(beta[1:] - spread.centre[1:])
    # materiality again at the model's own y0 (the bounds above only decided whether it was worth the call)
    rounding = ROUNDING_ULPS * len(beta) * np.finfo(float).eps * max(abs(explanation.y0), float(np.abs(beta).max()))
    material = gap > max(MATERIAL_SHARE * float(np.abs(beta[1:]).max()), rounding)
    return (gap > AGREEMENT_SDS * spread.std[1:]) & material, spread


def agreeing_documents(betas, starts, nu, y0, num_samples):
    """Which documents :func:`lime_disagreement` certainly answers ``(no word flagged, None)``: one pass for a chunk.

    That answer is its shortcut: at ``num_samples`` >= 10 (d + 1), no gap between the limit and lime's centre
    (:func:`limetheory.pipelines.results.spread.lime_centre`, here for every document at once: its patterned solve
    on the concatenated coefficients, each document's sums as segment sums) above ``MATERIAL_SHARE`` of the largest
    word coefficient (or the rounding floor); then ``agreement_notes`` adds no note and warns nothing.  A document
    whose largest gap is within ``1 - CERTAIN_SHARE`` of the threshold, or whose numbers are not finite, reads
    False: call :func:`lime_disagreement` on it.  For explanations with no sample (the closed routes) whose model
    outputs on the document, ``y0``, are known (no bounds taken).

    Parameters
    ----------
    betas : ndarray, shape (total,)
        The documents' β concatenated (each intercept first).
    starts : ndarray of int, shape (documents + 1,)
        Where each document's β starts in ``betas``, and the total; every document has at least 2 words.
    nu : float
        The bandwidth (kernel_width / 100).
    y0 : ndarray, shape (documents,)
        The model's output on each document (the explained label).
    num_samples : int
        lime's n.

    Returns
    -------
    ndarray of bool, shape (documents,)

    Examples
    --------
    Two words (lime's first row pulls its coefficients at n = 5000) and twenty:

    >>> betas = np.concatenate([[0.1, 1.0, -0.5], [0.0] + [0.5, -0.25] * 10])
    >>> agreeing_documents(betas, np.array([0, 3, 24]), 0.25, np.array([0.6, 2.5]), 5000).tolist()
    [False, True]
    >>> agreeing_documents(betas, np.array([0, 3, 24]), 0.25, np.array([0.6, 2.5]), 200).tolist()  # n < 10 (d + 1)
    [False, False]
    """
    betas, starts = np.asarray(betas, dtype=float), np.asarray(starts, dtype=np.int64)
    sizes = np.diff(starts)
    d, heads = sizes - 1, starts[:-1]
    owner = np.repeat(np.arange(sizes.size), sizes)
    words = np.ones(betas.size, dtype=bool)
    words[heads] = False
    corner, edge, diagonal, off = np.array([sigma_pattern(int(k), nu) for k in d], dtype=float).reshape(-1, 4).T
    rows = num_samples - 1
    # lime_normal_equations: right = rows Σ β + y0 (apply_patterned), then the patterned solve (solve_patterned)
    head = betas[heads]
    total = np.bincount(owner, weights=np.where(words, betas, 0.0), minlength=sizes.size)
    right = rows * (edge * head)[owner] + rows * (diagonal - off)[owner] * betas + rows * (off * total)[owner]
    right[heads] = rows * (corner * head + edge * total)
    right += np.asarray(y0, dtype=float)[owner]
    a11, a12, g, o = rows * corner + 1.0, rows * edge + 1.0, rows * diagonal + 1.0 + LIME_RIDGE, rows * off + 1.0
    head_r = right[heads]
    total_r = np.bincount(owner, weights=np.where(words, right, 0.0), minlength=sizes.size)
    a22 = g - o + o * d
    with np.errstate(all="ignore"):
        det = a11 * a22 - a12 * (a12 * d)
        v0 = (head_r * a22 - a12 * total_r) / det
        s = (a11 * total_r - a12 * d * head_r) / det
        centre = (right - (a12 * v0 + o * s)[owner]) / (g - o)[owner]
    word_starts = heads - np.arange(sizes.size)  # each document's first word among the words alone
    gap = np.maximum.reduceat(np.abs(betas - centre)[words], word_starts)
    largest_word = np.maximum.reduceat(np.abs(betas)[words], word_starts)
    size = np.maximum(np.abs(np.asarray(y0, dtype=float)), np.maximum(largest_word, np.abs(head)))
    rounding = ROUNDING_ULPS * sizes * np.finfo(float).eps * size
    threshold = np.maximum(MATERIAL_SHARE * largest_word, rounding)
    return (gap < CERTAIN_SHARE * threshold) & (num_samples >= ROWS_PER_COEFFICIENT * sizes)


def check_order(d, num_samples):
    """The order of lime's law the check uses at ``num_samples`` for d words: 2 below 10 (d + 1) when affordable.

    Examples
    --------
    >>> check_order(8, 5000), check_order(8, 50), check_order(500, 50)  # d = 500: order 2 beyond the check's budget
    (1, 2, 1)
    """
    from .spread import MIN_SECOND_ORDER_MASKS_PER_COEFFICIENT, second_order_masks

    d1 = d + 1
    if num_samples >= ROWS_PER_COEFFICIENT * d1 or num_samples < 2:
        return 1
    affordable = second_order_masks(d1, SECOND_ORDER_CHECK_FLOPS) >= MIN_SECOND_ORDER_MASKS_PER_COEFFICIENT * d1
    return 2 if affordable else 1


def agreement_notes(first, stacklevel=1):
    """The explanation ``first`` and every label of its family with the agreement (and precision) in ``notes``.

    One ``UserWarning`` lists the labels where lime at ``lime_num_samples`` will not agree with the limit.
    """
    family = first._family or {first.label: first}
    messages = []
    for label in list(family):
        member = family[label]
        flagged, spread = lime_disagreement(member)
        notes = list(member.notes)
        if member.stderr is not None:  # the estimate's sentence of the precision reached stays last
            notes[-1:-1] = selection_notes(member)
        n = member.lime_num_samples
        # an estimate's precision is the estimate's own note (one sentence, against the lime spread it targeted)
        if spread is not None:
            gap = np.abs(member.beta[1:] - spread.centre[1:])
            with np.errstate(divide="ignore", invalid="ignore"):
                sds = np.where(spread.std[1:] > 0, gap / spread.std[1:], np.where(gap > 0, np.inf, 0.0))
        d = len(member.words)
        small = n < ROWS_PER_COEFFICIENT * (d + 1)
        if flagged.any():
            j = int(np.argmax(np.where(flagged, gap, -1.0)))
            call = f"lime_spread({n})" if spread.order == 1 else f"lime_spread({n}, order=2)"
            message = (
                f"{DISAGREEMENT_PREFIX}{n} will not agree with the limit (label {label}, kernel_width = "
                f"{member.kernel_width:g}): {int(flagged.sum())} of the {d} word coefficients lie "
                f"more than {AGREEMENT_SDS:g} of lime's standard deviations from where lime's coefficients "
                "concentrate, e.g. "
                f"{member.words[j]!r}: limit {member.beta[1 + j]:.3g}, lime about {spread.centre[1 + j]:.3g} ± "
                f"{spread.std[1 + j]:.2g} ({sds[j]:.3g} sd); lime at that n returns about {call}.centre"
            )
            if small and spread.order == 2:
                message += (
                    f" (lime's law to second order: below 10 (d + 1) = {10 * (d + 1)} samples its mean and spread "
                    "differ from the first-order ones by the O(1/n) terms)"
                )
            elif small:
                message += (
                    f"; {NOT_NORMAL_PREFIX} = {10 * (d + 1)} samples lime's law is not yet normal: these first-order "
                    f"numbers are rough, and its second-order law is beyond the check's budget at d = {d}"
                )
            notes.append(message)
            messages.append(message)
        if spread is not None and not flagged.any():  # when lime agrees: say what the 1% threshold let through
            quiet = sds > AGREEMENT_SDS
            if quiet.any():
                j = int(np.argmax(np.where(quiet, sds, -1.0)))
                notes.append(
                    f"lime's agreement is checked to {100 * MATERIAL_SHARE:g}% of the largest word coefficient: "
                    f"{int(quiet.sum())} word(s) lie more than {AGREEMENT_SDS:g} of lime's standard deviations at "
                    f"n = {n} from the limit by less than that, e.g. {member.words[j]!r}: limit "
                    f"{member.beta[1 + j]:.3g}, lime about {spread.centre[1 + j]:.3g} ± {spread.std[1 + j]:.2g} "
                    f"({sds[j]:.3g} sd), not reported"
                )
        family[label] = dataclasses.replace(member, notes=tuple(notes))
    if messages:
        warnings.warn("; ".join(messages), UserWarning, stacklevel=stacklevel + 1)
    return family[first.label]


def selection_notes(member):
    """Notes on lime's feature selection for an estimate: whether the estimated β decides it (none when exact).

    With ``num_features`` set, ``as_list`` holds lime's refit on the selected words (``Explanation.lime_answer``).
    For an estimate, β's standard errors say whether the selection is decided: with highest weights, when the
    k-th and (k+1)-th absolute coefficients are within two standard errors of their difference, the selected set
    may differ from the limit's (flagged); the refitted coefficients' own standard errors are not computed (β's are
    those of the full surrogate).
    """
    if member.stderr is None:
        return []
    answer = member.lime_answer(score=False)
    if answer is None:
        return []
    selection = answer.selection
    d = len(member.words)
    notes = []
    if member.stderr is None or selection.method != "highest_weights" or answer.num_features >= d:
        if member.stderr is not None and answer.num_features < d:
            notes.append(
                "the estimate's standard errors are those of the full surrogate beta: the selection and the refit "
                "are read from the estimated beta"
            )
        return notes
    order = np.argsort(-np.abs(member.beta[1:]), kind="stable")
    k = answer.num_features
    inside, outside = order[k - 1], order[k]
    spread = float(np.hypot(member.stderr[1 + inside], member.stderr[1 + outside]))
    if selection.margin <= 2 * spread:
        notes.append(
            f"near-tie in the selection: the {k}-th and {k + 1}-th words by |coefficient| "
            f"({member.words[inside]!r}, {member.words[outside]!r}) differ by {selection.margin:.2g}, within two "
            f"standard errors ({spread:.2g}) of the estimate: the selected set may differ from the limit's"
        )
    else:
        notes.append(
            "the estimate's standard errors are those of the full surrogate beta: the refitted coefficients are read "
            "from the estimated beta"
        )
    return notes
