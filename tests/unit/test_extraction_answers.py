"""Short answers read with the assistant's question they answer."""

from __future__ import annotations

import pytest

from mnemo.services.extraction.answers import answered


@pytest.mark.parametrize(
    ("question", "answer", "statement"),
    [
        ("Where do you hike?", "Mostly in the Alps.", "Hikes mostly in the Alps"),
        ("Nice! How do you take your coffee?", "haha yes, always black", "Takes coffee always black"),
        ("What do you do for work?", "Nurse.", "Works as a nurse"),
        ("Do you have any pets?", "Yes, two cats.", "Has pets: two cats"),
        ("Do you eat meat?", "Nope.", "Does not eat meat"),
        ("What's your favorite food?", "Sushi", "Favorite food is Sushi"),
        ("Are you vegetarian?", "yes", "Is vegetarian"),
        ("Have you ever been to Japan?", "Yes, twice!", "Has been to Japan: twice"),
        ("How many kids do you have?", "Three.", "Has three kids"),
    ],
)
def test_an_answer_says_what_its_question_asked(question: str, answer: str, statement: str) -> None:
    assert answered(question, answer) == statement


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("How are you today?", "good"),  # not a question about a fact
        ("Do you have any pets?", "Maybe later"),  # neither yes nor no
        ("Where do you hike?", "yes"),  # nothing but yes
        ("Can I help with anything else?", "No"),
    ],
)
def test_an_answer_that_says_nothing_of_its_question_gives_no_statement(question: str, answer: str) -> None:
    assert answered(question, answer) is None
