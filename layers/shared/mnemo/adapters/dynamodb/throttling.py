"""DynamoDB throttling that outlasts the SDK's retries, raised as the core's BackendBusyError.

The clients retry throttling errors themselves (botocore's retry modes count `ProvisionedThroughputExceededException`
and `ThrottlingException` as throttles, with backoff); a call still throttled after its last attempt would reach the
API as an unknown error, a 500. This hook, registered on a client's `after-call.dynamodb` event (which botocore emits
once per call, after its retries, before raising the error), turns it into a typed error instead: the API answers
503 with Retry-After, and the ingest worker treats it as an error that passes (the job is run again later).
Registered by every store built on `Operations`, once per client (a unique id).
"""

from __future__ import annotations

from typing import Any

from botocore.client import BaseClient

from mnemo.errors import BackendBusyError

THROTTLING_CODES = frozenset(
    {"ProvisionedThroughputExceededException", "ThrottlingException", "RequestLimitExceeded", "Throttling"}
)
RETRY_AFTER_SECONDS = 1
_HOOK_ID = "mnemo-dynamodb-throttling"


def raise_throttling_as_busy(client: Any) -> None:
    """Make this client raise BackendBusyError for a call throttled past its retries (idempotent). A stand-in that
    is no botocore client (a test's) is left alone."""
    if isinstance(client, BaseClient):
        client.meta.events.register("after-call.dynamodb", _throttled, unique_id=_HOOK_ID)


def _throttled(http_response: Any = None, parsed: Any = None, model: Any = None, **_kwargs: Any) -> None:
    if http_response is None or http_response.status_code < 300 or not isinstance(parsed, dict):
        return
    code = parsed.get("Error", {}).get("Code")
    if code in THROTTLING_CODES:
        operation = getattr(model, "name", "a call")
        raise BackendBusyError(
            f"The database is busy ({code} on {operation}, after retries); retry in a moment.", RETRY_AFTER_SECONDS
        )
