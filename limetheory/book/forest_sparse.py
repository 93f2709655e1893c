"""A fitted forest's ``predict_proba`` on rows that hold few of its columns, bit for bit (chapter 23).

The walk moved into the package proper (:mod:`limetheory.pipelines.reading.forest_walk`), where the estimate's
rows from counts use it too; chapter 23 imports it from here.
"""

from __future__ import annotations

from ..pipelines.reading.forest_walk import sparse_forest_proba  # re-exported for chapter 23

__all__ = ["sparse_forest_proba"]
