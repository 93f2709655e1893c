"""The linear route on hashed, re-weighted and joined features (``limetheory.pipelines.reading.text_features``).

A ``HashingVectorizer`` (with a ``TfidfTransformer`` after it or not) and a ``FeatureUnion`` of word vectorizers are
linear in their columns: their exact β is compared with enumeration of the real pipeline over all masks (d <= 14) and
with the estimate route's interval (d > 14); the pipelines the route cannot read (words of opposite signs in one
hashed column, a union part of bigrams or characters) get enumeration or the estimate, with the reason in notes.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.compose import ColumnTransformer
from sklearn.feature_extraction.text import CountVectorizer, HashingVectorizer, TfidfTransformer, TfidfVectorizer
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.pipeline import FeatureUnion, Pipeline, make_pipeline
from sklearn.preprocessing import FunctionTransformer, MaxAbsScaler, StandardScaler
from toy_reviews import DOCS, LABELS

import limetheory as lt
from limetheory.pipelines.corpora.linear_many import explain_linear_many
from limetheory.pipelines.reading import pipeline_reading
from limetheory.pipelines.reading.linked_reading import linked_score_masks
from limetheory.pipelines.reading.pipeline_reading import LinearReading, RouteUnavailable, self_check_tolerance
from limetheory.pipelines.reading.text_features import text_features
from limetheory.theory.explanation import all_masks

#: d = 13; "The" and "the" share a column under lower-casing (a group of two words with one sign)
TEXT = "The food was good but the staff rude, good wine and a great place"
#: d = 9, no two words in one column of a large hash or vocabulary (binary and sublinear counts are read)
DISTINCT = "the food was good but staff rude, good wine"
#: β of the linear route against enumeration: sums of 2^d values of order one in double precision (d <= 14) and
#: the linear route's quadrature, 1e-12 relative (linear_exact); 1e-10 leaves a margin of 100
EXACT_RTOL = 1e-10
#: standard errors within which the exact β must lie from the estimate: a normal beyond 5 has probability 6e-7
Z_LIMIT = 5.0


def _close(beta, reference):
    scale = max(1.0, float(np.abs(reference).max()))
    np.testing.assert_allclose(beta, reference, rtol=0, atol=EXACT_RTOL * scale)


def _union(**weights):
    inner = Pipeline([("hash", HashingVectorizer(n_features=2**12, norm=None)), ("idf", TfidfTransformer(norm="l1"))])
    return FeatureUnion(
        [
            ("tfidf", TfidfVectorizer()),
            ("hash", HashingVectorizer(n_features=2**10)),
            ("counts", CountVectorizer()),
            ("hash-idf", inner),
            ("dropped", "drop"),
        ],
        transformer_weights=weights or None,
    )


SHAPES = [
    ("hashing", [HashingVectorizer(n_features=2**10)], TEXT),
    ("hashing, same-sign collisions", [HashingVectorizer(n_features=23)], TEXT),
    ("hashing unsigned, 12 words in 4 columns", [HashingVectorizer(n_features=4, alternate_sign=False)], TEXT),
    ("hashing l1", [HashingVectorizer(n_features=2**10, norm="l1")], TEXT),
    ("hashing without norm", [HashingVectorizer(n_features=2**10, norm=None)], TEXT),
    ("hashing binary", [HashingVectorizer(n_features=2**10, binary=True)], DISTINCT),
    ("hashing + tfidf", [HashingVectorizer(n_features=2**10, norm=None), TfidfTransformer()], TEXT),
    ("hashing l1 + idf", [HashingVectorizer(n_features=2**10, norm="l1"), TfidfTransformer(norm=None)], TEXT),
    ("hashing + tfidf + scaler", [HashingVectorizer(n_features=2**10), TfidfTransformer(), MaxAbsScaler()], TEXT),
    (
        "hashing unsigned + sublinear tfidf",
        [HashingVectorizer(n_features=2**10, alternate_sign=False, norm=None), TfidfTransformer(sublinear_tf=True)],
        DISTINCT,
    ),
    ("counts + tfidf", [CountVectorizer(), TfidfTransformer()], TEXT),
    ("union", [_union()], TEXT),
    ("union, weighted", [_union(tfidf=2.0, hash=-0.5)], TEXT),
    ("union + scaler", [_union(), StandardScaler(with_mean=False)], TEXT),
]


@pytest.mark.parametrize("name, steps, text", SHAPES, ids=[case[0] for case in SHAPES])
def test_linear_route_equals_enumeration(name, steps, text):
    """The exact β of each shape equals enumeration of the real pipeline over every mask."""
    model = Pipeline([(f"step{i}", step) for i, step in enumerate(steps)] + [("model", LogisticRegression())])
    model.fit(DOCS, LABELS)
    exact = lt.explain(model.decision_function, text)
    assert exact.method == "linear" and exact.exact, exact.notes
    reference = lt.explain(model, text, output="decision_function", method="enumeration")
    _close(exact.beta, reference.beta)


def test_collisions_of_one_sign_are_groups():
    """The hashed shapes above do put several of the document's words in one column (the case is not vacuous)."""
    for n_features, least in ((23, 2), (4, 9)):
        signed = n_features == 23
        part = text_features(HashingVectorizer(n_features=n_features, alternate_sign=signed), [], TEXT).parts[0]
        visible = part.columns[part.columns >= 0]
        assert visible.size - np.unique(visible).size >= least
        for column in np.unique(visible):  # one sign per column
            assert np.unique(np.sign(part.factors[part.columns == column])).size == 1
    assert (part.factors[part.columns >= 0] == 1).all()  # alternate_sign=False: every sign is +1


