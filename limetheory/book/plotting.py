"""Figures in the paper's style."""

from __future__ import annotations

import numpy as np

from .._validation import as_float_array

#: most boxes in one figure (matplotlib takes about 5 ms per box, and more boxes are not readable anyway)
MAX_PLOTTED_WORDS = 500


def theory_vs_practice(ax, empirical, theory, words, *, title=None, ylabel="interpretable coefficient"):
    """Whisker boxes of lime's coefficients over repeated runs, with the theory as red crosses.

    Parameters
    ----------
    ax : matplotlib Axes
    empirical : array_like, shape (n_exp, k)
        One row per lime run, one column per word shown.
    theory : array_like, shape (k,)
        The predicted coefficient of each word shown.
    words : sequence of str, length k
        Tick labels.
    title : str or None
        Axes title.
    ylabel : str or None
        Label of the vertical axis.

    Returns
    -------
    matplotlib Axes
        ``ax``, drawn on.

    Notes
    -----
    Limits: k <= 500 words (``MAX_PLOTTED_WORDS``; about 5 ms per box); more are refused with a ValueError.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots()
    >>> runs = np.array([[0.1, -0.2], [0.12, -0.18], [0.09, -0.21]])
    >>> theory_vs_practice(ax, runs, [0.1, -0.2], ["good", "bad"]) is ax
    True
    >>> plt.close(fig)
    """
    from matplotlib.axes import Axes

    if not isinstance(ax, Axes):
        raise TypeError(f"ax must be a matplotlib Axes (e.g. from plt.subplots()), got {type(ax).__name__}")
    empirical = np.asarray(as_float_array(empirical, "empirical", allow_nonfinite=True))
    theory = np.asarray(as_float_array(theory, "theory", allow_nonfinite=True))
    if empirical.ndim != 2 or empirical.shape[0] < 1 or empirical.shape[1] < 1:
        raise ValueError(
            f"empirical must be a 2-D array (n_exp, k) with n_exp >= 1 and k >= 1, got shape {empirical.shape}"
        )
    k = empirical.shape[1]
    if k > MAX_PLOTTED_WORDS:
        raise ValueError(
            f"empirical must have at most {MAX_PLOTTED_WORDS} columns (one box per word: about 5 ms each, and "
            f"unreadable beyond), got {k}; plot a selection of words"
        )
    if theory.shape != (k,):
        raise ValueError(f"theory must have shape ({k},) to match empirical, got {theory.shape}")
    if isinstance(words, (str, bytes)) or not np.iterable(words):
        raise TypeError(f"words must be a sequence of str (one per column), got {type(words).__name__}")
    words = list(words)
    if len(words) != k:
        raise ValueError(f"words must have {k} entries to match empirical, got {len(words)}")
    if not (np.isfinite(empirical).all() and np.isfinite(theory).all()):
        raise ValueError("empirical and theory must be finite")
    for name, value in (("title", title), ("ylabel", ylabel)):
        if value is not None and not isinstance(value, str):
            raise TypeError(f"{name} must be a str or None, got {type(value).__name__}")
    positions = np.arange(1, k + 1)
    ax.boxplot(
        empirical,
        positions=positions,
        widths=0.6,
        medianprops={"color": "tab:blue"},
        boxprops={"color": "black"},
        whiskerprops={"color": "black"},
        capprops={"color": "black"},
        flierprops={"marker": ".", "markersize": 3, "markeredgecolor": "gray"},
    )
    ax.scatter(positions, theory, marker="x", color="red", s=60, zorder=3, label="theory")
    ax.axhline(0.0, color="gray", linewidth=0.6, zorder=0)
    ax.set_xticks(positions)
    ax.set_xticklabels([str(w) for w in words], rotation=45, ha="right")
    ax.set_ylabel(ylabel)
    if title is not None:
        ax.set_title(title)
    ax.legend(loc="best", frameon=False)
    return ax
