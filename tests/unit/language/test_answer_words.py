"""The words an answer is read with (mnemo.language.en.extraction.answer_words), and the readers of each form of
question (mnemo.language.en.extraction.question_readers)."""

from __future__ import annotations

import pytest

from mnemo.language.en.extraction.answer_words import NO, YES, lower_first, own, says_more
from mnemo.language.en.extraction.question_readers import READERS


def test_yes_and_no_are_apart() -> None:
    assert {"yes", "yeah", "sure"} <= YES and {"no", "nope", "never"} <= NO
    assert not YES & NO


def test_the_questions_words_are_said_of_the_user() -> None:
    assert own("  your coffee  ") == "coffee"
    assert own("for yourself") == "for themselves"
    assert own("any pets") == "pets"


@pytest.mark.parametrize(
    ("said", "more"),
    [("mostly in the Alps", True), ("sometimes", True), ("4", True), ("yeah ok", False), ("I guess", False)],
)
def test_an_answer_says_more_than_yes_no_and_filler(said: str, more: bool) -> None:
    assert says_more(said) is more


def test_an_answer_ends_a_sentence_with_a_common_word_in_lower_case_and_a_name_as_written() -> None:
    assert lower_first("Mostly in the Alps") == "mostly in the Alps"
    assert lower_first("Lisbon, mostly") == "Lisbon, mostly"


@pytest.mark.parametrize(
    ("question", "polarity", "said", "read"),
    [
        ("What do you do for work?", None, "Nurse", "Works as a nurse"),
        ("How many cats do you have?", None, "two", "Has two cats"),
        ("How many days a week can you run?", None, "4 days", "Runs 4 days a week"),
        ("What kind of music do you play?", None, "mostly jazz", "Plays music: mostly jazz"),
        ("What kind of dog is Rex?", None, "A beagle", "Rex is a beagle"),
        ("Do you drink coffee?", False, "", "Does not drink coffee"),
        ("What's your favourite band?", None, "Wilco", "Favourite band is Wilco"),
        ("What's the new job?", None, "Data analyst at a bank", "New job is Data analyst at a bank"),
        ("Where are you renting?", None, "a flat in Leeds", "Is renting a flat in Leeds"),
        ("Are you vegetarian?", True, "", "Is vegetarian"),
        ("Have you ever been to Japan?", False, "", "Has never been to Japan"),
    ],
)
def test_each_form_of_question_has_a_reader(question: str, polarity: bool | None, said: str, read: str) -> None:
    found = [r(question, polarity, said) for r in READERS]
    assert next(f for f in found if f is not None) == read


def test_how_one_is_is_no_fact() -> None:
    assert all(r("How are you feeling?", None, "great, thanks for asking") is None for r in READERS)