def test_multiclass_and_regressor_on_hashed_features():
    """Every label of a multiclass model, and a regressor's predict, exact and equal to enumeration."""
    three = [0, 1, 2, 0, 1, 2, 0, 1]
    multiclass = make_pipeline(HashingVectorizer(n_features=2**10), LogisticRegression()).fit(DOCS, three)
    exact = lt.explain(multiclass.decision_function, TEXT, labels=(0, 1, 2))
    reference = lt.explain(multiclass, TEXT, output="decision_function", labels=(0, 1, 2), method="enumeration")
    for label in (0, 1, 2):
        assert exact.for_label(label).method == "linear"
        _close(exact.for_label(label).beta, reference.for_label(label).beta)
    regressor = make_pipeline(HashingVectorizer(n_features=2**10), TfidfTransformer(), Ridge()).fit(DOCS, three)
    exact = lt.explain(regressor.predict, TEXT)
    assert exact.method == "linear"
    _close(exact.beta, lt.explain(regressor, TEXT, output="predict", method="enumeration").beta)


@pytest.fixture(scope="module")
def yelp():
    reviews = lt.load_yelp_reviews()
    long_text = next(t for t in reviews.text if 20 <= len(lt.local_dictionary(t)) <= 30)  # the first such review
    return list(reviews.text), reviews.stars.to_numpy(), long_text


@pytest.mark.parametrize("kind", ["hashing", "union"])
def test_linear_route_within_the_estimate_interval(yelp, kind):
    """d > 14: the exact β lies within Z_LIMIT standard errors of the estimate route's β, coefficient by coefficient."""
    texts, stars, long_text = yelp
    first = HashingVectorizer() if kind == "hashing" else _union()
    model = make_pipeline(first, LogisticRegression(max_iter=1000)).fit(texts, stars)
    exact = lt.explain(model.decision_function, long_text)
    assert exact.method == "linear" and len(exact.words) > 14, exact.notes
    estimate = lt.explain(model.decision_function, long_text, method="monte_carlo", max_calls=20000, progress=False)
    assert not estimate.exact and estimate.stderr is not None
    assert (np.abs(estimate.beta - exact.beta) <= Z_LIMIT * estimate.stderr).all()


# ----------------------------------------------------------------------------- refusals


def test_opposite_signs_in_one_column_are_refused(yelp):
    """Two of the document's words in one hashed column with opposite signs: enumeration (d <= 14) or the estimate
    (d > 14), with the reason; the linear route asked by name is refused with it."""
    model = make_pipeline(HashingVectorizer(n_features=8), LogisticRegression()).fit(DOCS, LABELS)
    result = lt.explain(model.decision_function, TEXT)
    assert result.method == "enumeration" and "opposite signs" in result.notes[0]
    assert result.notes[0].startswith("linear: ")
    with pytest.raises(ValueError, match="method='linear' does not apply.*opposite signs"):
        lt.explain(model.decision_function, TEXT, method="linear")
    texts, stars, long_text = yelp
    model = make_pipeline(HashingVectorizer(n_features=8), LogisticRegression(max_iter=1000)).fit(texts, stars)
    result = lt.explain(model.decision_function, long_text, max_calls=2000, progress=False)
    assert result.method == "monte_carlo" and not result.exact
    assert result.notes[0].startswith("linear: ") and "opposite signs" in result.notes[0]


