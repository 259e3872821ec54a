"""A million memories on one machine (issue 18, part 2): the embedded default from 1k to 1M memories.

Two stores grow side by side, size by size: *users of 100* (size / 100 users, 100 memories each) and *one user holds
all*. At each size:
- search p50/p95/p99 of `MemoryService.search` (top 10, threshold 0) without the query embedding (computed
  beforehand): scoped to one user of the first store, unscoped over it, and over the one user of the second. The
  stores' files are first prewarmed in the page cache, as a serving process does at start
  (mnemo.adapters.sqlite.page_cache): filling the stores takes minutes, and this VM drops about 130 MB of file
  cache a minute, so without it the figure measured the disk as much as the engine. Where the benchmark may drop
  the page cache (root on Linux), the scoped search is also timed with the files out of the cache
  (`scoped_one_user_of_many_file_not_cached`, users not searched before): what a user's first search costs on a
  machine whose memory does not hold the store;
- recall@10 of the semantic candidates against exact float32 search of the same vectors (unscoped, and the one
  user), with the index's own settings: exact scans below `index_ann_min_rows`, the approximate index above;
- a fresh process serving each store (`python -m bench.million serve DIR …`), which starts from the snapshot the
  bench's own process wrote when it closed the store: seconds from its spawn until its first search answered, its
  peak RSS (VmHWM) over 100 more searches, and its p50 there; at `rebuilt_at` (100k) also without the snapshot, as
  after a crash (the index rebuilt from the records);
- the machine's load average when the figure was taken.
Then, at the largest size, batched adds with the real embedder (`infer=false`, 100 memories per call, into existing
users of the first store, and into the one user of the second).

Filling a million memories cannot embed a million texts (the embedder makes about 850 a second), nor go through
`MemoryService.add` (its duplicate and merge checks cost more than the write): the stores are filled through their
own record store and index (`insert`, `upsert`: the rows a verbatim add writes, with their history), with vectors
made from real embeddings: `base` texts of the corpus are embedded, and the vector of memory i is that of text
i mod base plus Gaussian noise (cosine about 0.9 to it), normalised. The questions are embedded for real.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

from bench.corpus import generate
from bench.engine import PrecomputedEmbedder, peak_rss_mb, percentiles, use_embedder
from mnemo.adapters.sqlite import page_cache
from mnemo.composition.container import Container, build_container
from mnemo.domain import filters as f
from mnemo.domain.memory import Event, HistoryEntry, MemoryRecord, Scope
from mnemo.ports.embedder import Embedder
from mnemo.services.commands import AddCommand, Message, SearchCommand
from mnemo.settings import Settings

PER_USER = 100
ONE_USER = "everyone"
FILL_CHUNK = 2_000
NOISE_BLOCK = 1_000
NOISE = 0.025  # per component: the noise vector's length is about 0.5, a cosine of about 0.9 to its base
T0 = datetime(2024, 1, 1, tzinfo=UTC)
DROP_CACHES = Path("/proc/sys/vm/drop_caches")
FULL_SIZES = (1_000, 10_000, 100_000, 300_000, 1_000_000)
QUICK_SIZES = (1_000, 5_000, 25_000)
COLD_FROM = 100_000  # smaller stores' files stay cached: the page cache is dropped only from this size on


def load_average() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def user_of(i: int) -> str:
    return f"user-{i // PER_USER:05d}"


class Corpus:
    """The memories' texts, their synthetic vectors and the questions' real embeddings."""

    def __init__(self, size: int, base: int, questions: int, embedder: Embedder, seed: int = 23) -> None:
        items = generate(size, 1, seed=seed)
        self.texts = [i.text for i in items]
        rng = np.random.default_rng(seed)
        base = min(base, size)
        start = time.perf_counter()
        embedded = np.asarray(embedder.embed(self.texts[:base]), dtype=np.float32)
        self.base_seconds = time.perf_counter() - start
        self._base = embedded
        self._seed = seed
        asked = rng.choice(size, questions, replace=False)
        self.question_of = {int(i): items[int(i)].question for i in asked}
        self.questions = [items[int(i)].question for i in asked]
        self.question_vectors = np.asarray(embedder.embed(self.questions), dtype=np.float32)
        self.asked = [int(i) for i in asked]

    def vectors(self, start: int, end: int) -> np.ndarray:
        """The vectors of memories start..end: each row's the same however the rows are sliced (its noise comes
        from the block of NOISE_BLOCK rows it is in)."""
        rows = self._base[np.arange(start, end) % len(self._base)]
        first, last = start // NOISE_BLOCK, (end - 1) // NOISE_BLOCK
        noise = np.concatenate(
            [
                np.random.default_rng([self._seed, block]).standard_normal((NOISE_BLOCK, rows.shape[1]), np.float32)
                for block in range(first, last + 1)
            ]
        )[start - first * NOISE_BLOCK : end - first * NOISE_BLOCK]
        noisy: np.ndarray = rows + NOISE * noise
        noisy /= np.linalg.norm(noisy, axis=1, keepdims=True)
        return noisy


def fill(container: Container, corpus: Corpus, start: int, end: int, user: Callable[[int], str]) -> list[str]:
    """Memories start..end written through the store and the index, as a verbatim add writes them; their ids."""
    service = container.memory_service
    ids: list[str] = []
    for begin in range(start, end, FILL_CHUNK):
        stop = min(end, begin + FILL_CHUNK)
        records = [
            MemoryRecord.create(corpus.texts[i], Scope(user_id=user(i)), at=T0 + timedelta(seconds=i))
            for i in range(begin, stop)
        ]
        vectors = corpus.vectors(begin, stop)
        service.store.insert(records, vectors, [HistoryEntry.of(Event.ADD, r, None, r.text) for r in records])
        service.index.upsert(records, vectors)
        ids.extend(r.id for r in records)
    return ids


def drop_page_cache() -> bool:
    """Write the dirty pages out and drop the clean ones from the kernel's page cache; False where not permitted."""
    if not os.access(DROP_CACHES, os.W_OK):
        return False
    os.sync()
    try:
        DROP_CACHES.write_text("1\n")
    except OSError:
        return False
    return True


