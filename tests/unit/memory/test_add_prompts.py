"""The add's LLM calls are shaped for a provider's prompt cache (services/memory/add/prompts.py): the leading
messages are byte-identical from one call to the next, and what changes with each call comes last."""

from __future__ import annotations

from datetime import date

from mnemo.ports.llm import ChatMessage
from mnemo.services.memory.add.decide import decision_messages
from mnemo.services.memory.add.extract import extraction_messages


def extraction(conversation: list[tuple[int, ChatMessage]], today: date) -> list[ChatMessage]:
    return extraction_messages(conversation, "Only remember food.", False, today)


def test_two_extraction_calls_share_their_leading_messages_whatever_the_conversation_and_date() -> None:
    # Given two adds of different conversations on different days, under one configuration
    first = extraction([(0, {"role": "user", "content": "I live in Oslo."})], date(2024, 6, 15))
    second = extraction(
        [(0, {"role": "user", "content": "I love paella."}), (1, {"role": "assistant", "content": "Yum!"})],
        date(2025, 1, 30),
    )

    # Then everything before the final message is the same, byte for byte
    assert first[:-1] == second[:-1]
    assert [m["role"] for m in first] == ["system", "user"]
    # And the date and the conversation are only in the final message
    assert "2024-06-15" not in first[0]["content"] and "Oslo" not in first[0]["content"]
    assert first[-1]["content"] == "Today's date is 2024-06-15.\n\n[0] user: I live in Oslo."
    assert second[-1]["content"] == "Today's date is 2025-01-30.\n\n[0] user: I love paella.\n[1] assistant: Yum!"


def test_the_extraction_system_message_begins_with_the_fixed_instructions_whatever_the_configuration() -> None:
    configured = extraction_messages([], "Only remember food.", True, date(2024, 5, 2))[0]["content"]
    plain = extraction_messages([], None, False, date(2024, 5, 2))[0]["content"]
    fixed = plain.split("Write each fact in English.", 1)[0]
    assert configured.startswith(fixed) and "Example:" in fixed
    assert "Only remember food." in configured


def test_two_decision_calls_share_their_leading_messages_whatever_the_memories_and_facts() -> None:
    first = decision_messages({"0": "Lives in Quito"}, ["Lives in Lima"])
    second = decision_messages({}, ["Likes tea", "Has a cat"])

    assert first[:-1] == second[:-1]
    assert [m["role"] for m in first] == ["system", "user"]
    assert "Quito" not in first[0]["content"]
    assert first[-1]["content"] == (
        'Existing memories (id and text):\n[{"id": "0", "text": "Lives in Quito"}]\n\nNew facts:\n["Lives in Lima"]'
    )


def test_the_decision_asks_only_for_changes() -> None:
    (system, _shown) = decision_messages({}, [])
    assert "ADD|UPDATE|DELETE" in system["content"] and "NONE" not in system["content"]
    assert "Never repeat an unchanged memory." in system["content"]
