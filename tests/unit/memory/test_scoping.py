"""The filter expressions of the memory pipelines (services/memory/scoping.py), read by the real SQLite store."""

from __future__ import annotations

from datetime import date, timedelta

from mnemo.domain import filters as f
from mnemo.domain.memory import ACTIVE_ONLY, CURRENT_AND_OUTDATED, LifecycleState, Scope
from mnemo.services.memory.scoping import ACTIVE, active_in, in_states, owner_of, scope_expr, visible
from tests.unit.memory.fakes import ALICE, BOB, Namespace

ALICE_FILTER = f.Condition("user_id", "eq", "alice")


def texts(ns: Namespace, expr: f.Expr) -> set[str]:
    return {r.text for r in ns.store.find(expr)}


def test_active_only_is_the_one_condition_and_other_states_are_listed() -> None:
    assert in_states(ACTIVE_ONLY) is ACTIVE
    assert in_states(CURRENT_AND_OUTDATED) == f.Condition("state", "in", ["active", "outdated"])


def test_a_read_sees_the_states_asked_for_and_no_expired_memory_unless_asked(ns: Namespace) -> None:
    # Given an active, an outdated and an expired memory
    ns.put("Lives in Lisbon")
    ns.put("Lives in Paris", state=LifecycleState.OUTDATED)
    ns.put("Has a ticket for May", expiration_date=date.today() - timedelta(days=1))

    # Then a default read sees the active one, and each option adds what it names
    assert texts(ns, visible(ALICE_FILTER, False)) == {"Lives in Lisbon"}
    assert texts(ns, visible(ALICE_FILTER, False, CURRENT_AND_OUTDATED)) == {"Lives in Lisbon", "Lives in Paris"}
    assert texts(ns, visible(ALICE_FILTER, True)) == {"Lives in Lisbon", "Has a ticket for May"}


def test_the_scope_of_an_owner_is_its_user_agent_and_run_in_any_app() -> None:
    assert scope_expr(Scope(user_id="alice", app_id="shop")) == f.And((f.Condition("user_id", "eq", "alice"),))
    assert scope_expr(Scope(app_id="shop")) == f.And((f.Condition("app_id", "eq", "shop"),))
    assert owner_of(Scope(user_id="alice", agent_id="bot", app_id="shop")) == ("alice", "bot", None)


def test_active_in_a_scope_is_its_owners_active_memories(ns: Namespace) -> None:
    ns.put("Lives in Lisbon")
    ns.put("Lives in Paris", state=LifecycleState.OUTDATED)
    ns.put("Lives in Oslo", BOB)
    assert texts(ns, active_in(ALICE)) == {"Lives in Lisbon"}
