"""bench/data/memory_quality: the labelled conversations are well-formed and their rules say what they mean."""

from __future__ import annotations

import re
from datetime import date, datetime
from typing import Any

import pytest
from bench.memory_quality.data import Dataset, load, normalize, read_users

EVAL = load("eval")
TUNE = load("tune")
DEV = load("dev")
HOLDOUT = load("holdout")
BLIND = load("blind")
BLIND2 = load("blind2")
BLIND3 = load("blind3")
BLIND4 = load("blind4")
SPLITS = [EVAL, TUNE, DEV, HOLDOUT, BLIND, BLIND2, BLIND3, BLIND4]
SPLIT_NAMES = ["eval", "tune", "dev", "holdout", "blind", "blind2", "blind3", "blind4"]
RAW = read_users()
USER_KEYS = {"user_id", "name", "split", "conversations", "changes"}
CONVERSATION_KEYS = {"id", "time", "people", "messages", "gold", "acceptable"}
FACT_KEYS = {"key", "text", "required", "forbidden", "examples", "counterexamples", "about", "context", "date"}
PERSON_KEYS = {"name", "relation", "aliases", "pronouns"}
PRONOUNS = {"he", "him", "his", "she", "her", "hers", "they", "them", "their"}
RESOLVED = re.compile(r"^\d{4}(-\d{2}(-\d{2})?)?$")


def test_the_evaluation_set_is_large_enough() -> None:
    assert len(EVAL.conversations) >= 40
    assert len(EVAL.users) >= 12
    assert len(EVAL.changes) >= 15
    assert sum(bool(f.about) for f in EVAL.gold) >= 10
    assert sum(bool(f.date) for f in EVAL.gold) >= 10
    assert sum(f.key == "name" for f in EVAL.gold) >= 5


def test_tune_dev_holdout_and_blind_conversations_are_kept_apart() -> None:
    assert {u["split"] for u in RAW} == {"eval", "tune", "dev", "holdout", "blind", "blind2", "blind3", "blind4"}
    assert TUNE.conversations and DEV.conversations and HOLDOUT.conversations and BLIND.conversations
    assert BLIND2.conversations
    assert not set(TUNE.users) & set(EVAL.users)
    assert not set(DEV.users) & (set(EVAL.users) | set(TUNE.users))
    assert not set(HOLDOUT.users) & (set(EVAL.users) | set(TUNE.users) | set(DEV.users))
    assert not set(BLIND.users) & (set(EVAL.users) | set(TUNE.users) | set(DEV.users) | set(HOLDOUT.users))
    earlier = set(EVAL.users) | set(TUNE.users) | set(DEV.users) | set(HOLDOUT.users) | set(BLIND.users)
    assert not set(BLIND2.users) & earlier
    assert BLIND3.conversations and not set(BLIND3.users) & (earlier | set(BLIND2.users))
    assert len(DEV.changes) >= 8 and len(HOLDOUT.changes) >= 10 and len(BLIND.changes) >= 10
    assert BLIND4.conversations and not set(BLIND4.users) & (earlier | set(BLIND2.users) | set(BLIND3.users))
    assert len(BLIND2.changes) >= 10 and len(BLIND3.changes) >= 10 and len(BLIND4.changes) >= 10


@pytest.mark.parametrize("user", RAW, ids=[u["user_id"] for u in RAW])
def test_every_field_is_known(user: dict[str, Any]) -> None:
    assert set(user) <= USER_KEYS
    assert user["user_id"] and user["name"]
    for conversation in user["conversations"]:
        assert set(conversation) <= CONVERSATION_KEYS, conversation["id"]
        for fact in [*conversation["gold"], *conversation.get("acceptable", ())]:
            assert set(fact) <= FACT_KEYS, fact["key"]
            assert fact["required"] and all(isinstance(g, list) and g and all(g) for g in fact["required"])
        for person in conversation.get("people", ()):
            assert set(person) <= PERSON_KEYS
            assert set(person["pronouns"]) <= PRONOUNS


