"""The exact explanation of a linear TF-IDF model, against runs of lime on the same model in the same run.

``beta_linear_exact`` computes the limit explanation beta^f of a logistic regression's decision function on a
TfidfVectorizer exactly (no sampling).  lime estimates it from n perturbed documents, each sent through the
vectorizer and the model.  Two documents, made by joining Yelp reviews and cutting right after the d-th
distinct lime word:

* d = 537, the reviews as written and the default ``TfidfVectorizer()`` (lower-casing), so lime words such as
  "The" and "the" share a column: the grouped route (``groups=``), against one lime explanation at n = 5000;
* d = 3000, the reviews as written: hundreds of shared columns, the size mixture with each column's subsets,
  against one lime explanation at lime's default n = 5000;
* d = 9938 (every distinct word of the lower-cased reviews; one column per word), against one lime explanation
  at n = 1000 (lime's cost there is dominated by its d x d ridge and the n documents of d words).

Prints CPU times (the machine is shared; wall times beside them), the ratios, the number of quadrature nodes,
of shared columns and of distinct weights.  ``--small`` runs only the first document.  Run with ``make bench``.
"""

from __future__ import annotations

import argparse
import os
import re

import numpy as np
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from timing import median_cpu_and_wall

import limetheory as lt
import limetheory._validation as guards

NU = 0.25
GROUPED_D = 537
GROUPED_LARGE_D = 3000
LARGE_D = 9938
REPEATS = 3


def median_times(action, repeats=REPEATS):
    """Median CPU and wall time of ``action`` over ``repeats`` calls, and its last result."""
    return median_cpu_and_wall(action, repeats)


def corpus():
    if os.environ.get("LIMETHEORY_DATA_DIR"):
        reviews = lt.load_yelp_reviews()
        return list(reviews.text), reviews.stars.to_numpy()
    # a stand-in so that the benchmark also runs without the data: Zipf-like random "reviews", some capitalised
    rng = np.random.default_rng(0)
    vocabulary = [f"word{k}" for k in range(12000)] + [f"Word{k}" for k in range(300)]
    p = 1.0 / np.arange(1, len(vocabulary) + 1)
    p /= p.sum()
    texts = [" ".join(rng.choice(vocabulary, size=rng.integers(20, 400), p=p)) for _ in range(1000)]
    return texts, rng.integers(0, 2, len(texts))


def long_document(texts, d_target):
    """Concatenate the texts and cut right after the first occurrence of the d_target-th distinct word."""
    joined = " ".join(texts)
    seen = set()
    for match in re.finditer(r"\w+", joined):
        seen.add(match.group())
        if len(seen) == d_target:
            return joined[: match.end()]
    raise ValueError(f"the texts have only {len(seen)} distinct words, fewer than {d_target}")


def linear_route(text, vectorizer, model):
    """lam, tfidf and column labels per lime word: what ``beta_linear_exact`` takes for this pipeline."""
    columns, counts = lt.word_columns(text, vectorizer)
    visible = columns >= 0
    tfidf = np.where(visible, counts * vectorizer.idf_[np.maximum(columns, 0)], 0.0)
    lam = np.where(visible, model.coef_[0][np.maximum(columns, 0)], 0.0)
    return lam, tfidf, columns


def compare(label, text, vectorizer, model, num_samples, lime_repeats):
    lam, tfidf, columns = linear_route(text, vectorizer, model)
    d = len(lam)
    visible = columns[columns >= 0]
    shared = int((np.bincount(visible) >= 2).sum()) if visible.size else 0
    distinct = np.unique(tfidf).size
    positive = tfidf[tfidf > 0]
    nodes = np.log(45.0 * (tfidf**2).sum() / positive.min() ** 2) / 0.3 + 15

    def exact():
        beta = lt.beta_linear_exact(lam, tfidf, nu=NU, groups=columns, norm=vectorizer.norm)
        beta[0] += model.intercept_[0]
        return beta

    def classifier_fn(documents):  # the decision function as lime's "probability" of label 1
        f = model.decision_function(vectorizer.transform(documents))
        return np.column_stack([-f, f])

    def lime_once():
        return lt.lime_explanations(text, classifier_fn, n_exp=1, num_samples=num_samples, kernel_width=100 * NU)

    exact_cpu, exact_wall, beta = median_times(exact)
    lime_cpu, lime_wall, lime_beta = median_times(lime_once, repeats=lime_repeats)
    print(f"{label}: d = {d} lime words, {shared} shared columns, {distinct} distinct weights, ~{nodes:.0f} nodes")
    print(f"  lt.beta_linear_exact (median of {REPEATS}):  CPU {exact_cpu:8.3f} s   wall {exact_wall:8.3f} s")
    print(f"  one lime explanation, n = {num_samples:5d}:    CPU {lime_cpu:8.3f} s   wall {lime_wall:8.3f} s")
    ratios = f"CPU {lime_cpu / exact_cpu:8.1f}x  wall {lime_wall / exact_wall:8.1f}x"
    print(f"  ratio lime / exact:                    {ratios}")
    print(f"  largest |lime - exact| over the {d + 1} coefficients (lime's noise at n): "
          f"{np.abs(lime_beta[0] - beta).max():.3g}")  # fmt: skip


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--small", action="store_true", help="only the grouped route at d = 537")
    arguments = parser.parse_args(argv)
    guards.WORK_LIMIT_FLOPS = float("inf")  # the package refuses calls estimated above ~10 s; here we time them
    texts, stars = corpus()
    vectorizer = TfidfVectorizer().fit(texts)
    model = LogisticRegression(max_iter=1000).fit(vectorizer.transform(texts), stars)
    compare("grouped route", long_document(texts, GROUPED_D), vectorizer, model, 5000, lime_repeats=1)
    if arguments.small:
        return
    compare("grouped size mixture", long_document(texts, GROUPED_LARGE_D), vectorizer, model, 5000, lime_repeats=1)
    lowered = [text.lower() for text in texts]
    vectorizer = TfidfVectorizer().fit(lowered)
    model = LogisticRegression(max_iter=1000).fit(vectorizer.transform(lowered), stars)
    compare("one column per word", long_document(lowered, LARGE_D), vectorizer, model, 1000, lime_repeats=1)


if __name__ == "__main__":
    main()
