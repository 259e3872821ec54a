"""The MemoryIndex contract: every adapter of the port must pass this one suite.

To add an adapter, write a context manager that builds it empty (dimension 384) and register it in ADAPTERS.
Vectors come from the real all-MiniLM-L6-v2 model, so "semantic" means what it says.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from mnemo.adapters.embedders.local_minilm import LocalMiniLMEmbedder
from mnemo.adapters.opensearch.memory_index import OpenSearchMemoryIndex
from mnemo.adapters.opensearch.transport import AwsSigV4, HttpTransport
from mnemo.adapters.sqlite.database import Database
from mnemo.adapters.sqlite.memory_index import LocalMemoryIndex
from mnemo.domain.filters import parse
from mnemo.domain.memory import MemoryRecord, Scope
from mnemo.language.en import english
from mnemo.ports.embedder import Vectors
from mnemo.ports.memory_index import IndexHit, MemoryIndex

DIMENSION = 384
T0 = datetime(2024, 1, 10, 8, 0, 0, 250000, tzinfo=UTC)


@contextmanager
def _local_index(tmp_path: Path) -> Iterator[MemoryIndex]:
    db = Database(tmp_path / "index.sqlite3")
    try:
        yield LocalMemoryIndex(db, DIMENSION, facets=english())
    finally:
        db.close()


@contextmanager
def _opensearch_index(tmp_path: Path) -> Iterator[MemoryIndex]:
    """A live cluster at OPENSEARCH_URL, such as a local OpenSearch 2.9+ container with security off; with
    OPENSEARCH_SERVICE=es and AWS credentials, requests are signed for an Amazon OpenSearch domain. Writes
    refresh at once, so each test reads its own writes. Every test gets a fresh index, deleted afterwards."""
    auth = None
    if os.environ.get("OPENSEARCH_SERVICE"):
        import boto3

        session = boto3.Session()
        auth = AwsSigV4(session.get_credentials(), session.region_name, os.environ["OPENSEARCH_SERVICE"])
    transport = HttpTransport(os.environ["OPENSEARCH_URL"], auth=auth, timeout=30.0)
    index = OpenSearchMemoryIndex(
        transport, f"mnemo-contract-{uuid.uuid4().hex[:12]}", refresh="true", facets=english()
    )
    try:
        yield index
    finally:
        index.clear()
        transport.close()


ADAPTERS: dict[str, Callable[[Path], AbstractContextManager[MemoryIndex]]] = {
    "local": _local_index,
}
# OpenSearch cannot run on the build machines: its run needs a live cluster (its request bodies and response
# parsing are checked without one, always, in tests/unit/test_opensearch_index.py).
if os.environ.get("OPENSEARCH_URL"):
    ADAPTERS["opensearch"] = _opensearch_index


@pytest.fixture(params=list(ADAPTERS))
def index(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[MemoryIndex]:
    with ADAPTERS[request.param](tmp_path) as built:
        yield built


_EMBEDDINGS: dict[str, Vectors] = {}


def embed(embedder: LocalMiniLMEmbedder, text: str) -> Vectors:
    """One text's embedding as a (1, 384) matrix; the model is deterministic, so embeddings are cached."""
    if text not in _EMBEDDINGS:
        _EMBEDDINGS[text] = embedder.embed([text])
    return _EMBEDDINGS[text]


class Corpus:
    """Records upserted into the index, addressable by a short name."""

    def __init__(self, index: MemoryIndex, embedder: LocalMiniLMEmbedder) -> None:
        self.index = index
        self.embedder = embedder
        self.records: dict[str, MemoryRecord] = {}
        self.vectors: dict[str, Vectors] = {}

    def add(self, name: str, text: str, user: str | None = "alice", **fields: Any) -> MemoryRecord:
        scope = Scope(user_id=user, agent_id=fields.pop("agent", None))
        rec = MemoryRecord.create(text, scope, at=fields.pop("at", T0), **fields)
        vecs = embed(self.embedder, text)
        self.index.upsert([rec], vecs)
        self.records[name] = rec
        self.vectors[name] = vecs[0]
        return rec

    def search(self, query: str, raw_filter: dict[str, Any] | None = None, limit: int = 10) -> list[IndexHit]:
        return self.index.search(embed(self.embedder, query)[0], query, parse(raw_filter), limit)

    def names(self, hits: list[IndexHit]) -> list[str]:
        by_id = {r.id: name for name, r in self.records.items()}
        return [by_id[h.memory_id] for h in hits]


