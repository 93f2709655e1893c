r"""lime's feature selection, exactly: which words lime keeps before its final ridge fit.

``LimeTextExplainer(feature_selection=method).explain_instance(text, fn, num_features=k)`` (lime 0.2.0.1,
``lime_base.LimeBase.feature_selection``) first selects at most k of the d words from the masks z, the responses
y and the kernel weights π, then fits its ridge regression (alpha = 1) on the selected columns only; the other
words get no coefficient.  The methods:

``'none'``
    every word, in order (k is ignored).
``'highest_weights'``
    a ridge regression with alpha = 0.01 on all d words; the k words with the largest :math:`|c_j z_{0j}|`
    (z₀ the unperturbed row: :math:`|c_j|` for lime), in decreasing order, ties in word order (Python's
    stable ``sorted``).
``'forward_selection'``
    greedy: min(k, d) times, add the word whose least-squares fit with intercept (scikit-learn ``Ridge`` with
    alpha = 0) on the words chosen so far plus that word has the largest weighted R²; the first of equal scores.
``'lasso_path'``
    scikit-learn's LARS lasso path of the centred, √π-rescaled data; the last point of the path (from its end)
    with at most k non-zero coefficients.
``'auto'``
    ``'forward_selection'`` when k <= 6, else ``'highest_weights'`` — the default of ``LimeTextExplainer``, whose
    ``explain_instance`` uses k = 10, so lime's default call is ``'highest_weights'``.

How it stays lime's selection while being fast: a selection is a discrete choice made by comparing numbers
that lime computes with scikit-learn and that this module computes otherwise (one ridge solve in the primal or
the dual for ``'highest_weights'``; rank-one updates of a Cholesky factor for ``'forward_selection'``, O(n d k)
instead of lime's k d separate fits).  Both are accurate to round-off, so the choice is the same whenever the
compared numbers are further apart than the round-off of either computation.  Each choice is certified by such
a margin (stated at each function below); when a margin is not met — exactly tied scores, a constant model, a
near-singular system — the selection is replayed with lime's own ``LimeBase.feature_selection`` on the same
arrays, so the result is lime's in every case.  ``'lasso_path'`` is always lime's own code on the same arrays.
"""

from __future__ import annotations

import numbers

import numpy as np

from .ridge import BLOCK_ENTRIES, check_ridge_inputs, index_blocks, ridge_fit

__all__ = ["FEATURE_SELECTIONS", "lime_feature_selection", "resolve_feature_selection"]

#: lime 0.2.0.1's feature-selection methods (``lime_base.LimeBase.feature_selection``)
FEATURE_SELECTIONS = ("none", "auto", "highest_weights", "forward_selection", "lasso_path")
#: ``'auto'`` is forward selection up to this many features (lime_base.py)
AUTO_FORWARD_MAX = 6
#: unit round-off of float64
_U = np.finfo(float).eps / 2
#: forward selection: a step is decided here only if the best weighted R² exceeds the second best by this much.
#: scikit-learn's R² = 1 - SSR / SST sums n positive terms (relative error <= n u, 5.6e-13 at n = 5000) and is
#: stationary in the coefficients (their error enters squared); ours differs from the exact value by the
#: round-off of a Cholesky update, O(d u κ) with κ <= 1e6 by the floor below: 1e-8 exceeds both by 10³.
_R2_MARGIN = 1e-8
#: forward selection: a candidate whose residual variance after the chosen words is below this fraction of its
#: variance is nearly collinear with them (κ of the step's system above 1e6): the step is replayed
_COLLINEAR_FLOOR = 1e-6
#: forward selection: responses whose weighted variance is below this fraction of their weighted mean square are
#: treated as constant (every R² is round-off): replayed
_CONSTANT_RESPONSE = 1e-10


def _replay(z, y, weights, num_features, method):
    """lime's own selection on the same arrays (its data is a float64 array of 0/1, as here)."""
    from lime.lime_base import LimeBase  # imports scikit-learn's linear models: loaded on first use

    base = LimeBase(kernel_fn=None, random_state=0)  # the selection draws no random number
    chosen = base.feature_selection(np.asarray(z, dtype=float), y, weights, num_features, method)
    return np.asarray(chosen, dtype=np.int64)


