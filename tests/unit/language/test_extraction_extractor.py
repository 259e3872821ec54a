"""The deterministic extractor over whole conversations: the user's statements about themselves and the people in
their life, each citing its sentence (and the question it answers); never the assistant's words, filler, questions
or fragments without their question; names kept, pronouns resolved, relative dates written as dates."""

from __future__ import annotations

from datetime import UTC, datetime

from mnemo.language import Cited, Language, Statement, Turn
from mnemo.language.en import english

ENGLISH: Language = english()  # the pack, through its interface
extract_statements = ENGLISH.statements

AT = datetime(2025, 3, 13, 10, 0, tzinfo=UTC)


def extract(*turns: tuple[str, str]) -> list[str]:
    return [s.text for s in extract_statements([Turn(i, r, c) for i, (r, c) in enumerate(turns)], AT)]


def test_a_realistic_chat_keeps_the_users_facts_and_nothing_else() -> None:
    found = extract(
        ("user", "Hi! I'm Alice."),
        ("assistant", "Nice to meet you, Alice! Lovely weather today, isn't it? How can I help?"),
        ("user", "I moved from Paris to Lisbon last spring. My sister Emma lives in Berlin. She's a nurse."),
        ("assistant", "A scarf would make a great gift for her. Where do you hike?"),
        ("user", "Mostly in the Alps. ugh ok thx"),
        ("assistant", "How do you take your coffee? Black?"),
        ("user", "haha yes, always black"),
        ("user", "The weather is nice today. Can you remind me of her birthday?"),
        ("user", "lol"),
    )

    assert found == [
        "Name is Alice",
        "I moved from Paris to Lisbon in spring 2024.",
        "My sister Emma lives in Berlin.",
        "My sister Emma is a nurse.",
        "Hikes mostly in the Alps",
        "Takes coffee always black",
    ]


def test_the_assistants_sentences_are_never_the_users_memories() -> None:
    assert extract(("assistant", "You love hiking in the Alps and you live in Lisbon."), ("user", "ok")) == []


def test_a_statement_cites_its_sentence_and_the_question_it_answers() -> None:
    turns = [Turn(0, "assistant", "Great. Where do you hike?"), Turn(1, "user", "Well... Mostly in the Alps. Bye!")]

    (statement,) = extract_statements(turns, AT)

    assert statement == Statement(
        "Hikes mostly in the Alps",
        (Cited(0, 7, 25, "Where do you hike?"), Cited(1, 8, 27, "Mostly in the Alps.")),
    )
    assert statement.message_index == 1


def test_a_fragment_without_a_question_is_dropped_and_only_the_first_sentence_of_a_reply_answers() -> None:
    assert extract(("user", "Mostly in the Alps.")) == []
    assert extract(("assistant", "Where do you hike?"), ("user", "I love it. Mostly in the Alps.")) == ["I love it."]


def test_a_third_person_statement_keeps_its_subject_or_is_not_kept() -> None:
    assert extract(("user", "She lives in Berlin.")) == []  # nobody named: not the user's fact
    assert extract(("user", "My brother Tom lives in Oslo. He is a pilot.")) == [
        "My brother Tom lives in Oslo.",
        "My brother Tom is a pilot.",
    ]
    assert extract(("assistant", "How is your daughter Mia?"), ("user", "She started school yesterday.")) == [
        "My daughter Mia started school on 12 March 2025."
    ]


def test_short_statements_about_oneself_are_kept_and_empty_ones_are_not() -> None:
    assert extract(("user", "I'm vegan. I am. Me too!")) == ["I'm vegan."]


def test_a_yes_to_a_question_is_read_with_it_but_a_bare_yes_otherwise_is_filler() -> None:
    assert extract(("assistant", "Do you have any pets?"), ("user", "Yes, two cats.")) == ["Has pets: two cats"]
    assert extract(("user", "Yes, two cats.")) == []


def test_replies_read_with_their_question_and_what_says_no_fact_dropped() -> None:
    found = extract(
        ("user", "Need a birthday gift idea for my daughter."),
        ("assistant", "How fun! What is she into at the moment?"),
        ("user", "Lily is obsessed with horses and drawing"),
        ("assistant", "Does Lily eat spicy food? Do you drink coffee in the morning? Do you take it black?"),
        ("user", "haha yes, always black"),
        ("assistant", "Have you started thinking about the wedding?"),
        ("user", "a bit. we want something small next summer"),
        ("assistant", "Lovely! Rent-stabilized apartments have capped increases."),
        ("user", "it's not, I checked. good point, I'll ask Giulia. I feel human again"),
        ("user", "closed on a house in Montclair yesterday. exhausted and broke lol"),
        ("user", "finals start in two weeks. The weather is nice today."),
    )
    assert found == [
        "Need a birthday gift idea for my daughter.",
        "My daughter Lily is obsessed with horses and drawing",
        "Takes coffee black: always black",
        "we want something small in summer 2025 (about the wedding)",
        "closed on a house in Montclair on 12 March 2025.",
        "finals start around 27 March 2025.",
    ]


def test_an_it_in_a_reply_is_what_the_question_asked_about() -> None:
    found = extract(
        ("user", "My sister Sofia is visiting."),
        ("assistant", "Lovely! Does Sofia eat spicy food?"),
        ("user", "she loves it."),
    )
    assert found == ["My sister Sofia is visiting.", "My sister Sofia loves spicy food."]


def test_an_introduction_in_lower_case_and_a_job_without_its_subject() -> None:
    found = extract(
        ("user", "hi!! rosa here. hi im ines, on my break at 2am"),
        ("user", "data analyst at a fintech now"),
    )
    assert found == [
        "Name is Rosa",
        "Name is Ines",
        "on my break at 2am",
        "Works as a data analyst at a fintech now",
    ]


def test_an_agents_notes_about_its_user_are_the_users_facts() -> None:
    found = extract(("user", "User prefers window seats. The user is allergic to peanuts. The weather is nice."))
    assert found == ["Prefers window seats.", "Is allergic to peanuts."]
