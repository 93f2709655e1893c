"""booktools.alttext: a figure's alt text, the first sentence of its caption with the TeX read as characters.

The expected texts are written out by hand (what a reader of the caption sees) or built sentence by sentence, so
the splitting is checked against where the sentences were joined; the symbols are checked against Unicode's own
names for them.
"""

from __future__ import annotations

import random
import unicodedata

import pytest

from booktools import alttext


@pytest.mark.parametrize(
    ("tex", "text"),
    [
        (r"\phi(\xi)", "φ(ξ)"),
        (r"\sigma_i / c_d", "σ_i / c_d"),
        (r"f(\phi(x)) = \mathbf{1}[\phi(x)_{\texttt{the}} > 0]", "f(φ(x)) = 1[φ(x)_the > 0]"),
        (r"\frac{\frac{1}{2}}{\nu^2}", "1/2/ν^2"),
        (r"\left\lVert \Sigma^{-1} \right\rVert_{\mathrm{op}} \le 70\, d^{3/2}", "‖ Σ^-1 ‖_op ≤ 70 d^3/2"),
        (r"\hat{\beta}_n^\lambda", "β\u0302_n^λ"),
        (r"\widehat{\Gamma}_n", "Γ\u0302_n"),
        (r"\nu \to \infty, \quad s \in \{0, \dots, d\}", "ν → ∞, s ∈ 0, …, d"),
        (r"\operatorname{Var}(Z) \approx 1", "Var(Z) ≈ 1"),
        (r"\mathbb{E}[\pi \mid s]", "E[π | s]"),
        (r"\unknowncommand x", "unknowncommand x"),
    ],
)
def test_plain_math_reads_tex_as_characters(tex, text):
    assert alttext.plain_math(tex) == text


def test_every_symbol_is_the_character_unicode_names_for_it():
    # Greek letters by Unicode's name ("GREEK SMALL LETTER NU" for \nu); the other symbols by their names too
    others = {
        "infty": "INFINITY", "le": "LESS-THAN OR EQUAL TO", "leq": "LESS-THAN OR EQUAL TO",
        "ge": "GREATER-THAN OR EQUAL TO", "geq": "GREATER-THAN OR EQUAL TO", "neq": "NOT EQUAL TO",
        "ne": "NOT EQUAL TO", "approx": "ALMOST EQUAL TO", "sim": "TILDE OPERATOR", "cdot": "MIDDLE DOT",
        "times": "MULTIPLICATION SIGN", "pm": "PLUS-MINUS SIGN", "to": "RIGHTWARDS ARROW", "in": "ELEMENT OF",
        "notin": "NOT AN ELEMENT OF", "subset": "SUBSET OF", "subseteq": "SUBSET OF OR EQUAL TO",
        "cup": "UNION", "cap": "INTERSECTION", "sum": "GREEK CAPITAL LETTER SIGMA",
        "prod": "GREEK CAPITAL LETTER PI", "sqrt": "SQUARE ROOT", "partial": "PARTIAL DIFFERENTIAL",
        "mid": "VERTICAL LINE", "lvert": "VERTICAL LINE", "rvert": "VERTICAL LINE", "vert": "VERTICAL LINE",
        "lVert": "DOUBLE VERTICAL LINE", "rVert": "DOUBLE VERTICAL LINE", "Vert": "DOUBLE VERTICAL LINE",
        "ldots": "HORIZONTAL ELLIPSIS", "dots": "HORIZONTAL ELLIPSIS", "cdots": "HORIZONTAL ELLIPSIS",
        "top": "MODIFIER LETTER CAPITAL T",
    }  # fmt: skip
    words = {"log", "exp", "max", "min"}
    for command, character in alttext.SYMBOLS.items():
        if command in words:
            assert character == command
        elif command in others:
            assert unicodedata.name(character) == others[command], command
        else:
            case = "CAPITAL" if command[0].isupper() else "SMALL"
            # \varepsilon and \varphi are drawn as the letters' usual forms in the captions' font
            letter = command.removeprefix("var").upper().replace("LAMBDA", "LAMDA")
            assert unicodedata.name(character) == f"GREEK {case} LETTER {letter}", command


@pytest.mark.parametrize(
    ("caption", "first"),
    [
        ("One sentence without a full stop", "One sentence without a full stop"),
        ("Whisker boxes of lime's runs, e.g. at d = 30. Red: theory.", "Whisker boxes of lime's runs, e.g. at d = 30."),
        ("As in Fig. 3 of the paper, the weights. Green: bounds.", "As in Fig. 3 of the paper, the weights."),
        ("The default ν = 0.25 is drawn thick. 12 words shown.", "The default ν = 0.25 is drawn thick."),
        ("Is lime at its limit for n = 5000? (Left) the gap.", "Is lime at its limit for n = 5000?"),
        ("Unequal weights. The constant depends on the word.", "Unequal weights. The constant depends on the word."),
        ("the value is 3.5 here. lower case does not end it", "the value is 3.5 here. lower case does not end it"),
    ],
)
def test_first_sentence(caption, first):
    assert alttext.first_sentence(caption) == first


def test_first_sentence_is_where_the_sentences_were_joined():
    # captions built from sentences of random lengths: the alt text ends where enough words were taken
    rng = random.Random(35)
    for _ in range(200):
        sentences = []
        for _ in range(rng.randint(1, 4)):
            # a sentence starts with a capital (Latin or Greek) or a digit
            words = [rng.choice(["Lime", "The", "Weights", "Ν = 0.25", "Σ is", "29 words", "E.g.", "Fig.", "3.5"])]
            words += [rng.choice(["runs", "of", "and", "at", "ν", "boxes"]) for _ in range(rng.randint(0, 8))]
            sentences.append(" ".join(words) + rng.choice([".", "?", "!"]))
        min_words = rng.randint(1, 6)
        expected, count = [], 0
        for sentence in sentences:
            expected.append(sentence)
            count += len(sentence.split())
            if count >= min_words:
                break
        caption = "  ".join(sentences)
        got = alttext.first_sentence(caption, min_words=min_words)
        # a sentence that ends in an abbreviation ("e.g.", "Fig.") does not end there: the next one joins it
        if not any(sentence.endswith(("e.g.", "Fig.")) for sentence in expected[:-1]):
            assert got == " ".join(expected), (caption, min_words)
        else:
            assert caption.replace("  ", " ").startswith(got) and len(got) > len(" ".join(expected[:1])) - 1


def test_arguments_are_checked():
    with pytest.raises(TypeError, match="tex must be a str"):
        alttext.plain_math(None)
    with pytest.raises(TypeError, match="text must be a str"):
        alttext.first_sentence(b"bytes")
    with pytest.raises(ValueError, match="min_words must be an int >= 1"):
        alttext.first_sentence("A caption.", min_words=0)
