"""Exact explanations of real models: ``explain`` and its routes, ``Explanation``, ``LimeSpread``, Monte Carlo.

What it holds: the entry point ``explain`` (``routing``), lime's arguments (``lime_arguments``), the routes it
tries (``route_selection``), a fitted pipeline read as the exact routes read it (``pipeline_reading``), its result
(``result``), lime's spread around the limit (``spread``), the stratified Monte Carlo estimate (``montecarlo``),
the estimate route for any model (``estimate`` and its batches, ``estimate_batches``), lime's
``bow``/``char_level`` modes (``modes``), trees and tree ensembles read as formulas in lime's words (``trees``,
``leaves``); corpora: ``explain_many`` over chunks and joblib's backends (``corpus``), its resumable Parquet folder
(``store``), and lime's submodular pick and global importance on exact explanations (``pick``).

Who may import it: ``limetheory.book`` and the top-level namespace.
What it may import: ``limetheory.theory``, ``limetheory.engine`` and the root helpers; never ``book``
(tests/test_module_boundaries.py).  ``trees`` lives here, not in ``theory``, because turning a fitted tree into a
formula needs the vectorizer's view of the document (``engine.presence``, ``engine.tokens``).
"""
