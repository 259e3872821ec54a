"""The patterns and word lists the claims are read with (mnemo.language.en.claims): where one lives, works and as
what, one's diet, household, pets, children, shifts, car, sport, manager, relationship status, age, name,
favourites. The word lists are data (data/words.toml); each pattern that most texts cannot match is cued
(mnemo.language.en.cues): run only on texts holding one of its cue words."""

from __future__ import annotations

import re

from mnemo.language.en.cues import CuedPattern, cued
from mnemo.language.en.life_slots import PET_WORDS
from mnemo.language.en.words import words

_WORDS = words()
# The words that name a person of someone's (the people a statement may be about), by the pronoun that stands for
# them: mnemo.language.en.extraction.people resolves pronouns with them.
FEMALE, MALE, EITHER, PLURAL = _WORDS.female, _WORDS.male, _WORDS.either, _WORDS.plural
RELATIONS = FEMALE | MALE | EITHER | PLURAL
PROFESSIONS = _WORDS.professions
DIETS = _WORDS.diets
STATUSES = _WORDS.statuses


_RELATION = "|".join(sorted((re.escape(r) for r in RELATIONS), key=len, reverse=True))
SUBJECT = re.compile(
    rf"^(?P<who>(?i:my\s+(?:(?:best|older|younger|little|big|old|new)\s+)?(?:{_RELATION}))(?:\s+[A-Z][a-z'’-]+)?)(?!\w)"
)
_PLACE = r"(?P<value>[A-Z][\w'’.-]*(?:[ -](?:[A-Z][\w'’.-]*|(?:de|do|da|del|la|le|am|upon|on)(?=[ -][A-Z])))*)"
_ORG = r"(?P<value>[A-Z0-9][\w&'’.-]*(?: [A-Z0-9][\w&'’.-]*)*)"


def _all(*patterns: str, flags: int = 0) -> tuple[CuedPattern, ...]:
    return tuple(cued(p, flags) for p in patterns)


