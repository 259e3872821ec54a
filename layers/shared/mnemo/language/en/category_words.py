"""The English phrasings of the default categories (data/categories.toml), loaded once and checked as they load: the
categories' names, their descriptions (what the extraction is told of them, and phrasings the zero-shot categorizer
embeds) and a few typical memories of each (its prototypes)."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from mnemo.language.en.words import PackDataError, read_toml

_FILE = "mnemo.language.en data/categories.toml"


@dataclass(frozen=True, slots=True)
class CategoryPhrasings:
    categories: tuple[tuple[str, str], ...]  # (name, description), in order
    prototypes: Mapping[str, tuple[str, ...]]  # by category name


def _text(entry: Mapping[str, Any], key: str, at: int) -> str:
    value = entry.get(key)
    if not isinstance(value, str) or not value.strip():
        raise PackDataError(f"{_FILE}: category {at + 1} needs a non-empty string `{key}`")
    return value


def _prototypes(entry: Mapping[str, Any], at: int) -> tuple[str, ...]:
    value = entry.get("prototypes", [])
    if not isinstance(value, list) or not all(isinstance(p, str) and p.strip() for p in value):
        raise PackDataError(f"{_FILE}: category {at + 1}'s `prototypes` must be a list of non-empty strings")
    return tuple(value)


@functools.cache
def phrasings() -> CategoryPhrasings:
    """The default categories and their prototypes (read once)."""
    entries = read_toml("categories.toml").get("category")
    if not isinstance(entries, list) or not entries or not all(isinstance(e, dict) for e in entries):
        raise PackDataError(f"{_FILE}: at least one [[category]] is needed")
    categories = tuple((_text(e, "name", i), _text(e, "description", i)) for i, e in enumerate(entries))
    names = [name for name, _ in categories]
    if len(set(names)) != len(names):
        raise PackDataError(f"{_FILE}: a category is named twice")
    return CategoryPhrasings(
        categories, {name: _prototypes(entry, i) for i, (name, entry) in enumerate(zip(names, entries, strict=True))}
    )
