"""What a misbehaving model answers, scripted on the loopback OpenAI server: garbage, JSON cut off at the output
limit (`finish_reason: length`), a bare empty list, and no answer in time. Each script queues the replies of one
inferred add's extraction call, asked twice; `release` lets a stalled call go once the test is done."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from typing import Any

from tests.support.openai_server import OpenAIServer
from tests.support.waits import seconds

# The misbehaviours, each with the fallback reason the add must report.
MISBEHAVIOURS = {
    "garbage": "llm_malformed",
    "truncated": "llm_truncated",
    "empty-list": "llm_malformed",
    "timeout": "llm_timeout",
}

# Config keys: a stalled call times out soon and is not retried. The bound is the tests' own (scaled for a busy
# machine): a loopback answer must come within it, or a cut-off answer would be reported as a timeout.
FAST_FAILING_LLM = {"timeout": seconds(0.5), "max_retries": 0}


def cut_off(text: str) -> bytes:
    """A chat completion stopped at its output limit, with its usage."""
    return json.dumps(
        {
            "id": "chatcmpl-cut",
            "object": "chat.completion",
            "created": 1_700_000_000,
            "model": "m",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "length"}],
            "usage": {"prompt_tokens": 50, "completion_tokens": 7, "total_tokens": 57},
        }
    ).encode()


def script(server: OpenAIServer, kind: str, release: threading.Event) -> None:
    """Queue the replies of `kind` for one add's extraction call and the one more it is asked."""
    if kind == "garbage":
        server.reply("Sure! Here are the facts: Lisbon.", "<<<not json>>>")
    elif kind == "truncated":
        server.respond_raw_next(200, cut_off('{"facts": [{"text": "Lives in Lis'))
        server.respond_raw_next(200, cut_off('{"facts": [{"text": "Lives in'))
    elif kind == "empty-list":
        server.reply("[]", "[]")
    else:
        server.reply(stall(release))


def stall(release: threading.Event) -> Callable[[dict[str, Any]], str]:
    def answer(_body: dict[str, Any]) -> str:
        release.wait(seconds(30))  # set once the add has answered: longer than any timeout above
        return '{"facts": []}'

    return answer


def counted_calls(kind: str) -> int:
    """The calls an add's `llm_usage` counts for `kind`: a call that timed out is not counted (nothing answered)."""
    return 0 if kind == "timeout" else 2
