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
        default=False, validation_alias=mem0_name("AUTH_DISABLED"), description="Open every route: development only."
    )
    jwt_secret: SecretStr | None = Field(
        default=None,
        validation_alias=mem0_name("JWT_SECRET"),
        description="HS256 key of the access and refresh tokens.",
    )
    admin_api_key: SecretStr | None = Field(
        default=None, validation_alias=mem0_name("ADMIN_API_KEY"), description="The legacy admin key (X-API-Key)."
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

    def secret(self, name: str) -> str | None:
        value: SecretStr | None = getattr(self, name)
        return value.get_secret_value() if value is not None and value.get_secret_value() else None
