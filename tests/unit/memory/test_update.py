"""An update of one memory (services/memory/update.py)."""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

import numpy as np
import pytest

from mnemo.domain.memory import Event
from mnemo.errors import ConflictError, NotFoundError, ValidationError
from mnemo.services.commands import UpdateCommand
from mnemo.services.memory.add.categorizing import Categorizing
from mnemo.services.memory.policy import AddPolicy
from mnemo.services.memory.update import Updating
from tests.unit.memory.fakes import Namespace


def updating(ns: Namespace) -> Updating:
    return Updating(ns.parts, Categorizing(ns.parts))


def test_a_new_text_is_stored_embedded_and_indexed_its_history_keeping_the_old_one(ns: Namespace) -> None:
    tea = ns.put("Likes tea", categories=("drinks",))

    updated = updating(ns).update(UpdateCommand(tea.id, text="  Likes green tea  "))

    assert (updated.text, updated.categories) == ("Likes green tea", ("drinks",))
    history = ns.store.history(tea.id)[-1]
    assert (history.event, history.old_memory, history.new_memory) == (Event.UPDATE, "Likes tea", "Likes green tea")
    (_, vectors), *_ = list(ns.store.scan())
    assert np.allclose(vectors[0], ns.parts.embed(["Likes green tea"])[0], atol=1e-3)


def test_metadata_is_merged_without_identity_and_expiry_and_time_are_set(ns: Namespace) -> None:
    tea = ns.put("Likes tea", metadata={"a": 1})
    at = datetime(2024, 1, 1, tzinfo=UTC)

    updated = updating(ns).update(
        UpdateCommand(tea.id, metadata={"b": 2, "user_id": "eve"}, expiration_date=date(2030, 1, 1), created_at=at)
    )

    assert (updated.metadata, updated.expiration_date, updated.created_at) == ({"a": 1, "b": 2}, date(2030, 1, 1), at)
    assert updated.text == "Likes tea"


def test_under_the_filing_policy_a_new_text_is_filed_anew(make_namespace: Any) -> None:
    ns = make_namespace(policy=AddPolicy(categorize=True))
    tea = ns.put("Likes tea", categories=("drinks",))
    command = UpdateCommand(tea.id, text="Booked flights and hotels", custom_categories=(("travel", "flights hotels"),))
    assert updating(ns).update(command).categories == ("travel",)


@pytest.mark.parametrize(
    ("command", "error"),
    [
        (UpdateCommand("x"), ValidationError),
        (UpdateCommand("x", text="   "), ValidationError),
        (UpdateCommand("no-such-id", text="Likes tea"), NotFoundError),
    ],
)
def test_an_update_that_cannot_be_made_is_refused(ns: Namespace, command: UpdateCommand, error: type) -> None:
    with pytest.raises(error):
        updating(ns).update(command)


def test_an_immutable_memory_is_never_updated(ns: Namespace) -> None:
    tea = ns.put("Likes tea", immutable=True)
    with pytest.raises(ConflictError):
        updating(ns).update(UpdateCommand(tea.id, text="Likes coffee"))
    assert ns.memories()["Likes tea"].id == tea.id
