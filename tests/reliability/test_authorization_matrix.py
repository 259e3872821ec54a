"""The authorization matrix, generated from /openapi.json: every route × every kind of caller, on both surfaces,
compared with the status authorization.yaml expects (written there once, by rule). Each request carries the
victim tenant's real ids and a body valid enough to reach the decision (route_requests.yaml). A route the table
does not list fails the first test.

Callers that have no right to the victim never see anything of it (its secret text, its ids, its members), and
after the whole matrix everything the victim holds is exactly as before: every success that changes something runs
against a fresh copy of the victim instead (the shared one must not move at all)."""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient

from mnemo.api.route_groups import GROUP_ROUTERS, load_routers
from mnemo.composition.container import Container
from tests.conftest import CachedModelRegistry
from tests.reliability.openapi_routes import Operation, load_yaml, operations, request_for
from tests.reliability.victims import Platform, SelfHosted, ok, platform, self_hosted, served

TABLE = load_yaml("authorization.yaml")
REQUESTS = load_yaml("route_requests.yaml")
IN_PLACE = set(TABLE["in_place"])
MAX_REFUSAL_BYTES = 2_048
# Callers with no role in the victim's project: nothing of it may appear in any answer they get.
OUTSIDERS = {"anonymous", "wrong_key", "other_org_owner", "other_org_reader", "same_org_other_project"}


@dataclass
class Served:
    container: Container
    client: TestClient
    spec: dict[str, Any]
    registry: CachedModelRegistry
    tmp: pytest.TempPathFactory

    @property
    def operations(self) -> list[Operation]:
        return operations(self.spec)


