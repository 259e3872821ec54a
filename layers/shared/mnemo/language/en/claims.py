"""What a statement claims, as (subject, attribute, value): where one lives, where and as what one works, one's diet,
relationship status, age, name, a favourite, whether one still likes something. Two claims of the same subject and
attribute with different values cannot both be current (`Claim.conflicts`): the one said later replaces the other
(mnemo.services.memory marks the older memory as likely outdated).

A statement's subject is the user ("I live in Lisbon", "Works as a nurse", "Name is Alice") or a person of theirs
it names at its start ("My sister Emma lives in Berlin"). Values are compared by their words, case aside
("Stripe" = "stripe"). A negated claim ("I'm not vegetarian anymore", "I quit Google") has the value it denies and
`negated`: it conflicts with the affirmed claim of that value.

Only the patterns below are read; a statement they do not match claims nothing (and replaces nothing)."""

from __future__ import annotations

import re
from collections.abc import Callable

from mnemo.language.claims import USER, Claim, same_subject
from mnemo.language.en.cues import CuedPattern, cued
from mnemo.language.en.life_slots import PET_WORDS, share_a_slot
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
_SUBJECT = re.compile(
    rf"^(?P<who>(?i:my\s+(?:(?:best|older|younger|little|big|old|new)\s+)?(?:{_RELATION}))(?:\s+[A-Z][a-z'’-]+)?)(?!\w)"
)
_PLACE = r"(?P<value>[A-Z][\w'’.-]*(?:[ -](?:[A-Z][\w'’.-]*|(?:de|do|da|del|la|le|am|upon|on)(?=[ -][A-Z])))*)"
_ORG = r"(?P<value>[A-Z0-9][\w&'’.-]*(?: [A-Z0-9][\w&'’.-]*)*)"


_TRAILING = re.compile(r"\s+(?:now|these days|nowadays|again|anymore|too|as well)$")


def _norm(value: str) -> str:
    """A value as claims compare it: lower case, single spaces, without trailing punctuation or "now"/"again"."""
    text = " ".join(value.lower().replace("’", "'").split()).strip(" .,!;:")
    return _TRAILING.sub("", text)


Reader = Callable[[str], list[tuple[str, str, bool]]]  # text -> [(attribute, value, negated)]


def _matches(patterns: tuple[CuedPattern, ...], attribute: str, negated: bool = False) -> Reader:
    """A reader of the `value` each of the patterns finds, in the order found in the text."""

    def read(text: str) -> list[tuple[str, str, bool]]:
        found = sorted((m.start(), m.group("value")) for p in patterns for m in p.finditer(text))
        return [(attribute, value, negated) for _, value in found]

    return read


def _all(*patterns: str, flags: int = 0) -> tuple[CuedPattern, ...]:
    return tuple(cued(p, flags) for p in patterns)


