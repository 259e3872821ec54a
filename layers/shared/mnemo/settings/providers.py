"""Which embedder and LLM the service uses, with their configuration, and how search weighs meaning against
words."""

from typing import Any

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class ProviderSettings(BaseSettings):
    """The embedder, the LLM, and the weights of search."""

    model_config = SettingsConfigDict(env_prefix="MNEMO_", extra="ignore", populate_by_name=True)

    embedder_provider: str = "local"
    embedder_config: dict[str, Any] = Field(default_factory=dict)
    embedder_extra_config: dict[str, Any] = Field(
        default_factory=dict, description="Merged over embedder_config (the template's EmbedderExtraConfig)."
    )
    llm_provider: str | None = None
    llm_config: dict[str, Any] = Field(default_factory=dict)
    llm_extra_config: dict[str, Any] = Field(
        default_factory=dict, description="Merged over llm_config (the template's LlmExtraConfig)."
    )

    semantic_weight: float = 0.5
    keyword_weight: float = 0.5

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
