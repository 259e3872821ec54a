"""The filter expressions the pipelines read with: the memories a read may see (`visible`: lifecycle states, not
expired), the memories of one owner (`scope_expr`), and the active ones among them (`active_in`), which an add
compares its new memories with."""

from __future__ import annotations

from collections.abc import Sequence

from mnemo.domain import filters as f
from mnemo.domain.memory import ACTIVE_ONLY, LifecycleState, Scope, now

ACTIVE = f.Condition("state", "eq", LifecycleState.ACTIVE.value)

Owner = tuple[str | None, str | None, str | None]


def in_states(states: Sequence[LifecycleState]) -> f.Expr:
    if tuple(states) == ACTIVE_ONLY:
        return ACTIVE
    return f.Condition("state", "in", [s.value for s in states])


def visible(filters: f.Expr, show_expired: bool, states: Sequence[LifecycleState] = ACTIVE_ONLY) -> f.Expr:
    """What `filters` match in the lifecycle `states`, and not expired today unless `show_expired`."""
    if show_expired:
        return f.conjoin(filters, in_states(states))
    today = now().date()
    not_expired = f.Or(
        (f.Not(f.Condition("expiration_date", "exists", None)), f.Condition("expiration_date", "gte", today))
    )
    return f.conjoin(filters, in_states(states), not_expired)


def scope_expr(scope: Scope) -> f.Expr:
    """The memories of the same owner: its user, agent and run (any app), or its app when it has nothing else."""
    ids = scope.as_filter()
    if not scope.is_empty():
        ids.pop("app_id", None)
    return f.And(tuple(f.Condition(name, "eq", value) for name, value in ids.items()))


def active_in(scope: Scope) -> f.Expr:
    """The active memories of the scope's owner."""
    return f.conjoin(scope_expr(scope), ACTIVE)


def owner_of(scope: Scope) -> Owner:
    """Whose memory it is: its user, agent and run (its app aside)."""
    return scope.user_id, scope.agent_id, scope.run_id
