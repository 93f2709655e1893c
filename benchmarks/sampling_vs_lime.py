"""Drawing LIME's perturbation law: ``limetheory.sample_masks`` against lime itself, same run.

lime draws its 4,999 masks one by one (``RandomState.choice`` per row) and rebuilds a string for
each; ``sample_masks`` draws the same law (not the same stream) in a few vectorised calls.  The
lime side is timed with a constant classifier, so that almost all of its time is the sampling.
Prints the median times and their ratio.  Run with ``make bench``.
"""

from __future__ import annotations

import os

import numpy as np
from timing import median_cpu_seconds

import limetheory as lt
from limetheory.book import EXAMPLE_REVIEW_INDEX

REPEATS = 5
NUM_SAMPLES = 5000


def constant_classifier(documents):
    return np.tile([0.5, 0.5], (len(documents), 1))


def main():
    if os.environ.get("LIMETHEORY_DATA_DIR"):
        text = lt.load_yelp_reviews().text[EXAMPLE_REVIEW_INDEX]
    else:  # a 29-word stand-in, so the benchmark also runs without the data
        text = " ".join(f"word{j}" for j in range(29))
    d = len(lt.local_dictionary(text))
    rng = np.random.default_rng(0)
    lime_time = median_cpu_seconds(
        lambda: lt.capture_lime_samples(text, constant_classifier, num_samples=NUM_SAMPLES, random_state=0), REPEATS
    )
    ours_time = median_cpu_seconds(lambda: lt.sample_masks(d, NUM_SAMPLES - 1, rng), REPEATS)
    print(f"sampling {NUM_SAMPLES} perturbations of a d = {d} document (median of {REPEATS})")
    print(f"  lime (capture_lime_samples, constant model): {lime_time * 1e3:9.2f} ms")
    print(f"  limetheory.sample_masks:                     {ours_time * 1e3:9.2f} ms")
    print(f"  ratio lime / sample_masks:                   {lime_time / ours_time:9.1f}x")


if __name__ == "__main__":
    main()
