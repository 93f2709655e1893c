"""The exact routes: each answers whether it applies to a document's reading, and if so its β and model of masks.

What it holds: the route protocol and the first-that-applies loop (``protocol``), the linear route
(``linear_route``), the tree route (``tree_route``, with ``trees``, a fitted tree as a formula in lime's words,
``leaves``, β from the law over the leaves, ``leaf_walk``, the compiled walk to the leaves a document can reach,
and ``leaf_atoms``, the leaves' atoms summed by size), enumeration
(``enumeration``); ``order.routes_for`` lists them in the order :func:`limetheory.explain` tries them.
What it may import: ``limetheory.pipelines.reading``, ``theory``, ``engine`` and the root helpers.
Who imports it: ``limetheory.pipelines.routing`` (explain), ``shapley_values``, ``corpora`` and the namespace.
"""
