"""Whether a fact the LLM extracted is in the conversation: said by the user, in words the messages hold.

A model copies the prompt's own examples, takes an assistant's remark for the user's, or states general knowledge
as a fact of the user. A fact is kept only when

- it cites a user message (an assistant's message counts only when the next user message confirms it: "yes",
  "that's right"), or a sentence of the user's messages supports it when it cites nothing, or only messages that do
  not say it (a small model's numbers are often off by one); an assistant's message that says it and that the user
  never confirmed makes it the assistant's, and it is dropped;
- the messages it rests on share at least one content word with it; and
- every name it holds (the language pack's `names`: not the words a resolved date brings) appears in them; and
- a fact that says what the user is called ("Is called Dana") rests on a user message introducing its speaker by
  that name: a model also takes the people a user speaks of for the user.

A fact that fails is dropped, never filed as the user's with a false source. The words are the language pack's."""

from __future__ import annotations

from collections.abc import Sequence

from mnemo.domain.memory import SourceMessage
from mnemo.language import Language
from mnemo.services.commands import Message
from mnemo.services.memory.add.provenance import best_sentence


def grounded_sources(
    language: Language, messages: Sequence[Message], fact: str, numbers: Sequence[int]
) -> tuple[SourceMessage, ...]:
    """The sources of a fact the LLM extracted, citing messages `numbers`; empty when the fact is not grounded."""
    if not _introduced(language, messages, fact):
        return ()
    usable = [n for n in dict.fromkeys(numbers) if 0 <= n < len(messages) and _citable(messages[n])]
    users = [n for n in usable if messages[n].role == "user"]
    if users:
        rested_on = usable
    else:
        confirmed = _confirmed(language, messages, usable)
        rested_on = [*usable, confirmed] if usable and confirmed is not None else []
    if rested_on and supports(language, " ".join(messages[n].content for n in rested_on), fact):
        return tuple(best_sentence(language, messages[n], n, fact)[0] for n in rested_on)
    if usable and not users and supports(language, " ".join(messages[n].content for n in usable), fact):
        return ()  # an assistant's words the user never confirmed
    return _searched(language, messages, fact)  # cited wrongly, or not at all


def supports(language: Language, text: str, fact: str) -> bool:
    """Whether `text` shares a content word with the fact and holds every name the fact holds."""
    said = set(language.words(text))
    if not said & set(language.content_words(fact)):
        return False
    return all(name in said for name in language.names(fact))


def _introduced(language: Language, messages: Sequence[Message], fact: str) -> bool:
    """False when the fact says what the user is called and no user message introduces its speaker by that name."""
    name = language.claimed_name(fact)
    return name is None or any(m.role == "user" and language.introduces(m.content, name) for m in messages)


def _searched(language: Language, messages: Sequence[Message], fact: str) -> tuple[SourceMessage, ...]:
    """The one sentence of the user's messages that supports the fact and shares most words with it, or none."""
    best = [
        best_sentence(language, m, n, fact)
        for n, m in enumerate(messages)
        if m.role == "user" and supports(language, m.content, fact)
    ]
    shared = [b for b in best if b[1] > 0]
    return (max(shared, key=lambda b: b[1])[0],) if shared else ()


def _confirmed(language: Language, messages: Sequence[Message], cited: Sequence[int]) -> int | None:
    """The user message that confirms the cited assistant messages: the first user message after the last of them,
    when it says yes."""
    if not cited:
        return None
    after = next((n for n in range(max(cited) + 1, len(messages)) if messages[n].role == "user"), None)
    return after if after is not None and language.confirms(messages[after].content) else None


def _citable(message: Message) -> bool:
    return message.role != "system" and bool(message.content.strip())
