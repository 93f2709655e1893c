"""Does ``Explanation.lime_spread`` predict lime?  Coverage of its 95% intervals over thousands of lime runs.

For each model and each of ``REVIEWS`` Yelp reviews drawn with a fixed seed (2 to ``MAX_WORDS`` distinct words), the
limit explanation comes from ``lt.explain`` (exact routes), ``lime_spread(5000)`` predicts where each of lime's
coefficients falls at lime's default n = 5000 (the centre of its normal equations, its ridge included, and the CLT
standard deviation), and ``RUNS`` lime explanations are drawn.  The runs come from ``lt.fast_lime_explanations`` with
``stream="lime"``, which equals real lime run for run (the same random stream, the same masks and the same ridge:
its tests compare it with ``LimeTextExplainer`` to round-off) and makes 2000 runs per model affordable.  The
measured coverage is the share of (run, coefficient) pairs inside the predicted 95% interval; its standard error
is printed too (runs of one review are independent; coefficients of one run are not, so it is computed from
the per-run coverages).

A third model takes the Monte Carlo route (a logistic regression's ``predict_proba`` on reviews of more than 14
words): its centre is an estimate, and the intervals add its standard error in quadrature
(``LimeSpread.interval``).

A last part measures the variance reduction of the Monte Carlo route on the paper's 29-word review
(logistic regression, ``predict_proba``): the variance of the plain estimate Σ⁻¹Γ̂ (i.i.d. masks, no control), of
the stratified estimate with the affine control fitted on a pilot, and with the exact decision function as a
second control, at the same number of masks.

Run with ``python benchmarks/explain_coverage.py`` (about 5 minutes), with ``LIMETHEORY_DATA_DIR`` set.
"""

from __future__ import annotations

import platform
import time

import numpy as np
import sklearn
from sklearn.ensemble import RandomForestClassifier
from sklearn.feature_extraction.text import CountVectorizer, TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline

import limetheory as lt
from limetheory.book import EXAMPLE_REVIEW_INDEX
from limetheory.pipelines.estimate.montecarlo import estimate_beta
from limetheory.pipelines.results.spread import omega
from limetheory.pipelines.routes.route_selection import explain_controls

NUM_SAMPLES = 5000
KERNEL_WIDTH = 25
REVIEWS = 20
RUNS = 100
MAX_WORDS = 60
SEED = 0
MONTE_CARLO_MASKS = 20_000


def decision_columns(classifier):
    def model_fn(matrix):
        score = classifier.decision_function(matrix)
        return np.column_stack([-score, score])

    return model_fn


def coverage(name, model, output, model_fn, texts, chosen, *, exact=True):
    vectorizer = model.steps[0][1]
    inside_per_run, exact_omega, start = [], 0, time.perf_counter()
    for i in chosen:
        text = texts[i]
        result = lt.explain(model, text, output=output, kernel_width=KERNEL_WIDTH, random_state=SEED)
        if exact and not result.exact:
            raise AssertionError(f"{name}: review {i} took the route {result.method} ({result.notes})")
        spread = result.lime_spread(NUM_SAMPLES)
        exact_omega += spread.exact
        low, high = spread.interval(0.95)
        runs = lt.fast_lime_explanations(
            text,
            vectorizer,
            model_fn,
            n_exp=RUNS,
            num_samples=NUM_SAMPLES,
            kernel_width=KERNEL_WIDTH,
            random_state=SEED + i,
            stream="lime",
        )
        inside_per_run.extend(((runs >= low) & (runs <= high)).mean(axis=1))
    share = np.asarray(inside_per_run)
    print(
        f"{name}: {len(share)} lime runs on {len(chosen)} reviews ({exact_omega} with Ω exact, the others estimated "
        f"from {lt.pipelines.results.result.OMEGA_SAMPLES} masks), {time.perf_counter() - start:.0f} s"
    )
    print(
        f"  coverage of the predicted 95% intervals: {100 * share.mean():.3f}% "
        f"(standard error {100 * share.std(ddof=1) / np.sqrt(len(share)):.2f}%)"
    )
    return share.mean()


