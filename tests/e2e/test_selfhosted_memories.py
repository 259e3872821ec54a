"""End to end over HTTP: the self-hosted memory routes, except /search.

Every test drives the FastAPI app through the TestClient on a fresh data dir, with the real MiniLM embedder
and no LLM (so `infer` uses the heuristic extractor). The search route has its own file
(test_selfhosted_search.py); here search is only used to check the effects of writes.
"""

from __future__ import annotations

import hashlib
import re
from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient

ISO_UTC = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}\+00:00$")
REQUEST_ID = re.compile(r"^[A-Za-z0-9._-]{1,64}$")
MISSING_ID = "At least one identifier (user_id, agent_id, run_id) is required."
BAD_DATE = "expiration_date must be a valid date in YYYY-MM-DD format."
BAD_TYPE = "Invalid 'memory_type'. Please pass procedural_memory to create procedural memories."
EMPTY_UPDATE = "At least one of text, metadata, or expiration_date must be provided."


# ---- helpers ----------------------------------------------------------------------------------------------


def add_verbatim(client: TestClient, *texts: str, **scope: Any) -> list[dict[str, Any]]:
    """POST /memories with infer=false, one user message per text; returns the results."""
    body: dict[str, Any] = {
        "messages": [{"role": "user", "content": t} for t in texts],
        "infer": False,
        **(scope or {"user_id": "alice"}),
    }
    response = client.post("/memories", json=body)
    assert response.status_code == 200, response.text
    results: list[dict[str, Any]] = response.json()["results"]
    return results


def add_one(client: TestClient, text: str, **scope: Any) -> str:
    (result,) = add_verbatim(client, text, **scope)
    assert result["event"] == "ADD"
    return str(result["id"])


def listed(client: TestClient, **params: Any) -> list[dict[str, Any]]:
    response = client.get("/memories", params=params)
    assert response.status_code == 200, response.text
    results: list[dict[str, Any]] = response.json()["results"]
    return results


def get(client: TestClient, memory_id: str) -> dict[str, Any]:
    response = client.get(f"/memories/{memory_id}")
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def history(client: TestClient, memory_id: str) -> list[dict[str, Any]]:
    response = client.get(f"/memories/{memory_id}/history")
    assert response.status_code == 200, response.text
    body: list[dict[str, Any]] = response.json()
    return body


def search(client: TestClient, query: str, **body: Any) -> list[dict[str, Any]]:
    payload: dict[str, Any] = {"query": query, "filters": {"user_id": "alice"}, "explain": True, **body}
    response = client.post("/search", json=payload)
    assert response.status_code == 200, response.text
    results: list[dict[str, Any]] = response.json()["results"]
    return results


def md5(text: str) -> str:
    return hashlib.md5(text.encode("utf-8"), usedforsecurity=False).hexdigest()


def detail_of(response: Any) -> str:
    detail = response.json()["detail"]
    assert isinstance(detail, str), detail
    return detail


# ---- POST /memories, infer=false ---------------------------------------------------------------------------


def test_add_verbatim_stores_every_non_system_message_with_its_role(client: TestClient) -> None:
    response = client.post(
        "/memories",
        json={
            "messages": [
                {"role": "system", "content": "You are a helpful assistant."},
                {"role": "user", "content": "I love pizza"},
                {"role": "assistant", "content": "Pizza is great. Which topping do you like?"},
                {"role": "user", "content": "Mushrooms, always", "name": "ana"},
            ],
            "user_id": "alice",
            "infer": False,
        },
    )
    assert response.status_code == 200, response.text
    results = response.json()["results"]

    assert [r["memory"] for r in results] == [
        "I love pizza",
        "Pizza is great. Which topping do you like?",
        "Mushrooms, always",
    ]
    for result in results:
        assert list(result) == ["id", "memory", "event", "actor_id", "role"]
        assert result["event"] == "ADD"
    assert [r["role"] for r in results] == ["user", "assistant", "user"]
    assert [r["actor_id"] for r in results] == [None, None, "ana"]
    assert len({r["id"] for r in results}) == 3

    stored = {m["id"]: m for m in listed(client, user_id="alice")}
    assert set(stored) == {r["id"] for r in results}
    for result in results:
        memory = get(client, result["id"])
        assert memory["memory"] == result["memory"]
        assert memory["role"] == result["role"]
        assert memory["user_id"] == "alice"
    assert "You are a helpful assistant." not in {m["memory"] for m in stored.values()}


def test_add_verbatim_exact_duplicate_in_the_same_scope_is_not_stored_twice(client: TestClient) -> None:
    first = add_one(client, "I like green tea")
    (again,) = add_verbatim(client, "I like green tea")
    assert again["event"] == "NONE"
    assert again["id"] == first
    assert again["memory"] == "I like green tea"

    # a duplicate inside one request is also collapsed onto the first copy
    both = add_verbatim(client, "I play the cello", "I play the cello")
    assert [r["event"] for r in both] == ["ADD", "NONE"]
    assert both[0]["id"] == both[1]["id"]

    assert sorted(m["memory"] for m in listed(client, user_id="alice")) == ["I like green tea", "I play the cello"]
    assert [h["event"] for h in history(client, first)] == ["ADD"]