@pytest.fixture
def corpus(index: MemoryIndex, embedder: LocalMiniLMEmbedder) -> Corpus:
    return Corpus(index, embedder)


def add_everyday_facts(corpus: Corpus) -> None:
    corpus.add("pizza", "I love eating vegetable pizza on Friday nights.")
    corpus.add("sister", "My sister lives in Lisbon and works as a nurse.")
    corpus.add("wifi", "The wifi password at the cabin is marmalade.")
    corpus.add("peanuts", "I am allergic to peanuts.")
    corpus.add("jazz", "My favourite band plays jazz every weekend.")


# ---- semantic and keyword search -----------------------------------------------------------------------


def test_given_memories_when_searching_a_paraphrase_then_the_matching_memory_ranks_first(corpus: Corpus):
    add_everyday_facts(corpus)

    hits = corpus.search("What food do I enjoy?", {"user_id": "alice"})

    assert corpus.names(hits)[0] == "pizza"
    assert hits[0].semantic > hits[1].semantic
    # No query word occurs in any memory: the ranking is purely semantic.
    assert all(h.keyword == 0 for h in hits)
    assert [h.semantic for h in hits] == sorted((h.semantic for h in hits), reverse=True)


def test_given_memories_when_searching_then_semantic_is_the_cosine_of_the_embeddings(corpus: Corpus):
    add_everyday_facts(corpus)
    query = "Where does my sister live?"
    vector = embed(corpus.embedder, query)[0]

    hits = corpus.search(query, {"user_id": "alice"})

    assert len(hits) == 5
    for name, hit in zip(corpus.names(hits), hits, strict=True):
        assert -1.0 <= hit.semantic <= 1.0
        assert hit.semantic == pytest.approx(float(corpus.vectors[name] @ vector), abs=1e-5)


def test_given_a_rare_word_when_semantic_prefers_another_memory_then_the_keyword_side_still_finds_it(
    corpus: Corpus,
):
    add_everyday_facts(corpus)
    query = "Cheesy supper meal marmalade"

    hits = corpus.search(query, {"user_id": "alice"}, limit=1)

    named = dict(zip(corpus.names(hits), hits, strict=True))
    # The best semantic match is the pizza; "marmalade" is only in the wifi memory.
    assert corpus.names(hits)[0] == "pizza"
    assert named["pizza"].keyword == 0
    assert set(named) == {"pizza", "wifi"}
    assert named["wifi"].keyword > 0
    vector = embed(corpus.embedder, query)[0]
    assert named["wifi"].semantic == pytest.approx(float(corpus.vectors["wifi"] @ vector), abs=1e-5)
    assert named["wifi"].semantic < named["pizza"].semantic


def test_given_a_keyword_in_one_memory_when_searching_it_then_only_that_memory_has_a_keyword_score(corpus: Corpus):
    add_everyday_facts(corpus)

    hits = corpus.search("peanuts", {"user_id": "alice"})

    keyword_hits = [name for name, h in zip(corpus.names(hits), hits, strict=True) if h.keyword > 0]
    assert keyword_hits == ["peanuts"]


def test_given_a_query_full_of_search_syntax_when_searching_then_it_is_treated_as_plain_words(corpus: Corpus):
    add_everyday_facts(corpus)
    query = 'wifi "password" AND (cabin) OR NEAR/3 * ^col: -minus {x} marmalade\''

    hits = corpus.search(query, {"user_id": "alice"})

    assert len(hits) == 5
    assert [name for name, h in zip(corpus.names(hits), hits, strict=True) if h.keyword > 0] == ["wifi"]


# ---- filters -------------------------------------------------------------------------------------------


def test_given_two_users_when_searching_one_user_then_the_other_users_memories_never_appear(corpus: Corpus):
    corpus.add("alice-pizza", "I love eating vegetable pizza.", user="alice")
    corpus.add("alice-cat", "My cat is called Tom.", user="alice")
    corpus.add("bob-pizza", "I love eating vegetable pizza.", user="bob")
    corpus.add("bob-secret", "The vault combination word is marmalade.", user="bob")

    for raw in ({"user_id": "alice"}, {"user_id": {"ne": "bob"}}, {"NOT": {"user_id": "bob"}}):
        # Both the semantic side (pizza) and the keyword side (marmalade, pizza) are asked.
        hits = corpus.search("pizza marmalade vault combination", raw)
        assert set(corpus.names(hits)) == {"alice-pizza", "alice-cat"}, raw

    bob_hits = corpus.search("marmalade", {"user_id": "bob"})
    assert set(corpus.names(bob_hits)) == {"bob-pizza", "bob-secret"}
    assert corpus.search("marmalade", {"user_id": "carol"}) == []


