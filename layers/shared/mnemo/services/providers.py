"""The providers the memory services use right now. Configuration swaps the whole set at once."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

from mnemo.ports.embedder import Embedder
from mnemo.ports.llm import LLM


@dataclass(frozen=True, slots=True)
class ProviderSet:
    embedder: Embedder
    llm: LLM | None = None
    custom_instructions: str | None = None


class ActiveProviders:
    """A thread-safe holder of the current ProviderSet."""

    def __init__(self, initial: ProviderSet, follow: Callable[[], object] | None = None) -> None:
        self._current = initial
        self._lock = threading.Lock()
        self.follow = follow  # called before each read: where another process may change the providers

    def get(self) -> ProviderSet:
        if self.follow is not None:
            self.follow()
        return self._current

    def swap(self, new: ProviderSet) -> None:
        with self._lock:
            self._current = new