def time_searches(container: Container, queries: Sequence[tuple[str | None, str]]) -> dict[str, Any]:
    samples: list[float] = []
    for user, question in queries:
        expr = f.parse({"user_id": user}) if user else f.parse(None)
        start = time.perf_counter()
        container.memory_service.search(SearchCommand(question, expr, top_k=10, threshold=0.0))
        samples.append((time.perf_counter() - start) * 1000)
    return {**percentiles(samples), "load_average": load_average()}


def recall_at_10(
    container: Container, corpus: Corpus, size: int, ids: Sequence[str], user: str | None, count: int
) -> dict[str, Any]:
    """Recall@10 of the index's semantic candidates against exact float32 search over the same vectors."""
    truth_scores = np.full((count, 10), -np.inf, dtype=np.float32)
    truth_rows = np.zeros((count, 10), dtype=np.int64)
    queries = corpus.question_vectors[:count]
    for begin in range(0, size, 65_536):
        end = min(size, begin + 65_536)
        scores = queries @ corpus.vectors(begin, end).T
        both = np.concatenate([truth_scores, scores], axis=1)
        rows = np.concatenate([truth_rows, np.arange(begin, end)[None, :].repeat(count, axis=0)], axis=1)
        best = np.argpartition(-both, 9, axis=1)[:, :10]
        truth_scores = np.take_along_axis(both, best, axis=1)
        truth_rows = np.take_along_axis(rows, best, axis=1)
    expr = f.parse({"user_id": user}) if user else f.parse(None)
    found = 0
    for q in range(count):
        hits = container.memory_service.index.search(queries[q], "", expr, 10)
        found += len({h.memory_id for h in hits} & {ids[int(r)] for r in truth_rows[q]})
    return {"recall_at_10": round(found / (10 * count), 4), "queries": count}


def serve(data_dir: Path, questions: Sequence[tuple[str | None, str]], vectors: np.ndarray) -> dict[str, Any]:
    """A fresh interpreter opening the store: seconds until its first search answered, then 100 searches."""
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as handle:
        json.dump({"questions": list(questions), "vectors": vectors.tolist()}, handle)
    try:
        started = repr(time.time())  # the child's readiness counts from its spawn: its imports are part of it
        completed = subprocess.run(
            [sys.executable, "-m", "bench.million", "serve", str(data_dir), handle.name, started],
            capture_output=True,
            text=True,
            check=True,
            cwd=Path(__file__).resolve().parent.parent,
        )
    finally:
        Path(handle.name).unlink()
    result: dict[str, Any] = json.loads(completed.stdout.strip().splitlines()[-1])
    return result


