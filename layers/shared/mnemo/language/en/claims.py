"""What a statement claims, as (subject, attribute, value): where one lives, where and as what one works, one's diet,
relationship status, age, name, a favourite, whether one still likes something. Two claims of the same subject and
attribute with different values cannot both be current (`Claim.conflicts`): the one said later replaces the other
(the memory service marks the older memory as likely outdated).

A statement's subject is the user ("I live in Lisbon", "Works as a nurse", "Name is Alice") or a person of theirs
it names at its start ("My sister Emma lives in Berlin"). Values are compared by their words, case aside
("Stripe" = "stripe"). A negated claim ("I'm not vegetarian anymore", "I quit Google") has the value it denies and
`negated`: it conflicts with the affirmed claim of that value.

Only the patterns of mnemo.language.en.claim_patterns (data/claims.toml) are read; a statement they do not match
claims nothing (and replaces nothing). This module keeps the logic: which patterns each claim reads, and what a
match claims."""

from __future__ import annotations

import re
from collections.abc import Callable

from mnemo.language.claims import USER, Claim
from mnemo.language.en.claim_patterns import (
    AGE,
    ALONE,
    BABY_DUE,
    BORN,
    CAR,
    DIED,
    DIET,
    EATS_MEAT,
    EMPLOYER,
    EXPECTING,
    FAVORITE,
    GYM,
    HAS_CHILDREN,
    HAS_PETS,
    HOUSEHOLD,
    LEFT_EMPLOYER,
    LIKES,
    MANAGER,
    MY_PET,
    NAME,
    NAMED,
    NO_GYM,
    NO_PETS,
    NOT_BEINGS,
    NOT_PLACES,
    OCCUPATION,
    OMNIVORE,
    PET_DIED,
    RESIDENCE,
    RESIDENCE_TYPED,
    SHIFTS,
    SOLD_CAR,
    SPORT,
    STATUS,
    STAYS,
    SUBJECT,
    TRAILING,
    WENT_HOME,
    WORKPLACE,
)
from mnemo.language.en.cues import CuedPattern


def normalized(value: str) -> str:
    """A value as claims compare it: lower case, single spaces, without trailing punctuation or "now"/"again"."""
    text = " ".join(value.lower().replace("’", "'").split()).strip(" .,!;:")
    return TRAILING.sub("", text)


Reader = Callable[[str], list[tuple[str, str, bool]]]  # text -> [(attribute, value, negated)]


def _matches(patterns: tuple[CuedPattern, ...], attribute: str, negated: bool = False) -> Reader:
    """A reader of the `value` each of the patterns finds, in the order found in the text."""

    def read(text: str) -> list[tuple[str, str, bool]]:
        found = sorted((m.start(), m.group("value")) for p in patterns for m in p.finditer(text))
        return [(attribute, value, negated) for _, value in found]

    return read


def _stays(text: str) -> list[tuple[str, str, bool]]:
    """Whether a person stays with the user: "staying with us" against "went home"."""
    if STAYS.search(text):
        return [("stays with", "user", False)]
    return [("stays with", "user", True)] if WENT_HOME.search(text) else []


def _children(text: str) -> list[tuple[str, str, bool]]:
    found: list[tuple[str, str, bool]] = []
    if BORN.search(text):
        found += [("expecting", "baby", True), ("children", "any", False)]
    elif EXPECTING.search(text) or BABY_DUE.search(text):
        found.append(("expecting", "baby", False))
    if HAS_CHILDREN.search(text) and ("children", "any", False) not in found:
        found.append(("children", "any", False))
    return found


def _shifts(text: str) -> list[tuple[str, str, bool]]:
    found = []
    for match in SHIFTS.finditer(text):
        value = (match.group("value") or match.group("value2") or "").lower().rstrip("s")
        found.append(("shifts", value, False))
    return found


def _car(text: str) -> list[tuple[str, str, bool]]:
    found = [("car", m.group("value"), False) for m in CAR.finditer(text)]
    return [("car", m.group("value"), True) for m in SOLD_CAR.finditer(text)] + found[-1:]


def _exercise(text: str) -> list[tuple[str, str, bool]]:
    found = [("exercise", "gym", False)] if GYM.search(text) else []
    if NO_GYM.search(text):
        found = [("exercise", "gym", True)]
    return found + [("sport", m.group("value").lower(), False) for m in SPORT.finditer(text)]


