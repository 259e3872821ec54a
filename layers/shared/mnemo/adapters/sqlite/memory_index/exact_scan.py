"""The exact scan: the query scored on every row of the partitions searched, and the best rows that pass the filter.

Scores are computed in NumPy, a partition (or a slice of one) at a time; the filter is asked of rows in score order,
one Python call per row checked, until enough passed. A scan of many rows is bound by memory bandwidth: above
PARALLEL_ROWS rows it is cut into one slice per core, computed at once (NumPy releases the GIL).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from mnemo.adapters.sqlite.memory_index import int8_vectors
from mnemo.adapters.sqlite.memory_index.partitions import Partition
from mnemo.adapters.sqlite.memory_index.row_documents import DocumentSource, RowCheck
from mnemo.ports.embedder import Vectors

Hits = list[tuple[str, float]]  # memory ids and their scores, best first
ROW_CHUNK = 16_384  # rows of int8 codes widened to float32 at once by a large exact scan
PARALLEL_ROWS = 32_768  # from this many rows on, one search's cosines are computed on every core at once
Slice = tuple[int, int, int]  # a partition's number in the scan, and the start and end of its rows

_pool_lock = threading.Lock()
_pool: ThreadPoolExecutor | None = None


def exact_top(
    parts: Sequence[Partition], query: np.ndarray, check: RowCheck, limit: int, source: DocumentSource | None
) -> Hits:
    """The best `limit` rows of these partitions that pass `check`, scored on their int8 codes."""
    scores = scores_of(parts, query)
    if len(parts) == 1:
        return partition_top(parts[0], query, check, limit, source, scores[0])
    return merged_top(parts, scores, query, check, limit, source)


def partition_top(
    part: Partition,
    query: Vectors,
    check: RowCheck,
    limit: int,
    source: DocumentSource | None,
    scores: np.ndarray | None = None,
) -> Hits:
    """The best `limit` rows of one partition that pass `check`: the best few by score are checked first, and all
    of them, in order, only when too few of those pass."""
    count = len(part.ids)
    if count == 0 or limit <= 0:
        return []
    if scores is None:
        scores = part.scores(query)
    window = min(count, max(limit * 4, 64))
    while True:
        if window < count:
            best = np.argpartition(-scores, window - 1)[:window]
            best = best[np.argsort(-scores[best], kind="stable")]
        else:
            best = np.argsort(-scores, kind="stable")
        found: Hits = []
        for row in best:
            if check(part.doc(row, source)):
                found.append((part.ids[row], float(scores[row])))
                if len(found) == limit:
                    return found
        if window >= count:
            return found
        window = count


def merged_top(
    parts: Sequence[Partition],
    all_scores: Sequence[np.ndarray],
    query: Vectors,
    check: RowCheck,
    limit: int,
    source: DocumentSource | None,
) -> Hits:
    """The best `limit` rows over many partitions that pass `check`, exactly as checking every partition's own
    best would give, but checking rows in global score order: each partition offers its best `limit` rows by score
    alone, and only when a filter rejects offered rows of a partition that may hold more is the slow way taken."""
    if limit <= 0:
        return []
    offered = _offered(all_scores, limit)
    if offered is None:
        return []
    scores, rows, owner = offered
    found: Hits = []
    rejected = False
    for i in np.argsort(-scores, kind="stable"):
        part = parts[owner[i]]
        if check(part.doc(int(rows[i]), source)):
            found.append((part.ids[rows[i]], float(scores[i])))
            if len(found) == limit:
                break
        elif len(part) > limit:
            rejected = True
    if not rejected:
        return found
    # A partition lost offered rows to the filter and has rows it did not offer: check it the thorough way.
    exact: Hits = []
    for part, part_scores in zip(parts, all_scores, strict=True):
        exact.extend(partition_top(part, query, check, limit, source, part_scores))
    exact.sort(key=lambda hit: -hit[1])
    return exact[:limit]


def _offered(all_scores: Sequence[np.ndarray], limit: int) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """The best `limit` rows of each partition by score alone: their scores, rows and partitions (None: no
    partition)."""
    offered_scores: list[np.ndarray] = []
    offered_rows: list[np.ndarray] = []
    owners: list[np.ndarray] = []
    for number, scores in enumerate(all_scores):
        rows = np.argpartition(-scores, limit - 1)[:limit] if len(scores) > limit else np.arange(len(scores))
        offered_scores.append(scores[rows])
        offered_rows.append(rows)
        owners.append(np.full(len(rows), number))
    if not offered_scores:
        return None
    return np.concatenate(offered_scores), np.concatenate(offered_rows), np.concatenate(owners)


def scores_of(parts: Sequence[Partition], query: Vectors) -> list[np.ndarray]:
    """The cosine of the query with every row of the partitions: on every core at once from PARALLEL_ROWS rows on."""
    total = sum(len(part) for part in parts)
    workers = _cores() if total >= PARALLEL_ROWS else 1  # the affinity is a system call: asked only when it matters
    if workers < 2:
        return [part.scores(query) for part in parts]
    out = [np.empty(len(part), dtype=np.float32) for part in parts]

    def compute(group: list[Slice]) -> None:
        for number, start, end in group:
            part = parts[number]
            for begin in range(start, end, ROW_CHUNK):
                stop = min(end, begin + ROW_CHUNK)
                int8_vectors.scores(part.codes[begin:stop], part.scales[begin:stop], query, out=out[number][begin:stop])

    groups = _slices(parts, -(-total // workers))
    pending = [_scoring_pool().submit(compute, group) for group in groups[1:]]
    compute(groups[0])
    for future in pending:
        future.result()
    return out


def _slices(parts: Sequence[Partition], share: int) -> list[list[Slice]]:
    """The partitions' rows cut into groups of `share` rows (the last may hold fewer), in order."""
    groups: list[list[Slice]] = [[]]
    room = share
    for number, part in enumerate(parts):
        start = 0
        while start < len(part):
            if room == 0:
                groups.append([])
                room = share
            end = min(len(part), start + room)
            groups[-1].append((number, start, end))
            room -= end - start
            start = end
    return groups


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not on Linux
        return os.cpu_count() or 1


def _scoring_pool() -> ThreadPoolExecutor:
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=max(1, _cores() - 1), thread_name_prefix="mnemo-scores")
        return _pool
