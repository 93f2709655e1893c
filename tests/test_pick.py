"""submodular_pick against lime's own SubmodularPick run on the same explanation matrix, and global_importance
against its definition."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from lime.submodular_pick import SubmodularPick

import limetheory as lt
from limetheory.pipelines.corpora.pick import explanation_matrix, global_importance, refit_limit


class Listed:
    """What lime's SubmodularPick reads from an explanation: its mode, its labels and as_list(label)."""

    mode = "classification"

    def __init__(self, pairs):
        self.pairs = pairs

    def available_labels(self):
        return [1]

    def as_list(self, label):
        return self.pairs


class Explainer:
    """An explainer whose explanations of document i are the given (word, coefficient) lists, cut as lime cuts them:
    sorted by |coefficient| (Python's stable sort, reverse=True keeps ties in order), the first num_features."""

    def __init__(self, per_document):
        self.per_document = per_document

    def explain_instance(self, i, predict_fn, num_features=10, top_labels=1):
        ranked = sorted(self.per_document[int(i)], key=lambda pair: abs(pair[1]), reverse=True)
        return Listed(ranked[:num_features])


def pairs_of(frame):
    rows = frame[frame["word"] != "(intercept)"]
    return [list(zip(group["word"], group["coefficient"], strict=True)) for _, group in rows.groupby("document")]


def lime_pick(frame, budget, num_features):
    per_document = pairs_of(frame)
    lime = SubmodularPick(
        Explainer(per_document),
        np.arange(len(per_document)),
        None,
        method="full",
        num_exps_desired=budget,
        num_features=num_features,
    )
    return lime.V


@pytest.fixture(scope="module")
def reviews_frame(yelp_logistic):
    texts = lt.load_yelp_reviews()["text"].tolist()
    model = yelp_logistic  # TF-IDF + logistic regression fitted on every review (conftest, once per worker)
    short = [text for text in texts if 2 <= len(lt.local_dictionary(text)) <= 30][:40]
    return lt.explain_many(model, short, output="decision_function", progress=False)


@pytest.mark.parametrize("num_features", [10, 3, None])
def test_picks_equal_lime_on_exact_explanations(reviews_frame, num_features):
    budget = 6
    ours = lt.submodular_pick(reviews_frame, budget, num_features=num_features, refit=False)
    assert ours["document"].tolist() == lime_pick(reviews_frame, budget, num_features or 10**6)
    assert np.all(np.diff(ours["coverage"]) >= 0) and ours["coverage"].iloc[-1] <= 1


def test_picks_equal_lime_with_ties():
    """Coefficients from a few values, so that coverages tie: lime's rule (the last of equal coverages) decides."""
    rng = np.random.default_rng(5)
    vocabulary = [f"w{k}" for k in range(12)]
    rows = []
    for document in range(25):
        words = rng.choice(vocabulary, size=rng.integers(2, 6), replace=False)
        values = rng.choice([-1.0, 0.5, 1.0], size=words.size)
        rows += [(document, "(intercept)", 0.0)] + [(document, w, v) for w, v in zip(words, values, strict=True)]
    frame = pd.DataFrame(rows, columns=["document", "word", "coefficient"])
    frame["position"] = frame.groupby("document").cumcount()
    for budget, num_features in [(8, 3), (25, 10), (5, 1)]:
        ours = lt.submodular_pick(frame, budget, num_features=num_features, refit=False)
        assert ours["document"].tolist() == lime_pick(frame, budget, num_features)


def test_global_importance_by_its_definition(reviews_frame):
    table = global_importance(reviews_frame, num_features=None, refit=False)
    rows = reviews_frame[reviews_frame["word"] != "(intercept)"]
    summed = rows.assign(a=rows["coefficient"].abs()).groupby("word")["a"].sum()
    n = reviews_frame["document"].nunique()
    np.testing.assert_allclose(table["sp_lime"], np.sqrt(summed[table.index]), rtol=1e-15)
    np.testing.assert_allclose(table["mean_abs"], summed[table.index] / n, rtol=1e-15)
    assert (table["documents"] == rows.groupby("word")["document"].nunique()[table.index]).all()
    assert table["sp_lime"].is_monotonic_decreasing


