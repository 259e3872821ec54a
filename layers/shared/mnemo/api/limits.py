"""The bound of every request field, in one place: checked before any work, documented in /openapi.json (and the
README's Limits table), answered with a 4xx that names the field and the limit.

- Sizes of whole requests: a body is at most 1 MiB (api/body_guard.py); one add or update at most 100 kB of
  text and metadata (services/commands.py).
- Free-form JSON (metadata, export schemas, configuration, entity metadata) is bounded in depth, keys per object,
  key length and list length by `bounded_json`; filters by their own parser's bounds (domain/filters.py).
- Pages: one page number bound for every paginated route.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any

from annotated_types import Len
from fastapi import Path, Query
from pydantic import AfterValidator, Field, GetJsonSchemaHandler, TypeAdapter
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema
from typing_extensions import TypeAliasType

from mnemo.domain.json_shape import MAX_DEPTH, MAX_KEY_LENGTH, MAX_KEYS, MAX_LIST, RULE, json_problem

MAX_QUERY = 4_000  # characters of a search query (the embedding model reads the first 256 word pieces anyway)
MAX_INSTRUCTIONS = 20_000  # characters of custom instructions or a prompt
MAX_NAME = 255  # characters of a name, a label, an email, an entity id
MAX_DESCRIPTION = 2_000  # characters of a description, a feedback reason
MAX_SHORT = 64  # characters of a role, a date, an operator-like value
MAX_CATEGORIES = 100  # custom categories of one project or add
MAX_MESSAGES = 1_000  # messages of one add
MAX_FIELDS = 50  # names in a `fields` list
MAX_BATCH = 1_000  # memories of one batch update or delete
MAX_FILTERS_PARAM = 16_384  # characters of a `filters` or `metadata` query parameter (JSON)
MAX_PAGE = 100_000  # page numbers
MAX_PAGE_SIZE = 1_000  # items of one page (the entity list: 10,000)
MAX_TOP_K = 1_000  # results of one search


def bounded_json(where: str) -> Callable[[Any], Any]:
    """A validator of free-form JSON (mnemo.domain.json_shape): a 422 that says which bound it broke."""

    def check(value: Any) -> Any:
        problem = json_problem(value, where)
        if problem is not None:
            raise ValueError(problem)
        return value

    return check


JSON_RULE = f"Free-form JSON: {RULE}."

# How /openapi.json describes free-form JSON: the same bounds as `json_problem`, as JSON Schema. Text without a
# control character (tab, newline and carriage return are fine in values, not in keys); one component per level,
# so that the depth is stated too (the object is level 1; containers nest down to level MAX_DEPTH).
TEXT_PATTERN = r"^[^\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]*$"
KEY_PATTERN = r"^[^\x00-\x1f\x7f-\x9f]*$"


@dataclass(frozen=True)
class DescribedAs:
    """Annotation: the JSON Schema of a value is that of `shape` (the value itself is checked by its validator)."""

    shape: Any

    def __get_pydantic_json_schema__(self, _core: CoreSchema, handler: GetJsonSchemaHandler) -> JsonSchemaValue:
        return handler(TypeAdapter(self.shape).core_schema)


@dataclass(frozen=True)
class BoundedKeys:
    """Annotation of an object's JSON Schema: the bounds of its keys."""

    def __get_pydantic_json_schema__(self, core: CoreSchema, handler: GetJsonSchemaHandler) -> JsonSchemaValue:
        schema = handler(core)
        schema["propertyNames"] = {"maxLength": MAX_KEY_LENGTH, "pattern": KEY_PATTERN}
        return schema


def _free_json(level: int) -> Any:
    """The JSON Schema of a value at `level` of a free-form object."""
    scalar = Annotated[str, Field(pattern=TEXT_PATTERN)] | int | float | bool | None
    if level > MAX_DEPTH:
        return scalar
    inner = _free_json(level + 1)
    nested = Annotated[list[inner], Len(0, MAX_LIST)] | Annotated[dict[str, inner], Len(0, MAX_KEYS), BoundedKeys()]  # type: ignore[valid-type]
    return TypeAliasType(f"JsonAtLevel{level}", scalar | nested)


FREE_JSON = DescribedAs(Annotated[dict[str, _free_json(2)], Len(0, MAX_KEYS), BoundedKeys()])  # type: ignore[misc]

Metadata = Annotated[dict[str, Any], AfterValidator(bounded_json("metadata")), FREE_JSON]
JsonObject = Annotated[dict[str, Any], AfterValidator(bounded_json("the object")), FREE_JSON]

Name = Annotated[str, Field(max_length=MAX_NAME)]
Short = Annotated[str, Field(max_length=MAX_SHORT)]

PageNumber = Annotated[int | None, Query(ge=1, le=MAX_PAGE, description=f"1 to {MAX_PAGE:,}.")]
PageSize = Annotated[int | None, Query(ge=1, le=MAX_PAGE_SIZE, description=f"1 to {MAX_PAGE_SIZE:,}.")]


def entity_types(*types: str) -> Any:
    """The `Path` of an `entity_type`: /openapi.json lists the types; any other is the route's own 400 (as the
    reference answers), not a 422."""
    listed = ", ".join(types)
    return Path(description=f"One of {listed} (anything else is a 400).", json_schema_extra={"enum": list(types)})


EntityId = Annotated[
    str, Path(description="The entity's id: at most 255 characters, no whitespace or control character (400).")
]


def offset(page: int, size: int) -> int:
    """The first item of a page (pages count from 1; both are bounded, so this stays a small integer)."""
    return (page - 1) * size
