"""The trial of issue 36: models the project never named, given to ``lt.explain``, ``lt.explain_many`` and
``lt.shapley`` as a new user would, at lime's defaults, on the paper's Yelp reviews.

For each model (textblob and VADER as ``classifier_fn``s, Hashing + SGD, MultinomialNB, LinearSVC,
CalibratedClassifierCV, gradient boosting, bigram and character TF-IDF, a custom tokenizer, three classes, a Ridge
regressor, plain functions, a lambda and a closure, a forest on L2-normalised TF-IDF and on counts) the table says:

- ``explain``: the route taken, exact or an estimate, and whether its notes read sensibly: an estimate states its
  precision in exactly one sentence ("estimate from N model calls: the largest standard error is R x lime's
  standard deviation at n = 5000, within the target tol = 0.1", or "spent before tol was met" beside a ratio above
  tol, never the other way round), and R is the largest standard error over lime's standard deviation read
  independently from ``lime_spread(5000).std`` (to 35%: two significant digits in the note, and lime's sd estimated
  from another sample of masks); an exact route states no precision and has no standard errors;
- ``explain_many`` on three reviews with ``path=`` (a Parquet dataset), run twice: the second call resumes (it
  calls the model on no string; counted on plain functions, whose calls we can count without changing their
  fingerprint, and otherwise by the frames' equality), and document 0's rows equal ``explain``'s bit for bit;
- ``shapley``: its route, exact or not;
- refusals: the message, which must name what was passed and what is allowed.

Then, for three estimates, the honesty of the standard errors: ``explain`` with eight seeds, the spread of each
coefficient over the seeds against the stated standard error (pooled over the coefficients: sqrt(mean over
coefficients of seed variance / mean stated variance), about 1 when the errors are honest; with 8 seeds and about 28
coefficients, 196 degrees of freedom, so ±10% at two standard deviations).  And for two models,
``to_lime().as_list()`` against real lime's ``as_list()`` averaged over five runs (lime's defaults, seeds 0-4).

textblob is not among the project's requirements: the script uses it when it can be imported (a folder holding it
may be given in ``PYTHONPATH``), and says so otherwise.  Run with
``LIMETHEORY_DATA_DIR=/path/to/data python benchmarks/trial_models.py`` (about 10 minutes on a loaded 2-core
machine).  Times are CPU seconds of this process.
"""

from __future__ import annotations

import os

for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")

import re  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
from lime.lime_text import LimeTextExplainer  # noqa: E402
from sklearn.calibration import CalibratedClassifierCV  # noqa: E402
from sklearn.ensemble import GradientBoostingClassifier, RandomForestClassifier  # noqa: E402
from sklearn.feature_extraction.text import CountVectorizer, HashingVectorizer, TfidfVectorizer  # noqa: E402
from sklearn.linear_model import LogisticRegression, Ridge, SGDClassifier  # noqa: E402
from sklearn.naive_bayes import MultinomialNB  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.svm import LinearSVC  # noqa: E402

import limetheory as lt  # noqa: E402

SEED = 0
TEXT_INDEX = 134  # the paper's 29-word example review
MANY = (134, 7, 42)  # the reviews given to explain_many (the first one is explain's)
HONEST_SEEDS = 8
LIME_RUNS = 5
TOL = 0.1  # explain's default target: each standard error at most 0.1 x lime's sd at num_samples
RATIO_AGREEMENT = 0.35  # the note's ratio against stderr / lime_spread(5000).std (two digits, lime's sd re-estimated)
PRECISION = re.compile(
    r"estimate from (\d+) model calls(?: \(max_calls = \d+, spent before tol was met\))?: the largest standard "
    r"error is ([0-9.e+-]+) x lime's standard deviation at n = (\d+)(, within the target tol = [0-9.e+-]+| \(tol)"
)
POSITIVE = frozenset("good great love best amazing delicious friendly nice excellent awesome perfect fresh".split())
NEGATIVE = frozenset("bad worst terrible rude slow cold never disappointed horrible awful bland dirty".split())
TOKEN = re.compile(r"\W+")


class Counted:
    """A plain function's call counter, outside the function (so that counting does not change its fingerprint)."""

    calls = 0


def keyword_score(documents):
    """A plain function: [1 - p, p] with p the logistic function of (positive - negative keyword tokens)."""
    Counted.calls += len(documents)
    p = []
    for document in documents:
        tokens = TOKEN.split(document.lower())
        p.append(1 / (1 + np.exp(-(sum(t in POSITIVE for t in tokens) - sum(t in NEGATIVE for t in tokens)))))
    p = np.array(p)
    return np.column_stack([1 - p, p])