def test_given_memories_without_a_user_when_searching_by_agent_then_they_are_found(corpus: Corpus):
    corpus.add("agent", "Deployments happen every Tuesday.", user=None, agent="ops-bot")
    corpus.add("user", "Deployments scare me.", user="alice")

    hits = corpus.search("When are deployments?", {"agent_id": "ops-bot"})

    assert corpus.names(hits) == ["agent"]
    assert hits[0].keyword > 0


@pytest.fixture
def tagged(corpus: Corpus) -> Corpus:
    day = timedelta(days=30)
    corpus.add(
        "hiking",
        "On the weekend I go hiking in the Alps.",
        metadata={"topic": "sport", "priority": 3},
        categories=("hobbies", "travel"),
        at=T0,
    )
    corpus.add(
        "curry",
        "On the weekend I cook Thai curry for friends.",
        metadata={"topic": "food", "priority": 1},
        categories=("food",),
        at=T0 + day,
    )
    corpus.add(
        "novels",
        "On the weekend I read science fiction novels.",
        metadata={"topic": "books", "priority": 2},
        categories=("hobbies",),
        at=T0 + 2 * day,
    )
    corpus.add(
        "porto", "On the weekend I visit my grandmother in Porto.", categories=("family", "travel"), at=T0 + 3 * day
    )
    corpus.add(
        "chess",
        "On the weekend I play chess online.",
        user="bob",
        metadata={"topic": "sport"},
        categories=("hobbies",),
        at=T0 + day,
    )
    return corpus


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ({"user_id": "alice"}, {"hiking", "curry", "novels", "porto"}),
        ({"user_id": "alice", "metadata": {"topic": "sport"}}, {"hiking"}),
        ({"metadata.topic": "sport"}, {"hiking", "chess"}),
        ({"user_id": "alice", "metadata.priority": {"gte": 2}}, {"hiking", "novels"}),
        ({"user_id": "alice", "categories": "travel"}, {"hiking", "porto"}),
        ({"user_id": "alice", "categories": {"in": ["food", "family"]}}, {"curry", "porto"}),
        ({"user_id": "alice", "created_at": {"gte": "2024-02-01", "lt": "2024-04-01"}}, {"curry", "novels"}),
        ({"created_at": {"lt": "2024-02-09T08:00:00.250001Z"}}, {"hiking", "curry", "chess"}),
        ({"OR": [{"metadata": {"topic": "sport"}}, {"categories": "food"}]}, {"hiking", "chess", "curry"}),
        ({"user_id": "alice", "NOT": {"categories": "hobbies"}}, {"curry", "porto"}),
        ({"user_id": "alice", "NOT": [{"categories": "hobbies"}, {"categories": "food"}]}, {"porto"}),
        (
            {"OR": [{"user_id": "bob"}, {"AND": [{"user_id": "alice"}, {"metadata.topic": "books"}]}]},
            {"novels", "chess"},
        ),
    ],
)
def test_given_tagged_memories_when_searching_with_a_filter_then_exactly_the_matching_ones_come_back(
    tagged: Corpus, raw: dict[str, Any], expected: set[str]
):
    # Every memory contains "weekend", so both the semantic and the keyword side see every candidate.
    for query in ("weekend", "What do I do for fun on weekends?"):
        assert set(tagged.names(tagged.search(query, raw))) == expected, (query, raw)


def test_given_a_filter_that_matches_nothing_when_searching_then_no_hits(tagged: Corpus):
    for raw in (
        {"user_id": "nobody"},
        {"user_id": "alice", "categories": "gardening"},
        {"AND": [{"user_id": "alice"}, {"user_id": "bob"}]},
        {"user_id": "alice", "created_at": {"gt": "2030-01-01"}},
    ):
        assert tagged.search("weekend hiking", raw) == [], raw


# ---- writes --------------------------------------------------------------------------------------------


def test_given_a_memory_when_removed_then_search_no_longer_returns_it(corpus: Corpus):
    add_everyday_facts(corpus)

    corpus.index.remove([corpus.records["wifi"].id])

    hits = corpus.search("wifi password marmalade", {"user_id": "alice"})
    assert "wifi" not in corpus.names(hits)
    assert all(h.keyword == 0 for h in hits)
    assert corpus.index.count() == 4
    corpus.index.remove(["not-indexed"])  # removing an unknown id is a no-op
    assert corpus.index.count() == 4


