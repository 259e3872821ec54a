"""What the paraphrase guards (mnemo.language.en.paraphrase) read in one memory: its numbers (digits, number words
and ordinals alike), whether it is negated, its names, relations, words of a change over time, possessors, whether
it compares, and the stems of its content words in order. Words, spellings and patterns are data
(data/paraphrase.toml)."""

from __future__ import annotations

import functools
from dataclasses import dataclass

from mnemo.domain.text import words
from mnemo.language.en.keywords import STOP_WORDS, keywords
from mnemo.language.en.patterns import pattern
from mnemo.language.en.words import mapping, word_list, word_set

_FILE = "paraphrase.toml"
_NUMBER_WORDS = mapping(_FILE, "numbers", int)
_ORDINALS = mapping(_FILE, "ordinals", int)
_DIGITS = pattern(_FILE, "digits")
_NEGATIONS = word_set(_FILE, "negations")
_COMPARISONS = word_set(_FILE, "comparisons")
_NEGATING_PREFIXES = word_list(_FILE, "negating_prefixes")
_KIN = mapping(_FILE, "relations", str)  # each relation and its words
_RELATIONS = {word: kin for kin, named in _KIN.items() for word in named.split()}
_CHANGE_WORDS = word_set(_FILE, "change_words")
_SENTENCE_START = pattern(_FILE, "sentence_start")
_CAPITALISED = pattern(_FILE, "capitalised")
_NOT_NAMES = word_set(_FILE, "not_names")
_SPELLINGS = mapping(_FILE, "spellings", str)
_FILLER = word_set(_FILE, "filler")
# The suffixes a crude stem drops, in two rounds (a plural or third person, then -ing or -ed), each with what it
# leaves in its place.
_SUFFIXES = ((("ies", "y"), ("sses", "ss"), ("es", ""), ("s", "")), (("ing", ""), ("ed", "")))


@dataclass(frozen=True, slots=True)
class Reading:
    """What the guards read in one memory."""

    numbers: frozenset[str]
    negated: bool
    names: frozenset[str]
    words: frozenset[str]
    relations: frozenset[str]
    changes: frozenset[str]
    stems: frozenset[str]
    order: tuple[str, ...]
    possessors: frozenset[str]
    compares: bool
    unprefixed: frozenset[str]  # its words of 4+ letters after a negating prefix: "vaccinated" of "unvaccinated"


@functools.lru_cache(maxsize=4096)  # an add compares its memory with the same few stored ones, add after add
def read(text: str) -> Reading:
    tokens = [t.replace("’", "'") for t in words(text)]
    content = _content(text)
    every_word = frozenset(tokens) | frozenset(t.split("'")[0] for t in tokens)
    return Reading(
        numbers=_numbers(text, tokens),
        negated=_negated(tokens),
        names=_names(text),
        words=every_word,
        relations=_relations(tokens),
        changes=_changes(tokens),
        stems=frozenset(content),
        order=tuple(content),
        possessors=_possessors(tokens),
        compares=_compares(tokens),
        unprefixed=_unprefixed(every_word),
    )


def _negated(tokens: list[str]) -> bool:
    return any(t in _NEGATIONS or t.endswith("n't") for t in tokens)


def _relations(tokens: list[str]) -> frozenset[str]:
    """The relations named ("sisters" -> sister)."""
    return frozenset(_RELATIONS[t.split("'")[0]] for t in tokens if t.split("'")[0] in _RELATIONS)


def _possessors(tokens: list[str]) -> frozenset[str]:
    """Whose something is ("Ana's boss" -> ana), but filler and stop words."""
    return frozenset(t[:-2] for t in tokens if t.endswith("'s") and t[:-2] not in _FILLER and t[:-2] not in STOP_WORDS)


def _compares(tokens: list[str]) -> bool:
    """Whether it compares ("than", "over", "rather", …, or "prefers X to Y")."""
    return any(t in _COMPARISONS for t in tokens) or ("to" in tokens and any(t.startswith("prefer") for t in tokens))


def _unprefixed(words: frozenset[str]) -> frozenset[str]:
    return frozenset(
        word[len(prefix) :]
        for word in words
        for prefix in _NEGATING_PREFIXES
        if word.startswith(prefix) and len(word) - len(prefix) >= 4
    )


def _numbers(text: str, tokens: list[str]) -> frozenset[str]:
    found = {d.replace(",", "") for d in _DIGITS.findall(text)}
    found |= {str(_NUMBER_WORDS[t]) for t in tokens if t in _NUMBER_WORDS}
    found |= {str(_ORDINALS[t]) for t in tokens if t in _ORDINALS}
    return frozenset(found)


def _names(text: str) -> frozenset[str]:
    """Capitalised words that do not open a sentence (nor "I", "User"): names, places, brands, months, days."""
    starts = {m.start(1) for m in _SENTENCE_START.finditer(text)}
    return frozenset(
        m.group(1).replace("’", "'").split("'")[0].lower()
        for m in _CAPITALISED.finditer(text)
        if m.start(1) not in starts and m.group(1).replace("’", "'") not in _NOT_NAMES
    )


def _changes(tokens: list[str]) -> frozenset[str]:
    """Words of a change over time or of a plan: "used to", "no longer", "going to", "was" (but "was born")."""
    found: set[str] = set()
    for i, token in enumerate(tokens):
        after = tokens[i + 1] if i + 1 < len(tokens) else ""
        before = tokens[i - 1] if i else ""
        if _says_a_change(token, before, after):
            found.add(token)
    return frozenset(found)


def _says_a_change(token: str, before: str, after: str) -> bool:
    """Whether the word, between these two, says a change: a change word but "was born", "used to", "going to",
    "no longer"."""
    if token in ("was", "were") and after == "born":
        return False
    return (
        token in _CHANGE_WORDS
        or (token in ("used", "going") and after == "to")
        or (token == "longer" and before == "no")
    )


def _stem(word: str) -> str:
    """A crude stem, enough to match "runs", "running" and "run" or "named" and "name" (not a dictionary form)."""
    word = _SPELLINGS.get(word, word)
    for suffixes in _SUFFIXES:
        word = _without_suffix(word, suffixes)
    if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "aeiouls":
        word = word[:-1]
    return word[:-1] if len(word) > 3 and word.endswith("e") else word


def _without_suffix(word: str, suffixes: tuple[tuple[str, str], ...]) -> str:
    """The word without the first of the suffixes it ends with (leaving three letters or more; not after "ss")."""
    for suffix, keep in suffixes:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3 and not word.endswith("ss"):
            return word[: -len(suffix)] + keep
    return word


def _content(text: str) -> list[str]:
    """The stems of the content words in order: no stop words, filler ("user", "apparently"), numbers (the
    numbers guard reads them) or negations (the negation guard does); "dislike" is "like"."""
    stems: list[str] = []
    for word in keywords(text):
        kept = word[3:] if word.startswith("dislike") else word
        if kept == word and _not_content(word):
            continue
        stem = _stem(kept)
        if stem not in stems:
            stems.append(stem)
    return stems


def _not_content(word: str) -> bool:
    return word in _FILLER or word in _NUMBER_WORDS or word in _ORDINALS or word in _NEGATIONS or word[0].isdigit()
