"""The work model behind the default budget of the linked reading (``estimate_route.linked_budget``), measured.

``lt.explain(pipe, text)`` at its default ``predict_proba`` on a logistic regression scores masks through the linked
reading (a few dot products a mask) and stops at ``tol = 0.1`` or when it has spent about half of one lime run's
time, whichever comes first.  That time is not read from a clock (the answer would then depend on the load): it
is a work model whose constants this script measures, CPU time of this process on documents of 40 to 830 distinct
words (Yelp reviews of fewer than 40 words from the 100th on, joined until they have d words; TF-IDF +
LogisticRegression fitted on the 1000 reviews):

- lime: one run at its defaults, ``LimeTextExplainer(random_state=0).explain_instance(text, pipe.predict_proba)``,
  per sample, against the words its strings hold per sample (``estimate_route.lime_words``): a least-squares line
  ``LIME_US_PER_SAMPLE + LIME_US_PER_WORD * words``;
- the estimate: ``lt.explain(pipe, text, max_calls=M, tol=1e-6)`` at M = 20000 and 60000 masks (after an untimed
  first call); the difference of the two times over the difference of their masks is the marginal cost of a mask
  (the fixed costs cancel), fitted by
  non-negative least squares as ``LINKED_US_PER_MASK + LINKED_US_PER_WORD d + LINKED_US_PER_WORD2 d²``.

It prints the fitted constants beside those in force, then the check that matters: the default call on each
document, its CPU time against the lime run's, and the precision it states (largest standard error / lime's sd).
Run with ``LIMETHEORY_DATA_DIR=/path/to/data python benchmarks/linked_budget.py`` (about 2 minutes on two cores).
"""

from __future__ import annotations

import os

for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")

import re  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402

import numpy as np  # noqa: E402
import scipy.optimize  # noqa: E402
from lime.lime_text import LimeTextExplainer  # noqa: E402
from sklearn.feature_extraction.text import TfidfVectorizer  # noqa: E402
from sklearn.linear_model import LogisticRegression  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402

import limetheory as lt  # noqa: E402
from limetheory.pipelines.estimate import estimate_route  # noqa: E402

WORDS = (40, 90, 160, 330, 510, 830)  # distinct words of the documents
MASKS = (20_000, 60_000)  # the two budgets whose difference gives the marginal cost of a mask
LIME_N = 5000
CALLS = re.compile(r"estimate from (\d+) model calls")
PRECISION = re.compile(r"the largest standard error is (\S+) x lime's standard deviation")


def cpu(action):
    start = time.process_time()
    result = action()
    return result, time.process_time() - start


def calls_made(explanation):
    return int(next(m.group(1) for n in explanation.notes for m in [CALLS.search(n)] if m))


def document(texts, d):
    """The reviews of fewer than 40 distinct words from the 100th on, joined until they hold at least d words."""
    parts = []
    for text in texts[100:]:
        if len(lt.local_dictionary(text)) >= 40:
            continue
        parts.append(text)
        joined = " ".join(parts)
        if len(lt.local_dictionary(joined)) >= d:
            return joined
    raise ValueError(f"the reviews hold fewer than {d} words")


def main():
    warnings.simplefilter("ignore", UserWarning)  # tol = 1e-6 is never met: the budget is the point
    reviews = lt.load_yelp_reviews()
    texts, labels = reviews["text"].tolist(), reviews["stars"].to_numpy()
    pipe = make_pipeline(TfidfVectorizer(), LogisticRegression(max_iter=1000)).fit(texts, labels)
    lt.explain(pipe, texts[3], progress=False)  # numba's loops compiled or loaded
    print(f"load {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; CPU microseconds")
    print(f"{'d':>5} {'words/sample':>12} {'lime/sample':>11} {'mask':>7} {'default':>8} {'lime':>7} {'ratio':>6} "
          f"{'calls':>7} {'precision':>9}")  # fmt: skip
    rows = []
    for want in WORDS:
        text = document(texts, want)
        d = len(lt.local_dictionary(text))
        words = estimate_route.lime_words(text, LIME_N)[1] / LIME_N
        _, lime = cpu(lambda text=text: LimeTextExplainer(random_state=0).explain_instance(text, pipe.predict_proba))
        spent = []
        lt.explain(pipe, text, max_calls=MASKS[0], tol=1e-6, progress=False)  # this d's first call: not timed
        for masks in MASKS:
            e, seconds = cpu(lambda text=text, masks=masks: lt.explain(pipe, text, max_calls=masks, tol=1e-6,
                                                                       progress=False))  # fmt: skip
            spent.append((calls_made(e), seconds))
        per_mask = (spent[1][1] - spent[0][1]) / (spent[1][0] - spent[0][0])
        e, default = cpu(lambda text=text: lt.explain(pipe, text, progress=False))
        precision = next(float(m.group(1)) for n in e.notes for m in [PRECISION.search(n)] if m)
        rows.append((d, words, lime / LIME_N * 1e6, per_mask * 1e6))
        print(f"{d:5d} {words:12.1f} {lime / LIME_N * 1e6:11.0f} {per_mask * 1e6:7.1f} {default:8.2f} {lime:7.2f} "
              f"{lime / default:5.1f}x {calls_made(e):7d} {precision:9.3f}", flush=True)  # fmt: skip
    d, words, lime_us, mask_us = (np.array(c, dtype=float) for c in zip(*rows, strict=True))
    (a, b), _ = scipy.optimize.nnls(np.column_stack([np.ones_like(words), words]), lime_us)
    (c, e1, e2), _ = scipy.optimize.nnls(np.column_stack([np.ones_like(d), d, d * d]), mask_us)
    print(f"fitted: LIME_US_PER_SAMPLE, LIME_US_PER_WORD = {a:.1f}, {b:.2f}; LINKED_US_PER_MASK, LINKED_US_PER_WORD, "
          f"LINKED_US_PER_WORD2 = {c:.2f}, {e1:.3f}, {e2:.2e}")  # fmt: skip
    print(f"in force: {estimate_route.LIME_US_PER_SAMPLE}, {estimate_route.LIME_US_PER_WORD}; "
          f"{estimate_route.LINKED_US_PER_MASK}, {estimate_route.LINKED_US_PER_WORD}, "
          f"{estimate_route.LINKED_US_PER_WORD2} (safety {estimate_route.LINKED_SAFETY})")  # fmt: skip
    model = (estimate_route.LIME_US_PER_SAMPLE + estimate_route.LIME_US_PER_WORD * words) / (
        estimate_route.LINKED_US_PER_MASK
        + estimate_route.LINKED_US_PER_WORD * d
        + estimate_route.LINKED_US_PER_WORD2 * d * d
    )
    print("lime / mask, measured:", np.round(lime_us / mask_us, 1).tolist())
    print("lime / mask, the model in force:", np.round(model, 1).tolist())


if __name__ == "__main__":
    main()
