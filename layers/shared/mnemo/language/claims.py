"""What a statement claims, as a language pack reads it: (subject, attribute, value). The reading is the pack's
(mnemo.language.Language `claims`); the shape, and when two claims cannot both be current, are every language's.

Two claims of the same subject and attribute with different values cannot both be current (`Claim.conflicts`): the
one said later replaces the other. A negated claim ("I'm not vegetarian anymore") has the value it denies and
`negated`: it conflicts with the affirmed claim of that value."""

from __future__ import annotations

from dataclasses import dataclass

USER = "user"  # the subject of a statement about the user themselves


@dataclass(frozen=True, slots=True)
class Claim:
    subject: str  # "user", or the person the statement opens with ("my sister emma")
    attribute: str  # "residence", "employer", "occupation", "diet", "relationship", "age", "name", "favorite food", …
    value: str  # normalized: lower case, single spaces
    negated: bool = False

    def conflicts(self, other: Claim) -> bool:
        """Whether the two cannot both be current: the same subject and attribute, and either two values
        ("lives in Paris", "lives in Lisbon") or one value affirmed and denied ("works at Google", "quit Google").
        Whichever was said later is current."""
        if self.attribute != other.attribute or not same_subject(self.subject, other.subject):
            return False
        if self.negated != other.negated:
            return self.value == other.value
        return not self.negated and self.value != other.value


def same_subject(a: str, b: str) -> bool:
    """The same person: "my sister" is "my sister emma" (one named later), not "my sister lucy"."""
    return a == b or a.startswith(b + " ") or b.startswith(a + " ")
