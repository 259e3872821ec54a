"""The MemoryNamespaces contract: each namespace's memory engine sees only its own memories, whatever ids or
filters it is given; dropping a namespace deletes its memories for good; a reopened namespace keeps them.

To add an adapter (e.g. DynamoDB + OpenSearch keyed by namespace), register a factory in ADAPTERS."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path

import pytest
from moto import mock_aws

from mnemo.adapters.aws.namespaces import AwsMemoryNamespaces
from mnemo.adapters.dynamodb.schema import create_memory_table
from mnemo.adapters.sqlite.database import Database
from mnemo.adapters.sqlite.memory_index import LocalMemoryIndex
from mnemo.adapters.sqlite.namespaces import SqliteMemoryNamespaces
from mnemo.domain import filters as f
from mnemo.domain.memory import Scope
from mnemo.errors import NotFoundError
from mnemo.ports.embedder import Embedder
from mnemo.ports.memory_index import MemoryIndex
from mnemo.ports.memory_namespaces import MemoryNamespaces
from mnemo.services.commands import AddCommand, Message, SearchCommand, UpdateCommand
from mnemo.services.providers import ActiveProviders, ProviderSet
from tests.support import moto_aws


@contextmanager
def sqlite_namespaces(root: Path, embedder: Embedder) -> Iterator[MemoryNamespaces]:
    providers = ActiveProviders(ProviderSet(embedder=embedder, llm=None, custom_instructions=None))
    built = SqliteMemoryNamespaces(root, providers)
    try:
        yield built
    finally:
        built.close()


# The test's "OpenSearch": one in-process index per namespace, outliving a reopen (closed when the test ends).
_SEARCH_INDEXES: dict[tuple[Path, str], tuple[Database, LocalMemoryIndex]] = {}


@contextmanager
def aws_namespaces(root: Path, embedder: Embedder) -> Iterator[MemoryNamespaces]:
    """DynamoDB under moto (the `make` fixture keeps one mock for the whole test, so a reopen sees the table),
    pages of 2 items; one in-process index per namespace standing in for its OpenSearch index."""
    providers = ActiveProviders(ProviderSet(embedder=embedder, llm=None, custom_instructions=None))
    client = moto_aws.client("dynamodb")
    create_memory_table(client, "memories")
    root.mkdir(parents=True, exist_ok=True)

    def index_for(namespace: str) -> MemoryIndex:
        if (root, namespace) not in _SEARCH_INDEXES:
            database = Database(root / f"{namespace}.index")
            _SEARCH_INDEXES[root, namespace] = (database, LocalMemoryIndex(database, embedder.dimension))
        return _SEARCH_INDEXES[root, namespace][1]

    built = AwsMemoryNamespaces(client, "memories", index_for, providers, page_size=2)
    try:
        yield built
    finally:
        built.close()


ADAPTERS: dict[str, Callable[[Path, Embedder], AbstractContextManager[MemoryNamespaces]]] = {
    "sqlite": sqlite_namespaces,
    "aws": aws_namespaces,
}


@pytest.fixture(params=sorted(ADAPTERS))
def make(
    request: pytest.FixtureRequest, tmp_path: Path, embedder: Embedder
) -> Iterator[Callable[[], AbstractContextManager[MemoryNamespaces]]]:
    with mock_aws():  # one moto account for the whole test: what one namespaces object writes, the next reads
        yield lambda: ADAPTERS[request.param](tmp_path / "namespaces", embedder)
    for key in [k for k in _SEARCH_INDEXES if k[0] == tmp_path / "namespaces"]:
        _SEARCH_INDEXES.pop(key)[0].close()


def add(namespaces: MemoryNamespaces, namespace: str, text: str, user: str = "alice") -> str:
    (result,) = namespaces.memories(namespace).add(
        AddCommand([Message("user", text)], Scope(user_id=user), infer=False)
    )
    return result.record.id


ALICE = f.Condition("user_id", "eq", "alice")


def test_a_namespace_never_sees_another_namespaces_memories(
    make: Callable[[], AbstractContextManager[MemoryNamespaces]],
) -> None:
    with make() as namespaces:
        secret = add(namespaces, "proj_a", "The vault code is 4711")
        add(namespaces, "proj_b", "I like tea")
        other = namespaces.memories("proj_b")
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
        assert namespaces.memories("proj_a").get(secret).text == "The vault code is 4711"


def test_dropping_a_namespace_deletes_it_and_reopening_keeps_the_others(
    make: Callable[[], AbstractContextManager[MemoryNamespaces]],
) -> None:
    with make() as namespaces:
        gone = add(namespaces, "proj_gone", "I will be deleted")
        kept = add(namespaces, "proj_kept", "I stay")
        namespaces.drop("proj_gone")
        with pytest.raises(NotFoundError):
            namespaces.memories("proj_gone").get(gone)
        assert namespaces.memories("proj_gone").get_all(ALICE) == []
    with make() as reopened:
        assert reopened.memories("proj_kept").get(kept).text == "I stay"
        hits = reopened.memories("proj_kept").search(SearchCommand("stay", ALICE))
        assert [r.record.id for r in hits] == [kept]  # the index is rebuilt from the records
        assert reopened.memories("proj_gone").get_all(ALICE) == []


def test_reembedding_reaches_every_stored_namespace_even_those_not_opened_yet(
    make: Callable[[], AbstractContextManager[MemoryNamespaces]],
) -> None:
    with make() as namespaces:
        add(namespaces, "proj_a", "I like tea")
        add(namespaces, "proj_b", "I ride a bike")
        add(namespaces, "proj_b", "I live in Porto")
        namespaces.drop("proj_b")
        add(namespaces, "proj_c", "I play chess")
    with make() as reopened:  # a new process: nothing open yet (the embedder changed through /configure)
        assert reopened.reembed_all() == 2
