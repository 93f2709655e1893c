"""The estimate's default budget is one lime run, and its notes state one true sentence of the precision reached."""

from __future__ import annotations

import functools
import re
import warnings

import numpy as np
import pytest

import limetheory as lt

TEXT = (
    "the soup was good and the bread was fresh but the service was slow and the room was loud "
    "although the staff tried hard to keep every table happy tonight"
)
NOTE = re.compile(
    r"estimate from (\d+) model calls(?: \(max_calls = (\d+), spent before tol was met\))?: the largest standard "
    r"error is ([0-9.e+-]+) x lime's standard deviation at n = (\d+)(?:, within the target tol = ([0-9.e+-]+)| \(tol = "
    r"([0-9.e+-]+)\))"
)


def score(docs):
    """A rule-based score that no exact route reads (a classifier_fn of one column)."""
    return np.array([[np.tanh(doc.count("good") - doc.count("slow") + 0.05 * len(doc.split()))] for doc in docs])


def _precision(explanation):
    notes = [note for note in explanation.notes if note.startswith("estimate from ")]
    assert len(notes) == 1, explanation.notes  # one sentence of the precision, not two that disagree
    found = NOTE.match(notes[0])
    assert found, notes[0]
    calls, budget, ratio, n, met, unmet = found.groups()
    return int(calls), budget, float(ratio), int(n), met is not None, float(met or unmet)


@pytest.mark.parametrize("num_samples", [300, 1000, 5000])
def test_the_default_call_costs_at_most_one_lime_run(num_samples):
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)  # no warning: lime's cost is the default, not a failure
        warnings.filterwarnings("ignore", message="lime at num_samples")
        e = lt.explain(score, TEXT, num_samples=num_samples)
    assert e.method == "monte_carlo" and len(e.words) > 14
    calls, _, ratio, n, met, tol = _precision(e)
    least = 8 * len(e.words)  # a pilot and two batches with two masks in every stratum
    assert calls == e.num_samples <= max(num_samples, least)
    assert n == num_samples and tol == 0.1
    assert met == (ratio <= tol)  # never "within the target" beside a larger ratio


def test_asking_for_precision_warns_when_the_budget_runs_out():
    with pytest.warns(UserWarning, match="spent before tol was met"):
        e = lt.explain(score, TEXT, tol=1e-4, max_calls=600, num_samples=5000)
    calls, budget, ratio, _, met, tol = _precision(e)
    assert not met and int(budget) == 600 and ratio > tol == 1e-4 and calls <= 600


def test_the_stated_ratio_follows_the_standard_errors():
    """More calls, smaller standard errors: the note's ratio moves with stderr, as a ratio to a fixed sd must."""
    with pytest.warns(UserWarning, match="spent before tol"):
        small = lt.explain(score, TEXT, max_calls=600, tol=1e-6, progress=False)
    with pytest.warns(UserWarning, match="spent before tol"):
        large = lt.explain(score, TEXT, max_calls=6000, tol=1e-6, progress=False)
    ratio_small, ratio_large = _precision(small)[2], _precision(large)[2]
    assert ratio_large < ratio_small
    # lime's standard deviation is the same for both: the ratios scale as the largest standard errors do, to
    # within the note's two significant digits and the estimate's own spread of its standard errors
    scale = small.stderr.max() / large.stderr.max()
    assert ratio_small / ratio_large == pytest.approx(scale, rel=0.35)  # tol: two digits and the errors' own noise


def _words(documents):
    return sum(len([token for token in re.split(r"\W+", document) if token]) for document in documents)


