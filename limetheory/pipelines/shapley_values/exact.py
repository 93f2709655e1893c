r"""``shapley``: exact Shapley values of the words of a document for a fitted scikit-learn text pipeline.

The players are lime's features (its distinct words by default) and the value of a set S of them is the model
on the document keeping only the words of S, every occurrence of every other word removed: the string lime's
``IndexedString(text).inverse_removing`` builds (bow=True), so that :math:`v(S)` is exactly what lime's
regression sees for the mask of S.  The empty set is the document with every word removed (its separators only):
:math:`v(\emptyset)` is the ``base`` the values start from, and efficiency reads
:math:`\sum_j \phi_j = f(x) - v(\emptyset)`.  This is the value function KernelSHAP's limit is the Shapley value
of (chapter "LIME and SHAP on text"), and the one shap computes with a masker that deletes words.

Routes, the first that applies:

``"linear"``
    a model linear in the vectorizer's columns read through ``decision_function`` (``predict`` for a regressor),
    normalised TF-IDF and shared columns included: the conditional moments by size of
    :func:`limetheory.conditional_moments_linear_exact` under Shapley's size weights
    (:mod:`limetheory.theory.shapley_sizes`); without a norm, :math:`\phi_j = \lambda_j t_j` in closed form;
``"trees"``
    trees and tree ensembles on presence features: the law over leaves
    (:func:`limetheory.conditional_moments_trees`) under the same weights;
``"enumeration"``
    any model, d <= 14: all 2ᵈ sets through the real pipeline;
``"permutation"``
    anything else: an unbiased estimate from random orders of the words with their reversals (antithetic
    pairs), with standard errors; each order's marginal contributions sum to :math:`f(x) - v(\emptyset)`, so
    efficiency holds for the estimate too (reported as ``efficiency_gap``).  Chosen over KernelSHAP with paired
    sampling because it measures better: at 4000 model evaluations its mean squared error was a tenth of
    shap's ``KernelExplainer`` (9.5x at d = 29, 11x at d = 100, the Yelp TF-IDF logistic model;
    ``benchmarks/shapley.py`` prints both).

The exact routes are tied to the real pipeline as ``explain``'s are: the linear reconstruction must reproduce the
pipeline on the document and on perturbed documents; the tree route's :math:`v(\emptyset)` and its means over the
documents with one word removed and with one word kept must be the pipeline's.
"""

from __future__ import annotations

import html
from dataclasses import dataclass

import numpy as np

from ..._validation import check_int, check_memory
from ...theory.linear.linear_exact import conditional_moments_linear_exact
from ...theory.shapley_sizes import shapley_enumerate, shapley_from_conditional_moments
from ..reading.blackbox import CLASSIFIER_FN, mask_scores, read_model
from ..reading.document import declared_columns
from ..reading.lime_arguments import resolve_labels
from ..reading.lime_call import LimeCall
from ..reading.modes import LIME_SPLIT, lime_features, mode_document_columns, mode_documents
from ..reading.pipeline_reading import (
    RouteUnavailable,
    check_label,
    check_pipeline,
    output_function,
    pipeline_mask_function,
    self_check,
    two_step_reading,
)
from ..results.word_table import word_table_html
from ..routes.leaves import conditional_moments_trees

METHODS = ("auto", "linear", "trees", "enumeration", "permutation")
#: largest number of words whose 2ᵈ sets are enumerated (16384 model calls)
MAX_ENUMERATION_WORDS = 14
#: model evaluations of the permutation route by default
DEFAULT_PERMUTATION_SAMPLES = 20_000
#: most model evaluations the permutation route makes
MAX_PERMUTATION_SAMPLES = 10**7
#: relative agreement required between the tree route's means and the pipeline's (rounding of sums over leaves)
_TREE_CHECK_RTOL = 1e-9
#: bytes of masks built at once by the permutation route
_PERMUTATION_BATCH_BYTES = 1 << 24


