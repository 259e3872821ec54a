"""An add's `includes` and `excludes` on the path without an LLM: which statements are about the topics it asks
for (mnemo.services.extraction.topics). The matcher is kept while the embedder stays the same."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from mnemo.ports.embedder import Vectors
from mnemo.services.commands import AddCommand
from mnemo.services.extraction.topics import TopicMatcher, topics_of
from mnemo.services.memory.parts import MemoryParts


class Topics:
    def __init__(self, parts: MemoryParts) -> None:
        self._parts = parts
        self._matcher: TopicMatcher | None = None

    def wanted(self, vectors: Vectors, command: AddCommand) -> npt.NDArray[np.bool_]:
        """Which statements the add's `includes` and `excludes` let through: with `includes`, only those about one
        of its topics; never one about a topic of `excludes`."""
        keep = np.ones(len(vectors), dtype=bool)
        embedder = self._parts.providers.get().embedder
        if self._matcher is None or self._matcher.embedder is not embedder:
            self._matcher = TopicMatcher(embedder, self._parts.language)
        for text, wanted in ((command.includes, True), (command.excludes, False)):
            named = topics_of(self._parts.language, text)
            if named:
                keep &= self._matcher.about(vectors, named) == wanted
        return keep
