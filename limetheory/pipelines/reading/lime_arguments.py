"""lime's arguments as :func:`limetheory.explain` takes them: the document's words, the labels and the seed.

The labels are resolved as lime's ``LimeTextExplainer.explain_instance`` resolves ``labels`` and ``top_labels``,
and ``random_state`` as lime takes it (an int, a numpy generator, or None for fresh entropy).
"""

from __future__ import annotations

import numpy as np

from ..._validation import check_int, check_text
from ...engine.tokens import local_dictionary


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
