"""What test_linear_many.py and test_linear_many_bow.py share: every field of an Explanation, and their comparison
between the batched linear route and explain, bit for bit.

Not a test module (pytest does not collect it); the two test files import it.
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def fields(explanation):
    """Everything an Explanation holds (its attributes and public properties), the functions by their values."""
    d = len(explanation.words)
    # every word kept, the first removed, every other one removed: the functions read on three masks
    masks = np.array([[1] * d, [0] + [1] * (d - 1), [0, 1] * (d // 2) + [0] * (d % 2)], dtype=np.int8)
    held = {name: value for name, value in vars(explanation).items() if name not in ("_cache", "_family", "_shared")}
    held["mask_fn"] = explanation.mask_fn(masks)
    held["scores_fn"] = explanation.scores_fn(masks)
    held["sample"] = explanation.sample  # None for an exact route
    for name in ("nu", "outputs_known", "y0", "lime_agrees"):
        held[name] = getattr(explanation, name)
    held["word_order"], held["outputs"] = explanation.word_order(), explanation.outputs()
    held["as_list"], held["as_map"] = explanation.as_list(), explanation.as_map()
    held["frame"] = explanation.to_frame()
    return held


def assert_same(batch, one, text):
    """Every field of the batch's Explanation of ``text`` equal to explain's (``one``), bit for bit."""
    ours, theirs = fields(batch), fields(one)
    assert ours.keys() == theirs.keys()
    for name, value in theirs.items():
        if isinstance(value, pd.DataFrame):
            pd.testing.assert_frame_equal(ours[name], value, check_exact=True)
        elif isinstance(value, np.ndarray):
            np.testing.assert_array_equal(ours[name], value, err_msg=f"{name} of {text!r}")
        else:
            assert ours[name] == value, (name, text)
