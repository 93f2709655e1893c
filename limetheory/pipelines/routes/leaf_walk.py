"""The walk from the trees' roots to the leaves lime's documents can reach, compiled, for the tree route (``leaves``).

Only the splits on a column the document feeds branch (``leaves``' module docstring); each path down the trees
carries what it has learnt of the mask: the words it keeps, the words it removes, and for each group of words
sharing a column the bit set of the group's kept subsets it still allows.  Here that state is one row of 64-bit
words (kept bits, removed bits, then each group's allowed subsets), and :func:`leaf_events` walks every tree in
one compiled loop with the order of the Python walk it replaces (:func:`leaves._leaf_events_python`): a stack
started from the roots, the left child pushed before the right one, so that identical events meet their leaf
values in the same order and sum to the same bits.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..._compiled import compiled


class FedSplits(NamedTuple):
    """The splits on columns the document feeds, in increasing node order, and the roots after the jumps.

    ``single[i]``: the column is fed by one word, ``word[i]``; ``code[i]`` bit 0 says whether "word removed" goes
    left and bit 1 whether "word kept" does.  Otherwise the column ``column[i]`` is shared by a group of words and
    ``threshold[i]`` decides which of their kept subsets go left.  ``left`` and ``right`` are the children after
    the chains of unfed splits are jumped over.
    """

    nodes: np.ndarray
    single: np.ndarray
    word: np.ndarray
    code: np.ndarray
    column: np.ndarray
    threshold: np.ndarray
    left: np.ndarray
    right: np.ndarray
    roots: np.ndarray


class Events(NamedTuple):
    """Events with their summed leaf values, in the order of their first leaf (:func:`leaf_events`).

    ``kept[e, j]`` (``removed[e, j]``): event e keeps (removes) word j; ``shared[e]`` is the sorted tuple of (group,
    bit set of its allowed kept subsets) for the groups of words sharing a column that the event constrains.
    """

    kept: np.ndarray
    removed: np.ndarray
    value: np.ndarray
    shared: list


def events_from_dict(events, d):
    """The :class:`Events` of a dict {(kept bits, removed bits, shared): value}, in the dict's order."""
    width = max(1, (d + 7) // 8)
    keys = list(events)
    masks = [
        np.unpackbits(
            np.frombuffer(b"".join([key[i].to_bytes(width, "little") for key in keys]), dtype=np.uint8).reshape(
                len(keys), width
            ),
            axis=1,
            count=d,
            bitorder="little",
        ).astype(bool)
        for i in (0, 1)
    ]
    return Events(*masks, np.array(list(events.values()), dtype=float), [key[2] for key in keys])


def fed_splits(forest, columns, jumps):
    """:class:`FedSplits` of ``forest`` (``leaves._Forest``) for ``columns``; ``jumps`` is ``leaves._jumps``."""
    fed_columns = np.array(sorted(columns.group_of_column), dtype=np.int64)
    # the nodes that split on a fed column, in increasing order: each column's run of the nodes sorted by column
    starts = forest.feature_start
    fed_columns_split = fed_columns[fed_columns < len(starts) - 1]
    runs = [forest.by_feature[starts[c] : starts[c + 1]] for c in fed_columns_split.tolist()]
    nodes = np.sort(np.concatenate(runs)) if runs else np.zeros(0, dtype=np.int64)
    jump_left, jump_right, jump_roots = np.split(
        jumps(forest, nodes, np.concatenate([forest.left[nodes], forest.right[nodes], forest.roots])),
        [len(nodes), 2 * len(nodes)],
    )
    column_of, t_of = forest.feature[nodes], forest.threshold[nodes]
    # one-word columns, vectorised: the values (float32, as the tree reads them) of "removed" and "kept"
    lookup = np.zeros((max(int(fed_columns.max(initial=0)) + 1, 1), 2))
    word_bit = np.full(len(lookup), -1, dtype=np.int64)  # a one-word column's word, -1 for a shared column
    for c, g in columns.group_of_column.items():
        if len(columns.groups[g]) == 1:
            lookup[c] = columns.values[c].astype(np.float64)
            word_bit[c] = columns.groups[g][0]
    code = (lookup[column_of, 0] <= t_of).astype(np.int64) | ((lookup[column_of, 1] <= t_of).astype(np.int64) << 1)
    word_of = word_bit[column_of]
    return FedSplits(nodes, word_of >= 0, word_of, code, column_of, t_of, jump_left, jump_right, jump_roots)


def _bits_to_words(bits, n_words):
    """A Python int bit set as ``n_words`` little-endian uint64 words."""
    return np.frombuffer(bits.to_bytes(8 * n_words, "little"), dtype=np.uint64)


def _group_layout(columns):
    """(start, full): each group's first word in the allowed-subsets part of a state row, and that part's start.

    A group of n > 1 words allows a bit set over its 2^n kept subsets (ceil(2^n / 64) words, all set at the
    start of a walk); a one-word group has no words there (its column is a one-word split).
    """
    sizes = [len(group) for group in columns.groups]
    n_words = [0 if n == 1 else -(-(1 << n) // 64) for n in sizes]
    start = np.concatenate([[0], np.cumsum(n_words)]).astype(np.int64)
    full = [
        _bits_to_words((1 << (1 << n)) - 1, w) for n, w in zip(sizes, n_words, strict=True) if w
    ]  # every kept subset allowed
    return start, (np.concatenate(full) if full else np.zeros(0, dtype=np.uint64))


def leaf_events(forest, splits, columns, d, leaf_values):
    """The leaves the walk reaches as :class:`Events`, with the summed leaf values of identical events.

    The events of ``leaves._leaf_events_python`` (:func:`events_from_dict`), in the same order and with the same
    sums: ``leaf_values`` maps the reached nodes to their values.
    """
    n_words = max(1, -(-d // 64))
    group_start, full = _group_layout(columns)
    n_splits = len(splits.nodes)
    group = np.zeros(n_splits, dtype=np.int64)
    left_start = np.zeros(n_splits, dtype=np.int64)
    left_words, cache, n_left = [], {}, 0  # each shared split's bit set of the kept subsets that go left
    for i, c, t in zip(
        *(x[~splits.single].tolist() for x in (np.arange(n_splits), splits.column, splits.threshold)), strict=True
    ):
        g = group[i] = columns.group_of_column[c]
        found = cache.get((c, t))
        if found is None:
            found = cache[c, t] = n_left
            left_words.append(_bits_to_words(columns.left_subsets(c, t), int(group_start[g + 1] - group_start[g])))
            n_left += len(left_words[-1])
        left_start[i] = found
    split_of = np.full(len(forest.left), -1, dtype=np.int64)
    split_of[splits.nodes] = np.arange(n_splits)
    reached, rows = _walk(
        splits.roots, split_of, splits.single, splits.word, splits.code, splits.left, splits.right, group,
        left_start, np.concatenate(left_words) if left_words else np.zeros(0, dtype=np.uint64), group_start, full,
        n_words,
    )  # fmt: skip
    keys = np.ascontiguousarray(rows).view(np.dtype((np.void, 8 * rows.shape[1]))).ravel()
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    order = np.argsort(first)  # the distinct events in the order of their first leaf, as a dict fills
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    sums = np.bincount(rank[inverse.ravel()], weights=leaf_values(reached), minlength=len(order))
    distinct = rows[first[order]]
    shared = [()] * len(distinct)
    shared_groups = np.flatnonzero(np.diff(group_start))
    if len(shared_groups):  # the groups each event constrains: some word of its allowed subsets differs from full
        differs = distinct[:, 2 * n_words :] != full
        events, groups = np.nonzero(np.logical_or.reduceat(differs, group_start[shared_groups], axis=1))
        groups = shared_groups[groups]
        raw, width = np.ascontiguousarray(distinct[:, 2 * n_words :]).tobytes(), 8 * len(full)  # one event's bytes
        for e, g, a, b in zip(
            events.tolist(),
            groups.tolist(),
            (events * width + 8 * group_start[groups]).tolist(),
            (events * width + 8 * group_start[groups + 1]).tolist(),
            strict=True,
        ):
            shared[e] = (*shared[e], (g, int.from_bytes(raw[a:b], "little")))
    kept, removed = (
        np.unpackbits(
            np.ascontiguousarray(distinct[:, part]).view(np.uint8), axis=1, count=d, bitorder="little"
        ).astype(bool)
        for part in (slice(n_words), slice(n_words, 2 * n_words))
    )
    return Events(kept, removed, sums, shared)


@compiled(cache=True, nogil=True)
def _walk(roots, split_of, single, word, code, child_left, child_right, group, left_start, left_words, group_start,
          full, n_words):  # fmt: skip
    """The reached leaves and their paths' states (kept words, removed words, allowed subsets), in walk order.

    Rows are copied word by word and the two children visited by index, not by slice assignment and a loop over a
    tuple of tuples: numba's code for those took 8.6 s of CPU to compile on a fresh clone, these loops 2.7 s (the
    same values, and the walk no slower).
    """
    n_state = 2 * n_words + len(full)
    n_full = len(full)
    capacity = len(roots) + len(single) + 1  # a node is popped once, and pushes at most two
    stack_node = np.empty(capacity, dtype=np.int64)
    stack = np.zeros((capacity, n_state), dtype=np.uint64)
    scratch = np.zeros(n_state, dtype=np.uint64)
    top = 0
    for i in range(len(roots)):
        stack_node[top] = roots[i]
        for k in range(n_full):
            stack[top, 2 * n_words + k] = full[k]
        top += 1
    out_node = np.empty(64, dtype=np.int64)
    out = np.empty((64, n_state), dtype=np.uint64)
    n_out = 0
    zero = np.uint64(0)
    while top > 0:
        top -= 1
        node = stack_node[top]
        s = split_of[node]
        if s < 0:  # a leaf
            if n_out == len(out_node):
                grown_node = np.empty(2 * n_out, dtype=np.int64)
                grown = np.empty((2 * n_out, n_state), dtype=np.uint64)
                for r in range(n_out):
                    grown_node[r] = out_node[r]
                    for k in range(n_state):
                        grown[r, k] = out[r, k]
                out_node, out = grown_node, grown
            out_node[n_out] = node
            for k in range(n_state):
                out[n_out, k] = stack[top, k]
            n_out += 1
            continue
        if single[s]:  # code: bit 0 whether "word removed" goes left, bit 1 whether "word kept" does
            q = word[s] >> 6
            bit = np.uint64(1) << np.uint64(word[s] & 63)
            c = code[s]
            if stack[top, q] & bit != zero:
                stack_node[top] = child_left[s] if c & 2 else child_right[s]
            elif stack[top, n_words + q] & bit != zero:
                stack_node[top] = child_left[s] if c & 1 else child_right[s]
            elif c == 3:
                stack_node[top] = child_left[s]
            elif c == 0:
                stack_node[top] = child_right[s]
            else:  # both ways: the left child first (popped last); kept goes left for code 2, removed for code 1
                for k in range(n_state):
                    stack[top + 1, k] = stack[top, k]
                stack_node[top], stack_node[top + 1] = child_left[s], child_right[s]
                stack[top, (0 if c == 2 else n_words) + q] |= bit
                stack[top + 1, (n_words if c == 2 else 0) + q] |= bit
                top += 1
            top += 1
            continue
        g = group[s]
        first, n_group = 2 * n_words + group_start[g], group_start[g + 1] - group_start[g]
        start = left_start[s]
        left_same, left_empty, right_same, right_empty = True, True, True, True
        for i in range(n_group):
            allowed = stack[top, first + i]
            goes_left = allowed & left_words[start + i]
            goes_right = allowed & ~left_words[start + i]
            left_same = left_same and goes_left == allowed
            left_empty = left_empty and goes_left == zero
            right_same = right_same and goes_right == allowed
            right_empty = right_empty and goes_right == zero
        for k in range(n_state):
            scratch[k] = stack[top, k]
        for side in range(2):
            flip = side == 1
            child = child_right[s] if flip else child_left[s]
            same = right_same if flip else left_same
            empty = right_empty if flip else left_empty
            if same or not empty:  # the children the group's allowed subsets can reach, left first
                for k in range(n_state):
                    stack[top, k] = scratch[k]
                stack_node[top] = child
                if not same:
                    for i in range(n_group):
                        mask = ~left_words[start + i] if flip else left_words[start + i]
                        stack[top, first + i] = scratch[first + i] & mask
                top += 1
    return out_node[:n_out], out[:n_out]
