"""The one interface the core reads a language through. A pack (mnemo.language.en) implements it; the composition
root builds the pack and hands it to whoever needs it, through their constructors, so that no module of the core
knows which language it reads.

It is grouped by what the core asks: the claims of a statement and the facets an index files it under (versioned:
`version` changes when they may), the facets a question asks about, whether a statement says something changed,
the parts of a life a statement speaks of; the deterministic extractor's reading of messages; the few wording
helpers the core uses; the paraphrase guards of merging; the time words of queries; the default categories'
phrasings; the words of topics and of keyword search."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from typing import Protocol

from mnemo.language.claims import Claim
from mnemo.language.statements import Sentence, Statement, Turn
from mnemo.language.time_windows import Window


class FacetReading(Protocol):
    """The facets a search index files a memory under, and the version of the rules that read them: facets stored
    with another version are stale and read again."""

    @property
    def version(self) -> str: ...

    def facets(self, text: str) -> list[str]:
        """The attributes a memory states ("residence", "employer", "my sister emma residence", …)."""
        ...


class ClaimReading(FacetReading, Protocol):
    def claims(self, text: str) -> list[Claim]:
        """What the statement claims of its subject, each claim once."""
        ...

    def asked_facets(self, question: str) -> list[str]:
        """The facets a question asks about ("Where does she work now?" -> employer)."""
        ...

    def clauses(self, text: str) -> list[str]:
        """The clauses of a statement (the whole statement when it has none of three words or more)."""
        ...

    def says_it_changed(
        self, later: str, earlier: str, closeness: Callable[[], float], threshold: float, same_slot_threshold: float
    ) -> bool:
        """Whether the later statement makes the earlier likely out of date though their claims do not conflict:
        it says something changed, about a subject the earlier may be about, and `closeness()` reaches `threshold`
        (`same_slot_threshold` when both speak of one part of a life that holds one state at a time)."""
        ...

    def slots(self, text: str) -> frozenset[str]:
        """The parts of a life that hold one state at a time the statement speaks of (home, work, partner, …)."""
        ...


class MessageReading(Protocol):
    def statements(self, turns: Sequence[Turn], at: datetime) -> list[Statement]:
        """The deterministic extractor: the user's statements of a conversation whose messages were sent `at`."""
        ...

    def sentences(self, content: str) -> list[Sentence]:
        """The non-empty sentences of a message, each with its span."""
        ...


class Wording(Protocol):
    def content_words(self, sentence: str) -> list[str]: ...

    def case_folded(self, text: str) -> str:
        """The text as a comparison of names without case reads it."""
        ...

    def may_name(self, query: str, user_id: str) -> bool:
        """Whether a query may name the user: their id as a word of it, or a word that may be a name."""
        ...

    def in_first_person(self, question: str, names: Iterable[str]) -> str:
        """A question about the user named `names` asked in the first person ("Where does Alice live?" -> "Where do
        I live?"); the question itself when it names none of them."""
        ...


class GroundingWords(Protocol):
    """What checking that a fact an LLM extracted is in the conversation reads (mnemo.services.memory.add.grounding)."""

    def words(self, text: str) -> list[str]:
        """The text's words, lower case, a contraction read as its first word."""
        ...

    def names(self, fact: str) -> list[str]:
        """The names a fact holds (lower case): words that must appear in what it rests on, not dates' words."""
        ...

    def confirms(self, reply: str) -> bool:
        """Whether a reply opens by saying yes to what it answers ("Yes, for ten years", "That's right")."""
        ...

    def claimed_name(self, fact: str) -> str | None:
        """The name a fact says the user goes by ("Is called Dana" -> "Dana"), or None."""
        ...

    def introduces(self, message: str, name: str) -> bool:
        """Whether a message introduces its speaker by `name` ("hi im dana", "Dana here")."""
        ...

    def resolve_dates(self, text: str, at: datetime) -> str:
        """The text with each relative date it holds ("last month") written as the date it means at `at`."""
        ...


