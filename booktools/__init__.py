"""The book's tooling, kept apart from the mathematics in ``limetheory``.

``chapters`` executes the chapters (``notebooks/NN-slug.md``) and writes their ``.ipynb`` (``python -m
booktools.chapters``); the Sphinx extensions ``bookext`` (blueprint, concordance, errata, figure index, API summary),
``running`` (each chapter's "Run this chapter" line, the table of what the chapters cost) and ``guards`` (the page
*What the suite guards*) render the book's generated pages; ``blueprint`` reads the registries ``book/blueprint.yml``
and ``book/figures.yml`` (validated against the JSON schemas of ``registry_schema``) and checks them against the
chapters; ``numbering`` derives the chapter numbers from ``_toc.yml`` and lists the files and links that disagree;
``papernumbers`` derives the paper's printed numbering from its LaTeX; ``mutants`` runs the catalogue of
upstream changes (``mutants_catalogue``) against the test suite.

Nothing here is imported by ``limetheory``; the imports of this package are the ``book`` extra of ``pyproject.toml``.
"""
