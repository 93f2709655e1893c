"""The enumeration route: any model on a short document, every one of its 2ᵈ - 1 masks through the model.

Exact for any model (nothing is read but its outputs), at a cost of 2ᵈ - 1 model calls shared by every label.
"""

from __future__ import annotations

import numpy as np

from ...theory.explanation import all_masks, beta_enumerate
from ...theory.sampling import kernel_weights
from ..reading.mask_samples import MaskSample
from .protocol import Route, RouteResult, RouteUnavailable

#: largest number of distinct words for which every mask is enumerated (16383 model calls)
MAX_ENUMERATION_WORDS = 14
#: relative difference allowed between two calls of the model on the same strings: batched BLAS sums may round
#: differently with the batch's size (a few ulps of outputs of size 1; 1e-9 leaves 10⁶ of them), a random model's
#: outputs differ by far more
REPEAT_TOLERANCE = 1e-9


def repeated_rows(m):
    """The masks scored twice: the document (the last row of ``all_masks``), the first and the middle one."""
    return np.array([m - 1, 0, m // 2])


def lookup(sample):
    """The mask function of an enumerated sample: rows of ``all_masks`` are in binary order, so a mask is its code."""
    weights = 1 << np.arange(sample.z.shape[1], dtype=np.int64)
    return lambda z: sample.f[np.asarray(z, dtype=np.int64) @ weights]


class EnumerationRoute(Route):
    """Exact β of any model through its outputs on all 2ᵈ - 1 masks (d <= :data:`MAX_ENUMERATION_WORDS`).

    One route object serves one document: the masks are scored once, for every label.
    """

    name = "enumeration"
    bounded_by_max_work = False

    def __init__(self):
        self._scored = None

    def unavailable(self, document):
        """See :meth:`Route.unavailable`."""
        if document.d > MAX_ENUMERATION_WORDS:
            unit = "distinct words" if document.mode is None else document.mode.unit
            return f"the document has d = {document.d} > {MAX_ENUMERATION_WORDS} {unit}"
        return None

    def solve(self, document, label, call):
        """See :meth:`Route.solve`."""
        d = document.d
        if self._scored is None:  # every mask once, for every label
            z, s, prob = all_masks(d)
            values = document.score_masks(z)
            again = document.score_masks(z[repeated_rows(len(z))])
            # the same strings, scored again in another batch: a deterministic model agrees to the rounding of its
            # batched arithmetic (a few ulps of its outputs); a random one does not, and no route is exact for it
            scale = np.maximum(1.0, np.abs(values[repeated_rows(len(z))]))
            if not np.all(np.abs(again - values[repeated_rows(len(z))]) <= REPEAT_TOLERANCE * scale):
                self._scored = RouteUnavailable(
                    "the model's outputs on the same strings differ between two calls (a random model): no route is "
                    "exact for it"
                )
            else:
                self._scored = (z, s, prob, values)
        if isinstance(self._scored, RouteUnavailable):
            raise self._scored
        z, s, prob, values = self._scored
        sample = MaskSample(z, values[:, label], prob, kernel_weights(d, nu=call.nu)[s - 1], True)
        beta = beta_enumerate(lookup(sample), d, nu=call.nu)
        return RouteResult(self.name, beta, lambda masks: document.score_masks(masks)[:, label], sample)
