r"""A logistic regression's probabilities as the link of its linear reading: the estimate route's cheapest scorer.

scikit-learn's ``LogisticRegression.predict_proba`` is :math:`(1 - \sigma(g), \sigma(g))` of its decision function
g for two classes (σ the logistic function) and the softmax of its k decision functions otherwise.  When each
decision function is read exactly from the words' columns
(:class:`limetheory.pipelines.reading.pipeline_reading.LinearReading`, the linear route's reading), the probabilities of
a mask cost a few dot products over its d words: no perturbed string, no row of the vectorizer, no call of the pipeline.
 The estimate route then spends its time on the masks themselves, and reaches the same precision in a fraction of the
 time (``benchmarks/any_classifier_speed.py``).

The reading is tied to the real model, as the exact routes are: on the self-check masks, the pipeline's own
probabilities (scored on lime's perturbed strings) must lie within the rounding of its features of the reading's.
σ is 1/4-Lipschitz and the softmax 1/2-Lipschitz in the largest change of its arguments, so the decision
functions' bound (:func:`limetheory.pipelines.reading.pipeline_reading.self_check_tolerance`) bounds the probabilities'
too; ``LINK_ROUNDING`` ulps cover the link's own exp and division.  Anything else, including a subclass that
changes ``predict_proba``, fails the check and is scored from counts or strings as before.

A ``MultinomialNB`` is read the same way: its probabilities are the softmax of its joint log-likelihoods, which are
linear in the row (:func:`_as_logistic_regression` gives the logistic regression with the same probabilities).
scikit-learn rounds each class's log-likelihood apart, on weights of larger magnitude than their difference, so the
check's bound may be short of its rounding: the reading is then refused (scored from counts), never used off by
more than the bound.
"""

from __future__ import annotations

import sys

import numpy as np
from scipy.special import expit, softmax
from sklearn.pipeline import Pipeline

from ...theory.linear.linear_powers import power_moments
from .pipeline_reading import LinearReading, RouteUnavailable, self_check_tolerance
from .text_features import reads_words

#: largest d whose decision function's powers get exact moments (:func:`reading_powers`): they cost O(Q d² p²) for
#: Q ~ 60 nodes of the rule over u (3 ms at d = 30, 72 ms at d = 150), the estimate's per-word controls stop here too
MAX_POWER_WORDS = 150
#: smallest d: below, explain is exact by enumeration (d <= 14) and the estimate runs only when asked for; its strata
#: are then a few hundred masks, of which the near-perfect control leaves a few carrying the variance, and the two
#: batches the estimate stops after sampled them too rarely for honest standard errors (mean z² 1.9 over 60 seeds
#: on the 12-word review of ``tests/test_estimate.py``, 1.0 without the powers)
MIN_POWER_WORDS = 15
#: the powers of the decision function whose moments :func:`reading_powers` computes
READING_POWERS = 3
#: ulps of 1 for the link's own rounding (an exp, a sum of at most k terms and a division, in double precision,
#: on both sides of the comparison)
LINK_ROUNDING = 16


def is_logistic_regression(estimator):
    """Whether ``estimator`` is a scikit-learn ``LogisticRegression``, without importing scikit-learn's linear models.

    Importing them costs a tenth of a second, which ``import limetheory`` does not pay: while no module has imported
    ``sklearn.linear_model``, no estimator can be one of its classes.

    Examples
    --------
    >>> from sklearn.linear_model import LogisticRegression
    >>> is_logistic_regression(LogisticRegression()), is_logistic_regression(object())
    (True, False)
    """
    linear_model = sys.modules.get("sklearn.linear_model")
    return linear_model is not None and isinstance(estimator, linear_model.LogisticRegression)


def is_multinomial_nb(estimator):
    """Whether ``estimator`` is a scikit-learn ``MultinomialNB`` (its module imported only if the user's was).

    Examples
    --------
    >>> from sklearn.naive_bayes import MultinomialNB
    >>> is_multinomial_nb(MultinomialNB()), is_multinomial_nb(object())
    (True, False)
    """
    naive_bayes = sys.modules.get("sklearn.naive_bayes")
    return naive_bayes is not None and type(estimator) is naive_bayes.MultinomialNB


def _has_link(estimator):
    return is_logistic_regression(estimator) or is_multinomial_nb(estimator)