@pytest.mark.parametrize("num_samples", [1000, 5000])
def test_the_default_calls_hold_no_more_words_than_limes_strings(num_samples):
    """lime's cost is also the words of its strings (VADER's time, a vectorizer's, grows with them): counted on the
    strings the model receives, at most lime's expected number at num_samples, computed here from lime's law (the
    first string whole, then s ~ U{1..d} distinct words removed: each word kept with probability (d - 1) / (2d)),
    plus the document itself, scored once for its labels."""
    seen = []

    def counted(documents):
        seen.append(_words(documents))
        return score(documents)

    e = lt.explain(counted, TEXT, num_samples=num_samples, progress=False)
    tokens = [token for token in re.split(r"\W+", TEXT) if token]
    d = len(set(tokens))
    assert d == len(e.words) > 14
    limes = len(tokens) * (1 + (num_samples - 1) * (d - 1) / (2 * d))
    assert sum(seen) <= limes + len(tokens), (sum(seen), limes)
    assert _precision(e)[0] <= num_samples


@pytest.mark.parametrize("seeds", [20, pytest.param(40, marks=pytest.mark.slow)])
def test_the_default_calls_have_honest_standard_errors(seeds):
    """The default budget on strings (its calls and words bound, its surrogate averaged over cheap masks sized to the
    variance the budget leaves) against the exact β of enumeration, over 40 seeds x 14 coefficients (20 in
    `make test`: both bounds are counted in standard errors of the seeds drawn, so they widen to match).

    Not too small: the mean of z² at most 3 of its standard errors above 1 (computed as ``tests/test_estimate.py``
    does, from the z-scores' correlation; about 0.07 here) and ±1.96 stderr covering 95% within 3 binomial standard
    errors counted per seed.  Not useless: the mean of z² above 0.5 (measured 0.73; 0.77 before the words bound and
    the smaller cheap average, which leave the standard errors as conservative as they were).
    """
    text = "good food and good wine but the slow service and the cold soup made the night long"
    # steep enough that the logit surrogate pays (and its cheap masks enter the standard errors)
    weights = {"good": 3.0, "wine": 1.5, "slow": -3.0, "cold": -2.5, "long": -1.0, "night": 0.8, "food": 1.0}
    weights["soup"] = -0.5

    def probability(documents):
        margins = np.array([sum(weights.get(t, 0.0) for t in re.split(r"\W+", doc)) for doc in documents])
        return np.column_stack([1 - 1 / (1 + np.exp(-margins)), 1 / (1 + np.exp(-margins))])

    exact = lt.explain(probability, text, method="enumeration").beta
    estimates = [
        lt.explain(probability, text, method="monte_carlo", num_samples=2000, random_state=seed, progress=False)
        for seed in range(seeds)
    ]
    assert any("which bound the calls first" in n for e in estimates for n in e.notes)  # the words bound, at times
    z = np.array([(e.beta - exact) / e.stderr for e in estimates])
    correlation = np.corrcoef(z.T)
    tolerance = 3 * float(np.sqrt(2.0 * (correlation**2).sum() / z.shape[1] ** 2 / len(z)))
    assert 0.5 <= np.mean(z**2) <= 1 + tolerance, (np.mean(z**2), tolerance)
    assert np.mean(np.abs(z) < 1.96) >= 0.95 - 3 * np.sqrt(0.95 * 0.05 / len(z))


def test_word_occurrences_are_limes_positions():
    """Each word's occurrences, against lime's own IndexedString on the first 200 of the paper's reviews."""
    from lime.lime_text import IndexedString

    from limetheory.engine.tokens import word_occurrences

    for text in lt.load_yelp_reviews()["text"][:200]:
        assert word_occurrences(text).tolist() == [len(p) for p in IndexedString(text).positions]


def test_limes_expected_words_are_those_of_its_strings():
    """lime_words' total against the words of the 5000 strings real lime built (``capture_lime_samples``): within 4
    standard deviations of a sum of 4999 independent rows (the first, the document, is fixed), the spread of a row
    measured on the same strings."""
    from limetheory.pipelines.estimate.estimate_route import lime_words

    samples = lt.capture_lime_samples(TEXT, score, num_samples=5000, label=0)
    counts = np.array([_words([document]) for document in samples.documents])
    _, expected = lime_words(TEXT, 5000)
    assert counts[0] == len([t for t in re.split(r"\W+", TEXT) if t])
    assert abs(counts.sum() - expected) <= 4 * counts[1:].std() * np.sqrt(len(counts) - 1), (counts.sum(), expected)


