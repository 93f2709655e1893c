"""The bandwidth's unit at each call site.

The paper's bandwidth is ν; lime's is ``kernel_width = 100 ν``.  The theory functions take ν, the functions that
run or mirror lime take ``kernel_width``, and a value passed in the wrong unit must never be accepted silently
(``beta_boolean(expr, words, 25)`` would be ν = 25, a kernel width of 2500).  So every theory function takes its
bandwidth by keyword only (``nu=``), every lime-facing one ``kernel_width=``, and :func:`bandwidth_keyword` turns
a positional bandwidth into an error that names the keyword and the unit.
"""

from __future__ import annotations

import functools
import inspect

_POSITIONAL = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)


def bandwidth_keyword(function):
    """Decorate a theory function whose bandwidth is keyword-only, so that a positional one is a clear TypeError.

    Python's own message ("takes 2 positional arguments but 3 were given") does not say which argument is the
    bandwidth nor in which unit it is expected; this one does.

    Parameters
    ----------
    function : callable
        A function with a keyword-only parameter ``nu`` (or ``nus``, a grid of ν).

    Returns
    -------
    callable
        The same function, with the same signature and docstring.

    Examples
    --------
    >>> @bandwidth_keyword
    ... def width(d, *, nu):
    ...     return d * nu
    >>> width(4, nu=0.25)
    1.0
    >>> width(4, 25)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    TypeError: width() takes the bandwidth by keyword only: width(..., nu=...), with nu the paper's bandwidth ν = ...
    """
    parameters = inspect.signature(function).parameters
    keyword = "nus" if "nus" in parameters else "nu"
    if parameters.get(keyword) is None or parameters[keyword].kind is not inspect.Parameter.KEYWORD_ONLY:
        raise TypeError(f"{function.__name__} must take its bandwidth {keyword!r} as a keyword-only parameter")
    n_positional = sum(p.kind in _POSITIONAL for p in parameters.values())
    message = (
        f"{function.__name__}() takes the bandwidth by keyword only: {function.__name__}(..., {keyword}=...), "
        f"with {keyword} the paper's bandwidth ν = kernel_width / 100 (lime's default kernel_width=25 is nu=0.25)"
    )

    @functools.wraps(function)
    def checked(*args, **kwargs):
        if len(args) > n_positional:
            raise TypeError(message)
        return function(*args, **kwargs)

    return checked
