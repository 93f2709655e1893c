r"""lime's whole answer in the limit: the words it selects, its refit on them, its intercept, score and local_pred.

lime reports the ridge it refits on the ``num_features`` words its ``feature_selection`` keeps, not the surrogate
with every word (the paper's β).  :func:`lime_answer` gives the limit of that answer for an
:class:`~limetheory.pipelines.results.result.Explanation` (:func:`limetheory.lime_selection_limit` on its β).

lime's ``score`` (the weighted R² of the refit) also needs :math:`\mathbb{E}[\pi f^2]`
(:func:`second_moment`): exact from the masks when all 2ᵈ - 1 of them were scored (enumeration, or the masks of
lime's spread for d <= 14), otherwise estimated from a stratified sample of masks with its standard error.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...theory.selection_limits import lime_selection_limit


@dataclass(frozen=True)
class SecondMoment:
    r""":math:`\mathbb{E}[\pi f^2]` under lime's law of the masks, in the normalisation of Σ (Σ₀₀ = E[π]).

    Attributes
    ----------
    value : float
        The moment.
    stderr : float
        Its standard error (0.0 when ``exact``).
    exact : bool
        Whether every mask was scored.
    masks : int
        The masks behind it.
    """

    value: float
    stderr: float
    exact: bool
    masks: int


def second_moment(sample):
    r""":math:`\mathbb{E}[\pi f^2]` from a :class:`~limetheory.pipelines.reading.mask_samples.MaskSample`.

    Exact for an enumerated sample; for a sample stratified on the number s of removed words (each mask's ``prob``
    is (1/d) / n_s), the stratified estimate with its standard error
    :math:`\sqrt{\sum_s (\psi_s / d)^2\, \widehat{\operatorname{Var}}_s(f^2) / n_s}`.

    Examples
    --------
    >>> from limetheory.pipelines.reading.mask_samples import enumerated_sample
    >>> from limetheory import sigma_matrix
    >>> sample = enumerated_sample(lambda z: np.ones(len(z)), 4, 0.25)  # f = 1: E[π f²] = E[π] = Σ₀₀
    >>> moment = second_moment(sample)
    >>> bool(np.isclose(moment.value, sigma_matrix(4, nu=0.25)[0, 0])), moment.stderr, moment.exact
    (True, 0.0, True)
    """
    f2 = np.asarray(sample.f, dtype=float) ** 2
    value = float(np.sum(sample.prob * sample.psi * f2))
    if sample.exact:
        return SecondMoment(value, 0.0, True, len(f2))
    d = sample.z.shape[1]
    sizes = d - sample.z.sum(axis=1, dtype=np.int64)
    counts = np.bincount(sizes, minlength=d + 1)
    terms = sample.psi * f2
    sums = np.bincount(sizes, weights=terms, minlength=d + 1)
    squares = np.bincount(sizes, weights=terms**2, minlength=d + 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        means = sums / counts
        variances = np.where(counts > 1, (squares - counts * means**2) / (counts - 1), 0.0)
        per_stratum = np.where(counts > 0, np.maximum(variances, 0.0) / (d**2 * np.maximum(counts, 1)), 0.0)
    if np.any((counts == 1)[1:]):  # a stratum with one mask has no variance estimate: the i.i.d. formula instead
        weighted = sample.prob * terms * len(terms)
        return SecondMoment(value, float(np.std(weighted, ddof=1) / np.sqrt(len(terms))), False, len(terms))
    return SecondMoment(value, float(np.sqrt(per_stratum.sum())), False, len(terms))


@dataclass(frozen=True, eq=False)
class LimeAnswer:
    """The limit of lime's answer for one label (:func:`lime_answer`).

    Attributes
    ----------
    selection : limetheory.SelectionLimit
        The selected words (lime's ``as_list`` order), their refitted coefficients, the intercept, ``local_pred``,
        ``score`` and the selection's ``margin``.
    score_stderr : float or None
        The standard error of ``selection.score`` (0.0 when exact, None when there is no score).
    second_moment : SecondMoment or None
        E[π f²] behind the score.
    num_features : int
        lime's ``num_features`` (every word: the document's d).
    feature_selection : str
        lime's ``feature_selection``, as asked.
    """

    selection: object
    score_stderr: float | None
    second_moment: SecondMoment | None
    num_features: int
    feature_selection: str


def lime_answer(beta, kernel_width, num_features, feature_selection, moment=None):
    """The limit of lime's answer from the full surrogate ``beta`` (intercept first) and lime's arguments.

    ``moment`` (a :class:`SecondMoment`) gives the score and its standard error; the error of an estimated moment is
    carried to the score to first order (the score is an affine function of 1 / E[π f²] once β is fixed).

    Examples
    --------
    >>> answer = lime_answer(np.array([0.2, 1.0, -0.5, 0.1]), 25, 1, "highest_weights")
    >>> answer.selection.selected.tolist(), answer.selection.coefficients.round(3).tolist(), answer.score_stderr
    ([0], [1.15], None)
    """
    value = None if moment is None else moment.value
    selection = lime_selection_limit(
        beta, kernel_width=kernel_width, num_features=num_features, feature_selection=feature_selection,
        second_moment=value,
    )  # fmt: skip
    score_stderr = None
    if selection.score is not None:
        if moment.stderr == 0.0:
            score_stderr = 0.0
        else:
            # score = 1 - R / V with V = (m2 / E[π]) - mean²: dV/dm2 = 1 / E[π], so d score / d m2 = R / V² / E[π];
            # by a finite difference on lime_selection_limit itself, which knows E[π] and the mean
            step = max(moment.stderr, 1e-12 * abs(moment.value))
            shifted = lime_selection_limit(
                beta, kernel_width=kernel_width, num_features=num_features, feature_selection=feature_selection,
                second_moment=moment.value + step,
            ).score  # fmt: skip
            score_stderr = abs(shifted - selection.score) / step * moment.stderr
    return LimeAnswer(selection, score_stderr, moment, int(num_features), feature_selection)
