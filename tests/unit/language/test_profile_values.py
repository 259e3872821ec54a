"""The values a profile property asks for, read from the user's statements by the English pack
(mnemo.language.en.profile_values): which kind of value a property asks for, and the value a statement states."""

from __future__ import annotations

import pytest

from mnemo.language import ProfileValues
from mnemo.language.en.profile_values import EnglishProfileValues

VALUES: ProfileValues = EnglishProfileValues()


@pytest.mark.parametrize(
    ("name", "description", "kind"),
    [
        ("location", "Where the user lives", "home_city"),
        ("city", "The city where the user lives", "home_city"),
        ("homeCity", "", "home_city"),
        ("occupation", "The user's job or profession", "occupation"),
        ("job", "", "occupation"),
        ("employer", "The company the user works for", "employer"),
        ("pet_name", "The name of the user's pet", "pet_name"),
        ("dog", "What the user's dog is called: its name", "pet_name"),
        ("favourite_food", "The food the user likes most", None),
        ("name", "The user's full name", None),
    ],
)
def test_the_kind_a_property_asks_for_is_read_from_its_name_and_description(
    name: str, description: str, kind: str | None
) -> None:
    assert VALUES.value_kind(name, description) == kind


@pytest.mark.parametrize(
    ("kind", "text", "value"),
    [
        ("home_city", "I live in Lisbon since last spring", "Lisbon"),
        ("home_city", "Lives in Lisbon.", "Lisbon"),
        ("home_city", "I moved to Porto last month", "Porto"),
        ("home_city", "The user currently lives in New York City with two flatmates", "New York City"),
        ("home_city", "We relocated to Stoke on Trent", "Stoke on Trent"),
        ("occupation", "I work as a nurse", "nurse"),
        ("occupation", "Works as a software engineer at Acme", "software engineer"),
        ("occupation", "My job is a bus driver, since 2019", "bus driver"),
        ("occupation", "I'm a carpenter by trade", "carpenter"),
        ("employer", "I work at Acme Corp", "Acme Corp"),
        ("employer", "I just joined Stripe", "Stripe"),
        ("employer", "Works for Google in Zurich", "Google"),
        ("pet_name", "My dog is called Rex", "Rex"),
        ("pet_name", "I have a cat named Miso", "Miso"),
        ("pet_name", "Our puppy's name is Biscuit.", "Biscuit"),
    ],
)
def test_a_statement_of_the_users_gives_the_value_not_the_sentence(kind: str, text: str, value: str) -> None:
    assert VALUES.stated_value(kind, text) == value


@pytest.mark.parametrize(
    ("kind", "text"),
    [
        ("home_city", "My sister lives in Porto"),  # someone else's
        ("home_city", "I love travelling"),
        ("occupation", "I work from home on Fridays"),
        ("occupation", "My brother works as a pilot"),
        ("employer", "I work for a start-up"),  # no name to give
        ("pet_name", "I have two cats"),
        ("unknown-kind", "I live in Lisbon"),
    ],
)
def test_a_statement_that_states_no_value_of_the_kind_gives_none(kind: str, text: str) -> None:
    assert VALUES.stated_value(kind, text) is None
