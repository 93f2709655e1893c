r"""``explain``: the explanation lime converges to, for a fitted scikit-learn pipeline or lime's ``classifier_fn``.

``explain`` composes the sub-wings of ``limetheory.pipelines`` in the order data flows through them: lime's call
checked once (``reading.lime_call.LimeCall``); the model read as lime calls it and the document read through it
(``reading.document.read_document``: a Pipeline and the output asked for, a bound method of one, or any function
from a list of str to an (n, k) array; lime's labels resolved); for each label the first exact route that applies
(``routes.protocol.first_route``); the estimate for the rest (``estimate.labels.estimate_labels``); one
``Explanation`` per label (``results.family.explanation_family``), whose ``as_list`` and ``to_lime`` hold lime's
selection and refit in the limit.  The routes, in order:

``"linear"``
    a pipeline linear in the vectorizer's columns (a Count, Tfidf or Hashing vectorizer, a TfidfTransformer after
    it, a FeatureUnion of word vectorizers or a ColumnTransformer of them on one text column; linear steps such as
    scalers without centring; an estimator with ``coef_`` and ``intercept_``) read through ``decision_function``
    (``predict`` for a regressor): exact (``limetheory.pipelines.reading.pipeline_reading``,
    ``limetheory.pipelines.reading.text_features``);
``"trees"``
    decision trees and tree ensembles whose splits are functions of which words are present: exact, the law of
    s over the leaves (``limetheory.pipelines.routes.leaves``);
``"enumeration"``
    any model on a document of at most 14 distinct words: exact, all 2ᵈ - 1 masks through the model (one call
    for every label);
``"monte_carlo"``
    anything else, at any length: an unbiased estimate with standard errors (``limetheory.pipelines.estimate``).

The routes stay tied to the real model: the linear route must reproduce it on the document and on a few perturbed
documents, to the rounding of the pipeline's dtype, before its β is trusted; the tree route reads only splits that
``limetheory.pipelines.routes.leaves`` has checked to be functions of which words are present; enumeration and the
estimate call the model on lime's own perturbed strings.  An exact route whose cost is above the work limit is not
refused: it gives way to the estimate with a note that states its time and the ``max_work`` that runs it.  Last,
the limit is compared with where lime's coefficients concentrate at the user's ``num_samples``
(:mod:`limetheory.pipelines.results.agreement`).
"""

from __future__ import annotations

import numpy as np  # noqa: F401  (the docstring's examples use np)

from .estimate.labels import estimate_labels
from .reading.blackbox import read_model
from .reading.document import read_document
from .reading.lime_call import METHODS, LimeCall, refuse_unexpected
from .reading.modes import LIME_SPLIT, lime_features
from .results.agreement import agreement_notes
from .results.family import explanation_family
from .routes.enumeration import MAX_ENUMERATION_WORDS
from .routes.order import routes_for
from .routes.protocol import first_route

__all__ = ["explain", "METHODS", "MAX_ENUMERATION_WORDS"]


