"""Python values as DynamoDB attribute values and back: the one place that writes `{"S": …}` and reads it again.

Items are in the low-level client's form, `{"name": {"S": "text"}}`. `value` maps a Python value by its type:

| Python | attribute value |
|---|---|
| `str` | `{"S": …}` |
| `datetime` | `{"S": …}`: fixed-width ISO text (UTC, microseconds), so that such values sort as the moments do |
| an `Enum` | as its value |
| `bool` | `{"BOOL": …}` |
| `int`, `float` | `{"N": …}` (the text of the number) |
| `bytes` | `{"B": …}` |
| a mapping | `{"M": …}` |
| a list or tuple | `{"L": …}` |
| `None` | `{"NULL": true}` |

`attributes` makes an item's attributes from keyword values and leaves out those that are None: throughout this
package an absent attribute stands for None (a stored item never holds NULL). `placeholders` makes the values of an
expression. `python_of` maps an attribute value back; the readers (`text`, `integer`, `flag`, `moment_of`, …) take
one attribute of an item back as the type a record wants (a KeyError when it is absent, but for `text_or_none`).
Whole records go through record_codec.py.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime
from enum import Enum
from typing import Any

from mnemo.domain.timefmt import from_iso, iso

AttributeValue = dict[str, Any]
Item = dict[str, AttributeValue]


def value(python: Any) -> AttributeValue:
    """The attribute value of a Python value (see the table above); a TypeError for any other type."""
    encode = _BY_TYPE.get(type(python))
    if encode is not None:
        return encode(python)
    if isinstance(python, Enum):
        return value(python.value)
    if python is None:
        return {"NULL": True}
    for kind, encode in _ENCODERS:  # a subclass of one of them: by its base (bool before int: a bool is an int)
        if isinstance(python, kind):
            return encode(python)
    raise TypeError(f"No DynamoDB attribute value for a {type(python).__name__}.")


def _string(python: Any) -> AttributeValue:
    return {"S": str(python)}


def _moment(python: datetime) -> AttributeValue:
    return {"S": iso(python)}


def _binary(python: Any) -> AttributeValue:
    return {"B": bytes(python)}


def _map(python: Mapping[Any, Any]) -> AttributeValue:
    return {"M": {str(name): value(inner) for name, inner in python.items()}}


def _list(python: Any) -> AttributeValue:
    return {"L": [value(inner) for inner in python]}


def _flag(python: bool) -> AttributeValue:
    return {"BOOL": python}


def _whole(python: int) -> AttributeValue:
    return {"N": str(python)}


def _real(python: float) -> AttributeValue:
    return {"N": repr(python)}


_ENCODERS: tuple[tuple[type | tuple[type, ...], Callable[[Any], AttributeValue]], ...] = (
    (bool, _flag),
    (int, _whole),
    (float, _real),
    (str, _string),
    (datetime, _moment),
    ((bytes, bytearray, memoryview), _binary),
    (Mapping, _map),
    ((list, tuple), _list),
)
# The encoder of each exact type, found without walking through _ENCODERS (which a subclass needs).
_BY_TYPE: dict[type, Callable[[Any], AttributeValue]] = {
    str: _string,
    bool: _flag,
    int: _whole,
    float: _real,
    datetime: _moment,
    bytes: _binary,
    dict: _map,
    list: _list,
    tuple: _list,
}


def attributes(**values: Any) -> Item:
    """The attributes of these values, those that are None left out (an absent attribute stands for None)."""
    return {name: value(python) for name, python in values.items() if python is not None}


def placeholders(**values: Any) -> Item:
    """ExpressionAttributeValues: each value under `:<its name>` (a None, too, as NULL)."""
    return {f":{name}": value(python) for name, python in values.items()}


def python_of(attribute: AttributeValue) -> Any:
    """The Python value of an attribute value: text, a number (an int when whole), bool, bytes, None, dict, list."""
    (kind, inner), *_ = attribute.items()
    decode = _DECODERS.get(kind)
    if decode is None:
        raise TypeError(f"Unknown DynamoDB attribute type {kind!r}.")
    return decode(inner)


def _number(text: str) -> int | float:
    try:
        return int(text)
    except ValueError:
        return float(text)


_DECODERS: dict[str, Callable[[Any], Any]] = {
    "S": str,
    "N": lambda inner: _number(str(inner)),
    "BOOL": bool,
    "NULL": lambda _inner: None,
    "B": bytes,
    "M": lambda inner: {name: python_of(v) for name, v in inner.items()},
    "L": lambda inner: [python_of(v) for v in inner],
}


# ---- one attribute of an item -------------------------------------------------------------------------------


def text(item: Item, name: str) -> str:
    return str(item[name]["S"])


def text_or_none(item: Item, name: str) -> str | None:
    """The text of a string attribute, None when the item has none."""
    found = item.get(name)
    return None if found is None else str(found["S"])


def integer(item: Item, name: str) -> int:
    return int(item[name]["N"])


def real(item: Item, name: str) -> float:
    return float(item[name]["N"])


def flag(item: Item, name: str) -> bool:
    return bool(item[name]["BOOL"])


def binary(item: Item, name: str) -> bytes:
    return bytes(item[name]["B"])


def moment_of(item: Item, name: str) -> datetime:
    return from_iso(text(item, name))
