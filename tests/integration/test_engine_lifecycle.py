"""The engine across restarts and configuration changes: what the index holds, and what survives."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from mnemo.composition.container import build_container
from mnemo.domain import filters as f
from mnemo.domain.memory import Event, HistoryEntry, LifecycleState, Scope
from mnemo.errors import ValidationError
from mnemo.services.commands import AddCommand, Message, SearchCommand
from mnemo.settings import Settings
from tests.conftest import CachedModelRegistry
from tests.support.openai_server import OpenAIServer


@pytest.fixture
def llm_server() -> Iterator[OpenAIServer]:
    with OpenAIServer() as server:
        yield server


def remember(container, user: str, *texts: str) -> None:
    container.memory_service.add(
        AddCommand(messages=[Message("user", t) for t in texts], scope=Scope(user_id=user), infer=False)
    )


def test_delete_all_refuses_a_filter_that_does_not_pin_an_entity(container) -> None:
    # Given memories of two users
    remember(container, "ann", "Ann plays the cello")
    remember(container, "bob", "Bob plays the drums")
    # When a delete-all filter only mentions a user inside an OR (it could match everyone)
    loose = f.parse({"OR": [{"user_id": "ann"}, {"memory": {"contains": "plays"}}]})
    # Then it is refused and nothing is deleted
    with pytest.raises(ValidationError):
        container.memory_service.delete_all(loose)
    assert container.memory_service.count(f.parse({"user_id": "bob"})) == 1


def test_superseded_memories_are_found_only_when_asked_for_after_a_restart(data_dir: Path, registry) -> None:
    first = build_container(Settings(data_dir=data_dir), registry)
    remember(first, "ann", "Ann lives in Lisbon", "Ann works as a nurse")
    lisbon = first.memory_service.get_all(f.parse({"user_id": "ann"}), top_k=None)[-1]
    superseded = lisbon.changed(state=LifecycleState.SUPERSEDED, replaced_by="someone-else")
    first.memory_service.store.replace(superseded, None, HistoryEntry.of(Event.DELETE, superseded, lisbon.text, None))
    first.close()

    second = build_container(Settings(data_dir=data_dir), registry)
    try:
        assert second.memory_service.index.count() == 2  # loaded from the store: every memory, any state
        question = SearchCommand("Where does Ann live?", f.parse({"user_id": "ann"}))
        found = second.memory_service.search(question)
        assert lisbon.id not in [r.record.id for r in found]  # active only, by default
        states = (LifecycleState.ACTIVE, LifecycleState.SUPERSEDED)
        asked = second.memory_service.search(replace(question, states=states))
        assert lisbon.id in [r.record.id for r in asked]
        assert [r.record.state for r in asked if r.record.id == lisbon.id] == [LifecycleState.SUPERSEDED]
    finally:
        second.close()


def test_a_redacted_secret_sent_back_keeps_the_stored_one(container, llm_server: OpenAIServer) -> None:
    llm = {"provider": "openai", "config": {"base_url": llm_server.base_url, "api_key": "sk-real-secret"}}
    container.configuration.update({"llm": llm})
    shown = container.configuration.redacted()
    assert shown["llm"]["config"]["api_key"] == "[redacted]"
    # The dashboard posts back what it was shown, with one field changed
    shown["llm"]["config"]["temperature"] = 0.5
    container.configuration.update({"llm": shown["llm"]})
    stored = container.configuration.current()["llm"]["config"]
    assert stored["api_key"] == "sk-real-secret"
    assert stored["temperature"] == 0.5


def test_changing_the_embedder_by_environment_reembeds_at_start_up(
    data_dir: Path, registry: CachedModelRegistry, llm_server: OpenAIServer
) -> None:
    # Given memories embedded by the local model (384 dimensions)
    first = build_container(Settings(data_dir=data_dir), registry)
    remember(first, "ann", "Ann adopted a grey cat named Pixel")
    first.close()
    # When the service restarts with another embedder set in its settings (64 dimensions)
    settings = Settings(
        data_dir=data_dir,
        embedder_provider="openai",
        embedder_config={"base_url": llm_server.base_url, "model": "tiny", "embedding_dims": 64},
    )
    second = build_container(settings, registry)
    try:
        # Then every memory was embedded again and search works with the new embedder
        assert any(t == "Ann adopted a grey cat named Pixel" for t in llm_server.embedded_texts())
        found = second.memory_service.search(SearchCommand("grey cat Pixel", f.parse({"user_id": "ann"})))
        assert [r.record.text for r in found] == ["Ann adopted a grey cat named Pixel"]
    finally:
        second.close()
