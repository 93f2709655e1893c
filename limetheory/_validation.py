"""Argument checks shared by the public functions (one clear ValueError each), and the resource limits.

Resource limits
---------------
A call whose cost grows with its arguments estimates that cost *before* any work starts and refuses, with a
ValueError that states the estimate and the limit, when it exceeds

* ``MEMORY_LIMIT_BYTES`` (2 GiB) of work arrays, or
* ``WORK_LIMIT_FLOPS`` (2e10) floating-point operations, about ten seconds on one core of a 2-core x86-64
  machine (a vectorised numpy pass or a LAPACK factorisation runs at 2-4e9 operations per second here).

The routines that are O(d) in time and memory (alpha, c_d, the sigmas, beta_from_gamma, ...) hold about
``LINEAR_BYTES_PER_WORD`` bytes per word at their peak (115 measured at d = 10**7, where each takes 0.2-2 s),
so they accept d <= ``MAX_LINEAR_D`` = 2**24; dense (d + 1) x (d + 1) matrices stop at d = 16383.
"""

from __future__ import annotations

import contextlib
import contextvars
import numbers

import numpy as np

#: largest memory (bytes) the work arrays of one call may take; checked before the work starts
MEMORY_LIMIT_BYTES = 2 * 1024**3
#: largest number of floating-point operations one call may do (about ten seconds on one core here)
WORK_LIMIT_FLOPS = 2e10
#: operations per second assumed when a refusal states a time (the rate WORK_LIMIT_FLOPS's "ten seconds" assumes)
FLOPS_PER_SECOND = 2e9
#: the limit in force: WORK_LIMIT_FLOPS, or what ``work_limit`` sets for the calls inside it
_WORK_LIMIT = contextvars.ContextVar("limetheory_work_limit", default=WORK_LIMIT_FLOPS)
#: peak bytes per word of the O(d) routines (115 measured at d = 10**7, rounded up)
LINEAR_BYTES_PER_WORD = 128
#: largest d accepted by the O(d) routines: MEMORY_LIMIT_BYTES / LINEAR_BYTES_PER_WORD
MAX_LINEAR_D = MEMORY_LIMIT_BYTES // LINEAR_BYTES_PER_WORD
#: token patterns whose tokens are exactly the maximal runs of word characters (of length >= 2 or >= 1): with them,
#: a word of lime (a maximal run of \w in the original text) is analysed on its own
WORD_TOKEN_PATTERNS = frozenset({r"(?u)\b\w\w+\b", r"\b\w\w+\b", r"(?u)\b\w+\b", r"\b\w+\b"})


def check_memory(nbytes, what: str, advice: str = "") -> None:
    """Refuse a call whose work arrays would take more than ``MEMORY_LIMIT_BYTES``, stating the estimate.

    Parameters
    ----------
    nbytes : int or float
        Estimated peak memory of the work arrays, in bytes.
    what : str
        What needs it, e.g. ``"a dense Sigma at d = 1000000000"``.
    advice : str
        What to use instead (appended after a semicolon).

    Examples
    --------
    >>> check_memory(8 * 1001**2, "a dense Sigma at d = 1000")
    >>> check_memory(8e18, "a dense Sigma at d = 1000000000", "use sigma_coefficients")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: a dense Sigma at d = 1000000000 needs about 8e+18 bytes, above the limit of 2 GiB ...
    """
    if nbytes > MEMORY_LIMIT_BYTES:
        tail = f"; {advice}" if advice else ""
        raise ValueError(
            f"{what} needs about {float(nbytes):.2g} bytes, above the limit of 2 GiB ({MEMORY_LIMIT_BYTES} bytes){tail}"
        )


