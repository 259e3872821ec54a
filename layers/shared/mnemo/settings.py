"""Typed settings, read from MNEMO_* environment variables (and overridden by `mnemo serve` flags)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import AliasChoices, Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict


def _env(name: str) -> AliasChoices:
    """Read from MNEMO_<NAME>, or from <NAME> as Mem0's server names it."""
    return AliasChoices(f"MNEMO_{name}", name)


_ORIGIN = re.compile(r"^https?://[^/?#\s*]+$")


def browser_origin(value: str) -> str:
    """A web origin as browsers send it in `Origin` (`scheme://host[:port]`; a trailing slash is dropped)."""
    origin = value.strip().rstrip("/").lower()  # browsers send the scheme and host in lower case
    if not _ORIGIN.match(origin):
        raise ValueError(
            f"{value!r} is not a web origin: write scheme://host[:port], e.g. https://dashboard.example.com "
            "(no path, no wildcard: list each origin)"
        )
    return origin


def origin_list(value: Any) -> Any:
    """An origin list from the environment: a JSON list, or comma-separated; empty is the empty list."""
    if not isinstance(value, str):
        return value
    text = value.strip()
    if text.startswith("["):
        return json.loads(text)
    return [part for part in (p.strip() for p in text.split(",")) if part]


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="MNEMO_", extra="ignore", populate_by_name=True)

    data_dir: Path = Field(default=Path("./data"), description="Where the SQLite file lives.")
    host: str = "127.0.0.1"
    port: int = 8000
    log_level: Literal["debug", "info", "warning", "error"] = "info"

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

    # ---- AWS backend: DynamoDB records, OpenSearch index, SQS jobs, SNS events (mnemo.adapters.aws.factory) ----
    backend: Literal["local", "aws"] = Field(default="local", description="Embedded SQLite, or the AWS services.")
    aws_region: str | None = Field(default=None, description="None: the AWS SDK's default region chain.")
    dynamodb_table: str = "mnemo-memories"
    opensearch_endpoint: str | None = Field(default=None, description="https://… of the domain or collection.")
    opensearch_index: str = "mnemo-memories"
    opensearch_service: Literal["es", "aoss"] = Field(
        default="es", description="SigV4 service name: es for a domain, aoss for a Serverless collection."
    )
    opensearch_refresh: Literal["false", "true", "wait_for"] = "false"
    queue_url: str | None = Field(default=None, description="The SQS queue of slow work (FIFO when it ends .fifo).")
    topic_arn: str | None = Field(default=None, description="The SNS topic events are published to.")
    accounts_table: str = Field(default="mnemo-accounts", description="Users, API keys and refresh tokens.")
    jobs_table: str = Field(default="mnemo-jobs", description="Finished queue jobs (the ingest worker's idempotency).")
    # Attempts of a platform add failing for a reason that passes, counted in its event (not in the message's
    # receive count: a message skipped behind a failed one of its group is received without running). The queue's
    # maxReceiveCount is twice this, so such a message is never dead-lettered before it has run.
    job_attempts: int = Field(default=5, ge=1)
    job_retry_seconds: float = Field(
        default=30.0, ge=0, description="A failed job's first retry delay on SQS, doubled per attempt (15 min at most)."
    )
    request_log_table: str = Field(default="mnemo-request-log", description="The API call log (TTL).")
    # Secrets on AWS: the NAMES of SSM Parameter Store SecureString parameters, read once at cold start.
    # A secret given directly (JWT_SECRET, ...) wins over its parameter.
    jwt_secret_parameter: str | None = None
    admin_api_key_parameter: str | None = None
    llm_api_key_parameter: str | None = Field(default=None, description="Becomes llm_config.api_key.")
    embedder_api_key_parameter: str | None = Field(default=None, description="Becomes embedder_config.api_key.")

    # ---- authentication (self-hosted surface) ----
    auth_disabled: bool = Field(
        default=False, validation_alias=_env("AUTH_DISABLED"), description="Open every route: development only."
    )
    jwt_secret: SecretStr | None = Field(
        default=None, validation_alias=_env("JWT_SECRET"), description="HS256 key of the access and refresh tokens."
    )
    admin_api_key: SecretStr | None = Field(
        default=None, validation_alias=_env("ADMIN_API_KEY"), description="The legacy admin key (X-API-Key)."
    )
    access_token_minutes: int = Field(default=30, gt=0)
    refresh_token_days: int = Field(default=30, gt=0)
    # argon2id cost; the defaults are RFC 9106's second recommendation. Tests lower them, never production.
    argon2_time_cost: int = Field(default=3, ge=1)
    argon2_memory_kib: int = Field(default=65536, ge=8)
    argon2_parallelism: int = Field(default=4, ge=1)
    # Calls per minute per client address on the open auth routes; 0 turns a limit off.
    rate_limit_register: int = Field(default=5, ge=0)
    rate_limit_login: int = Field(default=10, ge=0)
    rate_limit_refresh: int = Field(default=20, ge=0)
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
    embed_batch_wait_ms: float = Field(
        default=1.0,
        ge=0,
        le=50,
        description="mnemo serve: how long an embedder call waits for concurrent ones to share its call (0: never).",
    )
    embed_batch_max_texts: int = Field(default=16, ge=1, description="Texts one shared embedder call takes at most.")
    request_log_retention_days: int = Field(default=30, ge=1, validation_alias=_env("REQUEST_LOG_RETENTION_DAYS"))

    # ---- webhooks (platform) ----
    # Seconds between the attempts of a delivery that fails (each with up to 20% jitter); after the last, the
    # delivery is dead-lettered. The default spans 37.6 hours (30 at least with the jitter), more than a day:
    # 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, 10 h.
    webhook_retry_schedule: Annotated[tuple[float, ...], NoDecode] = Field(
        default=(5.0, 300.0, 1800.0, 7200.0, 18000.0, 36000.0, 36000.0, 36000.0),
        description="MNEMO_WEBHOOK_RETRY_SCHEDULE: seconds between attempts, separated by commas.",
    )
    webhook_allow_private_urls: bool = Field(
        default=False, description="Let webhooks point at loopback and private addresses: local development only."
    )
    webhook_connect_timeout: float = Field(default=3.0, gt=0, description="Seconds to connect to a receiver.")
    webhook_timeout: float = Field(default=10.0, gt=0, description="Seconds for a whole delivery attempt.")
    webhook_queue_url: str | None = Field(
        default=None,
        description="AWS: the SQS queue of webhook deliveries (the delivery function's own), where a failed "
        "attempt's retry is sent, delayed until it is due (up to 15 minutes; later ones are the schedule's).",
    )

    # ---- Dream (platform): what the deployment offers its projects, as the entitlements of /dream/config/ ----
    plan: str = Field(
        default="self-hosted", min_length=1, max_length=64, description="The plan name the entitlements show."
    )
    reflection_interval_days: int = Field(
        default=7, ge=1, le=365, description="Synthesis runs at most once per this many days per user."
    )
    dream_synthesis: bool = Field(
        default=True, description="The plan offers Synthesis (it still needs an LLM: MNEMO_LLM_PROVIDER)."
    )
    reflection_min_memories: int = Field(
        default=20, ge=2, le=10_000, description="A user needs this many memories of their own to be reflected on."
    )
    reflection_max_memories: int = Field(
        default=200, ge=2, le=1_000, description="The newest memories of a user one Synthesis run reads."
    )
    reflection_max_syntheses: int = Field(
        default=10, ge=1, le=100, description="Synthesized memories one run may write per user."
    )
    dream_schedule_seconds: float = Field(
        default=3600.0,
        ge=1,
        le=86_400,
        description="Locally: how often `mnemo serve` looks for users due a Synthesis run (on AWS, the "
        "DreamSchedule's rate in template.yaml).",
    )
    dream_lease_seconds: float = Field(
        default=900.0,
        ge=60,
        le=86_400,
        description="A run holds the user it reflects on this long; a run that died lets go after it.",
    )
    dream_part_seconds: float = Field(
        default=120.0,
        ge=1,
        le=600,
        description="A Dream run goes on in a queue message of its own after this long (a worker call's budget).",
    )

    # ---- the embedded search index (mnemo.adapters.sqlite.memory_index) ----
    index_ann_min_rows: int = Field(
        default=20_000,
        ge=1,
        description="A search over this many memories or more (one user's, or all of them) takes its semantic "
        "candidates from the approximate index (faiss IVF, int8), built once a store holds this many; fewer are "
        "scanned exactly.",
    )
    index_ann_nprobe: int = Field(
        default=64,
        ge=1,
        le=4096,
        description="Inverted lists the approximate index scans per search: more is slower and closer to exact.",
    )
    prewarm_page_cache: bool = Field(
        default=True,
        description="A serving process asks the kernel to read the data dir's files into its page cache at start "
        "(in the background, when they fit in half the available memory), so that a user's first search does not "
        "wait on the disk (mnemo.adapters.sqlite.page_cache).",
    )
    index_keyword_term_cap: int = Field(
        default=20_000,
        ge=1,
        description="A query word found in more memories than this is left out of the keyword (BM25) search: its "
        "weight is low, and reading and ranking its rows costs about 0.5 µs each (a store of fewer memories keeps "
        "every word).",
    )

    # ---- memory decay (platform): the v3 search of a project with `decay` on (mnemo.services.decay) ----
    decay_half_life_days: float = Field(
        default=365.0,
        gt=0,
        le=36500,
        description="Days after which a memory's freshness is halved (counted from when it was stated).",
    )
    decay_access_boost: float = Field(
        default=0.1,
        ge=0,
        le=0.3,
        description="What recent retrievals add at most to a fresh memory's multiplier (scaled by its freshness).",
    )
    decay_access_half_life_days: float = Field(
        default=14.0, gt=0, le=36500, description="Days after which a retrieval counts half."
    )

    # ---- profiles (platform) ----
    profile_debounce_seconds: float = Field(
        default=2.0,
        ge=0,
        le=900,
        description="A user's profile is regenerated once their memories have not changed for this long (a burst "
        "of adds costs one generation).",
    )
    profile_max_wait_seconds: float = Field(
        default=30.0,
        ge=0,
        le=900,
        description="...but no later than this after the first change of the burst (a stream that never pauses).",
    )
    profile_queue_url: str | None = Field(
        default=None,
        description="AWS: the standard SQS queue of profile generations and jobs (the ingest worker reads it); "
        "without it the profile routes answer 503.",
    )

    @field_validator("webhook_retry_schedule", mode="before")
    @classmethod
    def _schedule(cls, value: Any) -> Any:
        if isinstance(value, str):
            parts = [p.strip() for p in value.split(",") if p.strip()]
            if not parts:
                raise ValueError("give the seconds between attempts, separated by commas (e.g. 5,300,1800)")
            return tuple(float(p) for p in parts)
        return value

    @field_validator("webhook_retry_schedule")
    @classmethod
    def _schedule_bounds(cls, value: tuple[float, ...]) -> tuple[float, ...]:
        if not value or len(value) > 50 or any(not 0 <= v <= 7 * 86400 for v in value):
            raise ValueError("1 to 50 delays, each 0 to 604,800 seconds (a week)")
        return value

    # ---- MCP: the tools at POST /mcp and `mnemo mcp` (stdio) ----
    mcp_default_user_id: str = Field(
        default="mnemo-mcp",
        min_length=1,
        max_length=255,
        description="Whose memories an MCP tool call touches when it names no user, agent, app or run (as "
        "MEM0_DEFAULT_USER_ID of Mem0's MCP server).",
    )
    mcp_url: str | None = Field(
        default=None,
        description="`mnemo mcp` only: the base URL of a remote mnemo to serve the tools from (e.g. "
        "https://memory.example.com); unset: the local data dir, in this process.",
    )
    mcp_api_key: SecretStr | None = Field(
        default=None,
        description="`mnemo mcp` only: the key its tool calls send: a project key (Authorization: Token) or an "
        "m0sk_ key (X-API-Key); unset: none (a local self-hosted API with AUTH_DISABLED only).",
    )

    # ---- CORS: the browser origins that may call the API (mnemo.api.app.create_app's cors_origins) ----
    dashboard_url: str = Field(
        default="http://localhost:3000",
        validation_alias=_env("DASHBOARD_URL"),
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

    def secret(self, name: str) -> str | None:
        value: SecretStr | None = getattr(self, name)
        return value.get_secret_value() if value is not None and value.get_secret_value() else None

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
