"""The profile generator of a deployment without an LLM: each schema property filled from the memories closest to it.

Each top-level property is embedded as "<name in words>: <description without 'the user'>" ("location: Where
lives"), the user's newest `max_memories` memories in one batch, and their cosine similarity decides. A memory
fills a property only when its similarity reaches `threshold`; what each type then takes:

- string: when the language pack knows the kind of value the property asks for (mnemo.language `ProfileValues`: the
  city where one lives, one's occupation, employer, a pet's name), the value the newest memory that states one
  states ("I live in Lisbon since last spring" -> "Lisbon"), whatever its similarity, or nothing when none does;
  else the text of the most similar memory;
- array (of strings, or of no declared item type): the texts of the `max_items` most similar memories, distinct;
- boolean: only what a memory plainly states: the property's key words (its name without "is", "has", ...)
  appear in the memory; a negation ("not", "no", "never", "non", "n't", ...) among the three words before them
  makes it false, else true; of the memories above the threshold that mention the key words, the newest
  decides, and when it speaks of a change or the past ("used to", "stopped", "anymore", "was", ...) or asks a
  question, the property stays empty;
- number / integer: only a number written in digits in the most similar memory, the only number there, with a
  key word of the property's name or description within three words of it ("Is 34 years old" → age 34);
- object, array of objects, anything else: left empty.

A value the property's own schema rejects (enum, bounds, lengths) is left empty too. What this cannot do: read
meaning the words do not carry (no memory "I don't eat meat" makes `is_vegetarian` true), numbers in words
("two cats"), summaries or merges of several memories into one value, nor tell a memory about someone else ("My
sister lives in Porto") from one about the user when it is the closest to the property.

The threshold was measured on a scripted set of short memories against property descriptions, on both backends of
the embedder (docs/benchmarks/log.md, "The profile generator without an LLM")."""

from __future__ import annotations

import re
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

_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)?", re.UNICODE)
_NUMBER = re.compile(r"(?<![\w.,])[-+]?\d+(?:\.\d+)?(?!\w|[.,]\d)")  # "1,000" and "3rd" are none
_THE_USER = re.compile(r"\b(?:the\s+)?user(?:'s|s')?\b", re.IGNORECASE)
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_NAME_FILLERS = frozenset({"is", "has", "have", "does", "do", "can", "likes", "the", "a", "an", "of", "user"})
_DESCRIPTION_FILLERS = _NAME_FILLERS | frozenset(
    {"in", "on", "at", "to", "for", "or", "and", "with", "what", "which", "where", "who", "how", "whether", "their"}
)
_NEGATIONS = frozenset({"not", "no", "never", "non", "nor", "neither", "without", "none", "nobody"})
_UNSURE = frozenset({"used", "stopped", "quit", "former", "formerly", "anymore", "ex", "was", "were", "might", "maybe"})
_NEAR = 3  # words


@dataclass(frozen=True, slots=True)
class _Match:
    memory: MemoryRecord
    score: float


class _NoValues:
    """No reading of values: every string property takes the text of the most similar memory."""

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
        """`values`: the language pack's reading of the values a property asks for (None: a string property takes
        the text of the most similar memory)."""
        self._embedder = embedder
        self._values: ProfileValues = values or _NoValues()
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
        names = list(properties)
        vectors = self._embedder.embed([_property_text(n, properties[n]) for n in names])
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
        if not profile:
            return ProfileDraft(
                "insufficient_data",
                reason=f"No property could be filled from the memories; empty: {', '.join(names)}.",
            )
        return ProfileDraft("succeeded", profile=profile, sources=sources)

    def _kind(self, name: str, spec: Mapping[str, Any]) -> str | None:
        """The kind of value a string property asks for, when the language pack reads that kind; else None."""
        if _type_of(spec) != "string":
            return None
        description = spec.get("description")
        return self._values.value_kind(name, description if isinstance(description, str) else "")

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
            filled = _boolean(name, matches)
        elif kind in ("number", "integer"):
            filled = _number(name, spec, matches[0], integral=kind == "integer")
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


