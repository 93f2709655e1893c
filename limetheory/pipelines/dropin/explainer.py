"""``LimeTextExplainer``: lime 0.2.0.1's class, with its arguments and its answer, computed faster, or its limit.

By default each ``explain_instance`` call replays lime's own random run (the explainer's ``RandomState`` consumed as
lime consumes it, ``dropin.neighbourhood``) and fits lime's surrogate on it (``dropin.surrogate_fit``); the result is
lime's own ``lime.explanation.Explanation`` with every field lime fills.  With ``limit=True`` the call returns what
lime converges to as ``num_samples`` grows, from :func:`limetheory.explain`.
"""

from __future__ import annotations

import inspect
import numbers
from functools import partial

import numpy as np
from sklearn.utils import check_random_state

from ..._validation import check_bool, check_int, check_positive_finite, check_text
from ...engine.selection import FEATURE_SELECTIONS
from ..reading.lime_call import LimeCall
from ..results.lime_view import mend_show_in_notebook
from .neighbourhood import lime_neighbourhood
from .surrogate_fit import explain_label


def lime_kernel(d, kernel_width):
    """lime's default text kernel, written as lime writes it: √exp(-d²/w²) (the same floating-point operations).

    Examples
    --------
    >>> lime_kernel(np.array([0.0, 25.0]), 25).round(6).tolist()
    [1.0, 0.606531]
    """
    return np.sqrt(np.exp(-(d**2) / kernel_width**2))