def check_work(flops, what: str, advice: str = "") -> None:
    """Refuse a call that would take more than the work limit (``WORK_LIMIT_FLOPS``), stating the estimate.

    The limit is ``WORK_LIMIT_FLOPS`` unless a caller raised it with :func:`work_limit` (``explain(max_work=)``).
    The message states the estimate in operations and in seconds at ``FLOPS_PER_SECOND``.

    Parameters
    ----------
    flops : int or float
        Estimated number of floating-point operations.
    what : str
        What costs it, e.g. ``"alphas at d = 10000000 with p_max = 1000"``.
    advice : str
        What to do instead (appended after a semicolon).

    Examples
    --------
    >>> check_work(1e9, "alphas at d = 1000000 with p_max = 24")
    >>> check_work(4e16, "alphas at d = 10000000 with p_max = 10000000")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: alphas at d = 10000000 with p_max = 10000000 costs about 4e+16 floating-point operations ...
    """
    limit = _WORK_LIMIT.get()
    if flops > limit:
        tail = f"; {advice}" if advice else ""
        raise ValueError(
            f"{what} costs about {float(flops):.2g} floating-point operations (about "
            f"{seconds_text(flops)} here), above the limit of {limit:.2g} (about {seconds_text(limit)}){tail}"
        )


def seconds_text(flops) -> str:
    """The time ``flops`` operations take at ``FLOPS_PER_SECOND``, in words (``"10 s"``, ``"4.2 min"``, ...).

    Examples
    --------
    >>> seconds_text(2e10), seconds_text(5.2e11), seconds_text(1e15)
    ('10 s', '4.3 min', '5.8 days')
    """
    seconds = float(flops) / FLOPS_PER_SECOND
    for unit, size, from_ in (("days", 86400.0, 172800.0), ("h", 3600.0, 7200.0), ("min", 60.0, 100.0)):
        if seconds >= from_:
            return f"{_rounded(seconds / size)} {unit}"
    return f"{_rounded(seconds)} s"


def _rounded(value):
    """Two significant digits below 10, whole numbers above (no exponent in a time)."""
    return f"{value:.2g}" if value < 10 else f"{value:.0f}"


@contextlib.contextmanager
def work_limit(flops):
    """Within the block, :func:`check_work` refuses above ``flops`` instead of ``WORK_LIMIT_FLOPS``.

    ``explain(..., max_work=)`` runs an exact route whose estimate is above the default limit this way.

    Examples
    --------
    >>> with work_limit(1e12):
    ...     check_work(5e11, "a long document")
    """
    token = _WORK_LIMIT.set(float(flops))
    try:
        yield
    finally:
        _WORK_LIMIT.reset(token)


def current_work_limit() -> float:
    """The work limit in force: ``WORK_LIMIT_FLOPS``, or what an enclosing :func:`work_limit` set.

    For a computation that fits itself to the limit instead of being refused by :func:`check_work`.

    Examples
    --------
    >>> current_work_limit() == WORK_LIMIT_FLOPS
    True
    >>> with work_limit(1e12):
    ...     current_work_limit()
    1000000000000.0
    """
    return _WORK_LIMIT.get()


def check_linear_d(d: int, name: str = "d", what: str = "this O(d) routine") -> int:
    """Refuse a number of words beyond ``MAX_LINEAR_D`` for a routine that is O(d) in time and memory.

    ``d`` must already be a Python int (from :func:`check_int`).  Returns it unchanged.

    Examples
    --------
    >>> check_linear_d(10**7)
    10000000
    >>> check_linear_d(10**9, what="alphas")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: alphas at d = 1000000000 needs about 1.3e+11 bytes, ... d must be <= 16777216 (about 128 bytes per word)
    """
    check_memory(
        LINEAR_BYTES_PER_WORD * d,
        f"{what} at {name} = {d}",
        f"{name} must be <= {MAX_LINEAR_D} (about {LINEAR_BYTES_PER_WORD} bytes per word)",
    )
    return d


