"""The work model behind the default budget of rows from counts (``estimate_route.rows_budget``), measured.

``lt.explain(pipe, text)`` on a pipeline of a vectorizer and a tree model scores masks on rows from the document's
counts and stops at ``tol = 0.1`` or at lime's time over ``ROWS_SAFETY``, by a work model (not a clock: the same call
gives the same answer under any load).  This script measures its constants, CPU time of this process, on TF-IDF
rows of documents of 39 to 488 distinct words (the Yelp review and the 1043-token document of
``benchmarks/default_call.py``, and the first reviews joined until they hold 90, 160 and 330 words):

1. the classifier (``work_model.classifier_costs``): ``predict_proba`` on 4000 rows from counts of masks drawn from
   lime's law (best of three), per row, against the trees, the rows' non-zero columns and the nodes on their mean
   paths; and on one row (best of five), the cost of a call.  Models: a decision tree, random forests of 10 and 100
   trees (and 100 of depth 8), 100 extra trees, a gradient boosting of 50 stages.  For the forests and extra trees
   also the estimate's walk of their rows (``forest_walk.sparse_forest_proba``, ``work_model.walk_costs``), the
   same rows and calls: lime's side calls the real ``predict_proba``, the estimate's the walk;
2. the estimate's own cost per mask (``ROWS_US_PER_*``): ``lt.explain(pipe, text, max_calls=M, tol=1e-6)`` on the
   decision tree at M = 20000 and 60000 masks (after an untimed call), the difference of the times over the
   difference of the masks, less the tree's measured time per row (the fixed costs cancel);
3. lime's cost besides the classifier (``LIME_US_PER_SAMPLE``, ``LIME_US_PER_WORD``, measured by
   ``benchmarks/linked_budget.py``): one lime run, its time less that of the classifier's call on its rows;
4. the check that matters: the default call of each tree model on the review and on the document, its calls, its
   CPU time against one lime run's (lime's ``classifier_fn`` the pipeline's ``predict_proba``), the ratio the
   work model predicts, and the precision stated (largest standard error / lime's first-order sd at n = 5000);
5. linear classifiers (``work_model.LINEAR_US_*``): ``predict_proba`` of logistic regressions (two and three classes)
   and an SGD classifier on 4000 rows from counts of unigram, bigram, trigram and char_wb TF-IDF vectorizers, per row
   against the rows' non-zero columns and the outputs, and one call; the n-gram and character rows' own time per mask
   (``NGRAM_US_PER_TOKEN``, ``CHAR_US_PER_GRAM``: the whole row, after a first call filled the n-gram table); lime on
   the char_wb pipeline beyond the unigram work model, per character n-gram of its strings
   (``LIME_US_PER_CHAR_GRAM``).

Each part prints measured against modelled.  Run with ``LIMETHEORY_DATA_DIR=/path/to/data python
benchmarks/row_budget.py`` (about 3 minutes on two cores); ``--parts 5`` runs part 5 alone (about a minute).
"""

from __future__ import annotations

import os

for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")

import argparse  # noqa: E402
import re  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402

import numpy as np  # noqa: E402
import scipy.optimize  # noqa: E402
from lime.lime_text import LimeTextExplainer  # noqa: E402
from sklearn.ensemble import ExtraTreesClassifier, GradientBoostingClassifier, RandomForestClassifier  # noqa: E402
from sklearn.feature_extraction.text import TfidfVectorizer  # noqa: E402
from sklearn.linear_model import LogisticRegression, SGDClassifier  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.tree import DecisionTreeClassifier  # noqa: E402

import limetheory as lt  # noqa: E402
from limetheory.pipelines.estimate import estimate_route as route  # noqa: E402
from limetheory.pipelines.estimate import work_model  # noqa: E402
from limetheory.pipelines.reading.count_rows import document_rows  # noqa: E402
from limetheory.pipelines.reading.forest_walk import pipeline_forest_walk  # noqa: E402

