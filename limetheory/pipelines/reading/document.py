"""The model and the document as every route reads them: lime's features, the model on masks, the labels.

:func:`read_document` does, once per call, what every route of :func:`limetheory.explain` needs: lime's features of
the document under its text mode, a function from masks to the model's outputs on lime's perturbed strings, the
model on the document, and lime's labels resolved against it.  Where the linear route or the linked reading may
apply, their check masks (the document first) are scored here, so one model call gives the document's outputs and
the check.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sklearn.base import is_classifier

from .blackbox import mask_scores
from .lime_arguments import resolve_labels
from .linked_reading import link_possible
from .modes import mode_documents
from .pipeline_reading import self_check_masks
from .text_features import reads_words


def linear_possible(reader):
    """Whether the linear route may apply (then its check masks are sent through the model before the routes)."""
    if reader.pipeline is None or not reads_words(reader.pipeline.steps[0][1]):
        return False
    estimator = reader.pipeline.steps[-1][1]
    wanted = "predict" if not is_classifier(estimator) else "decision_function"
    return reader.output == wanted and hasattr(estimator, "coef_")


def declared_columns(reader):
    """The number of the pipeline's output columns when its classifier declares its classes (None: ask the model)."""
    if reader.pipeline is None or reader.output not in ("predict_proba", "decision_function"):
        return None
    classes = getattr(reader.pipeline.steps[-1][1], "classes_", None)
    # a binary decision_function is given two columns, (-score, score)
    return len(classes) if classes is not None and np.ndim(classes) == 1 and len(classes) >= 2 else None


def linked_check_masks(d, seed):
    """The linked reading's check masks: the self-check masks from the seed (the document first)."""
    return self_check_masks(d, np.random.default_rng(seed))


def label_column(score_masks, label):
    """Masks -> the model's output ``label``, from the function of masks to every output column."""
    return lambda z: score_masks(z)[:, label]


@dataclass
class DocumentReading:
    """One document read through one model under lime's call (:func:`read_document`).

    Attributes
    ----------
    reader : ModelReader
        The model as lime calls it (:func:`limetheory.pipelines.reading.blackbox.read_model`).
    text : str
        The document.
    words : list of str
        lime's features (its distinct words by default).
    mode : TextMode or None
        lime's text mode (None for its defaults).
    score_masks : callable
        Masks (m, d) -> the model's (m, k) outputs on lime's perturbed strings.
    outputs : ndarray or None
        The model on the document (None when nothing needed it).
    labels : tuple of int
        lime's labels, resolved; ``top_labels`` the ones ``top_labels`` chose (None otherwise).
    truth : tuple or None
        The linear route's check: (masks, the model's outputs on them).
    linked_check : tuple or None
        The linked reading's check: (masks, the model's outputs on them).
    rng : numpy.random.Generator
        The closed routes' generator (their check masks), from the call's seed.
    """

    reader: object
    text: str
    words: list
    mode: object
    score_masks: object
    outputs: object
    labels: tuple
    top_labels: object
    truth: object
    linked_check: object
    rng: object

    @property
    def d(self):
        """The number of lime's features."""
        return len(self.words)


def read_document(reader, text, words, mode, call):
    """Read ``text`` through ``reader`` under ``call`` (a :class:`LimeCall`): a :class:`DocumentReading`.

    The model is called once here when a route needs its check masks scored, or when the labels need the
    model's outputs on the document; otherwise not at all.
    """
    d = len(words)
    rng = np.random.default_rng(call.seed)
    documents_of = None if mode is None else mode_documents(text, mode)
    score_masks = mask_scores(text, reader, documents_of)
    truth = linked_check = None
    if call.method in ("auto", "linear") and linear_possible(reader):
        # the linear route's check masks start with the document itself (no word removed): one call gives both
        check_masks = self_check_masks(d, rng)
        truth = (check_masks, score_masks(check_masks))
        outputs = truth[1][0]
    elif link_possible(reader.pipeline, reader.output, mode):
        # the linked reading's check masks start with the document too: its outputs come with the check
        masks = linked_check_masks(d, call.seed)
        linked_check = (masks, score_masks(masks))
        outputs = linked_check[1][0]
    else:
        outputs = None  # lime's first row, the model on the document, only when something needs it
    columns = declared_columns(reader) if outputs is None else len(outputs)
    if columns is None or (call.top_labels and outputs is None):
        outputs = score_masks(np.ones((1, d), dtype=np.int8))[0]
        columns = len(outputs)
    score_masks = mask_scores(text, reader, documents_of, columns)
    labels, top = resolve_labels(call.label, call.labels, call.top_labels, outputs, columns)
    return DocumentReading(
        reader=reader, text=text, words=words, mode=mode, score_masks=score_masks, outputs=outputs, labels=labels,
        top_labels=top, truth=truth, linked_check=linked_check, rng=rng,
    )  # fmt: skip
