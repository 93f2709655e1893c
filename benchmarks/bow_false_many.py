"""``lt.explain_many(..., bow=False)`` against an ``lt.explain(..., bow=False)`` per review and real lime (issue 37).

Chapter 26's two models, fitted on the 1000 Yelp reviews (labels: ``stars``): a logistic regression on
``TfidfVectorizer(stop_words="english")`` read through ``decision_function`` (the exact linear route, batched by
``explain_many``: ``limetheory.pipelines.corpora.linear_many`` with ``corpora.occurrences``), and a 100-tree random
forest on ``CountVectorizer(binary=True, stop_words="english")`` read through ``predict_proba`` (the exact tree
route, an explain per document).  For each, the CPU time (``time.process_time``, one process) per document of
``explain_many(model, texts, output=..., bow=False, n_jobs=1)`` and of ``explain(model, text, output=...,
bow=False)`` on each text, their answers checked equal bit for bit, and the CPU time of one real lime run with
``bow=False`` (its defaults otherwise: n = 5000, kernel width 25, every feature kept) on ``--lime-documents`` seeded
reviews (their mean); the ratios are lime's time over ours.  Run with ``python benchmarks/bow_false_many.py``
(about two minutes here) with ``LIMETHEORY_DATA_DIR`` set and ``OPENBLAS_NUM_THREADS=1``; the load is printed.
"""

from __future__ import annotations

import argparse
import os
import warnings

import numpy as np
from sklearn.ensemble import RandomForestClassifier
from sklearn.feature_extraction.text import CountVectorizer, TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from timing import cpu_seconds, ratio

import limetheory as lt


def _lime_seconds(model, output, texts):
    """Mean CPU seconds of one real lime run with bow=False on each text (every feature kept)."""
    from lime.lime_text import IndexedString, LimeTextExplainer

    def classifier_fn(documents):
        if output == "predict_proba":
            return model.predict_proba(documents)
        score = model.decision_function(documents)
        return np.column_stack([-score, score])

    explainer = LimeTextExplainer(bow=False, random_state=0)
    seconds = []
    for text in texts:
        d = IndexedString(text, bow=False).num_words()
        _, spent = cpu_seconds(lambda t=text, d=d: explainer.explain_instance(t, classifier_fn, num_features=d))
        seconds.append(spent)
    return float(np.mean(seconds))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--documents", type=int, default=300, help="reviews explained (the first ones)")
    parser.add_argument("--lime-documents", type=int, default=5, help="seeded reviews lime explains")
    arguments = parser.parse_args()
    reviews = lt.load_yelp_reviews()
    texts, stars = reviews["text"].tolist(), reviews["stars"].to_numpy()
    chosen = texts[: arguments.documents]
    sample = [texts[i] for i in np.random.default_rng(0).choice(len(texts), arguments.lime_documents, replace=False)]
    models = {
        "logistic, decision_function": (
            make_pipeline(TfidfVectorizer(stop_words="english"), LogisticRegression(max_iter=1000)),
            "decision_function",
        ),
        "forest, predict_proba": (
            make_pipeline(
                CountVectorizer(binary=True, stop_words="english"),
                RandomForestClassifier(n_estimators=100, random_state=0),
            ),
            "predict_proba",
        ),
    }
    print(f"load average {os.getloadavg()[0]:.2f}; {len(chosen)} reviews; lime on {len(sample)}")
    warnings.simplefilter("ignore", UserWarning)  # lime's agreement: not the subject
    for name, (model, output) in models.items():
        model.fit(texts, stars)
        lt.explain_many(model, chosen[:4], output=output, bow=False, progress=False)  # imports, first calls
        frame, many = cpu_seconds(
            lambda m=model, o=output: lt.explain_many(m, chosen, output=o, bow=False, progress=False)
        )
        ones, each = cpu_seconds(lambda m=model, o=output: [lt.explain(m, t, output=o, bow=False) for t in chosen])
        for position, one in enumerate(ones):
            assert (frame[frame.document == position].coefficient.to_numpy() == one.beta).all(), position
        lime = _lime_seconds(model, output, sample)
        per_many, per_one = many / len(chosen), each / len(chosen)
        print(
            f"{name}: explain_many {1000 * per_many:.2f} ms/doc, explain {1000 * per_one:.2f} ms/doc "
            f"({ratio(per_one, per_many):.1f}x); lime {1000 * lime:.0f} ms/run: explain_many "
            f"{ratio(lime, per_many):.0f}x, explain {ratio(lime, per_one):.0f}x; load {os.getloadavg()[0]:.2f}"
        )


if __name__ == "__main__":
    main()
