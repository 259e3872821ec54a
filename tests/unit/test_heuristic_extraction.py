"""The LLM-free extractor: keep informative statements; drop greetings, filler and questions."""

from __future__ import annotations

import pytest

from mnemo.services.heuristic_extraction import Statement, informative_statements, is_informative


@pytest.mark.parametrize(
    "sentence",
    [
        "I love vegetable pizza.",
        "My sister lives in Lisbon and works as a nurse.",
        "I am vegan.",
        "I'm allergic to peanuts",
        "We moved to Berlin last year!",
        "My favourite programming language is Rust",
        "When I was ten I lived in Oslo.",
        "How I met my wife is a long story.",
        "What I really want is a quiet weekend in the mountains.",
        "Do not call me before nine.",
    ],
)
def test_given_an_informative_statement_when_checked_then_it_is_kept(sentence: str):
    assert is_informative(sentence)


@pytest.mark.parametrize(
    "sentence",
    [
        "Hi!",
        "Hello there",
        "Hey, good morning!",
        "Good evening.",
        "Bye, see you later!",
        "ok thanks!",
        "Okay, thank you so much.",
        "Sounds great, cool!",
        "No worries!",
        "Thanks a lot!",
        "Yes please.",
        "lol",
        "Sorry!",
        "Got it, thanks again.",
    ],
)
def test_given_a_greeting_or_filler_when_checked_then_it_is_dropped(sentence: str):
    assert not is_informative(sentence)


@pytest.mark.parametrize(
    "sentence",
    [
        "What is my sister's name?",
        "Can you recommend a good restaurant in Lisbon?",
        "Do you know the way to the station",
        "Where does my sister live",
        "I wonder whether pizza is healthy?",
        "Is vegetable pizza healthy",
    ],
)
def test_given_a_question_when_checked_then_it_is_dropped(sentence: str):
    assert not is_informative(sentence)


@pytest.mark.parametrize("sentence", ["", "   ", "...", "?!", "Lisbon.", "Pizza!"])
def test_given_empty_or_single_word_text_when_checked_then_it_is_dropped(sentence: str):
    assert not is_informative(sentence)


def test_given_a_conversation_when_extracted_then_informative_sentences_are_kept_in_order_with_their_message():
    messages = [
        (0, "Hi! I love vegetable pizza. What about you?"),
        (1, "ok thanks!"),
        (2, "My sister lives in Lisbon; she works as a nurse.\nDo you remember her name?"),
        (3, "Where do I work? I work at Acme as an engineer"),
    ]

    found = informative_statements(messages)

    assert found == [
        Statement("I love vegetable pizza.", 0),
        Statement("My sister lives in Lisbon;", 2),
        Statement("she works as a nurse.", 2),
        Statement("I work at Acme as an engineer", 3),
    ]


def test_given_only_chit_chat_when_extracted_then_nothing_is_kept():
    messages = [(0, "Hello!"), (1, "Hi, how are you?"), (2, "Great, thanks! Bye.")]

    assert informative_statements(messages) == []


def test_given_message_indices_with_gaps_when_extracted_then_the_given_indices_are_kept():
    found = informative_statements([(4, "I play the cello."), (9, "My dog is called Rex.")])

    assert [(s.text, s.message_index) for s in found] == [("I play the cello.", 4), ("My dog is called Rex.", 9)]