_RESIDENCE = _all(
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
_RESIDENCE_TYPED = _all(
    rf"\b(?:live|lives|living|based)\s+(?:now\s+)?in\s+{_LOWER_PLACE}",
    rf"\b(?:moved|relocated)\s+(?:back\s+)?to\s+{_LOWER_PLACE}",
    rf"\bnow that (?:i'm|i’m|im|i am|we're|we’re|we are)\s+in\s+{_LOWER_PLACE}",
    rf"\b(?:house|home|flat|apartment|place|condo)\s+in\s+{_LOWER_PLACE}",
)
# Whom one lives with: "I share an apartment with two roommates", "I live with my parents"; on one's own: "I got my
# own place", "I live alone", "no more roommates".
_HOUSEHOLD = _all(
    r"\b(?:share|shares|sharing)\s+(?:an?|the|my|our)\s+(?:apartment|flat|house|place|room)\s+with\s+"
    r"(?P<value>(?:my\s+|two\s+|three\s+|a\s+)?[a-z]+)",
    r"\b(?:live|lives|living)\s+with\s+(?P<value>(?:my\s+|two\s+|three\s+)?[a-z]+)",
    flags=re.IGNORECASE,
)
_ALONE = cued(
    r"\b(?:got|have|has|found|bought|rented)\s+(?:my|our|his|her)\s+own\s+(?:place|flat|apartment|home)\b|"
    r"\b(?:live|lives|living)\s+(?:alone|on (?:my|his|her) own|by (?:myself|himself|herself))\b|"
    r"\bno more (?:roommates|flatmates|housemates)\b",
    re.IGNORECASE,
)
# Whether one has pets: "no pets", "I don't have any pets" against "we adopted a dog", "I have two cats".
_NO_PETS = cued(rf"\bno\s+{PET_WORDS}\b|\b(?:don't|do not|doesn't|does not)\s+have\s+(?:any\s+)?{PET_WORDS}", re.I)
_HAS_PETS = cued(
    rf"\b(?:adopted|adopt|got|have|has|own|owns|rescued)\s+(?:(?:an?|two|three|our|my|a new)\s+)?(?:[\w-]+\s+)?"
    rf"{PET_WORDS}\b",
    re.IGNORECASE,
)
_EMPLOYER = _all(
    rf"\b(?:work|works|working|worked)\s+(?:now\s+)?(?:at|for)\s+{_ORG}",
    rf"\b(?:joined|join|joining)\s+{_ORG}",
    rf"\b(?:started|start|starting)\s+(?:a\s+new\s+job\s+|work\s+)?at\s+{_ORG}",
    rf"\b(?:job|position|role|internship)\s+(?:at|with)\s+{_ORG}",
    rf"\bhired\s+(?:at|by)\s+{_ORG}",
    rf"\b(?:{'|'.join(sorted(PROFESSIONS, key=len, reverse=True))}|[a-z]+(?:er|or|ist|ian))\s+(?:at|for|with)\s+{_ORG}",
)
_LEFT_EMPLOYER = _all(rf"\b(?:quit|left|leaving|resigned from|laid off from|fired from)\s+(?:my job at\s+)?{_ORG}")
_PROFESSION = "|".join(sorted(PROFESSIONS, key=len, reverse=True))
_OCCUPATION = _all(
    rf"\b(?:work|works|working)\s+as\s+(?:an?\s+)?(?:[a-z]+\s+)?(?P<value>{_PROFESSION})\b",
    rf"\b(?:i'm|i’m|i am|is|am)\s+(?:now\s+)?an?\s+(?:[a-z]+\s+)?(?P<value>{_PROFESSION})\b",
    rf"\bas\s+an?\s+(?:[a-z]+\s+)?(?P<value>{_PROFESSION})\b",
    rf"\bjob is\s+(?:an?\s+)?(?:[a-z-]+\s+){{0,2}}(?P<value>{_PROFESSION})\b",
    r"\b(?:i'm|i’m|i am|is|am)\s+(?:now\s+)?(?:an?\s+)?(?P<value>freelanc\w*|self-employed)\b",
    flags=re.IGNORECASE,
)
_DIET = cued(
    r"\b(?P<neg>not|no longer|stopped being|quit being|gave up being|was|were|used to be)?\s*(?:an?\s+)?(?P<value>"
    + "|".join(DIETS)
    + r")\b",
    re.IGNORECASE,
)
_OMNIVORE = cued(r"\beat(?:s|ing)?\s+(?:everything|anything|whatever)\b|\bno (?:dietary )?restrictions\b", re.I)
_EATS_MEAT = cued(
    r"\b(?P<neg>don't|do not|doesn't|does not|never|no longer|stopped)?\s*eat(?:s|ing)?\s+meat\b", re.IGNORECASE
)
_STATUS = _all(r"\b(?P<value>" + "|".join(STATUSES) + r")\b", flags=re.IGNORECASE)
_AGE = _all(
    r"\b(?:i'm|i’m|i am|is|am)\s+(?P<value>\d{1,3})(?:\s+years?\s+old\b|(?=\s*(?:[.,!;]|and\b|now\b|$)))",
    r"\b(?:turned|turning|just turned)\s+(?P<value>\d{1,3})\b",
    flags=re.IGNORECASE,
)
_NAME = _all(r"^name is (?P<value>.+)$", flags=re.IGNORECASE)
_FAVORITE = cued(
    r"\bfavou?rite\s+(?P<thing>[a-z]+(?:\s+[a-z]+)?)\s+(?:is|are)\s+(?:now\s+)?(?P<value>[^,.;!]+)", re.IGNORECASE
)
_LIKES = cued(
    r"\b(?P<neg>don't|do not|doesn't|does not|no longer|never)\s+(?:really\s+)?(?:love|like|enjoy|eat|drink|play)\s+"
    r"(?P<value>[a-z]+(?:\s+[a-z]+)?)\s+(?:anymore|any more)\b",
    re.IGNORECASE,
)


# A person of the user's staying with them ("she's staying with us for a few weeks") until they go home.
_STAYS = cued(r"\b(?:staying|stays|living|lives|moved in)\s+with\s+(?:us|me)\b", re.IGNORECASE)
_WENT_HOME = cued(r"\b(?:went|gone|going|moved|flew|headed|is)\s+(?:back\s+)?home\b|\bmoved out\b", re.IGNORECASE)
# A baby expected, then born: "I'm 5 months pregnant" -> "our daughter Klara was born".
_EXPECTING = cued(r"\bpregnant\b|\bexpecting\s+(?:a|our|my)\s+(?:baby|child|first|second)\b", re.I)
_BORN = cued(r"\b(?:was|were)\s+born\b|\bgave birth\b|\bhad\s+(?:the|our|a|my)\s+baby\b", re.I)
_BABY_DUE = cued(r"\bthe baby\s+(?:comes|is due|arrives|is coming)\b|\bbaby (?:is )?due\b", re.I)
_HAS_CHILDREN = cued(
    r"\b(?:have|has)\s+(?:a|an|one|two|three|four|\d)\s+(?:\w+\s+)?(?:kids?|children|sons?|daughters?|babies|baby)\b",
    re.IGNORECASE,
)
# When one works: night or day shifts ("night shifts are killing me", "working nights", "switched to day shifts").
_SHIFTS = cued(
    r"\b(?P<value>night|day|early|late|evening|morning)\s+shifts?\b|\bwork(?:s|ing)?\s+(?P<value2>nights|days)\b",
    re.IGNORECASE,
)
# The car one drives: "got a used Renault Zoe", "my old VW Golf".
_CAR_MAKES = "|".join(_WORDS.car_makes)
_CAR = cued(
    rf"\b(?i:(?:got|bought|drive|drives|driving|have|has|leased|my|our)\s+(?:an?\s+)?(?:new\s+|used\s+|old\s+)*)"
    rf"(?P<value>(?i:{_CAR_MAKES})(?:\s+(?:[A-Z0-9][\w-]*|[a-z][a-z-]+(?=\s*(?:[,.!;]|$|\s+(?:and|but|so|with)\b))))?)",
)
_SOLD_CAR = cued(
    rf"\b(?i:(?:sold|scrapped|crashed|totaled|totalled)\s+(?:the|my|our)\s+(?:old\s+)?(?:(?:{_CAR_MAKES})\s+)?)"
    r"(?P<value>(?!(?:house|flat|apartment|home|place|condo|business|company|shares|stock|bike)\b)[A-Za-z][\w-]*)"
)
# A gym membership, and the sports one does.
_GYM = cued(r"\b(?:signed up (?:for|at)|joined|go(?:ing)? to|member of)\s+(?:a|the)\s+gym\b", re.I)
_NO_GYM = cued(
    r"\b(?:cancelled|canceled|quit|stopped going to|gave up)\s+(?:the|my)\s+(?:gym(?:\s+membership)?|membership)\b",
    re.I,
)
_SPORT = cued(
    r"\b(?:i|we)\s+(?:now\s+)?(?P<value>swim|run|cycle|climb|row|box|surf|skate|ski|hike)\b(?!\s+(?:out|into|late))",
    re.IGNORECASE,
)
# A being that died ("we had to put Biscuit down", "Biscuit died", "our dog passed away").
_DIED = cued(
    r"\bput\s+(?P<value>[A-Z][a-z'’-]+)\s+(?:down|to sleep)\b|\b(?P<value2>[A-Z][a-z'’-]+)\s+(?:died|passed away)\b|"
    r"\b(?:our|my)\s+(?P<value3>dog|cat|pet|puppy|kitten)\s+(?:died|passed away)\b"
)


def _stays(text: str) -> list[tuple[str, str, bool]]:
    """Whether a person stays with the user: "staying with us" against "went home"."""
    if _STAYS.search(text):
        return [("stays with", "user", False)]
    return [("stays with", "user", True)] if _WENT_HOME.search(text) else []


def _children(text: str) -> list[tuple[str, str, bool]]:
    found: list[tuple[str, str, bool]] = []
    if _BORN.search(text):
        found += [("expecting", "baby", True), ("children", "any", False)]
    elif _EXPECTING.search(text) or _BABY_DUE.search(text):
        found.append(("expecting", "baby", False))
    if _HAS_CHILDREN.search(text) and ("children", "any", False) not in found:
        found.append(("children", "any", False))
    return found


def _shifts(text: str) -> list[tuple[str, str, bool]]:
    found = []
    for match in _SHIFTS.finditer(text):
        value = (match.group("value") or match.group("value2") or "").lower().rstrip("s")
        found.append(("shifts", value, False))
    return found


def _car(text: str) -> list[tuple[str, str, bool]]:
    found = [("car", m.group("value"), False) for m in _CAR.finditer(text)]
    return [("car", m.group("value"), True) for m in _SOLD_CAR.finditer(text)] + found[-1:]


def _exercise(text: str) -> list[tuple[str, str, bool]]:
    found = [("exercise", "gym", False)] if _GYM.search(text) else []
    if _NO_GYM.search(text):
        found = [("exercise", "gym", True)]
    return found + [("sport", m.group("value").lower(), False) for m in _SPORT.finditer(text)]


_NOT_BEINGS = _WORDS.not_beings
_NAMED = re.compile(r"(?<=[\s,(])(?P<value>[A-Z][a-z'’-]+)\b")
_MY_PET = cued(r"\b(?:my|our|has|have)\s+(?P<value>dog|cat|pet|puppy|kitten)\b", re.IGNORECASE)


_PET_DIED = cued(
    r"\bput\s+[A-Z][a-z'’-]+\s+(?:down|to sleep)\b|\b(?:our|my)\s+(?:dog|cat|pet|puppy|kitten)\s+(?:died|passed away)\b"
)
_WORKPLACE = (
    ("home", cued(r"\bwork(?:s|ing)?\s+(?:from|at)\s+home\b|\bwork(?:s|ing)?\s+remotely\b", re.I)),
    ("office", cued(r"\b(?:back|work(?:s|ing)?)\s+(?:in|at|from)\s+the\s+office\b", re.I)),
)
_MANAGER = _all(
    r"\b(?i:(?:my|our)\s+(?:new\s+)?(?:manager|boss)\s+is)\s+(?P<value>[A-Z][a-z'’-]+)",
    r"\b(?i:(?:manager|boss)(?:'s|’s)\s+name\s+is)\s+(?P<value>[A-Z][a-z'’-]+)",
)


def _workplace(text: str) -> list[tuple[str, str, bool]]:
    return [("workplace", value, False) for value, pattern in _WORKPLACE if pattern.search(text)][-1:]


def _died(text: str) -> list[tuple[str, str, bool]]:
    """A being of the user's that died is no longer alive ("alive biscuit" denied); a statement that names someone
    (or "my dog") says they are ("Has dog: a golden retriever, Biscuit"), which such a death makes out of date."""
    died = [
        (f"alive {_norm(m.group('value') or m.group('value2') or m.group('value3') or '')}", "yes", True)
        for m in _DIED.finditer(text)
    ]
    if died:
        return died + ([("pet died", "yes", False)] if _PET_DIED.search(text) else [])
    named = {_norm(m.group("value")) for m in _NAMED.finditer(text)} | {
        _norm(m.group("value")) for m in _MY_PET.finditer(text)
    }
    return [(f"alive {name}", "yes", False) for name in sorted(named) if name not in _NOT_BEINGS]


def _household(text: str) -> list[tuple[str, str, bool]]:
    found = [("household", m.group("value"), False) for p in _HOUSEHOLD for m in p.finditer(text)]
    if _ALONE.search(text):
        found.append(("household", "alone", False))
    return found


def _pets(text: str) -> list[tuple[str, str, bool]]:
    if _NO_PETS.search(text):
        return [("pets", "any", True)]
    return [("pets", "any", False)] if _HAS_PETS.search(text) else []


def _diet(text: str) -> list[tuple[str, str, bool]]:
    found = [("diet", m.group("value").replace(" ", "-"), bool(m.group("neg"))) for m in _DIET.finditer(text)]
    if _OMNIVORE.search(text):
        found.append(("diet", "omnivore", False))
    for match in _EATS_MEAT.finditer(text):  # eating meat again denies every meat-free diet; not eating it affirms one
        found.append(("diet", "vegetarian", not match.group("neg")))
    return found


def _favorite(text: str) -> list[tuple[str, str, bool]]:
    return [(f"favorite {_norm(m.group('thing'))}", m.group("value"), False) for m in _FAVORITE.finditer(text)]


def _likes(text: str) -> list[tuple[str, str, bool]]:
    """ "I don't like coffee anymore": a change of what one likes, denied."""
    return [(f"likes {_norm(m.group('value'))}", "yes", True) for m in _LIKES.finditer(text)]


READERS: tuple[Reader, ...] = (
    _matches(_RESIDENCE, "residence"),
    _matches(_RESIDENCE_TYPED, "residence"),
    _matches(_EMPLOYER, "employer"),
    _matches(_LEFT_EMPLOYER, "employer", negated=True),
    _matches(_OCCUPATION, "occupation"),
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
    _matches(_MANAGER, "manager"),
    _matches(_STATUS, "relationship"),
    _matches(_AGE, "age"),
    _matches(_NAME, "name"),
    _favorite,
    _likes,
)


_NOT_PLACES = re.compile(rf"^(?:{'|'.join(_WORDS.not_places)})\b", re.IGNORECASE)


def claims(text: str) -> list[Claim]:
    """What the statement claims of its subject (the user, unless it opens with a person of theirs), each claim
    once; the last value of an attribute wins within one statement ("I moved from Paris to Lisbon": Lisbon)."""
    subject = _subject_of(text)
    found: dict[tuple[str, bool], Claim] = {}
    for read in READERS:
        for attribute, value, negated in read(text):
            normalized = _norm(value)
            if attribute == "residence" and _NOT_PLACES.match(normalized):
                continue  # "the review moved to Thursday afternoon": a time, not a place
            if normalized:
                found[(attribute, negated)] = Claim(subject, attribute, normalized, negated)
    return list(found.values())


def _subject_of(text: str) -> str:
    """The user, or the person of theirs the statement opens with ("my sister emma")."""
    match = _SUBJECT.match(text.strip())
    return _norm(match.group("who")) if match else USER


# ---- changes: a statement that says something changed ------------------------------------------------------------

# What says an earlier state ended or was replaced: "moved", "quit", "no longer", "…anymore", "instead", "my new…",
# "…now" at the end of a clause, "passed away", "sold", "broke up".
_NEW_THINGS = (
    r"job|manager|boss|role|position|place|flat|apartment|house|home|car|phone|partner|girlfriend|boyfriend|company"
)
_CHANGE = re.compile(
    r"\b(?:no longer|any ?more|not \w+ \w*\s*anymore|quit|left|switched|switching|instead|used to|broke up|"
    r"split up|separated|divorced|passed away|died|put down|sold|gave up|giving up|stopped|cancelled|canceled|"
    r"retired|graduated|got engaged|got married|was born|were born|gave birth|had (?:the|a|our) baby|"
    r"got (?:my|our) own|back (?:home|to)|written off|pulled out|"
    r"(?:move|moved|moving|relocated|relocating)\s+(?:to|into|in|out|back|away|abroad|house|home|here|there|over)|"
    r"(?:since|after) (?:joining|leaving|moving|switching|quitting)|"
    r"joined (?:an? |the )?(?:[\w-]+ ){0,2}(?:company|firm|start-?up|agency|bank|practice|studio)|"
    r"(?:we|i|and i|and he|and she|they) split(?!\s+(?:the|a|an|it|our|my|this|that|everything|costs?|bills?)\b)|"
    r"break-?up|adopted|"
    r"bought (?:an?|our|my) (?:new )?(?:house|home|flat|apartment|place|condo|car)|completed on|closed on|"
    r"got the keys|took over from|taken over from|no more|became|has become|"
    r"(?:i|we) (?:now )?own (?:a|an|our|my)|(?:my|our) (?:very )?first (?:home|house|flat|apartment|car)|"
    r"went (?:fully |full )?(?:vegan|vegetarian|veggie|pescatarian|remote|freelance|part-time|full-time)|"
    r"changed (?:jobs?|careers?|companies|my mind)|"
    rf"(?:my|our|a) new (?:{_NEW_THINGS})|started (?:at|a new|my new|working)|took (?:a|the) (?:new )?job)\b"
    r"|\b(?:now|these days|nowadays)\b\s*(?:[,.!;)]|$)",
    re.IGNORECASE,
)


_CLAUSE = re.compile(r"\s*(?:[,;:]|\s-\s|\b(?:and|but|so|because|since|while|although)\b)\s*", re.IGNORECASE)


def clauses(text: str) -> list[str]:
    """The clauses of a statement (split at commas and conjunctions), those with three words or more; the whole
    statement when none has."""
    parts = [p.strip() for p in _CLAUSE.split(text) if len(p.split()) >= 3]
    return parts or [text]


def says_it_changed(
    later: str, earlier: str, closeness: Callable[[], float], threshold: float, same_slot_threshold: float
) -> bool:
    """The rule for two statements said at different times whose claims do not conflict: the later one makes the
    earlier likely out of date when it says something changed, about a subject the earlier may be about (or that
    it names), and they are close in meaning (`closeness()` at or above `threshold`, or `same_slot_threshold` when
    both speak of one part of a life that holds one state at a time: mnemo.language.en.life_slots; computed last: it
    embeds)."""
    about = may_be_about(earlier, subject_of(later)) or mentions(later, subject_of(earlier))
    if not (says_a_change(later) and about):
        return False
    return closeness() >= (same_slot_threshold if share_a_slot(later, earlier) else threshold)


def says_a_change(text: str) -> bool:
    """Whether the statement says something changed ("I moved…", "…no longer…", "my dog passed away")."""
    return _CHANGE.search(text) is not None


def subject_of(text: str) -> str:
    """Whom the statement is about: the user, or the person of theirs it opens with ("my sister emma")."""
    return _subject_of(text)


def mentions(text: str, subject: str) -> bool:
    """Whether the statement names the subject: the user by speaking in the first person, a person of theirs by
    their relation or their name ("Laura left, my new manager is Ben" names "my manager laura")."""
    if subject == USER:
        return re.search(r"\b(?:i|i'm|i’m|i've|i’ve|me|my|we|our)\b", text, re.IGNORECASE) is not None
    words = subject.split()[1:]  # "my sister emma" -> sister, emma
    return any(re.search(rf"\b{re.escape(w)}\b", text, re.IGNORECASE) for w in words)


def may_be_about(text: str, subject: str) -> bool:
    """Whether the statement may be about `subject`: its own subject, or the user when it also speaks in the
    first person ("my girlfriend wants a cat and I'm not really a cat person" may be about the user)."""
    own = _subject_of(text)
    if same_subject(own, subject):
        return True
    return subject == USER and re.search(r"\b(?:i|i'm|i’m|i've|i’ve|i'd|me|myself)\b", text, re.IGNORECASE) is not None


# ---- facets: what a memory is about, as the search index keeps it -------------------------------------------------

FACETS_FIELD = "facets"  # the field of an index document that holds them


def facets(text: str) -> list[str]:
    """The attributes a memory states, as the index files it: "residence", "employer", … for the user's own;
    "<person> residence" for a person of theirs ("my sister emma residence")."""
    return sorted(
        {
            c.attribute if c.subject == USER else f"{c.subject} {c.attribute}"
            for c in claims(text)
            if not c.attribute.startswith("alive ")  # what each name says: no facet of its own
        }
    )


_ASKED: tuple[tuple[re.Pattern[str], tuple[str, ...]], ...] = (
    (
        re.compile(
            r"\bwhere\b.*\b(?:live|lives|living|stay|stays|staying|based|reside|resides|home)\b|"
            r"\b(?:rent|own)\b.*\b(?:home|house|flat|apartment|place)\b|"
            r"\b(?:city|country|town|address)\b.*\b(?:live|lives|living|from|in)\b|\bmoved?\b",
            re.I,
        ),
        ("residence",),
    ),
    (
        re.compile(
            r"\bwhere\b.*\b(?:work|works|working|employed|job)\b|\b(?:company|employer|firm)\b|"
            r"\bwho\b.*\bwork(?:s|ing)? for\b",
            re.I,
        ),
        ("employer",),
    ),
    (
        re.compile(
            r"\bwhat\b.*\b(?:do|does)\b.*\bfor (?:work|a living)\b|\b(?:job|profession|occupation|career)\b|"
            r"\bwhat\b.*\bwork(?:s|ing)? as\b",
            re.I,
        ),
        ("occupation", "employer"),
    ),
    (re.compile(r"\b(?:diet|vegetarian|vegan|pescatarian|eat(?:s)? meat)\b", re.I), ("diet",)),
    (
        re.compile(r"\b(?:married|single|divorced|engaged|relationship|partner|dating|spouse)\b", re.I),
        ("relationship",),
    ),
    (re.compile(r"\bhow old\b|\bage\b", re.I), ("age",)),
    (re.compile(r"\blive with\b|\b(?:roommates?|flatmates?|housemates?|live alone)\b", re.I), ("household",)),
    (re.compile(r"\b(?:pets?|dogs?|cats?)\b", re.I), ("pets", "pet died")),
    (re.compile(r"\bwhat (?:do|does) \w+ eat\b", re.I), ("diet",)),
    (re.compile(r"^what (?:do|does) \w+ do\??$", re.I), ("occupation", "employer")),
    (re.compile(r"\bwork(?:s|ing)? (?:from home|remotely)\b|\bremote\b|\boffice\b", re.I), ("workplace",)),
    (re.compile(r"\bwho is\b.*\b(?:manager|boss)\b|\b(?:manager|boss)(?:'s|’s)? name\b", re.I), ("manager",)),
    (re.compile(r"\bstay(?:s|ing)? with\b", re.I), ("stays with",)),
    (re.compile(r"\b(?:kids?|children|child|baby|pregnant|son|daughter)\b", re.I), ("children", "expecting")),
    (re.compile(r"\b(?:shifts?|nights?|when do(?:es)? \w+ work)\b", re.I), ("shifts",)),
    (re.compile(r"\b(?:car|drive|drives)\b", re.I), ("car",)),
    (re.compile(r"\b(?:exercise|work(?:s)? out|workout|gym|sports?|swim|fitness)\b", re.I), ("exercise", "sport")),
    (re.compile(r"\bname\b", re.I), ("name",)),
)
_ASKED_FAVORITE = re.compile(r"\bfavou?rite\s+(?P<thing>[a-z]+(?:\s+[a-z]+)?)", re.IGNORECASE)


def asked_facets(question: str) -> list[str]:
    """The attributes a question asks about ("Where does she work now?" -> employer), for the user's own facts."""
    asked = [facet for pattern, named in _ASKED if pattern.search(question) for facet in named]
    asked += [f"favorite {_norm(m.group('thing'))}" for m in _ASKED_FAVORITE.finditer(question)]
    return list(dict.fromkeys(asked))
