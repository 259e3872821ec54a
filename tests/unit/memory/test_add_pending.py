"""An add being made (services/memory/add/pending.py): the categories its memories get, and its new records; and
the metadata an add keeps (services/memory/metadata.py)."""

from __future__ import annotations

from datetime import UTC, date, datetime

from mnemo.language.en import english
from mnemo.services.commands import AddCommand, Message
from mnemo.services.memory.add.pending import PendingAdd, pending, said
from mnemo.services.memory.metadata import strip_identity
from mnemo.services.memory.policy import AddPolicy
from tests.unit.memory.fakes import ALICE

FILING = AddPolicy(categorize=True)
ENGLISH = english()
DEFAULT_CATEGORIES = ENGLISH.default_categories
FOOD = ("food", "what one eats")
MESSAGES = [Message("system", "Be brief about food."), Message("user", "I cook pasta every day.")]


def test_an_imports_categories_are_taken_as_they_are() -> None:
    add = pending(AddCommand(MESSAGES, ALICE, categories=("travel",), custom_categories=(FOOD,)), FILING, ENGLISH)
    assert (add.categories, add.category_set) == (("travel",), ())


def test_under_the_filing_policy_memories_are_filed_under_the_custom_categories_else_the_defaults() -> None:
    assert pending(AddCommand(MESSAGES, ALICE, custom_categories=(FOOD,)), FILING, ENGLISH).category_set == (FOOD,)
    assert pending(AddCommand(MESSAGES, ALICE), FILING, ENGLISH).category_set == DEFAULT_CATEGORIES


def test_without_the_policy_custom_categories_are_matched_by_the_words_of_the_users_messages() -> None:
    cooking = pending(
        AddCommand(MESSAGES, ALICE, custom_categories=(("pasta", ""), ("brief", ""))), AddPolicy(), ENGLISH
    )
    assert cooking.categories == ("pasta",)  # "brief" is only in the system's message
    assert pending(AddCommand(MESSAGES, ALICE), AddPolicy(), ENGLISH) == PendingAdd(AddCommand(MESSAGES, ALICE), ())
    assert said(AddCommand(MESSAGES, ALICE)) == "I cook pasta every day."


def test_a_new_record_carries_what_the_add_says_of_all_its_memories() -> None:
    at = datetime(2025, 1, 2, tzinfo=UTC)
    command = AddCommand(
        MESSAGES, ALICE, metadata={"k": 1}, timestamp=at, expiration_date=date(2030, 1, 1), immutable=True
    )
    add = PendingAdd(command, ("food",))

    record = add.record("Cooks pasta", role="user")
    own = add.record("Cooks pasta", categories=("hobby",))

    assert (record.scope, record.created_at, record.metadata, record.expiration_date) == (
        ALICE,
        at,
        {"k": 1},
        date(2030, 1, 1),
    )
    assert (record.categories, record.immutable, record.role) == (("food",), True, "user")
    assert own.categories == ("hobby",)
    assert record.metadata is not command.metadata  # each record its own copy


def test_identity_fields_are_never_kept_as_metadata() -> None:
    assert strip_identity({"user_id": "x", "app_id": "y", "actor_id": "z", "mood": "good"}) == {"mood": "good"}
    assert strip_identity(None) == {}
