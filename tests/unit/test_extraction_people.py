"""The people a conversation names, and the pronouns that stand for them."""

from __future__ import annotations

from mnemo.services.extraction.people import People


def people(*sentences: str) -> People:
    known = People()
    for sentence in sentences:
        known.observe(sentence)
    return known


def test_a_pronoun_stands_for_the_last_person_named_that_it_fits() -> None:
    known = people("My sister Emma lives in Berlin.", "My brother Tom is a chef.")
    assert known.resolve("She's a nurse.") == "My sister Emma is a nurse."
    assert known.resolve("He works nights.") == "My brother Tom works nights."
    assert known.resolve("Her husband is Dutch.") == "My sister Emma's husband is Dutch."


def test_a_relation_without_a_name_and_a_name_given_later() -> None:
    known = people("My boss is strict.")
    assert known.resolve("She never smiles.") == "My boss never smiles."
    known.observe("My boss is called Dana.")
    assert known.resolve("He is leaving.") == "My boss Dana is leaving."


def test_the_assistants_your_is_the_users_my() -> None:
    assert people("How is your mother Ana?").resolve("She's better.") == "My mother Ana is better."


def test_they_stands_for_people_only() -> None:
    known = people("My parents live in Porto.")
    assert known.resolve("They're retired.") == "My parents are retired."
    assert people("My sister lives in Porto.").resolve("They're retired.") is None


def test_a_pronoun_nobody_named_fits_is_not_resolved() -> None:
    assert People().resolve("She lives in Berlin.") is None
    assert people("My brother Tom is a chef.").resolve("She lives in Berlin.") is None


def test_a_sentence_opening_otherwise_is_left_as_it_is() -> None:
    known = people("My sister Emma lives in Berlin.")
    assert known.resolve("I visited her.") == "I visited her."
    assert known.resolve("Shelly is my friend.") == "Shelly is my friend."  # not "she"


def test_a_name_of_the_conversation_is_known() -> None:
    known = people("Emma, my sister, lives in Berlin.")
    assert known.names_someone("Emma got the job.")
    assert not known.names_someone("Paris is lovely.")
