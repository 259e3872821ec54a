"""Custom instructions for a use case (`POST /generate-instructions`, which the reference's dashboard calls during
onboarding): with an LLM, written by it — asked for an `INSTRUCTIONS:` and a `TEST_MESSAGE:` line, as the reference
asks; a reply in another form is the instructions as it stands, with the reference's test message. Without an LLM, a
template for the use case that says what to keep and what to leave out — never an error."""

from __future__ import annotations

import re

from mnemo.ports.llm import LLM

DEFAULT_TEST_MESSAGE = "I like to hike on weekends."  # the reference's, when the reply does not give one
PROMPT = """Write custom instructions for a memory service that remembers facts from conversations with users, for
this use case: {use_case}

The instructions say which facts to remember (what matters for this use case) and what to leave out (small talk,
greetings, one-off requests, anything sensitive the use case does not need). Then write one message a user of this
use case might send, that holds two or three facts worth remembering, to test them.

Answer in exactly two lines:
INSTRUCTIONS: <the instructions, one paragraph>
TEST_MESSAGE: <the message>"""
_LINES = re.compile(r"INSTRUCTIONS:\s*(?P<instructions>.+?)\s*TEST_MESSAGE:\s*(?P<test>.+)", re.S | re.I)


def generate_instructions(llm: LLM | None, use_case: str) -> tuple[str, str]:
    """(custom instructions, a test message) for the use case. A provider failure propagates (a 502)."""
    use_case = " ".join(use_case.split()) or "a personal assistant"
    if llm is None:
        return template(use_case)
    reply = llm.complete([{"role": "user", "content": PROMPT.format(use_case=use_case)}]).text.strip()
    found = _LINES.search(reply)
    if found is None:
        return reply, DEFAULT_TEST_MESSAGE
    return found.group("instructions").strip(), found.group("test").strip()


def template(use_case: str) -> tuple[str, str]:
    """Instructions and a test message for the use case without an LLM."""
    instructions = (
        f"This memory serves {use_case}. Remember what the user says about themselves that matters for it: their "
        "goals, preferences and constraints, the people, places and things in their life it involves, and facts "
        "that change over time (keep the newest). Leave out greetings, thanks, small talk, questions to the "
        "assistant, one-off requests and the assistant's own words."
    )
    test_message = "Hi, I'm Sam. I live in Lisbon, I'm vegetarian, and for this I'd like short, practical answers."
    return instructions, test_message
