"""The fast engine against real lime, timed in the same run: ``lt.fast_lime_explanations`` vs ``lt.lime_explanations``.

Setting: the paper's d = 29 Yelp review (``EXAMPLE_REVIEW_INDEX``), lime's defaults (n = 5000 samples,
kernel width 25), every word kept, explanations of label 1.  Three models that read the package's TF-IDF
vectorizer: a decision tree, a logistic regression (linear in the TF-IDF) and a 500-tree random forest.

For each model, real lime is timed on a few explanations, one per call (its cost per explanation does not
depend on the seed), and the fast engine on 100 explanations in one call (10 for the forest), in both
streams (median of three calls); times are reported per explanation.  The exact stream is also checked
against lime on the first explanation (same seed, same random stream: the coefficients must agree to
round-off).  For the forest, its ``predict_proba`` is the floor of any LIME implementation that queries the
model on every sample; the fraction of the fast engine's time spent inside it is printed.

lime's default call: ``LimeTextExplainer(random_state=seed).explain_instance(text, fn)`` with nothing else, i.e.
``num_features=10`` and ``feature_selection='auto'`` (which runs ``'highest_weights'``), against
``lt.fast_lime_explanations(..., feature_selection="auto", num_features=10)``, for the logistic regression and
the tree, passed as a fitted ``Pipeline``; and ``num_features=6``, where ``'auto'`` runs lime's forward
selection (6 x d ridge fits per explanation in lime).  The exact stream is checked against lime's first
explanation.  Run with ``make bench`` (about 3 minutes).
"""

from __future__ import annotations

import platform
import statistics

import numpy as np
import sklearn
from lime.lime_text import LimeTextExplainer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.tree import DecisionTreeClassifier
from timing import cpu_seconds, median_cpu_seconds

import limetheory as lt
from limetheory.book import EXAMPLE_REVIEW_INDEX, fit_yelp_vectorizer, train_random_forest
from limetheory.engine.tokens import DocumentCounts

NUM_SAMPLES = 5000
KERNEL_WIDTH = 25
N_EXP = 100
SEED = 0


def compare(name, text, vectorizer, model_fn, *, lime_runs, fast_runs=N_EXP, repeats=3):
    """Print lime's and our times per explanation and their ratios; return (lime, exact, batched) seconds."""

    def lime_fn(documents):
        return model_fn(vectorizer.transform(documents))

    arguments = dict(num_samples=NUM_SAMPLES, kernel_width=KERNEL_WIDTH, label=1)
    # lime: one explanation per call (a fresh explainer each time), median over lime_runs calls
    lime_times, reference = [], None
    for run in range(lime_runs):
        seed = SEED + run
        result, seconds = cpu_seconds(
            lambda seed=seed: lt.lime_explanations(text, lime_fn, n_exp=1, random_state=seed, **arguments)
        )
        lime_times.append(seconds)
        reference = result if reference is None else reference
    exact = lt.fast_lime_explanations(text, vectorizer, model_fn, n_exp=fast_runs, random_state=SEED, **arguments)
    exact_time = median_cpu_seconds(
        lambda: lt.fast_lime_explanations(text, vectorizer, model_fn, n_exp=fast_runs, random_state=SEED, **arguments),
        repeats,
    )
    batched_time = median_cpu_seconds(
        lambda: lt.fast_lime_explanations(
            text, vectorizer, model_fn, n_exp=fast_runs, random_state=SEED, stream="batched", **arguments
        ),
        repeats,
    )
    difference = float(np.abs(exact[0] - reference[0]).max())
    scale = float(np.abs(reference).max())
    if difference > 1e-10 * max(1.0, scale):
        raise AssertionError(f"{name}: the exact stream differs from lime by {difference:.3g}")
    per = statistics.median(lime_times), exact_time / fast_runs, batched_time / fast_runs
    print(f"{name}")
    print(f"  lime (real, median of {lime_runs} explanations): {per[0] * 1e3:8.1f} ms per explanation")
    print(f"  fast, stream='lime' (calls of {fast_runs}):     {per[1] * 1e3:8.1f} ms per explanation"
          f"   ratio {per[0] / per[1]:6.1f}x")  # fmt: skip
    print(f"  fast, stream='batched' (calls of {fast_runs}):  {per[2] * 1e3:8.1f} ms per explanation"
          f"   ratio {per[0] / per[2]:6.1f}x")  # fmt: skip
    print(f"  exact stream vs lime (same seed): max |difference| {difference:.1e} (coefficients up to {scale:.2f})")
    return per


def limes_default_call(text, classifier_fn, seed, num_features):
    """One explanation from lime's default call (every LimeTextExplainer default), as a (d + 1) array."""
    explainer = LimeTextExplainer(random_state=seed)
    if num_features == 10:
        explanation = explainer.explain_instance(text, classifier_fn)  # nothing but the defaults
    else:
        explanation = explainer.explain_instance(text, classifier_fn, num_features=num_features)
    beta = np.zeros(len(lt.local_dictionary(text)) + 1)
    beta[0] = explanation.intercept[1]
    for word, value in explanation.local_exp[1]:
        beta[1 + word] = value
    return beta


