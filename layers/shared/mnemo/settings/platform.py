"""The platform's features: webhook delivery, Dream, memory decay, profiles, and the MCP tools' defaults."""

from typing import Annotated, Any

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict


class PlatformSettings(BaseSettings):
    """Webhooks, Dream, decay, profiles and MCP."""

    model_config = SettingsConfigDict(env_prefix="MNEMO_", extra="ignore", populate_by_name=True)

    # ---- webhooks (platform) ----
    # Seconds between the attempts of a delivery that fails (each with up to 20% jitter); after the last, the
    # delivery is dead-lettered. The default spans 37.6 hours (30 at least with the jitter), more than a day:
    # 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, 10 h.
    webhook_retry_schedule: Annotated[tuple[float, ...], NoDecode] = Field(
        default=(5.0, 300.0, 1800.0, 7200.0, 18000.0, 36000.0, 36000.0, 36000.0),
        description="Seconds between the attempts of a failing webhook delivery, separated by commas (each with up to "
        "20% jitter); after the last, the delivery is dead-lettered.",
    )
    webhook_allow_private_urls: bool = Field(
        default=False, description="Let webhooks point at loopback and private addresses: local development only."
    )
    webhook_connect_timeout: float = Field(default=3.0, gt=0, le=300, description="Seconds to connect to a receiver.")
    webhook_timeout: float = Field(
        default=10.0,
        gt=0,
        le=300,  # an attempt ends well before a test event's delivery falls due to the worker (its TEST_HELD)
        description="Seconds for a whole delivery attempt.",
    )
    webhook_queue_url: str | None = Field(
        default=None,
        description="AWS: the SQS queue of webhook deliveries (the delivery function's own), where a failed "
        "attempt's retry is sent, delayed until it is due (up to 15 minutes; later ones are the schedule's).",
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
        description="A profile whose memories keep changing is regenerated no later than this after the first "
        "change of the burst (a stream that never pauses still gets one).",
    )
    profile_queue_url: str | None = Field(
        default=None,
        description="AWS: the standard SQS queue of profile generations and jobs (the ingest worker reads it); "
        "without it the profile routes answer 503.",
    )

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
