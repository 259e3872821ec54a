"""Dataclass records as item attributes and back, field by field through attributes.py: the mapping of every record
the stores keep, so that none is written out by hand, attribute by attribute.

`as_attributes(record, omit=...)` makes each field the attribute of its name (None left out: an absent attribute
stands for None). What a store keeps another way (JSON text, compressed JSON, part of the key) it names in `omit`
and writes beside. `from_item(kind, item, **given)` makes the record again: each field not `given` is read from
the attribute of its name, as its annotated type says:

| annotation | attribute |
|---|---|
| `str` | S |
| `int`, `float` | N (a float field is written as a float, also when given a whole number) |
| `bool` | BOOL |
| `datetime` | S, fixed-width ISO text (an empty one reads as None where None is allowed) |
| an `Enum` | its value |
| `X | None` | as X; absent: None |

A field absent from the item takes its dataclass default (what an earlier layout did not write yet), else None
where its annotation allows it, else a KeyError. Any other annotation (a tuple, a dict, a nested record) must be
`given`: the store reads it the way it wrote it.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Callable, Collection
from dataclasses import MISSING, dataclass, fields
from datetime import datetime
from enum import Enum
from typing import Any, TypeVar

from mnemo.adapters.dynamodb.attributes import Item, flag, integer, real, text, value
from mnemo.domain.timefmt import from_iso

Record = TypeVar("Record")


def as_attributes(record: Any, *, omit: Collection[str] = ()) -> Item:
    """Every field of a dataclass record but those in `omit`, as the attribute of its name; None left out."""
    item: Item = {}
    for field in _plan(type(record)):
        python = getattr(record, field.name)
        if python is not None and field.name not in omit:
            item[field.name] = value(float(python) if field.is_float else python)
    return item


def from_item(kind: type[Record], item: Item, **given: Any) -> Record:
    """The dataclass record an item holds: the fields `given` as given, every other read by its annotation."""
    values = dict(given)
    for field in _plan(kind):
        if field.name in values:
            continue
        if field.name in item:
            values[field.name] = field.read(item, field.name)
        elif not field.defaulted:
            if not field.optional:
                raise KeyError(field.name)
            values[field.name] = None
    return kind(**values)


@dataclass(frozen=True, slots=True)
class _Field:
    """How one field of a kind of record is read: worked out once per kind, from its annotation."""

    name: str
    read: Callable[[Item, str], Any]
    optional: bool  # None is a value it may have
    defaulted: bool  # the dataclass gives it a default
    is_float: bool  # written as a float, also when given a whole number


_PLANS: dict[type, tuple[_Field, ...]] = {}


def _plan(kind: type) -> tuple[_Field, ...]:
    plan = _PLANS.get(kind)
    if plan is None:
        hints = typing.get_type_hints(kind)
        plan = tuple(
            _Field(
                f.name,
                _reader(hints[f.name]),
                _optional(hints[f.name]),
                f.default is not MISSING or f.default_factory is not MISSING,
                _base(hints[f.name]) is float,
            )
            for f in fields(kind)
        )
        _PLANS[kind] = plan
    return plan


def _optional(hint: Any) -> bool:
    return typing.get_origin(hint) in (types.UnionType, typing.Union) and type(None) in typing.get_args(hint)


def _base(hint: Any) -> Any:
    """The type of a field's value when it has one: X for `X | None`."""
    if _optional(hint):
        (base,) = (arg for arg in typing.get_args(hint) if arg is not type(None))
        return base
    return hint


def _reader(hint: Any) -> Callable[[Item, str], Any]:
    base = _base(hint)
    if isinstance(base, type) and issubclass(base, Enum):
        return lambda item, name: base(text(item, name))
    if base is datetime:
        optional = _optional(hint)
        return lambda item, name: _moment(text(item, name), optional)
    return _READERS.get(base) or _unreadable(hint)


def _moment(found: str, optional: bool) -> datetime | None:
    return None if not found and optional else from_iso(found)


def _unreadable(hint: Any) -> Callable[[Item, str], Any]:
    def read(_item: Item, name: str) -> Any:
        raise TypeError(f"No reading of a {hint} field ({name!r}): the store must give it.")

    return read


_READERS: dict[Any, Callable[[Item, str], Any]] = {str: text, int: integer, float: real, bool: flag}
