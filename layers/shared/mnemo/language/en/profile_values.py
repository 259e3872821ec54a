"""The values a profile property asks for, read from the user's statements without an LLM: the city where one lives
("I live in Lisbon since last spring" -> "Lisbon"), one's occupation ("I work as a nurse" -> "nurse"), employer
("I work at Acme" -> "Acme"), a pet's name ("My dog is called Rex" -> "Rex").

Which kind of value a property asks for is read from its name and description, and the value from a statement of
the user's (first person, or a fact with no subject, "Lives in Lisbon"; never someone else's, "My sister lives in
Porto"). The patterns are data (data/profile_values.toml), checked as they load: each must compile and have its
`value` group."""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass

from mnemo.language.en.life_slots import PET_WORDS
from mnemo.language.en.profile_words import EnglishProfileWords, without_the_user
from mnemo.language.en.words import PackDataError, read_toml

_WHERE = "mnemo.language.en data/profile_values.toml"


@dataclass(frozen=True, slots=True)
class _Kind:
    asked_by: re.Pattern[str]  # matched against a property's name in words and description
    values: tuple[re.Pattern[str], ...]  # each with a `value` group, matched against a statement


def _compiled(pattern: str, where: str, *, flags: int = 0, needs_value: bool = False) -> re.Pattern[str]:
    try:
        compiled = re.compile(pattern, flags)
    except re.error as exc:
        raise PackDataError(f"{_WHERE}: {where}: {exc}") from exc
    if needs_value and "value" not in compiled.groupindex:
        raise PackDataError(f"{_WHERE}: {where}: a pattern needs a group named `value`")
    return compiled


@functools.cache  # on first use: a function that never reads a profile never compiles these
def _kinds() -> Mapping[str, _Kind]:
    doc = read_toml("profile_values.toml")
    shapes, kinds = doc.get("shapes"), doc.get("kinds")
    if not isinstance(shapes, dict) or not isinstance(kinds, dict) or not kinds:
        raise PackDataError(f"{_WHERE}: a [shapes] table and [kinds.*] tables are needed")
    parts = {**{k: str(v) for k, v in shapes.items()}, "pet": PET_WORDS}

    def filled(pattern: object, where: str) -> str:
        if not isinstance(pattern, str):
            raise PackDataError(f"{_WHERE}: {where} must be a pattern")
        for key, part in parts.items():
            pattern = pattern.replace(f"{{{key}}}", part)
        return pattern

    loaded: dict[str, _Kind] = {}
    for kind, table in kinds.items():
        values = table.get("values") if isinstance(table, dict) else None
        if not isinstance(values, list) or not values:
            raise PackDataError(f"{_WHERE}: kind `{kind}` needs `property` and a list of `values`")
        asked_by = _compiled(filled(table.get("property"), f"{kind}.property"), f"{kind}.property", flags=re.I)
        patterns = tuple(
            _compiled(filled(v, f"{kind}.values"), f"{kind}.values[{i}]", needs_value=True)
            for i, v in enumerate(values)
        )
        loaded[kind] = _Kind(asked_by, patterns)
    return loaded


_SPLIT = re.compile(r"[\W_]+|(?<=[a-z0-9])(?=[A-Z])")


class EnglishProfileValues(EnglishProfileWords):
    """The language pack's reading of profile values (mnemo.language.interface `ProfileValues`), with its words
    (mnemo.language.en.profile_words)."""

    def value_kind(self, name: str, description: str) -> str | None:
        """The kind of value the property asks for ("home_city", "occupation", "employer", "pet_name"), or None
        when it is none of those."""
        words = " ".join(w.lower() for w in _SPLIT.split(name) if w)
        asked = f"{words}: {without_the_user(description)}"
        return next((kind for kind, k in _kinds().items() if k.asked_by.search(asked)), None)

    def stated_value(self, kind: str, text: str) -> str | None:
        """The value of `kind` the statement states of the user, or None (an unknown kind: None)."""
        known = _kinds().get(kind)
        if known is None:
            return None
        for pattern in known.values:
            found = pattern.search(text)
            if found is not None and found.group("value").strip():
                return found.group("value").strip().rstrip(".")
        return None