def _highest_weights(z, y, weights, num_features):
    """Certified: the k-th and (k+1)-th largest |c_j z0_j| differ by more than twice the coefficients' error bound.

    The coefficients c solve (XᵀX + αI) c = Xᵀỹ (X, ỹ centred and √π-rescaled; or the dual system).  Their error,
    for ours and for scikit-learn's solve alike, is bounded by two terms: the Cholesky solve's normwise forward
    error 4 (m + 1) u κ ‖c‖₂ for a system of size m (Higham, *Accuracy and Stability of Numerical Algorithms*,
    Thm 10.4, with the formation of the system), with κ <= (trace(XᵀX) + α) / α; and the round-off of the
    right-hand side, sums of n products after centring y, at most (n + 2) u ‖X‖_F ‖√π (|y - ȳ| + |ȳ|)‖₂, which
    ‖(XᵀX + αI)⁻¹‖ <= 1/α amplifies.  The second term is what matters when the responses barely vary: their
    centred values are then mostly round-off, and so are the coefficients.
    """
    n, d = z.shape
    alpha = 0.01  # lime_base.py: Ridge(alpha=0.01, fit_intercept=True)
    beta, trace = ridge_fit(z, y, weights, alpha=alpha)
    scale = np.abs(np.asarray(z[0], dtype=float))
    scores = np.abs(beta[1:] * scale)
    order = np.argsort(-scores, kind="stable")  # decreasing, ties in word order: Python's stable sorted
    if num_features >= d:
        return order  # every word: the set does not depend on the order
    y_mean = (weights @ y) / weights.sum()
    responses = np.sqrt(weights @ (np.abs(y - y_mean) + abs(y_mean)) ** 2)
    size = min(n, d)
    solve = 4.0 * (size + 1) * _U * (trace + alpha) / alpha * np.linalg.norm(beta[1:])
    rhs = (n + 2) * _U * np.sqrt(trace) * responses / alpha
    bound = (solve + rhs) * scale.max()
    if scores[order[num_features - 1]] - scores[order[num_features]] <= 2.0 * bound:
        return None
    return order[:num_features]


def _centred_columns(z, root, z_mean, columns):
    """The columns (a slice) of the centred, √π-rescaled design X, as an (n, k) float64 block."""
    return (np.asarray(z[:, columns], dtype=float) - z_mean[columns]) * root[:, None]