def test_the_linked_budget_follows_its_work_model():
    """linked_budget against its definition recomputed here: lime's microseconds (per sample and per word of its
    strings) over the mask's, halved, between one and 200 lime runs' worth of masks; fewer masks as d grows at
    lime's same words, more as lime's strings hold more words."""
    from limetheory.pipelines.estimate import estimate_route as route

    for n, d, words in [(5000, 39, 120_000.0), (5000, 488, 2.6e6), (300, 900, 4e5), (5000, 3, 10.0)]:
        lime = route.LIME_US_PER_SAMPLE * n + route.LIME_US_PER_WORD * words
        mask = route.LINKED_US_PER_MASK + route.LINKED_US_PER_WORD * d + route.LINKED_US_PER_WORD2 * d * d
        runs = min(max(lime / n / mask / route.LINKED_SAFETY, 1.0), route.COUNT_CALLS_PER_LIME_RUN)
        assert route.linked_budget(n, d, words) == int(n * runs)
    assert route.linked_budget(5000, 100, 1e6) > route.linked_budget(5000, 400, 1e6) >= 5000
    assert route.linked_budget(5000, 400, 2e6) > route.linked_budget(5000, 400, 1e6)


def test_the_linked_default_call_on_a_long_document_stops_at_its_budget(yelp_logistic):
    """A logistic regression's default predict_proba on a 160-word document (no exact powers beyond 150 words):
    the linked reading's masks stop at tol or at linked_budget's count (lime's time, by the work model), never past
    it; at a small num_samples the budget binds first and the note says so."""
    from limetheory.pipelines.estimate.estimate_route import lime_words, linked_budget

    text = _long_document(160)
    d = len(lt.local_dictionary(text))
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)  # the default states its precision; it does not warn
        warnings.filterwarnings("ignore", message="lime at num_samples")
        e = lt.explain(yelp_logistic, text, num_samples=300, progress=False)
    assert any("link of its linear reading" in note for note in e.notes)
    calls, budget, ratio, n, met, tol = _precision(e)
    limit = linked_budget(300, d, lime_words(text, 300)[1])
    assert n == 300 and calls <= limit and tol == 0.1
    assert met == (ratio <= tol) and (met or calls > 0.9 * limit)


@functools.cache
def _long_document(words):
    """Reviews of fewer than 40 distinct words joined until the document holds more than ``words`` (a str: built
    once for the two tests that read the 160-word one)."""
    texts = [t for t in lt.load_yelp_reviews()["text"] if len(lt.local_dictionary(t)) < 40]
    text = texts.pop(0)
    while len(lt.local_dictionary(text)) <= words:
        text = f"{text} {texts.pop(0)}"
    return text


@pytest.fixture(scope="module")
def tree_models(yelp):
    """A 10-tree forest, a tree and a 20-stage gradient boosting on TF-IDF, fitted on the Yelp reviews."""
    from sklearn.ensemble import GradientBoostingClassifier, RandomForestClassifier
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.pipeline import make_pipeline
    from sklearn.tree import DecisionTreeClassifier

    texts, stars = yelp
    models = (RandomForestClassifier(10, random_state=0, n_jobs=1), DecisionTreeClassifier(random_state=0),
              GradientBoostingClassifier(n_estimators=20, random_state=0))  # fmt: skip
    return [make_pipeline(TfidfVectorizer(), model).fit(texts, stars) for model in models]


def _leaf_depths(tree):
    """The depth of each leaf and its training weight, by walking the tree from its root."""
    t, depths, weights, stack = tree.tree_, [], [], [(0, 0)]
    while stack:
        node, depth = stack.pop()
        if t.children_left[node] < 0:
            depths.append(depth)
            weights.append(t.weighted_n_node_samples[node])
        else:
            stack += [(t.children_left[node], depth + 1), (t.children_right[node], depth + 1)]
    return np.array(depths, dtype=float), np.array(weights)


