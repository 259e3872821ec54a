"""A question about the user, asked by name, read as the user's own: "Where does Alice live?" -> "Where do I live?".

In a search scoped to one user every memory is about them, so their name in the question picks nothing out — it only
pulls toward the memories that happen to hold the name ("Name is Alice") and away from the ones that say "I". The
question is rewritten in the first person, as the memories are written: "does Alice" -> "do I", "is Alice" ->
"am I", "has Alice" -> "have I", "Alice's" -> "my", and the name elsewhere -> "I" (as a subject) or "me"."""

from __future__ import annotations

import re
from collections.abc import Iterable

_AUXILIARIES = {"does": "do", "is": "am", "has": "have", "was": "was", "did": "did", "can": "can", "will": "will"}


def in_first_person(question: str, names: Iterable[str]) -> str:
    """The question with the user's `names` (each word of them) read as "I"; unchanged when it names none."""
    words = sorted({w for name in names for w in name.split() if w}, key=len, reverse=True)
    if not words:
        return question
    name = "(?:" + "|".join(re.escape(w) for w in words) + ")(?:\\s+(?:" + "|".join(re.escape(w) for w in words) + "))*"
    out = re.sub(rf"\b{name}(?:'s|’s)(?!\w)", "my", question, flags=re.IGNORECASE)
    out = re.sub(
        rf"\b(?P<aux>{'|'.join(_AUXILIARIES)})\s+{name}\b",
        lambda m: f"{_AUXILIARIES[m.group('aux').lower()]} I",
        out,
        flags=re.IGNORECASE,
    )
    out = re.sub(rf"^{name}\b", "I", out, flags=re.IGNORECASE)
    out = re.sub(
        rf"\b(?:to|for|with|about|of|from|by|at)\s+{name}\b",
        lambda m: m.group(0).split()[0] + " me",
        out,
        flags=re.IGNORECASE,
    )
    return re.sub(rf"\b{name}\b", "I", out, flags=re.IGNORECASE)
