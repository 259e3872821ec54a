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
from typing import Annotated, Any

from fastapi import Query
from pydantic import AfterValidator, Field

from mnemo.domain.json_shape import RULE, json_problem

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

Metadata = Annotated[dict[str, Any], AfterValidator(bounded_json("metadata"))]
JsonObject = Annotated[dict[str, Any], AfterValidator(bounded_json("the object"))]

Name = Annotated[str, Field(max_length=MAX_NAME)]
Short = Annotated[str, Field(max_length=MAX_SHORT)]

PageNumber = Annotated[int | None, Query(ge=1, le=MAX_PAGE, description=f"1 to {MAX_PAGE:,}.")]
PageSize = Annotated[int | None, Query(ge=1, le=MAX_PAGE_SIZE, description=f"1 to {MAX_PAGE_SIZE:,}.")]


def offset(page: int, size: int) -> int:
    """The first item of a page (pages count from 1; both are bounded, so this stays a small integer)."""
    return (page - 1) * size
