"""The extractor used when no LLM is configured: what the user says of themselves and the people and things in their
life, one statement per sentence, each citing where it came from — and nothing else.

For each user message, sentence by sentence (mnemo.services.extraction.sentences):
- a question is dropped, but for what it says before it asks ("I'm allergic to peanuts, is satay safe?" keeps "I'm
  allergic to peanuts"); filler or an acknowledgement is dropped ("ugh ok thx", "haha yes"), and so is a request to the
  assistant ("I need dinner ideas", "Can you write an email to my manager…") or a sentence with nothing but vague
  words ("I'll think about it");
- a self-introduction is kept as the user's name ("I'm Alice." -> "Name is Alice");
- a sentence opening with a third person pronoun is about the last person the conversation named that it can
  stand for, written with them as its subject ("She's a nurse." -> "My sister Emma is a nurse."); with nobody to
  stand for, it is not the user's fact and is dropped (mnemo.services.extraction.people);
- a sentence that speaks of the user (I, my, we, our…) or of a person they named is kept;
- any other sentence is a fragment: the first sentence of a reply to the assistant's question that says more than
  filler ("Well…") is read with it
  ("Where do you hike?" + "Mostly in the Alps." -> "Hikes mostly in the Alps", citing both messages:
  mnemo.services.extraction.answers); otherwise it is dropped (small talk, "Mostly in the Alps." on its own);
- relative dates are written as the dates they mean at the message's time ("last Tuesday" -> "on Tuesday 11 March
  2025": mnemo.services.extraction.dates).
The assistant's own sentences are never the user's memories; they only give context (the question an answer
answers, the people they name). A statement keeps at least one content word beyond filler.

What it does not do: rewrite the user's sentences otherwise (it keeps "I …"), resolve a pronoun inside a sentence
("I visited her"), merge two sentences into one fact, or judge whether a fact is worth keeping beyond these rules.
Near-duplicates and facts that replace older ones are the memory service's (mnemo.services.memory_service)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from mnemo.services.extraction.answers import answered
from mnemo.services.extraction.dates import resolve_dates
from mnemo.services.extraction.introductions import introduced_name, introduction
from mnemo.services.extraction.people import People
from mnemo.services.extraction.sentences import Sentence, sentences
from mnemo.services.extraction.wording import (
    content_words,
    is_filler,
    is_question,
    is_request,
    is_vague,
    speaks_of_self,
)


@dataclass(frozen=True, slots=True)
class Cited:
    """Where a statement came from: a sentence of a message (`content[start:end]` of message `message_index`)."""

    message_index: int
    start: int
    end: int
    text: str


@dataclass(frozen=True, slots=True)
class Statement:
    text: str
    cited: tuple[Cited, ...]  # the user's sentence, and the assistant's question it answers when it needed it

    @property
    def message_index(self) -> int:
        """The user's message it came from."""
        return self.cited[-1].message_index


@dataclass(frozen=True, slots=True)
class Turn:
    index: int
    role: str
    content: str


def extract_statements(turns: Sequence[Turn], at: datetime) -> list[Statement]:
    """The statements of a conversation, in order; `at`: when its messages were sent (relative dates are read
    against it)."""
    people = People()
    questions: list[Cited] = []  # the assistant's questions in its last message, while the user has not replied
    found: list[Statement] = []
    for turn in turns:
        spans = sentences(turn.content)
        if turn.role == "assistant":
            for span in spans:
                people.observe(span.text)
            questions = [_cited(turn.index, s) for s in spans if is_question(s.text)]
            continue
        if turn.role != "user":
            continue
        for span in spans:
            statement = _statement(span, turn.index, people, questions, at)
            people.observe(span.text)
            if statement is not None:
                found.append(statement)
            if statement is not None or not is_filler(span.text):
                questions = []  # only the reply's first sentence that says something answers the question
        questions = []
    return found


def _statement(
    span: Sentence, index: int, people: People, questions: Sequence[Cited], at: datetime
) -> Statement | None:
    """What one user sentence says of the user, or None (see the module)."""
    said = _said_before_asking(span) if is_question(span.text) else span
    if said is None or is_request(said.text):
        return None
    span = said
    cited = _cited(index, span)
    name = introduced_name(span.text)
    if name is not None:
        return Statement(introduction(name), (cited,))
    if is_filler(span.text) and not questions:
        return None
    resolved = people.resolve(span.text)
    if resolved is None:
        return None
    resolved = people.introduce(resolved)
    if resolved != span.text or speaks_of_self(span.text) or people.names_someone(span.text):
        meaningful = bool(content_words(resolved)) and not is_vague(resolved)
        return Statement(resolve_dates(resolved, at), (cited,)) if meaningful else None
    return _answer(span, cited, questions, at)


_ASKING = re.compile(
    r",\s*(?:and\s+|so\s+|but\s+)?(?=(?:is|are|can|could|would|should|do|does|did|will|what|how|where|when|why|"
    r"which|who|any|anything|ideas|thoughts|tips)\b)",
    re.IGNORECASE,
)


def _said_before_asking(span: Sentence) -> Sentence | None:
    """What a question says before it asks ("I'm training for the Dublin half marathon, can you make me a plan?" ->
    "I'm training for the Dublin half marathon"), as a sentence of its own; None when it says nothing first."""
    parts = _ASKING.split(span.text, maxsplit=1)
    if len(parts) < 2 or not parts[0].strip() or is_question(parts[0]):
        return None
    said = parts[0].rstrip(" ,;")
    return Sentence(said, span.start, span.start + len(said))


def _answer(span: Sentence, cited: Cited, questions: Sequence[Cited], at: datetime) -> Statement | None:
    """A fragment read with the assistant's question it answers (its last one that gives a reading), or None."""
    for question in reversed(questions):
        read = answered(question.text, span.text)
        if read is not None:
            return Statement(resolve_dates(read, at), (question, cited))
    return None


def _cited(index: int, span: Sentence) -> Cited:
    return Cited(index, span.start, span.end, span.text)
