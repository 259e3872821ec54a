"""What a statement claims (subject, attribute, value), which claims conflict, what a question asks about, and
what says that something changed."""

from __future__ import annotations

import pytest

from mnemo.domain.claims import (
    USER,
    Claim,
    asked_facets,
    claims,
    clauses,
    facets,
    may_be_about,
    mentions,
    says_a_change,
    subject_of,
)


def said(text: str) -> set[tuple[str, str, str, bool]]:
    return {(c.subject, c.attribute, c.value, c.negated) for c in claims(text)}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I live in Paris.", {(USER, "residence", "paris", False)}),
        ("I moved from Paris to Lisbon in spring 2024.", {(USER, "residence", "lisbon", False)}),
        (
            "I quit Google and joined Stripe.",
            {(USER, "employer", "stripe", False), (USER, "employer", "google", True)},
        ),
        (
            "I'm a backend engineer at Google in Zurich.",
            {(USER, "employer", "google", False), (USER, "occupation", "engineer", False)},
        ),
        ("Works as a nurse", {(USER, "occupation", "nurse", False)}),
        ("I'm not vegetarian anymore", {(USER, "diet", "vegetarian", True)}),
        ("I eat everything, no restrictions", {(USER, "diet", "omnivore", False)}),
        ("I got engaged last weekend!", {(USER, "relationship", "engaged", False)}),
        ("I'm 34 years old", {(USER, "age", "34", False)}),
        ("Name is Alice", {(USER, "name", "alice", False)}),
        ("My favourite colour is green now", {(USER, "favorite colour", "green", False)}),
        ("My favorite color is green now", {(USER, "favorite color", "green", False)}),
        ("My sister Emma lives in Berlin.", {("my sister emma", "residence", "berlin", False)}),
        ("I don't like coffee anymore", {(USER, "likes coffee", "yes", True)}),
        ("I love hiking in the Alps", set()),
        ("I'm 5 minutes late", set()),
    ],
)
def test_what_a_statement_claims(text: str, expected: set[tuple[str, str, str, bool]]) -> None:
    assert said(text) == expected


def test_claims_conflict_with_another_value_or_a_denial_of_the_same_one() -> None:
    paris, lisbon = Claim(USER, "residence", "paris"), Claim(USER, "residence", "lisbon")
    google, left_google = Claim(USER, "employer", "google"), Claim(USER, "employer", "google", negated=True)
    assert lisbon.conflicts(paris) and paris.conflicts(lisbon)
    assert left_google.conflicts(google) and google.conflicts(left_google)
    assert not paris.conflicts(paris)
    assert not Claim(USER, "employer", "stripe", negated=True).conflicts(google)
    assert not Claim("my sister", "residence", "oslo").conflicts(paris)  # another subject
    assert Claim("my sister emma", "residence", "oslo").conflicts(Claim("my sister", "residence", "berlin"))
    assert not Claim("my sister emma", "residence", "oslo").conflicts(Claim("my sister lucy", "residence", "rome"))


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("Where does Alice live?", ["residence"]),
        ("Where do I work?", ["employer"]),
        ("What does Dan do for a living?", ["occupation", "employer"]),
        ("What is my name?", ["name"]),
        ("Am I vegetarian?", ["diet"]),
        ("How old is Carol?", ["age"]),
        ("What's my favorite color?", ["favorite color"]),
        ("When is my birthday?", []),
    ],
)
def test_what_a_question_asks_about(question: str, expected: list[str]) -> None:
    assert asked_facets(question) == expected


def test_facets_are_the_attributes_of_the_user_or_of_the_person_named() -> None:
    assert facets("I quit Google and joined Stripe, I live in Zurich") == ["employer", "residence"]
    assert facets("My sister Emma lives in Berlin") == ["my sister emma residence"]
    assert facets("I love hiking") == []


@pytest.mark.parametrize(
    ("text", "changed"),
    [
        ("I moved to Lisbon in March", True),
        ("I'm not vegan anymore", True),
        ("I quit smoking in January", True),
        ("Laura left, my new manager is Ben", True),
        ("Our dog passed away last week", True),
        ("I'm freelancing now", True),
        ("I bought a new lead for my dog", False),
        ("I moved my desk next to the window", False),
        ("I changed the tyres last week", False),
        ("I live in Lisbon", False),
    ],
)
def test_what_says_that_something_changed(text: str, changed: bool) -> None:
    assert says_a_change(text) is changed


def test_whom_a_statement_is_about() -> None:
    assert subject_of("My sister Emma is a nurse") == "my sister emma"
    assert subject_of("My sister is a nurse") == "my sister"
    assert subject_of("My favorite food is sushi") == USER
    assert may_be_about("my girlfriend wants a cat and I'm not a cat person", USER)
    assert not may_be_about("My sister lives in Oslo", USER)
    assert mentions("Laura left, my new manager is Ben", "my manager laura")
    assert not mentions("I moved to Bergen", "my sister")


def test_the_clauses_of_a_statement() -> None:
    assert clauses("I'm a designer at an agency in Paris and I'm learning typography") == [
        "I'm a designer at an agency in Paris",
        "I'm learning typography",
    ]
    assert clauses("I'm vegan") == ["I'm vegan"]
