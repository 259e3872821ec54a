"""The webhook sender, made on its first use.

Making it imports httpx's connection pool and builds a TLS context (it reads the certificate bundle): tens of
milliseconds at the start of every process that serves the platform. Only a request that creates, changes or tests
a webhook, and the delivery of an event, ever use it."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Protocol

from mnemo.ports.webhook_sender import SendResult, WebhookSender
from mnemo.services.lazy import Lazy


class ClosableSender(WebhookSender, Protocol):
    def close(self) -> None: ...


class LazyWebhookSender:
    """A WebhookSender that makes the real one (`make`) when first asked to check a URL or send."""

    def __init__(self, make: Callable[[], ClosableSender]) -> None:
        self._sender = Lazy(make)

    @property
    def made(self) -> bool:
        return self._sender.built

    def url_problem(self, url: str) -> str | None:
        return self._sender.get().url_problem(url)

    def send(self, url: str, body: bytes, headers: Mapping[str, str]) -> SendResult:
        return self._sender.get().send(url, body, headers)

    def close(self) -> None:
        """Close the real sender if one was made (nothing to close otherwise)."""
        made = self._sender.reset()
        if made is not None:
            made.close()
