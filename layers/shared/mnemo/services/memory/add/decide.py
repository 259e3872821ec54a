"""The LLM path's second step: where an add decides ADD, UPDATE, DELETE or NONE. The LLM sees the new facts and
the related memories (under temporary ids "0", "1", …) and answers only the changes (ADD, UPDATE, DELETE), so its
reply grows with what changed rather than with the memories shown; a memory it leaves out is unchanged, and an
UPDATE that repeats a memory's text is read as NONE. A NONE it sends anyway is still read. An id it made up, an
UPDATE without a text or an event it does not name is dropped rather than trusted."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from mnemo.domain.memory import Event
from mnemo.errors import ProviderError
from mnemo.language import Wording
from mnemo.ports.llm import LLM, ChatMessage
from mnemo.services.llm_json import json_reply
from mnemo.services.memory.add import prompts, replies

_ON_MEMORIES = (Event.UPDATE, Event.DELETE, Event.NONE)  # the events that name an existing memory


@dataclass(frozen=True, slots=True)
class Decision:
    event: Event
    text: str
    ref: str | None  # the temporary id of an existing memory, for UPDATE / DELETE / NONE
    replaced_by: int | None = None  # for DELETE: the number of the new fact that made the memory false


def decide(llm: LLM, existing: dict[str, str], facts: list[str]) -> list[Decision]:
    """The LLM's decision for each new fact against the `existing` memories (temporary id -> text)."""
    reply = json_reply(llm, decision_messages(existing, facts), replies.DECISIONS)
    items = reply.get("memory", [])
    if not isinstance(items, list):
        raise ProviderError("The LLM's 'memory' is not a list.", code="provider_bad_response")
    return [decision for item in items if (decision := _decision(item, existing, facts)) is not None]


def decision_messages(existing: dict[str, str], facts: list[str]) -> list[ChatMessage]:
    """The decision call's messages: the fixed instructions and example (the same for every call: what a provider's
    prompt cache reuses), then the memories shown and the new facts."""
    listing = json.dumps([{"id": k, "text": v} for k, v in existing.items()], ensure_ascii=False)
    shown = prompts.DECISION_INPUT.format(existing=listing, facts=json.dumps(facts, ensure_ascii=False))
    return [{"role": "system", "content": prompts.UPDATE_DECISION}, {"role": "user", "content": shown}]


def with_unmentioned(
    language: Wording, decisions: list[Decision], facts: list[str], existing: dict[str, str] | None = None
) -> list[Decision]:
    """The decisions, and one for each fact none of them speaks of: a NONE when a memory shown (`existing`) already
    says all it says (its content words are among the memory's: the reply had nothing to change), else an ADD, so a
    fact the reply left out is added rather than lost. A decision speaks of a fact when its text shares a content
    word with the fact, or when it is a DELETE naming the fact as what replaced the memory."""
    said = set().union(*(language.content_words(d.text) for d in decisions))
    named = {d.replaced_by for d in decisions if d.event is Event.DELETE}
    shown = {ref: set(language.content_words(text)) for ref, text in (existing or {}).items()}
    left_out = [(i, fact, set(language.content_words(fact))) for i, fact in enumerate(facts)]
    missing = [
        _left_out(fact, words, shown, existing or {})
        for i, fact, words in left_out
        if i not in named and not said & words
    ]
    return [*decisions, *missing]


def _left_out(fact: str, words: set[str], shown: dict[str, set[str]], existing: dict[str, str]) -> Decision:
    """A NONE on the memory shown that already says all the fact says, else an ADD of the fact."""
    ref = next((r for r, known in shown.items() if words and words <= known), None)
    return Decision(Event.NONE, existing[ref], ref) if ref is not None else Decision(Event.ADD, fact, None)


def _decision(item: Any, existing: dict[str, str], facts: list[str]) -> Decision | None:
    """One item of the reply, or None when it cannot be trusted."""
    event = _event(item)
    if event is None:
        return None
    text = str(item.get("text") or "").strip()
    if event is Event.ADD:
        return Decision(event, text, None) if text else None
    ref = str(item.get("id")) if item.get("id") is not None else None
    if not _names_a_listed_memory(event, ref, text, existing):
        return None
    if event is Event.UPDATE and text == existing[str(ref)]:
        return Decision(Event.NONE, text, ref)  # an unchanged memory repeated back: nothing to do
    return Decision(event, text, ref, _replaced_by(item, facts) if event is Event.DELETE else None)


def _names_a_listed_memory(event: Event, ref: str | None, text: str, existing: dict[str, str]) -> bool:
    """Whether an UPDATE, DELETE or NONE names a memory that was listed (an id the LLM made up is ignored rather
    than trusted), with the new text an UPDATE needs."""
    return event in _ON_MEMORIES and ref in existing and not (event is Event.UPDATE and not text)


def _event(item: Any) -> Event | None:
    if not isinstance(item, dict):
        return None
    try:
        return Event(str(item.get("event", "")).upper())
    except ValueError:
        return None


def _replaced_by(item: dict[str, Any], facts: list[str]) -> int | None:
    """The number of the new fact a DELETE names, when it is one of the facts."""
    by = item.get("replaced_by")
    return by if isinstance(by, int) and not isinstance(by, bool) and 0 <= by < len(facts) else None
