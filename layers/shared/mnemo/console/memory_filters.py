"""What the memory pages filter by, read from the query string: the user, agent, app and run ids (each held to the
API's id rule; `*` for any), the lifecycle states shown, the page, and a search query. One value, so the list,
the search, the delete by filter and their links all speak of the same selection."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from mnemo.api.limits import MAX_NAME
from mnemo.api.parsing import clean_id
from mnemo.domain import filters as f
from mnemo.domain.memory import ACTIVE_ONLY, LifecycleState
from mnemo.errors import ValidationError
from mnemo.services.platform.memories import filters as pf

ENTITY_LABELS = (("user_id", "User"), ("agent_id", "Agent"), ("app_id", "App"), ("run_id", "Run"))
STATE_CHOICES = (("active", "Active only"), ("all", "Every state (superseded, merged, outdated too)"))
PAGE_SIZE = 20
MAX_PAGE = 10_000
MAX_QUERY = 1_000  # characters of a search query


@dataclass(frozen=True, slots=True)
class MemoryFilters:
    ids: dict[str, str]  # the entity ids given (a value or "*")
    states: str  # "active" or "all"
    page: int
    query: str

    @classmethod
    def of(cls, params: Mapping[str, str]) -> MemoryFilters:
        ids = {}
        for name, _label in ENTITY_LABELS:
            value = (params.get(name) or "").strip()
            if value:
                if len(value) > MAX_NAME:
                    raise ValidationError(f"{name} has at most {MAX_NAME} characters.")
                ids[name] = value if value == "*" else str(clean_id(name, value))
        states = params.get("states") or "active"
        if states not in dict(STATE_CHOICES):
            raise ValidationError("states is active or all.")
        query = (params.get("q") or "").strip()
        if len(query) > MAX_QUERY:
            raise ValidationError(f"A search query has at most {MAX_QUERY} characters.")
        return cls(ids, states, _page(params.get("page")), query)

    @property
    def expr(self) -> f.Expr:
        return pf.parse(dict(self.ids))

    @property
    def lifecycle(self) -> tuple[LifecycleState, ...]:
        return ACTIVE_ONLY if self.states == "active" else tuple(LifecycleState)

    @property
    def offset(self) -> int:
        return (self.page - 1) * PAGE_SIZE

    def link(self, **changes: Any) -> str:
        """This selection's query string, with `changes` (e.g. page=2)."""
        values: dict[str, Any] = {**self.ids, "states": self.states, "page": self.page, "q": self.query, **changes}
        return "?" + urlencode({name: value for name, value in values.items() if value not in ("", None)})


def _page(raw: str | None) -> int:
    if not raw:
        return 1
    if not raw.isdigit() or not 1 <= int(raw) <= MAX_PAGE:
        raise ValidationError(f"page is a whole number from 1 to {MAX_PAGE}.")
    return int(raw)