SEED = 0
LIME_N = 5000
ROWS = 4000  # rows per timed predict_proba
MASKS = (20_000, 60_000)  # the two budgets whose difference gives the estimate's marginal cost of a mask
JOINED = (90, 160, 330)  # distinct words of the documents joined from reviews, besides default_call's two
TOKEN = re.compile(r"\W+")
PRECISION = re.compile(r"estimate from (\d+) model calls.*?the largest standard error is (\S+) x lime's")


def cpu(action, repeat=1):
    """(result, the least CPU seconds of this process over ``repeat`` runs)."""
    best = np.inf
    for _ in range(repeat):
        start = time.process_time()
        result = action()
        best = min(best, time.process_time() - start)
    return result, best


def documents(texts):
    """{name: text}: default_call.py's review and long document, and reviews joined to JOINED distinct words."""
    d = np.array([len(lt.local_dictionary(t)) for t in texts])
    rng = np.random.default_rng(SEED)
    found = {"review": texts[rng.choice(np.flatnonzero((d >= 30) & (d <= 40)))]}
    for want in JOINED:
        parts = []
        for text in texts[100:]:
            if len(lt.local_dictionary(text)) < 40:
                parts.append(text)
                if len(lt.local_dictionary(" ".join(parts))) >= want:
                    break
        found[f"joined {want}"] = " ".join(parts)
    parts, tokens = [], 0
    for text in texts:
        parts.append(text)
        tokens += len([t for t in TOKEN.split(text) if t])
        if tokens >= 1000:
            break
    found["document"] = " ".join(parts)
    return found


def lime_masks(d, rng):
    """ROWS masks of lime's law: s ~ U{1..d} words removed."""
    removed = rng.integers(1, d + 1, size=ROWS)
    order = rng.random((ROWS, d)).argsort(axis=1)
    return order >= removed[:, None]


def classifiers(texts, labels):
    models = {
        "tree": DecisionTreeClassifier(random_state=SEED),
        "forest 10": RandomForestClassifier(10, random_state=SEED, n_jobs=1),
        "forest 100": RandomForestClassifier(100, random_state=SEED, n_jobs=1),
        "forest 100, depth 8": RandomForestClassifier(100, max_depth=8, random_state=SEED, n_jobs=1),
        "extra trees 100": ExtraTreesClassifier(100, random_state=SEED, n_jobs=1),
        "boosting 50": GradientBoostingClassifier(n_estimators=50, random_state=SEED),
    }
    return {name: make_pipeline(TfidfVectorizer(), model).fit(texts, labels) for name, model in models.items()}