@dataclass(frozen=True, eq=False)  # arrays inside: equality is identity
class ShapleyValues:
    """The Shapley values of a document's words for one model output, and how they were obtained.

    Attributes
    ----------
    words : list of str
        lime's features of the document (its local dictionary by default), in lime's order.
    values : ndarray, shape (d,)
        φ, one per word: ``values[j]`` is the Shapley value of ``words[j]``.
    base : float
        v(∅): the model on the document with every word removed (its separators only).
    full : float
        f(x): the model on the document itself.
    exact : bool
        True when ``values`` are exact (to rounding), False for an estimate.
    method : str
        ``"linear"``, ``"trees"``, ``"enumeration"`` or ``"permutation"``.
    stderr : ndarray of shape (d,) or None
        Standard errors of an estimate (None when exact).
    output : str
        The model output explained.
    label : int
        Its column.
    num_samples : int or None
        Model evaluations behind an estimate (None when exact).
    notes : tuple of str
        Why each route tried before ``method`` did not apply.

    Examples
    --------
    >>> from sklearn.feature_extraction.text import CountVectorizer
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.pipeline import make_pipeline
    >>> import limetheory as lt
    >>> docs = ["good food", "bad food", "good staff", "bad staff"]
    >>> model = make_pipeline(CountVectorizer(), LogisticRegression()).fit(docs, [1, 0, 1, 0])
    >>> phi = lt.shapley(model, "good food, bad staff")
    >>> phi.method, phi.exact, phi.words
    ('enumeration', True, ['good', 'food', 'bad', 'staff'])
    >>> bool(abs(phi.efficiency_gap) < 1e-12)  # the values share f(x) - v(empty document)
    True
    >>> phi.to_frame().columns.tolist()
    ['shapley']
    """

    words: list
    values: np.ndarray
    base: float
    full: float
    exact: bool
    method: str
    stderr: np.ndarray | None
    output: str
    label: int
    num_samples: int | None = None
    notes: tuple = ()

    @property
    def efficiency_gap(self):
        """Σφ - (f(x) - v(∅)): rounding on the exact routes and the permutation route alike."""
        return float(self.values.sum() - (self.full - self.base))

    def as_list(self):
        """(word, φ) pairs, largest absolute value first (ties in lime's order), as lime's ``as_list()``.

        Returns
        -------
        list of (str, float)

        Examples
        --------
        >>> from limetheory.pipelines.shapley_values.exact import ShapleyValues
        >>> ShapleyValues(["a", "b"], np.array([0.1, -0.3]), 0.0, -0.2, True, "linear", None, "predict", 0).as_list()
        [('b', -0.3), ('a', 0.1)]
        """
        return [(self.words[j], float(self.values[j])) for j in self.word_order()]

    def word_order(self):
        """Word indices by decreasing absolute Shapley value (stable: ties in lime's word order)."""
        return np.argsort(-np.abs(self.values), kind="stable")

    def to_frame(self):
        """A pandas DataFrame indexed by ``word``: column ``shapley``, and ``stderr`` for an estimate."""
        import pandas as pd

        frame = pd.DataFrame({"word": self.words, "shapley": self.values})
        if self.stderr is not None:
            frame["stderr"] = self.stderr
        return frame.set_index("word")

    def plot(self, ax=None, *, max_words=20):
        """Bars of the Shapley values (the largest ``max_words`` in absolute value), ±2 standard errors if estimated.

        Parameters
        ----------
        ax : matplotlib Axes or None
            Where to draw (a new figure when None).
        max_words : int
            How many words to show (>= 1).

        Returns
        -------
        matplotlib Axes
        """
        import matplotlib.pyplot as plt

        max_words = check_int(max_words, "max_words", minimum=1)
        order = self.word_order()[:max_words][::-1]
        if ax is None:
            _, ax = plt.subplots(figsize=(6, 0.3 * len(order) + 1.2))
        positions = np.arange(len(order))
        values = self.values[order]
        error = None if self.stderr is None else 2 * self.stderr[order]
        ax.barh(positions, values, xerr=error, color=np.where(values >= 0, "tab:orange", "tab:blue"), alpha=0.8)
        ax.set_yticks(positions, [self.words[j] for j in order])
        ax.axvline(0.0, color="grey", linewidth=0.8)
        kind = "exact" if self.exact else "estimate, ±2 s.e."
        ax.set_xlabel(f"Shapley value ({self.output}[{self.label}], {kind}: {self.method})")
        return ax

    def _repr_html_(self):
        kind = "exact" if self.exact else f"estimate ({self.num_samples} model calls)"
        table = word_table_html(self.words, self.values, self.stderr, self.word_order())
        return (
            f"<div><b>Shapley values</b> of {html.escape(self.output)}[{self.label}]: {kind}, route "
            f"<code>{html.escape(self.method)}</code>, empty document {self.base:+.4g}, document {self.full:+.4g}"
            f"{table}</div>"
        )


