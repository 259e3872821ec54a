"""A small client for OpenAI-compatible HTTP APIs (OpenAI, vLLM, Ollama, LM Studio, Azure OpenAI, …) over httpx.

Transient failures (HTTP 429, 500, 502, 503, 504, a connection that fails or drops, a timeout) are retried
with exponential backoff and full jitter, or after the delay the provider asks for (`retry-after-ms`, else
`Retry-After` in seconds or as an HTTP date), all within one deadline for the whole call: no retry starts
that could not finish before it, and each attempt's timeout is cut to the time left. Any other failure is
raised at once. The error a caller finally sees keeps the failure's `code` and says how often it was retried.
Another JSON-over-HTTP API reuses the client with its own headers and retried statuses (`llms.anthropic`).
"""

from __future__ import annotations

import logging
import math
import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC
from email.utils import parsedate_to_datetime
from typing import Any

import httpx

from mnemo.errors import ProviderError

log = logging.getLogger("mnemo.openai")

DEFAULT_BASE_URL = "https://api.openai.com/v1"
DEFAULT_MAX_RETRIES = 4
RETRIED_STATUSES = frozenset({429, 500, 502, 503, 504})
# A transport failure that may pass: the connection was refused, reset or dropped, or a proxy failed.
RETRIED_TRANSPORT_ERRORS = (httpx.NetworkError, httpx.RemoteProtocolError, httpx.ProxyError)
RETRY_SHORTLY = "Retry shortly."
_MIN_ATTEMPT_SECONDS = 0.001  # an attempt's timeout is never zero (httpx would read that as "no timeout")


def full_jitter(ceiling: float) -> float:
    """A delay drawn uniformly from [0, ceiling] ("full jitter"): clients that failed together spread out."""
    return random.uniform(0.0, ceiling)


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """How a call is retried: at most `max_retries` retries, the n-th (from 0) after up to
    `min(max_backoff, first_backoff * 2**n)` seconds, and the whole call within `deadline` seconds."""

    max_retries: int = DEFAULT_MAX_RETRIES
    first_backoff: float = 0.5
    max_backoff: float = 8.0
    deadline: float = 120.0

    @classmethod
    def for_timeout(cls, timeout: float, max_retries: int, total_timeout: float | None) -> RetryPolicy:
        """The policy of a provider config: the deadline is `total_timeout`, or twice the per-attempt timeout."""
        return cls(max_retries=max_retries, deadline=total_timeout if total_timeout is not None else 2 * timeout)

    def backoff_ceiling(self, retry: int) -> float:
        return min(self.max_backoff, self.first_backoff * 2.0 ** min(retry, 30))


@dataclass(frozen=True, slots=True)
class Pace:
    """How a client keeps time and waits; injectable, so that tests neither wait nor depend on chance."""

    clock: Callable[[], float] = time.monotonic  # for the deadline and the elapsed time
    wall_clock: Callable[[], float] = time.time  # for a Retry-After given as an HTTP date
    sleep: Callable[[float], None] = time.sleep
    jitter: Callable[[float], float] = full_jitter  # a delay in [0, ceiling] for a backoff ceiling


@dataclass(frozen=True, slots=True)
class _Failure:
    """One failed attempt: what it was, whether it may pass, and the delay the provider asked for."""

    code: str
    what: str  # e.g. "Provider rate limit hit (429)"
    advice: str = ""  # e.g. "Retry shortly."
    transient: bool = False
    asked_wait: float | None = None  # seconds, from retry-after-ms or Retry-After
    cause: BaseException | None = field(default=None, compare=False)

    def error(self, retries: int, elapsed: float, stop: str = "") -> ProviderError:
        text = self.what
        if retries:
            text += f" after {retries} {'retry' if retries == 1 else 'retries'} over {elapsed:.1f} s"
        if stop:
            text += f"; {stop}"
        return ProviderError(f"{text}. {self.advice}".rstrip(), self.code)


