r"""lime's whole answer in the limit: the words it selects, its refit on them, its intercept, score and local_pred.

lime reports the ridge it refits on the ``num_features`` words its ``feature_selection`` keeps, not the surrogate
with every word (the paper's β).  :func:`lime_answer` gives the limit of that answer for an
:class:`~limetheory.pipelines.results.result.Explanation` (:func:`limetheory.lime_selection_limit` on its β).

lime's ``score`` (the weighted R² of the refit) also needs the model beyond β (:func:`refit_score`): exact from the
masks when all 2ᵈ - 1 of them were scored (enumeration, or the masks of lime's spread for small d), otherwise
estimated from a stratified sample of masks with its standard error.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...theory.selection_limits import lime_selection_limit


@dataclass(frozen=True, eq=False)
class LimeAnswer:
    """The limit of lime's answer for one label (:func:`lime_answer`).

    Attributes
    ----------
    selection : limetheory.SelectionLimit
        The selected words (lime's ``as_list`` order), their refitted coefficients, the intercept, ``local_pred``
        and the selection's ``margin`` (its ``score`` is None: see ``score``).
    score : float or None
        The limit of lime's ``score``, the weighted R² of its refit (None when not asked).
    score_stderr : float or None
        Its standard error (0.0 when every mask was scored).
    score_exact : bool or None
        Whether the score is exact (every mask scored) or estimated.
    num_features : int
        lime's ``num_features``.
    feature_selection : str
        lime's ``feature_selection``, as asked.
    """

    selection: object
    score: float | None
    score_stderr: float | None
    score_exact: bool | None
    num_features: int
    feature_selection: str


def refit_score(sample, selection):
    r"""lime's ``score`` of the refit, the weighted R² over lime's law of the masks, with its standard error.

    :math:`1 - \mathbb{E}[\pi (f - g)^2] / \mathbb{E}[\pi (f - \bar f_\pi)^2]` with g the refitted surrogate
    (``selection``: intercept and the selected words' coefficients) and :math:`\bar f_\pi` the π-weighted mean of
    f: what lime's ``Ridge.score(..., sample_weight=weights)`` computes on its n rows, at n = ∞.  Over all 2ᵈ - 1
    masks (an enumerated ``sample``) it is exact; over a stratified sample, the ratio of two stratified means, with
    the delta method's standard error :math:`\sqrt{\sum_s (\psi_s / d)^2 \widehat{\operatorname{Var}}_s(e) / n_s}
    / \widehat D` for :math:`e = \pi (f - g)^2 - (1 - \text{score}) \pi (f - \bar f_\pi)^2`.

    Returns
    -------
    (float, float)
        The score and its standard error (0.0 when the sample holds every mask).

    Examples
    --------
    >>> from limetheory.pipelines.reading.mask_samples import enumerated_sample
    >>> from limetheory import lime_selection_limit
    >>> sample = enumerated_sample(lambda z: z @ np.array([1.0, -2.0, 0.5]), 3, 0.25)
    >>> full = lime_selection_limit([0.0, 1.0, -2.0, 0.5], kernel_width=25, feature_selection="none")
    >>> score, error = refit_score(sample, full)  # a linear model: the full surrogate explains it all
    >>> round(score, 12), error
    (1.0, 0.0)
    """
    z = np.asarray(sample.z, dtype=float)
    f = np.asarray(sample.f, dtype=float)
    weight = sample.prob * sample.psi
    fitted = selection.intercept + z[:, selection.selected] @ selection.coefficients
    mean = float(weight @ f / weight.sum())
    residual = weight * (f - fitted) ** 2
    spread = weight * (f - mean) ** 2
    total = float(spread.sum())
    if total <= 0:  # a constant model: scikit-learn's R² of a perfect fit of a constant is 1.0
        return 1.0, 0.0
    score = 1.0 - float(residual.sum()) / total
    if sample.exact:
        return score, 0.0
    d = z.shape[1]
    sizes = d - sample.z.sum(axis=1, dtype=np.int64)
    counts = np.bincount(sizes, minlength=d + 1)
    # e per mask, without the prob factor (prob = (1/d) / n_s within a stratum): the stratified variance below
    terms = sample.psi * ((f - fitted) ** 2 - (1.0 - score) * (f - mean) ** 2)
    sums = np.bincount(sizes, weights=terms, minlength=d + 1)
    squares = np.bincount(sizes, weights=terms**2, minlength=d + 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        variances = np.where(counts > 1, (squares - sums**2 / np.maximum(counts, 1)) / (counts - 1), 0.0)
        per_stratum = np.where(counts > 0, np.maximum(variances, 0.0) / (d**2 * np.maximum(counts, 1)), 0.0)
    return score, float(np.sqrt(per_stratum.sum()) / total)


def lime_answer(beta, kernel_width, num_features, feature_selection, sample=None):
    """The limit of lime's answer from the full surrogate ``beta`` (intercept first) and lime's arguments.

    ``sample`` (a :class:`~limetheory.pipelines.reading.mask_samples.MaskSample` of the model) gives the score and
    its standard error (:func:`refit_score`); without it the score is None.

    Examples
    --------
    >>> answer = lime_answer(np.array([0.2, 1.0, -0.5, 0.1]), 25, 1, "highest_weights")
    >>> answer.selection.selected.tolist(), answer.selection.coefficients.round(3).tolist(), answer.score
    ([0], [1.15], None)
    """
    selection = lime_selection_limit(
        beta, kernel_width=kernel_width, num_features=num_features, feature_selection=feature_selection
    )
    score = score_stderr = None
    if sample is not None:
        score, score_stderr = refit_score(sample, selection)
    return LimeAnswer(selection, score, score_stderr, None if sample is None else bool(sample.exact),
                      int(num_features), feature_selection)  # fmt: skip
