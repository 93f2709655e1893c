r"""``explain``: the explanation lime converges to, for a fitted scikit-learn text pipeline.

The entry point reads the pipeline (its vectorizer, its final estimator, the output asked for), then takes the
first route that applies:

``"linear"``
    a model linear in the vectorizer's columns (``coef_`` and ``intercept_``: LogisticRegression, LinearSVC,
    SGDClassifier, RidgeClassifier, linear regressors) read through ``decision_function`` (``predict`` for a
    regressor): exact, :func:`limetheory.theory.linear_exact.beta_linear_exact` on the words' TF-IDF weights (words
    that share a column as groups), or in closed form when the columns are not normalised (the model is then
    affine in the mask);
``"trees"``
    decision trees and tree ensembles whose splits are functions of which words are present: exact, the law of
    s over the leaves (``limetheory.pipelines.leaves``);
``"enumeration"``
    any model on a document of at most 14 distinct words: exact, all 2ᵈ - 1 masks through the real pipeline;
``"monte_carlo"``
    anything else: an unbiased estimate with standard errors (``limetheory.pipelines.montecarlo``).

The routes stay tied to the real pipeline: the linear route must reproduce its output on the document and on a
few perturbed documents before its β is trusted; the tree route reads only splits that ``limetheory.pipelines.leaves``
has checked to be functions of which words are present (its tests compare it with enumeration); the enumeration and
Monte Carlo routes call the pipeline on lime's own perturbed strings
(:func:`limetheory.engine.tokens.perturbed_documents`).
"""

from __future__ import annotations

import numpy as np
from sklearn.base import is_classifier
from sklearn.exceptions import NotFittedError
from sklearn.feature_extraction.text import CountVectorizer, TfidfVectorizer
from sklearn.pipeline import Pipeline
from sklearn.utils.validation import check_is_fitted

from .._validation import check_int, check_positive_finite, check_text
from ..engine.tokens import local_dictionary, perturbed_documents, word_columns
from ..theory.explanation import beta_enumerate
from ..theory.linear_exact import beta_linear_exact
from .estimate_route import estimate_explanation
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
from .montecarlo import enumerated_sample, masks_removing
from .result import Explanation

OUTPUTS = ("predict_proba", "decision_function", "predict")
METHODS = ("auto", "linear", "trees", "enumeration", "monte_carlo")
#: largest number of distinct words for which every mask is enumerated (16383 model calls)
MAX_ENUMERATION_WORDS = 14
#: masks of the Monte Carlo route by default: its standard errors are then a few percent of lime's own spread
#: at lime's default n = 5000 (see the docstring of ``explain``)
DEFAULT_MONTE_CARLO_SAMPLES = 20_000
#: most masks the Monte Carlo route draws (their perturbed documents and the model's outputs are held in memory)
MAX_MONTE_CARLO_SAMPLES = 10**6
#: documents per call of the pipeline
_BATCH = 4096
#: relative agreement required between an exact route's reconstruction and the real pipeline (rounding of sums
#: over a few hundred words, far below any change a different model would make)
_SELF_CHECK_RTOL = 1e-9
#: perturbed documents on which an exact route is checked against the pipeline, besides the document itself
_SELF_CHECK_MASKS = 8


class RouteUnavailable(Exception):
    """A route does not apply to this model and document (the reason is the message)."""


# ----------------------------------------------------------------------------- reading the pipeline


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


# ----------------------------------------------------------------------------- the linear route


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


# ----------------------------------------------------------------------------- routing


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


def _exact_route(name, model, vectorizer, text, output, label, nu, mask_fn, d, rng, mode=None):
    """(β, the model as a function of the masks): β None for enumeration, which the caller does with its sample.

    The linear route returns its reconstruction of the model from the words' columns (checked against the
    pipeline): it evaluates masks without building strings, for lime's spread.
    """
    if name == "linear":
        linear = LinearColumns(model, vectorizer, text, output, label, mode)
        self_check("linear", linear, mask_fn, d, rng)
        return linear.beta(nu), linear
    if name == "trees":
        return _tree_beta(model, vectorizer, text, output, label, nu, mode), mask_fn
    if d > MAX_ENUMERATION_WORDS:
        unit = "distinct words" if mode is None else mode.unit
        raise RouteUnavailable(f"the document has d = {d} > {MAX_ENUMERATION_WORDS} {unit}")
    return None, mask_fn


def explain_controls(model, text, output, label, nu, mode=None):
    """Control variates with an exact β for the Monte Carlo route: ((g, β_g),) or ().

    For ``predict_proba`` of a model whose decision function is linear in the columns (e.g. a logistic regression),
    g is that decision function, computed from the words' columns (no string is built) and β_g its exact linear β:
    the probability is a smooth function of it, so it carries most of the variance.  Other models get none (the
    affine control of ``limetheory.pipelines.montecarlo.estimate_beta`` remains).
    """
    if output != "predict_proba":
        return ()
    try:
        n_classes = len(getattr(model.steps[-1][1], "classes_", ()))
        linear = LinearColumns(model, model.steps[0][1], text, "decision_function", label if n_classes > 2 else 1, mode)
        return ((linear, linear.beta(nu)),)
    except (RouteUnavailable, ValueError, TypeError, IndexError):
        return ()


