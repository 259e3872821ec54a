"""Hostile input, as an attacker or a fuzzer sends it, on both surfaces: every kind is a 4xx that names the
problem (never a 500, a reset connection, or a large echo), checked before any work — no memory, no event."""

from __future__ import annotations

import json
import logging
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from pydantic import SecretStr

from mnemo.api.app import create_app
from mnemo.api.body_guard import MAX_BODY_BYTES
from mnemo.composition.container import Container, build_container
from mnemo.settings import Settings
from tests.conftest import CachedModelRegistry

LONE = "\ud800"


@pytest.fixture
def platform(tmp_path: Path, registry: CachedModelRegistry) -> Iterator[tuple[Container, TestClient, dict[str, str]]]:
    built = build_container(Settings(data_dir=tmp_path / "data", jwt_secret=SecretStr("j" * 40)), registry)
    assert built.platform is not None
    tenant = built.platform.tenancy.bootstrap("owner@example.com", "Acme")
    with TestClient(create_app(built)) as client:
        yield built, client, {"Authorization": f"Token {tenant.api_key}"}
    built.close()


def raw_post(client: TestClient, path: str, body: bytes, headers: dict[str, str] | None = None) -> Any:
    return client.post(path, content=body, headers={"content-type": "application/json", **(headers or {})})


def events(client: TestClient, headers: dict[str, str]) -> list[Any]:
    answer = client.get("/v1/events/", headers=headers)
    assert answer.status_code == 200
    found: list[Any] = answer.json()["results"]
    return found


# ---- sizes ----------------------------------------------------------------------------------------------


def test_a_body_over_the_limit_is_413_before_it_is_read(client: TestClient) -> None:
    huge = json.dumps({"query": "x" * (MAX_BODY_BYTES + 10), "filters": {"user_id": "a"}}).encode()
    answer = raw_post(client, "/search", huge)
    assert answer.status_code == 413
    assert "at most 1,048,576" in answer.json()["detail"]


def test_a_search_query_has_a_bound_on_both_surfaces(client: TestClient, platform: Any) -> None:
    _, plat, headers = platform
    long = "word " * 1_000  # 5,000 characters
    mine = client.post("/search", json={"query": long, "filters": {"user_id": "a"}})
    theirs = plat.post("/v3/memories/search/", json={"query": long, "filters": {"user_id": "a"}}, headers=headers)
    for answer in (mine, theirs):
        assert answer.status_code == 422
        [problem] = answer.json()["detail"]
        assert problem["loc"] == ["body", "query"] and problem["ctx"] == {"max_length": 4000}


def test_a_validation_error_never_echoes_more_than_an_excerpt(client: TestClient) -> None:
    wrong = {"messages": "x" * 400_000, "user_id": "a"}  # 400 kB of the wrong shape
    answer = client.post("/memories", json=wrong)
    assert answer.status_code == 422
    assert len(answer.content) < 2_000
    assert answer.json()["detail"][0]["input"].endswith("…")


# ---- text that is not text ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/memories", {"messages": [{"role": "user", "content": f"I like {LONE}"}], "user_id": "a"}),
        ("/memories", {"messages": [{"role": "user", "content": "I like tea"}], "user_id": f"a{LONE}"}),
        ("/memories", {"messages": [{"role": "user", "content": "x"}], "user_id": "a", "metadata": {LONE: 1}}),
        ("/search", {"query": f"tea {LONE}", "filters": {"user_id": "a"}}),
        ("/configure", {"custom_instructions": LONE}),
        ("/auth/login", {"email": f"a{LONE}@example.com", "password": "x"}),
    ],
)
def test_a_lone_surrogate_anywhere_is_a_400_on_the_self_hosted_surface(
    client: TestClient, path: str, body: dict[str, Any]
) -> None:
    answer = raw_post(client, path, json.dumps(body).encode())  # json.dumps escapes it: "\ud800"
    assert answer.status_code == 400, answer.text
    assert "surrogate" in answer.json()["detail"]
    assert client.get("/memories", params={"user_id": "a"}).json()["results"] == []


