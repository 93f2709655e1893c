"""The :class:`Explanation` that :func:`limetheory.explain` returns: the limit explanation and lime's spread."""

from __future__ import annotations

import html
from dataclasses import dataclass, field

import numpy as np

from .._validation import check_int
from .montecarlo import allocation, enumerated_sample, stratified_sample
from .spread import lime_spread

#: masks behind the estimate of Ω when it cannot be enumerated (d > 14): its relative error is about 1/√(this)
OMEGA_SAMPLES = 20_000
#: largest number of distinct words for which Ω is computed exactly, over all 2ᵈ - 1 masks (16383 model calls)
MAX_EXACT_OMEGA_WORDS = 14
#: rows shown by the HTML summary
HTML_ROWS = 10


@dataclass(frozen=True, eq=False)  # arrays inside: equality is identity
class Explanation:
    """What lime's coefficients converge to for one document and one model output, and how it was obtained.

    Attributes
    ----------
    words : list of str
        lime's local dictionary of the document (``lt.local_dictionary``), in lime's order.
    beta : ndarray, shape (d + 1,)
        The limit explanation: ``beta[0]`` the intercept, ``beta[1 + j]`` the coefficient of ``words[j]``.
    exact : bool
        True when ``beta`` is exact (to rounding), False for a Monte Carlo estimate.
    method : str
        The route taken: ``"linear"``, ``"trees"``, ``"enumeration"`` or ``"monte_carlo"``.
    stderr : ndarray of shape (d + 1,) or None
        Standard errors of a Monte Carlo ``beta`` (None when exact).
    kernel_width : float
        lime's kernel width (the paper's ν is kernel_width / 100).
    output : str
        The model output explained (``"predict_proba"``, ``"decision_function"`` or ``"predict"``).
    label : int
        The column of that output.
    num_samples : int or None
        The masks behind a Monte Carlo ``beta`` (None when exact).
    notes : tuple of str
        Why each route tried before ``method`` did not apply (empty when the first route applied).
    mask_fn : callable
        Masks (m, d) -> the model's output on lime's perturbed documents (used by ``lime_spread``).
    sample : limetheory.pipelines.montecarlo.MaskSample or None
        The masks and outputs behind ``beta`` (all masks for ``"enumeration"``, the stratified sample for
        ``"monte_carlo"``), reused by ``lime_spread``; None for the closed routes.
    random_state : int
        The seed of the Monte Carlo route and of the masks behind an estimated lime spread.

    Examples
    --------
    >>> from sklearn.feature_extraction.text import CountVectorizer
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.pipeline import make_pipeline
    >>> import limetheory as lt
    >>> docs = ["good food", "bad food", "good staff", "bad staff"]
    >>> model = make_pipeline(CountVectorizer(), LogisticRegression()).fit(docs, [1, 0, 1, 0])
    >>> e = lt.explain(model, "good food, bad staff", method="monte_carlo", max_calls=2000)
    >>> e.exact, e.method, e.num_samples <= 2000, e.stderr.shape
    (False, 'monte_carlo', True, (5,))
    >>> e.to_frame().index.tolist()
    ['(intercept)', 'good', 'food', 'bad', 'staff']
    """

    words: list
    beta: np.ndarray
    exact: bool
    method: str
    stderr: np.ndarray | None
    kernel_width: float
    output: str
    label: int
    num_samples: int | None
    notes: tuple = ()
    mask_fn: object = field(repr=False, compare=False, default=None)
    sample: object = field(repr=False, compare=False, default=None)
    random_state: int = field(repr=False, compare=False, default=0)
    _cache: dict = field(repr=False, compare=False, default_factory=dict)

    @property
    def nu(self):
        """The paper's bandwidth ν = kernel_width / 100."""
        return self.kernel_width / 100.0

    def as_list(self):
        """The word coefficients in the format of lime's ``Explanation.as_list()``, largest absolute weight first.

        Returns
        -------
        list of (str, float)
            One pair per word of the document (lime with every word kept); ties keep lime's word order.

        Examples
        --------
        >>> from limetheory.pipelines.result import Explanation
        >>> e = Explanation(["good", "bad"], np.array([0.1, 0.2, -0.5]), True, "linear", None, 25.0,
        ...                 "decision_function", 1, None)
        >>> e.as_list()
        [('bad', -0.5), ('good', 0.2)]
        """
        weights = self.beta[1:]
        order = np.argsort(-np.abs(weights), kind="stable")
        return [(self.words[j], float(weights[j])) for j in order]

    def to_frame(self):
        """A pandas DataFrame, one row per coefficient (the intercept first, as ``"(intercept)"``).

        Columns ``coefficient`` and, for a Monte Carlo explanation, ``stderr``; indexed by ``word``.
        """
        import pandas as pd

        frame = pd.DataFrame({"word": ["(intercept)", *self.words], "coefficient": self.beta})
        if self.stderr is not None:
            frame["stderr"] = self.stderr
        return frame.set_index("word")

    def _omega_sample(self, omega_samples):
        if self.sample is not None and (self.sample.exact or omega_samples is None):
            return self.sample
        d = len(self.words)
        if d <= MAX_EXACT_OMEGA_WORDS:
            if "exact" not in self._cache:
                self._cache["exact"] = enumerated_sample(self.mask_fn, d, self.nu)
            return self._cache["exact"]
        size = OMEGA_SAMPLES if omega_samples is None else omega_samples
        key = ("omega", size)
        if key not in self._cache:
            counts, _ = allocation(d, self.nu, size)
            rng = np.random.default_rng([self.random_state, 1])  # a stream apart from the one behind beta
            self._cache[key] = stratified_sample(self.mask_fn, d, self.nu, counts, rng)
        return self._cache[key]

    def lime_spread(self, num_samples=5000, *, omega_samples=None, order=1):
        r"""Where lime's coefficients concentrate at ``num_samples`` and their standard deviations there.

        lime's coefficients at n samples are approximately normal around the centre of its normal equations
        (its ridge and its first row shift it from ``beta`` by O(1/n)) with covariance
        :math:`m \bar A^{-1} \Omega_c \bar A^{-1}` (:mod:`limetheory.pipelines.spread`).  Ω is exact when the document
        has at most 14 distinct words (all masks enumerated with the model), and otherwise estimated from a stratified
        sample of ``omega_samples`` masks (20000 by default, or the Monte Carlo route's own sample), which the
        result states.

        Parameters
        ----------
        num_samples : int
            lime's ``num_samples`` (>= 1), counting the document itself.
        omega_samples : int or None
            Masks behind the estimate of Ω when it is not exact (None: the default).
        order : {1, 2}
            1: the centre c_n of lime's normal equations in expectation (lime's mean is c_n + O(1/n)) and the
            first-order standard deviations.  2: the centre with the O(1/n) bias of lime's ratio estimator and the
            standard deviations with their next term (:mod:`limetheory.pipelines.spread`), for small n.

        Returns
        -------
        limetheory.pipelines.spread.LimeSpread
            ``centre``, ``std`` (arrays of length d + 1), ``exact`` and ``omega_samples``; ``interval(0.95)`` gives
            the predicted 95% range of each coefficient.
        """
        num_samples = check_int(num_samples, "num_samples", minimum=1, maximum=2**53)
        if omega_samples is not None:
            omega_samples = check_int(omega_samples, "omega_samples", minimum=2, maximum=10**7)
        if isinstance(order, bool) or order not in (1, 2):
            raise ValueError(f"order must be 1 or 2, got {order!r}")
        sample = self._omega_sample(omega_samples)
        return lime_spread(sample, self.beta, self.nu, self.y0, num_samples, beta_stderr=self.stderr, order=order)

    @property
    def y0(self):
        """The model's output on the document itself (lime's first row), computed once when first needed."""
        if "y0" not in self._cache:
            y0 = float(self.mask_fn(np.ones((1, len(self.words)), dtype=np.int8))[0])
            if not np.isfinite(y0):
                raise ValueError("the model's output on the document is not finite")
            self._cache["y0"] = y0
        return self._cache["y0"]

    def plot(self, ax=None, *, num_samples=5000, max_words=20):
        """Bars of the limit coefficients, with lime's predicted 95% range at ``num_samples`` as error bars.

        Parameters
        ----------
        ax : matplotlib Axes or None
            Where to draw (a new figure when None).
        num_samples : int
            lime's n for the error bars (see ``lime_spread``).
        max_words : int
            The words with the largest absolute coefficients shown (>= 1).

        Returns
        -------
        matplotlib Axes
        """
        import matplotlib.pyplot as plt

        max_words = check_int(max_words, "max_words", minimum=1)
        spread = self.lime_spread(num_samples)
        low, high = spread.interval(0.95)
        order = np.argsort(-np.abs(self.beta[1:]), kind="stable")[:max_words][::-1]
        if ax is None:
            _, ax = plt.subplots(figsize=(6, 0.3 * len(order) + 1.2))
        positions = np.arange(len(order))
        values = self.beta[1 + order]
        ax.barh(positions, values, color=np.where(values >= 0, "tab:orange", "tab:blue"), alpha=0.8)
        centre = spread.centre[1 + order]
        error = np.vstack([centre - low[1 + order], high[1 + order] - centre])
        ax.errorbar(
            centre,
            positions,
            xerr=error,
            fmt="o",
            color="black",
            markersize=3,
            capsize=3,
            label=f"lime at n = {num_samples} (95%)",
        )
        ax.set_yticks(positions, [self.words[j] for j in order])
        ax.axvline(0.0, color="grey", linewidth=0.8)
        kind = "exact" if self.exact else "Monte Carlo"
        ax.set_xlabel(f"coefficient ({self.output}[{self.label}], {kind}: {self.method})")
        ax.legend(loc="best", fontsize="small")
        return ax

    def _repr_html_(self):
        kind = "exact" if self.exact else f"Monte Carlo estimate ({self.num_samples} masks)"
        rows = []
        for word, weight in self.as_list()[:HTML_ROWS]:
            j = self.words.index(word)
            error = "" if self.stderr is None else f" ± {self.stderr[1 + j]:.2g}"
            rows.append(f"<tr><td>{html.escape(word)}</td><td>{weight:+.4g}{error}</td></tr>")
        more = len(self.words) - HTML_ROWS
        tail = f"<tr><td colspan='2'>… {more} more words</td></tr>" if more > 0 else ""
        return (
            f"<div><b>Explanation</b> of {html.escape(self.output)}[{self.label}] at kernel_width = "
            f"{self.kernel_width:g}: {kind}, route <code>{html.escape(self.method)}</code>, "
            f"intercept {self.beta[0]:+.4g}<table>{''.join(rows)}{tail}</table></div>"
        )
