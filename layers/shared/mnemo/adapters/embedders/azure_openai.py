"""Embedder provider `azure_openai`: an embeddings deployment of Azure OpenAI."""

from __future__ import annotations

from mnemo.adapters.azure_openai import AzureOpenAIConfig
from mnemo.adapters.embedders.openai import OpenAIEmbeddings
from mnemo.adapters.openai_http import Pace


class AzureOpenAIEmbedderConfig(AzureOpenAIConfig):
    embedding_dims: int | None = None  # asks the deployment for this many dimensions when set
    batch_size: int = 256


class AzureOpenAIEmbedder(OpenAIEmbeddings):
    def __init__(self, config: AzureOpenAIEmbedderConfig, *, pace: Pace | None = None) -> None:
        self.config = config
        self.name = f"azure_openai/{config.deployment}"
        super().__init__(
            config.deployment_http(pace),
            batch_size=config.batch_size,
            embedding_dims=config.embedding_dims,
        )
