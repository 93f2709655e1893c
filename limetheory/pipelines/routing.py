r"""``explain``: the explanation lime converges to, for a fitted scikit-learn pipeline or lime's ``classifier_fn``.

The entry point reads the model as lime calls it (:mod:`limetheory.pipelines.blackbox`: a Pipeline and the output asked
for, a bound method of one, or any function from a list of str to an (n, k) array), resolves lime's labels
(``labels``, ``top_labels``), then takes for each label the first route that applies:

``"linear"``
    a pipeline linear in the vectorizer's columns (a Count/TfidfVectorizer, linear steps such as scalers without
    centring, an estimator with ``coef_`` and ``intercept_``) read through ``decision_function`` (``predict`` for a
    regressor): exact (:mod:`limetheory.pipelines.linear_route`);
``"trees"``
    decision trees and tree ensembles whose splits are functions of which words are present: exact, the law of
    s over the leaves (``limetheory.pipelines.leaves``);
``"enumeration"``
    any model on a document of at most 14 distinct words: exact, all 2ᵈ - 1 masks through the model (one call
    for every label);
``"monte_carlo"``
    anything else, at any length: an unbiased estimate with standard errors (``limetheory.pipelines.montecarlo``).

The routes stay tied to the real model: the linear route must reproduce it on the document and on a few perturbed
documents, to the rounding of the pipeline's dtype, before its β is trusted; the tree route reads only splits that
``limetheory.pipelines.leaves`` has checked to be functions of which words are present; enumeration and the
estimate call the model on lime's own perturbed strings.  An exact route whose cost is above the work limit is not
refused: it gives way to the estimate with a note that states its time and the ``max_work`` that runs it.  Last,
the limit is compared with where lime's coefficients concentrate at the user's ``num_samples``
(:mod:`limetheory.pipelines.agreement`).
"""

from __future__ import annotations

import contextlib
import re
import warnings

import numpy as np
from sklearn.base import is_classifier
from sklearn.exceptions import NotFittedError
from sklearn.feature_extraction.text import CountVectorizer, TfidfVectorizer
from sklearn.pipeline import Pipeline
from sklearn.utils.validation import check_is_fitted

from .._validation import check_bool, check_int, check_positive_finite, check_text, seconds_text, work_limit
from ..engine.tokens import local_dictionary, perturbed_documents, word_columns
from ..theory.explanation import all_masks, beta_enumerate
from ..theory.linear_exact import beta_linear_exact
from ..theory.sampling import kernel_weights
from .agreement import agreement_notes
from .blackbox import BATCH as _BATCH
from .blackbox import OUTPUTS, mask_scores, read_model
from .estimate import DEFAULT_CALLS_PER_LIME_RUN, estimate_limit
from .estimate_route import estimate_explanation
from .linear_route import LinearReading, RouteUnavailable
from .modes import (
    LIME_SPLIT,
    check_mode,
    linear_features,
    mask_token_refusal,
    mask_token_weight,
    mode_document_columns,
    mode_documents,
    mode_features,
)
from .montecarlo import MaskSample, masks_removing
from .result import LIME_NUM_SAMPLES, Explanation

METHODS = ("auto", "linear", "trees", "enumeration", "monte_carlo", "estimate")
#: largest number of distinct words for which every mask is enumerated (16383 model calls)
MAX_ENUMERATION_WORDS = 14
#: perturbed documents on which an exact route is checked against the pipeline, besides the document itself
_SELF_CHECK_MASKS = 8


# ----------------------------------------------------------------------------- reading the pipeline


def _closed_vectorizer(reader):
    """The pipeline's Count/TfidfVectorizer, the first step the closed routes read (RouteUnavailable otherwise)."""
    if reader.pipeline is None:
        raise RouteUnavailable("a classifier_fn is read through its outputs only")
    vectorizer = reader.pipeline.steps[0][1]
    if not isinstance(vectorizer, CountVectorizer):
        raise RouteUnavailable(
            f"the first step is a {type(vectorizer).__name__}: the closed routes read a CountVectorizer or "
            "TfidfVectorizer"
        )
    try:
        check_is_fitted(vectorizer, "vocabulary_")
        if isinstance(vectorizer, TfidfVectorizer) and vectorizer.use_idf:
            check_is_fitted(vectorizer, "idf_")
    except Exception:
        raise RouteUnavailable("the vectorizer is not fitted") from None
    return vectorizer


# ----------------------------------------------------------------------------- the tree route


def _tree_beta(model, vectorizer, text, output, label, nu, mode=None):
    try:
        from .leaves import beta_trees
    except ImportError:
        raise RouteUnavailable("the exact tree route is not available") from None
    if len(model.steps) != 2:
        raise RouteUnavailable("the pipeline has steps between the vectorizer and the model")
    estimator = model.steps[1][1]
    sign = 1.0
    if output == "decision_function" and len(getattr(estimator, "classes_", ())) == 2:
        # the binary score is the column of classes_[1]; explain's label 0 is its opposite
        label, sign = 1, (1.0 if label == 1 else -1.0)
    try:
        columns = None  # lime's default words; another text mode's features and groups otherwise
        if mode is not None:
            columns = mode_document_columns(
                text, vectorizer, mode, n_features=getattr(estimator, "n_features_in_", None)
            )
        beta = beta_trees(estimator, vectorizer, text, nu=nu, output=output, label=label, columns=columns)
    except (ValueError, TypeError) as error:
        raise RouteUnavailable(str(error)) from None
    return sign * beta


