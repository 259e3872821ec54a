"""The mem0 side of the memory-quality evaluation with an LLM: the worker's JSON-lines protocol against a fake mem0
`Memory` (mem0 itself lives in the peer venv), and the evaluation's `Mem0` surface speaking it."""

from __future__ import annotations

import ast
import io
import json
import threading
from datetime import UTC, datetime
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from bench.memory_quality.data import Conversation, Message
from bench.memory_quality.mem0_surface import WORKER, JsonLines, Mem0, Mem0Error

from mnemo_bench.mem0_llm_worker import Session, UsageCounter, serve


class FakeCompletions:
    """The OpenAI client's `chat.completions`: each call answers the usage it is given."""

    def __init__(self) -> None:
        self.usages = [(100, 10), (200, 20)]

    def create(self, **_: Any) -> Any:
        prompt, completion = self.usages.pop(0)
        return SimpleNamespace(usage=SimpleNamespace(prompt_tokens=prompt, completion_tokens=completion))


class FakeMemory:
    """mem0's Memory as the worker uses it: add makes two LLM calls and stores one memory per user message."""

    def __init__(self) -> None:
        self.llm = SimpleNamespace(client=SimpleNamespace(chat=SimpleNamespace(completions=FakeCompletions())))
        self.stored: list[dict[str, Any]] = []
        self.searched: list[dict[str, Any]] = []

    def add(self, messages: list[dict[str, str]], *, user_id: str, infer: bool) -> dict[str, Any]:
        assert infer is True
        completions = self.llm.client.chat.completions
        completions.create(messages=messages)
        completions.create(messages=messages)
        added = []
        for m in messages:
            if m["role"] == "user":
                memory = {"id": f"m{len(self.stored)}", "memory": m["content"], "user_id": user_id, "event": "ADD"}
                self.stored.append(memory)
                added.append(memory)
        return {"results": added}

    def get_all(self, *, filters: dict[str, str], top_k: int) -> dict[str, Any]:
        return {"results": [m for m in self.stored if m["user_id"] == filters["user_id"]][:top_k]}

    def search(self, query: str, *, filters: dict[str, str], top_k: int, **extra: Any) -> dict[str, Any]:
        self.searched.append({"query": query, "top_k": top_k, **extra})
        mine = [m for m in self.stored if m["user_id"] == filters["user_id"]]
        return {"results": [{**m, "score": 0.5} for m in mine]}


def session() -> tuple[Session, FakeMemory]:
    memory = FakeMemory()
    return Session(lambda request: (memory, {"llm": request["base_url"]})), memory


def talk(worker: Session, *requests: dict[str, Any]) -> list[dict[str, Any]]:
    out = io.StringIO()
    serve(worker, [json.dumps(r) + "\n" for r in requests], out)
    return [json.loads(line) for line in out.getvalue().splitlines()]


def test_the_worker_answers_each_request_on_one_line_and_counts_the_llm_usage_of_an_add() -> None:
    worker, _memory = session()
    messages = [{"role": "user", "content": "I live in Lisbon"}, {"role": "assistant", "content": "Nice!"}]

    opened, added, listed, found, closed = talk(
        worker,
        {"op": "open", "base_url": "http://127.0.0.1:1/v1", "model": "m", "timeout": 5},
        {"op": "add", "user_id": "ana", "messages": messages},
        {"op": "memories", "user_id": "ana"},
        {"op": "search", "user_id": "ana", "query": "where?", "threshold": 0.0},
        {"op": "close"},
    )

    assert opened["config"] == {"llm": "http://127.0.0.1:1/v1"}
    assert added == {
        "results": [{"id": "m0", "memory": "I live in Lisbon", "event": "ADD"}],
        "usage": {"calls": 2, "input_tokens": 300, "output_tokens": 30},
    }
    assert listed == {"memories": [{"id": "m0", "memory": "I live in Lisbon"}]}
    assert found == {"hits": [{"id": "m0", "memory": "I live in Lisbon", "score": 0.5}]}
    assert closed == {}


