"""Dream's reflector: what it shows the LLM (the newest memories as m1, m2, … with their day, earlier syntheses
marked, the project's instructions) and how it checks the answer — every rule that leaves an item out, with its
reason, and a reply that cannot be read sent back once."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from mnemo.domain.llm_usage import LLMUsage
from mnemo.domain.memory import MemoryRecord, Scope
from mnemo.errors import ProviderError
from mnemo.ports.llm import ChatMessage, Completion, JsonSchema
from mnemo.services.commands import Merge, Supersede, Synthesis
from mnemo.services.platform.dream.reflection import MAX_TEXT, ReflectionRejectedError, Reflector

T0 = datetime(2025, 6, 1, tzinfo=UTC)
ALICE = Scope(user_id="alice")


class ScriptedLLM:
    name = "scripted"

    def __init__(self, *replies: str | Exception) -> None:
        self.replies = list(replies)
        self.calls: list[list[ChatMessage]] = []

    def complete(
        self, messages: list[ChatMessage], *, json_mode: bool = False, schema: JsonSchema | None = None
    ) -> Completion:
        assert json_mode
        self.calls.append(messages)
        reply = self.replies.pop(0)
        if isinstance(reply, Exception):
            raise reply
        return Completion(reply, LLMUsage.of_call(10, 2))


def memories(*texts: str, synthesized: tuple[int, ...] = ()) -> list[MemoryRecord]:
    """Newest first: m1 is the newest (a day after m2, …)."""
    count = len(texts)
    return [
        MemoryRecord.create(text, ALICE, at=T0 + timedelta(days=count - i), synthesized=i in synthesized)
        for i, text in enumerate(texts)
    ]


def answer(**lists: Any) -> str:
    return json.dumps({"synthesized": [], "merge": [], "supersede": [], **lists})


def test_the_prompt_lists_the_newest_memories_with_their_day_and_the_projects_instructions() -> None:
    llm = ScriptedLLM(answer())
    listed = memories("Moved to Lisbon", 'Said "hi"', "Is an early riser", synthesized=(2,))

    Reflector(llm, max_memories=3).reflect(ALICE, [*listed, *memories("never shown")], instructions="Only food.")

    prompt = llm.calls[0][0]["content"]
    assert 'm1 [2025-06-04] "Moved to Lisbon"' in prompt and 'm2 [2025-06-03] "Said \\"hi\\""' in prompt
    assert 'm3 [2025-06-02] [synthesized] "Is an early riser"' in prompt
    assert "\nm4 " not in prompt and "never shown" not in prompt and "Only food." in prompt


def test_a_valid_answer_becomes_one_command_by_memory_id() -> None:
    listed = memories("Runs at 6 am", "Meetings before 8 am", "Is vegetarian", "Eats no meat", "Lives in Paris")
    llm = ScriptedLLM(
        answer(
            synthesized=[{"text": " Is an early riser ", "sources": ["m1", 2, "M1"]}],
            merge=[{"keep": "m3", "duplicates": ["m4"], "text": "Is vegetarian: eats no meat"}],
            supersede=[{"outdated": "m5", "current": "m1"}],
        )
    )

    reflection = Reflector(llm).reflect(ALICE, listed, custom_categories=(("food", "What they eat"),))

    ids = [m.id for m in listed]
    command = reflection.command
    assert command.syntheses == (Synthesis("Is an early riser", (ids[0], ids[1])),)
    assert command.merges == (Merge(ids[2], (ids[3],), "Is vegetarian: eats no meat"),)
    assert command.supersedes == (Supersede(ids[4], ids[0]),)
    assert command.scope == ALICE and command.custom_categories == (("food", "What they eat"),)
    assert reflection.ignored == []


@pytest.mark.parametrize(
    ("lists", "reason"),
    [
        ({"synthesized": [{"text": "Likes mornings", "sources": ["m1"]}]}, "fewer than two"),
        ({"synthesized": [{"text": "Likes mornings", "sources": ["m1", "m3"]}]}, "fewer than two"),  # m3 synthesized
        ({"synthesized": [{"text": "Likes mornings", "sources": ["m1", "m99"]}]}, "fewer than two"),
        ({"synthesized": [{"text": "runs at 6 AM", "sources": ["m1", "m2"]}]}, "restates a listed memory"),
        ({"synthesized": [{"text": "x" * (MAX_TEXT + 1), "sources": ["m1", "m2"]}]}, "longer than"),
        ({"synthesized": ["Likes mornings"]}, "not an object with a text"),
        ({"merge": [{"keep": "m9", "duplicates": ["m1"]}]}, "keeps no listed memory"),
        ({"merge": [{"keep": "m1", "duplicates": ["m1", "m42"]}]}, "names no listed duplicate"),
        ({"supersede": [{"outdated": "m1", "current": "m1"}]}, "does not name two listed memories"),
        ({"supersede": [{"outdated": "m1", "current": "m2"}]}, "older than the one it would replace"),
        (
            {"merge": [{"keep": "m1", "duplicates": ["m2"]}], "supersede": [{"outdated": "m4", "current": "m2"}]},
            "already merged or superseded",
        ),
    ],
)
def test_an_item_that_breaks_a_rule_is_left_out_with_its_reason(lists: dict[str, Any], reason: str) -> None:
    listed = memories("Runs at 6 am", "Meetings before 8 am", "Is an early riser", "Lives in Paris", synthesized=(2,))

    reflection = Reflector(ScriptedLLM(answer(**lists))).reflect(ALICE, listed)

    assert len(reflection.ignored) == 1 and reason in reflection.ignored[0], reflection.ignored
    kept = reflection.command
    stands = 1 if "already" in reason else 0  # in the last case the merge stands; only the supersede is left out
    assert len(kept.syntheses) + len(kept.merges) + len(kept.supersedes) == stands


def test_at_most_max_syntheses_are_kept() -> None:
    listed = memories("a b", "c d", "e f")
    many = [{"text": f"Pattern {i}", "sources": ["m1", "m2"]} for i in range(4)]

    reflection = Reflector(ScriptedLLM(answer(synthesized=many)), max_syntheses=2).reflect(ALICE, listed)

    assert [s.text for s in reflection.command.syntheses] == ["Pattern 0", "Pattern 1"]
    assert reflection.ignored == ["synthesized #3: more than 2 in one run", "synthesized #4: more than 2 in one run"]


def test_a_reply_that_cannot_be_read_is_sent_back_once_then_rejected() -> None:
    listed = memories("a b", "c d")
    llm = ScriptedLLM("Sure! Here you go.", answer(merge="m1"))

    with pytest.raises(ReflectionRejectedError, match='"merge" must be a list'):
        Reflector(llm).reflect(ALICE, listed)

    retry = llm.calls[1]
    assert [m["role"] for m in retry] == ["user", "assistant", "user"]
    assert retry[1]["content"] == "Sure! Here you go." and "not a JSON object" in retry[2]["content"]


def test_a_reply_fixed_on_the_second_try_is_used() -> None:
    listed = memories("a b", "c d")
    llm = ScriptedLLM("{not json", answer(synthesized=None, supersede=[{"outdated": "m2", "current": "m1"}]))

    reflection = Reflector(llm).reflect(ALICE, listed)

    assert reflection.command.supersedes == (Supersede(listed[1].id, listed[0].id),)


def test_a_provider_failure_propagates_for_the_job_to_retry() -> None:
    throttled = ProviderError("Provider rate limit hit.", "provider_rate_limited")
    with pytest.raises(ProviderError):
        Reflector(ScriptedLLM(throttled)).reflect(ALICE, memories("a b", "c d"))