def _lengths(documents):
    return np.array([[len(document)] for document in documents], dtype=float)


REFUSED = [
    ("union with bigrams", _union().set_params(counts=CountVectorizer(ngram_range=(1, 2))), "part 'counts'"),
    ("union with characters", _union().set_params(counts=TfidfVectorizer(analyzer="char_wb")), "part 'counts'"),
    (
        "union with a function",
        _union().set_params(counts=FunctionTransformer(_lengths)),
        "not a Count, Tfidf or Hashing",
    ),
    (
        "union part with a scaler",
        _union().set_params(counts=make_pipeline(CountVectorizer(), MaxAbsScaler())),
        "not a TfidfTransformer",
    ),
    ("binary counts of a shared column", HashingVectorizer(binary=True), "binary or sublinear counts"),
]


@pytest.mark.parametrize("name, first, reason", REFUSED, ids=[case[0] for case in REFUSED])
def test_features_the_route_cannot_read_are_enumerated_with_the_reason(name, first, reason):
    """Each refusal leaves the document to enumeration (d = 13), the reason first in the notes."""
    model = make_pipeline(first, LogisticRegression()).fit(DOCS, LABELS)
    result = lt.explain(model.decision_function, TEXT)
    assert result.method == "enumeration" and result.notes[0].startswith("linear: "), result.notes
    assert reason in result.notes[0]


def test_text_features_refuses_what_it_cannot_read():
    """Bad first steps and unions: a ValueError that says why."""
    with pytest.raises(ValueError, match="the first step is a StandardScaler, not a Count, Tfidf or Hashing"):
        text_features(StandardScaler(), [], TEXT)
    with pytest.raises(ValueError, match="has no transformer"):
        text_features(FeatureUnion([("a", "drop")]), [], TEXT)
    with pytest.raises(ValueError, match="part 'raw': it is a str"):
        text_features(FeatureUnion([("raw", "passthrough")]), [], TEXT)
    with pytest.raises(ValueError, match="lime's other text modes are read for a Count or Tfidf vectorizer alone"):
        text_features(HashingVectorizer(), [], TEXT, mode=object())
    with pytest.raises(ValueError, match="not fitted"):
        text_features(HashingVectorizer(), [("idf", TfidfTransformer())], TEXT)
    # a sublinear tf of a hash's negative count is the log of a negative number (the pipeline itself gives NaN)
    unsigned = HashingVectorizer(norm=None, alternate_sign=False)
    sublinear = TfidfTransformer(sublinear_tf=True).fit(unsigned.transform(DOCS))
    with pytest.raises(ValueError, match="negative"):
        text_features(HashingVectorizer(norm=None), [("idf", sublinear)], DISTINCT)
    assert text_features(unsigned, [("idf", sublinear)], DISTINCT).steps == 1
    with pytest.raises(ValueError, match="scaled, normalised or negative"):  # log of normalised counts
        text_features(HashingVectorizer(alternate_sign=False), [("idf", sublinear)], DISTINCT)


# ----------------------------------------------------------------------------- tied to the real model


def test_the_self_check_ties_the_reading_to_the_pipeline(monkeypatch):
    """The reading is checked against the real pipeline's outputs to their rounding: a pipeline off by more is
    refused, and a reading that gets the hash's signs wrong is caught by explain's self-check (enumeration)."""
    model = make_pipeline(HashingVectorizer(n_features=2**10), TfidfTransformer(), LogisticRegression())
    model.fit(DOCS, LABELS)
    reading = LinearReading(model, model[0], TEXT, "decision_function", 1)
    z, _, _ = all_masks(len(lt.local_dictionary(TEXT)))
    truth = model.decision_function(lt.perturbed_documents(TEXT, z))
    reading.check(z, truth)
    tolerance = self_check_tolerance(reading.epsilon, reading.visible, reading(z, magnitude=True))
    assert (np.abs(reading(z) - truth) <= tolerance).all() and tolerance.max() < 1e-12
    with pytest.raises(RouteUnavailable, match="does not reproduce the pipeline's output"):
        reading.check(z, truth + 2 * tolerance)

    def flipped(*args, **kwargs):
        features = text_features(*args, **kwargs)
        part = features.parts[0]
        wrong = type(part)(part.columns, part.values, -part.factors, part.norm)
        return type(features)((wrong,), features.width, features.steps, features.epsilon)

    monkeypatch.setattr(pipeline_reading, "text_features", flipped)
    result = lt.explain(model.decision_function, TEXT)
    assert result.method == "enumeration" and "does not reproduce" in result.notes[0]