def length_score(documents):
    """A plain function of one column: a score that is not a probability (tanh of a keyword margin and length)."""
    Counted.calls += len(documents)
    return np.array([np.tanh(d.count("good") - d.count("bad") + 0.02 * len(d.split())) for d in documents])


def vader_model():
    from vaderSentiment.vaderSentiment import SentimentIntensityAnalyzer

    analyzer = SentimentIntensityAnalyzer()

    def vader(documents):
        """VADER's compound score c as two columns [-c, c] (chapter 24)."""
        c = np.array([analyzer.polarity_scores(d)["compound"] for d in documents])
        return np.column_stack([-c, c])

    return vader


def textblob_model():
    """TextBlob's polarity p as two columns [-p, p], or None when textblob cannot be imported."""
    try:
        from textblob import TextBlob
    except ImportError:
        return None

    def textblob(documents):
        p = np.array([TextBlob(d).sentiment.polarity for d in documents])
        return np.column_stack([-p, p])

    return textblob


def closure_over(model):
    """A closure, as users write one: the model's probabilities of the positive class, one column."""

    def positive(documents):
        return model.predict_proba(documents)[:, 1]

    return positive


def fitted_models(texts, stars):
    """[(name, what lt receives, the classifier_fn given to lime or None)]."""
    lengths = np.array([len(t.split()) for t in texts])
    three = np.where(stars == 0, 0, np.where(lengths < np.median(lengths[stars == 1]), 1, 2))  # neg / short / long pos
    fit = lambda pipe, y=stars: pipe.fit(texts, y)  # noqa: E731
    logistic = fit(make_pipeline(TfidfVectorizer(), LogisticRegression(max_iter=1000)))
    nb = fit(make_pipeline(CountVectorizer(), MultinomialNB()))
    sgd = fit(make_pipeline(HashingVectorizer(), SGDClassifier(random_state=SEED)))
    svc = fit(make_pipeline(TfidfVectorizer(), LinearSVC()))
    calibrated = fit(make_pipeline(TfidfVectorizer(), CalibratedClassifierCV(LinearSVC(), cv=3)))
    boosting = fit(make_pipeline(CountVectorizer(), GradientBoostingClassifier(n_estimators=50, random_state=SEED)))
    bigram = fit(make_pipeline(TfidfVectorizer(ngram_range=(1, 2)), LogisticRegression(max_iter=1000)))
    chars = fit(
        make_pipeline(TfidfVectorizer(analyzer="char_wb", ngram_range=(2, 4)), LogisticRegression(max_iter=1000))
    )
    tokenizer = fit(make_pipeline(TfidfVectorizer(tokenizer=str.split, token_pattern=None), LogisticRegression()))
    classes3 = fit(make_pipeline(TfidfVectorizer(), LogisticRegression(max_iter=1000)), three)
    ridge = fit(make_pipeline(TfidfVectorizer(), Ridge()), stars.astype(float))
    forest_tfidf = fit(make_pipeline(TfidfVectorizer(), RandomForestClassifier(100, random_state=SEED, n_jobs=1)))
    vader = vader_model()
    forest_counts = fit(make_pipeline(CountVectorizer(), RandomForestClassifier(100, random_state=SEED, n_jobs=1)))
    models = [
        ("TF-IDF logistic", logistic, logistic.predict_proba),
        ("TF-IDF logistic .decision_function", logistic.decision_function, logistic.decision_function),
        ("MultinomialNB (counts)", nb, nb.predict_proba),
        ("Hashing + SGD", sgd, sgd.decision_function),
        ("Hashing + SGD .decision_function", sgd.decision_function, sgd.decision_function),
        ("LinearSVC", svc, svc.decision_function),
        ("LinearSVC .decision_function", svc.decision_function, svc.decision_function),
        ("CalibratedClassifierCV(LinearSVC)", calibrated, calibrated.predict_proba),
        ("gradient boosting (counts)", boosting, boosting.predict_proba),
        ("gradient boosting .decision_function", boosting.decision_function, boosting.decision_function),
        ("bigram TF-IDF logistic", bigram, bigram.predict_proba),
        ("char_wb TF-IDF logistic", chars, chars.predict_proba),
        ("custom tokenizer (str.split)", tokenizer, tokenizer.predict_proba),
        ("3 classes, logistic", classes3, classes3.predict_proba),
        ("Ridge regressor .predict", ridge.predict, ridge.predict),
        ("forest (L2 TF-IDF)", forest_tfidf, forest_tfidf.predict_proba),
        ("forest (counts)", forest_counts, forest_counts.predict_proba),
        ("plain function, 2 columns", keyword_score, keyword_score),
        (
            "plain function, 1 column",
            length_score,
            lambda docs: np.column_stack([-length_score(docs), length_score(docs)]),
        ),
        ("lambda", lambda docs: nb.predict_proba(docs), nb.predict_proba),
        ("closure, 1 column", closure_over(calibrated), None),
        ("lambda returning class ids", lambda docs: logistic.predict(docs), None),
        ("VADER", vader, vader),
    ]
    blob = textblob_model()
    if blob is None:
        print("textblob: not installed (pip install textblob, or PYTHONPATH=<folder holding it>): skipped")
    else:
        models.append(("textblob", blob, blob))
    return models


