"""The people a conversation names, and the pronouns that stand for them.

A person is named as someone's relation ("my sister Emma", "Emma, my sister", "my boss", "your brother Tom" in the
assistant's words) or by a name given as theirs ("my sister is called Emma"); a pet also as "a kitten", "a dog …
called Pita". A name the conversation has not named yet, opening a sentence with a verb only a person (or a pet) is
the subject of ("Lily is obsessed with horses", "Inês will love that"), is the name of the latest relation named
without one ("my daughter"). A sentence that opens with a third
person pronoun ("She's a nurse.", "Her husband cooks.") is about the last person named that the pronoun can stand
for: it is rewritten with them as its subject ("My sister Emma is a nurse."). One that opens so while nobody fits is
not the user's fact: the extractor drops it."""

from __future__ import annotations

import re
from dataclasses import dataclass

from mnemo.language.en.claim_patterns import FEMALE, MALE, PLURAL, RELATIONS

_RELATION = "|".join(sorted((re.escape(r) for r in RELATIONS), key=len, reverse=True))
_NAME = r"[A-ZÀ-Þ][a-zß-ÿ'’-]+"
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
_NOT_NAMES = frozenset(
    """What Who Where When Why How Which Is Are Was Were Do Does Did The A An And But So It This That There Here
    Then Also Just Still Maybe Yes No Ok Okay Sure Thanks Well Oh""".split()
)
PETS = frozenset("dog cat puppy kitten pet".split())
_NOT_NAMES_LOWER = frozenset(w.lower() for w in _NOT_NAMES) | frozenset(
    "she he they we you i it someone everyone nobody everybody somebody mine yours".split()
)
_PET = re.compile(
    rf"\b(?i:an?)\s+(?:[a-z-]+\s+)?(?P<relation>(?i:{'|'.join(sorted(PETS))}))\b"
    rf"(?:[^.!?]*?\b(?i:called|named)\s+(?P<name>{_NAME}))?"
)
# A name opening a sentence with what only a person (or a pet) does: "Lily is obsessed with horses".
_STATES = r"(?:really\s+|so\s+)?(?:obsessed|into|allergic|scared|afraid|crazy|mad|turning|learning|starting|studying)"
_NAMED_SUBJECT = re.compile(
    r"^(?P<name>[A-Za-zÀ-Þß-ÿ][a-zß-ÿ-]*)(?i:\s+(?:(?:will|would)\s+\w+|loves|likes|hates|adores|wants|thinks|says|said|"
    rf"enjoys|prefers|needs|misses|knows|cried|laughed|told|is\s+{_STATES}|has\s+been|got\s+(?:me|us|a|an|the))|"
    rf"['’](?:ll\s+\w+|s\s+{_STATES}))\b"
)
_SUBJECT = {"she": "she", "he": "he", "they": "they"}
_POSSESSIVE = {"her": "she", "his": "he", "their": "they"}
_LEADING = re.compile(
    r"^(?P<word>she|he|they|her|his|their)(?P<rest>(?:['’](?:s|d|ll|re|ve))?\b.*)$", re.IGNORECASE | re.S
)
_TYPED = re.compile(r"^(?P<word>shes|hes|theyre)\b", re.IGNORECASE)  # "hes a chef": as typed, without apostrophe
# A name typed in lower case after a relation ("my sister marta is getting married"): a word that is no common word,
# followed by what follows a name (a verb, a comma, the end) when it could be a verb itself ("jonas lives", not
# "lives in").
_LOWER_NAMED = re.compile(
    rf"\b(?i:(?:my|your|our)\s+(?:(?:best|older|younger|little|big|baby)\s+)?(?P<relation>{_RELATION}))\s+"
    r"(?P<name>[a-zß-ÿ][a-zß-ÿ'’-]+)(?P<after>\s*(?:[,.!?;)]|$)|\s+[\w'’]+)?"
)
_COMMON_AFTER = frozenset(
    """is was are were has had have will would can could should might must may did does do also just still always
    never really too who that which and or but so because when while if then lives works says said wants needs
    thinks keeps gets goes loves likes hates plays makes takes comes seems looks feels knows tells calls barks
    sleeps runs starts moves studies teaches reads writes eats drinks cooks drives uses misses gives sends asks
    helps turns walks talks watches visits live work say want need think keep get go love like hate play make
    take come seem look feel know tell call sleep run start move study teach read write eat drink cook drive use
    miss give send ask help turn walk talk watch visit got went came moved started left died passed called named
    told asked
    bought sold found broke fell ran won lost made took gave kept sent spent and the a an to in on at for with from
    of about than like as up out over back home here there now today tomorrow yesterday again anymore very
    not""".split()
)
_VERBISH_AFTER = re.compile(r"^\s*(?:[,.!?;)]|$)|^\s+(?:is|was|has|had|will|would|can|and|just|\w+s|\w+ed)\b", re.I)


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
        for pattern in _MENTIONS:
            for mention in pattern.finditer(sentence):
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
            expanded = {"shes": "she's", "hes": "he's", "theyre": "they're"}[typed.group("word").lower()]
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


_KIN_OPENING = re.compile(r"^(?P<kin>mum|mom|mother|dad|father|grandma|grandpa|granny|nana)(?=['’]s\b|\s)", re.I)


def with_owner(sentence: str) -> str:
    """A sentence opening with a parent named without "my" ("mum's wrist is healed") said as the user's ("My mum's
    wrist is healed"); unchanged otherwise."""
    match = _KIN_OPENING.match(sentence)
    if match is None:
        return sentence
    return f"My {match.group('kin').lower()}{sentence[match.end() :]}"