RESIDENCE = _all(
    rf"\b(?:live|lives|living|based|reside|resides|residing|settled)\s+(?:now\s+)?in\s+{_PLACE}",
    rf"\b(?:moved|move|moving|relocated|relocating|relocate)\s+(?:back\s+)?(?:from\s+[A-Z][\w'’ -]*?\s+)?to\s+{_PLACE}",
    rf"\bhome is (?:now )?in\s+{_PLACE}",
    rf"\b(?:rent|rents|renting|rented)\s+(?:an?|the|my|our)\s+(?:[\w-]+\s+){{0,2}}?in\s+{_PLACE}",
    rf"\b(?:bought|closed on|own|owns)\s+(?:an?|our|my)\s+(?:new\s+)?(?:house|home|flat|apartment|place|condo)\s+"
    rf"in\s+{_PLACE}",
    rf"\bkeys\s+to\s+(?:our|my)\s+(?:new\s+)?(?:house|home|flat|apartment|place|condo)\s+in\s+{_PLACE}",
)
# The same cues with a place typed in lower case ("now that im in denver", "our house in burnaby"): a word that is
# no common one.
_LOWER_PLACE = (
    r"(?P<value>(?!(?:the|a|an|my|our|fear|love|peace|hope|denial|sin|town|bed|person|general)\b)[a-z][a-z'-]{2,})\b"
)
RESIDENCE_TYPED = _all(
    rf"\b(?:live|lives|living|based)\s+(?:now\s+)?in\s+{_LOWER_PLACE}",
    rf"\b(?:moved|relocated)\s+(?:back\s+)?to\s+{_LOWER_PLACE}",
    rf"\bnow that (?:i'm|i’m|im|i am|we're|we’re|we are)\s+in\s+{_LOWER_PLACE}",
    rf"\b(?:house|home|flat|apartment|place|condo)\s+in\s+{_LOWER_PLACE}",
)
# Whom one lives with: "I share an apartment with two roommates", "I live with my parents"; on one's own: "I got my
# own place", "I live alone", "no more roommates".
HOUSEHOLD = _all(
    r"\b(?:share|shares|sharing)\s+(?:an?|the|my|our)\s+(?:apartment|flat|house|place|room)\s+with\s+"
    r"(?P<value>(?:my\s+|two\s+|three\s+|a\s+)?[a-z]+)",
    r"\b(?:live|lives|living)\s+with\s+(?P<value>(?:my\s+|two\s+|three\s+)?[a-z]+)",
    flags=re.IGNORECASE,
)
ALONE = cued(
    r"\b(?:got|have|has|found|bought|rented)\s+(?:my|our|his|her)\s+own\s+(?:place|flat|apartment|home)\b|"
    r"\b(?:live|lives|living)\s+(?:alone|on (?:my|his|her) own|by (?:myself|himself|herself))\b|"
    r"\bno more (?:roommates|flatmates|housemates)\b",
    re.IGNORECASE,
)
# Whether one has pets: "no pets", "I don't have any pets" against "we adopted a dog", "I have two cats".
NO_PETS = cued(rf"\bno\s+{PET_WORDS}\b|\b(?:don't|do not|doesn't|does not)\s+have\s+(?:any\s+)?{PET_WORDS}", re.I)
HAS_PETS = cued(
    rf"\b(?:adopted|adopt|got|have|has|own|owns|rescued)\s+(?:(?:an?|two|three|our|my|a new)\s+)?(?:[\w-]+\s+)?"
    rf"{PET_WORDS}\b",
    re.IGNORECASE,
)
EMPLOYER = _all(
    rf"\b(?:work|works|working|worked)\s+(?:now\s+)?(?:at|for)\s+{_ORG}",
    rf"\b(?:joined|join|joining)\s+{_ORG}",
    rf"\b(?:started|start|starting)\s+(?:a\s+new\s+job\s+|work\s+)?at\s+{_ORG}",
    rf"\b(?:job|position|role|internship)\s+(?:at|with)\s+{_ORG}",
    rf"\bhired\s+(?:at|by)\s+{_ORG}",
    rf"\b(?:{'|'.join(sorted(PROFESSIONS, key=len, reverse=True))}|[a-z]+(?:er|or|ist|ian))\s+(?:at|for|with)\s+{_ORG}",
)
LEFT_EMPLOYER = _all(rf"\b(?:quit|left|leaving|resigned from|laid off from|fired from)\s+(?:my job at\s+)?{_ORG}")
_PROFESSION = "|".join(sorted(PROFESSIONS, key=len, reverse=True))
OCCUPATION = _all(
    rf"\b(?:work|works|working)\s+as\s+(?:an?\s+)?(?:[a-z]+\s+)?(?P<value>{_PROFESSION})\b",
    rf"\b(?:i'm|i’m|i am|is|am)\s+(?:now\s+)?an?\s+(?:[a-z]+\s+)?(?P<value>{_PROFESSION})\b",
    rf"\bas\s+an?\s+(?:[a-z]+\s+)?(?P<value>{_PROFESSION})\b",
    rf"\bjob is\s+(?:an?\s+)?(?:[a-z-]+\s+){{0,2}}(?P<value>{_PROFESSION})\b",
    r"\b(?:i'm|i’m|i am|is|am)\s+(?:now\s+)?(?:an?\s+)?(?P<value>freelanc\w*|self-employed)\b",
    flags=re.IGNORECASE,
)
DIET = cued(
    r"\b(?P<neg>not|no longer|stopped being|quit being|gave up being|was|were|used to be)?\s*(?:an?\s+)?(?P<value>"
    + "|".join(DIETS)
    + r")\b",
    re.IGNORECASE,
)
OMNIVORE = cued(r"\beat(?:s|ing)?\s+(?:everything|anything|whatever)\b|\bno (?:dietary )?restrictions\b", re.I)
EATS_MEAT = cued(
    r"\b(?P<neg>don't|do not|doesn't|does not|never|no longer|stopped)?\s*eat(?:s|ing)?\s+meat\b", re.IGNORECASE
)
STATUS = _all(r"\b(?P<value>" + "|".join(STATUSES) + r")\b", flags=re.IGNORECASE)
AGE = _all(
    r"\b(?:i'm|i’m|i am|is|am)\s+(?P<value>\d{1,3})(?:\s+years?\s+old\b|(?=\s*(?:[.,!;]|and\b|now\b|$)))",
    r"\b(?:turned|turning|just turned)\s+(?P<value>\d{1,3})\b",
    flags=re.IGNORECASE,
)
NAME = _all(r"^name is (?P<value>.+)$", flags=re.IGNORECASE)
FAVORITE = cued(
    r"\bfavou?rite\s+(?P<thing>[a-z]+(?:\s+[a-z]+)?)\s+(?:is|are)\s+(?:now\s+)?(?P<value>[^,.;!]+)", re.IGNORECASE
)
LIKES = cued(
    r"\b(?P<neg>don't|do not|doesn't|does not|no longer|never)\s+(?:really\s+)?(?:love|like|enjoy|eat|drink|play)\s+"
    r"(?P<value>[a-z]+(?:\s+[a-z]+)?)\s+(?:anymore|any more)\b",
    re.IGNORECASE,
)


