"""Sending a webhook delivery over HTTP, and the rule of where a webhook may point.

No webhook may be aimed inside the deployment: a URL that is not http(s), or whose host resolves to a loopback,
private, link-local (169.254.169.254 included), multicast, reserved or unspecified address, is refused, at
create and update (`url_problem`) and again at each send after resolving the name (unless the deployment allows
private addresses, for local development and tests)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True, slots=True)
class SendResult:
    status_code: int | None  # None: no HTTP answer
    error: str | None  # why there was no answer, or what the answer was (a redirect is not followed)
    latency_ms: float
    response: str | None = None  # the start of the receiver's answer body, printable and cut short; None: no body

    @property
    def delivered(self) -> bool:
        return self.status_code is not None and 200 <= self.status_code < 300


class WebhookSender(Protocol):
    def url_problem(self, url: str) -> str | None:
        """Why the URL cannot be a webhook's (not http(s), no host, a host that does not resolve or resolves to an
        address inside the deployment), or None when it can."""
        ...

    def send(self, url: str, body: bytes, headers: Mapping[str, str]) -> SendResult:
        """POST the body (JSON) with the headers. Never raises for what the receiver or the network does: a
        refused address, a refused connection or a timeout is a result without a status code. Redirects are not
        followed (a 3xx is a failed attempt)."""
        ...
