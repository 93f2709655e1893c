"""lime's call, validated once: the arguments of ``explain_instance`` (and the package's own) as one object.

:func:`limetheory.explain`, :func:`limetheory.explain_many`, :func:`limetheory.shapley` and the drop-in
``LimeTextExplainer`` take lime's arguments under lime's names.  :class:`LimeCall` checks them all in one place
(types, ranges, the bandwidth's unit) and holds the result, so that each entry point reads the same validated
values and refuses bad input with the same message.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

from ..._validation import check_bool, check_int, check_positive_finite
from ...engine.selection import FEATURE_SELECTIONS
from .lime_arguments import resolve_random_state
from .modes import LIME_SPLIT, check_mode

#: the routes ``method=`` names ("estimate" is another name of "monte_carlo")
METHODS = ("auto", "linear", "trees", "enumeration", "monte_carlo", "estimate")
#: lime's default num_samples
LIME_NUM_SAMPLES = 5000
#: the estimate's precision target by default: standard errors at most this share of lime's standard deviation
DEFAULT_TOL = 0.1


#: lime's arguments (of LimeTextExplainer and explain_instance) that explain does not take, and why
LIME_ONLY = {
    "kernel": "the limit is that of lime's default kernel, exp(-d² / kernel_width²) on the cosine distance",
    "distance_metric": "the limit is that of lime's default, 'cosine'",
    "model_regressor": "the limit is that of lime's default surrogate, Ridge(alpha=1)",
    "class_names": "names are for lime's display: pass them to Explanation.to_lime(class_names=...)",
    "verbose": "lime prints its fit's intercept and prediction; Explanation.lime_answer() holds their limits",
}


def refuse_unexpected(unexpected, function="explain"):
    """TypeError for keywords lime does not take, with the ``kernel_width`` to pass where ``nu=`` was given."""
    if not unexpected:
        return
    if "nu" in unexpected:
        nu = unexpected["nu"]
        raise TypeError(
            f"{function} takes lime's unit: kernel_width = 100 ν (kernel_width=25 is nu=0.25); got nu={nu!r}; pass "
            f"kernel_width={100 * nu!r} instead"
            if isinstance(nu, (int, float))
            else f"{function} takes lime's unit, kernel_width = 100 ν, not nu= (got nu={nu!r})"
        )
    known = [name for name in LIME_ONLY if name in unexpected]
    if known:
        reasons = "; ".join(f"{name}: {LIME_ONLY[name]}" for name in known)
        raise TypeError(
            f"{function}() takes lime's arguments except {list(LIME_ONLY)}, got {known} ({reasons}); lime's defaults "
            "are what it computes the limit of"
        )
    raise TypeError(f"{function}() got unexpected keyword arguments {sorted(unexpected)}")


@dataclass(frozen=True)
class LimeCall:
    """lime's arguments to one explanation, checked.

    Build it with :meth:`from_arguments`; every field then holds a valid value (``seed`` is the int that
    ``random_state`` resolved to, recorded so that the call can be repeated).

    Attributes
    ----------
    kernel_width : float
        lime's kernel width (> 0); :attr:`nu` is the paper's bandwidth, kernel_width / 100.
    label, labels, top_labels
        The labels asked for, as given (resolved against the model's outputs by
        :func:`limetheory.pipelines.reading.lime_arguments.resolve_labels`).
    num_features : int or None
        lime's ``num_features`` (None: every word).
    feature_selection : str
        lime's ``feature_selection``, one of ``engine.selection.FEATURE_SELECTIONS``.
    output : str or None
        The output of a Pipeline that is explained.
    lime_n : int
        lime's ``num_samples`` (default 5000).
    seed : int
        The seed ``random_state`` resolved to.
    method : str
        The route asked for ("estimate" read as "monte_carlo").
    tol, max_calls, max_work, progress
        The estimate's precision target and budget, the exact routes' work limit, the progress bar.
    precision_asked : bool
        Whether ``tol`` or ``max_calls`` was given: the estimate then spends up to ``max_calls`` (a large default)
        for ``tol``; otherwise it stops at ``tol`` or at lime's own cost, whichever comes first.
    bow, split_expression, mask_string, char_level
        lime's text modes.

    Examples
    --------
    >>> call = LimeCall.from_arguments(kernel_width=50, random_state=3, method="estimate")
    >>> call.nu, call.method, call.seed, call.lime_n
    (0.5, 'monte_carlo', 3, 5000)
    >>> LimeCall.from_arguments(method="fast")
    Traceback (most recent call last):
    ...
    ValueError: method must be one of ('auto', 'linear', 'trees', 'enumeration', 'monte_carlo', 'estimate'), got 'fast'
    """

    kernel_width: float = 25.0
    label: object = None
    labels: object = None
    top_labels: object = None
    num_features: int | None = None
    feature_selection: str = "auto"
    output: str | None = None
    lime_n: int = LIME_NUM_SAMPLES
    seed: int = 0
    method: str = "auto"
    tol: float = DEFAULT_TOL
    max_calls: int | None = None
    precision_asked: bool = False
    max_work: float | None = None
    progress: bool = True
    bow: bool = True
    split_expression: object = LIME_SPLIT
    mask_string: str | None = None
    char_level: bool = False

    @property
    def nu(self):
        """The paper's bandwidth ν = kernel_width / 100."""
        return self.kernel_width / 100.0

    @classmethod
    def from_arguments(
        cls,
        *,
        kernel_width=25,
        label=None,
        labels=None,
        top_labels=None,
        num_features=None,
        feature_selection="auto",
        output=None,
        num_samples=None,
        random_state=0,
        method="auto",
        tol=None,
        max_calls=None,
        max_work=None,
        progress=True,
        bow=True,
        split_expression=LIME_SPLIT,
        mask_string=None,
        char_level=False,
        stacklevel=2,
    ):
        """Check every argument and resolve ``random_state`` (a ``UserWarning`` for a kernel width below 1).

        ``stacklevel`` places that warning at the user's call (2: the caller of ``from_arguments``' caller).
        """
        kernel_width = check_positive_finite(kernel_width, "kernel_width")
        if not isinstance(method, str) or method not in METHODS:
            raise ValueError(f"method must be one of {METHODS}, got {method!r:.80}")
        lime_n = LIME_NUM_SAMPLES if num_samples is None else check_int(num_samples, "num_samples", minimum=1)
        if max_calls is not None:
            max_calls = check_int(max_calls, "max_calls", minimum=2)
        precision_asked = tol is not None or max_calls is not None
        tol = DEFAULT_TOL if tol is None else check_positive_finite(tol, "tol")
        progress = check_bool(progress, "progress")
        if max_work is not None:
            max_work = check_positive_finite(max_work, "max_work")
        if num_features is not None:
            num_features = check_int(num_features, "num_features", minimum=1)
        if not isinstance(feature_selection, str) or feature_selection not in FEATURE_SELECTIONS:
            raise ValueError(
                f"feature_selection must be one of {FEATURE_SELECTIONS} (lime's methods), got {feature_selection!r:.80}"
            )
        check_mode(bow, split_expression, mask_string, char_level)
        seed = resolve_random_state(random_state)
        if kernel_width < 1:
            warnings.warn(
                f"kernel_width={kernel_width:g} is lime's unit, ν = kernel_width / 100 = {kernel_width / 100:g}; the "
                f"paper's ν = {kernel_width:g} is kernel_width={100 * kernel_width:g}",
                UserWarning,
                stacklevel=stacklevel + 1,
            )
        return cls(
            kernel_width=kernel_width,
            label=label,
            labels=labels,
            top_labels=top_labels,
            num_features=num_features,
            feature_selection=feature_selection,
            output=output,
            lime_n=lime_n,
            seed=seed,
            method="monte_carlo" if method == "estimate" else method,
            tol=tol,
            max_calls=max_calls,
            precision_asked=precision_asked,
            max_work=max_work,
            progress=progress,
            bow=bow,
            split_expression=split_expression,
            mask_string=mask_string,
            char_level=char_level,
        )
