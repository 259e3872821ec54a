"""A small reader of the regular expressions a pack writes, enough to say which literal words a match cannot do
without (.cues). It knows the syntax the packs use: literals and escapes, classes, groups of every kind, alternation
and repeats; what it does not know (a class, a lookaround, a back-reference) it reads as a part that requires
nothing, so that a cue it derives is always sound. It is the pack's own: Python's private `re._parser` is not
used."""

from __future__ import annotations

from dataclasses import dataclass

_CLASS_ESCAPES = frozenset("dDsSwW")
_ANCHOR_ESCAPES = frozenset("bBAZ")
_CONTROL_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "f": "\f", "v": "\v", "a": "\a"}


@dataclass(frozen=True, slots=True)
class Literal:
    char: str


@dataclass(frozen=True, slots=True)
class Anchor:
    """A part that takes no character and does not end a run of literals (\\b, ^, $)."""


@dataclass(frozen=True, slots=True)
class Opaque:
    """A part that requires no literal: a class, any character, a lookaround, a back-reference."""


@dataclass(frozen=True, slots=True)
class Alternation:
    branches: tuple[Sequence, ...]


@dataclass(frozen=True, slots=True)
class Repeat:
    item: Part
    least: int


Part = Literal | Anchor | Opaque | Alternation | Repeat
Sequence = tuple[Part, ...]


class _Reader:
    def __init__(self, pattern: str) -> None:
        self.text = pattern
        self.at = 0

    def peek(self, ahead: int = 0) -> str:
        i = self.at + ahead
        return self.text[i] if i < len(self.text) else ""

    def take(self, count: int = 1) -> str:
        taken = self.text[self.at : self.at + count]
        self.at += count
        return taken

    def alternation(self) -> Alternation:
        branches = [self.sequence()]
        while self.peek() == "|":
            self.take()
            branches.append(self.sequence())
        return Alternation(tuple(branches))

    def sequence(self) -> Sequence:
        parts: list[Part] = []
        while self.peek() not in ("", "|", ")"):
            part = self.atom()
            parts.append(self.repeated(part))
        return tuple(parts)

    def repeated(self, part: Part) -> Part:
        least = self.quantifier()
        if least is None:
            return part
        if self.peek() in ("?", "+"):  # lazy or possessive
            self.take()
        return Repeat(part, least)

    def quantifier(self) -> int | None:
        char = self.peek()
        if char in ("*", "?"):
            self.take()
            return 0
        if char == "+":
            self.take()
            return 1
        if char == "{":
            end = self.text.find("}", self.at)
            body = self.text[self.at + 1 : end] if end > 0 else ""
            low, _, high = body.partition(",")
            if end > 0 and (low.isdigit() or (not low and high.isdigit())):
                self.at = end + 1
                return int(low) if low else 0
        return None

    def atom(self) -> Part:
        char = self.take()
        if char == "(":
            return self.group()
        if char == "[":
            self.skip_class()
            return Opaque()
        if char == "\\":
            return self.escape()
        if char in ("^", "$"):
            return Anchor()
        if char == ".":
            return Opaque()
        return Literal(char)

    def escape(self) -> Part:
        char = self.take()
        if char in _ANCHOR_ESCAPES:
            return Anchor()
        if char in _CLASS_ESCAPES or char.isdigit() or char in "xuUNp":
            return Opaque()  # a class, a back-reference or a code point: read as requiring nothing
        return Literal(_CONTROL_ESCAPES.get(char, char))

    def skip_class(self) -> None:
        if self.peek() == "^":
            self.take()
        if self.peek() == "]":
            self.take()
        while (char := self.take()) not in ("]", ""):
            if char == "\\":
                self.take()

    def group(self) -> Part:
        if self.peek() != "?":
            return self.closed(self.alternation())
        self.take()
        kind = self.peek()
        if kind == "#":  # a comment
            self.at = self.text.index(")", self.at) + 1
            return Anchor()
        if self.looks_around(kind):
            self.closed(self.alternation_after_prefix())
            return Opaque()  # a lookaround or a back-reference takes nothing of its own
        if kind == "P" and self.peek(1) == "<":
            self.at = self.text.index(">", self.at) + 1
        elif self.flags_alone():
            return Anchor()  # global flags: (?i)
        return self.closed(self.alternation())

    def looks_around(self, kind: str) -> bool:
        """(?=…), (?!…), (?<=…), (?<!…), or a back-reference by name (?P=…)."""
        behind = kind == "<" and self.peek(1) in ("=", "!")
        return kind in ("=", "!") or behind or self.text.startswith("P=", self.at)

    def flags_alone(self) -> bool:
        """The flags of (?:…), (?>…), (?i:…), (?i-s:…) read up to their group's body; whether they stood alone."""
        while self.peek() not in (":", ">", ")"):
            self.take()
        return self.take() == ")"

    def alternation_after_prefix(self) -> Alternation:
        while self.peek() not in ("=", "!", ">", ")"):
            self.take()
        self.take()
        return self.alternation()

    def closed(self, part: Alternation) -> Alternation:
        if self.take() != ")":
            raise ValueError(f"unbalanced group in {self.text!r}")
        return part


def parse(pattern: str) -> Alternation:
    """The parts of a regular expression, as an alternation of sequences (one branch when it has no `|`)."""
    reader = _Reader(pattern)
    found = reader.alternation()
    if reader.at != len(pattern):
        raise ValueError(f"unbalanced group in {pattern!r}")
    return found
