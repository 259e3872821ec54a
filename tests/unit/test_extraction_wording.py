"""The extractor's reading of words: questions, filler, the speaker speaking of themselves, verbs in the third
person."""

from __future__ import annotations

import pytest

from mnemo.services.extraction.wording import content_words, is_filler, is_question, speaks_of_self, third_person


@pytest.mark.parametrize(
    "sentence",
    [
        "What is my sister's name?",
        "Can you recommend a good restaurant in Lisbon?",
        "Do you know the way to the station",
        "Where does my sister live",
        "I wonder whether pizza is healthy?",
        "Is vegetable pizza healthy",
        "Really?!",
    ],
)
def test_a_question_is_a_question(sentence: str) -> None:
    assert is_question(sentence)


@pytest.mark.parametrize(
    "sentence",
    ["When I was ten I lived in Oslo.", "How I met my wife is a long story.", "I love pizza", "Do not call me."],
)
def test_a_statement_that_opens_like_a_question_is_not_one(sentence: str) -> None:
    assert not is_question(sentence)


@pytest.mark.parametrize(
    "sentence",
    ["Hi!", "ok thanks!", "ugh ok thx", "haha yes", "lol", "Okay, thank you so much.", "Got it, thanks again.", "meh"],
)
def test_greetings_acknowledgements_and_laughter_are_filler(sentence: str) -> None:
    assert is_filler(sentence)


@pytest.mark.parametrize("sentence", ["haha yes, always black", "I love pizza", "Mostly in the Alps."])
def test_a_sentence_with_a_content_word_is_not_filler(sentence: str) -> None:
    assert not is_filler(sentence)


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [("I'm vegan.", True), ("We moved to Lisbon.", True), ("Our dog is old", True), ("Mostly in the Alps.", False)],
)
def test_speaking_of_oneself(sentence: str, expected: bool) -> None:
    assert speaks_of_self(sentence) is expected


def test_content_words_leave_out_stop_words_and_filler() -> None:
    assert content_words("Thanks, I really love vegetable pizza!") == ["love", "vegetable", "pizza"]


@pytest.mark.parametrize(
    ("verb", "expected"),
    [("hike", "hikes"), ("have", "has"), ("watch", "watches"), ("fly", "flies"), ("play", "plays"), ("go", "goes")],
)
def test_verbs_in_the_third_person(verb: str, expected: str) -> None:
    assert third_person(verb) == expected
