"""The LLM path of add: extract facts from messages, then decide ADD / UPDATE / DELETE / NONE per fact."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

from mnemo.domain.memory import Event
from mnemo.errors import ProviderError
from mnemo.ports.llm import LLM, ChatMessage
from mnemo.services import prompts
from mnemo.services.commands import Category

_FENCE = re.compile(r"^```(?:json)?\s*|\s*```$", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Decision:
    event: Event
    text: str
    ref: str | None  # the temporary id of an existing memory, for UPDATE / DELETE / NONE
    replaced_by: int | None = None  # for DELETE: the number of the new fact that made the memory false


def parse_json_reply(reply: str) -> dict[str, Any]:
    """Parse an LLM's JSON reply, tolerating code fences and text around the object."""
    text = _FENCE.sub("", reply.strip())
    try:
        parsed = json.loads(text)
    except json.JSONDecodeError:
        start, end = text.find("{"), text.rfind("}")
        try:
            parsed = json.loads(text[start : end + 1]) if start != -1 < end else None
        except json.JSONDecodeError:
            parsed = None
    if not isinstance(parsed, dict):
        raise ProviderError("The LLM did not reply with a JSON object.", code="provider_bad_response")
    return parsed


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
    listed = "\n".join(f"- {name}: {description}" if description else f"- {name}" for name, description in categories)
    system = prompts.FACT_EXTRACTION.format(
        language_rule=prompts.LANGUAGE_SAME if multilingual else prompts.LANGUAGE_ENGLISH,
        custom_instructions=f"\nAdditional instructions from the operator:\n{instructions}\n" if instructions else "",
        today=today.isoformat(),
        reply_format=prompts.CATEGORIZED_REPLY.format(categories=listed) if categories else prompts.PLAIN_REPLY,
    )
    transcript = "\n".join(f"[{i}] {m['role']}: {m['content']}" for i, m in conversation)
    reply = parse_json_reply(
        llm.complete(
            [{"role": "system", "content": system}, {"role": "user", "content": transcript}], json_mode=True
        ).text
    )
    facts = reply.get("facts", [])
    if not isinstance(facts, list):
        raise ProviderError("The LLM's 'facts' is not a list.", code="provider_bad_response")
    known = {name for name, _ in categories}
    out: list[ExtractedFact] = []
    for fact in facts:
        item = fact if isinstance(fact, dict) else {"text": fact}
        text, filed, cited = item.get("text"), item.get("categories"), item.get("sources")
        if not isinstance(text, str) or not text.strip():
            continue
        names = [c for c in filed if isinstance(c, str) and c in known] if isinstance(filed, list) else []
        numbers = (
            [n for n in cited if isinstance(n, int) and not isinstance(n, bool)] if isinstance(cited, list) else []
        )
        out.append(ExtractedFact(text.strip(), tuple(dict.fromkeys(names)), tuple(dict.fromkeys(numbers))))
    return out


def decide(llm: LLM, existing: dict[str, str], facts: list[str]) -> list[Decision]:
    listing = json.dumps([{"id": k, "text": v} for k, v in existing.items()], ensure_ascii=False)
    prompt = prompts.UPDATE_DECISION.format(existing=listing, facts=json.dumps(facts, ensure_ascii=False))
    reply = parse_json_reply(llm.complete([{"role": "user", "content": prompt}], json_mode=True).text)
    items = reply.get("memory", [])
    if not isinstance(items, list):
        raise ProviderError("The LLM's 'memory' is not a list.", code="provider_bad_response")
    decisions: list[Decision] = []
    for item in items:
        if not isinstance(item, dict):
            continue
        try:
            event = Event(str(item.get("event", "")).upper())
        except ValueError:
            continue
        text = str(item.get("text") or "").strip()
        ref = str(item.get("id")) if item.get("id") is not None else None
        if event is Event.ADD and text:
            decisions.append(Decision(event, text, None))
        elif event in (Event.UPDATE, Event.DELETE, Event.NONE) and ref in existing:
            # An id the LLM made up (not one we listed) is ignored rather than trusted.
            if event is Event.UPDATE and not text:
                continue
            by = item.get("replaced_by")
            number = by if isinstance(by, int) and not isinstance(by, bool) and 0 <= by < len(facts) else None
            decisions.append(Decision(event, text, ref, number if event is Event.DELETE else None))
    return decisions
