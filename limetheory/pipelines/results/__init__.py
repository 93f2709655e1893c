"""The results: the ``Explanation`` a call returns and what it tells about lime at a finite number of samples.

What it holds: ``Explanation`` (``result``, its HTML table ``word_table``) and the family of one per label
(``family``); lime's whole answer in the limit (``lime_answer``); where lime's coefficients fall at n samples
(``spread``), the n at which lime's top words are stable (``stability``), the agreement of lime at the user's n with
the limit (``agreement``), lime's view of a text mode (``lime_view``).
What it may import: ``limetheory.pipelines.reading``, ``theory``, ``engine`` and the root helpers (never ``routes``
or ``estimate``: an explanation is built from what they return).
Who imports it: ``limetheory.pipelines.routing`` (explain), ``corpora``, ``shapley_values``, ``dropin`` and the
namespace.
"""