def check_int(value, name: str, *, minimum: int | None = None, maximum: int | None = None) -> int:
    """Return ``value`` as an int, or raise naming ``name`` and the allowed range."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {value!r}")
    value = int(value)
    if minimum is not None and value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    if maximum is not None and value > maximum:
        raise ValueError(f"{name} must be <= {maximum}, got {value}")
    return value


def _as_real(value, name: str, allowed: str) -> float:
    """``float(value)`` for a real number (a bool is not one); a TypeError saying ``name`` must be ``allowed``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be {allowed}, got {value!r}")
    return float(value)


def check_nu(nu, name: str = "nu") -> float:
    """The bandwidth: a positive real number or ``np.inf`` (the large-bandwidth limit)."""
    nu = _as_real(nu, name, "a positive real number or np.inf")
    if np.isnan(nu) or nu <= 0:
        raise ValueError(f"{name} must be > 0 (np.inf for the large-bandwidth limit), got {nu}")
    return nu


def check_positive_finite(value, name: str) -> float:
    """A finite real number > 0 (for lime's kernel width)."""
    value = _as_real(value, name, "a positive real number")
    if not np.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a finite number > 0, got {value}")
    return value


def check_text(text, name: str = "text") -> str:
    """A non-empty document with at least one word character."""
    if not isinstance(text, str):
        raise TypeError(f"{name} must be a str, got {type(text).__name__}")
    if not text.strip():
        raise ValueError(f"{name} must be a non-empty document, got {text!r}")
    return text


def check_d_invertible(value, name: str = "d") -> int:
    """A number of distinct words for which Sigma is invertible: an integer >= 2.

    For d = 1 LIME always removes the only word, so alpha_1 = 0 and Sigma is singular.
    """
    value = check_int(value, name)
    if value < 2:
        raise ValueError(
            f"{name} must be >= 2, got {value}: with one distinct word LIME always removes it, "
            "so alpha_1 = 0 and Sigma is singular (c_1 = 0)"
        )
    return check_linear_d(value, name, "the tilted law of s (an O(d) computation)")


