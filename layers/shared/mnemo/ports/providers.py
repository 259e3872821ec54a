"""The provider catalogue port: what is bundled, and building a provider from its name and config."""

from __future__ import annotations

from typing import Any, Protocol

from mnemo.ports.embedder import Embedder
from mnemo.ports.llm import LLM


class ProviderCatalog(Protocol):
    def bundled(self) -> dict[str, list[str]]: ...

    def build_embedder(self, provider: str, config: dict[str, Any] | None) -> Embedder:
        """Raises ValidationError when the provider is not bundled or its config is invalid."""
        ...

    def build_llm(self, provider: str, config: dict[str, Any] | None) -> LLM: ...
