"""The profile generator of a deployment without an LLM: each schema property filled from the memories closest to it.

Each top-level property is embedded as the language pack says it (mnemo.language `ProfileWords`: its name in words
and its description, "location: Where lives"), the user's newest `max_memories` memories in one batch, and their
cosine similarity decides. A memory fills a property only when its similarity reaches `threshold`; what each type
then takes:

- string: when the language pack knows the kind of value the property asks for (mnemo.language `ProfileValues`: the
  city where one lives, one's occupation, employer, a pet's name), the value the newest memory that states one
  states ("I live in Lisbon since last spring" -> "Lisbon"), whatever its similarity, or nothing when none does;
  else the text of the most similar memory;
- array (of strings, or of no declared item type): the texts of the `max_items` most similar memories, distinct;
- boolean: only what a memory plainly states, as the pack reads it: of the memories above the threshold that speak
  of the property, the newest decides (true, false, or, when it asks or speaks of a change or the past, nothing);
- number / integer: only a number the most similar memory plainly states of the property, as the pack reads it
  ("Is 34 years old" -> age 34);
- object, array of objects, anything else: left empty.

A value the property's own schema rejects (enum, bounds, lengths) is left empty too. What this cannot do: read
meaning the words do not carry (no memory "I don't eat meat" makes `is_vegetarian` true), numbers in words
("two cats"), summaries or merges of several memories into one value, nor tell a memory about someone else ("My
sister lives in Porto") from one about the user when it is the closest to the property. Without a language pack a
property is embedded as its name and description, and booleans and numbers stay empty.

The threshold was measured on a scripted set of short memories against property descriptions, on both backends of
the embedder (docs/benchmarks/log.md, "The profile generator without an LLM")."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError
from referencing.exceptions import Unresolvable

from mnemo.domain.memory import MemoryRecord
from mnemo.language import ProfileValues
from mnemo.ports.embedder import Embedder
from mnemo.services.platform.profiles.generation import ProfileDraft

DEFAULT_THRESHOLD = 0.34
DEFAULT_MAX_MEMORIES = 500  # the newest; an older memory a newer one repeats adds nothing


@dataclass(frozen=True, slots=True)
class _Match:
    memory: MemoryRecord
    score: float


class _NoLanguage:
    """No language pack: a property is embedded as its name and description, no memory states a boolean or a
    number, and every string property takes the text of the most similar memory."""

    def property_text(self, name: str, description: str) -> str:
        return f"{name}: {description}" if description.strip() else name

    def speaks_of(self, name: str, text: str) -> bool:
        return False

    def stated_truth(self, name: str, text: str) -> bool | None:
        return None

    def stated_number(self, name: str, description: str, text: str) -> str | None:
        return None

    def value_kind(self, name: str, description: str) -> str | None:
        return None

    def stated_value(self, kind: str, text: str) -> str | None:
        return None


class SimilarityProfileGenerator:
    def __init__(
        self,
        embedder: Embedder,
        threshold: float = DEFAULT_THRESHOLD,
        max_items: int = 5,
        *,
        min_memories: int = 1,
        max_memories: int = DEFAULT_MAX_MEMORIES,
        values: ProfileValues | None = None,
    ) -> None:
        """`values`: the language pack's reading of properties and of the values they ask for (None: no language;
        see the module)."""
        self._embedder = embedder
        self._values: ProfileValues = values or _NoLanguage()
        self._threshold = threshold
        self._max_items = max_items
        self._min_memories = max(min_memories, 1)
        self._max_memories = max_memories

    def generate(
        self, schema: Mapping[str, Any], instructions: str | None, memories: Sequence[MemoryRecord]
    ) -> ProfileDraft:
        """`instructions` are for an LLM: this generator cannot follow them and does not try."""
        properties = _properties(schema)
        considered = [m for m in memories[: self._max_memories] if m.text.strip()]
        if len(considered) < self._min_memories:
            return ProfileDraft(
                "insufficient_data",
                reason=f"{len(considered)} memories; at least {self._min_memories} needed for a profile.",
            )
        if not properties:
            return ProfileDraft("insufficient_data", reason="The schema has no properties to fill.")
        profile, sources = self._filled(properties, considered)
        if not profile:
            return ProfileDraft(
                "insufficient_data",
                reason=f"No property could be filled from the memories; empty: {', '.join(properties)}.",
            )
        return ProfileDraft("succeeded", profile=profile, sources=sources)

    def _filled(
        self, properties: Mapping[str, Mapping[str, Any]], considered: Sequence[MemoryRecord]
    ) -> tuple[dict[str, Any], dict[str, list[str]]]:
        """Each property that could be filled, with the ids of the memories it came from."""
        names = list(properties)
        texts = [self._values.property_text(n, _description(properties[n])) for n in names]
        vectors = self._embedder.embed(texts)
        memory_vectors = self._embedder.embed([m.text for m in considered])
        scores = np.asarray(vectors @ memory_vectors.T, dtype=np.float64)
        profile: dict[str, Any] = {}
        sources: dict[str, list[str]] = {}
        for row, name in enumerate(names):
            order = np.argsort(-scores[row], kind="stable")
            matches = [_Match(considered[i], float(scores[row, i])) for i in order if scores[row, i] >= self._threshold]
            kind = self._kind(name, properties[name])
            filled = (
                self._fill(name, properties[name], matches)
                if kind is None
                else self._stated(kind, properties[name], considered)
            )
            if filled is not None:
                profile[name], sources[name] = filled
        return profile, sources

    def _kind(self, name: str, spec: Mapping[str, Any]) -> str | None:
        """The kind of value a string property asks for, when the language pack reads that kind; else None."""
        if _type_of(spec) != "string":
            return None
        return self._values.value_kind(name, _description(spec))

    def _stated(
        self, kind: str, spec: Mapping[str, Any], memories: Sequence[MemoryRecord]
    ) -> tuple[str, list[str]] | None:
        """The value of `kind` the newest memory that states one states, or None when none does (or the property's
        schema rejects it)."""
        for memory in memories:  # newest first: the latest statement of a value wins
            value = self._values.stated_value(kind, memory.text)
            if value is not None:
                return (value, [memory.id]) if _fits(spec, value) else None
        return None

    def _fill(self, name: str, spec: Mapping[str, Any], matches: list[_Match]) -> tuple[Any, list[str]] | None:
        if not matches:
            return None
        kind = _type_of(spec)
        filled: tuple[Any, list[str]] | None = None
        if kind == "string":
            filled = matches[0].memory.text, [matches[0].memory.id]
        elif kind == "array" and _holds_strings(spec):
            filled = self._items(matches)
        elif kind == "boolean":
            filled = self._boolean(name, matches)
        elif kind in ("number", "integer"):
            filled = self._number(name, spec, matches[0], integral=kind == "integer")
        if filled is None or not _fits(spec, filled[0]):
            return None
        return filled

    def _items(self, matches: list[_Match]) -> tuple[list[str], list[str]]:
        texts: list[str] = []
        ids: list[str] = []
        seen: set[str] = set()
        for match in matches:
            key = " ".join(match.memory.text.casefold().split())
            if key in seen:
                continue
            seen.add(key)
            texts.append(match.memory.text)
            ids.append(match.memory.id)
            if len(texts) == self._max_items:
                break
        return texts, ids

    def _boolean(self, name: str, matches: list[_Match]) -> tuple[bool, list[str]] | None:
        """The newest memory above the threshold that speaks of the property decides; when it is unsure, nothing."""
        speaking = [m for m in matches if self._values.speaks_of(name, m.memory.text)]
        if not speaking:
            return None
        newest = max(speaking, key=lambda match: match.memory.created_at)
        value = self._values.stated_truth(name, newest.memory.text)
        return None if value is None else (value, [newest.memory.id])

    def _number(
        self, name: str, spec: Mapping[str, Any], best: _Match, *, integral: bool
    ) -> tuple[float, list[str]] | None:
        """The number the most similar memory plainly states of the property (an integer for `integral`)."""
        raw = self._values.stated_number(name, _description(spec), best.memory.text)
        if raw is None:
            return None
        value = float(raw)
        if integral and not value.is_integer():
            return None
        whole = integral or ("." not in raw and value.is_integer())
        return (int(value) if whole else value), [best.memory.id]


def _properties(schema: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    properties = schema.get("properties")
    if not isinstance(properties, Mapping):
        return {}
    return {str(k): v for k, v in properties.items() if isinstance(v, Mapping)}


def _description(spec: Mapping[str, Any]) -> str:
    description = spec.get("description")
    return description if isinstance(description, str) else ""


def _holds_strings(spec: Mapping[str, Any]) -> bool:
    """An array whose items are strings, or of no declared type (not objects, numbers, tuples)."""
    items = spec.get("items", {})
    return isinstance(items, Mapping) and _type_of(items) in ("string", None)


def _type_of(spec: Mapping[str, Any]) -> str | None:
    """The property's type; of a list of types, the one that is not "null" (None when there are several)."""
    declared = spec.get("type")
    if isinstance(declared, list):
        kinds = [t for t in declared if t != "null"]
        return str(kinds[0]) if len(kinds) == 1 else None
    return str(declared) if isinstance(declared, str) else None


def _fits(spec: Mapping[str, Any], value: Any) -> bool:
    """Whether the property's own schema takes the value (enum, bounds, lengths, ...); not when it cannot be read
    alone (a reference to another part of the schema)."""
    try:
        return bool(Draft202012Validator(dict(spec)).is_valid(value))
    except (SchemaError, Unresolvable):
        return False