def _properties(schema: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    properties = schema.get("properties")
    if not isinstance(properties, Mapping):
        return {}
    return {str(k): v for k, v in properties.items() if isinstance(v, Mapping)}


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


def _name_words(name: str) -> list[str]:
    return [w.lower() for w in re.split(r"[\W_]+", _CAMEL.sub(" ", name)) if w]


def _property_text(name: str, spec: Mapping[str, Any]) -> str:
    """What a property is embedded as: its name in words and its description without "the user" (measured: the
    description alone misses "I live in Lisbon" for "Where the user lives", 0.30)."""
    words = " ".join(_name_words(name))
    description = spec.get("description")
    if not isinstance(description, str) or not description.strip():
        return words
    return f"{words}: {' '.join(_THE_USER.sub(' ', description).split())}"


def _key_words(name: str) -> list[str]:
    return [w for w in _name_words(name) if w not in _NAME_FILLERS]


def _tokens(text: str) -> list[str]:
    """Lower-cased words; "don't" and "isn't" become "do not", "is not"; "non-vegetarian" is "non vegetarian"."""
    words: list[str] = []
    for word in _WORD.findall(text.replace("’", "'").lower()):
        if word.endswith("n't"):
            words.extend([word[:-3] or "not", "not"])
        else:
            words.extend(word.split("'"))
    return words


def _same_word(key: str, word: str) -> bool:
    """A memory's word is the key word, or one of its forms ("vegetarians", "smoke" for "smoker")."""
    return word == key or (len(word) >= 4 and len(key) >= 4 and (word.startswith(key) or key.startswith(word)))


def _positions(keys: list[str], words: list[str]) -> list[int] | None:
    """Where each key word appears in the memory's words (its first place), or None when one is missing."""
    found: list[int] = []
    for key in keys:
        place = next((i for i, word in enumerate(words) if _same_word(key, word)), None)
        if place is None:
            return None
        found.append(place)
    return found


def _mentions(keys: list[str], text: str) -> list[str] | None:
    """The memory's words when every key word is among them, else None."""
    words = _tokens(text)
    return words if _positions(keys, words) is not None else None


def _stated(keys: list[str], text: str, words: list[str]) -> bool | None:
    """What a memory that mentions the property plainly states of it: True, False (negated), or None (unsure)."""
    places = _positions(keys, words)
    if places is None or "?" in text or any(w in _UNSURE for w in words):
        return None
    first = min(places)
    before = words[max(0, first - _NEAR) : first]
    return not any(w in _NEGATIONS for w in before)


def _boolean(name: str, matches: list[_Match]) -> tuple[bool, list[str]] | None:
    """The newest memory above the threshold that mentions the property decides; when it is unsure, nothing."""
    keys = _key_words(name)
    if not keys:
        return None
    mentioning = [(m, words) for m in matches if (words := _mentions(keys, m.memory.text)) is not None]
    if not mentioning:
        return None
    newest, words = max(mentioning, key=lambda pair: pair[0].memory.created_at)
    value = _stated(keys, newest.memory.text, words)
    return None if value is None else (value, [newest.memory.id])


def _number(name: str, spec: Mapping[str, Any], best: _Match, *, integral: bool) -> tuple[float, list[str]] | None:
    text = best.memory.text
    numbers = list(_NUMBER.finditer(text))
    if len(numbers) != 1:
        return None
    description = spec.get("description") if isinstance(spec.get("description"), str) else ""
    keys = {w for w in _key_words(name) + _tokens(str(description)) if w not in _DESCRIPTION_FILLERS and len(w) >= 3}
    before = _tokens(text[: numbers[0].start()])[-_NEAR:]
    after = _tokens(text[numbers[0].end() :])[:_NEAR]
    if not any(_same_word(key, word) for key in keys for word in before + after):
        return None
    raw = numbers[0].group()
    value = float(raw)
    if integral:
        if not value.is_integer():
            return None
        return int(value), [best.memory.id]
    return (int(value) if "." not in raw and value.is_integer() else value), [best.memory.id]


def _fits(spec: Mapping[str, Any], value: Any) -> bool:
    """Whether the property's own schema takes the value (enum, bounds, lengths, ...); not when it cannot be read
    alone (a reference to another part of the schema)."""
    try:
        return bool(Draft202012Validator(dict(spec)).is_valid(value))
    except (SchemaError, Unresolvable):
        return False
