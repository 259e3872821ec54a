"""The OpenSearch transport of the AWS backend, its HTTP client made on the first request to the index.

Making an httpx client builds a TLS context (it reads the certificate bundle) and a connection pool. Every function
of the AWS backend builds the whole core at its first call, but not every one reaches the index: the functions of
the accounts and the request log never do, and the others only on a request that reads or writes memories. A
transport that makes its client when first asked keeps that cost out of their start.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Protocol

from mnemo.adapters.opensearch.transport import Response, Transport
from mnemo.services.lazy import Lazy


class ClosableTransport(Transport, Protocol):
    def close(self) -> None: ...


class LazyTransport:
    """A Transport that builds the real one (`build`) on its first request and hands every request to it."""

    def __init__(self, build: Callable[[], ClosableTransport]) -> None:
        self._transport = Lazy(build)

    @property
    def built(self) -> bool:
        return self._transport.built

    def request(
        self,
        method: str,
        path: str,
        body: bytes | None = None,
        *,
        params: Mapping[str, str] | None = None,
        content_type: str = "application/json",
    ) -> Response:
        return self._transport.get().request(method, path, body, params=params, content_type=content_type)

    def close(self) -> None:
        """Close the real transport if one was built (nothing to close otherwise)."""
        built = self._transport.reset()
        if built is not None:
            built.close()
