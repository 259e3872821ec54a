"""Regular expressions kept as data: the `[patterns]` of a data file of the pack, compiled once, when the file is
first read. A pattern is a string, or a list of strings written one after the other (a long alternation over several
lines), with its `flags` ("IGNORECASE", …); `{{name}}` in it stands for the `[lists]` entry `name`, its words joined
as alternatives ("job|manager|…"), so that a word list is written once and read by several patterns. A pattern that
does not compile, or names a list or a flag the file lacks, is a `PackDataError` naming the file and the pattern."""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from typing import Any

from mnemo.language.en.words import PackDataError, read_toml

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


def _expanded(name: str, source: str, lists: Mapping[str, Any], where: str) -> str:
    def alternatives(match: re.Match[str]) -> str:
        words = lists.get(match.group(1))
        if not isinstance(words, list) or not words or not all(isinstance(w, str) and w for w in words):
            raise PackDataError(f"{where}: pattern `{name}` names {{{{{match.group(1)}}}}}, not a list of [lists]")
        return "|".join(words)

    return _LIST.sub(alternatives, source)


def compile_patterns(document: Mapping[str, Any], where: str) -> dict[str, re.Pattern[str]]:
    """The compiled `[patterns]` of a parsed data file (`where` names it in errors)."""
    table, lists = document.get("patterns"), document.get("lists", {})
    if not isinstance(table, dict) or not table or not isinstance(lists, dict):
        raise PackDataError(f"{where}: a [patterns] table is needed (and [lists], when present, is a table)")
    compiled: dict[str, re.Pattern[str]] = {}
    for name, entry in table.items():
        if not isinstance(entry, dict):
            raise PackDataError(f"{where}: pattern `{name}` must be a table with a `pattern`")
        source = _expanded(name, _source(name, entry.get("pattern"), where), lists, where)
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