# A person of the user's staying with them ("she's staying with us for a few weeks") until they go home.
STAYS = cued(r"\b(?:staying|stays|living|lives|moved in)\s+with\s+(?:us|me)\b", re.IGNORECASE)
WENT_HOME = cued(r"\b(?:went|gone|going|moved|flew|headed|is)\s+(?:back\s+)?home\b|\bmoved out\b", re.IGNORECASE)
# A baby expected, then born: "I'm 5 months pregnant" -> "our daughter Klara was born".
EXPECTING = cued(r"\bpregnant\b|\bexpecting\s+(?:a|our|my)\s+(?:baby|child|first|second)\b", re.I)
BORN = cued(r"\b(?:was|were)\s+born\b|\bgave birth\b|\bhad\s+(?:the|our|a|my)\s+baby\b", re.I)
BABY_DUE = cued(r"\bthe baby\s+(?:comes|is due|arrives|is coming)\b|\bbaby (?:is )?due\b", re.I)
HAS_CHILDREN = cued(
    r"\b(?:have|has)\s+(?:a|an|one|two|three|four|\d)\s+(?:\w+\s+)?(?:kids?|children|sons?|daughters?|babies|baby)\b",
    re.IGNORECASE,
)
# When one works: night or day shifts ("night shifts are killing me", "working nights", "switched to day shifts").
SHIFTS = cued(
    r"\b(?P<value>night|day|early|late|evening|morning)\s+shifts?\b|\bwork(?:s|ing)?\s+(?P<value2>nights|days)\b",
    re.IGNORECASE,
)
# The car one drives: "got a used Renault Zoe", "my old VW Golf".
_CAR_MAKES = "|".join(_WORDS.car_makes)
CAR = cued(
    rf"\b(?i:(?:got|bought|drive|drives|driving|have|has|leased|my|our)\s+(?:an?\s+)?(?:new\s+|used\s+|old\s+)*)"
    rf"(?P<value>(?i:{_CAR_MAKES})(?:\s+(?:[A-Z0-9][\w-]*|[a-z][a-z-]+(?=\s*(?:[,.!;]|$|\s+(?:and|but|so|with)\b))))?)",
)
SOLD_CAR = cued(
    rf"\b(?i:(?:sold|scrapped|crashed|totaled|totalled)\s+(?:the|my|our)\s+(?:old\s+)?(?:(?:{_CAR_MAKES})\s+)?)"
    r"(?P<value>(?!(?:house|flat|apartment|home|place|condo|business|company|shares|stock|bike)\b)[A-Za-z][\w-]*)"
)
# A gym membership, and the sports one does.
GYM = cued(r"\b(?:signed up (?:for|at)|joined|go(?:ing)? to|member of)\s+(?:a|the)\s+gym\b", re.I)
NO_GYM = cued(
    r"\b(?:cancelled|canceled|quit|stopped going to|gave up)\s+(?:the|my)\s+(?:gym(?:\s+membership)?|membership)\b",
    re.I,
)
SPORT = cued(
    r"\b(?:i|we)\s+(?:now\s+)?(?P<value>swim|run|cycle|climb|row|box|surf|skate|ski|hike)\b(?!\s+(?:out|into|late))",
    re.IGNORECASE,
)
# A being that died ("we had to put Biscuit down", "Biscuit died", "our dog passed away").
DIED = cued(
    r"\bput\s+(?P<value>[A-Z][a-z'’-]+)\s+(?:down|to sleep)\b|\b(?P<value2>[A-Z][a-z'’-]+)\s+(?:died|passed away)\b|"
    r"\b(?:our|my)\s+(?P<value3>dog|cat|pet|puppy|kitten)\s+(?:died|passed away)\b"
)


NOT_BEINGS = _WORDS.not_beings
NAMED = re.compile(r"(?<=[\s,(])(?P<value>[A-Z][a-z'’-]+)\b")
MY_PET = cued(r"\b(?:my|our|has|have)\s+(?P<value>dog|cat|pet|puppy|kitten)\b", re.IGNORECASE)


PET_DIED = cued(
    r"\bput\s+[A-Z][a-z'’-]+\s+(?:down|to sleep)\b|\b(?:our|my)\s+(?:dog|cat|pet|puppy|kitten)\s+(?:died|passed away)\b"
)
WORKPLACE = (
    ("home", cued(r"\bwork(?:s|ing)?\s+(?:from|at)\s+home\b|\bwork(?:s|ing)?\s+remotely\b", re.I)),
    ("office", cued(r"\b(?:back|work(?:s|ing)?)\s+(?:in|at|from)\s+the\s+office\b", re.I)),
)
MANAGER = _all(
    r"\b(?i:(?:my|our)\s+(?:new\s+)?(?:manager|boss)\s+is)\s+(?P<value>[A-Z][a-z'’-]+)",
    r"\b(?i:(?:manager|boss)(?:'s|’s)\s+name\s+is)\s+(?P<value>[A-Z][a-z'’-]+)",
)


NOT_PLACES = re.compile(rf"^(?:{'|'.join(_WORDS.not_places)})\b", re.IGNORECASE)
