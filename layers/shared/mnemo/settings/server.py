"""How `mnemo serve` serves: where its data lives, its address, its processes and threads, the bounds of its HTTP
server's edge (a request's head, slow and idle clients, open connections), the request log's retention, and which
browser origins may call it (CORS)."""

from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from mnemo.settings.aliases import mem0_name
from mnemo.settings.origins import browser_origin, origin_list


class ServerSettings(BaseSettings):
    """The process and its HTTP server."""

    model_config = SettingsConfigDict(env_prefix="MNEMO_", extra="ignore", populate_by_name=True)

    data_dir: Path = Field(
        default=Path("./data"),
        description="The directory of the SQLite file mnemo.sqlite3, the platform projects' files and the generated "
        "JWT secret.",
    )
    host: str = Field(
        default="127.0.0.1",
        description="The address `mnemo serve` binds. With authentication disabled it refuses any address but the "
        "loopback interface.",
    )
    port: int = Field(default=8000, description="The port `mnemo serve` listens on.")
    log_level: Literal["debug", "info", "warning", "error"] = Field(
        default="info", description="The least severe log level written."
    )

    http_workers: int = Field(
        default=1,
        ge=1,
        le=32,
        description="mnemo serve: processes serving the data dir on one port, each with the index in memory, kept in "
        "step through the SQLite file (mnemo.adapters.sqlite.change_log). Each holds its own copy of the index: "
        "memory grows with each.",
    )
    pin_workers: Literal["auto", "true", "false"] = Field(
        default="auto",
        description="mnemo serve --workers, on Linux: each worker process kept on a CPU of its own "
        "(sched_setaffinity). auto: when there are as many workers as CPUs this process may use; true: always (worker "
        "i on the i-th CPU, round the CPUs again when there are more workers); false: never.",
    )
    http_inline: Literal["auto", "true", "false"] = Field(
        default="auto",
        description="mnemo serve: the memory read routes (search, list, get) run their work in the event loop "
        "instead of a worker thread while every provider runs in this process (the local embedder, no LLM; "
        "otherwise they use a thread, as every other route does). auto: when the process is kept on one CPU "
        "(pinned workers), where a thread runs nothing beside the loop and only costs its hand-off; true: always; "
        "false: never.",
    )
    http_threads: int = Field(
        default=8,
        ge=1,
        description="mnemo serve: how many requests run their synchronous part at once (the others wait their turn).",
    )
    http_max_request_line_bytes: int = Field(
        default=65_536,
        ge=1_024,
        description="mnemo serve: the longest request target (path and query string, as sent) in bytes; a longer one "
        "is answered 414 and the connection closed. A `filters` query parameter at its 16,384-character bound fits "
        "even with every character percent-encoded.",
    )
    http_max_header_bytes: int = Field(
        default=8_192,
        ge=256,
        description="mnemo serve: the largest header (name and value) in bytes; a larger one is answered 431 and the "
        "connection closed.",
    )
    http_max_headers_bytes: int = Field(
        default=32_768,
        ge=1_024,
        description="mnemo serve: the bytes of all of a request's headers together; past them the request is answered "
        "431 and the connection closed, without reading the rest.",
    )
    http_head_timeout_seconds: float = Field(
        default=10.0,
        gt=0,
        description="mnemo serve: a client must have sent a request's line and headers within this many seconds of "
        "connecting or of the previous response, else its connection is closed.",
    )
    http_keep_alive_seconds: int = Field(
        default=5,
        ge=1,
        description="mnemo serve: an idle keep-alive connection (nothing sent since the last response) is closed after "
        "this many seconds.",
    )
    http_max_connections: int = Field(
        default=1_000,
        ge=1,
        description="mnemo serve: open connections per process at most (and at most half the process's open-file "
        "limit); past them a new connection is answered 503 at once and closed while the open ones are served.",
    )
    embed_batch_wait_ms: float = Field(
        default=1.0,
        ge=0,
        le=50,
        description="mnemo serve: how long an embedder call waits for concurrent ones to share its call (0: never).",
    )
    embed_batch_max_texts: int = Field(default=16, ge=1, description="Texts one shared embedder call takes at most.")
    request_log_retention_days: int = Field(
        default=30,
        ge=1,
        validation_alias=mem0_name("REQUEST_LOG_RETENTION_DAYS"),
        description="Request log entries older than this many days are pruned (at start-up and hourly; on AWS they "
        "expire by TTL).",
    )

    # ---- CORS: the browser origins that may call the API (mnemo.api.app.create_app's cors_origins) ----
    dashboard_url: str = Field(
        default="http://localhost:3000",
        validation_alias=mem0_name("DASHBOARD_URL"),
        description="The dashboard's origin, allowed by CORS as Mem0's server allows it; empty: none.",
    )
    cors_origins: Annotated[list[str] | None, NoDecode] = Field(
        default=None,
        description="More allowed origins beside dashboard_url (comma-separated or a JSON list). Unset: "
        "dashboard_url alone; set but empty: CORS off, no origin allowed at all.",
    )

    @field_validator("dashboard_url")
    @classmethod
    def _dashboard_origin(cls, value: str) -> str:
        return browser_origin(value) if value.strip() else ""

    @field_validator("cors_origins", mode="before")
    @classmethod
    def _origin_list(cls, value: Any) -> Any:
        return origin_list(value)

    @field_validator("cors_origins")
    @classmethod
    def _origins(cls, value: list[str] | None) -> list[str] | None:
        return None if value is None else [browser_origin(v) for v in value]

    @property
    def cors_allowed_origins(self) -> tuple[str, ...]:
        """Every origin CORS allows: dashboard_url and cors_origins; none when cors_origins is set empty."""
        if self.cors_origins == []:
            return ()
        listed = [self.dashboard_url, *(self.cors_origins or ())]
        return tuple(dict.fromkeys(o for o in listed if o))

    @property
    def database_path(self) -> Path:
        return self.data_dir / "mnemo.sqlite3"

    @property
    def jwt_secret_path(self) -> Path:
        """Where `mnemo serve` keeps the secret it generated when none was given."""
        return self.data_dir / "jwt_secret"

    @property
    def config_encryption_key_path(self) -> Path:
        """Where the key sealing the stored provider keys is kept when config_encryption_key is not set."""
        return self.data_dir / "config_encryption_key"
