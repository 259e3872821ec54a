"""A query about one user read as their memories are written: "Where does Alice live?" searched as "Where do I
live?" when the search is about Alice's memories (the language pack's `in_first_person`). The user is named by their
id, or by the name a memory of theirs gives ("Name is Alice": a facet lookup of the index)."""

from __future__ import annotations

from mnemo.domain import filters as f
from mnemo.domain.memory import FACETS_FIELD
from mnemo.language import USER
from mnemo.ports.embedder import Vectors
from mnemo.services.memory.parts import MemoryParts

NAME_CANDIDATES = 3  # the user's memories stating a name that are read for it


class FirstPerson:
    def __init__(self, parts: MemoryParts) -> None:
        self._parts = parts

    def read(self, query: str, seen: f.Expr) -> tuple[str, Vectors]:
        """The query and its embedding; when the search is about one user and the query names them (their user id,
        or the name a memory of theirs gives), the query read in the first person, and its embedding."""
        vector = self._parts.embed_query(query)
        users = f.pinned_values(seen, "user_id")
        if users is None or len(users) != 1:
            return query, vector
        (user_id,) = users
        if not self._parts.language.may_name(query, user_id):
            return query, vector
        rewritten = self._parts.language.in_first_person(query, self._names(user_id, vector, query, seen))
        return (query, vector) if rewritten == query else (rewritten, self._parts.embed_query(rewritten))

    def _names(self, user_id: str, vector: Vectors, query: str, seen: f.Expr) -> list[str]:
        """What the user may be called: their id, and the names their memories give them."""
        named = f.conjoin(seen, f.Condition(FACETS_FIELD, "in", ["name"]))
        hits = self._parts.index.search(vector, query, named, NAME_CANDIDATES)
        return [user_id] + [
            c.value
            for record in self._parts.store.get_many([h.memory_id for h in hits]).values()
            for c in self._parts.language.claims(record.text)
            if c.attribute == "name" and c.subject == USER
        ]