def test_add_verbatim_same_text_in_another_scope_is_stored(client: TestClient) -> None:
    alice = add_one(client, "I like green tea", user_id="alice")
    bob = add_one(client, "I like green tea", user_id="bob")
    with_agent = add_one(client, "I like green tea", user_id="alice", agent_id="coach")
    assert len({alice, bob, with_agent}) == 3

    assert [m["id"] for m in listed(client, user_id="bob")] == [bob]
    assert {m["id"] for m in listed(client, user_id="alice")} == {alice, with_agent}
    assert [m["id"] for m in listed(client, user_id="alice", agent_id="coach")] == [with_agent]


@pytest.mark.parametrize(
    "scope", [{"agent_id": "coach"}, {"run_id": "run-1"}, {"user_id": "alice", "agent_id": "coach", "run_id": "r9"}]
)
def test_add_accepts_any_identifier(client: TestClient, scope: dict[str, str]) -> None:
    memory_id = add_one(client, "The deploy window is Tuesday at noon", **scope)
    memory = get(client, memory_id)
    for key, value in scope.items():
        assert memory[key] == value
    for key in {"user_id", "agent_id", "run_id"} - set(scope):
        assert key not in memory


def test_add_verbatim_skips_blank_messages(client: TestClient) -> None:
    results = add_verbatim(client, "   ", "I keep bees")
    assert [r["memory"] for r in results] == ["I keep bees"]


# ---- POST /memories, inferred (heuristic extractor: no LLM configured) -------------------------------------


def test_add_infer_default_keeps_statements_and_drops_greetings_questions_and_filler(client: TestClient) -> None:
    response = client.post(
        "/memories",
        json={
            "messages": [
                {"role": "user", "content": "Hi there!"},
                {"role": "assistant", "content": "Hello! How can I help you today?"},
                {
                    "role": "user",
                    "content": "I moved to Lisbon in the spring of 2024. What should I cook tonight? "
                    "My daughter Ana starts school in September.",
                },
                {"role": "assistant", "content": "Sounds great, thank you!"},
                {"role": "user", "content": "Thanks so much, that's really helpful!"},
                {"role": "user", "content": "ok"},
            ],
            "user_id": "alice",
        },
    )
    assert response.status_code == 200, response.text
    results = response.json()["results"]

    assert [r["memory"] for r in results] == [
        "I moved to Lisbon in the spring of 2024.",
        "My daughter Ana starts school in September.",
    ]
    for result in results:
        assert list(result) == ["id", "memory", "event"]  # the inferred shape has no actor_id / role
        assert result["event"] == "ADD"
        memory = get(client, result["id"])
        assert memory["attributed_to"] == "user"
        assert "role" not in memory
    assert sorted(m["memory"] for m in listed(client, user_id="alice")) == sorted(r["memory"] for r in results)


def test_add_infer_true_with_only_chit_chat_stores_nothing(client: TestClient) -> None:
    response = client.post(
        "/memories",
        json={
            "messages": [
                {"role": "user", "content": "Hello, how are you?"},
                {"role": "assistant", "content": "Good morning! Can you help me?"},
                {"role": "user", "content": "lol ok thanks"},
            ],
            "user_id": "alice",
            "infer": True,
        },
    )
    assert response.status_code == 200, response.text
    assert response.json()["results"] == []
    assert listed(client, user_id="alice") == []


def test_add_infer_does_not_store_a_near_duplicate_statement_again(client: TestClient) -> None:
    def infer(text: str, user: str = "alice") -> list[dict[str, Any]]:
        response = client.post("/memories", json={"messages": [{"role": "user", "content": text}], "user_id": user})
        assert response.status_code == 200, response.text
        results: list[dict[str, Any]] = response.json()["results"]
        return results

    (first,) = infer("I moved to Lisbon in the spring of 2024.")
    assert infer("Back in the spring of 2024, I moved to Lisbon.") == []
    assert [m["id"] for m in listed(client, user_id="alice")] == [first["id"]]

    # another user's memories do not count as duplicates
    (other,) = infer("Back in the spring of 2024, I moved to Lisbon.", user="bob")
    assert other["event"] == "ADD"
    # nor does a statement that says something new
    (new,) = infer("I am allergic to peanuts.")
    assert new["event"] == "ADD"
    assert len(listed(client, user_id="alice")) == 2


def test_add_infer_stores_a_near_duplicate_that_names_another_value_and_puts_it_first(client: TestClient) -> None:
    def infer(text: str) -> list[dict[str, Any]]:
        body = {"messages": [{"role": "user", "content": text}], "user_id": "alice"}
        response = client.post("/memories", json=body)
        assert response.status_code == 200, response.text
        results: list[dict[str, Any]] = response.json()["results"]
        return results

    (tuesday,) = infer("I have a job interview at the Austin hospital on Tuesday 3 June 2025.")
    (friday,) = infer("I have a job interview at the Austin hospital on Friday 6 June 2025.")  # as close, another day
    assert friday["event"] == "ADD"
    assert {m["id"] for m in listed(client, user_id="alice")} >= {friday["id"]}
    found = client.post("/search", json={"query": "When is my job interview?", "user_id": "alice"})
    assert found.status_code == 200, found.text
    assert found.json()["results"][0]["id"] == friday["id"]
    assert tuesday["id"] != friday["id"]


