"""`mnemo platform bootstrap` starts a tenant; the real `mnemo serve` serves the platform beside the self-hosted
surface on one port and one data dir; a queued add survives a restart of the process."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import httpx
from mem0 import MemoryClient

from mnemo.composition.container import build_container
from mnemo.domain import filters as f
from mnemo.domain.memory import Scope
from mnemo.domain.tenancy import EventStatus
from mnemo.services.commands import AddCommand, Message
from mnemo.settings import Settings
from tests.conftest import CachedModelRegistry
from tests.e2e.platform.conftest import Tenant, wait_for_event
from tests.e2e.test_concurrency_and_restart import MNEMO, serving
from tests.support.waits import HTTP_TIMEOUT, seconds


def run_bootstrap(data_dir: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(MNEMO), "platform", "bootstrap", "--data-dir", str(data_dir), *extra],
        capture_output=True,
        text=True,
        timeout=seconds(60),
        check=False,
    )


def test_bootstrap_then_serve_both_surfaces_on_one_port(tmp_path: Path) -> None:
    data_dir = tmp_path / "served"
    done = run_bootstrap(data_dir, "--email", "Ops@Example.com", "--org", "Acme", "--project", "Main", "--json")
    assert done.returncode == 0, done.stderr
    started = json.loads(done.stdout)
    assert set(started) == {"api_key", "org_id", "project_id"} and started["api_key"].startswith("m0-")
    human = run_bootstrap(data_dir, "--email", "second@example.com", "--org", "Beta")
    assert "API key:      m0-" in human.stdout and "shown only now" in human.stdout
    assert run_bootstrap(data_dir, "--email", "not-an-email", "--org", "X").returncode == 1

    with serving(data_dir, tmp_path / "serve.log") as base:
        client = MemoryClient(api_key=started["api_key"], host=base)
        assert (client.org_id, client.project_id, client.user_email) == (
            started["org_id"],
            started["project_id"],
            "ops@example.com",
        )
        project = client.project.get()
        assert project["name"] == "Main" and project["is_default"] is True
        tenant = Tenant(started["api_key"], started["org_id"], started["project_id"], "ops@example.com")
        queued = client.add("I keep three cats at home.", user_id="alice")
        assert wait_for_event(base, tenant, queued["event_id"])["status"] == "SUCCEEDED"
        found = client.search("pets", filters={"user_id": "alice"})["results"]
        assert found[0]["memory"] == "I keep three cats at home."
        # the self-hosted surface on the same port keeps its own data
        selfhosted = httpx.get(f"{base}/memories", params={"user_id": "alice"}, timeout=HTTP_TIMEOUT).json()
        assert selfhosted == {"results": []}
        assert httpx.get(f"{base}/v1/memories/", params={"user_id": "alice"}, timeout=HTTP_TIMEOUT).status_code == 401


def test_a_queued_add_survives_a_restart(tmp_path: Path, registry: CachedModelRegistry) -> None:
    settings = Settings(data_dir=tmp_path / "data", auth_disabled=True)
    first = build_container(settings, registry)
    made = first.platform.tenancy.bootstrap("ops@example.com", "Acme")
    first.workers.worker("platform-worker").stop()  # the process dies before its worker runs the job
    command = AddCommand([Message("user", "I ride a red bicycle to work.")], Scope(user_id="alice"))
    event = first.platform.project_memory.add(made.project, command)
    assert event.status is EventStatus.PENDING
    first.close()

    second = build_container(settings, registry)  # its worker queues every unfinished event again
    try:
        assert second.platform is not None
        events = second.platform.events
        deadline = time.monotonic() + seconds(30)
        while (finished := events.get(made.project.id, event.id)).status in (
            EventStatus.PENDING,
            EventStatus.RUNNING,
        ):
            assert time.monotonic() < deadline, "the event was not run after the restart"
            time.sleep(0.02)
        assert finished.status is EventStatus.SUCCEEDED, finished.error
        assert [r["data"]["memory"] for r in finished.results] == ["I ride a red bicycle to work."]
        alice = f.Condition("user_id", "eq", "alice")
        service = second.platform.namespaces.memory_service(made.project.id)
        assert [r.text for r in service.get_all(alice)] == ["I ride a red bicycle to work."]
        assert second.memory_service.get_all(alice) == []  # nothing reached the self-hosted namespace
    finally:
        second.close()