def test_search_passes_a_threshold_only_when_one_is_asked() -> None:
    worker, memory = session()

    talk(
        worker,
        {"op": "open", "base_url": "u", "model": "m"},
        {"op": "search", "user_id": "ana", "query": "q", "threshold": None},
        {"op": "search", "user_id": "ana", "query": "q", "threshold": 0.0},
    )

    assert memory.searched == [{"query": "q", "top_k": 10}, {"query": "q", "top_k": 10, "threshold": 0.0}]


def test_a_failed_request_is_answered_as_an_error_and_the_worker_goes_on() -> None:
    worker, _memory = session()

    answers = talk(
        worker,
        {"op": "memories", "user_id": "ana"},
        {"op": "open", "base_url": "u", "model": "m"},
        {"op": "dance"},
        {"op": "memories", "user_id": "ana"},
    )

    assert answers[0] == {"error": "ValueError: 'memories' before open"}
    assert answers[2] == {"error": "ValueError: unknown op 'dance'"}
    assert answers[3] == {"memories": []}


def test_the_usage_counter_reads_a_reply_without_usage_as_a_call_of_no_tokens() -> None:
    counter = UsageCounter()
    create = counter.wrap(lambda **_: SimpleNamespace(usage=None))

    create(messages=[])

    assert counter.to_json() == {"calls": 1, "input_tokens": 0, "output_tokens": 0}


def test_the_worker_imports_no_mnemo_and_mem0_only_inside_a_function() -> None:
    tree = ast.parse(Path(WORKER).read_text())
    top_level = {
        alias.name.split(".")[0]
        for node in tree.body
        if isinstance(node, ast.Import | ast.ImportFrom)
        for alias in node.names
    } | {node.module.split(".")[0] for node in tree.body if isinstance(node, ast.ImportFrom) and node.module}

    assert not {"mem0", "mnemo", "bench", "torch"} & top_level


# ---- the evaluation's side, against the worker's serve() on a pipe -------------------------------------------


class Pipe:
    """The worker's serve() in a thread, spoken to through JsonLines as the real subprocess is."""

    def __init__(self, worker: Session) -> None:
        import os

        requests_r, requests_w = os.pipe()
        answers_r, answers_w = os.pipe()
        self.requests = open(requests_w, "w", encoding="utf-8")  # noqa: SIM115 - closed by close()
        self.answers = open(answers_r, encoding="utf-8")  # noqa: SIM115
        self._in = open(requests_r, encoding="utf-8")  # noqa: SIM115
        self._out = open(answers_w, "w", encoding="utf-8")  # noqa: SIM115
        self.thread = threading.Thread(target=serve, args=(worker, self._in, self._out))
        self.thread.start()

    def close(self) -> None:
        self.requests.close()
        self.thread.join(timeout=5)
        for f in (self.answers, self._in, self._out):
            f.close()


def conversation(text: str) -> Conversation:
    when = datetime(2025, 1, 1, tzinfo=UTC)
    return Conversation("c1", "ana", when, (Message("user", text), Message("assistant", "ok")), (), (), ())


def test_the_mem0_surface_adds_lists_and_searches_through_the_worker() -> None:
    worker, _memory = session()
    pipe = Pipe(worker)
    try:
        lines = JsonLines(pipe.requests, pipe.answers)
        lines.ask("open", base_url="u", model="m", timeout=1.0)
        mem0 = Mem0(lines)

        added = mem0.add(conversation("I am a nurse"))
        stored = mem0.memories("ana")
        hits = mem0.search("ana", "job?", threshold=0.0)

        assert added == [("m0", "ADD")]
        assert mem0.last_usage == {"calls": 2, "input_tokens": 300, "output_tokens": 30}
        assert mem0.last_fallback is None
        assert [(m.id, m.text, m.user_id, m.active, m.roles) for m in stored] == [
            ("m0", "I am a nurse", "ana", True, ())
        ]
        assert [(h.id, h.text, h.state, h.score) for h in hits] == [("m0", "I am a nurse", "active", 0.5)]
        with pytest.raises(Mem0Error, match="unknown op"):
            lines.ask("dance")
    finally:
        pipe.close()


def test_the_mem0_surface_says_when_the_worker_ended_without_answering() -> None:
    lines = JsonLines(io.StringIO(), io.StringIO(""))

    with pytest.raises(Mem0Error, match="ended without answering 'memories'"):
        Mem0(lines).memories("ana")
