"""A figure's alt text: the first sentence of its caption, with the caption's TeX read as plain text.

Used by ``bookext.py`` on every captioned figure of the book (MyST-NB's figure outputs and glued figures), whose
image would otherwise carry its file path as alt text. A screen reader reads the alt text aloud, so it must be
words and symbols, not TeX: ``\\phi(\\xi)`` becomes ``φ(ξ)``.
"""

from __future__ import annotations

import re

# TeX commands a caption uses, as the characters a reader sees
SYMBOLS = {
    "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ε", "varepsilon": "ε", "zeta": "ζ",
    "eta": "η", "theta": "θ", "kappa": "κ", "lambda": "λ", "mu": "μ", "nu": "ν", "xi": "ξ", "pi": "π",
    "rho": "ρ", "sigma": "σ", "tau": "τ", "phi": "φ", "varphi": "φ", "chi": "χ", "psi": "ψ", "omega": "ω",
    "Gamma": "Γ", "Delta": "Δ", "Theta": "Θ", "Lambda": "Λ", "Xi": "Ξ", "Pi": "Π", "Sigma": "Σ", "Phi": "Φ",
    "Psi": "Ψ", "Omega": "Ω", "infty": "∞", "le": "≤", "leq": "≤", "ge": "≥", "geq": "≥", "neq": "≠", "ne": "≠",
    "approx": "≈", "sim": "∼", "cdot": "·", "times": "×", "pm": "±", "to": "→", "in": "∈", "notin": "∉",
    "subset": "⊂", "subseteq": "⊆", "cup": "∪", "cap": "∩", "sum": "Σ", "prod": "Π", "sqrt": "√", "partial": "∂",
    "mid": "|", "lvert": "|", "rvert": "|", "vert": "|", "lVert": "‖", "rVert": "‖", "Vert": "‖", "ldots": "…",
    "dots": "…", "cdots": "…", "top": "ᵀ", "log": "log", "exp": "exp", "max": "max", "min": "min",
}  # fmt: skip
# commands whose argument is shown as it is (a font or a text box), and spacing or sizing commands, dropped
WRAPPERS = ("mathbf", "mathrm", "mathit", "mathsf", "mathtt", "mathcal", "mathbb", "texttt", "text", "textrm",
            "operatorname", "boldsymbol")  # fmt: skip
# accents, as the combining character after what they cover (\hat\beta is β̂)
ACCENTS = {"hat": "\u0302", "widehat": "\u0302", "bar": "\u0304", "overline": "\u0305", "tilde": "\u0303",
           "widetilde": "\u0303", "dot": "\u0307", "vec": "\u20d7"}  # fmt: skip
DROPPED = ("left", "right", "big", "Big", "bigl", "bigr", "Bigl", "Bigr", "displaystyle", "quad", "qquad")
# a sentence ends at ". ", "! " or "? " before a capital letter (of any script), a digit or an opening bracket or
# quote, unless the word before the stop is one of these abbreviations
ABBREVIATIONS = ("e.g", "i.e", "cf", "vs", "Fig", "Eq", "Eqs", "Sec", "resp", "al", "approx", "Prop", "Thm", "Def")
# a first sentence shorter than this is a label ("Unequal weights."), and the next sentence joins it
MIN_WORDS = 5
SENTENCE_END = re.compile(r"[.!?](?=\s+(?:[^\W\d_]|[0-9(\"“‘']))")


