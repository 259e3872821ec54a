"""Pieces every surface's response models share: the error bodies, a `{"message": ...}` answer, the timestamp
type, and `errors(...)`, the `responses=` of a route's documented failures.

Conventions (the models of api/selfhosted/responses and api/platform/responses follow them):
- A response model lists its keys in wire order; keys that appear only when they apply are typed
  `T | SkipJsonSchema[None] = None` (so the schema does not promise a null) and the route sets
  `response_model_exclude_unset=True`; converters build models with only the keys that apply.
- A key that is always sent, possibly as null, is required and typed `T | None`.
- Timestamps are `Timestamp`: datetimes serialized by `mnemo.domain.timefmt.iso`; except `ZuluTimestamp`, where
  the reference writes a datetime through pydantic (the self-hosted account, key, request-log and entity answers).
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, PlainSerializer, WithJsonSchema
from pydantic.json_schema import SkipJsonSchema

from mnemo.domain.llm_usage import LLMUsage
from mnemo.domain.timefmt import iso, iso_z
from mnemo.services.llm_usage import Fallback

TIMESTAMP_EXAMPLE = "2026-05-01T09:30:00.123456+00:00"

Timestamp = Annotated[
    datetime,
    PlainSerializer(iso, return_type=str),
    WithJsonSchema({"type": "string", "format": "date-time", "examples": [TIMESTAMP_EXAMPLE]}),
]
"""A moment, sent as ISO 8601 in UTC with microseconds and an explicit `+00:00` offset."""

ZULU_EXAMPLE = "2026-05-01T09:30:00.123456Z"

ZuluTimestamp = Annotated[
    datetime,
    PlainSerializer(iso_z, return_type=str),
    WithJsonSchema({"type": "string", "format": "date-time", "examples": [ZULU_EXAMPLE]}),
]
"""A moment, sent as pydantic sends an aware datetime: ISO 8601 in UTC with a `Z`, the fraction only when not zero.
Mem0's self-hosted server answers its database columns (users, API keys, request logs) and its entity dates so."""


class LLMUsageOut(BaseModel):
    """Ours: what LLM calls used, as the provider counted it. An add that calls no LLM (infer=false, or no LLM
    configured) used zero calls and zero tokens."""

    calls: int = Field(description="Chat completions made.", examples=[2])
    input_tokens: int = Field(
        description="Prompt tokens the provider counted (0 for a call whose reply reports none).", examples=[812]
    )
    output_tokens: int = Field(description="Completion tokens the provider counted.", examples=[96])

    @classmethod
    def of(cls, usage: LLMUsage) -> LLMUsageOut:
        return cls(calls=usage.calls, input_tokens=usage.input_tokens, output_tokens=usage.output_tokens)


class FallbackOut(BaseModel):
    """Ours: an add whose LLM gave no answer it could use stored what the rule-based extractor found instead."""

    reason: Literal["llm_malformed", "llm_truncated", "llm_timeout"] = Field(
        description="Why: the LLM's answer was twice not the JSON asked for (`llm_malformed`), twice cut off at its "
        "output limit (`llm_truncated`), or did not come in time (`llm_timeout`).",
        examples=["llm_truncated"],
    )
    extractor: Literal["rules"] = Field(description="What extracted the add's memories instead.", examples=["rules"])

    @classmethod
    def of(cls, fallback: Fallback) -> FallbackOut:
        return cls(reason=fallback.reason, extractor=fallback.extractor)


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


class ErrorAlsoUnderErrorOut(ErrorOut):
    """An error the reference answers under `error`: the same message under both keys."""

    error: str = Field(description="The same message, where the reference puts it.", examples=["Invalid memory_id"])


class ValidationProblem(BaseModel):
    """One problem of a request that does not fit its route (a parameter or a body field)."""

    type: str = Field(description="What kind of problem (pydantic's error type); `more` ends a cut list.")
    loc: list[str | int] = Field(description="Where: `body`, `query`, `path` or `header`, then the field's path.")
    msg: str = Field(description="What is wrong, for a person to read.")
    input: Any = Field(
        default=None,
        description="The value sent: a number or a string of at most 100 characters as it is (a longer string cut "
        "and ended by …), an object or a list only by its size.",
    )
    ctx: dict[str, Any] | SkipJsonSchema[None] = Field(default=None, description="The bound that was broken.")


class ValidationErrorOut(BaseModel):
    """A request that does not fit its route: each problem (at most 20, then one of type `more` that counts the
    rest)."""

    detail: list[ValidationProblem]


class BadRequestOut(BaseModel):
    """Invalid input: `detail` says what went wrong, or lists each key the route does not take."""

    detail: str | list[ValidationProblem] = Field(
        description="What went wrong, for a person to read; a list of problems for unknown keys in a body.",
        examples=["The body nests objects and lists more than 64 deep."],
    )


_ERRORS: dict[int, tuple[type[BaseModel], str]] = {
    400: (ErrorOut, "Invalid input: the message says which."),
    401: (ErrorOut, "Missing, invalid or expired credentials."),
    403: (ErrorOut, "The caller is not allowed to do this (e.g. an admin's route)."),
    404: (ErrorOut, "No such resource."),
    409: (ErrorOut, "Conflicts with the current state (e.g. an email already in use)."),
    413: (ErrorOut, "The request is too large."),
    422: (ValidationErrorOut, "A parameter or a body field does not fit the route."),
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
    """The `responses=` documenting these error statuses, each with its body model. (Every route's 422, and a
    body's 400 and 413, are added by `request_errors`.)"""
    out: dict[int | str, dict[str, Any]] = {}
    for code in codes:
        model, description = _ERRORS[code]
        out[code] = {"model": model, "description": description}
        if code in _HEADERS:
            out[code]["headers"] = _HEADERS[code]
    return out


BODY_PROBLEMS = (
    "Invalid input: the message says which; for a body, also one that is not JSON, nests objects and lists more "
    "than 64 deep or holds a lone UTF-16 surrogate, or (listed like a 422) has keys the route does not take."
)


class MessageErrorOut(BaseModel):
    """An error of the platform's webhook routes, as Mem0's: `error` says what went wrong."""

    error: str = Field(description="What went wrong, for a person to read.", examples=["Webhook not found"])


FieldErrorsOut = dict[str, list[str]]
"""Invalid fields, as Mem0's platform answers for webhooks: each field's name, with its messages."""

FIELD_PROBLEMS = (
    'Invalid input: an object keyed by field name, each with a list of messages (`{"name": ["This field is '
    'required."]}`); a body that is not JSON, nests more than 64 deep or holds a lone UTF-16 surrogate is '
    '`{"detail": ...}`.'
)


def request_errors(*, parameters: bool, body: bool, field_errors: bool = False) -> dict[int | str, dict[str, Any]]:
    """The failures of a request before its route runs: 422 where it has parameters or a body (the answer of
    api/errors.py), and for a body 400 (api/body_guard.py, an unknown key) and 413 (over 1 MiB). A route that
    answers `field_errors` (api/routing.py `FieldErrorsRoute`) has a 400 keyed by field name instead of the 422."""
    if field_errors:
        out = errors(413) if body else {}
        if parameters or body:
            out[400] = {"model": FieldErrorsOut | ErrorOut, "description": FIELD_PROBLEMS}
        return out
    out = errors(422) if parameters or body else {}
    if body:
        out.update(errors(413))
        out[400] = {"model": BadRequestOut, "description": BODY_PROBLEMS}
    return out