def test_explanations_are_accepted_as_well(reviews_frame):
    W, words, documents = explanation_matrix(reviews_frame, 10, refit=False)
    assert W.shape == (40, len(words)) and (np.count_nonzero(W, axis=1) <= 10).all()
    e = lt.Explanation(
        ["good", "food"], np.array([0.0, 1.0, -2.0]), True, "linear", None, 25.0, "predict_proba", 1, None
    )
    assert lt.submodular_pick([e, e], 1)["document"].tolist() == [1]
    assert lt.submodular_pick([e, e], 1, refit=False)["document"].tolist() == [1]


def test_refit_limit_is_the_weighted_least_squares_over_every_mask():
    """lime's refit in the limit: the weighted least squares of f on the intercept and the selected words, over the
    2^d - 1 masks with LIME's probabilities and kernel weights, solved directly (no Σ, no β)."""
    d, kernel_width = 9, 35.0
    z, s, prob = lt.all_masks(d)
    weight = prob * lt.psi(s / d, nu=kernel_width / 100)
    rng = np.random.default_rng(2)
    values = rng.normal(size=2**d)  # any model: an arbitrary value per mask

    def f(masks):
        return values[masks.astype(np.int64) @ (1 << np.arange(d))]

    beta = lt.beta_enumerate(f, d, nu=kernel_width / 100)
    for selected in ([4, 0, 7], [2], list(range(d))):
        X = np.column_stack([np.ones(len(z)), z[:, selected]])
        root = np.sqrt(weight)
        direct = np.linalg.lstsq(X * root[:, None], f(z) * root, rcond=None)[0]
        # both sides solve well-conditioned systems of size <= d + 1 = 10 from sums of 2^9 terms
        np.testing.assert_allclose(
            refit_limit(beta, selected, kernel_width=kernel_width), direct, rtol=1e-9, atol=1e-12
        )


def test_refitted_matrix_and_lime_on_it(reviews_frame):
    """With refit=True, W holds refit_limit of each document's top words, and the pick is lime's loop on that W."""
    W, words, documents = explanation_matrix(reviews_frame, 5)
    rows = []
    for document, group in reviews_frame.groupby("document"):
        beta = group["coefficient"].to_numpy()
        top = np.argsort(-np.abs(beta[1:]), kind="stable")[:5]
        values = refit_limit(beta, top, kernel_width=25)[1:]
        names = group["word"].to_numpy()[1 + top]
        np.testing.assert_array_equal(W[document, [words.index(w) for w in names]], values)
        rows += [(document, "(intercept)", 0.0)] + list(zip([document] * len(top), names, values, strict=True))
    refitted = pd.DataFrame(rows, columns=["document", "word", "coefficient"])
    ours = lt.submodular_pick(reviews_frame, 4, num_features=5)
    assert ours["document"].tolist() == lime_pick(refitted, 4, 5)


def test_explanation_matrix_reads_each_document_and_label_in_position_order(reviews_frame):
    """Rows shuffled and a second label: W sums, over the labels in order, each (document, label)'s refitted top
    words, read here group by group with pandas; the columns come in lime's order (first appearance, each group's
    words by decreasing |value|)."""
    two = pd.concat([reviews_frame, reviews_frame.assign(label=0, coefficient=-0.5 * reviews_frame["coefficient"])])
    W, words, documents = explanation_matrix(two.sample(frac=1, random_state=0), 4)
    expected, column = {}, {}
    for (document, _), group in two.groupby(["document", "label"]):
        group = group.sort_values("position")
        beta, names = group["coefficient"].to_numpy(), group["word"].to_numpy()[1:]
        top = np.argsort(-np.abs(beta[1:]), kind="stable")[:4]
        values = refit_limit(beta, top, kernel_width=25)[1:]
        for k in np.argsort(-np.abs(values), kind="stable"):
            column.setdefault(names[top[k]], len(column))
            key = (document, names[top[k]])
            expected[key] = expected.get(key, 0.0) + values[k]
    assert words == list(column) and documents.tolist() == sorted(reviews_frame["document"].unique())
    rebuilt = np.zeros_like(W)
    for (document, word), value in expected.items():
        rebuilt[documents.tolist().index(document), column[word]] = value
    np.testing.assert_array_equal(W, rebuilt)
