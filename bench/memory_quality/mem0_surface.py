"""mem0 as a system under the memory-quality evaluation: mem0ai's OSS `Memory.add(messages, user_id=...,
infer=True)` with its `openai` LLM at the same endpoint as mnemo's, run in the mem0 peer's virtualenv by
bench/evaluation/mnemo_bench/mem0_llm_worker.py and spoken to over JSON lines (one request, one answer).

Its memories are judged by the same rules as mnemo's. mem0 keeps no source messages per memory, so none counts as
made from the assistant's words alone (its roles are unknown), and it keeps no lifecycle: every memory it lists is
active. mem0 stores no timestamp given by the caller, so each add happens at the time it is run.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from bench.memory_quality.data import Conversation
from bench.memory_quality.llm import Endpoint
from bench.memory_quality.scoring import Hit, Stored

ROOT = Path(__file__).resolve().parents[2]
WORKER = ROOT / "bench" / "evaluation" / "mnemo_bench" / "mem0_llm_worker.py"
PEER_PYTHON = ROOT / "bench" / ".work" / "mem0-venv" / "bin" / "python"


class Mem0Error(RuntimeError):
    """The mem0 worker answered an error, or nothing."""


class JsonLines:
    """Requests written to a worker's stdin, one JSON object a line; each answer read from its stdout."""

    def __init__(self, requests: IO[str], answers: IO[str]) -> None:
        self._requests = requests
        self._answers = answers

    def ask(self, op: str, **fields: Any) -> dict[str, Any]:
        self._requests.write(json.dumps({"op": op, **fields}) + "\n")
        self._requests.flush()
        line = self._answers.readline()
        if not line:
            raise Mem0Error(f"the mem0 worker ended without answering {op!r} (its stderr says why)")
        answer: dict[str, Any] = json.loads(line)
        if "error" in answer:
            raise Mem0Error(f"mem0 {op}: {answer['error']}")
        return answer


class Mem0:
    """The evaluation's view of mem0 (see evaluation.Evaluated)."""

    name = "mem0"

    def __init__(self, lines: JsonLines) -> None:
        self._lines = lines
        self.last_usage: dict[str, int] | None = None
        self.last_fallback: str | None = None  # mem0 has none: an answer it cannot parse stores nothing

    def add(self, conversation: Conversation, run_id: str | None = None) -> list[tuple[str, str]]:
        if run_id is not None:
            raise ValueError("the mem0 surface adds by user only")
        messages = [{"role": m.role, "content": m.content} for m in conversation.messages]
        answer = self._lines.ask("add", user_id=conversation.user_id, messages=messages)
        self.last_usage = answer["usage"]
        return [(r["id"], r["event"]) for r in answer["results"]]

    def memories(self, user_id: str) -> list[Stored]:
        listed = self._lines.ask("memories", user_id=user_id)["memories"]
        return [Stored(m["id"], m["memory"], user_id) for m in listed]

    def search(self, user_id: str, query: str, threshold: float | None = None) -> list[Hit]:
        hits = self._lines.ask("search", user_id=user_id, query=query, threshold=threshold)["hits"]
        return [Hit(h["id"], h["memory"], "active", h["score"]) for h in hits]


@contextmanager
def open_mem0(endpoint: Endpoint, python: Path = PEER_PYTHON) -> Iterator[tuple[Mem0, dict[str, Any]]]:
    """mem0 in a worker process with its LLM at `endpoint`, and what it was built with (version, config); the
    worker is told to close, and waited for, on the way out."""
    if not python.exists():
        raise Mem0Error(f"no mem0 peer venv at {python}: run `bash bench/peer/setup_mem0_venv.sh` first")
    process = subprocess.Popen(
        [str(python), str(WORKER)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, encoding="utf-8"
    )
    assert process.stdin is not None and process.stdout is not None
    lines = JsonLines(process.stdin, process.stdout)
    try:
        opened = lines.ask("open", base_url=endpoint.base_url, model=endpoint.model, timeout=endpoint.timeout)
        yield Mem0(lines), opened
        lines.ask("close")
    finally:
        process.stdin.close()
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