# ----------------------------------------------------------------------------- lime's arguments


def check_words(text):
    """(text, lime's words of it), refusing a document of fewer than 2 distinct words."""
    text = check_text(text)
    words = local_dictionary(text)
    if len(words) < 2:
        raise ValueError(
            f"text must contain at least 2 distinct words (lime removes words; with d = {len(words)} the "
            f"explanation is undefined), got {text!r:.80}"
        )
    return text, words


def _label_in_range(value, name, columns):
    value = check_int(value, name, minimum=0)
    if value >= columns:
        raise ValueError(f"{name} must be in 0..{columns - 1} (the model's output has {columns} columns), got {value}")
    return value


def _linear_possible(reader):
    """Whether the linear route may apply (then its check masks are sent through the model before the routes)."""
    if reader.pipeline is None or not isinstance(reader.pipeline.steps[0][1], CountVectorizer):
        return False
    estimator = reader.pipeline.steps[-1][1]
    wanted = "predict" if not is_classifier(estimator) else "decision_function"
    return reader.output == wanted and hasattr(estimator, "coef_")


def _declared_columns(reader):
    """The number of the pipeline's output columns when its classifier declares its classes (None: ask the model)."""
    if reader.pipeline is None or reader.output not in ("predict_proba", "decision_function"):
        return None
    classes = getattr(reader.pipeline.steps[-1][1], "classes_", None)
    # a binary decision_function is given two columns, (-score, score)
    return len(classes) if classes is not None and np.ndim(classes) == 1 and len(classes) >= 2 else None


def resolve_labels(label, labels, top_labels, outputs, columns=None):
    """lime's labels to explain, in lime's order, and the ``top_labels`` chosen (None when labels were given).

    As ``LimeTextExplainer.explain_instance``: ``top_labels`` (when truthy) takes the K columns with the largest
    outputs on the document, largest first, and ignores ``labels``; else ``labels`` (default lime's ``(1,)``,
    ``(0,)`` when the model gives one column); ``label=`` is one label, the keyword of earlier versions.
    ``outputs`` (the model on the document) may be None when ``columns`` is given and ``top_labels`` is not.

    Examples
    --------
    >>> resolve_labels(None, None, 2, np.array([0.2, 0.5, 0.3]))
    ((1, 2), (1, 2))
    >>> resolve_labels(None, (0, 2), None, np.array([0.2, 0.5, 0.3]))
    ((0, 2), None)
    """
    columns = len(outputs) if columns is None else columns
    if top_labels is not None:
        top_labels = check_int(top_labels, "top_labels", minimum=0)
    if top_labels:  # lime: `if top_labels:` (0 means not set)
        if label is not None or labels is not None:
            raise TypeError("top_labels chooses the labels: pass it without label= or labels=")
        chosen = tuple(int(c) for c in np.argsort(outputs)[-top_labels:][::-1])  # lime's own expression
        return chosen, chosen
    if labels is not None:
        if label is not None:
            raise TypeError("pass label= (one label) or labels= (lime's iterable), not both")
        if isinstance(labels, (str, bytes)) or not hasattr(labels, "__iter__"):
            raise TypeError(f"labels must be an iterable of integers, as lime's (1,), got {type(labels).__name__}")
        chosen = tuple(dict.fromkeys(_label_in_range(v, "labels", columns) for v in labels))
        if not chosen:
            raise ValueError("labels must hold at least one label")
        return chosen, None
    if label is None:
        return ((1,) if columns >= 2 else (0,)), None
    return (_label_in_range(label, "label", columns),), None


def resolve_random_state(random_state):
    """An int seed from lime's ``random_state``: an int >= 0, a numpy Generator/RandomState, or None (fresh entropy).

    None draws a seed from the operating system, so that each call differs, as lime's ``random_state=None`` does;
    the seed is recorded in ``Explanation.random_state`` so the call can be repeated.
    """
    if random_state is None:
        return int(np.random.SeedSequence().generate_state(1, np.uint64)[0] >> np.uint64(1))
    if isinstance(random_state, np.random.Generator):
        return int(random_state.integers(0, 2**63 - 1))
    if isinstance(random_state, np.random.RandomState):
        return int(random_state.randint(0, 2**31 - 1))
    return check_int(random_state, "random_state", minimum=0, maximum=2**63 - 1)


# ----------------------------------------------------------------------------- the routes


def _work_note(error, name):
    """A refusal for work, with the estimate and the ``max_work`` that runs the route anyway."""
    message = str(error)
    found = re.search(r"costs about ([0-9.]+e[+-]?[0-9]+|[0-9.]+) floating-point", message)
    if found is None:
        return message
    flops = float(found.group(1))
    return (
        f"{message}; explain(..., method={name!r}, max_work={flops:.2g}) computes it exactly "
        f"(about {seconds_text(flops)})"
    )