def test_given_an_indexed_memory_when_upserted_with_new_text_then_the_old_text_no_longer_matches(corpus: Corpus):
    add_everyday_facts(corpus)
    old = corpus.records["wifi"]
    new = old.with_text("The wifi password at the cabin is blueberry.")

    corpus.index.upsert([new], embed(corpus.embedder, new.text))

    assert corpus.index.count() == 5
    old_hits = corpus.search("marmalade", {"user_id": "alice"})
    assert all(h.keyword == 0 for h in old_hits)
    new_hits = corpus.search("blueberry", {"user_id": "alice"})
    assert [corpus.names([h])[0] for h in new_hits if h.keyword > 0] == ["wifi"]
    # The semantic side uses the new vector, and the memory is not duplicated.
    semantic = corpus.search("What is the cabin's internet passcode?", {"user_id": "alice"})
    assert corpus.names(semantic).count("wifi") == 1
    assert corpus.names(semantic)[0] == "wifi"


def test_given_an_indexed_memory_when_upserted_with_another_user_then_it_moves_to_that_user(corpus: Corpus):
    add_everyday_facts(corpus)
    moved = replace(corpus.records["peanuts"], scope=Scope(user_id="bob"))

    corpus.index.upsert([moved], corpus.vectors["peanuts"][None, :])

    assert "peanuts" not in corpus.names(corpus.search("allergic to peanuts", {"user_id": "alice"}))
    assert corpus.names(corpus.search("allergic to peanuts", {"user_id": "bob"})) == ["peanuts"]
    assert corpus.index.count() == 5


def test_given_an_index_when_counted_then_it_counts_distinct_memories(corpus: Corpus):
    assert corpus.index.count() == 0
    add_everyday_facts(corpus)
    assert corpus.index.count() == 5

    corpus.index.upsert([corpus.records["pizza"]], corpus.vectors["pizza"][None, :])
    corpus.index.upsert([], np.zeros((0, DIMENSION), dtype=np.float32))

    assert corpus.index.count() == 5


def test_given_an_index_when_cleared_then_it_is_empty_and_usable(corpus: Corpus):
    add_everyday_facts(corpus)

    corpus.index.clear()

    assert corpus.index.count() == 0
    assert corpus.search("pizza marmalade", {"user_id": "alice"}) == []
    assert corpus.search("pizza marmalade") == []
    corpus.add("again", "I now prefer sushi.")
    assert corpus.names(corpus.search("sushi", {"user_id": "alice"})) == ["again"]


def test_given_many_memories_when_searching_with_a_limit_then_each_side_returns_at_most_limit(corpus: Corpus):
    for i, fruit in enumerate(["apples", "pears", "plums", "cherries", "grapes", "melons", "lemons", "figs"]):
        corpus.add(f"fruit-{i}", f"I bought fresh {fruit} at the market today.")
    corpus.add("car", "My car is a green hatchback.")

    # No content words: only the semantic side contributes, so exactly `limit` hits.
    assert len(corpus.search("what did I", {"user_id": "alice"}, limit=3)) == 3
    hits = corpus.search("market hatchback", {"user_id": "alice"}, limit=3)
    assert len([h for h in hits if h.keyword > 0]) <= 3
    assert len([h for h in hits if h.keyword == 0]) <= 3
    assert len(hits) <= 6
    assert "car" in corpus.names(hits)
    assert corpus.search("market", {"user_id": "alice"}, limit=0) == []


def test_given_many_memories_when_some_are_removed_then_every_remaining_one_is_still_found_exactly(
    index: MemoryIndex,
):
    # Random unit vectors: each memory is its own nearest neighbour with cosine 1.
    rng = np.random.default_rng(7)
    raw = rng.standard_normal((40, DIMENSION)).astype(np.float32)
    vecs = (raw / np.linalg.norm(raw, axis=1, keepdims=True)).astype(np.float32)
    records = [MemoryRecord.create(f"memory number {i}", Scope(user_id="alice"), at=T0) for i in range(40)]
    index.upsert(records, vecs)
    removed = {i for i in range(40) if i % 3 == 0}

    index.remove([records[i].id for i in sorted(removed)])

    assert index.count() == 40 - len(removed)
    expr = parse({"user_id": "alice"})
    for i, rec in enumerate(records):
        hits = index.search(vecs[i], "", expr, 1)
        if i in removed:
            assert all(h.memory_id != rec.id for h in hits)
        else:
            assert hits[0].memory_id == rec.id
            assert hits[0].semantic == pytest.approx(1.0, abs=1e-5)
