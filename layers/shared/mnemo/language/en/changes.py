"""Whether a later statement says something changed about what an earlier one said ("I moved…", "…no longer…",
"my dog passed away"), about a subject the earlier may be about: the change rule of the deterministic path, with the
clauses of a statement it compares (mnemo.services.memory.add.outdating asks it through the language interface).
Its patterns are data (data/changes.toml)."""

from __future__ import annotations

import re
from collections.abc import Callable

from mnemo.language.claims import USER, same_subject
from mnemo.language.en.claims import subject_of
from mnemo.language.en.life_slots import share_a_slot
from mnemo.language.en.patterns import pattern

_CHANGE = pattern("changes.toml", "change")  # "moved", "quit", "no longer", "…anymore", "my new…", "passed away"
_CLAUSE = pattern("changes.toml", "clause")
_FIRST_PERSON = pattern("changes.toml", "first_person")
_SPEAKER_SELF = pattern("changes.toml", "speaker_self")


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


def mentions(text: str, subject: str) -> bool:
    """Whether the statement names the subject: the user by speaking in the first person, a person of theirs by
    their relation or their name ("Laura left, my new manager is Ben" names "my manager laura")."""
    if subject == USER:
        return _FIRST_PERSON.search(text) is not None
    words = subject.split()[1:]  # "my sister emma" -> sister, emma
    return any(re.search(rf"\b{re.escape(w)}\b", text, re.IGNORECASE) for w in words)


def may_be_about(text: str, subject: str) -> bool:
    """Whether the statement may be about `subject`: its own subject, or the user when it also speaks in the
    first person ("my girlfriend wants a cat and I'm not really a cat person" may be about the user)."""
    own = subject_of(text)
    if same_subject(own, subject):
        return True
    return subject == USER and _SPEAKER_SELF.search(text) is not None
