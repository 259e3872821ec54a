"""Providers by name, imported only when used: the local process never imports boto3 unless asked to."""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel
from pydantic import ValidationError as PydanticValidationError

from mnemo.errors import ValidationError
from mnemo.ports.embedder import Embedder
from mnemo.ports.llm import LLM


@dataclass(frozen=True, slots=True)
class ProviderSpec:
    factory: str  # "module:Class"
    config: str  # "module:ConfigModel"
    description: str


EMBEDDERS: dict[str, ProviderSpec] = {
    "local": ProviderSpec(
        "mnemo.adapters.embedders.local_minilm:LocalMiniLMEmbedder",
        "mnemo.adapters.embedders.local_minilm:LocalEmbedderConfig",
        "all-MiniLM-L6-v2 on the CPU, offline (384 dimensions)",
    ),
    "openai": ProviderSpec(
        "mnemo.adapters.embedders.openai:OpenAIEmbedder",
        "mnemo.adapters.embedders.openai:OpenAIEmbedderConfig",
        "any OpenAI-compatible /embeddings endpoint",
    ),
    "ollama": ProviderSpec(
        "mnemo.adapters.embedders.ollama:OllamaEmbedder",
        "mnemo.adapters.embedders.ollama:OllamaEmbedderConfig",
        "Ollama's native /api/embed endpoint",
    ),
    "bedrock": ProviderSpec(
        "mnemo.adapters.embedders.bedrock:BedrockEmbedder",
        "mnemo.adapters.embedders.bedrock:BedrockEmbedderConfig",
        "Amazon Titan Text Embeddings V2 on Amazon Bedrock",
    ),
    "gemini": ProviderSpec(
        "mnemo.adapters.embedders.gemini:GeminiEmbedder",
        "mnemo.adapters.embedders.gemini:GeminiEmbedderConfig",
        "Google's Gemini API (batchEmbedContents; text-embedding-004, 768 dimensions, by default)",
    ),
    "azure_openai": ProviderSpec(
        "mnemo.adapters.embedders.azure_openai:AzureOpenAIEmbedder",
        "mnemo.adapters.embedders.azure_openai:AzureOpenAIEmbedderConfig",
        "an embeddings deployment of Azure OpenAI",
    ),
}
LLMS: dict[str, ProviderSpec] = {
    "anthropic": ProviderSpec(
        "mnemo.adapters.llms.anthropic:AnthropicLLM",
        "mnemo.adapters.llms.anthropic:AnthropicLLMConfig",
        "Anthropic's Messages API (Claude), over HTTP without the SDK",
    ),
    "openai": ProviderSpec(
        "mnemo.adapters.llms.openai:OpenAILLM",
        "mnemo.adapters.llms.openai:OpenAILLMConfig",
        "any OpenAI-compatible /chat/completions endpoint (OpenAI, vLLM, Ollama, …)",
    ),
    "ollama": ProviderSpec(
        "mnemo.adapters.llms.ollama:OllamaLLM",
        "mnemo.adapters.llms.ollama:OllamaLLMConfig",
        "Ollama's native /api/chat endpoint",
    ),
    "bedrock": ProviderSpec(
        "mnemo.adapters.llms.bedrock:BedrockLLM",
        "mnemo.adapters.llms.bedrock:BedrockLLMConfig",
        "Amazon Bedrock's Converse API",
    ),
    "gemini": ProviderSpec(
        "mnemo.adapters.llms.gemini:GeminiLLM",
        "mnemo.adapters.llms.gemini:GeminiLLMConfig",
        "Google's Gemini API (generateContent; gemini-2.0-flash by default)",
    ),
    "azure_openai": ProviderSpec(
        "mnemo.adapters.llms.azure_openai:AzureOpenAILLM",
        "mnemo.adapters.llms.azure_openai:AzureOpenAILLMConfig",
        "a chat deployment of Azure OpenAI",
    ),
}
KINDS = {"embedder": EMBEDDERS, "llm": LLMS}


def _load(path: str) -> Any:
    module, _, name = path.partition(":")
    return getattr(importlib.import_module(module), name)


@dataclass(frozen=True, slots=True)
class EmbedBatching:
    """Concurrent embedder calls share one call (adapters/embedders/micro_batching.py): how long the first waits
    for others, in seconds, and how many texts one shared call takes at most."""

    max_wait: float
    max_texts: int


class ProviderRegistry:
    """The catalogue the configuration service builds providers from (see ports.providers). With `embed_batching`,
    every embedder it builds whose batched calls cost less per text is wrapped in a MicroBatchingEmbedder: all but
    the local int8 model, which embeds one text per run (`shares_batch_work` false), so that sharing a call would
    only add the wait."""

    embed_batching: EmbedBatching | None = None

    def __init__(self, embed_batching: EmbedBatching | None = None) -> None:
        self.embed_batching = embed_batching

    def bundled(self) -> dict[str, list[str]]:
        return {"llm": sorted(LLMS), "embedder": sorted(EMBEDDERS)}

    def build_embedder(self, provider: str, config: dict[str, Any] | None) -> Embedder:
        typed = validate("embedder", provider, config)
        embedder: Embedder = _load(EMBEDDERS[provider].factory)(typed)
        if self.embed_batching is not None and getattr(embedder, "shares_batch_work", True):
            from mnemo.adapters.embedders.micro_batching import MicroBatchingEmbedder

            batching = self.embed_batching
            return MicroBatchingEmbedder(embedder, max_wait=batching.max_wait, max_texts=batching.max_texts)
        return embedder

    def build_llm(self, provider: str, config: dict[str, Any] | None) -> LLM:
        typed = validate("llm", provider, config)
        llm: LLM = _load(LLMS[provider].factory)(typed)
        return llm


def validate(kind: str, provider: Any, config: Any) -> BaseModel:
    """The provider's typed config, or a ValidationError that says what is wrong."""
    specs = KINDS[kind]
    if not isinstance(provider, str) or provider not in specs:
        label = "LLM" if kind == "llm" else "Embedder"
        raise ValidationError(
            f"{label} provider {provider!r} is not bundled. Bundled providers: {', '.join(sorted(specs))}."
        )
    if config is not None and not isinstance(config, dict):
        raise ValidationError(f"{kind}.config must be an object.")
    model: type[BaseModel] = _load(specs[provider].config)
    try:
        return model.model_validate(config or {})
    except PydanticValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'config'}: {e['msg']}" for e in exc.errors())
        raise ValidationError(f"Invalid {kind} config for provider '{provider}': {problems}.") from exc
