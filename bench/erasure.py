"""What "a delete erases" costs on the embedded backend (issue 16, part 4): the latency of one delete, of a bulk delete
of 1,000 memories, of an add, and the file's size, before (the commit this work started from) and after.

Each run builds one SQLite file with the real record store and keyword index (`SqliteMemoryStore`,
`LocalMemoryIndex`) under the real `MemoryService`, filled with N memories (`infer=false` adds, one sentence each) of
100 users, plus one user holding 1,000; the embeddings are random unit vectors (the embedder is not what is measured).
Then: 200 single-memory adds (p50, p95), 100 deletes by id (p50, p95), one delete of the 1,000-memory user, and the
size of the file and its WAL after the load and at the end. "after" also times the purge's two parts alone: the FTS5
`optimize` (SQLite < 3.42; with 3.42+ its `secure-delete` option is used instead and there is no optimize) and the WAL
checkpoint.

`PYTHONPATH=. .venv/bin/python -m bench.erasure [--memories N]` runs "after" here and "before" in a subprocess on the
base commit's package (`git archive <base> layers/shared/mnemo`), prints both and writes bench/results/erasure.json.
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

BASE_COMMIT = "3017988"  # main's HEAD when this work began: the "before"
DIMENSION = 384
USERS = 100
WORDS = (
    "lisbon porto tea coffee hiking cycling piano guitar sister brother nurse teacher garden cat dog peanuts "
    "allergy marathon chess novel painting kayak bakery museum train winter summer"
).split()


class RandomEmbedder:
    """Random unit vectors, the same for the same text: what the storage measured here needs, without a model."""

    name = "random"
    dimension = DIMENSION

    def embed(self, texts: list[str]) -> np.ndarray[Any, Any]:
        rows = [np.random.default_rng(abs(hash(t)) % 2**32).standard_normal(DIMENSION) for t in texts]
        matrix = np.asarray(rows, dtype=np.float32)
        out: np.ndarray[Any, Any] = matrix / np.linalg.norm(matrix, axis=1, keepdims=True)
        return out


def sentence(rng: np.random.Generator, n: int) -> str:
    words = " ".join(rng.choice(WORDS, size=8))
    return f"Memory {n}: I mentioned {words} on day {int(rng.integers(1, 10_000))}."


def percentiles(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    return {
        "p50_ms": round(statistics.median(ordered) * 1000, 3),
        "p95_ms": round(ordered[int(len(ordered) * 0.95) - 1] * 1000, 3),
    }


def sizes(path: Path) -> dict[str, int]:
    wal = Path(f"{path}-wal")
    return {"file_bytes": path.stat().st_size, "wal_bytes": wal.stat().st_size if wal.exists() else 0}


def measure(memories: int) -> dict[str, Any]:
    from mnemo.adapters.sqlite.database import Database
    from mnemo.adapters.sqlite.memory_index import LocalMemoryIndex
    from mnemo.adapters.sqlite.memory_store import SqliteMemoryStore
    from mnemo.domain.filters import parse
    from mnemo.domain.memory import Scope
    from mnemo.language.en import english
    from mnemo.services.commands import AddCommand, Message
    from mnemo.services.memory import MemoryService
    from mnemo.services.providers import ActiveProviders, ProviderSet

    rng = np.random.default_rng(7)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.sqlite3"
        db = Database(path)
        store, index = SqliteMemoryStore(db), LocalMemoryIndex(db, DIMENSION, facets=english())
        service = MemoryService(
            store, index, ActiveProviders(ProviderSet(embedder=RandomEmbedder())), language=english()
        )

        def add(text: str, user: str) -> str:
            command = AddCommand([Message("user", text)], Scope(user_id=user), infer=False)
            return service.add(command)[0].record.id

        def add_many(texts: list[str], user: str) -> None:
            service.add(AddCommand([Message("user", t) for t in texts], Scope(user_id=user), infer=False))

        started = time.perf_counter()
        per_user = memories // USERS
        for u in range(USERS):
            add_many([sentence(rng, u * per_user + i) for i in range(per_user)], f"user-{u}")
        add_many([sentence(rng, memories + i) for i in range(1000)], "bulk")
        load_seconds = time.perf_counter() - started
        loaded = sizes(path)

        add_times: list[float] = []
        added: list[str] = []
        for n in range(200):
            text = sentence(rng, 10 * memories + n)
            t0 = time.perf_counter()
            added.append(add(text, f"user-{n % USERS}"))
            add_times.append(time.perf_counter() - t0)

        delete_times: list[float] = []
        for memory_id in added[:100]:
            t0 = time.perf_counter()
            service.delete(memory_id)
            delete_times.append(time.perf_counter() - t0)

        t0 = time.perf_counter()
        deleted = service.delete_all(parse({"user_id": "bulk"}))
        bulk_seconds = time.perf_counter() - t0
        assert deleted == 1000

        out: dict[str, Any] = {
            "sqlite": sqlite3.sqlite_version,
            "memories": memories + 1000,
            "load_seconds": round(load_seconds, 2),
            "add": percentiles(add_times),
            "delete_one": percentiles(delete_times),
            "delete_1000_of_one_user_ms": round(bulk_seconds * 1000, 1),
            "after_load": loaded,
            "at_end": sizes(path),
        }
        if hasattr(index, "purge"):
            out["purge_parts"] = purge_parts(db, store, index, service.get_all(parse({"user_id": "user-1"}))[0])
        db.close()
        return out


def purge_parts(db: Any, store: Any, index: Any, record: Any) -> dict[str, Any]:
    """The purge's two parts alone, after one more memory is removed (without the purge): one FTS5 optimize, one
    WAL checkpoint."""
    from mnemo.domain.memory import Event, HistoryEntry

    store.remove([record.id], [HistoryEntry.of(Event.DELETE, record, None, None)])
    index.remove([record.id])
    t0 = time.perf_counter()
    with db.write() as conn:
        conn.execute("INSERT INTO memory_fts (memory_fts) VALUES ('optimize')")
    optimize = time.perf_counter() - t0
    t0 = time.perf_counter()
    db.checkpoint()
    checkpoint = time.perf_counter() - t0
    return {
        "fts_secure_delete": bool(index.secure_delete),
        "fts_optimize_ms": round(optimize * 1000, 2),
        "wal_checkpoint_ms": round(checkpoint * 1000, 2),
    }


def before(memories: int) -> dict[str, Any]:
    """The same measurement on the base commit's package, in a subprocess."""
    root = Path(__file__).resolve().parent.parent
    with tempfile.TemporaryDirectory() as tmp:
        archive = subprocess.run(
            ["git", "archive", BASE_COMMIT, "layers/shared/mnemo"], cwd=root, check=True, capture_output=True
        )
        subprocess.run(["tar", "-x", "-C", tmp], input=archive.stdout, check=True)
        env = {**os.environ, "PYTHONPATH": f"{tmp}/layers/shared", "PYTHONDONTWRITEBYTECODE": "1"}
        done = subprocess.run(
            [sys.executable, str(Path(__file__).resolve()), "--memories", str(memories), "--only-here"],
            env=env,
            cwd=tmp,
            check=True,
            capture_output=True,
            text=True,
        )
    parsed: dict[str, Any] = json.loads(done.stdout)
    return parsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--only-here", action="store_true", help="measure the package on the path, print JSON")
    args = parser.parse_args()
    if args.only_here:
        print(json.dumps(measure(args.memories)))
        return
    results = {"before": before(args.memories), "after": measure(args.memories)}
    print(json.dumps(results, indent=2))
    out = Path(__file__).resolve().parent / "results" / "erasure.json"
    out.write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
