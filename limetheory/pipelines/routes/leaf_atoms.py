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

from ..._compiled import compiled


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


def _rows(events, columns, d):
    """The events as rows (kept, removed, value), each event with at most ``LISTED_ATOMS`` atoms listed in its place.

    Returns each row's event and option (the group words its atom keeps and removes, 0: none), the options'
    kept and removed words (boolean, one row each), the rows' values, and for each shared tuple the slice of the
    rows that carry it, in the order of their first row (the listed atoms carry ``()``, as the events
    without groups do).  A listed event's atoms take its place among the other rows, in ``itertools.product``'s order of
    its groups' allowed subsets; the events that constrain the same groups alike share their list of atoms.
    Events of value 0 are dropped.
    """
    _, _, value_all, shared_all = events
    used = value_all != 0.0
    by_key = {}
    for e in np.flatnonzero(used & np.array([bool(key) for key in shared_all], dtype=bool)).tolist():
        by_key.setdefault(shared_all[e], []).append(e)
    plain = np.flatnonzero(used & np.array([not key for key in shared_all], dtype=bool))
    # the () rows: their events, their atoms' group words (option 0: none) and their places (event, atom)
    listed, listed_start, listed_atoms, step = [], [], [], LISTED_ATOMS + 1  # each key's events, first option, atoms
    option_kept, option_removed, subsets, tables = [0], [0], {}, {}
    groups, first_row = {}, {(): int(plain[0]) if len(plain) else len(value_all)}
    for shared, members in by_key.items():
        options = []
        for g, allowed in shared:
            found = subsets.get((g, allowed))
            if found is None:
                table = tables.get(g)
                if table is None:
                    table = tables[g] = _subset_bits(columns.groups[g])
                found = subsets[g, allowed] = [table[t] for t in range(len(table)) if (allowed >> t) & 1]
            options.append(found)
        if math.prod(len(o) for o in options) > LISTED_ATOMS:
            groups[shared] = np.array(members, dtype=np.int64)
            first_row[shared] = members[0]
            continue
        start = len(option_kept)
        if len(options) == 1:
            option_kept.extend([kept for kept, _ in options[0]])
            option_removed.extend([removed for _, removed in options[0]])
        else:
            for choice in product(*options):
                option_kept.append(sum(c[0] for c in choice))
                option_removed.append(sum(c[1] for c in choice))
        listed.append(members)
        listed_start.append(start)
        listed_atoms.append(len(option_kept) - start)
        first_row[()] = min(first_row[()], members[0])
    # every listed event's atoms, event by event in key order: event e's atom i is option start + i, at place
    # e * step + i (the places are distinct: an event is listed under one key, a plain event holds place e * step)
    members = np.array([e for m in listed for e in m], dtype=np.int64)
    per_member = np.repeat(np.array(listed_atoms, dtype=np.int64), [len(m) for m in listed])
    member_start = np.repeat(np.array(listed_start, dtype=np.int64), [len(m) for m in listed])
    events_of = np.repeat(members, per_member)
    atom = np.arange(len(events_of)) - np.repeat(np.cumsum(per_member) - per_member, per_member)
    event = np.concatenate([plain, events_of])
    option = np.concatenate([np.zeros(len(plain), dtype=np.int64), np.repeat(member_start, per_member) + atom])
    order = np.argsort(np.concatenate([plain * step, events_of * step + atom]))  # the () rows in place
    event, option = event[order], option[order]
    starts = np.cumsum([len(event)] + [len(m) for m in groups.values()])
    rows = {(): slice(0, len(event))} if len(event) else {}
    rows.update({key: slice(int(starts[i]), int(starts[i + 1])) for i, key in enumerate(groups)})
    rows = {key: rows[key] for key in sorted(rows, key=first_row.get)}  # the order of their first rows
    event = np.concatenate([event, *groups.values()])
    option = np.concatenate([option, np.zeros(len(event) - len(option), dtype=np.int64)])
    options = (_bit_matrix(option_kept, d), _bit_matrix(option_removed, d))
    return event, option, options, value_all[event], rows