def serve_main(data_dir: Path, questions_file: Path, spawned: float) -> dict[str, Any]:
    opening = time.time()
    container = build_container(Settings(data_dir=data_dir, auth_disabled=True))
    spec = json.loads(questions_file.read_text())
    table = dict(zip([q for _, q in spec["questions"]], np.asarray(spec["vectors"], dtype=np.float32), strict=True))
    real = container.configuration.providers.get().embedder
    use_embedder(container, PrecomputedEmbedder(real, table))
    queries = [(u, q) for u, q in spec["questions"]]
    first_user, first_question = queries[0]
    expr = f.parse({"user_id": first_user}) if first_user else f.parse(None)
    container.memory_service.search(SearchCommand(first_question, expr, top_k=10, threshold=0.0))
    answered = time.time()
    searches = time_searches(container, queries)
    memories = container.memory_service.index.count()
    serving_peak = peak_rss_mb()
    closing = time.time()
    container.close()  # the index writes its snapshot
    return {
        "ready_seconds": round(answered - spawned, 2),  # from the spawn of the interpreter to the first answer
        "opened_seconds": round(answered - opening, 2),  # from building the container (imports done)
        "peak_rss_mb": serving_peak,  # while it opened the store and served
        "peak_rss_with_close_mb": peak_rss_mb(),  # and while it wrote the snapshot at close
        "close_seconds": round(time.time() - closing, 2),
        "search_ms": searches,
        "memories": memories,
        "load_average": load_average(),
    }


def batched_adds(
    container: Container, corpus: Corpus, calls: int, user: Callable[[int], str], size: int
) -> dict[str, Any]:
    """`calls` adds of 100 new memories each (infer=false, the real embedder), each call into one user."""
    texts = [f"{corpus.texts[i][:-1]}, noted again on day {i}." for i in range(calls * PER_USER)]
    start = time.perf_counter()
    for call in range(calls):
        chunk = texts[call * PER_USER : (call + 1) * PER_USER]
        container.memory_service.add(
            AddCommand(
                [Message("user", t) for t in chunk], Scope(user_id=user(call * 37 * PER_USER % size)), infer=False
            )
        )
    seconds = time.perf_counter() - start
    return {
        "memories_per_second": round(calls * PER_USER / seconds, 1),
        "memories": calls * PER_USER,
        "per_call": PER_USER,
        "load_average": load_average(),
    }


def open_stores(work: Path, embedder: Embedder) -> tuple[Container, Container]:
    """The two stores (opened from their snapshots after the first time), answering with `embedder`."""
    stores = (
        build_container(Settings(data_dir=work / "users", auth_disabled=True)),
        build_container(Settings(data_dir=work / "one-user", auth_disabled=True)),
    )
    for container in stores:
        use_embedder(container, embedder)
    return stores


