"""The mem0 peer: mem0ai 2.2.1's OSS `Memory` (faiss, huggingface all-MiniLM-L6-v2), run in its own venv.

The runner (bench/evaluation/mnemo_bench/mem0_peer.py) takes a JSON job and writes JSON results; this
module builds the engine job from the same corpus, seed and queries as bench/engine.py.
"""

from __future__ import annotations

import json
import random
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from bench.corpus import generate

ROOT = Path(__file__).resolve().parent.parent
PEER_PYTHON = ROOT / "bench" / ".work" / "mem0-venv" / "bin" / "python"
SETUP = ROOT / "bench" / "peer" / "setup_mem0_venv.sh"
RUNNER = ROOT / "bench" / "evaluation" / "mnemo_bench" / "mem0_peer.py"


def ensure_venv() -> Path:
    if not PEER_PYTHON.exists():
        subprocess.run(["bash", str(SETUP)], check=True)
    return PEER_PYTHON


def run_job(job: dict[str, Any], timeout: float = 7200) -> dict[str, Any]:
    python = ensure_venv()
    with tempfile.TemporaryDirectory(prefix="mem0-peer-") as work:
        job_path, out_path = Path(work) / "job.json", Path(work) / "out.json"
        job_path.write_text(json.dumps(job))
        subprocess.run([str(python), str(RUNNER), str(job_path), str(out_path)], check=True, timeout=timeout)
        result: dict[str, Any] = json.loads(out_path.read_text())
        return result


def engine(size: int, query_count: int, users: int = 100, seed: int = 11) -> dict[str, Any]:
    items = generate(size, users, seed=seed)
    sample = random.Random(seed).sample(items, query_count)
    checkpoints = sorted({min(1_000, size), size // 2, size})
    job = {
        "kind": "engine",
        "adds": [{"user_id": i.user_id, "text": i.text} for i in items],
        "checkpoints": checkpoints,
        "queries": [{"user_id": i.user_id, "query": i.question} for i in sample],
        "top_k": 10,
        "time_budget_seconds": 3600,
        # One thread, as mnemo runs (OPENBLAS_NUM_THREADS=1): on 2 cores torch's own threads only contend.
        "torch_threads": 1,
    }
    return run_job(job)
