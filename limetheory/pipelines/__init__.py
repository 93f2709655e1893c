"""Exact explanations of real models: lime's call read, routed, estimated and returned as lime's answer.

The sub-wings, in the order data flows through them (each may import those before it; ARCHITECTURE.md draws it):

``reading``   lime's call validated once, the model as lime calls it, the document read through the model
``routes``    the exact routes (linear, trees, enumeration) behind one protocol
``estimate``  the unbiased estimate with standard errors for any model
``results``   ``Explanation``, lime's spread, stability and agreement at a finite n
``routing``   ``explain``: the composition of the four above (a module, not a folder)
``corpora``, ``shapley_values``, ``dropin``   built on ``explain``: ``explain_many`` and lime's pick, Shapley values,
              the drop-in ``LimeTextExplainer``; siblings that never import each other

Who may import it: ``limetheory.book`` and the top-level namespace.
What it may import: ``limetheory.theory``, ``limetheory.engine`` and the root helpers; never ``book``
(tests/test_module_boundaries.py checks the layers and the sub-wings' order).  ``routes.trees`` lives here, not in
``theory``, because turning a fitted tree into a formula needs the vectorizer's view of the document.
"""