def test_the_rows_budget_follows_its_work_model(tree_models):
    """rows_budget against its definition recomputed here: lime's modelled time (its samples, its strings' words, the
    classifier on its rows in one call) over ROWS_SAFETY, less the estimate's fixed calls, over a mask's modelled
    time, between lime's calls and 200 lime runs'; the trees' paths as the leaves' depths weighted by their training
    rows, walked here from the root."""
    from limetheory.pipelines.estimate import estimate_route as route
    from limetheory.pipelines.estimate import work_model as wm

    forest, tree, boosting = tree_models
    for pipe in tree_models:
        model = pipe.steps[-1][1]
        trees = [model] if pipe is tree else list(np.ravel(model.estimators_))
        path = 0.0
        for t in trees:
            depths, weights = _leaf_depths(t)
            path += float(depths @ weights / weights.sum())
            assert wm.mean_path(t) == pytest.approx(float(depths @ weights / weights.sum()), rel=1e-12)
        k = len(trees)
        if pipe is boosting:
            costs = (wm.BOOST_US_PER_TREE * k + wm.TREE_US_PER_NODE * path, wm.BOOST_US_PER_COLUMN,
                     wm.CLASSIFIER_US_PER_CALL + wm.BOOST_US_PER_TREE_CALL * k)  # fmt: skip
        else:
            costs = (wm.TREE_US_PER_ROW * k + wm.TREE_US_PER_NODE * path, wm.TREE_US_PER_COLUMN * k,
                     wm.CLASSIFIER_US_PER_CALL + wm.TREE_US_PER_CALL * k)  # fmt: skip
        assert wm.classifier_costs(model) == pytest.approx(costs, rel=1e-9)
        # the estimate walks the forest's rows itself (reading.forest_walk): its side at the walk's costs
        ours = costs
        if pipe is forest:
            ours = (wm.WALK_US_PER_TREE * k + wm.WALK_US_PER_NODE * path, wm.WALK_US_PER_TREE_COLUMN * k,
                    wm.WALK_US_PER_CALL)  # fmt: skip
        for n, d, words, columns in [(5000, 39, 120_000.0, 36), (5000, 488, 2.6e6, 470), (300, 900, 4e5, 880)]:
            row, column, call = costs
            classifier = row + column * columns / 2
            lime = route.LIME_US_PER_SAMPLE * n + route.LIME_US_PER_WORD * words + n * classifier + call
            mask = route.ROWS_US_PER_MASK + route.ROWS_US_PER_WORD * d + route.ROWS_US_PER_WORD2 * d * d
            row, column, call = ours
            classifier = row + column * columns / 2
            masks = (lime / route.ROWS_SAFETY - wm.CALLS_FIXED * call) / (mask + classifier + call / wm.ROWS_PER_CALL)
            expected = int(min(max(masks, n), route.COUNT_CALLS_PER_LIME_RUN * n))
            assert route.rows_budget(pipe, n, d, words, columns) == expected
    # a dearer classifier (more trees) gets fewer masks; lime's longer strings buy more
    assert route.rows_budget(tree, 5000, 488, 2.6e6, 470) > route.rows_budget(forest, 5000, 488, 2.6e6, 470) > 5000
    assert route.rows_budget(forest, 5000, 488, 5e6, 470) > route.rows_budget(forest, 5000, 488, 2.6e6, 470)