@pytest.mark.parametrize("dataset", SPLITS, ids=SPLIT_NAMES)
def test_every_conversation_has_a_user_a_time_and_messages(dataset: Dataset) -> None:
    ids = [c.id for c in dataset.conversations]
    assert len(ids) == len(set(ids))
    for conversation in dataset.conversations:
        assert conversation.user_id
        assert isinstance(conversation.time, datetime) and conversation.time.tzinfo is not None
        assert conversation.messages
        assert {m.role for m in conversation.messages} <= {"user", "assistant"}
        assert any(m.role == "user" for m in conversation.messages)
        assert all(m.content.strip() for m in conversation.messages)
        assert conversation.gold, f"{conversation.id} has no gold fact"


@pytest.mark.parametrize("dataset", SPLITS, ids=SPLIT_NAMES)
def test_every_rule_accepts_its_fact_and_refuses_its_counterexamples(dataset: Dataset) -> None:
    for fact in dataset.facts.values():
        for text in (fact.text, *fact.examples):
            assert fact.rule.matches(text), f"{fact.uid} refuses {text!r}"
        for text in fact.counterexamples:
            assert not fact.rule.matches(text), f"{fact.uid} accepts {text!r}"


def test_fact_keys_are_unique_per_user() -> None:
    for user in RAW:
        keys = [f["key"] for c in user["conversations"] for f in [*c["gold"], *c.get("acceptable", ())]]
        assert len(keys) == len(set(keys)), user["user_id"]


@pytest.mark.parametrize("dataset", SPLITS, ids=SPLIT_NAMES)
def test_every_change_names_its_facts_and_asks_in_both_persons(dataset: Dataset) -> None:
    keys = [c.uid for c in dataset.changes]
    assert len(keys) == len(set(keys))
    for change in dataset.changes:
        current = dataset.facts[f"{change.user_id}/{change.current}"]
        outdated = [dataset.facts[f"{change.user_id}/{key}"] for key in change.outdated]
        assert outdated, change.uid
        assert current.kind == "gold" and all(f.kind == "gold" for f in outdated)
        assert current.rule.required and all(f.rule.required for f in outdated)  # keywords on both sides
        when = dataset.conversation_by_id
        assert all(when[f.conversation_id].time < when[current.conversation_id].time for f in outdated), change.uid
        assert sorted(p.person for p in change.probes) == ["first", "third"]
        assert all(p.question.strip().endswith("?") for p in change.probes)


@pytest.mark.parametrize("dataset", SPLITS, ids=SPLIT_NAMES)
def test_the_current_and_the_outdated_fact_never_match_each_other(dataset: Dataset) -> None:
    for change in dataset.changes:
        current = dataset.facts[f"{change.user_id}/{change.current}"]
        for key in change.outdated:
            outdated = dataset.facts[f"{change.user_id}/{key}"]
            for text in (current.text, *current.examples):
                assert not outdated.rule.matches(text), f"{change.uid}: {key} accepts {text!r}"
            for text in (outdated.text, *outdated.examples):
                assert not current.rule.matches(text), f"{change.uid}: {change.current} accepts {text!r}"


@pytest.mark.parametrize("dataset", SPLITS, ids=SPLIT_NAMES)
def test_relative_dates_are_said_and_resolved_near_the_conversation(dataset: Dataset) -> None:
    for conversation in dataset.conversations:
        said = normalize(" ".join(m.content for m in conversation.messages))
        for fact in conversation.gold:
            if fact.date is None:
                continue
            assert normalize(fact.date.phrase) in said, f"{fact.uid}: {fact.date.phrase!r} is not in the conversation"
            assert RESOLVED.match(fact.date.resolved), fact.uid
            year, month, day = [*map(int, fact.date.resolved.split("-")), 1, 1][:3]
            if "-" in fact.date.resolved:  # a day or a month: near the conversation
                assert abs((date(year, month, day) - conversation.time.date()).days) <= 400, fact.uid
            else:  # a year ("three years ago")
                assert abs(year - conversation.time.year) <= 10, fact.uid


@pytest.mark.parametrize("dataset", SPLITS, ids=SPLIT_NAMES)
def test_third_person_facts_name_someone_the_conversation_knows(dataset: Dataset) -> None:
    for conversation in dataset.conversations:
        known = {normalize(w) for p in conversation.people for w in p.words}
        for fact in (*conversation.gold, *conversation.acceptable):
            if fact.about:
                assert normalize(fact.about) in known, f"{fact.uid}: {fact.about} is not one of its people"