def explain(
    model,
    text,
    *,
    kernel_width=25,
    label=1,
    output="predict_proba",
    num_samples=None,
    random_state=0,
    method="auto",
    bow=True,
    split_expression=LIME_SPLIT,
    mask_string=None,
    char_level=False,
    tol=0.1,
    max_calls=None,
    progress=True,
    **unexpected,
):
    r"""The explanation lime converges to for ``model`` on ``text``: exact where a closed route exists.

    lime's coefficients for one document, with every word kept, concentrate as its number of samples grows
    around :math:`\beta^f = \Sigma^{-1} \Gamma^f` (the paper's Proposition 2).  This function computes that limit
    for a fitted scikit-learn ``Pipeline`` whose first step is a ``CountVectorizer`` or ``TfidfVectorizer``, by
    the first route that applies (module docstring): ``"linear"`` (a model linear in the columns, read through
    ``decision_function`` or a regressor's ``predict``), ``"trees"`` (trees and ensembles whose splits are
    functions of which words are present), ``"enumeration"`` (any model, d <= 14), then ``"monte_carlo"``.

    The estimate route (``"monte_carlo"``) is unbiased, with standard errors that the sample gives: Σ⁻¹ is exact
    and Γ is averaged over masks stratified on the number of removed words, with exact control variates refitted
    batch after batch, the model's own decision function when it has a linear one, and a linked surrogate
    (``limetheory.pipelines.estimate``).  It draws until every standard error is at most ``tol`` times lime's standard
    deviation at ``num_samples``, or until ``max_calls`` is spent, and ``notes`` say what it reached.  A pipeline
    whose first step is a Count, Tfidf or Hashing vectorizer is scored from the document's counts, without
    building strings (``limetheory.pipelines.count_rows``); a ``benchmarks/any_classifier_speed.py`` run times it.

    Parameters
    ----------
    model : sklearn.pipeline.Pipeline
        Fitted; its first step a ``CountVectorizer`` or ``TfidfVectorizer`` (the words lime removes are the
        words the model reads).
    text : str
        The document, with at least 2 distinct words (lime's tokens).
    kernel_width : float
        lime's kernel width (> 0; default 25, lime's default); the paper's ν is kernel_width / 100.  This entry
        point takes lime's unit only: ``nu=`` is refused.
    label : int
        The column of the output explained, as lime's ``labels``: a class index for ``predict_proba`` and for a
        multi-class ``decision_function``; for a binary ``decision_function`` 1 is the score of ``classes_[1]``
        and 0 its opposite; 0 for a single-output regressor's ``predict``.
    output : {"predict_proba", "decision_function", "predict"}
        Which output of the model is explained (``"predict"`` for regressors only).
    num_samples : int or None
        lime's n against which the estimate route sets its precision (default 5000, lime's default).  The exact
        routes need none and ignore it (the result's ``num_samples`` is then None; on the estimate route it is
        the number of model calls made).
    tol : float
        The estimate route draws until every standard error is at most ``tol`` times lime's standard deviation at
        ``num_samples`` (default 0.1), or until ``max_calls`` is spent (``limetheory.estimate``).
    max_calls : int or None
        The estimate route's budget of model calls; None: 200 lime runs' worth when the rows come from the
        vectorizer's counts (cheap calls), 10 otherwise.
    progress : bool
        A progress bar on estimate work that lasts more than about 2 s.
    random_state : int
        Seed (>= 0) of the Monte Carlo route and of the masks behind an estimated lime spread.
    method : {"auto", "linear", "trees", "enumeration", "monte_carlo"}
        The route: "auto" takes the first that applies; a named route is taken or refused with the reason.
    bow, split_expression, mask_string, char_level
        lime's text modes, with ``LimeTextExplainer``'s names and defaults (``limetheory.pipelines.modes``).  With
        ``bow=False`` each occurrence is a feature (``words`` lists them in text order) and a removed one is
        replaced by ``mask_string`` ('UNKWORDZ' when None), a word of the model when its vocabulary has it; a
        ``split_expression`` (regular expression or callable) changes lime's words, which must remain whole tokens
        of the vectorizer for the linear and tree routes; with ``char_level=True`` the features are characters
        and only enumeration (d <= 14) or Monte Carlo apply.  The linear route takes ``bow=False`` and other splits
        (a column counts the kept occurrences; the mask token's count, the removed ones, exactly on unnormalised
        counts; refused with a norm), and so does the tree route (a word is present when one of its kept
        occurrences is); what does not apply is noted in ``notes``.
    **unexpected
        Not accepted: caught only to refuse ``nu=`` (the paper's unit) with a message that gives the
        ``kernel_width`` to pass instead.

    Returns
    -------
    Explanation
        ``words``, ``beta`` (intercept first, length d + 1), ``exact``, ``method``, ``stderr`` (None when exact),
        ``as_list()``, ``to_frame()``, ``plot()``, ``lime_spread(num_samples)``.

    Raises
    ------
    TypeError
        ``model`` not a Pipeline, its first step not a Count/TfidfVectorizer, ``text`` not a str, a non-integer
        ``label``/``num_samples``/``random_state``, a bandwidth passed as ``nu=``; ``bow`` or ``char_level`` not a
        bool, ``split_expression`` neither a str nor a callable, ``mask_string`` neither None nor a str.
    ValueError
        An unfitted model, a ``label`` out of range, an ``output`` the model lacks, a document with fewer than 2
        words, a named ``method`` that does not apply (with the reason), too few ``num_samples`` for the document.

    Examples
    --------
    >>> from sklearn.feature_extraction.text import TfidfVectorizer
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.pipeline import make_pipeline
    >>> docs = ["good food", "bad food", "good service", "slow service", "good staff", "bad staff"]
    >>> model = make_pipeline(TfidfVectorizer(), LogisticRegression()).fit(docs, [1, 0, 1, 0, 1, 0])
    >>> e = explain(model, "Good food, bad service", output="decision_function")
    >>> e.method, e.exact, e.words
    ('linear', True, ['Good', 'food', 'bad', 'service'])
    >>> [(word, round(weight, 2) + 0.0) for word, weight in e.as_list()]
    [('Good', 0.43), ('bad', -0.4), ('food', 0.0), ('service', 0.0)]
    >>> enumerated = explain(model, "Good food, bad service", output="decision_function", method="enumeration")
    >>> bool(np.abs(e.beta - enumerated.beta).max() < 1e-12)  # the same limit, over all 15 masks
    True
    >>> occurrences = explain(model, "Good food, good service", output="decision_function", bow=False)
    >>> occurrences.words, occurrences.method  # bow=False: one feature per occurrence, still exact
    (['Good', 'food', 'good', 'service'], 'linear')
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
    vectorizer = check_pipeline(model)
    mode = check_mode(bow, split_expression, mask_string, char_level)
    mode = None if mode.is_default else mode
    if mode is None:
        text, words = check_words(text)
    else:
        words = mode_features(text, mode)
    kernel_width = check_positive_finite(kernel_width, "kernel_width")
    if not isinstance(method, str) or method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r:.80}")
    if num_samples is not None:
        num_samples = check_int(num_samples, "num_samples", minimum=2, maximum=MAX_MONTE_CARLO_SAMPLES)
    random_state = check_int(random_state, "random_state", minimum=0, maximum=2**63 - 1)
    columns = output_function(model, output)
    label = check_label(model, output, columns, text, label)
    d, nu = len(words), kernel_width / 100.0
    mask_fn = pipeline_mask_function(text, columns, label, None if mode is None else mode_documents(text, mode))
    rng = np.random.default_rng(random_state)
    common = dict(
        words=words,
        kernel_width=kernel_width,
        output=output,
        label=label,
        mask_fn=mask_fn,
        random_state=random_state,
    )
    reasons = []
    for name in ("linear", "trees", "enumeration") if method == "auto" else (method,):
        if name == "monte_carlo":
            break
        try:
            beta, model_of_masks = _exact_route(name, model, vectorizer, text, output, label, nu, mask_fn, d, rng, mode)
        except RouteUnavailable as why:
            reasons.append(f"{name}: {why}")
            continue
        if beta is not None and not np.isfinite(beta).all():
            reasons.append(f"{name}: its result is not finite")
            continue
        sample = None
        if beta is None:  # enumeration: the sample of all masks gives beta and, later, lime's exact spread
            sample = enumerated_sample(mask_fn, d, nu)
            beta = beta_enumerate(_lookup(sample), d, nu=nu)
        return Explanation(
            beta=beta,
            exact=True,
            method=name,
            stderr=None,
            num_samples=None,
            sample=sample,
            notes=tuple(reasons),
            **{**common, "mask_fn": model_of_masks},
        )
    if method not in ("auto", "monte_carlo"):
        raise ValueError(f"method={method!r} does not apply to this model and document: {'; '.join(reasons)}")
    # ---- the estimate route (limetheory.estimate_route, issue 27 item 3): adaptive, to tol x lime's spread
    controls = explain_controls(model, text, output, label, nu, mode)
    estimate, scores, rows = estimate_explanation(
        model, text, output, label, nu, mask_fn, d, mode=mode, num_samples=num_samples, tol=tol,
        max_calls=max_calls, random_state=rng, progress=progress, controls=controls,
    )  # fmt: skip
    return Explanation(
        beta=estimate.beta,
        exact=False,
        method="monte_carlo",
        stderr=estimate.stderr,
        num_samples=estimate.calls,
        sample=estimate.sample,
        notes=(*reasons, rows, estimate.note),
        **{**common, "mask_fn": scores},
    )
    # ---- end of the estimate route


def _lookup(sample):
    """The mask function of an enumerated sample: rows of ``all_masks`` are in binary order, so a mask is its code."""
    weights = 1 << np.arange(sample.z.shape[1], dtype=np.int64)
    return lambda z: sample.f[np.asarray(z, dtype=np.int64) @ weights]


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
