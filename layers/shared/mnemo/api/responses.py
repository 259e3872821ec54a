"""Pieces every surface's response models share: the error bodies, a `{"message": ...}` answer, the timestamp
type, and `errors(...)`, the `responses=` of a route's documented failures.

Conventions (the models of api/selfhosted/responses and api/platform/responses follow them):
- A response model lists its keys in wire order; keys that appear only when they apply are typed
  `T | SkipJsonSchema[None] = None` (so the schema does not promise a null) and the route sets
  `response_model_exclude_unset=True`; converters build models with only the keys that apply.
- A key that is always sent, possibly as null, is required and typed `T | None`.
- Timestamps are `Timestamp`: datetimes serialized by `mnemo.domain.timefmt.iso`.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from pydantic import BaseModel, Field, PlainSerializer, WithJsonSchema

from mnemo.domain.timefmt import iso

TIMESTAMP_EXAMPLE = "2026-05-01T09:30:00.123456+00:00"

Timestamp = Annotated[
    datetime,
    PlainSerializer(iso, return_type=str),
    WithJsonSchema({"type": "string", "format": "date-time", "examples": [TIMESTAMP_EXAMPLE]}),
]
"""A moment, sent as ISO 8601 in UTC with microseconds and an explicit `+00:00` offset."""


class MessageOut(BaseModel):
    """An acknowledgement."""

    message: str = Field(description="What was done.", examples=["Memory deleted successfully"])


class ErrorOut(BaseModel):
    """An error: `detail` says what went wrong."""

    detail: str = Field(description="What went wrong, for a person to read.", examples=["Memory with id m1 not found."])


class ProviderErrorOut(ErrorOut):
    """An error of an upstream provider (the LLM or the embedder), with a code a program can act on."""

    code: str = Field(
        description="What kind of failure: provider_auth_failed, provider_rate_limited, provider_timeout, "
        "provider_unavailable, provider_bad_request, datastore_unavailable, vector_store_unavailable or unknown.",
        examples=["provider_rate_limited"],
    )
    request_id: str = Field(description="The request's X-Request-ID, to find it in the logs.", examples=["1f3a9c2e"])


class RateLimitedOut(ErrorOut):
    """Too many requests from this client in the last minute."""

    error: str = Field(description="The same message, where Mem0's server puts it.", examples=["Rate limit exceeded"])


_ERRORS: dict[int, tuple[type[BaseModel], str]] = {
    400: (ErrorOut, "Invalid input: the message says which."),
    401: (ErrorOut, "Missing, invalid or expired credentials."),
    403: (ErrorOut, "The caller is not allowed to do this (e.g. an admin's route)."),
    404: (ErrorOut, "No such resource."),
    409: (ErrorOut, "Conflicts with the current state (e.g. an email already in use)."),
    413: (ErrorOut, "The request is too large."),
    429: (RateLimitedOut, "Too many requests; retry after Retry-After seconds."),
    502: (ProviderErrorOut, "An upstream provider (LLM or embedder) failed."),
    503: (ErrorOut, "A backing service is unavailable; retry shortly."),
}
_HEADERS: dict[int, dict[str, Any]] = {
    401: {
        "WWW-Authenticate": {"description": "`Bearer`, when no credentials were sent.", "schema": {"type": "string"}}
    },
    429: {"Retry-After": {"description": "Seconds to wait before retrying.", "schema": {"type": "integer"}}},
}


def errors(*codes: int) -> dict[int | str, dict[str, Any]]:
    """The `responses=` documenting these error statuses, each with its body model. (422, the body or query
    validation error, is documented by FastAPI itself.)"""
    out: dict[int | str, dict[str, Any]] = {}
    for code in codes:
        model, description = _ERRORS[code]
        out[code] = {"model": model, "description": description}
        if code in _HEADERS:
            out[code]["headers"] = _HEADERS[code]
    return out