def test_the_forests_default_call_on_a_long_document_buys_more_than_limes_calls(tree_models, yelp):
    """A forest's default call on a 160-word document: more masks than lime's 5000 calls, exactly rows_budget's (the
    note names it: tol is out of reach), and the note states one true sentence of the precision reached.  The same
    forest behind a step the work model does not know (a scaler) gets lime's number of calls, as before."""
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import MaxAbsScaler

    from limetheory.pipelines.estimate.estimate_route import lime_words, rows_budget
    from limetheory.pipelines.reading.count_rows import count_score_masks

    forest = tree_models[0]
    text = _long_document(160)
    d = len(lt.local_dictionary(text))
    columns = count_score_masks(forest, text, "predict_proba")[0].columns
    budget = rows_budget(forest, 5000, d, lime_words(text, 5000)[1], columns)
    assert budget > 2 * 5000
    scaler = MaxAbsScaler().fit(forest.steps[0][1].transform(yelp[0]))
    unknown = make_pipeline(forest.steps[0][1], scaler, forest.steps[1][1])
    for model, limit in ((forest, budget), (unknown, 5000)):
        with warnings.catch_warnings():
            warnings.simplefilter("error", UserWarning)  # the default states its precision; it does not warn
            e = lt.explain(model, text, progress=False)
        assert any("rows from the document's counts" in note for note in e.notes)
        calls, stated, ratio, n, met, tol = _precision(e)
        assert not met and int(stated) == limit and limit - 2 * d <= calls <= limit  # the last batch: 2 per stratum
        assert n == 5000 and tol == 0.1 and ratio > tol
        assert np.all(np.isfinite(e.stderr)) and np.all(e.stderr[1:] > 0)


@pytest.mark.parametrize("seeds", [12, pytest.param(40, marks=pytest.mark.slow)])
def test_the_default_call_on_a_long_document_has_honest_standard_errors(seeds):
    """The default budget on strings beyond ``strata.MAX_STRATA`` words (strata binned, Neyman's floor
    ``WORDS_NEYMAN_FLOOR``, its calls and words bound) against the exact β of the same model read by the tree route:
    a 30-tree forest on binary counts, fitted to a saturating rule of 12 of the document's 180 words (like VADER on a
    long document, flat where most words are kept), called as a function of lime's strings.

    The bounds of ``test_the_default_calls_have_honest_standard_errors``: the mean of z² at most 3 of its standard
    errors above 1 (from the z-scores' correlation) and at least 0.5; ±1.96 stderr covering 95% within 3 binomial
    standard errors counted per seed (measured: mean z² 1.00 at the 1% floor, 1.00 at 5%, over 20 seeds).
    """
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.feature_extraction.text import CountVectorizer
    from sklearn.pipeline import make_pipeline

    from limetheory.pipelines.estimate.strata import MAX_STRATA

    rng = np.random.default_rng(0)
    vocabulary = np.array([f"w{i}" for i in range(180)])
    weights = np.zeros(len(vocabulary))
    weights[:12] = [3, 2.5, 2, 2, 1.5, 1.5, -3, -2.5, -2, -2, -1.5, -1]
    documents, labels = [], []
    for _ in range(3000):
        kept = rng.random(len(vocabulary)) < rng.random()
        documents.append(" ".join(vocabulary[kept]) or "w0")
        labels.append(int(weights @ kept + 0.3 * rng.standard_normal() > 1.0))
    forest = RandomForestClassifier(30, max_depth=6, random_state=0)
    pipe = make_pipeline(CountVectorizer(binary=True), forest).fit(documents, labels)
    text = " ".join([*vocabulary, *vocabulary[:12]])  # the rule's words twice: strings of unequal words
    exact = lt.explain(pipe, text)
    assert exact.exact and len(exact.words) == len(vocabulary) > MAX_STRATA

    def model(strings):  # the same forest as a function of strings: no route reads it
        return pipe.predict_proba(strings)

    estimates = [lt.explain(model, text, num_samples=2000, random_state=seed, progress=False) for seed in range(seeds)]
    assert all(e.method == "monte_carlo" for e in estimates)
    assert any("which bound the calls first" in n for e in estimates for n in e.notes)  # the words bound
    z = np.array([(e.beta - exact.beta) / e.stderr for e in estimates])
    correlation = np.corrcoef(z.T)
    tolerance = 3 * float(np.sqrt(2.0 * (correlation**2).sum() / z.shape[1] ** 2 / len(z)))
    assert 0.5 <= np.mean(z**2) <= 1 + tolerance, (np.mean(z**2), tolerance)
    assert np.mean(np.abs(z) < 1.96) >= 0.95 - 3 * np.sqrt(0.95 * 0.05 / len(z))
