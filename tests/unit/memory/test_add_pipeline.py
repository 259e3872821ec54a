"""One add from its command (services/memory/add/pipeline.py): checked, its metadata cleaned, then the path its
command and the providers choose."""

from __future__ import annotations

from typing import Any

import pytest

from mnemo.domain.llm_usage import LLMUsage
from mnemo.domain.memory import Event, Scope
from mnemo.errors import ProviderError, ValidationError
from mnemo.ports.llm import ChatMessage, Completion, JsonSchema
from mnemo.services.commands import AddCommand, AddResult, Message
from mnemo.services.llm_usage import UsageMeter
from mnemo.services.memory.add.categorizing import Categorizing
from mnemo.services.memory.add.filing import Filing
from mnemo.services.memory.add.inserting import Inserting
from mnemo.services.memory.add.merging import Merging
from mnemo.services.memory.add.pipeline import AddPipeline
from mnemo.services.memory.erase import Erasing
from mnemo.services.memory.policy import AddPolicy
from tests.unit.memory.fakes import ALICE, Namespace, ScriptedLLM

SAID = [Message("user", "I live in Paris. I love hiking in the Alps.")]


def add(ns: Namespace, command: AddCommand, meter: UsageMeter | None = None) -> list[AddResult]:
    parts = ns.parts
    filing = Filing(parts, Categorizing(parts), Merging(parts), Inserting(parts))
    return AddPipeline(parts, filing, Erasing(parts)).add(command, meter)


def test_an_add_needs_an_owner_and_topics_only_when_it_extracts(ns: Namespace) -> None:
    with pytest.raises(ValidationError, match="identifier"):
        add(ns, AddCommand(SAID, Scope()))
    with pytest.raises(ValidationError, match="includes and excludes"):
        add(ns, AddCommand(SAID, ALICE, infer=False, includes="hiking"))
    assert ns.memories() == {}


def test_identity_fields_are_dropped_from_the_metadata(ns: Namespace) -> None:
    (result,) = add(ns, AddCommand(SAID, ALICE, infer=False, metadata={"user_id": "eve", "mood": "good"}))
    assert result.record.metadata == {"mood": "good"}


def test_without_inference_the_messages_are_stored_as_said(ns: Namespace) -> None:
    results = add(ns, AddCommand(SAID, ALICE, infer=False))
    assert [r.record.text for r in results] == ["I live in Paris. I love hiking in the Alps."]


def test_without_an_llm_the_extractors_statements_are_stored(ns: Namespace) -> None:
    results = add(ns, AddCommand(SAID, ALICE))
    assert [r.record.text for r in results] == ["I live in Paris.", "I love hiking in the Alps."]


def test_with_an_llm_its_facts_are_stored_and_its_usage_counted(make_namespace: Any) -> None:
    llm = ScriptedLLM(
        {"facts": ["Lives in Paris"]}, {"memory": [{"id": "new", "text": "Lives in Paris", "event": "ADD"}]}
    )
    ns = make_namespace(llm=llm)
    ns.put("Likes green tea")
    meter = UsageMeter()

    results = add(ns, AddCommand(SAID, ALICE), meter)

    assert [(r.record.text, r.event) for r in results] == [("Lives in Paris", Event.ADD)]
    assert meter.usage == LLMUsage(2, 20, 10)


def test_a_first_add_asks_for_its_facts_only(make_namespace: Any) -> None:
    # Given no memory in the scope, there is nothing a decision could update or delete
    llm = ScriptedLLM({"facts": ["Lives in Paris"]})
    ns = make_namespace(llm=llm)
    meter = UsageMeter()

    results = add(ns, AddCommand(SAID, ALICE), meter)

    # Then the one call is the extraction's, and its fact is added
    assert [(r.record.text, r.event) for r in results] == [("Lives in Paris", Event.ADD)]
    assert meter.usage == LLMUsage(1, 10, 5)


def test_the_rules_statements_the_llm_left_out_are_stored_beside_its_facts_when_asked(make_namespace: Any) -> None:
    # Given an LLM that extracts one of the two facts said
    def leaving_one_out() -> ScriptedLLM:
        return ScriptedLLM({"facts": [{"text": "Lives in Paris", "sources": [0]}]})

    plain = make_namespace(llm=leaving_one_out())
    beside = make_namespace(llm=leaving_one_out(), policy=AddPolicy(rules_beside_llm=True))

    # Then by default only its fact is stored; with rules_beside_llm, the statement of the sentence none of its
    # facts cites is stored too, citing that sentence, and the sentence its fact came from is not stored twice
    assert [r.record.text for r in add(plain, AddCommand(SAID, ALICE))] == ["Lives in Paris"]
    results = add(beside, AddCommand(SAID, ALICE))
    assert [(r.record.text, r.event) for r in results] == [
        ("Lives in Paris", Event.ADD),
        ("I love hiking in the Alps.", Event.ADD),
    ]
    (source,) = results[1].record.sources
    assert (source.index, source.content) == (0, "I love hiking in the Alps.")


def test_a_statement_the_llm_said_in_other_words_is_not_stored_beside_it(make_namespace: Any) -> None:
    # Given an LLM whose fact cites the whole message but says what one sentence says
    llm = ScriptedLLM({"facts": [{"text": "I love hiking in the Alps", "sources": [0]}]})
    ns = make_namespace(llm=llm, policy=AddPolicy(rules_beside_llm=True))

    results = add(ns, AddCommand(SAID, ALICE))

    assert [r.record.text for r in results] == ["I love hiking in the Alps", "I live in Paris."]


def test_a_procedural_add_is_summarised_by_the_llm(make_namespace: Any) -> None:
    ns = make_namespace(llm=ScriptedLLM("Task: plan a hike."))
    (result,) = add(ns, AddCommand(SAID, Scope(user_id="alice", agent_id="bot"), procedural=True))
    assert result.record.text == "Task: plan a hike."


def test_an_llm_answer_that_cannot_be_read_twice_leaves_the_add_to_the_extractor(make_namespace: Any) -> None:
    llm = ScriptedLLM('{"facts": ["Lives in', '{"facts": ["Lives in')
    llm.truncated = [True, True]
    ns = make_namespace(llm=llm)

    results = add(ns, AddCommand(SAID, ALICE))

    assert [r.record.text for r in results] == ["I live in Paris.", "I love hiking in the Alps."]
    assert len(llm.asked) == 2


def test_a_provider_that_is_down_is_still_an_error(make_namespace: Any) -> None:
    ns = make_namespace(llm=FailingLLM())
    with pytest.raises(ProviderError, match="down"):
        add(ns, AddCommand(SAID, ALICE))
    assert ns.memories() == {}


class FailingLLM:
    name = "failing"

    def complete(
        self, messages: list[ChatMessage], *, json_mode: bool = False, schema: JsonSchema | None = None
    ) -> Completion:
        raise ProviderError("The provider is down.", "provider_unavailable")
