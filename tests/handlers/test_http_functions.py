"""The four HTTP functions, invoked as Lambda invokes them: functions/<group>/app.py's handler with the sample
events of events/<group>/ (API Gateway HTTP API, payload 2.0), through Powertools, Mangum, the group's routers,
the services and the DynamoDB adapters, under moto. Secrets come from SSM parameters, as deployed.

No Bedrock and no OpenSearch here: the `bedrock` embedder is the local MiniLM model (its config is still checked
by the real catalogue), and the search index is the in-process one, shared by the functions as OpenSearch is.
The tests run in file order, as the life of one deployment: first admin, keys, memories, configuration, admin.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from moto import mock_aws

from mnemo.adapters.dynamodb.memory_store import DynamoMemoryStore
from mnemo.adapters.embedders.local_minilm import LocalMiniLMEmbedder
from mnemo.adapters.sqlite.database import Database
from mnemo.adapters.sqlite.memory_index import LocalMemoryIndex
from mnemo.composition.container import Container, build_container
from mnemo.domain import filters as f
from mnemo.language.en import english
from tests.support import moto_aws
from tests.support.lambda_aws import (
    ADMIN_API_KEY,
    BedrockAsLocalCatalog,
    FakeLambdaContext,
    HttpResponse,
    Stack,
    create_stack,
    environment,
    load_event,
)

GROUPS = ("memories", "configure", "auth", "admin")


@dataclass
class Deployed:
    stack: Stack
    functions: dict[str, ModuleType]
    catalog: BedrockAsLocalCatalog
    state: dict[str, Any] = field(default_factory=dict)

    def call(self, event: str, **fill: str) -> HttpResponse:
        """Invoke the function of events/<group>/<name>.json with that event, its placeholders filled."""
        group = event.split("/", 1)[0]
        return self.invoke(group, load_event(event, **fill))

    def invoke(self, group: str, event: dict[str, Any]) -> HttpResponse:
        raw = self.functions[group].handler(event, FakeLambdaContext(function_name=group))
        return HttpResponse.of(raw)

    def container(self, group: str) -> Container:
        built: Container = self.functions[group].entry.function.container.get()
        return built


@pytest.fixture(scope="module")
def deployed(embedder: LocalMiniLMEmbedder, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Deployed]:
    with mock_aws():
        stack = create_stack()
        with environment(stack.env):
            index_db = Database(Path(tmp_path_factory.mktemp("index")) / "index.sqlite3")
            index = LocalMemoryIndex(index_db, embedder.dimension, facets=english())
            catalog = BedrockAsLocalCatalog(embedder)
            functions = {group: importlib.import_module(f"functions.{group}.app") for group in GROUPS}
            for module in functions.values():
                module.entry.function.reset(lambda: build_container(catalog=catalog, index=index))
            yield Deployed(stack, functions, catalog)
            for module in functions.values():
                module.entry.function.reset()
            index_db.close()


@pytest.fixture(scope="module")
def admin(deployed: Deployed) -> dict[str, Any]:
    """The first admin, registered through the sample event, and what the auth function said around it."""
    before = deployed.call("auth/setup_status")
    registered = deployed.call("auth/register")
    after = deployed.call("auth/setup_status")
    deployed.state["admin"] = {"before": before, "registered": registered, "after": after}
    return {"access": registered.body["access_token"], "refresh": registered.body["refresh_token"]}


@pytest.fixture(scope="module")
def api_key(deployed: Deployed, admin: dict[str, Any]) -> str:
    created = deployed.call("auth/api_keys_create", access_token=admin["access"])
    assert created.status == 201, created.body
    value: str = created.body["key"]
    return value


# ---- auth -------------------------------------------------------------------------------------------------


def test_given_a_fresh_stack_when_the_first_admin_registers_then_setup_is_done(
    deployed: Deployed, admin: dict[str, Any]
) -> None:
    seen = deployed.state["admin"]
    assert (seen["before"].status, seen["before"].body) == (200, {"needsSetup": True})
    assert seen["registered"].status == 200
    assert seen["registered"].body["token_type"] == "bearer"
    assert seen["registered"].body["expires_in"] == 30 * 60
    assert seen["after"].body == {"needsSetup": False}
    again = deployed.call("auth/register")
    assert again.status == 403


def test_given_the_admin_when_signing_in_and_managing_the_profile_then_the_accounts_table_holds_it(
    deployed: Deployed, admin: dict[str, Any]
) -> None:
    login = deployed.call("auth/login")
    assert login.status == 200, login.body
    me = deployed.call("auth/me", access_token=login.body["access_token"])
    assert (me.status, me.body["email"], me.body["role"], me.body["name"]) == (200, "ada@example.com", "admin", "Ada")
    assert me.body["last_login_at"] is not None

    renamed = deployed.call("auth/update_me", access_token=login.body["access_token"])
    assert (renamed.status, renamed.body["name"]) == (200, "Ada Lovelace")
    assert deployed.call("auth/me", access_token=admin["access"]).body["name"] == "Ada Lovelace"

    refreshed = deployed.call("auth/refresh", refresh_token=login.body["refresh_token"])
    assert refreshed.status == 200
    assert refreshed.body["refresh_token"] != login.body["refresh_token"]
    replayed = deployed.call("auth/refresh", refresh_token=login.body["refresh_token"])
    assert replayed.status == 401  # a refresh token works once; the replay ends its session
    assert deployed.call("auth/refresh", refresh_token=refreshed.body["refresh_token"]).status == 401

    no_token = deployed.call("auth/me", access_token="not-a-token")
    assert no_token.status == 401


def test_given_a_signed_in_user_when_managing_api_keys_then_a_revoked_key_stops_working(
    deployed: Deployed, admin: dict[str, Any]
) -> None:
    created = deployed.call("auth/api_keys_create", access_token=admin["access"])
    assert created.status == 201
    key_id, value = created.body["id"], created.body["key"]
    assert value.startswith("m0sk_") and created.body["label"] == "my agent"

    listed = deployed.call("auth/api_keys_list", access_token=admin["access"])
    assert listed.status == 200
    assert key_id in [k["id"] for k in listed.body]
    assert all("key" not in k for k in listed.body)  # the value is shown once, at creation

    assert deployed.call("memories/list", api_key=value).status == 200
    revoked = deployed.call("auth/api_keys_revoke", access_token=admin["access"], key_id=key_id)
    assert (revoked.status, revoked.body) == (200, {"message": "API key revoked."})
    assert key_id not in [k["id"] for k in deployed.call("auth/api_keys_list", access_token=admin["access"]).body]
    refused = deployed.call("memories/list", api_key=value)
    assert (refused.status, refused.body["detail"]) == (401, "Invalid API key.")
    assert deployed.call("auth/api_keys_revoke", access_token=admin["access"], key_id=key_id).status == 400


def test_given_the_admin_key_when_managing_users_then_they_are_created_listed_and_deleted(
    deployed: Deployed, admin: dict[str, Any]
) -> None:
    created = deployed.call("auth/users_create")
    assert created.status == 201, created.body
    assert (created.body["email"], created.body["role"]) == ("bob@example.com", "member")
    assert deployed.call("auth/users_create").status == 409  # the email is taken

    listed = deployed.call("auth/users_list")
    assert listed.status == 200
    assert [u["email"] for u in listed.body][:2] == ["ada@example.com", "bob@example.com"]  # oldest first

    deleted = deployed.call("auth/users_delete", user_id=created.body["id"])
    assert (deleted.status, deleted.body) == (200, {"message": "User deleted."})
    assert "bob@example.com" not in [u["email"] for u in deployed.call("auth/users_list").body]
    assert deployed.call("auth/users_delete", user_id=created.body["id"]).status == 404


def test_given_a_password_change_then_the_old_password_no_longer_signs_in(
    deployed: Deployed, admin: dict[str, Any]
) -> None:
    session = deployed.call("auth/login").body
    changed = deployed.call("auth/change_password", access_token=session["access_token"])
    assert (changed.status, changed.body) == (200, {"message": "Password updated."})
    assert deployed.call("auth/login").status == 401
    wrong_now = deployed.call("auth/change_password", access_token=session["access_token"])
    assert wrong_now.status == 401  # the current password is the new one now


# ---- memories -------------------------------------------------------------------------------------------


def test_given_a_user_key_when_adding_and_searching_then_memories_are_stored_in_dynamodb(
    deployed: Deployed, api_key: str
) -> None:
    added = deployed.call("memories/add", api_key=api_key)
    assert added.status == 200, added.body
    assert [(r["memory"], r["event"]) for r in added.body["results"]] == [
        ("I moved to Lisbon in the spring of 2024.", "ADD"),
        ("I am allergic to peanuts.", "ADD"),
    ]
    store = DynamoMemoryStore(moto_aws.client("dynamodb"), deployed.stack.memories_table)
    stored = {r.text: r for r in store.find(f.parse({"user_id": "alice"}))}
    assert set(stored) == {"I moved to Lisbon in the spring of 2024.", "I am allergic to peanuts."}
    assert stored["I am allergic to peanuts."].metadata == {"source": "chat"}
    titan = {"model": "amazon.titan-embed-text-v2:0", "embedding_dims": 1024}  # MNEMO_EMBEDDER_CONFIG
    assert deployed.catalog.asked and all(config == titan for config in deployed.catalog.asked)

    found = deployed.call("memories/search", api_key=api_key)
    assert found.status == 200
    assert found.body["results"][0]["memory"] == "I moved to Lisbon in the spring of 2024."
    assert set(found.body["results"][0]["score_details"]) >= {"semantic_score", "final_score"}

    listed = deployed.call("memories/list", api_key=api_key)
    assert sorted(m["memory"] for m in listed.body["results"]) == sorted(stored)


def test_given_a_memory_when_read_updated_and_deleted_then_its_history_records_each_change(
    deployed: Deployed, api_key: str
) -> None:
    again = deployed.call("memories/add", api_key=api_key)
    assert (again.status, again.body["results"]) == (200, [])  # already known: nothing stored twice
    listed = deployed.call("memories/list", api_key=api_key).body["results"]
    [memory_id] = [m["id"] for m in listed if m["memory"] == "I moved to Lisbon in the spring of 2024."]

    got = deployed.call("memories/get", api_key=api_key, memory_id=memory_id)
    assert (got.status, got.body["memory"], got.body["user_id"]) == (
        200,
        "I moved to Lisbon in the spring of 2024.",
        "alice",
    )
    (source,) = got.body["sources"]  # the sentence of the message it came from, with its place in the message
    assert source["content"] == "I moved to Lisbon in the spring of 2024." and source["span"] == [4, 44]

    updated = deployed.call("memories/update", api_key=api_key, memory_id=memory_id)
    assert (updated.status, updated.body) == (200, {"message": "Memory updated successfully!"})
    assert deployed.call("memories/get", api_key=api_key, memory_id=memory_id).body["memory"] == (
        "I moved to Porto in the spring of 2024."
    )
    porto = deployed.call("memories/search", api_key=api_key).body["results"][0]
    assert porto["memory"] == "I moved to Porto in the spring of 2024."  # the index followed the update

    history = deployed.call("memories/history", api_key=api_key, memory_id=memory_id)
    assert [(h["event"], h["old_memory"], h["new_memory"]) for h in history.body] == [
        ("ADD", None, "I moved to Lisbon in the spring of 2024."),
        ("UPDATE", "I moved to Lisbon in the spring of 2024.", "I moved to Porto in the spring of 2024."),
    ]
    deleted = deployed.call("memories/delete", api_key=api_key, memory_id=memory_id)
    assert (deleted.status, deleted.body) == (200, {"message": "Memory deleted successfully"})
    missing = deployed.call("memories/get", api_key=api_key, memory_id=memory_id)
    assert missing.status == 404
    assert deployed.call("memories/history", api_key=api_key, memory_id=memory_id).body[-1]["event"] == "DELETE"


def test_given_a_members_key_then_the_admin_routes_refuse_it_and_the_admin_key_may_use_them(
    deployed: Deployed, api_key: str
) -> None:
    deployed.call("memories/add", api_key=api_key)
    member = deployed.call("auth/users_create").body
    assert member["role"] == "member"
    bob = load_event("auth/login")
    bob["body"] = '{"email": "bob@example.com", "password": "another passphrase"}'
    bob_token = deployed.invoke("auth", bob).body["access_token"]
    bob_key = deployed.call("auth/api_keys_create", access_token=bob_token).body["key"]
    for name in ("memories/delete_all", "memories/reset"):
        as_member = load_event(name)
        assert as_member["headers"]["x-api-key"] == ADMIN_API_KEY  # the sample carries the admin key
        as_member["headers"]["x-api-key"] = bob_key
        refused = deployed.invoke("memories", as_member)
        assert (refused.status, refused.body["detail"]) == (403, "Admin role required.")
    assert len(deployed.call("memories/list", api_key=bob_key).body["results"]) == 2

    deleted = deployed.call("memories/delete_all")
    assert (deleted.status, deleted.body) == (200, {"message": "All relevant memories deleted"})
    assert deployed.call("memories/list", api_key=api_key).body["results"] == []

    deployed.call("memories/add", api_key=api_key)
    assert deployed.call("memories/reset").body == {"message": "All memories reset"}
    assert deployed.call("memories/list", api_key=api_key).body["results"] == []
    assert deployed.call("memories/search", api_key=api_key).body["results"] == []
    refused = deployed.call("memories/list", api_key="m0sk_" + "x" * 43)
    assert refused.status == 401


# ---- configure ----------------------------------------------------------------------------------------------


def test_given_a_configuration_change_then_it_is_stored_and_followed_by_the_other_functions(
    deployed: Deployed, api_key: str
) -> None:
    deployed.call("memories/list", api_key=api_key)  # the memories function is built before the change
    shown = deployed.call("configure/get", api_key=api_key)
    assert shown.status == 200
    assert shown.body["embedder"] == {
        "provider": "bedrock",
        "config": {"model": "amazon.titan-embed-text-v2:0", "embedding_dims": 1024},
    }
    assert shown.body["llm"] is None
    assert deployed.call("configure/providers", api_key=api_key).body == {
        "embedder": ["azure_openai", "bedrock", "gemini", "local", "ollama", "openai"],
        "llm": ["anthropic", "azure_openai", "bedrock", "gemini", "ollama", "openai"],
    }

    changed = deployed.call("configure/set")
    assert (changed.status, changed.body) == (200, {"message": "Configuration set successfully"})
    instructions = "Remember food preferences and allergies only."
    assert deployed.call("configure/get", api_key=api_key).body["custom_instructions"] == instructions
    other = deployed.container("memories").configuration.providers
    assert other.get().custom_instructions is None
    deployed.call("memories/list", api_key=api_key)  # its next invocation picks the change up
    assert other.get().custom_instructions == instructions


# ---- admin ----------------------------------------------------------------------------------------------------


def test_given_memories_then_entities_list_and_delete_them_and_the_request_log_shows_every_call(
    deployed: Deployed, api_key: str
) -> None:
    deployed.call("memories/add", api_key=api_key)
    entities = deployed.call("admin/entities_list", api_key=api_key)
    assert entities.status == 200
    assert [(e["id"], e["type"], e["total_memories"]) for e in entities.body] == [("alice", "user", 2)]

    deleted = deployed.call("admin/entities_delete")
    assert (deleted.status, deleted.body) == (200, {"message": "Entity deleted", "deleted_memories": 2})
    assert deployed.call("admin/entities_list", api_key=api_key).body == []

    log = deployed.call("admin/requests")
    assert log.status == 200
    assert len(log.body) == 10  # limit=10 in the sample
    newest = log.body[0]
    assert (newest["method"], newest["path"], newest["status_code"]) == ("GET", "/entities", 200)
    assert newest["key_prefix"] == api_key[:12]
    assert ("DELETE", "/entities/user/alice", "admin_api_key") in [
        (e["method"], e["path"], e["auth_type"]) for e in log.body
    ]
    assert ("POST", "/memories", 200) in [(e["method"], e["path"], e["status_code"]) for e in log.body]


def test_the_admin_function_serves_the_explorer_of_the_whole_api(deployed: Deployed) -> None:
    root = deployed.call("admin/root")
    assert (root.status, root.headers["location"]) == (307, "/docs")
    docs = deployed.call("admin/docs")
    assert docs.status == 200
    assert "swagger-ui" in docs.body
    assert "/docs/assets/swagger-ui-bundle.js" in docs.body and "https://" not in docs.body  # no CDN
    asset = deployed.call("admin/docs_asset")  # routed by GET /docs/{proxy+}; 1.5 MB, under Lambda's 6 MB
    assert (asset.status, asset.headers["content-type"]) == (200, "text/javascript; charset=utf-8")
    assert "SwaggerUIBundle" in asset.body
    redoc = deployed.call("admin/redoc")
    assert redoc.status == 200 and "/docs/assets/redoc.standalone.js" in redoc.body
    description = deployed.call("admin/openapi")
    assert description.status == 200
    paths = set(description.body["paths"])
    assert {"/memories", "/search", "/configure", "/auth/login", "/api-keys", "/users", "/requests"} <= paths
    assert "/entities/{entity_type}/{entity_id}" in paths


def test_the_admin_function_answers_health_without_credentials_and_runs_no_worker(deployed: Deployed) -> None:
    health = deployed.call("admin/health")
    assert (health.status, health.body) == (200, {"status": "ok", "workers": []})
