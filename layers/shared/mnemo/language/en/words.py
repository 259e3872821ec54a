"""The English pack's word lists (data/words.toml), loaded once, on first use, and checked as they load: a missing
list or a word of the wrong kind is a `PackDataError` naming the file and the key, not a pattern that silently
matches nothing. Each name is written once there (the weekdays, months and seasons the dates, time words and
claims all read)."""

from __future__ import annotations

import functools
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from typing import Any, TypeVar

_Value = TypeVar("_Value", int, str)


class PackDataError(ValueError):
    """A data file of a language pack that cannot be read as the pack needs it."""


@dataclass(frozen=True, slots=True)
class Words:
    weekdays: tuple[str, ...]
    months: tuple[str, ...]
    seasons: Mapping[str, int]  # the month each season starts in
    female: frozenset[str]
    male: frozenset[str]
    either: frozenset[str]
    plural: frozenset[str]
    professions: frozenset[str]
    diets: tuple[str, ...]
    statuses: tuple[str, ...]
    car_makes: tuple[str, ...]
    not_beings: frozenset[str]
    not_places: tuple[str, ...]


def read_toml(name: str) -> dict[str, Any]:
    """A data file of the pack, parsed."""
    try:
        text = resources.files("mnemo.language.en").joinpath("data").joinpath(name).read_text(encoding="utf-8")
        return tomllib.loads(text)
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise PackDataError(f"mnemo.language.en data/{name}: {exc}") from exc


def _list(table: Mapping[str, Any], key: str, where: str) -> tuple[str, ...]:
    """A list of words: a TOML array of strings, or one string of words apart."""
    value = table.get(key)
    items = value.split() if isinstance(value, str) else value
    if not isinstance(items, list | tuple) or not items or not all(isinstance(w, str) and w for w in items):
        raise PackDataError(f"mnemo.language.en data/{where}: `{key}` must be a non-empty list of words")
    return tuple(items)


def _table(document: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    value = document.get(key)
    if not isinstance(value, dict):
        raise PackDataError(f"mnemo.language.en data/words.toml: [{key}] is missing")
    return value


def _seasons(document: Mapping[str, Any]) -> dict[str, int]:
    seasons = _table(document, "seasons")
    if not all(isinstance(m, int) and 1 <= m <= 12 for m in seasons.values()):
        raise PackDataError("mnemo.language.en data/words.toml: [seasons] must give each season a month 1-12")
    return dict(seasons)


@functools.cache
def words() -> Words:
    """The pack's word lists (read once)."""
    doc = read_toml("words.toml")
    weekdays, months = _list(doc, "weekdays", "words.toml"), _list(doc, "months", "words.toml")
    if len(weekdays) != 7 or len(months) != 12:
        raise PackDataError("mnemo.language.en data/words.toml: 7 weekdays and 12 months are needed")
    relations, claims = _table(doc, "relations"), _table(doc, "claims")
    at = "words.toml [relations]"
    return Words(
        weekdays=weekdays,
        months=months,
        seasons=_seasons(doc),
        female=frozenset(_list(relations, "female", at)),
        male=frozenset(_list(relations, "male", at)),
        either=frozenset(_list(relations, "either", at)),
        plural=frozenset(_list(relations, "plural", at)),
        professions=frozenset(_list(claims, "professions", "words.toml [claims]")),
        diets=_list(claims, "diets", "words.toml [claims]"),
        statuses=_list(claims, "statuses", "words.toml [claims]"),
        car_makes=_list(claims, "car_makes", "words.toml [claims]"),
        not_beings=frozenset((*weekdays, *months, *_list(claims, "not_beings", "words.toml [claims]"))),
        not_places=(*weekdays, *months, *_list(claims, "not_places", "words.toml [claims]")),
    )


def word_list(file: str, key: str, table: str = "words") -> tuple[str, ...]:
    """A list of words of a data file's [table] (a string of words apart, or an array), in order."""
    section = read_toml(file).get(table)
    if not isinstance(section, dict):
        raise PackDataError(f"mnemo.language.en data/{file}: [{table}] is missing")
    return _list(section, key, f"{file} [{table}]")


def word_set(file: str, key: str, table: str = "words") -> frozenset[str]:
    """`word_list` as a set."""
    return frozenset(word_list(file, key, table))


def mapping(file: str, table: str, kind: type[_Value]) -> dict[str, _Value]:
    """A data file's [table] of words, each mapped to a value of `kind` (a number, a word), in the file's order."""
    section = read_toml(file).get(table)
    if not isinstance(section, dict) or not section or not all(type(v) is kind for v in section.values()):
        raise PackDataError(f"mnemo.language.en data/{file}: [{table}] must map each word to one {kind.__name__}")
    return dict(section)
