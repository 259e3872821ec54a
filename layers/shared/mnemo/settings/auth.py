"""Authentication of the self-hosted surface: the secrets, token lifetimes, password hashing cost and the rate
limits of the open routes."""

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

from mnemo.settings.aliases import mem0_name


class AuthSettings(BaseSettings):
    """Secrets, tokens, password hashing and rate limits."""

    model_config = SettingsConfigDict(env_prefix="MNEMO_", extra="ignore", populate_by_name=True)

    # ---- authentication (self-hosted surface) ----
    auth_disabled: bool = Field(
        default=False,
        validation_alias=mem0_name("AUTH_DISABLED"),
        description="true, 1, yes or on: every route is open and acts as an admin (local development only; the "
        "platform routes still need a project key).",
    )
    jwt_secret: SecretStr | None = Field(
        default=None,
        validation_alias=mem0_name("JWT_SECRET"),
        description="HS256 key of the access and refresh tokens; unset, `mnemo serve` makes one once and keeps it in "
        "<data dir>/jwt_secret (mode 0600).",
    )
    config_encryption_key: SecretStr | None = Field(
        default=None,
        description="Fernet key sealing the provider keys POST /configure stores (several, comma-separated, to "
        "rotate: the first seals, every one opens); unset, one is made on first need and kept in "
        "<data dir>/config_encryption_key (mode 0600). On AWS, name an SSM parameter instead "
        "(config_encryption_key_parameter).",
    )
    admin_api_key: SecretStr | None = Field(
        default=None,
        validation_alias=mem0_name("ADMIN_API_KEY"),
        description="The legacy admin key, sent as X-API-Key (16 characters or more).",
    )
    access_token_minutes: int = Field(default=30, gt=0, description="How long an access token lasts, in minutes.")
    refresh_token_days: int = Field(
        default=30, gt=0, description="How long a refresh token lasts, in days (each works once)."
    )
    # argon2id cost; the defaults are RFC 9106's second recommendation. Tests lower them, never production.
    argon2_time_cost: int = Field(
        default=3,
        ge=1,
        description="argon2id passes over memory for a password hash (RFC 9106). A hash made with other parameters "
        "is upgraded at the next login.",
    )
    argon2_memory_kib: int = Field(default=65536, ge=8, description="argon2id memory per password hash, in KiB.")
    argon2_parallelism: int = Field(default=4, ge=1, description="argon2id lanes per password hash.")
    # Calls per minute per client address on the open auth routes; 0 turns a limit off.
    rate_limit_register: int = Field(
        default=5, ge=0, description="Calls of /auth/register per minute per client address; 0: no limit."
    )
    rate_limit_login: int = Field(
        default=10, ge=0, description="Calls of /auth/login per minute per client address; 0: no limit."
    )
    rate_limit_refresh: int = Field(
        default=20, ge=0, description="Calls of /auth/refresh per minute per client address; 0: no limit."
    )

    def secret(self, name: str) -> str | None:
        value: SecretStr | None = getattr(self, name)
        return value.get_secret_value() if value is not None and value.get_secret_value() else None
