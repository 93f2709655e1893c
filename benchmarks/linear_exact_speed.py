"""The exact explanation of a linear TF-IDF model at d = 537, against one run of lime on the same model.

``beta_linear_exact`` computes the limit explanation beta^f of f(phi(x)) = sum_j lam_j phi(x)_j exactly
(O(d^2 Q) with Q ~ 60 quadrature nodes).  lime estimates it from n = 5000 perturbed documents, each sent
through the TfidfVectorizer and the linear model.  The document is made of lower-cased Yelp reviews,
cut where its 537th distinct word appears (lower-casing avoids lime words that share a TF-IDF column).
Also times a naive O(d^3 Q) evaluation (one leave-one-out recursion per word) at smaller d, and checks
that it agrees.  Prints the median times and their ratios.  Run with ``make bench``.
"""

from __future__ import annotations

import os
import re
import statistics
import time

import numpy as np
from sklearn.feature_extraction.text import TfidfVectorizer

import limetheory as lt
from limetheory.linear_exact import inverse_sqrt_quadrature
from limetheory.tokens import tfidf_columns, tfidf_weights

D_TARGET = 537
NU = 0.25
NUM_SAMPLES = 5000
REPEATS = 3
NAIVE_D = (40, 80, 160)


def median_seconds(action, repeats=REPEATS, clock=time.perf_counter):
    """Median duration of ``action`` (wall clock by default; time.process_time for CPU time)."""
    times = []
    for _ in range(repeats):
        start = clock()
        action()
        times.append(clock() - start)
    return statistics.median(times)


def corpus():
    if os.environ.get("LIMETHEORY_DATA_DIR"):
        return [text.lower() for text in lt.load_yelp_reviews().text]
    # a stand-in so that the benchmark also runs without the data: Zipf-like random "reviews"
    rng = np.random.default_rng(0)
    vocabulary = [f"word{k}" for k in range(3000)]
    p = 1.0 / np.arange(1, 3001)
    p /= p.sum()
    return [" ".join(rng.choice(vocabulary, size=rng.integers(20, 200), p=p)) for _ in range(1000)]


def long_document(texts, d_target):
    """Concatenate the texts and cut right after the first occurrence of the d_target-th distinct word."""
    joined = " ".join(texts)
    seen = set()
    for match in re.finditer(r"\w+", joined):
        seen.add(match.group())
        if len(seen) == d_target:
            return joined[: match.end()]
    raise ValueError("not enough distinct words")


def naive_gamma(lam, tfidf, nu):
    """Gamma by one normalised ESP recursion per word over all the other words: O(d^3 Q)."""
    t = np.asarray(tfidf, float) / np.max(tfidf)
    d = t.size
    omega = t**2 / np.sum(t**2)
    w = np.asarray(lam, float) * t / np.sqrt(np.sum(t**2))
    nodes, weights = inverse_sqrt_quadrature(float(omega[omega > 0].min()))
    x = np.exp(-np.outer(nodes, omega))
    psi = lt.kernel_weights(d, nu=nu)
    size = np.arange(d)  # a = size of the kept set without j, kept set size m = a + 1
    # c_{a+1} binom(d-1, a) = psi(s = d-a-1) (a+1) / d^2, zero for a = d-1
    coef = np.zeros(d)
    coef[: d - 1] = psi[::-1][1:] * (size[: d - 1] + 1) / d**2
    T = np.zeros((nodes.size, d))
    U = np.zeros((nodes.size, d))
    for j in range(d):
        P = np.zeros((nodes.size, d))
        Pw = np.zeros((nodes.size, d))
        P[:, 0] = 1.0
        n = 0
        for i in range(d):
            if i == j:
                continue
            n += 1
            c0 = (n - size[: n + 1]) / n
            c1 = size[1 : n + 1] / n
            xp = x[:, i : i + 1] * P[:, :n]
            new_pw = c0 * Pw[:, : n + 1]
            new_pw[:, 1:] += c1 * (x[:, i : i + 1] * Pw[:, :n] + w[i] * xp)
            new_p = c0 * P[:, : n + 1]
            new_p[:, 1:] += c1 * xp
            P[:, : n + 1], Pw[:, : n + 1] = new_p, new_pw
        T[:, j] = x[:, j] * (P @ coef)
        U[:, j] = w[j] * T[:, j] + x[:, j] * (Pw @ coef)
    gamma = np.empty(d + 1)
    gamma[0] = np.dot(w, weights @ T)
    gamma[1:] = weights @ U
    return gamma


