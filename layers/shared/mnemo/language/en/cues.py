"""The words a match of a regular expression cannot do without, read from the expression itself: a text that holds
none of them cannot match, so the expression is not run on it. mnemo.language.en.claims runs some sixty expressions on
every memory; most texts hold the cue words of a few.

The cues of a sequence are those of one of its required parts (the part whose shortest cue is longest): a run of
literal characters, a group, an alternation (the cues of all its branches), or a repeat of at least one. Texts and
cues are compared case-folded (an expression's case-insensitive letters match the case variants Python's `re` knows
of, which case folding maps to the same letter; the dotless ı and a combining dot above are folded too), so that a
cue never rules out a text the expression would match. Cues are ASCII; an expression without any is always run."""

from __future__ import annotations

import re
from collections.abc import Iterator

from mnemo.language.en.regex_parts import Alternation, Anchor, Literal, Part, Repeat, Sequence, parse

_MAX_CUES = 16  # more words than this make the check cost about what the expression costs: the next part is taken

_last: tuple[str, str] = ("", "")  # the text folded last, and its folding (claims asks for one text many times)


def folded(text: str) -> str:
    """The text as cues are compared with it."""
    global _last
    last = _last
    if last[0] is text:
        return last[1]
    fold = text.casefold()
    if not fold.isascii():
        fold = fold.replace("ı", "i").replace("\u0307", "")
    _last = (text, fold)
    return fold


def cues_of(pattern: re.Pattern[str]) -> tuple[str, ...] | None:
    """Words (case-folded) of which any match of the pattern holds at least one; None when it has none."""
    found = _alternation(parse(pattern.pattern))
    return tuple(sorted(found)) if found else None


def _alternation(part: Alternation) -> set[str] | None:
    """The cues of all the branches (None when one has none), after their common literal prefix ("vegan|vegetarian":
    "veg" first)."""
    prefix, rests = _common_prefix(part.branches)
    if prefix:
        return _sequence((*prefix, Alternation(rests)))
    if len(part.branches) == 1:
        return _sequence(part.branches[0])
    branches = [_sequence(branch) for branch in part.branches]
    return None if any(b is None for b in branches) else set().union(*(b for b in branches if b))


def _common_prefix(branches: tuple[Sequence, ...]) -> tuple[Sequence, tuple[Sequence, ...]]:
    """The literal parts all the branches (more than one) open with, and what is left of each."""
    if len(branches) < 2:
        return (), branches
    size = 0
    while all(len(b) > size and isinstance(b[size], Literal) for b in branches) and (
        len({b[size] for b in branches}) == 1
    ):
        size += 1
    return branches[0][:size], tuple(b[size:] for b in branches)


def _sequence(items: Sequence) -> set[str] | None:
    """The cues of the required part whose shortest cue is longest (of those with few enough cues, when any has)."""
    candidates = _required_parts(items)
    usable = [c for c in candidates if len(c) <= _MAX_CUES] or candidates
    if not usable:
        return None
    return max(usable, key=lambda cues: (min(map(len, cues)), -len(cues)))


def _required_parts(items: Sequence) -> list[set[str]]:
    """The cues of each required part of a sequence: its runs of literal characters, and its other parts that have
    cues."""
    candidates: list[set[str]] = []
    run: list[str] = []
    for item in items:
        if isinstance(item, Literal) and item.char.isascii():
            run.append(item.char.casefold())
            continue
        if isinstance(item, Anchor):  # an anchor (\b, ^, $) takes no character: the run goes on
            continue
        if run:
            candidates.append({"".join(run)})
            run.clear()
        part = _part(item)
        if part:
            candidates.append(part)
    if run:
        candidates.append({"".join(run)})
    return candidates


def _part(item: Part) -> set[str] | None:
    """The cues of one part of a sequence that is not a literal: a group or alternation, a repeat of one or more."""
    if isinstance(item, Alternation):
        return _alternation(item)
    if isinstance(item, Repeat) and item.least >= 1:
        return _part(item.item) if not isinstance(item.item, Literal) else _sequence((item.item,))
    return None  # a class, a lookaround, a back-reference, an optional part: nothing it must hold


class CuedPattern:
    """A compiled pattern that is run only on texts holding one of its cue words (same results as the pattern's)."""

    __slots__ = ("cues", "pattern")

    def __init__(self, pattern: re.Pattern[str]) -> None:
        self.pattern = pattern
        self.cues = cues_of(pattern)

    def may_match(self, text: str) -> bool:
        cues = self.cues
        if cues is None:
            return True
        fold = folded(text)
        for cue in cues:  # noqa: SIM110 - a loop: any() over a generator costs more than the checks
            if cue in fold:
                return True
        return False

    def search(self, text: str) -> re.Match[str] | None:
        return self.pattern.search(text) if self.may_match(text) else None

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        return self.pattern.finditer(text) if self.may_match(text) else iter(())


CUED: list[CuedPattern] = []  # every cued pattern of the pack (tests/unit/language: their cues are sound)


def cued(pattern: str, flags: int | re.RegexFlag = 0) -> CuedPattern:
    """The pattern, compiled and cued."""
    return cue(re.compile(pattern, flags))


def cue(pattern: re.Pattern[str]) -> CuedPattern:
    """A compiled pattern (a pack's data), cued."""
    made = CuedPattern(pattern)
    CUED.append(made)
    return made