# ----------------------------------------------------------------------------- exact routes


def _linear_route(model, vectorizer, text, output, label, mode, mask_fn, d, rng):
    linear = two_step_reading(model, vectorizer, text, output, label, mode)
    self_check("linear", linear, mask_fn, d, rng)
    full = float(linear(np.ones((1, d)))[0])
    base = float(linear(np.zeros((1, d)))[0])
    # linear.mask_weight (bow=False): a removed feature adds it, so each word's marginal contribution loses it
    if linear.norm is None or not (linear.values > 0).any():
        values = linear.lam * linear.values - linear.mask_weight
        return base, full, values
    f_given_s, zf_given_s = conditional_moments_linear_exact(
        linear.lam, linear.values, groups=linear.groups, norm=linear.norm
    )
    # the moments are those of the normalised part alone, 0 on the empty set
    part_full = full - linear.sign * linear.intercept
    values = shapley_from_conditional_moments(part_full, f_given_s, zf_given_s) - linear.mask_weight
    return base, full, values


def _close(ours, truth):
    scale = max(1.0, float(np.max(np.abs(truth))))
    return np.allclose(ours, truth, rtol=_TREE_CHECK_RTOL, atol=_TREE_CHECK_RTOL * scale)


def _tree_route(model, vectorizer, text, output, label, mode, mask_fn, d):
    if len(model.steps) != 2:
        raise RouteUnavailable("the pipeline has steps between the vectorizer and the model")
    estimator = model.steps[1][1]
    sign = 1.0
    if output == "decision_function" and len(getattr(estimator, "classes_", ())) == 2:
        label, sign = 1, (1.0 if label == 1 else -1.0)  # the binary score is classes_[1]'s; label 0 its opposite
    try:
        columns = None
        if mode is not None:
            width = getattr(estimator, "n_features_in_", None)
            columns = mode_document_columns(text, vectorizer, mode, n_features=width)
        f_given_s, zf_given_s = conditional_moments_trees(
            estimator, vectorizer, text, output=output, label=label, columns=columns
        )
    except (ValueError, TypeError) as error:
        raise RouteUnavailable(str(error)) from None
    f_given_s, zf_given_s = sign * f_given_s, sign * zf_given_s
    # tied to the pipeline: the empty document, and the means over the d documents with one word removed and
    # with one word kept (E[f | s = 1] and E[f | s = d - 1]) must be the pipeline's; one call of the pipeline for
    # all 2 + 2d documents (a forest's predict_proba costs tens of ms per call, whatever the rows)
    eye = np.eye(d, dtype=np.int8)
    values = mask_fn(np.vstack([np.ones((1, d)), np.zeros((1, d)), 1 - eye, eye]).astype(np.int8))
    full, base = float(values[0]), float(values[1])
    ours = np.array([base, f_given_s[0], f_given_s[d - 2]])
    truth = np.array([f_given_s[d - 1], float(values[2 : 2 + d].mean()), float(values[2 + d :].mean())])
    if not _close(ours, truth):
        raise RouteUnavailable("the leaves' law does not reproduce the pipeline's output")
    return base, full, shapley_from_conditional_moments(full, f_given_s, zf_given_s)


# ----------------------------------------------------------------------------- the estimate


