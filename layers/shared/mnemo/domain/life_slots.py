"""The parts of a life a statement speaks of that hold one state at a time: where one lives and whether one rents or
owns, where and how one works, who one's manager is, one's sport, diet, partner, pets, car, shifts, smoking, school.

Two statements of the same person that speak of one of these "slots" are about the same thing even when their words
differ ("I've been renting a flat in Headingley" / "I completed on a terrace in Roundhay, my first home"; "I play
handball on Wednesdays" / "I want to start swimming instead"), where the embedder finds them only loosely related
(cosine 0.3–0.4). The change rule (mnemo.domain.claims `says_it_changed`) reads a later statement that says something
changed as replacing an earlier one of the same slot at a lower closeness than it asks of two statements of no
common slot (bench/change_rule.py measures both).

A slot is read from words only (lower case, at word boundaries); a statement may speak of several, or of none."""

from __future__ import annotations

import re
from collections.abc import Mapping

# The words of a pet (mnemo.domain.claims reads whether one has pets with them too).
PET_WORDS = r"(?:dogs?|cats?|puppy|puppies|kittens?|pets?|rabbits?|hamsters?|parrots?)"

_SLOT_WORDS: Mapping[str, str] = {
    "home": r"live[sd]?|living|flat|apartment|house|home|condo|studio|rent|rents|renting|rented|landlord|mortgage|"
    r"tenant|keys|move|moved|moving|relocat\w*|neighbou?rhood",
    "work": r"job|jobs|employer|company|firm|start-?up|joined|joining|hired|role|position|promot\w*|colleagues?|"
    r"head of|career|(?:work(?:s|ed|ing)?|worked together) (?:at|for|as|in)",
    "workplace": r"office|remote(?:ly)?|commut\w*|from home|hybrid|wfh|desk",
    "manager": r"manager|boss|supervisor|team lead",
    "sport": r"sports?|handball|football|soccer|tennis|squash|badminton|swim\w*|lido|pool|lengths|run|runs|running|"
    r"runner|jog\w*|marathon|10k|5k|cycl\w*|yoga|pilates|gym|climb\w*|boulder\w*|basketball|volleyball|rugby|"
    r"golf|boxing|crossfit|rowing|ski|skiing|dance|dancing|karate|judo|hockey|cricket|workouts?",
    "diet": r"vegan|vegetarian|veggie|pescatarian|meat|keto|paleo|gluten|dairy|diet|plant-based",
    "partner": r"boyfriend|girlfriend|bf|gf|partner|husband|wife|married|marry|dating|single|break-?up|broke up|"
    r"split|divorc\w*|engaged|fianc\w*|seeing someone|relationship",
    "pets": rf"{PET_WORDS}|greyhound|labrador|retriever|terrier|spaniel|poodle",
    "car": r"cars?|drive|drives|driving|motorbike|scooter",
    "shifts": r"shifts?|nights|on days|night shift|day shift",
    "smoking": r"smok\w*|cigarettes?|vap(?:e|es|ing)|nicotine",
    "school": r"school|university|uni|college|degree|student|studying",
}
_SLOTS: Mapping[str, re.Pattern[str]] = {
    slot: re.compile(rf"\b(?:{words})\b", re.IGNORECASE) for slot, words in _SLOT_WORDS.items()
}


def slots(text: str) -> frozenset[str]:
    """The slots the statement speaks of ("I sold the car, I cycle to the office now" -> car, sport, workplace)."""
    return frozenset(slot for slot, pattern in _SLOTS.items() if pattern.search(text))


def share_a_slot(a: str, b: str) -> bool:
    """Whether the two statements speak of a common slot."""
    return bool(slots(a) & slots(b))
