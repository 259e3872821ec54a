"""Short answers read with the assistant's question they answer."""

from __future__ import annotations

import pytest

from mnemo.language.en.extraction.answers import answered, object_of, with_object


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
        ("How many days a week can you run?", "4 days", "Runs 4 days a week"),
        ("How many nights in a row do you usually work?", "usually 4 on, 3 off", "Works 4 nights in a row on, 3 off"),
        ("Aww. What kind of dog do you have?", "a golden retriever, Biscuit", "Has dog: a golden retriever, Biscuit"),
        ("What kind of dog is Pita?", "some kind of beagle mix", "Pita is some kind of beagle mix"),
        ("Where are you renting?", "a 1-bedroom in Bushwick, Brooklyn", "Is renting a 1-bedroom in Bushwick, Brooklyn"),
        ("What are you studying?", "computer science at U of T", "Is studying computer science at U of T"),
        ("Are you working on print or mostly screens?", "mostly screens", "Is working on mostly screens"),
        (
            "How are you getting to work now without the car?",
            "metro + a short walk",
            "Is getting to work now without the car metro + a short walk",
        ),
        ("Exciting — what's the new job?", "junior data analyst", "New job is junior data analyst"),
        (
            "Do you play gigs?",
            "sometimes, mostly small bars in Osaka",
            "Plays gigs: sometimes, mostly small bars in Osaka",
        ),
        ("Are you watching your B12?", "yes I take a supplement", "Is watching B12: I take a supplement"),
        ("Do you have a plan?", "not really, I wing it", "Does not have a plan: I wing it"),
        ("What's your manager's name and what's the reason?", "Petr.", "Manager's name is Petr"),
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
        ("How are you feeling?", "exhausted and broke lol"),  # a passing state, not a fact
        ("How are you getting on?", "fine thanks, busy"),
        ("Have you set a quit date?", "not yet"),  # neither yes nor no
        ("Are you working on print or screens?", "haha"),
    ],
)
def test_an_answer_that_says_nothing_of_its_question_gives_no_statement(question: str, answer: str) -> None:
    assert answered(question, answer) is None


def test_an_it_in_a_question_stands_for_what_the_question_before_it_asked_about() -> None:
    previous = "Do you drink coffee in the morning?"
    assert answered("Do you take it black?", "haha yes, always black", previous) == "Takes coffee black: always black"


@pytest.mark.parametrize(
    ("question", "thing"),
    [
        ("Do you drink coffee in the morning?", "coffee"),
        ("Does Sofia eat spicy food?", "spicy food"),
        ("Nice! Do you like your new bike?", "my new bike"),
        ("Do you like it?", None),
        ("Where do you live?", None),
    ],
)
def test_what_a_yes_or_no_question_asks_about(question: str, thing: str | None) -> None:
    assert object_of(question) == thing


def test_an_it_in_the_answer_is_what_the_question_asked_about() -> None:
    assert with_object("she loves it", "Does Sofia eat spicy food?") == "she loves spicy food"
    assert with_object("it is great", "Does Sofia eat spicy food?") == "it is great"  # an opening "it" is left
    assert with_object("I love it", "Where do you live?") == "I love it"
