"""The webhook dispatcher's rules, on a clock of its own: what a 2xx, a failure, the last failure and a 410 do to a
delivery, the retry schedule with its jitter, the order of one webhook's deliveries, and the relay's fan-out."""

from __future__ import annotations

import functools
import threading
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from pydantic import ValidationError
from standardwebhooks import Webhook as StandardWebhook

from mnemo.adapters.sqlite.database import Database
from mnemo.adapters.sqlite.webhook_store import SqliteWebhookStore
from mnemo.domain.memory import new_id
from mnemo.domain.tenancy import Role
from mnemo.domain.webhooks import Delivery, DeliveryState, OutboundEvent, Webhook, new_secret
from mnemo.ports.webhook_sender import SendResult
from mnemo.services.platform.webhooks.dispatcher import WebhookDispatcher
from mnemo.services.platform.webhooks.relay import WebhookRelay, fan_out
from mnemo.services.platform.webhooks.service import TEST_HELD, WebhookService
from mnemo.settings import Settings

SCHEDULE = (5.0, 300.0, 1800.0)


@dataclass
class Clock:
    """Starts now (a signature's timestamp must be recent to verify), then moves only when told."""

    at: datetime = field(default_factory=lambda: datetime.now(UTC).replace(microsecond=0))
    start: datetime = field(init=False)

    def __post_init__(self) -> None:
        self.start = self.at

    def __call__(self) -> datetime:
        return self.at

    def advance(self, seconds: float) -> None:
        self.at += timedelta(seconds=seconds)


@dataclass
class Sender:
    """Answers each send with the next status of the script (None: no answer), and keeps what it was sent."""

    script: list[int | None] = field(default_factory=list)
    sent: list[tuple[str, bytes, dict[str, str]]] = field(default_factory=list)

    def url_problem(self, url: str) -> str | None:
        return None

    def send(self, url: str, body: bytes, headers: Mapping[str, str]) -> SendResult:
        self.sent.append((url, body, dict(headers)))
        status = self.script.pop(0) if self.script else 200
        answer = f"answer {len(self.sent)}" if status else None
        return SendResult(status, None if status else "refused: connection refused", 1.0, answer)


@dataclass
class World:
    store: SqliteWebhookStore
    clock: Clock
    sender: Sender
    dispatcher: WebhookDispatcher
    hook: Webhook

    def event(self, text: str = "I like tea.", kind: str = "memory_add") -> OutboundEvent:
        payload = {"event_details": {"id": new_id(), "data": {"memory": text}, "event": "ADD"}}
        return OutboundEvent(new_id(), kind, self.hook.project_id, payload, self.clock())


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    database = Database(tmp_path / "main.sqlite3")
    store = SqliteWebhookStore(database)
    clock, sender = Clock(), Sender()
    t0 = clock.start
    hook = Webhook(
        new_id(), "proj_a", "h", "https://example.com/h", ("memory_add",), "o@example.com", new_secret(), t0, t0
    )
    store.add_webhook(hook)
    dispatcher = WebhookDispatcher(store, sender, SCHEDULE, clock=clock, jitter=lambda: 0.5)
    yield World(store, clock, sender, dispatcher, hook)
    dispatcher.close()
    database.close()


def test_the_default_schedule_retries_for_more_than_a_day() -> None:
    schedule = Settings().webhook_retry_schedule
    assert sum(schedule) * 0.8 > 24 * 3600  # even with every delay jittered down by 20%


def test_a_2xx_delivers_signed_and_a_failure_waits_for_the_next_delay(world: World) -> None:
    fan_out(world.store, [world.event()], world.clock())
    world.sender.script = [500]
    assert world.dispatcher.run_due() == 1
    (pending,) = world.store.deliveries_of(world.hook.id, None, 10, 0)
    assert pending.state is DeliveryState.PENDING and pending.next_attempt_at == world.clock.start + timedelta(
        seconds=5
    )
    world.clock.advance(4.9)
    assert world.dispatcher.run_due() == 0  # not yet due
    world.clock.advance(0.2)
    assert world.dispatcher.run_due() == 1
    (done,) = world.store.deliveries_of(world.hook.id, None, 10, 0)
    assert done.state is DeliveryState.DELIVERED and [a.status_code for a in done.attempts] == [500, 200]
    assert [a.response for a in done.attempts] == ["answer 1", "answer 2"]  # each attempt keeps what it was answered
    _, body, headers = world.sender.sent[-1]
    assert StandardWebhook(world.hook.secret).verify(body, headers)["sequence"] == 1
    assert world.sender.sent[0][2]["webhook-id"] == headers["webhook-id"] == done.id  # the same on each retry


