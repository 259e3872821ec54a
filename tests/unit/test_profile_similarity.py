"""The profile generator without an LLM, on the real all-MiniLM-L6-v2: scripted users whose profiles are stated.

Each user's memories are listed newest first (as the generator receives them); each test states exactly which
properties are filled, with what, from which memories, and which stay empty."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from mnemo.domain.memory import MemoryRecord, Scope
from mnemo.language.en.profile_values import EnglishProfileValues
from mnemo.language.en.profile_words import EnglishProfileWords, property_text
from mnemo.ports.embedder import Embedder
from mnemo.services.platform.profiles.generation import ProfileDraft, profile_generator
from mnemo.services.platform.profiles.similarity_generator import (
    DEFAULT_THRESHOLD,
    SimilarityProfileGenerator,
)

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "location": {"type": "string", "description": "Where the user lives"},
        "occupation": {"type": "string", "description": "The user's job or profession"},
        "allergies": {
            "type": "array",
            "items": {"type": "string"},
            "description": "Foods or substances the user is allergic to",
        },
        "pets": {"type": "array", "items": {"type": "string"}, "description": "The user's pets"},
        "hobbies": {
            "type": "array",
            "items": {"type": "string"},
            "description": "Activities the user enjoys in their free time",
        },
        "is_vegetarian": {"type": "boolean", "description": "Whether the user is vegetarian"},
        "age": {"type": "integer", "description": "The user's age in years"},
    },
}
NOW = datetime(2026, 11, 1, tzinfo=UTC)
WORDS = EnglishProfileWords()  # the English reading of booleans, numbers and properties, and no kind of value


def memories(*texts: str) -> list[MemoryRecord]:
    """Records of these texts, newest first (each a minute older than the one before)."""
    return [
        MemoryRecord.create(text, Scope(user_id="alice"), at=NOW - timedelta(minutes=i)) for i, text in enumerate(texts)
    ]


def ids(records: list[MemoryRecord], *indexes: int) -> list[str]:
    return [records[i].id for i in indexes]


def similarity(embedder: Embedder, prop: str, text: str) -> float:
    """The similarity the generator sees between a property of SCHEMA and a memory's text."""
    vectors = embedder.embed([property_text(prop, SCHEMA["properties"][prop]["description"]), text])
    return float(vectors[0] @ vectors[1])


@pytest.fixture
def generator(embedder: Embedder) -> SimilarityProfileGenerator:
    return SimilarityProfileGenerator(embedder, values=WORDS)


def test_the_threshold_is_the_measured_one() -> None:
    assert DEFAULT_THRESHOLD == 0.34


def test_each_property_is_filled_from_the_memory_that_answers_it(generator: SimilarityProfileGenerator) -> None:
    records = memories(
        "I live in Lisbon",
        "I work as a nurse",
        "I'm allergic to peanuts",
        "I have two cats",
        "I love hiking and climbing",
    )

    draft = generator.generate(SCHEMA, None, records)

    assert draft == ProfileDraft(
        "succeeded",
        profile={
            "location": "I live in Lisbon",
            "occupation": "I work as a nurse",
            "allergies": ["I'm allergic to peanuts"],
            "pets": ["I have two cats"],
            "hobbies": ["I love hiking and climbing"],
        },  # is_vegetarian and age: no memory states them
        sources={
            "location": ids(records, 0),
            "occupation": ids(records, 1),
            "allergies": ids(records, 2),
            "pets": ids(records, 3),
            "hobbies": ids(records, 4),
        },
    )


def test_arrays_take_the_best_few_distinct_and_plain_facts_fill_booleans_and_numbers(
    generator: SimilarityProfileGenerator,
) -> None:
    records = memories(
        "I am vegetarian",
        "Is 34 years old",
        "Enjoys playing chess on weekends",
        "Drinks coffee every morning",
        "I love hiking and climbing",
        "Enjoys playing chess on weekends",  # the same fact again, older: one item
    )

    draft = generator.generate(SCHEMA, None, records)

    assert draft.status == "succeeded"
    assert draft.profile == {
        "hobbies": ["Enjoys playing chess on weekends", "I love hiking and climbing"],  # most similar first
        "is_vegetarian": True,
        "age": 34,
    }
    assert draft.sources == {
        "hobbies": ids(records, 2, 4),
        "is_vegetarian": ids(records, 0),
        "age": ids(records, 1),
    }