def _exact_beta(name, reader, text, label, nu, rng, score_masks, d, mode, truth):
    """(β, the model as a function of the masks) of a closed route, or RouteUnavailable with the reason."""
    vectorizer = _closed_vectorizer(reader)
    if name == "linear":
        reading = LinearReading(reader.pipeline, vectorizer, text, reader.output, label, mode)
        reading.check(truth[0], truth[1][:, label])
        return reading.beta(nu), reading
    beta = _tree_beta(reader.pipeline, vectorizer, text, reader.output, label, nu, mode)
    return beta, _column(score_masks, label)


def _column(score_masks, label):
    return lambda z: score_masks(z)[:, label]


def _self_check_masks(d, rng):
    sizes = np.concatenate([[0, 1, d - 1, d], rng.integers(1, d + 1, size=_SELF_CHECK_MASKS - 4)])
    return masks_removing(sizes, d, rng)


def explain_controls(model, text, output, label, nu, mode=None):
    """Control variates with an exact β for the estimate: ((g, β_g),) or ().

    For ``predict_proba`` of a pipeline whose decision function is linear in the columns (e.g. a logistic
    regression), g is that decision function, computed from the words' columns (no string is built) and β_g its
    exact linear β: the probability is a smooth function of it, so it carries most of the variance.  Other models get
    none (the affine control of ``limetheory.pipelines.montecarlo.estimate_beta`` remains).
    """
    if output != "predict_proba" or model is None:
        return ()
    try:
        n_classes = len(getattr(model.steps[-1][1], "classes_", ()))
        vectorizer = model.steps[0][1]
        linear = LinearReading(model, vectorizer, text, "decision_function", label if n_classes > 2 else 1, mode)
        return ((linear, linear.beta(nu)),)
    except (RouteUnavailable, ValueError, TypeError, IndexError, AttributeError):
        return ()


def _estimates(reader, text, score_masks, d, nu, labels, *, mode, lime_n, tol, max_calls, seed, progress, controls_of):
    """The estimate route for each label: {label: (LimitEstimate, masks -> scores, a note on the rows)}.

    A pipeline goes to ``estimate_route.estimate_explanation`` (rows from counts where it can); a classifier_fn is
    scored on lime's strings by ``estimate.estimate_limit``, ten lime runs' worth of calls by default.
    """
    results = {}
    for label in labels:
        column = _column(score_masks, label)
        rng = np.random.default_rng(seed)
        if reader.pipeline is None:
            budget = DEFAULT_CALLS_PER_LIME_RUN * lime_n if max_calls is None else max_calls
            estimate = estimate_limit(column, d, nu=nu, num_samples=lime_n, tol=tol, max_calls=budget,
                                      random_state=rng, progress=progress, controls=())  # fmt: skip
            results[label] = (estimate, column, "estimate: the model scored on lime's perturbed strings")
        else:
            results[label] = estimate_explanation(
                reader.pipeline, text, reader.output, label, nu, column, d, mode=mode, num_samples=lime_n, tol=tol,
                max_calls=max_calls, random_state=rng, progress=progress, controls=controls_of(label),
            )  # fmt: skip
    return results


