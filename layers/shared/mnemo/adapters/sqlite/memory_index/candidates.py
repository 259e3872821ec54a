"""The best of a set of candidate rows given by key: a facet's rows, or the approximate index's nearest.

The keys are mapped to their partitions and rows in NumPy (.partitions slots), kept to the partitions searched,
scored on their int8 codes (a gather per partition, or one across them when they are spread over many), and the
filter is asked of them in score order until enough passed.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from mnemo.adapters.sqlite.memory_index import int8_vectors
from mnemo.adapters.sqlite.memory_index.exact_scan import Hits
from mnemo.adapters.sqlite.memory_index.partitions import Partition, Partitions
from mnemo.adapters.sqlite.memory_index.row_documents import RowCheck

GATHERS_PER_PARTITION = 32  # candidates of at most this many partitions are gathered a partition at a time


def best_of_keys(
    partitions: Partitions,
    keys: np.ndarray,
    query: np.ndarray,
    check: RowCheck,
    limit: int,
    parts: Sequence[Partition] | None,
    *,
    given: np.ndarray | None = None,
) -> Hits:
    """The best `limit` of these rows (those of `parts`, when given) that pass `check`, scored on their codes
    (or `given` the keys' scores)."""
    numbers = partitions.slot_part[keys]
    live = _searched(numbers, parts)
    keys, numbers = keys[live], numbers[live]
    if not len(keys) or limit <= 0:
        return []
    rows_at = partitions.slot_row[keys]
    if given is not None:
        scores = np.asarray(given[live], dtype=np.float32)
    else:
        scores = _scores(partitions, numbers, rows_at, query)
    return _passing(partitions, numbers, rows_at, scores, check, limit)


def _searched(numbers: np.ndarray, parts: Sequence[Partition] | None) -> np.ndarray:
    """Which of these partition numbers (-1: a key with no row) are searched."""
    if parts is None:
        return numbers >= 0
    if len(parts) == 1:  # a search of one user: one comparison (np.isin costs more, even on a few keys)
        one: np.ndarray = numbers == parts[0].number
        return one
    return np.isin(numbers, [p.number for p in parts])


def _scores(partitions: Partitions, numbers: np.ndarray, rows_at: np.ndarray, query: np.ndarray) -> np.ndarray:
    """The int8 scores of these rows (each in partition `numbers[i]`, at row `rows_at[i]`)."""
    scores = np.empty(len(numbers), dtype=np.float32)
    numbered = np.unique(numbers).tolist()
    if len(numbered) <= GATHERS_PER_PARTITION:  # one gather per partition
        for number in numbered:
            mine = np.flatnonzero(numbers == number)
            part = partitions.numbered[number]
            assert part is not None
            chosen = rows_at[mine]
            scores[mine] = int8_vectors.scores(part.codes[chosen], part.scales[chosen], query)
    else:  # rows of many partitions: one row at a time
        held = [(partitions.numbered[n], r) for n, r in zip(numbers.tolist(), rows_at.tolist(), strict=True)]
        codes = np.stack([p.codes[r] for p, r in held if p is not None])
        scales = np.asarray([p.scales[r] for p, r in held if p is not None])
        scores[:] = int8_vectors.scores(codes, scales, query)
    return scores


def _passing(
    partitions: Partitions,
    numbers: np.ndarray,
    rows_at: np.ndarray,
    scores: np.ndarray,
    check: RowCheck,
    limit: int,
) -> Hits:
    """The best `limit` of these rows by score that pass `check`."""
    rows = rows_at.tolist()
    owners = [partitions.numbered[n] for n in numbers.tolist()]
    source = partitions.documents
    found: Hits = []
    for at in np.argsort(-scores, kind="stable").tolist():
        part, row = owners[at], rows[at]
        assert part is not None
        if check(part.doc(row, source)):
            found.append((part.ids[row], float(scores[at])))
            if len(found) == limit:
                break
    return found
