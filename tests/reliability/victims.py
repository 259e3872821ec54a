"""The tenants the generated suites aim at, on one in-process app (authentication on, both surfaces): a self-hosted
deployment (an admin, a member, a user, a key, a memory of a user) and a platform organization (a project with an
OWNER, a READER, a memory, an event, an export, an entity and a key; an organization READER; a neighbour that owns
another project of the same organization; and another organization with its OWNER and READER). Each gives the
values route_requests.yaml names, the headers of each kind of caller, and a snapshot of what it holds."""

from __future__ import annotations

import secrets
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from mnemo.api.app import create_app
from mnemo.composition.container import Container, build_container
from mnemo.services.platform.tenancy.callers import CreatedKey
from mnemo.services.platform.tenancy.service import TenancyService
from tests.conftest import CachedModelRegistry
from tests.e2e.auth.conftest import ADMIN_KEY, auth_settings
from tests.reliability.openapi_routes import Values

SECRET = "The vault code is 4711"
ADMIN = {"name": "Ada", "email": "ada@example.com", "password": "correct horse battery"}
MEMBER = {"name": "Bob", "email": "bob@example.com", "password": "member password 1"}
CAROL = {"name": "Carol", "email": "carol@example.com", "password": "carol's password 1"}
PROJECT = "/api/v1/orgs/organizations/{org_id}/projects/{project_id}/"
HOOK_URL = "http://127.0.0.1:9/hook"  # nothing listens there


def ok(response: Any, status: int = 200) -> Any:
    assert response.status_code == status, (response.request.method, response.request.url, response.text)
    return response.json()


def without(item: dict[str, Any], name: str) -> dict[str, Any]:
    """A record without a field that any use changes (the last sign-in, a key's last use)."""
    return {k: v for k, v in item.items() if k != name}


def unique() -> str:
    return uuid.uuid4().hex[:10]


@contextmanager
def served(data_dir: Path, registry: CachedModelRegistry) -> Iterator[tuple[Container, TestClient]]:
    """The whole app, authentication on (a known JWT secret and admin key, argon2 at its cheapest, no rate limits),
    on its own data dir. Webhooks may point at loopback: the victims' webhook aims at a closed port (a delivery
    fails at once)."""
    settings = auth_settings(data_dir).model_copy(update={"webhook_allow_private_urls": True})
    container = build_container(settings, registry)
    try:
        with TestClient(create_app(container)) as client:
            yield container, client
    finally:
        container.close()


# ---- self-hosted -----------------------------------------------------------------------------------------


@dataclass
class SelfHosted:
    client: TestClient
    callers: dict[str, dict[str, str]]
    passwords: dict[str, str]
    values: Values
    admin: dict[str, str]  # the admin's Bearer header
    secrets: list[str] = field(default_factory=list)  # what no one without rights may see

    def values_for(self, caller: str) -> Values:
        """The values, with {password} the caller's own (the member's for callers without one)."""
        own = Values(self.values)
        own["password"] = self.passwords.get(caller, MEMBER["password"])
        return own

    def snapshot(self) -> dict[str, Any]:
        """Everything of the deployment an attack could reach (read as the admin)."""
        keys = ok(self.client.get("/api-keys", headers=self.admin))
        memory_id = self.values["memory_id"]
        return {
            "memories": ok(self.client.get("/memories", headers=self.admin)),
            "memory": ok(self.client.get(f"/memories/{memory_id}", headers=self.admin)),
            "history": ok(self.client.get(f"/memories/{memory_id}/history", headers=self.admin)),
            "users": [without(u, "last_login_at") for u in ok(self.client.get("/users", headers=self.admin))],
            "admin keys": [without(key, "last_used_at") for key in keys],
            "configuration": ok(self.client.get("/configure", headers=self.admin)),
            "entities": ok(self.client.get("/entities", headers=self.admin)),
        }