def test_a_lone_surrogate_in_a_platform_add_leaves_no_event(platform: Any) -> None:
    _, client, headers = platform
    for body in (
        {"messages": [{"role": "user", "content": "I like tea"}], "user_id": f"a{LONE}", "infer": False},
        {"messages": [{"role": "user", "content": f"tea {LONE}"}], "user_id": "a", "infer": False},
    ):
        answer = raw_post(client, "/v3/memories/add/", json.dumps(body).encode(), headers)
        assert answer.status_code == 400, answer.text
    assert events(client, headers) == []


RAW_SURROGATE = b"\xed\xb2\x80"  # U+DC80 encoded as if it were a character: not UTF-8


@pytest.mark.parametrize(
    "body",
    [
        b'{"query":"a' + RAW_SURROGATE + b'","filters":{"user_id":"u"}}',
        b'{"query":"caf\xe9","filters":{"user_id":"u"}}',  # Latin-1, not UTF-8
        '{"query":"tea","filters":{"user_id":"u"}}'.encode("utf-16"),
    ],
)
def test_a_body_that_is_not_utf8_is_a_400_and_the_connection_stays_usable(client: TestClient, body: bytes) -> None:
    answer = raw_post(client, "/search", body)
    assert answer.status_code == 400, answer.text
    assert "not valid UTF-8" in answer.json()["detail"]
    assert client.post("/search", json={"query": "tea", "filters": {"user_id": "u"}}).status_code == 200


def test_raw_surrogate_bytes_in_a_platform_add_leave_no_event(platform: Any) -> None:
    _, client, headers = platform
    body = b'{"messages":[{"role":"user","content":"I like ' + RAW_SURROGATE + b'"}],"user_id":"a","infer":false}'
    answer = raw_post(client, "/v3/memories/add/", body, headers)
    assert answer.status_code == 400, answer.text
    assert "UTF-8" in answer.json()["detail"]
    assert events(client, headers) == []


def test_an_error_that_echoes_text_which_is_not_unicode_still_encodes() -> None:
    from mnemo.api.errors import ErrorResponse

    answer = ErrorResponse({"detail": [{"input": "a\udc80"}]}, status_code=422)
    assert json.loads(bytes(answer.body)) == {"detail": [{"input": "a\udc80"}]}


@pytest.mark.parametrize("user_id", ["a\x00b", "a\x07", "a\u2028b"[:2] + "\x1b"])
def test_ids_with_control_characters_are_refused_everywhere(client: TestClient, platform: Any, user_id: str) -> None:
    _, plat, headers = platform
    add = {"messages": [{"role": "user", "content": "I like tea"}], "user_id": user_id, "infer": False}
    assert client.post("/memories", json=add).status_code == 400
    assert client.post("/search", json={"query": "tea", "filters": {"user_id": user_id}}).status_code == 400
    assert plat.post("/v3/memories/add/", json=add, headers=headers).status_code == 400
    search = {"query": "tea", "filters": {"user_id": user_id}}
    assert plat.post("/v3/memories/search/", json=search, headers=headers).status_code == 400
    assert events(plat, headers) == []


LOOK_ALIKES = [
    "alice\t",
    "alice\n",
    "alice\u00a0",  # NBSP
    "\u3000alice",  # the ideographic space
    "alice\u2028",
    "alice\x85",
    "al\u200bice",  # zero-width space
    "\ufeffalice",  # the byte order mark
    "alice\u202e",  # right-to-left override
    "\u0430lice",  # a Cyrillic a
    "Zoe\u0308",  # not NFC
]


