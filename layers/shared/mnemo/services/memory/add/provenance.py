"""Where a new memory came from: the sentences of the add's messages it cites (`SourceMessage`, with its span in
the message). A statement of the extractor cites the sentences it was read from; a fact of the LLM cites the
messages the LLM names, checked, each narrowed to the sentence sharing most words with the fact."""

from __future__ import annotations

from collections.abc import Sequence

from mnemo.domain.memory import SourceMessage
from mnemo.language import Cited, Language
from mnemo.services.commands import Message


def cited_sources(
    language: Language, messages: Sequence[Message], fact: str, numbers: Sequence[int]
) -> tuple[SourceMessage, ...]:
    """The sources of a fact the LLM extracted: the messages it cited, checked — in range, not empty, not the
    system's, at least one of them the user's (else the LLM's answer is not trusted and the user's messages are
    searched instead) — each as the sentence that shares most words with the fact (its span in the message), or
    whole when none does. Without a trusted citation, the one sentence of the user's messages sharing most words
    with the fact, or every user message when none shares any."""
    usable = [n for n in dict.fromkeys(numbers) if 0 <= n < len(messages) and _citable(messages[n])]
    if any(messages[n].role == "user" for n in usable):
        return tuple(best_sentence(language, messages[n], n, fact)[0] for n in usable)
    return _searched(language, messages, fact)


def _searched(language: Language, messages: Sequence[Message], fact: str) -> tuple[SourceMessage, ...]:
    """The one sentence of the user's messages sharing most words with the fact, or every user message when none
    shares any."""
    users = [n for n, m in enumerate(messages) if m.role == "user" and m.content.strip()]
    best = [best_sentence(language, messages[n], n, fact) for n in users]
    shared = [b for b in best if b[1] > 0]
    if shared:
        return (max(shared, key=lambda b: b[1])[0],)
    return tuple(SourceMessage(messages[n].role, messages[n].content, n, messages[n].name) for n in users)


def source_of(message: Message, cited: Cited) -> SourceMessage:
    """The sentence of a message a statement came from, with its place in the message."""
    return _sentence_of(message, cited.message_index, cited.text, cited.start, cited.end)


def _citable(message: Message) -> bool:
    return message.role != "system" and bool(message.content.strip())


def best_sentence(language: Language, message: Message, index: int, fact: str) -> tuple[SourceMessage, int]:
    """The sentence of the message that shares most content words with the fact (the first of equals), with how many
    it shares; the whole message when it shares none."""
    wanted = set(language.content_words(fact))
    scored = [(len(wanted & set(language.content_words(s.text))), s) for s in language.sentences(message.content)]
    shared, best = max(scored, key=lambda pair: pair[0], default=(0, None))
    if best is None or shared == 0:
        return SourceMessage(message.role, message.content, index, message.name), 0
    return _sentence_of(message, index, best.text, best.start, best.end), shared


def _sentence_of(message: Message, index: int, text: str, start: int, end: int) -> SourceMessage:
    """A sentence of a message as a source: with its span, unless it is the whole message (then cited whole)."""
    whole = message.content.strip() == text
    return SourceMessage(
        message.role, message.content if whole else text, index, message.name, None if whole else (start, end)
    )
