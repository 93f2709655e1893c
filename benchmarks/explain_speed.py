"""``lt.explain``'s exact routes against real lime, timed in the same run (issue 15, "Speed").

Models fitted on the paper's 1000 Yelp reviews (labels: the ``stars`` column): a logistic regression on the default
``TfidfVectorizer()`` and one on the default ``HashingVectorizer()`` (explained through ``decision_function``: the
exact linear route), and random forests on
binary counts (``CountVectorizer(binary=True)``; ``predict_proba``: the exact tree route), with 500 and 100 trees.

1. The paper's 29-word review (``EXAMPLE_REVIEW_INDEX``): the exact β of the logistic models and of the 500-tree
   forest (median of 5 calls) against one real lime explanation of the same model and output (``lt.lime_explanations``,
   lime's defaults: n = 5000, kernel width 25, every word kept; median of 3 explanations).
2. All 1000 reviews explained exactly (logistic; 100-tree forest), against one real lime explanation per review.
   Real lime on 1000 reviews would take about 5 minutes per model here, so lime is timed on a seeded random subset of
   ``LIME_SUBSET`` reviews and its total is estimated as 1000 times its mean per review (printed with the subset).

Times are CPU times of this process (``time.process_time``; lime and the BLAS run single-threaded with
``OPENBLAS_NUM_THREADS=1``), so that other jobs on a shared machine do not distort the ratios.  Every exact result
is checked to be exact (its ``method`` is printed); a review the exact routes do not cover would be
counted and reported, not hidden.  Run with ``python benchmarks/explain_speed.py`` (about 3 minutes), with
``LIMETHEORY_DATA_DIR`` set.
"""

from __future__ import annotations

import collections
import os
import platform
import statistics
import time

import numpy as np
import sklearn
from sklearn.ensemble import RandomForestClassifier
from sklearn.feature_extraction.text import CountVectorizer, HashingVectorizer, TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from timing import cpu_seconds, median_cpu_seconds

import limetheory as lt
from limetheory.book import EXAMPLE_REVIEW_INDEX

NUM_SAMPLES = 5000
KERNEL_WIDTH = 25
LIME_SUBSET = 20
SEED = 0


def lime_function(model, output):
    """lime's classifier_fn for the explained output: a binary decision function as the columns (-score, score)."""
    if output == "predict_proba":
        return model.predict_proba

    def decision(documents):
        score = model.decision_function(documents)
        return np.column_stack([-score, score])

    return decision


def one_lime(model, output, text, seed):
    return lt.lime_explanations(
        text,
        lime_function(model, output),
        n_exp=1,
        num_samples=NUM_SAMPLES,
        kernel_width=KERNEL_WIDTH,
        random_state=seed,
    )


def one_review(name, model, output, text):
    result = lt.explain(model, text, output=output, kernel_width=KERNEL_WIDTH)
    if not result.exact:
        raise AssertionError(f"{name}: the route taken is {result.method}, not exact ({result.notes})")
    ours = median_cpu_seconds(lambda: lt.explain(model, text, output=output, kernel_width=KERNEL_WIDTH), 5)
    lime = statistics.median(cpu_seconds(lambda seed=seed: one_lime(model, output, text, seed))[1] for seed in range(3))
    print(f"{name} (route {result.method!r}, d = {len(result.words)})")
    print(f"  lime, one explanation (median of 3): {lime * 1e3:8.1f} ms")
    print(f"  lt.explain, exact (median of 5):      {ours * 1e3:8.1f} ms   ratio {lime / ours:6.1f}x")
    return lime / ours


def all_reviews(name, model, output, texts):
    routes = collections.Counter()
    start = time.process_time()
    for text in texts:
        if len(lt.local_dictionary(text)) < 2:
            routes["skipped (d < 2)"] += 1
            continue
        result = lt.explain(model, text, output=output, kernel_width=KERNEL_WIDTH)
        routes[result.method if result.exact else f"NOT EXACT: {result.method}"] += 1
    ours = time.process_time() - start
    subset = np.random.default_rng(SEED).choice(len(texts), size=LIME_SUBSET, replace=False)
    lime = [cpu_seconds(lambda i=i: one_lime(model, output, texts[i], SEED))[1] for i in subset]
    estimate = np.mean(lime) * len(texts)
    print(f"{name}: all {len(texts)} reviews, routes {dict(routes)}")
    print(f"  lt.explain, every review:                          {ours:8.1f} s")
    print(
        f"  lime, one explanation per review (estimated: mean {np.mean(lime) * 1e3:.0f} ms over "
        f"{LIME_SUBSET} reviews drawn with seed {SEED}, times {len(texts)}): {estimate:8.1f} s   "
        f"ratio {estimate / ours:6.1f}x"
    )
    return estimate / ours


def main():
    reviews = lt.load_yelp_reviews()
    texts, labels = reviews["text"].tolist(), reviews["stars"].to_numpy()
    print(
        f"Python {platform.python_version()}, numpy {np.__version__}, scikit-learn {sklearn.__version__}, "
        f"{platform.machine()}; lime n = {NUM_SAMPLES}, kernel width {KERNEL_WIDTH}; "
        f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS', 'unset')} (make sets 1); CPU times"
    )
    logistic = make_pipeline(TfidfVectorizer(), LogisticRegression(max_iter=1000)).fit(texts, labels)
    hashed = make_pipeline(HashingVectorizer(), LogisticRegression(max_iter=1000)).fit(texts, labels)
    forest500 = make_pipeline(
        CountVectorizer(binary=True), RandomForestClassifier(n_estimators=500, random_state=SEED, n_jobs=1)
    ).fit(texts, labels)
    forest100 = make_pipeline(
        CountVectorizer(binary=True), RandomForestClassifier(n_estimators=100, random_state=SEED, n_jobs=1)
    ).fit(texts, labels)
    text = texts[EXAMPLE_REVIEW_INDEX]
    ratios = {
        "logistic, 29-word review (target >= 20x)": one_review(
            "logistic regression, default TfidfVectorizer, decision_function", logistic, "decision_function", text
        ),
        "logistic on hashed words, 29-word review": one_review(
            "logistic regression, default HashingVectorizer, decision_function", hashed, "decision_function", text
        ),
        "500-tree forest, 29-word review (target >= 5x)": one_review(
            "random forest (500 trees), binary counts, predict_proba", forest500, "predict_proba", text
        ),
        "logistic, all reviews (target >= 10x)": all_reviews(
            "logistic regression, decision_function", logistic, "decision_function", texts
        ),
        "100-tree forest, all reviews (target >= 3x)": all_reviews(
            "random forest (100 trees), predict_proba", forest100, "predict_proba", texts
        ),
    }
    print("summary (lime time / exact time):")
    for what, ratio in ratios.items():
        print(f"  {what}: {ratio:.1f}x")


if __name__ == "__main__":
    main()
