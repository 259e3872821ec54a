"""What the evaluation counts, as pure functions of the labelled facts and what the service answered.

- A stored memory is judged against the facts of its user: it states a gold fact or an acceptable extra when that
  fact's rule matches its text; a memory made only from assistant messages states none (the assistant's sentences
  are not the user's memories), whatever its words; anything else is junk, with the likeliest reason.
- A gold fact is stored when an active memory of its user (not the assistant's words) matches it, checked right
  after its own conversation was added (so a fact that changes later counts as of its own conversation).
- A probe asks for a fact that changed: the current fact's first rank and the outdated one's (a hit matching the
  current fact's rule is current even if it names the old value too: "moved from Paris to Lisbon").
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from bench.memory_quality.data import Fact, Person, normalize

MONTHS = "january february march april may june july august september october november december".split()
WEEKDAYS = "monday|tuesday|wednesday|thursday|friday|saturday|sunday"
NUMBER = r"(?:\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|a few|few|several|couple of|a couple of)"
UNITS = r"(?:days?|weeks?|months?|years?)"
# Words that date something relative to when it was said; a memory that keeps one cannot be read later.
RELATIVE_DATE = re.compile(
    "|".join(
        (
            r"\b(?:yesterday|today|tonight|tomorrow)\b",
            r"\bthe day before yesterday\b",
            r"\bthe other day\b",
            rf"\b(?:this|last|next)\s+(?:morning|afternoon|evening|night|week|weekend|month|year|spring|summer|autumn|fall|winter|{WEEKDAYS})\b",
            rf"\b(?:on|this|next|last)\s+(?:{WEEKDAYS})\b(?!s)",
            rf"\b{NUMBER}\s+{UNITS}\s+ago\b",
            rf"\bin\s+{NUMBER}\s+{UNITS}\b",
            r"\b(?:at\s+)?the\s+end\s+of\s+(?:the|this|next)\s+(?:week|month|year)\b",
            r"\bthis\s+time\s+last\s+(?:week|month|year)\b",
        )
    )
)
JunkReason = Literal["assistant's words", "a question", "lost its subject", "matches no fact"]
HitKind = Literal["current", "outdated", "other"]


@dataclass(frozen=True)
class Stored:
    """A memory as a surface shows it: its text, lifecycle state, the roles of the messages it came from, and the
    conversation whose add made it (when known)."""

    id: str
    text: str
    user_id: str
    state: str = "active"
    roles: tuple[str, ...] = ()
    conversation_id: str | None = None

    @property
    def assistant_only(self) -> bool:
        return bool(self.roles) and all(role == "assistant" for role in self.roles)

    @property
    def active(self) -> bool:
        return self.state == "active"


@dataclass(frozen=True)
class Hit:
    id: str
    text: str
    state: str
    score: float


@dataclass(frozen=True)
class Verdict:
    memory: Stored
    gold: tuple[str, ...]  # uids of the gold facts it states
    acceptable: tuple[str, ...]
    reason: JunkReason | None  # why it is junk; None when it states a fact

    @property
    def junk(self) -> bool:
        return self.reason is not None


def share(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


def _mentions(text: str, word: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(normalize(word))}(?!\w)", normalize(text)) is not None


def lost_subject(text: str, people: Iterable[Person]) -> str | None:
    """A third-person pronoun of the memory that stands for someone the conversation named, when the memory names
    none of the people it may stand for ("She's a nurse." for the user's sister Sofia); None when every such pronoun
    is resolved."""
    people = list(people)
    for pronoun in dict.fromkeys(p for person in people for p in person.pronouns):
        if not _mentions(text, pronoun):
            continue
        candidates = [person for person in people if pronoun in person.pronouns]
        if not any(_mentions(text, word) for person in candidates for word in person.words):
            return pronoun
    return None


def relative_dates(text: str) -> list[str]:
    """The words of the text that date something relative to when it was said ("last Tuesday", "two weeks ago")."""
    return [m.group(0) for m in RELATIVE_DATE.finditer(normalize(text))]


def _month(number: int) -> str:
    name = MONTHS[number - 1]
    return f"(?:{name}|{name[:3]})"


def date_resolved(text: str, resolved: str) -> bool:
    """Whether the text names the date a relative date resolves to: the day (`YYYY-MM-DD`: ISO, "8 May 2026", "May
    8th, 2026"), the month (`YYYY-MM`: ISO, "May 2026", or any day of it) or the year (`YYYY`)."""
    plain = normalize(text)
    parts = resolved.split("-")
    year = parts[0]
    if len(parts) == 1:
        return re.search(rf"(?<!\d){year}(?!\d)", plain) is not None
    month = _month(int(parts[1]))
    if len(parts) == 2:
        pattern = rf"{year}-{parts[1]}|{month}\.?\s+(?:\d{{1,2}}(?:st|nd|rd|th)?,?\s+)?{year}"
    else:
        day = str(int(parts[2]))
        ordinal = rf"{day}(?:st|nd|rd|th)?"
        pattern = rf"{resolved}|(?<!\d){ordinal}\s+(?:of\s+)?{month}\.?,?\s+{year}|{month}\.?\s+{ordinal},?\s+{year}"
    return re.search(pattern, plain) is not None


def judge(memory: Stored, facts: Sequence[Fact], people: Sequence[Person] = ()) -> Verdict:
    """Which facts of its user the memory states, or why it is junk."""
    if memory.assistant_only:
        return Verdict(memory, (), (), "assistant's words")
    gold = tuple(f.uid for f in facts if f.kind == "gold" and f.rule.matches(memory.text))
    acceptable = tuple(f.uid for f in facts if f.kind == "acceptable" and f.rule.matches(memory.text))
    if gold or acceptable:
        return Verdict(memory, gold, acceptable, None)
    if memory.text.rstrip().endswith("?"):
        return Verdict(memory, (), (), "a question")
    if lost_subject(memory.text, people):
        return Verdict(memory, (), (), "lost its subject")
    return Verdict(memory, (), (), "matches no fact")


def duplicates(verdicts: Sequence[Verdict]) -> dict[str, list[str]]:
    """Gold facts stated by more than one active memory, with those memories' texts."""
    by_fact: dict[str, list[str]] = {}
    for verdict in verdicts:
        if verdict.memory.active:
            for uid in verdict.gold:
                by_fact.setdefault(uid, []).append(verdict.memory.text)
    return {uid: texts for uid, texts in sorted(by_fact.items()) if len(texts) > 1}


@dataclass(frozen=True)
class GoldCheck:
    """One gold fact, checked right after its conversation was added."""

    fact: Fact
    matched_by: tuple[str, ...]  # texts of the active memories stating it

    @property
    def stored(self) -> bool:
        return bool(self.matched_by)

    @property
    def date_resolved(self) -> bool | None:
        """For a relative-date fact that was stored: whether a memory stating it names the resolved date."""
        if self.fact.date is None or not self.stored:
            return None
        resolved = self.fact.date.resolved
        return any(date_resolved(text, resolved) for text in self.matched_by)


def check_gold(facts: Iterable[Fact], memories: Iterable[Stored]) -> list[GoldCheck]:
    """Each gold fact with the active memories (not the assistant's words) that state it."""
    usable = [m for m in memories if m.active and not m.assistant_only]
    return [GoldCheck(f, tuple(m.text for m in usable if f.rule.matches(m.text))) for f in facts if f.kind == "gold"]


def gold_figures(checks: Sequence[GoldCheck]) -> dict[str, dict[str, int | float | None]]:
    """Share of gold facts stored: all of them, and by kind of fact."""
    groups = {
        "all": list(checks),
        "self_introductions": [c for c in checks if c.fact.key == "name"],
        "about_a_third_person": [c for c in checks if c.fact.about],
        "need_the_assistants_turn": [c for c in checks if c.fact.context],
        "with_a_relative_date": [c for c in checks if c.fact.date],
    }
    return {
        name: {
            "facts": len(group),
            "stored": sum(c.stored for c in group),
            "share": share(sum(c.stored for c in group), len(group)),
        }
        for name, group in groups.items()
    }


def hit_kind(hit: Hit, current: Fact, outdated: Sequence[Fact], assistant_only: Mapping[str, bool]) -> HitKind:
    if assistant_only.get(hit.id, False):
        return "other"
    if current.rule.matches(hit.text):
        return "current"
    if any(f.rule.matches(hit.text) for f in outdated):
        return "outdated"
    return "other"


@dataclass(frozen=True)
class ProbeOutcome:
    change: str
    person: str
    question: str
    current_rank: int | None  # 1-based rank of the first hit stating the current fact
    outdated_rank: int | None
    first: str | None  # the text ranked first
    first_kind: HitKind | None
    hits: int

    @property
    def top1(self) -> bool:
        return self.current_rank == 1

    @property
    def outdated_above(self) -> bool:
        """The outdated fact ranks above the current one, or is found while the current one is not."""
        if self.outdated_rank is None:
            return False
        return self.current_rank is None or self.outdated_rank < self.current_rank


def rank_probe(
    change: str,
    person: str,
    question: str,
    hits: Sequence[Hit],
    facts: tuple[Fact, Sequence[Fact]],
    assistant_only: Mapping[str, bool],
) -> ProbeOutcome:
    """Where the current and the outdated fact rank in the hits of a probe's question."""
    current, outdated = facts
    kinds = [hit_kind(h, current, outdated, assistant_only) for h in hits]
    current_rank = next((i + 1 for i, k in enumerate(kinds) if k == "current"), None)
    outdated_rank = next((i + 1 for i, k in enumerate(kinds) if k == "outdated"), None)
    first = hits[0].text if hits else None
    return ProbeOutcome(
        change, person, question, current_rank, outdated_rank, first, kinds[0] if kinds else None, len(hits)
    )


def probe_figures(outcomes: Sequence[ProbeOutcome]) -> dict[str, dict[str, int | float | None]]:
    """Current fact top-1 and outdated above current: third-person questions, first-person ones, and all."""
    out: dict[str, dict[str, int | float | None]] = {}
    for person in ("third", "first", "all"):
        group = [o for o in outcomes if person in ("all", o.person)]
        out[person] = {
            "probes": len(group),
            "current_top1": sum(o.top1 for o in group),
            "current_top1_share": share(sum(o.top1 for o in group), len(group)),
            "outdated_above_current": sum(o.outdated_above for o in group),
            "outdated_above_current_share": share(sum(o.outdated_above for o in group), len(group)),
            "current_found": sum(o.current_rank is not None for o in group),
        }
    return out