class LimeTextExplainer:
    r"""A drop-in for lime 0.2.0.1's ``lime.lime_text.LimeTextExplainer``: lime's run replayed faster, or its limit.

    The constructor and :meth:`explain_instance` take lime's arguments with lime's defaults and return lime's own
    ``lime.explanation.Explanation`` (``as_list``, ``as_map``, ``as_html``, ``show_in_notebook`` — its IPython
    import mended — and ``as_pyplot_figure`` work).

    With ``limit=False`` (the default) each call replays lime's random run: for the same ``random_state`` (and
    successive calls on one explainer consume its ``RandomState`` as lime's do) it gives lime's words in lime's order
    and lime's coefficients, intercept, ``score`` and ``local_pred`` to round-off.  A bound method of a fitted
    scikit-learn ``Pipeline`` (``pipe.predict_proba``, ``pipe.decision_function``) whose first step is a Count or
    Tfidf vectorizer is evaluated on rows computed from the document's word counts, once per distinct mask; any
    other ``classifier_fn`` is called once on lime's strings, as lime calls it.  The feature selection and the ridge
    are the package's (one solve, Cholesky updates for forward selection), each selection certified against
    round-off or replayed with lime's own code.

    With ``limit=True`` each call returns the limit of lime's answer as ``num_samples`` grows
    (:func:`limetheory.explain` and its ``to_lime()``): exact where a route exists, an estimate with standard errors
    otherwise.  The explanation then also holds ``limit``, the :class:`limetheory.Explanation` it comes from (its
    route, ``exact``, ``notes`` and ``lime_answer``), and ``stderr``, per label the standard errors of the full
    surrogate β (intercept first; None where the limit is exact).  It refuses, with a ValueError naming the
    argument, what the limit does not cover: a custom ``kernel``, a ``model_regressor`` other than None or a
    scikit-learn ``Ridge`` with an intercept, a ``distance_metric`` other than ``'cosine'``.

    Parameters
    ----------
    kernel_width : float
        lime's kernel width (> 0; default 25).
    kernel : callable or None
        lime's ``kernel(distances, kernel_width)``; None: lime's √exp(-d²/w²).
    verbose : bool
        Print the intercept, the local prediction and the model's output, as lime does.
    class_names : sequence of str or None
        Names of the model's output columns; None: lime's '0', '1', ... (set on the explainer by the first call, as
        lime sets it).
    feature_selection : {"auto", "none", "highest_weights", "forward_selection", "lasso_path"}
        lime's feature selection (default 'auto': forward selection up to 6 features, highest weights beyond).
    split_expression : str or callable
        lime's word splitter (default ``r'\W+'``).
    bow : bool
        lime's bag of words (default True).
    mask_string : str or None
        lime's mask of a removed token with ``bow=False``.
    random_state : int, numpy RandomState or None
        lime's seed: an int seeds a RandomState, a RandomState is consumed in place, None uses numpy's global one.
    char_level : bool
        lime's character features (default False).
    limit : bool, keyword-only
        Return the limit instead of replaying lime's random run (default False).

    Raises
    ------
    TypeError, ValueError
        For an argument of the wrong type or value (the message names it).

    Examples
    --------
    >>> import lime.lime_text
    >>> from sklearn.feature_extraction.text import TfidfVectorizer
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.pipeline import make_pipeline
    >>> docs = ["good food", "bad food", "good service", "slow service", "good staff", "bad staff"]
    >>> pipe = make_pipeline(TfidfVectorizer(), LogisticRegression()).fit(docs, [1, 0, 1, 0, 1, 0])
    >>> text = "good food but slow service and bad staff"
    >>> ours = LimeTextExplainer(random_state=3).explain_instance(text, pipe.predict_proba, num_features=3)
    >>> theirs = lime.lime_text.LimeTextExplainer(random_state=3).explain_instance(text, pipe.predict_proba,
    ...                                                                              num_features=3)
    >>> [w for w, _ in ours.as_list()] == [w for w, _ in theirs.as_list()]
    True
    >>> bool(np.allclose([c for _, c in ours.as_list()], [c for _, c in theirs.as_list()], rtol=1e-9, atol=1e-12))
    True
    """

    def __init__(
        self,
        kernel_width=25,
        kernel=None,
        verbose=False,
        class_names=None,
        feature_selection="auto",
        split_expression=r"\W+",
        bow=True,
        mask_string=None,
        random_state=None,
        char_level=False,
        *,
        limit=False,
    ):
        # lime's arguments that explain takes too are checked by the same call object as explain's
        LimeCall.from_arguments(
            kernel_width=kernel_width, feature_selection=feature_selection, bow=bow, split_expression=split_expression,
            mask_string=mask_string, char_level=char_level, stacklevel=3,
        )  # fmt: skip
        self.kernel_width = check_positive_finite(kernel_width, "kernel_width")
        if kernel is not None and not callable(kernel):
            raise TypeError(f"kernel must be None or a callable kernel(distances, kernel_width), got {kernel!r:.80}")
        self.kernel = kernel
        self.verbose = bool(verbose)
        if class_names is not None and (isinstance(class_names, str) or not hasattr(class_names, "__len__")):
            raise TypeError(f"class_names must be None or a sequence of names, got {type(class_names).__name__}")
        self.class_names = class_names
        if not isinstance(feature_selection, str) or feature_selection not in FEATURE_SELECTIONS:
            raise ValueError(f"feature_selection must be one of {FEATURE_SELECTIONS}, got {feature_selection!r:.80}")
        self.feature_selection = feature_selection
        if not (isinstance(split_expression, str) or callable(split_expression)):
            raise TypeError(
                "split_expression must be a regular expression (str) or a callable, got "
                f"{type(split_expression).__name__}"
            )
        self.split_expression = split_expression
        self.bow = check_bool(bow, "bow")
        if mask_string is not None and not isinstance(mask_string, str):
            raise TypeError(f"mask_string must be None or a str, got {type(mask_string).__name__}")
        self.mask_string = mask_string
        self.char_level = check_bool(char_level, "char_level")
        self.limit = check_bool(limit, "limit")
        if not (random_state is None or isinstance(random_state, np.random.RandomState)):
            random_state = check_int(random_state, "random_state", minimum=0, maximum=2**32 - 1)  # a seed, as lime's
        self.random_state = check_random_state(random_state)  # lime's: None is numpy's global RandomState
        self.kernel_fn = partial(lime_kernel if kernel is None else kernel, kernel_width=self.kernel_width)
        # lime's modules import scikit-learn's linear models: loaded on first use, not by import limetheory
        from lime.lime_base import LimeBase

        self.base = LimeBase(self.kernel_fn, self.verbose, random_state=self.random_state)  # lime's attribute
        self.vocabulary = None  # lime's attribute, never set by lime either

    def explain_instance(
        self,
        text_instance,
        classifier_fn,
        labels=(1,),
        top_labels=None,
        num_features=10,
        num_samples=5000,
        distance_metric="cosine",
        model_regressor=None,
    ):
        """lime's explanation of ``classifier_fn`` at ``text_instance`` (or its limit with ``limit=True``).

        Parameters
        ----------
        text_instance : str
            The document.
        classifier_fn : callable
            lime's classifier_fn: a list of n str to an (n, k) array (e.g. ``pipeline.predict_proba``).
        labels : iterable of int
            The explained columns (default (1,)).
        top_labels : int or None
            Explain the K columns with the largest outputs on the document instead of ``labels``.
        num_features : int
            The most words of each explanation (default 10).
        num_samples : int
            lime's number of samples n (default 5000; >= 2).
        distance_metric : str or callable
            lime's distance between rows (default 'cosine').
        model_regressor : scikit-learn regressor or None
            lime's surrogate (None: ``Ridge(alpha=1)``); it must accept ``sample_weight``.

        Returns
        -------
        lime.explanation.Explanation
            With ``domain_mapper``, ``class_names``, ``predict_proba``, ``top_labels``, ``intercept``,
            ``local_exp``, ``score`` and ``local_pred`` (of the last label, as lime keeps them).

        Raises
        ------
        TypeError, ValueError
            For an argument of the wrong type or value; with ``limit=True``, for a setting the limit does not cover.

        Examples
        --------
        >>> from sklearn.feature_extraction.text import CountVectorizer
        >>> from sklearn.linear_model import LogisticRegression
        >>> from sklearn.pipeline import make_pipeline
        >>> pipe = make_pipeline(CountVectorizer(), LogisticRegression()).fit(["good", "bad"], [1, 0])
        >>> e = LimeTextExplainer(random_state=0).explain_instance("good food, bad staff", pipe.predict_proba,
        ...                                                        num_samples=500)
        >>> [str(word) for word, _ in e.as_list()][:2], e.local_pred.shape
        (['good', 'bad'], (1,))
        """
        text_instance = check_text(text_instance, "text_instance")
        if not callable(classifier_fn):
            raise TypeError(f"classifier_fn must be callable (list of str -> (n, k) array), got {classifier_fn!r:.80}")
        if top_labels is not None:
            top_labels = check_int(top_labels, "top_labels", minimum=1)
        else:
            labels = _checked_labels(labels)
        num_features = check_int(num_features, "num_features", minimum=1)
        num_samples = check_int(num_samples, "num_samples", minimum=2)
        if not (isinstance(distance_metric, str) or callable(distance_metric)):
            raise TypeError(f"distance_metric must be a metric name or a callable, got {distance_metric!r:.80}")
        if model_regressor is not None and not hasattr(model_regressor, "fit"):
            raise TypeError(f"model_regressor must be None or a scikit-learn regressor, got {model_regressor!r:.80}")
        if self.limit:
            return self._limit(text_instance, classifier_fn, labels, top_labels, num_features, num_samples,
                               distance_metric, model_regressor)  # fmt: skip
        return self._replay(text_instance, classifier_fn, labels, top_labels, num_features, num_samples,
                            distance_metric, model_regressor)  # fmt: skip

    def _indexed(self, text):
        from lime.lime_text import IndexedCharacters, IndexedString

        if self.char_level:
            return IndexedCharacters(text, bow=self.bow, mask_string=self.mask_string)
        return IndexedString(text, bow=self.bow, split_expression=self.split_expression, mask_string=self.mask_string)

    def _replay(self, text, classifier_fn, labels, top_labels, num_features, num_samples, distance_metric,
                model_regressor):  # fmt: skip
        """lime's ``explain_instance``, step by step, on the replayed neighbourhood."""
        from lime.explanation import Explanation as LimeExplanation
        from lime.lime_text import TextDomainMapper

        indexed = self._indexed(text)
        settings = dict(bow=self.bow, char_level=self.char_level, split_expression=self.split_expression,
                        mask_string=self.mask_string)  # fmt: skip
        masks, yss, distances = lime_neighbourhood(
            text, indexed, classifier_fn, self.random_state, num_samples, distance_metric, settings
        )
        if self.class_names is None:
            self.class_names = [str(x) for x in range(yss[0].shape[0])]
        result = LimeExplanation(
            domain_mapper=TextDomainMapper(indexed), class_names=self.class_names, random_state=self.random_state
        )
        result.predict_proba = yss[0]
        if top_labels:
            labels = np.argsort(yss[0])[-top_labels:]
            result.top_labels = list(labels)
            result.top_labels.reverse()
        weights = self.kernel_fn(distances)
        for label in labels:
            y = np.asarray(yss[:, label], dtype=float)
            result.intercept[label], result.local_exp[label], result.score, result.local_pred = explain_label(
                masks,
                y,
                weights,
                num_features=num_features,
                feature_selection=self.feature_selection,
                model_regressor=model_regressor,
                verbose=self.verbose,
                right=yss[0, label],
            )
        return mend_show_in_notebook(result)

    def _limit(self, text, classifier_fn, labels, top_labels, num_features, num_samples, distance_metric,
               model_regressor):  # fmt: skip
        """The limit of lime's answer, from ``limetheory.explain`` (imported here: that module is the lead's)."""
        from sklearn.linear_model import Ridge

        if self.kernel is not None:
            raise ValueError("kernel: the limit is derived for lime's default kernel √exp(-d²/w²); pass kernel=None")
        if not (isinstance(distance_metric, str) and distance_metric == "cosine"):
            raise ValueError(
                f"distance_metric: the limit is derived for 'cosine' (lime's default), got {distance_metric!r:.80}"
            )
        if model_regressor is not None and not (isinstance(model_regressor, Ridge) and model_regressor.fit_intercept):
            raise ValueError(
                "model_regressor: the limit is that of a ridge with an intercept (lime's default Ridge(alpha=1)); "
                f"got {model_regressor!r:.80}"
            )
        from ..routing import explain

        arguments = dict(
            kernel_width=self.kernel_width,
            num_features=num_features,
            num_samples=num_samples,
            random_state=self.random_state,
            bow=self.bow,
            split_expression=self.split_expression,
            mask_string=self.mask_string,
            char_level=self.char_level,
        )
        if top_labels is not None:
            arguments["top_labels"] = top_labels
        else:
            arguments["labels"] = tuple(labels)
        if "feature_selection" in inspect.signature(explain).parameters:
            arguments["feature_selection"] = self.feature_selection
        limit = explain(classifier_fn, text, **arguments)
        result = limit.to_lime(class_names=self.class_names)
        # what lime's Explanation has no field for: the route, exactness, notes and standard errors of the limit
        result.limit = limit
        result.stderr = {label: limit.for_label(label).stderr for label in result.local_exp}
        if self.class_names is None:
            self.class_names = list(result.class_names)
        if self.verbose:
            for label in result.local_exp:
                print("Intercept", result.intercept[label])
                print("Prediction_local", result.local_pred)
                print("Right:", result.predict_proba[label])
        return mend_show_in_notebook(result)


def _checked_labels(labels):
    """lime's ``labels``: an iterable of column indices (ints >= 0)."""
    if isinstance(labels, (str, bytes)) or not hasattr(labels, "__iter__"):
        raise TypeError(f"labels must be an iterable of column indices, got {labels!r:.80}")
    labels = list(labels)
    for label in labels:
        if isinstance(label, (bool, np.bool_)) or not isinstance(label, numbers.Integral) or label < 0:
            raise ValueError(f"labels must hold column indices (ints >= 0), got {label!r}")
    return labels
