"""The people a conversation names, and the pronouns that stand for them.

A person is named as someone's relation ("my sister Emma", "Emma, my sister", "my boss", "your brother Tom" in the
assistant's words) or by a name given as theirs ("my sister is called Emma"). A sentence that opens with a third
person pronoun ("She's a nurse.", "Her husband cooks.") is about the last person named that the pronoun can stand
for: it is rewritten with them as its subject ("My sister Emma is a nurse."). One that opens so while nobody fits is
not the user's fact: the extractor drops it."""

from __future__ import annotations

import re
from dataclasses import dataclass

from mnemo.domain.claims import FEMALE, MALE, PLURAL, RELATIONS

_RELATION = "|".join(sorted((re.escape(r) for r in RELATIONS), key=len, reverse=True))
_NAME = r"[A-Z][a-z'’-]+"
# The relation and the words around it in any case; a name only capitalized (the pattern is case-sensitive).
_MENTIONS = (
    re.compile(
        rf"\b(?i:(?P<owner>my|your|our)\s+(?:(?:best|older|younger|little|big|old|new|baby)\s+)?(?P<relation>{_RELATION}))"
        rf"(?:\s*,?\s+(?P<name>{_NAME})(?!['’]s))?(?!\w)"
    ),
    re.compile(rf"\b(?P<name>{_NAME}),?\s+(?i:(?P<owner>my|your|our)\s+(?P<relation>{_RELATION}))\b"),
)
_CALLED = re.compile(
    rf"\b(?i:(?:my|your|our)\s+(?P<relation>{_RELATION})(?:'s|’s)?\s+(?:name\s+is|is\s+called|is\s+named|called|named))\s+"
    rf"(?P<name>{_NAME})"
)
_NOT_NAMES = frozenset("What Who Where When Why How Which Is Are Was Were Do Does Did The A An And But So".split())
_SUBJECT = {"she": "she", "he": "he", "they": "they"}
_POSSESSIVE = {"her": "she", "his": "he", "their": "they"}
_LEADING = re.compile(
    r"^(?P<word>she|he|they|her|his|their)(?P<rest>(?:['’](?:s|d|ll|re|ve))?\b.*)$", re.IGNORECASE | re.S
)


@dataclass(frozen=True, slots=True)
class Person:
    relation: str | None
    name: str | None
    kind: str  # "she", "he", "they" (plural), or "either"

    @property
    def label(self) -> str:
        """How a memory names them: "my sister Emma", "my boss", "Emma"."""
        if self.relation is None:
            return self.name or ""
        return f"my {self.relation}" + (f" {self.name}" if self.name else "")

    def fits(self, pronoun: str) -> bool:
        if pronoun == "they":
            return self.kind == "they"
        return self.kind in (pronoun, "either")


def _kind(relation: str | None) -> str:
    word = (relation or "").lower()
    if word in FEMALE:
        return "she"
    if word in MALE:
        return "he"
    if word in PLURAL:
        return "they"
    return "either"


class People:
    """The people named so far in one conversation, the latest last."""

    def __init__(self) -> None:
        self._named: list[Person] = []

    def observe(self, sentence: str) -> None:
        """Note the people the sentence names (in its speaker's words: the assistant's "your" is the user's "my")."""
        for called in _CALLED.finditer(sentence):
            self._note(Person(called.group("relation").lower(), called.group("name"), _kind(called.group("relation"))))
        for pattern in _MENTIONS:
            for mention in pattern.finditer(sentence):
                relation = mention.group("relation").lower()
                name = mention.group("name")
                if name is not None and name in _NOT_NAMES:
                    name = None
                self._note(Person(relation, name, _kind(relation)))

    def _note(self, person: Person) -> None:
        """The person, now the latest named: the same relation named again (with its name, or without one) is the
        same person, kept with the name it has."""
        for i, known in enumerate(self._named):
            same = known.relation == person.relation and (
                None in (known.name, person.name) or known.name == person.name
            )
            if same:
                del self._named[i]
                self._named.append(person if person.name else known)
                return
        self._named.append(person)

    def introduce(self, sentence: str) -> str:
        """The sentence with a person it names by name alone ("Luc is a mountain guide") named with their relation
        too ("My brother Luc is a mountain guide"), so that the memory says whom it is about."""
        for person in reversed(self._named):
            if not person.name or person.relation is None:
                continue
            bare = re.search(rf"(?<![\w-])(?<!{re.escape(person.relation)} ){re.escape(person.name)}\b", sentence)
            if bare is None or re.search(rf"\b{re.escape(person.relation)}\b", sentence, re.IGNORECASE):
                continue
            label = person.label if bare.start() else person.label[:1].upper() + person.label[1:]
            return sentence[: bare.start()] + label + sentence[bare.end() :]
        return sentence

    def names_someone(self, sentence: str) -> bool:
        """Whether the sentence names, by name, someone the conversation named as the user's ("Emma got the job.")."""
        return any(p.name and re.search(rf"\b{re.escape(p.name)}\b", sentence) for p in self._named)

    def resolve(self, sentence: str) -> str | None:
        """The sentence with a leading third person pronoun replaced by the person it stands for; unchanged when it
        opens otherwise; None when it opens with a pronoun nobody named fits."""
        match = _LEADING.match(sentence)
        if match is None:
            return sentence
        word = match.group("word").lower()
        pronoun = _SUBJECT.get(word) or _POSSESSIVE[word]
        person = next((p for p in reversed(self._named) if p.fits(pronoun)), None)
        if person is None:
            return None
        rest = match.group("rest")
        label = person.label[:1].upper() + person.label[1:]
        if word in _POSSESSIVE:
            return f"{label}'s{rest}"
        return f"{label}{_verb_after(rest, plural=person.kind == 'they')}"


def _verb_after(rest: str, *, plural: bool) -> str:
    """The rest of the sentence after its pronoun, with a contraction written out for the new subject."""
    contractions = {"'s": " is", "’s": " is", "'d": " would", "’d": " would", "'ll": " will", "’ll": " will"}
    for short, long in contractions.items():
        if rest.lower().startswith(short):
            return long + rest[len(short) :]
    for short in ("'re", "’re"):
        if rest.lower().startswith(short):
            return (" are" if plural else " is") + rest[len(short) :]
    for short in ("'ve", "’ve"):
        if rest.lower().startswith(short):
            return (" have" if plural else " has") + rest[len(short) :]
    return rest
