"""What several platform answers share: the DRF-style page, the `{"results": ...}` envelopes, and the `fields`
projection of list and search items."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Generic, Self, TypeVar

from pydantic import BaseModel, Field
from pydantic.json_schema import SkipJsonSchema
from starlette.requests import Request

T = TypeVar("T")
FullModel = TypeVar("FullModel", bound=BaseModel)
Selection = TypeVar("Selection", bound=BaseModel)

Omitted = SkipJsonSchema[None]
"""The `None` of a key that is absent when it does not apply (never sent as null)."""


class Page(BaseModel, Generic[T]):
    """A DRF-style page: the total count, absolute URLs of the neighbouring pages, and this page's items."""

    count: int = Field(description="How many items there are in all, over every page.", examples=[42])
    next: str | None = Field(
        description="The absolute URL of the next page (the same query with `page` and `page_size`); null on the "
        "last page.",
        examples=["https://api.example.com/v3/memories/?page=2&page_size=100"],
    )
    previous: str | None = Field(
        description="The absolute URL of the previous page; null on the first.", examples=[None]
    )
    results: list[T] = Field(description="The items of this page.")

    @classmethod
    def of(
        cls, request: Request, items: Sequence[T], count: int, page_number: int, page_size: int, **extra: Any
    ) -> Self:
        """The page `page_number` of `count` items, `page_size` a page; `extra` are the keys a subclass adds."""
        url = request.url
        more = page_number * page_size < count
        return cls(
            count=count,
            next=str(url.include_query_params(page=page_number + 1, page_size=page_size)) if more else None,
            previous=(
                str(url.include_query_params(page=page_number - 1, page_size=page_size)) if page_number > 1 else None
            ),
            results=list(items),
            **extra,
        )


class Results(BaseModel, Generic[T]):
    """The items, under `results`."""

    results: list[T] = Field(description="The items.")


class ResultsAndRelations(Results[T], Generic[T]):
    """The legacy `output_format=v1.1` envelope: the items, and the graph relations (never any here)."""

    relations: list[Any] = Field(description="Always empty: graph relations are not returned.", examples=[[]])


def select(item: FullModel, fields: Sequence[str] | None, selection: type[Selection]) -> FullModel | Selection:
    """The `fields` projection: the item itself when no fields are asked for, else a `selection` with only the
    keys named in `fields` (and `id`, always kept), in the item's key order. Unknown names are ignored."""
    if not fields:
        return item
    names = [name for name in type(item).model_fields if name in fields or name == "id"]
    return selection(**{name: getattr(item, name) for name in names})
