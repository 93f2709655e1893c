"""The work model of the estimate's own work on long string documents (``estimate.own_work``), measured.

The default call on a long document scored on strings holds its optional work (the per-word surrogates' fits and
their cheap masks) within a share of lime's own work, both in modelled CPU microseconds (no clock: the same call
gives the same answer under any load).  This script measures the constants:

1. lime's own work: one lime run at its defaults (num_samples = 5000, 10 features, ``feature_selection="auto"``)
   with a classifier_fn of negligible cost (each string's length), on documents of d = 39 to about 900 distinct
   words (a review, reviews joined); fitted as ``a n + b words + c n d`` (nonnegative least squares on the relative
   error), lime's strings holding ``words`` words in all (``estimate_route.lime_words``);
2. a per-word fit's Gram matrix: ``fit_word_surrogate`` on masks of lime's law, m = 250 to 8000 masks, d = 200 to
   900; its CPU time over the Gram matrices it computed, fitted as ``m ((d + 3)² e + (d + 3) f) + (d + 3)³ g + h``;
3. a cheap mask: the estimate's cheap masks on the keyword count's long document (``explain``'s default call, the
   masks ``BatchEstimator.cheap`` drew and their CPU time), per mask and word.

Each fit is printed beside the constants in ``own_work`` and the ratio modelled / measured at every point: lime's
constants must not overstate lime (ratios <= 1), the estimate's must not understate it (ratios >= 1).  CPU time of
this process, the least of ``--repeats``; BLAS on one thread as ``make`` sets it.  Run from the repository's root:
``LIMETHEORY_DATA_DIR=/path/to/data python benchmarks/own_work.py`` (about 3 minutes on two cores).
"""

from __future__ import annotations

import os

for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")

import argparse  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402
from default_call import keyword_score  # noqa: E402  (the benchmark's keyword function)
from lime.lime_text import LimeTextExplainer  # noqa: E402
from row_budget import cpu  # noqa: E402
from scipy.optimize import nnls  # noqa: E402

import limetheory as lt  # noqa: E402
from limetheory.pipelines.estimate import estimate_batches, limit_estimate, own_work  # noqa: E402
from limetheory.pipelines.estimate.estimate_route import lime_words  # noqa: E402
from limetheory.pipelines.estimate.word_surrogate import fit_word_surrogate  # noqa: E402

SEED = 0
LIME_N = 5000
JOINED = (120, 250, 488, 900)  # distinct words of the documents of reviews joined (488: the first reviews' 1043 tokens)
FIT_MASKS = (250, 1000, 4000, 8000)
FIT_D = (200, 488, 900)


def documents(texts):
    """{d: text}: a 30-40-word review and reviews joined until they hold each of ``JOINED`` distinct words."""
    d = np.array([len(lt.local_dictionary(t)) for t in texts])
    rng = np.random.default_rng(SEED)
    review = texts[rng.choice(np.flatnonzero((d >= 30) & (d <= 40)))]
    found = {len(lt.local_dictionary(review)): review}
    for want in JOINED:
        parts = []
        for text in texts:
            parts.append(text)
            if len(lt.local_dictionary(" ".join(parts))) >= want:
                break
        joined = " ".join(parts)
        found[len(lt.local_dictionary(joined))] = joined
    return found


def lengths(strings):
    """A classifier_fn of negligible cost: two columns from each string's length."""
    x = np.array([len(s) for s in strings], dtype=float)
    return np.column_stack([1.0 / (1.0 + x), x / (1.0 + x)])


def part_lime(docs, repeats):
    print("1. lime's own CPU seconds (classifier_fn: the strings' lengths)")
    rows, measured = [], []
    for d, text in sorted(docs.items()):
        explainer = LimeTextExplainer(random_state=SEED)
        _, seconds = cpu(lambda text=text, e=explainer: e.explain_instance(text, lengths, num_samples=LIME_N), repeats)
        words = lime_words(text, LIME_N)[1]
        rows.append((LIME_N, words, LIME_N * d))
        measured.append(seconds * 1e6)
        print(f"   d = {d:4d}: {seconds:6.2f} s, words {words:10.0f}", flush=True)
    x, y = np.array(rows, dtype=float), np.array(measured)
    fitted, _ = nnls(x / y[:, None], np.ones(len(y)))
    package = np.array([own_work.LIME_OWN_US_PER_SAMPLE, own_work.LIME_OWN_US_PER_WORD,
                        own_work.LIME_OWN_US_PER_SAMPLE_WORD])  # fmt: skip
    print(f"   fitted (per sample, per word, per sample x d): {fitted[0]:.3g}, {fitted[1]:.3g}, {fitted[2]:.3g}; "
          f"own_work's: {package[0]:g}, {package[1]:g}, {package[2]:g}")  # fmt: skip
    print("   own_work / measured:", " ".join(f"{r:.2f}" for r in x @ package / y), "(must be <= 1)")


