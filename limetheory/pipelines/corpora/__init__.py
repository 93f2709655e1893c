"""Corpora: ``explain_many`` over chunks of documents, on joblib's backends or dask, resumable; lime's pick.

What it holds: ``explain_many`` (``corpus``), the exact linear route batched over documents (``linear_many``), the
resumable Parquet folder (``store``), glibc's heap kept while a chunk runs (``worker_heap``), lime's submodular
pick and global importance on exact explanations (``pick``).
What it may import: ``limetheory.pipelines.routing`` and the sub-wings below it, ``theory``, ``engine`` and the
root helpers (never ``shapley_values`` or ``dropin``).
Who imports it: the namespace.
"""
