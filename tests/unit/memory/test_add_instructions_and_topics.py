"""What the LLM's extraction is told (services/memory/add/instructions.py), and which statements an add's topics let
through without an LLM (services/memory/add/topics.py)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from mnemo.services.commands import AddCommand, Message
from mnemo.services.memory.add.instructions import extraction_instructions, with_topics
from mnemo.services.memory.add.topics import Topics
from mnemo.services.memory.policy import AddPolicy
from mnemo.services.providers import ActiveProviders, ProviderSet
from tests.unit.memory.fakes import ALICE, Namespace, WordEmbedder

SAID = [Message("user", "hi")]
CONFIGURED = ActiveProviders(ProviderSet(embedder=WordEmbedder(), custom_instructions="Keep names."))


def test_the_adds_topics_follow_its_instructions() -> None:
    command = AddCommand(SAID, ALICE, includes="food", excludes="money")
    assert with_topics("Be brief.", command) == (
        "Be brief.\nExtract only facts about: food.\nNever extract facts about: money."
    )
    assert with_topics(None, AddCommand(SAID, ALICE)) is None


def test_the_adds_own_instructions_else_the_configured_ones() -> None:
    assert extraction_instructions(AddCommand(SAID, ALICE), AddPolicy(), CONFIGURED) == "Keep names."
    own = AddCommand(SAID, ALICE, instructions="Only food.")
    assert extraction_instructions(own, AddPolicy(), CONFIGURED) == "Only food."


def test_custom_categories_are_listed_unless_the_policy_files_the_memories() -> None:
    command = AddCommand(SAID, ALICE, custom_categories=(("food", "what one eats"),))
    listed = extraction_instructions(command, AddPolicy(), CONFIGURED)
    assert listed is not None and "food" in listed and listed.startswith("Keep names.")
    assert extraction_instructions(command, AddPolicy(categorize=True), CONFIGURED) == "Keep names."


def test_custom_categories_do_not_change_whose_instructions_apply() -> None:
    categorized = AddCommand(SAID, ALICE, custom_categories=(("food", "what one eats"),))
    filed = AddPolicy(categorize=True)
    assert extraction_instructions(categorized, filed, CONFIGURED) == extraction_instructions(
        AddCommand(SAID, ALICE), filed, CONFIGURED
    )
    own = replace(categorized, instructions="Only food.")
    assert extraction_instructions(own, filed, CONFIGURED) == "Only food."


def test_without_topics_every_statement_is_wanted(ns: Namespace) -> None:
    vectors = ns.parts.embed(["I like tea", "I owe money"])
    assert Topics(ns.parts).wanted(vectors, AddCommand(SAID, ALICE)).tolist() == [True, True]


def test_a_statement_about_an_excluded_topic_is_not_wanted(ns: Namespace) -> None:
    vectors = ns.parts.embed(["facts about money", "zzz qqq"])
    wanted = Topics(ns.parts).wanted(vectors, AddCommand(SAID, ALICE, excludes="money"))
    assert wanted.dtype == np.bool_
    assert wanted.tolist() == [False, True]


def test_with_includes_only_the_statements_about_them_are_wanted(ns: Namespace) -> None:
    vectors = ns.parts.embed(["facts about money", "zzz qqq"])
    assert Topics(ns.parts).wanted(vectors, AddCommand(SAID, ALICE, includes="money")).tolist() == [True, False]