def _as_logistic_regression(model):
    """A MultinomialNB pipeline as the logistic regression whose probabilities are the same function of the rows.

    MultinomialNB's joint log-likelihood of class c is x · log θ_c + log π_c, linear in the row x, and its
    ``predict_proba`` is their softmax: for two classes σ(x · (log θ_1 - log θ_0) + log π_1 - log π_0), for more
    the softmax of the k linear functions, which is a multinomial ``LogisticRegression`` with those weights.  The
    pipeline's other steps are kept; nothing is fitted.  The self-check against the real pipeline's probabilities
    still decides whether the reading is used.
    """
    from sklearn.linear_model import LogisticRegression

    name, nb = model.steps[-1]
    log_theta, log_prior = np.asarray(nb.feature_log_prob_, dtype=float), np.asarray(nb.class_log_prior_, dtype=float)
    proxy = LogisticRegression()
    if len(nb.classes_) == 2:
        proxy.coef_, proxy.intercept_ = (log_theta[1] - log_theta[0])[None, :], log_prior[1:] - log_prior[:1]
    else:
        proxy.coef_, proxy.intercept_ = log_theta, log_prior
    proxy.classes_, proxy.n_features_in_ = nb.classes_, log_theta.shape[1]
    return Pipeline(model.steps[:-1] + [(name, proxy)])


def link_possible(model, output, mode=None):
    """Whether :func:`linked_score_masks` may apply (then its check masks are scored before the routes).

    Examples
    --------
    >>> from sklearn.feature_extraction.text import TfidfVectorizer
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.pipeline import make_pipeline
    >>> model = make_pipeline(TfidfVectorizer(), LogisticRegression())
    >>> link_possible(model, "predict_proba"), link_possible(model, "decision_function")
    (True, False)
    """
    return (
        output == "predict_proba"
        and mode is None
        and isinstance(model, Pipeline)
        and len(model.steps) >= 2
        and _has_link(model.steps[-1][1])
    )


def _readings(model, text, mode):
    """The decision functions' readings: one (class 1's) for two classes, one per class otherwise."""
    if mode is not None:
        raise RouteUnavailable("another text mode (the linked reading reads lime's default words)")
    if not isinstance(model, Pipeline) or len(model.steps) < 2:
        raise RouteUnavailable("not a Pipeline with a step after its vectorizer")
    estimator, vectorizer = model.steps[-1][1], model.steps[0][1]
    if not _has_link(estimator):
        raise RouteUnavailable(f"{type(estimator).__name__} is neither a LogisticRegression nor a MultinomialNB")
    if is_multinomial_nb(estimator):
        model = _as_logistic_regression(model)
        estimator = model.steps[-1][1]
    if not reads_words(vectorizer):
        raise RouteUnavailable(
            f"the first step is a {type(vectorizer).__name__}, not a Count, Tfidf or Hashing vectorizer or a "
            "FeatureUnion of them"
        )
    n_classes = len(getattr(estimator, "classes_", ()))
    labels = [1] if n_classes == 2 else range(n_classes)
    return [LinearReading(model, vectorizer, text, "decision_function", label) for label in labels]


def _link(readings, z):
    if len(readings) == 1:  # two classes: (1 - σ(g), σ(g)), filled in place
        p = expit(np.asarray(readings[0](z), dtype=float))
        out = np.empty((len(p), 2))
        np.subtract(1.0, p, out=out[:, 0])
        out[:, 1] = p
        return out
    return softmax(np.column_stack([reading(z) for reading in readings]), axis=1)


