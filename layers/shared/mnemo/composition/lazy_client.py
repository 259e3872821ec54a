"""A boto3 client made on its first call, for the AWS services a function reaches only on some requests.

Making a client loads its service's model and endpoint rules: tens of milliseconds a service, at the cold start of
every function that builds it. The job queue, the profile queue and the events topic are reached only by a request
that queues work or changes memories; a read, a sign-in or a tenancy change never pays for them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mnemo.services.lazy import Lazy


class LazyClient:
    """Stands for the client `make` returns, made on the first attribute asked of it (a method call)."""

    def __init__(self, make: Callable[[], Any]) -> None:
        self._client = Lazy(make)

    @property
    def made(self) -> bool:
        return self._client.built

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):  # not the client's: copy and pickle ask for these before __init__ has run
            raise AttributeError(name)
        return getattr(self._client.get(), name)
