"""lime's ``LimeBase.explain_instance_with_data`` on a replayed neighbourhood: selection, the refit, score, local_pred.

lime 0.2.0.1 selects at most ``num_features`` words (``feature_selection``), fits ``Ridge(alpha=1)`` with the kernel
weights on those columns, and returns the intercept, the (word, coefficient) pairs by decreasing absolute
coefficient, the fit's weighted R² on its own sample (``score``) and its prediction at the unperturbed document
(``local_pred``).  The selection here is :func:`limetheory.engine.selection.lime_feature_selection` (one ridge solve
for ``'highest_weights'``, Cholesky updates for ``'forward_selection'``, lime's own code where a choice is not
certified) and the ridge :func:`limetheory.engine.ridge.ridge_coefficients`; a ``model_regressor`` is fitted,
scored and evaluated as lime does it.
"""

from __future__ import annotations

import numpy as np

from ...engine.ridge import ridge_coefficients
from ...engine.selection import lime_feature_selection


def weighted_r2(y, prediction, weights):
    """scikit-learn's ``r2_score(y, prediction, sample_weight=weights)`` (a regressor's ``score``), one output.

    A constant ``y`` scores 1 when fitted exactly and 0 otherwise, as scikit-learn's ``force_finite`` does.

    Examples
    --------
    >>> from sklearn.metrics import r2_score
    >>> y, p, w = np.array([1.0, 2.0, 4.0]), np.array([1.5, 2.0, 3.5]), np.array([1.0, 0.5, 2.0])
    >>> bool(np.isclose(weighted_r2(y, p, w), r2_score(y, p, sample_weight=w), rtol=1e-14))
    True
    """
    numerator = float(weights @ (y - prediction) ** 2)
    denominator = float(weights @ (y - np.average(y, weights=weights)) ** 2)
    if denominator == 0.0:
        return 1.0 if numerator == 0.0 else 0.0
    return 1.0 - numerator / denominator


def explain_label(masks, y, weights, *, num_features, feature_selection, model_regressor, verbose, right):
    """(intercept, local_exp, score, local_pred) as ``LimeBase.explain_instance_with_data`` returns them.

    Parameters
    ----------
    masks : ndarray, shape (n, d)
        lime's 0/1 rows (row 0 the document).
    y : ndarray, shape (n,)
        The explained column of the model's outputs.
    weights : ndarray, shape (n,)
        lime's kernel weights.
    num_features, feature_selection, model_regressor
        lime's arguments.
    verbose : bool
        Print what lime prints.
    right : float
        The model's output on the document (lime prints it as 'Right:').

    Examples
    --------
    >>> rng = np.random.RandomState(0)
    >>> masks = (rng.random_sample((200, 5)) < 0.6).astype(np.int8)
    >>> masks[0] = 1
    >>> y = 0.5 * masks[:, 1] - 0.2 * masks[:, 3] + 0.01 * rng.random_sample(200)
    >>> intercept, local_exp, score, local_pred = explain_label(
    ...     masks, y, np.ones(200), num_features=2, feature_selection="auto", model_regressor=None, verbose=False,
    ...     right=y[0])
    >>> [int(j) for j, _ in local_exp], round(score, 3), local_pred.shape
    ([1, 3], 0.999, (1,))
    """
    used = lime_feature_selection(masks, y, weights, num_features=num_features, method=feature_selection)
    if model_regressor is None:
        beta = ridge_coefficients(masks[:, used], y, weights)  # lime's Ridge(alpha=1, fit_intercept=True)
        intercept, coef = np.float64(beta[0]), beta[1:]
        chosen = masks[:, used]
        score = weighted_r2(y, chosen @ coef + intercept, weights)
        local_pred = np.array([masks[0, used] @ coef + intercept])
    else:  # lime's own lines with the user's regressor
        data = masks[:, used].astype(float)
        model_regressor.fit(data, y, sample_weight=weights)
        score = model_regressor.score(data, y, sample_weight=weights)
        local_pred = model_regressor.predict(data[0].reshape(1, -1))
        intercept, coef = model_regressor.intercept_, model_regressor.coef_
    if verbose:
        print("Intercept", intercept)
        print("Prediction_local", local_pred)
        print("Right:", right)
    return intercept, sorted(zip(used, coef, strict=True), key=lambda x: np.abs(x[1]), reverse=True), score, local_pred