def linked_score_masks(model, text, output, check_masks, check_scores, mode=None):
    """masks -> a logistic regression's probabilities from its linear reading; (None, reason) where that fails.

    Parameters
    ----------
    model : sklearn.pipeline.Pipeline
        Fitted: features the linear route reads (a Count, Tfidf or Hashing vectorizer, a TfidfTransformer, a
        FeatureUnion of them), affine steps, a ``LogisticRegression``.
    text : str
        The document (lime's default word mode).
    output : str
        The output explained; only ``"predict_proba"`` has a link.
    check_masks : ndarray of bool, shape (m, d)
        Self-check masks.
    check_scores : ndarray, shape (m, k)
        The pipeline's own ``predict_proba`` on lime's perturbed strings of ``check_masks``.
    mode : limetheory.pipelines.reading.modes.TextMode or None
        lime's text settings; only lime's defaults (None) are read.

    Returns
    -------
    (score_masks, None) or (None, reason)
        ``score_masks(masks)`` returns the (m, k) probabilities; ``reason`` says why the reading does not apply
        (or does not reproduce the pipeline).  ``score_masks.readings`` maps each decision function's label (1 for
        two classes, else each class) to its checked reading.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.feature_extraction.text import TfidfVectorizer
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.pipeline import make_pipeline
    >>> from limetheory import perturbed_documents
    >>> docs = ["good food", "bad food", "good service", "bad service"]
    >>> model = make_pipeline(TfidfVectorizer(), LogisticRegression()).fit(docs, [1, 0, 1, 0])
    >>> text = "good food, bad service"
    >>> masks = np.array([[1, 1, 1, 1], [1, 0, 0, 1], [0, 1, 0, 0]], dtype=bool)
    >>> truth = model.predict_proba(perturbed_documents(text, masks))
    >>> score, why = linked_score_masks(model, text, "predict_proba", masks, truth)
    >>> why is None, bool(np.allclose(score(masks), truth, rtol=0, atol=1e-15))
    (True, True)
    """
    if output != "predict_proba":
        return None, f"output={output!r} has no link of a linear reading"
    try:
        readings = _readings(model, text, mode)
    except (RouteUnavailable, ValueError, TypeError, IndexError, AttributeError) as error:
        return None, str(error)
    check_masks = np.asarray(check_masks)
    check_scores = np.asarray(check_scores, dtype=float)
    if check_scores.ndim != 2 or check_scores.shape != (len(check_masks), max(2, len(readings))):
        return None, f"the pipeline's probabilities have shape {check_scores.shape}, not one column per class"
    ours = _link(readings, check_masks)
    # the decision functions' rounding bound, the largest over the classes, plus the link's own rounding
    bound = np.max(
        [self_check_tolerance(r.epsilon, r.visible, r(check_masks, magnitude=True)) for r in readings], axis=0
    )
    tolerance = bound[:, None] + LINK_ROUNDING * np.finfo(float).eps
    if not (np.abs(ours - check_scores) <= tolerance).all():
        worst = float(np.max(np.abs(ours - check_scores) - tolerance))
        return None, (
            f"the link of the linear reading does not reproduce the pipeline's predict_proba (off by {worst:.3g} "
            "beyond the rounding of its features)"
        )

    # the estimate asks for each batch's decision function twice (these probabilities, then the control g of
    # ``estimate.labels.explain_controls``, which takes these readings: ``score_masks.readings``, by label)
    readings = [reading.remember() for reading in readings]

    def score_masks(masks):
        return _link(readings, np.asarray(masks))

    score_masks.readings = dict(zip([1] if len(readings) == 1 else range(len(readings)), readings, strict=True))
    return score_masks, None


def reading_powers(reading, max_power=READING_POWERS, min_words=MIN_POWER_WORDS):
    r"""E[g^p | s] and E[z_k g^p | s] of a linear reading's output g (p = 1..``max_power``), or None.

    g is the reading's decision function (:class:`limetheory.pipelines.reading.pipeline_reading.LinearReading`), a
    constant plus a linear model of one block of TF-IDF (or count) columns: its powers' moments are
    :func:`limetheory.theory.linear.linear_powers.power_moments`.  None for a reading of several blocks (a
    FeatureUnion: the powers mix the blocks' norms), with a mask token's column (``bow=False``), outside
    ``min_words`` to ``MAX_POWER_WORDS`` words, or with weights that ``power_moments`` refuses (the decision function
    then stays a control of its own, held with one coefficient).

    Returns
    -------
    (mean, per_word) or None
        Shapes (d, max_power) and (d, max_power, d), indexed by s - 1 (``power_moments``).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.feature_extraction.text import TfidfVectorizer
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.pipeline import make_pipeline
    >>> docs = ["good food", "bad food", "good service", "bad service"]
    >>> model = make_pipeline(TfidfVectorizer(), LogisticRegression()).fit(docs, [1, 0, 1, 0])
    >>> reading = LinearReading(model, model.steps[0][1], "good food, bad service", "decision_function", 1)
    >>> mean, per_word = reading_powers(reading, min_words=2)
    >>> masks = 1 - np.eye(4)  # the four masks removing one word: s = 1
    >>> bool(np.isclose(mean[0, 1], np.mean(reading(masks) ** 2), rtol=1e-12))
    True
    """
    if len(reading.parts) != 1 or reading.mask_weight != 0.0:
        return None
    part = reading.parts[0]
    if not min_words <= len(part.values) <= MAX_POWER_WORDS:
        return None
    try:
        return power_moments(part.lam, part.values, intercept=reading.sign * reading.intercept, groups=part.groups,
                             norm=part.norm, max_power=max_power)  # fmt: skip
    except ValueError:  # weights beyond the rule's range (a ratio below 1e-100), more words than a column may share
        return None
