"""The catalogue of upstream changes that ``make mutants`` applies to copies of lime and scikit-learn.

Each :class:`Behaviour` is something the book relies on (lime's sampling law, its kernel, scikit-learn's
TF-IDF defaults...), with the tests and chapters that guard it and the words one of which a failing test's
name must contain to *say* which behaviour changed.  Each :class:`Mutant` is a textual patch of the installed
sources: either a behaviour change, which the suite must catch with a test named after that behaviour, or an
equivalent rewrite (same law, another rounding or another route through the same random stream), which the
suite must let pass.  A patch whose search text is not in the installed sources makes the harness report
"no longer applies" (a new upstream version), never silently test nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

BEHAVIOUR_CHANGE = "behaviour"
EQUIVALENT_REWRITE = "equivalent"
KINDS = (BEHAVIOUR_CHANGE, EQUIVALENT_REWRITE)
PACKAGES = ("lime", "sklearn")


@dataclass(frozen=True)
class Patch:
    """Replace ``search`` by ``replace`` in ``path`` (relative to the package folder), ``count`` occurrences."""

    path: str
    search: str
    replace: str
    count: int = 1


@dataclass(frozen=True)
class Behaviour:
    """An upstream behaviour the book relies on, and what guards it.

    ``tests`` are pytest selectors (files or node ids under ``tests/``); ``chapters`` are the chapters whose
    nbval run depends on the behaviour (``notebooks/NN-slug``); ``names`` are the words one of which the name of
    a failing test must contain for the suite to have *named* the change.
    """

    key: str
    package: str
    title: str
    tests: tuple[str, ...]
    chapters: tuple[str, ...]
    names: tuple[str, ...]


@dataclass(frozen=True)
class Mutant:
    name: str
    behaviour: str
    kind: str
    change: str
    patches: tuple[Patch, ...]


LIME_TESTS = ("tests/test_upstream_behaviour.py", "tests/test_lime_defaults.py", "tests/test_empirical.py")
SKLEARN_TESTS = ("tests/test_upstream_behaviour.py", "tests/test_linear_approx.py", "tests/test_models.py")

BEHAVIOURS = (
    Behaviour(
        "sampling",
        "lime",
        "lime's sampling law: s uniform on {1, ..., d}, then a uniform subset of s distinct words removed",
        (*LIME_TESTS, "tests/test_perturbation.py", "tests/test_fast.py"),
        ("notebooks/02-sampling",),
        ("sampling",),
    ),
    Behaviour(
        "kernel",
        "lime",
        "lime's kernel: weights sqrt(exp(-D^2 / w^2)) = psi(s/d, nu) with nu = kernel_width / 100",
        (*LIME_TESTS, "tests/test_fast.py", "tests/test_surrogate.py"),
        ("notebooks/03-weights",),
        ("kernel",),
    ),
    Behaviour(
        "distance",
        "lime",
        "lime's distance: cosine distance of the mask to the original, times 100",
        (*LIME_TESTS, "tests/test_fast.py"),
        ("notebooks/03-weights",),
        ("distance",),
    ),
    Behaviour(
        "surrogate",
        "lime",
        "lime's surrogate: a weighted ridge regression, penalty 1, unpenalised intercept",
        (*LIME_TESTS, "tests/test_fast.py", "tests/test_surrogate.py"),
        ("notebooks/04-surrogate",),
        ("surrogate", "ridge"),
    ),
    Behaviour(
        "first-row",
        "lime",
        "lime's first sample: the original document, all words kept, weight 1",
        (*LIME_TESTS, "tests/test_perturbation.py"),
        ("notebooks/02-sampling",),
        ("first_row", "original_document"),
    ),
    Behaviour(
        "tokenisation",
        "lime",
        "lime's tokenisation: split on runs of non-word characters, one feature per distinct word (bag of words)",
        (*LIME_TESTS, "tests/test_perturbation.py", "tests/test_fast.py"),
        (),
        ("tokenises", "bag_of_words"),
    ),
    Behaviour(
        "defaults",
        "lime",
        "lime's defaults as users call it: kernel width 25, 10 features, 'auto' selection, 5000 samples",
        ("tests/test_lime_defaults.py", "tests/test_upstream_behaviour.py"),
        (),
        ("kernel_width_25", "10_features", "feature_selection", "5000_samples"),
    ),
    Behaviour(
        "random-state",
        "lime",
        "lime's random_state: a seed makes runs repeatable, and the stream continues from run to run",
        (*LIME_TESTS, "tests/test_fast.py"),
        (),
        ("random_state", "seed"),
    ),
    Behaviour(
        "tfidf",
        "sklearn",
        "scikit-learn's TfidfVectorizer defaults: raw counts, smoothed idf, l2 norm, lower case, 2+ character words",
        (*SKLEARN_TESTS, "tests/test_fast.py"),
        ("notebooks/01-tfidf",),
        ("tfidf_default", "definition_1"),
    ),
)

_TEXT = "lime_text.py"
_BASE = "lime_base.py"
_VECTORIZER = "feature_extraction/text.py"
# the TfidfVectorizer's own defaults (CountVectorizer has the same lines with dtype=np.int64, so anchor on these)
_TFIDF_DEFAULTS = """        dtype=np.float64,
        norm="l2",
        use_idf=True,
        smooth_idf=True,
        sublinear_tf=False,
    ):"""
_TFIDF_TOKENS = """        lowercase=True,
        preprocessor=None,
        tokenizer=None,
        analyzer="word",
        stop_words=None,
        token_pattern=r"(?u)\\b\\w\\w+\\b",
        ngram_range=(1, 1),
        max_df=1.0,
        min_df=1,
        max_features=None,
        vocabulary=None,
        binary=False,
        dtype=np.float64,"""


def _tfidf_default(old: str, new: str) -> tuple[Patch, ...]:
    return (Patch(_VECTORIZER, _TFIDF_DEFAULTS, _TFIDF_DEFAULTS.replace(old, new)),)


def _tfidf_token_default(old: str, new: str) -> tuple[Patch, ...]:
    return (Patch(_VECTORIZER, _TFIDF_TOKENS, _TFIDF_TOKENS.replace(old, new)),)


_SAMPLE_SIZES = "sample = self.random_state.randint(1, doc_size + 1, num_samples - 1)"
_CHOICE = """inactive = self.random_state.choice(features_range, size,
                                                replace=False)"""
_KERNEL = "return np.sqrt(np.exp(-(d ** 2) / kernel_width ** 2))"
_DISTANCE = """            return sklearn.metrics.pairwise.pairwise_distances(
                x, x[0], metric=distance_metric).ravel() * 100"""
_RIDGE = """            model_regressor = Ridge(alpha=1, fit_intercept=True,
                                    random_state=self.random_state)"""
_EXPLAINER_DEFAULTS = """                 kernel_width=25,
                 kernel=None,
                 verbose=False,
                 class_names=None,
                 feature_selection='auto',
                 split_expression=r'\\W+',
                 bow=True,
                 mask_string=None,
                 random_state=None,
                 char_level=False):"""


def _explainer_default(old: str, new: str) -> tuple[Patch, ...]:
    return (Patch(_TEXT, _EXPLAINER_DEFAULTS, _EXPLAINER_DEFAULTS.replace(old, new)),)


MUTANTS = (
    # ------------------------------------------------------------------ lime: behaviour changes
    Mutant(
        "sampling-never-removes-every-word",
        "sampling",
        BEHAVIOUR_CHANGE,
        "the number of removed words drawn from {1, ..., d - 1} instead of {1, ..., d}",
        (Patch(_TEXT, _SAMPLE_SIZES, _SAMPLE_SIZES.replace("doc_size + 1", "doc_size")),),
    ),
    Mutant(
        "sampling-with-replacement",
        "sampling",
        BEHAVIOUR_CHANGE,
        "the removed words drawn with replacement (fewer than s distinct words removed)",
        (Patch(_TEXT, _CHOICE, _CHOICE.replace("replace=False", "replace=True")),),
    ),
    Mutant(
        "kernel-without-square-root",
        "kernel",
        BEHAVIOUR_CHANGE,
        "kernel exp(-D^2 / w^2) without its square root (psi squared, bandwidth nu / sqrt 2)",
        (Patch(_TEXT, _KERNEL, "return np.exp(-(d ** 2) / kernel_width ** 2)"),),
    ),
    Mutant(
        "distance-scale-50",
        "distance",
        BEHAVIOUR_CHANGE,
        "cosine distance times 50 instead of 100",
        (Patch(_TEXT, _DISTANCE, _DISTANCE.replace("* 100", "* 50")),),
    ),
    Mutant(
        "distance-euclidean",
        "distance",
        BEHAVIOUR_CHANGE,
        "default distance_metric 'euclidean' instead of 'cosine'",
        (
            Patch(
                _TEXT,
                "distance_metric='cosine',\n                         model_regressor=None):",
                "distance_metric='euclidean',\n                         model_regressor=None):",
            ),
        ),
    ),
    Mutant(
        "ridge-penalty-half",
        "surrogate",
        BEHAVIOUR_CHANGE,
        "the surrogate's ridge penalty 0.5 instead of 1",
        (Patch(_BASE, _RIDGE, _RIDGE.replace("alpha=1,", "alpha=0.5,")),),
    ),
    Mutant(
        "ridge-without-intercept",
        "surrogate",
        BEHAVIOUR_CHANGE,
        "the surrogate fitted without an intercept",
        (Patch(_BASE, _RIDGE, _RIDGE.replace("fit_intercept=True", "fit_intercept=False")),),
    ),
    Mutant(
        "first-row-not-the-original",
        "first-row",
        BEHAVIOUR_CHANGE,
        "the original document moved from the first row to the last",
        (
            Patch(
                _TEXT,
                "        labels = classifier_fn(inverse_data)\n",
                "        data = np.roll(data, -1, axis=0)\n"
                "        inverse_data = inverse_data[1:] + inverse_data[:1]\n"
                "        labels = classifier_fn(inverse_data)\n",
            ),
        ),
    ),
    Mutant(
        "first-row-not-weighted",
        "first-row",
        BEHAVIOUR_CHANGE,
        "the original document given weight 0 instead of 1",
        (
            Patch(
                _BASE,
                "        weights = self.kernel_fn(distances)\n",
                "        weights = self.kernel_fn(distances)\n        weights[0] = 0.0\n",
            ),
        ),
    ),
    Mutant(
        "split-on-whitespace",
        "tokenisation",
        BEHAVIOUR_CHANGE,
        "default split_expression r'\\s+' (whitespace) instead of r'\\W+', in IndexedString and the explainer",
        (
            *_explainer_default("split_expression=r'\\W+'", "split_expression=r'\\s+'"),
            Patch(
                _TEXT,
                "def __init__(self, raw_string, split_expression=r'\\W+', bow=True,",
                "def __init__(self, raw_string, split_expression=r'\\s+', bow=True,",
            ),
        ),
    ),
    Mutant(
        "bow-false-by-default",
        "tokenisation",
        BEHAVIOUR_CHANGE,
        "default bow=False (one feature per word position) instead of a bag of words",
        _explainer_default("bow=True,", "bow=False,"),
    ),
    Mutant(
        "kernel-width-30",
        "defaults",
        BEHAVIOUR_CHANGE,
        "default kernel_width 30 instead of 25",
        _explainer_default("kernel_width=25,", "kernel_width=30,"),
    ),
    Mutant(
        "num-features-6",
        "defaults",
        BEHAVIOUR_CHANGE,
        "default num_features 6 instead of 10",
        (Patch(_TEXT, "num_features=10,", "num_features=6,"),),
    ),
    Mutant(
        "feature-selection-none",
        "defaults",
        BEHAVIOUR_CHANGE,
        "default feature_selection 'none' instead of 'auto'",
        _explainer_default("feature_selection='auto',", "feature_selection='none',"),
    ),
    Mutant(
        "auto-threshold-5",
        "defaults",
        BEHAVIOUR_CHANGE,
        "'auto' uses forward selection up to 5 features instead of 6",
        (Patch(_BASE, "if num_features <= 6:", "if num_features <= 5:"),),
    ),
    Mutant(
        "num-samples-1000",
        "defaults",
        BEHAVIOUR_CHANGE,
        "default num_samples 1000 instead of 5000",
        (Patch(_TEXT, "num_samples=5000,", "num_samples=1000,"),),
    ),
    Mutant(
        "random-state-ignored",
        "random-state",
        BEHAVIOUR_CHANGE,
        "the explainer's random_state ignored (numpy's global stream used)",
        (
            Patch(
                _TEXT,
                "self.random_state = check_random_state(random_state)",
                "self.random_state = check_random_state(None)",
            ),
        ),
    ),
    # ------------------------------------------------------------------ lime: equivalent rewrites
    Mutant(
        "kernel-as-one-exponential",
        "kernel",
        EQUIVALENT_REWRITE,
        "kernel written exp(-D^2 / (2 w^2)) instead of sqrt(exp(-D^2 / w^2)): same function, other rounding",
        (Patch(_TEXT, _KERNEL, "return np.exp(-(d ** 2) / (2 * kernel_width ** 2))"),),
    ),
    Mutant(
        "distance-by-hand",
        "distance",
        EQUIVALENT_REWRITE,
        "cosine distance computed as 1 - <x, x0> / (|x| |x0|) by a helper instead of by sklearn: other rounding",
        (
            Patch(_TEXT, _DISTANCE, "            return _cosine_distance_by_hand(x) * 100"),
            Patch(
                _TEXT,
                "class TextDomainMapper(explanation.DomainMapper):\n",
                "def _cosine_distance_by_hand(x):\n"
                "    dense = np.asarray(x.todense(), dtype=float)\n"
                "    dots = dense @ dense[0]\n"
                "    norms = np.sqrt((dense ** 2).sum(axis=1)) * np.sqrt((dense[0] ** 2).sum())\n"
                "    # an empty document is orthogonal to the original (similarity 0), as in sklearn\n"
                "    similarity = np.divide(dots, norms, out=np.zeros_like(dots), where=norms > 0)\n"
                "    return np.clip(1.0 - similarity, 0.0, 2.0)\n"
                "\n\n"
                "class TextDomainMapper(explanation.DomainMapper):\n",
            ),
        ),
    ),
    Mutant(
        "choice-as-permutation",
        "sampling",
        EQUIVALENT_REWRITE,
        "removed words as permutation(d)[:s] instead of choice(range(d), s, replace=False): same stream",
        (Patch(_TEXT, _CHOICE, "inactive = self.random_state.permutation(doc_size)[:size]"),),
    ),
    Mutant(
        "randint-shifted",
        "sampling",
        EQUIVALENT_REWRITE,
        "sizes as 1 + randint(0, d) instead of randint(1, d + 1): same stream",
        (Patch(_TEXT, _SAMPLE_SIZES, "sample = 1 + self.random_state.randint(0, doc_size, num_samples - 1)"),),
    ),
    Mutant(
        "ridge-by-svd",
        "surrogate",
        EQUIVALENT_REWRITE,
        "the surrogate's ridge solved by SVD instead of sklearn's default solver: other rounding",
        (Patch(_BASE, _RIDGE, _RIDGE.replace("fit_intercept=True,", "fit_intercept=True, solver='svd',")),),
    ),
    # ------------------------------------------------------------------ scikit-learn: behaviour changes
    Mutant(
        "tfidf-unsmoothed-idf",
        "tfidf",
        BEHAVIOUR_CHANGE,
        "TfidfVectorizer default smooth_idf=False",
        _tfidf_default("smooth_idf=True", "smooth_idf=False"),
    ),
    Mutant(
        "tfidf-l1-norm",
        "tfidf",
        BEHAVIOUR_CHANGE,
        "TfidfVectorizer default norm='l1'",
        _tfidf_default('norm="l2"', 'norm="l1"'),
    ),
    Mutant(
        "tfidf-one-letter-words",
        "tfidf",
        BEHAVIOUR_CHANGE,
        "TfidfVectorizer default token_pattern keeps one-letter words",
        _tfidf_token_default('token_pattern=r"(?u)\\b\\w\\w+\\b"', 'token_pattern=r"(?u)\\b\\w+\\b"'),
    ),
    Mutant(
        "tfidf-case-sensitive",
        "tfidf",
        BEHAVIOUR_CHANGE,
        "TfidfVectorizer default lowercase=False",
        _tfidf_token_default("lowercase=True", "lowercase=False"),
    ),
    Mutant(
        "tfidf-sublinear-tf",
        "tfidf",
        BEHAVIOUR_CHANGE,
        "TfidfVectorizer default sublinear_tf=True",
        _tfidf_default("sublinear_tf=False", "sublinear_tf=True"),
    ),
    # ------------------------------------------------------------------ scikit-learn: equivalent rewrite
    Mutant(
        "idf-as-log-difference",
        "tfidf",
        EQUIVALENT_REWRITE,
        "idf computed as log(n) - log(df) + 1 instead of log(n / df) + 1: other rounding",
        (
            Patch(
                _VECTORIZER,
                "            self.idf_ /= df\n            # `np.log` preserves the dtype of `df` and thus `dtype`.\n"
                "            np.log(self.idf_, out=self.idf_)\n",
                "            np.log(self.idf_, out=self.idf_)\n            self.idf_ -= np.log(df)\n",
            ),
        ),
    ),
)


def behaviour(key: str) -> Behaviour:
    """The behaviour called ``key`` (KeyError names the known ones)."""
    for candidate in BEHAVIOURS:
        if candidate.key == key:
            return candidate
    raise KeyError(f"unknown behaviour {key!r}; known: {[b.key for b in BEHAVIOURS]}")


def mutant(name: str) -> Mutant:
    """The mutant called ``name`` (KeyError names the known ones)."""
    for candidate in MUTANTS:
        if candidate.name == name:
            return candidate
    raise KeyError(f"unknown mutant {name!r}; known: {[m.name for m in MUTANTS]}")