def explain(
    model,
    text,
    *,
    kernel_width=25,
    label=None,
    labels=None,
    top_labels=None,
    num_features=None,
    output=None,
    num_samples=None,
    random_state=0,
    method="auto",
    tol=0.1,
    max_calls=None,
    max_work=None,
    progress=True,
    bow=True,
    split_expression=LIME_SPLIT,
    mask_string=None,
    char_level=False,
    **unexpected,
):
    r"""The explanation lime converges to for ``model`` on ``text``: exact where a closed route exists.

    lime's coefficients for one document, with every word kept, concentrate as its number of samples grows
    around :math:`\beta^f = \Sigma^{-1} \Gamma^f` (the paper's Proposition 2).  This function computes that limit
    for what lime's ``explain_instance`` takes: a ``classifier_fn`` (a function from a list of str to an (n, k)
    array, e.g. ``pipeline.predict_proba``), or a fitted scikit-learn ``Pipeline`` of any shape with the name of its
    output.  For each label it takes the first route that applies (module docstring): ``"linear"`` (a pipeline
    linear in its vectorizer's columns, read through ``decision_function`` or a regressor's ``predict``; a bound
    method such as ``pipeline.decision_function`` is recognised as its pipeline), ``"trees"`` (trees and
    ensembles whose splits are functions of which words are present), ``"enumeration"`` (any model, d <= 14,
    through the model's outputs), then ``"monte_carlo"``, the estimate (any model, any d).

    The estimate route (``"monte_carlo"``) is unbiased, with standard errors that the sample gives: Σ⁻¹ is exact
    and Γ is averaged over masks stratified on the number of removed words, with exact control variates refitted
    batch after batch, the model's own decision function when it has a linear one, and a linked surrogate
    (``limetheory.pipelines.estimate``).  It draws until every standard error is at most ``tol`` times lime's standard
    deviation at ``num_samples``, or until ``max_calls`` is spent, and ``notes`` say what it reached.  A pipeline
    whose first step is a Count, Tfidf or Hashing vectorizer is scored from the document's counts, without
    building strings (``limetheory.pipelines.count_rows``); a ``benchmarks/any_classifier_speed.py`` run times it.

    Last, the limit is compared with the centre lime's coefficients concentrate around at ``num_samples``: where
    they are more than 2 of lime's standard deviations apart (small kernel widths, few samples), ``notes`` says so
    and a ``UserWarning`` gives what lime at that n returns (``lime_spread(num_samples).centre``).

    Parameters
    ----------
    model : callable or sklearn.pipeline.Pipeline
        lime's ``classifier_fn`` (list of n str -> an (n, k) array, ``label`` picking the column; or (n,), one
        score), a bound method of a fitted Pipeline (``pipe.predict_proba``, ``pipe.decision_function``), or a
        fitted Pipeline (its output named by ``output``).  A Pipeline whose first step is not a
        Count/TfidfVectorizer (``HashingVectorizer``, ``FeatureUnion``, a ``ColumnTransformer`` reading one
        column, ...) is read through its outputs: enumeration or the estimate.
    text : str
        The document, with at least 2 distinct words (lime's tokens).
    kernel_width : float
        lime's kernel width (> 0; default 25, lime's default); the paper's ν is kernel_width / 100.  This entry
        point takes lime's unit only: ``nu=`` is refused, and a width below 1 warns (ν's unit by mistake?).
    label : int or None
        One column of the output, the keyword of earlier versions (``labels=(label,)``).  For a binary
        ``decision_function`` 1 is the score of ``classes_[1]`` and 0 its opposite; a model with one output has
        label 0.
    labels : iterable of int or None
        lime's ``labels``: every column explained (default lime's ``(1,)``, or ``(0,)`` for one output); each is
        read by ``as_list(label=...)`` and ``for_label``.
    top_labels : int or None
        lime's ``top_labels``: explain the K columns with the largest outputs on the document (largest first),
        ignoring ``labels``.
    num_features : int or None
        lime's ``num_features``: the most words ``as_list()`` and ``to_lime()`` hold, the largest absolute
        coefficients of the limit with every word kept (None: every word; lime's default is 10, and lime with
        feature selection refits on the words it selects, which the limit does not).
    output : {"predict_proba", "decision_function", "predict"} or None
        Which output of a Pipeline is explained (default ``"predict_proba"``; ``"predict"`` for regressors only).
        None for a classifier_fn.
    num_samples : int or None
        lime's ``num_samples`` (>= 1; default 5000): the n at which lime's agreement with the limit is checked and
        the default n of ``lime_spread`` and ``plot``.  The exact routes need no samples.
    random_state : int, numpy Generator or RandomState, or None
        Seed of the estimate and of the masks behind an estimated lime spread; None draws a fresh one, as lime's
        ``random_state=None`` (recorded in ``Explanation.random_state``).
    method : {"auto", "linear", "trees", "enumeration", "monte_carlo", "estimate"}
        The route: "auto" takes the first that applies; a named route is taken or refused with the reason
        (``"estimate"`` is another name of ``"monte_carlo"``).
    tol : float
        The estimate route draws until every standard error is at most ``tol`` times lime's standard deviation at
        ``num_samples`` (default 0.1), or until ``max_calls`` is spent (``limetheory.estimate``).
    max_calls : int or None
        The estimate route's budget of model calls; None: 200 lime runs' worth when the rows come from the
        vectorizer's counts (cheap calls), 10 otherwise.
    progress : bool
        A progress bar on estimate work that lasts more than about 2 s.
    max_work : float or None
        Floating-point operations an exact route may take (default: the package's limit of 2e10, about 10 s).
        Above it, "auto" takes the estimate and ``notes`` states the route's time and the ``max_work`` to pass.
    bow, split_expression, mask_string, char_level
        lime's text modes, with ``LimeTextExplainer``'s names and defaults (``limetheory.pipelines.modes``).  With
        ``bow=False`` each occurrence is a feature (``words`` lists them in text order) and a removed one is
        replaced by ``mask_string`` ('UNKWORDZ' when None); a ``split_expression`` (regular expression or
        callable) changes lime's words, which must remain whole tokens of the vectorizer for the linear and tree
        routes; with ``char_level=True`` the features are characters and only enumeration or the estimate apply.
    **unexpected
        Not accepted: caught only to refuse ``nu=`` (the paper's unit) with a message that gives the
        ``kernel_width`` to pass instead.

    Returns
    -------
    Explanation
        Of the first label (``labels[0]``): ``words``, ``beta`` (intercept first, length d + 1), ``exact``,
        ``method``, ``stderr`` (None when exact), ``notes``, ``as_list(label=...)``, ``for_label``, ``to_frame()``,
        ``plot()``, ``lime_spread(n)``, ``to_lime()`` (lime's own Explanation of every label).

    Raises
    ------
    TypeError
        ``model`` neither a Pipeline nor a callable, ``text`` not a str, a non-integer ``label``/``labels``/
        ``top_labels``/``num_features``/``num_samples``, a bad ``random_state``, ``label`` with ``labels``, a
        bandwidth passed as ``nu=``, ``output`` with a classifier_fn, bad text-mode arguments, a classifier_fn
        that returns something other than numbers.
    ValueError
        An unfitted model, a label out of range, an ``output`` the model lacks, a document with fewer than 2
        words, a classifier_fn whose output is not (n,) or (n, k) or not finite, a named ``method`` that does not
        apply (with the reason).

    Warns
    -----
    UserWarning
        ``kernel_width`` < 1; lime at ``num_samples`` concentrating more than 2 of its standard deviations away from
        the limit.

    Examples
    --------
    >>> from sklearn.feature_extraction.text import TfidfVectorizer
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.pipeline import make_pipeline
    >>> docs = ["good food", "bad food", "good service", "slow service", "good staff", "bad staff"]
    >>> model = make_pipeline(TfidfVectorizer(), LogisticRegression()).fit(docs, [1, 0, 1, 0, 1, 0])
    >>> e = explain(model.decision_function, "Good food, bad service")
    >>> e.method, e.exact, e.words
    ('linear', True, ['Good', 'food', 'bad', 'service'])
    >>> [(word, round(weight, 2) + 0.0) for word, weight in e.as_list()]
    [('Good', 0.43), ('bad', -0.4), ('food', 0.0), ('service', 0.0)]
    >>> enumerated = explain(lambda docs: model.decision_function(docs), "Good food, bad service")
    >>> enumerated.method, bool(np.abs(e.beta - enumerated.beta).max() < 1e-12)  # the same limit, all 15 masks
    ('enumeration', True)
    >>> both = explain(model.predict_proba, "Good food, bad service", labels=(0, 1), num_features=2)
    >>> both.labels, [word for word, _ in both.as_list(label=0)]
    ((0, 1), ['Good', 'bad'])
    """
    if unexpected:
        if "nu" in unexpected:
            raise TypeError(
                "explain takes lime's unit: kernel_width = 100 ν (kernel_width=25 is nu=0.25); got nu="
                f"{unexpected['nu']!r}; pass kernel_width={100 * unexpected['nu']!r} instead"
                if isinstance(unexpected["nu"], (int, float))
                else f"explain takes lime's unit, kernel_width = 100 ν, not nu= (got nu={unexpected['nu']!r})"
            )
        raise TypeError(f"explain() got unexpected keyword arguments {sorted(unexpected)}")
    reader = read_model(model, output)
    mode = check_mode(bow, split_expression, mask_string, char_level)
    mode = None if mode.is_default else mode
    if mode is None:
        text, words = check_words(text)
    else:
        words = mode_features(text, mode)
    kernel_width = check_positive_finite(kernel_width, "kernel_width")
    if not isinstance(method, str) or method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r:.80}")
    method = "monte_carlo" if method == "estimate" else method
    lime_n = LIME_NUM_SAMPLES if num_samples is None else check_int(num_samples, "num_samples", minimum=1)
    if max_calls is not None:
        max_calls = check_int(max_calls, "max_calls", minimum=2)
    tol = check_positive_finite(tol, "tol")
    progress = check_bool(progress, "progress")
    if max_work is not None:
        max_work = check_positive_finite(max_work, "max_work")
    if num_features is not None:
        num_features = check_int(num_features, "num_features", minimum=1)
    seed = resolve_random_state(random_state)
    if kernel_width < 1:
        warnings.warn(
            f"kernel_width={kernel_width:g} is lime's unit, ν = kernel_width / 100 = {kernel_width / 100:g}; the "
            f"paper's ν = {kernel_width:g} is kernel_width={100 * kernel_width:g}",
            UserWarning,
            stacklevel=2,
        )
    d, nu = len(words), kernel_width / 100.0
    rng = np.random.default_rng(seed)
    names = ("linear", "trees", "enumeration") if method == "auto" else (method,)
    truth = None
    score_masks = mask_scores(text, reader, None if mode is None else mode_documents(text, mode))
    if "linear" in names and _linear_possible(reader):
        # the linear route's check masks start with the document itself (no word removed): one call gives both
        check_masks = _self_check_masks(d, rng)
        truth = (check_masks, score_masks(check_masks))
        outputs = truth[1][0]
    else:
        outputs = None  # lime's first row, the model on the document, only when something needs it
    columns = _declared_columns(reader) if outputs is None else len(outputs)
    if columns is None or (top_labels and outputs is None):
        outputs = score_masks(np.ones((1, d), dtype=np.int8))[0]
        columns = len(outputs)
    score_masks = mask_scores(text, reader, None if mode is None else mode_documents(text, mode), columns)
    chosen, top = resolve_labels(label, labels, top_labels, outputs, columns)
    results, reasons = {}, {c: [] for c in chosen}
    enumerated = None
    for current in chosen:
        for name in names:
            if name == "monte_carlo":
                break
            try:
                if name == "enumeration":
                    if d > MAX_ENUMERATION_WORDS:
                        unit = "distinct words" if mode is None else mode.unit
                        raise RouteUnavailable(f"the document has d = {d} > {MAX_ENUMERATION_WORDS} {unit}")
                    if enumerated is None:  # every mask once, for every label
                        z, s, prob = all_masks(d)
                        enumerated = (z, s, prob, score_masks(z))
                    z, s, prob, values = enumerated
                    sample = MaskSample(z, values[:, current], prob, kernel_weights(d, nu=nu)[s - 1], True)
                    beta = beta_enumerate(_lookup(sample), d, nu=nu)
                    results[current] = (name, beta, _column(score_masks, current), sample)
                    break
                with work_limit(max_work) if max_work is not None else contextlib.nullcontext():
                    beta, model_of_masks = _exact_beta(
                        name, reader, text, current, nu, rng, score_masks, d, mode, truth
                    )
            except RouteUnavailable as why:
                reasons[current].append(f"{name}: {why}")
                continue
            except ValueError as error:  # a closed route above the work or memory limit: the estimate answers
                reasons[current].append(f"{name}: {_work_note(error, name)}")
                continue
            if not np.isfinite(beta).all():
                reasons[current].append(f"{name}: its result is not finite")
                continue
            results[current] = (name, beta, model_of_masks, None)
            break
    missing = [c for c in chosen if c not in results]
    if missing and method not in ("auto", "monte_carlo"):
        raise ValueError(
            f"method={method!r} does not apply to this model and document: {'; '.join(reasons[missing[0]])}"
        )
    estimates = {}
    if missing:
        estimates = _estimates(
            reader, text, score_masks, d, nu, missing, mode=mode, lime_n=lime_n, tol=tol, max_calls=max_calls,
            seed=seed, progress=progress,
            controls_of=lambda c: explain_controls(reader.pipeline, text, reader.output, c, nu, mode),
        )  # fmt: skip
    common = dict(
        words=words,
        kernel_width=kernel_width,
        output=reader.output,
        random_state=seed,
        lime_num_samples=lime_n,
        labels=chosen,
        document_outputs=outputs,
        scores_fn=score_masks,
        _shared={},
        top_labels=top,
        num_features=num_features,
        class_names=reader.class_names,
        text=text,
        mode=mode,
    )
    family = {}
    for current in chosen:
        if current in results:
            name, beta, model_of_masks, sample = results[current]
            family[current] = Explanation(
                beta=beta,
                exact=True,
                method=name,
                stderr=None,
                label=current,
                num_samples=None,
                sample=sample,
                notes=tuple(reasons[current]),
                mask_fn=model_of_masks,
                **common,
            )
        else:
            estimate, scores, rows = estimates[current]
            family[current] = Explanation(
                beta=estimate.beta,
                exact=False,
                method="monte_carlo",
                stderr=estimate.stderr,
                label=current,
                num_samples=estimate.calls,
                sample=estimate.sample,
                notes=(*reasons[current], rows, estimate.note),
                mask_fn=scores,
                **common,
            )
    for member in family.values():
        member._family.update(family)
    return agreement_notes(family[chosen[0]], stacklevel=2)


