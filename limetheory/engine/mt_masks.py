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
(``random_raw``, in whole blocks of the generator's 624-word state), the draws above are replayed on them in a
compiled loop, and the ``RandomState`` is set to the state after the last word used: the block holding that word,
untempered (MT19937's output is an invertible function of its state word), and the position after it.  It ends in
the state lime leaves it in.  Only a ``RandomState`` over an ``MT19937`` (every
``RandomState`` built from a seed or None) qualifies; :func:`lime_masks_from_words` returns None otherwise, and the
caller draws with ``shuffle`` as before.  tests/test_mt_masks.py compares masks and final states with lime's calls.
"""

from __future__ import annotations

import numpy as np

from .._compiled import compiled

#: words in the Mersenne Twister's state: it regenerates them all every 624 outputs
_STATE_WORDS = 624


def _expected_words(d, num_samples):
    """A number of 32-bit words that lime's draws of one call exceed only rarely: the mean plus 8 standard deviations.

    A bounded draw on [0, i] takes a geometric number of words with success probability (i + 1) / (mask(i) + 1) > 1/2:
    mean (mask + 1) / (i + 1), variance below 2.  (A shortfall only costs a second pass with twice the budget.)
    """
    intervals = np.arange(1, d, dtype=np.int64)  # the shuffle's bounded draws, i = d - 1 .. 1
    masks = (1 << np.ceil(np.log2(intervals + 1)).astype(np.int64)) - 1
    per_row = float(np.sum((masks + 1) / (intervals + 1)))
    if d > 1:
        rng = d - 1
        per_row += (1 << int(np.ceil(np.log2(rng + 1)))) / d
    mean = (num_samples - 1) * per_row
    return int(mean + 8 * np.sqrt(2 * (num_samples - 1) * d) + 64)


def _untemper(outputs):
    """The generator's state words behind 624 consecutive outputs: MT19937's tempering inverted, step by step."""
    y = outputs.astype(np.uint32)
    y = y ^ (y >> np.uint32(18))
    y = y ^ ((y << np.uint32(15)) & np.uint32(0xEFC60000))
    x = y
    for _ in range(5):  # y = x ^ ((x << 7) & b): each round fixes 7 more low bits
        x = y ^ ((x << np.uint32(7)) & np.uint32(0x9D2C5680))
    y = x
    x = y
    for _ in range(3):  # y = x ^ (x >> 11): each round fixes 11 more high bits
        x = y ^ (x >> np.uint32(11))
    return x


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
    key, position = state["state"]["key"], int(state["state"]["pos"])
    budget = _expected_words(d, num_samples)
    while True:
        # whole blocks of the generator's 624-word state, so that the block holding the last word used is complete
        budget = -(-(position + budget) // _STATE_WORDS) * _STATE_WORDS - position
        generator = np.random.MT19937()
        generator.state = {"bit_generator": "MT19937", "state": {"key": key, "pos": position}}
        words = generator.random_raw(budget).astype(np.uint32)  # each raw word is one 32-bit output
        used = _masks_kernel(words, d, num_samples, masks)
        if used >= 0:
            break
        masks[1:] = 1
        budget *= 2
    if used:
        last = position + used - 1  # index of the last word used, counting the initial state's words from 0
        block = last // _STATE_WORDS
        if block > 0:  # the state then is that block of the generator's words, untempered
            first = block * _STATE_WORDS - position
            key = _untemper(words[first : first + _STATE_WORDS])
        position = last % _STATE_WORDS + 1
    random_state.set_state(("MT19937", key, position, state["has_gauss"], state["gauss"]))
    return masks
