"""MicroBatchingEmbedder: concurrent calls share one call of the wrapped embedder, each caller gets its own rows,
an error reaches every caller of the batch, and a lone caller never waits for company. No test here measures time:
the batches are made deterministic by holding the wrapped embedder's call until the test lets it go."""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from mnemo.adapters.embedders.micro_batching import MicroBatchingEmbedder
from mnemo.adapters.registry import EmbedBatching, ProviderRegistry
from mnemo.ports.embedder import Vectors

LONG = 60.0  # a wait no test may sit through: a test that reaches it hangs visibly instead of passing by luck


def vector_of(text: str) -> np.ndarray:
    """A deterministic vector per text, so a caller's rows can be checked against its own texts."""
    rng = np.random.default_rng(abs(hash(text)) % (2**32))
    v = rng.standard_normal(8).astype(np.float32)
    return v / np.linalg.norm(v)


class Recording:
    """An embedder that records each call's texts; with `hold`, each call waits for the test to release it."""

    name = "recording"
    dimension = 8

    def __init__(self, *, hold: bool = False, fail: Exception | None = None) -> None:
        self.calls: list[list[str]] = []
        self.entered = threading.Semaphore(0)
        self.release = threading.Event()
        if not hold:
            self.release.set()
        self.fail = fail
        self._lock = threading.Lock()

    def embed(self, texts: list[str]) -> Vectors:
        with self._lock:
            self.calls.append(list(texts))
        self.entered.release()
        assert self.release.wait(LONG)
        if self.fail is not None:
            raise self.fail
        return np.vstack([vector_of(t) for t in texts]) if texts else np.zeros((0, 8), np.float32)


def wait_for_batch(embedder: MicroBatchingEmbedder, size: int) -> None:
    """Until the open batch holds `size` texts (its callers have joined it)."""
    for _ in range(100_000):
        with embedder._lock:
            batch = embedder._open
            if batch is not None and len(batch.texts) >= size:
                return
        threading.Event().wait(0.001)
    raise AssertionError("the callers never joined the batch")


def test_a_lone_caller_gets_its_vectors_at_once_in_one_call() -> None:
    inner = Recording()
    embedder = MicroBatchingEmbedder(inner, max_wait=LONG, max_texts=16)
    out = embedder.embed(["a", "b"])
    assert inner.calls == [["a", "b"]]
    np.testing.assert_array_equal(out, np.vstack([vector_of("a"), vector_of("b")]))
    assert embedder.name == "recording" and embedder.dimension == 8


def test_callers_arriving_together_share_one_call_and_each_gets_its_own_rows() -> None:
    inner = Recording(hold=True)
    embedder = MicroBatchingEmbedder(inner, max_wait=LONG, max_texts=6)
    with ThreadPoolExecutor(8) as pool:
        first = pool.submit(embedder.embed, ["busy"])  # under way: the next leader knows it has company
        assert inner.entered.acquire(timeout=LONG)
        texts = [["q1"], ["q2", "q3"], ["q4"], ["q5", "q6"]]
        futures = [pool.submit(embedder.embed, t) for t in texts[:3]]
        wait_for_batch(embedder, 4)
        futures.append(pool.submit(embedder.embed, texts[3]))  # fills the batch: its leader stops waiting
        inner.release.set()
        results = [f.result(timeout=LONG) for f in futures]
        first.result(timeout=LONG)
    assert inner.calls[0] == ["busy"]
    assert len(inner.calls) == 2 and sorted(inner.calls[1]) == ["q1", "q2", "q3", "q4", "q5", "q6"]
    for asked, got in zip(texts, results, strict=True):
        np.testing.assert_array_equal(got, np.vstack([vector_of(t) for t in asked]))


def test_an_error_of_the_shared_call_reaches_every_caller_and_the_next_call_works() -> None:
    inner = Recording(hold=True, fail=RuntimeError("provider down"))
    embedder = MicroBatchingEmbedder(inner, max_wait=LONG, max_texts=3)
    with ThreadPoolExecutor(8) as pool:
        busy = pool.submit(embedder.embed, ["busy"])
        assert inner.entered.acquire(timeout=LONG)
        futures = [pool.submit(embedder.embed, [t]) for t in ("x", "y", "z")]  # three texts fill the batch
        inner.release.set()
        for future in [busy, *futures]:
            with pytest.raises(RuntimeError, match="provider down"):
                future.result(timeout=LONG)
    inner.fail = None
    np.testing.assert_array_equal(embedder.embed(["w"]), vector_of("w")[None, :])


def test_a_call_of_max_texts_or_more_goes_straight_through() -> None:
    inner = Recording()
    embedder = MicroBatchingEmbedder(inner, max_wait=LONG, max_texts=2)
    embedder.embed(["a", "b", "c"])
    assert embedder.embed([]).shape == (0, 8)
    assert inner.calls == [["a", "b", "c"], []]


def test_no_thread_is_left_behind() -> None:
    # A short wait: the last batch of the 64 calls may never fill, and its leader would sit out a long one. What is
    # checked, the threads left afterwards, does not depend on how long a leader waits.
    before = threading.active_count()
    embedder = MicroBatchingEmbedder(Recording(), max_wait=0.001, max_texts=4)
    with ThreadPoolExecutor(8) as pool:
        list(pool.map(lambda i: embedder.embed([f"t{i}"]), range(64)))
    assert threading.active_count() == before


def test_async_code_calls_it_through_a_thread() -> None:
    # A call under way (held) gives the async callers company, and their three texts fill the batch: its leader
    # stops waiting at once, whatever order the threads run in.
    inner = Recording(hold=True)
    embedder = MicroBatchingEmbedder(inner, max_wait=LONG, max_texts=3)

    async def main() -> list[Vectors]:
        callers = asyncio.gather(*(asyncio.to_thread(embedder.embed, [t]) for t in ("a", "b", "c")))
        assert await asyncio.to_thread(inner.entered.acquire, timeout=LONG)  # the full batch's call
        inner.release.set()
        return await callers

    with ThreadPoolExecutor(1) as pool:
        busy = pool.submit(embedder.embed, ["busy"])
        assert inner.entered.acquire(timeout=LONG)
        results = asyncio.run(main())
        busy.result(timeout=LONG)
    assert len(inner.calls) == 2 and sorted(inner.calls[1]) == ["a", "b", "c"]
    for text, got in zip("abc", results, strict=True):
        np.testing.assert_array_equal(got, vector_of(text)[None, :])


def test_bad_bounds_are_refused() -> None:
    with pytest.raises(ValueError):
        MicroBatchingEmbedder(Recording(), max_wait=-1, max_texts=4)
    with pytest.raises(ValueError):
        MicroBatchingEmbedder(Recording(), max_wait=0.001, max_texts=0)


def test_the_registry_wraps_embedders_whose_batches_share_work_only() -> None:
    registry = ProviderRegistry(EmbedBatching(max_wait=0.001, max_texts=16))
    float32 = registry.build_embedder("local", {"quantize": False, "backend": "numpy"})
    assert isinstance(float32, MicroBatchingEmbedder)
    assert float32.max_wait == 0.001 and float32.max_texts == 16
    assert not isinstance(registry.build_embedder("local", {"backend": "onnx"}), MicroBatchingEmbedder)  # int8
    assert not isinstance(ProviderRegistry().build_embedder("local", {"quantize": False}), MicroBatchingEmbedder)
