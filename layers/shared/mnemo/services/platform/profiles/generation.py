"""Profile generation: a user's memories in, the project's profile schema filled out.

Two generators answer the same protocol: with an LLM configured, the LLM fills the schema (its output validated
against the schema, retried once); without one, each schema property is filled from the memories closest to the
property's description. Every filled value keeps the ids of the memories it came from (`sources`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from mnemo.domain.memory import MemoryRecord
from mnemo.language import ProfileValues
from mnemo.ports.embedder import Embedder
from mnemo.ports.llm import LLM

DraftStatus = Literal["succeeded", "insufficient_data", "failed"]


@dataclass(frozen=True, slots=True)
class ProfileDraft:
    """What one generation made. `profile` follows the schema (empty unless succeeded); `sources` maps each filled
    top-level property to the ids of the memories it came from; `reason` says why it failed, or what is missing
    when there was too little to say."""

    status: DraftStatus
    profile: dict[str, Any] = field(default_factory=dict)
    sources: dict[str, list[str]] = field(default_factory=dict)
    reason: str | None = None


class ProfileGenerator(Protocol):
    def generate(
        self, schema: Mapping[str, Any], instructions: str | None, memories: Sequence[MemoryRecord]
    ) -> ProfileDraft:
        """The profile of the user whose memories these are (newest first), following `schema` (a JSON Schema
        object whose every property has a description) and `instructions`. Never raises for what the memories or
        the model say: a failure is a draft with status `failed` and its reason. A provider that is down raises
        (mnemo.errors.ProviderError), so that the job can be retried."""
        ...


def profile_generator(
    llm: LLM | None, embedder: Embedder, *, min_memories: int = 1, values: ProfileValues | None = None
) -> ProfileGenerator:
    """The LLM generator when an LLM is configured, else the similarity generator on the embedder (reading the
    values a property asks for with the language pack's `values`); with fewer than `min_memories` memories, either
    answers `insufficient_data` (without asking the LLM)."""
    # Imported here: both modules import ProfileDraft from this one.
    from mnemo.services.platform.profiles.llm_generator import LlmProfileGenerator
    from mnemo.services.platform.profiles.similarity_generator import SimilarityProfileGenerator

    if llm is not None:
        return LlmProfileGenerator(llm, min_memories=min_memories)
    return SimilarityProfileGenerator(embedder, min_memories=min_memories, values=values)
