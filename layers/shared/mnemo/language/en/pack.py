"""The English pack as the core sees it: each method of mnemo.language `Language` handed to the rule module that
owns it, imported on the method's first call (a process that never reads a text, such as a function serving only
accounts, never compiles the pack's patterns). Its version is the pack's declared version (data/pack.toml) and a
digest of its data files and rule modules, so that a change of any rule re-derives the facets an index stored with
the old ones."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from importlib import resources
from typing import TYPE_CHECKING

from mnemo.language.en.words import PackDataError, read_toml

if TYPE_CHECKING:
    from mnemo.language.claims import Claim
    from mnemo.language.statements import Sentence, Statement, Turn
    from mnemo.language.time_windows import Window


def pack_version() -> str:
    """The declared version, and a digest of everything that reads a text (data files and modules of the pack)."""
    declared = read_toml("pack.toml").get("version")
    if not isinstance(declared, str) or not declared:
        raise PackDataError("mnemo.language.en data/pack.toml: `version` must be a non-empty string")
    digest = hashlib.sha256()
    root = resources.files("mnemo.language.en")
    for path in sorted(_sources(root), key=lambda item: item[0]):
        digest.update(path[0].encode())
        digest.update(path[1])
    return f"en-{declared}-{digest.hexdigest()[:12]}"


def _sources(root: resources.abc.Traversable, prefix: str = "") -> list[tuple[str, bytes]]:
    found: list[tuple[str, bytes]] = []
    for item in root.iterdir():
        name = f"{prefix}{item.name}"
        if item.is_dir() and item.name != "__pycache__":
            found += _sources(item, f"{name}/")
        elif item.name.endswith((".py", ".toml")):
            found.append((name, item.read_bytes()))
    return found


class English:
    """mnemo.language `Language` for English."""

    code = "en"

    def __init__(self) -> None:
        self._version = pack_version()

    @property
    def version(self) -> str:
        return self._version

    # claims and facets
    def facets(self, text: str) -> list[str]:
        from mnemo.language.en import facets

        return facets.facets(text)

    def claims(self, text: str) -> list[Claim]:
        from mnemo.language.en import claims as en_claims

        return en_claims.claims(text)

    def asked_facets(self, question: str) -> list[str]:
        from mnemo.language.en import facets

        return facets.asked_facets(question)

    def clauses(self, text: str) -> list[str]:
        from mnemo.language.en import changes

        return changes.clauses(text)

    def says_it_changed(
        self, later: str, earlier: str, closeness: Callable[[], float], threshold: float, same_slot_threshold: float
    ) -> bool:
        from mnemo.language.en import changes

        return changes.says_it_changed(later, earlier, closeness, threshold, same_slot_threshold)

    def slots(self, text: str) -> frozenset[str]:
        from mnemo.language.en import life_slots

        return life_slots.slots(text)

    # the deterministic extractor's reading of messages
    def statements(self, turns: Sequence[Turn], at: datetime) -> list[Statement]:
        from mnemo.language.en.extraction import extractor

        return extractor.extract_statements(turns, at)

    def sentences(self, content: str) -> list[Sentence]:
        from mnemo.language.en.extraction import sentences

        return sentences.sentences(content)

    # wording
    def content_words(self, sentence: str) -> list[str]:
        from mnemo.language.en.extraction import wording

        return wording.content_words(sentence)

    def case_folded(self, text: str) -> str:
        from mnemo.language.en.extraction import questions

        return questions.case_folded(text)

    def may_name(self, query: str, user_id: str) -> bool:
        from mnemo.language.en.extraction import questions

        return questions.may_name(query, user_id)

    def in_first_person(self, question: str, names: Iterable[str]) -> str:
        from mnemo.language.en.extraction import questions

        return questions.in_first_person(question, names)

    # grounding
    def words(self, text: str) -> list[str]:
        from mnemo.language.en.extraction import wording

        return wording.tokens(text)

    def names(self, fact: str) -> list[str]:
        from mnemo.language.en import grounding_words

        return grounding_words.names(fact)

    def confirms(self, reply: str) -> bool:
        from mnemo.language.en import grounding_words

        return grounding_words.confirms(reply)

    def claimed_name(self, fact: str) -> str | None:
        from mnemo.language.en import grounding_words

        return grounding_words.claimed_name(fact)

    def introduces(self, message: str, name: str) -> bool:
        from mnemo.language.en import grounding_words

        return grounding_words.introduces(message, name)

    def resolve_dates(self, text: str, at: datetime) -> str:
        from mnemo.language.en.extraction import dates

        return dates.resolve_dates(text, at)

    # paraphrase guards
    @property
    def merge_threshold(self) -> float:
        from mnemo.language.en import paraphrase

        return paraphrase.MERGE_THRESHOLD

    def same_fact(self, a: str, b: str, similarity: float) -> bool:
        from mnemo.language.en import paraphrase

        return paraphrase.same_fact(a, b, similarity)

    def differ_in_value(self, a: str, b: str) -> bool:
        from mnemo.language.en import paraphrase

        return bool(paraphrase.guards_fired(a, b, paraphrase.VALUE_GUARDS))

    # time words of queries
    def query_windows(self, query: str, reference: datetime) -> list[Window]:
        from mnemo.language.en import time_words

        return time_words.query_windows(query, reference)

    def dates_named(self, text: str) -> list[Window]:
        from mnemo.language.en import time_words

        return time_words.dates_named(text)

    # the default categories
    @property
    def default_categories(self) -> tuple[tuple[str, str], ...]:
        from mnemo.language.en import category_words

        return category_words.phrasings().categories

    def category_prototypes(self, name: str) -> tuple[str, ...]:
        from mnemo.language.en import category_words

        return category_words.phrasings().prototypes.get(name, ())

    # topics
    def topics(self, text: str) -> list[str]:
        from mnemo.language.en import topic_words

        return topic_words.topics(text)

    def about_topic(self, topic: str) -> str:
        from mnemo.language.en import topic_words

        return topic_words.about(topic)

    # keyword search
    def keywords(self, text: str) -> list[str]:
        from mnemo.language.en import keywords as en_keywords

        return en_keywords.keywords(text)

    def date_words(self, moment: datetime) -> str:
        from mnemo.language.en import keywords as en_keywords

        return en_keywords.date_words(moment)