@pytest.mark.parametrize("user_id", LOOK_ALIKES)
def test_an_id_that_looks_like_another_is_a_400_everywhere_and_nothing_is_stored(
    client: TestClient, platform: Any, user_id: str
) -> None:
    _, plat, headers = platform
    add = {"messages": [{"role": "user", "content": "I like tea"}], "user_id": user_id, "infer": False}
    search = {"query": "tea", "filters": {"user_id": user_id}}
    answers = {
        "POST /memories": client.post("/memories", json=add),
        "GET /memories": client.get("/memories", params={"user_id": user_id}),
        "POST /search": client.post("/search", json=search),
        "DELETE /memories": client.delete("/memories", params={"user_id": user_id}),
        "POST /v3/memories/add/": plat.post("/v3/memories/add/", json=add, headers=headers),
        "POST /v3/memories/search/": plat.post("/v3/memories/search/", json=search, headers=headers),
        "POST /v3/memories/": plat.post("/v3/memories/", json={"filters": {"user_id": user_id}}, headers=headers),
        "GET /v1/memories/": plat.get("/v1/memories/", params={"user_id": user_id}, headers=headers),
        "DELETE /v1/memories/": plat.delete("/v1/memories/", params={"user_id": user_id}, headers=headers),
    }
    wrong = {route: f"{a.status_code} {a.text[:200]}" for route, a in answers.items() if a.status_code != 400}
    assert wrong == {}
    named = ("user_id", "filters")  # a filter's control character is refused before its ids are read
    unnamed = {route: a.text[:200] for route, a in answers.items() if not any(n in a.text for n in named)}
    assert unnamed == {}
    assert client.get("/memories", params={"user_id": "alice"}).json()["results"] == []
    assert events(plat, headers) == []


# ---- numbers and shapes ---------------------------------------------------------------------------------


@pytest.mark.parametrize("page", ["9223372036854775807", "100001", "0", "-1"])
def test_page_numbers_are_bounded_on_every_paginated_route(platform: Any, page: str) -> None:
    _, client, headers = platform
    for path in ("/v1/events/", "/v1/entities/"):
        assert client.get(path, params={"page": page}, headers=headers).status_code == 422, path
    listing = client.post("/v3/memories/", params={"page": page, "page_size": 10}, json={"filters": {"user_id": "a"}})
    assert listing.status_code in (401, 422)  # no key: refused either way, never a 500
    with_key = client.post(
        "/v3/memories/", params={"page": page, "page_size": 10}, json={"filters": {"user_id": "a"}}, headers=headers
    )
    assert with_key.status_code == 422


def nested(depth: int) -> str:
    """A filter nested `depth` deep, as JSON text (deeper than Python's own encoder would write)."""
    return '{"AND":[' * depth + '{"user_id":"a"}' + "]}" * depth


def test_deep_filters_are_a_400_whatever_they_arrive_in(client: TestClient, platform: Any) -> None:
    _, plat, headers = platform
    deep = nested(500)
    in_query = plat.delete("/v1/memories/", params={"filters": deep}, headers=headers)
    search = ('{"query": "tea", "filters": ' + deep + "}").encode()
    in_body = raw_post(plat, "/v3/memories/search/", search, headers)
    mine = raw_post(client, "/search", search)
    for answer in (in_query, in_body, mine):
        assert answer.status_code in (400, 422), answer.text[:300]
        assert "deep" in answer.text
    assert events(plat, headers) == []
    too_long = plat.delete("/v1/memories/", params={"filters": "[" * 20_000}, headers=headers)
    assert too_long.status_code == 422


def test_metadata_is_bounded_in_depth_and_keys(client: TestClient) -> None:
    deep: Any = "leaf"
    for _ in range(20):
        deep = {"k": deep}
    wide = {f"k{i}": i for i in range(300)}
    for metadata in (deep, wide, {"k" * 300: 1}):
        body = {"messages": [{"role": "user", "content": "I like tea"}], "user_id": "a", "metadata": metadata}
        answer = client.post("/memories", json=body)
        assert answer.status_code == 422, answer.text[:300]
        assert answer.json()["detail"][0]["loc"][:2] == ["body", "metadata"]


def test_a_provider_key_that_cannot_go_in_a_header_is_a_400(client: TestClient) -> None:
    llm = {"provider": "openai", "config": {"api_key": "sk-clé", "base_url": "http://127.0.0.1:9/v1"}}
    answer = client.post("/configure", json={"llm": llm})
    assert answer.status_code == 400
    assert "api_key" in answer.json()["detail"] and "ASCII" in answer.json()["detail"]
    assert client.get("/configure").json()["llm"] is None


