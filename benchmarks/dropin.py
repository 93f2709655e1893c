"""``limetheory.LimeTextExplainer`` (the drop-in, issue 34) against lime 0.2.0.1's own class, timed in the same run.

Model: TF-IDF (``TfidfVectorizer()``) + ``LogisticRegression`` fitted on the paper's 1000 Yelp reviews (labels: the
``stars`` column), explained through the bound method ``pipeline.predict_proba``, as a lime user passes it.

1. Replay at lime's defaults on the paper's 29-word review (``EXAMPLE_REVIEW_INDEX``): ``explain_instance(text,
   pipeline.predict_proba)`` with nothing else (n = 5000, ``num_features=10``, ``feature_selection='auto'``, which
   runs highest weights), one fresh explainer per call with the same seed on both sides.
2. The same call with a black box, ``lambda docs: pipeline.predict_proba(docs)`` (called on lime's strings).
3. Replay with forward selection: ``num_features=6`` (``'auto'`` then runs lime's forward selection, 6 × d ridge fits
   in lime) on the first review of 100 ± 5 words.
4. The limit at lime's defaults: ``LimeTextExplainer(limit=True).explain_instance(text, pipeline.predict_proba)``
   on the 29-word review, against lime's default call.

Every replayed explanation is checked against lime's (the same words in the same order, coefficients, intercept,
score and local_pred within 1e-9) before its time is printed.  Times are CPU times of this process
(``time.process_time``): lime and the BLAS run single-threaded with ``OPENBLAS_NUM_THREADS=1`` (as ``make`` sets it),
so that other jobs on a shared machine do not distort the ratios; each is the median of a few calls.  Run with
``python benchmarks/dropin.py`` (about 2 minutes), with ``LIMETHEORY_DATA_DIR`` set.
"""

from __future__ import annotations

import os
import platform

import lime
import lime.lime_text
import numpy as np
import sklearn
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from timing import cpu_seconds, median_cpu_seconds, ratio

import limetheory as lt
from limetheory.book import EXAMPLE_REVIEW_INDEX

SEED = 0
LIME_REPEATS = 5  # lime's CPU time varies by about 30% between calls on a loaded machine
LIME_REPEATS_SLOW = 3  # lime's forward selection: about 3 s a call
OURS_REPEATS = 7
LONG_WORDS = 100  # the forward-selection row's review: the first with 100 ± 5 words (whitespace-separated)
# the bound on every coefficient, the intercept, score and local_pred
TOLERANCE = 1e-9


def check_replay(ours, theirs, what):
    """Raise if the replay is not lime's answer (words, order, coefficients, intercept, score, local_pred)."""
    for label, pairs in theirs.local_exp.items():
        mine = ours.local_exp[label]
        if [int(j) for j, _ in mine] != [int(j) for j, _ in pairs]:
            raise AssertionError(f"{what}: the replay selected other words than lime, or in another order")
        worst = max(abs(a - b) for (_, a), (_, b) in zip(mine, pairs, strict=True))
        worst = max(worst, abs(ours.intercept[label] - theirs.intercept[label]))
        worst = max(worst, abs(ours.score - theirs.score), float(np.abs(ours.local_pred - theirs.local_pred).max()))
        if worst > TOLERANCE:
            raise AssertionError(f"{what}: the replay differs from lime by {worst:.3g}")


def timed_pair(what, call, *, check=True, lime_repeats=LIME_REPEATS):
    """lime's time over ours for ``call(explainer_class)``, medians of repeated calls; prints the row."""
    theirs, _ = cpu_seconds(lambda: call(lime.lime_text.LimeTextExplainer))
    ours = call(lt.LimeTextExplainer)  # warm: the first call also imports the routes and compiles nothing else
    if check:
        check_replay(ours, theirs, what)
    lime_time = median_cpu_seconds(lambda: call(lime.lime_text.LimeTextExplainer), lime_repeats)
    our_time = median_cpu_seconds(lambda: call(lt.LimeTextExplainer), OURS_REPEATS)
    print(f"{what}")
    print(f"  lime 0.2.0.1 (median of {lime_repeats} calls): {lime_time * 1e3:9.1f} ms")
    print(
        f"  limetheory.LimeTextExplainer (median of {OURS_REPEATS}): {our_time * 1e3:9.1f} ms"
        f"   ratio {ratio(lime_time, our_time):6.1f}x"
    )
    return ratio(lime_time, our_time)


def main():
    reviews = lt.load_yelp_reviews()
    texts, labels = reviews["text"].tolist(), reviews["stars"].to_numpy()
    print(
        f"Python {platform.python_version()}, numpy {np.__version__}, scikit-learn {sklearn.__version__}, "
        f"lime {getattr(lime, '__version__', '0.2.0.1')}, {platform.machine()}; "
        f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS', 'unset')} (make sets 1); "
        f"load average {os.getloadavg()[0]:.1f} at the start; CPU times"
    )
    pipeline = make_pipeline(TfidfVectorizer(), LogisticRegression(max_iter=1000)).fit(texts, labels)
    short = texts[EXAMPLE_REVIEW_INDEX]
    long_index = next(i for i, t in enumerate(texts) if abs(len(t.split()) - LONG_WORDS) <= 5)
    long = texts[long_index]
    d_short, d_long = len(lt.local_dictionary(short)), len(lt.local_dictionary(long))

    def black_box(documents):
        return pipeline.predict_proba(documents)

    ratios = {
        "replay at lime's defaults (target >= 10x)": timed_pair(
            f"1. replay at lime's defaults: review {EXAMPLE_REVIEW_INDEX} ({len(short.split())} words, d = "
            f"{d_short}), pipeline.predict_proba, num_features=10 ('auto': highest weights), n = 5000",
            lambda cls: cls(random_state=SEED).explain_instance(short, pipeline.predict_proba),
        ),
        "replay at lime's defaults, a black box": timed_pair(
            "2. the same with a black box (lambda docs: pipeline.predict_proba(docs), called on lime's strings)",
            lambda cls: cls(random_state=SEED).explain_instance(short, black_box),
        ),
        "replay, forward selection at num_features=6 (target >= 50x)": timed_pair(
            f"3. replay with forward selection: review {long_index} ({len(long.split())} words, d = {d_long}), "
            "num_features=6 ('auto': forward selection), n = 5000",
            lambda cls: cls(random_state=SEED).explain_instance(long, pipeline.predict_proba, num_features=6),
            lime_repeats=LIME_REPEATS_SLOW,
        ),
    }
    try:  # the limit depends on lt.explain's routes: a failure there is reported, not hidden behind the replay's rows
        ratios["the limit at lime's defaults"] = timed_pair(
            f"4. the limit at lime's defaults (LimeTextExplainer(limit=True)): review {EXAMPLE_REVIEW_INDEX}, "
            "against lime's default call",
            lambda cls: (
                cls(random_state=SEED, limit=True) if cls is lt.LimeTextExplainer else cls(random_state=SEED)
            ).explain_instance(short, pipeline.predict_proba),
            check=False,
        )
        limit = lt.LimeTextExplainer(random_state=SEED, limit=True).explain_instance(short, pipeline.predict_proba)
        print(f"  the limit's route: {limit.limit.method}, exact: {limit.limit.exact}")
    except Exception as error:  # noqa: BLE001 - printed with its type, the other rows stand
        print(f"4. the limit at lime's defaults: FAILED ({type(error).__name__}: {error})")
    print("\nratios (lime's CPU time / ours):")
    for name, value in ratios.items():
        print(f"  {name}: {value:.1f}x")


if __name__ == "__main__":
    main()