def permutation_estimate(mask_fn, d, num_samples, rng):
    r"""Shapley values from random orders of the words and their reversals, with standard errors.

    An order π of the words gives every word its marginal contribution :math:`v(P_j \cup j) - v(P_j)` (P_j the
    words before j), whose mean over uniform orders is :math:`\phi_j`.  Each order is paired with its reversal
    (antithetic: a word early in one is late in the other, and its two contributions are negatively correlated
    when v's increments shrink as sets grow); the pairs are independent, so the standard error is that of their
    mean.  Each order's contributions telescope to :math:`v(N) - v(\emptyset)`: efficiency holds exactly.

    Parameters
    ----------
    mask_fn : callable
        Masks (m, d) -> m values of the model.
    d : int
        Number of words (>= 2).
    num_samples : int
        Budget of model evaluations: ``num_samples // (2 (d - 1) + 2)`` pairs of orders (at least 2).
    rng : numpy.random.Generator
        The orders' source.

    Returns
    -------
    values, stderr : ndarray, ndarray
        Both of shape (d,).
    evaluations : int
        The model evaluations made.
    base, full : float
        v(∅) and v(N).

    Examples
    --------
    >>> f = lambda z: (z[:, 0] * z[:, 1]).astype(float)
    >>> values, stderr, calls, base, full = permutation_estimate(f, 3, 200, np.random.default_rng(0))
    >>> bool(abs(values.sum() - (full - base)) < 1e-12), values.round(1).tolist()
    (True, [0.5, 0.5, 0.0])
    """
    d = check_int(d, "d", minimum=2)
    pairs = max(2, num_samples // (2 * (d - 1) + 2))
    per_batch = max(1, _PERMUTATION_BATCH_BYTES // (2 * (d + 1) * d))
    check_memory(8.0 * pairs * d, f"{pairs} pairs of orders of {d} words", "use fewer samples")
    estimates = np.empty((pairs, d))
    ends = mask_fn(np.array([np.zeros(d), np.ones(d)], dtype=np.int8))
    base, full = float(ends[0]), float(ends[1])
    steps = np.arange(d + 1)[:, None]
    for start in range(0, pairs, per_batch):
        count = min(per_batch, pairs - start)
        rank = np.argsort(rng.random((count, d)), axis=1).argsort(axis=1)  # rank[p, j]: word j's place in order p
        ranks = np.concatenate([rank, d - 1 - rank])  # each order, then its reversal
        # chain t of an order keeps the words of rank < t, t = 0..d; its ends are v(∅) and v(N)
        inner = (ranks[:, None, :] < steps[None, 1:d, :]).astype(np.int8)  # t = 1..d-1
        chain = np.empty((2 * count, d + 1))
        chain[:, 0], chain[:, d] = base, full
        chain[:, 1:d] = mask_fn(inner.reshape(-1, d)).reshape(2 * count, d - 1)
        rows = np.arange(2 * count)[:, None]
        marginal = chain[rows, ranks + 1] - chain[rows, ranks]
        estimates[start : start + count] = 0.5 * (marginal[:count] + marginal[count:])
    values = estimates.mean(axis=0)
    stderr = estimates.std(axis=0, ddof=1) / np.sqrt(pairs)
    return values, stderr, 2 + 2 * pairs * (d - 1), base, full


# ----------------------------------------------------------------------------- the entry point


def shapley(
    model,
    text,
    *,
    output=None,
    label=None,
    random_state=0,
    num_samples=None,
    method="auto",
    bow=True,
    split_expression=LIME_SPLIT,
    mask_string=None,
    char_level=False,
):
    r"""The Shapley values of the words of ``text`` for ``model``: exact where a closed route exists.

    The value of a set S of lime's words is the model on the document keeping only the words of S (every
    occurrence of the others removed, lime's perturbed string for the mask of S); :math:`v(\emptyset)`, the
    document with every word removed, is ``base`` (module docstring for the choice and the routes).  The value of
    word j is :math:`\phi_j = \sum_{S \not\ni j} \frac{\lvert S \rvert!\,(d - \lvert S \rvert - 1)!}{d!}
    (v(S \cup j) - v(S))`, computed from the same conditional moments by size that give lime's limit β
    (:mod:`limetheory.theory.shapley_sizes`): ``"linear"`` (a model linear in the columns through ``decision_function``
    or a regressor's ``predict``, normalised TF-IDF and shared columns included), ``"trees"`` (trees and
    ensembles on presence features), ``"enumeration"`` (d <= 14), else ``"permutation"``: an estimate with
    standard errors.  A ``classifier_fn`` (any model, as lime takes it) is a black box: enumeration or
    permutation.

    Parameters
    ----------
    model : sklearn.pipeline.Pipeline, a bound method of one, or a classifier_fn
        A fitted Pipeline (its method, e.g. ``pipeline.predict_proba``, names the output), or lime's
        ``classifier_fn``: a function from a list of n str to an (n, k) array of outputs, or (n,) for one score.
        The linear and tree routes read a Pipeline whose first step is a ``CountVectorizer`` or
        ``TfidfVectorizer``; any other (a ``HashingVectorizer``, a ``FeatureUnion``, ...) is scored through its
        outputs on lime's strings, as a classifier_fn is, and ``notes`` says why.
    text : str
        The document, with at least 2 distinct words.
    output : {"predict_proba", "decision_function", "predict"} or None
        A Pipeline's output explained (``"predict"`` for regressors); None: ``"predict_proba"`` for a Pipeline,
        and the function itself for a classifier_fn (which takes no ``output``).
    label : int or None
        Its column, as in :func:`limetheory.explain` (for a binary ``decision_function``, 1 is the score of
        ``classes_[1]`` and 0 its opposite); None: lime's default, 1 (0 when the model gives one column).
    random_state : int, numpy Generator or RandomState, or None
        Seed of the permutation route and of the perturbed documents of the linear route's self-check, taken as
        :func:`limetheory.explain` takes it (None draws a fresh one).
    num_samples : int or None
        Model evaluations of the permutation route (default 20000; at least 2 pairs of orders are drawn); the
        exact routes ignore it.
    method : {"auto", "linear", "trees", "enumeration", "permutation"}
        The route: "auto" takes the first that applies; a named exact route is taken or refused with the reason.
    bow, split_expression, mask_string, char_level
        lime's text modes, as in :func:`limetheory.explain` (the players are then lime's features of that mode).

    Returns
    -------
    ShapleyValues
        ``words``, ``values``, ``base``, ``full``, ``exact``, ``method``, ``stderr``, ``efficiency_gap``,
        ``as_list()``, ``to_frame()``, ``plot()``.

    Raises
    ------
    TypeError
        ``model`` neither a Pipeline nor a callable, ``output`` given with a
        classifier_fn, ``text`` not a str, a non-integer
        ``label``/``num_samples``/``random_state``; a mode argument of the wrong type.
    ValueError
        An unfitted model, an ``output`` the model lacks, a ``label`` out of range, a document with fewer than 2
        words, an unknown ``method`` or a named one that does not apply.

    Examples
    --------
    >>> from sklearn.feature_extraction.text import TfidfVectorizer
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.pipeline import make_pipeline
    >>> docs = ["good food", "bad food", "good service", "slow service", "good staff", "bad staff"]
    >>> model = make_pipeline(TfidfVectorizer(), LogisticRegression()).fit(docs, [1, 0, 1, 0, 1, 0])
    >>> phi = shapley(model, "Good food, bad service", output="decision_function")
    >>> phi.method, phi.words
    ('linear', ['Good', 'food', 'bad', 'service'])
    >>> [(word, round(value, 3)) for word, value in phi.as_list()]
    [('Good', 0.523), ('bad', -0.446), ('service', 0.009), ('food', 0.004)]
    >>> enumerated = shapley(model, "Good food, bad service", output="decision_function", method="enumeration")
    >>> bool(np.abs(phi.values - enumerated.values).max() < 1e-12)
    True

    A pipeline's method names the output (``shapley(model.decision_function, text)`` is the call above); any
    other function is lime's classifier_fn, a black box, here enumerated (d = 4):

    >>> as_fn = shapley(lambda docs: model.decision_function(docs), "Good food, bad service")
    >>> as_fn.method, as_fn.output, bool(np.abs(as_fn.values - phi.values).max() < 1e-12)
    ('enumeration', 'classifier_fn', True)
    """
    reader = read_model(model, output)
    unread = None  # why the exact routes cannot read a Pipeline, which is then scored through its outputs
    if reader.pipeline is not None:
        try:
            check_pipeline(reader.pipeline)
        except TypeError as why:  # a first step other than a Count/TfidfVectorizer (explain takes it too)
            unread = str(why)
    text, words, mode = lime_features(text, bow, split_expression, mask_string, char_level)
    if not isinstance(method, str) or method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r:.80}")
    if num_samples is not None:
        num_samples = check_int(num_samples, "num_samples", minimum=2, maximum=MAX_PERMUTATION_SAMPLES)
    # lime's arguments that explain takes too, checked by the same call object (the seed as explain resolves it)
    call = LimeCall.from_arguments(
        label=label, output=output, random_state=random_state, bow=bow, split_expression=split_expression,
        mask_string=mask_string, char_level=char_level,
    )  # fmt: skip
    random_state = call.seed
    if reader.pipeline is None or unread is not None:  # a classifier_fn, or a Pipeline read through its outputs
        return _black_box(reader, text, words, mode, label, random_state, num_samples, method, unread)
    model, output = reader.pipeline, reader.output
    vectorizer = check_pipeline(model)
    columns = output_function(model, output)
    if label is None:  # as explain: lime's label 1, or 0 for a model with one output
        width = declared_columns(reader)
        width = len(np.atleast_2d(columns([text]))[0]) if width is None else width
        label = 1 if width >= 2 else 0
    label = check_label(model, output, columns, text, label)
    d = len(words)
    mask_fn = pipeline_mask_function(text, columns, label, None if mode is None else mode_documents(text, mode))
    rng = np.random.default_rng(random_state)
    common = dict(words=words, output=output, label=label)
    reasons = []
    for name in ("linear", "trees", "enumeration") if method == "auto" else (method,):
        if name == "permutation":
            break
        try:
            if name == "linear":
                base, full, values = _linear_route(model, vectorizer, text, output, label, mode, mask_fn, d, rng)
            elif name == "trees":
                base, full, values = _tree_route(model, vectorizer, text, output, label, mode, mask_fn, d)
            else:
                if d > MAX_ENUMERATION_WORDS:
                    raise RouteUnavailable(f"the document has d = {d} > {MAX_ENUMERATION_WORDS} words")
                base, values = shapley_enumerate(mask_fn, d)
                full = float(mask_fn(np.ones((1, d), dtype=np.int8))[0])
        except RouteUnavailable as why:
            reasons.append(f"{name}: {why}")
            continue
        if not np.isfinite(values).all():
            reasons.append(f"{name}: its result is not finite")
            continue
        return ShapleyValues(
            values=values, base=base, full=full, exact=True, method=name, stderr=None, notes=tuple(reasons), **common
        )
    if method not in ("auto", "permutation"):
        raise ValueError(f"method={method!r} does not apply to this model and document: {'; '.join(reasons)}")
    budget = DEFAULT_PERMUTATION_SAMPLES if num_samples is None else num_samples
    values, stderr, evaluations, base, full = permutation_estimate(mask_fn, d, budget, rng)
    return ShapleyValues(
        values=values,
        base=base,
        full=full,
        exact=False,
        method="permutation",
        stderr=stderr,
        num_samples=evaluations,
        notes=tuple(reasons),
        **common,
    )


def _black_box(reader, text, words, mode, label, random_state, num_samples, method, unread=None):
    """:func:`shapley` through the model's outputs on lime's perturbed strings (arguments checked).

    For a classifier_fn, or a Pipeline the exact routes cannot read (``unread`` says why).
    """
    why = "a classifier_fn is a black box" if unread is None else unread
    if method in ("linear", "trees"):
        raise ValueError(f"method={method!r} needs a Pipeline it can read; {why}")
    d = len(words)
    documents_of = None if mode is None else mode_documents(text, mode)
    outputs = mask_scores(text, reader, documents_of)(np.ones((1, d), dtype=np.int8))[0]
    score_masks = mask_scores(text, reader, documents_of, len(outputs))
    (label,), _ = resolve_labels(label, None, None, outputs)

    def mask_fn(z):
        return score_masks(z)[:, label]

    common = dict(words=words, output=CLASSIFIER_FN if reader.pipeline is None else reader.output, label=label)
    reasons = (f"linear: {why}", f"trees: {why}")
    if method in ("auto", "enumeration") and d <= MAX_ENUMERATION_WORDS:
        base, values = shapley_enumerate(mask_fn, d)
        return ShapleyValues(values=values, base=base, full=float(outputs[label]), exact=True, method="enumeration",
                             stderr=None, notes=reasons, **common)  # fmt: skip
    if method == "enumeration":
        raise ValueError(f"method='enumeration' does not apply: the document has d = {d} > {MAX_ENUMERATION_WORDS}")
    reasons += (f"enumeration: the document has d = {d} > {MAX_ENUMERATION_WORDS} words",) if method == "auto" else ()
    budget = DEFAULT_PERMUTATION_SAMPLES if num_samples is None else num_samples
    rng = np.random.default_rng(random_state)
    values, stderr, evaluations, base, full = permutation_estimate(mask_fn, d, budget, rng)
    return ShapleyValues(values=values, base=base, full=full, exact=False, method="permutation", stderr=stderr,
                         num_samples=evaluations, notes=reasons, **common)  # fmt: skip
