"""A MemoryService over each memory namespace (each platform project), built when the namespace is first used,
and the embedding upkeep that spans them all."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from functools import partial

from mnemo.domain.erasure import Erasure
from mnemo.domain.memory import MemoryRecord
from mnemo.language import Language
from mnemo.ports.memory_access import AccessLog
from mnemo.ports.memory_namespaces import MemoryNamespaces, NamespaceStorage
from mnemo.ports.reranker import Reranker
from mnemo.services.access_buffer import AccessBuffer, BufferedAccessLog
from mnemo.services.memory import AddPolicy, MemoryService
from mnemo.services.memory.search.fuse import RankingWeights
from mnemo.services.providers import ActiveProviders

log = logging.getLogger("mnemo.namespaces")

# A platform project files every memory under a category, and merges a memory that says what one already does.
PLATFORM_POLICY = AddPolicy(categorize=True, merge=True)


def open_memory_service(
    storage: NamespaceStorage,
    providers: ActiveProviders,
    weights: RankingWeights | None = None,
    *,
    name: str = "",
    policy: AddPolicy | None = None,
    accesses: AccessLog | None = None,
    reranker: Reranker | None = None,
    language: Language,
) -> MemoryService:
    """The MemoryService over `storage` (`accesses`: its access log as the service is to use it, e.g. buffered).
    Embeddings of another width than the current embedder's (the embedder changed while this storage was closed)
    are made again first: a search must compare like with like."""
    service = MemoryService(
        storage.store, storage.index, providers, weights, policy, accesses, reranker=reranker, language=language
    )
    embedder = providers.get().embedder
    if storage.stored_dimension not in (None, embedder.dimension):
        log.warning(
            "%s: stored embeddings do not match the embedder %s: embedding again", name or "store", embedder.name
        )
        service.reembed_all()
    return service


class NamespaceMemoryServices:
    def __init__(
        self,
        namespaces: MemoryNamespaces,
        providers: ActiveProviders,
        weights: RankingWeights | None = None,
        access_buffer: AccessBuffer | None = None,
        reranker: Reranker | None = None,
        on_erased: Callable[[str, Erasure, Sequence[MemoryRecord]], None] | None = None,
        *,
        language: Language,
        policy: AddPolicy = PLATFORM_POLICY,
    ) -> None:
        """`access_buffer`: where the accesses a decayed search records wait to be written to their namespace's
        access log (a new one, written only by `flush`, when none is given). `on_erased` is told of each delete in
        a namespace (the platform scrubs the project's records of what it erased). `language`: the language pack
        every namespace's service reads with. `policy`: what every namespace's add does beyond storing."""
        self._namespaces = namespaces
        self._providers = providers
        self._language = language
        self._policy = policy
        self._weights = weights
        self._reranker = reranker
        self.access_buffer = access_buffer or AccessBuffer()
        self.on_erased = on_erased
        self._services: dict[str, MemoryService] = {}
        self._lock = threading.Lock()

    def memory_service(self, namespace: str) -> MemoryService:
        """The MemoryService of `namespace` (its storage created empty on first use)."""
        with self._lock:
            service = self._services.get(namespace)
            if service is None:
                storage = self._namespaces.open(namespace)
                accesses = self.access_buffer.buffered(storage.accesses) if storage.accesses is not None else None
                service = open_memory_service(
                    storage,
                    self._providers,
                    self._weights,
                    name=f"namespace {namespace}",
                    policy=self._policy,
                    accesses=accesses,
                    reranker=self._reranker,
                    language=self._language,
                )
                if self.on_erased is not None:
                    service.on_erased = partial(self.on_erased, namespace)
                self._services[namespace] = service
            return service

    def drop(self, namespace: str) -> None:
        """Every memory, history entry, index entry and recorded access of the namespace, for good."""
        with self._lock:
            service = self._services.pop(namespace, None)
        if service is not None and isinstance(service.accesses, BufferedAccessLog):
            service.accesses.discard()  # what waits to be written is of memories about to be gone
        self._namespaces.drop(namespace)  # not under the lock: other namespaces stay usable while it runs

    def stored_namespaces(self) -> list[str]:
        return self._namespaces.stored_namespaces()

    def reembed_all(self) -> int:
        """Embed every memory of every stored namespace again (the embedder changed), not only the open ones: a
        namespace opened later would otherwise keep the old embedder's vectors when the new one has their width."""
        return sum(self.memory_service(namespace).reembed_all() for namespace in self.stored_namespaces())

    def close(self) -> None:
        self.access_buffer.close()  # what waits is written while the namespaces are still open
        with self._lock:
            self._services.clear()
            self._namespaces.close()