def test_max_items_bounds_an_array(embedder: Embedder) -> None:
    records = memories("I love hiking and climbing", "Enjoys playing chess on weekends", "I live in Lisbon")

    draft = SimilarityProfileGenerator(embedder, values=WORDS, max_items=1).generate(SCHEMA, None, records)

    assert draft.profile["hobbies"] == ["Enjoys playing chess on weekends"]
    assert draft.sources["hobbies"] == ids(records, 1)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I am vegetarian", True),
        ("I'm vegetarian but not vegan", True),  # the negation is not before "vegetarian"
        ("I'm not vegetarian", False),
        ("I am a non-vegetarian", False),
        ("I don't eat meat", None),  # true, perhaps, but not plainly stated: no inference
        ("I used to be vegetarian", None),  # the past: unsure
        ("I'm not vegetarian anymore", None),  # a change: unsure
    ],
)
def test_a_boolean_is_only_what_a_memory_plainly_states(
    embedder: Embedder, generator: SimilarityProfileGenerator, text: str, expected: bool | None
) -> None:
    assert similarity(embedder, "is_vegetarian", text) >= DEFAULT_THRESHOLD  # the rule decides, not the threshold
    records = memories(text, "I live in Lisbon")

    draft = generator.generate(SCHEMA, None, records)

    assert draft.profile.get("is_vegetarian") == expected
    assert draft.sources.get("is_vegetarian") == (None if expected is None else ids(records, 0))


def test_the_newest_memory_that_speaks_of_a_boolean_decides(generator: SimilarityProfileGenerator) -> None:
    records = memories("I'm not vegetarian", "I am vegetarian")

    assert generator.generate(SCHEMA, None, records).profile == {"is_vegetarian": False}

    changed = memories("I stopped being vegetarian", "I am vegetarian")  # the newest is unsure: nothing
    assert "is_vegetarian" not in generator.generate(SCHEMA, None, changed).profile


@pytest.mark.parametrize(
    "text",
    [
        "Turned 40 in March",  # a number, but not next to "age" or "years"
        "Is 34 years old and has 2 kids",  # two numbers: which?
        "Is thirty-four years old",  # numbers in words are not read
    ],
)
def test_a_number_is_only_one_plainly_stated_next_to_the_property_words(
    embedder: Embedder, generator: SimilarityProfileGenerator, text: str
) -> None:
    assert similarity(embedder, "age", text) >= DEFAULT_THRESHOLD  # the rule decides, not the threshold
    draft = generator.generate(SCHEMA, None, memories(text, "I live in Lisbon"))

    assert "age" not in draft.profile
    assert draft.profile == {"location": "I live in Lisbon"}


def test_a_value_the_property_schema_rejects_stays_empty(generator: SimilarityProfileGenerator) -> None:
    schema = {
        "type": "object",
        "properties": {
            "age": {"type": "integer", "minimum": 0, "maximum": 120, "description": "The user's age in years"},
            "location": {"type": "string", "enum": ["Lisbon", "Porto"], "description": "Where the user lives"},
            "occupation": {"type": "string", "description": "The user's job or profession"},
        },
    }

    draft = generator.generate(schema, None, memories("I'm 340 years old", "I live in Lisbon", "I work as a nurse"))

    assert draft.profile == {"occupation": "I work as a nurse"}


def test_objects_and_arrays_of_objects_stay_empty(generator: SimilarityProfileGenerator) -> None:
    schema = {
        "type": "object",
        "properties": {
            "home": {"type": "object", "description": "Where the user lives"},
            "jobs": {"type": "array", "items": {"type": "object"}, "description": "The user's job or profession"},
            "allergies": {"type": "array", "items": True, "description": "Foods the user is allergic to"},
            "pets": {"type": ["array", "null"], "items": {"type": "string"}, "description": "The user's pets"},
        },
    }
    records = memories("I live in Lisbon", "I work as a nurse", "I have two cats", "I'm allergic to peanuts")

    draft = generator.generate(schema, None, records)

    assert draft.profile == {"pets": ["I have two cats"]}
    assert draft.sources == {"pets": ids(records, 2)}


def test_a_user_whose_memories_match_nothing_has_insufficient_data(generator: SimilarityProfileGenerator) -> None:
    records = memories(
        "Prefers dark mode in apps", "The project deadline is Friday", "Asked about the weather tomorrow"
    )

    draft = generator.generate(SCHEMA, "Write it in French.", records)

    assert draft == ProfileDraft(
        "insufficient_data",
        reason="No property could be filled from the memories; empty: "
        "location, occupation, allergies, pets, hobbies, is_vegetarian, age.",
    )


def test_too_few_memories_is_insufficient_data(embedder: Embedder) -> None:
    generator = SimilarityProfileGenerator(embedder, values=WORDS, min_memories=3)

    draft = generator.generate(SCHEMA, None, memories("I live in Lisbon", "I work as a nurse"))

    assert draft == ProfileDraft("insufficient_data", reason="2 memories; at least 3 needed for a profile.")
    assert SimilarityProfileGenerator(embedder, values=WORDS).generate(SCHEMA, None, []).status == "insufficient_data"


def test_only_the_newest_memories_are_considered(embedder: Embedder) -> None:
    records = memories("Prefers dark mode in apps", "Drinks coffee every morning", "I live in Lisbon")

    assert SimilarityProfileGenerator(embedder, values=WORDS, max_memories=2).generate(
        SCHEMA, None, records
    ).status == ("insufficient_data")
    assert SimilarityProfileGenerator(embedder, values=WORDS).generate(SCHEMA, None, records).profile == {
        "location": "I live in Lisbon"
    }