def test_jitter_moves_a_delay_by_at_most_a_fifth(world: World) -> None:
    for jitter, expected in ((0.0, 4.0), (1.0, 6.0)):
        dispatcher = WebhookDispatcher(
            world.store, world.sender, SCHEDULE, clock=world.clock, jitter=functools.partial(float, jitter)
        )
        (made,) = fan_out(world.store, [world.event()], world.clock())
        world.sender.script = [None]
        tried = dispatcher.attempt(made)
        assert tried.next_attempt_at == world.clock() + timedelta(seconds=expected)
        world.store.save_delivery(tried.cancelled(world.clock()))
        dispatcher.close()


def test_after_the_last_attempt_it_is_dead_and_the_next_goes(world: World) -> None:
    first, second = fan_out(world.store, [world.event("one"), world.event("two")], world.clock())
    world.sender.script = [503, None, 500, 502]  # every attempt of the first fails
    for delay in (0, *SCHEDULE):
        world.clock.advance(delay)
        assert [d.id for d in world.store.due(world.clock(), 10)] == [first.id]  # the second waits its turn
        world.dispatcher.run_due()
    dead = world.store.get_delivery(world.hook.id, first.id)
    assert dead is not None and dead.state is DeliveryState.DEAD and len(dead.attempts) == 4
    assert dead.next_attempt_at is None and dead.finished_at == world.clock()
    assert [d.id for d in world.store.due(world.clock(), 10)] == [second.id]
    world.dispatcher.run_due()
    delivered = world.store.get_delivery(world.hook.id, second.id)
    assert delivered is not None and delivered.state is DeliveryState.DELIVERED


def test_410_gone_turns_the_webhook_off_and_cancels_what_waits(world: World) -> None:
    first, second = fan_out(world.store, [world.event("one"), world.event("two")], world.clock())
    world.sender.script = [410]
    world.dispatcher.run_due()
    hook = world.store.get_webhook(world.hook.id)
    assert hook is not None and not hook.is_active and hook.deactivated_reason == "410 Gone"
    states = {d.id: d.state for d in world.store.deliveries_of(world.hook.id, None, 10, 0)}
    assert states == {first.id: DeliveryState.DEAD, second.id: DeliveryState.CANCELLED}
    assert world.store.due(world.clock(), 10) == [] and len(world.sender.sent) == 1
    assert fan_out(world.store, [world.event("three")], world.clock()) == []  # an inactive webhook gets nothing


def test_the_relay_fans_out_to_subscribed_webhooks_of_the_events_project(world: World) -> None:
    other = world.hook.changed(id=new_id(), event_types=("memory_delete",))
    elsewhere = world.hook.changed(id=new_id(), project_id="proj_b")
    world.store.add_webhook(other)
    world.store.add_webhook(elsewhere)
    published: list[str] = []

    class Outbox:
        events = [world.event("added"), world.event("gone", "memory_delete")]

        def pending(self, limit: int) -> list[OutboundEvent]:
            return self.events[:limit]

        def published(self, event_ids: Sequence[str]) -> None:
            published.extend(event_ids)
            self.events = [e for e in self.events if e.id not in event_ids]

    outbox = Outbox()
    relay = WebhookRelay(world.store, lambda: [outbox], clock=world.clock)
    assert relay.drain() == 2 and relay.drain() == 0
    assert len(published) == 2
    assert [d.event.type for d in world.store.deliveries_of(world.hook.id, None, 10, 0)] == ["memory_add"]
    assert [d.event.type for d in world.store.deliveries_of(other.id, None, 10, 0)] == ["memory_delete"]
    assert world.store.deliveries_of(elsewhere.id, None, 10, 0) == []


