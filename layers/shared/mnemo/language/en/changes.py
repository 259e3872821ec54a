"""Whether a later statement says something changed about what an earlier one said ("I moved…", "…no longer…",
"my dog passed away"), about a subject the earlier may be about: the change rule of the deterministic path, with the
clauses of a statement it compares (mnemo.services.memory.add.outdating asks it through the language interface)."""

from __future__ import annotations

import re
from collections.abc import Callable

from mnemo.language.claims import USER, same_subject
from mnemo.language.en.claims import subject_of
from mnemo.language.en.life_slots import share_a_slot

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
    own = subject_of(text)
    if same_subject(own, subject):
        return True
    return subject == USER and re.search(r"\b(?:i|i'm|i’m|i've|i’ve|i'd|me|myself)\b", text, re.IGNORECASE) is not None
