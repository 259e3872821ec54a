"""Which embedder and LLM the service uses, with their configuration, and how search weighs meaning against
words."""

from typing import Any

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class ProviderSettings(BaseSettings):
    """The embedder, the LLM, and the weights of search."""

    model_config = SettingsConfigDict(env_prefix="MNEMO_", extra="ignore", populate_by_name=True)

    embedder_provider: str = Field(
        default="local",
        description="The default embedder: local (all-MiniLM-L6-v2 on the CPU, offline), openai, azure_openai, gemini, "
        "ollama or bedrock. POST /configure changes it at run time.",
    )
    embedder_config: dict[str, Any] = Field(
        default_factory=dict, description="The embedder's configuration, as a JSON object (model, base_url, ...)."
    )
    embedder_extra_config: dict[str, Any] = Field(
        default_factory=dict, description="Merged over embedder_config (the template's EmbedderExtraConfig)."
    )
    llm_provider: str | None = Field(
        default=None,
        description="The default LLM: openai, azure_openai, anthropic, gemini, ollama or bedrock; unset: no LLM (the "
        "deterministic extractor).",
    )
    llm_config: dict[str, Any] = Field(
        default_factory=dict,
        description="The LLM's configuration, as a JSON object, e.g. "
        '{"base_url": "http://localhost:11434/v1", "model": "llama3.1"}.',
    )
    llm_extra_config: dict[str, Any] = Field(
        default_factory=dict, description="Merged over llm_config (the template's LlmExtraConfig)."
    )
    llm_rules_beside: bool = Field(
        default=False,
        description="With an LLM, also store the deterministic extractor's statements its answer left out (none of "
        "the add's memories cites their sentence or says them in other words). For small local models, which miss "
        "facts; a capable model's answer is better alone.",
    )

    semantic_weight: float = Field(
        default=0.5, description="The weight of the semantic (cosine) score in the hybrid search's fused score."
    )
    keyword_weight: float = Field(
        default=0.5, description="The weight of the keyword (BM25) score in the hybrid search's fused score."
    )

    def default_provider_config(self) -> dict[str, Any]:
        return {
            "version": "v1.1",
            "embedder": {
                "provider": self.embedder_provider,
                "config": {**self.embedder_config, **self.embedder_extra_config},
            },
            "llm": {"provider": self.llm_provider, "config": {**self.llm_config, **self.llm_extra_config}}
            if self.llm_provider
            else None,
            "custom_instructions": None,
        }
