"""Embedder provider `bedrock`: Amazon Titan Text Embeddings V2 through boto3."""

from __future__ import annotations

import functools
import json
from typing import Any

import numpy as np
from pydantic import field_validator

from mnemo.adapters.bedrock_errors import boto_errors, provider_error
from mnemo.adapters.provider_config import BedrockModel
from mnemo.errors import ProviderError
from mnemo.ports.embedder import Vectors, unit_rows


class BedrockEmbedderConfig(BedrockModel):
    model: str = "amazon.titan-embed-text-v2:0"
    embedding_dims: int = 1024

    @field_validator("embedding_dims")
    @classmethod
    def _titan_sizes(cls, value: int) -> int:
        if value not in (256, 512, 1024):
            raise ValueError("Titan Text Embeddings V2 produces 256, 512 or 1024 dimensions")
        return value


class BedrockEmbedder:
    def __init__(self, config: BedrockEmbedderConfig, client: Any | None = None) -> None:
        self.config = config
        self.name = f"bedrock/{config.model}"
        self.dimension = config.embedding_dims
        self._given = client

    @functools.cached_property
    def _client(self) -> Any:
        """The bedrock-runtime client, made on the first call: a process that never calls the model (a function
        serving only accounts or keys) never builds it."""
        return self.config.runtime(self._given)

    def embed(self, texts: list[str]) -> Vectors:
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for row, text in enumerate(texts):  # Titan V2 embeds one text per call
            body = json.dumps({"inputText": text, "dimensions": self.dimension, "normalize": True})
            try:
                response = self._client.invoke_model(
                    modelId=self.config.model,
                    body=body,
                    contentType="application/json",
                    accept="application/json",
                )
                payload = json.loads(response["body"].read())
            except boto_errors() as exc:
                raise provider_error(exc) from exc
            vector = payload.get("embedding") if isinstance(payload, dict) else None
            if not isinstance(vector, list) or len(vector) != self.dimension:
                raise ProviderError(
                    "Amazon Bedrock returned no embedding of the expected size.", "provider_bad_response"
                )
            out[row] = vector
        return unit_rows(out)
