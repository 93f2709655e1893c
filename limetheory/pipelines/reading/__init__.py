"""Reading: lime's call and how a model and a document are read, before any route.

What it holds: lime's call validated once (``lime_call``) and its labels and seed (``lime_arguments``); lime's text
modes (``modes``); the model as lime calls it (``blackbox``); the document read through the model
(``document``); a pipeline read as the exact routes read it (``pipeline_reading``, ``text_features``,
``count_rows``, ``linked_reading``); samples of masks with the model's outputs (``mask_samples``).
What it may import: ``theory``, ``engine`` and the root helpers, never another sub-wing of ``pipelines``.
Who imports it: every other sub-wing of ``pipelines``.
"""
