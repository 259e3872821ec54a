"""The LLM path's first step: the facts of the add's messages, each with the categories the LLM filed it under and
the numbers of the messages it says the fact came from. What the LLM answers is read defensively (a plain string for
a fact, unknown categories, numbers that are not integers): a fact is kept whenever it has a text."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

from mnemo.errors import ProviderError
from mnemo.ports.llm import LLM, ChatMessage
from mnemo.services.commands import Category
from mnemo.services.llm_json import json_reply
from mnemo.services.memory.add import prompts, replies


@dataclass(frozen=True, slots=True)
class ExtractedFact:
    """A fact the LLM extracted, with the categories it filed it under (only names of the categories it was
    given; empty when it gave none)."""

    text: str
    categories: tuple[str, ...] = ()
    sources: tuple[int, ...] = ()  # the numbers of the messages the LLM says it came from (not checked here)


def extract_facts(
    llm: LLM,
    conversation: Sequence[tuple[int, ChatMessage]],
    *,
    instructions: str | None,
    multilingual: bool,
    today: date,
    categories: Sequence[Category] = (),
) -> list[ExtractedFact]:
    """The facts of the conversation (each message with its number in the add); with `categories`, the LLM files
    each fact under them too. Each fact comes with the numbers of the messages the LLM says it came from (a reply of
    plain strings is still read: its facts then have no categories and no sources)."""
    asked = extraction_messages(conversation, instructions, multilingual, today, categories)
    reply = json_reply(llm, asked, replies.CATEGORIZED_FACTS if categories else replies.FACTS)
    facts = reply.get("facts", [])
    if not isinstance(facts, list):
        raise ProviderError("The LLM's 'facts' is not a list.", code="provider_bad_response")
    known = {name for name, _ in categories}
    return [fact for raw in facts if (fact := _fact(raw, known)) is not None]


def extraction_messages(
    conversation: Sequence[tuple[int, ChatMessage]],
    instructions: str | None,
    multilingual: bool,
    today: date,
    categories: Sequence[Category],
) -> list[ChatMessage]:
    """The extraction call's messages: the system message, the same for every call under one configuration (what a
    provider's prompt cache reuses), then today's date and the numbered conversation."""
    transcript = "\n".join(f"[{i}] {m['role']}: {m['content']}" for i, m in conversation)
    return [
        {"role": "system", "content": _system_prompt(instructions, multilingual, categories)},
        {"role": "user", "content": prompts.CONVERSATION.format(today=today.isoformat(), transcript=transcript)},
    ]


def _system_prompt(instructions: str | None, multilingual: bool, categories: Sequence[Category]) -> str:
    listed = "\n".join(f"- {name}: {description}" if description else f"- {name}" for name, description in categories)
    return prompts.FACT_EXTRACTION.format(
        language_rule=prompts.LANGUAGE_SAME if multilingual else prompts.LANGUAGE_ENGLISH,
        custom_instructions=f"\nAdditional instructions from the operator:\n{instructions}\n" if instructions else "",
        reply_format=prompts.CATEGORIZED_REPLY.format(categories=listed) if categories else prompts.PLAIN_REPLY,
    )


def _fact(raw: Any, known: set[str]) -> ExtractedFact | None:
    """One item of the reply's facts (an object, or a plain string), or None when it has no text."""
    item = raw if isinstance(raw, dict) else {"text": raw}
    text = item.get("text")
    if not isinstance(text, str) or not text.strip():
        return None
    return ExtractedFact(text.strip(), _names(item.get("categories"), known), _numbers(item.get("sources")))


def _names(filed: Any, known: set[str]) -> tuple[str, ...]:
    """The categories given, each once, that are among those the LLM was offered."""
    names = [c for c in filed if isinstance(c, str) and c in known] if isinstance(filed, list) else []
    return tuple(dict.fromkeys(names))


def _numbers(cited: Any) -> tuple[int, ...]:
    """The message numbers given, each once: integers only (a boolean is no number)."""
    numbers = [n for n in cited if isinstance(n, int) and not isinstance(n, bool)] if isinstance(cited, list) else []
    return tuple(dict.fromkeys(numbers))
