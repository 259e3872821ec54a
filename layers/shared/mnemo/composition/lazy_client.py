"""A boto3 client made on its first call, for the AWS services a function reaches only on some requests.

Making a client loads its service's model and endpoint rules: tens of milliseconds a service, at the cold start of
every function that builds it. The job queue, the profile queue and the events topic are reached only by a request
that queues work or changes memories; a read, a sign-in or a tenancy change never pays for them."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any


class LazyClient:
    """Stands for the client `make` returns, made on the first attribute asked of it (a method call)."""

    def __init__(self, make: Callable[[], Any]) -> None:
        self._make = make
        self._client: Any = None
        self._lock = threading.Lock()

    @property
    def made(self) -> bool:
        return self._client is not None

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):  # not the client's: copy and pickle ask for these before __init__ has run
            raise AttributeError(name)
        if self._client is None:
            with self._lock:
                if self._client is None:
                    self._client = self._make()
        return getattr(self._client, name)
