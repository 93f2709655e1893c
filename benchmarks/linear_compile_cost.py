"""numba's compilation of the linear route's kernels on a fresh clone, per kernel (issue 37, target 5).

A fresh clone's first process compiles each cached kernel once (``limetheory._compiled``); this script points
``NUMBA_CACHE_DIR`` at an empty temporary folder, so that the kernels are compiled again whatever the checkout's
``__pycache__`` holds, and runs the linear route's calls: ``beta_linear_exact`` (both norms, with and without a
shared column), ``power_moments`` (orders 3 and 4, with and without shared columns), the conditional moments and
Gamma with shared columns, and ``lt.explain`` on the first Yelp reviews with a TF-IDF + logistic regression pipeline
(``--documents``; needs ``LIMETHEORY_DATA_DIR``).

Each of numba's compile events is timed in CPU seconds (``time.process_time``: the machines are shared) and charged
to the package's kernel being compiled, without the package's kernels compiled inside it (a kernel that calls
another's dispatcher), but with numba's library functions it compiles for it (``np.empty``, ``argsort``, the
formatting of ``reshape``'s error): those are compiled once per process, so the kernel compiled first pays them.
Also printed: the number of signatures of each kernel (more than one is a whole compilation again).
Run with ``python benchmarks/linear_compile_cost.py [--documents 20]``.
"""

from __future__ import annotations

import argparse
import collections
import os
import sys
import tempfile
import time

os.environ["NUMBA_CACHE_DIR"] = tempfile.mkdtemp(prefix="limetheory-numba-")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--documents", type=int, default=20, help="Yelp reviews explained (0: none)")
    args = parser.parse_args(argv)

    start = time.process_time()
    from numba.core import event

    numba_import = time.process_time() - start
    totals, counts, stack = collections.Counter(), collections.Counter(), []

    class _Listener(event.Listener):
        def on_start(self, ev):
            func = ev.data["dispatcher"].py_func
            if stack and not func.__module__.startswith("limetheory"):
                stack.append(None)  # numba's own functions: charged to the kernel that needs them
                return
            stack.append([func.__qualname__, time.process_time(), 0.0])

        def on_end(self, ev):
            frame = stack.pop()
            if frame is None:
                return
            name, begun, nested = frame
            elapsed = time.process_time() - begun
            totals[name] += elapsed - nested
            counts[name] += 1
            if stack and stack[-1] is not None:
                stack[-1][2] += elapsed

    event.register("numba:compile", _Listener())
    _run(args.documents)
    print(f"numba import: {numba_import:.2f} CPU-s (NUMBA_CACHE_DIR={os.environ['NUMBA_CACHE_DIR']})")
    print(f"{'kernel':32s} {'compile CPU-s':>13s}  signatures")
    for name, seconds in totals.most_common():
        print(f"{name:32s} {seconds:13.2f}  {counts[name]}")
    print(f"{'total':32s} {sum(totals.values()):13.2f}")
    return 0


def _run(documents):
    """The linear route's calls (every kernel of limetheory/theory/linear, each of its argument layouts)."""
    import numpy as np

    import limetheory as lt
    from limetheory.theory.linear.linear_powers import power_moments

    for norm in ("l2", "l1"):
        lt.beta_linear_exact([1.0, -2.0, 0.5], [1.0, 2.0, 3.0], nu=0.25, norm=norm)
        lt.beta_linear_exact([1.0, 1.0, 0.5], [1.0, 2.0, 3.0], nu=0.25, groups=[0, 0, 1], norm=norm)
    rng = np.random.default_rng(7)
    for norm in ("l2", "l1"):
        groups = [0, 0, 1, 2, 2, 2, 3, 4, 5, 6, 7, 7]
        lam, tfidf = rng.normal(size=8)[groups], rng.uniform(0.5, 3, size=12)
        for max_power in (3, 4):
            power_moments(lam, tfidf, intercept=0.2, groups=groups, norm=norm, max_power=max_power)
            power_moments(lam, tfidf, intercept=0.2, norm=norm, max_power=max_power)
        groups = [i // 3 if i < 12 else i for i in range(30)]
        lam, tfidf = rng.normal(size=30)[groups], rng.uniform(0.5, 3, size=30)
        lt.conditional_moments_linear_exact(lam, tfidf, groups=groups, norm=norm)
        lt.gamma_linear_exact(lam, tfidf, nu=0.3, groups=groups, norm=norm)
    if documents:
        from sklearn.feature_extraction.text import TfidfVectorizer
        from sklearn.linear_model import LogisticRegression
        from sklearn.pipeline import make_pipeline

        reviews = lt.load_yelp_reviews()
        texts = list(reviews.text)
        model = make_pipeline(TfidfVectorizer(), LogisticRegression(max_iter=1000)).fit(texts, reviews.stars)
        for text in texts[:documents]:
            lt.explain(model, text, output="decision_function", progress=False, method="linear")


if __name__ == "__main__":
    sys.exit(main())
