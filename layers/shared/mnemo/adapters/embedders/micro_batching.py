"""Dynamic micro-batching of an embedder: calls that arrive together share one call of the embedder they wrap.

The first caller of a batch leads it: when another call is under way (a sign of concurrent requests), it waits
up to `max_wait` seconds (or until the batch holds `max_texts` texts) for other callers; then it embeds every text
of the batch in one call of the wrapped embedder and hands each caller its own rows, while the others wait for that
call only. There is no thread of its own: a batch is always embedded by a caller's thread, so nothing is left to
stop at shutdown and nothing can wait for a thread that is gone. An error of the shared call is raised to every
caller of the batch. A call of `max_texts` texts or more is not batched.

Callers are threads (the server's request threads, the workers): the wait blocks, so an async caller calls it
through a thread, as it calls every port. A caller's rows are those the wrapped embedder gives its texts within
the batch; an embedder that pads a batch (float32 ONNX, NumPy, the HTTP providers) gives the vectors the texts get
alone, to rounding. The local int8 model is not wrapped (adapters/registry.py): it embeds one text per run, so
sharing a call would save nothing and only add the wait.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

import numpy as np

from mnemo.ports.embedder import Embedder, Vectors


@dataclass
class _Batch:
    texts: list[str] = field(default_factory=list)
    full: threading.Event = field(default_factory=threading.Event)  # no room left: the leader need not wait
    done: threading.Event = field(default_factory=threading.Event)
    vectors: Vectors | None = None
    error: BaseException | None = None


class MicroBatchingEmbedder:
    def __init__(self, inner: Embedder, *, max_wait: float, max_texts: int) -> None:
        if max_wait < 0 or max_texts < 1:
            raise ValueError("max_wait must be >= 0 and max_texts >= 1")
        self.inner = inner
        self.max_wait = max_wait
        self.max_texts = max_texts
        self._lock = threading.Lock()
        self._open: _Batch | None = None  # the batch new callers join, until its leader closes it
        self._busy = 0  # calls under way: a lone caller does not wait for company

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def dimension(self) -> int:
        return self.inner.dimension

    def embed(self, texts: list[str]) -> Vectors:
        if not texts or len(texts) >= self.max_texts:
            return self.inner.embed(texts)
        with self._lock:
            self._busy += 1
            company = self._busy > 1
            batch = self._open
            leader = batch is None or len(batch.texts) + len(texts) > self.max_texts
            if leader:
                if batch is not None:  # the open batch has no room: it goes as it is
                    batch.full.set()
                batch = self._open = _Batch()
            assert batch is not None
            start = len(batch.texts)
            batch.texts.extend(texts)
            if len(batch.texts) >= self.max_texts:
                batch.full.set()
        try:
            if leader:
                self._lead(batch, self.max_wait if company else 0.0)
            else:
                batch.done.wait()
        finally:
            with self._lock:
                self._busy -= 1
        if batch.error is not None:
            raise batch.error
        assert batch.vectors is not None
        rows: Vectors = np.array(batch.vectors[start : start + len(texts)], dtype=np.float32)
        return rows

    def _lead(self, batch: _Batch, wait: float) -> None:
        try:
            if wait > 0:
                batch.full.wait(wait)
            with self._lock:
                if self._open is batch:
                    self._open = None  # from here on the batch is fixed: later callers start another
            vectors = self.inner.embed(batch.texts)
            if len(vectors) != len(batch.texts):
                raise RuntimeError(f"The embedder gave {len(vectors)} vectors for {len(batch.texts)} texts.")
            batch.vectors = vectors
        except BaseException as exc:  # every caller of the batch gets it, the leader too
            batch.error = exc
        finally:
            with self._lock:
                if self._open is batch:  # an error before the batch was closed: no one may join it now
                    self._open = None
            batch.done.set()
