"""An add's includes and excludes read without an LLM (mnemo.services.extraction.topics), with the real embedder;
and what the LLM is told of them."""

from __future__ import annotations

from mnemo.domain.memory import Scope
from mnemo.language.en import english
from mnemo.ports.embedder import Embedder
from mnemo.services.commands import AddCommand, Message
from mnemo.services.extraction.topics import TopicMatcher, topics_of
from mnemo.services.memory import with_topics

STATEMENTS = [
    "I'm allergic to peanuts and my doctor gave me an EpiPen",
    "I get migraines when I don't sleep enough",
    "Sushi is my favourite food",
    "I play bass in a punk band",
    "We're flying to Rome next Friday",
]


def test_topics_are_split_from_free_text() -> None:
    assert topics_of(english(), "health, money and my kids; travel") == ["health", "money", "my kids", "travel"]
    assert topics_of(english(), "") == [] and topics_of(english(), None) == []
    assert len(topics_of(english(), ",".join(f"t{i}" for i in range(50)))) == 20


def test_a_statement_is_about_the_topics_that_name_it(embedder: Embedder) -> None:
    matcher = TopicMatcher(embedder, english())
    vectors = embedder.embed(STATEMENTS)
    assert list(matcher.about(vectors, ["health"])) == [True, True, False, False, False]
    assert list(matcher.about(vectors, ["music", "travel plans"])) == [False, False, False, True, True]
    assert not matcher.about(vectors, []).any()


def test_the_llm_is_told_what_to_extract_only_and_never() -> None:
    command = AddCommand([Message("user", "hi")], Scope(user_id="alice"), includes="food, travel", excludes="health")
    told = with_topics("Be brief.", command)
    assert told == "Be brief.\nExtract only facts about: food, travel.\nNever extract facts about: health."
    plain = AddCommand([Message("user", "hi")], Scope(user_id="alice"))
    assert with_topics(None, plain) is None and with_topics("Be brief.", plain) == "Be brief."
