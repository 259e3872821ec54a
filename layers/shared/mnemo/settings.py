"""Typed settings, read from MNEMO_* environment variables (and overridden by `mnemo serve` flags)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="MNEMO_", extra="ignore")

    data_dir: Path = Field(default=Path("./data"), description="Where the SQLite file lives.")
    host: str = "127.0.0.1"
    port: int = 8000
    log_level: Literal["debug", "info", "warning", "error"] = "info"

    embedder_provider: str = "local"
    embedder_config: dict[str, Any] = Field(default_factory=dict)
    llm_provider: str | None = None
    llm_config: dict[str, Any] = Field(default_factory=dict)

    semantic_weight: float = 0.5
    keyword_weight: float = 0.5

    @property
    def database_path(self) -> Path:
        return self.data_dir / "mnemo.sqlite3"

    def default_provider_config(self) -> dict[str, Any]:
        return {
            "version": "v1.1",
            "embedder": {"provider": self.embedder_provider, "config": dict(self.embedder_config)},
            "llm": {"provider": self.llm_provider, "config": dict(self.llm_config)} if self.llm_provider else None,
            "custom_instructions": None,
        }
