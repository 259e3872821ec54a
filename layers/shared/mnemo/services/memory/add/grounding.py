"""Whether a fact the LLM extracted is in the conversation: said by the user, in words the messages hold.

A model copies the prompt's own examples, takes an assistant's remark for the user's, or states general knowledge
as a fact of the user. A fact is kept only when

- it cites a user message (an assistant's message counts only when a later user message confirms it: "yes", "that's
  right"), or cites nothing and a sentence of the user's messages supports it;
- the messages it rests on share at least one content word with it; and
- every name it holds (a capitalised word past its first, other than a month or a weekday, which a resolved date
  brings) appears in those messages.

A fact that fails is dropped, never filed as the user's with a false source."""

from __future__ import annotations

import re
from collections.abc import Sequence

from mnemo.domain.memory import SourceMessage
from mnemo.services.commands import Message
from mnemo.services.extraction.dates import MONTHS, WEEKDAYS
from mnemo.services.extraction.wording import content_words, tokens
from mnemo.services.memory.add.provenance import best_sentence

CONFIRMATIONS = frozenset(
    "yes yeah yep yup yea correct exactly right true sure indeed absolutely definitely affirmative".split()
)
DENIALS = frozenset("no not nope nah never wrong".split())
_NAME = re.compile(r"(?<![\w'’])[A-Z][\w'’-]*")
_NOT_NAMES = frozenset(MONTHS) | frozenset(WEEKDAYS) | {"i", "i'm", "i've", "i'd", "i'll"}


def grounded_sources(messages: Sequence[Message], fact: str, numbers: Sequence[int]) -> tuple[SourceMessage, ...]:
    """The sources of a fact the LLM extracted, citing messages `numbers`; empty when the fact is not grounded."""
    usable = [n for n in dict.fromkeys(numbers) if 0 <= n < len(messages) and _citable(messages[n])]
    users = [n for n in usable if messages[n].role == "user"]
    if users:
        rested_on = usable
    else:
        confirmed = _confirmed(messages, usable)
        rested_on = [*usable, confirmed] if usable and confirmed is not None else []
    if rested_on and supports(" ".join(messages[n].content for n in rested_on), fact):
        return tuple(best_sentence(messages[n], n, fact)[0] for n in rested_on)
    if usable and not users:
        return ()  # an assistant's words the user never confirmed
    return _searched(messages, fact)


def supports(text: str, fact: str) -> bool:
    """Whether `text` shares a content word with the fact and holds every name the fact holds."""
    said = set(tokens(text))
    if not said & set(content_words(fact)):
        return False
    return all(name in said for name in names(fact))


def names(fact: str) -> list[str]:
    """The names a fact holds: its capitalised words past the first, but months, weekdays and "I" (lower case)."""
    found = [m.group().lower() for m in _NAME.finditer(fact) if m.start() > 0]
    return [tokens(name)[0] for name in found if tokens(name) and name not in _NOT_NAMES]


def _searched(messages: Sequence[Message], fact: str) -> tuple[SourceMessage, ...]:
    """The one sentence of the user's messages that supports the fact and shares most words with it, or none."""
    best = [best_sentence(m, n, fact) for n, m in enumerate(messages) if m.role == "user" and supports(m.content, fact)]
    shared = [b for b in best if b[1] > 0]
    return (max(shared, key=lambda b: b[1])[0],) if shared else ()


def _confirmed(messages: Sequence[Message], cited: Sequence[int]) -> int | None:
    """The user message that confirms the cited assistant messages: the first user message after the last of them,
    when it opens with a word of assent."""
    if not cited:
        return None
    after = next((n for n in range(max(cited) + 1, len(messages)) if messages[n].role == "user"), None)
    if after is None:
        return None
    opening = set(tokens(messages[after].content)[:2])
    return after if opening & CONFIRMATIONS and not opening & DENIALS else None


def _citable(message: Message) -> bool:
    return message.role != "system" and bool(message.content.strip())
