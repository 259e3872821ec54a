"""The MemoryNamespaces contract: each namespace's storage holds only its own memories, so the MemoryService over
it (NamespaceMemoryServices) sees nothing of another's, whatever ids or filters it is given; dropping a namespace
deletes its memories for good; a reopened namespace keeps them; its storage is one object while it is open.

To add an adapter (e.g. DynamoDB + OpenSearch keyed by namespace), register a factory in ADAPTERS."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from datetime import UTC, datetime
from pathlib import Path

import pytest
from moto import mock_aws

from mnemo.adapters.aws.namespaces import AwsMemoryNamespaces
from mnemo.adapters.sqlite.database import Database
from mnemo.adapters.sqlite.memory_index import LocalMemoryIndex
from mnemo.adapters.sqlite.namespaces import SqliteMemoryNamespaces
from mnemo.domain import filters as f
from mnemo.domain.memory import MemoryRecord, Scope
from mnemo.errors import NotFoundError
from mnemo.language.en import english
from mnemo.ports.embedder import Embedder
from mnemo.ports.memory_index import MemoryIndex
from mnemo.ports.memory_namespaces import MemoryNamespaces
from mnemo.services.commands import AddCommand, Message, SearchCommand, UpdateCommand
from mnemo.services.decay import Decay, DecaySettings
from mnemo.services.namespace_memory import NamespaceMemoryServices
from mnemo.services.providers import ActiveProviders, ProviderSet
from tests.support import moto_aws
from tests.support.dynamodb_tables import create_memory_table


@contextmanager
def sqlite_namespaces(root: Path) -> Iterator[MemoryNamespaces]:
    built = SqliteMemoryNamespaces(root, facets=english())
    try:
        yield built
    finally:
        built.close()


# The test's "OpenSearch": one in-process index per namespace, outliving a reopen (closed when the test ends).
_SEARCH_INDEXES: dict[tuple[Path, str], tuple[Database, LocalMemoryIndex]] = {}


@contextmanager
def aws_namespaces(root: Path) -> Iterator[MemoryNamespaces]:
    """DynamoDB under moto (the `make` fixture keeps one mock for the whole test, so a reopen sees the table),
    pages of 2 items; one in-process index per namespace standing in for its OpenSearch index."""
    client = moto_aws.client("dynamodb")
    create_memory_table(client, "memories")
    root.mkdir(parents=True, exist_ok=True)

    def index_for(namespace: str) -> MemoryIndex:
        if (root, namespace) not in _SEARCH_INDEXES:
            database = Database(root / f"{namespace}.index")
            _SEARCH_INDEXES[root, namespace] = (database, LocalMemoryIndex(database, DIMENSION, facets=english()))
        return _SEARCH_INDEXES[root, namespace][1]

    built = AwsMemoryNamespaces(client, "memories", index_for, page_size=2)
    try:
        yield built
    finally:
        built.close()


DIMENSION = 384
ADAPTERS: dict[str, Callable[[Path], AbstractContextManager[MemoryNamespaces]]] = {
    "sqlite": sqlite_namespaces,
    "aws": aws_namespaces,
}


Storage = Callable[[], AbstractContextManager[MemoryNamespaces]]
Opened = Callable[[], AbstractContextManager[NamespaceMemoryServices]]


@pytest.fixture(params=sorted(ADAPTERS))
def storage(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Storage]:
    """Opens the adapter, as a new process would."""
    with mock_aws():  # one moto account for the whole test: what one namespaces object writes, the next reads
        yield lambda: ADAPTERS[request.param](tmp_path / "namespaces")
    for key in [k for k in _SEARCH_INDEXES if k[0] == tmp_path / "namespaces"]:
        _SEARCH_INDEXES.pop(key)[0].close()


@pytest.fixture
def make(storage: Storage, embedder: Embedder) -> Opened:
    """Opens the adapter with a MemoryService over each namespace."""
    providers = ActiveProviders(ProviderSet(embedder=embedder))

    @contextmanager
    def opened() -> Iterator[NamespaceMemoryServices]:
        with storage() as namespaces:
            yield NamespaceMemoryServices(namespaces, providers, language=english())

    return opened


def add(namespaces: NamespaceMemoryServices, namespace: str, text: str, user: str = "alice") -> str:
    (result,) = namespaces.memory_service(namespace).add(
        AddCommand([Message("user", text)], Scope(user_id=user), infer=False)
    )
    return result.record.id


ALICE = f.Condition("user_id", "eq", "alice")


def test_a_namespace_never_sees_another_namespaces_memories(
    make: Opened,
) -> None:
    with make() as namespaces:
        secret = add(namespaces, "proj_a", "The vault code is 4711")
        add(namespaces, "proj_b", "I like tea")
        other = namespaces.memory_service("proj_b")
        with pytest.raises(NotFoundError):
            other.get(secret)
        with pytest.raises(NotFoundError):
            other.update(UpdateCommand(secret, text="stolen"))
        with pytest.raises(NotFoundError):
            other.delete(secret)
        assert other.store.history(secret) == []
        assert [r.text for r in other.get_all(ALICE)] == ["I like tea"]
        found = other.search(SearchCommand("vault code", ALICE, threshold=0.0))
        assert [r.record.text for r in found] == ["I like tea"]
        assert [(e.id, e.total_memories) for e in other.store.count_by_entity()] == [("alice", 1)]
        other.delete_all(ALICE)
        assert namespaces.memory_service("proj_a").get(secret).text == "The vault code is 4711"


def test_dropping_a_namespace_deletes_it_and_reopening_keeps_the_others(
    make: Opened,
) -> None:
    with make() as namespaces:
        gone = add(namespaces, "proj_gone", "I will be deleted")
        kept = add(namespaces, "proj_kept", "I stay")
        namespaces.drop("proj_gone")
        with pytest.raises(NotFoundError):
            namespaces.memory_service("proj_gone").get(gone)
        assert namespaces.memory_service("proj_gone").get_all(ALICE) == []
    with make() as reopened:
        assert reopened.memory_service("proj_kept").get(kept).text == "I stay"
        hits = reopened.memory_service("proj_kept").search(SearchCommand("stay", ALICE))
        assert [r.record.id for r in hits] == [kept]  # the index is rebuilt from the records
        assert reopened.memory_service("proj_gone").get_all(ALICE) == []


def test_reembedding_reaches_every_stored_namespace_even_those_not_opened_yet(
    make: Opened,
) -> None:
    with make() as namespaces:
        add(namespaces, "proj_a", "I like tea")
        add(namespaces, "proj_b", "I ride a bike")
        add(namespaces, "proj_b", "I live in Porto")
        namespaces.drop("proj_b")
        add(namespaces, "proj_c", "I play chess")
    with make() as reopened:  # a new process: nothing open yet (the embedder changed through /configure)
        assert reopened.reembed_all() == 2


def test_a_namespace_is_one_storage_while_open_and_is_listed_while_it_holds_records(
    storage: Storage, embedder: Embedder
) -> None:
    with storage() as namespaces:
        first = namespaces.open("proj_a")
        assert namespaces.open("proj_a") is first
        assert namespaces.open("proj_b") is not first
        (record,) = (MemoryRecord.create("I like tea", Scope(user_id="alice")),)
        first.store.insert([record], embedder.embed([record.text]), [])
        assert "proj_a" in namespaces.stored_namespaces()
        namespaces.drop("proj_a")
        assert "proj_a" not in namespaces.stored_namespaces()
        assert namespaces.open("proj_a").store.get(record.id) is None


def test_a_namespaces_retrievals_are_its_own_outlive_a_reopen_and_go_with_the_memory_and_the_namespace(
    make: Opened,
) -> None:
    decayed = Decay(DecaySettings(), datetime(2026, 1, 5, 10, 0, tzinfo=UTC))
    with make() as namespaces:
        tea = add(namespaces, "proj_a", "I like tea")
        other_tea = add(namespaces, "proj_b", "I like tea")
        gone = add(namespaces, "proj_gone", "I like tea too")
        for namespace in ("proj_a", "proj_gone"):
            namespaces.memory_service(namespace).search(SearchCommand("tea", ALICE, threshold=0.0, decay=decayed))
        assert namespaces.access_buffer.flush() == 2  # written off the search's path, here at once
        other = namespaces.memory_service("proj_b").accesses
        assert other is not None and other.recent([tea, other_tea]) == {}
        namespaces.drop("proj_gone")
    with make() as reopened:
        service = reopened.memory_service("proj_a")
        assert service.accesses is not None and service.accesses.recent([tea]) == {tea: [decayed.at]}
        service.delete(tea)
        assert service.accesses.recent([tea]) == {}
        dropped = reopened.memory_service("proj_gone").accesses
        assert dropped is not None and dropped.recent([gone]) == {}
