"""GET /health through HTTP: unauthenticated, 200 with each worker's state while all are healthy, 503 while one
waits to be restarted after a crash."""

from __future__ import annotations

import threading
from dataclasses import replace

from fastapi.testclient import TestClient

from mnemo.api.app import create_app
from mnemo.composition.container import Container
from mnemo.services.workers import Backoff, Supervisor, Worker
from tests.support.waits import seconds

LOCAL_WORKERS = [
    "request-log",
    "access-writer",
    "retrieval-counts",
    "platform-worker",
    "webhook-worker",
    "profile-worker",
    "dream-schedule",
]


class CrashesOnce(Worker):
    name = "crashes-once"

    def __init__(self) -> None:
        super().__init__(backoff=Backoff(first=3600.0))  # it waits to be restarted for the whole test
        self.crashed = threading.Event()

    def run(self, stopping: threading.Event) -> None:
        self.crashed.set()
        raise RuntimeError("the store went away")


def test_health_reports_every_worker_of_mnemo_serve(client: TestClient) -> None:
    answer = client.get("/health")
    assert answer.status_code == 200
    body = answer.json()
    assert body["status"] == "ok"
    assert [w["name"] for w in body["workers"]] == LOCAL_WORKERS
    assert all(w["running"] and w["healthy"] and w["restarts"] == 0 for w in body["workers"])


def test_health_is_503_while_a_worker_waits_to_restart(container: Container) -> None:
    worker = CrashesOnce()
    served = replace(container, workers=Supervisor([worker]))
    served.workers.start()
    try:
        assert worker.crashed.wait(seconds(10))
        with TestClient(create_app(served)) as http:
            for _ in range(1000):  # the worker's thread marks it unhealthy just after the crash
                answer = http.get("/health")
                if answer.status_code == 503:
                    break
                worker.stopping.wait(0.01)
        assert answer.status_code == 503
        assert answer.json() == {
            "status": "unhealthy",
            "workers": [
                {
                    "name": "crashes-once",
                    "running": True,
                    "healthy": False,
                    "restarts": 1,
                    "last_error": "RuntimeError: the store went away",
                }
            ],
        }
    finally:
        served.workers.stop(10)
