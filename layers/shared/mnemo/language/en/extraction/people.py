"""The people a conversation names, and the pronouns that stand for them.

A person is named as someone's relation ("my sister Emma", "Emma, my sister", "my boss", "your brother Tom" in the
assistant's words) or by a name given as theirs ("my sister is called Emma"); a pet also as "a kitten", "a dog …
called Pita". A name the conversation has not named yet, opening a sentence with a verb only a person (or a pet) is
the subject of ("Lily is obsessed with horses", "Inês will love that"), is the name of the latest relation named
without one ("my daughter"). A sentence that opens with a third person pronoun ("She's a nurse.", "Her husband
cooks.") is about the last person named that the pronoun can stand for: it is rewritten with them as its subject
("My sister Emma is a nurse."). One that opens so while nobody fits is not the user's fact: the extractor drops it.
The words and patterns are data (data/people.toml)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from mnemo.language.en.claim_patterns import FEMALE, MALE, PLURAL
from mnemo.language.en.patterns import pattern
from mnemo.language.en.words import PackDataError, mapping, word_list, word_set

_FILE = "people.toml"
_MENTIONS = (pattern(_FILE, "mention"), pattern(_FILE, "named_mention"))
_CALLED = pattern(_FILE, "called")
_NOT_NAMES = word_set(_FILE, "not_names")
PETS = frozenset(word_list(_FILE, "pets", table="lists"))
_NOT_NAMES_LOWER = frozenset(w.lower() for w in _NOT_NAMES) | word_set(_FILE, "not_names_lower")
_PET = pattern(_FILE, "pet")
# A name opening a sentence with what only a person (or a pet) does: "Lily is obsessed with horses".
_NAMED_SUBJECT = pattern(_FILE, "named_subject")
_SUBJECT = mapping(_FILE, "subjects", str)
_POSSESSIVE = mapping(_FILE, "possessives", str)
_LEADING = pattern(_FILE, "leading")
_TYPED = pattern(_FILE, "typed")  # "hes a chef": as typed, without apostrophe
_TYPED_AS = mapping(_FILE, "typed", str)
# A name typed in lower case after a relation ("my sister marta is getting married"): a word that is no common word,
# followed by what follows a name (a verb, a comma, the end) when it could be a verb itself ("jonas lives", not
# "lives in").
_LOWER_NAMED = pattern(_FILE, "lower_named")
_COMMON_AFTER = word_set(_FILE, "common_after")
_VERBISH_AFTER = pattern(_FILE, "verbish_after")


def _contractions() -> tuple[tuple[str, str, str], ...]:
    """Each contraction after a pronoun, with what it is for one person and for several, in the file's order."""
    found: list[tuple[str, str, str]] = []
    for short, said in mapping(_FILE, "contractions", str).items():
        forms = said.split()
        if len(forms) != 2:
            raise PackDataError(f"mnemo.language.en data/{_FILE}: contraction {short!r} needs two forms")
        found.append((short, forms[0], forms[1]))
    return tuple(found)


_CONTRACTIONS = _contractions()


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

    @property
    def may_take_a_name(self) -> bool:
        """A relation named without a name that a name opening a sentence may be: one person, not a pet."""
        return self.name is None and self.relation not in (None, *PETS) and self.kind != "they"

    def fits(self, pronoun: str) -> bool:
        if pronoun == "they":
            return self.kind == "they"
        return self.kind in (pronoun, "either")


def _a_name(word: str | None) -> str | None:
    """The word as a name, or None when it is a common word capitalized ("What's", "It")."""
    if word is None or re.split(r"['’]", word)[0] in _NOT_NAMES:
        return None
    return word


def _subject_name(sentence: str) -> str | None:
    """The name a sentence opens with as a person's subject ("Lily is obsessed with horses"), or None ("she's really
    into…": a common word, no name)."""
    match = _NAMED_SUBJECT.match(sentence)
    name = _a_name(match.group("name")) if match else None
    if name is not None and name[:1].islower() and not _lower_case_name(name, " is"):
        return None
    return name


def _lower_case_name(word: str, after: str) -> bool:
    """A word after a relation, in lower case, is a name: not a common word, and, when it ends in "s" (a name like
    "jonas", or a verb like "lives"), followed by what follows a subject."""
    if word in _COMMON_AFTER or word in _NOT_NAMES_LOWER or word.endswith(("ed", "ing", "ly", "s'")):
        return False
    return not word.endswith("s") or _VERBISH_AFTER.match(after) is not None


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
        for mentions in _MENTIONS:
            for mention in mentions.finditer(sentence):
                relation = mention.group("relation").lower()
                self._note(Person(relation, _a_name(mention.group("name")), _kind(relation)))
        for lower in _LOWER_NAMED.finditer(sentence):
            relation = lower.group("relation").lower()
            if _kind(relation) != "they" and _lower_case_name(lower.group("name"), lower.group("after") or ""):
                self._note(Person(relation, lower.group("name"), _kind(relation)))
        for pet in _PET.finditer(sentence):
            self._note(Person(pet.group("relation").lower(), _a_name(pet.group("name")), "either"))

    def name_the_unnamed(self, sentence: str) -> None:
        """A name the conversation has not named, opening a sentence as a person's ("Lily is obsessed with horses"):
        the name of the latest relation named without one ("my daughter" -> "my daughter Lily")."""
        name = _subject_name(sentence)
        if name is None or any(p.name == name for p in self._named):
            return
        for i in range(len(self._named) - 1, -1, -1):
            person = self._named[i]
            if person.may_take_a_name:
                self._named[i] = Person(person.relation, name, person.kind)
                return

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
        typed = _TYPED.match(sentence)
        if typed is not None:  # "hes a chef" -> "he's a chef"
            expanded = _TYPED_AS[typed.group("word").lower()]
            sentence = expanded + sentence[typed.end() :]
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
    for short, one, several in _CONTRACTIONS:
        if rest.lower().startswith(short):
            return f" {several if plural else one}" + rest[len(short) :]
    return rest


_KIN_OPENING = pattern(_FILE, "kin_opening")


def with_owner(sentence: str) -> str:
    """A sentence opening with a parent named without "my" ("mum's wrist is healed") said as the user's ("My mum's
    wrist is healed"); unchanged otherwise."""
    match = _KIN_OPENING.match(sentence)
    if match is None:
        return sentence
    return f"My {match.group('kin').lower()}{sentence[match.end() :]}"
