"""limetheory.book.plotting.theory_vs_practice on an Agg figure (conftest.py selects the Agg backend)."""

from __future__ import annotations

import matplotlib.colors as mcolors
import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.markers import MarkerStyle

import limetheory as lt
import limetheory.book as book
from limetheory.book.plotting import theory_vs_practice


@pytest.fixture
def ax():
    figure, axes = plt.subplots()
    yield axes
    plt.close(figure)


def _is_red(color):
    return np.allclose(mcolors.to_rgba(color)[:3], mcolors.to_rgb("red"))


def _boxes(ax):
    """The box outlines drawn by boxplot (closed rectangles of 5 points), left to right."""
    boxes = [line for line in ax.lines if len(line.get_xdata()) == 5 and np.ptp(line.get_xdata()) > 0]
    return sorted(boxes, key=lambda line: np.mean(line.get_xdata()))


@pytest.mark.parametrize("k", [1, 3, 6])
def test_draws_k_boxes_and_k_red_crosses(ax, k):
    rng = np.random.default_rng(k)
    empirical = rng.normal(size=(40, k)) + np.arange(k)
    theory = np.arange(k) + 0.5
    words = [f"w{j}" for j in range(k)]
    assert theory_vs_practice(ax, empirical, theory, words, title="t") is ax

    boxes = _boxes(ax)
    assert len(boxes) == k
    for j, box in enumerate(boxes):
        q1, q3 = np.percentile(empirical[:, j], [25, 75])
        assert np.min(box.get_ydata()) == pytest.approx(q1)
        assert np.max(box.get_ydata()) == pytest.approx(q3)
        assert (np.min(box.get_xdata()) + np.max(box.get_xdata())) / 2 == pytest.approx(j + 1)

    crosses = [c for c in ax.collections if len(c.get_offsets())]
    assert len(crosses) == 1
    (collection,) = crosses
    offsets = np.asarray(collection.get_offsets())
    assert offsets.shape == (k, 2)
    np.testing.assert_allclose(offsets[:, 0], np.arange(1, k + 1))
    np.testing.assert_allclose(offsets[:, 1], theory)
    colors = list(collection.get_facecolors()) + list(collection.get_edgecolors())
    assert colors and all(_is_red(color) for color in colors)
    marker = MarkerStyle("x")
    np.testing.assert_allclose(
        collection.get_paths()[0].vertices, marker.get_path().transformed(marker.get_transform()).vertices
    )
    assert [label.get_text() for label in ax.get_xticklabels()] == words
    assert ax.get_title() == "t"
    assert ax.get_ylabel() == "interpretable coefficient"


def test_medians_are_drawn(ax):
    empirical = np.array([[0.0, 10.0], [1.0, 20.0], [2.0, 30.0], [7.0, 31.0]])
    theory_vs_practice(ax, empirical, [1.0, 2.0], ["a", "b"], ylabel="beta")
    medians = sorted(
        (
            line
            for line in ax.lines
            if len(line.get_ydata()) == 2 and np.ptp(line.get_ydata()) == 0 and np.ptp(line.get_xdata()) > 0
        ),
        key=lambda line: np.mean(line.get_xdata()),
    )
    heights = {round(float(line.get_ydata()[0]), 12) for line in medians}
    assert {1.5, 25.0} <= heights
    assert ax.get_ylabel() == "beta"
    assert ax.get_title() == ""


def test_a_single_run_and_a_tuple_of_words(ax):
    theory_vs_practice(ax, [[0.1, -0.2]], (0.0, 0.0), ("x", "y"))
    assert len(_boxes(ax)) <= 2  # a degenerate box is a flat line; no error is the point
    assert len(ax.collections[0].get_offsets()) == 2


@pytest.mark.parametrize(
    ("empirical", "theory", "words", "pattern"),
    [
        (np.zeros(3), np.zeros(3), ["a", "b", "c"], r"^empirical must be a 2-D array"),
        (np.zeros((2, 3, 1)), np.zeros(3), ["a", "b", "c"], r"^empirical must be a 2-D array"),
        (np.zeros((0, 3)), np.zeros(3), ["a", "b", "c"], r"^empirical must be a 2-D array .* n_exp >= 1"),
        (np.zeros((4, 3)), np.zeros(2), ["a", "b", "c"], r"^theory must have shape \(3,\)"),
        (np.zeros((4, 3)), np.zeros((3, 1)), ["a", "b", "c"], r"^theory must have shape \(3,\)"),
        (np.zeros((4, 3)), np.zeros(3), ["a", "b"], r"^words must have 3 entries"),
        (np.zeros((4, 3)), np.zeros(3), ["a", "b", "c", "d"], r"^words must have 3 entries"),
        (np.full((4, 3), np.nan), np.zeros(3), ["a", "b", "c"], r"^empirical and theory must be finite"),
        (np.zeros((4, 3)), [0.0, np.inf, 0.0], ["a", "b", "c"], r"^empirical and theory must be finite"),
    ],
)
def test_shape_errors(ax, empirical, theory, words, pattern):
    with pytest.raises(ValueError, match=pattern):
        theory_vs_practice(ax, empirical, theory, words)
    assert not ax.lines and not ax.collections  # nothing drawn before the checks


def test_public_name_is_reexported_by_the_book_not_the_package():
    assert book.theory_vs_practice is theory_vs_practice
    assert "theory_vs_practice" not in lt.__all__
