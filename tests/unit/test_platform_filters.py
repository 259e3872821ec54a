"""The platform filter grammar: allowed keys and operators, and what they mean."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from mnemo.domain import filters as f
from mnemo.errors import ValidationError
from mnemo.services.platform.memories import filters as pf

DOC: dict[str, Any] = {
    "id": "m1",
    "memory": "Alice loves Vegetable pizza",
    "user_id": "alice",
    "agent_id": None,
    "app_id": "web",
    "run_id": None,
    "categories": ["food", "hobbies"],
    "metadata": {"source": "chat", "mood": "happy"},
    "created_at": datetime(2026, 3, 1, tzinfo=UTC),
    "updated_at": datetime(2026, 3, 2, tzinfo=UTC),
    "expiration_date": None,
}


def holds(raw: dict[str, Any]) -> bool:
    return f.matches(pf.parse(raw), DOC)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ({"user_id": "alice"}, True),
        ({"user_id": "bob"}, False),
        ({"user_id": "*"}, True),
        ({"agent_id": "*"}, False),
        ({"user_id": {"in": ["bob", "alice"]}}, True),
        ({"user_id": {"ne": "alice"}}, False),
        ({"AND": [{"user_id": "alice"}, {"app_id": "web"}]}, True),
        ({"OR": [{"user_id": "bob"}, {"app_id": "web"}]}, True),
        ({"NOT": {"user_id": "alice"}}, False),
        ({"NOT": [{"user_id": "bob"}]}, True),
        ({"user_id": "alice", "created_at": {"gte": "2026-03-01"}}, True),
        ({"user_id": "alice", "timestamp": {"lt": "2026-03-01"}}, False),
        ({"user_id": "alice", "categories": {"in": ["food"]}}, True),
        ({"user_id": "alice", "categories": {"contains": "HOBB"}}, True),
        ({"user_id": "alice", "metadata": {"source": "chat"}}, True),
        ({"user_id": "alice", "metadata": {"mood": {"ne": "happy"}}}, False),
        ({"user_id": "alice", "keywords": {"icontains": "vegetable"}}, True),
        ({"user_id": "alice", "keywords_search": "PIZZA"}, True),
        ({"user_id": "alice", "text": {"contains": "sushi"}}, False),
        ({"user_id": "alice", "memory_ids": ["m2", "m1"]}, True),
        ({"user_id": "alice", "memory_ids": ["m2"]}, False),
    ],
)
def test_the_platform_grammar_means_what_the_reference_says(raw: dict[str, Any], expected: bool) -> None:
    assert holds(raw) is expected


@pytest.mark.parametrize(
    "raw",
    [
        {"user": "alice"},  # not an allowed top-level key
        {"actor_id": "alice"},
        {"user_id": {"nin": ["alice"]}},  # there is no nin
        {"user_id": {"contains": "ali"}},
        {"created_at": {"eq": "2026-03-01"}},  # dates take a bare value for equality
        {"categories": {"eq": "food"}},
        {"metadata": {"k": {"gt": 1}}},
        {"keywords": {"eq": "pizza"}},
        {"memory_ids": "m1"},
        {"AND": {"user_id": "alice"}},
        {"OR": [{"color": "red"}]},  # nested keys are checked too
    ],
)
def test_keys_and_operators_outside_the_grammar_are_rejected(raw: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        pf.parse(raw)


def test_entity_ids_of_an_add_come_from_flat_filters_and_their_and() -> None:
    assert pf.entity_ids({"user_id": "alice", "agent_id": {"eq": "bot"}, "run_id": "*"}) == {
        "user_id": "alice",
        "agent_id": "bot",
    }
    assert pf.entity_ids({"AND": [{"user_id": "alice"}, {"app_id": "web"}]}) == {"user_id": "alice", "app_id": "web"}
    assert pf.entity_ids(None) == {}
