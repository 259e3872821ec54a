"""A webhook's delivery log as its page shows it: which deliveries (a state, a page, read from the query string and
bounded before any read), and each attempt's outcome in a line (its status or why there was none, its latency, and
what the receiver answered, cut short). The text is shown escaped, as everything a page shows."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from mnemo.domain.webhooks import Attempt, Delivery, DeliveryState
from mnemo.errors import ValidationError

LOG_PAGE = 20  # deliveries a page
MAX_LOG_PAGE = 10_000
MAX_RESPONSE = 200  # characters of a receiver's answer shown in the log (the whole is in the API's log)


@dataclass(frozen=True, slots=True)
class DeliveryQuery:
    state: DeliveryState | None = None
    page: int = 1
    page_size: int = LOG_PAGE

    def pages(self, count: int) -> int:
        return max(1, -(-count // self.page_size))

    def link(self, page: int) -> str:
        """The query string of another page of the same log."""
        state = f"&state={self.state.value}" if self.state else ""
        return f"?page={page}{state}"


def delivery_query(params: Mapping[str, str]) -> DeliveryQuery:
    """The log's state and page from the query string; ValidationError (400) for a value out of bounds."""
    raw_state = params.get("state", "")
    states = {state.value: state for state in DeliveryState}
    if raw_state and raw_state not in states:
        raise ValidationError(f"state is one of {', '.join(states)}, or nothing for every delivery.")
    raw_page = params.get("page", "1")
    if not raw_page.isdigit() or not 1 <= int(raw_page) <= MAX_LOG_PAGE:
        raise ValidationError(f"page is a whole number from 1 to {MAX_LOG_PAGE}.")
    return DeliveryQuery(states.get(raw_state), int(raw_page))


def response_text(attempt: Attempt) -> str:
    """What went wrong, or else what the receiver answered, cut to MAX_RESPONSE characters (a failed answer's error
    holds the start of its body already)."""
    text = attempt.error or attempt.response or ""
    return text if len(text) <= MAX_RESPONSE else text[: MAX_RESPONSE - 1] + "…"


def status_text(attempt: Attempt) -> str:
    return f"HTTP {attempt.status_code}" if attempt.status_code is not None else "no answer"


def outcome(delivery: Delivery) -> str:
    """A test delivery's outcome after its first attempt, in a sentence."""
    if not delivery.attempts:
        return f"The test event was not sent: the delivery is {delivery.state.value}."
    last = delivery.attempts[-1]
    said = f"{status_text(last)} in {last.latency_ms:.0f} ms"
    answer = response_text(last)
    detail = f"{said} ({answer})" if answer else said
    if delivery.state is DeliveryState.DELIVERED:
        return f"The test event was delivered: {detail}."
    retried = " It will be tried again." if delivery.state is DeliveryState.PENDING else ""
    return f"The test event was not delivered: {detail}.{retried}"
