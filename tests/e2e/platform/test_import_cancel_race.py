"""A cancel that lands between the import worker's read of its event and its next progress write (the race of a
busy server): the cancel stands. The store refuses to move the CANCELLED event back to RUNNING, and the worker,
refused, stops at that item and records what it added under the cancel.

The race is made on purpose, not waited for: a hook on the import jobs' event reads sends POST /v1/event/{id}/cancel/
right after the worker has read its event RUNNING (the read before an item), so the worker's next write is the one
that would have undone the cancel. The embedded backend, where the worker runs in the server's process."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from mnemo.domain.tenancy import EventStatus, PlatformEvent
from mnemo.ports.tenancy_store import EventStore
from mnemo.services.platform.jobs import imports
from tests.e2e.platform.conftest import Server, local_backend, new_tenant, serving, wait_for_event
from tests.e2e.platform.test_import import settle
from tests.support.waits import HTTP_TIMEOUT, seconds

ITEMS = 40
CANCEL_AT_READ = 6  # the worker's sixth read of its event RUNNING, before its sixth item: five are added by then


class CancelAfterRead:
    """The import jobs' EventStore, whose `CANCEL_AT_READ`-th read of the watched event RUNNING is followed, before
    the read is returned, by `cancel` (a POST over HTTP): the worker goes on with what it read, as after a real race.
    Its reads wait until `watch` names the event (known only once the import is acknowledged)."""

    def __init__(self, store: EventStore) -> None:
        self._store = store
        self._watched = ""
        self._cancel: Callable[[], httpx.Response] = lambda: httpx.Response(500)
        self._ready = threading.Event()
        self._reads = 0
        self.answers: list[httpx.Response] = []

    def watch(self, event_id: str, cancel: Callable[[], httpx.Response]) -> None:
        self._watched, self._cancel = event_id, cancel
        self._ready.set()

    def get_event(self, project_id: str, event_id: str) -> PlatformEvent | None:
        assert self._ready.wait(seconds(30)), "the test never named the import"
        read = self._store.get_event(project_id, event_id)
        if event_id == self._watched and read is not None and read.status is EventStatus.RUNNING:
            self._reads += 1
            if self._reads == CANCEL_AT_READ:
                self.answers.append(self._cancel())
        return read

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)


@pytest.fixture
def server(embedder: Any, tmp_path: Path) -> Iterator[Server]:
    with local_backend(embedder, tmp_path) as container, serving(container) as url:
        yield Server(url, container, "local")


def test_a_cancel_between_the_workers_read_and_its_write_is_never_undone(
    server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given an import whose worker stores its progress after every item, and reads its event through the hook
    monkeypatch.setattr(imports, "PROGRESS_EVERY_ITEMS", 1)
    jobs = server.platform.imports
    hook = CancelAfterRead(jobs._events)
    monkeypatch.setattr(jobs, "_events", hook)
    tenant = new_tenant(server)
    http = httpx.Client(base_url=server.url, headers=tenant.headers, timeout=HTTP_TIMEOUT)
    items = [{"memory": f"Imported fact number {i} about the orchard", "user_id": "grower"} for i in range(ITEMS)]
    queued = http.post("/v1/memories/import/", json={"items": items})
    assert queued.status_code == 200, queued.text
    event_id = queued.json()["event_id"]

    # When a cancel lands right after one of the worker's reads, before its next progress write
    hook.watch(event_id, lambda: http.post(f"/v1/event/{event_id}/cancel/"))
    settle(server, tenant, http)  # the worker has done all it will do with the import

    # Then the cancel was accepted, and stands: the import stopped there, keeping what it had added
    (answer,) = hook.answers
    assert answer.status_code == 200, answer.text
    event = wait_for_event(server, tenant, event_id)
    assert event["status"] == "CANCELLED", event
    assert event["error"].startswith("Cancelled while running:"), event
    added = CANCEL_AT_READ - 1
    assert [r["index"] for r in event["results"]] == list(range(added)), event["results"]
    assert all(r["status"] == "ADDED" for r in event["results"])
    kept = http.get("/v1/memories/", params={"user_id": "grower", "page": 1, "page_size": 100}).json()
    assert kept["count"] == added
