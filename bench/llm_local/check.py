"""An end-to-end check of the local LLM through mnemo's own OpenAI provider: `python -m bench.llm_local check`.

The calls go the way mnemo's `openai` LLM makes them (`mnemo.adapters.llms.openai`: its request body, its
`OpenAIHttp` client with retries, its parsing of the reply), pointed at the local server's base URL. The extraction
calls share one system prompt (fact-extraction rules and worked examples) and differ in the conversation at the
end, as an add's extraction calls do; an update-decision call, another prompt, comes between them, as it does in an
add:

1. a JSON-object extraction of one conversation (cold: nothing cached);
2. a JSON-object update decision (another prompt: it goes to another slot, cold too);
3. a JSON-object extraction of another conversation (warm: the system prompt's tokens reused, call 2 between);
4. a json_schema extraction of a third conversation (OpenAI's `json_schema` response format, strict);
5. call 3 again through the provider class itself, `OpenAILLM.complete(..., json_mode=True)`: the same text.

Each call's seconds, tokens and cached tokens are printed as JSON; the replies must parse as the JSON asked for.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from bench.llm_local.process import LocalLLM
from mnemo.adapters.llms.openai import OpenAILLM, OpenAILLMConfig, chat_body, completion_text, completion_usage
from mnemo.adapters.openai_http import OpenAIHttp, RetryPolicy
from mnemo.ports.llm import ChatMessage

SYSTEM = """You extract durable facts worth remembering about the user from a conversation: preferences, \
personal details, plans, relationships, possessions, professional details, health, opinions, and anything the \
user would expect an assistant to remember later.

Rules:
- One fact per item, short and self-contained, written as the user would state it about themselves in the third \
person ("Lives in Lisbon", "Is allergic to peanuts").
- Make dates explicit when the conversation gives them ("Starts a new job on 2024-03-01").
- Skip greetings, small talk, questions, and anything that is not a fact about the user.
- Never invent facts. If there is nothing worth remembering, return an empty list.
- Keep the user's own words for names of people, places, pets and products.
- Each fact gets one category: personal, work, health, preference, plan, relationship or other.

Examples:

Conversation:
user: Hi! How are you today?
assistant: I'm fine, thanks. How can I help?
Reply: {"facts": []}

Conversation:
user: I just moved to Porto with my wife Marta, and I'm looking for a vegetarian restaurant near the river.
assistant: Congratulations on the move! Here are a few ideas.
Reply: {"facts": [{"text": "Moved to Porto", "category": "personal"}, {"text": "Is married to Marta", \
"category": "relationship"}, {"text": "Looks for vegetarian restaurants", "category": "preference"}]}

Conversation:
user: My doctor told me to stop drinking coffee because of my blood pressure. I'll switch to green tea.
Reply: {"facts": [{"text": "Has high blood pressure", "category": "health"}, {"text": "Was told by a doctor \
to stop drinking coffee", "category": "health"}, {"text": "Plans to switch to green tea", "category": "plan"}]}

Conversation:
user: I'm a backend engineer at a bank, mostly Java, and I'm learning Rust in the evenings.
Reply: {"facts": [{"text": "Works as a backend engineer at a bank", "category": "work"}, {"text": "Programs \
mostly in Java", "category": "work"}, {"text": "Is learning Rust in the evenings", "category": "plan"}]}

Reply with a JSON object only: {"facts": [{"text": "...", "category": "..."}]}"""

CONVERSATIONS = (
    "user: I'm Ana, I live in Lisbon and I'm allergic to peanuts. My cat is called Miso.",
    "user: Next month I start a new job as a nurse in Coimbra, so I'm selling my old bike.\n"
    "assistant: Good luck with the new job!",
    "user: My brother Tiago is getting married in June and I'm learning to dance the tango for the wedding.",
)

DECISION = """You keep a memory store consistent. Compare the new facts with the existing memories and decide, \
for each item, one event: ADD (a new fact no memory covers; id "new"), UPDATE (a memory the fact changes; keep its \
id, give the new text), DELETE (a memory the facts make false; keep its id) or NONE (already stored).

Existing memories:
[{"id": "0", "text": "Lives in Lisbon"}, {"id": "1", "text": "Works as a teacher"}]

New facts:
["Works as a nurse in Coimbra", "Is selling an old bike"]

