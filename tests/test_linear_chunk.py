"""beta_linear_exact_chunk against beta_linear_exact, document by document and bit for bit, and its refusals."""

from __future__ import annotations

import numpy as np
import pytest

from limetheory.theory.linear.linear_chunk import beta_linear_exact_chunk
from limetheory.theory.linear.linear_exact import beta_linear_exact
from limetheory.theory.linear.linear_mixture import MIXTURE_MIN_WORDS


def _document(rng, d, columns, invisible):
    """A document of d words over ``columns`` columns (words share them), ``invisible`` of them unseen."""
    groups = rng.integers(0, columns, size=d)
    coef = rng.normal(size=columns)
    lam = coef[groups]
    tfidf = rng.uniform(0.1, 3.0, size=d) * rng.integers(1, 4, size=d)
    hidden = rng.choice(d, size=invisible, replace=False)
    tfidf[hidden] = 0.0
    groups[hidden] = -1 - hidden  # a label of its own, as the pipelines' readings give an unseen word
    return lam, tfidf, groups


def _chunk(documents):
    starts = np.cumsum([0] + [lam.size for lam, _, _ in documents])
    lam, tfidf, groups = (np.concatenate([document[k] for document in documents]) for k in range(3))
    return lam, tfidf, groups, starts


def _bits(array):
    return np.asarray(array, dtype=float).view(np.int64)


@pytest.mark.parametrize("norm", ["l2", "l1"])
@pytest.mark.parametrize("nu", [0.25, 0.05, np.inf])
def test_every_document_is_beta_linear_exact_to_the_bit(norm, nu):
    """Documents of 2 to 150 words, with shared columns (up to 12 words), unseen words and equal weights."""
    rng = np.random.default_rng(37)
    documents = [_document(rng, d, max(1, d // k), d // 5) for d in (2, 3, 7, 30, 80, 150) for k in (1, 2, 6)]
    lam, tfidf, groups = _document(rng, 40, 40, 0)
    documents.append((lam, np.ones(40), np.arange(40)))  # equal weights: one distinct omega
    documents = [document for document in documents if (document[1] > 0).any()]
    betas = beta_linear_exact_chunk(*_chunk(documents), nu=nu, norm=norm)
    served = 0
    for (lam, tfidf, groups), beta in zip(documents, betas, strict=True):
        try:
            expected = beta_linear_exact(lam, tfidf, nu=nu, groups=groups, norm=norm)
        except ValueError:  # more than 12 words in a column: the chunk leaves it too
            assert beta is None
            continue
        assert beta is not None
        np.testing.assert_array_equal(_bits(beta), _bits(expected))
        served += 1
    assert served >= len(documents) - 3


def test_yelp_reviews_through_the_pipelines_reading_are_beta_linear_exact(yelp, yelp_logistic, monkeypatch):
    """The arrays the linear route reads on 60 Yelp reviews (explain_linear_many's), at lime's default width."""
    from limetheory.pipelines.corpora import linear_many

    texts, _ = yelp
    kept = []
    original = linear_many.beta_linear_exact_chunk

    def recording(lam, tfidf, groups, starts, *, nu, norm):
        kept.append((lam, tfidf, groups, starts, nu, norm))
        return original(lam, tfidf, groups, starts, nu=nu, norm=norm)

    monkeypatch.setattr(linear_many, "beta_linear_exact_chunk", recording)
    linear_many.explain_linear_many(yelp_logistic, texts[:60], output="decision_function")
    ((lam, tfidf, groups, starts, nu, norm),) = kept
    betas = beta_linear_exact_chunk(lam, tfidf, groups, starts, nu=nu, norm=norm)
    shared = 0
    for i, beta in enumerate(betas):
        a, b = starts[i], starts[i + 1]
        expected = beta_linear_exact(lam[a:b], tfidf[a:b], nu=nu, groups=groups[a:b], norm=norm)
        np.testing.assert_array_equal(_bits(beta), _bits(expected))
        labels = groups[a:b][tfidf[a:b] > 0]
        shared += np.unique(labels).size < labels.size
    assert len(betas) >= 55 and shared >= 20  # most reviews, many with words sharing a column ("The", "the")


def test_documents_left_to_beta_linear_exact():
    """None wherever beta_linear_exact raises, has no norm, or takes the size mixture; the others still served."""
    rng = np.random.default_rng(3)
    good = _document(rng, 20, 10, 2)
    lam, tfidf, groups = good
    unequal = (np.where(np.arange(20) == np.flatnonzero(groups == groups[0])[-1], lam + 1, lam), tfidf, groups)
    crowded = (np.ones(14), np.ones(14), np.zeros(14, dtype=np.int64))  # 14 visible words in one column
    orphan = (lam, tfidf, np.where(np.arange(20) == int(np.argmax(tfidf)), -5, groups))
    unseen = (lam, np.zeros(20), -1 - np.arange(20))
    nan = (np.where(np.arange(20) == 3, np.nan, lam), tfidf, groups)
    tiny = (lam, np.where(np.arange(20) == int(np.argmin(np.where(tfidf > 0, tfidf, 9))), 1e-120, tfidf), groups)
    one_word = (lam[:1], tfidf[:1] + 1.0, np.zeros(1, dtype=np.int64))
    documents = [good, unequal, crowded, orphan, unseen, nan, tiny, one_word, good]
    betas = beta_linear_exact_chunk(*_chunk(documents), nu=0.25)
    assert [beta is None for beta in betas] == [False] + [True] * 7 + [False]
    for lam, tfidf, groups in documents[1:-1]:
        with pytest.raises(ValueError):
            beta_linear_exact(lam, tfidf, nu=0.25, groups=groups)
    assert beta_linear_exact_chunk(*_chunk([good]), nu=0.25, norm=None) == [None]
    d = MIXTURE_MIN_WORDS
    long = (rng.normal(size=d), rng.uniform(0.5, 1.0, size=d), np.arange(d))
    assert beta_linear_exact_chunk(*_chunk([long, good]), nu=0.25)[0] is None


def test_arguments_are_checked():
    lam, tfidf, groups, starts = _chunk([_document(np.random.default_rng(0), 5, 5, 0)])
    with pytest.raises(ValueError, match="starts"):
        beta_linear_exact_chunk(lam, tfidf, groups, [0, 3], nu=0.25)
    with pytest.raises(ValueError, match="one length"):
        beta_linear_exact_chunk(lam, tfidf[:4], groups, starts, nu=0.25)
    with pytest.raises(TypeError, match="integer"):
        beta_linear_exact_chunk(lam, tfidf, groups.astype(float), starts, nu=0.25)
    with pytest.raises(ValueError, match="nu"):
        beta_linear_exact_chunk(lam, tfidf, groups, starts, nu=-1.0)
    with pytest.raises(ValueError, match="norm"):
        beta_linear_exact_chunk(lam, tfidf, groups, starts, nu=0.25, norm="max")
    assert beta_linear_exact_chunk(np.zeros(0), np.zeros(0), np.zeros(0, dtype=int), [0], nu=0.25) == []
