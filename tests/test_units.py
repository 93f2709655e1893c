"""One unit per call site: the bandwidth can never be passed in the wrong unit silently (issue 15, item 5).

The theory functions take the paper's ν, by keyword only (``nu=``, or ``nus=`` for a grid); the lime-facing ones
take lime's ``kernel_width`` (= 100 ν), by keyword only; no public function takes both.  A bandwidth passed
positionally to a theory function is a TypeError that names the keyword and its unit, and ``lt.explain`` refuses
``nu=`` with the kernel width to pass instead.  The functions are read from ``lt.__all__``'s signatures, so a new
public function is checked without being listed here.
"""

from __future__ import annotations

import inspect

import pytest

import limetheory as lt

THEORY_KEYWORDS = ("nu", "nus")
LIME_KEYWORD = "kernel_width"
_POSITIONAL = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)


def _functions():
    """The public functions (not the record classes, whose fields store a value as given)."""
    return {
        name: getattr(lt, name)
        for name in lt.__all__
        if inspect.isfunction(inspect.unwrap(getattr(lt, name))) and not inspect.isclass(getattr(lt, name))
    }


def _bandwidth(function):
    parameters = inspect.signature(function).parameters
    return [name for name in (*THEORY_KEYWORDS, LIME_KEYWORD) if name in parameters]


def unit_problems(name, function):
    """What is wrong with the bandwidth of one function (empty when nothing is)."""
    parameters = inspect.signature(function).parameters
    found = []
    keywords = _bandwidth(function)
    if len(keywords) > 1:
        found.append(f"{name} takes the bandwidth in two units: {keywords}")
    for keyword in keywords:
        if parameters[keyword].kind is not inspect.Parameter.KEYWORD_ONLY:
            found.append(f"{name} takes {keyword} positionally")
        elif keyword in THEORY_KEYWORDS:
            positional = sum(p.kind in _POSITIONAL for p in parameters.values())
            try:
                function(*[None] * (positional + 1))
            except TypeError as error:
                if f"{keyword}=" not in str(error):
                    found.append(f"{name}: a positional bandwidth is refused without naming {keyword}: {error}")
            else:
                found.append(f"{name} accepted one positional argument too many")
    return found


BANDWIDTH_FUNCTIONS = sorted(name for name, function in _functions().items() if _bandwidth(function))


def test_the_public_api_has_bandwidths_in_both_units():
    """Not vacuous: the theory functions and the lime-facing ones are both found."""
    units = {keyword for name in BANDWIDTH_FUNCTIONS for keyword in _bandwidth(getattr(lt, name))}
    assert {"nu", "kernel_width"} <= units, units
    assert {"psi", "alpha", "sigma_inverse", "beta_boolean", "beta_linear_exact", "explain"} <= set(BANDWIDTH_FUNCTIONS)


@pytest.mark.parametrize("name", BANDWIDTH_FUNCTIONS)
def test_bandwidth_is_keyword_only_in_one_unit(name):
    assert unit_problems(name, getattr(lt, name)) == []


def test_a_positional_bandwidth_names_nu():
    with pytest.raises(TypeError, match=r"beta_boolean\(\.\.\., nu=\.\.\.\).*kernel_width / 100"):
        lt.beta_boolean("good", ["good", "food"], 0.25)
    with pytest.raises(TypeError, match=r"psi\(\.\.\., nu=\.\.\.\)"):
        lt.psi(0.5, 25)


def test_the_checker_can_fail():
    """Samples with each fault: a positional ν, both units, and a keyword-only ν whose positional misuse gets
    Python's own message (which names neither the keyword nor the unit)."""

    def positional(t, nu):
        """t."""
        return t

    def both(t, *, nu, kernel_width):
        """t."""
        return t

    def bare(t, *, nu):
        """t."""
        return t

    assert unit_problems("positional", positional) == ["positional takes nu positionally"]
    assert unit_problems("both", both)[0] == "both takes the bandwidth in two units: ['nu', 'kernel_width']"
    assert "without naming nu" in unit_problems("bare", bare)[0]
    assert unit_problems("checked", lt.units.bandwidth_keyword(bare)) == []


def test_explain_refuses_nu():
    from sklearn.feature_extraction.text import CountVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline

    model = make_pipeline(CountVectorizer(), LogisticRegression()).fit(["good food", "bad food"], [1, 0])
    with pytest.raises(TypeError, match=r"kernel_width = 100 ν .*pass kernel_width=25\.0 instead"):
        lt.explain(model, "good food", nu=0.25)
    with pytest.raises(TypeError):
        lt.explain(model, "good food", 25)
