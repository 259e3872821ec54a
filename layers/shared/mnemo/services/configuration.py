"""Runtime configuration of the providers: validated, applied at once, persisted with its secrets sealed (a
SecretBox, mnemo.services.config_secrets), shown redacted."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from mnemo.domain.json_shape import json_problem
from mnemo.errors import ValidationError
from mnemo.ports.memory_store import MemoryStore
from mnemo.services.config_secrets import redact
from mnemo.services.configured_providers import SETTINGS_KEY, ConfiguredProviders, merge_config
from mnemo.services.providers import ActiveProviders

__all__ = ["SETTINGS_KEY", "ConfigurationService", "ConfiguredProviders", "check_keys", "merge_config", "names_an_llm"]
CONFIGURABLE = ("version", "llm", "embedder", "custom_instructions")
FIXED_BY_DEPLOYMENT = ("vector_store", "history_db_path", "graph_store", "reranker")


class ConfigurationService:
    """POST /configure and GET /configure: a change checked, then applied to the configured providers (and, when it
    changes the embedder, every memory re-embedded by `on_embedder_change`); the configuration shown redacted."""

    def __init__(self, configured: ConfiguredProviders, on_embedder_change: Callable[[], object] | None = None) -> None:
        self._configured = configured
        self._on_embedder_change = on_embedder_change

    @property
    def providers(self) -> ActiveProviders:
        return self._configured.providers

    def current(self) -> dict[str, Any]:
        return self._configured.current()

    def refresh(self) -> bool:
        return self._configured.refresh()

    def redacted(self) -> dict[str, Any]:
        shown: dict[str, Any] = redact(self.current())
        return shown

    def bundled(self) -> dict[str, list[str]]:
        return self._configured.bundled()

    def update(self, body: dict[str, Any]) -> None:
        check_keys(body)
        self._configured.apply(body, self._on_embedder_change)


MAX_CUSTOM_INSTRUCTIONS = 20_000  # characters


def check_keys(body: dict[str, Any]) -> None:
    problem = json_problem(body, "the configuration")
    if problem is not None:
        raise ValidationError(f"{problem}.")
    fixed = [k for k in body if k in FIXED_BY_DEPLOYMENT]
    if fixed:
        raise ValidationError(
            f"{', '.join(fixed)} cannot be configured here: storage is chosen by the deployment "
            f"(MNEMO_DATA_DIR locally, the AWS template in the cloud). Configurable keys: {', '.join(CONFIGURABLE)}."
        )
    unknown = [k for k in body if k not in CONFIGURABLE]
    if unknown:
        raise ValidationError(
            f"Unknown configuration keys: {', '.join(unknown)}. Configurable: {', '.join(CONFIGURABLE)}."
        )
    for kind in ("llm", "embedder"):
        if kind in body and not (body[kind] is None and kind == "llm"):
            _check_section(kind, body[kind])
    instructions = body.get("custom_instructions")
    if instructions is not None and not isinstance(instructions, str):
        raise ValidationError("custom_instructions must be a string.")
    if isinstance(instructions, str) and len(instructions) > MAX_CUSTOM_INSTRUCTIONS:
        raise ValidationError(f"custom_instructions takes at most {MAX_CUSTOM_INSTRUCTIONS:,} characters.")


def _check_section(kind: str, section: Any) -> None:
    if not isinstance(section, dict):
        raise ValidationError(f"{kind} must be an object with 'provider' and 'config'.")
    extra = [k for k in section if k not in ("provider", "config")]
    if extra:
        raise ValidationError(f"{kind} takes only 'provider' and 'config', not {', '.join(extra)}.")


def names_an_llm(store: MemoryStore, defaults: dict[str, Any]) -> bool:
    """Whether the configuration in effect (the deployment's defaults with the stored changes) names an LLM, read
    without building any provider (what a function that calls none asks: the Dream scheduler)."""
    overrides = store.get_setting(SETTINGS_KEY) or {}
    llm = merge_config(copy.deepcopy(defaults), overrides).get("llm")
    return isinstance(llm, dict) and bool(llm.get("provider"))
