"""Exact Shapley values of words (``lt.shapley``) against shap's explainers on the same pipelines, in the same run.

Two models trained on the paper's 1000 Yelp reviews: a logistic regression on the default ``TfidfVectorizer``
(explained through its decision function: ``lt.shapley``'s linear route) and a 40-tree random forest on binary
counts (``predict_proba``: the tree route).  Documents: the Yelp reviews joined and cut right after the d-th
distinct lime word, and the paper's 29-word review.

shap (0.51 here) explains the same value function: its input is the vector of lime's d words, all ones, and its
masker keeps the words of a mask (``x * mask``), which the model function turns into lime's perturbed string
(every occurrence of a removed word deleted), so shap's exact values are the same numbers (their largest
difference is printed).

* ``shap.ExactExplainer`` (2ᵈ model calls) at d = 10, 12, 14, 16, against ``lt.shapley`` (exact routes);
* ``shap.PartitionExplainer`` (Owen values over a balanced hierarchy of the words in text order, its default
  ``max_evals=500``) and ``shap.KernelExplainer`` (its default number of samples, 2d + 2048) at d = 29, 100, 300,
  with their error against the exact values;
* the two honest estimators at equal model evaluations (issue 29: "permutation sampling with antithetic pairs, or
  KernelSHAP with paired sampling, whichever measures better"): ``lt.shapley(method="permutation")`` and
  ``shap.KernelExplainer(nsamples=N)`` (whose sampler adds each mask's complement: paired sampling), their mean
  squared error against the exact values over seeds at d = 29 and 100; the ratio is the efficiency of the
  permutation estimate against KernelSHAP's.

CPU time (process time: the machine is shared), median of a few repeats for the fast calls.  Run with
``make bench`` (needs ``LIMETHEORY_DATA_DIR``); ``--small`` stops the exact explainer at d = 14.
"""

from __future__ import annotations

import argparse
import re
import warnings

import numpy as np
from scipy.cluster.hierarchy import linkage
from sklearn.ensemble import RandomForestClassifier
from sklearn.feature_extraction.text import CountVectorizer, TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from timing import median_cpu_and_wall

import limetheory as lt
from limetheory.book import EXAMPLE_REVIEW_INDEX

EXACT_SIZES = (10, 12, 14, 16)
APPROXIMATE_SIZES = (29, 100, 300)
FOREST_TREES = 40
FOREST_WORDS = 75
REPEATS = 5


def cpu_seconds(action, repeats=1):
    """(median CPU seconds over ``repeats`` calls of ``action``, its last result)."""
    cpu, _, result = median_cpu_and_wall(action, repeats)
    return cpu, result


def long_document(texts, d_target):
    """The texts joined and cut right after the first occurrence of the d_target-th distinct word."""
    joined = " ".join(texts)
    seen = set()
    for match in re.finditer(r"\w+", joined):
        seen.add(match.group())
        if len(seen) == d_target:
            return joined[: match.end()]
    raise ValueError(f"the texts have only {len(seen)} distinct words, fewer than {d_target}")


def value_function(model, output, text):
    """shap's model function: masks over lime's words -> the pipeline on lime's perturbed strings (label 1)."""

    def f(masks):
        out = np.asarray(getattr(model, output)(lt.perturbed_documents(text, np.asarray(masks, dtype=np.int8))))
        return out if out.ndim == 1 else out[:, 1]

    return f


def keep_words(mask, x):
    """shap's masker: the words of the mask kept (x is all ones), every other removed."""
    return (x * mask).reshape(1, -1)


def shap_exact(shap, model, output, text):
    d = len(lt.local_dictionary(text))
    explainer = shap.ExactExplainer(value_function(model, output, text), keep_words)
    return explainer(np.ones((1, d)), silent=True).values[0]


def shap_partition(shap, model, output, text):
    d = len(lt.local_dictionary(text))
    hierarchy = linkage(np.arange(d, dtype=float)[:, None], "ward")  # neighbours in the text first, balanced
    masker = shap.maskers.Partition(np.zeros((1, d)), clustering=hierarchy)
    explainer = shap.PartitionExplainer(value_function(model, output, text), masker)
    return explainer(np.ones((1, d)), silent=True).values[0]


def shap_kernel(shap, model, output, text):
    d = len(lt.local_dictionary(text))
    explainer = shap.KernelExplainer(value_function(model, output, text), np.zeros((1, d)))
    return np.ravel(explainer.shap_values(np.ones((1, d)), silent=True))


ESTIMATE_EVALUATIONS = 4000
ESTIMATE_SEEDS = 5