def _forward_selection(z, y, weights, num_features):
    """Greedy forward selection by rank-one updates; None when a step is not certified (see the constants).

    With X the centred, √π-rescaled design, G = XᵀX, b = Xᵀỹ, S the words chosen so far and L the Cholesky factor
    of G_SS, the weighted R² of the least-squares fit on S ∪ {j} is (‖f‖² + r_j² / s_j) / ỹᵀỹ, with Q = L⁻¹ G_S·,
    f = L⁻¹ b_S, r = b - Qᵀ f and s = diag(G) - Σ Q²: every candidate is scored at once.  Adding word j appends
    the row (G_j· - Q_·jᵀ Q) / √s_j to Q and (b_j - Q_·jᵀ f) / √s_j to f, so only the rows G_j· of the chosen
    words are formed (one O(n d) product each), never the d x d matrix, and no triangular system is solved.
    """
    n, d = z.shape
    total = weights.sum()
    z_mean = np.zeros(d)
    for rows in index_blocks(n, max(1, BLOCK_ENTRIES // d)):
        z_mean += weights[rows] @ np.asarray(z[rows], dtype=float)
    z_mean /= total
    y_mean = (weights @ y) / total
    root = np.sqrt(weights)
    y_tilde = (y - y_mean) * root
    syy = float(y_tilde @ y_tilde)
    if not syy > _CONSTANT_RESPONSE * float(weights @ (y * y)):
        return None
    column_blocks = index_blocks(d, max(1, BLOCK_ENTRIES // n))
    whole = _centred_columns(z, root, z_mean, slice(0, d)) if len(column_blocks) == 1 else None  # kept if small
    b = np.zeros(d)
    diagonal = np.zeros(d)
    for cols in column_blocks:
        block = whole if whole is not None else _centred_columns(z, root, z_mean, cols)
        b[cols] = block.T @ y_tilde
        diagonal[cols] = np.einsum("ij,ij->j", block, block)
    steps = min(num_features, d)
    chosen = []
    projected = np.zeros((steps, d))  # Q = L^-1 G[chosen, :]
    fitted = np.zeros(steps)  # f = L^-1 b[chosen]
    residual, variance = b.copy(), diagonal.copy()
    candidates = np.ones(d, dtype=bool)
    for step in range(steps):
        if not (variance[candidates] > _COLLINEAR_FLOOR * diagonal[candidates]).all():
            return None
        gain = np.full(d, -np.inf)
        gain[candidates] = residual[candidates] ** 2 / variance[candidates]
        best = int(np.argmax(gain))  # the first of equal gains, as lime's strict '>' keeps the first
        if candidates.sum() > 1 and (gain[best] - np.max(np.delete(gain, best))) / syy <= _R2_MARGIN:
            return None
        if whole is not None:
            row = whole.T @ whole[:, best]  # G[best, :]
        else:
            column = _centred_columns(z, root, z_mean, slice(best, best + 1))[:, 0]
            row = np.empty(d)
            for cols in column_blocks:
                row[cols] = _centred_columns(z, root, z_mean, cols).T @ column
        pivot = np.sqrt(variance[best])
        previous = projected[:step, best]
        projected[step] = (row - previous @ projected[:step]) / pivot
        fitted[step] = (b[best] - previous @ fitted[:step]) / pivot
        residual -= projected[step] * fitted[step]
        variance -= projected[step] ** 2
        candidates[best] = False
        chosen.append(best)
    return np.array(chosen, dtype=np.int64)


def resolve_feature_selection(method, num_features):
    """The method lime runs for ``method`` and ``num_features``: ``'auto'`` resolved as lime_base.py resolves it.

    Examples
    --------
    >>> resolve_feature_selection("auto", 10), resolve_feature_selection("auto", 6)
    ('highest_weights', 'forward_selection')
    """
    if method not in FEATURE_SELECTIONS:
        raise ValueError(f"feature_selection must be one of {FEATURE_SELECTIONS} (lime's methods), got {method!r}")
    if method == "auto":
        return "forward_selection" if num_features <= AUTO_FORWARD_MAX else "highest_weights"
    return method


def lime_feature_selection(z, y, weights, *, num_features, method="auto"):
    """The words lime 0.2.0.1 selects (``LimeBase.feature_selection``), in lime's order, computed fast.

    Parameters
    ----------
    z : array_like, shape (n, d)
        lime's masks (1 = word kept); row 0 is the unperturbed document (all ones in lime).
    y : array_like, shape (n,)
        The model's responses for the explained label.
    weights : array_like, shape (n,)
        lime's kernel weights (finite, >= 0, not all 0).
    num_features : int
        lime's ``num_features`` (>= 1); more than d selects every word.
    method : {"auto", "none", "highest_weights", "forward_selection", "lasso_path"}
        lime's ``feature_selection``.

    Returns
    -------
    ndarray of int64
        The selected word indices, in the order lime returns them (its final fit uses these columns).

    Raises
    ------
    ValueError
        For an unknown ``method``, ``num_features`` < 1, or arrays that do not match (as
        :func:`limetheory.engine.ridge.ridge_coefficients`).
    TypeError
        If ``num_features`` is not an integer or ``z`` does not hold real numbers.

    Notes
    -----
    ``'highest_weights'``: one ridge solve, O(n d min(n, d)).  ``'forward_selection'``: O(n d k) for k =
    min(num_features, d) steps.  A choice that round-off could flip is replayed with lime's own code (see the
    module's notes), as is ``'lasso_path'`` always, at lime's cost.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> z = (rng.random((400, 8)) < 0.5).astype(np.int8)
    >>> z[0] = 1
    >>> y = 2.0 * z[:, 3] - 1.0 * z[:, 5] + 0.1 * rng.random(400)
    >>> w = rng.random(400)
    >>> lime_feature_selection(z, y, w, num_features=2, method="auto").tolist()
    [3, 5]
    >>> lime_feature_selection(z, y, w, num_features=2, method="highest_weights").tolist()
    [3, 5]
    """
    if isinstance(num_features, bool) or not isinstance(num_features, numbers.Integral):
        raise TypeError(f"num_features must be an integer, got {type(num_features).__name__}")
    if num_features < 1:
        raise ValueError(f"num_features must be >= 1, got {num_features}")
    num_features = int(num_features)
    resolved = resolve_feature_selection(method, num_features)
    z, y, weights = check_ridge_inputs(z, y, weights)
    if resolved == "none":
        return np.arange(z.shape[1], dtype=np.int64)
    if resolved == "highest_weights":
        chosen = _highest_weights(z, y, weights, num_features)
    elif resolved == "forward_selection":
        chosen = _forward_selection(z, y, weights, num_features)
    else:
        chosen = None  # lasso_path: lime's own code
    return _replay(z, y, weights, num_features, resolved) if chosen is None else chosen
