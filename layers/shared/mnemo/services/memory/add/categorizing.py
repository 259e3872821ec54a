"""Filing new memories under categories by embedding similarity (mnemo.services.category_classifier): every
memory of a categorized add, a reworded one, a synthesized one. The categorizer is kept while the embedder stays
the same, so the categories' own embeddings are computed once per embedder."""

from __future__ import annotations

from dataclasses import replace

from mnemo.domain.memory import MemoryRecord
from mnemo.ports.embedder import Vectors
from mnemo.services.category_classifier import EmbeddingCategorizer, Rule
from mnemo.services.commands import Category
from mnemo.services.memory.parts import MemoryParts

# Every memory of a categorized add gets a category: `misc` (of the default set) when none reaches the threshold.
FILING_RULE = Rule(fallback=True)


class Categorizing:
    def __init__(self, parts: MemoryParts) -> None:
        self._parts = parts
        self._categorizer: EmbeddingCategorizer | None = None

    def filed(
        self, records: list[MemoryRecord], vectors: Vectors, category_set: tuple[Category, ...]
    ) -> list[MemoryRecord]:
        """The records, each one without categories filed under `category_set` by embedding similarity."""
        unfiled = [i for i, r in enumerate(records) if not r.categories]
        if not category_set or not unfiled:
            return records
        embedder = self._parts.providers.get().embedder
        if self._categorizer is None or self._categorizer.embedder is not embedder:
            self._categorizer = EmbeddingCategorizer(embedder, FILING_RULE, words=self._parts.language)
        chosen = self._categorizer.categorize_vectors(vectors[unfiled], category_set)
        out = list(records)
        for i, names in zip(unfiled, chosen, strict=True):
            out[i] = replace(records[i], categories=names)
        return out
