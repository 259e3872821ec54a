"""Regular expressions kept as data: the `[patterns]` of a data file of the pack, compiled once, when the file is
first read. A pattern is a string, or a list of strings written one after the other (a long alternation over several
lines), with its `flags` ("IGNORECASE", …); `{{name}}` in it stands for the `[fragments]` entry `name` (a piece of
pattern several patterns share), or the `[lists]` entry `name`, its words joined as alternatives ("job|manager|…"),
so that a word list is written once and read by several patterns. The lists of data/words.toml (`weekdays`,
`months`, `seasons`, `relations`, `professions`, `car_makes`, `diets`, `statuses`, `not_places`) and the words of a
pet (`pet_words`, data/slots.toml) are every file's. A pattern that does not compile, or names a list, a fragment or a
flag the file lacks, is a `PackDataError` naming the file and the pattern."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping
from typing import Any

from mnemo.language.en.words import PackDataError, read_toml, words

_LIST = re.compile(r"\{\{(\w+)\}\}")


def _source(name: str, value: Any, where: str) -> str:
    parts = [value] if isinstance(value, str) else value
    if not isinstance(parts, list) or not parts or not all(isinstance(p, str) for p in parts):
        raise PackDataError(f"{where}: pattern `{name}` must be a string or a list of strings")
    return "".join(parts)


def _flags(name: str, value: Any, where: str) -> re.RegexFlag:
    flags = re.RegexFlag(0)
    for flag in value if isinstance(value, list) else [value]:
        known = getattr(re.RegexFlag, flag, None) if isinstance(flag, str) else None
        if not isinstance(known, re.RegexFlag):
            raise PackDataError(f"{where}: pattern `{name}` has an unknown flag {flag!r}")
        flags |= known
    return flags


def _expanded(name: str, source: str, named: Mapping[str, Any], where: str) -> str:
    def alternatives(match: re.Match[str]) -> str:
        found = named.get(match.group(1))
        if isinstance(found, str):
            return found
        if not isinstance(found, list | tuple) or not found or not all(isinstance(w, str) and w for w in found):
            what = f"{{{{{match.group(1)}}}}}"
            raise PackDataError(f"{where}: pattern `{name}` names {what}, not a list of [lists] nor a fragment")
        return "|".join(found)

    return _LIST.sub(alternatives, source)


@functools.cache
def _shared() -> dict[str, str | tuple[str, ...]]:
    """What every file's patterns may name: the lists of data/words.toml (the calendar's, the claims', the names of
    a person of someone's: `relations`, escaped, the longest first, as `professions`), and the words of a pet
    (data/slots.toml `pet_words`)."""
    found = words()
    pet_words = read_toml("slots.toml").get("pet_words")
    if not isinstance(pet_words, str):
        raise PackDataError("mnemo.language.en data/slots.toml: `pet_words` must be a pattern")
    return {
        "weekdays": found.weekdays,
        "months": found.months,
        "seasons": tuple(found.seasons),
        "relations": _longest_first(re.escape(r) for r in found.female | found.male | found.either | found.plural),
        "professions": _longest_first(found.professions),
        "car_makes": found.car_makes,
        "diets": found.diets,
        "statuses": found.statuses,
        "not_places": found.not_places,
        "pet_words": pet_words,
    }


def _longest_first(alternatives: Iterable[str]) -> tuple[str, ...]:
    """Alternatives the longest first (then in alphabetical order), so that a word is not cut at a shorter one."""
    return tuple(sorted(alternatives, key=lambda word: (-len(word), word)))


def _named(document: Mapping[str, Any], where: str) -> dict[str, Any]:
    """What patterns may name: the lists every file may name, the file's lists, its fragments (expanded in turn)."""
    lists, fragments = document.get("lists", {}), document.get("fragments", {})
    if not isinstance(lists, dict) or not isinstance(fragments, dict):
        raise PackDataError(f"{where}: [lists] and [fragments], when present, must be tables")
    named: dict[str, Any] = dict(_shared())
    named.update(lists)
    for key, fragment in fragments.items():
        named[key] = _expanded(key, _source(key, fragment, where), named, where)
    return named


def compile_patterns(document: Mapping[str, Any], where: str) -> dict[str, re.Pattern[str]]:
    """The compiled `[patterns]` of a parsed data file (`where` names it in errors)."""
    table = document.get("patterns")
    if not isinstance(table, dict) or not table:
        raise PackDataError(f"{where}: a [patterns] table is needed")
    named = _named(document, where)
    compiled: dict[str, re.Pattern[str]] = {}
    for name, entry in table.items():
        if not isinstance(entry, dict):
            raise PackDataError(f"{where}: pattern `{name}` must be a table with a `pattern`")
        source = _expanded(name, _source(name, entry.get("pattern"), where), named, where)
        try:
            compiled[name] = re.compile(source, _flags(name, entry.get("flags", []), where))
        except re.error as exc:
            raise PackDataError(f"{where}: pattern `{name}` does not compile: {exc}") from exc
    return compiled


@functools.cache
def patterns(file: str) -> Mapping[str, re.Pattern[str]]:
    """The compiled patterns of the pack's data file `file` (read once)."""
    return compile_patterns(read_toml(file), f"mnemo.language.en data/{file}")


def pattern(file: str, name: str) -> re.Pattern[str]:
    """The compiled pattern `name` of the pack's data file `file`."""
    found = patterns(file).get(name)
    if found is None:
        raise PackDataError(f"mnemo.language.en data/{file}: pattern `{name}` is missing")
    return found


@functools.cache
def tagged(file: str, key: str) -> tuple[tuple[re.Pattern[str], tuple[str, ...]], ...]:
    """The patterns of `file` that carry a list of words under `key` (the facets a question pattern asks about, …),
    each with its words, in the file's order."""
    compiled, table = patterns(file), read_toml(file).get("patterns", {})
    found: list[tuple[re.Pattern[str], tuple[str, ...]]] = []
    for name, entry in table.items():
        words = entry.get(key)
        if words is None:
            continue
        if not isinstance(words, list) or not words or not all(isinstance(w, str) and w for w in words):
            raise PackDataError(f"mnemo.language.en data/{file}: pattern `{name}`'s `{key}` must be a list of words")
        found.append((compiled[name], tuple(words)))
    return tuple(found)