def variance_reduction(model, text):
    """Mean variance of the Monte Carlo coefficients, at MONTE_CARLO_MASKS masks, for three estimators."""
    result = lt.explain(model, text, method="monte_carlo", max_calls=MONTE_CARLO_MASKS, random_state=SEED)
    d, nu = len(result.words), KERNEL_WIDTH / 100
    sigma_inverse = lt.sigma_inverse(d, nu=nu)
    # plain: Σ⁻¹ times the average of π x f over i.i.d. masks: covariance Σ⁻¹ Cov(π x f) Σ⁻¹ / N, with Cov(π x f)
    # estimated from the stratified sample (an unbiased estimate of the moments under LIME's law)
    plain = np.diag(sigma_inverse @ omega(result.sample, np.zeros(d + 1)) @ sigma_inverse) / MONTE_CARLO_MASKS
    rng = np.random.default_rng(SEED)
    affine = estimate_beta(result.mask_fn, d, nu, MONTE_CARLO_MASKS, rng)
    controls = explain_controls(model, text, "predict_proba", 1, nu)
    both = estimate_beta(result.mask_fn, d, nu, MONTE_CARLO_MASKS, np.random.default_rng(SEED), controls=controls)
    lime = result.lime_spread(NUM_SAMPLES).std ** 2
    print(f"Monte Carlo route, logistic predict_proba, 29-word review, {MONTE_CARLO_MASKS} masks (mean variance):")
    print(f"  plain Σ⁻¹Γ̂, i.i.d. masks, no control:           {plain.mean():.3g}")
    print(
        f"  stratified, affine control:                     {np.mean(affine.stderr**2):.3g}"
        f"   ({plain.mean() / np.mean(affine.stderr**2):.0f}x smaller)"
    )
    print(
        f"  stratified, affine + exact decision function:   {np.mean(both.stderr**2):.3g}"
        f"   ({plain.mean() / np.mean(both.stderr**2):.0f}x smaller)"
    )
    print(f"  for scale, lime's own variance at n = {NUM_SAMPLES}:      {lime.mean():.3g}")
    print(f"  largest stderr / lime's std at n = {NUM_SAMPLES}: {np.max(both.stderr / np.sqrt(lime)):.3f}")


def main():
    reviews = lt.load_yelp_reviews()
    texts, labels = reviews["text"].tolist(), reviews["stars"].to_numpy()
    print(
        f"Python {platform.python_version()}, numpy {np.__version__}, scikit-learn {sklearn.__version__}; "
        f"lime n = {NUM_SAMPLES}, kernel width {KERNEL_WIDTH}"
    )
    d = np.array([len(lt.local_dictionary(t)) for t in texts])
    eligible = np.flatnonzero((d >= 2) & (d <= MAX_WORDS))
    chosen = np.random.default_rng(SEED).choice(eligible, size=REVIEWS, replace=False)
    print(f"reviews {sorted(chosen.tolist())} (d = {sorted(d[chosen].tolist())})")
    logistic = make_pipeline(TfidfVectorizer(), LogisticRegression(max_iter=1000)).fit(texts, labels)
    forest = make_pipeline(
        CountVectorizer(binary=True), RandomForestClassifier(n_estimators=100, random_state=SEED, n_jobs=1)
    ).fit(texts, labels)
    coverage(
        "logistic regression, default TfidfVectorizer, decision_function (exact linear route)",
        logistic,
        "decision_function",
        decision_columns(logistic.steps[1][1]),
        texts,
        chosen,
    )
    coverage(
        "random forest (100 trees), binary counts, predict_proba (exact tree route)",
        forest,
        "predict_proba",
        forest.steps[1][1].predict_proba,
        texts,
        chosen,
    )
    coverage(
        "logistic regression, predict_proba (enumeration for d <= 14, else the Monte Carlo route: its standard "
        "error widens the intervals)",
        logistic,
        "predict_proba",
        logistic.steps[1][1].predict_proba,
        texts,
        chosen,
        exact=False,
    )
    variance_reduction(logistic, texts[EXAMPLE_REVIEW_INDEX])


if __name__ == "__main__":
    main()