def self_hosted(client: TestClient) -> SelfHosted:
    admin = ok(client.post("/auth/register", json=ADMIN))["access_token"]
    admin_bearer = {"Authorization": f"Bearer {admin}"}
    ok(client.post("/users", json=MEMBER, headers=admin_bearer), 201)
    carol = ok(client.post("/users", json=CAROL, headers=admin_bearer), 201)
    member = ok(client.post("/auth/login", json={k: MEMBER[k] for k in ("email", "password")}))["access_token"]
    member_bearer = {"Authorization": f"Bearer {member}"}
    member_key = ok(client.post("/api-keys", json={"label": "member"}, headers=member_bearer), 201)["key"]
    admin_key = ok(client.post("/api-keys", json={"label": "admin"}, headers=admin_bearer), 201)
    entity = f"alice-{unique()}"
    body = {"messages": [{"role": "user", "content": SECRET}], "user_id": entity, "infer": False}
    (added,) = ok(client.post("/memories", json=body, headers=admin_bearer))["results"]

    def refresh_token() -> str:
        signed_in = client.post("/auth/login", json={k: MEMBER[k] for k in ("email", "password")})
        return str(ok(signed_in)["refresh_token"])

    values = Values(
        memory_id=added["id"],
        entity_type="user",
        entity_id=entity,
        key_id=admin_key["id"],
        user_id=carol["id"],
        member_email=MEMBER["email"],
        member_password=MEMBER["password"],
        refresh_token=refresh_token,
        unique=unique,
    )
    callers = {
        "anonymous": {},
        "wrong_key": {"X-API-Key": "m0sk_" + secrets.token_urlsafe(32)},
        "member_key": {"X-API-Key": member_key},
        "member_token": member_bearer,
        "admin_token": admin_bearer,
        "admin_key": {"X-API-Key": ADMIN_KEY},
    }
    passwords = {"member_token": MEMBER["password"], "admin_token": ADMIN["password"]}
    hidden = [SECRET, admin_key["key"], admin_key["id"], carol["id"]]
    return SelfHosted(client, callers, passwords, values, admin_bearer, hidden)


# ---- platform --------------------------------------------------------------------------------------------


def token(created: CreatedKey | str) -> dict[str, str]:
    value = created if isinstance(created, str) else created.value
    return {"Authorization": f"Token {value}"}


@dataclass
class Platform:
    client: TestClient
    callers: dict[str, dict[str, str]]
    values: Values
    secrets: list[str]  # what no caller outside the project may see
    org_id: str

    def snapshot(self) -> dict[str, Any]:
        """Everything of the victim's organization and project an attack could change (read as its OWNER)."""
        owner, values = self.callers["owner"], self.values
        get = self.client.get
        org = f"/api/v1/orgs/organizations/{values['org_id']}/"
        project = PROJECT.format(org_id=values["org_id"], project_id=values["project_id"])
        keys = ok(get(project + "api-keys/", headers=owner))
        events = ok(get("/v1/events/", headers=owner))["results"]
        memories = self.client.post("/v3/memories/", json={"filters": {"user_id": values["entity_id"]}}, headers=owner)
        export = self.client.post("/v1/exports/get/", json={"memory_export_id": values["export_id"]}, headers=owner)
        return {
            "org": ok(get(org, headers=owner)),
            "org members": ok(get(org + "members/", headers=owner)),
            "projects": ok(get(org + "projects/", headers=owner)),
            "project": ok(get(project, headers=owner)),
            "project members": ok(get(project + "members/", headers=owner)),
            "keys": [without(key, "last_used_at") for key in keys],
            "events": [{k: e[k] for k in ("id", "event_type", "status", "results")} for e in events],
            "memories": ok(memories),
            "history": ok(get(f"/v1/memories/{values['memory_id']}/history/", headers=owner)),
            "export": ok(export),
            "profile settings": ok(get("/v2/profiles/settings/", headers=owner)),
            "entities": ok(get("/v1/entities/", headers=owner))["results"],
            "webhooks": ok(get(f"/api/v1/webhooks/projects/{values['project_id']}/", headers=owner)),
            "deliveries": [
                {k: d[k] for k in ("id", "sequence", "event_id", "event_type", "payload")}
                for d in ok(get(f"/api/v1/webhooks/{values['webhook_id']}/deliveries/", headers=owner))["results"]
            ],
        }


