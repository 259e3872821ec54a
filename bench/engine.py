"""Engine benchmark: add throughput and search latency of the memory service, in process.

Phases (every figure is recorded; sizes are configurable for a quick run):
1. embed the whole corpus once with the real embedder (its throughput is a figure of its own); later fills
   reuse those vectors through a lookup, so that building a 100k store does not take an hour;
2. add, infer=false, with the real embedder: batched (100 messages per call) up to the first size, then one
   memory per call;
3. search p50/p95/p99 at each size: scoped to one user among `users`, one user holding everything, and
   unscoped; each with the query embedding included (real embedder) and excluded (precomputed);
4. peak RSS of the process.
"""

from __future__ import annotations

import random
import resource
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from bench import footprint
from bench.corpus import Item, generate
from mnemo.composition.container import Container, build_container
from mnemo.domain import filters as f
from mnemo.domain.memory import Scope
from mnemo.ports.embedder import Embedder, Vectors
from mnemo.services.commands import AddCommand, Message, SearchCommand
from mnemo.services.providers import ProviderSet
from mnemo.settings import Settings

BATCH = 100


class PrecomputedEmbedder:
    """Answers from a table of vectors computed beforehand; falls back to the real embedder."""

    def __init__(self, real: Embedder, table: dict[str, Vectors]) -> None:
        self.real = real
        self.table = table
        self.name = f"precomputed({real.name})"
        self.dimension = real.dimension

    def embed(self, texts: list[str]) -> Vectors:
        missing = [t for t in texts if t not in self.table]
        if missing:
            for text, vector in zip(missing, self.real.embed(missing), strict=True):
                self.table[text] = vector
        return np.stack([self.table[t] for t in texts]) if texts else self.real.embed([])


def percentiles(samples_ms: Sequence[float]) -> dict[str, float]:
    arr = np.asarray(samples_ms)
    return {
        "p50": round(float(np.percentile(arr, 50)), 3),
        "p95": round(float(np.percentile(arr, 95)), 3),
        "p99": round(float(np.percentile(arr, 99)), 3),
        "mean": round(float(arr.mean()), 3),
        "n": len(samples_ms),
    }


def _status_mb(field: str) -> float | None:
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        pass
    return None


def peak_rss_mb() -> float:
    """Peak resident memory of this process (VmHWM; ru_maxrss where /proc is missing)."""
    return _status_mb("VmHWM") or round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def use_embedder(container: Container, embedder: Embedder) -> None:
    current = container.configuration.providers.get()
    container.configuration.providers.swap(
        ProviderSet(embedder=embedder, llm=current.llm, custom_instructions=current.custom_instructions)
    )


def add_batched(container: Container, items: Sequence[Item]) -> None:
    by_user: dict[str, list[Item]] = {}
    for item in items:
        by_user.setdefault(item.user_id, []).append(item)
    for user, own in by_user.items():
        for start in range(0, len(own), BATCH):
            chunk = own[start : start + BATCH]
            container.memory_service.add(
                AddCommand([Message("user", i.text) for i in chunk], Scope(user_id=user), infer=False)
            )


def add_one_by_one(container: Container, items: Sequence[Item]) -> None:
    for item in items:
        container.memory_service.add(AddCommand([Message("user", item.text)], Scope(user_id=item.user_id), infer=False))


def time_searches(container: Container, queries: Sequence[tuple[str | None, str]], top_k: int = 10) -> dict[str, float]:
    samples: list[float] = []
    for user, query in queries:
        expr = f.parse({"user_id": user}) if user else f.parse(None)
        start = time.perf_counter()
        container.memory_service.search(SearchCommand(query, expr, top_k=top_k, threshold=0.0))
        samples.append((time.perf_counter() - start) * 1000)
    return percentiles(samples)