def main():
    texts = corpus()
    vectorizer = TfidfVectorizer().fit(texts)
    text = long_document(texts, D_TARGET)
    words = lt.local_dictionary(text)
    d = len(words)
    columns = tfidf_columns(text, vectorizer)  # raises if two lime words share a column
    tfidf = tfidf_weights(text, vectorizer)
    rng = np.random.default_rng(0)
    lam_vocabulary = rng.normal(size=len(vectorizer.vocabulary_))
    lam = np.where(columns >= 0, lam_vocabulary[np.maximum(columns, 0)], 0.0)

    def classifier_fn(documents):
        f = vectorizer.transform(documents) @ lam_vocabulary
        return np.column_stack([1.0 - f, f])

    print(f"document: {len(text.split())} tokens, d = {d} distinct lime words, {int((tfidf > 0).sum())} visible")

    def exact():
        return lt.beta_linear_exact(lam, tfidf, nu=NU)

    def lime_once():
        return lt.lime_explanations(text, classifier_fn, n_exp=1, num_samples=NUM_SAMPLES, kernel_width=100 * NU)

    exact_time = median_seconds(exact)
    lime_time = median_seconds(lime_once, repeats=1)
    exact_cpu = median_seconds(exact, clock=time.process_time)
    lime_cpu = median_seconds(lime_once, repeats=1, clock=time.process_time)
    nodes = inverse_sqrt_quadrature(float((tfidf[tfidf > 0] ** 2).min() / (tfidf**2).sum()))[0].size
    print(f"exact beta of a linear TF-IDF model, d = {d}, nu = {NU}, Q = {nodes} nodes (median of {REPEATS})")
    print(f"  lt.beta_linear_exact:                        {exact_time:9.3f} s")
    print(f"  one lime explanation (n = {NUM_SAMPLES}):              {lime_time:9.3f} s")
    print(f"  ratio lime / exact:                          {lime_time / exact_time:9.1f}x")
    print(f"  same in CPU time: exact {exact_cpu:.3f} s, lime {lime_cpu:.3f} s, ratio {lime_cpu / exact_cpu:.1f}x")

    print("naive O(d^3 Q) evaluation (one recursion per word) against the O(d^2 Q) one, same documents' prefixes")
    for dn in NAIVE_D:
        lam_n, tfidf_n = lam[:dn], tfidf[:dn]
        if not (tfidf_n > 0).any():
            continue
        fast = lt.gamma_linear_exact(lam_n, tfidf_n, nu=NU)
        slow = naive_gamma(lam_n, tfidf_n, NU)
        assert np.allclose(fast, slow, rtol=1e-10, atol=1e-13 * np.abs(fast).max())
        t_fast = median_seconds(lambda lam_n=lam_n, tfidf_n=tfidf_n: lt.gamma_linear_exact(lam_n, tfidf_n, nu=NU))
        t_slow = median_seconds(lambda lam_n=lam_n, tfidf_n=tfidf_n: naive_gamma(lam_n, tfidf_n, NU), repeats=1)
        print(f"  d = {dn:4d}: O(d^2 Q) {t_fast:8.3f} s, naive O(d^3 Q) {t_slow:8.3f} s, ratio {t_slow / t_fast:6.1f}x")


if __name__ == "__main__":
    main()
