"""The parts of a life a statement speaks of that hold one state at a time: where one lives and whether one rents or
owns, where and how one works, who one's manager is, one's sport, diet, partner, pets, car, shifts, smoking, school.

Two statements of the same person that speak of one of these "slots" are about the same thing even when their words
differ ("I've been renting a flat in Headingley" / "I completed on a terrace in Roundhay, my first home"; "I play
handball on Wednesdays" / "I want to start swimming instead"), where the embedder finds them only loosely related.
The change rule (mnemo.language.en.changes `says_it_changed`) reads a later statement that says something changed as
replacing an earlier one of the same slot at a lower closeness than it asks of two statements of no common slot
(bench/change_rule.py measures both).

A slot is read from words only (lower case, at word boundaries); a statement may speak of several, or of none. The
words of each slot are data (data/slots.toml), checked as they load: each must compile."""

from __future__ import annotations

import re
from collections.abc import Mapping

from mnemo.language.en.words import PackDataError, read_toml


def _load() -> tuple[str, dict[str, str]]:
    doc = read_toml("slots.toml")
    pet_words, slots = doc.get("pet_words"), doc.get("slots")
    if not isinstance(pet_words, str) or not isinstance(slots, dict) or not slots:
        raise PackDataError("mnemo.language.en data/slots.toml: `pet_words` and a [slots] table are needed")
    found: dict[str, str] = {}
    for slot, words in slots.items():
        if not isinstance(words, str):
            raise PackDataError(f"mnemo.language.en data/slots.toml: slot `{slot}` must be a pattern")
        found[slot] = words.replace("{pet_words}", pet_words)
        try:
            re.compile(found[slot])
        except re.error as exc:
            raise PackDataError(f"mnemo.language.en data/slots.toml: slot `{slot}`: {exc}") from exc
    return pet_words, found


# The words of a pet (mnemo.language.en.claims reads whether one has pets with them too).
PET_WORDS, _SLOT_WORDS = _load()
_SLOTS: Mapping[str, re.Pattern[str]] = {
    slot: re.compile(rf"\b(?:{words})\b", re.IGNORECASE) for slot, words in _SLOT_WORDS.items()
}


def slots(text: str) -> frozenset[str]:
    """The slots the statement speaks of ("I sold the car, I cycle to the office now" -> car, sport, workplace)."""
    return frozenset(slot for slot, pattern in _SLOTS.items() if pattern.search(text))


def share_a_slot(a: str, b: str) -> bool:
    """Whether the two statements speak of a common slot."""
    return bool(slots(a) & slots(b))
