"""The labelled conversations of bench/data/memory_quality/ and the rules that say whether a stored memory states a
labelled fact.

One JSON file per user: the user's conversations in time order and the facts of theirs that change. Each
conversation lists its messages, the gold facts a good memory service stores from it, the acceptable extras (fine to
store, not required) and the people it names (for the pronoun check). A fact's rule is keywords: every `required`
group must be present (a group lists alternatives), no `forbidden` alternative may be; see `Rule`.
bench/README.md describes every field.
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass
from datetime import datetime
from functools import cached_property
from pathlib import Path
from typing import Any, Literal

DATA = Path(__file__).resolve().parent.parent / "data" / "memory_quality"
Split = Literal["eval", "tune", "dev", "holdout", "blind", "blind2", "blind3", "blind4"]
FactKind = Literal["gold", "acceptable"]
PERSONS = ("third", "first")


def normalize(text: str) -> str:
    """Lower case, accents and curly quotes folded, white space collapsed: what rules are matched against."""
    folded = unicodedata.normalize("NFKD", text.replace("’", "'").replace("‘", "'"))
    plain = "".join(c for c in folded if not unicodedata.combining(c))
    return " ".join(plain.lower().split())


def _word(word: str) -> str:
    return re.escape(word[:-1]) + r"\w*" if word.endswith("*") else re.escape(word)


def _pattern(alternative: str) -> str:
    """An alternative as a regular expression: a word or phrase at word boundaries, where a word ending in `*` may go
    on (`teach*`: teach, teacher, teaching; `work* from home`: works from home)."""
    plain = normalize(alternative)
    body = r"\s+".join(_word(w) for w in plain.split(" "))
    start = r"(?<!\w)" if plain[:1].isalnum() else ""
    end = "" if plain.endswith("*") or not plain[-1:].isalnum() else r"(?!\w)"
    return start + body + end


@dataclass(frozen=True)
class Rule:
    """Whether a text states a fact: every required group has an alternative in it, and no forbidden one is."""

    required: tuple[tuple[str, ...], ...]
    forbidden: tuple[str, ...] = ()

    @cached_property
    def _compiled(self) -> tuple[tuple[re.Pattern[str], ...], re.Pattern[str] | None]:
        groups = tuple(re.compile("|".join(_pattern(a) for a in group)) for group in self.required)
        forbidden = re.compile("|".join(_pattern(a) for a in self.forbidden)) if self.forbidden else None
        return groups, forbidden

    def matches(self, text: str) -> bool:
        groups, forbidden = self._compiled
        plain = normalize(text)
        if forbidden is not None and forbidden.search(plain):
            return False
        return all(group.search(plain) for group in groups)

    @classmethod
    def of(cls, raw: dict[str, Any]) -> Rule:
        return cls(tuple(tuple(group) for group in raw["required"]), tuple(raw.get("forbidden", ())))


@dataclass(frozen=True)
class DateLabel:
    """A relative date of the conversation (`phrase`) and what it resolves to against the conversation's time:
    `YYYY-MM-DD`, `YYYY-MM` (a week or month) or `YYYY` (a season)."""

    phrase: str
    resolved: str


@dataclass(frozen=True)
class Fact:
    user_id: str
    key: str
    text: str  # how a good memory service would put it
    rule: Rule
    kind: FactKind
    conversation_id: str
    examples: tuple[str, ...] = ()  # other phrasings the rule must accept
    counterexamples: tuple[str, ...] = ()  # phrasings it must refuse (what the issue calls junk, the old value)
    about: str | None = None  # the third person the fact is about (not the user)
    context: bool = False  # needs an assistant turn to be understood ("Where do you hike?" / "Mostly in the Alps.")
    date: DateLabel | None = None

    @property
    def uid(self) -> str:
        return f"{self.user_id}/{self.key}"


@dataclass(frozen=True)
class Person:
    """Someone a conversation names, with the pronouns that stand for them: a memory with one of those pronouns and
    none of these words has lost its subject."""

    name: str | None
    relation: str | None
    aliases: tuple[str, ...]
    pronouns: tuple[str, ...]

    @property
    def words(self) -> tuple[str, ...]:
        return tuple(w for w in (self.name, self.relation, *self.aliases) if w)


@dataclass(frozen=True)
class Message:
    role: str
    content: str


@dataclass(frozen=True)
class Conversation:
    id: str
    user_id: str
    time: datetime
    messages: tuple[Message, ...]
    gold: tuple[Fact, ...]
    acceptable: tuple[Fact, ...]
    people: tuple[Person, ...]


@dataclass(frozen=True)
class Probe:
    person: str  # "third" ("Where does Alice live?") or "first" ("Where do I live?")
    question: str


@dataclass(frozen=True)
class Change:
    """A fact of a user that changed: the facts it replaced (`outdated`), the one true now (`current`), and the
    questions that ask for it."""

    user_id: str
    key: str
    outdated: tuple[str, ...]
    current: str
    probes: tuple[Probe, ...]

    @property
    def uid(self) -> str:
        return f"{self.user_id}/{self.key}"


@dataclass(frozen=True)
class Dataset:
    conversations: tuple[Conversation, ...]  # in time order
    changes: tuple[Change, ...]
    names: dict[str, str]  # user id -> first name

    @cached_property
    def facts(self) -> dict[str, Fact]:
        """Every gold fact and acceptable extra by uid."""
        return {f.uid: f for c in self.conversations for f in (*c.gold, *c.acceptable)}

    @cached_property
    def gold(self) -> tuple[Fact, ...]:
        return tuple(f for c in self.conversations for f in c.gold)

    def facts_of(self, user_id: str) -> tuple[Fact, ...]:
        return tuple(f for f in self.facts.values() if f.user_id == user_id)

    @cached_property
    def conversation_by_id(self) -> dict[str, Conversation]:
        return {c.id: c for c in self.conversations}

    @property
    def users(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(c.user_id for c in self.conversations))


def _fact(raw: dict[str, Any], user_id: str, conversation_id: str, kind: FactKind) -> Fact:
    date = raw.get("date")
    return Fact(
        user_id=user_id,
        key=raw["key"],
        text=raw["text"],
        rule=Rule.of(raw),
        kind=kind,
        conversation_id=conversation_id,
        examples=tuple(raw.get("examples", ())),
        counterexamples=tuple(raw.get("counterexamples", ())),
        about=raw.get("about"),
        context=bool(raw.get("context", False)),
        date=DateLabel(date["phrase"], date["resolved"]) if date else None,
    )


def _person(raw: dict[str, Any]) -> Person:
    return Person(raw.get("name"), raw.get("relation"), tuple(raw.get("aliases", ())), tuple(raw["pronouns"]))


def _conversation(raw: dict[str, Any], user_id: str) -> Conversation:
    cid = raw["id"]
    return Conversation(
        id=cid,
        user_id=user_id,
        time=datetime.fromisoformat(raw["time"]),
        messages=tuple(Message(m["role"], m["content"]) for m in raw["messages"]),
        gold=tuple(_fact(f, user_id, cid, "gold") for f in raw["gold"]),
        acceptable=tuple(_fact(f, user_id, cid, "acceptable") for f in raw.get("acceptable", ())),
        people=tuple(_person(p) for p in raw.get("people", ())),
    )


def _change(raw: dict[str, Any], user_id: str) -> Change:
    probes = tuple(Probe(p["person"], p["question"]) for p in raw["probes"])
    return Change(user_id, raw["key"], tuple(raw["outdated"]), raw["current"], probes)


def first_users(dataset: Dataset, count: int) -> Dataset:
    """The dataset of the split's first `count` users (by their first conversation), each with every conversation
    and change of theirs: a smaller run that still asks every probe of the users it keeps."""
    if count < 1:
        raise ValueError("count must be at least 1")
    kept = set(dataset.users[:count])
    return Dataset(
        tuple(c for c in dataset.conversations if c.user_id in kept),
        tuple(c for c in dataset.changes if c.user_id in kept),
        {uid: name for uid, name in dataset.names.items() if uid in kept},
    )


def read_users(directory: Path = DATA) -> list[dict[str, Any]]:
    """The raw user files, as written."""
    return [json.loads(path.read_text(encoding="utf-8")) for path in sorted(directory.glob("*.json"))]


def load(split: Split = "eval", directory: Path = DATA) -> Dataset:
    """The conversations (in time order) and changes of one split."""
    conversations: list[Conversation] = []
    changes: list[Change] = []
    names: dict[str, str] = {}
    for user in read_users(directory):
        if user["split"] != split:
            continue
        uid = user["user_id"]
        names[uid] = user["name"]
        conversations += [_conversation(c, uid) for c in user["conversations"]]
        changes += [_change(c, uid) for c in user.get("changes", ())]
    conversations.sort(key=lambda c: c.time)
    return Dataset(tuple(conversations), tuple(changes), names)
