"""Webhooks survive a crash: a real `mnemo serve` is killed with SIGKILL while its receiver hangs (one delivery in
flight, the events of later adds still in the outbox, an asynchronous add still queued), and after a restart every
acknowledged change reaches the receiver, signed, in order, once after dropping repeats by `webhook-id`."""

from __future__ import annotations

import time
from pathlib import Path

import httpx
from standardwebhooks import Webhook as StandardWebhook

from tests.reliability.live_server import bootstrap, serving
from tests.support.waits import HTTP_TIMEOUT, LONG_HTTP_TIMEOUT, seconds
from tests.support.webhook_receiver import receiving

WEBHOOK_ENV = {
    "MNEMO_WEBHOOK_ALLOW_PRIVATE_URLS": "true",  # the receiver is on loopback
    "MNEMO_WEBHOOK_TIMEOUT": "120",  # the hanging receiver keeps the first delivery in flight until the kill
    "MNEMO_WEBHOOK_RETRY_SCHEDULE": "0.2,0.5,1",
}
ADDS = 12


def add(base: str, headers: dict[str, str], text: str, *, infer: bool = False) -> dict[str, object]:
    body = {"messages": [{"role": "user", "content": text}], "user_id": "alice", "infer": infer}
    answer = httpx.post(f"{base}/v3/memories/add/", json=body, headers=headers, timeout=LONG_HTTP_TIMEOUT)
    assert answer.status_code == 200, answer.text
    made: dict[str, object] = answer.json()
    return made


def test_acknowledged_changes_are_delivered_after_a_kill_9(tmp_path: Path) -> None:
    data, log = tmp_path / "data", tmp_path / "serve.log"
    tenant = bootstrap(data, "hooks@example.com", "Hooks")
    with receiving() as receiver:
        receiver.hold.set()
        texts = [f"Crash fact number {n} is worth keeping." for n in range(ADDS)]
        with serving(data, log, **WEBHOOK_ENV) as server:
            hooks = f"{server.base}/api/v1/webhooks/projects/{tenant.project_id}/"
            body = {"name": "crash", "url": receiver.url, "event_types": ["memory_add", "ingest_job_completed"]}
            made = httpx.post(hooks, json=body, headers=tenant.headers, timeout=HTTP_TIMEOUT)
            assert made.status_code == 201, made.text
            secret = made.json()["secret"]
            first = add(server.base, tenant.headers, texts[0])
            deadline = time.monotonic() + seconds(30)
            while receiver.arrived == 0:  # the first delivery is in flight, its receiver hanging
                assert time.monotonic() < deadline, server.log_text()
                time.sleep(0.05)
            acknowledged = [first] + [add(server.base, tenant.headers, text) for text in texts[1:]]
            queued = add(server.base, tenant.headers, "I moved to Porto in the autumn.", infer=True)
            assert queued["status"] == "PENDING"
            server.kill()
        receiver.release()
        with serving(data, log, **WEBHOOK_ENV):
            expected = ADDS + 2  # every verbatim add, the queued add's memory and its job's end
            got = receiver.wait_for_count(expected, timeout=120)
    events = [StandardWebhook(secret).verify(r.raw, r.headers) for r in got]
    added_ids = {str(a["results"][0]["id"]) for a in acknowledged}  # type: ignore[index]
    memory_adds = [e for e in events if e["event_type"] == "memory_add"]
    assert {e["event_details"]["id"] for e in memory_adds} >= added_ids
    assert [e["event_details"]["data"]["memory"] for e in memory_adds][:ADDS] == texts  # in the order they happened
    (job,) = [e for e in events if e["event_type"] == "ingest_job_completed"]
    assert job["event_details"]["job_id"] == queued["event_id"]
    sequences = [e["sequence"] for e in events]
    assert sequences == sorted(sequences) and len(set(sequences)) == len(sequences)
    assert len(got) == expected  # nothing more: every repeat had the webhook-id of its first