def _lookup(sample):
    """The mask function of an enumerated sample: rows of ``all_masks`` are in binary order, so a mask is its code."""
    weights = 1 << np.arange(sample.z.shape[1], dtype=np.int64)
    return lambda z: sample.f[np.asarray(z, dtype=np.int64) @ weights]


# ----------------------------------------------------------------------------- the readers Shapley values share
# (limetheory.pipelines.shapley_values reads a Pipeline through these; explain reads models through blackbox)

#: relative agreement required by self_check between a reconstruction and the real pipeline
_SELF_CHECK_RTOL = 1e-9


def check_pipeline(model):
    """The pipeline's vectorizer, after checking that ``model`` is a fitted Pipeline that starts with one."""
    if not isinstance(model, Pipeline):
        raise TypeError(
            "model must be a fitted scikit-learn Pipeline whose first step is a CountVectorizer or TfidfVectorizer, "
            f"got {type(model).__name__}"
        )
    vectorizer = model.steps[0][1]
    if not isinstance(vectorizer, CountVectorizer):
        raise TypeError(
            "model's first step must be a scikit-learn CountVectorizer or TfidfVectorizer (the words lime removes "
            f"must be the words the model reads), got {type(vectorizer).__name__}"
        )
    try:
        check_is_fitted(vectorizer, "vocabulary_")
        if isinstance(vectorizer, TfidfVectorizer) and vectorizer.use_idf:
            check_is_fitted(vectorizer, "idf_")
        final = model.steps[-1][1]
        if final is not None and final != "passthrough":
            check_is_fitted(final)
    except NotFittedError:
        raise ValueError("model must be a fitted Pipeline (call model.fit first)") from None
    return vectorizer


