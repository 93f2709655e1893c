r"""A fitted pipeline read as the exact routes read it: checked, called on lime's masks, and as a linear model.

Shapley values (``limetheory.pipelines.shapley_values.exact``) read a ``Pipeline`` through ``check_pipeline``,
``output_function``, ``check_label`` and ``pipeline_mask_function`` (:func:`limetheory.explain` reads any model
through ``limetheory.pipelines.reading.blackbox``).  explain's linear route, ``explain_linear_many`` and Shapley values'
linear route read a pipeline whose score is linear in the vectorizer's columns as one ``LinearReading``.

A ``Pipeline(vectorizer, *steps, estimator)`` is read as :math:`f(x) = b + \sum_c w_c \phi(x)_c` when

* the first step gives each of lime's words a column and a weight (``limetheory.pipelines.reading.text_features``): a
  ``CountVectorizer`` or ``TfidfVectorizer`` that lime's words can be mirrored to
  (:func:`limetheory.engine.tokens.word_columns`, or ``limetheory.pipelines.reading.modes.linear_features`` for
  lime's other text modes), in any floating dtype; a ``HashingVectorizer`` (words of one sign per column); either
  followed by a ``TfidfTransformer``; or a ``FeatureUnion`` of such word vectorizers (f is then a sum over its parts);
* every step between them is a fixed affine map of each column: ``'passthrough'`` (or None), a
  ``StandardScaler`` (:math:`(x - \mu_c) / \sigma_c`; centring only on dense input) or a ``MaxAbsScaler``
  (:math:`x / s_c`); their composition is folded into the weights and the intercept;
* the estimator has ``coef_`` and ``intercept_`` and is read through its linear output (``decision_function`` of
  a classifier, ``predict`` of a regressor).

Then :func:`limetheory.theory.linear.linear_exact.beta_linear_exact` gives the exact β from the words' TF-IDF weights
(words that share a column as groups), summed over the parts of a FeatureUnion.  The reading is trusted only after it
reproduces the real pipeline on the document and on a few perturbed documents, to the rounding of the pipeline's own
dtype (``self_check_tolerance``).
"""

from __future__ import annotations

import numpy as np
from sklearn.base import is_classifier
from sklearn.exceptions import NotFittedError
from sklearn.feature_extraction.text import CountVectorizer, TfidfVectorizer
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import MaxAbsScaler, StandardScaler
from sklearn.utils.validation import check_is_fitted

from ..._validation import check_int
from ...engine.tokens import perturbed_documents
from ...theory.linear.linear_exact import beta_linear_exact
from .blackbox import BATCH as _BATCH
from .blackbox import output_method
from .mask_samples import masks_removing
from .modes import mask_token_refusal, mask_token_weight
from .text_features import reads_words, text_features

#: masks of bounded memory evaluated at a time by the reading (rows x groups doubles: 32 MiB)
_BLOCK_ENTRIES = 2**22
#: safety factor over the rounding bound of self_check_tolerance
SELF_CHECK_MARGIN = 4.0

#: perturbed documents on which an exact route is checked against the pipeline, besides the document itself
_SELF_CHECK_MASKS = 8
#: relative agreement required by self_check between a reconstruction and the real pipeline
_SELF_CHECK_RTOL = 1e-9


class RouteUnavailable(Exception):
    """A route does not apply to this model and document (the reason is the message)."""


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
    method = output_method(model, output)

    def columns(documents):
        values = np.asarray(method(documents), dtype=float)
        if values.ndim == 1:
            # a binary decision_function is the score of classes_[1]: column 1 is it, column 0 its opposite
            values = np.column_stack([-values, values]) if output == "decision_function" else values[:, None]
        return values

    return columns


def pipeline_mask_function(text, columns, label, documents_of=None):
    """Masks (m, d) -> the pipeline's output ``label`` on lime's perturbed documents (each distinct mask once).

    ``documents_of`` builds lime's strings for another text mode
    (``limetheory.pipelines.reading.modes.mode_documents``).
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


def self_check_masks(d, rng):
    """The masks of the self-check: nothing, one, all but one and all words removed, and random sizes."""
    sizes = np.concatenate([[0, 1, d - 1, d], rng.integers(1, d + 1, size=_SELF_CHECK_MASKS - 4)])
    return masks_removing(sizes, d, rng)


def reproduces(ours, truth):
    """Whether ``ours`` matches the pipeline's outputs ``truth`` to ``_SELF_CHECK_RTOL`` (relative, at least 1)."""
    scale = max(1.0, float(np.abs(truth).max()))
    return bool(np.allclose(ours, truth, rtol=_SELF_CHECK_RTOL, atol=_SELF_CHECK_RTOL * scale))