def _workplace(text: str) -> list[tuple[str, str, bool]]:
    return [("workplace", value, False) for value, pattern in WORKPLACE if pattern.search(text)][-1:]


def _died(text: str) -> list[tuple[str, str, bool]]:
    """A being of the user's that died is no longer alive ("alive biscuit" denied); a statement that names someone
    (or "my dog") says they are ("Has dog: a golden retriever, Biscuit"), which such a death makes out of date."""
    died = [(f"alive {normalized(_who_died(m))}", "yes", True) for m in DIED.finditer(text)]
    if died:
        return died + ([("pet died", "yes", False)] if PET_DIED.search(text) else [])
    named = {normalized(m.group("value")) for m in NAMED.finditer(text)} | {
        normalized(m.group("value")) for m in MY_PET.finditer(text)
    }
    return [(f"alive {name}", "yes", False) for name in sorted(named) if name not in NOT_BEINGS]


def _who_died(match: re.Match[str]) -> str:
    """The being a death names: by name ("put Biscuit down", "Biscuit died") or as a pet ("our dog died")."""
    return match.group("value") or match.group("value2") or match.group("value3") or ""


def _household(text: str) -> list[tuple[str, str, bool]]:
    found = [("household", m.group("value"), False) for p in HOUSEHOLD for m in p.finditer(text)]
    if ALONE.search(text):
        found.append(("household", "alone", False))
    return found


def _pets(text: str) -> list[tuple[str, str, bool]]:
    if NO_PETS.search(text):
        return [("pets", "any", True)]
    return [("pets", "any", False)] if HAS_PETS.search(text) else []


def _diet(text: str) -> list[tuple[str, str, bool]]:
    found = [("diet", m.group("value").replace(" ", "-"), bool(m.group("neg"))) for m in DIET.finditer(text)]
    if OMNIVORE.search(text):
        found.append(("diet", "omnivore", False))
    for match in EATS_MEAT.finditer(text):  # eating meat again denies every meat-free diet; not eating it affirms one
        found.append(("diet", "vegetarian", not match.group("neg")))
    return found


def _favorite(text: str) -> list[tuple[str, str, bool]]:
    return [(f"favorite {normalized(m.group('thing'))}", m.group("value"), False) for m in FAVORITE.finditer(text)]


def _likes(text: str) -> list[tuple[str, str, bool]]:
    """ "I don't like coffee anymore": a change of what one likes, denied."""
    return [(f"likes {normalized(m.group('value'))}", "yes", True) for m in LIKES.finditer(text)]


READERS: tuple[Reader, ...] = (
    _matches(RESIDENCE, "residence"),
    _matches(RESIDENCE_TYPED, "residence"),
    _matches(EMPLOYER, "employer"),
    _matches(LEFT_EMPLOYER, "employer", negated=True),
    _matches(OCCUPATION, "occupation"),
    _diet,
    _household,
    _pets,
    _stays,
    _children,
    _shifts,
    _car,
    _exercise,
    _died,
    _workplace,
    _matches(MANAGER, "manager"),
    _matches(STATUS, "relationship"),
    _matches(AGE, "age"),
    _matches(NAME, "name"),
    _favorite,
    _likes,
)


def claims(text: str) -> list[Claim]:
    """What the statement claims of its subject (the user, unless it opens with a person of theirs), each claim
    once; the last value of an attribute wins within one statement ("I moved from Paris to Lisbon": Lisbon)."""
    subject = _subject_of(text)
    found: dict[tuple[str, bool], Claim] = {}
    for read in READERS:
        for attribute, value, negated in read(text):
            value_read = normalized(value)
            if attribute == "residence" and NOT_PLACES.match(value_read):
                continue  # "the review moved to Thursday afternoon": a time, not a place
            if value_read:
                found[(attribute, negated)] = Claim(subject, attribute, value_read, negated)
    return list(found.values())


def _subject_of(text: str) -> str:
    """The user, or the person of theirs the statement opens with ("my sister emma")."""
    match = SUBJECT.match(text.strip())
    return normalized(match.group("who")) if match else USER


def subject_of(text: str) -> str:
    """Whom the statement is about: the user, or the person of theirs it opens with ("my sister emma")."""
    return _subject_of(text)
