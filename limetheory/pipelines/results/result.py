"""The :class:`Explanation` that :func:`limetheory.explain` returns: the limit explanation and lime's spread."""

from __future__ import annotations

import html
from dataclasses import dataclass, field

import numpy as np

from ..._validation import check_bool, check_int
from ..reading.mask_samples import MaskSample, enumerated_sample
from .agreement import DISAGREEMENT_PREFIX
from .spread import lime_spread, omega_sample
from .stability import MAX_CANDIDATES, stable_num_samples
from .word_table import word_table_html

#: masks behind the estimate of Ω when it cannot be enumerated (d > 14): its relative error is about 1/√(this)
OMEGA_SAMPLES = 20_000
#: largest number of distinct words for which Ω is computed exactly, over all 2ᵈ - 1 masks (16383 model calls)
MAX_EXACT_OMEGA_WORDS = 14
#: lime's default num_samples: the n at which lime's spread is predicted unless the user says otherwise
LIME_NUM_SAMPLES = 5000
#: normal draws behind the probability of a stable top set (its standard error at 0.95 is about 0.002)
STABILITY_DRAWS = 10_000


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
        The column of that output (lime's label).
    num_samples : int or None
        The masks behind a Monte Carlo ``beta`` (None when exact).
    notes : tuple of str
        Why each route tried before ``method`` did not apply (empty when the first route applied), what precision
        an estimate reached, and whether lime at ``lime_num_samples`` will agree with the limit.
    mask_fn : callable
        Masks (m, d) -> the model's output on lime's perturbed documents (used by ``lime_spread``).
    sample : limetheory.pipelines.reading.mask_samples.MaskSample or None
        The masks and outputs behind ``beta`` (all masks for ``"enumeration"``, the stratified sample for
        ``"monte_carlo"``), reused by ``lime_spread``; None for the closed routes.
    random_state : int
        The seed of the Monte Carlo route and of the masks behind an estimated lime spread (with
        ``explain(random_state=None)``, the seed that was drawn: pass it to repeat the call).
    lime_num_samples : int
        lime's n that the explanation is compared with (``explain(num_samples=)``, lime's default 5000): the
        default of ``lime_spread`` and ``plot``.
    labels : tuple of int
        Every label explained by the same call (lime's ``labels``, or its ``top_labels`` largest outputs), in
        lime's order; ``as_list(label=...)`` and ``for_label`` read each.
    document_outputs : ndarray of shape (k,) or None
        The model's k outputs on the document itself (lime's ``predict_proba`` of its Explanation), when the route
        called the model on it (``outputs()`` computes them otherwise).
    scores_fn : callable or None
        Masks (m, d) -> the model's k outputs on lime's perturbed documents (every column).
    top_labels : tuple of int or None
        The labels chosen by ``top_labels`` (largest output first), None when the labels were given.
    num_features : int or None
        lime's ``num_features``: the words ``as_list`` and ``to_lime`` hold, selected by ``feature_selection`` and
        refitted as lime does (:meth:`lime_answer`; None: every word, the full surrogate ``beta``).
    feature_selection : str
        lime's ``feature_selection`` (``"auto"``: forward selection up to 6 words, highest weights beyond).
    class_names : tuple of str or None
        Names of the output's columns (the classifier's ``classes_`` when the model has them).
    text : str or None
        The document.
    mode : limetheory.pipelines.reading.modes.TextMode or None
        lime's text settings (None: lime's defaults).

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
    lime_num_samples: int = field(repr=False, compare=False, default=LIME_NUM_SAMPLES)
    labels: tuple = field(repr=False, compare=False, default=())
    document_outputs: np.ndarray | None = field(repr=False, compare=False, default=None)
    scores_fn: object = field(repr=False, compare=False, default=None)
    top_labels: tuple | None = field(repr=False, compare=False, default=None)
    num_features: int | None = field(repr=False, compare=False, default=None)
    feature_selection: str = field(repr=False, compare=False, default="auto")
    class_names: tuple | None = field(repr=False, compare=False, default=None)
    text: str | None = field(repr=False, compare=False, default=None)
    mode: object = field(repr=False, compare=False, default=None)
    _family: dict = field(repr=False, compare=False, default_factory=dict)
    _shared: dict = field(repr=False, compare=False, default_factory=dict)
    _cache: dict = field(repr=False, compare=False, default_factory=dict)

    @property
    def nu(self):
        """The paper's bandwidth ν = kernel_width / 100."""
        return self.kernel_width / 100.0

    @property
    def lime_agrees(self):
        """False when ``notes`` say that lime at ``lime_num_samples`` will not agree with the limit, else True.

        ``explain`` compares the limit with where lime's coefficients concentrate at that n
        (:mod:`limetheory.pipelines.results.agreement`): False when some word lies more than 2 of lime's standard
        deviations away *and* by more than 1% of the largest absolute word coefficient (``agreement.MATERIAL_SHARE``:
        a nearly affine model leaves lime almost no variance, so lime may sit many of its sds from the limit by less,
        and this reads True; a note names such a word when lime's spread was computed).  Below 10 (d + 1) samples
        the comparison is with ``lime_spread(n, order=2)``.  An Explanation built by hand reads True.
        """
        return not any(note.startswith(DISAGREEMENT_PREFIX) for note in self.notes)

    def for_label(self, label):
        """The explanation of another label explained by the same call (``labels`` lists them).

        Parameters
        ----------
        label : int
            One of ``labels``.

        Returns
        -------
        Explanation
            Its own ``beta``, ``stderr``, ``method`` and ``notes``.

        Examples
        --------
        >>> from sklearn.feature_extraction.text import CountVectorizer
        >>> from sklearn.linear_model import LogisticRegression
        >>> from sklearn.pipeline import make_pipeline
        >>> import limetheory as lt
        >>> docs = ["good food", "bad food", "slow staff", "good staff", "bad wine", "slow wine"]
        >>> model = make_pipeline(CountVectorizer(), LogisticRegression()).fit(docs, [0, 1, 2, 0, 1, 2])
        >>> e = lt.explain(model.decision_function, "good food, slow staff", labels=(0, 2))
        >>> e.labels, e.for_label(2).label, e.for_label(2).method
        ((0, 2), 2, 'linear')
        """
        if isinstance(label, bool) or not isinstance(label, (int, np.integer)):
            raise TypeError(f"label must be an integer, got {type(label).__name__}")
        label = int(label)
        if label == self.label:
            return self
        if label not in self._family:
            held = self.labels or (self.label,)
            raise ValueError(f"label {label} was not explained: this explanation holds labels {held}")
        return self._family[label]

    def as_list(self, label=None, *, num_features=None):
        """The limit of lime's ``Explanation.as_list()``: lime's selected words and its refit on them.

        lime keeps ``num_features`` words by its ``feature_selection`` and fits its weighted ridge again on them
        alone; what it lists is that refit, largest absolute weight first (:meth:`lime_answer`).  With every word
        kept (``num_features`` None or at least d with ``"none"``/``"highest_weights"``) it is ``beta`` itself.

        Parameters
        ----------
        label : int or None
            Which label (one of ``labels``); None: this explanation's ``label``, the first explained.
        num_features : int or None
            lime's ``num_features`` (None: ``explain``'s, every word when that was None).

        Returns
        -------
        list of (str, float)
            One pair per selected word, by decreasing absolute refitted coefficient (lime's order).

        Examples
        --------
        >>> from limetheory.pipelines.results.result import Explanation
        >>> e = Explanation(["good", "bad", "food"], np.array([0.1, 0.2, -0.5, 0.05]), True, "linear", None, 25.0,
        ...                 "decision_function", 1, None)
        >>> [(word, round(weight, 3)) for word, weight in e.as_list()]
        [('bad', -0.5), ('good', 0.2), ('food', 0.05)]
        >>> [(word, round(weight, 3)) for word, weight in e.as_list(num_features=1)]  # lime refits on 'bad' alone
        [('bad', -0.594)]
        """
        if label is not None:
            return self.for_label(label).as_list(num_features=num_features)
        if num_features is not None:
            num_features = check_int(num_features, "num_features", minimum=1)
        answer = self.lime_answer(num_features=num_features, score=False)
        if answer is None:
            return [(self.words[j], float(self.beta[1 + j])) for j in self.word_order()]
        selection = answer.selection
        return [(self.words[j], float(c)) for j, c in zip(selection.selected, selection.coefficients, strict=True)]

    def as_map(self, *, num_features=None):
        """The limit of lime's ``Explanation.as_map()``: {label: [(word index, refitted coefficient), ...]}.

        Every label of the call, each as :meth:`as_list`, with the words' indices in ``words`` (lime's feature ids).

        Examples
        --------
        >>> from limetheory.pipelines.results.result import Explanation
        >>> e = Explanation(["good", "bad", "food"], np.array([0.1, 0.2, -0.5, 0.05]), True, "linear", None, 25.0,
        ...                 "decision_function", 1, None)
        >>> e.as_map()
        {1: [(1, -0.5), (0, 0.2), (2, 0.05)]}
        """
        result = {}
        for label in self.labels or (self.label,):
            member = self.for_label(label)
            k = member.num_features if num_features is None else check_int(num_features, "num_features", minimum=1)
            answer = member.lime_answer(num_features=k, score=False)
            if answer is None:
                result[label] = [(int(j), float(member.beta[1 + j])) for j in member.word_order()]
            else:
                result[label] = answer.selection.as_list()
        return result

    def lime_answer(self, label=None, *, num_features=None, feature_selection=None, score=True):
        """The limit of lime's whole answer at ``num_features`` and ``feature_selection``: selection, then refit.

        Parameters
        ----------
        label : int or None
            Which label (None: this explanation's).
        num_features, feature_selection
            lime's arguments (None: those ``explain`` was given).
        score : bool
            Also lime's ``score`` (its weighted R²): exact where every mask was scored, else estimated from the masks
            behind lime's spread, with ``score_stderr``.

        Returns
        -------
        LimeAnswer or None
            ``selection`` (lime's words and order, the refit, intercept, ``local_pred``, ``margin``), ``score`` and
            ``score_stderr``; None when every word is kept (``num_features`` None).

        Examples
        --------
        >>> from limetheory.pipelines.results.result import Explanation
        >>> e = Explanation(["good", "bad", "food"], np.array([0.1, 0.2, -0.5, 0.05]), True, "linear", None, 25.0,
        ...                 "decision_function", 1, None, num_features=2)
        >>> answer = e.lime_answer(score=False)
        >>> answer.selection.selected.tolist(), answer.selection.method
        ([1, 0], 'forward_selection')
        """
        if label is not None:
            return self.for_label(label).lime_answer(
                num_features=num_features, feature_selection=feature_selection, score=score
            )
        num_features = self.num_features if num_features is None else num_features
        feature_selection = self.feature_selection if feature_selection is None else feature_selection
        if num_features is None:
            return None
        key = ("answer", num_features, feature_selection, bool(score))
        if key not in self._cache:
            from .lime_answer import lime_answer

            sample = self._omega_sample(None) if score else None
            self._cache[key] = lime_answer(self.beta, self.kernel_width, num_features, feature_selection, sample)
        return self._cache[key]

    def word_order(self, num_features=None):
        """Word indices by decreasing absolute coefficient (stable: ties in lime's word order), at most num_features."""
        order = np.argsort(-np.abs(self.beta[1:]), kind="stable")
        return order if num_features is None else order[:num_features]

    def to_lime(self, class_names=None):
        """lime's own ``lime.explanation.Explanation`` holding these coefficients, for lime's views.

        ``show_in_notebook``, ``as_html``, ``as_list``, ``as_map`` and ``as_pyplot_figure`` then work as for an
        explanation lime computed, on every label this call explained (``labels``), with ``num_features`` words each
        (every word when None).  ``intercept`` holds β₀; ``predict_proba`` the model's outputs on the document;
        ``local_pred`` the limit surrogate at the document (β₀ plus every coefficient); ``score`` (lime's weighted R²
        of its own fit) is None: the limit has no sample.

        Parameters
        ----------
        class_names : sequence of str or None
            Names of the output's columns (None: the classifier's ``classes_`` when known, else lime's "0", "1", ...).

        Returns
        -------
        lime.explanation.Explanation

        Examples
        --------
        >>> from sklearn.feature_extraction.text import CountVectorizer
        >>> from sklearn.linear_model import LogisticRegression
        >>> from sklearn.pipeline import make_pipeline
        >>> import limetheory as lt
        >>> docs = ["good food", "bad food", "good staff", "bad staff"]
        >>> model = make_pipeline(CountVectorizer(), LogisticRegression()).fit(docs, [1, 0, 1, 0])
        >>> lime_view = lt.explain(model.decision_function, "good food, bad staff").to_lime()
        >>> sorted((str(word), round(weight, 3) + 0.0) for word, weight in lime_view.as_list(label=1))
        [('bad', -0.675), ('food', 0.0), ('good', 0.675), ('staff', 0.0)]
        >>> "<html>" in lime_view.as_html()
        True
        """
        from .lime_view import lime_explanation

        return lime_explanation(self, class_names)

    def to_frame(self):
        """A pandas DataFrame, one row per coefficient (the intercept first, as ``"(intercept)"``).

        Columns ``coefficient`` and, for a Monte Carlo explanation, ``stderr``; indexed by ``word``.
        """
        import pandas as pd

        frame = pd.DataFrame({"word": ["(intercept)", *self.words], "coefficient": self.beta})
        if self.stderr is not None:
            frame["stderr"] = self.stderr
        return frame.set_index("word")

    def _omega_sample(self, omega_samples, enumerate_up_to=MAX_EXACT_OMEGA_WORDS):
        """The masks behind Ω: the route's own sample, all masks (d <= ``enumerate_up_to``), or ``omega_samples``."""
        if self.sample is not None and (self.sample.exact or omega_samples is None):
            return self.sample
        d = len(self.words)
        if d <= enumerate_up_to:
            if "exact" not in self._cache:
                self._cache["exact"] = enumerated_sample(self.mask_fn, d, self.nu)
            return self._cache["exact"]
        size = OMEGA_SAMPLES if omega_samples is None else omega_samples
        key = ("omega", size)
        if key not in self._cache:
            rng = np.random.default_rng([self.random_state, 1])  # a stream apart from the one behind beta
            self._cache[key] = omega_sample(self.mask_fn, d, self.nu, size, rng)
        return self._cache[key]

    def lime_spread(self, num_samples=None, *, omega_samples=None, order=1):
        r"""Where lime's coefficients concentrate at ``num_samples`` and their standard deviations there.

        lime's coefficients at n samples are approximately normal around the centre of its normal equations
        (its ridge and its first row shift it from ``beta`` by O(1/n)) with covariance
        :math:`m \bar A^{-1} \Omega_c \bar A^{-1}` (:mod:`limetheory.pipelines.results.spread`), in O(masks × d) at any
        d. Ω is exact when the document has at most 14 distinct words (all masks enumerated with the model), and
        otherwise estimated from the Monte Carlo route's own sample or from ``omega_samples`` masks of the model
        (20000 by default; stratified on the number of removed words when there are at least two for each, else
        i.i.d.); the result states which (``exact``, ``omega_samples``).

        Parameters
        ----------
        num_samples : int or None
            lime's ``num_samples`` (>= 1), counting the document itself; None: ``lime_num_samples`` (the
            ``num_samples`` given to ``explain``, lime's 5000 by default).
        omega_samples : int or None
            Masks behind the estimate of Ω when it is not exact (None: the route's sample or 20000).
        order : {1, 2}
            1: the centre c_n of lime's normal equations in expectation (lime's mean is c_n + O(1/n)) and the
            first-order standard deviations.  2: the centre with the O(1/n) bias of lime's ratio estimator and the
            standard deviations with their next term (:mod:`limetheory.pipelines.results.spread`), for n below
            about 10 (d + 1); in O(masks × d³), on a seeded subset of the masks that fits the work limit.

        Returns
        -------
        limetheory.pipelines.results.spread.LimeSpread
            ``centre``, ``std`` (arrays of length d + 1), ``exact`` and ``omega_samples``; ``interval(0.95)`` gives
            the predicted 95% range of each coefficient.
        """
        num_samples = self.lime_num_samples if num_samples is None else num_samples
        num_samples = check_int(num_samples, "num_samples", minimum=1, maximum=2**53)
        if omega_samples is not None:
            omega_samples = check_int(omega_samples, "omega_samples", minimum=2, maximum=10**7)
        if isinstance(order, bool) or order not in (1, 2):
            raise ValueError(f"order must be 1 or 2, got {order!r}")
        sample = self._omega_sample(omega_samples)
        return lime_spread(
            sample, self.beta, self.nu, self.y0, num_samples, self.stderr, order, random_state=self.random_state
        )

    def stable_num_samples(self, top=5, probability=0.95, *, max_num_samples=10**7, omega_samples=None):
        """How many samples lime needs for its ``top`` words to be the limit's ``top`` words with ``probability``.

        The answer to "how large must num_samples be for a stable explanation": the smallest lime
        ``num_samples`` (to one per cent) at which lime's ``top`` largest absolute word coefficients are, as a
        set, those of the limit in a share ``probability`` of runs, when lime keeps every word
        (``num_features`` at least the number of words).  It uses lime's law at n to first order
        (:meth:`lime_spread`: normal around the centre c_n, with the covariance of the delta method) and draws
        from it; the draws are seeded (``random_state``), so the answer is reproducible.  That law needs rows:
        the answer is never below 10 (d + 1) samples for d words (a safe floor, since a larger n is only more
        stable; :mod:`limetheory.pipelines.results.stability`).  For an estimated
        explanation (``exact`` False) the limit's top set and lime's spread are themselves estimates.

        lime's ``"highest_weights"`` selection of k words (``"auto"`` beyond 6) keeps its top k set, so ``top=k``
        answers for lime's selected set (:meth:`lime_answer`); :func:`limetheory.selection_probability` for others.

        Parameters
        ----------
        top : int
            The number of words, 1 <= top < the number of words.
        probability : float
            In (0, 1); 0.95 by default.
        max_num_samples : int
            The largest n searched (>= 2; 10**7 by default).
        omega_samples : int or None
            Masks behind lime's covariance when it is not exact (as in :meth:`lime_spread`).

        Returns
        -------
        int or None
            The smallest such n, or None when no n up to ``max_num_samples`` reaches ``probability``: the limit's
            ``top``-th and next absolute coefficients tie (to rounding, or within two standard errors of an
            estimate: then no n makes lime's choice between them stable), or lime's centre at those n (its ridge
            and its first row shift it from the limit, noticeably at small kernel widths) keeps another word in
            the top set.

        Examples
        --------
        >>> from sklearn.feature_extraction.text import CountVectorizer
        >>> from sklearn.linear_model import LogisticRegression
        >>> from sklearn.pipeline import make_pipeline
        >>> import limetheory as lt
        >>> docs = ["good food", "bad food", "good staff", "bad staff", "slow food", "kind staff"]
        >>> model = make_pipeline(CountVectorizer(), LogisticRegression()).fit(docs, [1, 0, 1, 0, 0, 1])
        >>> e = lt.explain(model, "good food but slow and bad staff")
        >>> e.stable_num_samples(top=1)  # 'bad' (-0.161) against 'good' (0.158): lime needs many rows
        131
        >>> e.stable_num_samples(top=3)  # 10 (d + 1) = 80 rows already suffice
        80
        """
        d = len(self.words)
        if d < 2:
            raise ValueError(f"stable_num_samples needs a document of at least 2 distinct words, got {d}")
        top = check_int(top, "top", minimum=1, maximum=d - 1)
        if isinstance(probability, bool) or not isinstance(probability, (int, float, np.floating)):
            raise TypeError(f"probability must be a number, got {type(probability).__name__}")
        if not 0 < probability < 1:
            raise ValueError(f"probability must be in (0, 1), got {probability!r}")
        max_num_samples = check_int(max_num_samples, "max_num_samples", minimum=2, maximum=2**53)
        if omega_samples is not None:
            omega_samples = check_int(omega_samples, "omega_samples", minimum=2, maximum=10**7)
        draws = np.random.default_rng([self.random_state, 2]).standard_normal((STABILITY_DRAWS, MAX_CANDIDATES))
        sample = self._omega_sample(omega_samples)
        return stable_num_samples(
            sample, self.beta, self.nu, self.y0, top, float(probability), max_num_samples, draws, self.stderr
        )

    def lime_efficiency(self, num_samples=None, *, omega_samples=None):
        r"""lime's variance divided by this estimate's at equal model calls, per coefficient.

        lime at n samples calls the model n times (the document and n - 1 perturbed copies), and its coefficient j
        spreads with a standard deviation :math:`\sigma_j(n)` whose square falls as 1 / (n - 1)
        (:meth:`lime_spread`); this estimate spent ``num_samples`` model calls c for its standard error
        :math:`\mathrm{se}_j`.  At equal calls lime's variance is
        :math:`E_j = \sigma_j(n)^2 (n - 1) / (\mathrm{se}_j^2 c)` times the estimate's: lime needs E_j times the
        calls to place coefficient j as precisely.  It is read at lime's n = ``num_samples``, where lime's
        first-order law holds (from about 10 (d + 1) rows).

        Parameters
        ----------
        num_samples : int or None
            The lime n at which lime's spread is read (>= 2; None: ``lime_num_samples``, 5000 by default).
        omega_samples : int or None
            As in :meth:`lime_spread`.

        Returns
        -------
        ndarray, shape (d + 1,)
            E_j, intercept first (inf where the standard error is 0: a coefficient the controls fix exactly; NaN
            where lime's spread is 0 too: a model affine in the mask leaves neither any variance).

        Raises
        ------
        ValueError
            For an exact explanation (no standard errors: nothing to compare).

        Examples
        --------
        >>> from sklearn.feature_extraction.text import CountVectorizer
        >>> from sklearn.linear_model import LogisticRegression
        >>> from sklearn.pipeline import make_pipeline
        >>> import limetheory as lt
        >>> docs = ["good food", "bad food", "good staff", "bad staff", "slow food", "kind staff"]
        >>> model = make_pipeline(CountVectorizer(), LogisticRegression()).fit(docs, [1, 0, 1, 0, 0, 1])
        >>> import numpy as np
        >>> e = lt.explain(model, "good food but slow and bad staff", method="estimate", max_calls=4000)
        >>> bool(np.median(e.lime_efficiency()[1:]) > 1)  # worth more calls of lime than it made
        True
        """
        if self.stderr is None:
            raise ValueError(
                f"lime_efficiency needs an estimate with standard errors; this explanation is exact ({self.method})"
            )
        num_samples = self.lime_num_samples if num_samples is None else num_samples
        num_samples = check_int(num_samples, "num_samples", minimum=2, maximum=2**53)
        lime_std = self.lime_spread(num_samples, omega_samples=omega_samples).std
        with np.errstate(divide="ignore", invalid="ignore"):
            return lime_std**2 * (num_samples - 1) / (self.stderr**2 * self.num_samples)

    def check_spread(self, num_samples, omega_samples, order=1, max_flops=None):
        """lime's spread for ``explain``'s agreement check, from at most about ``omega_samples`` masks of the model.

        The route's own sample when it has one; all masks when there are no more than ``omega_samples``; else a
        stratified sample of that size (cached: ``lime_spread(omega_samples=...)`` with the same size reuses it).
        ``order=2`` subsamples those masks to fit in ``max_flops`` (``spread.lime_spread``).
        """
        d = len(self.words)
        if self.sample is not None:
            sample = self.sample
            if not sample.exact and len(sample.f) > omega_samples:
                # the check needs lime's standard deviations to a few per cent only: a seeded uniform subset of
                # the route's masks, weighted up by the share left out, is still unbiased, and costs omega_samples
                # rows instead of up to RETAINED_MASKS (a third of the default call's time otherwise)
                rows = np.sort(np.random.default_rng(self.random_state).choice(len(sample.f), omega_samples, False))
                share = len(sample.f) / omega_samples
                sample = MaskSample(sample.z[rows], sample.f[rows], sample.prob[rows] * share, sample.psi[rows], False)
        elif d <= MAX_EXACT_OMEGA_WORDS and 2**d - 1 <= omega_samples:
            sample = self._omega_sample(None)
        else:
            sample = self._omega_sample(omega_samples, enumerate_up_to=0)
        return lime_spread(
            sample, self.beta, self.nu, self.y0, num_samples, self.stderr, order, self.random_state, max_flops
        )

    def outputs(self):
        """The model's k outputs on the document itself (lime's first row), computed once when first needed.

        Returns
        -------
        ndarray, shape (k,)
            ``document_outputs`` when ``explain`` had them; else one call of the model (shared by every label).

        Examples
        --------
        >>> from sklearn.feature_extraction.text import CountVectorizer
        >>> from sklearn.tree import DecisionTreeClassifier
        >>> from sklearn.pipeline import make_pipeline
        >>> import limetheory as lt
        >>> docs = ["good food", "bad food", "good staff", "bad staff"]
        >>> model = make_pipeline(CountVectorizer(), DecisionTreeClassifier(random_state=0)).fit(docs, [1, 0, 1, 0])
        >>> lt.explain(model, "good food, fine staff").outputs().tolist()  # P(0), P(1) on the document
        [0.0, 1.0]
        """
        if self.document_outputs is not None:
            return self.document_outputs
        if "outputs" not in self._shared:  # one dict for every label of the call
            ones = np.ones((1, len(self.words)), dtype=np.int8)
            self._shared["outputs"] = np.asarray(self.scores_fn(ones), dtype=float)[0]
        return self._shared["outputs"]

    @property
    def outputs_known(self):
        """True when the model's outputs on the document are at hand (``outputs()`` makes no model call)."""
        return self.document_outputs is not None or "outputs" in self._shared or self.scores_fn is None

    @property
    def y0(self):
        """The model's output on the document itself (lime's first row), computed once when first needed."""
        if self.document_outputs is not None or self.scores_fn is not None:
            return float(self.outputs()[self.label])
        if "y0" not in self._cache:
            y0 = float(self.mask_fn(np.ones((1, len(self.words)), dtype=np.int8))[0])
            if not np.isfinite(y0):
                raise ValueError("the model's output on the document is not finite")
            self._cache["y0"] = y0
        return self._cache["y0"]

    def plot(self, ax=None, *, num_samples=None, max_words=20, spread=True, label=None):
        """Bars of the limit coefficients, with lime's predicted 95% range at ``num_samples`` as error bars.

        Parameters
        ----------
        ax : matplotlib Axes or None
            Where to draw (a new figure when None).
        num_samples : int or None
            lime's n for the error bars (see ``lime_spread``; None: ``lime_num_samples``).
        max_words : int
            The words with the largest absolute coefficients shown (>= 1).
        spread : bool
            Draw lime's predicted range (True) or the limit alone (False, no model call).
        label : int or None
            Which explained label (None: this explanation's).

        Returns
        -------
        matplotlib Axes
        """
        if label is not None:
            return self.for_label(label).plot(ax, num_samples=num_samples, max_words=max_words, spread=spread)
        import matplotlib.pyplot as plt

        max_words = check_int(max_words, "max_words", minimum=1)
        spread = check_bool(spread, "spread")
        order = self.word_order(max_words)[::-1]
        if ax is None:
            _, ax = plt.subplots(figsize=(6, 0.3 * len(order) + 1.2))
        positions = np.arange(len(order))
        values = self.beta[1 + order]
        ax.barh(positions, values, color=np.where(values >= 0, "tab:orange", "tab:blue"), alpha=0.8)
        if spread:
            prediction = self.lime_spread(num_samples)
            low, high = prediction.interval(0.95)
            centre = prediction.centre[1 + order]
            error = np.vstack([centre - low[1 + order], high[1 + order] - centre])
            ax.errorbar(
                centre,
                positions,
                xerr=error,
                fmt="o",
                color="black",
                markersize=3,
                capsize=3,
                label=f"lime at n = {prediction.num_samples} (95%)",
            )
            ax.legend(loc="best", fontsize="small")
        ax.set_yticks(positions, [self.words[j] for j in order])
        ax.axvline(0.0, color="grey", linewidth=0.8)
        kind = "exact" if self.exact else "estimate"
        ax.set_xlabel(f"coefficient ({self.output}[{self.label}], {kind}: {self.method})")
        return ax

    def _repr_html_(self):
        kind = "exact" if self.exact else f"Monte Carlo estimate ({self.num_samples} masks)"
        stderr = None if self.stderr is None else self.stderr[1:]
        table = word_table_html(self.words, self.beta[1:], stderr, self.word_order(self.num_features))
        return (
            f"<div><b>Explanation</b> of {html.escape(self.output)}[{self.label}] at kernel_width = "
            f"{self.kernel_width:g}: {kind}, route <code>{html.escape(self.method)}</code>, "
            f"intercept {self.beta[0]:+.4g}{table}</div>"
        )
