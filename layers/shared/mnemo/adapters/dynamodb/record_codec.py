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
from dataclasses import MISSING, fields
from datetime import datetime
from enum import Enum
from typing import Any, TypeVar

from mnemo.adapters.dynamodb.attributes import Item, attributes, flag, integer, real, text
from mnemo.domain.timefmt import from_iso

Record = TypeVar("Record")


def as_attributes(record: Any, *, omit: Collection[str] = ()) -> Item:
    """Every field of a dataclass record but those in `omit`, as the attribute of its name; None left out."""
    hints = _hints(type(record))
    values = {f.name: getattr(record, f.name) for f in fields(record) if f.name not in omit}
    return attributes(**{name: _written(hints[name], v) for name, v in values.items()})


def from_item(kind: type[Record], item: Item, **given: Any) -> Record:
    """The dataclass record an item holds: the fields `given` as given, every other read by its annotation."""
    hints = _hints(kind)
    values = dict(given)
    for field in fields(kind):  # type: ignore[arg-type]
        name = field.name
        if name in values:
            continue
        if name in item:
            values[name] = _read(hints[name], item, name)
        elif field.default is MISSING and field.default_factory is MISSING:
            if not _optional(hints[name]):
                raise KeyError(name)
            values[name] = None
    return kind(**values)


_HINTS: dict[type, dict[str, Any]] = {}  # the resolved annotations of each kind of record, made once


def _hints(kind: type) -> dict[str, Any]:
    hints = _HINTS.get(kind)
    if hints is None:
        hints = _HINTS[kind] = typing.get_type_hints(kind)
    return hints


def _optional(hint: Any) -> bool:
    return typing.get_origin(hint) in (types.UnionType, typing.Union) and type(None) in typing.get_args(hint)


def _base(hint: Any) -> Any:
    """The type of a field's value when it has one: X for `X | None`."""
    if _optional(hint):
        (base,) = (arg for arg in typing.get_args(hint) if arg is not type(None))
        return base
    return hint


def _written(hint: Any, python: Any) -> Any:
    return float(python) if python is not None and _base(hint) is float else python


def _read(hint: Any, item: Item, name: str) -> Any:
    base = _base(hint)
    if isinstance(base, type) and issubclass(base, Enum):
        return base(text(item, name))
    if base is datetime:
        moment = text(item, name)
        return None if not moment and _optional(hint) else from_iso(moment)
    reader = _READERS.get(base)
    if reader is None:
        raise TypeError(f"No reading of a {hint} field ({name!r}): the store must give it.")
    return reader(item, name)


_READERS: dict[Any, Callable[[Item, str], Any]] = {str: text, int: integer, float: real, bool: flag}