# ---- POST /memories, validation -----------------------------------------------------------------------------


def test_add_without_any_identifier_is_400_with_the_reference_message(client: TestClient) -> None:
    for body in (
        {"messages": [{"role": "user", "content": "I like tea"}]},
        {"messages": [{"role": "user", "content": "I like tea"}], "user_id": None, "metadata": {"user_id": "x"}},
        {"messages": [{"role": "user", "content": "I like tea"}], "app_id": "web"},  # an app alone: as the reference
    ):
        response = client.post("/memories", json=body)
        assert response.status_code == 400
        assert response.json() == {"detail": MISSING_ID}
    assert listed(client) == []


def test_an_add_or_update_over_the_size_limit_is_413_and_stores_nothing(client: TestClient) -> None:
    huge = "word " * 20_001  # 100,005 bytes of text: over the 100,000 an add may carry
    for body in (
        {"messages": [{"role": "user", "content": huge}], "user_id": "alice", "infer": False},
        {"messages": [{"role": "user", "content": "I like tea"}], "user_id": "alice", "metadata": {"n": huge}},
    ):
        response = client.post("/memories", json=body)
        assert response.status_code == 413, response.text
        assert "at most 100,000" in detail_of(response)
    long_prompt = {"messages": [{"role": "user", "content": "I like tea"}], "user_id": "alice", "prompt": "p" * 20_001}
    assert client.post("/memories", json=long_prompt).status_code == 422  # instructions: 20,000 characters
    assert listed(client, user_id="alice") == []
    kept = add_one(client, "I like tea", user_id="alice")
    response = client.put(f"/memories/{kept}", json={"text": huge})
    assert response.status_code == 413, response.text
    assert get(client, kept)["memory"] == "I like tea"
    (largest,) = add_verbatim(client, "word " * 19_990, user_id="bob")  # just under the limit: accepted whole
    assert get(client, largest["id"])["memory"] == ("word " * 19_990).strip()


@pytest.mark.parametrize("value", ["2024-02-30", "31-12-2099", "2099/12/31", "tomorrow", "2099-12-31T00:00:00", ""])
def test_add_with_a_bad_expiration_date_is_400(client: TestClient, value: str) -> None:
    response = client.post(
        "/memories",
        json={"messages": [{"role": "user", "content": "I like tea"}], "user_id": "alice", "expiration_date": value},
    )
    assert response.status_code == 400
    assert detail_of(response) == BAD_DATE
    assert listed(client, user_id="alice") == []


def test_add_with_an_expiration_date_stores_it(client: TestClient) -> None:
    (result,) = add_verbatim(client, "Conference badge pickup at gate B", user_id="alice", expiration_date="2099-12-31")
    assert get(client, result["id"])["expiration_date"] == "2099-12-31"


@pytest.mark.parametrize("memory_type", ["core", "semantic", "PROCEDURAL_MEMORY", ""])
def test_add_with_an_unknown_memory_type_is_400(client: TestClient, memory_type: str) -> None:
    response = client.post(
        "/memories",
        json={
            "messages": [{"role": "user", "content": "I like tea"}],
            "agent_id": "coach",
            "memory_type": memory_type,
        },
    )
    assert response.status_code == 400
    assert detail_of(response) == BAD_TYPE
    assert listed(client, agent_id="coach") == []


def test_procedural_memory_without_an_llm_is_400(client: TestClient) -> None:
    messages = [{"role": "user", "content": "Step 1: open the repo"}, {"role": "assistant", "content": "Done."}]
    response = client.post(
        "/memories", json={"messages": messages, "agent_id": "coach", "memory_type": "procedural_memory"}
    )
    assert response.status_code == 400
    assert "LLM" in detail_of(response)
    assert "/configure" in detail_of(response)

    response = client.post(
        "/memories", json={"messages": messages, "user_id": "alice", "memory_type": "procedural_memory"}
    )
    assert response.status_code == 400
    assert "agent_id" in detail_of(response)
    assert listed(client, agent_id="coach") == []
    assert listed(client, user_id="alice") == []


