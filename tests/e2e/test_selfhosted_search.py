"""End to end over HTTP: POST /search.

Hybrid search with the real MiniLM embedder and the SQLite FTS5 keyword index, the filter grammar as the
HTTP caller writes it, validation, expiry and scoping.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient

from mnemo.composition.container import Container
from mnemo.domain.memory import Scope
from mnemo.domain.text import words
from mnemo.services.commands import AddCommand, Message

NEEDS_ENTITY = "filters must contain at least one of: user_id, agent_id, run_id. Example: filters={'user_id': 'u1'}"
EMPTY_QUERY = "Invalid query: cannot be empty or whitespace-only."

FACTS = [
    "My dog Rex loves chasing tennis balls in the park.",
    "I work as a backend engineer at a logistics company.",
    "My favourite food is spicy Thai green curry.",
    "I am learning to play the cello on weekends.",
    "The wifi password at the cabin is Quokkaberry42.",
    "I prefer aisle seats when flying long distance.",
    "My sister lives in Montreal with her two kids.",
    "I run five kilometres every morning before breakfast.",
]


# ---- helpers ----------------------------------------------------------------------------------------------


def add_verbatim(client: TestClient, *texts: str, **scope: Any) -> list[str]:
    body = {"messages": [{"role": "user", "content": t} for t in texts], "infer": False, **scope}
    response = client.post("/memories", json=body)
    assert response.status_code == 200, response.text
    results = response.json()["results"]
    assert [r["event"] for r in results] == ["ADD"] * len(texts)
    return [str(r["id"]) for r in results]


def search(client: TestClient, query: str, **body: Any) -> list[dict[str, Any]]:
    payload: dict[str, Any] = {"query": query, "filters": {"user_id": "alice"}, **body}
    response = client.post("/search", json=payload)
    assert response.status_code == 200, response.text
    results: list[dict[str, Any]] = response.json()["results"]
    return results


def search_error(client: TestClient, body: dict[str, Any], status: int = 400) -> Any:
    response = client.post("/search", json=body)
    assert response.status_code == status, response.text
    assert "x-request-id" in response.headers
    return response.json()["detail"]


@pytest.fixture
def facts(client: TestClient) -> dict[str, str]:
    """The eight FACTS stored verbatim for alice: text -> id."""
    return dict(zip(FACTS, add_verbatim(client, *FACTS, user_id="alice"), strict=True))


# ---- ranking ----------------------------------------------------------------------------------------------


def test_a_memory_is_found_by_meaning_with_no_word_in_common(client: TestClient, facts: dict[str, str]) -> None:
    cases = {
        "Which animal companion does this person own?": FACTS[0],
        "What instrument?": FACTS[3],
        "Which city is the sibling based?": FACTS[6],
    }
    for query, expected in cases.items():
        assert not {w.lower() for w in words(query)} & {w.lower() for w in words(expected)}, query
        results = search(client, query, explain=True)
        assert results, query
        assert results[0]["id"] == facts[expected], (query, [r["memory"] for r in results])
        assert results[0]["memory"] == expected
        details = results[0]["score_details"]
        assert details["bm25_score"] == 0
        assert details["semantic_score"] > 0.25


def test_a_memory_is_found_by_a_rare_keyword(client: TestClient, facts: dict[str, str]) -> None:
    for query in ("Quokkaberry42", "quokkaberry42", "what was Quokkaberry42 again"):
        results = search(client, query, explain=True)
        assert results[0]["id"] == facts[FACTS[4]], query
        top = results[0]["score_details"]
        assert top["bm25_score"] > 0
        assert top["bm25_score"] <= 1
        assert top["final_score"] == pytest.approx(results[0]["score"], abs=1e-6)
        # the keyword lifted it above its semantic score alone
        assert results[0]["score"] > top["semantic_score"]
        for other in results[1:]:
            assert other["score_details"]["bm25_score"] == 0
            assert other["score"] < results[0]["score"]


def test_scores_are_in_unit_range_and_sorted(client: TestClient, facts: dict[str, str]) -> None:
    for query in ("cabin wifi", "morning exercise routine", "What does the user eat?", "zzzz qqqq"):
        results = search(client, query, threshold=0.0, explain=True, top_k=100)
        assert len(results) == len(facts)
        scores = [r["score"] for r in results]
        assert all(0.0 <= s <= 1.0 for s in scores), scores
        assert scores == sorted(scores, reverse=True)
        for result in results:
            details = result["score_details"]
            assert 0.0 <= details["semantic_score"] <= 1.0
            assert 0.0 <= details["bm25_score"] <= 1.0
            assert details["threshold"] == 0.0
            assert details["final_score"] == pytest.approx(result["score"], abs=1e-6)


def test_search_results_have_the_memory_shape_plus_a_score(client: TestClient, facts: dict[str, str]) -> None:
    (result,) = search(client, "cabin wifi password", top_k=1)
    assert list(result)[:7] == ["id", "memory", "hash", "metadata", "score", "created_at", "updated_at"]
    assert result["id"] == facts[FACTS[4]]
    assert isinstance(result["score"], float)
    assert result["user_id"] == "alice"
    assert result["role"] == "user"
    assert "score_details" not in result


def test_threshold_gates_on_the_semantic_score(client: TestClient, facts: dict[str, str]) -> None:
    everything = search(client, "dog park", threshold=0.0, explain=True, top_k=100)
    assert len(everything) == len(facts)
    strict = search(client, "dog park", threshold=0.3, explain=True, top_k=100)
    assert strict
    assert [r["id"] for r in strict] == [r["id"] for r in everything if r["score_details"]["semantic_score"] >= 0.3]
    assert len(strict) < len(everything)
    assert strict[0]["id"] == facts[FACTS[0]]
    assert all(r["score_details"]["threshold"] == 0.3 for r in strict)
    assert search(client, "dog park", threshold=1.0) == []
    # the default threshold is 0.1
    default = search(client, "dog park", explain=True, top_k=100)
    assert [r["id"] for r in default] == [r["id"] for r in everything if r["score_details"]["semantic_score"] >= 0.1]


def test_top_k_limits_the_results(client: TestClient, facts: dict[str, str]) -> None:
    assert len(search(client, "hobbies", threshold=0.0, top_k=3)) == 3
    assert len(search(client, "hobbies", threshold=0.0, top_k=1)) == 1
    assert search(client, "hobbies", threshold=0.0, top_k=0) == []
    assert len(search(client, "hobbies", threshold=0.0, top_k=1000)) == len(facts)
    best = search(client, "hobbies", threshold=0.0, top_k=100)
    assert [r["id"] for r in search(client, "hobbies", threshold=0.0, top_k=3)] == [r["id"] for r in best[:3]]


def test_top_k_defaults_to_20(client: TestClient) -> None:
    add_verbatim(
        client, *[f"Shelf {i} in the archive holds box {i * 3} of old letters" for i in range(25)], user_id="a"
    )
    assert len(search(client, "archive letters", filters={"user_id": "a"}, threshold=0.0)) == 20


# ---- request forms ----------------------------------------------------------------------------------------


def test_deprecated_top_level_ids_still_work(client: TestClient) -> None:
    (alice,) = add_verbatim(client, "I like green tea", user_id="alice")
    (bob,) = add_verbatim(client, "I like green tea", user_id="bob", agent_id="coach")
    (run,) = add_verbatim(client, "I like green tea", run_id="r-1")

    def ids(body: dict[str, Any]) -> list[str]:
        response = client.post("/search", json={"query": "green tea", **body})
        assert response.status_code == 200, response.text
        return [r["id"] for r in response.json()["results"]]

    assert ids({"user_id": "alice"}) == [alice]
    assert ids({"agent_id": "coach"}) == [bob]
    assert ids({"run_id": "r-1"}) == [run]
    # the top-level form is copied into the filters and overrides the same key there
    assert ids({"user_id": "bob", "filters": {"user_id": "alice"}}) == [bob]
    assert ids({"user_id": "bob", "filters": {"agent_id": "nobody"}}) == []
    assert search_error(client, {"query": "tea", "user_id": "bob smith"}) == (
        "user_id must not contain whitespace (nothing is stripped)."
    )


@pytest.mark.parametrize(
    "body",
    [
        {"query": "tea"},
        {"query": "tea", "filters": {}},
        {"query": "tea", "filters": None},
        {"query": "tea", "filters": {"metadata": {"topic": "drinks"}}},
        {"query": "tea", "filters": {"user_id": {"ne": "alice"}}},
        {"query": "tea", "filters": {"NOT": [{"user_id": "alice"}]}},
        {"query": "tea", "filters": {"app_id": "shop"}},
    ],
)
def test_filters_must_name_a_user_agent_or_run(client: TestClient, body: dict[str, Any]) -> None:
    add_verbatim(client, "I like tea", user_id="alice", metadata={"topic": "drinks"})
    assert search_error(client, body) == NEEDS_ENTITY


def test_query_must_not_be_empty(client: TestClient) -> None:
    for query in ("", "   ", "\n\t"):
        assert search_error(client, {"query": query, "filters": {"user_id": "alice"}}) == EMPTY_QUERY
    assert search_error(client, {"filters": {"user_id": "alice"}}, status=422)[0]["loc"] == ["body", "query"]
    assert search_error(client, {"query": None, "filters": {"user_id": "alice"}}, status=422)
    assert search_error(client, {"query": ["tea"], "filters": {"user_id": "alice"}}, status=422)


@pytest.mark.parametrize(("threshold", "shown"), [(2.0, "2.0"), (-0.1, "-0.1"), (1.5, "1.5")])
def test_threshold_must_be_between_0_and_1(client: TestClient, threshold: float, shown: str) -> None:
    detail = search_error(client, {"query": "tea", "filters": {"user_id": "alice"}, "threshold": threshold})
    assert detail == f"Invalid threshold: {shown}. Must be between 0 and 1 (inclusive)."


@pytest.mark.parametrize(
    "body",
    [
        {"top_k": -1},
        {"top_k": 1001},
        {"top_k": "many"},
        {"threshold": "high"},
        {"explain": "please"},
        {"show_expired": "sometimes"},
        {"filters": "user_id=alice"},
        {"filters": ["user_id", "alice"]},
    ],
)
def test_wrongly_typed_search_fields_are_422(client: TestClient, body: dict[str, Any]) -> None:
    detail = search_error(client, {"query": "tea", "filters": {"user_id": "alice"}, **body}, status=422)
    assert detail[0]["loc"][:2] == ["body", next(iter(body))]


# ---- the filter grammar over HTTP -------------------------------------------------------------------------


@pytest.fixture
def catalog(container: Container, client: TestClient) -> Iterator[dict[str, str]]:
    """Memories with metadata, categories and back-dated creation times (set through the service, since the
    self-hosted add route has neither `categories` nor `timestamp`). Returns a key -> id map."""
    rows = {
        "hiking": (
            "I enjoy hiking in the Alps every summer",
            Scope(user_id="u"),
            {"topic": "travel", "priority": 1},
            ("hobbies", "travel"),
            datetime(2023, 3, 1, 12, tzinfo=UTC),
        ),
        "vegetarian": (
            "I am vegetarian and avoid eating meat",
            Scope(user_id="u"),
            {"topic": "food", "priority": 3, "tags": ["diet", "health"]},
            ("food", "health"),
            datetime(2024, 6, 15, 9, tzinfo=UTC),
        ),
        "manager": (
            "My manager at work is called Priya",
            Scope(user_id="u"),
            {"topic": "work", "priority": 2, "project": "atlas"},
            ("work",),
            datetime(2025, 1, 10, 8, tzinfo=UTC),
        ),
        "tea": (
            "I drink green tea every afternoon",
            Scope(user_id="u", agent_id="coach"),
            {},
            (),
            datetime(2025, 8, 20, 16, tzinfo=UTC),
        ),
        "other": (
            "I enjoy hiking in the Andes every winter",
            Scope(user_id="v"),
            {"topic": "travel", "priority": 1},
            ("hobbies", "travel"),
            datetime(2024, 1, 5, tzinfo=UTC),
        ),
    }
    ids: dict[str, str] = {}
    for key, (text, scope, metadata, categories, stamp) in rows.items():
        (result,) = container.memory_service.add(
            AddCommand(
                messages=[Message("user", text)],
                scope=scope,
                metadata=metadata,
                infer=False,
                custom_categories=tuple((name, text) for name in categories),  # each one shares the text's words
                timestamp=stamp,
            )
        )
        ids[key] = result.record.id
    yield ids


def found(client: TestClient, catalog: dict[str, str], filters: dict[str, Any]) -> set[str]:
    """Which catalog keys a broad search returns under the given filters."""
    by_id = {v: k for k, v in catalog.items()}
    results = search(client, "things I like", filters=filters, threshold=0.0, top_k=100)
    return {by_id[r["id"]] for r in results}


ALL_U = {"hiking", "vegetarian", "manager", "tea"}


@pytest.mark.parametrize(
    ("filters", "expected"),
    [
        ({"user_id": "u"}, ALL_U),
        ({"user_id": "v"}, {"other"}),
        ({"user_id": "u", "agent_id": "coach"}, {"tea"}),
        ({"agent_id": "coach"}, {"tea"}),
        # metadata: equality, dotted form, operators
        ({"user_id": "u", "metadata": {"topic": "food"}}, {"vegetarian"}),
        ({"user_id": "u", "metadata.topic": "work"}, {"manager"}),
        ({"user_id": "u", "metadata": {"topic": ["food", "work"]}}, {"vegetarian", "manager"}),
        ({"user_id": "u", "metadata": {"topic": {"in": ["food", "work"]}}}, {"vegetarian", "manager"}),
        ({"user_id": "u", "metadata": {"topic": {"nin": ["food", "work"]}}}, {"hiking", "tea"}),
        ({"user_id": "u", "metadata": {"topic": {"ne": "travel"}}}, {"vegetarian", "manager", "tea"}),
        ({"user_id": "u", "metadata": {"priority": {"gte": 2}}}, {"vegetarian", "manager"}),
        ({"user_id": "u", "metadata": {"priority": {"gt": 1, "lt": 3}}}, {"manager"}),
        ({"user_id": "u", "metadata": {"priority": {"lte": 1}}}, {"hiking"}),
        ({"user_id": "u", "metadata": {"priority": 3}}, {"vegetarian"}),
        ({"user_id": "u", "metadata": {"project": "*"}}, {"manager"}),
        ({"user_id": "u", "metadata": {"topic": {"contains": "av"}}}, {"hiking"}),
        ({"user_id": "u", "metadata": {"project": {"icontains": "ATL"}}}, {"manager"}),
        ({"user_id": "u", "metadata": {"tags": "health"}}, {"vegetarian"}),
        ({"user_id": "u", "metadata": {"tags": {"nin": ["diet"]}}}, {"hiking", "manager", "tea"}),
        # categories
        ({"user_id": "u", "categories": "travel"}, {"hiking"}),
        ({"user_id": "u", "categories": "*"}, {"hiking", "vegetarian", "manager"}),
        ({"user_id": "u", "categories": ["health", "work"]}, {"vegetarian", "manager"}),
        ({"user_id": "u", "categories": {"in": ["health", "work"]}}, {"vegetarian", "manager"}),
        ({"user_id": "u", "categories": {"nin": ["food"]}}, {"hiking", "manager", "tea"}),
        ({"user_id": "u", "categories": {"ne": "travel"}}, {"vegetarian", "manager", "tea"}),
        ({"user_id": "u", "categories": {"icontains": "HOBB"}}, {"hiking"}),
        # created_at
        ({"user_id": "u", "created_at": {"gte": "2024-01-01"}}, {"vegetarian", "manager", "tea"}),
        ({"user_id": "u", "created_at": {"lt": "2024-01-01"}}, {"hiking"}),
        ({"user_id": "u", "created_at": {"gte": "2024-01-01", "lt": "2025-06-01"}}, {"vegetarian", "manager"}),
        ({"user_id": "u", "created_at": {"gt": "2024-06-15T09:00:00Z"}}, {"manager", "tea"}),
        ({"user_id": "u", "created_at": {"gte": "2024-06-15T09:00:00+00:00"}}, {"vegetarian", "manager", "tea"}),
        ({"user_id": "u", "created_at": {"lt": 1704067200}}, {"hiking"}),  # Unix seconds for 2024-01-01
        ({"user_id": "u", "created_at": {"lte": "2024-06-15T11:00:00+02:00"}}, {"hiking", "vegetarian"}),
        # text
        ({"user_id": "u", "memory": {"contains": "Priya"}}, {"manager"}),
        ({"user_id": "u", "memory": {"icontains": "GREEN TEA"}}, {"tea"}),
        ({"user_id": "u", "text": {"contains": "Alps"}}, {"hiking"}),
        # logic
        ({"AND": [{"user_id": "u"}, {"metadata": {"topic": "travel"}}]}, {"hiking"}),
        ({"user_id": "u", "OR": [{"metadata": {"topic": "food"}}, {"agent_id": "coach"}]}, {"vegetarian", "tea"}),
        ({"user_id": "u", "NOT": [{"metadata": {"topic": "food"}}]}, {"hiking", "manager", "tea"}),
        ({"user_id": "u", "NOT": {"categories": "*"}}, {"tea"}),
        (
            {"user_id": "u", "NOT": [{"metadata": {"topic": "food"}}, {"metadata": {"topic": "work"}}]},
            {"hiking", "tea"},
        ),
        (
            {
                "user_id": "u",
                "OR": [
                    {"AND": [{"categories": "health"}, {"created_at": {"gte": "2024-01-01"}}]},
                    {"NOT": {"created_at": {"gte": "2024-01-01"}}},
                ],
            },
            {"vegetarian", "hiking"},
        ),
        ({"user_id": "u", "OR": [{"user_id": "v"}]}, set()),
        # several users at once
        ({"user_id": {"in": ["u", "v"]}, "metadata": {"topic": "travel"}}, {"hiking", "other"}),
        ({"user_id": ["u", "v"], "categories": "travel"}, {"hiking", "other"}),
        ({"user_id": "*", "metadata": {"topic": "travel"}}, {"hiking", "other"}),
        ({"OR": [{"user_id": "u"}, {"user_id": "v"}], "metadata": {"priority": 1}}, {"hiking", "other"}),
        ({"user_id": {"in": []}}, set()),
    ],
)
def test_the_filter_grammar_over_http(
    client: TestClient, catalog: dict[str, str], filters: dict[str, Any], expected: set[str]
) -> None:
    assert found(client, catalog, filters) == expected


def test_filter_by_memory_id(client: TestClient, catalog: dict[str, str]) -> None:
    assert found(client, catalog, {"user_id": "u", "id": catalog["manager"]}) == {"manager"}
    assert found(client, catalog, {"user_id": "u", "memory_id": catalog["tea"]}) == {"tea"}
    assert found(client, catalog, {"user_id": "u", "memory_ids": [catalog["tea"], catalog["hiking"]]}) == {
        "tea",
        "hiking",
    }
    assert found(client, catalog, {"user_id": "u", "id": catalog["other"]}) == set()


@pytest.mark.parametrize(
    ("filters", "named"),
    [
        ({"user_id": "u", "colour": "red"}, ["'colour'"]),
        ({"user_id": "u", "OR": [{"bogus_field": 1}]}, ["'bogus_field'", "filters.OR[0]"]),
        ({"user_id": "u", "topic": "food"}, ["'topic'", "metadata"]),
        ({"user_id": {"regex": "u.*"}}, ["'regex'", "filters.user_id"]),
        ({"user_id": "u", "metadata": {"topic": {"like": "fo%"}}}, ["'like'", "filters.metadata.topic"]),
        ({"user_id": "u", "created_at": {"after": "2024-01-01"}}, ["'after'"]),
        ({"user_id": "u", "NOT": [{"created_at": {"$gte": "2024-01-01"}}]}, ["'$gte'"]),
        ({"user_id": "u", "created_at": {"contains": "2024"}}, ["'contains'", "'created_at'"]),
        ({"user_id": "u", "categories": {"gt": "a"}}, ["'gt'", "'categories'"]),
        ({"user_id": "u", "memory": {"in": ["x"]}}, ["'in'", "'memory'"]),
    ],
)
def test_unknown_filter_fields_and_operators_are_400_naming_them(
    client: TestClient, catalog: dict[str, str], filters: dict[str, Any], named: list[str]
) -> None:
    detail = search_error(client, {"query": "things", "filters": filters})
    assert isinstance(detail, str)
    for name in named:
        assert name in detail, (name, detail)


@pytest.mark.parametrize(
    ("filters", "mentions"),
    [
        ({"user_id": "u", "created_at": {"gte": "last tuesday"}}, "filters.created_at"),
        ({"user_id": "u", "created_at": {"gte": True}}, "filters.created_at"),
        ({"user_id": "u", "created_at": {"gte": {"year": 2024}}}, "filters.created_at"),
        ({"user_id": "u", "expiration_date": {"lt": "2024-02-30"}}, "filters.expiration_date"),
        ({"user_id": "u", "metadata": {"topic": {"in": "food"}}}, "needs a list"),
        ({"user_id": "u", "categories": {"nin": "food"}}, "needs a list"),
        ({"user_id": "u", "metadata": {"topic": {"eq": ["a", "b"]}}}, "single value"),
        ({"user_id": "u", "metadata": {"topic": {"contains": 5}}}, "needs a string"),
        ({"user_id": "u", "metadata": {"topic": {}}}, "empty operator"),
        ({"user_id": "u", "metadata": "food"}, "filters.metadata"),
        ({"user_id": "u", "metadata": {"": 1}}, "needs a key"),
        ({"user_id": "u", "OR": []}, "filters.OR"),
        ({"user_id": "u", "AND": {"user_id": "u"}}, "filters.AND"),
        ({"user_id": "u", "OR": ["user_id"]}, "filters.OR"),
        ({"user_id": "u", "NOT": 5}, "filters.NOT"),
        ({"user_id": None}, "filters.user_id"),
        ({"user_id": {"eq": {"nested": 1}}}, "filters.user_id"),
    ],
)
def test_malformed_filter_values_are_400_not_500(
    client: TestClient, catalog: dict[str, str], filters: dict[str, Any], mentions: str
) -> None:
    detail = search_error(client, {"query": "things", "filters": filters})
    assert mentions in detail, detail


@pytest.mark.parametrize("seconds", [1e20, -1e20, 99999999999999])
def test_out_of_range_unix_seconds_in_a_filter_are_400(client: TestClient, seconds: float) -> None:
    detail = search_error(client, {"query": "things", "filters": {"user_id": "u", "created_at": {"gte": seconds}}})
    assert "created_at" in detail, detail


# ---- expiry and scoping -----------------------------------------------------------------------------------


def test_expired_memories_are_hidden_unless_show_expired(client: TestClient) -> None:
    today = datetime.now(UTC).date()
    expired, due_today, later, forever = add_verbatim(
        client,
        "The parking permit for lot C is valid",
        "The parking permit for lot D is valid",
        "The parking permit for lot E is valid",
        "The parking permit for lot F is valid",
        user_id="alice",
    )
    for memory_id, day in ((expired, today - timedelta(days=1)), (due_today, today), (later, today + timedelta(1))):
        response = client.put(f"/memories/{memory_id}", json={"expiration_date": day.isoformat()})
        assert response.status_code == 200, response.text

    visible = {r["id"] for r in search(client, "parking permit", threshold=0.0)}
    assert visible == {due_today, later, forever}
    assert {r["id"] for r in search(client, "parking permit lot C", threshold=0.0, show_expired=False)} == visible

    shown = {r["id"]: r for r in search(client, "parking permit", threshold=0.0, show_expired=True)}
    assert set(shown) == {expired, due_today, later, forever}
    assert shown[expired]["expiration_date"] == (today - timedelta(days=1)).isoformat()

    # clearing the date brings it back
    assert client.put(f"/memories/{expired}", json={"expiration_date": None}).status_code == 200
    assert expired in {r["id"] for r in search(client, "parking permit", threshold=0.0)}


def test_one_user_never_sees_another_users_memories(client: TestClient) -> None:
    (secret,) = add_verbatim(client, "My bank PIN hint is Vermillion Otter", user_id="bob")
    mine = add_verbatim(client, "I like otters", "My favourite colour is vermillion", user_id="alice")

    for query in ("My bank PIN hint is Vermillion Otter", "Vermillion Otter", "bank PIN"):
        for filters in (
            {"user_id": "alice"},
            {"user_id": "alice", "OR": [{"user_id": "bob"}]},
            {"AND": [{"user_id": "alice"}, {"memory": {"contains": "PIN"}}]},
        ):
            results = search(client, query, filters=filters, threshold=0.0, top_k=1000, show_expired=True)
            assert secret not in {r["id"] for r in results}
            assert all(r["user_id"] == "alice" for r in results)
        assert set(mine) >= {r["id"] for r in search(client, query, threshold=0.0)}
        assert [r["id"] for r in search(client, query, filters={"user_id": "bob"})] == [secret]

    assert search(client, "Vermillion Otter", filters={"user_id": "carol"}, threshold=0.0) == []
    listing = client.get("/memories", params={"user_id": "alice"}).json()["results"]
    assert secret not in {m["id"] for m in listing}


# ---- rerank -----------------------------------------------------------------------------------------------


def test_rerank_re_scores_the_candidates_and_explains_it(client: TestClient, facts: dict[str, str]) -> None:
    results = search(client, "Which animal companion does this person own?", rerank=True, explain=True, threshold=0.0)
    assert results[0]["id"] == facts[FACTS[0]], [r["memory"] for r in results]
    assert len(results) == len(facts)
    for result in results:
        details = result["score_details"]
        assert 0.0 < details["rerank_score"] < 1.0
        assert details["final_score"] == pytest.approx(result["score"], abs=1e-6)
        assert 0.0 <= details["hybrid_score"] <= 1.0
    scores = [r["score"] for r in results]
    assert scores == sorted(scores, reverse=True)
    plain = search(client, "Which animal companion does this person own?", explain=True)
    assert "rerank_score" not in plain[0]["score_details"]


def test_reference_date_is_the_platform_s_and_refused_here(client: TestClient, facts: dict[str, str]) -> None:
    body = {"query": "what did I do last May?", "filters": {"user_id": "alice"}, "reference_date": "2025-07-01"}
    response = client.post("/search", json=body)
    assert response.status_code == 400, response.text
    assert "reference_date" in response.text
