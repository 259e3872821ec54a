"""Language packs: everything the core reads in a human language (claims and facets, the facets a question asks
about, whether a statement says a change, life slots, the deterministic extractor, wording, paraphrase guards, the
time words of queries) behind one interface (.interface `Language`). A pack is a package below this one
(mnemo.language.en) holding small generic code and its word lists and patterns as data files; only the composition
root, the entry points and tests import a pack. Adding a language is adding a pack."""

from mnemo.language.claims import USER, Claim
from mnemo.language.interface import (
    CategoryWords,
    ClaimReading,
    FacetReading,
    GroundingWords,
    KeywordWords,
    Language,
    MessageReading,
    ParaphraseGuards,
    ProfileValues,
    ProfileWords,
    TimeWords,
    TopicWords,
    Wording,
)
from mnemo.language.statements import Cited, Sentence, Statement, Turn
from mnemo.language.time_windows import Window

__all__ = [
    "USER",
    "CategoryWords",
    "Cited",
    "Claim",
    "ClaimReading",
    "FacetReading",
    "GroundingWords",
    "KeywordWords",
    "Language",
    "MessageReading",
    "ParaphraseGuards",
    "ProfileValues",
    "ProfileWords",
    "Sentence",
    "Statement",
    "TimeWords",
    "TopicWords",
    "Turn",
    "Window",
    "Wording",
]