def search_figures(
    container: Container,
    real: Embedder,
    cached: PrecomputedEmbedder,
    queries: Sequence[tuple[str | None, str]],
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    use_embedder(container, cached)
    time_searches(container, queries[:20])  # warm up caches and code paths
    out["without_embedding_ms"] = time_searches(container, queries)
    use_embedder(container, real)
    out["with_embedding_ms"] = time_searches(container, queries)
    use_embedder(container, cached)
    return out


def embed_all(embedder: Embedder, texts: list[str]) -> tuple[dict[str, Vectors], float]:
    """Every text's vector, and how many texts a second the embedder made."""
    start = time.perf_counter()
    table: dict[str, Vectors] = {}
    for begin in range(0, len(texts), 512):
        chunk = texts[begin : begin + 512]
        table.update(zip(chunk, embedder.embed(chunk), strict=True))
    return table, round(len(texts) / (time.perf_counter() - start), 1)


def searches(
    scoped: Container, one_user: Container, real: Embedder, cached: PrecomputedEmbedder, sample: list[Item]
) -> dict[str, Any]:
    """The search figures at one size: scoped to one user of many, one user holding all, and unscoped."""
    return {
        "scoped_one_user_of_many": search_figures(scoped, real, cached, [(i.user_id, i.question) for i in sample]),
        "one_user_holds_all": search_figures(one_user, real, cached, [("everyone", i.question) for i in sample]),
        "unscoped": search_figures(scoped, real, cached, [(None, i.question) for i in sample]),
    }


def run(
    sizes: Sequence[int] = (1_000, 5_000, 10_000, 50_000, 100_000),
    *,
    add_size: int = 10_000,
    users: int = 100,
    query_count: int = 300,
    single_adds: int = 1_000,
    seed: int = 11,
    work_dir: Path | None = None,
    progress: Callable[[str], None] = print,
) -> dict[str, Any]:
    """Search figures at every size; add throughput measured with the real embedder on the way to `add_size`."""
    sizes = sorted(sizes)
    add_size = min(add_size, sizes[-1])
    total = sizes[-1] + single_adds
    items = generate(total, users, seed=seed)
    rng = random.Random(seed)
    work = Path(work_dir or tempfile.mkdtemp(prefix="mnemo-bench-"))
    results: dict[str, Any] = {"sizes": list(sizes), "users": users, "queries": query_count}

    scoped_store = build_container(Settings(data_dir=work / "scoped"))
    one_user_store = build_container(Settings(data_dir=work / "one-user"))
    real = scoped_store.configuration.providers.get().embedder
    results["embedder"] = real.name

    # 1. embed the corpus once
    progress(f"embedding {total} texts and {query_count} questions with {real.name}")
    table, results["embed_per_second"] = embed_all(real, [i.text for i in items])
    cached = PrecomputedEmbedder(real, table)
    use_embedder(one_user_store, cached)

    # 2. fill size by size: with the real embedder (timed) up to add_size, precomputed vectors after; search at each
    stored, add_seconds = 0, 0.0
    results["search"] = {}
    for size in sizes:
        if stored < add_size:
            upto = min(size, add_size)
            progress(f"adding memories {stored}..{upto} in batches of {BATCH} (real embedder)")
            use_embedder(scoped_store, real)
            start = time.perf_counter()
            add_batched(scoped_store, items[stored:upto])
            add_seconds += time.perf_counter() - start
            add_batched(one_user_store, [Item("everyone", i.text, i.question) for i in items[stored:upto]])
            stored = upto
            if stored == add_size:
                results["add_batched_per_second"] = round(add_size / add_seconds, 1)
                progress(f"adding {single_adds} memories one per call at {add_size} (real embedder)")
                start = time.perf_counter()
                add_one_by_one(scoped_store, items[sizes[-1] : sizes[-1] + single_adds])
                results["add_single_per_second"] = round(single_adds / (time.perf_counter() - start), 1)
                results["add_measured_at"] = add_size
        if size > stored:
            progress(f"filling to {size} (precomputed vectors)")
            use_embedder(scoped_store, cached)
            add_batched(scoped_store, items[stored:size])
            add_batched(one_user_store, [Item("everyone", i.text, i.question) for i in items[stored:size]])
            stored = size
        use_embedder(scoped_store, cached)
        sample = rng.sample(items[:size], query_count)
        cached.embed([i.question for i in sample])
        progress(f"searching at {size}")
        results["search"][str(size)] = searches(scoped_store, one_user_store, real, cached, sample)
        if size == add_size:
            progress(f"peak memory of a fresh process serving the store at {size}")
            results["serving_footprint"] = footprint.measure(
                work / "scoped", [(i.user_id, i.question) for i in sample[:100]]
            )
    results["peak_rss_mb"] = peak_rss_mb()
    for container in (scoped_store, one_user_store):
        container.close()
    return results