def output_function(model, output):
    """Documents -> the model's ``output`` as an (n, columns) array (a binary decision_function as (-score, score))."""
    if not isinstance(output, str) or output not in OUTPUTS:
        raise ValueError(f"output must be one of {OUTPUTS}, got {output!r:.80}")
    if not hasattr(model, output):
        available = [name for name in OUTPUTS if hasattr(model, name)]
        raise ValueError(f"output={output!r}: the model has no {output}; its outputs are {available}")
    if output == "predict" and is_classifier(model):
        raise ValueError(
            "output='predict' of a classifier returns class labels, not a score; use 'predict_proba' or "
            "'decision_function'"
        )
    method = getattr(model, output)

    def columns(documents):
        values = np.asarray(method(documents), dtype=float)
        if values.ndim == 1:
            # a binary decision_function is the score of classes_[1]: column 1 is it, column 0 its opposite
            values = np.column_stack([-values, values]) if output == "decision_function" else values[:, None]
        return values

    return columns


def pipeline_mask_function(text, columns, label, documents_of=None):
    """Masks (m, d) -> the pipeline's output ``label`` on lime's perturbed documents (each distinct mask once).

    ``documents_of`` builds lime's strings for another text mode (``limetheory.pipelines.modes.mode_documents``).
    """

    def f(z):
        z = np.asarray(z, dtype=np.int8)
        unique, inverse = np.unique(z, axis=0, return_inverse=True)
        values = np.empty(len(unique))
        for start in range(0, len(unique), _BATCH):
            batch = unique[start : start + _BATCH]
            documents = perturbed_documents(text, batch) if documents_of is None else documents_of(batch)
            out = columns(documents)[:, label]
            if not np.isfinite(out).all():
                raise ValueError("the model returned a non-finite value (NaN or inf) on a perturbed document")
            values[start : start + _BATCH] = out
        return values[inverse.ravel()]

    return f


