"""adapters/dynamodb/throttling.py: a DynamoDB call still throttled after botocore's retries raises the core's
BackendBusyError (503 with Retry-After), any other answer is left to botocore; and the hook is registered once per
client, by every store built on Operations."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import botocore.session
import pytest
from botocore.stub import Stubber

from mnemo.adapters.dynamodb.operations import Operations
from mnemo.adapters.dynamodb.throttling import THROTTLING_CODES, _throttled, raise_throttling_as_busy
from mnemo.api.errors import status_of
from mnemo.errors import BackendBusyError
from mnemo.services.platform.jobs.queueing import is_transient

GET_ITEM = SimpleNamespace(name="GetItem")


def reply(status: int, code: str | None = None) -> dict[str, Any]:
    parsed: dict[str, Any] = {"Error": {"Code": code, "Message": "slow down"}} if code else {"Item": {}}
    return {"http_response": SimpleNamespace(status_code=status), "parsed": parsed, "model": GET_ITEM}


@pytest.mark.parametrize("code", sorted(THROTTLING_CODES))
def test_given_a_call_throttled_past_its_retries_then_it_raises_a_busy_error(code: str) -> None:
    with pytest.raises(BackendBusyError) as raised:
        _throttled(**reply(400, code))
    assert code in raised.value.message and "GetItem" in raised.value.message
    assert raised.value.retry_after == 1
    assert status_of(raised.value) == 503
    assert is_transient(raised.value)  # a queued job meeting it runs again later


@pytest.mark.parametrize(
    "answer", [reply(200), reply(400, "ConditionalCheckFailedException"), reply(500, "InternalServerError")]
)
def test_given_any_other_answer_then_botocore_handles_it(answer: dict[str, Any]) -> None:
    _throttled(**answer)  # no error raised


def client() -> Any:
    return botocore.session.get_session().create_client(
        "dynamodb", region_name="us-east-1", aws_access_key_id="x", aws_secret_access_key="x"
    )


def test_given_a_store_on_a_client_when_dynamodb_keeps_throttling_then_the_store_raises_a_busy_error() -> None:
    dynamodb = client()
    ops = Operations(dynamodb, "a-table")
    Operations(dynamodb, "another-table")  # a second store on the same client: still one hook
    with Stubber(dynamodb) as stub:
        stub.add_client_error("get_item", "ProvisionedThroughputExceededException", http_status_code=400)
        with pytest.raises(BackendBusyError):
            ops.get({"pk": {"S": "p"}, "sk": {"S": "s"}})


def test_given_a_store_on_a_client_when_a_condition_fails_then_it_is_still_botocores_error() -> None:
    dynamodb = client()
    ops = Operations(dynamodb, "a-table")
    with Stubber(dynamodb) as stub:
        stub.add_client_error("put_item", "ConditionalCheckFailedException", http_status_code=400)
        assert (
            ops.conditionally("put_item", Item={"pk": {"S": "p"}}, ConditionExpression="attribute_not_exists(pk)")
            is None
        )


def test_given_a_stand_in_client_without_events_then_nothing_is_registered() -> None:
    raise_throttling_as_busy(object())  # a test's fake client: no error
