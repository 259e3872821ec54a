"""A value built on its first use: what the composition root gives in place of a part that a process may never
use (a Lambda function serving only the self-hosted routes never builds the platform's features), so that it is
neither imported nor built until then. Built once, under a lock, whoever asks first."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, TypeVar, cast

T = TypeVar("T")


class Lazy(Generic[T]):
    def __init__(self, build: Callable[[], T]) -> None:
        self._build = build
        self._value: T | None = None
        self._built = False
        self._lock = threading.Lock()

    @classmethod
    def ready(cls, value: T) -> Lazy[T]:
        """A value already built (a process that uses it from the start)."""
        lazy = cls(lambda: value)
        lazy.get()
        return lazy

    @property
    def built(self) -> bool:
        return self._built

    def get(self) -> T:
        """The value, built now if this is the first call."""
        if not self._built:
            with self._lock:
                if not self._built:
                    self._value = self._build()
                    self._built = True
        return cast(T, self._value)  # set before _built

    def reset(self) -> T | None:
        """Forget the value (the next `get` builds it again) and return it if it was built: what a part that
        closes what it built calls, so that closing twice, or closing what was never built, does nothing."""
        with self._lock:
            value, built = self._value, self._built
            self._value, self._built = None, False
        return value if built else None