class ParaphraseGuards(Protocol):
    @property
    def merge_threshold(self) -> float:
        """The closeness at or above which two statements are checked by `same_fact`."""
        ...

    def same_fact(self, a: str, b: str, similarity: float) -> bool:
        """Whether two statements this close in meaning state one fact (no guard of a differing value fires)."""
        ...

    def differ_in_value(self, a: str, b: str) -> bool:
        """Whether the texts name another value, however close in meaning: other numbers or dates, names,
        negation, people, tense of a change, or roles. A near-duplicate that does is a change, not a repeat."""
        ...


class TimeWords(Protocol):
    def query_windows(self, query: str, reference: datetime) -> list[Window]:
        """The windows of time a query names, resolved against `reference`."""
        ...

    def dates_named(self, text: str) -> list[Window]:
        """The dates a (resolved) text names, each as the window it stands for."""
        ...


class CategoryWords(Protocol):
    """The default categories in the pack's language: what a memory is filed under when its add names none."""

    @property
    def default_categories(self) -> tuple[tuple[str, str], ...]:
        """The default categories as (name, description), in order: the names are the API's, the same in every
        language; a description says what the category holds, in words an embedding of a memory comes close to."""
        ...

    def category_prototypes(self, name: str) -> tuple[str, ...]:
        """A few typical memories of the default category `name` (none for another name)."""
        ...


class TopicWords(Protocol):
    """How the topics an add asks for (`includes`, `excludes`) are read without an LLM."""

    def topics(self, text: str) -> list[str]:
        """The topics a free text names ("health, money and my kids" -> health, money, my kids), each once."""
        ...

    def about_topic(self, topic: str) -> str:
        """The phrase a topic is embedded as, which statements about it come close to ("facts about health")."""
        ...


class KeywordWords(Protocol):
    """What a keyword search reads in the pack's language."""

    def keywords(self, text: str) -> list[str]:
        """The distinct content words of a text (not its stop words), lower case, in order of appearance."""
        ...

    def date_words(self, moment: datetime) -> str:
        """A day as the words that name it ("8 May 2023", in UTC), which a keyword index stores with a memory."""
        ...


class ProfileWords(Protocol):
    """How the profile generator without an LLM reads a property and what a memory plainly states of it."""

    def property_text(self, name: str, description: str) -> str:
        """What a property (its name and description) is embedded as, in words a memory that fills it comes close
        to ("location: Where lives")."""
        ...

    def speaks_of(self, name: str, text: str) -> bool:
        """Whether a memory speaks of the property `name` asks about, in its words ("I'm not vegetarian" of
        `is_vegetarian`)."""
        ...

    def stated_truth(self, name: str, text: str) -> bool | None:
        """What a memory plainly states of the yes-or-no property `name`: True, False (denied), or None (it does not
        speak of it, asks, or speaks of a change or the past)."""
        ...

    def stated_number(self, name: str, description: str, text: str) -> str | None:
        """The number, as written in digits ("34"), a memory plainly states of the property, or None."""
        ...


class ProfileValues(ProfileWords, Protocol):
    """The values a profile property asks for, read from the user's statements (a profile filled without an LLM),
    with the words it is read by."""

    def value_kind(self, name: str, description: str) -> str | None:
        """The kind of value a property (its name and description) asks for that the pack can read from a
        statement, or None."""
        ...

    def stated_value(self, kind: str, text: str) -> str | None:
        """The value of that kind a statement of the user's states ("Lisbon" from "I live in Lisbon since last
        spring"), or None."""
        ...


class Language(
    ClaimReading,
    MessageReading,
    Wording,
    GroundingWords,
    ParaphraseGuards,
    TimeWords,
    CategoryWords,
    TopicWords,
    KeywordWords,
    Protocol,
):
    """A language pack: its `code` ("en"), its `version`, and everything the core reads in that language."""

    @property
    def code(self) -> str: ...
