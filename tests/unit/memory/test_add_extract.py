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
FOOD = ("food", "what one eats")


def extract(reply: Any, **options: Any) -> tuple[list[ExtractedFact], ScriptedLLM]:
    llm = ScriptedLLM(reply)
    settings: dict[str, Any] = {"instructions": None, "multilingual": False, "today": date(2025, 5, 1)}
    return extract_facts(llm, CONVERSATION, **(settings | options)), llm


def test_the_prompt_numbers_the_messages_and_says_the_rules_asked_for() -> None:
    _, llm = extract({"facts": []}, instructions="Keep names.", multilingual=True, categories=(FOOD, ("misc", "")))
    ((system, user),) = llm.asked
    assert user == {"role": "user", "content": "[0] user: I moved to Lisbon."}
    prompt = system["content"]
    assert "Keep names." in prompt and "2025-05-01" in prompt and "language the speaker used" in prompt
    assert "- food: what one eats\n- misc" in prompt


def test_facts_are_read_with_their_known_categories_and_their_message_numbers() -> None:
    facts, _ = extract(
        {
            "facts": [
                {
                    "text": " Lives in Lisbon ",
                    "categories": ["food", "made-up", "food", 3],
                    "sources": [0, 0, True, "1"],
                },
                "Likes tiles",
                {"text": "   "},
                {"categories": ["food"]},
            ]
        },
        categories=(FOOD,),
    )
    assert facts == [ExtractedFact("Lives in Lisbon", ("food",), (0,)), ExtractedFact("Likes tiles")]


def test_a_reply_in_a_code_fence_is_read() -> None:
    facts, _ = extract('```json\n{"facts": ["Lives in Lisbon"]}\n```')
    assert facts == [ExtractedFact("Lives in Lisbon")]


@pytest.mark.parametrize("reply", [{"facts": "Lives in Lisbon"}, "not json at all"])
def test_a_reply_without_a_list_of_facts_is_a_provider_error(reply: Any) -> None:
    with pytest.raises(ProviderError):
        extract(reply)
