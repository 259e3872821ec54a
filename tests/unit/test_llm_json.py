"""services/llm_json: a cut-off reply is asked for once more, unless the model looped, when what it wrote before the
loop is its answer."""

from __future__ import annotations

import json

import pytest

from mnemo.ports.llm import ChatMessage
from mnemo.services.llm_json import UnreadableReplyError, json_reply, looped_items
from mnemo.services.memory.add import replies
from tests.unit.memory.fakes import ScriptedLLM

ASKED: list[ChatMessage] = [{"role": "user", "content": "Extract the facts."}]


def fact(text: str) -> str:
    return json.dumps({"text": text, "sources": [0]})


def cut_off(*items: str) -> str:
    """A reply of facts cut off in the middle of its next item."""
    return '{"facts": [' + ", ".join(items) + ', {"text": "Will st'


def test_a_reply_cut_off_while_repeating_an_item_is_read_up_to_its_loop() -> None:
    loop = [fact("Plans a summer wedding")] * 5
    llm = ScriptedLLM(cut_off(fact("Is called Rory"), fact("Plans a summer wedding"), fact("Proposed to Freya"), *loop))
    llm.truncated = [True]

    answer = json_reply(llm, ASKED, replies.FACTS)

    assert [f["text"] for f in answer["facts"]] == ["Is called Rory", "Plans a summer wedding", "Proposed to Freya"]
    assert len(llm.asked) == 1  # asked again, it would loop again: not asked


def test_a_reply_cut_off_without_a_loop_is_asked_for_once_more() -> None:
    long = [fact(f"Fact {n}") for n in range(6)]
    llm = ScriptedLLM(cut_off(*long), json.dumps({"facts": [{"text": "Fact 0", "sources": [0]}]}))
    llm.truncated = [True, False]

    answer = json_reply(llm, ASKED, replies.FACTS)

    assert [f["text"] for f in answer["facts"]] == ["Fact 0"]
    assert len(llm.asked) == 2


def test_two_cut_off_replies_without_a_loop_are_unreadable() -> None:
    llm = ScriptedLLM(cut_off(fact("A"), fact("B")), cut_off(fact("A"), fact("B"), fact("A")))
    llm.truncated = [True, True]

    with pytest.raises(UnreadableReplyError) as raised:
        json_reply(llm, ASKED, replies.FACTS)

    assert raised.value.truncated


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        # decisions that repeat one text under new ids: the same item, by its text
        (
            '{"memory": [{"id": "new", "text": "Lives in Oslo", "event": "ADD"}, '
            + ", ".join(f'{{"id": "{n}", "text": "Lives in Oslo", "event": "UPDATE"}}' for n in range(3))
            + ', {"id": "4", "te',
            [{"id": "new", "text": "Lives in Oslo", "event": "ADD"}],
        ),
        # two items only repeated: no loop yet
        ('{"memory": [{"text": "A"}, {"text": "A"}, {"te', None),
        # plain strings repeated
        ('{"memory": ["A", "B", "B", "B", "B", "B', ["A", "B"]),
        # no list under that name
        ('{"facts": ["A", "A", "A", "A"', None),
    ],
)
def test_a_loop_is_the_same_item_at_least_three_times_at_the_end(reply: str, expected: list[object] | None) -> None:
    assert looped_items(reply, "memory") == expected