def _member_key(tenancy: TenancyService, org_id: str, project_id: str, owner: Any, role: str, name: str) -> CreatedKey:
    """A new user, made a member of the project with `role`, and a key of theirs (an account first: an unknown email
    is only invited)."""
    email = f"{name}-{unique()}@example.com"
    tenancy.bootstrap(email, f"Own of {email}")
    tenancy.add_project_member(org_id, project_id, owner, email, role)
    return tenancy.create_key(org_id, project_id, owner, email, name)


def platform(container: Container, client: TestClient) -> Platform:
    """A victim organization and project with every kind of caller around it (each by a key of its own)."""
    assert container.platform is not None
    tenancy = container.platform.tenancy
    victim = tenancy.bootstrap(f"victim-{unique()}@example.com", f"Victim {unique()}")
    org_id, project_id, owner = victim.org.id, victim.project.id, victim.user
    reader = _member_key(tenancy, org_id, project_id, owner, "READER", "reader")
    org_reader_email = f"org-reader-{unique()}@example.com"
    tenancy.bootstrap(org_reader_email, f"Own of {org_reader_email}")
    tenancy.add_org_member(org_id, owner, org_reader_email, "READER")
    org_reader = tenancy.create_key(org_id, project_id, owner, org_reader_email, "org reader")
    neighbours = tenancy.create_project(org_id, owner, "Neighbours")
    neighbour = _member_key(tenancy, org_id, neighbours.id, owner, "OWNER", "neighbour")
    other = tenancy.bootstrap(f"other-{unique()}@example.com", f"Other {unique()}")
    other_reader = _member_key(tenancy, other.org.id, other.project.id, other.user, "READER", "other-reader")

    headers = token(victim.api_key)
    entity = f"alice-{unique()}"
    body = {"messages": [{"role": "user", "content": SECRET}], "user_id": entity, "infer": False}
    added = ok(client.post("/v3/memories/add/", json=body, headers=headers))
    export = {"schema": {"type": "object"}, "filters": {"user_id": entity}}
    export_id = ok(client.post("/v1/exports/", json=export, headers=headers), 201)["id"]
    hook = {"name": "victim's", "url": HOOK_URL, "event_types": ["memory_delete"]}
    webhook_id = ok(client.post(f"/api/v1/webhooks/projects/{project_id}/", json=hook, headers=headers), 201)
    webhook_id = webhook_id["webhook_id"]
    delivery_id = ok(client.post(f"/api/v1/webhooks/{webhook_id}/test/", headers=headers))["id"]
    ok(client.post("/v2/profiles/settings/", json={"enabled": True}, headers=headers))
    trigger = {"operation": "trigger", "entity_type": "user", "entity_id": entity}
    job_id = ok(client.post("/v2/profiles/jobs/", json=trigger, headers=headers))["job_id"]
    values = Values(
        org_id=org_id,
        project_id=project_id,
        memory_id=added["results"][0]["id"],
        event_id=added["event_id"],
        export_id=export_id,
        key_id=reader.key.id,
        entity_type="user",
        entity_id=entity,
        reader_email=reader.owner.email,
        org_reader_email=org_reader_email,
        webhook_id=webhook_id,
        delivery_id=delivery_id,
        job_id=job_id,
        unique=unique,
    )
    callers = {
        "anonymous": {},
        "wrong_key": token("m0-" + secrets.token_urlsafe(32)),
        "other_org_owner": token(other.api_key),
        "other_org_reader": token(other_reader),
        "same_org_other_project": token(neighbour),
        "org_reader": token(org_reader),
        "reader": token(reader),
        "owner": headers,
    }
    hidden = [SECRET, values["memory_id"], values["event_id"], export_id, reader.key.id, project_id, webhook_id]
    hidden.append(job_id)
    hidden += [reader.owner.email, org_reader_email, reader.value, victim.api_key]
    return Platform(client, callers, values, hidden, org_id)
