"""A note an agent's memory tool writes about its user, with no subject: "Prefers metric units.", "Allergic to
shellfish.", "Alice lives in Lisbon." The reference's own MCP server sends such notes through extraction as the one
message of an add; each is a fact of the user's, kept as written.

Read only when the add is that one user message (`extract_statements` decides), and only for a sentence the
conversational rules found nothing in: written as a sentence (it opens with a capital), about someone other than
the one speaking (no I or you), no request ("Please ..."), and saying something (two content words or more; not a
question, filler, small talk or a request). A sentence opening with a pronoun ("She is a nurse.") is about someone
the note does not name, and one opening with an article or "there" ("The weather is nice.") about the world, and
one opening with yes, an adverb or a preposition ("Yes, two cats.", "Mostly in the Alps.") answers a question asked
elsewhere: none is kept. The words are data (data/notes.toml)."""

from __future__ import annotations

from mnemo.language.en.extraction.introductions import is_greeting
from mnemo.language.en.extraction.wording import (
    FIRST_PERSON,
    INTERJECTIONS,
    capitalized,
    content_words,
    is_filler,
    is_question,
    is_request,
    is_small_talk,
    tokens,
)
from mnemo.language.en.words import word_set

_FILE = "notes.toml"
SECOND_PERSON = word_set(_FILE, "second_person")
# Opening words of a sentence about someone the note does not name, or about the world ("The weather is nice."),
# and of a fragment that answers something not asked here ("Mostly in the Alps.", "Yes, two cats.").
NO_SUBJECT_OPENERS = word_set(_FILE, "no_subject_openers")
POLITE_OPENERS = word_set(_FILE, "polite_openers")  # a request to the assistant, not a note
MIN_CONTENT_WORDS = 2


def agent_note(sentence: str, continued: bool = False) -> str | None:
    """The note as a memory says it (the sentence, trimmed), or None when the sentence is no note of that kind;
    `continued`: it goes on a note after a semicolon ("Prefers tea; dislikes coffee."), where it needs no capital."""
    text = sentence.strip()
    if not (text[:1].isupper() or continued):
        return None
    found = tokens(text)
    if not _opens_as_a_note(found) or any(t in FIRST_PERSON or t in SECOND_PERSON for t in found):
        return None
    if len(content_words(text)) < MIN_CONTENT_WORDS or _says_nothing(text):
        return None
    return capitalized(text.rstrip(";, "))


def _opens_as_a_note(found: list[str]) -> bool:
    """Its first word is none of a sentence about someone unnamed or the world, a request, an interjection."""
    return bool(found) and not (
        found[0] in NO_SUBJECT_OPENERS or found[0] in POLITE_OPENERS or found[0] in INTERJECTIONS
    )


def _says_nothing(text: str) -> bool:
    return is_question(text) or is_filler(text) or is_greeting(text) or is_small_talk(text) or is_request(text)
