r"""``explain``: the explanation lime converges to, for a fitted scikit-learn pipeline or lime's ``classifier_fn``.

The entry point reads the model as lime calls it (:mod:`limetheory.pipelines.blackbox`: a Pipeline and the output asked
for, a bound method of one, or any function from a list of str to an (n, k) array), resolves lime's labels
(``labels``, ``top_labels``), then takes for each label the first route that applies:

``"linear"``
    a pipeline linear in the vectorizer's columns (a Count, Tfidf or Hashing vectorizer, a TfidfTransformer after
    it, a FeatureUnion of word vectorizers or a ColumnTransformer of them on one text column; linear steps such as
    scalers without centring; an estimator with ``coef_`` and ``intercept_``) read through ``decision_function``
    (``predict`` for a regressor): exact (``limetheory.pipelines.pipeline_reading``,
    ``limetheory.pipelines.text_features``);
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
import warnings

import numpy as np
from sklearn.compose import ColumnTransformer
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.pipeline import Pipeline

from .._validation import check_bool, check_int, check_positive_finite, work_limit
from ..engine.tokens import perturbed_documents
from ..theory.explanation import all_masks, beta_enumerate
from ..theory.sampling import kernel_weights
from .agreement import agreement_notes
from .blackbox import BATCH as _BATCH
from .blackbox import mask_scores, read_model
from .lime_arguments import check_words, resolve_labels, resolve_random_state
from .linked_reading import link_possible
from .modes import LIME_SPLIT, lime_features, mode_documents
from .montecarlo import MaskSample
from .pipeline_reading import (
    RouteUnavailable,
    check_label,
    check_pipeline,
    output_function,
    reproduces,
    self_check_masks,
    two_step_reading,
)
from .result import LIME_NUM_SAMPLES, Explanation
from .route_selection import (
    declared_columns,
    estimate_labels,
    exact_beta,
    explain_controls,
    label_column,
    linear_possible,
    linked_check_masks,
    work_note,
)
from .text_features import reads_words

METHODS = ("auto", "linear", "trees", "enumeration", "monte_carlo", "estimate")
#: largest number of distinct words for which every mask is enumerated (16383 model calls)
MAX_ENUMERATION_WORDS = 14


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
    text, words, mode = lime_features(text, bow, split_expression, mask_string, char_level)
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
    truth = linked_check = None
    score_masks = mask_scores(text, reader, None if mode is None else mode_documents(text, mode))
    if "linear" in names and linear_possible(reader):
        # the linear route's check masks start with the document itself (no word removed): one call gives both
        check_masks = self_check_masks(d, rng)
        truth = (check_masks, score_masks(check_masks))
        outputs = truth[1][0]
    elif link_possible(reader.pipeline, reader.output, mode):
        # the linked reading's check masks start with the document too: its outputs come with the check
        masks = linked_check_masks(d, seed)
        linked_check = (masks, score_masks(masks))
        outputs = linked_check[1][0]
    else:
        outputs = None  # lime's first row, the model on the document, only when something needs it
    columns = declared_columns(reader) if outputs is None else len(outputs)
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
                    results[current] = (name, beta, label_column(score_masks, current), sample)
                    break
                with work_limit(max_work) if max_work is not None else contextlib.nullcontext():
                    beta, model_of_masks = exact_beta(name, reader, text, current, nu, rng, score_masks, d, mode, truth)
            except RouteUnavailable as why:
                reasons[current].append(f"{name}: {why}")
                continue
            except ValueError as error:  # a closed route above the work or memory limit: the estimate answers
                reasons[current].append(f"{name}: {work_note(error, name)}")
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
        estimates = estimate_labels(
            reader, text, score_masks, d, nu, missing, mode=mode, lime_n=lime_n, tol=tol, max_calls=max_calls,
            seed=seed, progress=progress,
            controls_of=lambda c: explain_controls(reader.pipeline, text, reader.output, c, nu, mode),
            check=linked_check,
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


def explain_linear_many(model, texts, *, kernel_width=25, label=1, output="predict_proba", random_state=0):
    """:func:`explain`'s linear route for many documents: the pipeline read once, one call for all the self-checks.

    For each text, the :class:`Explanation` that ``explain(model, text, kernel_width=kernel_width, label=label,
    output=output, random_state=random_state)`` returns when its first route, the linear one, applies (the same
    β, computed by the same code, so equal bit for bit), or None where explain would not take it or would raise
    (fewer than 2 words, a model that is not linear in the columns, a self-check that fails, a non-finite value):
    call :func:`explain` on those to learn why.  Per document, explain calls the pipeline once for its
    self-check; here one call serves every document (``limetheory.pipelines.corpus`` explains a chunk with it).
    As explain's, each explanation's ``notes`` say where lime at its n will not agree with the limit, and one
    ``UserWarning`` for the call counts the documents where it will not.

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
    first = model.steps[0][1] if isinstance(model, Pipeline) and model.steps else None
    # hashed or joined features (no vocabulary to check): the reading of each document says whether it applies
    vectorizer = first if reads_words(first) and not isinstance(first, CountVectorizer) else check_pipeline(model)
    kernel_width = check_positive_finite(kernel_width, "kernel_width")
    random_state = check_int(random_state, "random_state", minimum=0, maximum=2**63 - 1)
    if isinstance(first, ColumnTransformer):  # it reads a frame, which explain builds for each document
        return [None] * len(texts)
    columns = output_function(model, output)
    nu = kernel_width / 100.0
    pending = []  # (position, words, label, linear model, masks, their number of unique rows, inverse)
    documents = []  # the perturbed strings of every pending text's unique masks, in order
    analysed = {}  # each distinct word's vectorizer column, analysed once for the call
    for position, text in enumerate(texts):
        try:
            text, words = check_words(text)
            text_label = check_label(model, output, columns, text, label)
            linear = two_step_reading(model, vectorizer, text, output, text_label, memo=analysed)
        except (RouteUnavailable, ValueError, TypeError):
            continue
        z = self_check_masks(len(words), np.random.default_rng(random_state))
        unique, inverse = _unique_rows(z.astype(np.int8))
        # the strings now, while lime's tokenisation of the text is still cached (engine.tokens keeps a few)
        documents += perturbed_documents(text, unique)
        pending.append((position, words, text_label, linear, z, len(unique), inverse))
    results = [None] * len(texts)
    if not pending:
        return results
    values = np.concatenate([columns(documents[start : start + _BATCH]) for start in range(0, len(documents), _BATCH)])
    start = 0
    disagreements = []  # (position, message) where lime at n will not agree with the limit
    for position, words, text_label, linear, z, n_unique, inverse in pending:
        truth = values[start : start + n_unique, text_label][inverse]
        start += n_unique
        if not np.isfinite(truth).all() or not reproduces(linear(z), truth):
            continue
        try:
            beta = linear.beta(nu)
        except ValueError:  # beta_linear_exact refuses the document (e.g. too many words in one column)
            continue
        if not np.isfinite(beta).all():
            continue
        explanation = Explanation(
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
        with warnings.catch_warnings(record=True) as caught:  # one warning for the call, below
            warnings.simplefilter("always")
            results[position] = agreement_notes(explanation)
        disagreements += [(position, str(w.message)) for w in caught if issubclass(w.category, UserWarning)]
    if disagreements:
        position, first = disagreements[0]
        warnings.warn(
            f"{len(disagreements)} of the {len(texts)} documents {'has' if len(disagreements) == 1 else 'have'} word "
            f"coefficients that lime at its n will not agree with (each explanation's notes say which); e.g. "
            f"document {position}: {first}",
            UserWarning,
            stacklevel=2,
        )
    return results


def _unique_rows(z):
    """``np.unique(z, axis=0, return_inverse=True)`` for a few 0/1 masks (int8), without numpy's structured sort.

    The rows' bytes sort as the rows do (0 before 1, position by position), so the unique rows come in the same
    order; a tenth of the time for the self-check's 8 masks.
    """
    keys = [row.tobytes() for row in z]
    distinct = sorted(set(keys))
    first = {key: i for i, key in reversed(list(enumerate(keys)))}
    position = {key: i for i, key in enumerate(distinct)}
    return z[[first[key] for key in distinct]], np.array([position[key] for key in keys], dtype=np.int64)