def test_a_delivery_attempted_by_two_callers_is_sent_once(world: World) -> None:
    # Given a test event's delivery, read as due by the worker while its request sends it at once
    fan_out(world.store, [world.event()], world.clock())
    (copy,) = world.store.due(world.clock(), 10)
    release = threading.Event()
    first_send = world.sender.send

    def slow_send(url: str, body: bytes, headers: Mapping[str, str]) -> SendResult:
        release.wait(5)
        return first_send(url, body, headers)

    world.sender.send = slow_send  # type: ignore[method-assign]
    answers: list[Delivery] = []
    first = threading.Thread(target=lambda: answers.append(world.dispatcher.attempt(copy)))
    first.start()
    second = threading.Thread(target=lambda: answers.append(world.dispatcher.attempt(copy)))
    second.start()

    # When both attempt it, the second while the first is sending
    release.set()
    first.join(5)
    second.join(5)

    # Then the receiver gets it once, and both callers see it delivered
    assert len(world.sender.sent) == 1
    assert [d.state for d in answers] == [DeliveryState.DELIVERED, DeliveryState.DELIVERED]
    # And a copy read before that attempt sends nothing either
    assert world.dispatcher.attempt(copy).state is DeliveryState.DELIVERED and len(world.sender.sent) == 1


def test_a_test_event_is_sent_once_by_its_request_and_never_found_due_by_the_worker_meanwhile(world: World) -> None:
    # Given a webhook test sent by its request, and the worker running while that request's attempt is on its way
    service = WebhookService(world.store, world.sender, world.dispatcher.attempt, clock=world.clock)
    owner: Any = SimpleNamespace(project_id=world.hook.project_id, role=Role.OWNER)
    first_send = world.sender.send
    found_by_the_worker: list[int] = []

    def send_while_the_worker_runs(url: str, body: bytes, headers: Mapping[str, str]) -> SendResult:
        if not found_by_the_worker:  # once: the worker's own send, if it made one, does not run it again
            found_by_the_worker.append(-1)
            found_by_the_worker[0] = world.dispatcher.run_due()
        return first_send(url, body, headers)

    world.sender.send = send_while_the_worker_runs  # type: ignore[method-assign]

    # When the test is sent
    sent = service.send_test(owner, world.hook.id)

    # Then the worker found nothing due meanwhile, and the receiver got the event once, delivered
    assert found_by_the_worker == [0]
    assert len(world.sender.sent) == 1 and sent.state is DeliveryState.DELIVERED
    # And later the worker finds nothing due either
    world.clock.advance(24 * 3600)
    assert world.dispatcher.run_due() == 0 and len(world.sender.sent) == 1


def test_a_test_event_whose_request_died_is_sent_by_the_worker_later(world: World) -> None:
    # Given a webhook test whose request dies while sending it (before its attempt is recorded)
    service = WebhookService(world.store, world.sender, world.dispatcher.attempt, clock=world.clock)
    owner: Any = SimpleNamespace(project_id=world.hook.project_id, role=Role.OWNER)
    first_send = world.sender.send

    def dying(url: str, body: bytes, headers: Mapping[str, str]) -> SendResult:
        raise SystemExit("the request's process ends")

    world.sender.send = dying  # type: ignore[method-assign]
    with pytest.raises(SystemExit):
        service.send_test(owner, world.hook.id)
    world.sender.send = first_send  # type: ignore[method-assign]

    # Then the worker sends it once it is due, not before, and once
    assert world.dispatcher.run_due() == 0
    world.clock.advance(TEST_HELD.total_seconds())
    assert world.dispatcher.run_due() == 1 and world.dispatcher.run_due() == 0
    assert len(world.sender.sent) == 1 and b"webhook_test" in world.sender.sent[0][1]


def test_no_attempt_may_outlast_a_test_events_hold() -> None:
    # The longest attempt a deployment may set ends before the worker may find a test event due (send_test's hold)
    with pytest.raises(ValidationError, match="webhook_timeout"):
        Settings(webhook_timeout=301)
    assert timedelta(seconds=Settings(webhook_timeout=300).webhook_timeout) < TEST_HELD
