"""Whether a fact the LLM extracted is in the conversation (services/memory/add/grounding.py): said by the user, in
words the messages hold."""

from __future__ import annotations

from mnemo.language.en import english
from mnemo.services.commands import Message
from mnemo.services.memory.add import grounding

ENGLISH = english()

MESSAGES = [
    Message("system", "You are helpful."),
    Message("user", "I moved to Porto last year. I love the tiles."),
    Message("assistant", "Porto is lovely. Lisbon is a great choice for a weekend too."),
    Message("user", "Thanks!"),
]


def test_a_fact_citing_a_user_sentence_that_says_it_keeps_that_sentence() -> None:
    (source,) = grounding.grounded_sources(ENGLISH, MESSAGES, "Moved to Porto last year", [1])
    assert (source.role, source.content) == ("user", "I moved to Porto last year.")


def test_a_fact_citing_only_an_assistant_remark_the_user_never_confirmed_is_dropped() -> None:
    assert grounding.grounded_sources(ENGLISH, MESSAGES, "Thinks Lisbon is a great weekend choice", [2]) == ()


def test_an_assistant_remark_the_user_confirms_is_the_users_with_both_messages_cited() -> None:
    said = [Message("assistant", "So you are vegetarian?"), Message("user", "Yes, for ten years.")]
    sources = grounding.grounded_sources(ENGLISH, said, "Is vegetarian", [0])
    assert [(s.role, s.index) for s in sources] == [("assistant", 0), ("user", 1)]
    denied = [Message("assistant", "So you are vegetarian?"), Message("user", "No, not at all.")]
    assert grounding.grounded_sources(ENGLISH, denied, "Is vegetarian", [0]) == ()


def test_a_prompt_example_the_user_never_said_is_dropped_whatever_it_cites() -> None:
    # The prompt's own examples, copied by a weak model: no word of them is in the conversation.
    assert grounding.grounded_sources(ENGLISH, MESSAGES, "Lives in Lisbon", [1]) == ()
    assert grounding.grounded_sources(ENGLISH, MESSAGES, "Is allergic to peanuts", [1, 3]) == ()
    assert grounding.grounded_sources(ENGLISH, MESSAGES, "Is allergic to peanuts", []) == ()


def test_without_a_citation_the_users_sentence_that_supports_it_is_found() -> None:
    (source,) = grounding.grounded_sources(ENGLISH, MESSAGES, "Loves the tiles", [])
    assert (source.index, source.content) == (1, "I love the tiles.")


def test_a_name_the_fact_holds_must_be_in_the_messages_it_rests_on() -> None:
    assert grounding.supports(ENGLISH, "I moved to Porto.", "Moved to Porto")
    assert not grounding.supports(ENGLISH, "I moved to Porto.", "Moved to Porto with Ana")
    assert ENGLISH.names("Moved to Porto in March with Ana on Friday") == ["porto", "ana"]
    assert ENGLISH.names("User's sister is called Mia") == ["mia"]


def test_a_fact_sharing_no_content_word_with_its_citation_is_not_supported() -> None:
    assert not grounding.supports(ENGLISH, "Thanks!", "Is polite")
    assert grounding.grounded_sources(ENGLISH, MESSAGES, "Is polite", [3]) == ()


def test_the_users_name_rests_on_a_message_introducing_its_speaker_by_it() -> None:
    # A weak model files the people a user speaks of as the user's name ("Is called Leila").
    said = [
        Message("user", "hi!! rosa here. my sister Leila turns 9 on sunday"),
        Message("assistant", "Happy early birthday to Leila, Rosa!"),
    ]
    (source,) = grounding.grounded_sources(ENGLISH, said, "Is called Rosa", [0])
    assert (source.index, source.role) == (0, "user")
    assert grounding.grounded_sources(ENGLISH, said, "Is called Leila", [0]) == ()
    assert grounding.grounded_sources(ENGLISH, said, "The user's name is Leila", []) == ()
    assert grounding.grounded_sources(ENGLISH, said, "Her sister Leila turns 9", [0])  # Leila's own fact stays


def test_an_agents_note_of_the_users_name_introduces_it() -> None:
    note = [Message("user", "Goes by Kali. Prefers window seats.")]
    assert ENGLISH.claimed_name("Goes by Kali") == "Kali"
    assert grounding.grounded_sources(ENGLISH, note, "Goes by Kali", [0])
    assert ENGLISH.claimed_name("Works as a nurse") is None


def test_a_fact_citing_an_assistant_message_that_does_not_say_it_is_looked_for_in_the_users() -> None:
    # A small model's message numbers are often off by one: the user said it, the cited reply did not.
    said = [
        Message("user", "my brother jonas is visiting. and i'm a physio so nothing where i stand all day lol"),
        Message("assistant", "A concert would impress a sound engineer, and a ferry ride is seated."),
    ]
    (source,) = grounding.grounded_sources(ENGLISH, said, "Works as a physio", [1])
    assert (source.index, source.role) == (0, "user")
    assert grounding.grounded_sources(ENGLISH, said, "Works as a sound engineer", [1]) == ()