def atoms_by_size(events, columns, d):
    """The events' atoms summed by their sizes (a kept, b removed), without listing the atoms.

    ``events`` are ``leaf_walk.Events``.  Returns (a, b, total, kept, removed, number of atoms) with one row per
    distinct (a, b): ``total[q]`` is the sum of the values of the atoms of sizes q, ``kept[q, j]`` (``removed[q,
    j]``) the sum over those that keep (remove) word j.  The atoms of an event with shared groups are a product
    over its groups of their allowed kept subsets, and a subset fixes every word of its group (a of them kept, the
    others removed); so their sums by size are a convolution over the groups of the numbers of allowed subsets by
    size (and, for a word of a group, of those that keep it), computed once for the events that constrain the
    same groups alike.  The cost is polynomial in the groups' sizes where listing the atoms would cost their
    product (two groups of 12 repeated words: 16 million atoms).  An event with at most ``LISTED_ATOMS`` atoms is
    listed instead, its atoms batched with the events without groups: cheaper for the few small groups of most
    documents ("The" and "the").
    """
    event, option, options, value, by_shared = _rows(events, columns, d)
    if not len(value):
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, np.zeros(0), np.zeros((0, d)), np.zeros((0, d)), 0
    # each row's words: its event's (from the walk's splits on one-word columns) and its option's (group words)
    lists = [_word_lists(words) for words in (events.kept, events.removed, *options)]
    a0 = lists[0][2][event] + lists[2][2][option]
    b0 = lists[1][2][event] + lists[3][2][option]
    codes, layout, counts, group_words, keeps_of, n_atoms, cache = [], [], [], [], [], 0, {}
    for shared, e in by_shared.items():
        if shared:
            present, count, words, keeps = _shared_counts(shared, columns, cache)
        else:
            present, count = np.zeros(1, dtype=np.int64), np.ones(1)
            words, keeps = np.zeros(0, dtype=np.int64), np.zeros((1, 0))
        n_group = len(words)
        n_atoms += (e.stop - e.start) * len(present)
        # one row per (event, number j of group words kept): a = a0 + j, b = b0 + n_group - j
        codes.append(((a0[e, None] + present) * (d + 1) + b0[e, None] + n_group - present).ravel())
        layout.append((e.start, e.stop, len(present), n_group))
        counts.append(count)
        group_words.append(words)
        # the number of the atoms of each j that keep, and that remove, each group word
        keeps_of.append(np.stack([keeps, count[:, None] - keeps]).ravel())
    sizes, q = np.unique(np.concatenate(codes), return_inverse=True)
    total, kept, removed = _accumulate(
        len(sizes), d, value, q.ravel(), np.array(layout, dtype=np.int64).reshape(-1, 4), np.concatenate(counts),
        np.concatenate(group_words).astype(np.int64), np.concatenate(keeps_of), event, option,
        *(part for start, words, _ in lists for part in (start, words)),
    )  # fmt: skip
    return sizes // (d + 1), sizes % (d + 1), total, kept, removed, n_atoms


@compiled(cache=True, nogil=True)
def _word_lists(words):
    """A boolean (m, d) array as lists of its rows' set columns: (where each row starts, the columns, the counts).

    The starts are summed in the loop rather than by ``np.cumsum`` into a slice, which numba compiles in seconds.
    """
    m, d = words.shape
    count = np.zeros(m, dtype=np.int64)
    start = np.zeros(m + 1, dtype=np.int64)
    for r in range(m):
        for j in range(d):
            count[r] += words[r, j]
        start[r + 1] = start[r] + count[r]
    columns = np.empty(start[m], dtype=np.int64)
    at = 0
    for r in range(m):
        for j in range(d):
            if words[r, j]:
                columns[at] = j
                at += 1
    return start, columns, count


@compiled(cache=True, nogil=True)
def _accumulate(n, d, value, q, layout, counts, group_words, keeps_of, event, option, kept_start, kept_words,
                removed_start, removed_words, option_kept_start, option_kept, option_removed_start,
                option_removed):  # fmt: skip
    """The sums by size of :func:`atoms_by_size`, each added in the order of the rows, then j, then the words.

    ``layout`` holds each shared key's (first row, end, number of j values, number of group words); ``q`` the
    size of each (row, j); ``keeps_of`` each key's atoms that keep, then remove, each group word, by j.  A cell
    receives its terms in the order (key, row, j): the order in which the numpy version concatenated them for
    ``np.bincount``, so the sums are the same bits.
    """
    total, kept, removed = np.zeros(n), np.zeros((n, d)), np.zeros((n, d))
    at = count_at = word_at = keep_at = 0
    for key in range(len(layout)):
        first, end, n_present, n_group = layout[key, 0], layout[key, 1], layout[key, 2], layout[key, 3]
        for row in range(first, end):
            for j in range(n_present):
                size = q[at]
                at += 1
                weight = value[row] * counts[count_at + j]
                total[size] += weight
                e, o = event[row], option[row]  # the row's own words: its event's, then its option's (disjoint)
                for i in range(kept_start[e], kept_start[e + 1]):
                    kept[size, kept_words[i]] += weight
                for i in range(option_kept_start[o], option_kept_start[o + 1]):
                    kept[size, option_kept[i]] += weight
                for i in range(removed_start[e], removed_start[e + 1]):
                    removed[size, removed_words[i]] += weight
                for i in range(option_removed_start[o], option_removed_start[o + 1]):
                    removed[size, option_removed[i]] += weight
                for w in range(n_group):
                    word = group_words[word_at + w]
                    kept[size, word] += value[row] * keeps_of[keep_at + j * n_group + w]
                    removed[size, word] += value[row] * keeps_of[keep_at + (n_present + j) * n_group + w]
        count_at += n_present
        word_at += n_group
        keep_at += 2 * n_present * n_group
    return total, kept, removed


def atom_probabilities(a, b, d):
    """P(a given words kept and b others removed | s) for s = 1..d: rows per (a, b), columns per s.

    A product of a + b factors (``leaves``' module docstring), multiplied in the order i = 0, 1, ... of the kept
    factors, then of the removed ones; 0 where a + b > d.
    """
    return _probabilities(np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64), int(d))


@compiled(cache=True, nogil=True)
def _probabilities(a, b, d):
    """:func:`atom_probabilities`: each entry's factors multiplied one after the other, as the numpy loop did."""
    out = np.ones((len(a), d))
    for r in range(len(a)):
        if a[r] + b[r] > d:
            out[r] = 0.0
            continue
        for s in range(d):
            kept = float(d - 1 - s)  # k = d - s words kept, s = 1..d
            value = 1.0
            for i in range(a[r]):
                value *= max(kept - i, 0.0) / (d - i)
            for i in range(b[r]):
                value *= max(d - kept - i, 0.0) / float(d - a[r] - i)
            out[r, s] = value
    return out