def recorded(action):
    """(result or None, the exception's message or None, [warning messages], CPU seconds)."""
    start = time.process_time()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result, error = action(), None
        except Exception as exc:  # noqa: BLE001 (the trial records every refusal)
            result, error = None, f"{type(exc).__name__}: {exc}"
    messages = [str(w.message) for w in caught if not issubclass(w.category, DeprecationWarning)]
    return result, error, messages, time.process_time() - start


def notes_check(e):
    """'' when the notes read sensibly, else what is wrong; and the stated ratio (None on an exact route)."""
    precision = [note for note in e.notes if "model calls" in note and "standard error" in note]
    if e.exact:
        if precision or (e.stderr is not None and np.any(e.stderr > 0)):
            return "exact with a precision note or standard errors", None
        return "", None
    if len(precision) != 1:
        return f"{len(precision)} precision sentences", None
    found = PRECISION.search(precision[0])
    if not found:
        return f"unreadable precision note: {precision[0][:80]}", None
    ratio, n, met = float(found.group(2)), int(found.group(3)), found.group(4).startswith(",")
    problems = []
    if met != (ratio <= TOL):
        problems.append(f"{'met' if met else 'not met'} beside {ratio}")
    if n != e.lime_num_samples:
        problems.append(f"compares with lime at n = {n}")
    independent = float(np.max(np.atleast_2d(e.stderr)[0] / e.lime_spread(n).std))
    if abs(ratio / independent - 1) > RATIO_AGREEMENT:
        problems.append(f"ratio {ratio} against stderr / lime's sd {independent:.3g}")
    for note in e.notes:
        for bound in re.finditer(r"at most ([0-9.]+) x", note):
            if ratio > float(bound.group(1)):
                problems.append(f"'at most {bound.group(1)}' beside {ratio}")
    return "; ".join(problems), ratio


def many_check(model, texts, explained, folder):
    """(routes, resumed, equal to explain, error, CPU seconds) of explain_many run twice with path=."""
    path = Path(folder) / "run"
    first, error, _, seconds = recorded(lambda: lt.explain_many(model, texts, progress=False, path=path))
    if error:
        return "-", "-", "-", error, seconds
    before = Counted.calls
    second, error, _, _ = recorded(lambda: lt.explain_many(model, texts, progress=False, path=path))
    if error:
        return ",".join(sorted(set(first.method))), "refused: " + error, "-", None, seconds
    counted = model in (keyword_score, length_score)
    resumed = first.equals(second) and (not counted or Counted.calls == before)
    same = "-"
    if explained is not None:
        rows = first[(first.document == 0) & (first.label == explained.label)]
        same = bool(np.array_equal(rows.coefficient.to_numpy(), explained.beta))
    return ",".join(sorted(set(first.method))), resumed, same, None, seconds


def trial(models, text, texts):
    print(
        f"\nexplain / explain_many / shapley at lime's defaults, review {TEXT_INDEX} (d = "
        f"{len(lt.local_dictionary(text))}); explain_many on reviews {MANY} with path=, run twice\n"
    )
    header = (
        f"{'model':38} {'explain route':14} {'exact':5} {'ratio':>6} {'notes':6} {'s':>5} | {'many routes':22} "
        f"{'resumed':7} {'=explain':8} {'s':>5} | {'shapley':12} {'exact':5}"
    )
    print(header + "\n" + "-" * len(header))
    findings, estimates = [], {}
    with tempfile.TemporaryDirectory(prefix="limetheory-trial-") as folder:
        for position, (name, model, _) in enumerate(models):
            e, error, caught, seconds = recorded(lambda model=model: lt.explain(model, text, progress=False))
            if error:
                print(f"{name:38} refused: {error[:150]}")
                findings.append((name, "explain refused", error))
                continue
            problem, ratio = notes_check(e)
            if problem:
                findings.append((name, "notes", problem))
            for message in caught:
                findings.append((name, "warning", message[:200]))
            if not e.exact:
                estimates[name] = model
            routes, resumed, same, many_error, many_seconds = many_check(model, texts, e, f"{folder}/{position}")
            if many_error:
                findings.append((name, "explain_many refused", many_error))
            if resumed is not True or same is not True:
                findings.append((name, "explain_many", f"resumed {resumed}, equal to explain {same}"))
            values, shapley_error, _, _ = recorded(lambda model=model: lt.shapley(model, text))
            if shapley_error:
                findings.append((name, "shapley refused", shapley_error))
            print(
                f"{name:38} {e.method:14} {e.exact!s:5} {'-' if ratio is None else f'{ratio:.3g}':>6} "
                f"{'ok' if not problem else 'WRONG':6} {seconds:5.1f} | {routes[:22]:22} {resumed!s:7} {same!s:8} "
                f"{many_seconds:5.1f} | {values.method if values is not None else 'refused':12} "
                f"{values.exact if values is not None else '-'!s:5}",
                flush=True,
            )
    return findings, estimates