Reply with a JSON object only: {"memory": [{"id": "...", "text": "...", "event": "ADD|UPDATE|DELETE|NONE"}]}"""

FACTS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "facts": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "text": {"type": "string"},
                    "category": {
                        "type": "string",
                        "enum": ["personal", "work", "health", "preference", "plan", "relationship", "other"],
                    },
                },
                "required": ["text", "category"],
                "additionalProperties": False,
            },
        }
    },
    "required": ["facts"],
    "additionalProperties": False,
}

TEMPERATURE = 0.0
MAX_TOKENS = 300


def messages_for(conversation: str) -> list[ChatMessage]:
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": f"Conversation:\n{conversation}"}]


def cpu_seconds(pid: int | None) -> float | None:
    """The CPU time a process has used so far (user and system), from /proc; None when it cannot be read."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def timed_call(http: OpenAIHttp, model: str, body: dict[str, object], pid: int | None) -> dict[str, Any]:
    """One chat completion through the provider's client, with what it cost: the seconds it took, and the CPU
    seconds the server spent on it (what the call costs on a machine that other work is not slowing down)."""
    cpu_before = cpu_seconds(pid)
    started = time.perf_counter()
    payload = http.post("chat/completions", {"model": model, **body})
    seconds = time.perf_counter() - started
    cpu_after = cpu_seconds(pid)
    usage = completion_usage(payload)
    details = payload.get("usage", {}).get("prompt_tokens_details", {})
    text = completion_text(payload)
    return {
        "seconds": round(seconds, 2),
        "server_cpu_seconds": None if cpu_before is None or cpu_after is None else round(cpu_after - cpu_before, 2),
        "prompt_tokens": usage.input_tokens,
        "cached_tokens": details.get("cached_tokens"),
        "completion_tokens": usage.output_tokens,
        "finish_reason": payload["choices"][0].get("finish_reason"),
        "server_timings_ms": payload.get("timings"),
        "reply": json.loads(text),
    }


def follows_schema(reply: Any) -> bool:
    """Whether a reply is what FACTS_SCHEMA admits: {"facts": [{"text": str, "category": one of the enum}]}."""
    categories = FACTS_SCHEMA["properties"]["facts"]["items"]["properties"]["category"]["enum"]
    if not isinstance(reply, dict) or set(reply) != {"facts"} or not isinstance(reply["facts"], list):
        return False
    return all(
        isinstance(fact, dict)
        and set(fact) == {"text", "category"}
        and isinstance(fact["text"], str)
        and fact["category"] in categories
        for fact in reply["facts"]
    )


def run(llm: LocalLLM) -> dict[str, Any]:
    model = llm.model_id
    config = OpenAILLMConfig(
        base_url=llm.base_url, model=model, temperature=TEMPERATURE, max_tokens=MAX_TOKENS, timeout=600.0
    )
    http = OpenAIHttp(config.base_url, None, config.timeout, RetryPolicy.for_timeout(config.timeout, 0, None))
    load_before = list(os.getloadavg())
    calls: dict[str, Any] = {}
    calls["1_extraction_json_object_cold"] = timed_call(
        http, model, chat_body(messages_for(CONVERSATIONS[0]), TEMPERATURE, MAX_TOKENS, json_mode=True), llm.pid
    )
    decision: list[ChatMessage] = [{"role": "user", "content": DECISION}]
    calls["2_decision_json_object_cold"] = timed_call(
        http, model, chat_body(decision, TEMPERATURE, MAX_TOKENS, json_mode=True), llm.pid
    )
    calls["3_extraction_json_object_warm"] = timed_call(
        http, model, chat_body(messages_for(CONVERSATIONS[1]), TEMPERATURE, MAX_TOKENS, json_mode=True), llm.pid
    )
    schema_body = chat_body(messages_for(CONVERSATIONS[2]), TEMPERATURE, MAX_TOKENS, json_mode=False)
    schema_body["response_format"] = {
        "type": "json_schema",
        "json_schema": {"name": "facts", "schema": FACTS_SCHEMA, "strict": True},
    }
    schema_call = timed_call(http, model, schema_body, llm.pid)
    calls["4_extraction_json_schema_warm"] = {**schema_call, "follows_schema": follows_schema(schema_call["reply"])}
    started = time.perf_counter()
    completion = OpenAILLM(config).complete(messages_for(CONVERSATIONS[1]), json_mode=True)
    calls["5_openai_llm_complete"] = {
        "seconds": round(time.perf_counter() - started, 2),
        "prompt_tokens": completion.usage.input_tokens,
        "completion_tokens": completion.usage.output_tokens,
        "same_reply_as_call_3": json.loads(completion.text) == calls["3_extraction_json_object_warm"]["reply"],
    }
    return {
        "base_url": llm.base_url,
        "load_average": {"before": load_before, "after": list(os.getloadavg())},
        "calls": calls,
    }


def main() -> int:
    with LocalLLM() as llm:
        report = run(llm)
    print(json.dumps(report, indent=2, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
