"""The configuration reference, written from `mnemo.settings.Settings` each time the site is built, so that it
cannot drift from the code.

`Settings` is assembled from one class per concern; the reference keeps that grouping: one table per concern, in the
order `Settings` lists them, each field with the environment variable(s) it is read from, its type and bounds, its
default and the description its `Field` gives. A field without a description is an error here (and in
tests/unit/test_settings_reference.py), not an empty cell."""

from __future__ import annotations

import json
import sys
import types
import typing
from pathlib import Path
from typing import Any

import annotated_types
from pydantic import AliasChoices
from pydantic.fields import FieldInfo
from pydantic_settings import BaseSettings

from mnemo.settings import Settings

_BOUNDS = (
    (annotated_types.Ge, "ge", "≥"),
    (annotated_types.Gt, "gt", ">"),
    (annotated_types.Le, "le", "≤"),
    (annotated_types.Lt, "lt", "<"),
    (annotated_types.MinLen, "min_length", "length ≥"),
    (annotated_types.MaxLen, "max_length", "length ≤"),
)


class MissingDescriptionError(ValueError):
    """A setting whose `Field` gives no description: the reference would have nothing to say about it."""


def concerns(settings: type[BaseSettings] = Settings) -> list[type[BaseSettings]]:
    """The classes `Settings` is assembled from, in the order it lists them."""
    return [base for base in settings.__bases__ if issubclass(base, BaseSettings)]


def undescribed(settings: type[BaseSettings] = Settings) -> list[str]:
    """The settings whose `Field` has no description."""
    return [name for name, field in settings.model_fields.items() if not (field.description or "").strip()]


def environment_names(name: str, field: FieldInfo) -> list[str]:
    """The variables a setting is read from: its own MNEMO_ name, or the choices its validation alias gives."""
    alias = field.validation_alias
    if isinstance(alias, AliasChoices):
        return [str(choice) for choice in alias.choices]
    if isinstance(alias, str):
        return [alias]
    return [f"MNEMO_{name.upper()}"]


def type_name(annotation: Any) -> str:
    """A type as the reader writes it in the environment's terms: `int`, `str | None`, `"auto" | "true" | "false"`."""
    origin = typing.get_origin(annotation)
    if annotation is type(None):
        return "None"
    if origin is typing.Literal:
        return " | ".join(json.dumps(value) for value in typing.get_args(annotation))
    if origin in (typing.Union, types.UnionType):
        return " | ".join(type_name(arg) for arg in typing.get_args(annotation))
    if origin is typing.Annotated:
        return type_name(typing.get_args(annotation)[0])
    if origin is not None:
        args = ", ".join("..." if arg is Ellipsis else type_name(arg) for arg in typing.get_args(annotation))
        return f"{getattr(origin, '__name__', str(origin))}[{args}]"
    return getattr(annotation, "__name__", str(annotation))


def bounds(field: FieldInfo) -> str:
    """The constraints a value must meet (`≥ 1, ≤ 32`), from the field's metadata."""
    found = []
    for constraint in field.metadata:
        for kind, attribute, sign in _BOUNDS:
            if isinstance(constraint, kind):
                found.append(f"{sign} {getattr(constraint, attribute):,}")
    return ", ".join(found)


def _literal(value: Any) -> str:
    """One default value as the environment spells it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, tuple | list):
        return ",".join(_literal(v) for v in value)
    if isinstance(value, dict):
        return json.dumps(value)
    if isinstance(value, Path) and not value.is_absolute():
        return f"./{value.as_posix()}"
    return str(value)


def default_text(field: FieldInfo) -> str:
    """The default as it would be written in the environment; `unset` when there is none, `empty` for ""."""
    value = field.get_default(call_default_factory=True)
    if value is None:
        return "unset"
    if value == "":
        return "empty"
    return f"`{_literal(value)}`"


def cell(text: str) -> str:
    """Text fit for a Markdown table cell: one line; outside code spans, pipes escaped and `<` written as an entity
    (`<data dir>` would otherwise be read as an HTML tag and vanish). Inside a code span a pipe separates nothing."""
    parts = " ".join(text.split()).split("`")
    return "`".join(part if i % 2 else part.replace("|", "\\|").replace("<", "&lt;") for i, part in enumerate(parts))


def row(name: str, field: FieldInfo) -> str:
    if not (field.description or "").strip():
        raise MissingDescriptionError(f"the setting {name} has no description: give its Field one")
    variables = ", ".join(f"`{variable}`" for variable in environment_names(name, field))
    kind = f"`{type_name(field.annotation)}`"
    limits = bounds(field)
    if limits:
        kind += f" ({limits})"
    return f"| {variables} | {cell(kind)} | {default_text(field)} | {cell(field.description or '')} |"


def table(concern: type[BaseSettings]) -> list[str]:
    title = cell((concern.__doc__ or concern.__name__).strip().rstrip("."))
    module = sys.modules[concern.__module__].__doc__ or ""
    lines = [f"### {title}", "", " ".join(module.split()), "", f"`{concern.__module__}.{concern.__name__}`", ""]
    lines += ["| Variable | Type | Default | Meaning |", "|---|---|---|---|"]
    lines += [row(name, field) for name, field in concern.model_fields.items()]
    return [*lines, ""]


def render(settings: type[BaseSettings] = Settings) -> str:
    """Every table of the reference, as Markdown."""
    lines: list[str] = []
    for concern in concerns(settings):
        lines += table(concern)
    return "\n".join(lines).rstrip() + "\n"
