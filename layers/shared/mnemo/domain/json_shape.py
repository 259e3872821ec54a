"""Bounds of free-form JSON a caller sends (metadata, export schemas, entity metadata): how deep it nests, how many
keys an object has, how long a key or a list is, and no control character or lone UTF-16 surrogate in a key or a
string. Measured by an iterative walk: a value of any depth is checked without recursion."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mnemo.domain.memory import is_clean_text

MAX_DEPTH = 8  # nested objects and lists
MAX_KEYS = 256  # keys of one object
MAX_KEY_LENGTH = 255  # characters of a key
MAX_LIST = 1_000  # items of one list

RULE = (
    f"at most {MAX_DEPTH} levels deep, {MAX_KEYS} keys per object, keys of at most {MAX_KEY_LENGTH} characters, "
    f"lists of at most {MAX_LIST:,} items"
)


def json_problem(value: Any, where: str, *, depth: int = MAX_DEPTH) -> str | None:
    """What is wrong with `value` as free-form JSON of `where`, or None when it is within the bounds."""
    pending: list[tuple[Any, int]] = [(value, 1)]
    while pending:
        item, level = pending.pop()
        if isinstance(item, Mapping | list) and level > depth:
            return f"{where} nests objects and lists more than {depth} deep"
        if isinstance(item, Mapping):
            problem = _object_problem(item, where)
            if problem:
                return problem
            pending.extend((child, level + 1) for child in item.values())
        elif isinstance(item, list):
            if len(item) > MAX_LIST:
                return f"a list in {where} has {len(item):,} items; at most {MAX_LIST:,}"
            pending.extend((child, level + 1) for child in item)
        elif isinstance(item, str) and not is_clean_text(item):
            return f"{where} holds a control character or an unpaired UTF-16 surrogate"
    return None


def _object_problem(item: Mapping[Any, Any], where: str) -> str | None:
    if len(item) > MAX_KEYS:
        return f"an object in {where} has {len(item):,} keys; at most {MAX_KEYS}"
    for key in item:
        text = str(key)
        if len(text) > MAX_KEY_LENGTH:
            return f"a key in {where} has {len(text):,} characters; at most {MAX_KEY_LENGTH}"
        if not is_clean_text(text, line_breaks=False):
            return f"a key in {where} holds a control character or an unpaired UTF-16 surrogate"
    return None