def search_figures(
    work: Path,
    users: Container,
    one_user: Container,
    corpus: Corpus,
    *,
    asked: Sequence[int],
    scoped: Sequence[tuple[str, str]],
    size: int,
) -> dict[str, Any]:
    """The searches timed at one size: the files prewarmed first, as a serving process does at start; then, from
    COLD_FROM on and where permitted, scoped searches of other users with the page cache dropped."""
    prewarm_start = time.perf_counter()
    child = page_cache.prewarm_in_child(work)  # never in this process: it holds the stores' SQLite locks
    if child is not None:
        child.wait()
    prewarm_seconds = time.perf_counter() - prewarm_start
    size_of_files = sum(p.stat().st_size for p in page_cache.files_under(work))
    room = page_cache.available_memory() or 0
    fits = child is not None and size_of_files <= room * page_cache.SHARE_OF_AVAILABLE
    prewarmed = size_of_files if fits else 0  # what the child asked the kernel for
    for container in (users, one_user):  # warm up
        time_searches(container, [(None, q) for q in corpus.questions[:10]])
    searches = {
        "scoped_one_user_of_many": time_searches(users, scoped),
        "unscoped": time_searches(users, [(None, q) for q in corpus.questions]),
        "one_user_holds_all": time_searches(one_user, [(ONE_USER, q) for q in corpus.questions]),
    }
    if size >= COLD_FROM and drop_page_cache():
        # Users none of the passes above searched: their rows come from the disk, not from this process's caches.
        others = [(user_of((i + size // 2) % size), q) for i, (_u, q) in zip(asked, scoped, strict=False)]
        searches["scoped_one_user_of_many_file_not_cached"] = time_searches(users, others)
    return {
        "prewarmed_mb": prewarmed >> 20,
        "prewarm_seconds": round(prewarm_seconds, 2),
        "search_without_embedding_ms": searches,
    }


def run(
    sizes: Sequence[int] = FULL_SIZES,
    *,
    base: int = 20_000,
    questions: int = 200,
    recall_queries: int = 100,
    add_calls: int = 20,
    rebuilt_at: int = 100_000,
    work_dir: Path | None = None,
    progress: Callable[[str], None] = print,
) -> dict[str, Any]:
    sizes = sorted(sizes)
    work = Path(work_dir or tempfile.mkdtemp(prefix="mnemo-million-"))
    settings = Settings(data_dir=work / "users", auth_disabled=True)
    probe = build_container(settings)
    real = probe.configuration.providers.get().embedder
    progress(f"corpus of {sizes[-1]} memories; embedding {base} of them and {questions} questions")
    corpus = Corpus(sizes[-1], base, questions, real)
    probe.close()
    cached = PrecomputedEmbedder(real, dict(zip(corpus.questions, corpus.question_vectors, strict=True)))
    users, one_user = open_stores(work, cached)
    results: dict[str, Any] = {
        "sizes": list(sizes),
        "per_user": PER_USER,
        "embedder": real.name,
        "base_texts": min(base, sizes[-1]),
        "noise": NOISE,
        "questions": questions,
        "ann_min_rows": settings.index_ann_min_rows,
        "ann_nprobe": settings.index_ann_nprobe,
        "at": {},
    }
    users_ids: list[str] = []
    one_ids: list[str] = []
    stored = 0
    for size in sizes:
        progress(f"filling to {size}")
        start = time.perf_counter()
        users_ids += fill(users, corpus, stored, size, user_of)
        one_ids += fill(one_user, corpus, stored, size, lambda _i: ONE_USER)
        fill_seconds = time.perf_counter() - start
        stored = size
        asked = [i for i in corpus.asked if i < size] or [0]
        scoped = [(user_of(i), corpus.question_of.get(i, corpus.questions[0])) for i in asked]
        scoped = (scoped * (questions // len(scoped) + 1))[:questions]
        progress(f"searching at {size}")
        figures: dict[str, Any] = {
            "fill_seconds_both_stores": round(fill_seconds, 1),
            **search_figures(work, users, one_user, corpus, asked=asked, scoped=scoped, size=size),
        }
        progress(f"recall@10 against exact search at {size}")
        count = min(recall_queries, questions)
        figures["recall"] = {
            "unscoped": recall_at_10(users, corpus, size, users_ids, None, count),
            "one_user_holds_all": recall_at_10(one_user, corpus, size, one_ids, ONE_USER, count),
            "approximate": size >= settings.index_ann_min_rows,
        }
        progress(f"a fresh process serving each store at {size}")
        for container in (users, one_user):
            container.close()  # each index writes its snapshot
        served = {
            "users_of_100": (work / "users", scoped[:100], cached.embed([q for _, q in scoped[:100]])),
            "one_user_holds_all": (
                work / "one-user",
                [(ONE_USER, q) for q in corpus.questions[:100]],
                corpus.question_vectors[:100],
            ),
        }
        figures["serving"] = {name: serve(*spec) for name, spec in served.items()}
        if size == max((s for s in sizes if s <= rebuilt_at), default=sizes[0]):
            progress(f"a fresh process serving each store at {size} without its snapshot (as after a crash)")
            figures["serving_rebuilt"] = {}
            for name, (data_dir, asked_here, vectors) in served.items():
                shutil.rmtree(data_dir / "mnemo.sqlite3.index", ignore_errors=True)
                figures["serving_rebuilt"][name] = serve(data_dir, asked_here, vectors)
        users, one_user = open_stores(work, cached)
        results["at"][str(size)] = figures
    progress(f"batched adds at {sizes[-1]} with the real embedder")
    for container in (users, one_user):
        use_embedder(container, real)
    results["batched_add"] = {
        "users_of_100": batched_adds(users, corpus, add_calls, user_of, sizes[-1]),
        "one_user_holds_all": batched_adds(one_user, corpus, add_calls, lambda _i: ONE_USER, sizes[-1]),
        "at": sizes[-1],
    }
    results["bench_peak_rss_mb"] = peak_rss_mb()
    for container in (users, one_user):
        container.close()
    if work_dir is None:
        shutil.rmtree(work, ignore_errors=True)  # about 7 GB at a million
    return results


def main(argv: list[str]) -> int:
    if argv[:1] == ["serve"]:
        print(json.dumps(serve_main(Path(argv[1]), Path(argv[2]), float(argv[3]))))
        return 0
    quick = "--quick" in argv
    print(json.dumps(run(QUICK_SIZES if quick else FULL_SIZES, base=2_000 if quick else 20_000), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