def honesty(models, text, names):
    """The seed spread over the stated standard error, pooled over the coefficients, for each of ``names``."""
    print(f"\nhonest standard errors: explain with {HONEST_SEEDS} seeds, seed spread / stated stderr (about 1)")
    for name in names:
        model = dict((n, m) for n, m, _ in models)[name]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            runs = [lt.explain(model, text, random_state=seed, progress=False) for seed in range(HONEST_SEEDS)]
        beta = np.array([np.atleast_2d(r.beta)[0] for r in runs])
        stated = np.array([np.atleast_2d(r.stderr)[0] for r in runs])
        ratio = np.sqrt(np.mean(beta.var(axis=0, ddof=1) / np.mean(stated**2, axis=0)))
        print(f"  {name:38} {ratio:.2f} (d + 1 = {beta.shape[1]}, {runs[0].num_samples} calls per run)")


def against_lime(models, text, names):
    """to_lime().as_list() against real lime's as_list() averaged over LIME_RUNS runs at lime's defaults."""
    print(f"\nto_lime().as_list() against real lime's, {LIME_RUNS} runs at lime's defaults (seeds 0-{LIME_RUNS - 1})")
    for name in names:
        model, lime_fn = {n: (m, f) for n, m, f in models}[name][:2]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            ours = dict(lt.explain(model, text, progress=False).to_lime().as_list())
        runs = [
            dict(LimeTextExplainer(random_state=seed).explain_instance(text, lime_fn).as_list())
            for seed in range(LIME_RUNS)
        ]
        words = sorted(ours, key=lambda w: -abs(ours[w]))
        chosen = {w: sum(w in run for run in runs) for w in words}
        # lime's mean over the runs that select a word is biased away from 0 when only some do (a word is then
        # selected when its noise is large): the gaps are read on the words every run selects
        always = [w for w in words if chosen[w] == LIME_RUNS]
        gaps = [abs(ours[w] - np.mean([r[w] for r in runs])) / np.std([r[w] for r in runs], ddof=1) for w in always]
        print(
            f"  {name:38} lime selects our 10 words in {np.mean(list(chosen.values())) / LIME_RUNS:.0%} of its runs; "
            f"on the {len(always)} it selects in every run, |ours - lime's mean| / lime's sd: median "
            f"{np.median(gaps):.2f}, max {np.max(gaps):.2f} (the mean of {LIME_RUNS} runs spreads by "
            f"{1 / np.sqrt(LIME_RUNS):.2f} sd)"
        )
        shown = ", ".join(
            f"{w} {ours[w]:+.3f} ({np.mean([r[w] for r in runs if w in r]) if chosen[w] else float('nan'):+.3f})"
            for w in words[:5]
        )
        print(f"  {'':38} ours (lime's mean): {shown}")


def main():
    begin = time.process_time()
    reviews = lt.load_yelp_reviews()
    texts, stars = reviews["text"].tolist(), reviews["stars"].to_numpy()
    print(f"load {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    models = fitted_models(texts, stars)
    findings, estimates = trial(models, texts[TEXT_INDEX], [texts[i] for i in MANY])
    print("\nfindings (warnings, refusals, notes that do not read sensibly):")
    for name, kind, message in findings:
        print(f"  {name}: {kind}: {message}")
    honest = [n for n in ("plain function, 2 columns", "MultinomialNB (counts)", "VADER") if n in estimates]
    honesty(models, texts[TEXT_INDEX], honest)
    against_lime(models, texts[TEXT_INDEX], ["MultinomialNB (counts)", "plain function, 2 columns"])
    print(f"\nCPU time {time.process_time() - begin:.0f} s")


if __name__ == "__main__":
    main()
