"""What only the chapters need: formatting, the mpmath references, plotting in the paper's style, shared models.

What it holds: display and prose formatting of numbers and equations (``display``, ``prose``), the chapters'
closing summaries and tables in a reader's notation (``reader``), the mpmath
references the chapters check the closed forms against (``mpreference``; ``mpreference_linear`` for the exact
linear route on equal weights), the paper's figure style (``plotting``),
the chapters' shared models and classifiers (``models``, ``classifiers``), and a forest's ``predict_proba`` on
many 0/1 rows, each tree once per distinct row of its columns (``forest_rows``), or on rows holding few columns,
each walked through the splits it can reach (``sparse_forest_proba``, the package's own walk), both bit for bit.
A chapter writes
``from limetheory.book import significant, show_equations`` and ``import limetheory as lt`` for the rest.

Who may import it: the chapters, the tests, the benchmarks and the book's tooling; no module of ``limetheory``
outside this folder (tests/test_module_boundaries.py).
What it may import: everything in ``limetheory``.
"""

from ..pipelines.reading.forest_walk import sparse_forest_proba  # the package's walk, named here for chapter 23
from .classifiers import linear_tfidf_classifier, linear_tfidf_model, vocabulary_coefficients
from .display import Equations, show_equations, significant
from .forest_rows import presence_forest_proba
from .models import (
    EXAMPLE_REVIEW_INDEX,
    constant_classifier,
    fit_yelp_vectorizer,
    train_random_forest,
    word_indicator,
    word_indicator_rows,
)
from .plotting import theory_vs_practice
from .prose import scientific
from .reader import Summary, reader_label, reader_text, summary

__all__ = [
    "EXAMPLE_REVIEW_INDEX",
    "Equations",
    "Summary",
    "constant_classifier",
    "fit_yelp_vectorizer",
    "linear_tfidf_classifier",
    "linear_tfidf_model",
    "presence_forest_proba",
    "reader_label",
    "reader_text",
    "scientific",
    "show_equations",
    "significant",
    "sparse_forest_proba",
    "summary",
    "theory_vs_practice",
    "train_random_forest",
    "vocabulary_coefficients",
    "word_indicator",
    "word_indicator_rows",
]