class OpenAIHttp:
    """POSTs JSON to paths under `base_url`, with `Authorization: Bearer <api_key>` when a key is given, plus
    any further `headers` (e.g. Azure's `api-key`) and query `params` (e.g. Azure's `api-version`) on every call.
    `not_found_advice` is what a 404 tells the caller to check."""

    def __init__(  # noqa: PLR0913 - one client for five APIs: each keyword is one API's difference, defaulted
        self,
        base_url: str,
        api_key: str | None,
        timeout: float,
        retry: RetryPolicy | None = None,
        pace: Pace | None = None,
        *,
        headers: Mapping[str, str] | None = None,
        retried_statuses: frozenset[int] = RETRIED_STATUSES,
        params: Mapping[str, str] | None = None,
        not_found_advice: str = "Check base_url and model.",
    ) -> None:
        """`headers`: more request headers (another API's authentication, e.g. Anthropic's `x-api-key`);
        `retried_statuses`: the 5xx statuses worth another attempt (a 429 always is); `params`: query parameters
        of every request (Azure's `api-version`); `not_found_advice`: what a 404 tells the caller to check."""
        sent = {"Content-Type": "application/json", **(self._credentials(api_key) if api_key else {})}
        sent.update(headers or {})
        self._retried_statuses = retried_statuses
        self._client = httpx.Client(
            base_url=base_url.rstrip("/") + "/", headers=sent, params=dict(params or {}), timeout=timeout
        )
        self._not_found_advice = not_found_advice
        self._timeout = timeout
        self._retry = retry or RetryPolicy.for_timeout(timeout, DEFAULT_MAX_RETRIES, None)
        self._pace = pace or Pace()

    def _credentials(self, api_key: str) -> dict[str, str]:
        """The headers that carry an API key: `Authorization: Bearer <key>` (an API of its own says otherwise)."""
        return {"Authorization": f"Bearer {api_key}"}

    def post(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        """The JSON object the endpoint answers, after retrying transient failures; else a ProviderError."""
        started = self._pace.clock()
        deadline = started + self._retry.deadline
        retries = 0
        while True:
            outcome = self._attempt(path, body, deadline)
            if not isinstance(outcome, _Failure):
                return outcome
            delay, stop = self._next_delay(outcome, retries, deadline)
            if delay is None:
                raise outcome.error(retries, self._pace.clock() - started, stop) from outcome.cause
            log.warning(
                "%s on POST %s: retry %d of %d in %.2f s",
                outcome.what,
                path,
                retries + 1,
                self._retry.max_retries,
                delay,
            )
            self._pace.sleep(delay)
            retries += 1

    def _attempt(self, path: str, body: dict[str, Any], deadline: float) -> dict[str, Any] | _Failure:
        timeout = max(min(self._timeout, deadline - self._pace.clock()), _MIN_ATTEMPT_SECONDS)
        try:
            response = self._client.post(path, json=body, timeout=timeout)
        except httpx.TimeoutException as exc:
            what = f"Provider timed out (no answer within {timeout:.1f} s)"
            return _Failure("provider_timeout", what, RETRY_SHORTLY, transient=True, cause=exc)
        except RETRIED_TRANSPORT_ERRORS as exc:
            what = f"Provider is unreachable ({type(exc).__name__})"
            return _Failure("provider_unavailable", what, RETRY_SHORTLY, transient=True, cause=exc)
        except httpx.HTTPError as exc:
            what = f"Provider request failed ({type(exc).__name__})"
            return _Failure("provider_unavailable", what, "Check base_url.", cause=exc)
        if response.status_code >= 400:
            failure = self._failure_for(response)
            if failure.transient:
                failure = replace(failure, asked_wait=retry_after_seconds(response.headers, self._pace.wall_clock()))
            return failure
        return _json_object(response)

    def _failure_for(self, response: httpx.Response) -> _Failure:
        """What an HTTP error response means; a client of another API may read its error body too."""
        failure = _failure_for_status(response.status_code, self._retried_statuses, self._not_found_advice)
        if response.status_code == 400 and _is_content_filter(response):
            failure = CONTENT_FILTERED
        return failure

    def _next_delay(self, failure: _Failure, retries: int, deadline: float) -> tuple[float | None, str]:
        """How long to wait before the next attempt, or None (and why, when it is not plain) to stop."""
        if not failure.transient or retries >= self._retry.max_retries:
            return None, ""
        if failure.asked_wait is not None:
            delay = failure.asked_wait
            if self._pace.clock() + delay >= deadline:
                return None, f"it asked to wait {delay:.1f} s, past the {self._retry.deadline:.1f} s deadline"
            return delay, ""
        delay = self._pace.jitter(self._retry.backoff_ceiling(retries))
        if self._pace.clock() + delay >= deadline:
            return None, f"stopped at the {self._retry.deadline:.1f} s deadline"
        return delay, ""


def _failure_for_status(
    status: int, retried: frozenset[int] = RETRIED_STATUSES, not_found_advice: str = "Check base_url and model."
) -> _Failure:
    """What an HTTP error status means; `transient` when it is worth another attempt."""
    if status in (401, 403):
        what = f"Provider rejected the request's authentication ({status})"
        return _Failure("provider_auth_failed", what, "Check the provider API key.")
    if status == 429:
        return _Failure("provider_rate_limited", "Provider rate limit hit (429)", RETRY_SHORTLY, transient=True)
    if status == 404:
        return _Failure("provider_bad_request", "Provider endpoint or model not found (404)", not_found_advice)
    if status >= 500:
        what = f"Provider is unavailable or returned a server error ({status})"
        return _Failure("provider_unavailable", what, RETRY_SHORTLY, transient=status in retried)
    return _Failure("provider_bad_request", f"Provider rejected the request as malformed ({status})")


CONTENT_FILTER_ADVICE = "Rephrase the input, or review the deployment's content filtering policy."
CONTENT_FILTERED = _Failure(
    "provider_bad_request", "Provider's content filter refused the request (400)", CONTENT_FILTER_ADVICE
)


def _is_content_filter(response: httpx.Response) -> bool:
    """Whether a 400 is Azure OpenAI's content filter (`error.code` "content_filter") refusing the prompt."""
    try:
        payload = response.json()
    except ValueError:
        return False
    error = payload.get("error") if isinstance(payload, dict) else None
    if not isinstance(error, dict):
        return False
    inner = error.get("innererror")
    inner_code = inner.get("code") if isinstance(inner, dict) else None
    return error.get("code") == "content_filter" or inner_code == "ResponsibleAIPolicyViolation"


def retry_after_seconds(headers: Mapping[str, str], now: float) -> float | None:
    """The delay a response asks for: `retry-after-ms` (OpenAI's), else `Retry-After` in seconds or as an HTTP
    date (relative to `now`, a Unix time); None when neither is there or makes sense. Never negative."""
    waited = _seconds(headers.get("retry-after-ms"), scale=0.001)
    if waited is not None:
        return waited
    value = headers.get("retry-after")
    if value is None:
        return None
    return _seconds(value, scale=1.0) if _is_number(value) else _seconds_until(value, now)


def _is_number(value: str) -> bool:
    return value.strip().replace(".", "", 1).isdigit()


def _seconds(value: str | None, scale: float) -> float | None:
    if value is None:
        return None
    try:
        seconds = float(value) * scale
    except ValueError:
        return None
    return seconds if math.isfinite(seconds) and seconds >= 0 else None


def _seconds_until(http_date: str, now: float) -> float | None:
    try:
        moment = parsedate_to_datetime(http_date)
    except (TypeError, ValueError, IndexError):
        return None
    if moment.tzinfo is None:  # "-0000": UTC, with no claim about the sender's zone
        moment = moment.replace(tzinfo=UTC)
    return max(0.0, moment.timestamp() - now)


def _json_object(response: httpx.Response) -> dict[str, Any] | _Failure:
    try:
        payload = response.json()
    except ValueError as exc:
        return _Failure("provider_bad_response", "Provider returned a body that is not JSON", cause=exc)
    if not isinstance(payload, dict):
        return _Failure("provider_bad_response", "Provider returned an unexpected body")
    return payload
