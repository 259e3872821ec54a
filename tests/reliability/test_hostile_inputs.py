"""Hostile inputs, table-driven from /openapi.json: every kind of hostile value on every route that takes that kind
of value, sent by a caller allowed to use the route (the self-hosted admin, the platform project's OWNER) in a
request otherwise valid (route_requests.yaml, with the tenants' real ids).

| Hostile value | Where | Expected |
|---|---|---|
| a body over 1 MiB | every route with a JSON body | 413 |
| a body nested 100 deep | every route with a JSON body | 400 |
| a lone UTF-16 surrogate ("\\ud800", the JSON escape) | each string field of a body | 400 |
| bytes that are not UTF-8 (a surrogate's bytes ED B2 80, Latin-1's E9) | each string field of a body | 400 |
| a control character (NUL) | each user/agent/run/app id: in a body, its filters, a query string, a path | 400 |
| an id that prints as another (NBSP, Cyrillic "а", zero-width space, U+202E) | the same ids | 400 |
| a string 10× its maxLength | each string field or query parameter that documents one | 422 |
| an integer far over its maximum (2**63-1, 10**30) | each integer field or query parameter that documents one | 422 |
| the same integers | each integer field or query parameter with no documented maximum (a timestamp) | 400 |
| page=9223372036854775807 | every route that takes a page | 422 |
| `filters` nested 500 deep | every route with a `filters` query parameter | 400 |

Every answer is a 4xx whose detail names the problem, never a 5xx, never more than a few kB; and nothing is stored:
the tenants hold exactly what they held before (no memory, no event, no entity, user, key, organization or export).
tests/e2e/test_hostile_input.py has hand-written examples of each kind; this is the exhaustive version."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

import pytest

from mnemo.api.body_guard import MAX_BODY_BYTES
from tests.conftest import CachedModelRegistry
from tests.reliability.openapi_routes import (
    ID_FIELDS,
    FieldPath,
    Operation,
    Request,
    Values,
    bounded_integers,
    bounded_strings,
    dotted,
    id_fields,
    load_yaml,
    operations,
    request_for,
    set_at,
    string_fields,
)
from tests.reliability.victims import Platform, SelfHosted, ok, platform, self_hosted, served

REQUESTS = load_yaml("route_requests.yaml")
MAX_ANSWER_BYTES = 4_096  # "a few kB": a 422 lists at most 20 problems, each with a 100-character excerpt
LONE = "\ud800"
NUL = "a\x00b"
HUGE_INTEGERS = (2**63 - 1, 10**30)
# The HTTP client sends at most 65,536 characters of query string: a query parameter's value goes over its bound by
# as much as that allows (10x a filters parameter's 16,384 would be a URL no client or proxy carries).
MAX_QUERY_VALUE = 60_000


@dataclass
class Tenants:
    client: Any
    spec: dict[str, Any]
    selfhosted: SelfHosted
    platform: Platform

    def operations(self) -> list[Operation]:
        return operations(self.spec)

    def base(self, op: Operation, **overrides: str) -> tuple[Request, dict[str, str]]:
        """The route's valid request (`overrides` replacing some of the tenant's values) and the headers of the
        caller allowed to send it."""
        if op.surface == "platform":
            values, headers = Values(self.platform.values), self.platform.callers["owner"]
        else:
            values, headers = self.selfhosted.values_for("admin_token"), self.selfhosted.callers["admin_token"]
        values.update(overrides)
        return request_for(op, REQUESTS, values), headers

    def snapshot(self) -> dict[str, Any]:
        """What both tenants hold, whatever a request could have stored: every memory, event, entity, user, key,
        organization, project and the latest export."""
        owner, admin = self.platform.callers["owner"], self.selfhosted.admin
        latest_export = self.client.post("/v1/exports/get/", json={}, headers=owner)
        return {
            "self-hosted": self.selfhosted.snapshot(),
            "self-hosted memories": ok(self.client.get("/memories", headers=admin)),
            "platform": self.platform.snapshot(),
            "organizations": ok(self.client.get("/api/v1/orgs/organizations/", headers=owner)),
            "latest export": (latest_export.status_code, latest_export.json()),
        }


@pytest.fixture(scope="module")
def tenants(embedder: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Tenants]:
    with served(tmp_path_factory.mktemp("hostile") / "data", CachedModelRegistry(embedder)) as (container, client):
        spec = ok(client.get("/openapi.json"))
        yield Tenants(client, spec, self_hosted(client), platform(container, client))


# ---- one hostile request and what its answer must be ------------------------------------------------------


@dataclass
class Case:
    what: str  # the route and where the value went
    request: Request
    headers: dict[str, str]
    status: int
    names: tuple[str, ...]  # the answer's detail names at least one of these
    raw: bytes | None = None  # the body as bytes (else the request's JSON)
    loc: str | int | None = None  # a 422 lists a problem at this field
    tool_error: bool = False  # an MCP tool call: the refusal is the tool's error result (JSON-RPC 200, isError)

    def problems(self, answer: Any, field_keyed: bool = False) -> list[str]:
        """What is wrong with the answer. `field_keyed`: the route answers a request that does not fit with a 400
        keyed by field name (Mem0's webhook routes), where others answer a 422."""
        where = f"{self.what}: {answer.status_code} {answer.text[:300]}"
        if self.tool_error:
            return self.tool_problems(answer, where)
        found: list[str] = []
        status = 400 if field_keyed and self.status == 422 else self.status
        if answer.status_code != status:
            found.append(f"expected {status}, got {where}")
        if len(answer.content) > MAX_ANSWER_BYTES:
            found.append(f"an answer of {len(answer.content):,} bytes: {where}")
        if field_keyed and self.status == 422 and not found:
            if str(self.loc) not in answer.json():
                found.append(f"no messages for {self.loc!r}: {where}")
        elif answer.status_code < 500 and not found:
            detail = answer.json().get("detail")
            text = json.dumps(detail, ensure_ascii=False)
            if not any(name in text for name in self.names):
                found.append(f"the detail names none of {self.names}: {where}")
            if self.loc is not None and not any(self.loc in problem["loc"] for problem in detail):
                found.append(f"no problem listed at {self.loc!r}: {where}")
        return found

    def tool_problems(self, answer: Any, where: str) -> list[str]:
        """What is wrong with an MCP tool call's answer: not an error result of the tool naming the problem."""
        if answer.status_code == 400:  # refused by the route before the tool ran: as good
            return [] if any(name in answer.text for name in self.names) else [f"names none of {self.names}: {where}"]
        result = answer.json().get("result", {}) if answer.status_code == 200 else {}
        text = json.dumps(result.get("content", []), ensure_ascii=False)
        if result.get("isError") is not True or not any(name in text for name in self.names):
            return [f"expected the tool's error naming one of {self.names}, got {where}"]
        return []


def run(tenants: Tenants, cases: list[Case]) -> None:
    assert cases, "no route takes this kind of value: the generator is wrong"
    before = tenants.snapshot()
    keyed = [op.key for op in tenants.operations() if "422" not in op.spec.get("responses", {})]
    problems: list[str] = []
    for case in cases:
        answer = case.request.send(tenants.client, case.headers, raw=case.raw)
        # a case names its route's key, then " " or "?": a route whose path extends another's is not that one
        problems += case.problems(answer, field_keyed=any(case.what.startswith((f"{k} ", f"{k}?")) for k in keyed))
    assert not problems, f"{len(problems)} of {len(cases)} hostile requests:\n" + "\n".join(problems)
    assert tenants.snapshot() == before, "a refused request stored something"


def with_body(request: Request, body: Any) -> Request:
    return Request(request.method, request.path, dict(request.query), body, has_body=True)


def with_query(request: Request, name: str, value: Any) -> Request:
    return Request(request.method, request.path, {**request.query, name: value}, request.body, request.has_body)


def leaves(value: Any, at: FieldPath = ()) -> Iterator[tuple[FieldPath, Any]]:
    """Every (path, value) of a JSON value: the fields a free-form body actually has."""
    yield at, value
    if isinstance(value, dict):
        for key, item in value.items():
            yield from leaves(item, (*at, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from leaves(item, (*at, index))


def body_routes(tenants: Tenants) -> Iterator[tuple[Operation, Request, dict[str, str]]]:
    for op in tenants.operations():
        if op.body_schema is not None:
            request, headers = tenants.base(op)
            yield op, request, headers


Generator = Callable[[Tenants], list[Case]]


# ---- sizes and shapes of a whole body ---------------------------------------------------------------------


def oversized_bodies(tenants: Tenants) -> list[Case]:
    raw = b'{"messages": "' + b"a" * (MAX_BODY_BYTES + 1) + b'"}'
    return [
        Case(f"{op.key} with a body of 1 MiB + 20 bytes", request, headers, 413, ("1,048,576",), raw=raw)
        for op, request, headers in body_routes(tenants)
    ]


def deep_bodies(tenants: Tenants) -> list[Case]:
    cases = []
    for op, request, headers in body_routes(tenants):
        first = next(iter(request.body), "value") if isinstance(request.body, dict) else "value"
        raw = ('{"' + str(first) + '": ' + "[" * 99 + "]" * 99 + "}").encode()
        cases.append(Case(f"{op.key} with {first} nested 100 deep", request, headers, 400, ("deep",), raw=raw))
    return cases


# ---- text that is not text ----------------------------------------------------------------------------


def text_fields(op: Operation, body: Any) -> list[FieldPath]:
    """Each string field of the route's schema, and each string the valid body holds (a free-form body's too)."""
    found = set(string_fields(op)) | {path for path, value in leaves(body) if path and isinstance(value, str)}
    return sorted(found, key=str)


def lone_surrogates(tenants: Tenants) -> list[Case]:
    cases = []
    for op, request, headers in body_routes(tenants):
        for path in text_fields(op, request.body):
            hostile = with_body(request, set_at(request.body, path, f"tea {LONE}"))
            what = f"{op.key} with a lone surrogate in {dotted(path)}"
            cases.append(Case(what, hostile, headers, 400, ("surrogate",), raw=hostile.encoded()))
    return cases


NOT_UTF8 = (b"\xed\xb2\x80", b"caf\xe9")  # a surrogate encoded as if it were a character; Latin-1
MARK = "\u2603-not-utf8-\u2603"  # stands where the raw bytes go, replaced in the encoded body


def raw_bytes(tenants: Tenants) -> list[Case]:
    cases = []
    for op, request, headers in body_routes(tenants):
        for number, path in enumerate(text_fields(op, request.body)):
            hostile = with_body(request, set_at(request.body, path, f"tea {MARK}"))
            raw = hostile.encoded().replace(json.dumps(MARK).strip('"').encode(), NOT_UTF8[number % 2])
            assert NOT_UTF8[number % 2] in raw, f"{op.key}: the bytes did not replace the mark in {dotted(path)}"
            what = f"{op.key} with bytes that are not UTF-8 in {dotted(path)}"
            cases.append(Case(what, hostile, headers, 400, ("UTF-8",), raw=raw))
    return cases


def nul_in_ids(tenants: Tenants) -> list[Case]:
    return hostile_ids(tenants, (NUL,), "NUL", ("control character",))


# An id that prints as another's: a trailing NBSP, a Cyrillic "а", a zero-width space, a right-to-left override.
LOOK_ALIKES = ("alice\u00a0", "\u0430lice", "al\u200bice", "alice\u202e")


def look_alike_ids(tenants: Tenants) -> list[Case]:
    return hostile_ids(tenants, LOOK_ALIKES, "a look-alike", ("whitespace", "writing systems", "invisible"))


def hostile_ids(tenants: Tenants, values: tuple[str, ...], label: str, words: tuple[str, ...]) -> list[Case]:
    """Each id of every route (in a body, its filters, a query string, a filters query parameter, the path) set to
    one of `values` in turn; the answer names one of `words` or the id (or, where a route takes no such id, its
    name)."""
    cases = []
    turn = 0

    def value() -> str:
        nonlocal turn
        turn += 1
        return values[turn % len(values)]

    for op in tenants.operations():
        request, headers = tenants.base(op)
        for path in body_ids(op, request.body):
            hostile = with_body(request, set_at(request.body, path, value()))
            what = f"{op.key} with {label} in {dotted(path)}"
            names = (*words, str(path[-1]))
            cases.append(Case(what, hostile, headers, 400, names, hostile.encoded(), tool_error=op.path == "/mcp"))
        for name in op.parameter_names("query"):
            if name in ID_FIELDS:
                hostile = with_query(request, name, value())
                cases.append(Case(f"{op.key}?{name}={label}", hostile, headers, 400, (*words, name)))
            if name == "filters":
                for inner in ID_FIELDS:
                    hostile = with_query(request, name, json.dumps({inner: value()}))
                    what = f"{op.key}?filters={{{inner}: {label}}}"
                    cases.append(Case(what, hostile, headers, 400, (*words, inner, "filters")))
        if "entity_id" in op.parameter_names("path"):
            hostile, _ = tenants.base(op, entity_id=quote(value()))
            cases.append(Case(f"{op.key} with {label} in the path's entity_id", hostile, headers, 400, words))
    return cases


def body_ids(op: Operation, body: Any) -> list[FieldPath]:
    """The schema's id fields, and the ids and filters the valid body holds (a free-form body's too)."""
    found = set(id_fields(op))
    for path, _ in leaves(body):
        if path and path[-1] in ID_FIELDS:
            found.add(path)
        if path and path[-1] == "filters":
            found |= {(*path, name) for name in ID_FIELDS}
    return sorted(found, key=str)


# ---- bounds the description documents -------------------------------------------------------------------


def long_strings(tenants: Tenants) -> list[Case]:
    cases = []
    for op in tenants.operations():
        request, headers = tenants.base(op)
        for path, bound in bounded_strings(op).items():
            hostile = with_body(request, set_at(request.body, path, "x" * (10 * bound)))
            what = f"{op.key} with {dotted(path)} of {10 * bound:,} characters (at most {bound:,})"
            cases.append(Case(what, hostile, headers, 422, ("string_too_long",), loc=path[-1]))
        for parameter in op.parameters("query"):
            most = _variant_bound(op, parameter, "maxLength")
            if most is not None:
                name, length = parameter["name"], min(10 * most, MAX_QUERY_VALUE)
                hostile = with_query(request, name, "x" * length)
                what = f"{op.key}?{name} of {length:,} characters (at most {most:,})"
                cases.append(Case(what, hostile, headers, 422, ("string_too_long",), loc=name))
    return cases


def _variant_bound(op: Operation, parameter: dict[str, Any], key: str) -> int | None:
    for variant in op.variants(parameter["schema"]):
        if key in variant:
            return int(variant[key])
    return None


def huge_integers(tenants: Tenants) -> list[Case]:
    cases = []
    for op in tenants.operations():
        request, headers = tenants.base(op)
        for path, bound in bounded_integers(op).items():
            for value in HUGE_INTEGERS:
                hostile = with_body(request, set_at(request.body, path, value))
                what = f"{op.key} with {dotted(path)}={value} (at most {bound:,})"
                cases.append(Case(what, hostile, headers, 422, ("less_than_equal",), loc=path[-1]))
        for parameter in op.parameters("query"):
            most = _variant_bound(op, parameter, "maximum")
            for value in HUGE_INTEGERS if most is not None else ():
                name = parameter["name"]
                what = f"{op.key}?{name}={value} (at most {most:,})"
                cases.append(Case(what, with_query(request, name, value), headers, 422, ("less_than_equal",), loc=name))
    return cases


def unbounded_integers(tenants: Tenants) -> list[Case]:
    """Integers with no documented maximum (a timestamp) still refuse what no store or clock takes: a 400."""
    cases = []
    for op in tenants.operations():
        request, headers = tenants.base(op)
        documented = bounded_integers(op)
        for path, schema in op.fields():
            if path and schema.get("type") == "integer" and path not in documented:
                for value in HUGE_INTEGERS:
                    hostile = with_body(request, set_at(request.body, path, value))
                    cases.append(Case(f"{op.key} with {dotted(path)}={value}", hostile, headers, 400, (str(path[-1]),)))
        for parameter in op.parameters("query"):
            kinds = [v.get("type") for v in op.variants(parameter["schema"])]
            if "integer" in kinds and _variant_bound(op, parameter, "maximum") is None:
                name = parameter["name"]
                for value in HUGE_INTEGERS:
                    hostile = with_query(request, name, value)
                    cases.append(Case(f"{op.key}?{name}={value}", hostile, headers, 400, (name,)))
    return cases


def huge_pages(tenants: Tenants) -> list[Case]:
    cases = []
    for op in tenants.operations():
        if "page" in op.parameter_names("query"):
            request, headers = tenants.base(op)
            hostile = with_query(request, "page", "9223372036854775807")
            cases.append(Case(f"{op.key}?page=2**63-1", hostile, headers, 422, ("less_than_equal",), loc="page"))
    return cases


def deep_filter_parameters(tenants: Tenants) -> list[Case]:
    deep = '{"AND":[' * 500 + '{"user_id":"a"}' + "]}" * 500
    cases = []
    for op in tenants.operations():
        if "filters" in op.parameter_names("query"):
            request, headers = tenants.base(op)
            hostile = with_query(request, "filters", deep)
            cases.append(Case(f"{op.key}?filters nested 500 deep", hostile, headers, 400, ("deep",)))
    return cases


@dataclass
class Kind:
    name: str
    generate: Generator = field(repr=False)


KINDS = [
    Kind("a body over 1 MiB", oversized_bodies),
    Kind("a body nested 100 deep", deep_bodies),
    Kind("a lone surrogate in each string field", lone_surrogates),
    Kind("bytes that are not UTF-8 in each string field", raw_bytes),
    Kind("NUL in each id", nul_in_ids),
    Kind("an id that looks like another in each id", look_alike_ids),
    Kind("a string 10x its maxLength", long_strings),
    Kind("an integer far over its maximum", huge_integers),
    Kind("an integer far out of range where no maximum is documented", unbounded_integers),
    Kind("page=2**63-1", huge_pages),
    Kind("filters nested 500 deep in a query string", deep_filter_parameters),
]


@pytest.mark.parametrize("kind", KINDS, ids=[kind.name for kind in KINDS])
def test_every_route_refuses_each_kind_of_hostile_value_naming_it_and_stores_nothing(
    tenants: Tenants, kind: Kind
) -> None:
    run(tenants, kind.generate(tenants))