def self_check(route, reconstruction, mask_fn, d, rng):
    """Refuse an exact route whose reconstruction of the model differs from the real pipeline on a few masks."""
    z = self_check_masks(d, rng)
    if not reproduces(reconstruction(z), mask_fn(z)):
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


def affine_steps(steps, width):
    """(scale, shift) of the columns after the middle ``steps``: x -> scale * x + shift, or RouteUnavailable.

    ``width`` is the vectorizer's number of columns.
    """
    scale, shift = np.ones(width), np.zeros(width)
    for name, step in steps:
        if step is None or (isinstance(step, str) and step == "passthrough"):
            continue
        if isinstance(step, (StandardScaler, MaxAbsScaler)):
            step_scale = getattr(step, "scale_", None)
            step_scale = np.ones(width) if step_scale is None else np.asarray(step_scale, dtype=float)
            mean = getattr(step, "mean_", None) if getattr(step, "with_mean", False) else None
            mean = np.zeros(width) if mean is None else np.asarray(mean, dtype=float)
            if step_scale.shape != (width,) or mean.shape != (width,):
                raise RouteUnavailable(f"the step {name!r} was fitted on {step_scale.size} columns, not {width}")
            scale, shift = scale / step_scale, (shift - mean) / step_scale
            continue
        raise RouteUnavailable(
            f"the step {name!r} ({type(step).__name__}) is not one of the linear steps the route reads "
            "('passthrough', StandardScaler, MaxAbsScaler)"
        )
    return scale, shift


def estimator_row(estimator, label):
    """(coef as a 2-d array, intercept as a 1-d array, the row of ``label``, its sign) of a linear estimator.

    A binary classifier has one row for the two columns (-score, score): label 1 reads it with sign +1, label 0 with
    sign -1.  The row may be beyond ``coef``'s rows (a label the estimator does not have): the caller says so.
    """
    coef = estimator.coef_
    coef = np.atleast_2d(coef.toarray() if hasattr(coef, "toarray") else np.asarray(coef, dtype=float))
    intercept = np.atleast_1d(np.asarray(estimator.intercept_, dtype=float))
    row, sign = label, 1.0
    if is_classifier(estimator) and coef.shape[0] == 1:  # binary: columns (-score, score)
        row, sign = 0, (1.0 if label == 1 else -1.0)
    return coef, intercept, row, sign


def fold_affine_steps(raw, intercept, middle, width):
    """(coef, intercept, intercept magnitude) of ``raw . x + intercept`` with the affine ``middle`` steps folded in.

    w . (scale x + shift) + b = (w scale) . x + (w . shift + b); nothing is computed without such steps (a hashing
    vectorizer's 2²⁰ columns).
    """
    coef, magnitude = raw, abs(intercept)
    if any(step is not None and not (isinstance(step, str) and step == "passthrough") for _, step in middle):
        scale, shift = affine_steps(middle, width)
        coef = raw * scale
        intercept += float(raw @ shift)
        magnitude += float(np.abs(raw) @ np.abs(shift))
    return coef, intercept, magnitude


def self_check_tolerance(epsilon, visible, magnitude):
    r"""How far the real pipeline may lie from the reading on a mask, from the rounding of its features.

    The pipeline computes each of the document's ``visible`` columns in its features' precision ``epsilon``
    (float32 for ``TfidfVectorizer(dtype=np.float32)``): a count times an idf, a norm over the ``visible``
    columns (a sum of squares and a square root) and a division, then the estimator's dot product over them.  Each
    term of :math:`\sum_c w_c \phi_c` is off by at most about ``(visible + 4) * epsilon`` relative, and the sum
    by as much again, so the output is within ``(2 visible + 4) * epsilon * magnitude`` of the exact value, with
    ``magnitude`` = :math:`\lvert b \rvert + \sum_c \lvert w_c \phi_c \rvert` (the reading's own error, in
    double precision, is of the same form and smaller).  ``SELF_CHECK_MARGIN`` covers the constants of this
    bound; a different model differs by far more.
    """
    return SELF_CHECK_MARGIN * (2 * visible + 4) * epsilon * magnitude


