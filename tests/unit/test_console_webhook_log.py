"""The webhook pages' delivery log and forms without a browser: the log's state and page read from the query
string (bounded, a clear refusal otherwise), each attempt's status and answer in a line (cut short), a test event's
outcome in a sentence, and a posted form read into the service's spec (an event type a checkbox each)."""

from __future__ import annotations

from datetime import UTC, datetime
from types import SimpleNamespace
from typing import Any, cast

import pytest

from mnemo.console.webhook_forms import posted_form
from mnemo.console.webhook_log import (
    MAX_RESPONSE,
    DeliveryQuery,
    delivery_query,
    outcome,
    response_text,
    status_text,
)
from mnemo.domain.webhooks import TEST_EVENT, Attempt, Delivery, DeliveryState, OutboundEvent
from mnemo.errors import ValidationError

AT = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)


def _delivery(state: DeliveryState, *attempts: Attempt) -> Delivery:
    event = OutboundEvent("e1", TEST_EVENT, "p1", {}, AT)
    return Delivery("msg_1", "w1", "p1", 1, event, AT, None, state, attempts)


def test_given_no_query_then_the_log_is_every_state_first_page() -> None:
    assert delivery_query({}) == DeliveryQuery(None, 1)


def test_given_a_state_and_a_page_then_the_log_is_that_and_its_links_keep_the_state() -> None:
    query = delivery_query({"state": "dead", "page": "3"})
    assert (query.state, query.page) == (DeliveryState.DEAD, 3)
    assert query.link(4) == "?page=4&state=dead"
    assert query.pages(0) == 1 and query.pages(41) == 3


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"state": "lost"}, "state is one of pending, delivered, dead, cancelled"),
        ({"page": "0"}, "page is a whole number from 1 to 10000"),
        ({"page": "-1"}, "page is a whole number"),
        ({"page": "1" * 50}, "page is a whole number"),
    ],
)
def test_given_a_value_out_of_bounds_then_it_is_refused_with_the_rule(params: dict[str, str], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        delivery_query(params)


def test_an_attempts_status_and_answer_are_shown_and_a_long_answer_is_cut() -> None:
    answered = Attempt(AT, 503, "HTTP 503: " + "x" * 1000, 12.4)
    unanswered = Attempt(AT, None, "connection refused", 3.0)
    assert status_text(answered) == "HTTP 503" and status_text(unanswered) == "no answer"
    cut = response_text(answered)
    assert len(cut) == MAX_RESPONSE and cut.endswith("…") and cut.startswith("HTTP 503: x")
    assert response_text(unanswered) == "connection refused"
    assert response_text(Attempt(AT, 200, None, 1.0)) == ""
    # a success shows what the receiver answered; a failure its error, which starts with the status
    assert response_text(Attempt(AT, 200, None, 1.0, "queued as 42")) == "queued as 42"
    assert response_text(Attempt(AT, 500, "HTTP 500: boom", 1.0, "boom")) == "HTTP 500: boom"


def test_a_test_events_outcome_says_whether_it_arrived_and_what_follows() -> None:
    delivered = _delivery(DeliveryState.DELIVERED, Attempt(AT, 200, None, 8.6))
    assert outcome(delivered) == "The test event was delivered: HTTP 200 in 9 ms."
    answered = _delivery(DeliveryState.DELIVERED, Attempt(AT, 200, None, 8.6, "thanks"))
    assert outcome(answered) == "The test event was delivered: HTTP 200 in 9 ms (thanks)."
    retried = _delivery(DeliveryState.PENDING, Attempt(AT, 500, "server error", 4.0))
    assert outcome(retried) == (
        "The test event was not delivered: HTTP 500 in 4 ms (server error). It will be tried again."
    )
    dead = _delivery(DeliveryState.DEAD, Attempt(AT, 410, None, 2.0))
    assert outcome(dead) == "The test event was not delivered: HTTP 410 in 2 ms."
    assert outcome(_delivery(DeliveryState.CANCELLED)) == "The test event was not sent: the delivery is cancelled."


def test_a_posted_form_is_the_spec_with_one_event_type_a_checkbox() -> None:
    fields = {"name": " orders ", "url": "https://a.example/", "event_memory_add": "on", "event_nope": "on"}
    visit = cast(Any, SimpleNamespace(form=fields, field=lambda name: fields.get(name, "").strip()))
    spec = posted_form(visit).spec()
    assert (spec.name, spec.url, spec.is_active) == ("orders", "https://a.example/", False)
    assert spec.event_types == ["memory_add", "nope"]  # an unknown type reaches the service, which refuses it
