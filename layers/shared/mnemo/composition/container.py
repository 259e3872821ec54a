"""`build_container` builds the container (composition/container_type.py) for the configured backend, importing
that backend's composition only (local.py, aws.py); `LazyContainer` builds it on a Lambda function's first call."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mnemo.composition.container_type import Container
from mnemo.ports.memory_index import MemoryIndex
from mnemo.ports.providers import ProviderCatalog
from mnemo.settings import Settings

__all__ = ["Container", "LazyContainer", "build_container"]


def build_container(
    settings: Settings | None = None,
    catalog: ProviderCatalog | None = None,
    *,
    index: MemoryIndex | None = None,
    session: Any | None = None,
    serves_http: bool = True,
    namespace_index: Callable[[str], MemoryIndex] | None = None,
) -> Container:
    """The container for `settings.backend` (settings from the environment by default). On AWS, `index` replaces
    the OpenSearch index and `namespace_index` a platform project's own OpenSearch index (tests; the index is
    derived data), and `session` is the boto3 session to use (default: the SDK's credential chain). A worker
    (`serves_http=False`) is not warned about the authentication settings, which only the HTTP routes use."""
    settings = settings or Settings()
    if settings.backend == "aws":
        from mnemo.composition.aws import build_aws

        return build_aws(
            settings, catalog, index=index, session=session, serves_http=serves_http, namespace_index=namespace_index
        )
    from mnemo.composition.local import build_local

    return build_local(settings, catalog, serves_http=serves_http)


class LazyContainer:
    """The container of one Lambda execution environment: built on the first call (never at import time) and
    kept for the next ones. `build` is what builds it (build_container from the environment by default)."""

    def __init__(self, build: Callable[[], Container] | None = None) -> None:
        self.build: Callable[[], Container] = build or build_container
        self._built: Container | None = None

    @property
    def built(self) -> bool:
        return self._built is not None

    def get(self) -> Container:
        if self._built is None:
            self._built = self.build()
        return self._built

    def reset(self, build: Callable[[], Container] | None = None) -> None:
        """Close and forget the container (and use `build` for the next one): a new execution environment."""
        if self._built is not None:
            self._built.close()
        self._built = None
        if build is not None:
            self.build = build
