"""An inferred add asks its providers everything before it writes anything: the LLM's facts and decisions, and
every embedding the decisions need (new, updated and retired memories). A provider that fails then leaves nothing
half-done, so a queued add can safely be tried again whole."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from mnemo.adapters.embedders.local_minilm import LocalMiniLMEmbedder
from mnemo.adapters.sqlite.namespaces import SqliteMemoryNamespaces
from mnemo.domain import filters as f
from mnemo.domain.llm_usage import LLMUsage
from mnemo.domain.memory import Scope
from mnemo.errors import ProviderError
from mnemo.language.en import english
from mnemo.ports.embedder import Vectors
from mnemo.ports.llm import ChatMessage, Completion, JsonSchema
from mnemo.services.commands import AddCommand, Message
from mnemo.services.namespace_memory import NamespaceMemoryServices
from mnemo.services.providers import ActiveProviders, ProviderSet

LISTED = re.compile(r'\{"id": "(\d+)", "text": "([^"]*)"\}')


class DecidingLLM:
    """Extracts two facts; then moves Paris to Lisbon (UPDATE), retires the cat (DELETE), adds the dog (ADD)."""

    name = "scripted"

    def complete(
        self, messages: list[ChatMessage], *, json_mode: bool = False, schema: JsonSchema | None = None
    ) -> Completion:
        return Completion(self._reply(messages), LLMUsage.of_call(10, 2))

    def _reply(self, messages: list[ChatMessage]) -> str:
        prompt = messages[-1]["content"]
        ids = {text: ref for ref, text in LISTED.findall(prompt)}
        if not ids:
            return json.dumps({"facts": ["Lives in Lisbon", "Has a dog, not a cat"]})
        return json.dumps(
            {
                "memory": [
                    {"id": ids["I live in Paris"], "text": "Lives in Lisbon", "event": "UPDATE"},
                    {"id": ids["I have a cat"], "text": "I have a cat", "event": "DELETE"},
                    {"id": "new", "text": "Has a dog", "event": "ADD"},
                ]
            }
        )


class DownOnceWritten:
    """The embedder, refusing every call once the store has been written to (a provider going down midway)."""

    def __init__(self, inner: LocalMiniLMEmbedder) -> None:
        self.inner = inner
        self.written = False
        self.name = inner.name
        self.dimension = inner.dimension

    def embed(self, texts: list[str]) -> Vectors:
        if self.written:
            raise ProviderError("Provider is unreachable or returned a server error.", "provider_unavailable")
        return self.inner.embed(texts)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def test_an_add_that_updates_deletes_and_adds_embeds_everything_before_its_first_write(
    embedder: LocalMiniLMEmbedder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    watched = DownOnceWritten(embedder)
    providers = ActiveProviders(ProviderSet(embedder=watched))
    namespaces = NamespaceMemoryServices(
        SqliteMemoryNamespaces(tmp_path, facets=english()), providers, language=english()
    )
    service = namespaces.memory_service("proj_a")
    alice = Scope(user_id="alice")
    for text in ("I live in Paris", "I have a cat"):
        service.add(AddCommand(messages=[Message("user", text)], scope=alice, infer=False))
    for name in ("insert", "replace", "remove"):
        original = getattr(service.store, name)

        def writing(*args: Any, _original: Any = original, **kwargs: Any) -> Any:
            watched.written = True
            return _original(*args, **kwargs)

        monkeypatch.setattr(service.store, name, writing)
    providers.swap(ProviderSet(embedder=watched, llm=DecidingLLM()))

    results = service.add(AddCommand(messages=[Message("user", "I moved to Lisbon and got a dog")], scope=alice))

    assert sorted((r.event.value, r.record.text) for r in results) == [
        ("ADD", "Has a dog"),
        ("DELETE", "I have a cat"),
        ("UPDATE", "Lives in Lisbon"),
    ]
    assert watched.written
    assert sorted(r.text for r in service.get_all(f.parse({"user_id": "alice"}))) == ["Has a dog", "Lives in Lisbon"]
    namespaces.close()