def part_classifiers(pipes, docs):
    print("1. classifier predict_proba on rows from counts: microseconds per row (measured / modelled)")
    rng = np.random.default_rng(SEED)
    rows, calls, walked, walk_calls = [], [], [], []
    for name, pipe in pipes.items():
        vectorizer, model = pipe.steps[0][1], pipe.steps[-1][1]
        trees, kind = work_model._trees(model)
        walk = pipeline_forest_walk(pipe, "predict_proba")
        path = sum(work_model.mean_path(t) for t in trees)
        one = pipe[0].transform(["good food"])
        _, call = cpu(lambda model=model, one=one: model.predict_proba(one), 5)
        calls.append((len(trees), call * 1e6))
        out, out_walk = [], []
        if walk is not None:
            _, call_walk = cpu(lambda walk=walk, one=one: walk(one), 5)
            walk_calls.append((len(trees), call_walk * 1e6))
        for document in docs.values():
            counts, _ = document_rows(document, vectorizer)
            matrix = counts.transform(lime_masks(counts.d, rng))
            _, seconds = cpu(lambda model=model, matrix=matrix: model.predict_proba(matrix), 3)
            measured = seconds / ROWS * 1e6
            nnz = matrix.nnz / ROWS
            row, column, _ = work_model.classifier_costs(model)
            rows.append((kind, len(trees), nnz, path, measured))
            out.append(f"{measured:.2f}/{row + column * nnz:.2f} (c={nnz:.0f})")
            if walk is not None:
                _, seconds = cpu(lambda walk=walk, matrix=matrix: walk(matrix), 3)
                row, column, _ = work_model.walk_costs(model)
                walked.append((len(trees), nnz, path, seconds / ROWS * 1e6))
                out_walk.append(f"{seconds / ROWS * 1e6:.2f}/{row + column * nnz:.2f}")
        print(f"  {name:>20}: {len(trees)} trees, mean path {path / len(trees):.1f} nodes, one call "
              f"{call * 1e3:.2f} ms; " + ", ".join(out), flush=True)  # fmt: skip
        if walk is not None:
            print(f"  {'its walk':>20}: one call {call_walk * 1e3:.2f} ms; " + ", ".join(out_walk), flush=True)
    forest = np.array([r[1:] for r in rows if r[0] == "forest"])
    trees, nnz, path, measured = forest.T
    (a, b, c), _ = scipy.optimize.nnls(np.column_stack([trees, trees * nnz, path]), measured)
    boost = np.array([r[1:] for r in rows if r[0] == "boost"])
    trees_b, nnz_b, path_b, measured_b = boost.T
    residual = measured_b - c * path_b  # the nodes at the trees' rate
    (e, f), _ = scipy.optimize.nnls(np.column_stack([nnz_b, trees_b]), residual)
    (g, h), _ = scipy.optimize.nnls(np.column_stack([np.ones(len(calls)), [t for t, _ in calls]]),
                                    np.array([s for _, s in calls]))  # fmt: skip
    print(f"  fitted: TREE_US_PER_ROW, TREE_US_PER_COLUMN, TREE_US_PER_NODE = {a:.4f}, {b:.5f}, {c:.4f}; "
          f"BOOST_US_PER_COLUMN, BOOST_US_PER_TREE = {e:.4f}, {f:.4f}; CLASSIFIER_US_PER_CALL, TREE_US_PER_CALL = "
          f"{g:.0f}, {h:.1f}")  # fmt: skip
    trees_w, nnz_w, path_w, measured_w = np.array(walked).T
    (a, b, c), _ = scipy.optimize.nnls(np.column_stack([trees_w, trees_w * nnz_w, path_w]), measured_w)
    worst = max(s for _, s in walk_calls)
    print(
        f"  fitted: WALK_US_PER_TREE, WALK_US_PER_TREE_COLUMN, WALK_US_PER_NODE = {a:.4f}, {b:.5f}, {c:.4f}, "
        f"WALK_US_PER_CALL (largest) {worst:.0f}; in force: {work_model.WALK_US_PER_TREE}, "
        f"{work_model.WALK_US_PER_TREE_COLUMN}, {work_model.WALK_US_PER_NODE}, {work_model.WALK_US_PER_CALL}"
    )
    print(f"  in force: {work_model.TREE_US_PER_ROW}, {work_model.TREE_US_PER_COLUMN}, {work_model.TREE_US_PER_NODE}; "
          f"{work_model.BOOST_US_PER_COLUMN}, {work_model.BOOST_US_PER_TREE}; {work_model.CLASSIFIER_US_PER_CALL}, "
          f"{work_model.TREE_US_PER_CALL}")  # fmt: skip


def classifier_us(pipe, document):
    """The classifier's measured microseconds per row on ROWS rows from counts of lime's law for this document."""
    counts, _ = document_rows(document, pipe.steps[0][1])
    matrix = counts.transform(lime_masks(counts.d, np.random.default_rng(SEED)))
    _, seconds = cpu(lambda: pipe.steps[-1][1].predict_proba(matrix), 3)
    return seconds / ROWS * 1e6