class LinearColumns:
    """The model as a linear function of the words' TF-IDF columns, read from the vectorizer and ``coef_``."""

    def __init__(self, model, vectorizer, text, output, label, mode=None):
        if len(model.steps) != 2:
            raise RouteUnavailable("the pipeline has steps between the vectorizer and the model")
        estimator = model.steps[1][1]
        if not (hasattr(estimator, "coef_") and hasattr(estimator, "intercept_")):
            raise RouteUnavailable(f"{type(estimator).__name__} has no coef_ and intercept_")
        wanted = "predict" if not is_classifier(estimator) else "decision_function"
        if output != wanted:
            raise RouteUnavailable(f"output={output!r} is not linear in the features (the linear output is {wanted!r})")
        coef = estimator.coef_
        coef = np.atleast_2d(coef.toarray() if hasattr(coef, "toarray") else np.asarray(coef, dtype=float))
        intercept = np.atleast_1d(np.asarray(estimator.intercept_, dtype=float))
        self.sign = 1.0
        row = label
        if is_classifier(estimator) and coef.shape[0] == 1:  # binary: columns (-score, score)
            row, self.sign = 0, (1.0 if label == 1 else -1.0)
        self.coef, self.intercept = coef[row], float(intercept[row] if intercept.size > 1 else intercept[0])
        features = None
        try:
            if mode is None:
                columns, counts = word_columns(text, vectorizer)
            else:  # lime's features of another text mode (limetheory.pipelines.modes): occurrences, other splits
                features = linear_features(text, vectorizer, mode)
                columns, counts = features.columns, features.counts
        except ValueError as error:
            raise RouteUnavailable(f"the vectorizer cannot be mirrored word by word: {error}") from None
        # bow=False: a removed occurrence adds the mask token, a column when the vocabulary has it (affine on counts)
        self.mask_weight = 0.0
        if features is not None:
            refusal = mask_token_refusal(vectorizer, features)
            if refusal is not None:
                raise RouteUnavailable(refusal)
            self.mask_weight = self.sign * mask_token_weight(vectorizer, features, self.coef)
        values = counts.astype(float)
        shared = _shared(columns)
        if vectorizer.binary or getattr(vectorizer, "sublinear_tf", False):
            if shared.any():
                raise RouteUnavailable("binary or sublinear counts of words that share a column are not sums")
            values = np.ones_like(values) if vectorizer.binary else 1.0 + np.log(values)
        if isinstance(vectorizer, TfidfVectorizer) and vectorizer.use_idf:
            values = values * np.where(columns >= 0, vectorizer.idf_[np.maximum(columns, 0)], 0.0)
        self.norm = vectorizer.norm if isinstance(vectorizer, TfidfVectorizer) else None
        self.columns = columns
        self.values = np.where(columns >= 0, values, 0.0)
        self.lam = self.sign * np.where(columns >= 0, self.coef[np.maximum(columns, 0)], 0.0)
        # a label per column, and a label of its own for each invisible word
        self.groups = np.where(columns >= 0, columns, -1 - np.arange(len(columns)))

    def __call__(self, z):
        """The model's output on the masks z, from the words' columns (no string is built)."""
        z = np.asarray(z, dtype=float)
        labels, group_of_word = np.unique(self.groups, return_inverse=True)
        per_group = np.zeros((len(z), len(labels)))
        np.add.at(per_group.T, group_of_word, (z * self.values).T)
        lam_of_group = np.zeros(len(labels))
        lam_of_group[group_of_word] = self.lam
        raw = per_group @ lam_of_group
        if self.norm is not None:
            norms = np.sqrt((per_group**2).sum(axis=1)) if self.norm == "l2" else per_group.sum(axis=1)
            raw = np.divide(raw, norms, out=np.zeros_like(raw), where=norms > 0)
        return raw + self.sign * self.intercept + self.mask_weight * (z.shape[1] - z.sum(axis=1))

    def beta(self, nu):
        """LIME's exact limit β of this linear model at bandwidth ν (intercept first)."""
        d = len(self.values)
        beta = np.zeros(d + 1)
        if (self.values > 0).any():  # else no word the model sees: a constant
            try:
                beta = beta_linear_exact(self.lam, self.values, nu=nu, groups=self.groups, norm=self.norm)
            except ValueError as error:  # e.g. more words in one column than the grouped recursion takes
                raise RouteUnavailable(f"beta_linear_exact refuses this document: {error}") from None
        beta[0] += self.sign * self.intercept + self.mask_weight * d  # the mask token's count is d - Σz
        beta[1:] -= self.mask_weight
        return beta


def _shared(columns):
    visible = columns[columns >= 0]
    counts = np.bincount(visible) if visible.size else np.zeros(0, dtype=np.int64)
    return (columns >= 0) & (counts[np.maximum(columns, 0)] > 1) if visible.size else np.zeros(len(columns), bool)


