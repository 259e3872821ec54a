"""The runtime of one Lambda execution environment: built on the first invocation, kept for the next ones (the
functions with a small composition of their own: webhook delivery, the Dream scheduler)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, Protocol, TypeVar


class Closable(Protocol):
    def close(self) -> None: ...


R = TypeVar("R", bound=Closable)


class LazyRuntime(Generic[R]):
    def __init__(self, build: Callable[[], R]) -> None:
        self.build: Callable[[], R] = build
        self._built: R | None = None

    @property
    def built(self) -> bool:
        return self._built is not None

    def get(self) -> R:
        if self._built is None:
            self._built = self.build()
        return self._built

    def reset(self, build: Callable[[], R] | None = None) -> None:
        """Close and forget the runtime (and use `build` for the next one): a new execution environment."""
        if self._built is not None:
            self._built.close()
        self._built = None
        if build is not None:
            self.build = build
