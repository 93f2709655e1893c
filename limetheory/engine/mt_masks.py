"""lime's masks from its ``RandomState``, computed from the Mersenne Twister's raw words in one compiled loop.

lime 0.2.0.1 draws, for one ``explain_instance`` call on d words and n samples, ``randint(1, d + 1, n - 1)`` and then
one ``choice(range(d), s, replace=False)`` per row, which is ``permutation(d)[:s]``: a Fisher-Yates shuffle of
``arange(d)``.  numpy's legacy ``RandomState`` (MT19937) makes both from 32-bit words of the generator by masked
rejection (numpy/random/src/distributions/distributions.c):

* ``randint``: ``rng = d - 1``, ``mask`` the smallest 2^k - 1 >= rng; each value is ``1 + (word & mask)``, drawing
  again while ``word & mask > rng`` (no word at all when rng = 0);
* ``shuffle`` (``random_interval``): for i = d - 1 down to 1, ``j = word & mask(i)``, drawn again while j > i, then
  ``x[i], x[j]`` swapped.

Calling ``shuffle`` 4999 times from Python costs about 6 µs each, the largest part of a replayed lime call at lime's
defaults.  Here the generator's words are taken in bulk from an ``MT19937`` set to the ``RandomState``'s state
(``random_raw``), the draws above are replayed on them in a compiled loop, and the ``RandomState`` is moved on by the
number of words used, so it ends in the state lime leaves it in.  Only a ``RandomState`` over an ``MT19937`` (every
``RandomState`` built from a seed or None) qualifies; :func:`lime_masks_from_words` returns None otherwise, and the
caller draws with ``shuffle`` as before.  tests/test_mt_masks.py compares masks and final states with lime's calls.
"""

from __future__ import annotations

import numpy as np

from .._compiled import compiled


@compiled(cache=True, nogil=True)
def _masks_kernel(words, d, num_samples, masks):
    """Fill ``masks`` (rows 1..n-1) from the 32-bit ``words``; return the number of words used, or -1 if too few."""
    used = 0
    total = words.shape[0]
    count = num_samples - 1
    sizes = np.empty(count, dtype=np.int64)
    rng = d - 1
    if rng == 0:
        for r in range(count):
            sizes[r] = 1
    else:
        mask = rng
        for shift in (1, 2, 4, 8, 16):
            mask |= mask >> shift
        for r in range(count):
            while True:
                if used >= total:
                    return -1
                value = words[used] & mask
                used += 1
                if value <= rng:
                    break
            sizes[r] = 1 + value
    row = np.empty(d, dtype=np.int64)
    for r in range(count):
        for j in range(d):
            row[j] = j
        for i in range(d - 1, 0, -1):
            mask = i
            for shift in (1, 2, 4, 8, 16):
                mask |= mask >> shift
            while True:
                if used >= total:
                    return -1
                value = words[used] & mask
                used += 1
                if value <= i:
                    break
            swap = row[i]
            row[i] = row[value]
            row[value] = swap
        for j in range(sizes[r]):
            masks[r + 1, row[j]] = 0
    return used


def lime_masks_from_words(random_state, d, num_samples):
    """lime's (num_samples, d) int8 masks for one call, drawn from ``random_state`` as lime draws them, or None.

    None when ``random_state`` is not a legacy ``RandomState`` over an ``MT19937`` (then nothing is drawn).
    Otherwise the masks equal those of ``randint`` and ``choice`` calls made as lime makes them, and
    ``random_state`` is left in the state those calls leave it in (its cached Gaussian untouched).

    Examples
    --------
    >>> masks = lime_masks_from_words(np.random.RandomState(0), 4, 3)
    >>> masks.dtype.name, masks[0].tolist(), masks.shape
    ('int8', [1, 1, 1, 1], (3, 4))
    >>> lime_masks_from_words(np.random.RandomState(np.random.PCG64(0)), 4, 3) is None
    True
    """
    if not isinstance(random_state, np.random.RandomState) or d < 1 or num_samples < 1:
        return None
    state = random_state.get_state(legacy=False)
    if state.get("bit_generator") != "MT19937":
        return None
    masks = np.ones((num_samples, d), dtype=np.int8)
    if num_samples == 1:
        return masks
    # expected words: (n - 1) sizes and (n - 1)(d - 1) swaps, each accepted with probability > 1/2
    budget = 2 * (num_samples - 1) * d + 64
    while True:
        generator = np.random.MT19937()
        generator.state = {"bit_generator": "MT19937", "state": dict(state["state"])}
        words = generator.random_raw(budget).astype(np.uint32)  # each raw word is one 32-bit output
        used = _masks_kernel(words, d, num_samples, masks)
        if used >= 0:
            break
        masks[1:] = 1
        budget *= 2
    generator = np.random.MT19937()
    generator.state = {"bit_generator": "MT19937", "state": dict(state["state"])}
    generator.random_raw(used)
    after = generator.state["state"]
    random_state.set_state(("MT19937", after["key"], after["pos"], state["has_gauss"], state["gauss"]))
    return masks
