"""The LLM path's first step (services/memory/add/extract.py): the prompt it sends, and how it reads the reply."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest

from mnemo.errors import ProviderError
from mnemo.ports.llm import ChatMessage
from mnemo.services.memory.add.extract import ExtractedFact, extract_facts
from tests.unit.memory.fakes import ScriptedLLM

CONVERSATION: list[tuple[int, ChatMessage]] = [(0, {"role": "user", "content": "I moved to Lisbon."})]


def extract(reply: Any, **options: Any) -> tuple[list[ExtractedFact], ScriptedLLM]:
    llm = ScriptedLLM(reply)
    settings: dict[str, Any] = {"instructions": None, "multilingual": False, "today": date(2025, 5, 1)}
    return extract_facts(llm, CONVERSATION, **(settings | options)), llm


def test_the_prompt_numbers_the_messages_and_says_the_rules_asked_for() -> None:
    _, llm = extract({"facts": []}, instructions="Keep names.", multilingual=True)
    ((system, user),) = llm.asked
    assert user == {"role": "user", "content": "Today's date is 2025-05-01.\n\n[0] user: I moved to Lisbon."}
    prompt = system["content"]
    assert "Keep names." in prompt and "language the speaker used" in prompt
    assert prompt.endswith('Reply with a JSON object only: {"facts": [{"text": "...", "sources": [0]}]}')


def test_facts_are_read_with_their_message_numbers() -> None:
    facts, _ = extract(
        {
            "facts": [
                {"text": " Lives in Lisbon ", "categories": ["food"], "sources": [0, 0, True, "1"]},
                "Likes tiles",
                {"text": "   "},
                {"sources": [0]},
            ]
        }
    )
    assert facts == [ExtractedFact("Lives in Lisbon", (0,)), ExtractedFact("Likes tiles")]


def test_a_reply_in_a_code_fence_is_read() -> None:
    facts, _ = extract('```json\n{"facts": ["Lives in Lisbon"]}\n```')
    assert facts == [ExtractedFact("Lives in Lisbon")]


def test_a_reply_without_a_list_of_facts_is_asked_for_once_more() -> None:
    llm = ScriptedLLM({"facts": "Lives in Lisbon"}, {"facts": ["Lives in Lisbon"]})
    facts = extract_facts(llm, CONVERSATION, instructions=None, multilingual=False, today=date(2025, 5, 1))
    assert facts == [ExtractedFact("Lives in Lisbon")]
    assert len(llm.asked) == 2


def test_a_reply_that_is_not_json_is_asked_for_once_more_then_is_a_provider_error() -> None:
    llm = ScriptedLLM("not json at all", "still not json")
    with pytest.raises(ProviderError, match="JSON object"):
        extract_facts(llm, CONVERSATION, instructions=None, multilingual=False, today=date(2025, 5, 1))
    assert len(llm.asked) == 2


def test_a_reply_cut_off_at_the_output_limit_is_asked_for_once_more() -> None:
    llm = ScriptedLLM('{"facts": ["Lives in Lis', {"facts": ["Lives in Lisbon"]})
    llm.truncated = [True, False]
    facts = extract_facts(llm, CONVERSATION, instructions=None, multilingual=False, today=date(2025, 5, 1))
    assert facts == [ExtractedFact("Lives in Lisbon")]
    assert len(llm.asked) == 2


def test_a_reply_cut_off_twice_is_a_provider_error_that_says_so() -> None:
    llm = ScriptedLLM({"facts": []}, {"facts": []})
    llm.truncated = [True, True]
    with pytest.raises(ProviderError, match="cut off"):
        extract_facts(llm, CONVERSATION, instructions=None, multilingual=False, today=date(2025, 5, 1))