@pytest.fixture(scope="module")
def app(embedder: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    registry = CachedModelRegistry(embedder)
    with served(tmp_path_factory.mktemp("matrix") / "data", registry) as (container, client):
        yield Served(container, client, ok(client.get("/openapi.json")), registry, tmp_path_factory)


# ---- the table -------------------------------------------------------------------------------------------


def expectations(surface: str, key: str) -> dict[str, int | str]:
    """The expected status of each caller on one route: its rule, then its overrides."""
    section = TABLE[surface]
    entry = section["routes"].get(key)
    assert entry is not None, f"{key} has no row in tests/reliability/authorization.yaml: add it, with its rule"
    if isinstance(entry, str):
        entry = {"rule": entry}
    rule: dict[str, int | str] = section["rules"][entry["rule"]]
    return {caller: entry.get(caller, entry.get("all", status)) for caller, status in rule.items()}


def matches(op: Operation, expected: int | str, status: int) -> bool:
    return status in op.success if expected == "ok" else status == expected


def test_every_route_of_the_api_description_has_its_row_in_the_table(app: Served) -> None:
    listed = {(surface, key) for surface in ("selfhosted", "platform") for key in TABLE[surface]["routes"]}
    served_routes = {(op.surface, op.key) for op in app.operations}
    missing = sorted(f"{surface}: {key}" for surface, key in served_routes - listed)
    assert not missing, (
        "Routes of /openapi.json without an expected status per caller: add each to tests/reliability/"
        f"authorization.yaml (under its surface's routes, with the rule it follows): {missing}"
    )
    stale = sorted(f"{surface}: {key}" for surface, key in listed - served_routes)
    assert not stale, f"authorization.yaml lists routes /openapi.json does not have: {stale}"
    for surface in ("selfhosted", "platform"):
        callers = set(TABLE[surface]["callers"])
        for name, rule in TABLE[surface]["rules"].items():
            assert set(rule) == callers, (surface, name, "a rule gives a status to each caller")
        for key in TABLE[surface]["routes"]:
            assert set(expectations(surface, key)) == callers, (surface, key)
    assert {key for _, key in served_routes} >= IN_PLACE


def test_every_app_route_is_in_the_api_description(app: Served) -> None:
    """A route left out of /openapi.json would escape the matrix: only the explorer's pages may be (and `/`)."""
    described = {(op.method, op.path) for op in app.operations}
    routed = {
        (method, route.path_format)
        for routers in map(load_routers, GROUP_ROUTERS.values())
        for router in routers
        for route in router.routes
        if isinstance(route, APIRoute)
        for method in (route.methods or set()) - {"HEAD"}
    }
    explorer = {("GET", "/docs"), ("GET", "/redoc"), ("GET", "/docs/assets/{name}")}
    assert routed - described == explorer, sorted(routed - described)


# ---- running it ------------------------------------------------------------------------------------------


@dataclass
class Cell:
    op: Operation
    caller: str
    expected: int | str

    def __str__(self) -> str:
        return f"{self.op.key} as {self.caller}: expected {self.expected}"

    @property
    def fresh(self) -> bool:
        """Whether a success would change the victim: then it runs against a fresh copy."""
        return self.expected == "ok" and self.op.method != "GET" and self.op.key not in IN_PLACE


def cells(app: Served, surface: str) -> list[Cell]:
    return [
        Cell(op, caller, status)
        for op in app.operations
        if op.surface == surface
        for caller, status in expectations(surface, op.key).items()
    ]


def check(cell: Cell, response: Any, hidden: list[str]) -> list[str]:
    """What is wrong with one answer: its status; a refusal that is large, or shows what the caller may not see
    (beyond the ids it sent itself)."""
    sent = str(response.request.url) + response.request.content.decode("utf-8", "replace")
    problems: list[str] = []
    if not matches(cell.op, cell.expected, response.status_code):
        problems.append(f"{cell}, got {response.status_code}: {response.text[:300]}")
    refused = response.status_code >= 400
    message = response.json() if refused else {}
    said = isinstance(message, dict) and ("detail" in message or "error" in message)  # `error`: Mem0's webhooks
    if refused and (len(response.content) > MAX_REFUSAL_BYTES or not said):
        problems.append(f"{cell}: a refusal of {len(response.content)} bytes: {response.text[:300]}")
    leaked = [value for value in hidden if value in response.text and value not in sent]
    if leaked:
        problems.append(f"{cell}: the answer shows {leaked}: {response.text[:300]}")
    challenged = cell.op.surface == "platform" or response.headers.get("www-authenticate") == "Bearer"
    if cell.caller == "anonymous" and response.status_code == 401 and not challenged:
        problems.append(f"{cell}: a 401 for missing credentials without WWW-Authenticate: Bearer")
    return problems


def run(cells_to_run: list[Cell], answer: Callable[[Cell], tuple[Any, list[str]]]) -> list[str]:
    """Every cell's problems; `answer` sends the cell's request and says what its caller may not see."""
    problems: list[str] = []
    for cell in cells_to_run:
        response, hidden = answer(cell)
        problems += check(cell, response, hidden)
    return problems


def test_the_self_hosted_matrix(app: Served) -> None:
    victim = self_hosted(app.client)
    before = victim.snapshot()

    def send(world: SelfHosted, cell: Cell) -> Any:
        request = request_for(cell.op, REQUESTS, world.values_for(cell.caller))
        return request.send(world.client, world.callers[cell.caller])

    def one(cell: Cell) -> tuple[Any, list[str]]:
        hidden = victim.secrets if cell.expected != "ok" else []
        if not cell.fresh:
            return send(victim, cell), hidden
        with served(app.tmp.mktemp("fresh") / "data", app.registry) as (_, client):
            return send(self_hosted(client), cell), []

    problems = run(cells(app, "selfhosted"), one)
    assert not problems, "\n".join(problems)
    assert victim.snapshot() == before


def test_the_platform_matrix(app: Served) -> None:
    victim = platform(app.container, app.client)
    before = victim.snapshot()

    def hidden_from(world: Platform, caller: str) -> list[str]:
        if caller not in OUTSIDERS:
            return []
        # the neighbour's own project is in the victim's organization: its ping names that organization
        return world.secrets + ([] if caller == "same_org_other_project" else [world.org_id])

    def one(cell: Cell) -> tuple[Any, list[str]]:
        world = platform(app.container, app.client) if cell.fresh else victim
        request = request_for(cell.op, REQUESTS, world.values)
        return request.send(app.client, world.callers[cell.caller]), hidden_from(world, cell.caller)

    problems = run(cells(app, "platform"), one)
    assert not problems, "\n".join(problems)
    assert victim.snapshot() == before


# ---- the configured provider keys --------------------------------------------------------------------------


def provider_key_config(api_key: str) -> dict[str, Any]:
    return {"llm": {"provider": "openai", "config": {"api_key": api_key, "base_url": "http://127.0.0.1:9/v1"}}}


def test_only_an_admin_may_change_the_provider_keys_and_no_one_reads_them(app: Served) -> None:
    """POST /configure (an `api_key` among the rest) is the admin's (Bearer token or ADMIN_API_KEY); a member is
    403, no or wrong credentials 401, a platform project's key 401 (it is no self-hosted credential). GET /configure
    shows every authenticated caller the key redacted, never in full, nor any part of it."""
    with served(app.tmp.mktemp("provider-keys") / "data", app.registry) as (container, client):
        world = self_hosted(client)
        project_owner = platform(container, client).callers["owner"]
        stored = "sk-" + secrets.token_hex(20)
        ok(client.post("/configure", json=provider_key_config(stored), headers=world.admin))
        callers = {**world.callers, "platform_owner": project_owner}
        may_change = {"admin_token", "admin_key"}
        refused = {"anonymous": 401, "wrong_key": 401, "platform_owner": 401, "member_key": 403, "member_token": 403}
        for caller, headers in callers.items():
            attempt = "sk-" + secrets.token_hex(20)
            changed = client.post("/configure", json=provider_key_config(attempt), headers=headers)
            shown = client.get("/configure", headers=headers)
            expected = 200 if caller in may_change else refused[caller]
            assert changed.status_code == expected, (caller, changed.text[:300])
            if caller in may_change:
                stored = attempt
            for answer in (changed, shown):
                assert stored[3:15] not in answer.text and attempt[3:15] not in answer.text, caller
            if shown.status_code == 200:
                assert shown.json()["llm"]["config"]["api_key"] == "[redacted]", caller
            else:
                assert shown.status_code == 401 and caller in ("anonymous", "wrong_key", "platform_owner"), caller
            in_effect = container.configuration.current()["llm"]["config"]["api_key"]
            assert in_effect == stored, f"{caller} changed the provider key"
