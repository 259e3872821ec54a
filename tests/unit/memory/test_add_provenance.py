"""Where a new memory came from (services/memory/add/provenance.py): the sentences of the add's messages it cites."""

from __future__ import annotations

from mnemo.domain.memory import SourceMessage
from mnemo.language import Cited
from mnemo.language.en import english
from mnemo.services.commands import Message
from mnemo.services.memory.add.provenance import cited_sources, source_of

MESSAGES = [
    Message("system", "You are helpful."),
    Message("user", "I moved to Lisbon last year. I love the tiles.", "ana"),
    Message("assistant", "Lisbon is lovely."),
    Message("user", "Thanks!"),
]


def test_a_cited_user_message_is_narrowed_to_the_sentence_sharing_most_words() -> None:
    (source,) = cited_sources(english(), MESSAGES, "Moved to Lisbon last year", [1])
    assert source == SourceMessage("user", "I moved to Lisbon last year.", 1, "ana", (0, 28))


def test_a_cited_message_sharing_no_word_is_cited_whole() -> None:
    assert cited_sources(english(), MESSAGES, "Is polite", [3]) == (SourceMessage("user", "Thanks!", 3),)


def test_citations_out_of_range_of_the_system_or_repeated_are_dropped() -> None:
    sources = cited_sources(english(), MESSAGES, "Loves the tiles", [0, 1, 1, 9, -1, 2])
    assert [s.index for s in sources] == [1, 2]
    assert sources[0].content == "I love the tiles."


def test_without_a_user_message_among_the_citations_the_users_messages_are_searched() -> None:
    (source,) = cited_sources(english(), MESSAGES, "Loves the tiles", [2])
    assert (source.index, source.content) == (1, "I love the tiles.")


def test_when_no_user_sentence_shares_a_word_every_user_message_is_cited() -> None:
    assert [s.index for s in cited_sources(english(), MESSAGES, "Zzz", [])] == [1, 3]


def test_a_statement_cites_the_sentence_it_was_read_from_or_the_whole_message() -> None:
    message = MESSAGES[1]
    part = source_of(message, Cited(1, 29, 46, "I love the tiles."))
    whole = source_of(Message("user", "Hi there."), Cited(0, 0, 9, "Hi there."))
    assert (part.content, part.span) == ("I love the tiles.", (29, 46))
    assert (whole.content, whole.span) == ("Hi there.", None)