def _self_check_masks(d, rng):
    """The masks of the self-check: nothing, one, all but one and all words removed, and random sizes."""
    sizes = np.concatenate([[0, 1, d - 1, d], rng.integers(1, d + 1, size=_SELF_CHECK_MASKS - 4)])
    return masks_removing(sizes, d, rng)


def _reproduces(ours, truth):
    scale = max(1.0, float(np.abs(truth).max()))
    return bool(np.allclose(ours, truth, rtol=_SELF_CHECK_RTOL, atol=_SELF_CHECK_RTOL * scale))


def self_check(route, reconstruction, mask_fn, d, rng):
    """Refuse an exact route whose reconstruction of the model differs from the real pipeline on a few masks."""
    z = _self_check_masks(d, rng)
    if not _reproduces(reconstruction(z), mask_fn(z)):
        raise RouteUnavailable(f"the {route} reconstruction does not reproduce the pipeline's output")


def _known_columns(model, output):
    """The number of columns of the output, read from the fitted model when it says (None: ask the model)."""
    classes = getattr(model.steps[-1][1], "classes_", None)
    if output in ("predict_proba", "decision_function") and classes is not None and np.ndim(classes) == 1:
        return len(classes)  # a binary decision_function is given two columns, (-score, score)
    return None


def check_label(model, output, columns, text, label):
    """``label`` as an int in range; the model is called on the document only when its outputs are not declared."""
    label = check_int(label, "label", minimum=0)
    n_columns = _known_columns(model, output)
    if n_columns is None:
        n_columns = columns([text]).shape[1]
    if label >= n_columns:
        raise ValueError(
            f"label must be in 0..{n_columns - 1} (the model's output has {n_columns} columns), got {label}"
        )
    return label


def explain_linear_many(model, texts, *, kernel_width=25, label=1, output="predict_proba", random_state=0):
    """:func:`explain`'s linear route for many documents: the pipeline read once, one call for all the self-checks.

    For each text, the :class:`Explanation` that ``explain(model, text, kernel_width=kernel_width, label=label,
    output=output, random_state=random_state)`` returns when its first route, the linear one, applies (the same
    β, computed by the same code, so equal bit for bit), or None where explain would not take it or would raise
    (fewer than 2 words, a model that is not linear in the columns, a self-check that fails, a non-finite value):
    call :func:`explain` on those to learn why.  Per document, explain calls the pipeline once for its
    self-check; here one call serves every document (``limetheory.pipelines.corpus`` explains a chunk with it).

    Parameters
    ----------
    model : sklearn.pipeline.Pipeline
        As for :func:`explain`.
    texts : sequence of str
        The documents.
    kernel_width, label, output, random_state
        As for :func:`explain` (the self-check's masks come from ``random_state``, as there).

    Returns
    -------
    list of Explanation or None
        One entry per text.

    Examples
    --------
    >>> from sklearn.feature_extraction.text import TfidfVectorizer
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.pipeline import make_pipeline
    >>> docs = ["good food", "bad food", "good service", "slow service"]
    >>> model = make_pipeline(TfidfVectorizer(), LogisticRegression()).fit(docs, [1, 0, 1, 0])
    >>> many = explain_linear_many(model, ["good food, bad service", "good"], output="decision_function")
    >>> one = explain(model, "good food, bad service", output="decision_function")
    >>> bool((many[0].beta == one.beta).all()), many[1]
    (True, None)
    """
    # explain's defaults: output None is a Pipeline's predict_proba, label None lime's label 1
    output = "predict_proba" if output is None else output
    label = 1 if label is None else label
    vectorizer = check_pipeline(model)
    kernel_width = check_positive_finite(kernel_width, "kernel_width")
    random_state = check_int(random_state, "random_state", minimum=0, maximum=2**63 - 1)
    columns = output_function(model, output)
    nu = kernel_width / 100.0
    pending = []  # (position, text, words, label, linear model, masks, their unique rows, inverse)
    for position, text in enumerate(texts):
        try:
            text, words = check_words(text)
            text_label = check_label(model, output, columns, text, label)
            linear = LinearColumns(model, vectorizer, text, output, text_label)
        except (RouteUnavailable, ValueError, TypeError):
            continue
        z = _self_check_masks(len(words), np.random.default_rng(random_state))
        unique, inverse = np.unique(z.astype(np.int8), axis=0, return_inverse=True)
        pending.append((position, text, words, text_label, linear, z, unique, inverse.ravel()))
    results = [None] * len(texts)
    if not pending:
        return results
    documents = [document for item in pending for document in perturbed_documents(item[1], item[6])]
    values = np.concatenate([columns(documents[start : start + _BATCH]) for start in range(0, len(documents), _BATCH)])
    start = 0
    for position, _, words, text_label, linear, z, unique, inverse in pending:
        truth = values[start : start + len(unique), text_label][inverse]
        start += len(unique)
        if not np.isfinite(truth).all() or not _reproduces(linear(z), truth):
            continue
        try:
            beta = linear.beta(nu)
        except RouteUnavailable:
            continue
        if not np.isfinite(beta).all():
            continue
        results[position] = Explanation(
            words=words,
            beta=beta,
            exact=True,
            method="linear",
            stderr=None,
            kernel_width=kernel_width,
            output=output,
            label=text_label,
            num_samples=None,
            notes=(),
            mask_fn=linear,
            random_state=random_state,
        )
    return results
