"""The LLM path's first step: the facts of the add's messages, each with the numbers of the messages the LLM says it
came from. What the LLM answers is read defensively (a plain string for a fact, numbers that are not integers): a
fact is kept whenever it has a text.

The call asks for facts only, on both surfaces: a platform add's categories are filed afterwards by embedding
similarity (categorizing.py), as without an LLM. Asking a small model to file each fact as well made it write
markedly fewer facts, and one prompt for every configuration keeps a provider's prompt cache warm across surfaces."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

from mnemo.errors import ProviderError
from mnemo.ports.llm import LLM, ChatMessage
from mnemo.services.llm_json import json_reply
from mnemo.services.memory.add import prompts, replies


@dataclass(frozen=True, slots=True)
class ExtractedFact:
    """A fact the LLM extracted, with the messages it cites."""

    text: str
    sources: tuple[int, ...] = ()  # the numbers of the messages the LLM says it came from (not checked here)


def extract_facts(
    llm: LLM,
    conversation: Sequence[tuple[int, ChatMessage]],
    *,
    instructions: str | None,
    multilingual: bool,
    today: date,
) -> list[ExtractedFact]:
    """The facts of the conversation (each message with its number in the add), each with the numbers of the
    messages the LLM says it came from (a reply of plain strings is still read: its facts then have no sources)."""
    asked = extraction_messages(conversation, instructions, multilingual, today)
    reply = json_reply(llm, asked, replies.FACTS)
    facts = reply.get("facts", [])
    if not isinstance(facts, list):
        raise ProviderError("The LLM's 'facts' is not a list.", code="provider_bad_response")
    return [fact for raw in facts if (fact := _fact(raw)) is not None]


def extraction_messages(
    conversation: Sequence[tuple[int, ChatMessage]],
    instructions: str | None,
    multilingual: bool,
    today: date,
) -> list[ChatMessage]:
    """The extraction call's messages: the system message, the same for every call under one configuration (what a
    provider's prompt cache reuses), then today's date and the numbered conversation."""
    transcript = "\n".join(f"[{i}] {m['role']}: {m['content']}" for i, m in conversation)
    return [
        {"role": "system", "content": _system_prompt(instructions, multilingual)},
        {"role": "user", "content": prompts.CONVERSATION.format(today=today.isoformat(), transcript=transcript)},
    ]


def _system_prompt(instructions: str | None, multilingual: bool) -> str:
    return prompts.FACT_EXTRACTION.format(
        language_rule=prompts.LANGUAGE_SAME if multilingual else prompts.LANGUAGE_ENGLISH,
        custom_instructions=f"\nAdditional instructions from the operator:\n{instructions}\n" if instructions else "",
    )


def _fact(raw: Any) -> ExtractedFact | None:
    """One item of the reply's facts (an object, or a plain string), or None when it has no text."""
    item = raw if isinstance(raw, dict) else {"text": raw}
    text = item.get("text")
    if not isinstance(text, str) or not text.strip():
        return None
    return ExtractedFact(text.strip(), _numbers(item.get("sources")))


def _numbers(cited: Any) -> tuple[int, ...]:
    """The message numbers given, each once: integers only (a boolean is no number)."""
    numbers = [n for n in cited if isinstance(n, int) and not isinstance(n, bool)] if isinstance(cited, list) else []
    return tuple(dict.fromkeys(numbers))