@pytest.mark.parametrize("kind", ["hashing", "union"])
def test_the_estimate_links_hashed_and_joined_probabilities(kind):
    """A logistic regression's predict_proba on these features is read as the link of the exact reading
    (pipelines.reading.linked_reading): equal to the pipeline's own probabilities on masks it never checked."""
    first = HashingVectorizer(n_features=2**10) if kind == "hashing" else _union()
    model = make_pipeline(first, LogisticRegression()).fit(DOCS, LABELS)
    d = len(lt.local_dictionary(TEXT))
    check = pipeline_reading.self_check_masks(d, np.random.default_rng(0))
    truth = model.predict_proba(lt.perturbed_documents(TEXT, check))
    score, why = linked_score_masks(model, TEXT, "predict_proba", check, truth)
    assert why is None
    z, _, _ = all_masks(d)
    # σ is 1/4-Lipschitz: the features' rounding (a few hundred ulps of the decision function at most) bounds it
    truth = model.predict_proba(lt.perturbed_documents(TEXT, z))
    np.testing.assert_allclose(score(z), truth, rtol=0, atol=1e3 * np.finfo(float).eps)
    result = lt.explain(model.predict_proba, TEXT, method="estimate", progress=False, max_calls=4000)
    assert any("link" in note for note in result.notes), result.notes


@pytest.mark.parametrize("kind", ["hashing", "union"])
def test_explain_many_reads_hashed_and_joined_features(kind):
    """A corpus of such documents: the linear route for each, the β of explain bit for bit (one call of the pipeline
    for the self-checks); a document refused by the reading goes through explain."""
    first = HashingVectorizer(n_features=2**10) if kind == "hashing" else _union()
    model = make_pipeline(first, LogisticRegression()).fit(DOCS, LABELS)
    texts = [TEXT, DISTINCT, *DOCS[:3]]
    frame = lt.explain_many(model, texts, output="decision_function", progress=False)
    for position, text in enumerate(texts):
        one = lt.explain(model, text, output="decision_function")
        assert one.method == "linear"
        assert frame.method.iloc[position] == "linear"
    many = explain_linear_many(model, texts, output="decision_function")
    for text, explanation in zip(texts, many, strict=True):
        np.testing.assert_array_equal(explanation.beta, lt.explain(model, text, output="decision_function").beta)
    small = make_pipeline(HashingVectorizer(n_features=8), LogisticRegression()).fit(DOCS, LABELS)
    assert explain_linear_many(small, [TEXT], output="decision_function") == [None]  # opposite signs: explain's


def test_column_transformer_of_one_text_column_is_a_union():
    """A ColumnTransformer of word vectorizers on one text column (a frame's or an array's): its output columns are
    a FeatureUnion's, exact and equal to enumeration; a character part is refused with its name; explain_many takes
    such a pipeline through explain (it reads a frame)."""
    frame = pd.DataFrame({"review": DOCS})
    joined = ColumnTransformer(
        [("words", TfidfVectorizer(), "review"), ("hash", HashingVectorizer(n_features=2**10), "review")],
        transformer_weights={"hash": 3.0},
    )
    array = np.array(DOCS, dtype=object).reshape(-1, 1)
    for first, inputs in ((joined, frame), (ColumnTransformer([("words", CountVectorizer(), 0)]), array)):
        model = make_pipeline(first, LogisticRegression()).fit(inputs, LABELS)
        exact = lt.explain(model.decision_function, TEXT)
        assert exact.method == "linear", exact.notes
        _close(exact.beta, lt.explain(model, TEXT, output="decision_function", method="enumeration").beta)
    frame_many = lt.explain_many(model, [TEXT, DISTINCT], output="decision_function", progress=False)
    assert set(frame_many.method) == {"linear"}
    characters = ColumnTransformer(
        [("words", TfidfVectorizer(), "review"), ("chars", CountVectorizer(analyzer="char"), "review")]
    )
    model = make_pipeline(characters, LogisticRegression()).fit(frame, LABELS)
    result = lt.explain(model.decision_function, TEXT)
    assert result.method == "enumeration" and "ColumnTransformer's part 'chars'" in result.notes[0]