def part_estimate(pipe, docs):
    print("2. the estimate's own microseconds per mask on rows from counts (a decision tree's rows; measured / "
          "modelled)")  # fmt: skip
    ds, spent = [], []
    for name, document in docs.items():
        d = len(lt.local_dictionary(document))
        lt.explain(pipe, document, max_calls=MASKS[0], tol=1e-6, progress=False)  # this d's first call: not timed
        times = [
            cpu(lambda m=m, document=document: lt.explain(pipe, document, max_calls=m, tol=1e-6, progress=False))[1]
            for m in MASKS
        ]
        per_mask = (times[1] - times[0]) / (MASKS[1] - MASKS[0]) * 1e6 - classifier_us(pipe, document)
        modelled = route.ROWS_US_PER_MASK + route.ROWS_US_PER_WORD * d + route.ROWS_US_PER_WORD2 * d * d
        ds.append(d)
        spent.append(per_mask)
        print(f"  {name:>10} d = {d:3d}: {per_mask:6.1f} / {modelled:6.1f}", flush=True)
    d, spent = np.array(ds, dtype=float), np.array(spent)
    (a, b, c), _ = scipy.optimize.nnls(np.column_stack([np.ones_like(d), d, d * d]), spent)
    print(f"  fitted: ROWS_US_PER_MASK, ROWS_US_PER_WORD, ROWS_US_PER_WORD2 = {a:.2f}, {b:.4f}, {c:.2e}; in force: "
          f"{route.ROWS_US_PER_MASK}, {route.ROWS_US_PER_WORD}, {route.ROWS_US_PER_WORD2}")  # fmt: skip


def lime_run(pipe, document):
    """(lime's CPU seconds, of which the classifier's) for one run at its defaults on the pipeline's predict_proba."""
    inner = [0.0]

    def classifier_fn(strings):
        matrix = pipe[:-1].transform(strings)
        probabilities, seconds = cpu(lambda: pipe.steps[-1][1].predict_proba(matrix))
        inner[0] += seconds
        return probabilities

    _, total = cpu(lambda: LimeTextExplainer(random_state=SEED).explain_instance(document, classifier_fn))
    return total, inner[0]


def part_lime(pipe, docs):
    print("3. lime's microseconds per sample besides the classifier (a decision tree's pipeline; measured / modelled)")
    for name, document in docs.items():
        total, inner = lime_run(pipe, document)
        words = route.lime_words(document, LIME_N)[1]
        modelled = route.LIME_US_PER_SAMPLE + route.LIME_US_PER_WORD * words / LIME_N
        print(f"  {name:>10}: {(total - inner) / LIME_N * 1e6:6.0f} / {modelled:6.0f} "
              f"(words per sample {words / LIME_N:.0f})", flush=True)  # fmt: skip


def modelled_seconds(pipe, document, masks):
    """(lime's, the estimate's at this many masks) modelled seconds, the fixed costs of explain aside."""
    d = len(lt.local_dictionary(document))
    counts, _ = document_rows(document, pipe.steps[0][1])
    row, column, call = work_model.classifier_costs(pipe.steps[-1][1])
    lime = route.LIME_US_PER_SAMPLE * LIME_N + route.LIME_US_PER_WORD * route.lime_words(document, LIME_N)[1]
    lime += LIME_N * (row + column * len(counts.columns) / 2) + call
    if pipeline_forest_walk(pipe, "predict_proba") is not None:  # the estimate walks a forest's rows itself
        row, column, call = work_model.walk_costs(pipe.steps[-1][1])
    classifier = row + column * len(counts.columns) / 2
    mask = route.ROWS_US_PER_MASK + route.ROWS_US_PER_WORD * d + route.ROWS_US_PER_WORD2 * d * d + classifier
    ours = masks * mask + (work_model.CALLS_FIXED + masks / work_model.ROWS_PER_CALL) * call
    return lime / 1e6, ours / 1e6


def part_check(pipes, docs):
    print(f"4. the default call against one lime run (safety {route.ROWS_SAFETY}); CPU seconds, measured (modelled)")
    print(f"  {'model':>20} {'document':>10} {'d':>4} {'calls':>7} {'ours':>13} {'lime':>13} {'ratio':>13} "
          f"{'precision':>9}")  # fmt: skip
    for name in ("tree", "forest 100", "extra trees 100", "boosting 50"):
        pipe = pipes[name]
        for document_name in ("review", "document"):
            document = docs[document_name]
            e, ours = cpu(lambda pipe=pipe, document=document: lt.explain(pipe, document, progress=False))
            lime, _ = lime_run(pipe, document)
            calls, precision = next((int(m.group(1)), float(m.group(2))) for n in e.notes
                                    for m in [PRECISION.search(n)] if m)  # fmt: skip
            lime_model, ours_model = modelled_seconds(pipe, document, calls)
            print(f"  {name:>20} {document_name:>10} {len(e.words):4d} {calls:7d} {ours:6.2f} ({ours_model:4.2f}) "
                  f"{lime:6.2f} ({lime_model:4.2f}) {lime / ours:5.2f}x ({lime_model / ours_model:4.2f}x) "
                  f"{precision:9.3f}", flush=True)  # fmt: skip


