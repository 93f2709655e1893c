"""Peak memory of ``lt.explain_many`` against the corpus size (issue 28, "memory bounded by the chunk").

Synthetic corpora of resampled Yelp reviews: each document is a window of ``WINDOW`` consecutive words of one of
the paper's 1000 reviews, review and window drawn with a seeded generator.  Each corpus is explained in a fresh
Python process with the fastest exact route (a logistic regression on the default ``TfidfVectorizer()``, fitted on
the 1000 reviews, through ``decision_function``), two loky worker processes, the results written to a Parquet
folder and not read back (``path=``, ``collect=False``).  The process reports its own peak resident memory and
the largest peak of its worker processes (``resource.getrusage``, ``ru_maxrss``).  The texts themselves are in
memory (about 100 bytes each); everything else is bounded by the chunk.

Run with ``python benchmarks/corpus_memory.py`` (sizes 10⁴ and 10⁵ by default; ``--sizes 10000 50000`` for a
shorter run) with ``LIMETHEORY_DATA_DIR`` set and ``OPENBLAS_NUM_THREADS=1``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

import numpy as np

WINDOW = 12
SEED = 0
CHUNK = 256


def synthetic_corpus(texts, size, rng):
    """``size`` windows of WINDOW words of reviews drawn at random (each with at least 2 distinct words)."""
    words = [text.split() for text in texts]
    corpus = []
    while len(corpus) < size:
        review = words[rng.integers(len(words))]
        start = rng.integers(max(1, len(review) - WINDOW + 1))
        window = " ".join(review[start : start + WINDOW])
        if len(set(window.lower().split())) >= 3:
            corpus.append(window)
    return corpus


def child(size, folder):
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline

    import limetheory as lt

    reviews = lt.load_yelp_reviews()
    texts, labels = reviews["text"].tolist(), reviews["stars"].to_numpy()
    model = make_pipeline(TfidfVectorizer(), LogisticRegression(max_iter=1000)).fit(texts, labels)
    corpus = synthetic_corpus(texts, size, np.random.default_rng(SEED))
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start = time.perf_counter()
    dataset = lt.explain_many(
        model,
        corpus,
        output="decision_function",
        n_jobs=2,
        chunk_size=CHUNK,
        path=folder,
        collect=False,
        progress=False,
    )
    seconds = time.perf_counter() - start
    rows = dataset.count_rows()
    from joblib.externals.loky import get_reusable_executor

    get_reusable_executor().shutdown(wait=True)  # the workers end, so that their peak counts in RUSAGE_CHILDREN
    print(
        json.dumps(
            {
                "documents": size,
                "rows": rows,
                "seconds": seconds,
                "peak_mb_before": before / 1024,
                "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                "worker_peak_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024,
            }
        )
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--folder", help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.child is not None:
        child(arguments.child, arguments.folder)
        return
    print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}; window {WINDOW} words, chunk {CHUNK}")
    results = []
    for size in arguments.sizes:
        with tempfile.TemporaryDirectory() as scratch:
            output = subprocess.run(
                [sys.executable, __file__, "--child", str(size), "--folder", os.path.join(scratch, "run")],
                check=True,
                capture_output=True,
                text=True,
            ).stdout
        result = json.loads(output.strip().splitlines()[-1])
        results.append(result)
        print(
            f"{size:>7} documents ({result['rows']} rows): {result['seconds']:7.1f} s, "
            f"{size / result['seconds']:6.0f} documents/s; peak memory: this process {result['peak_mb']:.0f} MB "
            f"({result['peak_mb_before']:.0f} MB before explain_many), each worker at most "
            f"{result['worker_peak_mb']:.0f} MB"
        )
    first, last = results[0], results[-1]
    print(
        f"peak at {last['documents']} / peak at {first['documents']}: this process "
        f"{last['peak_mb'] / first['peak_mb']:.3f}, workers {last['worker_peak_mb'] / first['worker_peak_mb']:.3f}"
    )


if __name__ == "__main__":
    main()