def test_a_schema_without_properties_is_insufficient_data(generator: SimilarityProfileGenerator) -> None:
    draft = generator.generate({"type": "object"}, None, memories("I live in Lisbon"))

    assert draft == ProfileDraft("insufficient_data", reason="The schema has no properties to fill.")


def test_without_an_llm_the_factory_gives_the_similarity_generator(embedder: Embedder) -> None:
    assert isinstance(profile_generator(None, embedder), SimilarityProfileGenerator)


# ---- values read by the language pack ------------------------------------------------------------------------

VALUE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "city": {"type": "string", "description": "The city where the user lives"},
        "occupation": {"type": "string", "description": "The user's occupation"},
        "job": {"type": "string", "description": ""},
        "employer": {"type": "string", "description": "The company the user works for"},
        "pet_name": {"type": "string", "description": "The name of the user's pet"},
        "hobbies": {
            "type": "array",
            "items": {"type": "string"},
            "description": "Activities the user enjoys in their free time",
        },
    },
}


@pytest.fixture
def reading(embedder: Embedder) -> SimilarityProfileGenerator:
    return SimilarityProfileGenerator(embedder, values=EnglishProfileValues())


def test_a_property_the_pack_reads_is_filled_with_the_value_not_the_sentence(
    reading: SimilarityProfileGenerator,
) -> None:
    # Given statements that state the values, each in a sentence of its own
    records = memories(
        "I live in Lisbon since last spring",
        "I work as a nurse",
        "I work at Santa Maria Hospital",
        "My dog is called Rex",
        "I love hiking and climbing",
    )

    # When the profile is generated without an LLM
    draft = reading.generate(VALUE_SCHEMA, None, records)

    # Then each property the pack reads holds the value, citing the statement; the others are as before
    assert draft.status == "succeeded"
    assert {k: v for k, v in draft.profile.items() if k != "hobbies"} == {
        "city": "Lisbon",
        "occupation": "nurse",
        "job": "nurse",
        "employer": "Santa Maria Hospital",
        "pet_name": "Rex",
    }
    assert draft.sources["city"] == ids(records, 0)
    assert draft.sources["occupation"] == draft.sources["job"] == ids(records, 1)
    assert draft.sources["employer"] == ids(records, 2)
    assert draft.sources["pet_name"] == ids(records, 3)
    assert draft.profile["hobbies"] == ["I love hiking and climbing"]


def test_the_newest_statement_of_a_value_wins(reading: SimilarityProfileGenerator) -> None:
    records = memories("I moved to Porto", "I live in Lisbon since last spring")  # newest first
    draft = reading.generate(VALUE_SCHEMA, None, records)
    assert (draft.profile["city"], draft.sources["city"]) == ("Porto", ids(records, 0))


def test_a_property_no_statement_gives_a_value_for_stays_empty(reading: SimilarityProfileGenerator) -> None:
    # Given memories close to the properties in meaning, but none stating a value the pack reads
    records = memories("My sister lives in Porto", "I work from home on Fridays", "I have two cats")

    draft = reading.generate(
        {**VALUE_SCHEMA, "properties": dict(list(VALUE_SCHEMA["properties"].items())[:5])}, None, records
    )

    # Then nothing is filled with a sentence: the profile has too little to say
    assert draft.status == "insufficient_data" and draft.profile == {}


def test_a_value_the_propertys_schema_rejects_is_left_empty(reading: SimilarityProfileGenerator) -> None:
    schema = {
        "type": "object",
        "properties": {"city": {"type": "string", "description": "Where the user lives", "maxLength": 3}},
    }
    assert reading.generate(schema, None, memories("I live in Lisbon")).status == "insufficient_data"


def test_the_composed_generator_without_an_llm_reads_values_with_the_pack(embedder: Embedder) -> None:
    generator = profile_generator(None, embedder, values=EnglishProfileValues())
    draft = generator.generate(VALUE_SCHEMA, None, memories("I work as a nurse"))
    assert draft.profile["occupation"] == "nurse"


def test_without_a_language_booleans_and_numbers_stay_empty(embedder: Embedder) -> None:
    # Given memories that plainly state a boolean and a number in English
    records = memories("I am vegetarian", "Is 34 years old")

    # When the generator has no language pack to read them with, and when it has the English words
    bare = SimilarityProfileGenerator(embedder).generate(SCHEMA, None, records)
    english = SimilarityProfileGenerator(embedder, values=WORDS).generate(SCHEMA, None, records)

    # Then only the English reading fills them
    assert "is_vegetarian" not in bare.profile and "age" not in bare.profile
    assert (english.profile["is_vegetarian"], english.profile["age"]) == (True, 34)