def linear_pipelines(texts, labels):
    """Linear classifiers on unigram, bigram and character n-gram TF-IDF rows (default_call.py's and two more)."""
    models = {
        "logistic": (TfidfVectorizer(), LogisticRegression(max_iter=1000)),
        "bigram logistic": (TfidfVectorizer(ngram_range=(1, 2)), LogisticRegression(max_iter=1000)),
        "trigram logistic": (TfidfVectorizer(ngram_range=(1, 3)), LogisticRegression(max_iter=1000)),
        "bigram SGD": (TfidfVectorizer(ngram_range=(1, 2)), SGDClassifier(loss="log_loss", random_state=SEED)),
        "bigram logistic 3 classes": (TfidfVectorizer(ngram_range=(1, 2)), LogisticRegression(max_iter=1000)),
        "char_wb logistic": (
            TfidfVectorizer(analyzer="char_wb", ngram_range=(2, 4)),
            LogisticRegression(max_iter=1000),
        ),
    }
    three = np.digitize(np.arange(len(labels)) % 3, [1, 2])  # three classes: the per-column cost grows with them
    return {name: make_pipeline(v, m).fit(texts, three if "3 classes" in name else labels)
            for name, (v, m) in models.items()}  # fmt: skip


def part_linear(pipes, docs):
    print("5. linear classifiers' predict_proba on rows from counts: microseconds per row (measured / modelled), "
          "and the n-gram rows' own microseconds per mask (measured / modelled)")  # fmt: skip
    rng = np.random.default_rng(SEED)
    rows, calls, ngram, chars = [], [], [], []
    for name, pipe in pipes.items():
        vectorizer, model = pipe.steps[0][1], pipe.steps[-1][1]
        k = work_model.linear_outputs(model)
        one = pipe[0].transform(["good food"])
        _, call = cpu(lambda model=model, one=one: model.predict_proba(one), 5)
        calls.append(call * 1e6)
        out = []
        for document in docs.values():
            counts, _ = document_rows(document, vectorizer)
            masks = lime_masks(counts.d, rng)
            counts.transform(masks)  # the n-gram table filled: the estimate's steady state
            matrix, seconds = cpu(lambda counts=counts, masks=masks: counts.transform(masks), 3)
            _, model_seconds = cpu(lambda model=model, matrix=matrix: model.predict_proba(matrix), 3)
            nnz = matrix.nnz / ROWS
            measured = model_seconds / ROWS * 1e6
            row, column, _ = work_model.classifier_costs(model)
            rows.append((k, nnz, measured))
            row_us = work_model.row_costs(counts)
            if hasattr(counts, "grams"):
                chars.append((counts.grams, seconds / ROWS * 1e6))
            elif hasattr(counts, "sequence_tokens"):
                ngram.append((len(counts.sequence_tokens) * (counts.high - counts.low + 1), seconds / ROWS * 1e6))
            out.append(f"{measured:.2f}/{row + column * nnz:.2f} (c={nnz:.0f}) row {seconds / ROWS * 1e6:.1f}/"
                       f"{row_us:.1f}")  # fmt: skip
        print(f"  {name:>26}: {k} output(s), one call {call * 1e3:.2f} ms; " + ", ".join(out), flush=True)
    k, nnz, measured = np.array(rows).T
    (a, b), _ = scipy.optimize.nnls(np.column_stack([k, k * nnz]), measured)
    print(f"  fitted: LINEAR_US_PER_ROW, LINEAR_US_PER_COLUMN = {a:.4f}, {b:.5f} (per output), LINEAR_US_PER_CALL "
          f"(largest) {max(calls):.0f}; in force: {work_model.LINEAR_US_PER_ROW}, {work_model.LINEAR_US_PER_COLUMN}, "
          f"{work_model.LINEAR_US_PER_CALL}")  # fmt: skip
    grams, spent = np.array(ngram).T
    (c,), _ = scipy.optimize.nnls(grams[:, None], spent)
    print(f"  fitted: NGRAM_US_PER_TOKEN = {c:.4f} (per token and n-gram length); in force: "
          f"{work_model.NGRAM_US_PER_TOKEN}")  # fmt: skip
    grams, spent = np.array(chars).T
    (c,), _ = scipy.optimize.nnls(grams[:, None], spent)
    print(f"  fitted: CHAR_US_PER_GRAM = {c:.4f} (per n-gram of the whole document); in force: "
          f"{work_model.CHAR_US_PER_GRAM}")  # fmt: skip
    # lime on the char_wb pipeline: its time beyond the unigram work model, per character n-gram of its strings
    lime_excess(pipes["char_wb logistic"], docs, ("review", "joined 90", "joined 160"), "char_wb",
                lambda counts, words: words * counts.grams / len(counts.reading.word_of_token),
                "LIME_US_PER_CHAR_GRAM", work_model.LIME_US_PER_CHAR_GRAM)  # fmt: skip
    # lime on the bigram pipeline: per word of its strings and n-gram length beyond the first
    lime_excess(pipes["bigram logistic"], docs, ("review", "joined 160", "document"), "bigram",
                lambda counts, words: words * (counts.high - counts.low),
                "LIME_US_PER_NGRAM_WORD", work_model.LIME_US_PER_NGRAM_WORD)  # fmt: skip


