"""The atoms of a tree model's leaves summed by their sizes, for the tree route (``leaves``).

A leaf reached by lime's documents is an event on the mask: words that must be kept, words that must be removed,
and for each group of words sharing a column (lower-casing; with ``bow=False``, the occurrences of one word) the
set of its kept subsets the path allows.  Split apart, an event is a disjoint union of *atoms*, "these words kept,
those removed", whose probability given s depends only on their sizes (``leaves``' module docstring).  The route
needs, per size (a kept, b removed), the sum of the atoms' values and, per word, the sums over the atoms that keep
or remove it: :func:`atoms_by_size`.  An event with few atoms lists them; a larger one (two groups of 12 repeated
words: 16 million atoms) is summed by size through a convolution over its groups, never listed.
"""

from __future__ import annotations

import math
from itertools import product

import numpy as np


def _bit_matrix(bits, d):
    """Python ints (bit j = word j) as an (m, d) boolean array."""
    width = max(1, (d + 7) // 8)
    raw = np.frombuffer(b"".join([b.to_bytes(width, "little") for b in bits]), dtype=np.uint8)
    return np.unpackbits(raw.reshape(len(bits), width), axis=1, count=d, bitorder="little").astype(bool)


def _subset_bits(group):
    """For each kept subset t of a group of words (bit i of t: ``group[i]`` kept), (kept bits, removed bits)."""
    kept, removed = [0], [0]
    for word in group:  # the subsets without the word, then with it (bit i of t is word i)
        kept = kept + [b | (1 << word) for b in kept]
        removed = [b | (1 << word) for b in removed] + removed
    return list(zip(kept, removed, strict=True))


#: an event constraining groups of words is listed atom by atom up to this many atoms, summed by size beyond
LISTED_ATOMS = 64


def _group_counts(n, allowed, cache):
    """A group's allowed kept subsets counted by size: (C, W) for a group of n words.

    ``allowed`` is the bit set of the allowed subsets (bit t: the subset of the words i with bit i of t set);
    C[a] is the number of allowed subsets of a words, W[a, i] the number of those that keep the group's word i.
    """
    key = (n, allowed)
    found = cache.get(key)
    if found is None:
        t = np.arange(1 << n, dtype=np.int64)
        allowed_bits = np.unpackbits(
            np.frombuffer(allowed.to_bytes(max(1, ((1 << n) + 7) // 8), "little"), dtype=np.uint8),
            count=1 << n,
            bitorder="little",
        ).astype(bool)
        members = ((t[allowed_bits, None] >> np.arange(n)) & 1).astype(float)  # allowed subsets x words
        size = members.sum(axis=1).astype(np.int64)
        by_size = np.zeros((n + 1, len(size)))
        by_size[size, np.arange(len(size))] = 1.0
        found = cache[key] = (by_size.sum(axis=1), by_size @ members)
    return found


def _shared_counts(shared, columns, cache):
    """The atoms of the groups an event constrains, by the number j of their words kept, for :func:`atoms_by_size`.

    Returns (j, count, words, keeps): the numbers j of group words kept that some atom has, the number of atoms with
    each, the groups' words, and ``keeps[i, w]``, how many of the count[i] atoms keep ``words[w]``.
    """
    tables = [(columns.groups[g], *_group_counts(len(columns.groups[g]), allowed, cache)) for g, allowed in shared]
    count = np.ones(1)
    for _, c, _ in tables:
        count = np.convolve(count, c)
    present = np.flatnonzero(count)
    words, keeps = [], []
    for g, (group, _, w) in enumerate(tables):
        rest = np.ones(1)  # the other groups' atoms by their number of kept words
        for h, (_, c, _) in enumerate(tables):
            if h != g:
                rest = np.convolve(rest, c)
        # keeps[k, i] = sum over a of w[a, i] rest[k - a]: every column of w convolved with rest
        toeplitz = np.zeros((len(count), len(w)))
        for a in range(len(w)):
            toeplitz[a : a + len(rest), a] = rest
        keeps.append((toeplitz @ w)[present])
        words.extend(group)
    return present, count[present], np.array(words, dtype=np.int64), np.hstack(keeps)


def atoms_by_size(events, columns, d):
    """The events' atoms summed by their sizes (a kept, b removed), without listing the atoms.

    Returns (a, b, total, kept, removed, number of atoms) with one row per distinct (a, b): ``total[q]`` is the sum
    of the values of the atoms of sizes q, ``kept[q, j]`` (``removed[q, j]``) the sum over those that keep (remove)
    word j.  The atoms of an event with shared groups are a product over its groups of their allowed kept subsets,
    and a subset fixes every word of its group (a of them kept, the others removed); so their sums by size are a
    convolution over the groups of the numbers of allowed subsets by size (and, for a word of a group, of those
    that keep it), computed once for the events that constrain the same groups alike.  The cost is polynomial in
    the groups' sizes where listing the atoms would cost their product (two groups of 12 repeated words: 16
    million atoms).  An event with at most ``LISTED_ATOMS`` atoms is listed instead, its atoms batched with the
    events without groups: cheaper for the few small groups of most documents ("The" and "the").
    """
    rows, subsets, tables = [], {}, {}
    for (k, r, shared), v in events.items():
        if v == 0.0:
            continue
        if shared:
            options = []
            for g, allowed in shared:
                found = subsets.get((g, allowed))
                if found is None:
                    table = tables.get(g)
                    if table is None:
                        table = tables[g] = _subset_bits(columns.groups[g])
                    found = subsets[g, allowed] = [table[t] for t in range(len(table)) if (allowed >> t) & 1]
                options.append(found)
            if len(options) == 1:  # one group: its subsets are the atoms (the common case, "The" and "the")
                if len(options[0]) <= LISTED_ATOMS:
                    rows.extend([(k | kept, r | removed, (), v) for kept, removed in options[0]])
                    continue
            elif math.prod(len(o) for o in options) <= LISTED_ATOMS:
                for choice in product(*options):
                    rows.append((k | sum(c[0] for c in choice), r | sum(c[1] for c in choice), (), v))
                continue
        rows.append((k, r, shared, v))
    if not rows:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, np.zeros(0), np.zeros((0, d)), np.zeros((0, d)), 0
    kept_words = _bit_matrix([row[0] for row in rows], d)
    removed_words = _bit_matrix([row[1] for row in rows], d)
    a0, b0 = kept_words.sum(axis=1), removed_words.sum(axis=1)
    value = np.array([row[3] for row in rows], dtype=float)
    by_shared = {}
    for e, row in enumerate(rows):
        by_shared.setdefault(row[2], []).append(e)
    codes, values, word_codes, word_index, word_values, word_kept = [], [], [], [], [], []
    n_atoms, cache = 0, {}
    for shared, members in by_shared.items():
        e = np.array(members, dtype=np.int64)
        if shared:
            present, count, words, keeps = _shared_counts(shared, columns, cache)
        else:
            present, count = np.zeros(1, dtype=np.int64), np.ones(1)
            words, keeps = np.zeros(0, dtype=np.int64), np.zeros((1, 0))
        n_group = len(words)
        n_atoms += len(e) * len(present)
        # one row per (event, number j of group words kept): a = a0 + j, b = b0 + n_group - j
        code = (a0[e, None] + present) * (d + 1) + b0[e, None] + n_group - present
        weight = value[e, None] * count
        codes.append(code.ravel())
        values.append(weight.ravel())
        for words_of_event, is_kept in ((kept_words[e], True), (removed_words[e], False)):
            event, column = np.nonzero(words_of_event)  # the event's own words: in every one of its rows
            word_codes.append(code[event].ravel())
            word_index.append(np.repeat(column, len(present)))
            word_values.append(weight[event].ravel())
            word_kept.append(np.full(event.size * len(present), is_kept))
        if n_group:
            for amount, is_kept in ((keeps, True), (count[:, None] - keeps, False)):
                # (event, j, group word): value times the number of the atoms that keep (remove) the word
                word_codes.append(np.repeat(code, n_group, axis=1).ravel())
                word_index.append(np.tile(words, code.size))
                word_values.append((value[e, None, None] * amount).ravel())
                word_kept.append(np.full(code.size * n_group, is_kept))
    code = np.concatenate(codes)
    sizes, q = np.unique(code, return_inverse=True)
    n = len(sizes)
    total = np.bincount(q, weights=np.concatenate(values), minlength=n)
    where = np.searchsorted(sizes, np.concatenate(word_codes)) * d + np.concatenate(word_index)
    weight, is_kept = np.concatenate(word_values), np.concatenate(word_kept)
    kept, removed = (
        np.bincount(where[which], weights=weight[which], minlength=n * d).reshape(n, d) for which in (is_kept, ~is_kept)
    )
    return sizes // (d + 1), sizes % (d + 1), total, kept, removed, n_atoms