def hostile_keys() -> list[tuple[str, Any, str, str]]:
    """(case, api_key, what the 400 says, the key's secret part): the part is looked for in every answer and log
    line afterwards."""
    secret = secrets.token_hex(16)
    number = int(secret[:24], 16)
    return [
        ("NUL", f"sk-{secret}\x00", "control character", secret),
        ("escape", f"sk-{secret}\x1b[2J", "control character", secret),
        ("header injection", f"sk-{secret}\r\nX-Injected: 1", "printable ASCII", secret),
        ("huge", f"sk-{secret}" + "k" * 200_000, "at most 1024 characters", secret),
        ("a number", number, "valid string", str(number)),
        ("a list", [f"sk-{secret}"], "valid string", secret),
        ("an object", {"key": f"sk-{secret}"}, "valid string", secret),
        ("a boolean", True, "valid string", "sk-"),
    ]


@pytest.mark.parametrize("section", ["llm", "embedder"])
def test_a_hostile_provider_key_is_a_clear_400_that_is_never_echoed_nor_logged(
    client: TestClient, caplog: pytest.LogCaptureFixture, section: str
) -> None:
    caplog.set_level(logging.DEBUG)
    config = {"base_url": "http://127.0.0.1:9/v1", "model": "text-embedding-3-small"}
    before = client.get("/configure").json()
    for case, api_key, words, secret in hostile_keys():
        caplog.clear()
        body = {section: {"provider": "openai", "config": {**config, "api_key": api_key}}}
        answer = client.post("/configure", json=body)
        assert answer.status_code == 400, (case, answer.text[:300])
        assert words in answer.json()["detail"], (case, answer.json()["detail"])
        assert secret not in answer.text, case
        logged = [f"{r.getMessage()} {r.exc_text or ''}" for r in caplog.records]
        assert caplog.records and not [line for line in logged if secret in line], case
    assert client.get("/configure").json() == before  # nothing was applied


# ---- what a caller may do -------------------------------------------------------------------------------


def test_deleting_an_entity_with_no_memories_deletes_nothing(platform: Any) -> None:
    """Idempotent, as a reset needs (README, Platform API): 200 with `deleted: 0`, its DELETE event lists nothing."""
    _, client, headers = platform
    for path in ("/v2/entities/user/nobody/", "/v1/entities/user/nobody/"):
        answer = client.delete(path, headers=headers)
        assert answer.status_code == 200, answer.text
        assert answer.json()["deleted"] == 0
    recorded = events(client, headers)
    assert len(recorded) == 2 and all(e["event_type"] == "DELETE" and not e["results"] for e in recorded), recorded


def test_a_reader_may_export_the_memories_it_may_read(platform: Any) -> None:
    """The interface's READER views the project's memories; an export is a view of them (a record of it is kept,
    nothing of the project changes), so a READER may make one; another organization's key may not."""
    built, client, headers = platform
    org = client.get("/v1/ping/", headers=headers).json()
    path = f"/api/v1/orgs/organizations/{org['org_id']}/projects/{org['project_id']}/"
    assert built.platform is not None
    built.platform.tenancy.bootstrap("reader@example.com", "Reader's own")  # a known user is a member at once
    client.post(path + "members/", json={"email": "reader@example.com", "role": "READER"}, headers=headers)
    key = client.post(path + "api-keys/", json={"email": "reader@example.com"}, headers=headers).json()["api_key"]
    reader = {"Authorization": f"Token {key}"}
    export = {"schema": {"type": "object", "properties": {"memories": {"type": "array"}}}, "filters": {"user_id": "a"}}
    assert client.post("/v1/exports/", json=export, headers=reader).status_code == 201
    assert built.platform is not None
    stranger = built.platform.tenancy.bootstrap("other@example.com", "Other")
    other = {"Authorization": f"Token {stranger.api_key}"}
    made = client.post("/v1/exports/get/", json={"filters": {"user_id": "a"}}, headers=other)
    assert made.status_code == 404  # another project's export is not theirs to see


def test_an_unknown_field_is_refused_naming_it(platform: Any) -> None:
    _, client, _ = platform
    first = {"name": "Ada", "email": "ada@example.com", "password": "a long passphrase"}
    token = client.post("/auth/register", json=first).json()["access_token"]
    answer = client.patch("/auth/me", json={"role": "admin"}, headers={"Authorization": f"Bearer {token}"})
    assert answer.status_code == 400
    assert [p["loc"] for p in answer.json()["detail"]] == [["body", "role"]]