def lime_excess(pipe, docs, names, label, units, constant, in_force):
    """lime's CPU time on ``pipe`` beyond the unigram work model, per unit of its strings (``units(counts, words)``),
    on the documents ``names``: printed per document, then the least and largest ratio beside ``in_force``."""
    excess = []
    for name in names:
        document = docs[name]
        total, inner = lime_run(pipe, document)
        words = route.lime_words(document, LIME_N)[1]
        counts, _ = document_rows(document, pipe.steps[0][1])
        base = route.LIME_US_PER_SAMPLE * LIME_N + route.LIME_US_PER_WORD * words
        excess.append((units(counts, words), (total - inner) * 1e6 - base))
        print(f"  lime, {label}, {name:>10}: {total:.2f} s, beyond the unigram model {excess[-1][1] / 1e6:.2f} s, "
              f"modelled {work_model.lime_row_costs(counts, words) / 1e6:.2f} s", flush=True)  # fmt: skip
    amount, spent = np.array(excess).T
    print(f"  fitted: {constant} = {np.min(spent / amount):.3f} (the least ratio) to {np.max(spent / amount):.3f}; "
          f"in force: {in_force}")  # fmt: skip


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--parts", nargs="+", type=int, default=[1, 2, 3, 4, 5], help="the parts to run (1-5)")
    parts = set(parser.parse_args().parts)
    warnings.simplefilter("ignore", UserWarning)  # tol = 1e-6 is never met: the budget is the point
    reviews = lt.load_yelp_reviews()
    texts, labels = reviews["text"].tolist(), reviews["stars"].to_numpy()
    docs = documents(texts)
    pipes = classifiers(texts, labels) if parts & {1, 2, 3, 4} else {}
    linear = linear_pipelines(texts, labels) if 5 in parts else {}
    lt.explain(next(iter({**pipes, **linear}.values())), texts[3], progress=False)  # numba's loops compiled or loaded
    print(f"load {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; documents of d = "
          f"{[len(lt.local_dictionary(t)) for t in docs.values()]}")  # fmt: skip
    if 1 in parts:
        part_classifiers(pipes, docs)
    if 2 in parts:
        part_estimate(pipes["tree"], docs)
    if 3 in parts:
        part_lime(pipes["tree"], docs)
    if 4 in parts:
        part_check(pipes, docs)
    if 5 in parts:
        part_linear(linear, docs)


if __name__ == "__main__":
    main()
