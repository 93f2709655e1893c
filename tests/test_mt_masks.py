"""limetheory.engine.mt_masks: lime's masks from the Mersenne Twister's words equal lime's own draws, state included.

The reference is lime 0.2.0.1's own loop (``LimeTextExplainer.__data_labels_distances``): ``randint(1, d + 1, n - 1)``
then ``choice(range(d), size, replace=False)`` per row, on a second ``RandomState`` with the same seed.  Masks and the
generator's final state (key, position and the cached Gaussian) must be identical: the draws are integers, so there
is no tolerance.
"""

from __future__ import annotations

import numpy as np
import pytest

from limetheory.engine.lime_sampler import lime_masks
from limetheory.engine.mt_masks import lime_masks_from_words


def limes_loop(random_state, d, num_samples):
    """lime's own draws, as lime_text.py writes them."""
    sample = random_state.randint(1, d + 1, num_samples - 1)
    data = np.ones((num_samples, d), dtype=np.int8)
    for i, size in enumerate(sample, start=1):
        data[i, random_state.choice(range(d), size, replace=False)] = 0
    return data


@pytest.mark.parametrize("d", [1, 2, 3, 7, 29, 64, 65, 129, 300])
@pytest.mark.parametrize("num_samples", [1, 2, 61, 700])
@pytest.mark.parametrize("seed", [0, 2**32 - 1])
def test_masks_and_final_state_are_limes(d, num_samples, seed):
    ours, theirs = np.random.RandomState(seed), np.random.RandomState(seed)
    ours.standard_normal(), theirs.standard_normal()  # a cached Gaussian, which the draws must leave alone
    np.testing.assert_array_equal(lime_masks_from_words(ours, d, num_samples), limes_loop(theirs, d, num_samples))
    mine, reference = ours.get_state(), theirs.get_state()
    np.testing.assert_array_equal(mine[1], reference[1])
    assert mine[2:] == reference[2:]
    assert ours.random_sample() == theirs.random_sample()


def test_successive_calls_continue_the_stream():
    ours, theirs = np.random.RandomState(9), np.random.RandomState(9)
    for d in (5, 40, 5):
        np.testing.assert_array_equal(lime_masks(ours, d, 300), limes_loop(theirs, d, 300))


def test_numpys_global_random_state_is_moved_on_as_lime_moves_it():
    np.random.seed(4)  # noqa: NPY002 - lime with random_state=None draws from numpy's global RandomState
    ours = lime_masks(np.random.mtrand._rand, 12, 200)
    after = np.random.random_sample()  # noqa: NPY002
    np.random.seed(4)  # noqa: NPY002
    theirs = limes_loop(np.random.mtrand._rand, 12, 200)
    np.testing.assert_array_equal(ours, theirs)
    assert np.random.random_sample() == after  # noqa: NPY002


def test_a_random_state_over_another_generator_is_left_to_the_shuffle_loop():
    ours, theirs = np.random.RandomState(np.random.PCG64(3)), np.random.RandomState(np.random.PCG64(3))
    assert lime_masks_from_words(ours, 6, 50) is None
    assert ours.random_sample() == theirs.random_sample()  # nothing was drawn
    ours, theirs = np.random.RandomState(np.random.PCG64(3)), np.random.RandomState(np.random.PCG64(3))
    np.testing.assert_array_equal(lime_masks(ours, 6, 50), limes_loop(theirs, 6, 50))


def test_a_budget_of_words_too_small_is_doubled_until_it_suffices(monkeypatch):
    from limetheory.engine import mt_masks

    monkeypatch.setattr(mt_masks, "_expected_words", lambda d, num_samples: 1)
    ours, theirs = np.random.RandomState(21), np.random.RandomState(21)
    np.testing.assert_array_equal(lime_masks_from_words(ours, 40, 900), limes_loop(theirs, 40, 900))
    assert ours.random_sample() == theirs.random_sample()