@pytest.mark.parametrize(
    ("body", "where"),
    [
        ({"user_id": "alice"}, ["body", "messages"]),
        ({"messages": "I like tea", "user_id": "alice"}, ["body", "messages"]),
        ({"messages": [], "user_id": "alice"}, ["body", "messages"]),
        ({"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}], "user_id": "alice"}, None),
        ({"messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}], "user_id": "alice"}, None),
        ({"messages": [{"role": "user", "content": 42}], "user_id": "alice"}, None),
        ({"messages": [{"role": "user", "content": None}], "user_id": "alice"}, None),
        ({"messages": [{"role": "user"}], "user_id": "alice"}, None),
        ({"messages": [{"content": "I like tea"}], "user_id": "alice"}, None),
        ({"messages": ["I like tea"], "user_id": "alice"}, None),
        ({"messages": [{"role": "user", "content": "I like tea"}], "user_id": "alice", "metadata": [1]}, None),
        ({"messages": [{"role": "user", "content": "I like tea"}], "user_id": "alice", "infer": "perhaps"}, None),
    ],
)
def test_add_with_malformed_messages_is_422(client: TestClient, body: dict[str, Any], where: list[str] | None) -> None:
    response = client.post("/memories", json=body)
    assert response.status_code == 422, response.text
    errors = response.json()["detail"]
    assert isinstance(errors, list)
    assert errors
    assert all(e["loc"][0] == "body" and e["msg"] for e in errors)
    if where is not None:
        assert errors[0]["loc"] == where
    assert listed(client, user_id="alice") == []


WHITESPACE = "must not contain whitespace (nothing is stripped)."


@pytest.mark.parametrize(
    ("field", "value", "problem"),
    [
        ("user_id", "alice smith", WHITESPACE),
        ("user_id", "   ", WHITESPACE),
        ("user_id", "", "must not be empty."),
        ("agent_id", "coach\tbot", WHITESPACE),
        ("run_id", "run\n1", WHITESPACE),
    ],
)
def test_add_with_whitespace_in_an_id_is_400(client: TestClient, field: str, value: str, problem: str) -> None:
    response = client.post("/memories", json={"messages": [{"role": "user", "content": "I like tea"}], field: value})
    assert response.status_code == 400
    assert detail_of(response) == f"{field} {problem}"
    assert listed(client) == []


def test_add_strips_identity_keys_from_metadata(client: TestClient) -> None:
    (result,) = add_verbatim(
        client,
        "I like tea",
        user_id="alice",
        metadata={
            "user_id": "mallory",
            "agent_id": "evil",
            "run_id": "r0",
            "actor_id": "eve",
            "app_id": "x",
            "topic": "drinks",
            "rating": 5,
        },
    )
    memory = get(client, result["id"])
    assert memory["metadata"] == {"topic": "drinks", "rating": 5}
    assert memory["user_id"] == "alice"
    assert "agent_id" not in memory
    assert "run_id" not in memory
    assert "actor_id" not in memory
    assert listed(client, user_id="mallory") == []
    assert listed(client, agent_id="evil") == []


# ---- GET /memories ---------------------------------------------------------------------------------------


def test_list_is_scoped_by_the_given_ids(client: TestClient) -> None:
    tea = add_one(client, "I like tea", user_id="alice")
    coffee = add_one(client, "I like coffee", user_id="alice", agent_id="barista")
    bob = add_one(client, "I like juice", user_id="bob", agent_id="barista")

    assert {m["id"] for m in listed(client, user_id="alice")} == {tea, coffee}
    assert {m["id"] for m in listed(client, agent_id="barista")} == {coffee, bob}
    assert [m["id"] for m in listed(client, user_id="alice", agent_id="barista")] == [coffee]
    assert listed(client, user_id="carol") == []
    # with no id at all: the admin "list everything" mode
    assert {m["id"] for m in listed(client)} == {tea, coffee, bob}

    (memory,) = listed(client, user_id="bob")
    assert "score" not in memory
    assert list(memory)[:6] == ["id", "memory", "hash", "metadata", "created_at", "updated_at"]
    assert memory["memory"] == "I like juice"
    assert memory["user_id"] == "bob"
    assert memory["agent_id"] == "barista"


def test_list_top_k_defaults_to_20(client: TestClient) -> None:
    texts = [f"Fact number {i}: the locker {i} holds item {i * 7}" for i in range(25)]
    results = add_verbatim(client, *texts)
    assert [r["event"] for r in results] == ["ADD"] * 25

    assert len(listed(client, user_id="alice")) == 20
    everything = listed(client, user_id="alice", top_k=25)
    assert sorted(m["memory"] for m in everything) == sorted(texts)
    assert len(listed(client, user_id="alice", top_k=1000)) == 25
    assert len(listed(client, user_id="alice", top_k=7)) == 7
    assert listed(client, user_id="alice", top_k=0) == []


@pytest.mark.parametrize("top_k", ["-1", "1001", "ten", "2.5"])
def test_list_top_k_out_of_range_is_422(client: TestClient, top_k: str) -> None:
    response = client.get("/memories", params={"user_id": "alice", "top_k": top_k})
    assert response.status_code == 422
    assert response.json()["detail"][0]["loc"] == ["query", "top_k"]


def test_list_hides_expired_memories_unless_show_expired(client: TestClient) -> None:
    keep = add_one(client, "I like tea")
    future = add_one(client, "Trip to Kyoto is booked")
    old = add_one(client, "The gym pass is valid")
    today = datetime.now(UTC).date()
    assert client.put(f"/memories/{future}", json={"expiration_date": "2999-01-01"}).status_code == 200
    assert client.put(f"/memories/{old}", json={"expiration_date": str(today - timedelta(days=1))}).status_code == 200

    assert {m["id"] for m in listed(client, user_id="alice")} == {keep, future}
    assert {m["id"] for m in listed(client, user_id="alice", show_expired="false")} == {keep, future}
    shown = {m["id"]: m for m in listed(client, user_id="alice", show_expired="true")}
    assert set(shown) == {keep, future, old}
    assert shown[old]["expiration_date"] == str(today - timedelta(days=1))
    # an expired memory can still be fetched by id
    assert get(client, old)["memory"] == "The gym pass is valid"

    response = client.get("/memories", params={"user_id": "alice", "show_expired": "sometimes"})
    assert response.status_code == 422


# ---- GET /memories/{id} ------------------------------------------------------------------------------------


def test_get_returns_the_reference_record_shape(client: TestClient) -> None:
    (result,) = add_verbatim(
        client,
        "I love pizza",
        user_id="alice",
        agent_id="ag",
        expiration_date="2099-12-31",
    )
    memory = get(client, result["id"])

    assert list(memory)[:7] == ["id", "memory", "hash", "metadata", "score", "created_at", "updated_at"]
    assert memory["id"] == result["id"]
    assert memory["memory"] == "I love pizza"
    assert memory["hash"] == md5("I love pizza")
    assert memory["metadata"] is None
    assert memory["score"] is None
    assert ISO_UTC.match(memory["created_at"]), memory["created_at"]
    assert ISO_UTC.match(memory["updated_at"]), memory["updated_at"]
    assert memory["created_at"] == memory["updated_at"]
    assert abs(datetime.fromisoformat(memory["created_at"]) - datetime.now(UTC)) < timedelta(minutes=1)
    assert memory["user_id"] == "alice"
    assert memory["agent_id"] == "ag"
    assert "run_id" not in memory
    assert memory["role"] == "user"
    assert memory["expiration_date"] == "2099-12-31"
    assert "actor_id" not in memory
    assert "attributed_to" not in memory


def test_get_unknown_id_is_404_with_a_detail(client: TestClient) -> None:
    add_one(client, "I like tea")
    for unknown in ("00000000-0000-0000-0000-000000000000", "not-a-uuid"):
        response = client.get(f"/memories/{unknown}")
        assert response.status_code == 404
        assert unknown in detail_of(response)
        assert "not found" in detail_of(response)


# ---- PUT /memories/{id} ------------------------------------------------------------------------------------


def test_update_text_re_embeds_the_memory(client: TestClient) -> None:
    memory_id = add_one(client, "My locker code is Zanzibar77")
    add_one(client, "I run five kilometres every morning")
    before = get(client, memory_id)

    response = client.put(f"/memories/{memory_id}", json={"text": "I adore growing tomatoes on my balcony garden"})
    assert response.status_code == 200
    assert response.json() == {"message": "Memory updated successfully!"}

    after = get(client, memory_id)
    assert after["memory"] == "I adore growing tomatoes on my balcony garden"
    assert after["hash"] == md5("I adore growing tomatoes on my balcony garden")
    assert after["created_at"] == before["created_at"]
    assert after["updated_at"] > before["updated_at"]

    found = search(client, "tomatoes on the balcony")
    assert found[0]["id"] == memory_id
    assert found[0]["memory"] == "I adore growing tomatoes on my balcony garden"
    assert found[0]["score_details"]["semantic_score"] > 0.6
    assert found[0]["score_details"]["bm25_score"] > 0

    # the old text no longer matches: not by keyword, and not by meaning
    assert memory_id not in {r["id"] for r in search(client, "Zanzibar77 locker code")}
    old = {r["id"]: r for r in search(client, "Zanzibar77 locker code", threshold=0.0)}
    if memory_id in old:
        assert old[memory_id]["score_details"]["bm25_score"] == 0
        assert old[memory_id]["score_details"]["semantic_score"] < 0.3


def test_update_merges_metadata_and_ignores_identity_keys(client: TestClient) -> None:
    (result,) = add_verbatim(client, "I like tea", user_id="alice", metadata={"topic": "drinks", "rating": 3})
    memory_id = result["id"]
    before = get(client, memory_id)

    response = client.put(
        f"/memories/{memory_id}",
        json={"metadata": {"rating": 5, "mood": "calm", "user_id": "mallory", "agent_id": "evil"}},
    )
    assert response.status_code == 200, response.text

    after = get(client, memory_id)
    assert after["metadata"] == {"topic": "drinks", "rating": 5, "mood": "calm"}
    assert after["memory"] == "I like tea"
    assert after["hash"] == before["hash"]
    assert after["user_id"] == "alice"
    assert "agent_id" not in after
    assert after["updated_at"] > before["updated_at"]
    assert listed(client, user_id="mallory") == []
    # still searchable after a metadata-only change
    assert search(client, "tea")[0]["id"] == memory_id


def test_update_expiration_date_sets_and_null_clears_it(client: TestClient) -> None:
    memory_id = add_one(client, "Conference badge pickup at gate B")

    assert client.put(f"/memories/{memory_id}", json={"expiration_date": "2099-06-30"}).status_code == 200
    assert get(client, memory_id)["expiration_date"] == "2099-06-30"

    assert client.put(f"/memories/{memory_id}", json={"expiration_date": "2000-01-01"}).status_code == 200
    assert listed(client, user_id="alice") == []

    response = client.put(f"/memories/{memory_id}", json={"expiration_date": None})
    assert response.status_code == 200, response.text
    memory = get(client, memory_id)
    assert "expiration_date" not in memory
    assert [m["id"] for m in listed(client, user_id="alice")] == [memory_id]

    response = client.put(f"/memories/{memory_id}", json={"expiration_date": "30/06/2099"})
    assert response.status_code == 400
    assert detail_of(response) == BAD_DATE
    assert "expiration_date" not in get(client, memory_id)


def test_update_with_an_empty_body_is_400(client: TestClient) -> None:
    memory_id = add_one(client, "I like tea")
    before = get(client, memory_id)
    for body in ({}, {"text": None}, {"metadata": None}):
        response = client.put(f"/memories/{memory_id}", json=body)
        assert response.status_code == 400
        assert detail_of(response) == EMPTY_UPDATE
    unknown = client.put(f"/memories/{memory_id}", json={"metadata": None, "unknown_field": 1})
    assert unknown.status_code == 400  # never ignored: named
    assert [p["loc"] for p in unknown.json()["detail"]] == [["body", "unknown_field"]]
    assert get(client, memory_id) == before
    assert [h["event"] for h in history(client, memory_id)] == ["ADD"]


def test_update_with_bad_input_is_4xx(client: TestClient) -> None:
    memory_id = add_one(client, "I like tea")
    before = get(client, memory_id)

    response = client.put(f"/memories/{memory_id}", json={"text": "   "})
    assert response.status_code == 400
    assert "text" in detail_of(response)

    bodies: list[Any] = [{"text": 5}, {"metadata": "topic=drinks"}, [], {"expiration_date": 20990101}]
    for body in bodies:
        response = client.put(f"/memories/{memory_id}", json=body)
        assert response.status_code == 422, (body, response.text)

    assert get(client, memory_id) == before


def test_update_unknown_id_is_404(client: TestClient) -> None:
    response = client.put("/memories/00000000-0000-0000-0000-000000000000", json={"text": "I like tea"})
    assert response.status_code == 404
    assert "00000000-0000-0000-0000-000000000000" in detail_of(response)
    assert listed(client) == []


# ---- DELETE /memories/{id} ---------------------------------------------------------------------------------


def test_delete_one_removes_it_everywhere_at_once(client: TestClient) -> None:
    gone = add_one(client, "The wifi password at the cabin is Quokkaberry42")
    kept = add_one(client, "The wifi password at the office is Marmoset17")

    response = client.delete(f"/memories/{gone}")
    assert response.status_code == 200
    assert response.json() == {"message": "Memory deleted successfully"}

    assert client.get(f"/memories/{gone}").status_code == 404
    assert [m["id"] for m in listed(client, user_id="alice")] == [kept]
    found = search(client, "Quokkaberry42 cabin wifi password", threshold=0.0)
    assert [r["id"] for r in found] == [kept]

    events = history(client, gone)
    assert [h["event"] for h in events] == ["ADD", "DELETE"]
    assert events[-1]["is_deleted"] is True
    assert events[-1]["old_memory"] is None  # a delete erases: the history keeps the events, not the texts
    assert events[-1]["new_memory"] is None
    assert events[0]["new_memory"] is None

    second = client.delete(f"/memories/{gone}")
    assert second.status_code == 404
    assert gone in detail_of(second)
    assert client.put(f"/memories/{gone}", json={"text": "back"}).status_code == 404


# ---- DELETE /memories ----------------------------------------------------------------------------------------


def test_delete_all_needs_an_identifier(client: TestClient) -> None:
    add_one(client, "I like tea")
    for params in ({}, {"user_id": ""}):
        response = client.delete("/memories", params=params)
        assert response.status_code == 400
        assert detail_of(response) == "At least one identifier is required."
    assert len(listed(client, user_id="alice")) == 1


def test_delete_all_deletes_only_the_named_scope(client: TestClient) -> None:
    alice_plain = add_one(client, "I like tea", user_id="alice")
    alice_coach = add_one(client, "I do yoga on Fridays", user_id="alice", agent_id="coach")
    bob = add_one(client, "I like tea", user_id="bob")
    bob_coach = add_one(client, "I do yoga on Fridays", user_id="bob", agent_id="coach")

    response = client.delete("/memories", params={"user_id": "alice", "agent_id": "coach"})
    assert response.status_code == 200
    assert response.json() == {"message": "All relevant memories deleted"}
    assert [m["id"] for m in listed(client, user_id="alice")] == [alice_plain]
    assert {m["id"] for m in listed(client, user_id="bob")} == {bob, bob_coach}

    assert client.delete("/memories", params={"user_id": "alice"}).status_code == 200
    assert listed(client, user_id="alice") == []
    assert {m["id"] for m in listed(client, user_id="bob")} == {bob, bob_coach}
    assert search(client, "tea", filters={"user_id": "alice"}) == []
    assert search(client, "tea", filters={"user_id": "bob"})[0]["id"] == bob

    for memory_id in (alice_plain, alice_coach):
        assert client.get(f"/memories/{memory_id}").status_code == 404
        assert [h["event"] for h in history(client, memory_id)] == ["ADD", "DELETE"]

    # deleting a scope with no memories is fine
    assert client.delete("/memories", params={"run_id": "nothing-here"}).status_code == 200


# ---- GET /memories/{id}/history --------------------------------------------------------------------------


def test_history_records_add_update_delete_in_order(client: TestClient) -> None:
    memory_id = add_one(client, "I live in Berlin")
    assert client.put(f"/memories/{memory_id}", json={"text": "I live in Tokyo"}).status_code == 200
    assert client.put(f"/memories/{memory_id}", json={"metadata": {"source": "chat"}}).status_code == 200
    assert client.delete(f"/memories/{memory_id}").status_code == 200

    entries = history(client, memory_id)
    assert [h["event"] for h in entries] == ["ADD", "UPDATE", "UPDATE", "DELETE"]
    for entry in entries:
        assert list(entry) == [
            "id",
            "memory_id",
            "old_memory",
            "new_memory",
            "event",
            "created_at",
            "updated_at",
            "is_deleted",
            "actor_id",
            "role",
        ]
        assert entry["memory_id"] == memory_id
        assert entry["role"] == "user"
        assert entry["actor_id"] is None
        assert ISO_UTC.match(entry["created_at"])
        assert ISO_UTC.match(entry["updated_at"])
    add, text_change, metadata_change, delete = entries
    # the memory is deleted: every entry keeps its event, times, actor and role, no text (a delete erases)
    assert (add["old_memory"], add["new_memory"], add["is_deleted"]) == (None, None, False)
    assert (text_change["old_memory"], text_change["new_memory"]) == (None, None)
    assert (metadata_change["old_memory"], metadata_change["new_memory"]) == (None, None)
    assert (delete["old_memory"], delete["new_memory"], delete["is_deleted"]) == (None, None, True)
    assert not text_change["is_deleted"]
    # created_at is the memory's creation time on every row; updated_at is when the event happened
    assert {h["created_at"] for h in entries} == {add["created_at"]}
    assert add["updated_at"] >= add["created_at"]
    stamps = [h["updated_at"] for h in entries]
    assert stamps == sorted(stamps)
    assert len({h["id"] for h in entries}) == 4


def test_history_of_an_unknown_id_is_404(client: TestClient) -> None:
    response = client.get("/memories/00000000-0000-0000-0000-000000000000/history")
    assert response.status_code == 404
    assert "00000000-0000-0000-0000-000000000000" in detail_of(response)


# ---- POST /reset ----------------------------------------------------------------------------------------


def test_reset_deletes_every_memory_and_all_history(client: TestClient) -> None:
    alice = add_one(client, "I like tea", user_id="alice")
    add_one(client, "I like coffee", user_id="bob", agent_id="barista")

    response = client.post("/reset")
    assert response.status_code == 200
    assert response.json() == {"message": "All memories reset"}

    assert listed(client) == []
    assert listed(client, user_id="alice") == []
    assert search(client, "tea", threshold=0.0) == []
    assert client.get(f"/memories/{alice}").status_code == 404
    assert client.get(f"/memories/{alice}/history").status_code == 404

    # the service keeps working after a reset, and the same text can be stored again
    assert add_one(client, "I like tea", user_id="alice") != alice
    assert search(client, "tea")[0]["memory"] == "I like tea"


# ---- root, docs, OpenAPI -----------------------------------------------------------------------------------


def test_root_redirects_to_the_docs(client: TestClient) -> None:
    response = client.get("/", follow_redirects=False)
    assert response.status_code == 307
    assert response.headers["location"] == "/docs"
    assert REQUEST_ID.match(response.headers["x-request-id"])


def test_docs_and_openapi_are_served(client: TestClient) -> None:
    docs = client.get("/docs")
    assert docs.status_code == 200
    assert "text/html" in docs.headers["content-type"]
    assert "swagger" in docs.text.lower()

    spec = client.get("/openapi.json")
    assert spec.status_code == 200
    paths = spec.json()["paths"]
    assert set(paths["/memories"]) == {"get", "post", "delete"}
    assert set(paths["/memories/{memory_id}"]) == {"get", "put", "delete"}
    assert set(paths["/memories/{memory_id}/history"]) == {"get"}
    assert set(paths["/search"]) == {"post"}
    assert set(paths["/reset"]) == {"post"}
    platform = ("/v1/", "/v2/", "/v3/", "/api/v1/")  # the platform surface's paths end with "/" (compat §4)
    assert not [p for p in paths if p != "/" and p.endswith("/") and not p.startswith(platform)]


# ---- cross-cutting: request ids, malformed bodies, trailing slashes ----------------------------------------


def test_every_response_carries_a_request_id(client: TestClient) -> None:
    memory_id = add_one(client, "I like tea")
    responses = {
        200: client.get(f"/memories/{memory_id}"),
        400: client.post("/search", json={"query": "tea"}),
        404: client.get("/memories/00000000-0000-0000-0000-000000000000"),
        422: client.post("/memories", json={"user_id": "alice"}),
    }
    unknown_path = client.get("/no/such/path")
    wrong_method = client.patch("/memories")
    ids = set()
    for status, response in [*responses.items(), (404, unknown_path), (405, wrong_method)]:
        assert response.status_code == status, response.text
        rid = response.headers.get("x-request-id")
        assert rid is not None, status
        assert re.fullmatch(r"[0-9a-f]{8}", rid), rid
        ids.add(rid)
    assert len(ids) == 6  # a new id per request


def test_a_sane_incoming_request_id_is_echoed_and_an_insane_one_replaced(client: TestClient) -> None:
    for path, status in (("/memories?user_id=alice", 200), ("/memories/nope", 404), ("/nope", 404)):
        response = client.get(path, headers={"X-Request-ID": "trace-42.abc_DEF"})
        assert response.status_code == status
        assert response.headers["x-request-id"] == "trace-42.abc_DEF"

    echoed = client.post("/memories", json={}, headers={"X-Request-ID": "client-7"})
    assert echoed.status_code == 422
    assert echoed.headers["x-request-id"] == "client-7"

    for insane in ("has spaces in it", "x" * 65, "semi;colon", "<script>"):
        response = client.get("/memories?user_id=alice", headers={"X-Request-ID": insane})
        assert response.status_code == 200
        assert re.fullmatch(r"[0-9a-f]{8}", response.headers["x-request-id"])
    assert len(client.get("/memories?user_id=alice").headers.get_list("x-request-id")) == 1


@pytest.mark.parametrize(
    ("method", "path"),
    [("post", "/memories"), ("post", "/search"), ("put", "/memories/{id}")],
)
@pytest.mark.parametrize("raw", [b"{bad json", b'{"messages": [', b"", b"null"])
def test_a_malformed_json_body_is_422_not_500(client: TestClient, method: str, path: str, raw: bytes) -> None:
    memory_id = add_one(client, "I like tea")
    response = client.request(
        method.upper(), path.format(id=memory_id), content=raw, headers={"content-type": "application/json"}
    )
    assert response.status_code == 422, response.text
    assert isinstance(response.json()["detail"], list)
    assert "x-request-id" in response.headers
    assert get(client, memory_id)["memory"] == "I like tea"


@pytest.mark.parametrize(
    ("method", "path"),
    [("post", "/memories"), ("post", "/search"), ("put", "/memories/{id}")],
)
@pytest.mark.parametrize("raw", [b"\xff\xfe", b'{"text": "a\xed\xb2\x80"}'])
def test_a_body_that_is_not_utf8_is_400_before_any_work(client: TestClient, method: str, path: str, raw: bytes) -> None:
    memory_id = add_one(client, "I like tea")
    response = client.request(
        method.upper(), path.format(id=memory_id), content=raw, headers={"content-type": "application/json"}
    )
    assert response.status_code == 400, response.text
    assert "not valid UTF-8" in response.json()["detail"]
    assert get(client, memory_id)["memory"] == "I like tea"


def test_a_body_that_is_not_json_is_422(client: TestClient) -> None:
    response = client.post("/memories", content=b"user_id=alice", headers={"content-type": "text/plain"})
    assert response.status_code == 422
    assert listed(client) == []


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("get", "/memories/"),
        ("post", "/memories/"),
        ("delete", "/memories/"),
        ("post", "/search/"),
        ("post", "/reset/"),
        ("get", "/memories/{id}/"),
        ("get", "/memories/{id}/history/"),
    ],
)
def test_trailing_slash_routes_are_404(client: TestClient, method: str, path: str) -> None:
    memory_id = add_one(client, "I like tea")
    body = {"messages": [{"role": "user", "content": "x y z"}], "user_id": "alice", "query": "tea"}
    response = client.request(
        method.upper(),
        path.format(id=memory_id),
        json=body if method == "post" else None,
        follow_redirects=False,
    )
    assert response.status_code == 404, response.text
    assert "x-request-id" in response.headers
    # nothing happened: no redirect, no reset, no delete, no add
    assert [m["id"] for m in listed(client, user_id="alice")] == [memory_id]


def test_ids_in_paths_are_opaque(client: TestClient) -> None:
    memory_id = add_one(client, "I like tea")
    for weird in ("%20", "..%2F..", "'; DROP TABLE memories; --", "%E2%9C%93"):
        response = client.get(f"/memories/{weird}")
        assert response.status_code == 404, (weird, response.text)
    assert get(client, memory_id)["memory"] == "I like tea"


def test_today_is_a_valid_expiration_date(client: TestClient) -> None:
    today = datetime.now(UTC).date()
    assert isinstance(today, date)
    (result,) = add_verbatim(client, "Parking permit for today", user_id="alice", expiration_date=today.isoformat())
    assert [m["id"] for m in listed(client, user_id="alice")] == [result["id"]]