class LinearReading:
    """The model as a linear function of the words' columns, read from the features, linear steps and ``coef_``.

    The features are read by :func:`limetheory.pipelines.reading.text_features.text_features` (a Count, Tfidf or Hashing
    vectorizer, a TfidfTransformer after it, or a FeatureUnion of them), one :class:`WordPart` per normalised block:
    ``parts`` holds each block's ``(lam, values, groups, norm)``, and the model is the sum of their linear models.
    For a single block, ``columns``, ``values``, ``lam``, ``groups`` and ``norm`` are its own (None with several).
    """

    def __init__(self, model, vectorizer, text, output, label, mode=None, memo=None):
        estimator = model.steps[-1][1]
        if not (hasattr(estimator, "coef_") and hasattr(estimator, "intercept_")):
            raise RouteUnavailable(f"{type(estimator).__name__} has no coef_ and intercept_")
        wanted = "predict" if not is_classifier(estimator) else "decision_function"
        if output != wanted:
            raise RouteUnavailable(f"output={output!r} is not linear in the features (the linear output is {wanted!r})")
        coef, intercept, row, self.sign = estimator_row(estimator, label)
        if not reads_words(vectorizer):
            raise RouteUnavailable(
                f"the first step is a {type(vectorizer).__name__}: the linear route reads a Count, Tfidf or Hashing "
                "vectorizer or a FeatureUnion of them"
            )
        try:
            features = text_features(vectorizer, model.steps[1:-1], text, mode, memo)
        except ValueError as error:
            raise RouteUnavailable(f"the vectorizer cannot be mirrored word by word: {error}") from None
        if features.width != coef.shape[1]:
            raise RouteUnavailable(f"the estimator reads {coef.shape[1]} columns, the features have {features.width}")
        middle = model.steps[1 + features.steps : -1]
        self.coef, self.intercept, self.intercept_magnitude = fold_affine_steps(
            coef[row], float(intercept[row] if intercept.size > 1 else intercept[0]), middle, coef.shape[1]
        )
        self.epsilon = features.epsilon
        # bow=False: a removed occurrence adds the mask token, a column when the vocabulary has it (affine on counts)
        self.mask_weight = 0.0
        if features.lime_features is not None:
            refusal = mask_token_refusal(vectorizer, features.lime_features)
            if refusal is not None:
                raise RouteUnavailable(refusal)
            self.mask_weight = self.sign * mask_token_weight(vectorizer, features.lime_features, self.coef)
        self.parts = tuple(_ReadPart(part, self.sign, self.coef) for part in features.parts)
        single = self.parts[0] if len(self.parts) == 1 else None
        self.columns = None if single is None else features.parts[0].columns
        self.values, self.lam, self.groups, self.norm = (
            (None,) * 4 if single is None else (single.values, single.lam, single.groups, single.norm)
        )
        self.visible = sum(part.visible for part in self.parts)
        #: opt-in (``remember``): the last masks and outputs, for a caller that asks twice for the same array of masks
        self._last = None

    def remember(self):
        """From now on, answer a second call on the same array of masks (the same object) from the first one.

        The estimate route asks for the decision function of each batch twice, for the linked probabilities and
        for the control g (:mod:`limetheory.pipelines.reading.linked_reading`); its masks are never changed in place.
        Returns the reading.

        Examples
        --------
        >>> from sklearn.feature_extraction.text import TfidfVectorizer
        >>> from sklearn.linear_model import LogisticRegression
        >>> from sklearn.pipeline import make_pipeline
        >>> model = make_pipeline(TfidfVectorizer(), LogisticRegression()).fit(["good food", "bad food"], [1, 0])
        >>> reading = LinearReading(model, model.steps[0][1], "good food", "decision_function", 1).remember()
        >>> z = np.array([[1, 1], [1, 0]])
        >>> reading(z) is reading(z), reading(z) is reading(z.copy())
        (True, False)
        """
        self._last = (None, None)
        return self

    def __call__(self, z, *, magnitude=False):
        r"""The model's output on the masks z, from the words' columns (no string is built), in blocks of masks.

        ``magnitude=True``: :math:`\lvert b \rvert + \sum_c \lvert w_c \phi_c \rvert` instead, the scale of the
        rounding of each output.
        """
        if self._last is not None and not magnitude:
            if self._last[0] is not z:
                self._last = (None, None)  # the old masks released first
                self._last = (z, self._outputs(z, False))
            return self._last[1]
        return self._outputs(z, magnitude)

    def _outputs(self, z, magnitude):
        z = np.asarray(z, dtype=float)
        d = z.shape[1]
        out = np.empty(len(z))
        block = max(1, _BLOCK_ENTRIES // max(1, max(part.width for part in self.parts)))
        for start in range(0, len(z), block):
            rows = z[start : start + block]
            raw = self.parts[0].output(rows, magnitude)
            for part in self.parts[1:]:
                raw = raw + part.output(rows, magnitude)
            if self.mask_weight == 0.0 and not np.signbit(self.mask_weight):
                tokens = 0.0  # no mask token's column: the +0.0 that 0.0 * removed was, without a pass over the rows
            else:
                tokens = (abs(self.mask_weight) if magnitude else self.mask_weight) * (d - rows.sum(axis=1))
            if magnitude:
                out[start : start + block] = raw + self.intercept_magnitude + tokens
            else:
                out[start : start + block] = raw + self.sign * self.intercept + tokens
        return out

    def beta(self, nu):
        """The exact β of the reading at ``nu``: beta_linear_exact on each part's words, summed, with the intercept."""
        d = len(self.parts[0].values)
        beta = np.zeros(d + 1)
        for part in self.parts:
            if (part.values > 0).any():  # else no word the part sees: a constant 0
                beta = beta + beta_linear_exact(part.lam, part.values, nu=nu, groups=part.groups, norm=part.norm)
        beta[0] += self.sign * self.intercept + self.mask_weight * d  # the mask token's count is d - Σz
        beta[1:] -= self.mask_weight
        return beta

    def check(self, z, truth):
        """Refuse (RouteUnavailable) when the real pipeline's outputs ``truth`` on masks ``z`` are not the reading's."""
        ours = self(z)
        tolerance = self_check_tolerance(self.epsilon, self.visible, self(z, magnitude=True))
        if not (np.abs(ours - truth) <= tolerance).all():
            worst = float(np.max(np.abs(ours - truth) - tolerance))
            raise RouteUnavailable(
                f"the linear reading does not reproduce the pipeline's output (off by {worst:.3g} beyond the "
                "rounding of its features)"
            )


class _ReadPart:
    """One block of the features with the estimator's weights: f_part = Σ_c λ_c (Σ_{j in c} z_j t_j) / norm."""

    def __init__(self, part, sign, coef):
        columns = part.columns
        self.norm = part.norm
        self.values = part.values
        self.lam = sign * np.where(columns >= 0, part.factors * coef[np.maximum(columns, 0)], 0.0)
        # a label per column, and a label of its own for each invisible word
        self.groups = np.where(columns >= 0, columns, -1 - np.arange(len(columns)))
        self.visible = len(set(columns[columns >= 0].tolist()))
        labels, group_of_word = np.unique(self.groups, return_inverse=True)
        self.width = len(labels)
        self._group_of_word = group_of_word.ravel()
        self._shared = None  # the shared columns' membership, built on the first call that uses it

    def output(self, rows, magnitude):
        """The block's term of the model on the masks ``rows`` (or its magnitude, Σ_c |w_c φ_c|)."""
        lam = np.abs(self.lam) if magnitude else self.lam
        d = len(self.values)
        if self.width == d:  # a column per word: two dot products per mask (z² = z for the L2 norm's squares)
            raw = rows @ (self.values * lam)
            if self.norm is not None:
                norms = np.sqrt(rows @ self.values**2) if self.norm == "l2" else rows @ self.values
                raw = np.divide(raw, norms, out=np.zeros_like(raw), where=norms > 0)
            return raw
        # words sharing a column (the same lowercased token, a hashed collision) add up before the norm; λ is one
        # per column, so the weighted sum is per word, and only the shared columns need their sums formed: a
        # (d x shared) product instead of (d x width), which at d = 488 made the reading 50 µs a mask
        raw = rows @ (self.values * lam)
        if self.norm is None:
            return raw
        if self.norm == "l1":  # Σ_c φ_c of the columns is Σ_j z_j v_j of the words
            norms = rows @ self.values
        else:
            shared = self._shared_membership()
            per_shared = rows @ shared
            norms = np.sqrt(rows @ self._single_squares + (per_shared**2).sum(axis=1))
        return np.divide(raw, norms, out=np.zeros_like(raw), where=norms > 0)

    def _shared_membership(self):
        """(d, shared columns) values of the words whose column holds another word; the others' squared values."""
        if self._shared is None:
            counts = np.bincount(self._group_of_word, minlength=self.width)
            shared = counts[self._group_of_word] > 1
            groups, where = np.unique(self._group_of_word[shared], return_inverse=True)
            membership = np.zeros((len(self.values), len(groups)))
            membership[np.flatnonzero(shared), where.ravel()] = self.values[shared]
            self._single_squares = np.where(shared, 0.0, self.values**2)
            self._shared = membership
        return self._shared


def two_step_reading(model, vectorizer, text, output, label, mode=None, memo=None):
    """A :class:`LinearReading` of a pipeline of two steps only, the vectorizer and the estimator.

    Shapley values' linear route and :func:`limetheory.pipelines.corpora.linear_many.explain_linear_many` read only
    these (explain's own linear route also folds the affine steps between them into the weights).  ``memo``: the words'
    columns kept between the documents of one call (``limetheory.engine.tokens.word_columns``).
    """
    if len(model.steps) != 2:
        raise RouteUnavailable("the pipeline has steps between the vectorizer and the model")
    return LinearReading(model, vectorizer, text, output, label, mode, memo)
