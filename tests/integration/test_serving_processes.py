"""Several processes serving one data dir (`mnemo serve --workers N`): each runs the background writers and the jobs
it queues; one of them, the leader (it holds the data dir's lease), also relays webhook events, ticks Dream's
schedule and queues again what a stop left unfinished. When the leader stops, the next process started leads."""

from __future__ import annotations

import threading
from pathlib import Path

from mnemo.composition.container import Container, build_container
from mnemo.settings import Settings


def serving_process(data_dir: Path, registry) -> Container:
    return build_container(Settings(data_dir=data_dir, auth_disabled=True, http_workers=2), registry)


def running(name: str) -> int:
    return sum(1 for thread in threading.enumerate() if thread.name == name and thread.is_alive())


def test_given_two_processes_on_one_data_dir_then_one_relays_webhooks_and_each_runs_its_own_adds(data_dir, registry):
    before_relays, before_adds = running("mnemo-webhook-worker"), running("mnemo-platform-worker")
    leader = serving_process(data_dir, registry)
    follower = serving_process(data_dir, registry)
    try:
        assert running("mnemo-webhook-worker") == before_relays + 1  # the leader's only
        assert running("mnemo-platform-worker") == before_adds + 2  # each runs the adds it queues
    finally:
        leader.close()
    try:
        successor = serving_process(data_dir, registry)  # started in place of the leader: it takes the lease
        try:
            assert running("mnemo-webhook-worker") == before_relays + 1
        finally:
            successor.close()
    finally:
        follower.close()


def test_given_one_process_then_it_leads_without_a_lease_file(data_dir, registry):
    alone = build_container(Settings(data_dir=data_dir, auth_disabled=True), registry)
    try:
        assert running("mnemo-webhook-worker") >= 1
        assert not (data_dir / "background.lock").exists()
    finally:
        alone.close()


def test_given_two_processes_when_one_changes_the_configuration_then_the_other_follows_before_its_next_use(
    data_dir, registry
):
    first = serving_process(data_dir, registry)
    second = serving_process(data_dir, registry)
    try:
        assert second.configuration.providers.get().custom_instructions is None

        first.configuration.update({"custom_instructions": "Only remember facts about gardening."})

        assert second.configuration.providers.get().custom_instructions == "Only remember facts about gardening."
        assert second.configuration.redacted() == first.configuration.redacted()
    finally:
        second.close()
        first.close()


def test_given_one_process_then_its_providers_do_not_look_for_changes_elsewhere(data_dir, registry):
    alone = build_container(Settings(data_dir=data_dir, auth_disabled=True), registry)
    try:
        assert alone.configuration.providers.follow is None
    finally:
        alone.close()
