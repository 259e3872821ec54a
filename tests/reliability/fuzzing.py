"""Fuzzing the whole /openapi.json with schemathesis, once per kind of caller: what the two test files share
(test_fuzz_self_hosted.py, test_fuzz_platform.py, one per surface so that a worker per core can run them side by side).

The real app (authentication on, both surfaces, the real embedding model) is served in-process over ASGI, and the
schema fuzzed is the app's own description (checked to be what it serves). Each caller fuzzes the routes of its
surface with every check schemathesis has: no server error; status code, content type, headers and response schema
conformance; schema-violating requests rejected, schema-valid ones accepted; missing required header; unsupported
method (and its Allow); authentication not ignored (the request again with no and with wrong credentials); ...

- `admin`: the self-hosted admin, by Bearer token (it reaches every self-hosted route, /api-keys and /auth/me too);
- `member`: a self-hosted member, by its own API key (X-API-Key);
- `owner`: a platform project's OWNER key (`Authorization: Token m0-...`);
- `reader`: a READER key of the same project.

A schema-valid request may still be refused with a 400: that is mnemo's answer to a rule JSON Schema cannot state
(an add names no user, agent or run; unknown filter operators; an email already taken is a 409). A 422, though, is
the answer to a request that breaks a documented bound, so a schema-valid request answered 422 fails the run: the
description was incomplete.

Nothing is excluded. Platform callers have their organization and project ids pinned into the paths, so the fuzzer
reaches what lies behind the lookup (and the READER its 403s); only the OWNER's two deletes that would end its own
tenancy (DELETE of its organization, of its project) keep the generated ids, so they are fuzzed against the 404
path (their success is the e2e tests'). The other destructive routes are fuzzed as they are, since they cannot
destroy the fixtures: POST /reset deletes memories, never accounts or keys; DELETE /users/{id} and DELETE
/api-keys/{id} get generated ids, never the fixtures' own. Each file's last test checks that.

`make test` runs the examples and fuzzing phases: MNEMO_FUZZ_EXAMPLES examples per route (20), each sent as both
of the surface's callers (generated once: generating is most of the run), with a fixed seed (MNEMO_FUZZ_SEED),
derandomized. `make fuzz` adds the coverage phase (MNEMO_FUZZ_COVERAGE=1: every
boundary and every way to break each field, thousands of requests for a route with a body) and 300 examples.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
import schemathesis
from fastapi import FastAPI
from fastapi.testclient import TestClient
from pydantic import SecretStr

from mnemo.api.app import create_app, whole_api_description
from mnemo.composition.container import Container, build_container
from mnemo.settings import Settings
from tests.conftest import CachedModelRegistry

EXAMPLES = int(os.environ.get("MNEMO_FUZZ_EXAMPLES", "20"))
SEED = int(os.environ.get("MNEMO_FUZZ_SEED", "20260512"))
COVERAGE = os.environ.get("MNEMO_FUZZ_COVERAGE", "") == "1"

ADMIN = {"name": "Ada", "email": "ada@example.com", "password": "correct horse battery"}
MEMBER = {"name": "Bob", "email": "bob@example.com", "password": "member password 1"}
OWNER_EMAIL = "owner@example.com"
READER_EMAIL = "reader@example.com"

PLATFORM_PATHS = r"^/(v1|v2|v3|api/v1)/"
SELF_HOSTED_PATHS = r"^/(?!(v1|v2|v3|api/v1)/)"
ORG_ROUTE = "/api/v1/orgs/organizations/{org_id}/"
PROJECT_ROUTE = ORG_ROUTE + "projects/{project_id}/"


@dataclass
class Caller:
    headers: dict[str, str]
    parameters: dict[str, str]  # path parameters pinned to the caller's own tenancy
    spared: frozenset[tuple[str, str]]  # operations (method, path) left unpinned: they would end its tenancy


@dataclass
class Served:
    app: FastAPI
    container: Container
    callers: dict[str, Caller]


def ok(response: Any, status: int = 200) -> Any:
    assert response.status_code == status, (response.request.url, response.text)
    return response.json()


def self_hosted_callers(client: TestClient) -> dict[str, Caller]:
    admin = ok(client.post("/auth/register", json=ADMIN))["access_token"]
    ok(client.post("/users", json=MEMBER, headers={"Authorization": f"Bearer {admin}"}), 201)
    member = ok(client.post("/auth/login", json={"email": MEMBER["email"], "password": MEMBER["password"]}))
    signed_in = {"Authorization": f"Bearer {member['access_token']}"}
    key = ok(client.post("/api-keys", json={"label": "fuzz"}, headers=signed_in), 201)
    return {
        "admin": Caller({"Authorization": f"Bearer {admin}"}, {}, frozenset()),
        "member": Caller({"X-API-Key": key["key"]}, {}, frozenset()),
    }


def platform_callers(client: TestClient, container: Container) -> dict[str, Caller]:
    assert container.platform is not None
    made = container.platform.tenancy.bootstrap(OWNER_EMAIL, "Fuzz Org")
    org, project = made.org.id, made.project.id
    owner = {"Authorization": f"Token {made.api_key}"}
    members = f"/api/v1/orgs/organizations/{org}/projects/{project}/members/"
    container.platform.tenancy.bootstrap(READER_EMAIL, "Fuzz Reader")  # a known user is a member at once
    ok(client.post(members, json={"email": READER_EMAIL, "role": "READER"}, headers=owner))
    keys = f"/api/v1/orgs/organizations/{org}/projects/{project}/api-keys/"
    reader = ok(client.post(keys, json={"email": READER_EMAIL, "label": "fuzz"}, headers=owner), 201)["api_key"]
    pinned = {"org_id": org, "project_id": project}
    spared = frozenset({("DELETE", ORG_ROUTE), ("DELETE", PROJECT_ROUTE)})
    return {
        "owner": Caller(owner, pinned, spared),
        "reader": Caller({"Authorization": f"Token {reader}"}, pinned, frozenset()),
    }


@pytest.fixture(scope="module")
def served(embedder: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    settings = Settings(
        data_dir=tmp_path_factory.mktemp("fuzz") / "data",
        jwt_secret=SecretStr("fuzz-jwt-secret-" + "x" * 32),
        admin_api_key=SecretStr("fuzz-admin-key-0123456789abcdef"),
        argon2_time_cost=1,
        argon2_memory_kib=64,
        argon2_parallelism=1,
        rate_limit_register=0,
        rate_limit_login=0,
        rate_limit_refresh=0,
    )
    container = build_container(settings, CachedModelRegistry(embedder))
    app = create_app(container)
    client = TestClient(app)
    assert ok(client.get("/openapi.json")) == API.raw_schema  # the schema fuzzed is the one served
    callers = {**self_hosted_callers(client), **platform_callers(client, container)}
    FORWARD.target = app
    yield Served(app, container, callers)
    FORWARD.target = None
    container.close()


CONFIG = schemathesis.Config.from_dict(
    {
        "seed": SEED,
        # Hypothesis times how long each example takes to generate and fails a slow one: a wall-clock check, which a
        # busy machine fails with nothing wrong (the number of examples, not their speed, is what is set here).
        "suppress-health-check": ["too_slow"],
        "generation": {
            "max-examples": EXAMPLES,
            "deterministic": True,
            "database": "none",
            "with-security-parameters": False,  # each caller sends its own credentials
        },
        # The coverage phase is not bounded by max-examples (thousands of requests for a route with a body): only
        # `make fuzz` runs it.
        "phases": {"coverage": {"enabled": COVERAGE}},
        "checks": {
            "positive_data_acceptance": {"expected-statuses": ["2xx", "400", "401", "403", "404", "409"]},
            # a generated body past the 1 MiB bound is refused as too large (413) before it is read: a rejection too
            "negative_data_rejection": {
                "expected-statuses": [
                    "400",
                    "401",
                    "403",
                    "404",
                    "405",
                    "406",
                    "409",
                    "413",
                    "415",
                    "422",
                    "428",
                    "429",
                ]
            },
        },
    }
)


class Forward:
    """The ASGI app the schema sends its requests to: the module's served app, once the fixture has made it (the
    schema is made at import, before any fixture, so that pytest collects one test per operation)."""

    target: FastAPI | None = None

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        assert self.target is not None, "the app is served by the `served` fixture"
        await self.target(scope, receive, send)


FORWARD = Forward()
API = schemathesis.openapi.from_dict(whole_api_description(), config=CONFIG)
API.app = FORWARD
SELF_HOSTED = API.include(path_regex=SELF_HOSTED_PATHS)
PLATFORM = API.include(path_regex=PLATFORM_PATHS)


def fuzz(case: schemathesis.Case[Any], served: Served, names: tuple[str, ...]) -> None:
    """The example sent as each of these callers in turn: generated once, checked for each (a failure names the
    caller). Each sends it with its own tenancy pinned into the path, from the ids as they were generated."""
    generated = None if case.path_parameters is None else dict(case.path_parameters)
    for name in names:
        caller = served.callers[name]
        case.path_parameters = None if generated is None else dict(generated)
        pinned = caller.parameters if (case.method, case.path) not in caller.spared else {}
        for parameter, value in pinned.items():
            if case.path_parameters is not None and parameter in case.path_parameters:
                case.path_parameters[parameter] = value
        try:
            case.call_and_validate(headers=caller.headers)
        except BaseException as failed:
            failed.add_note(f"sent as the {name}")
            raise


ALIVE = {"admin": "/auth/me", "member": "/memories?user_id=fuzz", "owner": "/v1/ping/", "reader": "/v1/ping/"}


def callers_outlived(served: Served, names: tuple[str, ...]) -> None:
    """No fuzzed request ended a caller's access (run after the fuzzing: pytest keeps a file's order)."""
    client = TestClient(served.app)
    for name in names:
        ok(client.get(ALIVE[name], headers=served.callers[name].headers))
