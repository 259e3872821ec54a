"""`mnemo reindex --project` / `--all-projects` (mnemo.composition.platform_reindex and the CLI): each project's
index rebuilt from its own store, with progress; a project that does not exist stops it before any index is
touched."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, cast

import numpy as np
import pytest

from mnemo.composition import platform_reindex
from mnemo.composition.platform_reindex import NamespaceBackends, reindex_projects
from mnemo.domain.memory import MemoryRecord, Scope
from mnemo.entrypoints.cli import main
from mnemo.errors import NotFoundError
from mnemo.ports.embedder import Vectors
from mnemo.ports.memory_namespaces import MemoryNamespaces, NamespaceStorage
from mnemo.ports.memory_store import MemoryStore
from mnemo.settings import Settings

T0 = datetime(2026, 1, 2, tzinfo=UTC)


@dataclass
class Store:
    records: list[MemoryRecord]

    def count(self, _expr: Any) -> int:
        return len(self.records)

    def scan(self, batch_size: int = 1000) -> Iterator[tuple[list[MemoryRecord], Vectors]]:
        for start in range(0, len(self.records), batch_size):
            batch = self.records[start : start + batch_size]
            yield batch, np.ones((len(batch), 4), dtype=np.float32)


@dataclass
class Index:
    documents: list[str] = field(default_factory=lambda: ["stale"])

    def clear(self) -> None:
        self.documents.clear()

    def upsert(self, records: Sequence[MemoryRecord], _vectors: Vectors) -> None:
        self.documents.extend(r.text for r in records)


@dataclass
class Namespaces:
    stored: dict[str, list[str]]  # project -> its memories' texts
    indexes: dict[str, Index] = field(default_factory=dict)
    closed: bool = False

    def open(self, namespace: str) -> NamespaceStorage:
        records = [MemoryRecord.create(t, Scope(user_id="u"), at=T0) for t in self.stored.get(namespace, [])]
        index = self.indexes.setdefault(namespace, Index())
        return NamespaceStorage(cast(MemoryStore, Store(records)), cast(Any, index))

    def stored_namespaces(self) -> list[str]:
        return sorted(self.stored)

    def close(self) -> None:
        self.closed = True


def backends(namespaces: Namespaces, projects: set[str]) -> NamespaceBackends:
    return NamespaceBackends(cast(MemoryNamespaces, namespaces), projects.__contains__, namespaces.close)


def test_the_named_projects_indexes_are_rebuilt_with_progress_and_no_other() -> None:
    # Given two projects with memories, and stale indexes
    namespaces = Namespaces({"p1": ["a", "b", "c"], "p2": ["d"]})
    seen: list[tuple[str, int, int]] = []
    # When p1 is reindexed, two memories a batch
    done = reindex_projects(
        Settings(),
        ["p1"],
        batch_size=2,
        progress=lambda project: lambda n, total: seen.append((project, n, total)),
        opener=lambda _settings: backends(namespaces, {"p1", "p2"}),
    )
    # Then p1's index holds exactly its memories, its progress was told per batch, and p2 was not touched
    assert [(d.project_id, d.memories) for d in done] == [("p1", 3)]
    assert namespaces.indexes["p1"].documents == ["a", "b", "c"]
    assert "p2" not in namespaces.indexes
    assert seen == [("p1", 0, 3), ("p1", 2, 3), ("p1", 3, 3)]
    assert namespaces.closed


def test_all_projects_are_every_namespace_that_holds_memories() -> None:
    namespaces = Namespaces({"p1": ["a"], "p2": ["b", "c"]})
    done = reindex_projects(Settings(), None, opener=lambda _settings: backends(namespaces, set()))
    assert [(d.project_id, d.memories) for d in done] == [("p1", 1), ("p2", 2)]
    assert {p: i.documents for p, i in namespaces.indexes.items()} == {"p1": ["a"], "p2": ["b", "c"]}


def test_a_project_that_does_not_exist_stops_it_before_any_index_is_touched() -> None:
    namespaces = Namespaces({"p1": ["a"]})
    with pytest.raises(NotFoundError, match="No such project: nope"):
        reindex_projects(Settings(), ["p1", "nope"], opener=lambda _settings: backends(namespaces, {"p1"}))
    assert namespaces.indexes == {} and namespaces.closed


def test_the_cli_reindexes_the_projects_it_is_given_and_says_how_many(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    namespaces = Namespaces({"p1": ["a", "b"], "p2": ["c"]})
    monkeypatch.setattr(platform_reindex, "open_namespace_backends", lambda _s: backends(namespaces, {"p1", "p2"}))
    # --project, repeated
    assert main(["reindex", "--project", "p1", "--project", "p2"]) == 0
    out, err = capsys.readouterr()
    assert "p1: 2 memories indexed." in out and "2 project(s) reindexed, 3 memories" in out
    assert "p1 [" in err and "2/2" in err  # a progress bar per project
    # --all-projects
    assert main(["reindex", "--all-projects"]) == 0
    assert "2 project(s) reindexed, 3 memories" in capsys.readouterr().out
    # an unknown project: a clear message, exit 1
    assert main(["reindex", "--project", "nope"]) == 1
    assert "No such project: nope" in capsys.readouterr().err


def test_the_cli_takes_projects_or_all_of_them_not_both(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["reindex", "--project", "p1", "--all-projects"])
    assert exited.value.code == 2
    assert "not allowed with argument" in capsys.readouterr().err