def explain(
    model,
    text,
    *,
    kernel_width=25,
    label=None,
    labels=None,
    top_labels=None,
    num_features=10,
    feature_selection="auto",
    output=None,
    num_samples=None,
    random_state=0,
    method="auto",
    tol=None,
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
    (``limetheory.pipelines.estimate.limit_estimate``).  It draws until every standard error is at most ``tol`` times
    lime's standard deviation at ``num_samples``, or until its budget (by default one lime run's cost) is spent, and
    ``notes`` say what it reached.  A
    pipeline whose first step is a Count, Tfidf or Hashing vectorizer is scored from the document's counts, without
    building strings (``limetheory.pipelines.reading.count_rows``); a ``benchmarks/any_classifier_speed.py`` run times
    it.

    Last, the limit is compared with the centre lime's coefficients concentrate around at ``num_samples``: where
    they are more than 2 of lime's standard deviations apart (small kernel widths, few samples), ``notes`` says so
    and a ``UserWarning`` gives what lime at that n returns (``lime_spread(num_samples).centre``).

    Parameters
    ----------
    model : callable or sklearn.pipeline.Pipeline
        lime's ``classifier_fn`` (list of n str -> an (n, k) array, ``label`` picking the column; or (n,), one
        score), a bound method of a fitted Pipeline (``pipe.predict_proba``, ``pipe.decision_function``), or a
        fitted Pipeline (its output named by ``output``).  The linear route reads a first step that is a
        Count, Tfidf or Hashing vectorizer or a ``FeatureUnion`` of them (or a ``ColumnTransformer`` of them
        reading one text column); a Pipeline of another shape (character n-grams, a model that is not linear,
        ...) is read through its outputs: enumeration or the estimate.
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
        lime's ``num_features`` (default 10, lime's): ``as_list()``, ``as_map()`` and ``to_lime()`` hold the limit of
        what lime reports, its ``feature_selection`` of that many words and its refit on them alone
        (``Explanation.lime_answer``); None keeps every word (the full surrogate, ``beta``, which every
        explanation also holds).
    feature_selection : {"auto", "none", "highest_weights", "forward_selection", "lasso_path"}
        lime's ``feature_selection`` (default ``"auto"``, lime's: forward selection up to 6 words, highest weights
        beyond).
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
    tol : float or None
        The estimate route draws until every standard error is at most ``tol`` times lime's standard deviation at
        ``num_samples`` (0.1 when None), or until its budget is spent.  By default (neither ``tol`` nor
        ``max_calls`` given) the budget is the cost of one lime run at ``num_samples``: lime's number of model
        calls on strings, holding no more words in all than lime's strings (a model's time grows with them); as
        many rows where the package scores rows from counts (a row costs less than lime's string and row), and for a
        scikit-learn tree model (forests, extra trees, a tree, gradient boosting) as many as take about 1 / 1.75 of
        lime's time by a fixed work model of both and of the trees' time per row (``estimate_route.rows_budget``,
        measured by ``benchmarks/row_budget.py``); for a
        logistic regression's linked reading, as many masks as take about half of lime's time by a fixed work
        model (``estimate_route.linked_budget``, measured by ``benchmarks/linked_budget.py``: the same call gives
        the same answer on any load); ``stderr`` and one note state the precision reached.  Passing ``tol``
        asks for that precision: a ``UserWarning`` then says when the budget ran out first.
    max_calls : int or None
        The estimate route's budget of model calls; None: lime's cost (above) by default, and with ``tol`` given
        200 lime runs' worth when the rows come from the vectorizer's counts (cheap calls), 10 otherwise.
    progress : bool
        A progress bar on estimate work that lasts more than about 2 s.
    max_work : float or None
        Floating-point operations an exact route may take (default: the package's limit of 2e10, about 10 s).
        Above it, "auto" takes the estimate and ``notes`` states the route's time and the ``max_work`` to pass.
    bow, split_expression, mask_string, char_level
        lime's text modes, with ``LimeTextExplainer``'s names and defaults (``limetheory.pipelines.reading.modes``).
        With
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
    refuse_unexpected(unexpected)
    reader = read_model(model, output)
    text, words, mode = lime_features(text, bow, split_expression, mask_string, char_level)
    call = LimeCall.from_arguments(
        kernel_width=kernel_width, label=label, labels=labels, top_labels=top_labels, num_features=num_features,
        feature_selection=feature_selection, output=output, num_samples=num_samples, random_state=random_state,
        method=method, tol=tol, max_calls=max_calls, max_work=max_work, progress=progress, bow=bow,
        split_expression=split_expression, mask_string=mask_string, char_level=char_level,
    )  # fmt: skip
    document = read_document(reader, text, words, mode, call)
    routes = routes_for(call.method)
    exact, reasons = {}, {}
    for current in document.labels:
        found, reasons[current] = first_route(routes, document, current, call)
        if found is not None:
            exact[current] = found
    missing = [c for c in document.labels if c not in exact]
    if missing and call.method not in ("auto", "monte_carlo"):
        raise ValueError(
            f"method={method!r} does not apply to this model and document: {'; '.join(reasons[missing[0]])}"
        )
    estimates = estimate_labels(document, missing, call) if missing else {}
    family = explanation_family(document, call, exact, estimates, reasons)
    return agreement_notes(family[document.labels[0]], stacklevel=2)
