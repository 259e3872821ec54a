"""The patterns and word lists the claims are read with (mnemo.language.en.claims): where one lives, works and as
what, one's diet, household, pets, children, shifts, car, sport, manager, relationship status, age, name,
favourites. The patterns are data (data/claims.toml), the word lists too (data/words.toml); each pattern but the few
marked `cued = false` is cued (mnemo.language.en.cues): run only on texts holding one of its cue words. A pattern
of a `group` is one of several a claim reader runs together, in the file's order, each with the `value` it claims
when it has one."""

from __future__ import annotations

import functools
import re
from typing import Any

from mnemo.language.en.cues import CuedPattern, cue
from mnemo.language.en.patterns import pattern, patterns
from mnemo.language.en.words import PackDataError, read_toml, words

_FILE = "claims.toml"
_WORDS = words()
# The words that name a person of someone's (the people a statement may be about), by the pronoun that stands for
# them: mnemo.language.en.extraction.people resolves pronouns with them.
FEMALE, MALE, EITHER, PLURAL = _WORDS.female, _WORDS.male, _WORDS.either, _WORDS.plural
RELATIONS = FEMALE | MALE | EITHER | PLURAL
PROFESSIONS = _WORDS.professions
DIETS = _WORDS.diets
STATUSES = _WORDS.statuses
NOT_BEINGS = _WORDS.not_beings


@functools.cache
def _entries() -> dict[str, dict[str, Any]]:
    table = read_toml(_FILE).get("patterns")
    return table if isinstance(table, dict) else {}


@functools.cache
def _cued_all() -> dict[str, CuedPattern]:
    """Each pattern of the file that is cued, cued once."""
    return {name: cue(compiled) for name, compiled in patterns(_FILE).items() if _entries()[name].get("cued", True)}


def _cued(name: str) -> CuedPattern:
    found = _cued_all().get(name)
    if found is None:
        raise PackDataError(f"mnemo.language.en data/{_FILE}: cued pattern `{name}` is missing")
    return found


def _group(group: str) -> tuple[CuedPattern, ...]:
    """The cued patterns of a group, in the file's order."""
    found = tuple(_cued(name) for name, entry in _entries().items() if entry.get("group") == group)
    if not found:
        raise PackDataError(f"mnemo.language.en data/{_FILE}: group `{group}` has no pattern")
    return found


def _valued(group: str) -> tuple[tuple[str, CuedPattern], ...]:
    """The cued patterns of a group, each with the `value` it claims."""
    found: list[tuple[str, CuedPattern]] = []
    for name, entry in _entries().items():
        if entry.get("group") != group:
            continue
        value = entry.get("value")
        if not isinstance(value, str) or not value:
            raise PackDataError(f"mnemo.language.en data/{_FILE}: pattern `{name}` needs a `value`")
        found.append((value, _cued(name)))
    return tuple(found)


SUBJECT: re.Pattern[str] = pattern(_FILE, "subject")
RESIDENCE = _group("residence")
RESIDENCE_TYPED = _group("residence_typed")
HOUSEHOLD = _group("household")
ALONE = _cued("alone")
NO_PETS = _cued("no_pets")
HAS_PETS = _cued("has_pets")
EMPLOYER = _group("employer")
LEFT_EMPLOYER = _group("left_employer")
OCCUPATION = _group("occupation")
DIET = _cued("diet")
OMNIVORE = _cued("omnivore")
EATS_MEAT = _cued("eats_meat")
STATUS = _group("status")
AGE = _group("age")
NAME = _group("name")
FAVORITE = _cued("favorite")
LIKES = _cued("likes")
STAYS = _cued("stays")
WENT_HOME = _cued("went_home")
EXPECTING = _cued("expecting")
BORN = _cued("born")
BABY_DUE = _cued("baby_due")
HAS_CHILDREN = _cued("has_children")
SHIFTS = _cued("shifts")
CAR = _cued("car")
SOLD_CAR = _cued("sold_car")
GYM = _cued("gym")
NO_GYM = _cued("no_gym")
SPORT = _cued("sport")
DIED = _cued("died")
NAMED: re.Pattern[str] = pattern(_FILE, "named")
MY_PET = _cued("my_pet")
PET_DIED = _cued("pet_died")
WORKPLACE = _valued("workplace")
MANAGER = _group("manager")
NOT_PLACES: re.Pattern[str] = pattern(_FILE, "not_places")
TRAILING: re.Pattern[str] = pattern(_FILE, "trailing")