def plain_math(tex: str) -> str:
    """TeX as the plain text a screen reader can read: Greek letters and relations as characters, no braces.

    Parameters
    ----------
    tex : str
        The TeX source of an inline formula, without its delimiters.

    Returns
    -------
    str
        The formula as text: known commands become their characters (``\\nu`` is ν), font commands keep their
        argument (``\\mathbf{1}`` is 1), an accent is the combining character after its argument (``\\hat\\beta`` is
        β̂), ``\\frac{a}{b}`` is ``a/b``, spacing commands and braces are dropped, and an unknown command keeps its
        name without the backslash.

    Examples
    --------
    >>> plain_math(r"\\phi(\\xi)")
    'φ(ξ)'
    >>> plain_math(r"f(\\phi(x)) = \\mathbf{1}[\\phi(x)_{\\texttt{the}} > 0]")
    'f(φ(x)) = 1[φ(x)_the > 0]'
    >>> plain_math(r"\\frac{1}{\\nu^2}, \\, \\nu \\to \\infty")
    '1/ν^2, ν → ∞'
    >>> plain_math(r"\\hat\\beta_n - \\hat{\\Sigma}_n") == "\u03b2\u0302_n - \u03a3\u0302_n"  # β̂_n - Σ̂_n
    True
    """
    if not isinstance(tex, str):
        raise TypeError(f"tex must be a str (a formula's TeX source), got {type(tex).__name__}")
    text = tex
    # \frac{a}{b} -> a/b, innermost first (a numerator may hold another fraction)
    fraction = re.compile(r"\\[dt]?frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}")
    while fraction.search(text):
        text = fraction.sub(r"\1/\2", text)
    text = re.sub(r"\\(?:" + "|".join(WRAPPERS) + r")\s*\{([^{}]*)\}", r"\1", text)
    accent = re.compile(r"\\(" + "|".join(ACCENTS) + r")(?![A-Za-z])\s*(\{[^{}]*\}|\\[A-Za-z]+|[A-Za-z0-9])")
    while accent.search(text):
        text = accent.sub(lambda m: plain_math(m.group(2).strip("{}")) + ACCENTS[m.group(1)], text)
    text = re.sub(r"\\(?:" + "|".join(DROPPED) + r")(?![A-Za-z])", "", text)
    text = re.sub(r"\\[,;:! ]", " ", text)
    text = re.sub(r"\\\|", "‖", text)
    text = re.sub(r"\\([{}%$&#_])", r"\1", text)
    text = re.sub(r"\\([A-Za-z]+)", lambda m: SYMBOLS.get(m.group(1), m.group(1)), text)
    text = text.replace("{", "").replace("}", "")
    return re.sub(r"\s+", " ", text).strip()


def first_sentence(text: str, min_words: int = MIN_WORDS) -> str:
    """The first sentence of a caption, with its whitespace collapsed; with the next ones if it is too short to say
    what the figure shows ("Not in the paper.", "Unequal weights.").

    Parameters
    ----------
    text : str
        The caption as plain text.
    min_words : int, default MIN_WORDS (5)
        Sentences are taken until they hold this many words (1 takes the first sentence whatever its length).

    Returns
    -------
    str
        The text up to and including the first full stop (or "!" or "?") that is followed by a space and a capital
        letter, a digit or an opening bracket or quote, does not end an abbreviation ("e.g.", "Fig."), and ends at
        least ``min_words`` words; the whole text when no such sentence ends before its end.

    Examples
    --------
    >>> first_sentence("Whisker boxes of lime's coefficients, e.g. for d = 30. Red: the theory.")
    "Whisker boxes of lime's coefficients, e.g. for d = 30."
    >>> first_sentence("The weight at ν = 0.25. Green: the limits.")
    'The weight at ν = 0.25.'
    >>> first_sentence("  One sentence\\nover two lines  ")
    'One sentence over two lines'
    >>> first_sentence("Not in the paper. Kish's effective sample size against ν. Red: the default.")
    "Not in the paper. Kish's effective sample size against ν."
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str (a caption as plain text), got {type(text).__name__}")
    if isinstance(min_words, bool) or not isinstance(min_words, int) or min_words < 1:
        raise ValueError(f"min_words must be an int >= 1, got {min_words!r}")
    text = re.sub(r"\s+", " ", text).strip()
    for match in SENTENCE_END.finditer(text):
        word = re.search(r"(\S+)$", text[: match.start()])
        following = text[match.end() :].lstrip()[0]
        if (word and word.group(1).lstrip("(") in ABBREVIATIONS) or following.islower():
            continue
        if len(text[: match.end()].split()) >= min_words:
            return text[: match.end()]
    return text
