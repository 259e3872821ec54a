"""RetrievalCounts: without its thread every count is written as it is made; with it, counts wait in memory and are
written one write per project and counter; flush and close write what waits; a failed write keeps its counts."""

from __future__ import annotations

import threading
from collections import Counter

from mnemo.services.platform.memories.retrieval_counts import RetrievalCounts


class Store:
    def __init__(self) -> None:
        self.writes: list[tuple[str, str, int]] = []
        self.failing = False
        self.lock = threading.Lock()

    def bump_counter(self, project_id: str, name: str, by: int = 1) -> None:
        if self.failing:
            raise OSError("disk full")
        with self.lock:
            self.writes.append((project_id, name, by))

    def totals(self) -> Counter[tuple[str, str]]:
        out: Counter[tuple[str, str]] = Counter()
        for project_id, name, by in self.writes:
            out[(project_id, name)] += by
        return out


def test_without_its_thread_each_count_is_written_at_once() -> None:
    store = Store()
    counts = RetrievalCounts(store)  # type: ignore[arg-type]
    counts.bump("p1", "search_events")
    counts.bump("p1", "search_events")
    assert store.writes == [("p1", "search_events", 1), ("p1", "search_events", 1)]


def test_with_its_thread_counts_add_up_and_flush_writes_them_once_per_counter() -> None:
    store = Store()
    counts = RetrievalCounts(store)  # type: ignore[arg-type]
    counts.start()
    try:
        with counts._writing:  # the thread cannot write while the test counts
            for _ in range(50):
                counts.bump("p1", "search_events")
            counts.bump("p1", "get_events")
            counts.bump("p2", "search_events")
            assert store.writes == []
        counts.flush()
        assert store.totals() == {("p1", "search_events"): 50, ("p1", "get_events"): 1, ("p2", "search_events"): 1}
        assert len(store.writes) <= 3 + 3  # one write per counter (the thread may have written some first)
    finally:
        counts.close()


def test_concurrent_counts_are_all_written_by_close() -> None:
    store = Store()
    counts = RetrievalCounts(store)  # type: ignore[arg-type]
    counts.start()

    def count() -> None:
        for _ in range(1000):
            counts.bump("p", "search_events")

    threads = [threading.Thread(target=count) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    counts.close()
    assert store.totals() == {("p", "search_events"): 8000}
    counts.bump("p", "get_events")  # after close: written at once
    assert store.writes[-1] == ("p", "get_events", 1)


def test_a_failed_write_keeps_its_counts_for_the_next() -> None:
    store = Store()
    counts = RetrievalCounts(store)  # type: ignore[arg-type]
    counts.start()
    with counts._writing:
        counts.bump("p", "search_events")
        counts.bump("p", "search_events")
        store.failing = True
    counts.flush()
    assert store.writes == []
    store.failing = False
    counts.close()
    assert store.totals() == {("p", "search_events"): 2}
