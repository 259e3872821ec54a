"""Fixtures of the authentication tests: the app with authentication on (the default), a known JWT secret and
admin key, argon2 at its cheapest (the production cost is a setting), and helpers to sign in."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from mnemo.api.app import create_app
from mnemo.composition.container import Container, build_container
from mnemo.settings import Settings
from tests.conftest import CachedModelRegistry

JWT_SECRET = "jwt-secret-for-the-tests-" + "s3cr3t" * 6
ADMIN_KEY = "admin-key-for-the-tests-0123456789"
ADMIN = {"name": "Ada", "email": "ada@example.com", "password": "correct horse battery"}
MEMBER = {"name": "Bob", "email": "bob@example.com", "password": "member password 1"}
CHEAP_ARGON2: dict[str, Any] = {"argon2_time_cost": 1, "argon2_memory_kib": 64, "argon2_parallelism": 1}
NO_RATE_LIMITS: dict[str, Any] = {"rate_limit_register": 0, "rate_limit_login": 0, "rate_limit_refresh": 0}


def auth_settings(data_dir: Path, **overrides: Any) -> Settings:
    values: dict[str, Any] = {
        "data_dir": data_dir,
        "auth_disabled": False,
        "jwt_secret": JWT_SECRET,
        "admin_api_key": ADMIN_KEY,
        **CHEAP_ARGON2,
        **NO_RATE_LIMITS,
        **overrides,
    }
    return Settings(**values)


AppFactory = Callable[..., TestClient]


@pytest.fixture
def make_app(data_dir: Path, registry: CachedModelRegistry) -> Iterator[AppFactory]:
    """Build an app with authentication on; keyword arguments override the settings."""
    built: list[tuple[Container, TestClient]] = []

    def make(**overrides: Any) -> TestClient:
        container = build_container(auth_settings(data_dir, **overrides), registry)
        client = TestClient(create_app(container))
        client.__enter__()
        built.append((container, client))
        return client

    yield make
    for container, client in reversed(built):
        client.__exit__(None, None, None)
        container.close()


@pytest.fixture
def api(make_app: AppFactory) -> TestClient:
    return make_app()


@pytest.fixture
def container_of() -> Callable[[TestClient], Container]:
    def of(client: TestClient) -> Container:
        container: Container = client.app.state.services  # type: ignore[attr-defined]
        return container

    return of


@dataclass
class Session:
    """A signed-in user: its tokens and the headers that carry them."""

    access_token: str
    refresh_token: str

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.access_token}"}


def ok(response: Any, status: int = 200) -> Any:
    assert response.status_code == status, (response.request.method, response.request.url, response.text)
    return response.json()


def session_of(tokens: dict[str, Any]) -> Session:
    assert tokens["token_type"] == "bearer"
    return Session(tokens["access_token"], tokens["refresh_token"])


def register_admin(client: TestClient) -> Session:
    return session_of(ok(client.post("/auth/register", json=ADMIN)))


def login(client: TestClient, email: str, password: str) -> Session:
    return session_of(ok(client.post("/auth/login", json={"email": email, "password": password})))


def add_member(client: TestClient, admin: Session) -> Session:
    ok(client.post("/users", json=MEMBER, headers=admin.headers), 201)
    return login(client, MEMBER["email"], MEMBER["password"])


def new_key(client: TestClient, session: Session, label: str = "agent") -> dict[str, Any]:
    created: dict[str, Any] = ok(client.post("/api-keys", json={"label": label}, headers=session.headers), 201)
    return created


def add_memory(client: TestClient, headers: dict[str, str], text: str, **scope: str) -> str:
    body = {"messages": [{"role": "user", "content": text}], "infer": False, **(scope or {"user_id": "alice"})}
    (result,) = ok(client.post("/memories", json=body, headers=headers))["results"]
    return str(result["id"])
