"""A thin HTTP transport to OpenSearch: httpx (already a dependency) signed with SigV4 by botocore, so the
Lambda layer needs no OpenSearch client library. Busy and unavailable replies are retried with backoff."""

from __future__ import annotations

import hashlib
import json
import random
import time
from collections.abc import Callable, Generator, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

import httpx

from mnemo.errors import BackendBusyError

RETRIED_STATUSES = frozenset({429, 502, 503, 504})
NDJSON = "application/x-ndjson"  # the content type of _bulk and _msearch bodies


class SearchIndexError(BackendBusyError):
    """The search index refused a request or could not be reached, after the transport's retries (the record store
    is unaffected): the API answers 503 with Retry-After, and a queued job is run again later."""


@dataclass(frozen=True, slots=True)
class Response:
    status: int
    body: Any  # parsed JSON; None for an empty body (HEAD); the raw text when not JSON

    @property
    def error_type(self) -> str | None:
        """OpenSearch's error type, such as "index_not_found_exception", when the body carries one."""
        if isinstance(self.body, Mapping) and isinstance(self.body.get("error"), Mapping):
            kind = self.body["error"].get("type")
            return str(kind) if kind is not None else None
        return None

    @property
    def reason(self) -> str:
        if isinstance(self.body, Mapping) and isinstance(self.body.get("error"), Mapping):
            error = self.body["error"]
            return f"{error.get('type')}: {error.get('reason')}"
        return str(self.body)[:300]

    def raise_for_status(self, action: str) -> None:
        if self.status >= 300:
            raise SearchIndexError(f"OpenSearch {action} failed: HTTP {self.status}: {self.reason}")


class Transport(Protocol):
    def request(
        self,
        method: str,
        path: str,
        body: bytes | None = None,
        *,
        params: Mapping[str, str] | None = None,
        content_type: str = "application/json",
    ) -> Response: ...


class HttpTransport:
    def __init__(
        self,
        endpoint: str,
        *,
        auth: httpx.Auth | None = None,
        timeout: float = 10.0,
        retries: int = 3,
        http_transport: httpx.BaseTransport | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self._client = httpx.Client(base_url=endpoint.rstrip("/"), auth=auth, timeout=timeout, transport=http_transport)
        self._retries = retries
        self._sleep = sleep

    def request(
        self,
        method: str,
        path: str,
        body: bytes | None = None,
        *,
        params: Mapping[str, str] | None = None,
        content_type: str = "application/json",
    ) -> Response:
        headers = {"content-type": content_type} if body is not None else {}
        for attempt in range(self._retries + 1):
            try:
                reply = self._client.request(method, path, content=body, params=params, headers=headers)
            except httpx.TransportError as exc:
                if attempt == self._retries:
                    raise SearchIndexError(f"OpenSearch is unreachable: {exc}") from exc
            else:
                if reply.status_code not in RETRIED_STATUSES or attempt == self._retries:
                    return Response(reply.status_code, _parse(reply))
            self._sleep(min(0.1 * 2**attempt, 2.0) * (0.5 + random.random() / 2))
        raise AssertionError("unreachable")  # pragma: no cover

    def close(self) -> None:
        self._client.close()


def json_bytes(body: Any) -> bytes:
    """A request body as compact UTF-8 JSON."""
    return json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def ndjson_line(body: Any) -> bytes:
    """One line of an NDJSON body (_bulk, _msearch)."""
    return json_bytes(body) + b"\n"


def _parse(reply: httpx.Response) -> Any:
    if not reply.content:
        return None
    try:
        return json.loads(reply.content)
    except ValueError:
        return reply.text


class AwsSigV4(httpx.Auth):
    """Signs every request with AWS Signature Version 4 for service "es" (a domain) or "aoss" (Serverless).

    `credentials` is botocore credentials (refreshable ones are frozen per request), e.g. from
    `boto3.Session().get_credentials()`. The payload hash header is always sent: Serverless requires it.
    """

    requires_request_body = True

    def __init__(self, credentials: Any, region: str, service: str) -> None:
        if service not in ("es", "aoss"):
            raise ValueError(f"SigV4 service must be 'es' or 'aoss', not {service!r}.")
        self._credentials = credentials
        self._region = region
        self._service = service

    def auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        from botocore.auth import SigV4Auth
        from botocore.awsrequest import AWSRequest

        body = request.content
        headers = {"host": request.headers["host"], "x-amz-content-sha256": hashlib.sha256(body).hexdigest()}
        if "content-type" in request.headers:
            headers["content-type"] = request.headers["content-type"]
        signed = AWSRequest(method=request.method, url=str(request.url), data=body, headers=headers)
        frozen = self._credentials.get_frozen_credentials()
        SigV4Auth(frozen, self._service, self._region).add_auth(signed)
        for name, value in signed.headers.items():
            if name.lower() in ("authorization", "x-amz-date", "x-amz-security-token", "x-amz-content-sha256"):
                request.headers[name] = value
        yield request