def check_bool(value, name: str) -> bool:
    """A flag: True or False (numpy booleans accepted)."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {value!r}")
    return bool(value)


def check_real(value, name: str, *, allow_inf: bool = False) -> float:
    """A real number (not NaN; +-inf only with ``allow_inf``)."""
    value = _as_real(value, name, "a real number")
    if np.isnan(value) or (not allow_inf and np.isinf(value)):
        raise ValueError(f"{name} must be a finite real number, got {value}")
    return value


def as_float_array(value, name: str, *, ndim: int | None = None, allow_nonfinite: bool = False) -> np.ndarray:
    """``value`` as a float ndarray of the given number of dimensions, all entries finite (unless allowed).

    Raises TypeError for non-numeric content (strings, objects, complex numbers) and ValueError for the
    wrong number of dimensions or a NaN/inf entry, each naming ``name``.
    """
    if isinstance(value, (str, bytes)):
        raise TypeError(f"{name} must be an array of real numbers, got {type(value).__name__}")
    try:
        array = np.asarray(value)
    except (TypeError, ValueError) as error:  # ragged nested sequences
        raise ValueError(f"{name} must be a rectangular array of real numbers ({error})") from None
    if array.dtype == object or not (np.issubdtype(array.dtype, np.number) or array.dtype == np.bool_):
        raise TypeError(f"{name} must be an array of real numbers, got dtype {array.dtype}")
    if np.iscomplexobj(array):
        raise TypeError(f"{name} must be real, got complex dtype {array.dtype}")
    array = array.astype(float)
    if ndim is not None and array.ndim != ndim:
        raise ValueError(f"{name} must be a {ndim}-D array, got shape {array.shape}")
    if not allow_nonfinite and not np.isfinite(array).all():
        raise ValueError(f"{name} must be finite (no NaN or inf)")
    return array


def check_linear_model(lam, tfidf) -> tuple[np.ndarray, np.ndarray]:
    """A linear model on the normalised TF-IDF: its coefficients ``lam`` and the document's weights ``tfidf``.

    Returns ``(lam, tfidf / tfidf.max())`` as float arrays (phi is invariant under a rescaling of the weights).
    ``tfidf[j]`` = m_j v_j is 0 for a word the model cannot see; at least one must be positive, d >= 2.
    """
    lam, tfidf = check_linear_arrays(lam, tfidf)
    top = tfidf.max()
    if not top > 0:
        raise ValueError("tfidf must have a positive entry: a document the model cannot see at all has no phi")
    return lam, tfidf / top


def check_linear_arrays(lam, tfidf) -> tuple[np.ndarray, np.ndarray]:
    """``lam`` and ``tfidf`` as float arrays of one length d >= 2 with ``tfidf`` >= 0 (a zero document allowed)."""
    lam = as_float_array(lam, "lam", ndim=1)
    tfidf = as_float_array(tfidf, "tfidf", ndim=1)
    if lam.shape != tfidf.shape:
        raise ValueError(
            f"lam and tfidf must have the same length (one entry per word), got {lam.size} and {tfidf.size}"
        )
    if lam.size < 2:
        raise ValueError(
            f"the document must have d >= 2 distinct words (Sigma is singular for d = 1), got d = {lam.size}"
        )
    if (tfidf < 0).any():
        raise ValueError(f"tfidf must be >= 0 (m_j v_j, or 0 for a word the model cannot see), got {tfidf.min()}")
    return lam, tfidf


def check_vectorizer(
    vectorizer, name: str = "vectorizer", *, tfidf: bool = False, unigrams: bool = False, mirrored_by: str | None = None
):
    """A fitted scikit-learn ``CountVectorizer`` or ``TfidfVectorizer`` with the settings its caller relies on.

    Every function that reads a vectorizer checks it here, so that one object is refused with the same words
    everywhere.  Returns ``vectorizer`` unchanged.

    Parameters
    ----------
    vectorizer : object
        The object to check.
    name : str
        The argument's name, used in the messages.
    tfidf : bool
        Require the paper's normalised TF-IDF (Definition 1): a ``TfidfVectorizer`` with ``use_idf=True``,
        ``norm='l2'``, ``sublinear_tf=False`` and ``binary=False``.
    unigrams : bool
        Require ``analyzer='word'`` and ``ngram_range=(1, 1)``: then whether a column is positive in a perturbed
        document is a function of which lime words are kept.
    mirrored_by : str, optional
        The caller that recomputes the vectorizer's tokenisation itself (e.g. ``"the fast engine"``): refuse every
        setting it cannot mirror exactly (only word unigrams on maximal runs of word characters, no custom
        tokenizer or preprocessor, no accent stripping, norm 'l1', 'l2' or None).

    Returns
    -------
    CountVectorizer or TfidfVectorizer
        ``vectorizer`` itself.

    Raises
    ------
    TypeError
        If ``vectorizer`` is not a ``CountVectorizer`` (``TfidfVectorizer`` with ``tfidf``).
    ValueError
        If it is not fitted, or a setting the caller relies on differs (the message lists every such setting).

    Examples
    --------
    >>> from sklearn.feature_extraction.text import TfidfVectorizer
    >>> vectorizer = TfidfVectorizer().fit(["good food", "bad service"])
    >>> check_vectorizer(vectorizer, tfidf=True) is vectorizer
    True
    >>> check_vectorizer(TfidfVectorizer(ngram_range=(1, 2)).fit(["good food"]), unigrams=True)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: vectorizer must use analyzer='word' and ngram_range=(1, 1): ...
    """
    # imported here, not at the top: the theory's modules import this one, and scikit-learn (about 2 CPU-s in a
    # fresh interpreter) is loaded only where a vectorizer is checked
    from sklearn.feature_extraction.text import CountVectorizer, TfidfVectorizer

    kind = TfidfVectorizer if tfidf else CountVectorizer
    if not isinstance(vectorizer, kind):
        wanted = "TfidfVectorizer" if tfidf else "CountVectorizer or TfidfVectorizer"
        raise TypeError(f"{name} must be a fitted scikit-learn {wanted}, got {type(vectorizer).__name__}")
    if getattr(vectorizer, "vocabulary_", None) is None:
        raise ValueError(f"{name} must be fitted (call .fit first)")
    if tfidf:
        if not vectorizer.use_idf:
            raise ValueError(f"{name} must be a fitted scikit-learn TfidfVectorizer with use_idf=True (with idf)")
        if vectorizer.norm != "l2" or vectorizer.sublinear_tf or vectorizer.binary:
            raise ValueError(
                f"{name} must compute the paper's normalised TF-IDF: norm='l2', sublinear_tf=False, binary=False"
            )
    if isinstance(vectorizer, TfidfVectorizer) and vectorizer.use_idf and getattr(vectorizer, "idf_", None) is None:
        raise ValueError(f"{name} must be fitted (call .fit first)")
    if unigrams and (vectorizer.analyzer != "word" or tuple(vectorizer.ngram_range) != (1, 1)):
        raise ValueError(
            f"{name} must use analyzer='word' and ngram_range=(1, 1): with n-grams or character analyzers, "
            "a column's presence is not a function of which lime words are kept"
        )
    if mirrored_by is not None:
        problems = _unmirrored_settings(vectorizer)
        if problems:
            raise ValueError(
                f"{mirrored_by} mirrors the {name}'s tokenisation exactly only for word unigrams on maximal "
                "runs of word characters; unsupported: " + "; ".join(problems)
            )
    return vectorizer


def _unmirrored_settings(vectorizer) -> list[str]:
    """The settings of a vectorizer under which a lime word is not analysed on its own, one phrase each."""
    problems = analyzer_problems(vectorizer)
    if tuple(vectorizer.ngram_range) != (1, 1):
        problems.append(f"ngram_range={tuple(vectorizer.ngram_range)} (only (1, 1))")
    return problems


def analyzer_problems(vectorizer, analyzer="word") -> list[str]:
    """The settings under which a Count or Tfidf vectorizer's analysis is not the one the package mirrors, one each.

    Its input, analyzer (``analyzer``: ``"word"``, where its tokens must be lime's words, or ``"char_wb"``),
    preprocessor, accents and norm, and with ``"word"`` its tokenizer and token pattern too (its n-grams aside: the
    caller says which it reads; ``"char_wb"`` ignores the tokenizer and the pattern).

    Examples
    --------
    >>> from sklearn.feature_extraction.text import CountVectorizer
    >>> analyzer_problems(CountVectorizer(analyzer="char", strip_accents="ascii"))
    ["analyzer='char' (only 'word')", "strip_accents='ascii' (only None)"]
    >>> analyzer_problems(CountVectorizer(analyzer="char_wb", tokenizer=str.split), "char_wb")
    []
    """
    from sklearn.feature_extraction.text import TfidfVectorizer

    words = analyzer == "word"
    problems = []
    if vectorizer.input != "content":
        problems.append(f"input={vectorizer.input!r} (only 'content')")
    if vectorizer.analyzer != analyzer:
        problems.append(f"analyzer={vectorizer.analyzer!r} (only {analyzer!r})")
    if words and vectorizer.tokenizer is not None:
        problems.append("a custom tokenizer")
    if vectorizer.preprocessor is not None:
        problems.append("a custom preprocessor")
    if vectorizer.strip_accents is not None:
        problems.append(f"strip_accents={vectorizer.strip_accents!r} (only None)")
    if words and vectorizer.token_pattern not in WORD_TOKEN_PATTERNS:
        problems.append(f"token_pattern={vectorizer.token_pattern!r} (only {sorted(WORD_TOKEN_PATTERNS)})")
    if isinstance(vectorizer, TfidfVectorizer) and vectorizer.norm not in ("l1", "l2", None):
        problems.append(f"norm={vectorizer.norm!r} (only 'l1', 'l2' or None)")
    return problems
