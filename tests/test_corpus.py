"""explain_many against explain, document by document and bit for bit: on one process, on joblib's processes, on a
real dask.distributed cluster of two worker processes, and across an interrupted and resumed Parquet run."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from sklearn.ensemble import RandomForestClassifier
from sklearn.feature_extraction.text import CountVectorizer, TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import Pipeline, make_pipeline

import limetheory as lt
from limetheory.pipelines.corpora import store
from limetheory.pipelines.corpora.corpus import COLUMNS, INTERCEPT, explanations_frame, read_explanations

#: the document on which Flaky's decision_function raises KeyboardInterrupt (None: never)
TRIGGER = None


class Flaky(Pipeline):
    """A pipeline whose decision_function stops the run (KeyboardInterrupt) when it sees the document TRIGGER.

    The trigger is a module variable, not part of the fitted model: the interrupted and the resumed run have the
    same joblib.hash, as one model interrupted by a user would."""

    def decision_function(self, X, **params):
        if TRIGGER is not None and any(document == TRIGGER for document in X):
            raise KeyboardInterrupt
        return super().decision_function(X, **params)


@pytest.fixture(scope="module")
def reviews():
    frame = lt.load_yelp_reviews()
    return frame["text"].tolist(), frame["stars"].to_numpy()


@pytest.fixture(scope="module")
def logistic(yelp_logistic):
    return yelp_logistic  # conftest's: the same fit on the same reviews, once per worker


@pytest.fixture(scope="module")
def flaky(reviews):
    texts, labels = reviews
    return Flaky([("tfidf", TfidfVectorizer()), ("logistic", LogisticRegression(max_iter=1000))]).fit(texts, labels)


@pytest.fixture(scope="module")
def corpus(reviews):
    """14 short reviews (d <= 40), so that every route below stays quick."""
    texts = [text for text in reviews[0] if 2 <= len(lt.local_dictionary(text)) <= 40]
    return texts[:14]


def assert_rows_are_explain(frame, model, texts, **options):
    """Each document's rows are explain's answer, bit for bit."""
    assert frame.columns.tolist() == list(COLUMNS)
    assert frame["document"].tolist() == sorted(frame["document"])
    for position, text in enumerate(texts):
        rows = frame[frame["document"] == position]
        one = lt.explain(model, text, **options)
        assert rows["word"].tolist() == [INTERCEPT, *one.words]
        assert rows["position"].tolist() == list(range(len(one.beta)))
        np.testing.assert_array_equal(rows["coefficient"].to_numpy(), one.beta)  # exact equality
        stderr = np.full(len(one.beta), np.nan) if one.stderr is None else one.stderr
        np.testing.assert_array_equal(rows["stderr"].to_numpy(), stderr)
        assert set(rows["exact"]) == {one.exact} and set(rows["method"]) == {one.method}
        assert set(rows["label"]) == {one.label}


def test_linear_route_equals_explain(logistic, corpus):
    frame = lt.explain_many(logistic, corpus, output="decision_function", progress=False, chunk_size=4)
    assert set(frame["method"]) == {"linear"}
    assert_rows_are_explain(frame, logistic, corpus, output="decision_function")


def test_monte_carlo_and_trees_equal_explain(reviews, logistic, corpus):
    texts = corpus[:4]
    options = dict(num_samples=600, random_state=3)
    frame = lt.explain_many(logistic, texts, progress=False, chunk_size=3, **options)  # predict_proba
    estimated = ~frame["exact"]
    assert estimated.any() and frame.loc[estimated, "stderr"].notna().all()
    assert_rows_are_explain(frame, logistic, texts, **options)
    forest = make_pipeline(
        CountVectorizer(binary=True), RandomForestClassifier(n_estimators=5, random_state=0, n_jobs=1)
    ).fit(*reviews)
    frame = lt.explain_many(forest, texts, progress=False)
    assert set(frame["method"]) == {"trees"}
    assert_rows_are_explain(frame, forest, texts)


def test_processes_and_chunks_do_not_change_the_answer(logistic, corpus):
    one = lt.explain_many(logistic, corpus, output="decision_function", progress=False)
    two = lt.explain_many(logistic, corpus, output="decision_function", progress=False, n_jobs=2, chunk_size=3)
    pd.testing.assert_frame_equal(one, two, check_exact=True)


def test_a_worker_s_warnings_reach_the_calling_process(logistic, corpus):
    """explain warns for a kernel_width below 1 (the other unit); from worker processes the warning is re-raised
    in the caller, once per document that went through explain (the first of each chunk, at least)."""
    with pytest.warns(UserWarning, match="is lime's unit") as caught:
        lt.explain_many(
            logistic, corpus[:4], output="decision_function", kernel_width=0.5, progress=False, n_jobs=2, chunk_size=2
        )
    assert sum("is lime's unit" in str(w.message) for w in caught) >= 2


def test_dask_cluster_of_two_processes(logistic, corpus):
    distributed = pytest.importorskip("dask.distributed")
    import dask

    expected = lt.explain_many(logistic, corpus, output="decision_function", progress=False)
    # the two workers forked from this process, which has imported the package already: spawned, each imported
    # dask, scikit-learn and the package afresh (about 7 of the test's 8 CPU-s); the model, the texts and the
    # results still cross between processes pickled. A fresh process's imports are test_processes_...'s (loky)
    with (
        dask.config.set({"distributed.worker.multiprocessing-method": "fork"}),
        distributed.LocalCluster(
            n_workers=2, processes=True, threads_per_worker=1, host="127.0.0.1", dashboard_address=None
        ) as cluster,
        distributed.Client(cluster),
    ):
        frame = lt.explain_many(logistic, corpus, output="decision_function", backend="dask", chunk_size=4)
    pd.testing.assert_frame_equal(frame, expected, check_exact=True)


def test_an_interrupted_run_resumes_and_computes_only_the_missing_documents(flaky, corpus, tmp_path):
    global TRIGGER
    path = tmp_path / "run"
    expected = lt.explain_many(flaky, corpus, output="decision_function", progress=False)
    try:
        TRIGGER = corpus[7]
        with pytest.raises(KeyboardInterrupt):
            lt.explain_many(flaky, corpus, output="decision_function", progress=False, chunk_size=3, path=path)
        # chunks (0, 1, 2) and (3, 4, 5) finished; the chunk of document 7 did not
        assert store.stored_documents(path) == set(range(6))
        assert read_explanations(path)["document"].unique().tolist() == list(range(6))
        # the resumed run must not call the model on a stored document: the trigger is now one of them
        TRIGGER = corpus[4]
        frame = lt.explain_many(flaky, corpus, output="decision_function", progress=False, chunk_size=5, path=path)
    finally:
        TRIGGER = None
    pd.testing.assert_frame_equal(frame, expected, check_exact=True)
    assert store.stored_documents(path) == set(range(len(corpus)))
    # a third call computes nothing and reads the same frame back
    again = lt.explain_many(flaky, corpus, output="decision_function", progress=False, path=path)
    pd.testing.assert_frame_equal(again, expected, check_exact=True)
    # pandas reads the folder directly (the fingerprint's name starts with "_")
    direct = pd.read_parquet(path).sort_values(["document", "position"]).reset_index(drop=True)
    np.testing.assert_array_equal(direct["coefficient"].to_numpy(), expected["coefficient"].to_numpy())


def test_a_different_model_texts_or_options_are_refused(logistic, flaky, corpus, tmp_path):
    path = tmp_path / "run"
    lt.explain_many(logistic, corpus[:3], output="decision_function", progress=False, path=path)
    record = json.loads((path / store.FINGERPRINT_NAME).read_text())
    assert record["documents"] == 3 and record["options"]["output"] == "'decision_function'"
    with pytest.raises(ValueError, match=r"differs in the options of explain \(kernel_width: 25 -> 30\)"):
        lt.explain_many(logistic, corpus[:3], output="decision_function", kernel_width=30, progress=False, path=path)
    with pytest.raises(ValueError, match=r"differs in the model \(its joblib.hash\)"):
        lt.explain_many(flaky, corpus[:3], output="decision_function", progress=False, path=path)
    with pytest.raises(ValueError, match="differs in the texts; the number of documents"):
        lt.explain_many(logistic, corpus[:4], output="decision_function", progress=False, path=path)
    # a default passed explicitly is the same run
    same = lt.explain_many(logistic, corpus[:3], output="decision_function", kernel_width=25, progress=False, path=path)
    assert same["document"].nunique() == 3


def test_collect_false_returns_the_dataset(logistic, corpus, tmp_path):
    dataset = lt.explain_many(
        logistic, corpus[:5], output="decision_function", progress=False, path=tmp_path / "run", collect=False
    )
    table = dataset.to_table().to_pandas()
    assert sorted(table["document"].unique()) == list(range(5))


def test_frame_pivots_and_progress(logistic, corpus, capsys):
    frame = lt.explain_many(logistic, corpus[:3], output="decision_function", progress=True)
    assert "explain_many" in capsys.readouterr().err
    wide = frame.pivot(index="document", columns="word", values="coefficient")
    assert wide.shape[0] == 3 and INTERCEPT in wide.columns
    lt.explain_many(logistic, corpus[:3], output="decision_function", progress=False)
    assert capsys.readouterr().err == ""


def test_empty_corpus_and_errors_name_the_document(logistic):
    empty = lt.explain_many(logistic, [], progress=False)
    assert empty.columns.tolist() == list(COLUMNS) and len(empty) == 0
    with pytest.raises(ValueError, match="^document 1: text must contain at least 2 distinct words"):
        lt.explain_many(logistic, ["good food", "good"], output="decision_function", progress=False)


def test_explanations_frame_of_estimates():
    e = lt.Explanation(
        ["a", "b"],
        np.array([0.1, 0.2, 0.3]),
        False,
        "monte_carlo",
        np.array([0.01, 0.02, 0.03]),
        25.0,
        "predict_proba",
        1,
        100,
    )
    frame = explanations_frame([e, e], [4, 2])
    assert frame["document"].tolist() == [2, 2, 2, 4, 4, 4]
    assert frame["stderr"].tolist() == [0.01, 0.02, 0.03] * 2


def test_linear_batch_says_where_lime_will_not_agree_as_explain_does(logistic, corpus):
    """At kernel_width = 2 lime's ridge holds its coefficients far from the limit at n = 5000: notes and a warning."""
    import warnings

    from limetheory.pipelines.corpora.linear_many import explain_linear_many

    texts = corpus[:4]
    with pytest.warns(UserWarning, match=r"^4 of the 4 documents have word coefficients that lime") as caught:
        many = explain_linear_many(logistic, texts, output="decision_function", kernel_width=2)
    assert len([w for w in caught if "documents have word coefficients" in str(w.message)]) == 1
    for text, batch in zip(texts, many, strict=True):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            one = lt.explain(logistic, text, output="decision_function", kernel_width=2)
        assert batch.notes == one.notes and any("will not agree" in note for note in batch.notes)
        assert not batch.lime_agrees and not one.lime_agrees
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        frame = lt.explain_many(logistic, texts, output="decision_function", kernel_width=2, progress=False)
        agreeing = lt.explain_many(logistic, texts, output="decision_function", progress=False)
    assert not frame.lime_agrees.any()  # the note, kept in the frame per document
    assert agreeing.lime_agrees.all() == all(lt.explain(logistic, t, output="decision_function").lime_agrees
                                             for t in texts)  # fmt: skip


def test_linear_batch_is_explain_or_none(reviews, logistic, corpus):
    from limetheory.pipelines.corpora.linear_many import explain_linear_many

    texts = [*corpus[:5], "good", "Good good GOOD"]  # the last two have fewer than 2 distinct words / one column
    many = explain_linear_many(logistic, texts, output="decision_function", kernel_width=40, label=0)
    for text, batch in zip(texts, many, strict=True):
        try:
            one = lt.explain(logistic, text, output="decision_function", kernel_width=40, label=0)
        except ValueError:
            assert batch is None
            continue
        assert batch is not None and one.method == "linear"
        np.testing.assert_array_equal(batch.beta, one.beta)
        assert batch.words == one.words and batch.label == one.label and batch.notes == one.notes == ()
    # predict_proba of a logistic regression is not linear: every document is left to explain
    assert explain_linear_many(logistic, corpus[:3]) == [None] * 3
    forest = make_pipeline(CountVectorizer(binary=True), RandomForestClassifier(n_estimators=2, random_state=0))
    forest.fit(*reviews)
    assert explain_linear_many(forest, corpus[:2], output="predict_proba") == [None] * 2