def part_fit(repeats):
    print("2. a per-word fit's CPU seconds per Gram matrix (logit link, masks of lime's law)")
    rng = np.random.default_rng(SEED)
    rows, measured = [], []
    for d in FIT_D:
        a = rng.normal(0.0, 3.0 / np.sqrt(d), d)
        for m in FIT_MASKS:
            removed = rng.integers(1, d + 1, size=m)
            z = rng.random((m, d)).argsort(axis=1) >= removed[:, None]
            f = 1.0 / (1.0 + np.exp(-(z @ a - a.sum() / 2)))
            surrogate, seconds = cpu(lambda z=z, f=f, removed=removed, d=d: fit_word_surrogate(
                z, removed, f, np.ones(len(f)), "logit", 0.1), repeats)  # fmt: skip
            k = d + 3
            rows.append((surrogate.grams * m * k * k, surrogate.grams * m * k, surrogate.grams * k**3, surrogate.grams))
            measured.append(seconds * 1e6)
            print(f"   d = {d:4d}, m = {m:5d}: {seconds:6.3f} s, {surrogate.grams} Grams", flush=True)
    x, y = np.array(rows, dtype=float), np.array(measured)
    fitted, _ = nnls(x / y[:, None], np.ones(len(y)))
    package = np.array([own_work.FIT_US_PER_MASK_COLUMN2, own_work.FIT_US_PER_MASK_COLUMN,
                        own_work.FIT_US_PER_COLUMN3, own_work.FIT_US_PER_GRAM])  # fmt: skip
    print(
        f"   fitted (per mask x column², per mask x column, per column³, per Gram): {fitted[0]:.3g}, "
        f"{fitted[1]:.3g}, {fitted[2]:.3g}, {fitted[3]:.3g}; own_work's: {', '.join(f'{c:g}' for c in package)}"
    )
    print("   own_work / measured:", " ".join(f"{r:.2f}" for r in x @ package / y), "(must be >= 1)")


def part_cheap(docs):
    print("3. a cheap mask's CPU microseconds per word (the keyword count's default call)")
    cheap = estimate_batches.BatchEstimator.cheap
    spent = {"seconds": 0.0, "masks": 0.0}

    def timed(self, counts, averages=None):
        start = time.process_time()
        cheap(self, counts, averages)
        spent["seconds"] += time.process_time() - start
        spent["masks"] += float(np.sum(counts))

    estimate_batches.BatchEstimator.cheap = timed
    share = limit_estimate.OWN_WORK_SHARE
    limit_estimate.OWN_WORK_SHARE = np.inf  # the ledger unbounded: the estimate's cheap masks as they were
    try:
        for d, text in sorted(docs.items()):
            if d < 300:  # per-word surrogates on long documents only (``estimate_batches.MAX_STRATA``)
                continue
            spent.update(seconds=0.0, masks=0.0)
            lt.explain(keyword_score, text, progress=False)
            per = spent["seconds"] * 1e6 / max(spent["masks"], 1) / d
            print(f"   d = {d:4d}: {spent['masks']:.0f} cheap masks, {spent['seconds']:.2f} s, {per:.4f} us a mask "
                  f"and word; own_work's {own_work.CHEAP_US_PER_MASK_WORD:g} (ratio "
                  f"{own_work.CHEAP_US_PER_MASK_WORD / per:.2f}, must be >= 1)", flush=True)  # fmt: skip
    finally:
        estimate_batches.BatchEstimator.cheap = cheap
        limit_estimate.OWN_WORK_SHARE = share


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=2, help="runs of each timing, the least kept (default 2)")
    options = parser.parse_args()
    texts = lt.load_yelp_reviews()["text"].tolist()
    docs = documents(texts)
    print(f"load {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; documents d = {sorted(docs)}")
    part_lime(docs, options.repeats)
    part_fit(options.repeats)
    part_cheap(docs)


if __name__ == "__main__":
    main()
