"""The exact tree route: decision trees and tree ensembles whose splits are functions of which words are present.

The law of the number of removed words over the leaves (:mod:`limetheory.pipelines.routes.leaves`) gives β
exactly; a split that is not a function of the kept words (an L2-normalised TF-IDF column, a count threshold
other lime masks can cross) refuses the route with the reason.
"""

from __future__ import annotations

import numpy as np
from sklearn.feature_extraction.text import CountVectorizer, TfidfVectorizer
from sklearn.utils.validation import check_is_fitted

from ...engine.lime_documents import LimeTextCounts
from ..reading.blackbox import mask_scores, output_columns
from ..reading.document import label_column
from ..reading.modes import mode_document_columns
from .protocol import Route, RouteResult, RouteUnavailable


def closed_vectorizer(reader):
    """The pipeline's Count/TfidfVectorizer, the first step the tree route reads (RouteUnavailable otherwise)."""
    if reader.pipeline is None:
        raise RouteUnavailable("a classifier_fn is read through its outputs only")
    vectorizer = reader.pipeline.steps[0][1]
    if not isinstance(vectorizer, CountVectorizer):
        raise RouteUnavailable(
            f"the first step is a {type(vectorizer).__name__}: the tree route reads a CountVectorizer or "
            "TfidfVectorizer"
        )
    try:
        check_is_fitted(vectorizer, "vocabulary_")
        if isinstance(vectorizer, TfidfVectorizer) and vectorizer.use_idf:
            check_is_fitted(vectorizer, "idf_")
    except Exception:
        raise RouteUnavailable("the vectorizer is not fitted") from None
    return vectorizer


def tree_beta(model, vectorizer, text, output, label, nu, mode=None):
    """β of a two-step pipeline (vectorizer, trees) for ``label``, or RouteUnavailable with the reason."""
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


class TreeRoute(Route):
    """Exact β of a vectorizer followed by a tree or a tree ensemble."""

    name = "trees"

    def solve(self, document, label, call):
        """See :meth:`Route.solve`."""
        reader = document.reader
        vectorizer = closed_vectorizer(reader)
        beta = tree_beta(reader.pipeline, vectorizer, document.text, reader.output, label, call.nu, document.mode)
        scores = document.score_masks if document.mode is None else mirror_scores(document, vectorizer)
        return RouteResult(self.name, beta, label_column(scores, label))


def mirror_scores(document, vectorizer):
    """Masks -> the trees' outputs (m, k) on the rows of another word mode's count mirror: the rows β was read from.

    With ``bow=False`` or another split the tree route reads the columns from the fast engine's mirror of the
    vectorizer (:class:`limetheory.engine.lime_documents.LimeTextCounts`), which ``mode_document_columns`` checked
    against the vectorizer's transform of lime's strings; the model of masks behind the explanation's spread and
    agreement check (``Explanation.mask_fn``) reads the same rows, built when first needed, instead of building
    and tokenising lime's strings again (for a 600-occurrence review the check's 2000 masks cost a second that
    way).  Count rows are integers, equal to the vectorizer's bit for bit, and so are the outputs; each distinct
    mask is scored once, by :func:`limetheory.pipelines.reading.blackbox.mask_scores` itself.
    """
    reader, mode, mirror = document.reader, document.mode, []
    method = getattr(reader.pipeline.steps[1][1], reader.output)

    def batch_scores(batch):
        if not mirror:
            mirror.append(
                LimeTextCounts(
                    document.text, vectorizer, bow=mode.bow, split_expression=mode.split_expression,
                    mask_string=mode.mask_string,
                )
            )  # fmt: skip
        out = np.asarray(method(mirror[0].transform(batch)), dtype=float)
        return output_columns(out.reshape(len(out), -1), reader.output)

    return mask_scores(document.text, reader, scores_of=batch_scores)
