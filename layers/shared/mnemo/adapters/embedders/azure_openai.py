"""Embedder provider `azure_openai`: an embeddings deployment of Azure OpenAI."""

from __future__ import annotations

from mnemo.adapters.azure_openai import AzureOpenAIAccess, deployment_http
from mnemo.adapters.embedders.openai import OpenAIEmbeddings
from mnemo.adapters.openai_http import DEFAULT_MAX_RETRIES, MaxRetries, Pace, RetryPolicy, TotalTimeout


class AzureOpenAIEmbedderConfig(AzureOpenAIAccess):
    embedding_dims: int | None = None  # asks the deployment for this many dimensions when set
    batch_size: int = 256
    timeout: float = 60.0  # seconds, per attempt
    max_retries: MaxRetries = DEFAULT_MAX_RETRIES  # of a 429, 500, 502, 503, 504, dropped connection or timeout
    total_timeout: TotalTimeout = None  # seconds for the whole call (one batch), retries included; None: 2 × timeout


class AzureOpenAIEmbedder(OpenAIEmbeddings):
    def __init__(self, config: AzureOpenAIEmbedderConfig, *, pace: Pace | None = None) -> None:
        self.config = config
        self.name = f"azure_openai/{config.deployment}"
        retry = RetryPolicy.for_timeout(config.timeout, config.max_retries, config.total_timeout)
        super().__init__(
            deployment_http(config, config.timeout, retry, pace),
            batch_size=config.batch_size,
            embedding_dims=config.embedding_dims,
        )
