"""The exact explanation of a 500-tree random forest (and of one tree) against one run of lime on the same model.

The model is ``Pipeline(CountVectorizer(binary=True), RandomForestClassifier(n_estimators=500))`` trained on the
paper's 1000 Yelp reviews; the document is the paper's 29-word review (``EXAMPLE_REVIEW_INDEX``).  lime
(``lt.lime_explanations``: one ``LimeTextExplainer.explain_instance`` with every word kept, n = 5000, kernel
width 25) estimates the limit explanation from 5000 perturbed documents sent through the vectorizer and the
forest.  ``lt.beta_tree_model`` computes it exactly from the forest's leaves (``limetheory.pipelines.routes.leaves``).
Both are timed in the same run, in CPU time (the machine may be shared), median of a few repeats; the ratios are
printed. The exact β is also compared with lime's run, in units of the spread of lime's coefficients (which is estimated
from ``RUNS_FOR_SPREAD`` further lime runs).  Run with ``make bench`` (needs ``LIMETHEORY_DATA_DIR``).
"""

from __future__ import annotations

import os
import statistics
import sys
import time

import numpy as np
from sklearn.ensemble import RandomForestClassifier
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.tree import DecisionTreeClassifier

import limetheory as lt
from limetheory.book import EXAMPLE_REVIEW_INDEX

KERNEL_WIDTH = 25
NU = KERNEL_WIDTH / 100
NUM_SAMPLES = 5000
N_TREES = 500
LIME_REPEATS = 3
EXACT_REPEATS = 7
RUNS_FOR_SPREAD = 10


def median_cpu_seconds(action, repeats):
    """Median CPU time of ``action`` (process time: other jobs on a shared machine do not count)."""
    times = []
    for _ in range(repeats):
        start = time.process_time()
        action()
        times.append(time.process_time() - start)
    return statistics.median(times)


def compare(name, model, vectorizer, text):
    def classifier_fn(documents):
        return model.predict_proba(vectorizer.transform(documents))

    def lime_once(seed=0):
        return lt.lime_explanations(
            text, classifier_fn, n_exp=1, num_samples=NUM_SAMPLES, kernel_width=KERNEL_WIDTH, random_state=seed
        )[0]

    def exact():
        return lt.beta_tree_model(model, vectorizer, text, nu=NU)

    lime_seconds = median_cpu_seconds(lime_once, LIME_REPEATS)
    exact_seconds = median_cpu_seconds(exact, EXACT_REPEATS)
    beta = exact()
    runs = lt.lime_explanations(
        text, classifier_fn, n_exp=RUNS_FOR_SPREAD, num_samples=NUM_SAMPLES, kernel_width=KERNEL_WIDTH, random_state=1
    )
    spread = runs.std(axis=0, ddof=1)
    z = np.abs(runs.mean(axis=0) - beta) / (spread / np.sqrt(len(runs)))
    print(
        f"{name}: one lime explanation {lime_seconds * 1e3:.0f} ms, exact beta {exact_seconds * 1e3:.1f} ms, "
        f"ratio {lime_seconds / exact_seconds:.1f}"
    )
    print(
        f"  mean of {len(runs)} lime runs vs exact beta: largest gap {np.abs(runs.mean(axis=0) - beta).max():.2e} "
        f"= {z.max():.1f} standard errors of the mean (lime's spread per run: up to {spread.max():.3f})"
    )
    return lime_seconds / exact_seconds


def main():
    if not os.environ.get("LIMETHEORY_DATA_DIR"):
        sys.exit("set LIMETHEORY_DATA_DIR to the folder holding the Yelp reviews (the paper's review is needed)")
    reviews = lt.load_yelp_reviews()
    texts, stars = list(reviews.text), reviews.stars.to_numpy()
    text = texts[EXAMPLE_REVIEW_INDEX]
    vectorizer = CountVectorizer(binary=True).fit(texts)
    X = vectorizer.transform(texts)
    forest = RandomForestClassifier(n_estimators=N_TREES, random_state=0, n_jobs=1).fit(X, stars)
    tree = DecisionTreeClassifier(random_state=0).fit(X, stars)
    leaves = sum(int(t.get_n_leaves()) for t in forest.estimators_)
    print(
        f"review {EXAMPLE_REVIEW_INDEX}: d = {len(lt.local_dictionary(text))} words; binary counts of "
        f"{len(vectorizer.vocabulary_)} columns; forest of {N_TREES} trees ({leaves} leaves); lime n = {NUM_SAMPLES}, "
        f"kernel width {KERNEL_WIDTH}; CPU times, median of {LIME_REPEATS} (lime) and {EXACT_REPEATS} (exact) runs"
    )
    compare(f"random forest ({N_TREES} trees)", forest, vectorizer, text)
    compare(f"decision tree ({int(tree.get_n_leaves())} leaves)", tree, vectorizer, text)


if __name__ == "__main__":
    main()