def compare_default_call(name, text, pipeline, *, num_features, lime_runs, fast_runs=N_EXP, repeats=3):
    """lime's default call (feature selection 'auto') against the engine given the pipeline; times per explanation."""
    lime_times, reference = [], None
    for run in range(lime_runs):
        result, seconds = cpu_seconds(
            lambda seed=SEED + run: limes_default_call(text, pipeline.predict_proba, seed, num_features)
        )
        lime_times.append(seconds)
        reference = result if reference is None else reference
    arguments = dict(random_state=SEED, feature_selection="auto", num_features=num_features, n_exp=fast_runs)
    exact = lt.fast_lime_explanations(text, pipeline, **arguments)
    exact_time = median_cpu_seconds(lambda: lt.fast_lime_explanations(text, pipeline, **arguments), repeats)
    batched_time = median_cpu_seconds(
        lambda: lt.fast_lime_explanations(text, pipeline, stream="batched", **arguments), repeats
    )
    difference = float(np.abs(exact[0] - reference).max())
    scale = float(np.abs(reference).max())
    if difference > 1e-10 * max(1.0, scale):
        raise AssertionError(f"{name}: the exact stream differs from lime's default call by {difference:.3g}")
    per = statistics.median(lime_times), exact_time / fast_runs, batched_time / fast_runs
    method = "forward_selection" if num_features <= 6 else "highest_weights"
    print(f"{name}: lime's default call, num_features={num_features} ('auto' runs {method!r})")
    print(f"  lime (real, median of {lime_runs} explanations): {per[0] * 1e3:8.1f} ms per explanation")
    print(f"  fast, stream='lime' (calls of {fast_runs}):     {per[1] * 1e3:8.1f} ms per explanation"
          f"   ratio {per[0] / per[1]:6.1f}x")  # fmt: skip
    print(f"  fast, stream='batched' (calls of {fast_runs}):  {per[2] * 1e3:8.1f} ms per explanation"
          f"   ratio {per[0] / per[2]:6.1f}x")  # fmt: skip
    print(f"  exact stream vs lime (same seed): max |difference| {difference:.1e} (coefficients up to {scale:.2f}), "
          f"{np.count_nonzero(exact[0, 1:])} words")  # fmt: skip
    return per


def main():
    reviews = lt.load_yelp_reviews()
    texts, labels = list(reviews.text), reviews.stars.to_numpy()
    text = texts[EXAMPLE_REVIEW_INDEX]
    d = len(lt.local_dictionary(text))
    print(
        f"LIME on a Yelp review with d = {d} distinct words, n = {NUM_SAMPLES}, kernel width {KERNEL_WIDTH}; "
        f"times per explanation (lime: median over single explanations; fast engine: calls of many explanations)"
    )
    print(
        f"python {platform.python_version()}, numpy {np.__version__}, scikit-learn {sklearn.__version__}, "
        f"{platform.machine()}"
    )
    vectorizer = fit_yelp_vectorizer(texts)
    tfidf = vectorizer.transform(texts)
    tree = DecisionTreeClassifier(random_state=0).fit(tfidf, labels)
    linear = LogisticRegression(max_iter=1000).fit(tfidf, labels)
    compare("decision tree (TF-IDF features)", text, vectorizer, tree.predict_proba, lime_runs=10)
    compare("logistic regression (linear in the TF-IDF)", text, vectorizer, linear.predict_proba, lime_runs=10)
    for model_name, model in [("logistic regression", linear), ("decision tree", tree)]:
        pipeline = make_pipeline(vectorizer, model)  # the fitted pieces, not refitted
        compare_default_call(f"{model_name} (pipeline)", text, pipeline, num_features=10, lime_runs=10)
    pipeline = make_pipeline(vectorizer, linear)
    compare_default_call("logistic regression (pipeline)", text, pipeline, num_features=6, lime_runs=3, fast_runs=20)

    forest = train_random_forest(texts, labels, n_estimators=500, random_state=0)
    forest_vectorizer, forest_model = forest[0], forest[-1].predict_proba
    lime_per, _, _ = compare(
        "random forest, 500 trees (pipeline)", text, forest_vectorizer, forest_model, lime_runs=3, fast_runs=10
    )
    # how much of the fast engine's time the forest itself takes: time model_fn inside the engine
    model_seconds = []

    def timed_model(matrix):
        result, seconds = cpu_seconds(lambda: forest_model(matrix))
        model_seconds.append(seconds)
        return result

    for stream in ("lime", "batched"):
        model_seconds.clear()
        _, total = cpu_seconds(
            lambda stream=stream: lt.fast_lime_explanations(
                text, forest_vectorizer, timed_model, n_exp=10, num_samples=NUM_SAMPLES, stream=stream
            )
        )
        print(f"  floor, stream={stream!r}: the forest's predict_proba takes {sum(model_seconds) / total:.0%} of the "
              f"fast engine's time (it is evaluated once per distinct perturbed document)")  # fmt: skip
    samples = lt.fast_lime_samples(text, forest_vectorizer, forest_model, num_samples=NUM_SAMPLES, random_state=SEED)
    matrix = DocumentCounts(text, forest_vectorizer).transform(samples.z[0])
    floor = median_cpu_seconds(lambda: forest_model(matrix), 3)
    print(
        f"  for comparison, predict_proba on one explanation's {NUM_SAMPLES} TF-IDF rows in one call takes "
        f"{floor * 1e3:.1f} ms, {floor / lime_per:.0%} of lime's time per explanation"
    )


if __name__ == "__main__":
    main()