def estimators_at_equal_evaluations(shap, model, output, text, exact):
    """Mean squared error over seeds of lt's permutation estimate and shap's KernelSHAP, at the same evaluations."""
    d = len(exact)
    errors = {"permutation (antithetic)": [], "KernelSHAP (paired)": []}
    cpu = {name: 0.0 for name in errors}
    for seed in range(ESTIMATE_SEEDS):
        seconds, ours = cpu_seconds(
            lambda s=seed: lt.shapley(
                model, text, output=output, method="permutation", num_samples=ESTIMATE_EVALUATIONS, random_state=s
            )  # fmt: skip
        )
        errors["permutation (antithetic)"].append(np.mean((ours.values - exact) ** 2))
        cpu["permutation (antithetic)"] += seconds

        def kernel(s=seed):
            np.random.seed(s)  # noqa: NPY002 (shap's KernelExplainer draws from numpy's global generator)
            explainer = shap.KernelExplainer(value_function(model, output, text), np.zeros((1, d)))
            return np.ravel(explainer.shap_values(np.ones((1, d)), nsamples=ESTIMATE_EVALUATIONS, silent=True))

        seconds, theirs = cpu_seconds(kernel)
        errors["KernelSHAP (paired)"].append(np.mean((theirs - exact) ** 2))
        cpu["KernelSHAP (paired)"] += seconds
    return {name: (float(np.mean(values)), cpu[name] / ESTIMATE_SEEDS) for name, values in errors.items()}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--small", action="store_true", help="the exact explainer up to d = 14 only")
    arguments = parser.parse_args(argv)
    import shap

    warnings.filterwarnings("ignore", category=FutureWarning)
    reviews = lt.load_yelp_reviews()
    texts, stars = list(reviews.text), reviews.stars.to_numpy()
    linear = make_pipeline(TfidfVectorizer(), LogisticRegression(max_iter=1000)).fit(texts, stars)
    forest = make_pipeline(CountVectorizer(binary=True), RandomForestClassifier(FOREST_TREES, random_state=0))
    forest.fit(texts, stars)
    models = {"tfidf-logistic": (linear, "decision_function"), "forest-40": (forest, "predict_proba")}
    # shap's first call compiles (numba) and imports lazily: warm it up outside the timings
    for warm_up in (shap_exact, shap_partition, shap_kernel):
        warm_up(shap, linear, "decision_function", long_document(texts, 4))

    print("exact Shapley values: lt.shapley vs shap.ExactExplainer (CPU seconds)")
    print(f"{'model':>15} {'d':>4} {'route':>7} {'lt.shapley':>11} {'shap exact':>11} {'ratio':>9} {'max |diff|':>11}")
    for d in EXACT_SIZES if not arguments.small else EXACT_SIZES[:3]:
        text = long_document(texts, d)
        for name, (model, output) in models.items():
            ours_cpu, ours = cpu_seconds(lambda m=model, o=output, t=text: lt.shapley(m, t, output=o), REPEATS)
            if d == EXACT_SIZES[-1] and name != "tfidf-logistic":
                continue  # one model at the largest size: 2^16 model calls each
            shap_cpu, theirs = cpu_seconds(lambda m=model, o=output, t=text: shap_exact(shap, m, o, t))
            difference = np.abs(ours.values - theirs).max()
            print(
                f"{name:>15} {d:4d} {ours.method:>7} {ours_cpu:11.4f} {shap_cpu:11.2f} {shap_cpu / ours_cpu:8.0f}x "
                f"{difference:11.2e}"
            )

    print()
    print("approximations against the exact values (tfidf-logistic decision function; CPU seconds)")
    print(f"{'explainer':>22} {'d':>4} {'CPU':>9} {'ratio':>9} {'max |err|':>10} {'rel. err':>9} {'rank corr':>9}")
    for d in APPROXIMATE_SIZES:
        text = texts[EXAMPLE_REVIEW_INDEX] if d == 29 else long_document(texts, d)
        assert len(lt.local_dictionary(text)) == d
        ours_cpu, exact = cpu_seconds(lambda t=text: lt.shapley(linear, t, output="decision_function"), REPEATS)
        scale = np.abs(exact.values).max()
        print(f"{'lt.shapley (' + exact.method + ')':>22} {d:4d} {ours_cpu:9.4f} {'1x':>9} {'exact':>10}")
        for name, approximate in (("shap Partition (Owen)", shap_partition), ("shap Kernel", shap_kernel)):
            cpu, values = cpu_seconds(lambda a=approximate, t=text: a(shap, linear, "decision_function", t))
            error = np.abs(values - exact.values).max()
            ranks = np.corrcoef(np.argsort(np.argsort(values)), np.argsort(np.argsort(exact.values)))[0, 1]
            print(
                f"{name:>22} {d:4d} {cpu:9.3f} {cpu / ours_cpu:8.0f}x {error:10.3g} {error / scale:9.3f} {ranks:9.3f}"
            )

    print()
    print(
        f"estimators at {ESTIMATE_EVALUATIONS} model evaluations, mean squared error over {ESTIMATE_SEEDS} seeds "
        "(tfidf-logistic decision function; efficiency = KernelSHAP's MSE / the permutation estimate's)"
    )
    for d in APPROXIMATE_SIZES[:2]:
        text = texts[EXAMPLE_REVIEW_INDEX] if d == 29 else long_document(texts, d)
        exact = lt.shapley(linear, text, output="decision_function").values
        results = estimators_at_equal_evaluations(shap, linear, "decision_function", text, exact)
        for name, (mse, seconds) in results.items():
            print(f"{name:>26} d = {d:4d}: MSE {mse:10.3g}, {seconds:7.3f} s CPU per estimate")
        efficiency = results["KernelSHAP (paired)"][0] / results["permutation (antithetic)"][0]
        print(f"{'efficiency':>26} d = {d:4d}: {efficiency:.2f}x")

    print()
    text = long_document(texts, FOREST_WORDS)
    cpu, phi = cpu_seconds(lambda: lt.shapley(forest, text), REPEATS)
    trees = f"the {FOREST_TREES}-tree forest"
    print(f"targets: a {FOREST_WORDS}-word document under {trees}: {phi.method}, {cpu:.3f} s CPU")
    text = long_document(texts, 300)
    cpu, phi = cpu_seconds(lambda: lt.shapley(linear, text, output="decision_function"), REPEATS)
    print(f"         a 300-word document under the TF-IDF logistic model: {phi.method}, {cpu:.3f} s CPU")


if __name__ == "__main__":
    main()
