"""Wiring for `mnemo reindex --project` and `--all-projects`: the platform projects' namespaces (each its record
store and search index) and the tenancy records that say which projects exist, opened without the HTTP container.
Local: the namespaces' SQLite files under the data dir (stop `mnemo serve` first: it keeps each open index's row
map in memory). AWS: each project's items in the DynamoDB memories table and its own OpenSearch index.

Each project's index is rebuilt from its store, the source of truth, as `mnemo reindex` rebuilds the self-hosted
one (services/reindex.py): a project whose index missed writes, or lost its index altogether, is searchable again.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import ExitStack
from dataclasses import dataclass

from mnemo.errors import NotFoundError
from mnemo.ports.memory_namespaces import MemoryNamespaces
from mnemo.services.reindex import Progress, rebuild_index
from mnemo.settings import Settings


@dataclass
class NamespaceBackends:
    """The projects' namespaces, whether a project exists (its tenancy record), and what closes them."""

    namespaces: MemoryNamespaces
    project_exists: Callable[[str], bool]
    close: Callable[[], None]


@dataclass(frozen=True)
class ProjectReindex:
    project_id: str
    memories: int


def open_namespace_backends(settings: Settings) -> NamespaceBackends:
    """The configured backend's namespaces and tenancy records."""
    from mnemo.composition.platform import open_tenancy_store

    stack = ExitStack()
    try:
        tenancy = stack.enter_context(open_tenancy_store(settings))
        namespaces = _aws_namespaces(settings, stack) if settings.backend == "aws" else _local_namespaces(settings)
    except BaseException:
        stack.close()
        raise
    stack.callback(namespaces.close)
    return NamespaceBackends(namespaces, lambda project_id: tenancy.get_project(project_id) is not None, stack.close)


def _aws_namespaces(settings: Settings, stack: ExitStack) -> MemoryNamespaces:
    from mnemo.adapters.aws.namespaces import AwsMemoryNamespaces
    from mnemo.composition.aws_adapters import build_aws_adapters
    from mnemo.composition.aws_session import aws_session

    session = aws_session(settings.aws_region)
    aws = build_aws_adapters(settings, session)
    stack.callback(aws.close)
    if aws.namespace_index is None:  # pragma: no cover - build_aws_adapters always gives it
        raise RuntimeError("The AWS adapters name no project index.")
    return AwsMemoryNamespaces(session.client("dynamodb"), settings.dynamodb_table, aws.namespace_index)


def _local_namespaces(settings: Settings) -> MemoryNamespaces:
    from mnemo.adapters.sqlite.namespaces import SqliteMemoryNamespaces
    from mnemo.composition.shared import index_tuning
    from mnemo.language.en import english

    return SqliteMemoryNamespaces(
        settings.data_dir / "namespaces", outbox=True, tuning=index_tuning(settings), facets=english()
    )


def reindex_projects(
    settings: Settings,
    project_ids: Sequence[str] | None,
    *,
    batch_size: int = 500,
    progress: Callable[[str], Progress | None] = lambda _project_id: None,
    opener: Callable[[Settings], NamespaceBackends] | None = None,
) -> list[ProjectReindex]:
    """Rebuild the search index of each project named (None: of every project whose namespace holds memories),
    in turn; `progress(project_id)` is told that project's progress. A project that does not exist is a
    NotFoundError before any index is touched. `opener`: the backends (default: the configured ones)."""
    backends = (opener or open_namespace_backends)(settings)
    try:
        if project_ids is None:
            chosen = backends.namespaces.stored_namespaces()
        else:
            chosen = list(dict.fromkeys(project_ids))
            missing = [p for p in chosen if not backends.project_exists(p)]
            if missing:
                raise NotFoundError(f"No such project: {', '.join(missing)}. Nothing was reindexed.")
        done: list[ProjectReindex] = []
        for project_id in chosen:
            storage = backends.namespaces.open(project_id)
            count = rebuild_index(storage.store, storage.index, batch_size=batch_size, progress=progress(project_id))
            done.append(ProjectReindex(project_id, count))
        return done
    finally:
        backends.close()
